//! Broadcasts: an operation run once on every worker of a pool ([`broadcast`],
//! [`spawn_broadcast`], their [`ThreadPool`](crate::ThreadPool) methods and
//! [`Scope::spawn_broadcast`](crate::Scope::spawn_broadcast)).
//!
//! Each worker gets its share through its own inbox ([`Registry::push_broadcast`], which documents
//! the delivery and its wake-up), which it checks right after its own deque: a worker runs its share
//! as soon as it has nothing of its own to do, before it steals. A worker busy in a long job runs
//! its share only after it, and a `use_current_thread` worker only when its thread waits or
//! yields. A blocking broadcast first enters the pool ([`entry::in_worker`]): the worker that
//! delivers the shares waits for them by working, so it runs its own share too.

use std::fmt;
use std::marker::PhantomData;

use crate::platform::sync::Arc;
use crate::platform::unwind;
use crate::runtime::jobs::job::StackJob;
use crate::runtime::jobs::latch::{CountLatch, Latch};
use crate::runtime::registry::entry;
use crate::runtime::registry::worker::WorkerThread;
use crate::runtime::registry::Registry;

/// What a broadcast operation learns about the worker it runs on.
///
/// ```
/// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
/// let seen = pool.broadcast(|ctx| (ctx.index(), ctx.num_threads()));
/// assert_eq!(seen, [(0, 3), (1, 3), (2, 3)]);
/// ```
pub struct BroadcastContext<'a> {
    index: usize,
    num_threads: usize,
    /// Not `Send` or `Sync` (as rayon's): it describes the thread it was made on.
    _marker: PhantomData<&'a mut dyn Fn()>,
}

impl BroadcastContext<'_> {
    /// Runs `f` with the context of the calling worker.
    pub(crate) fn with<R>(f: impl FnOnce(BroadcastContext<'_>) -> R) -> R {
        let (index, num_threads) =
            WorkerThread::with_current(|wt| (wt.index(), wt.registry().num_threads()))
                .expect("a broadcast job ran outside a worker");
        f(BroadcastContext {
            index,
            num_threads,
            _marker: PhantomData,
        })
    }

    /// The index of the worker running this share, in `0..num_threads()`.
    #[inline]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of workers the broadcast runs on (every worker of the pool).
    #[inline]
    pub fn num_threads(&self) -> usize {
        self.num_threads
    }
}

impl fmt::Debug for BroadcastContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BroadcastContext")
            .field("index", &self.index)
            .field("num_threads", &self.num_threads)
            .finish()
    }
}

/// Runs `op` once on every worker of the current pool (the global pool from outside any pool) and
/// returns the results in worker-index order. See [`ThreadPool::broadcast`](crate::ThreadPool::broadcast).
///
/// ```
/// let n = forkjoin::current_num_threads();
/// let indices = forkjoin::broadcast(|ctx| ctx.index());
/// assert_eq!(indices, (0..n).collect::<Vec<_>>());
/// ```
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    entry::with_current_registry(|registry| broadcast_in(registry, op))
}

/// Starts `op` on every worker of the current pool (the global pool from outside any pool) and
/// returns at once. See [`ThreadPool::spawn_broadcast`](crate::ThreadPool::spawn_broadcast).
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// let tx = std::sync::Mutex::new(tx);
/// forkjoin::spawn_broadcast(move |ctx| tx.lock().unwrap().send(ctx.index()).unwrap());
/// let mut got: Vec<usize> = (0..forkjoin::current_num_threads())
///     .map(|_| rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap())
///     .collect();
/// got.sort();
/// assert_eq!(got, (0..forkjoin::current_num_threads()).collect::<Vec<_>>());
/// ```
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    entry::with_current_registry(|registry| spawn_broadcast_in(registry, op))
}

/// The latch of one share of a blocking broadcast: counts down the broadcast's [`CountLatch`].
struct ShareLatch<'a>(&'a CountLatch);

impl Latch for ShareLatch<'_> {
    unsafe fn set(this: *const Self) {
        // SAFETY: `*this` is live (caller contract); the count latch it points to outlives every
        // share, because the broadcaster waits for it before dropping it.
        let count: *const CountLatch = unsafe { (*this).0 };
        // SAFETY: as above; nothing touches `*this` after this call.
        unsafe { Latch::set(count) };
    }
}

/// [`broadcast`] in `registry`'s pool.
pub(crate) fn broadcast_in<OP, R>(registry: &Registry, op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    entry::in_worker(registry, |owner, _| {
        // Delivered under the slots lock: to exactly the workers of the pool's size now, none of
        // which can decide to leave before it ran its share (`registry/slots.rs`).
        let slots = registry.lock_slots();
        let n = slots.target();
        // Starts at 1: one count per share.
        let latch = CountLatch::new(owner.registry().sleep().clone(), owner.index());
        for _ in 1..n {
            latch.increment();
        }
        let share = |_| BroadcastContext::with(&op);
        let jobs: Vec<_> = (0..n)
            .map(|_| StackJob::new(&share, ShareLatch(&latch)))
            .collect();
        // The shares are one region: while the broadcaster waits it runs only its own share and
        // what the shares spawn, and a worker waiting for this broadcast's caller runs its share.
        let region = owner.open_region(&latch as *const CountLatch as usize, owner.region());
        for (index, job) in jobs.iter().enumerate() {
            // SAFETY: `jobs` is neither moved nor dropped until every share ran (the wait below);
            // the closure (a reference to a `Sync` operation) and the result are `Send`.
            let job = unsafe { job.as_job_ref() }.tagged(owner.region());
            registry.push_broadcast(index, job);
        }
        drop(slots);
        owner.wait_for(latch.core(), owner.wait_for_region());
        drop(region);
        // Take every result (dropping them all) before resuming the first panic.
        let mut panic = None;
        let mut results = Vec::with_capacity(n);
        for job in jobs {
            // SAFETY: the latch is set: every share ran and wrote its result.
            match unwind::halt_unwinding(|| unsafe { job.into_result() }) {
                Ok(r) => results.push(r),
                Err(p) => {
                    panic.get_or_insert(p);
                }
            }
        }
        if let Some(p) = panic {
            unwind::resume_unwinding(p);
        }
        results
    })
}

/// [`spawn_broadcast`] in `registry`'s pool: one spawned job per worker, each delivered to its
/// worker alone.
pub(crate) fn spawn_broadcast_in<OP>(registry: &Arc<Registry>, op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    let op = Arc::new(op);
    // Under the slots lock, as in `broadcast_in`.
    let slots = registry.lock_slots();
    for index in 0..slots.target() {
        let op = op.clone();
        // Under loom, clippy takes the facade's `Arc` for a function to pass as `*op`.
        #[cfg_attr(forkjoin_loom, allow(clippy::redundant_closure))]
        let job = entry::spawned_job(registry, false, move || {
            BroadcastContext::with(|ctx| op(ctx))
        });
        registry.push_broadcast(index, job);
    }
}
