//! A worker thread: its start, its two-level job stack, its main loop, its search for work, and waiting
//! by working.
//!
//! **Start.** [`crate::runtime::registry::thread_builder::start_pool`] creates a pool's shared state
//! ([`Registry::new`], which starts no threads) and hands one `ThreadBuilder` per worker, holding
//! that worker's queue owner handles, to the spawn handler, which runs it on a thread; the thread
//! pins itself to its CPU if the builder asked for pinning, records its stack base (for the stack
//! guard below), publishes itself in a thread-local and runs [`main_loop`] until the pool
//! terminates. With `use_current_thread`, worker 0 is the building thread instead
//! ([`adopt_current_thread`]).
//!
//! **Two levels.** `join` pushes its job b on a *private* stack ([`JobStackOwner`]) and pops it back
//! after running a; where `membarrier` is available the owner's push and pop need no locked
//! instruction and no hardware fence (a compiler fence that a thief's process-wide barrier turns
//! into a full one; elsewhere a `fence(SeqCst)`, see `crate::runtime::jobs::jobstack`) — the
//! common case shares nothing with other threads. Below it sits the *public* Chase-Lev deque that
//! thieves steal from cheaply. A worker that runs out of work joins the pool's *idle count* (and stays
//! in it while it searches, spins, yields and sleeps, until it finds a job). An owner reads the count
//! (a Relaxed load of a line written only on idle ↔ busy transitions) on each push and, while it is
//! non-zero, publishes its **oldest** private job (the biggest subtree) on a *sharing heartbeat*: at
//! most once per [`SHARE_INTERVAL`], and always on its first push after idling itself. Publishing on
//! every push while someone idles would turn a loop of tiny joins into a stream of hand-offs that
//! each cost more than the job. An idle worker that sleeps while another is busy wakes on a patrol
//! timeout and *heavy-steals* the oldest private job of every worker (see `crate::runtime::jobs::jobstack`), so a job
//! whose owner is blocked in user code still runs. Because jobs leave the private stack oldest first,
//! every job `join` might be waiting for is either still on top of the private stack or already taken
//! (see `join.rs`). A pool of one worker pushes nothing at all: nobody could take it.
//!
//! **Search order** (idle or waiting, [`WorkerThread::find_work`]): own public deque (LIFO, hot in
//! cache) → own broadcast inbox (a broadcast's share, which only this worker may run) → injector
//! (work from outside the pool) → the other workers whose deques the work map marks as possibly
//! holding jobs (`crate::runtime::sleep::work_map`), from a random one on (FIFO end, the oldest and
//! largest jobs). Finding nothing, the worker joins the idle count, then spins, yields and finally
//! sleeps through [`crate::runtime::sleep`] (checking the injector and its inbox once more before it
//! blocks); after a patrol timeout it heavy-steals once ([`WorkerThread::heavy_steal`]) and sleeps
//! again, twice as long.
//!
//! **Stack guard** (rayon #854). A worker that waits for a stolen job executes other jobs on top of its
//! current stack; unbounded, the frames pile up where the sequential program would never have gone. Each
//! worker records its stack's base and size at start; while more than half of it is in use, a waiting
//! worker only pops its *own* deque (jobs its own frames pushed, which the sequential program would also
//! have run at this depth) and the injector (which may hold the very job it waits for), never steals,
//! is not counted idle, and sleeps in a state that wakes for publications skip (only its latch or
//! injected work wake it).

use std::cell::{Cell, RefCell};
use std::ptr;
use std::time::Duration;

use rand_xoshiro::rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::platform::sync::{heavy_barrier, thread_local, Arc, AtomicUsize, Ordering};
use crate::runtime::deque::{Steal, Worker};
use crate::runtime::jobs::job::JobRef;
use crate::runtime::jobs::jobstack::{JobStackOwner, Pushed, StackMark, StealTicket};
use crate::runtime::jobs::latch::CoreLatch;
use crate::runtime::jobs::latent;
use crate::runtime::jobs::region::{RegionTag, WaitFor};
use crate::runtime::registry::{bump, Registry, WorkerCounters, WorkerQueues};
use crate::runtime::sleep::slot::Slot;
use crate::runtime::sleep::{IdleState, Idled, SleepMode};
use crate::runtime::trace::{Event, JobKind, RingWriter, Source, WakeReason};

/// The sharing heartbeat: an owner publishes on a push at most once per this interval while some
/// worker is idle (see [`WorkerThread::share_cold`]).
const SHARE_INTERVAL: Duration = Duration::from_micros(100);

thread_local! {
    /// The worker running on this thread, or null. Const-initialised: reading it is a plain TLS load.
    static WORKER_THREAD: Cell<*const WorkerThread> = const { Cell::new(ptr::null()) };
    /// This thread's inline-join budget (see [`take_inline_join`]): 0 outside a pool. A
    /// thread-local of its own, not a field of the worker (which lives on the worker's stack): an
    /// inline join then reads no worker pointer, and its store lands away from the stack that deep
    /// recursion keeps writing (as a field, moving it by 32 bytes made fib 20 % slower on 2 threads).
    static INLINE_JOINS: Cell<u32> = const { Cell::new(0) };
    /// Polls of [`is_work_requested`] left to answer "no" without looking (see
    /// [`back_off_requests`]).
    static REQUEST_BACKOFF_LEFT: Cell<u32> = const { Cell::new(0) };
    /// The loop mark of the loop that backed off last: loops started before it are not muted.
    static REQUEST_BACKOFF_FROM: Cell<u32> = const { Cell::new(0) };
}

thread_local! {
    /// The worker this thread became with `use_current_thread` ([`adopt_current_thread`]), owned
    /// here, or null. It is the thread's current worker ([`WORKER_THREAD`]) only while the thread
    /// runs pool code ([`Adopted::run`]): while [`WORKER_THREAD`] is null no frame of this thread
    /// uses it, so it can be freed then, once its pool has terminated ([`adopted`]) or when the
    /// thread exits.
    static ADOPTED: AdoptedWorker = const { AdoptedWorker(Cell::new(ptr::null_mut())) };
}

/// The owner of a `use_current_thread` worker (see [`ADOPTED`]).
struct AdoptedWorker(Cell<*mut WorkerThread>);

impl AdoptedWorker {
    /// Frees the worker, if there is one.
    ///
    /// # Safety
    /// No frame of this thread uses the worker ([`WORKER_THREAD`] is not it).
    unsafe fn free(&self) {
        let worker = self.0.replace(ptr::null_mut());
        if !worker.is_null() {
            // SAFETY: made by `Box::into_raw` in `adopt_current_thread` and owned by this cell,
            // which no longer holds it; nothing else refers to it (caller contract: no frame of
            // this thread; other threads never refer to another worker's `WorkerThread`).
            drop(unsafe { Box::from_raw(worker) });
        }
    }
}

impl Drop for AdoptedWorker {
    fn drop(&mut self) {
        // SAFETY: the thread is exiting: it returned from every frame, `Adopted::run`'s included.
        unsafe { self.free() }
    }
}

/// The calling thread's `use_current_thread` worker, while the thread runs no pool code (see
/// [`adopted`]): a token for [`Adopted::run`], which runs pool code on it.
pub(crate) struct Adopted {
    worker: *const WorkerThread,
}

impl Adopted {
    /// Runs `f` on this worker, which is the thread's current worker for the call, as a worker
    /// thread's own is for its life: pool code `f` reaches finds it as [`WorkerThread::current`].
    /// On the way out, even by a panic, the thread leaves the pool if it has terminated (`f` may
    /// have dropped it).
    #[cold]
    pub(crate) fn run<R>(self, f: impl FnOnce(&WorkerThread) -> R) -> R {
        /// Makes the thread run no pool code again, and leaves a terminated pool.
        struct Leave;
        impl Drop for Leave {
            fn drop(&mut self) {
                WORKER_THREAD.with(|c| c.set(ptr::null()));
                INLINE_JOINS.set(0);
                leave_terminated_pool();
            }
        }
        // SAFETY: `adopted` found it in its cell, and only `adopted` frees it there, only while
        // WORKER_THREAD is null; from here until `Leave` runs (after `f`, the only user of this
        // reference) WORKER_THREAD points to it. (At thread exit every frame has returned.)
        let worker = unsafe { &*self.worker };
        worker.enter();
        let _leave = Leave;
        f(worker)
    }

    /// The worker, for calls that run no user code with it (see [`current_or_adopted`]).
    fn as_ptr(&self) -> *const WorkerThread {
        self.worker
    }

    /// The worker's pool.
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        // SAFETY: live while this token is (see `run`); the reference lives no longer.
        unsafe { &(*self.worker).registry }
    }
}

/// The calling thread's `use_current_thread` worker, if it has one and runs no pool code now
/// ([`WORKER_THREAD`] null). If the worker's pool has terminated (dropped, and its spawned work
/// done), the thread leaves it instead: frees the worker, which drops the pool's shared state with
/// its last reference, and is a plain thread again (`None`).
#[cold]
pub(crate) fn adopted() -> Option<Adopted> {
    if !WorkerThread::current().is_null() {
        return None;
    }
    ADOPTED
        .try_with(|cell| {
            let worker = cell.0.get();
            if worker.is_null() {
                return None;
            }
            // SAFETY: a worker in the cell is live until it is freed, below or at thread exit.
            let worker_ref = unsafe { &*worker };
            if worker_ref.registry.is_terminated() {
                // Nothing is left to run: the pool's spawned work is done, and this thread's
                // calls into the pool have returned.
                debug_assert!(!worker_ref.has_pending_tasks(), "left jobs behind");
                // SAFETY: WORKER_THREAD is null: no frame of this thread uses it.
                unsafe { cell.free() };
                return None;
            }
            Some(Adopted {
                worker: worker.cast_const(),
            })
        })
        .ok()
        // Destroyed: the thread is exiting, and its worker was freed.
        .flatten()
}

/// The worker of the calling thread: the one it runs as now, else its `use_current_thread` worker
/// (see [`adopted`]); null if none. Only for calls that run no user code with it (a query, a push):
/// an adopted worker may be freed once the thread is back outside pool code. To run pool code on
/// an adopted worker, use [`Adopted::run`].
#[inline]
pub(crate) fn current_or_adopted() -> *const WorkerThread {
    let wt = WorkerThread::current();
    if !wt.is_null() {
        return wt;
    }
    adopted().map_or(ptr::null(), |adopted| adopted.as_ptr())
}

/// Frees the calling thread's `use_current_thread` worker if its pool has terminated and the
/// thread runs no pool code now (see [`adopted`]).
pub(crate) fn leave_terminated_pool() {
    adopted();
}

/// True when the calling thread is a worker of some pool: it runs pool code as one, or is the
/// `use_current_thread` worker of a pool that has not terminated.
#[inline]
pub(crate) fn is_worker_thread() -> bool {
    !current_or_adopted().is_null()
}

/// True when the calling thread is a pool worker and some worker of its pool is idle (looking for work
/// or asleep, and able to steal).
///
/// Long sequential loops (the parallel iterators' leaves) poll this to split lazily, only when a thief
/// is waiting. A relaxed load of a padded counter that is written only when workers go idle or find
/// work: cheap enough to poll every few items.
#[inline]
pub(crate) fn is_work_requested() -> bool {
    let wt = WorkerThread::current();
    // SAFETY: a non-null current worker is valid while this thread runs a job.
    !wt.is_null() && unsafe { (*wt).some_worker_idles() }
}

/// [`is_work_requested`] for a loop that took `loop_mark` when it started (`latent::loop_started`):
/// false for the next [`REQUEST_BACKOFF`] such polls after [`back_off_requests`] by this loop or
/// one started before it on this thread, unless the caller started earlier (an enclosing loop,
/// which may hold more to give).
#[inline]
pub(crate) fn is_work_requested_in(loop_mark: u32) -> bool {
    if !is_work_requested() {
        // A busy pool's polls stop here.
        return false;
    }
    let backoff = REQUEST_BACKOFF_LEFT.get();
    // Wrapping: the marks of loops running at once are close together.
    if backoff > 0 && loop_mark.wrapping_sub(REQUEST_BACKOFF_FROM.get()) < 1 << 31 {
        REQUEST_BACKOFF_LEFT.set(backoff - 1);
        return false;
    }
    true
}

/// The calling thread's loop (which took `loop_mark`) found a request it could not answer (what
/// it holds is not worth a hand-off, or its last offer still waits): [`is_work_requested_in`]
/// says no to it and to the loops started after it for the next [`REQUEST_BACKOFF`] polls. With
/// many idle workers a request is pending at almost every poll, and each unanswerable one reads
/// lines that thieves and idle workers keep writing (the idle count, this worker's deque and job
/// stack): skynet on 64 simulated cores spent most of its time there (speedup 12.6 without a
/// back-off, 17 with this one; `docs/benchmarks.md`). Loops around it still look: they may hold
/// more.
/// Only while several workers idle: one asker hammers no line, and a muted poll may be the one
/// that could feed it (skynet on 2 threads: 11 ms without the back-off, 16 to 20 with it).
#[inline]
pub(crate) fn back_off_requests(loop_mark: u32) {
    let wt = WorkerThread::current();
    if wt.is_null() {
        return;
    }
    // SAFETY: a non-null current worker is valid while this thread runs a job; `idle_workers`
    // points into its live registry. Relaxed: a hint, as in `some_worker_idles`.
    if unsafe { (*(*wt).idle_workers).load(Ordering::Relaxed) } >= 2 {
        REQUEST_BACKOFF_LEFT.set(REQUEST_BACKOFF);
        REQUEST_BACKOFF_FROM.set(loop_mark);
    }
}

/// Polls that [`back_off_requests`] answers "no request" without looking.
const REQUEST_BACKOFF: u32 = 16;

/// True when the calling thread is a pool worker whose public deque still holds a job no thief has
/// taken yet, and either at most one worker idles (that one asker's request is answered) or a
/// private job of this worker is already next in line: a split made now would stay private (a
/// publication goes only into an empty deque) and come back to this worker. With several askers one
/// private half pays, as the next job published once the waiting one is taken (a nested loop on 8
/// workers took twice as long without it); more do not: a leaf that split on every poll while its
/// askers slept cut a closed-form sum on 8 workers into 4,000 pieces a call.
#[inline]
pub(crate) fn offer_waiting() -> bool {
    let wt = WorkerThread::current();
    if wt.is_null() {
        return false;
    }
    // SAFETY: a non-null current worker is valid while this thread runs a job, and this is its
    // owning thread (reading its own deque's length is an owner operation).
    let wt = unsafe { &*wt };
    // SAFETY: `idle_workers` points into the live registry, which `wt.registry` keeps alive.
    // Relaxed: a hint, as in `some_worker_idles`.
    let idle = unsafe { (*wt.idle_workers).load(Ordering::Relaxed) };
    !wt.deque.is_empty() && (idle <= 1 || !wt.jobs.is_empty())
}

/// Before a long sequential step with no `join` in it (a leaf sort, a partition, an unsplittable
/// piece of a loop): if some worker is idle, publish this worker's oldest private job on the sharing
/// heartbeat, as a push would (see [`WorkerThread::share_cold`]). With `now`, publish it at once (a
/// piece just split off for an idle worker). Does nothing outside a pool or when nobody is idle.
#[inline]
pub(crate) fn share_pending_work(now: bool) {
    let wt = WorkerThread::current();
    if wt.is_null() {
        return;
    }
    // SAFETY: a non-null current worker is valid while this thread runs a job, and this is its
    // owning thread (owner operations are allowed).
    let wt = unsafe { &*wt };
    if !wt.some_worker_idles() {
        return;
    }
    if now {
        wt.share_now();
    } else {
        wt.share_cold();
    }
}

/// When the sharing heartbeat reads the clock: every call at first, and, while reads keep finding the
/// heartbeat not due and come more than 16 times per interval, only every `stride`-th call, the
/// stride doubling up to 256. A read that comes late (a gap of an interval / 16 or more) resets the
/// stride, so the time between reads stays below about an eighth of the interval: publication is at
/// most that late. A worker leaving the idle count reads at its next call (its first publication
/// must not wait, sleep README rule 9).
struct ShareClock {
    /// Calls left to skip before the next read.
    skips: Cell<u32>,
    /// Calls skipped between reads now.
    stride: Cell<u32>,
    /// Ticks at the last read.
    last_read: Cell<u64>,
}

impl ShareClock {
    const MAX_STRIDE: u32 = 256;

    fn new() -> Self {
        ShareClock {
            skips: Cell::new(0),
            stride: Cell::new(0),
            last_read: Cell::new(0),
        }
    }

    /// The clock, or `None` if this call skips its read.
    #[inline]
    fn read(&self) -> Option<u64> {
        if self.skip() {
            return None;
        }
        Some(crate::platform::clock::ticks())
    }

    /// True if this call skips its read (and counts it).
    #[inline(always)]
    fn skip(&self) -> bool {
        let skips = self.skips.get();
        if skips > 0 {
            self.skips.set(skips - 1);
            return true;
        }
        false
    }

    /// The read at `now` found the heartbeat not due: adapt the stride to the call rate.
    fn not_due(&self, now: u64, interval: u64) {
        let gap = now.wrapping_sub(self.last_read.get());
        self.last_read.set(now);
        let stride = if gap < interval / 16 {
            (self.stride.get() * 2).clamp(1, Self::MAX_STRIDE)
        } else {
            0
        };
        self.stride.set(stride);
        self.skips.set(stride);
    }

    /// The next call reads the clock, and the stride starts over.
    fn read_next_time(&self) {
        self.skips.set(0);
        self.stride.set(0);
    }
}

/// True if the `join` about to start runs b inline without pushing it. A push that leaves at
/// least [`OFFERED_DEPTH`] older jobs below its own sets a budget of `DEEP_JOIN_PERIOD - 1`
/// inline joins; popping back to one of the first [`OFFERED_DEPTH`] jobs, or starting a job
/// taken from a queue ([`WorkerThread::execute`]), clears it. So the joins above three pending
/// jobs always push, and below them only every [`DEEP_JOIN_PERIOD`]-th join looks at the pool:
/// it pushes if some worker is idle, and otherwise renews the budget
/// ([`WorkerThread::renew_inline_joins`]).
///
/// The older jobs are the bigger ones, and they are what idle workers get first (the heartbeat
/// publishes the oldest); a job pushed below them is almost always popped straight back, so its
/// push and pop are pure overhead (chili makes the same trade), and while every worker is busy
/// nobody could take it anyway. Once a worker goes idle, a long run of deep joins offers work
/// within `DEEP_JOIN_PERIOD` joins, and its pushes run the heartbeat check. The budget is a
/// thread-local, so an inline join reads and writes one word (`INLINE_JOINS`) and loads no worker
/// pointer. A worker alone in its pool has a budget that never runs out (it is refilled in
/// [`join`](crate::join())'s slow path).
///
/// Budget values: 0, not armed (push); [`BUDGET_SPENT`], armed and used up (the slow path decides);
/// above it, inline joins left plus one.
#[inline(always)]
pub(crate) fn take_inline_join() -> bool {
    INLINE_JOINS.with(|budget| {
        let n = budget.get();
        if n <= BUDGET_SPENT {
            return false;
        }
        budget.set(n - 1);
        true
    })
}

/// Spawned job ids a worker remembers (see [`WorkerThread::spawned_since`]).
const SPAWN_IDS: usize = 8;

/// The state of one worker thread; lives on that thread's stack for its whole life.
pub(crate) struct WorkerThread {
    /// The owner handle of this worker's private job stack (thieves hold its `JobStackThief` in
    /// `registry.thread_infos[index]`). Created with the registry and moved into this thread.
    jobs: JobStackOwner,
    /// Points into the registry's sleep state (kept alive by `registry`): the idle-worker count.
    idle_workers: *const AtomicUsize,
    /// Points into the registry's sleep state (kept alive by `registry`): this worker's sleep slot,
    /// which the latch of each `join` job b keeps to wake us.
    sleep_slot: *const Slot,
    /// Points into `registry.thread_infos[index]` (kept alive by `registry`).
    stats: *const WorkerCounters,
    deque: Worker<JobRef>,
    index: usize,
    /// Ticks (see [`crate::platform::clock::ticks`]) of this worker's last heartbeat publication.
    last_share: Cell<u64>,
    /// [`SHARE_INTERVAL`] in ticks.
    share_interval: u64,
    /// When the heartbeat check reads the clock.
    share_clock: ShareClock,
    /// The pool has this worker only: nothing it pushes can be stolen.
    alone: bool,
    /// The pool has 3 workers or more: its loops offer their rest from inside their items
    /// (`crate::runtime::hints::leaf_start`).
    offers_rest: bool,
    /// Take this worker's own public jobs oldest first (`ThreadPoolBuilder::breadth_first`).
    breadth_first: bool,
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
    registry: Arc<Registry>,
}

/// Closes a region opened by [`WorkerThread::open_region`] when dropped.
pub(crate) struct RegionGuard<'a> {
    worker: &'a WorkerThread,
    outer: RegionTag,
}

impl Drop for RegionGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        let w = self.worker;
        w.open_regions.set(w.open_regions.get() - 1);
        w.region.set(self.outer);
    }
}

/// An address near the current top of the stack.
#[inline(always)]
fn approx_stack_pointer() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

impl WorkerThread {
    /// The worker running on this thread, or null.
    #[inline(always)]
    pub(crate) fn current() -> *const WorkerThread {
        WORKER_THREAD.with(Cell::get)
    }

    #[inline(always)]
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    /// True if some worker of this pool is idle (searching for work or asleep): a job offered now
    /// has a taker.
    ///
    /// Relaxed: only a hint (see [`Sleep::idle_workers`](crate::runtime::sleep::Sleep::idle_workers)); a job
    /// that stays private is still reachable by a heavy steal, and a worker that goes idle just after
    /// this load is seen by the owner's next check.
    #[inline(always)]
    pub(crate) fn some_worker_idles(&self) -> bool {
        // SAFETY: `idle_workers` points into the live registry, which `self.registry` keeps alive.
        unsafe { (*self.idle_workers).load(Ordering::Relaxed) != 0 }
    }

    /// How many idle workers of this pool are awake, not asleep: 0 while nobody idles (see
    /// [`Sleep::searching_workers`](crate::runtime::sleep::Sleep::searching_workers), a hint).
    #[inline]
    pub(crate) fn searching_workers(&self) -> usize {
        if self.some_worker_idles() {
            self.registry.sleep().searching_workers()
        } else {
            0
        }
    }

    /// True if this is the only worker of its pool (then no job of its can ever be stolen).
    #[inline(always)]
    pub(crate) fn is_alone(&self) -> bool {
        self.alone
    }

    /// True if the pool has 3 workers or more (see the field).
    #[inline(always)]
    pub(crate) fn offers_rest(&self) -> bool {
        self.offers_rest
    }

    /// This worker's sleep slot, for the latches it waits on.
    #[inline(always)]
    pub(crate) fn sleep_slot(&self) -> &Slot {
        // SAFETY: points into the registry's sleep state, which `self.registry` keeps alive.
        unsafe { &*self.sleep_slot }
    }

    #[inline(always)]
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The region this worker runs in: the tag for the jobs it creates now.
    #[inline(always)]
    pub(crate) fn region(&self) -> RegionTag {
        self.region.get()
    }

    /// The key of the region this worker runs in (0 in none): what a wait for everything created
    /// in it admits.
    #[inline]
    pub(crate) fn region_key(&self) -> usize {
        self.registry.regions().key_of(self.region.get())
    }

    /// Opens a region with `key` under `parent` and runs in it until the guard drops: for a job
    /// taken from a queue (key: the job's address, parent: its tag) and for a scope (key: the
    /// scope's address, parent: the region it was created in). Every nesting level has its own
    /// entry (see `crate::runtime::jobs::region`).
    #[inline]
    pub(crate) fn open_region(&self, key: usize, parent: RegionTag) -> RegionGuard<'_> {
        let level = self.open_regions.get();
        let outer = self.region.get();
        // The simulation's self-check (scripts/sim-bugs.sh): a table of 64 levels whose deeper
        // regions stay in the deepest one, as before entries were allocated at any depth.
        if !(cfg!(forkjoin_sim_bug = "bounded_regions") && level >= 64) {
            let regions = self.registry.regions();
            let tag = regions.tag(self.index, level);
            regions.open(tag, key, parent);
            self.region.set(tag);
        }
        self.open_regions.set(level + 1);
        RegionGuard {
            worker: self,
            outer,
        }
    }

    #[inline(always)]
    fn stats(&self) -> &WorkerCounters {
        // SAFETY: points into the registry, which `self.registry` keeps alive.
        unsafe { &*self.stats }
    }

    /// Pushes a `join` job b on the private stack and publishes the oldest private job if some worker
    /// idles and the sharing heartbeat is due. [`Pushed::NOWHERE`] if the private stack was full:
    /// then b went straight to the public deque.
    #[inline(always)]
    pub(crate) fn push_private(&self, job: JobRef) -> Pushed {
        let Some(pushed) = self.jobs.push(job) else {
            // Nested deeper than the private stack: share the job right away.
            self.push_public(job);
            return Pushed::NOWHERE;
        };
        if pushed.depth() > OFFERED_DEPTH {
            // At least OFFERED_DEPTH older jobs are pending: run the next joins inline.
            INLINE_JOINS.set(DEEP_JOIN_PERIOD);
        }
        // The skip count first: in a loop of small joins beside an idle worker most pushes come
        // between two heartbeat reads and cost one thread-local decrement, not a call.
        if self.some_worker_idles() && !self.share_clock.skip() {
            self.share_cold();
        }
        pushed
    }

    /// Pops b back if nobody took it. False if it was published or stolen (then the private stack holds
    /// no job of this frame or its callers any more), or never pushed here ([`Pushed::NOWHERE`]).
    #[inline(always)]
    pub(crate) fn pop_private(&self, pushed: Pushed) -> bool {
        if pushed.depth() <= OFFERED_DEPTH {
            // Back among the first OFFERED_DEPTH jobs: the joins from here on push again.
            INLINE_JOINS.set(0);
        }
        self.jobs.pop(pushed)
    }

    /// Some worker is idle (seen on a push): publish the oldest private job on the sharing heartbeat.
    ///
    /// Publishing on every push while a worker idles turns a loop of tiny joins into a stream of
    /// hand-offs, each costing more than the job (and keeping the idle worker from ever sleeping).
    /// So an owner publishes at most once per [`SHARE_INTERVAL`]: the oldest private job, the root
    /// of the largest pending subtree, exactly what an idle worker should take. The first push after
    /// this worker itself idled always publishes (see `wait_until_cold`). A job that stays private
    /// is not lost: idle workers that sleep while another worker is busy wake up to patrol, taking
    /// the oldest private job of every worker with a heavy steal (`crate::runtime::sleep`, `crate::runtime::jobs::jobstack`).
    #[cold]
    #[inline(never)]
    fn share_cold(&self) {
        // Nothing to publish, or (in `share_due`) an earlier publication still waits for a thief:
        // no clock read (a leaf polling for an idle worker calls this once per batch).
        if self.jobs.is_empty() {
            return;
        }
        let Some(now) = self.share_due() else {
            return;
        };
        // A call that publishes nothing (an earlier publication still waits in the deque, or no
        // private job) leaves the heartbeat due: the first publication after idling must happen.
        if self.share_now() {
            self.last_share.set(now);
        }
    }

    /// True if a job pushed now would be published at once (see [`share_due`](Self::share_due)):
    /// only then can a split made to offer work reach a *sleeping* worker (the publication wakes
    /// it) before this worker pops the job back. Otherwise the job stays private until this
    /// worker's next publication, which a leaf that splits on request makes at once anyway.
    #[inline(never)]
    pub(crate) fn push_would_publish(&self) -> bool {
        self.share_due().is_some()
    }

    /// The clock, if a publication now is on time: this worker's public deque is empty (thieves
    /// took the last one) and the sharing heartbeat is due. A read the [`ShareClock`] skips counts as
    /// not due.
    #[inline]
    fn share_due(&self) -> Option<u64> {
        if !self.deque.is_empty() {
            return None;
        }
        // A clock read costs ~10 ns, as much as a whole join: while calls come much faster than the
        // heartbeat, skip reads (see `ShareClock`).
        let now = self.share_clock.read()?;
        if now.wrapping_sub(self.last_share.get()) < self.share_interval {
            self.share_clock.not_due(now, self.share_interval);
            return None;
        }
        Some(now)
    }

    /// Where this worker's private stack stands now (see [`holds_private_older_than`](Self::holds_private_older_than)).
    #[inline]
    pub(crate) fn private_mark(&self) -> StackMark {
        self.jobs.mark()
    }

    /// True if a private job pushed before `mark` is still pending: it is older than anything
    /// this worker started since, and goes to an idle worker first.
    #[inline]
    pub(crate) fn holds_private_older_than(&self, mark: StackMark) -> bool {
        self.jobs.holds_older_than(mark)
    }

    /// Publishes the oldest private job, unless an earlier publication is still waiting in our public
    /// deque (then thieves have something to take; publishing more would only cost fences until they
    /// do). True if it published (and announced) one.
    pub(crate) fn share_now(&self) -> bool {
        if self.deque.is_empty() && self.publish(1) > 0 {
            self.announce_public();
            return true;
        }
        false
    }

    /// Moves up to `max` of the oldest private jobs to the public deque; returns how many moved.
    fn publish(&self, max: usize) -> usize {
        let mut n = 0;
        while n < max {
            match self.jobs.take_oldest() {
                Some(job) => {
                    self.deque.push(job);
                    bump(&self.stats().published);
                    n += 1;
                }
                None => break,
            }
        }
        if n > 0 {
            if let Some(trace) = &self.trace {
                let now = trace.now();
                trace.push(now, now, Event::Published { jobs: n as u32 });
            }
        }
        n
    }

    /// Makes every private job stealable (before this worker waits and runs other work).
    fn publish_all_private(&self) {
        if self.publish(usize::MAX) > 0 {
            self.announce_public();
        }
    }

    /// Pushes a job straight onto the public deque (`spawn`, `Scope::spawn`) and announces it.
    pub(crate) fn push_public(&self, job: JobRef) {
        self.deque.push(job);
        self.announce_public();
    }

    /// [`push_public`](Self::push_public) for a `spawn`ed job, remembered for
    /// [`spawned_since`](Self::spawned_since).
    pub(crate) fn push_spawned(&self, job: JobRef) {
        let count = self.spawn_count.get();
        self.spawn_ids[(count % SPAWN_IDS as u64) as usize].set(job.id() as usize);
        self.spawn_count.set(count + 1);
        self.push_public(job);
    }

    /// How many jobs this worker has spawned so far: a `join` marks its start with it.
    #[inline(always)]
    pub(crate) fn spawn_count(&self) -> u64 {
        self.spawn_count.get()
    }

    /// True if the job with id `id` is one of the last [`SPAWN_IDS`] this worker spawned after the
    /// count was `mark`.
    pub(crate) fn spawned_since(&self, mark: u64, id: *const ()) -> bool {
        let count = self.spawn_count.get();
        let recent = count.saturating_sub(mark).min(SPAWN_IDS as u64);
        (1..=recent)
            .any(|k| self.spawn_ids[((count - k) % SPAWN_IDS as u64) as usize].get() == id as usize)
    }

    /// [`push_public`](Self::push_public) for a piece split off a running loop's rest
    /// (`crate::runtime::offers`), counted as offered.
    pub(crate) fn push_offered(&self, job: JobRef) {
        bump(&self.stats().offered);
        self.push_public(job);
    }

    /// Announces jobs just pushed onto this worker's public deque: marks the deque in the work map
    /// and wakes a sleeper if one waits (sleep README rule 1, `crate::runtime::sleep::work_map`).
    #[inline]
    fn announce_public(&self) {
        let registry = &*self.registry;
        let woken = registry.work_map().publish(self.index, registry.sleep());
        self.trace_wake(woken);
    }

    /// Trace: this worker just woke worker `woken` for new work (if it woke one).
    #[inline]
    fn trace_wake(&self, woken: Option<usize>) {
        if let Some(worker) = woken {
            if let Some(trace) = &self.trace {
                let now = trace.now();
                trace.push(
                    now,
                    now,
                    Event::Wake {
                        worker: worker as u32,
                    },
                );
            }
        }
    }

    /// True if some job of this worker waits on its private stack (owner only).
    #[inline]
    pub(crate) fn has_private_jobs(&self) -> bool {
        !self.jobs.is_empty()
    }

    /// Pops the newest job of the public deque (the oldest, in a `breadth_first` pool).
    #[inline]
    pub(crate) fn pop_public(&self) -> Option<JobRef> {
        let job = if self.breadth_first {
            self.take_oldest_public()
        } else {
            self.deque.pop()
        };
        if job.is_some() {
            bump(&self.stats().local_pops);
        }
        job
    }

    /// Takes the oldest job of this worker's own public deque, from the thieves' end.
    #[cold]
    fn take_oldest_public(&self) -> Option<JobRef> {
        let own = &self.registry.thread_info(self.index).stealer;
        loop {
            match own.steal() {
                Steal::Success(job) => return Some(job),
                Steal::Empty => return None,
                Steal::Retry => {}
            }
        }
    }

    /// Like [`take_inline_join`], for a caller that would `join` only to
    /// offer work (the iterators' up-front split): true if such a join would not offer b, so that
    /// splitting is pointless. Uses up an inline join like a `join` would.
    #[inline(always)]
    pub(crate) fn would_keep_split_private(&self) -> bool {
        take_inline_join() || self.alone || self.renew_inline_joins()
    }

    /// The join about to start has used up an armed inline-join budget (deep below the offered
    /// jobs): if no worker of the pool is idle, nobody could take its b, so renew the budget and
    /// run it inline (true); otherwise the join pushes (false), and the push re-arms the budget.
    #[inline(always)]
    pub(crate) fn renew_inline_joins(&self) -> bool {
        // Inline: a join above the offered jobs (a flat loop of joins) has no budget at all and
        // pays only this test.
        INLINE_JOINS.get() == BUDGET_SPENT && self.renew_spent_budget()
    }

    /// [`renew_inline_joins`](Self::renew_inline_joins) once the budget is spent.
    #[inline(never)]
    fn renew_spent_budget(&self) -> bool {
        // A worker that goes idle just after this check gets this worker's next offer at most
        // DEEP_JOIN_PERIOD joins later.
        if self.some_worker_idles() {
            return false;
        }
        INLINE_JOINS.set(DEEP_JOIN_PERIOD);
        true
    }

    /// This worker is alone in its pool (checked by the caller) and used up its inline-join budget:
    /// refill it, so its joins stay plain calls.
    #[cold]
    pub(crate) fn refill_inline_joins_alone(&self) {
        debug_assert!(self.alone);
        INLINE_JOINS.set(u32::MAX);
    }

    /// True if this worker holds jobs it pushed that nobody has taken yet (in its public deque or
    /// its private stack): `current_thread_has_pending_tasks`.
    pub(crate) fn has_pending_tasks(&self) -> bool {
        !self.deque.is_empty() || !self.jobs.is_empty()
    }

    /// Runs one job, if one is available, for `yield_local` (`local`: only this worker's own jobs)
    /// and `yield_now` (then anything a search finds). True if it ran one.
    ///
    /// Own jobs are its public deque's newest, else its oldest private job (moved to the deque and
    /// popped back, as a waiting worker would after publishing), else its broadcast share.
    pub(crate) fn run_one(&self, local: bool) -> bool {
        let own = || {
            self.pop_public()
                .or_else(|| (self.publish(1) > 0).then(|| self.pop_public()).flatten())
                .map(|job| (job, Source::OwnDeque))
                .or_else(|| {
                    let job = self.registry.pop_broadcast(self.index)?;
                    Some((job, Source::Injector))
                })
        };
        let found = if local {
            own()
        } else {
            own().or_else(|| self.find_work(!self.may_steal(), WaitFor::Anything))
        };
        match found {
            Some((job, source)) => {
                self.execute_from(job, source);
                true
            }
            None => false,
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
        // A job taken from a queue starts a new subtree: its first joins push (see
        // `take_inline_join`). Alone, nothing is ever pushed: keep the budget.
        if !self.alone {
            INLINE_JOINS.set(0);
        }
        let _region = self.open_region(job.id() as usize, job.tag());
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

    /// True while enough stack remains to run stolen work (see the module docs).
    #[inline]
    fn may_steal(&self) -> bool {
        approx_stack_pointer() > self.stack_limit
    }

    /// Waits until `latch` is set, executing any other jobs meanwhile (an idle worker's loop).
    #[inline]
    pub(crate) fn wait_until(&self, latch: &CoreLatch) {
        self.wait_for(latch, WaitFor::Anything);
    }

    /// Waits until `latch` is set, executing meanwhile only jobs that belong to what it waits for
    /// (`want`, see `crate::runtime::jobs::region`).
    #[inline]
    pub(crate) fn wait_for(&self, latch: &CoreLatch, want: WaitFor) {
        if !latch.probe() {
            self.wait_until_cold(latch, want);
        }
    }

    /// Runs `job`, taken from this worker's own public deque while it waits for `want`, if it
    /// belongs there; otherwise moves it to the injector for the worker it belongs to (or an idle
    /// one).
    pub(crate) fn run_own_if_belongs(&self, job: JobRef, want: WaitFor) {
        if self.registry.belongs(want, &job) {
            self.execute(job);
        } else {
            self.registry.inject(job);
        }
    }

    #[cold]
    #[inline(never)]
    fn wait_until_cold(&self, latch: &CoreLatch, want: WaitFor) {
        self.publish_all_private();
        let registry = &*self.registry;
        let sleep = registry.sleep();
        // The frame depth does not change while we wait: decide the stack guard once. A wait for
        // another pool steals nothing here either.
        let guarded = !self.may_steal() || want == WaitFor::Injected;
        let mode = match want {
            _ if guarded => SleepMode::Guarded,
            WaitFor::Anything => SleepMode::Idle,
            _ => SleepMode::Waiting,
        };
        let mut idle = sleep.start_looking_as(self.index, mode);
        // In the pool's idle count (only workers that can steal are counted).
        let mut counted = false;
        // A waker claimed us for new work and we have not searched since.
        let mut owe_wake = false;
        // Ticks when our current idle period began (our first failed search), while idle.
        let mut idle_since: Option<u64> = None;
        while !latch.probe() {
            let found = match self.find_work(guarded, want) {
                Some(found) => Some(found),
                None if !guarded && idle.take_patrol_due() && sleep.claim_patrol() => {
                    // A timed sleep ran out, and no other worker patrolled just now: look for jobs
                    // hidden on other workers' private stacks, whose owners may be blocked in user
                    // code.
                    self.steal_private(want)
                }
                None => None,
            };
            if let Some((job, source)) = found {
                if counted {
                    self.leave_idle_count();
                    counted = false;
                }
                if let Some(since) = idle_since.take() {
                    self.end_idle(since);
                }
                if (idle.has_idled() || owe_wake) && self.more_work_visible() {
                    // Back to work after idling, and more is there to take: if others sleep, wake
                    // one to look for it, so parallelism spreads one thread at a time (rule 6).
                    let woken = sleep.wake_one_if_sleeping();
                    self.trace_wake(woken);
                }
                owe_wake = false;
                self.execute_from(job, source);
                idle = sleep.start_looking_as(self.index, mode);
                continue;
            }
            if owe_wake && want != WaitFor::Anything {
                // Woken for work that was not ours to take: an idle sleeper may take it (rule 7).
                let woken = sleep.pass_wake_to_idle();
                self.trace_wake(woken);
            }
            // We searched: whatever we were woken for is taken, or passed on.
            owe_wake = false;
            if idle_since.is_none() {
                idle_since = Some(self.begin_idle());
            }
            if !guarded && !counted {
                // Relaxed: ordered before a patrol's heavy steal by its barrier; owners only need
                // a hint.
                sleep.idle_workers().fetch_add(1, Ordering::Relaxed);
                counted = true;
            }
            let outcome = sleep.no_work_found(
                &mut idle,
                || latch.try_sleep(),
                || registry.has_injected_jobs(want) || registry.has_broadcasts(self.index),
            );
            let woken_for_work = idle.take_woken_for_work();
            owe_wake |= woken_for_work;
            match outcome {
                Idled::Waited => {}
                Idled::Aborted => latch.wake_up(),
                Idled::Slept | Idled::TimedOut => {
                    bump(&self.stats().sleeps);
                    latch.wake_up();
                    if let Some(trace) = &self.trace {
                        trace_sleep(trace, &idle, outcome, woken_for_work);
                    }
                }
            }
        }
        if let Some(since) = idle_since {
            self.end_idle(since);
        }
        if counted {
            self.leave_idle_count();
        }
        if owe_wake {
            // Woken for new work but leaving without looking (our latch is set): pass the wake on.
            let woken = sleep.wake_one_if_sleeping();
            self.trace_wake(woken);
        }
    }

    /// True if jobs may wait besides the one this worker just found (another worker's deque is
    /// marked in the work map, its own deque holds jobs, or the injector does) and no idle worker
    /// is awake to take them. A hint; jobs published later announce themselves (sleep README
    /// rules 1 and 6).
    fn more_work_visible(&self) -> bool {
        let registry = &*self.registry;
        registry.sleep().searching_workers() == 0
            && (registry.work_map().others_marked(self.index)
                || !self.deque.is_empty()
                || registry.has_injected_jobs(WaitFor::Anything))
    }

    /// An idle period begins (a search failed): returns its start, in ticks, for [`end_idle`](Self::end_idle).
    fn begin_idle(&self) -> u64 {
        let now = crate::platform::clock::ticks();
        let now = match &self.trace {
            Some(trace) => trace.clamp(now),
            None => now,
        };
        self.stats().enter_idle(now);
        now
    }

    /// The idle period that began at `since` ends (work found, or the awaited latch set).
    fn end_idle(&self, since: u64) {
        let now = crate::platform::clock::ticks();
        match &self.trace {
            Some(trace) => {
                let now = trace.clamp(now);
                self.stats().leave_idle(since, now);
                trace.push(since, now, Event::Idle);
            }
            None => self.stats().leave_idle(since, now),
        }
    }

    /// Leaves the pool's idle count, for a job found or because our latch was set. If some worker
    /// sleeps with no patrol timeout (it saw every worker idle, sleep README rule 9, perhaps us),
    /// our next publication is due at once: nobody would come to heavy-steal a job we keep private
    /// (a worker that left through its latch without this hung a blocked `a` whose b stayed
    /// private). Otherwise the sharing heartbeat keeps its rhythm (see `Sleep::leave_idle`).
    fn leave_idle_count(&self) {
        if self.registry.sleep().leave_idle() {
            self.make_share_due();
        }
    }

    /// Makes the sharing heartbeat due at this worker's next check, which reads the clock.
    fn make_share_due(&self) {
        self.last_share
            .set(self.last_share.get().wrapping_sub(self.share_interval));
        self.share_clock.read_next_time();
    }

    /// One search for a job that may run in a wait for `want`: own deque → broadcast inbox →
    /// injector → marked victims (not past the stack guard).
    fn find_work(&self, guarded: bool, want: WaitFor) -> Option<(JobRef, Source)> {
        while let Some(job) = self.pop_public() {
            if want == WaitFor::Anything || self.registry.belongs(want, &job) {
                return Some((job, Source::OwnDeque));
            }
            // Not ours to run while we wait, and it would hide what lies below it: move it where
            // the worker it belongs to (or an idle one) finds it.
            self.registry.inject(job);
        }
        // A broadcast's share is ours alone, and its broadcaster may be waiting for us while we
        // wait for it (two workers broadcasting at once): it runs in every wait, past the guard too.
        if let Some(job) = self.registry.pop_broadcast(self.index) {
            return Some((job, Source::Injector));
        }
        // Injected work is taken even past the stack guard: it may be the very job this worker
        // waits for (a cross-pool install, a scope job spawned from a plain thread).
        if let Some(job) = self.registry.pop_injected(want) {
            bump(&self.stats().injector_pops);
            return Some((job, Source::Injector));
        }
        if guarded {
            return None;
        }
        self.steal(want)
    }

    /// Tries every other worker whose deque the work map marks once, starting at a random one,
    /// until a steal of a job that may run in a wait for `want` succeeds or none is left.
    fn steal(&self, want: WaitFor) -> Option<(JobRef, Source)> {
        let registry = &*self.registry;
        let infos = registry.thread_infos();
        let n = infos.len();
        if n <= 1 {
            return None;
        }
        let start = (self.rng.borrow_mut().next_u64() % n as u64) as usize;
        let stats = self.stats();
        let found = registry.work_map().steal(
            self.index,
            start,
            registry.sleep(),
            |victim| {
                let stealer = &infos[victim].stealer;
                let stolen = match want {
                    WaitFor::Anything => Some(stealer.steal()),
                    // SAFETY: `steal_if` passes the bits of a `JobRef` slot as read (initialised,
                    // perhaps torn); `JobRef::raw_parts` reads only their two plain words.
                    _ => stealer.steal_if(|job| unsafe {
                        let (id, tag) = JobRef::raw_parts(job);
                        registry.regions().belongs(want, id, tag)
                    }),
                };
                if stolen.as_ref().is_some_and(Steal::is_empty) {
                    bump(&stats.empty_probes);
                }
                stolen
            },
            |victim| infos[victim].stealer.is_empty(),
        );
        let Some((victim, job)) = found else {
            bump(&stats.failed_steals);
            return None;
        };
        stats.count_steal(victim);
        if let Some(trace) = &self.trace {
            let now = trace.now();
            let victim = victim as u32;
            let job = job.id() as u64;
            trace.push(now, now, Event::Stolen { victim, job });
        }
        Some((job, Source::Stolen(victim as u32)))
    }

    /// A patrol: a heavy steal from the private stacks (see `crate::runtime::jobs::jobstack`), recorded as a span
    /// (with the job it took) when the pool traces.
    #[cold]
    fn steal_private(&self, want: WaitFor) -> Option<(JobRef, Source)> {
        let Some(trace) = &self.trace else {
            return self.heavy_steal(want);
        };
        let begin = trace.now();
        let found = self.heavy_steal(want);
        let end = trace.now();
        if let Some((job, Source::Patrol(victim))) = found {
            let job = job.id() as u64;
            trace.push(end, end, Event::HeavySteal { victim, job });
        }
        let found_any = found.is_some();
        trace.push(begin, end, Event::Patrol { found: found_any });
        found
    }

    /// Heavy steal from the private stacks (see `crate::runtime::jobs::jobstack`): one process-wide barrier, then each
    /// victim's oldest private job. The caller is already in the idle count, so afterwards any private job
    /// is either taken or its owner's next push sees the count (and publishes, and wakes sleepers).
    fn heavy_steal(&self, want: WaitFor) -> Option<(JobRef, Source)> {
        if self.registry.num_threads() == 1 {
            return None;
        }
        let infos = self.registry.thread_infos();
        // Our own stack is skipped: only its owner (us) pops it. Tickets not used (after a success)
        // are dropped, which uncounts us on those stacks.
        let tickets: Vec<(usize, StealTicket<'_>)> = infos
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != self.index)
            .map(|(i, info)| (i, info.jobs.base_before_barrier()))
            .collect();
        bump(&self.stats().heavy_steals);
        heavy_barrier();
        for (i, ticket) in tickets {
            let accept = |job: &JobRef| self.registry.belongs(want, job);
            if let Some(job) = infos[i].jobs.steal_after_barrier_if(ticket, accept) {
                self.stats().count_steal(i);
                return Some((job, Source::Patrol(i as u32)));
            }
        }
        None
    }
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

/// Records a sleep that just ended: its span and the wake-up, with why it ended.
#[cold]
fn trace_sleep(trace: &RingWriter, idle: &IdleState, outcome: Idled, woken_for_work: bool) {
    let (asleep, awake) = idle.last_sleep();
    let (asleep, awake) = (trace.clamp(asleep), trace.clamp(awake));
    trace.push(asleep, awake, Event::Sleep);
    let reason = match outcome {
        Idled::TimedOut => WakeReason::Timeout,
        _ if woken_for_work => WakeReason::NewWork,
        _ => WakeReason::Latch,
    };
    trace.push(awake, awake, Event::Woken { reason });
}

/// A `join` nested below this many pending jobs of its worker may run inline (see
/// [`take_inline_join`]).
const OFFERED_DEPTH: usize = 3;
/// Of the joins nested that deep, every this-many-th one pushes its b if some worker is idle.
const DEEP_JOIN_PERIOD: u32 = 64;
/// The value of a used-up inline-join budget (see [`take_inline_join`]).
const BUDGET_SPENT: u32 = 1;

impl WorkerThread {
    /// The state of worker `index`, for the calling thread, which becomes that worker; its stack
    /// guard assumes a stack of `stack_size` bytes above the caller's frame.
    fn new(
        registry: &Arc<Registry>,
        index: usize,
        WorkerQueues { deque, jobs, trace }: WorkerQueues,
        stack_size: usize,
    ) -> WorkerThread {
        let base = approx_stack_pointer();
        let info = registry.thread_info(index);
        info.stats.start(crate::platform::clock::ticks());
        WorkerThread {
            jobs,
            idle_workers: registry.sleep().idle_workers(),
            sleep_slot: registry.sleep().slot(index),
            stats: &*info.stats,
            deque,
            index,
            alone: registry.num_threads() == 1,
            offers_rest: registry.num_threads() >= 3,
            breadth_first: registry.breadth_first(),
            last_share: Cell::new(0),
            share_clock: ShareClock::new(),
            share_interval: crate::platform::clock::ticks_in(SHARE_INTERVAL),
            rng: RefCell::new(Xoshiro256PlusPlus::seed_from_u64(
                0x9E37_79B9_7F4A_7C15 ^ (index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03),
            )),
            stack_limit: base.saturating_sub(stack_size / 2),
            trace,
            region: Cell::new(RegionTag::ROOT),
            open_regions: Cell::new(0),
            spawn_count: Cell::new(0),
            spawn_ids: Default::default(),
            registry: registry.clone(),
        }
    }

    /// Publishes this worker as the calling thread's.
    fn enter(&self) {
        WORKER_THREAD.with(|c| c.set(self));
        // Alone, every join runs inline (nobody could take b); otherwise the budget starts empty.
        INLINE_JOINS.set(if self.alone { u32::MAX } else { 0 });
    }
}

/// Body of every worker thread.
pub(crate) fn main_loop(
    registry: Arc<Registry>,
    index: usize,
    queues: WorkerQueues,
    stack_size: usize,
) {
    let _running = crate::platform::sync::RunningThread::enter();
    let worker = WorkerThread::new(&registry, index, queues, stack_size);
    worker.enter();
    registry.run_start_handler(index);
    registry.worker_started();
    worker.wait_until(&registry.thread_info(index).terminate);
    debug_assert!(worker.deque.is_empty(), "work left behind at termination");
    registry.run_exit_handler(index);
    WORKER_THREAD.with(|c| c.set(ptr::null()));
    INLINE_JOINS.set(0);
}

/// `ThreadPoolBuilder::use_current_thread`: the calling thread becomes worker `index` without
/// running the main loop. It runs the pool's jobs only while it waits (in `join`, `scope`,
/// `install`, a broadcast) or yields ([`yield_now`](fn@crate::yield_now)); no start or exit handler runs
/// for it. Its worker state lives in [`ADOPTED`], and is its current worker only while it is in a
/// call into a pool ([`Adopted::run`]). The thread leaves the pool, freeing that state (and with
/// it the registry's last reference, once the other workers have exited), as soon as the pool has
/// terminated and the thread runs no pool code: when it drops the pool, else when it returns from
/// the pool call it dropped the pool in, or from its next call into a pool (spawned work was still
/// pending at the drop), or when it exits. rayon keeps the thread a worker, and leaks that state,
/// for good. False, and nothing done, if the thread already is a worker of some pool.
pub(crate) fn adopt_current_thread(
    registry: &Arc<Registry>,
    index: usize,
    queues: WorkerQueues,
    stack_size: usize,
) -> bool {
    if is_worker_thread() {
        return false;
    }
    let worker = Box::new(WorkerThread::new(registry, index, queues, stack_size));
    ADOPTED.with(|adopted| adopted.0.set(Box::into_raw(worker)));
    registry.worker_started();
    true
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_push_would_publish_only_into_an_empty_deque_with_the_heartbeat_due() {
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        // Keep the other worker in user code, so nobody steals what this test publishes.
        let release_tx = crate::test_support::block_one_worker(&pool);
        pool.install(|| {
            // SAFETY: `install` runs this on a worker of `pool`, which outlives the call.
            let wt = unsafe { &*WorkerThread::current() };
            wt.make_share_due();
            assert!(wt.deque.is_empty());
            assert!(wt.push_would_publish(), "empty deque, heartbeat due");
            crate::join(
                || {
                    // SAFETY: a runs on the same worker (it is never stolen).
                    let wt = unsafe { &*WorkerThread::current() };
                    // b sits on the private stack; publish it as a due heartbeat would.
                    assert!(wt.share_now());
                    assert!(
                        !wt.push_would_publish(),
                        "an earlier publication still waits for a thief"
                    );
                },
                || {},
            );
        });
        release_tx.send(()).unwrap();
    }

    #[test]
    fn work_is_requested_while_another_worker_idles() {
        assert!(!is_work_requested(), "outside a pool nothing is requested");
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let seen = pool.install(|| {
            // The other worker has nothing to do: it joins the idle count and stays there.
            let deadline = Instant::now() + Duration::from_secs(60);
            while !is_work_requested() {
                assert!(Instant::now() < deadline, "idle worker never counted");
                std::hint::spin_loop();
            }
            true
        });
        assert!(seen);
    }

    #[test]
    fn a_one_thread_pool_never_requests_work_while_busy() {
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        assert!(!pool.install(is_work_requested));
    }

    #[test]
    fn workers_record_a_stack_limit_below_their_base() {
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(1)
            .stack_size(1 << 20)
            .build()
            .unwrap();
        pool.install(|| {
            // SAFETY: inside `install` the current worker pointer is valid.
            let wt = unsafe { &*WorkerThread::current() };
            assert!(wt.stack_limit < approx_stack_pointer());
            assert!(wt.may_steal(), "shallow frames may steal");
        });
    }
}
