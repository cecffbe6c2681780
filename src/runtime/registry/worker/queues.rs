//! A worker's two levels of jobs: the private stack `join` pushes on, and the public deque thieves
//! steal from. The owner's side of both: push, pop, announce.
//!
//! **Two levels.** `join` pushes its job b on a *private* stack ([`JobStackOwner`]) and pops it back
//! after running a; where `membarrier` is available the owner's push and pop need no locked
//! instruction and no hardware fence (a compiler fence that a thief's process-wide barrier turns
//! into a full one; elsewhere a `fence(SeqCst)`, see `crate::runtime::jobs::jobstack`) — the
//! common case shares nothing with other threads. Below it sits the *public* Chase-Lev deque that
//! thieves steal from cheaply; jobs reach it when `spawn` or a scope pushes them there, when the
//! private stack is full, and when the owner publishes its oldest private job (the sharing
//! heartbeat, `heartbeat.rs`). Every push onto the public deque is announced (the work map and the
//! sleep module, sleep README rule 1). Because jobs leave the private stack oldest first, every job
//! `join` might be waiting for is either still on top of the private stack or already taken (see
//! `join.rs`). A pool of one worker pushes nothing at all: nobody could take it.
//!
//! [`JobStackOwner`]: crate::runtime::jobs::jobstack::JobStackOwner

use super::{inline_budget, WorkerThread};
use crate::platform::sync::sim_bug;
use crate::runtime::deque::Steal;
use crate::runtime::jobs::job::JobRef;
use crate::runtime::jobs::jobstack::{Pushed, StackMark};
use crate::runtime::jobs::latent;
use crate::runtime::registry::bump;
use crate::runtime::trace::Event;

/// Spawned job ids a worker remembers (see [`WorkerThread::spawned_since`]).
pub(super) const SPAWN_IDS: usize = 8;

impl WorkerThread {
    /// Pushes a `join` job b on the private stack and publishes the oldest private job if some worker
    /// idles and the sharing heartbeat is due. [`Pushed::NOWHERE`] if the private stack was full:
    /// then b went straight to the public deque.
    #[inline(always)]
    pub(crate) fn push_private(&self, job: JobRef) -> Pushed {
        let Some(pushed) = self.jobs.push(job) else {
            // Nested deeper than the private stack: share the job right away. The job travels as
            // its three words in registers: passed as a `JobRef` (by reference, in Rust's ABI),
            // every push would first store it on the stack for this rare call.
            let (data, vtable, tag) = job.into_raw();
            self.push_public_overflow(data, vtable, tag);
            return Pushed::NOWHERE;
        };
        inline_budget::on_push(pushed.depth(), &self.sized_for, self.siblings_may_wait);
        // The simulation's self-check (scripts/sim-bugs.sh): only the first push after idling is
        // published for such a sleeper, as in other pools.
        if self.siblings_may_wait
            && self.registry.sleep().has_untimed_sleepers()
            && !sim_bug("siblings_first_push_only")
        {
            // Siblings may wait for this job, and a sleeper without a patrol timeout would not
            // come for it: rule 8 for every push, not only the first (this worker may block in
            // the next item, leaving the rest of its pushes where only a patrol reaches them).
            self.publish_all_private();
            return pushed;
        }
        // The skip count first: in a loop of small joins beside an idle worker most pushes come
        // between two heartbeat reads and cost one thread-local decrement, not a call.
        if self.some_worker_idle() && !self.publish_clock.skip() {
            self.publish_on_heartbeat();
        }
        pushed
    }

    /// [`push_private`](Self::push_private)'s overflow: the job (as [`JobRef::into_raw`] made it)
    /// goes to the public deque.
    #[cold]
    #[inline(never)]
    fn push_public_overflow(&self, data: usize, vtable: usize, tag: usize) {
        // SAFETY: the three words come from `JobRef::into_raw` of a live job.
        self.push_public(unsafe { JobRef::from_raw(data, vtable, tag) });
    }

    /// Pops b back if nobody took it. False if it was published or stolen (then the private stack holds
    /// no job of this frame or its callers any more), or never pushed here ([`Pushed::NOWHERE`]).
    #[inline(always)]
    pub(crate) fn pop_private(&self, pushed: Pushed) -> bool {
        inline_budget::on_pop(pushed.depth(), &self.sized_for);
        self.jobs.pop(pushed)
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

    /// Answers a request for work with this worker's oldest pending work, outermost latent fork
    /// first (`crate::runtime::jobs::latent`): a private job older than the fork (published),
    /// else the fork's own offer. False if no fork is registered or none had anything left.
    pub(crate) fn offer_oldest_work(&self) -> bool {
        latent::any()
            && latent::offer_oldest(|mark| {
                self.holds_private_older_than(mark)
                    .then(|| self.publish_now())
            })
    }

    /// True if some job of this worker waits on its private stack (owner only).
    #[inline]
    pub(crate) fn has_private_jobs(&self) -> bool {
        !self.jobs.is_empty()
    }

    /// True if this worker holds jobs it pushed that nobody has taken yet (in its public deque or
    /// its private stack): `current_thread_has_pending_tasks`.
    pub(crate) fn has_pending_tasks(&self) -> bool {
        !self.deque.is_empty() || !self.jobs.is_empty()
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
    pub(super) fn announce_public(&self) -> bool {
        let registry = &*self.registry;
        let woken = registry.work_map().publish(self.index, registry.sleep());
        self.trace_wake(woken);
        woken.is_some()
    }

    /// Trace: this worker just woke worker `woken` for new work (if it woke one).
    #[inline]
    pub(super) fn trace_wake(&self, woken: Option<usize>) {
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
}
