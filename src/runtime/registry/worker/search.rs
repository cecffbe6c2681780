//! The search for work: where an idle or waiting worker looks, in which order, and the heavy steal
//! a patrol makes from the other workers' private stacks.
//!
//! **Search order** ([`WorkerThread::find_work`]): own public deque (LIFO, hot in cache) → own
//! broadcast inbox (a broadcast's share, which only this worker may run) → injector (work from
//! outside the pool) → the other workers whose deques the work map marks as possibly holding jobs
//! (`crate::runtime::sleep::work_map`), from a random one on (FIFO end, the oldest and largest
//! jobs). A worker past its stack guard, or waiting inside cancelled work (`wait.rs`), stops before
//! the other workers' deques. Finding nothing, the worker joins the idle count, then spins, yields
//! and finally sleeps through [`crate::runtime::sleep`] (checking the injector and its inbox once
//! more before it blocks); after a patrol timeout it heavy-steals once
//! ([`WorkerThread::heavy_steal`]) and sleeps again, twice as long.
//!
//! A waiting worker runs only jobs that belong to what it waits for (`want`, see
//! `crate::runtime::jobs::region`): its own deque's other jobs move to the injector, and steals
//! take only jobs that belong. Any worker leaves a job whose cap has no room for it
//! (`crate::runtime::jobs::cap`).
//!
//! **A wait's search ends at its latch.** A waiting worker probes the marked deques with its latch
//! in hand and stops as soon as it is set: at 256 workers one search probes a couple of hundred
//! deques, tens of microseconds of line transfers, and a latch seen only between searches delayed
//! every link of the chain of waits that ends a call (docs/benchmarks.md, "Waits at many
//! workers").

use rand_xoshiro::rand_core::Rng;

use super::WorkerThread;
use crate::platform::sync::heavy_barrier;
use crate::runtime::deque::Steal;
use crate::runtime::jobs::job::JobRef;
use crate::runtime::jobs::jobstack::StealTicket;
use crate::runtime::jobs::latch::CoreLatch;
use crate::runtime::jobs::region::WaitFor;
use crate::runtime::registry::bump;
use crate::runtime::trace::{Event, Source};

impl WorkerThread {
    /// One search for a job that may run in a wait for `want`: own deque → broadcast inbox →
    /// injector → marked victims (not if `own_only`: past the stack guard, or in a cancelled wait).
    /// A wait passes its latch (`until`): the search of the victims ends as soon as it is set.
    pub(super) fn find_work(
        &self,
        own_only: bool,
        want: WaitFor,
        until: Option<&CoreLatch>,
    ) -> Option<(JobRef, Source)> {
        while let Some(job) = self.pop_public() {
            if want == WaitFor::Anything || self.registry.belongs(want, &job) {
                // A job of a cap this worker is not inside starts only with a place in it
                // (`admit` hands it on otherwise): so below, for every queue but the inbox.
                match self.admit(job) {
                    Some(job) => return Some((job, Source::OwnDeque)),
                    None => continue,
                }
            }
            // Not ours to run while we wait, and it would hide what lies below it: move it where
            // the worker it belongs to (or an idle one) finds it.
            self.registry.inject(job);
        }
        // Our own deque is empty: counts held for scope jobs we dropped go now, not after a
        // search that may take long (see `deferred_release.rs`).
        self.release_deferred_before_search();
        // A broadcast's share is ours alone, and its broadcaster may be waiting for us while we
        // wait for it (two workers broadcasting at once): it runs in every wait, past the guard too.
        if let Some(job) = self.registry.pop_broadcast(self.index) {
            return Some((job, Source::Injector));
        }
        // Injected work is taken even past the stack guard: it may be the very job this worker
        // waits for (a cross-pool install, a scope job spawned from a plain thread).
        if let Some(job) = self
            .registry
            .pop_injected(want, |job| self.cap_may_take(job.tag()))
        {
            bump(&self.stats().injector_pops);
            return Some((self.admit(job)?, Source::Injector));
        }
        if own_only {
            return None;
        }
        let (job, source) = self.steal(want, until)?;
        Some((self.admit(job)?, source))
    }

    /// Tries every other worker whose deque the work map marks once, starting at a random one,
    /// until a steal of a job that may run in a wait for `want` succeeds, none is left, or `until`
    /// is set.
    fn steal(&self, want: WaitFor, until: Option<&CoreLatch>) -> Option<(JobRef, Source)> {
        let registry = &*self.registry;
        let infos = registry.thread_infos();
        let n = infos.len();
        if n <= 1 {
            return None;
        }
        let start = (self.rng.borrow_mut().next_u64() % n as u64) as usize;
        let stats = self.stats();
        // A job of a cap without room stays where it is (see `crate::runtime::jobs::cap`).
        let caps_live = registry.caps().any_live();
        let found = registry.work_map().steal(
            self.index,
            start,
            registry.sleep(),
            |victim| {
                let stealer = &infos[victim].stealer;
                let stolen = match want {
                    WaitFor::Anything if !caps_live => Some(stealer.steal()),
                    // SAFETY: `steal_if` passes the bits of a `JobRef` slot as read (initialised,
                    // perhaps torn); `JobRef::raw_parts` reads only their two plain words.
                    _ => stealer.steal_if(|job| unsafe {
                        let (id, tag) = JobRef::raw_parts(job);
                        registry.regions().belongs(want, id, tag) && self.cap_may_take(tag)
                    }),
                };
                if stolen.as_ref().is_some_and(Steal::is_empty) {
                    bump(&stats.empty_probes);
                }
                stolen
            },
            |victim| infos[victim].stealer.is_empty(),
            || until.is_some_and(CoreLatch::probe),
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
    pub(super) fn steal_private(&self, want: WaitFor) -> Option<(JobRef, Source)> {
        let admitted = |(job, source)| Some((self.admit(job)?, source));
        let Some(trace) = &self.trace else {
            return self.heavy_steal(want).and_then(admitted);
        };
        let begin = trace.now();
        let found = self.heavy_steal(want).and_then(admitted);
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
        // Alone (no reserve worker either): nobody else's stack to look at.
        if self.registry.thread_infos().len() == 1 {
            return None;
        }
        let infos = self.registry.thread_infos();
        // Our own stack is skipped: only its owner (us) pops it. Tickets not used (after a success)
        // are dropped, which uncounts us on those stacks.
        let tickets: Vec<(usize, StealTicket<'_>)> = infos
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != self.index)
            .map(|(i, info)| (i, info.jobs.top_before_barrier()))
            .collect();
        bump(&self.stats().heavy_steals);
        heavy_barrier();
        for (i, ticket) in tickets {
            let accept =
                |job: &JobRef| self.registry.belongs(want, job) && self.cap_may_take(job.tag());
            if let Some(job) = infos[i].jobs.steal_after_barrier_if(ticket, accept) {
                self.stats().count_steal(i);
                return Some((job, Source::Patrol(i as u32)));
            }
        }
        None
    }
}
