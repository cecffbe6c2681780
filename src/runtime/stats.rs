//! [`PoolStats`] and [`WorkerStats`]: a pool's event counters as [`ThreadPool::stats`] reports
//! them, summed from each worker's own counters (`registry::CounterSnapshot`).
//!
//! [`ThreadPool::stats`]: crate::ThreadPool::stats

use std::time::Duration;

use crate::runtime::registry::CounterSnapshot;

/// A pool's event counters: the totals over its workers, and each worker's own
/// ([`workers`](Self::workers)); see [`ThreadPool::stats`](crate::ThreadPool::stats).
///
/// Each worker counts its own events in counters only it writes (no read-modify-write, nothing on
/// the `join` fast path's shared cache lines), so a snapshot taken while the pool runs is
/// approximate, and exact once the pool is idle. Every total is the sum of the same field over
/// [`workers`](Self::workers).
///
/// **How to read them.** A worker runs a job it took back from its own stacks
/// ([`local_pops`](Self::local_pops)), took from another worker ([`steals`](Self::steals)) or took
/// from the injector ([`injector_pops`](Self::injector_pops), work from outside the pool):
/// [`jobs_executed`](Self::jobs_executed) is the sum of the three. A `join` whose b nobody took
/// pops it straight back from the private stack (a local pop); most deep joins push nothing at all
/// and count nothing. Lots of `steals` with few `jobs_published` means thieves live off spawned
/// work; lots of `sleeps` and `wakeups` against few jobs means the pool is mostly idle (or the
/// work too fine to share). Per worker, [`WorkerStats::busy`] against [`WorkerStats::idle`] shows
/// the load balance, and [`WorkerStats::stolen_by_others`] which workers fed the others.
///
/// ```
/// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// pool.install(|| forkjoin::join(|| 1, || 2));
/// let stats = pool.stats();
/// assert!(stats.jobs_executed >= 1); // at least the installed operation
/// assert_eq!(stats.workers.len(), 2);
/// let sum: u64 = stats.workers.iter().map(|w| w.jobs_executed).sum();
/// assert_eq!(sum, stats.jobs_executed);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Jobs run by workers: popped back by their owner, taken from the injector or stolen.
    pub jobs_executed: u64,
    /// Jobs a worker took back from its own stacks (the `join` fast path counts here). A `join` that
    /// pushes nothing counts nothing: in a pool of one thread (nobody could steal), and for most joins
    /// nested below a few pending jobs of their worker (three in a pool of up to 16 threads; see the
    /// `join` docs).
    pub local_pops: u64,
    /// Jobs taken from another worker's deque or private stack.
    pub steals: u64,
    /// Jobs taken from the injector (work submitted from outside the pool).
    pub injector_pops: u64,
    /// Times a worker blocked on its futex because it found nothing to do.
    pub sleeps: u64,
    /// Times a sleeping worker was woken.
    pub wakeups: u64,
    /// Searches that probed every deque the work map marked without stealing anything.
    pub failed_steals: u64,
    /// Probes of another worker's public deque that found it empty (a search probes only the
    /// deques marked as possibly holding jobs, and unmarks those it finds empty).
    pub empty_probes: u64,
    /// Jobs moved from a worker's private stack to its public deque because a thief asked.
    pub jobs_published: u64,
    /// Pieces of a running parallel loop's unstarted rest offered to idle workers from inside
    /// one of its items (a loop whose items run nested loops gives its oldest, largest work
    /// first; see `docs/architecture.md`, "Many cores"), and, in pools of more than 64 threads,
    /// the b's of latent joins offered from inside their a.
    pub jobs_offered: u64,
    /// Heavy steals: patrols that ran a process-wide barrier (`membarrier`, which interrupts every
    /// CPU running a thread of the process) to take a job from another worker's private stack.
    pub heavy_steals: u64,
    /// Each worker's counters, in index order (`workers[i]` is worker `i`, as in
    /// [`ThreadPool::current_thread_index`](crate::ThreadPool::current_thread_index)).
    pub workers: Vec<WorkerStats>,
}

/// One worker's counters and clock; see [`PoolStats`] for how to read them.
///
/// ```
/// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// pool.install(|| forkjoin::join(|| 1, || 2));
/// let stats = pool.stats();
/// // Every job stolen by one worker was stolen from another.
/// let made: u64 = stats.workers.iter().map(|w| w.steals).sum();
/// let suffered: u64 = stats.workers.iter().map(|w| w.stolen_by_others).sum();
/// assert_eq!(made, suffered);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkerStats {
    /// Jobs this worker ran: `local_pops + steals + injector_pops`.
    pub jobs_executed: u64,
    /// Jobs it took back from its own private stack or public deque.
    pub local_pops: u64,
    /// The part of [`local_pops`](Self::local_pops) taken from its public deque; the rest were
    /// popped back from the private stack by `join`'s fast path, which the trace does not record.
    pub deque_pops: u64,
    /// Jobs it took from other workers (their deques, or their private stacks on patrol).
    pub steals: u64,
    /// Jobs other workers took from this worker's deque or private stack. Counted by each thief on
    /// its own per-victim counter and summed here, so no counter has two writers.
    pub stolen_by_others: u64,
    /// Jobs it took from the injector.
    pub injector_pops: u64,
    /// Its searches that probed every marked deque without stealing anything.
    pub failed_steals: u64,
    /// Its probes of other workers' deques that found them empty.
    pub empty_probes: u64,
    /// Jobs it moved from its private stack to its public deque.
    pub jobs_published: u64,
    /// Pieces of its running loops' rests it offered (see [`PoolStats::jobs_offered`]).
    pub jobs_offered: u64,
    /// Heavy steals it ran (see [`PoolStats::heavy_steals`]).
    pub heavy_steals: u64,
    /// Times it blocked on its futex.
    pub sleeps: u64,
    /// Times it was woken from its futex (for new work, or because the latch it waited on was set).
    pub wakeups: u64,
    /// Time since it started that it was not idle: running jobs, or searching before a search
    /// failed.
    pub busy: Duration,
    /// Time since it started that it was idle: from a failed search until it found work or the
    /// latch it waited on was set (spinning, yielding, sleeping). `busy + idle` is its age.
    pub idle: Duration,
}

impl PoolStats {
    /// The totals and per-worker entries of one snapshot of every worker's counters (in index
    /// order).
    pub(crate) fn from_counters(counters: &[CounterSnapshot]) -> PoolStats {
        let mut s = PoolStats::default();
        for (index, c) in counters.iter().enumerate() {
            let local_pops = c.private_pops + c.deque_pops;
            let steals: u64 = c.stolen_from.iter().sum();
            let w = WorkerStats {
                // Every job a worker runs was popped locally, stolen or taken from the injector.
                jobs_executed: local_pops + steals + c.injector_pops,
                local_pops,
                deque_pops: c.deque_pops,
                steals,
                stolen_by_others: counters.iter().map(|thief| thief.stolen_from[index]).sum(),
                injector_pops: c.injector_pops,
                failed_steals: c.failed_steals,
                empty_probes: c.empty_probes,
                jobs_published: c.published,
                jobs_offered: c.offered,
                heavy_steals: c.heavy_steals,
                sleeps: c.sleeps,
                wakeups: c.wakeups,
                busy: Duration::from_nanos(c.busy_ns),
                idle: Duration::from_nanos(c.idle_ns),
            };
            s.jobs_executed += w.jobs_executed;
            s.local_pops += w.local_pops;
            s.steals += w.steals;
            s.injector_pops += w.injector_pops;
            s.sleeps += w.sleeps;
            s.wakeups += w.wakeups;
            s.failed_steals += w.failed_steals;
            s.empty_probes += w.empty_probes;
            s.jobs_published += w.jobs_published;
            s.jobs_offered += w.jobs_offered;
            s.heavy_steals += w.heavy_steals;
            s.workers.push(w);
        }
        s
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use crate::ThreadPoolBuilder;

    #[test]
    fn stats_count_injected_work() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        for _ in 0..10 {
            pool.install(|| ());
        }
        let s = pool.stats();
        assert_eq!(s.injector_pops, 10);
        assert!(s.jobs_executed >= 10);
    }
}
