//! [`ThreadPoolBuilder`]: a pool's settings, and their resolution (thread count, names, CPUs to
//! pin to, tracing, from the options and the environment) before any thread starts.

use std::any::Any;
use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::platform::affinity;
use crate::platform::sync::shared;
use crate::runtime::error::ThreadPoolBuildError;
use crate::runtime::registry::entry;
use crate::runtime::registry::thread_builder::{
    self, CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn,
};
use crate::runtime::registry::{self, RegistryConfig};
use crate::runtime::sleep::MAX_THREADS;
use crate::runtime::thread_pool::ThreadPool;
use crate::runtime::trace::{self, TraceConfig};

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
/// `DefaultSpawn` (an OS thread per worker) unless one was given, as in rayon.
pub struct ThreadPoolBuilder<S = DefaultSpawn> {
    config: RegistryConfig,
    /// Names the workers; [`resolve`](Self::resolve) turns it into `config.thread_names`.
    thread_name: Option<Box<NameFn>>,
    pin_threads: bool,
    trace_file: Option<PathBuf>,
    trace_capacity: Option<usize>,
    /// Set by [`siblings_may_wait`](Self::siblings_may_wait); else `FORKJOIN_SIBLINGS_MAY_WAIT`.
    siblings_may_wait: Option<bool>,
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
            siblings_may_wait: None,
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
            .field("siblings_may_wait", &self.siblings_may_wait)
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
        shared::thread::scope(|scope| {
            let wrapper = &wrapper;
            let pool = self
                .spawn_handler(|thread| {
                    let mut builder = shared::thread::Builder::new();
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
    /// Starts each worker with `spawn` instead of a plain OS thread: it receives a
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
            siblings_may_wait: self.siblings_may_wait,
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
    /// [`max_num_threads`](crate::max_num_threads): `build` fails above it.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(5).build().unwrap();
    /// assert_eq!(pool.current_num_threads(), 5);
    /// ```
    pub fn num_threads(mut self, num_threads: usize) -> Self {
        self.config.num_threads = num_threads;
        self
    }

    /// The most threads [`ThreadPool::set_num_threads`](crate::ThreadPool::set_num_threads) may
    /// grow the pool to. The default is the pool's size or the CPUs the process may use
    /// ([`current_num_threads`](crate::current_num_threads) of a default pool), whichever is more.
    /// Every worker slot up to it is allocated at `build` (its queues and sleep state: tens of
    /// kilobytes), so that a resize allocates nothing the workers read. A value below the pool's
    /// size is raised to it; above [`max_num_threads`](crate::max_num_threads), `build` fails.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .resizable_up_to(8)
    ///     .build()
    ///     .unwrap();
    /// pool.set_num_threads(8).unwrap();
    /// assert_eq!(pool.current_num_threads(), 8);
    /// assert!(pool.set_num_threads(9).is_err());
    /// ```
    pub fn resizable_up_to(mut self, max_threads: usize) -> Self {
        self.config.capacity = max_threads;
        self
    }

    /// Resize the pool when the CPUs the process may use change: its affinity mask (`taskset`,
    /// `sched_setaffinity` on the process) or its cgroup CPU quota (a container's `--cpus`),
    /// re-read about once a second, as Go's runtime does since 1.25. When that number changes, the
    /// pool is resized to it ([`ThreadPool::set_num_threads`](crate::ThreadPool::set_num_threads)),
    /// up to its capacity, which for a following pool defaults to every CPU of the machine. A
    /// size set by [`num_threads`](Self::num_threads) or `set_num_threads` stands until the limit
    /// next changes. Off by default (rayon's pools never change size). Linux only: elsewhere the
    /// limit read is std's `available_parallelism`.
    ///
    /// # Errors
    ///
    /// `build` fails with a [`spawn_handler`](Self::spawn_handler): that handler starts the
    /// threads, so the pool cannot start more.
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new()
    ///     .follow_cpu_limit(true)
    ///     .build()
    ///     .unwrap();
    /// // Sized to the CPUs the process may use now, and resized when that changes.
    /// assert!(pool.current_num_threads() >= 1);
    /// ```
    pub fn follow_cpu_limit(mut self, follow: bool) -> Self {
        self.config.follow_cpu_limit = follow;
        self
    }

    /// Names worker thread `i` with `closure(i)`. `build` calls it once per worker slot, in index
    /// order, before it starts any thread: for every worker up to the pool's capacity
    /// ([`resizable_up_to`](Self::resizable_up_to)), so that a resize names the threads it starts
    /// (for a [`use_current_thread`](Self::use_current_thread) worker 0 too, as rayon does, though
    /// that thread keeps its name).
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
    /// A panic of a [start](Self::start_handler) or [exit](Self::exit_handler) handler arrives as a
    /// [`HandlerPanic`](crate::HandlerPanic) that names the handler and the worker.
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
        self.config.panic_handler = Some(shared::Arc::new(panic_handler));
        self
    }

    /// Called on each worker thread, with its index, when it starts.
    ///
    /// [`build`](Self::build) returns only after every start handler has returned (unless a
    /// [spawn handler](Self::spawn_handler) starts the threads and pinning is off: then `build` does
    /// not wait), so a start handler must not wait for the thread that calls `build`. A panic in it
    /// goes to the panic handler as a [`HandlerPanic`](crate::HandlerPanic) (or is printed), and the
    /// worker starts anyway.
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
        self.config.start_handler = Some(shared::Arc::new(start_handler));
        self
    }

    /// Called on each worker thread, with its index, just before it exits. A panic in it goes to
    /// the panic handler as a [`HandlerPanic`](crate::HandlerPanic) (or is printed).
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
        self.config.exit_handler = Some(shared::Arc::new(exit_handler));
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
    /// process exit or by [`flush_trace`](crate::flush_trace). Pools traced to the same path share
    /// the file, one process entry each. An I/O error is printed on stderr (or returned by
    /// `flush_trace`).
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

    /// Lets a closure of a `join`, or an item of a parallel loop, wait for another one (its
    /// sibling) to run, as rayon does: a `Barrier` across the two halves of a `join`, a channel
    /// from one item to another, a `Condvar` that an item waits on until a later item signals.
    /// Off by default; `FORKJOIN_SIBLINGS_MAY_WAIT=1` turns it on for every pool built without
    /// this option, the global pool included (a dependency tree switched from rayon needs no code
    /// change).
    ///
    /// forkjoin is cheap because it keeps work private: below a few pending jobs of its worker,
    /// most `join`s run b after a without making it a job, and a parallel call made while no
    /// worker can take a piece runs as one leaf, whose items run one after another. A closure
    /// blocked until such private work runs waits forever: nobody else can see that work. With
    /// this option every `join` pushes b and every parallel call splits up front into one piece
    /// per thread, as rayon's do; a blocked worker's pushed jobs are taken by the others (a
    /// patrol's steal, or the pool's reserve worker when every thread is blocked). Every pattern of
    /// this kind that completes on rayon then completes here, at 2–4 times the default's cost on
    /// fine-grained recursion, still below rayon's (`docs/benchmarks.md`, "Siblings that wait").
    /// Items of one piece still run one after another, in rayon too: for items that must each be
    /// able to wait for any other, add `.with_max_len(1)`.
    ///
    /// Without the option, order the halves so that a never waits for b, or use `scope` and
    /// `s.spawn`, or `.with_max_len(1)` on the loop: those complete on pools of every size.
    ///
    /// # Errors
    ///
    /// `build` fails for a `FORKJOIN_SIBLINGS_MAY_WAIT` other than `1`, `true`, `0`, `false`
    /// or empty when this option is not given (the global pool warns and leaves it off).
    ///
    /// ```
    /// use std::sync::Barrier;
    ///
    /// let pool = forkjoin::ThreadPoolBuilder::new()
    ///     .num_threads(4)
    ///     .siblings_may_wait(true)
    ///     .build()
    ///     .unwrap();
    /// // Ten joins deep, a waits at a barrier that only b can pass.
    /// fn deep(depth: u32) -> u32 {
    ///     if depth == 0 {
    ///         let barrier = Barrier::new(2);
    ///         forkjoin::join(|| barrier.wait(), || barrier.wait());
    ///         return 1;
    ///     }
    ///     forkjoin::join(|| deep(depth - 1), || 0).0
    /// }
    /// assert_eq!(pool.install(|| deep(10)), 1);
    /// ```
    pub fn siblings_may_wait(mut self, yes: bool) -> Self {
        self.siblings_may_wait = Some(yes);
        self
    }

    fn resolve(mut self) -> Result<(RegistryConfig, S), ThreadPoolBuildError> {
        self.config.num_threads = match self.config.num_threads {
            0 => registry::default_num_threads()?,
            n if n > MAX_THREADS => {
                return Err(ThreadPoolBuildError::too_many_threads(n, MAX_THREADS));
            }
            n => n,
        };
        self.config.capacity = match self.config.capacity {
            0 => registry::default_capacity(self.config.num_threads, self.config.follow_cpu_limit),
            n if n > MAX_THREADS => {
                return Err(ThreadPoolBuildError::too_many_threads(n, MAX_THREADS));
            }
            n => n.max(self.config.num_threads),
        };
        if let Some(mut name) = self.thread_name.take() {
            // Checked here, before any thread starts: std's `thread::Builder` panics on a NUL.
            // Every slot gets its name now: a resize may start a thread for any of them.
            let names = (0..self.config.capacity)
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
        self.config.siblings_may_wait = match self.siblings_may_wait {
            Some(yes) => yes,
            None => registry::siblings_may_wait_from_env().map_err(|raw| {
                ThreadPoolBuildError::invalid_env(
                    registry::SIBLINGS_MAY_WAIT_ENV,
                    raw,
                    "1, true, 0 or false",
                )
            })?,
        };
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
    /// [`max_num_threads`](crate::max_num_threads), if a [thread name](Self::thread_name) holds a
    /// NUL byte (checked before any thread starts), if a thread cannot be spawned (or the spawn
    /// handler fails), if [`use_current_thread`](Self::use_current_thread) is asked for on a thread
    /// that already is a worker, or if [pinning](Self::pin_threads) was asked for and fails (no
    /// thread is leaked then).
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.install(|| forkjoin::current_num_threads()), 2);
    /// ```
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        let (config, mut spawn) = self.resolve()?;
        let registry = thread_builder::start_pool(config, &mut spawn)?;
        Ok(ThreadPool::new(registry))
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

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;

    /// A worker that cannot pin itself fails `build` with its error: no panic, no hang, the pool's
    /// other threads stopped. (The CPU list is injected: real allowed sets are valid.)
    #[cfg(target_os = "linux")]
    #[test]
    fn a_worker_that_cannot_pin_itself_fails_build() {
        use crate::platform::sync::for_tests::{AtomicUsize, Ordering};
        use crate::platform::sync::Arc;
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
            siblings_may_wait: None,
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

    #[test]
    fn too_many_threads_is_an_error() {
        let err = ThreadPoolBuilder::new()
            .num_threads(MAX_THREADS + 1)
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("at most"));
    }
}
