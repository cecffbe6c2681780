//! [`with_max_threads`]: run a call on at most `k` of its pool's threads at once
//! (`crate::runtime::jobs::cap` has the protocol).

use crate::runtime::registry::worker::WorkerThread;
use crate::runtime::registry::{entry, Registry};

/// Runs `op` in the current pool (the global pool from outside any pool) with at most `max` of the
/// pool's threads running its work at any moment, and returns its result.
///
/// Everything `op` starts counts: its `join`s, parallel iterators and sorts, `scope`s and their
/// jobs, and the `spawn`s, `spawn_fifo`s and `spawn_future`s it makes in this pool (which stay
/// capped after `op` returns, until they have run). The result is the one an uncapped call
/// returns; other work of the pool is not held back, and takes the threads the call leaves. A
/// `with_max_threads` inside another is capped by the smaller of the two.
///
/// One thread is always inside: the one that runs `op`. A worker runs the call's work only while
/// it holds a place, so a pool of 64 capped at 4 runs the call on 4 threads while its other 60 run
/// other work or sleep. `max` at or above the pool's size caps nothing.
///
/// Not capped: `broadcast` and `spawn_broadcast` (they run on every worker, as they promise), and
/// work `op` sends to another pool (`install`), which is that pool's to schedule. A capped call
/// that waits for one of its spawns while its cap is full (a channel, a barrier of more than `max`
/// parties) waits as it would on a pool of `max` threads.
///
/// # Panics
///
/// If `max` is 0.
///
/// ```
/// use forkjoin::prelude::*;
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
/// let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
/// let sum = pool.install(|| {
///     forkjoin::with_max_threads(2, || {
///         (0..1000u64)
///             .into_par_iter()
///             .map(|i| {
///                 let inside = now.fetch_add(1, Ordering::SeqCst) + 1;
///                 most.fetch_max(inside, Ordering::SeqCst);
///                 now.fetch_sub(1, Ordering::SeqCst);
///                 i
///             })
///             .sum::<u64>()
///     })
/// });
/// assert_eq!(sum, 499_500);
/// assert!(most.load(Ordering::SeqCst) <= 2);
/// ```
pub fn with_max_threads<OP, R>(max: usize, op: OP) -> R
where
    OP: FnOnce() -> R + Send,
    R: Send,
{
    entry::with_current_registry(|registry| with_max_threads_in(registry, max, op))
}

/// [`with_max_threads`] in `registry`'s pool
/// ([`ThreadPool::with_max_threads`](crate::ThreadPool::with_max_threads)).
pub(crate) fn with_max_threads_in<OP, R>(registry: &Registry, max: usize, op: OP) -> R
where
    OP: FnOnce() -> R + Send,
    R: Send,
{
    assert!(
        max > 0,
        "forkjoin::with_max_threads: the cap must be at least 1 thread (the caller's)"
    );
    entry::in_worker(registry, |wt, _| run_capped(wt, max, op))
}

fn run_capped<OP, R>(wt: &WorkerThread, max: usize, op: OP) -> R
where
    OP: FnOnce() -> R,
{
    // Every thread that could run the work: the pool's, and its reserve worker.
    if max >= wt.registry().thread_infos().len() {
        return op();
    }
    let hold = wt.start_cap(max);
    let result = wt.run_in_cap(hold.id(), op);
    // After the region gave the caller's place back (`run_in_cap`): the hold may free the slot.
    drop(hold);
    result
}
