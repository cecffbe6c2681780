//! A worker thread: the state it keeps on its own stack, how it starts and how it ends, and how
//! code running on the thread finds it.
//!
//! **Start.** [`crate::runtime::registry::thread_builder::start_pool`] creates a pool's shared state
//! ([`Registry::new`], which starts no threads) and hands one `ThreadBuilder` per worker, holding
//! that worker's queue owner handles, to the spawn handler, which runs it on a thread; the thread
//! pins itself to its CPU if the builder asked for pinning, records its stack base (for the stack
//! guard, `wait.rs`), publishes itself in a thread-local and runs [`main_loop`] until the pool
//! terminates. With `use_current_thread`, worker 0 is the building thread instead
//! ([`adopt_current_thread`], `adopted.rs`).
//!
//! **The current worker.** A [`WorkerThread`] lives on its thread's stack (or, adopted, in a
//! thread-local box) and is reached through the thread-local [`WORKER_THREAD`], set while the
//! thread runs as that worker and null otherwise. Code borrows it with
//! [`WorkerThread::with_current`], which holds the one proof that the borrow is sound (the
//! invariant stated on `WORKER_THREAD`).
//!
//! The rest of the worker, one concept to a file:
//!
//! * `queues.rs`: its two levels of jobs, the private stack `join` pushes on and the public deque
//!   thieves steal from; pushes, pops and their announcement.
//! * `heartbeat.rs`: the sharing heartbeat that publishes the oldest private job while some
//!   worker idles.
//! * `inline_budget.rs`: which `join`s run b as a plain call, without pushing it.
//! * `idle_poll.rs`: "is some worker idle?", the question the iterators' loops poll, and its
//!   back-off.
//! * `search.rs`: where an idle or waiting worker looks for work, and the patrol's heavy steal.
//! * `capped.rs`: the cap it runs under, and the places it reserves in caps and gives back.
//! * `deferred_release.rs`: the counts of a scope's dropped jobs, released in one decrement.
//! * `wait.rs`: waiting by working, idling through the sleep module, and the stack guard.
//! * `adopted.rs`: `use_current_thread`, a thread that is a worker only while it is in a call into
//!   its pool.

mod adopted;
mod capped;
mod deferred_release;
mod heartbeat;
mod idle_poll;
mod inline_budget;
mod queues;
mod search;
mod wait;

use std::cell::{Cell, RefCell};
use std::ptr;

use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use self::heartbeat::{PublishClock, PUBLISH_INTERVAL};
use self::queues::SPAWN_IDS;
use crate::platform::sync::{shared, sim_bug, thread_local, Arc, AtomicBool};
use crate::platform::unwind::{self, Payload};
use crate::runtime::cancel::{self, node::Node};
use crate::runtime::deque::Worker;
use crate::runtime::jobs::cap::CapId;
use crate::runtime::jobs::job::JobRef;
use crate::runtime::jobs::jobstack::JobStackOwner;
use crate::runtime::jobs::latch::CountLatch;
use crate::runtime::jobs::latent;
use crate::runtime::jobs::region::{Own, RegionTag, WaitFor};
use crate::runtime::registry::slots::Decision;
use crate::runtime::registry::{Registry, WorkerCounters, WorkerQueues};
use crate::runtime::sleep::slot::Slot;
use crate::runtime::trace::{Event, JobKind, RingWriter, Source};

pub(crate) use self::adopted::{
    adopt_current_thread, adopted, current_or_adopted, is_worker_thread, leave_terminated_pool,
};
pub(crate) use self::capped::CapHold;
pub(crate) use self::heartbeat::{publish_all_now, publish_now, publish_on_heartbeat};
pub(crate) use self::idle_poll::{
    back_off_idle_polls, end_idle_poll_back_off, idle_polls_muted, offer_waiting, some_worker_idle,
    some_worker_idle_in,
};
pub(crate) use self::inline_budget::{take_inline_join, take_latent_join};

thread_local! {
    /// The worker this thread runs as, or null. Const-initialised: reading it is a plain TLS load.
    ///
    /// **Invariant**: while non-null, it points to a live [`WorkerThread`] of this thread, which
    /// stays live until this is null again. So a reference made from it is valid for as long as the
    /// frame that read it runs, and [`WorkerThread::with_current`] lends it for the length of a
    /// call. Why it holds:
    /// * only [`WorkerThread::enter`] sets it, and only [`leave`] clears it;
    /// * a pool thread's worker is a local of [`main_loop`], which enters before the thread runs
    ///   any pool code and leaves before the local is dropped;
    /// * a `use_current_thread` worker is entered by [`Adopted::run`](adopted::Adopted::run) for the length of its call,
    ///   and left when that call returns or unwinds; `adopted.rs` frees it only while this is null.
    static WORKER_THREAD: Cell<*const WorkerThread> = const { Cell::new(ptr::null()) };
}

/// The state of one worker thread; lives on that thread's stack for its whole life.
pub(crate) struct WorkerThread {
    /// The owner handle of this worker's private job stack (thieves hold its `JobStackThief` in
    /// `registry.thread_infos[index]`). Created with the registry and moved into this thread,
    /// the only one that uses it: a `WorkerThread` is neither `Send` nor `Sync`, and
    /// [`WORKER_THREAD`] lends it only on its own thread.
    jobs: JobStackOwner,
    /// The pool's idle flag (set while the idle count is non-zero), read on every push.
    /// **Invariant**: points into the registry's sleep state, which `registry` keeps alive: valid
    /// for as long as `self` is.
    some_idle: *const AtomicBool,
    /// The pool's second idle flag (set while two or more workers idle), read by polls.
    /// **Invariant**: as for `some_idle`.
    several_idle: *const AtomicBool,
    /// This worker's sleep slot, which the latch of each `join` job b keeps to wake us.
    /// **Invariant**: points into the registry's sleep state, which `registry` keeps alive: valid
    /// for as long as `self` is.
    sleep_slot: *const Slot,
    /// This worker's statistics. **Invariant**: points into `registry.thread_infos[index]`, which
    /// `registry` keeps alive: valid for as long as `self` is. Only this worker writes them.
    stats: *const WorkerCounters,
    /// The owner handle of this worker's public deque (thieves hold its `Stealer` in
    /// `registry.thread_infos[index]`); like `jobs`, used by this thread only.
    deque: Worker<JobRef>,
    index: usize,
    /// Ticks (see [`crate::platform::clock::ticks`]) of this worker's last heartbeat publication.
    last_publish: Cell<u64>,
    /// [`PUBLISH_INTERVAL`] in ticks.
    publish_interval: u64,
    /// The heartbeat's interval is `publish_interval << publish_backoff`: each publication that
    /// woke a sleeper and came back to this worker unstolen doubles it, up to 16 times the
    /// interval; a stolen job resets it ([`publication_came_back`](Self::publication_came_back)).
    publish_backoff: Cell<u32>,
    /// This worker's last publication woke a sleeper (see `publication_came_back`).
    publication_woke: Cell<bool>,
    /// When the heartbeat check reads the clock.
    publish_clock: PublishClock,
    /// The pool has this worker only: nothing it pushes can be stolen. Follows a resize at the
    /// next job this worker takes from a queue ([`follow_pool_size`](Self::follow_pool_size)).
    alone: Cell<bool>,
    /// `alone`, and running under no cancellation node: a parallel call may run as one sequential
    /// fold, with no batches and so no boundaries. Kept beside `alone` by the region guards, so
    /// that asking costs one load, as asking `alone` did.
    runs_whole: Cell<bool>,
    /// The pool has 3 workers or more: its loops offer their rest from inside their items
    /// (`crate::runtime::sharing::leaf_start`). Follows a resize like `alone`.
    offers_rest: Cell<bool>,
    /// The pool size `alone` and `offers_rest` were computed for, and the inline-join budget's
    /// offered depth is ([`inline_budget::offered_depth`]).
    sized_for: Cell<usize>,
    /// Take this worker's own public jobs oldest first (`ThreadPoolBuilder::breadth_first`).
    breadth_first: bool,
    /// Keep no join or split private to this worker, so that work waiting for its siblings
    /// completes as on rayon (`ThreadPoolBuilder::siblings_may_wait`): no inline-join budget
    /// (`inline_budget.rs`), every parallel call splits up front (`sharing::start_as`).
    siblings_may_wait: bool,
    rng: RefCell<Xoshiro256PlusPlus>,
    /// Below this stack address a waiting worker stops stealing (stack guard).
    stack_limit: usize,
    /// This worker's trace ring, if its pool traces. Every event site tests it once, and none is
    /// on the `join` fast path (see `crate::runtime::trace`).
    trace: Option<RingWriter>,
    /// The region this worker runs in: the tag of the jobs it creates (see
    /// `crate::runtime::jobs::region`).
    region: Cell<RegionTag>,
    /// Jobs this worker has `spawn`ed onto its deque, counted, and the ids of the last
    /// [`SPAWN_IDS`] (see [`spawned_since`](Self::spawned_since)).
    spawn_count: Cell<u64>,
    spawn_ids: [Cell<usize>; SPAWN_IDS],
    /// Regions this worker has open (queue-taken jobs and scopes nested on its stack): the level
    /// of the next one.
    open_regions: Cell<usize>,
    /// The cancellation node of the region this worker runs in, or null (see
    /// `crate::runtime::cancel`). **Invariant**: non-null only while a region opened with it is
    /// open on this worker, and the node outlives that region.
    cancel: Cell<*const Node>,
    /// The cap of the region this worker runs in, or none (see `crate::runtime::jobs::cap`): it
    /// is inside that cap and every cap enclosing it.
    cap: Cell<CapId>,
    /// Counts of a scope's count latch that this worker holds for jobs it dropped unrun, to be
    /// released in one decrement (see `deferred_release.rs`, which states when it is empty).
    deferred_release: Cell<(*const CountLatch, usize)>,
    registry: Arc<Registry>,
}

/// Closes a region opened by [`WorkerThread::open_region`] when dropped.
pub(crate) struct RegionGuard<'a> {
    worker: &'a WorkerThread,
    outer: RegionTag,
    outer_cancel: *const Node,
    outer_cap: CapId,
}

impl Drop for RegionGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        let w = self.worker;
        w.open_regions.set(w.open_regions.get() - 1);
        w.region.set(self.outer);
        w.cancel.set(self.outer_cancel);
        w.runs_whole
            .set(w.alone.get() && self.outer_cancel.is_null());
        let cap = w.cap.replace(self.outer_cap);
        if cap != self.outer_cap {
            // Places this region's job or cap took: given back.
            w.leave_cap(cap, self.outer_cap);
        }
    }
}

impl WorkerThread {
    /// The worker running on this thread, or null: a pointer, for identity checks and null tests.
    /// To use the worker, borrow it with [`with_current`](Self::with_current).
    #[inline(always)]
    pub(crate) fn current() -> *const WorkerThread {
        WORKER_THREAD.with(Cell::get)
    }

    /// Runs `f` with the worker this thread runs as; `None` (and `f` not run) outside a pool, and
    /// on a `use_current_thread` thread outside its calls into the pool (see `adopted.rs`). The
    /// reference cannot outlive `f`.
    #[inline(always)]
    pub(crate) fn with_current<R>(f: impl FnOnce(&WorkerThread) -> R) -> Option<R> {
        Self::with_current_opt(|wt| wt.map(f))
    }

    /// [`with_current`](Self::with_current) for a caller that acts in both cases: `f` always runs,
    /// with `None` where there is no current worker (`f` may consume what it captured either way).
    #[inline(always)]
    pub(crate) fn with_current_opt<R>(f: impl FnOnce(Option<&WorkerThread>) -> R) -> R {
        let wt = Self::current();
        // SAFETY: by `WORKER_THREAD`'s invariant a non-null pointer is to this thread's live
        // worker, which stays live while this frame runs (the frame that entered it is below this
        // one, and leaves only after this call returns). `f` gets the reference for this call
        // only: `R` is chosen outside and cannot name its lifetime.
        f(unsafe { wt.as_ref() })
    }

    #[inline(always)]
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    /// True if this is the only worker of its pool (then no job of its can ever be stolen).
    #[inline(always)]
    pub(crate) fn is_alone(&self) -> bool {
        self.alone.get()
    }

    /// True if this worker is alone in its pool and runs under no cancellation node (see the
    /// field).
    #[inline(always)]
    pub(crate) fn runs_whole(&self) -> bool {
        self.runs_whole.get()
    }

    /// True if this worker keeps no join or split private (see the field).
    #[inline(always)]
    pub(crate) fn siblings_may_wait(&self) -> bool {
        self.siblings_may_wait
    }

    /// True if the pool has 3 workers or more (see the field).
    #[inline(always)]
    pub(crate) fn offers_rest(&self) -> bool {
        self.offers_rest.get()
    }

    /// The pool was resized since this worker last looked (`crate::runtime::registry::resize`):
    /// what it decides from the pool's size follows, at a job taken from a queue, so a job's
    /// subtree sees one size throughout. A call running alone when its pool grows stays alone
    /// until its worker takes its next job.
    #[inline(always)]
    fn follow_pool_size(&self) {
        let n = self.registry.num_threads();
        if n != self.sized_for.get() {
            self.resized(n);
        }
    }

    #[cold]
    fn resized(&self, n: usize) {
        self.sized_for.set(n);
        self.alone.set(n == 1);
        self.offers_rest.set(n >= 3);
        self.runs_whole.set(n == 1 && self.cancel.get().is_null());
        inline_budget::on_enter(n == 1);
    }

    /// This worker's sleep slot, for the latches it waits on.
    #[inline(always)]
    pub(crate) fn sleep_slot(&self) -> &Slot {
        // SAFETY: valid while `self` is (the field's invariant).
        unsafe { &*self.sleep_slot }
    }

    #[inline(always)]
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    #[inline(always)]
    fn stats(&self) -> &WorkerCounters {
        // SAFETY: valid while `self` is (the field's invariant).
        unsafe { &*self.stats }
    }

    /// The region this worker runs in: the tag for the jobs it creates now.
    #[inline(always)]
    pub(crate) fn region(&self) -> RegionTag {
        self.region.get()
    }

    /// A wait for everything created in the region this worker runs in (a scope, a broadcast):
    /// the region's key and depth.
    #[inline]
    pub(crate) fn wait_for_region(&self) -> WaitFor {
        let regions = self.registry.regions();
        let region = self.region.get();
        WaitFor::Key {
            key: regions.key_of(region),
            depth: regions.depth_of(region),
        }
    }

    /// A wait for job `id`, created by this worker in the region it runs in now (a `join`'s b, a
    /// loop's offered piece), and for what it creates: the region a thief opens for the job is
    /// one deeper than this worker's.
    #[inline]
    pub(crate) fn wait_for_job(&self, id: usize) -> WaitFor {
        WaitFor::Key {
            key: id,
            depth: self.registry.regions().depth_of(self.region.get()) + 1,
        }
    }

    /// Opens a region with `key` under `parent` and runs in it until the guard drops: for a job
    /// taken from a queue (key: the job's address, parent: its tag) and for a scope (key: the
    /// scope's address, parent: the region it was created in). Every nesting level has its own
    /// entry (see `crate::runtime::jobs::region`).
    #[inline]
    pub(crate) fn open_region(&self, key: usize, parent: RegionTag) -> RegionGuard<'_> {
        self.open_region_under(key, parent, Own::default())
    }

    /// [`open_region`](Self::open_region) under the region this worker runs in, with the region's
    /// jobs under cancellation node `node` (see `crate::runtime::cancel`): for `cancellable` and
    /// for a spawn made under a node. `node` must outlive the guard.
    #[inline]
    pub(crate) fn open_cancellable_region(
        &self,
        key: usize,
        node: &shared::Arc<Node>,
    ) -> RegionGuard<'_> {
        let own = Own {
            cancel: Some(shared::Arc::as_ptr(node) as usize),
            cap: None,
        };
        self.open_region_under(key, self.region.get(), own)
    }

    /// Runs `f` in a region of its own under `node` (see
    /// [`open_cancellable_region`](Self::open_cancellable_region)), returning its result or what
    /// it unwound with (a panic, or the `Cancelled` payload of a boundary).
    pub(crate) fn run_under<R>(
        &self,
        node: &shared::Arc<Node>,
        f: impl FnOnce() -> R,
    ) -> Result<R, Payload> {
        let key = 0u8;
        let _region = self.open_cancellable_region(&key as *const u8 as usize, node);
        unwind::halt_unwinding(f)
    }

    /// Keeps `payload`, a panic that a `join` drops while its other half unwinds, for the
    /// `cancellable` call of this worker's node if that node is cancelled (a panic wins over a
    /// cancellation); otherwise drops it.
    #[cold]
    pub(crate) fn keep_panic_if_cancelled(&self, payload: Payload) {
        if self.cancel_requested() && !cancel::is_cancellation(&payload) {
            // SAFETY: non-null (tested above) and live (the field's invariant).
            unsafe { (*self.cancel.get()).keep_panic(payload) };
        }
    }

    /// The node this worker runs under, shared: for work made here that may outlive the region
    /// (a `spawn`), which holds it.
    pub(crate) fn cancel_node_shared(&self) -> Option<shared::Arc<Node>> {
        let node = self.cancel.get();
        (!node.is_null()).then(|| {
            // SAFETY: every node a worker runs under is owned by a `shared::Arc`
            // (`open_cancellable_region` takes one, and regions opened for jobs copy such
            // addresses), and it is live (the field's invariant): one more count for the clone.
            unsafe {
                shared::Arc::increment_strong_count(node);
                shared::Arc::from_raw(node)
            }
        })
    }

    /// Opens a region with `key` under `parent`, with `own`'s cancellation node or cap instead of
    /// the parent's where it has one; the guard restores this worker's region, node and cap.
    #[inline]
    fn open_region_under(&self, key: usize, parent: RegionTag, own: Own) -> RegionGuard<'_> {
        let level = self.open_regions.get();
        let guard = RegionGuard {
            worker: self,
            outer: self.region.get(),
            outer_cancel: self.cancel.get(),
            outer_cap: self.cap.get(),
        };
        // The simulation's self-check (scripts/sim-bugs.sh): a table of 64 levels whose deeper
        // regions stay in the deepest one, as before entries were allocated at any depth.
        if !(sim_bug("bounded_regions") && level >= 64) {
            let regions = self.registry.regions();
            let tag = regions.tag(self.index, level);
            let (cancel, cap) = regions.open(tag, key, parent, own);
            self.region.set(tag);
            self.cancel.set(cancel as *const Node);
            self.cap.set(cap);
        } else {
            if let Some(node) = own.cancel {
                self.cancel.set(node as *const Node);
            }
            if let Some(cap) = own.cap {
                self.cap.set(cap);
            }
        }
        if own.cancel.is_some() {
            inline_budget::on_cancellable_start();
        }
        self.runs_whole
            .set(self.alone.get() && self.cancel.get().is_null());
        self.open_regions.set(level + 1);
        guard
    }

    /// The cancellation node this worker runs under, or null (see the field).
    #[inline(always)]
    pub(crate) fn cancel_node(&self) -> *const Node {
        self.cancel.get()
    }

    /// True if this worker runs under a cancellation node that is cancelled.
    #[inline(always)]
    pub(crate) fn cancel_requested(&self) -> bool {
        let node = self.cancel.get();
        // SAFETY: a non-null node outlives the region this worker runs in (the field's invariant).
        !node.is_null() && unsafe { (*node).is_cancelled() }
    }

    /// A boundary (see `crate::runtime::cancel`): unwinds with `Cancelled` if this worker's node is
    /// cancelled and unwinding is possible.
    #[inline(always)]
    pub(crate) fn stop_if_cancelled(&self) {
        if cancel::CAN_UNWIND && self.cancel_requested() {
            cancel::unwind_cancelled();
        }
    }

    /// Executes a job taken from this worker's own public deque.
    #[inline]
    pub(crate) fn execute(&self, job: JobRef) {
        self.execute_from(job, Source::OwnDeque);
    }

    /// Executes a job taken from a queue (`source` says which, for the trace).
    #[inline]
    fn execute_from(&self, job: JobRef, source: Source) {
        // Counts held for dropped scope jobs go before anything else runs (a scope job releases
        // them itself unless it is dropped too: see `deferred_release.rs`).
        if !job.is_scope_job() {
            self.release_deferred();
        }
        self.follow_pool_size();
        // A job taken from a queue starts a new subtree: its first joins push (see
        // `take_inline_join`). Alone, nothing is ever pushed: keep the budget.
        inline_budget::on_job_start(self.alone.get());
        let _region = self.open_region(job.id() as usize, job.tag());
        // The simulation's self-check (scripts/sim-bugs.sh): the region of a job taken from a queue
        // does not inherit its parent's cancellation node, so a stolen job runs on after a cancel.
        if sim_bug("cancel_not_inherited") {
            let regions = self.registry.regions();
            let own = Own {
                cancel: Some(0),
                cap: None,
            };
            regions.open(self.region(), job.id() as usize, job.tag(), own);
            self.cancel.set(ptr::null());
        }
        // Its loops are no part of the frames below, whose latent forks are not theirs to split.
        latent::detached(|| {
            if let Some(trace) = &self.trace {
                return execute_traced(trace, job, source);
            }
            // SAFETY: the job came from a queue, which hands out each JobRef exactly once; its
            // creator keeps its data alive until it has run.
            unsafe { job.execute() };
        })
    }

    /// Runs `b`, the job b of a `join` of this worker that was published and then popped back from
    /// its own public deque (`id` is its `JobRef::id`): a job taken from a queue like those
    /// [`execute`](Self::execute) runs, recorded as such in the trace.
    #[inline]
    pub(crate) fn run_popped_b<R>(&self, id: *const (), b: impl FnOnce() -> R) -> R {
        let Some(trace) = &self.trace else {
            return b();
        };
        let begin = trace.now();
        let result = b();
        let event = Event::Job {
            kind: JobKind::JoinB,
            source: Source::OwnDeque,
            job: id as u64,
        };
        trace.push(begin, trace.now(), event);
        result
    }

    /// The state of worker `index`, for the calling thread, which becomes that worker; its stack
    /// guard assumes a stack of `stack_size` bytes above the caller's frame.
    fn new(
        registry: &Arc<Registry>,
        index: usize,
        WorkerQueues { deque, jobs, trace }: WorkerQueues,
        stack_size: usize,
    ) -> WorkerThread {
        let base = wait::approx_stack_pointer();
        let info = registry.thread_info(index);
        info.stats.start(crate::platform::clock::ticks());
        let size = registry.num_threads();
        WorkerThread {
            jobs,
            some_idle: registry.sleep().some_idle(),
            several_idle: registry.sleep().several_idle(),
            sleep_slot: registry.sleep().slot(index),
            stats: &*info.stats,
            deque,
            index,
            alone: Cell::new(size == 1),
            runs_whole: Cell::new(size == 1),
            offers_rest: Cell::new(size >= 3),
            sized_for: Cell::new(size),
            breadth_first: registry.breadth_first(),
            siblings_may_wait: registry.siblings_may_wait(),
            last_publish: Cell::new(0),
            publish_clock: PublishClock::new(),
            publish_interval: crate::platform::clock::ticks_in(PUBLISH_INTERVAL),
            publish_backoff: Cell::new(0),
            publication_woke: Cell::new(false),
            rng: RefCell::new(Xoshiro256PlusPlus::seed_from_u64(
                0x9E37_79B9_7F4A_7C15 ^ (index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03),
            )),
            stack_limit: base.saturating_sub(stack_size / 2),
            trace,
            region: Cell::new(RegionTag::ROOT),
            open_regions: Cell::new(0),
            cancel: Cell::new(ptr::null()),
            cap: Cell::new(CapId::NONE),
            deferred_release: Cell::new((ptr::null(), 0)),
            spawn_count: Cell::new(0),
            spawn_ids: Default::default(),
            registry: registry.clone(),
        }
    }

    /// Gives back the owner handles of this worker's queues, for the slot's next thread (a reserve
    /// worker's next start, or a resize's: both queues are empty, the worker has left every frame
    /// that pushed on them and given its public jobs away).
    fn into_queues(self) -> WorkerQueues {
        debug_assert!(self.deque.is_empty() && self.jobs.is_empty());
        let WorkerThread {
            deque, jobs, trace, ..
        } = self;
        WorkerQueues { deque, jobs, trace }
    }

    /// Publishes this worker as the calling thread's.
    fn enter(&self) {
        WORKER_THREAD.with(|c| c.set(self));
        inline_budget::on_enter(self.alone.get());
    }
}

/// The calling thread runs as no worker any more (undoes [`WorkerThread::enter`]).
fn leave() {
    WORKER_THREAD.with(|c| c.set(ptr::null()));
    inline_budget::on_leave();
}

/// Executes a job taken from a queue, recording it as a span (see [`WorkerThread::execute_from`]).
#[inline(never)]
fn execute_traced(trace: &RingWriter, job: JobRef, source: Source) {
    let begin = trace.now();
    let (kind, id) = (job.kind(), job.id() as u64);
    // SAFETY: as in `execute_from`: a JobRef from a queue, executed once while its data is live.
    unsafe { job.execute() };
    trace.push(
        begin,
        trace.now(),
        Event::Job {
            kind,
            source,
            job: id,
        },
    );
}

/// Body of every worker thread: runs worker `index` until the pool terminates or a resize asks it
/// to leave (`crate::runtime::registry::slots`). `first`: one of the threads the pool was built
/// with, which `build` waits for.
pub(crate) fn main_loop(
    registry: Arc<Registry>,
    index: usize,
    mut queues: WorkerQueues,
    stack_size: usize,
    first: bool,
) {
    let _running = crate::platform::sync::RunningThread::enter();
    let info = registry.thread_info(index);
    // Relaxed: read only by the stall check, which tolerates a late or missing id.
    info.tid.store(
        crate::platform::thread_state::current_tid(),
        crate::platform::sync::Ordering::Relaxed,
    );
    let mut first = first;
    loop {
        let worker = WorkerThread::new(&registry, index, queues, stack_size);
        worker.enter();
        registry.run_start_handler(index);
        if std::mem::take(&mut first) {
            registry.worker_started();
        }
        loop {
            worker.run_until_terminated(&info.terminate);
            // Set by termination, or by a resize past this slot: stay, drain, or leave.
            let decision = {
                let mut slots = registry.lock_slots();
                let drained = worker.deque.is_empty() && !registry.has_broadcasts(index);
                slots.decide(index, drained, || info.terminate.reset_owned())
            };
            match decision {
                Decision::Stay => {}
                Decision::Drain => worker.drain_for_leaving(),
                Decision::Leave => break,
            }
        }
        worker.release_deferred();
        registry.run_exit_handler(index);
        leave();
        let mut slots = registry.lock_slots();
        match slots.vacate(index, worker.into_queues(), || info.terminate.reset_owned()) {
            // A grow wants the slot again: run on, as a new start.
            Some(kept) => queues = kept,
            None => {
                if !slots.terminated() {
                    registry.sleep().thread_started(false);
                }
                // Relaxed: as above; 0 reads as "not known".
                info.tid.store(0, crate::platform::sync::Ordering::Relaxed);
                return;
            }
        }
    }
}

impl WorkerThread {
    /// Leaving after a resize: runs the broadcast shares delivered to this worker and gives the
    /// jobs of its public deque to the injector (its private stack is empty at its main loop).
    fn drain_for_leaving(&self) {
        while let Some(job) = self.registry.pop_broadcast(self.index) {
            self.execute_from(job, Source::Injector);
        }
        while let Some(job) = self.pop_public() {
            self.registry.inject(job);
        }
        self.release_deferred();
    }
}

/// How many searches in a row a reserve worker makes without finding a job before it stops.
#[cfg(not(forkjoin_loom))]
const RESERVE_EMPTY_SEARCHES: u32 = 16;

/// Body of a pool's reserve worker thread (`crate::runtime::registry::reserve`): runs as worker
/// `index` (past the pool's threads) while it finds jobs, taking anything an idle worker may take
/// (it holds no frames and no locks of its own, so the region rule has nothing to protect), with a
/// heavy steal after every empty search since the blocked workers' private jobs are what it is
/// for; then it gives its queues back. It never sleeps in the idle protocol: its wake-ups come from
/// the stall check. Waits inside the jobs it runs are ordinary waits.
#[cfg(not(forkjoin_loom))]
pub(crate) fn reserve_loop(
    registry: &Arc<Registry>,
    index: usize,
    queues: WorkerQueues,
    stack_size: usize,
) -> WorkerQueues {
    let worker = WorkerThread::new(registry, index, queues, stack_size);
    worker.enter();
    let mut empty = 0;
    while empty < RESERVE_EMPTY_SEARCHES {
        let found = worker
            .find_work(
                !worker.may_steal(),
                crate::runtime::jobs::region::WaitFor::Anything,
                None,
            )
            .or_else(|| worker.steal_private(crate::runtime::jobs::region::WaitFor::Anything));
        match found {
            Some((job, source)) => {
                worker.execute_from(job, source);
                worker.release_deferred();
                empty = 0;
            }
            None => {
                empty += 1;
                crate::platform::sync::yield_now();
            }
        }
    }
    worker.release_deferred();
    leave();
    worker.into_queues()
}
