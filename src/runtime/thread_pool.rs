//! [`ThreadPool`] and the free functions that ask about the current pool; the pool is built by
//! [`ThreadPoolBuilder`](crate::ThreadPoolBuilder) (`builder.rs`) and reports [`PoolStats`]
//! (`stats.rs`).

use std::fmt;

use crate::platform::sync::Arc;
use crate::runtime::broadcast::{self, BroadcastContext};
use crate::runtime::cancel::token::CancelToken;
use crate::runtime::cancel::Cancelled;
use crate::runtime::error::ThreadPoolBuildError;
use crate::runtime::future::spawn_future::{self, JobFuture};
use crate::runtime::registry::entry;
use crate::runtime::registry::resize;
use crate::runtime::registry::worker::{self, WorkerThread};
use crate::runtime::registry::Registry;
use crate::runtime::scope::{self, Scope};
use crate::runtime::scope_fifo::ScopeFifo;
use crate::runtime::sleep::MAX_THREADS;
use crate::runtime::spawn;
use crate::runtime::stats::PoolStats;
use crate::runtime::trace;
use crate::runtime::yield_now::{self, Yield};

/// A pool of worker threads that run `join`, `scope` and `spawn` work.
///
/// Dropping the last handle lets already-spawned work finish; then every worker exits (and if no spawned
/// work was pending, the drop waits for the threads to be gone).
///
/// ```
/// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let (a, b) = pool.join(|| 1 + 1, || 2 + 2);
/// assert_eq!((a, b), (2, 4));
/// ```
pub struct ThreadPool {
    registry: Arc<Registry>,
}

// A panic in user code is caught at a job boundary and never leaves the pool's shared state half
// updated, so observing a pool after a caught panic is fine.
impl std::panic::UnwindSafe for ThreadPool {}
impl std::panic::RefUnwindSafe for ThreadPool {}

impl ThreadPool {
    /// The handle of a pool that [`ThreadPoolBuilder::build`](crate::ThreadPoolBuilder::build)
    /// started.
    pub(crate) fn new(registry: Arc<Registry>) -> ThreadPool {
        ThreadPool { registry }
    }
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPool")
            .field("num_threads", &self.registry.num_threads())
            .finish()
    }
}

impl ThreadPool {
    /// Runs `op` on a worker of this pool and returns its result.
    ///
    /// From a plain thread it blocks (without spinning) until done; from a worker of this pool it runs
    /// inline; from a worker of another pool that worker keeps running its own pool's jobs meanwhile, so
    /// neither pool can deadlock. A panic in `op` is resumed here.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let v: Vec<u32> = (0..100).collect();
    /// let sum = pool.install(|| {
    ///     let (l, r) = v.split_at(50);
    ///     let (a, b) = forkjoin::join(|| l.iter().sum::<u32>(), || r.iter().sum::<u32>());
    ///     a + b
    /// });
    /// assert_eq!(sum, 4950);
    /// ```
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        entry::in_worker(&self.registry, |_, _| op())
    }

    /// [`with_max_threads`](crate::with_max_threads) in this pool: runs `op` here with at most
    /// `max` of this pool's threads running its work at any moment.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    /// // A background job that must leave half the pool to the rest of the program.
    /// let sum = pool.with_max_threads(2, || (1..=1000u64).into_par_iter().sum::<u64>());
    /// assert_eq!(sum, 500_500);
    /// ```
    ///
    /// # Panics
    ///
    /// If `max` is 0.
    pub fn with_max_threads<OP, R>(&self, max: usize, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        crate::runtime::max_threads::with_max_threads_in(&self.registry, max, op)
    }

    /// [`cancellable`](crate::cancellable) inside this pool: runs `work` here under `token`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let token = forkjoin::CancelToken::new();
    /// let sum = pool.cancellable(&token, || (1..=4u32).into_par_iter().sum::<u32>());
    /// assert_eq!(sum, Ok(10));
    /// ```
    pub fn cancellable<OP, R>(&self, token: &CancelToken, work: OP) -> Result<R, Cancelled>
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        crate::runtime::cancellable::cancellable_in(&self.registry, token, work)
    }

    /// [`join`](fn@crate::join) inside this pool.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.join(|| "a", || "b"), ("a", "b"));
    /// ```
    pub fn join<A, B, RA, RB>(&self, oper_a: A, oper_b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.install(|| crate::join(oper_a, oper_b))
    }

    /// [`scope`](fn@crate::scope) inside this pool.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut parts = [0u32; 4];
    /// pool.scope(|s| {
    ///     for (i, p) in parts.iter_mut().enumerate() {
    ///         s.spawn(move |_| *p = i as u32 * 10);
    ///     }
    /// });
    /// assert_eq!(parts, [0, 10, 20, 30]);
    /// ```
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| crate::scope(op))
    }

    /// Runs `op` asynchronously in this pool. Panics go to the panic handler (or are printed).
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// pool.spawn(move || tx.send(42).unwrap());
    /// assert_eq!(rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap(), 42);
    /// ```
    pub fn spawn<OP>(&self, op: OP)
    where
        OP: FnOnce() + Send + 'static,
    {
        entry::spawn(&self.registry, op)
    }

    /// Runs `op` once on every worker of this pool and returns the results in worker-index order
    /// (`ctx.index()`). Each worker runs its share when it has nothing of its own to do, before it
    /// steals; a worker busy in a long job runs it after that job. Blocks until every share ran;
    /// then a panic of any share is resumed (the first in index order).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    /// let squares = pool.broadcast(|ctx| ctx.index() * ctx.index());
    /// assert_eq!(squares, [0, 1, 4, 9]);
    /// let count = AtomicUsize::new(0); // the operation may borrow
    /// pool.broadcast(|_| count.fetch_add(1, Ordering::Relaxed));
    /// assert_eq!(count.into_inner(), 4);
    /// ```
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        broadcast::broadcast_in(&self.registry, op)
    }

    /// Starts `op` on every worker of this pool and returns at once; like [`spawn`](Self::spawn),
    /// the pool stays alive until every share ran, and panics go to the panic handler.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// let tx = std::sync::Mutex::new(tx);
    /// pool.spawn_broadcast(move |ctx| tx.lock().unwrap().send(ctx.index()).unwrap());
    /// let mut seen: Vec<usize> = (0..3).map(|_| rx.recv().unwrap()).collect();
    /// seen.sort();
    /// assert_eq!(seen, [0, 1, 2]);
    /// ```
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        broadcast::spawn_broadcast_in(&self.registry, op)
    }

    /// [`spawn_fifo`](crate::spawn_fifo) into this pool.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// pool.spawn_fifo(move || tx.send(7).unwrap());
    /// assert_eq!(rx.recv().unwrap(), 7);
    /// ```
    pub fn spawn_fifo<OP>(&self, op: OP)
    where
        OP: FnOnce() + Send + 'static,
    {
        spawn::spawn_fifo_in(&self.registry, op)
    }

    /// [`spawn_future`](crate::spawn_future) into this pool: `op` runs on one of this pool's
    /// workers, and the returned [`JobFuture`] resolves to its result.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let index = forkjoin::block_on(pool.spawn_future(forkjoin::current_thread_index));
    /// assert!(index.unwrap() < 2);
    /// ```
    pub fn spawn_future<OP, R>(&self, op: OP) -> JobFuture<R>
    where
        OP: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        spawn_future::spawn_future_in(&self.registry, op)
    }

    /// [`scope_fifo`](fn@crate::scope_fifo) inside this pool.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut v = [0; 3];
    /// pool.scope_fifo(|s| {
    ///     for (i, x) in v.iter_mut().enumerate() {
    ///         s.spawn_fifo(move |_| *x = i);
    ///     }
    /// });
    /// assert_eq!(v, [0, 1, 2]);
    /// ```
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| crate::scope_fifo(op))
    }

    /// [`in_place_scope`](crate::in_place_scope) whose spawned jobs run in this pool: `op` runs on
    /// the calling thread.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let local = std::rc::Rc::new(5); // not Send: fine, `op` stays on this thread
    /// let mut out = 0;
    /// pool.in_place_scope(|s| {
    ///     let n = *local;
    ///     let out = &mut out;
    ///     s.spawn(move |_| *out = n * 2);
    /// });
    /// assert_eq!(out, 10);
    /// ```
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        scope::run_in_place(&self.registry, op)
    }

    /// [`in_place_scope_fifo`](crate::in_place_scope_fifo) whose spawned jobs run in this pool.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut out = 0;
    /// pool.in_place_scope_fifo(|s| s.spawn_fifo(|_| out = 3));
    /// assert_eq!(out, 3);
    /// ```
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R,
    {
        scope::run_in_place(&self.registry, op)
    }

    /// [`yield_now`](fn@crate::yield_now) if the calling thread is a worker of this pool, else `None`.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// assert_eq!(pool.yield_now(), None);
    /// assert_eq!(pool.install(|| pool.yield_now()), Some(forkjoin::Yield::Idle));
    /// ```
    pub fn yield_now(&self) -> Option<Yield> {
        entry::with_worker_in(&self.registry, |wt| yield_now::run_one(wt, false))
    }

    /// [`yield_local`](crate::yield_local) if the calling thread is a worker of this pool, else
    /// `None`.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// assert_eq!(pool.yield_local(), None);
    /// assert_eq!(pool.install(|| pool.yield_local()), Some(forkjoin::Yield::Idle));
    /// ```
    pub fn yield_local(&self) -> Option<Yield> {
        entry::with_worker_in(&self.registry, |wt| yield_now::run_one(wt, true))
    }

    /// [`current_thread_has_pending_tasks`](crate::current_thread_has_pending_tasks) if the calling
    /// thread is a worker of this pool, else `None`.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// assert_eq!(pool.current_thread_has_pending_tasks(), None);
    /// assert_eq!(pool.install(|| pool.current_thread_has_pending_tasks()), Some(false));
    /// ```
    pub fn current_thread_has_pending_tasks(&self) -> Option<bool> {
        entry::current_worker(&self.registry).map(WorkerThread::has_pending_tasks)
    }

    /// Number of worker threads of this pool.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// assert_eq!(pool.current_num_threads(), 3);
    /// ```
    pub fn current_num_threads(&self) -> usize {
        self.registry.num_threads()
    }

    /// Resizes the pool to `n` threads while it runs. Growing starts threads (up to the pool's
    /// capacity, [`ThreadPoolBuilder::resizable_up_to`]); shrinking asks the threads past `n` to
    /// leave: each finishes the job it runs, gives the jobs queued on it to the others, and ends.
    /// Nothing queued is lost or run twice. [`current_num_threads`](Self::current_num_threads)
    /// says `n` on return; [`broadcast`](crate::broadcast) reaches the `n` workers; a call
    /// already running keeps the pieces it split for the old size, and a job still running on a
    /// leaving thread sees its [`current_thread_index`] at or past `n`
    /// until it returns.
    ///
    /// [`ThreadPoolBuilder::resizable_up_to`]: crate::ThreadPoolBuilder::resizable_up_to
    ///
    /// # Errors
    ///
    /// `n` is 0, or past the pool's capacity; the pool's threads are started by a
    /// [`spawn_handler`](crate::ThreadPoolBuilder::spawn_handler) (it cannot start more); or a
    /// thread could not be spawned (the pool then keeps the threads it has).
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    /// pool.set_num_threads(1).unwrap();
    /// assert_eq!(pool.current_num_threads(), 1);
    /// assert_eq!(pool.install(|| forkjoin::current_num_threads()), 1);
    /// pool.set_num_threads(4).unwrap();
    /// let sum: u64 = pool.install(|| {
    ///     use forkjoin::prelude::*;
    ///     (0..1000u64).into_par_iter().sum()
    /// });
    /// assert_eq!(sum, 499_500);
    /// assert!(pool.set_num_threads(0).is_err());
    /// ```
    pub fn set_num_threads(&self, n: usize) -> Result<(), ThreadPoolBuildError> {
        resize::set_num_threads(&self.registry, n)
    }

    /// Index of the current thread in this pool, or `None` if it is not one of this pool's workers.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.current_thread_index(), None);
    /// assert!(pool.install(|| pool.current_thread_index()).unwrap() < 2);
    /// ```
    pub fn current_thread_index(&self) -> Option<usize> {
        // The reserve worker (index `capacity`) is none of the pool's threads: `None`.
        entry::current_worker(&self.registry)
            .map(WorkerThread::index)
            .filter(|&index| index < self.registry.capacity())
    }

    /// The pool's event counters: totals and one entry per worker (see [`PoolStats`]).
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// pool.install(|| ());
    /// let stats = pool.stats();
    /// assert_eq!(stats.injector_pops, 1);
    /// assert_eq!(stats.workers[0].injector_pops, 1);
    /// ```
    pub fn stats(&self) -> PoolStats {
        PoolStats::from_counters(&self.registry.worker_counters())
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        if !self.registry.terminate() {
            return;
        }
        // A `use_current_thread` worker dropping its pool outside pool code leaves it now, so the
        // pool's state goes with the last reference below (inside pool code: on its way out).
        worker::leave_terminated_pool();
        if entry::current_worker(&self.registry).is_none() {
            // No spawned work was pending: the workers exit promptly, so wait for them (no thread
            // outlives its pool). Never from one of the pool's own workers (it cannot join itself).
            self.registry.join_threads();
            self.registry.finish_trace();
        }
    }
}

/// Number of threads in the current pool: the pool of the calling worker, or the global pool.
///
/// ```
/// let n = forkjoin::current_num_threads();
/// assert!(n >= 1);
/// ```
#[inline]
pub fn current_num_threads() -> usize {
    let wt = worker::current_or_adopted();
    if wt.is_null() {
        entry::global_registry().num_threads()
    } else {
        // SAFETY: a current worker is valid while this thread runs; a `use_current_thread` one
        // until the thread, outside pool code, finds its pool terminated, or exits: not in here.
        unsafe { (*wt).registry().num_threads() }
    }
}

/// Resizes the global pool to `n` threads (starting it first if it has not started), as
/// [`ThreadPool::set_num_threads`] does for a pool.
///
/// # Errors
///
/// As [`ThreadPool::set_num_threads`]: `n` is 0 or past the global pool's capacity (the CPUs
/// the process may use, or its size if larger), or a thread could not be spawned.
///
/// ```
/// let n = forkjoin::current_num_threads();
/// forkjoin::set_num_threads(1).unwrap();
/// assert_eq!(forkjoin::current_num_threads(), 1);
/// forkjoin::set_num_threads(n).unwrap();
/// ```
pub fn set_num_threads(n: usize) -> Result<(), ThreadPoolBuildError> {
    resize::set_num_threads(entry::global_registry(), n)
}

/// The most threads one pool may have. [`ThreadPoolBuilder::num_threads`] above it, or a larger
/// `FORKJOIN_NUM_THREADS` / `RAYON_NUM_THREADS`, makes `build` fail with an error that says so
/// (rayon silently lowers the count instead).
///
/// [`ThreadPoolBuilder::num_threads`]: crate::ThreadPoolBuilder::num_threads
///
/// ```
/// assert!(forkjoin::max_num_threads() >= 255);
/// let too_many = forkjoin::max_num_threads() + 1;
/// let err = forkjoin::ThreadPoolBuilder::new().num_threads(too_many).build().unwrap_err();
/// assert!(err.to_string().contains("at most"));
/// ```
pub fn max_num_threads() -> usize {
    MAX_THREADS
}

/// Writes every trace file of a live traced pool now, with what each has recorded so far (see
/// [`ThreadPoolBuilder::trace_file`] and `FORKJOIN_TRACE`); does nothing if no pool traces.
///
/// [`ThreadPoolBuilder::trace_file`]: crate::ThreadPoolBuilder::trace_file
///
/// Dropped pools write their file themselves (and it is not written again), and at process exit this runs on its own (an
/// `atexit` hook, on Unix), so it is needed only to look at a trace while the process runs, or
/// where the exit hook cannot run: on other systems, or when the process ends without running
/// exit handlers (`abort`, a fatal signal). The global pool, which is never dropped, is written
/// this way. Pools keep running while they are read.
///
/// # Errors
///
/// The first file that could not be written (the others are still written).
///
/// ```
/// // With FORKJOIN_TRACE=trace.json set, the global pool records; write what it has now:
/// forkjoin::join(|| 1, || 2);
/// forkjoin::flush_trace().unwrap();
/// ```
pub fn flush_trace() -> std::io::Result<()> {
    trace::flush_all()
}

/// Index of the calling thread within its pool, in `0..current_num_threads()`, or `None` outside
/// any pool. Also `None` on a pool's reserve thread (the temporary thread that runs waiting work
/// while every thread of the pool is blocked in user code, see the README's "Blocking inside
/// parallel work"): it is none of the pool's threads, and an index it shared with one of them
/// could alias a slot of per-thread state.
///
/// ```
/// assert_eq!(forkjoin::current_thread_index(), None);
/// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// assert!(pool.install(forkjoin::current_thread_index).is_some());
/// ```
pub fn current_thread_index() -> Option<usize> {
    let wt = worker::current_or_adopted();
    if wt.is_null() {
        None
    } else {
        // SAFETY: as above.
        let (index, slots) = unsafe { ((*wt).index(), (*wt).registry().capacity()) };
        (index < slots).then_some(index)
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;
    use crate::platform::clock::Instant;
    use crate::platform::sync::for_tests::{mpsc, thread, AtomicUsize, Mutex, Ordering};
    use crate::ThreadPoolBuilder;
    use std::time::Duration;

    #[test]
    fn install_from_same_and_other_pool() {
        let a = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let b = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let r = a.install(|| {
            let ia = a.current_thread_index();
            assert!(ia.is_some());
            assert_eq!(a.install(|| 5), 5); // same pool: inline
            b.install(|| {
                assert!(b.current_thread_index().is_some());
                assert!(a.current_thread_index().is_none());
                a.install(|| 7) // back into a, from a worker of b
            })
        });
        assert_eq!(r, 7);
    }

    #[test]
    fn drop_runs_pending_spawns_and_exit_handlers_once() {
        let exits = Arc::new(AtomicUsize::new(0));
        let ran = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = mpsc::channel();
        {
            let e = exits.clone();
            let pool = ThreadPoolBuilder::new()
                .num_threads(3)
                .exit_handler(move |_| {
                    e.fetch_add(1, Ordering::SeqCst);
                })
                .build()
                .unwrap();
            for _ in 0..1000 {
                let ran = ran.clone();
                let tx = tx.clone();
                pool.spawn(move || {
                    if ran.fetch_add(1, Ordering::SeqCst) == 999 {
                        tx.send(()).unwrap();
                    }
                });
            }
        }
        rx.recv_timeout(Duration::from_secs(60))
            .expect("spawned work lost after drop");
        assert_eq!(ran.load(Ordering::SeqCst), 1000);
        // The exit handlers run after the last job; wait for them with a generous bound.
        let deadline = Instant::now() + Duration::from_secs(60);
        while exits.load(Ordering::SeqCst) < 3 {
            assert!(Instant::now() < deadline, "workers did not exit");
            thread::yield_now();
        }
        assert_eq!(exits.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn spawn_panic_goes_to_handler_and_worker_survives() {
        let (tx, rx) = mpsc::channel::<String>();
        let tx = Mutex::new(tx);
        let pool = ThreadPoolBuilder::new()
            .num_threads(1)
            .panic_handler(move |p| {
                let msg = crate::platform::unwind::payload_message(&p).to_owned();
                tx.lock().unwrap().send(msg).unwrap();
            })
            .build()
            .unwrap();
        pool.spawn(|| panic!("spawned"));
        assert_eq!(rx.recv_timeout(Duration::from_secs(60)).unwrap(), "spawned");
        assert_eq!(pool.install(|| 3), 3);
    }

    /// A generous bound for the `use_current_thread` tests below, which take milliseconds.
    const LIMIT: Duration = Duration::from_secs(120);

    fn adopting_pool(threads: usize) -> ThreadPool {
        ThreadPoolBuilder::new()
            .num_threads(threads)
            .use_current_thread()
            .build()
            .unwrap()
    }

    /// A `use_current_thread` pool dropped by its thread outside pool code takes its state along:
    /// the registry's last reference is gone when `drop` returns, and the thread, a plain thread
    /// again, can build the next one (200 in a row: a thread that kept its pool's state could not
    /// build a second).
    #[test]
    fn a_use_current_thread_pool_is_freed_when_its_thread_drops_it() {
        crate::test_support::watchdog("200 pools on one thread", LIMIT, || {
            for round in 0..200 {
                let pool = adopting_pool(8);
                assert_eq!(crate::current_thread_index(), Some(0));
                assert_eq!(pool.install(|| crate::join(|| round, || 1)), (round, 1));
                let registry = Arc::downgrade(&pool.registry);
                drop(pool);
                assert!(registry.upgrade().is_none(), "round {round}: registry kept");
                assert_eq!(crate::current_thread_index(), None);
            }
        });
    }

    /// Dropped from inside pool code (a `join` running on the adopted worker), the pool is left
    /// when that code returns, not under its frames.
    #[test]
    fn a_use_current_thread_pool_dropped_in_pool_code_is_left_on_the_way_out() {
        crate::test_support::watchdog("drop inside a join", LIMIT, || {
            let pool = adopting_pool(2);
            let ((), index) = crate::join(move || drop(pool), crate::current_thread_index);
            assert!(index.is_some());
            assert_eq!(crate::current_thread_index(), None, "left on the way out");
            let again = adopting_pool(2);
            assert_eq!(again.install(crate::current_thread_index), Some(0));
        });
    }

    /// Dropped while spawned work is pending, the pool lives on until that work is done; the
    /// thread leaves it at its next call that looks (here a query) once it has terminated.
    #[test]
    fn a_use_current_thread_pool_with_pending_work_is_left_once_it_terminates() {
        crate::test_support::watchdog("drop with spawned work pending", LIMIT, || {
            let (exit_tx, exit_rx) = mpsc::channel();
            let exit_tx = Mutex::new(exit_tx);
            let pool = ThreadPoolBuilder::new()
                .num_threads(2)
                .use_current_thread()
                .exit_handler(move |i| exit_tx.lock().unwrap().send(i).unwrap())
                .build()
                .unwrap();
            let (release_tx, release_rx) = mpsc::channel::<()>();
            pool.spawn(move || release_rx.recv().unwrap());
            drop(pool);
            assert_eq!(crate::current_thread_index(), Some(0), "not terminated yet");
            release_tx.send(()).unwrap();
            // Worker 1 runs its exit handler once the pool has terminated.
            assert_eq!(exit_rx.recv().unwrap(), 1);
            assert_eq!(crate::current_thread_index(), None, "left once terminated");
            let again = adopting_pool(2);
            assert_eq!(again.install(crate::current_thread_index), Some(0));
        });
    }

    /// A thread that exits while still a `use_current_thread` worker (its pool was dropped on
    /// another thread) frees its worker state then: once both threads are done, the registry is.
    #[test]
    fn a_use_current_thread_worker_is_freed_when_its_thread_exits() {
        crate::test_support::watchdog("a worker thread that exits", LIMIT, || {
            let (pool, registry) = thread::spawn(|| {
                let pool = adopting_pool(3);
                let registry = Arc::downgrade(&pool.registry);
                (pool, registry)
            })
            .join()
            .unwrap();
            assert!(registry.upgrade().is_some(), "the pool is alive");
            drop(pool); // joins workers 1 and 2
            assert!(registry.upgrade().is_none());
        });
    }
}
