//! [`ThreadPoolBuilder`], [`ThreadPool`], [`PoolStats`] and the free functions that ask about the current
//! pool.

use std::any::Any;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use crate::platform::affinity;
use crate::platform::sync::Arc;
use crate::runtime::broadcast::{self, BroadcastContext};
use crate::runtime::error::ThreadPoolBuildError;
use crate::runtime::future::spawn_future::{self, JobFuture};
use crate::runtime::registry::entry;
use crate::runtime::registry::thread_builder::{
    self, CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn,
};
use crate::runtime::registry::worker::{self, WorkerThread};
use crate::runtime::registry::{self, Registry, RegistryConfig};
use crate::runtime::scope::{self, Scope};
use crate::runtime::scope_fifo::ScopeFifo;
use crate::runtime::sleep::MAX_THREADS;
use crate::runtime::spawn;
use crate::runtime::trace::{self, TraceConfig};
use crate::runtime::yield_now::{self, Yield};

/// A pool's event counters: the totals over its workers, and each worker's own
/// ([`workers`](Self::workers)); see [`ThreadPool::stats`].
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
    /// nested below three pending jobs of their worker (see the `join` docs).
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
    /// first; see `docs/architecture.md`, "Many cores").
    pub jobs_offered: u64,
    /// Heavy steals: patrols that ran a process-wide barrier (`membarrier`, which interrupts every
    /// CPU running a thread of the process) to take a job from another worker's private stack.
    pub heavy_steals: u64,
    /// Each worker's counters, in index order (`workers[i]` is worker `i`, as in
    /// [`ThreadPool::current_thread_index`]).
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

/// User callback naming worker threads.
type NameFn = dyn FnMut(usize) -> String;

/// Configures and builds a [`ThreadPool`] (or the global pool).
///
/// ```
/// let pool = forkjoin::ThreadPoolBuilder::new()
///     .num_threads(3)
///     .thread_name(|i| format!("worker-{i}"))
///     .build()
///     .unwrap();
/// let name = pool.install(|| std::thread::current().name().map(str::to_owned));
/// assert!(name.unwrap().starts_with("worker-"));
/// ```
///
/// The type parameter is the spawn handler (see [`spawn_handler`](Self::spawn_handler)); it is
/// `DefaultSpawn` (a `std::thread` per worker) unless one was given, as in rayon.
pub struct ThreadPoolBuilder<S = DefaultSpawn> {
    config: RegistryConfig,
    /// Names the workers; [`resolve`](Self::resolve) turns it into `config.thread_names`.
    thread_name: Option<Box<NameFn>>,
    pin_threads: bool,
    trace_file: Option<PathBuf>,
    trace_capacity: Option<usize>,
    spawn_handler: S,
}

impl Default for ThreadPoolBuilder {
    fn default() -> Self {
        ThreadPoolBuilder {
            config: RegistryConfig::default(),
            thread_name: None,
            pin_threads: false,
            trace_file: None,
            trace_capacity: None,
            spawn_handler: DefaultSpawn,
        }
    }
}

impl<S> fmt::Debug for ThreadPoolBuilder<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.config.num_threads)
            .field("use_current_thread", &self.config.use_current_thread)
            .field("stack_size", &self.config.stack_size)
            .field("thread_name", &self.thread_name.is_some())
            .field("panic_handler", &self.config.panic_handler.is_some())
            .field("start_handler", &self.config.start_handler.is_some())
            .field("exit_handler", &self.config.exit_handler.is_some())
            .field("breadth_first", &self.config.breadth_first)
            .field("pin_threads", &self.pin_threads)
            .field("trace_file", &self.trace_file)
            .field("trace_capacity", &self.trace_capacity)
            .finish_non_exhaustive()
    }
}

impl ThreadPoolBuilder {
    /// A builder with default settings.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().build().unwrap();
    /// assert!(pool.current_num_threads() >= 1);
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds a pool whose threads are scoped threads of [`std::thread::scope`], each started by
    /// `wrapper`, which must call [`ThreadBuilder::run`] (after any set-up that may borrow from the
    /// caller, such as scoped thread-locals), and runs `with_pool` on it. Returns once `with_pool`
    /// has returned, the pool is dropped and every thread has exited.
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build); `with_pool` is not called then.
    ///
    /// ```
    /// let data = vec![1, 2, 3];
    /// let sum = forkjoin::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .build_scoped(
    ///         |thread| {
    ///             assert_eq!(data.len(), 3); // the wrapper may borrow
    ///             thread.run()
    ///         },
    ///         |pool| pool.install(|| data.iter().sum::<i32>()),
    ///     )
    ///     .unwrap();
    /// assert_eq!(sum, 6);
    /// ```
    pub fn build_scoped<W, F, R>(self, wrapper: W, with_pool: F) -> Result<R, ThreadPoolBuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&ThreadPool) -> R,
    {
        std::thread::scope(|scope| {
            let wrapper = &wrapper;
            let pool = self
                .spawn_handler(|thread| {
                    let mut builder = std::thread::Builder::new();
                    if let Some(name) = thread.name() {
                        builder = builder.name(name.to_owned());
                    }
                    if let Some(size) = thread.stack_size() {
                        builder = builder.stack_size(size);
                    }
                    builder.spawn_scoped(scope, move || wrapper(thread))?;
                    Ok(())
                })
                .build()?;
            Ok(with_pool(&pool))
        })
    }
}

impl<S> ThreadPoolBuilder<S> {
    /// Starts each worker with `spawn` instead of a plain `std::thread`: it receives a
    /// [`ThreadBuilder`] and must call [`ThreadBuilder::run`] on some thread (a scoped thread, a
    /// thread with its own set-up, …), or return an error, which `build` returns.
    ///
    /// `build` then returns without waiting for the workers to start (the handler may start them
    /// later), unless [`pin_threads`](Self::pin_threads) is on. The threads run until the pool is
    /// dropped; waiting for them to exit is up to the handler's owner (a scope does it).
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .spawn_handler(|thread| {
    ///         std::thread::spawn(|| thread.run());
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.install(|| forkjoin::join(|| 1, || 2)), (1, 2));
    /// ```
    pub fn spawn_handler<F>(self, spawn: F) -> ThreadPoolBuilder<CustomSpawn<F>>
    where
        F: FnMut(ThreadBuilder) -> io::Result<()>,
    {
        ThreadPoolBuilder {
            config: self.config,
            thread_name: self.thread_name,
            pin_threads: self.pin_threads,
            trace_file: self.trace_file,
            trace_capacity: self.trace_capacity,
            spawn_handler: CustomSpawn::new(spawn),
        }
    }

    /// Makes the building thread worker 0 of the pool instead of starting a thread for it.
    ///
    /// That thread does not run the pool's main loop: it runs the pool's jobs only while it waits
    /// in `join`, `scope`, `install` or a broadcast, or when it calls
    /// [`yield_now`](fn@crate::yield_now) or [`yield_local`](fn@crate::yield_local). No start or exit handler runs for it, and it is not
    /// pinned. `build` fails if the thread already is a worker of a pool.
    ///
    /// The thread stays the pool's worker until the pool is dropped and its spawned work is done;
    /// then it leaves the pool, freeing the pool's state, and may build another such pool. It
    /// leaves when it drops the pool itself (the drop then waits for the other workers to exit, as
    /// for any pool), else on its way out of the pool call it dropped the pool in, at its first
    /// call into a pool or query such as [`current_thread_index`](fn@crate::current_thread_index)
    /// once the spawned work is done, or when it exits. (rayon keeps the thread a worker, and the
    /// pool's state, for good.)
    ///
    /// ```
    /// std::thread::spawn(|| {
    ///     let pool = forkjoin::ThreadPoolBuilder::new()
    ///         .num_threads(2)
    ///         .use_current_thread()
    ///         .build()
    ///         .unwrap();
    ///     assert_eq!(forkjoin::current_thread_index(), Some(0));
    ///     assert_eq!(pool.install(|| forkjoin::join(|| 1, || 2)), (1, 2));
    ///     drop(pool); // the thread leaves the pool
    ///     assert_eq!(forkjoin::current_thread_index(), None);
    ///     let next = forkjoin::ThreadPoolBuilder::new().use_current_thread().build();
    ///     assert!(next.is_ok());
    /// })
    /// .join()
    /// .unwrap();
    /// ```
    pub fn use_current_thread(mut self) -> Self {
        self.config.use_current_thread = true;
        self
    }

    /// Number of worker threads; 0 (the default) means `FORKJOIN_NUM_THREADS` if set, else
    /// `RAYON_NUM_THREADS` if set, else the machine's available parallelism. At most
    /// [`max_num_threads`]: `build` fails above it.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(5).build().unwrap();
    /// assert_eq!(pool.current_num_threads(), 5);
    /// ```
    pub fn num_threads(mut self, num_threads: usize) -> Self {
        self.config.num_threads = num_threads;
        self
    }

    /// Names worker thread `i` with `closure(i)`. `build` calls it once per worker, in index order,
    /// before it starts any thread (for a [`use_current_thread`](Self::use_current_thread) worker
    /// 0 too, as rayon does, though that thread keeps its name).
    ///
    /// # Errors
    ///
    /// `build` fails if a name contains a NUL byte, which no thread name may hold.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .thread_name(|i| format!("fj-{i}"))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.install(|| std::thread::current().name().unwrap().to_owned()), "fj-0");
    /// ```
    pub fn thread_name<F>(mut self, closure: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.thread_name = Some(Box::new(closure));
        self
    }

    /// Stack size of each worker thread, in bytes (default: what std uses, `RUST_MIN_STACK` or 2 MiB).
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().stack_size(8 << 20).build().unwrap();
    /// pool.install(|| assert!(forkjoin::current_thread_index().is_some()));
    /// ```
    pub fn stack_size(mut self, stack_size: usize) -> Self {
        self.config.stack_size = Some(stack_size);
        self
    }

    /// Receives the payload of any panic in work given to [`spawn`](fn@crate::spawn) /
    /// [`ThreadPool::spawn`]. Without a handler the panic is printed and the worker keeps running.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let (tx, rx) = mpsc::channel();
    /// let tx = std::sync::Mutex::new(tx);
    /// let pool = forkjoin::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .panic_handler(move |p| {
    ///         let msg = p.downcast_ref::<&str>().copied().unwrap_or("?");
    ///         tx.lock().unwrap().send(msg.to_owned()).unwrap();
    ///     })
    ///     .build()
    ///     .unwrap();
    /// pool.spawn(|| panic!("oops"));
    /// assert_eq!(rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap(), "oops");
    /// ```
    pub fn panic_handler<H>(mut self, panic_handler: H) -> Self
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.config.panic_handler = Some(Box::new(panic_handler));
        self
    }

    /// Called on each worker thread, with its index, when it starts.
    ///
    /// [`build`](Self::build) returns only after every start handler has returned (unless a
    /// [spawn handler](Self::spawn_handler) starts the threads and pinning is off: then `build` does
    /// not wait), so a start handler must not wait for the thread that calls `build`. A panic in it
    /// goes to the panic handler.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let s = started.clone();
    /// let pool = forkjoin::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .start_handler(move |_| { s.fetch_add(1, Ordering::SeqCst); })
    ///     .build()
    ///     .unwrap();
    /// drop(pool); // waits for the (idle) workers to exit
    /// assert_eq!(started.load(Ordering::SeqCst), 2);
    /// ```
    pub fn start_handler<H>(mut self, start_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.config.start_handler = Some(Box::new(start_handler));
        self
    }

    /// Called on each worker thread, with its index, just before it exits.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let exited = Arc::new(AtomicUsize::new(0));
    /// let e = exited.clone();
    /// let pool = forkjoin::ThreadPoolBuilder::new()
    ///     .num_threads(3)
    ///     .exit_handler(move |_| { e.fetch_add(1, Ordering::SeqCst); })
    ///     .build()
    ///     .unwrap();
    /// drop(pool);
    /// assert_eq!(exited.load(Ordering::SeqCst), 3);
    /// ```
    pub fn exit_handler<H>(mut self, exit_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.config.exit_handler = Some(Box::new(exit_handler));
        self
    }

    /// rayon's deprecated execution hint: each worker takes the jobs of its own deque (the ones it
    /// spawned, and the `join` jobs it published) oldest first instead of newest first, a loosely
    /// breadth-first order. Thieves take the oldest jobs either way.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).breadth_first().build().unwrap();
    /// let order = std::sync::Mutex::new(Vec::new());
    /// pool.scope(|s| {
    ///     s.spawn(|s| {
    ///         for i in 0..3 {
    ///             let order = &order;
    ///             s.spawn(move |_| order.lock().unwrap().push(i));
    ///         }
    ///     });
    /// });
    /// assert_eq!(order.into_inner().unwrap(), [0, 1, 2]);
    /// ```
    #[deprecated(note = "use `scope_fifo` and `spawn_fifo` for similar effect")]
    pub fn breadth_first(mut self) -> Self {
        self.config.breadth_first = true;
        self
    }

    /// Pins worker `i` to the `i`-th CPU the process may run on, wrapping around when the pool has
    /// more workers than there are such CPUs. Off by default (rayon has no pinning).
    ///
    /// The allowed CPUs are read once, by [`build`](Self::build) / [`build_global`](Self::build_global):
    /// the process's affinity set (`sched_getaffinity`; what `taskset` or a cgroup cpuset allows),
    /// in ascending order. Each worker then pins itself with `sched_setaffinity`, as the first thing
    /// its thread does: its [start handler](Self::start_handler) and every job it runs already run on
    /// its CPU.
    ///
    /// How a failure gets back to `build`: a worker that cannot pin itself does not panic (that would
    /// leave the pool a worker short and `build` waiting); it records its error and starts as
    /// usual. `build` already waits until every worker has started, and each worker records its
    /// error before counting itself started, so after that one wait `build` knows whether every
    /// worker is pinned. If one is not, `build` stops and joins the pool's threads (their start and
    /// exit handlers run, as for any pool that is dropped) and returns the error of the
    /// lowest-numbered failing worker.
    ///
    /// Pinning helps when the pool has its CPUs to itself: a worker keeps its caches and is never
    /// migrated. It hurts when other busy threads share those CPUs, since the scheduler can no
    /// longer move a worker to an idle CPU, and with more workers than CPUs, where pinned workers
    /// share a CPU for good.
    ///
    /// # Errors
    ///
    /// With pinning on, `build` and `build_global` fail (a [`ThreadPoolBuildError`] that says which
    /// step failed) when the allowed set cannot be read or is empty, when a worker cannot pin itself
    /// (say the set changed since it was read, or a sandbox forbids the call), and on every platform
    /// but Linux: there pinning is an error rather than a silent no-op, so a program that asked for
    /// pinned workers never runs unpinned without knowing.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .pin_threads(true)
    ///     .build();
    /// # #[cfg(target_os = "linux")]
    /// # {
    /// let pool = pool.unwrap();
    /// // Each worker may now run on a single CPU: Linux lists it as a single number.
    /// let status = pool.install(|| std::fs::read_to_string("/proc/thread-self/status").unwrap());
    /// let cpus = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).unwrap();
    /// assert!(cpus.trim().parse::<usize>().is_ok(), "pinned to {cpus}");
    /// # }
    /// # #[cfg(not(target_os = "linux"))]
    /// # assert!(pool.is_err());
    /// ```
    pub fn pin_threads(mut self, pin_threads: bool) -> Self {
        self.pin_threads = pin_threads;
        self
    }

    /// Records a trace of this pool and writes it to `path` as Chrome trace-event JSON, which
    /// [Perfetto](https://ui.perfetto.dev) and `chrome://tracing` open: one track per worker (job
    /// spans by kind, steals, publications, idle and sleep spans, wake-ups) and one per outside
    /// thread that called [`install`](ThreadPool::install). Without this option a pool traces if
    /// `FORKJOIN_TRACE=path` is set when it is built. `docs/tracing.md` describes every event.
    ///
    /// The file is written when the pool is dropped, once its threads have exited (a pool whose
    /// spawned work is still running writes it when that work is done); for the global pool, at
    /// process exit or by [`flush_trace`]. Pools traced to the same path share the file, one
    /// process entry each. An I/O error is printed on stderr (or returned by `flush_trace`).
    ///
    /// Each worker keeps its last [`trace_capacity`](Self::trace_capacity) events in a ring of its
    /// own; recording costs a few stores per event, only on the scheduler's slow paths. A pool that
    /// does not trace pays one untaken branch at each of those sites and nothing on `join`'s fast
    /// path.
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("forkjoin-doc-{}.json", std::process::id()));
    /// let pool = forkjoin::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .trace_file(&path)
    ///     .build()
    ///     .unwrap();
    /// pool.install(|| forkjoin::join(|| 1, || 2));
    /// drop(pool); // joins the workers, then writes the file
    /// let json = std::fs::read_to_string(&path).unwrap();
    /// assert!(json.starts_with("{\"traceEvents\":["));
    /// assert!(json.contains("\"name\":\"worker 1\""));
    /// # std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn trace_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.trace_file = Some(path.into());
        self
    }

    /// Events each worker keeps for the trace (the most recent ones; older events are overwritten
    /// and counted as dropped in the file). Default: `FORKJOIN_TRACE_CAPACITY` if set, else 65,536
    /// (32 bytes each: 2 MiB per worker). Only matters if the pool traces
    /// ([`trace_file`](Self::trace_file) or `FORKJOIN_TRACE`).
    ///
    /// # Errors
    ///
    /// `build` fails for a capacity of 0, and for an invalid `FORKJOIN_TRACE_CAPACITY` when this
    /// option is not given and the pool traces.
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("forkjoin-doc-cap-{}.json", std::process::id()));
    /// let pool = forkjoin::ThreadPoolBuilder::new()
    ///     .trace_file(&path)
    ///     .trace_capacity(1024)
    ///     .build()
    ///     .unwrap();
    /// drop(pool);
    /// assert!(std::fs::read_to_string(&path).unwrap().contains("\"ring_capacity\":1024"));
    /// # std::fs::remove_file(&path).unwrap();
    /// assert!(forkjoin::ThreadPoolBuilder::new().trace_capacity(0).build().is_err());
    /// ```
    pub fn trace_capacity(mut self, events: usize) -> Self {
        self.trace_capacity = Some(events);
        self
    }

    fn resolve(mut self) -> Result<(RegistryConfig, S), ThreadPoolBuildError> {
        self.config.num_threads = match self.config.num_threads {
            0 => registry::default_num_threads()?,
            n if n > MAX_THREADS => {
                return Err(ThreadPoolBuildError::too_many_threads(n, MAX_THREADS))
            }
            n => n,
        };
        if let Some(mut name) = self.thread_name.take() {
            // Checked here, before any thread starts: std's `thread::Builder` panics on a NUL.
            let names = (0..self.config.num_threads)
                .map(|index| {
                    let name = name(index);
                    if name.contains('\0') {
                        return Err(ThreadPoolBuildError::nul_in_thread_name(index, name));
                    }
                    Ok(name)
                })
                .collect::<Result<Vec<_>, _>>()?;
            self.config.thread_names = Some(names);
        }
        if self.pin_threads {
            if !cfg!(target_os = "linux") {
                return Err(ThreadPoolBuildError::pin_unsupported());
            }
            let cpus = affinity::allowed_cpus().map_err(ThreadPoolBuildError::affinity_query)?;
            if cpus.is_empty() {
                return Err(ThreadPoolBuildError::no_allowed_cpus());
            }
            self.config.pin_cpus = Some(cpus);
        }
        if self.trace_capacity == Some(0) {
            return Err(ThreadPoolBuildError::zero_trace_capacity());
        }
        if let Some(path) = self.trace_file.or_else(trace::path_from_env) {
            let capacity = match self.trace_capacity {
                Some(n) => n,
                None => trace::capacity_from_env()
                    .map_err(|raw| {
                        ThreadPoolBuildError::invalid_env(
                            trace::CAPACITY_ENV,
                            raw,
                            "a positive integer count of trace events",
                        )
                    })?
                    .unwrap_or(trace::DEFAULT_CAPACITY),
            };
            self.config.trace = Some(TraceConfig {
                path,
                capacity,
                global: false,
            });
        }
        Ok((self.config, self.spawn_handler))
    }
}

impl<S: ThreadSpawn> ThreadPoolBuilder<S> {
    /// Starts the pool's threads and returns once every worker runs (its start handler has returned
    /// and it is looking for work), so work submitted right away finds every worker ready. (With a
    /// [spawn handler](Self::spawn_handler) and no pinning it does not wait: the handler's threads
    /// may start later.)
    ///
    /// Fails if `FORKJOIN_NUM_THREADS` (or, when that is unset, `RAYON_NUM_THREADS`) is consulted
    /// (thread count 0) and is not a positive integer, if the thread count is above
    /// [`max_num_threads`], if a [thread name](Self::thread_name) holds a NUL byte (checked before
    /// any thread starts), if a thread cannot be spawned (or the spawn handler fails), if
    /// [`use_current_thread`](Self::use_current_thread) is asked for on a thread that already is a
    /// worker, or if [pinning](Self::pin_threads) was asked for and fails (no thread is leaked then).
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.install(|| forkjoin::current_num_threads()), 2);
    /// ```
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        let (config, mut spawn) = self.resolve()?;
        let registry = thread_builder::start_pool(config, &mut spawn)?;
        Ok(ThreadPool { registry })
    }

    /// Makes this configuration the global pool's. An error if the global pool already exists (a second
    /// call, or any earlier use of `join`, `scope`, `spawn`, … from outside a pool).
    ///
    /// ```
    /// forkjoin::ThreadPoolBuilder::new().num_threads(2).build_global().unwrap();
    /// assert_eq!(forkjoin::current_num_threads(), 2);
    /// assert!(forkjoin::ThreadPoolBuilder::new().build_global().is_err());
    /// ```
    pub fn build_global(self) -> Result<(), ThreadPoolBuildError> {
        let (config, mut spawn) = self.resolve()?;
        entry::init_global(config, &mut spawn)
    }
}

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

    /// Index of the current thread in this pool, or `None` if it is not one of this pool's workers.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.current_thread_index(), None);
    /// assert!(pool.install(|| pool.current_thread_index()).unwrap() < 2);
    /// ```
    pub fn current_thread_index(&self) -> Option<usize> {
        entry::current_worker(&self.registry).map(WorkerThread::index)
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
        let counters = self.registry.worker_counters();
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

/// The most threads one pool may have. [`ThreadPoolBuilder::num_threads`] above it, or a larger
/// `FORKJOIN_NUM_THREADS` / `RAYON_NUM_THREADS`, makes `build` fail with an error that says so
/// (rayon silently lowers the count instead).
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

/// Index of the calling thread within its pool, or `None` outside any pool.
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
        Some(unsafe { (*wt).index() })
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
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
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while exits.load(Ordering::SeqCst) < 3 {
            assert!(std::time::Instant::now() < deadline, "workers did not exit");
            std::thread::yield_now();
        }
        assert_eq!(exits.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn spawn_panic_goes_to_handler_and_worker_survives() {
        let (tx, rx) = mpsc::channel::<String>();
        let tx = std::sync::Mutex::new(tx);
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

    /// A worker that cannot pin itself fails `build` with its error: no panic, no hang, the pool's
    /// other threads stopped. (The CPU list is injected: real allowed sets are valid.)
    #[cfg(target_os = "linux")]
    #[test]
    fn a_worker_that_cannot_pin_itself_fails_build() {
        let exits = Arc::new(AtomicUsize::new(0));
        let e = exits.clone();
        let good = affinity::allowed_cpus().unwrap()[0];
        let builder = ThreadPoolBuilder {
            config: RegistryConfig {
                num_threads: 3,
                // Worker 1 is asked for a CPU no `cpu_set_t` can name; worker 2 wraps to `good`.
                pin_cpus: Some(vec![good, affinity::CPU_CAPACITY]),
                ..RegistryConfig::default()
            },
            thread_name: None,
            pin_threads: false,
            trace_file: None,
            trace_capacity: None,
            spawn_handler: DefaultSpawn,
        }
        .exit_handler(move |_| {
            e.fetch_add(1, Ordering::SeqCst);
        });
        let err = builder.build().unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("worker 1") && msg.contains(&format!("CPU {}", affinity::CPU_CAPACITY)),
            "{msg}"
        );
        assert!(std::error::Error::source(&err).is_some());
        // `build` joined the threads before returning: every worker has exited.
        assert_eq!(exits.load(Ordering::SeqCst), 3);
    }

    #[cfg(not(target_os = "linux"))]
    #[test]
    fn pinning_is_an_error_off_linux() {
        let err = ThreadPoolBuilder::new()
            .pin_threads(true)
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("Linux only"));
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
    /// again, can build the next one (200 in a row; it kept ~290 KB per 8-thread pool, and could
    /// not build a second).
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
            let exit_tx = std::sync::Mutex::new(exit_tx);
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
            let (pool, registry) = std::thread::spawn(|| {
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

    #[test]
    fn too_many_threads_is_an_error() {
        let err = ThreadPoolBuilder::new()
            .num_threads(MAX_THREADS + 1)
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("at most"));
    }
}
