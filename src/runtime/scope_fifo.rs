//! FIFO scopes: [`scope_fifo`], [`in_place_scope_fifo`] and [`ScopeFifo`], whose `spawn_fifo` jobs
//! start in the order each thread spawned them.
//!
//! A [`ScopeFifo`] is a [`Scope`] plus one [`JobFifo`] per worker of its pool: a worker's
//! `spawn_fifo` queues the job in its own FIFO and pushes a trampoline on its deque (see
//! `crate::runtime::jobs::fifo`), so when the worker runs its own jobs it starts them oldest first, and a thief
//! also takes the oldest. Spawns from outside the pool go through the pool's injector, which is
//! FIFO too. Each scope has its own queues, so a nested scope's owner, waiting for its jobs, runs
//! its own scope's oldest job, not the outer scope's. As in rayon, the order is per thread only:
//! jobs spawned by different threads, or stolen, run in no particular order with each other.

use std::fmt;

use crate::platform::sync::Arc;
use crate::runtime::broadcast::BroadcastContext;
use crate::runtime::jobs::fifo::JobFifo;
use crate::runtime::jobs::job::SendPtr;
use crate::runtime::registry::entry;
use crate::runtime::registry::worker::WorkerThread;
use crate::runtime::registry::Registry;
use crate::runtime::scope::{run_in_place, run_scope, Scope, ScopeKind};

/// A scope whose [`spawn_fifo`](Self::spawn_fifo) jobs start in the order each thread spawned them;
/// see [`scope_fifo`].
///
/// ```
/// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let order = std::sync::Mutex::new(Vec::new());
/// pool.scope_fifo(|s: &forkjoin::ScopeFifo<'_>| {
///     for i in 0..4 {
///         let order = &order;
///         s.spawn_fifo(move |_| order.lock().unwrap().push(i));
///     }
/// });
/// // One worker spawned them all and ran them itself: oldest first.
/// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3]);
/// ```
pub struct ScopeFifo<'scope> {
    base: Scope<'scope>,
    /// One queue per worker of the pool (see the module docs).
    fifos: Box<[JobFifo]>,
}

/// Like [`scope`](fn@crate::scope), but the jobs spawned with [`ScopeFifo::spawn_fifo`] start in the
/// order each thread spawned them (first in, first out) rather than newest first. Runs in the
/// current pool (the global pool from outside any pool); waits for every job, then resumes the
/// first panic, as `scope` does.
///
/// ```
/// let mut v = vec![0; 4];
/// forkjoin::scope_fifo(|s| {
///     for (i, x) in v.iter_mut().enumerate() {
///         s.spawn_fifo(move |_| *x = i * i);
///     }
/// });
/// assert_eq!(v, [0, 1, 4, 9]);
/// ```
pub fn scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    run_scope(op)
}

/// Like [`scope_fifo`], but `op` runs on the calling thread (see
/// [`in_place_scope`](crate::in_place_scope)).
///
/// ```
/// let not_send = std::rc::Rc::new(2);
/// let mut out = [0; 2];
/// forkjoin::in_place_scope_fifo(|s| {
///     let k = *not_send;
///     for (i, o) in out.iter_mut().enumerate() {
///         s.spawn_fifo(move |_| *o = i * k);
///     }
/// });
/// assert_eq!(out, [0, 2]);
/// ```
pub fn in_place_scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    entry::with_current_registry(|registry| run_in_place(registry, op))
}

impl<'scope> ScopeKind<'scope> for ScopeFifo<'scope> {
    fn make(registry: Arc<Registry>, owner: Option<&WorkerThread>) -> Self {
        // One per worker slot, the reserve worker's included: any of them may spawn into it.
        let fifos = (0..registry.thread_infos().len())
            .map(|_| JobFifo::new())
            .collect();
        ScopeFifo {
            base: Scope::make(registry, owner),
            fifos,
        }
    }

    fn base(&self) -> &Scope<'scope> {
        &self.base
    }
}

impl<'scope> ScopeFifo<'scope> {
    /// Spawns `body` into the scope; it receives the scope so it can spawn more jobs. Of the jobs
    /// one thread spawns, those it runs itself start oldest first.
    ///
    /// ```
    /// let total = std::sync::atomic::AtomicU32::new(0);
    /// forkjoin::scope_fifo(|s| {
    ///     s.spawn_fifo(|s| {
    ///         s.spawn_fifo(|_| { total.fetch_add(2, std::sync::atomic::Ordering::Relaxed); });
    ///         total.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    ///     });
    /// });
    /// assert_eq!(total.into_inner(), 3);
    /// ```
    pub fn spawn_fifo<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&ScopeFifo<'scope>) + Send + 'scope,
    {
        if !self.base.may_spawn() {
            return;
        }
        let this = SendPtr::new(self as *const ScopeFifo<'scope>);
        let job = self.base.counted_job(move || {
            let this = this;
            // SAFETY: the scope outlives its jobs (see `Scope::counted_job`).
            body(unsafe { &*this.0 })
        });
        let registry = self.base.registry();
        match entry::current_worker(registry) {
            Some(wt) => {
                // SAFETY: the queue lives in this scope, which outlives its jobs; the trampoline
                // goes on this pool's deque, to be run once.
                let trampoline = unsafe { self.fifos[wt.index()].push(job) }.tagged(job.tag());
                wt.push_public(trampoline);
            }
            None => registry.inject(job),
        }
    }

    /// Cancels the scope's jobs that have not started, as [`Scope::cancel`] does.
    ///
    /// ```
    /// forkjoin::scope_fifo(|s| {
    ///     s.cancel();
    ///     s.spawn_fifo(|_| unreachable!("spawned into a cancelled scope"));
    /// });
    /// ```
    pub fn cancel(&self) {
        self.base.cancel();
    }

    /// True once [`cancel`](Self::cancel) was called on this scope.
    pub fn is_cancelled(&self) -> bool {
        self.base.is_cancelled()
    }

    /// Spawns `body` on every worker of the scope's pool (see
    /// [`ThreadPool::broadcast`](crate::ThreadPool::broadcast)); the scope waits for all of them.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let runs = AtomicUsize::new(0);
    /// pool.scope_fifo(|s| s.spawn_broadcast(|_, _| { runs.fetch_add(1, Ordering::Relaxed); }));
    /// assert_eq!(runs.into_inner(), 2);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&ScopeFifo<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        let this = SendPtr::new(self as *const ScopeFifo<'scope>);
        self.base.broadcast_counted(move || {
            let this = &this;
            // SAFETY: the scope outlives its jobs (see `Scope::counted_job`).
            let scope = unsafe { &*this.0 };
            BroadcastContext::with(|ctx| body(scope, ctx))
        });
    }
}

impl fmt::Debug for ScopeFifo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScopeFifo")
            .field("pool_threads", &self.base.registry().num_threads())
            .finish_non_exhaustive()
    }
}
