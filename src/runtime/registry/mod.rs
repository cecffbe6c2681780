//! The shared state of one pool: every worker's stealer, private-stack thief handle, broadcast
//! inbox and `spawn_fifo` queue, the injector for work from outside, the sleep state and work map,
//! the handlers, the statistics storage, and termination.
//!
//! This is the bottom of the scheduler layer: it imports neither the worker thread nor the entry
//! points and starts no thread. [`thread_builder::start_pool`] starts the threads (they run the
//! worker's main loop), and calls and spawned jobs get into a pool through [`entry`]. Both import
//! this module, never the reverse.
//!
//! **Termination.** `terminate_count` starts at 1 for the `ThreadPool` handle and is incremented by every
//! `spawn` until that job has finished. Dropping the handle and finishing a spawned job both decrement it;
//! the decrement that reaches zero sets every worker's terminate latch (waking sleepers). Workers wait on
//! that latch in their main loop, so they keep running jobs until then and exit afterwards, running the
//! exit handler once each. Nothing else can be in flight at that point: `install`, `join` and `scope` all
//! need either a pool handle or a running job of the pool.

mod defaults;
pub(crate) mod entry;
#[cfg(not(any(forkjoin_loom, forkjoin_shuttle)))]
pub(crate) mod follow;
pub(crate) mod handler_panic;
mod line_labels;
#[cfg(not(forkjoin_loom))]
pub(crate) mod reserve;
pub(crate) mod resize;
pub(crate) mod slots;
pub(crate) mod thread_builder;
pub(crate) mod worker;

use std::collections::VecDeque;

pub(crate) use self::defaults::{
    available_parallelism, default_capacity, default_num_threads, default_stack_size,
    siblings_may_wait_from_env, SIBLINGS_MAY_WAIT_ENV,
};
use self::slots::Slots;
use crate::platform::sync::{
    fence, shared, sim_bug, thread, Arc, AtomicBool, AtomicU64, AtomicUsize, Mutex, Ordering,
};
use crate::platform::unwind::{self, Payload};
use crate::runtime::deque::{Stealer, Worker};
use crate::runtime::jobs::cap::{Caps, Parked};
use crate::runtime::jobs::fifo::JobFifo;
use crate::runtime::jobs::job::{HeapJob, JobRef};
use crate::runtime::jobs::jobstack::{JobStackOwner, JobStackThief};
use crate::runtime::jobs::latch::{CoreLatch, Latch, LockLatch};
use crate::runtime::jobs::region::{RegionTag, Regions, WaitFor};
use crate::runtime::registry::handler_panic::{HandlerPanic, WorkerHandler};
use crate::runtime::sleep::work_map::WorkMap;
use crate::runtime::sleep::{Sleep, MAX_THREADS};
use crate::runtime::trace::{PoolTrace, RingWriter, TraceConfig};
use crossbeam_utils::CachePadded;

/// User callback receiving a panic payload.
pub(crate) type PanicHandler = dyn Fn(Payload) + Send + Sync;
/// User callback receiving a worker index.
pub(crate) type IndexHandler = dyn Fn(usize) + Send + Sync;

/// Everything needed to start a pool (the builder's options, resolved).
#[derive(Default)]
pub(crate) struct RegistryConfig {
    pub(crate) num_threads: usize,
    /// How many workers a resize may grow the pool to (`ThreadPoolBuilder::resizable_up_to`); 0:
    /// the default, `num_threads` or the available CPUs, whichever is more.
    pub(crate) capacity: usize,
    /// The pool's threads are ours (the default spawn handler): a resize may start and end them.
    pub(crate) resizable: bool,
    /// Resize the pool when the CPU limit changes (`ThreadPoolBuilder::follow_cpu_limit`).
    pub(crate) follow_cpu_limit: bool,
    /// Worker `i`'s thread name is `thread_names[i]` (`ThreadPoolBuilder::thread_name`, whose
    /// closure the builder calls for every index up to the capacity and checks, so no spawn fails
    /// on a name).
    pub(crate) thread_names: Option<Vec<String>>,
    pub(crate) stack_size: Option<usize>,
    /// The handlers are shared (`std`'s `Arc`, never a model's): a `fork()`ed child's global pool
    /// reuses its parent's (`crate::runtime::registry::entry`).
    pub(crate) panic_handler: Option<shared::Arc<PanicHandler>>,
    pub(crate) start_handler: Option<shared::Arc<IndexHandler>>,
    pub(crate) exit_handler: Option<shared::Arc<IndexHandler>>,
    /// With `ThreadPoolBuilder::pin_threads`: the CPUs to pin the workers to (never empty), worker `i`
    /// on `cpus[i % cpus.len()]`. For the starter (`crate::runtime::registry::thread_builder::start_pool`).
    pub(crate) pin_cpus: Option<Vec<usize>>,
    /// Record a trace (`ThreadPoolBuilder::trace_file` or `FORKJOIN_TRACE`).
    pub(crate) trace: Option<TraceConfig>,
    /// Worker 0 is the building thread (`ThreadPoolBuilder::use_current_thread`).
    pub(crate) use_current_thread: bool,
    /// Workers take their own public deque's jobs oldest first (`ThreadPoolBuilder::breadth_first`).
    pub(crate) breadth_first: bool,
    /// Keep a reserve worker (`reserve.rs`): the starter sets it for pools whose threads are ours.
    pub(crate) reserve: bool,
    /// Every `join` pushes b, every parallel call splits up front (`siblings_may_wait`).
    pub(crate) siblings_may_wait: bool,
}

/// Per-worker event counters and busy/idle clock. Written only by their worker (load + store, no
/// read-modify-write), read by anyone with Relaxed loads: exact for the owner, a consistent-enough
/// snapshot for `stats()`. The `join` fast path counts its pops in the job stack's owner line.
#[derive(Debug)]
pub(crate) struct WorkerCounters {
    /// Jobs popped from its own public deque (the name predates the private stack, whose pops the
    /// job stack counts).
    pub(crate) local_pops: AtomicU64,
    pub(crate) failed_steals: AtomicU64,
    /// Probes of another worker's deque that found it empty.
    pub(crate) empty_probes: AtomicU64,
    pub(crate) injector_pops: AtomicU64,
    pub(crate) sleeps: AtomicU64,
    pub(crate) published: AtomicU64,
    /// Jobs split off a running loop's rest for an idle worker (`crate::runtime::offers`).
    pub(crate) offered: AtomicU64,
    /// Heavy steals (process-wide barriers) this worker ran on patrol.
    pub(crate) heavy_steals: AtomicU64,
    /// Jobs this worker stole, per victim (deque steals and heavy steals alike), 16 victims to a
    /// padded line. Only this worker writes its lines, so a victim's "stolen from me" count is a sum
    /// over the thieves' lines, and no counter has two writers. (8 bytes per pair of workers.)
    stolen_from: Box<[CachePadded<[AtomicU64; VICTIMS_PER_LINE]>]>,
    /// Ticks when the worker started.
    started_at: AtomicU64,
    /// Ticks when the current idle period began, or [`BUSY`].
    idle_since: AtomicU64,
    /// Ticks spent in finished idle periods.
    idle_ticks: AtomicU64,
}

const VICTIMS_PER_LINE: usize = 16;
/// `idle_since` while the worker is not idle.
const BUSY: u64 = u64::MAX;

impl WorkerCounters {
    fn new(num_threads: usize) -> Self {
        WorkerCounters {
            local_pops: AtomicU64::new(0),
            failed_steals: AtomicU64::new(0),
            empty_probes: AtomicU64::new(0),
            injector_pops: AtomicU64::new(0),
            sleeps: AtomicU64::new(0),
            published: AtomicU64::new(0),
            offered: AtomicU64::new(0),
            heavy_steals: AtomicU64::new(0),
            stolen_from: (0..num_threads.div_ceil(VICTIMS_PER_LINE))
                .map(|_| CachePadded::new(std::array::from_fn(|_| AtomicU64::new(0))))
                .collect(),
            started_at: AtomicU64::new(0),
            idle_since: AtomicU64::new(BUSY),
            idle_ticks: AtomicU64::new(0),
        }
    }

    /// Counts a job this worker stole from worker `victim`. Owner only.
    #[inline]
    pub(crate) fn count_steal(&self, victim: usize) {
        bump(&self.stolen_from[victim / VICTIMS_PER_LINE][victim % VICTIMS_PER_LINE]);
    }

    /// The worker starts at tick `now`. Owner only.
    pub(crate) fn start(&self, now: u64) {
        // Relaxed: a statistic (`build` returns after this, through the started latch).
        self.started_at.store(now, Ordering::Relaxed);
    }

    /// An idle period begins at tick `now` (a search failed). Owner only.
    #[inline]
    pub(crate) fn enter_idle(&self, now: u64) {
        // Relaxed: a statistic.
        self.idle_since.store(now, Ordering::Relaxed);
    }

    /// The idle period that began at tick `since` ends at tick `now`. Owner only.
    #[inline]
    pub(crate) fn leave_idle(&self, since: u64, now: u64) {
        // Relaxed load + store: only the owner writes these.
        let total = self.idle_ticks.load(Ordering::Relaxed);
        self.idle_ticks
            .store(total + now.saturating_sub(since), Ordering::Relaxed);
        self.idle_since.store(BUSY, Ordering::Relaxed);
    }
}

/// One worker's counters, read out ([`Registry::worker_counters`]).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct CounterSnapshot {
    /// Jobs popped back from its private stack (the `join` fast path).
    pub(crate) private_pops: u64,
    pub(crate) deque_pops: u64,
    pub(crate) failed_steals: u64,
    pub(crate) empty_probes: u64,
    pub(crate) injector_pops: u64,
    pub(crate) sleeps: u64,
    pub(crate) published: u64,
    pub(crate) offered: u64,
    pub(crate) heavy_steals: u64,
    /// Futex wakes sent to this worker.
    pub(crate) wakeups: u64,
    /// Jobs this worker stole, per victim.
    pub(crate) stolen_from: Vec<u64>,
    /// Nanoseconds since the worker started, not idle and idle.
    pub(crate) busy_ns: u64,
    pub(crate) idle_ns: u64,
}

/// Adds one to an owner-written counter.
#[inline(always)]
pub(crate) fn bump(counter: &AtomicU64) {
    // Relaxed load + store: only the owning worker writes, so no increment can be lost.
    counter.store(counter.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
}

/// What thieves and wakers know about one worker.
pub(crate) struct ThreadInfo {
    pub(crate) stealer: Stealer<JobRef>,
    pub(crate) stats: CachePadded<WorkerCounters>,
    /// A thief handle of the worker's owner-private job stack (heavy steals); the worker thread holds
    /// the stack's only owner handle.
    pub(crate) jobs: JobStackThief,
    /// Set once the pool terminates; the worker's main loop waits on it.
    pub(crate) terminate: CoreLatch,
    /// Jobs addressed to this worker alone (a broadcast's share): only it runs them (see
    /// [`Registry::push_broadcast`]).
    broadcasts: Injector,
    /// The queue behind this worker's `spawn_fifo` jobs (see `crate::runtime::jobs::fifo`).
    pub(crate) fifo: JobFifo,
    /// The kernel's id of the thread running this worker, 0 until it starts (the stall check of
    /// `reserve.rs` reads the thread's state).
    pub(crate) tid: AtomicUsize,
}

/// Queue of jobs from outside the pool (plain threads, other pools); also each worker's broadcast
/// inbox.
struct Injector {
    queue: Mutex<VecDeque<JobRef>>,
    /// `queue.len()`, readable without the lock so idle workers can skip an empty injector.
    len: AtomicUsize,
}

impl Injector {
    fn new() -> Self {
        Injector {
            queue: Mutex::new(VecDeque::new()),
            len: AtomicUsize::new(0),
        }
    }

    fn push(&self, job: JobRef) {
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        q.push_back(job);
        // SeqCst: read by `has_jobs` after the sleeper's fence (sleep README, rule 5).
        self.len.store(q.len(), Ordering::SeqCst);
    }

    fn pop(&self) -> Option<JobRef> {
        // Relaxed: a hint only; the lock orders the queue itself.
        if self.len.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        let job = q.pop_front();
        // SeqCst: like the store in `push` (read by `has_jobs` after the sleeper's fence).
        self.len.store(q.len(), Ordering::SeqCst);
        job
    }

    fn has_jobs(&self) -> bool {
        // SeqCst: pairs with the store in `push` (see above).
        self.len.load(Ordering::SeqCst) != 0
    }

    /// The oldest job `accept` says yes to, taken out of the queue.
    fn pop_if(&self, accept: impl Fn(&JobRef) -> bool) -> Option<JobRef> {
        // Relaxed: as in `pop`.
        if self.len.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        let i = q.iter().position(accept)?;
        let job = q.remove(i);
        // SeqCst: as in `pop`.
        self.len.store(q.len(), Ordering::SeqCst);
        job
    }

    /// True if the queue holds a job `accept` says yes to (read after the sleeper's fence, like
    /// `has_jobs`).
    fn has_jobs_for(&self, accept: impl Fn(&JobRef) -> bool) -> bool {
        if !self.has_jobs() {
            return false;
        }
        let q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        q.iter().any(accept)
    }
}

/// The shared state of one pool.
pub(crate) struct Registry {
    /// One per worker slot (`capacity` of them), then the reserve worker's if the pool keeps one.
    thread_infos: Box<[ThreadInfo]>,
    /// The pool's size: its threads, the reserve worker not counted; the target of the slots
    /// (`slots.rs`), copied here for reads without the lock.
    num_threads: AtomicUsize,
    /// How many worker slots the pool has: the most threads a resize may grow it to.
    capacity: usize,
    /// Which thread runs which slot (`slots.rs`); `None` if the pool cannot be resized (its threads
    /// are a spawn handler's).
    slots: Mutex<Slots<WorkerQueues, thread::JoinHandle<()>>>,
    resizable: bool,
    /// The pool resizes itself when the CPU limit changes (`follow.rs`): a `fork()`ed child's
    /// global pool does too.
    follows_cpu_limit: bool,
    /// What a resize needs to start a thread: its name, and the CPUs to pin it to.
    thread_names: Option<Vec<String>>,
    pin_cpus: Option<Vec<usize>>,
    /// The reserve worker's state, if the pool keeps one (`reserve.rs`).
    reserve: Option<ReserveSlot>,
    sleep: Arc<Sleep>,
    /// Which workers' public deques may hold jobs (searches probe only those).
    work_map: WorkMap,
    /// Which jobs belong to which waits (`crate::runtime::jobs::region`).
    regions: Regions,
    /// How many threads may run which call's jobs (`crate::runtime::jobs::cap`).
    caps: Caps,
    injector: Injector,
    terminate_count: AtomicUsize,
    panic_handler: Option<shared::Arc<PanicHandler>>,
    start_handler: Option<shared::Arc<IndexHandler>>,
    exit_handler: Option<shared::Arc<IndexHandler>>,
    /// The stack size the builder gave the workers, if any (for a `fork()`ed child's global pool).
    stack_size: Option<usize>,
    /// The fork generation (`crate::platform::fork`) the threads were started in: in a child made
    /// by `fork()` after that, they do not exist.
    fork_generation: u64,
    /// Workers that have not finished starting (TLS set, start handler run) yet.
    starting: AtomicUsize,
    /// Set by the last worker to finish starting; the starter waits for it
    /// ([`Registry::wait_until_started`]).
    started: Arc<LockLatch>,
    /// A plain thread is yielding while it waits for its injected job. Only one may: many threads
    /// calling `install` at once then block at once instead of taking CPU time from the workers.
    caller_yielding: AtomicBool,
    /// Workers take their own public deque's jobs oldest first (`ThreadPoolBuilder::breadth_first`).
    breadth_first: bool,
    /// Every `join` pushes b and every parallel call splits up front
    /// (`ThreadPoolBuilder::siblings_may_wait`).
    siblings_may_wait: bool,
    /// What the pool records for its trace file, if it traces; the file is written when the
    /// registry is dropped (its threads have exited).
    trace: Option<Arc<PoolTrace>>,
}

/// What the pool keeps for its reserve worker (`crate::runtime::registry::reserve`): the extra
/// worker index past the pool's threads that a temporary thread runs while every thread is blocked
/// in user code and work waits.
#[cfg_attr(forkjoin_loom, allow(dead_code))] // no reserve under loom
pub(crate) struct ReserveSlot {
    /// The reserve worker's queues while no thread runs it; its thread takes them when it starts
    /// and gives them back when it stops.
    pub(crate) queues: Mutex<Option<WorkerQueues>>,
    /// The thread of its last start, joined before the next start and with the pool's threads.
    pub(crate) thread: Mutex<Option<thread::JoinHandle<()>>>,
    /// A thread runs the reserve worker now (set by the starter, cleared by the thread as it stops).
    pub(crate) running: AtomicBool,
}

impl ReserveSlot {
    /// Waits for the thread of the reserve's last start to exit, if there was one.
    pub(crate) fn join_thread(&self) {
        let handle = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(h) = handle {
            let _ = h.join();
        }
    }
}

/// The owner handles of one worker's two queues (its public deque and its private job stack) and
/// of its trace ring, if the pool traces. [`Registry::new`] keeps the thief (reader) side of each and
/// returns these, to be moved into the thread that will own them.
pub(crate) struct WorkerQueues {
    pub(crate) deque: Worker<JobRef>,
    pub(crate) jobs: JobStackOwner,
    pub(crate) trace: Option<RingWriter>,
}

impl Registry {
    /// Creates the shared state of a pool of `config.num_threads` workers, and the owner handles of
    /// each worker's queues (in index order). Starts no thread: `config.thread_name`,
    /// `config.stack_size` and `config.pin_cpus` are for the starter (`crate::runtime::registry::thread_builder::start_pool`),
    /// which moves each worker's queues into its thread and registers the thread with
    /// [`Registry::add_thread`].
    pub(crate) fn new(mut config: RegistryConfig) -> (Arc<Registry>, Vec<WorkerQueues>) {
        let threads = config.num_threads;
        let capacity = config.capacity.max(threads);
        crate::platform::sync::init_asymmetric_barriers();
        crate::platform::fork::watch();
        assert!(
            (1..=MAX_THREADS).contains(&threads),
            "thread count checked by the builder"
        );
        // Every per-worker structure has one entry per slot (`slots.rs`), and one for the reserve
        // worker too, at index `capacity`.
        let n = capacity + usize::from(config.reserve);
        let workers: Vec<Worker<JobRef>> = (0..n).map(|_| Worker::new()).collect();
        // Each private job stack's only owner handle is created here and moved into its worker's
        // thread by the starter, like the deque's `Worker`; the registry keeps thief handles.
        let job_stacks: Vec<JobStackOwner> = (0..n).map(|_| JobStackOwner::new()).collect();
        let (trace, writers) = match &config.trace {
            Some(trace) => {
                // The reserve worker records no trace.
                let (trace, writers) = PoolTrace::start(trace, threads);
                let writers = writers
                    .into_iter()
                    .map(Some)
                    .chain(std::iter::repeat_with(|| None));
                (Some(trace), writers.take(n).collect())
            }
            None => (None, (0..n).map(|_| None).collect::<Vec<_>>()),
        };
        let registry = Arc::new(Registry {
            thread_infos: workers
                .iter()
                .zip(&job_stacks)
                .map(|(w, jobs)| ThreadInfo {
                    stealer: w.stealer(),
                    stats: CachePadded::new(WorkerCounters::new(n)),
                    jobs: jobs.thief(),
                    terminate: CoreLatch::new(),
                    broadcasts: Injector::new(),
                    fifo: JobFifo::new(),
                    tid: AtomicUsize::new(0),
                })
                .collect(),
            num_threads: AtomicUsize::new(threads),
            capacity,
            slots: Mutex::new(Slots::new(threads, Vec::new())),
            resizable: config.resizable,
            follows_cpu_limit: config.follow_cpu_limit,
            thread_names: config.thread_names.take(),
            pin_cpus: config.pin_cpus.clone(),
            reserve: config.reserve.then(|| ReserveSlot {
                queues: Mutex::new(None),
                thread: Mutex::new(None),
                running: AtomicBool::new(false),
            }),
            sleep: Arc::new(Sleep::with_reserve(threads, n - threads)),
            breadth_first: config.breadth_first,
            siblings_may_wait: config.siblings_may_wait,
            work_map: WorkMap::new(n),
            regions: Regions::new(n),
            caps: Caps::new(),
            injector: Injector::new(),
            terminate_count: AtomicUsize::new(1),
            panic_handler: config.panic_handler.take(),
            start_handler: config.start_handler.take(),
            exit_handler: config.exit_handler.take(),
            stack_size: config.stack_size,
            fork_generation: crate::platform::fork::generation(),
            starting: AtomicUsize::new(threads),
            started: Arc::new(LockLatch::new()),
            caller_yielding: AtomicBool::new(false),
            trace,
        });
        registry.label_lines();
        let mut queues: Vec<WorkerQueues> = workers
            .into_iter()
            .zip(job_stacks)
            .zip(writers)
            .map(|((deque, jobs), trace)| WorkerQueues { deque, jobs, trace })
            .collect();
        if let Some(reserve) = &registry.reserve {
            *reserve.queues.lock().unwrap_or_else(|e| e.into_inner()) = queues.pop();
        }
        // The slots past the pool's size are vacant: their queues wait in the slots.
        let vacant = queues.split_off(threads);
        *registry.lock_slots() = Slots::new(threads, vacant);
        (registry, queues)
    }

    /// Keeps the handle of the thread started for worker `index`, for [`Registry::join_threads`].
    pub(crate) fn add_thread(&self, index: usize, handle: thread::JoinHandle<()>) {
        self.lock_slots().started(index, handle);
    }

    /// Blocks until every worker has called [`Registry::worker_started`].
    pub(crate) fn wait_until_started(&self) {
        self.started.wait();
    }

    /// Called by each worker once it has started (after its start handler).
    pub(crate) fn worker_started(&self) {
        // AcqRel: the last decrement sees every worker's start (release by each, acquire by the last).
        if self.starting.fetch_sub(1, Ordering::AcqRel) == 1 {
            // SAFETY: `started` is owned by the registry, which outlives this call.
            unsafe { Latch::set(&self.started as *const Arc<LockLatch>) };
        }
    }

    /// The slots lock (`slots.rs`). No user code runs under it.
    pub(crate) fn lock_slots(
        &self,
    ) -> crate::platform::sync::MutexGuard<'_, Slots<WorkerQueues, thread::JoinHandle<()>>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for every worker thread to exit (after termination). Must not run on a worker of this pool.
    /// In a `fork()`ed child the threads were left behind in the parent: joining one would wait
    /// forever, so their handles are forgotten instead.
    pub(crate) fn join_threads(&self) {
        let handles = self.lock_slots().take_all_handles();
        if self.lost_to_fork() {
            std::mem::forget(handles);
            return;
        }
        for h in handles {
            let _ = h.join();
        }
        if let Some(reserve) = &self.reserve {
            reserve.join_thread();
        }
    }

    /// True in a child process made by `fork()` after this pool started its threads: none of them
    /// exists here.
    #[inline]
    pub(crate) fn lost_to_fork(&self) -> bool {
        self.fork_generation != crate::platform::fork::generation()
    }

    /// Panics, with a message that says why, if this pool's threads were lost to a `fork()`: work
    /// sent to it would wait forever.
    #[inline]
    fn check_not_lost_to_fork(&self) {
        if self.lost_to_fork() {
            lost_to_fork_panic()
        }
    }

    /// What a `fork()`ed child needs to build its own global pool like this one: the thread count,
    /// stack size, handlers, `breadth_first`, `siblings_may_wait` and whether it follows the CPU
    /// limit (not the thread names, pinning, spawn handler or trace).
    pub(crate) fn config_for_fork_child(&self) -> RegistryConfig {
        RegistryConfig {
            num_threads: self.num_threads(),
            capacity: self.capacity,
            resizable: self.resizable,
            follow_cpu_limit: self.follows_cpu_limit,
            stack_size: self.stack_size,
            panic_handler: self.panic_handler.clone(),
            start_handler: self.start_handler.clone(),
            exit_handler: self.exit_handler.clone(),
            breadth_first: self.breadth_first,
            siblings_may_wait: self.siblings_may_wait,
            ..RegistryConfig::default()
        }
    }

    /// The pool's size (its reserve worker not counted): the last resize's, while the threads past
    /// it finish their jobs and leave.
    #[inline]
    pub(crate) fn num_threads(&self) -> usize {
        // Relaxed: a size is a hint to splitters; the slots lock orders what depends on it.
        self.num_threads.load(Ordering::Relaxed)
    }

    /// How many worker slots the pool has: the reserve worker's index, and the most threads a
    /// resize may grow it to.
    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// The stack size of the pool's threads: the builder's, else [`default_stack_size`].
    #[cfg_attr(forkjoin_loom, allow(dead_code))] // no reserve under loom
    pub(crate) fn thread_stack_size(&self) -> usize {
        self.stack_size.unwrap_or_else(default_stack_size)
    }

    /// The reserve worker's state, if the pool keeps one.
    #[inline]
    #[cfg_attr(forkjoin_loom, allow(dead_code))] // no reserve under loom
    pub(crate) fn reserve(&self) -> Option<&ReserveSlot> {
        self.reserve.as_ref()
    }

    /// True if a job may be waiting in the injector or a public deque: a racy hint, for the stall
    /// check of the reserve worker. (Private stacks are the patrols' to empty: any worker that
    /// waits or idles patrols, and a pool whose threads are all blocked in user code with only
    /// private jobs left would hang on rayon too.)
    #[cfg_attr(forkjoin_loom, allow(dead_code))] // no reserve under loom
    pub(crate) fn may_hold_jobs(&self) -> bool {
        self.injector.has_jobs()
            || self
                .thread_infos
                .iter()
                .any(|info| !info.stealer.is_empty())
    }

    #[inline]
    pub(crate) fn thread_info(&self, index: usize) -> &ThreadInfo {
        &self.thread_infos[index]
    }

    #[inline]
    pub(crate) fn thread_infos(&self) -> &[ThreadInfo] {
        &self.thread_infos
    }

    #[inline]
    pub(crate) fn sleep(&self) -> &Arc<Sleep> {
        &self.sleep
    }

    /// True if every `join` pushes b and every parallel call splits up front
    /// (`ThreadPoolBuilder::siblings_may_wait`).
    pub(crate) fn siblings_may_wait(&self) -> bool {
        self.siblings_may_wait
    }

    /// True if workers take their own deque's jobs oldest first (`ThreadPoolBuilder::breadth_first`).
    pub(crate) fn breadth_first(&self) -> bool {
        self.breadth_first
    }

    #[inline]
    pub(crate) fn work_map(&self) -> &WorkMap {
        &self.work_map
    }

    #[inline]
    pub(crate) fn regions(&self) -> &Regions {
        &self.regions
    }

    #[inline]
    pub(crate) fn caps(&self) -> &Caps {
        &self.caps
    }

    /// Injects `job`, a spawn parked by a cap, now holding its places (`crate::runtime::jobs::cap`).
    pub(crate) fn inject_parked(&self, job: Parked) {
        let job = HeapJob::new(job);
        // SAFETY: the body is 'static (the parked closure owns what it uses, the pool included);
        // the injector hands it out once.
        self.inject(unsafe { job.into_job_ref() });
    }

    /// True if a job with this id and tag may run in a wait for `want`.
    #[inline]
    pub(crate) fn belongs(&self, want: WaitFor, job: &JobRef) -> bool {
        self.regions.belongs(want, job.id() as usize, job.tag())
    }

    /// Makes a job from outside the pool visible and wakes a worker for it. A job with a region
    /// (a waiting worker's own-deque job it may not run, a scope's job spawned from a plain thread)
    /// wakes the waiting workers too, since only the one it belongs to may take it.
    pub(crate) fn inject(&self, job: JobRef) {
        self.check_not_lost_to_fork();
        let tagged = job.tag() != RegionTag::ROOT;
        self.injector.push(job);
        // A deliberately broken variant for the simulation's self-check (docs/testing.md).
        if !sim_bug("no_wake_on_inject") {
            if tagged {
                self.sleep.new_injected_jobs_for_waiters();
            } else {
                self.sleep.new_injected_jobs();
            }
        }
    }

    /// The oldest injected job that may run in a wait for `want` and that `may_take` accepts (the
    /// taker's cap filter, consulted only while some cap of the pool is live).
    pub(crate) fn pop_injected(
        &self,
        want: WaitFor,
        may_take: impl Fn(&JobRef) -> bool,
    ) -> Option<JobRef> {
        match want {
            WaitFor::Anything if !self.caps.any_live() => self.injector.pop(),
            _ => self
                .injector
                .pop_if(|job| self.belongs(want, job) && may_take(job)),
        }
    }

    /// True if an injected job waits that may run in a wait for `want`.
    pub(crate) fn has_injected_jobs(&self, want: WaitFor) -> bool {
        match want {
            WaitFor::Anything => self.injector.has_jobs(),
            _ => self.injector.has_jobs_for(|job| self.belongs(want, job)),
        }
    }

    /// Delivers `job` to worker `index` alone (a broadcast's share) and wakes that worker if it sleeps.
    ///
    /// **Per-worker delivery.** The job goes into the worker's inbox, which only that worker pops
    /// (in its searches, right after its own deque, and even past its stack guard, since a waiting
    /// broadcaster's own share may be there). No lost wake-up: the push stores the inbox length
    /// (SeqCst), then a SeqCst fence, then the wake reads the worker's sleep slot; a sleeper stores
    /// its sleeping mark (SeqCst), fences, and checks its inbox before it blocks (`wait_until_cold`
    /// passes the check to `Sleep::no_work_found`). Of two such store–fence–load sequences at least
    /// one load sees the other's store: the sleeper finds the job, or the wake finds it asleep.
    pub(crate) fn push_broadcast(&self, index: usize, job: JobRef) {
        self.check_not_lost_to_fork();
        self.thread_infos[index].broadcasts.push(job);
        // SeqCst fence: pairs with the sleeper's fence before its last check (see above).
        fence(Ordering::SeqCst);
        self.sleep.notify_worker_latch_is_set(index);
    }

    /// The oldest job delivered to worker `index` alone, if any.
    #[inline]
    pub(crate) fn pop_broadcast(&self, index: usize) -> Option<JobRef> {
        self.thread_infos[index].broadcasts.pop()
    }

    /// True if worker `index` has a job delivered to it alone (read after the sleeper's fence).
    pub(crate) fn has_broadcasts(&self, index: usize) -> bool {
        self.thread_infos[index].broadcasts.has_jobs()
    }

    /// A plain thread waits for the job it injected into this pool (`latch` is that job's): it yields
    /// until the latch is set or for up to 50 µs if no other plain thread is yielding for this pool,
    /// then blocks on the latch's futex.
    pub(crate) fn wait_for_injected(&self, latch: &LockLatch) {
        // Relaxed: the flag only rations CPU time; it guards no data.
        if !self.caller_yielding.swap(true, Ordering::Relaxed) {
            latch.yield_until_set();
            self.caller_yielding.store(false, Ordering::Relaxed);
        }
        latch.wait();
    }

    /// Adds one reference on the pool's lifetime (a spawned job, until it has run).
    pub(crate) fn increment_terminate_count(&self) {
        // Relaxed: the caller holds a live reference to the pool (count ≥ 1), so this cannot race with
        // the final decrement.
        let old = self.terminate_count.fetch_add(1, Ordering::Relaxed);
        debug_assert!(old > 0, "spawn into a terminated pool");
    }

    /// Drops one reference on the pool's lifetime; the last one tells every worker to exit.
    /// Returns true if this call terminated the pool.
    pub(crate) fn terminate(&self) -> bool {
        // AcqRel: the final decrement acquires every spawned job's completion.
        if self.terminate_count.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Under the slots lock: no thread stays or restarts from now on (`slots.rs`).
            let mut slots = self.lock_slots();
            slots.terminate();
            for (i, info) in self.thread_infos.iter().enumerate() {
                if info.terminate.set_owned() {
                    self.sleep.notify_worker_latch_is_set(i);
                }
            }
            true
        } else {
            false
        }
    }

    /// True once the last reference on the pool's lifetime is gone (see [`Registry::terminate`]):
    /// its handle was dropped and its spawned work has run.
    pub(crate) fn is_terminated(&self) -> bool {
        // Acquire: pairs with the final decrement's release, so what the spawned work did happens
        // before what the caller does next (a `use_current_thread` worker leaving the pool).
        self.terminate_count.load(Ordering::Acquire) == 0
    }

    /// Routes a panic from spawned work to the user's handler, or prints it.
    pub(crate) fn handle_panic(&self, payload: Payload) {
        match &self.panic_handler {
            Some(handler) => call_panic_handler(&**handler, payload),
            None => unwind::report(format_args!(
                "a spawned job panicked ({}); the worker keeps running",
                unwind::payload_message(&payload)
            )),
        }
    }

    /// Routes a panic of worker `index`'s start or exit handler to the user's panic handler, as a
    /// [`HandlerPanic`] that names the handler, or prints it: never as if a spawned job had panicked.
    fn handle_worker_handler_panic(&self, handler: WorkerHandler, index: usize, payload: Payload) {
        let panic = HandlerPanic::new(handler, index, payload);
        match &self.panic_handler {
            Some(panic_handler) => call_panic_handler(&**panic_handler, Box::new(panic)),
            None => unwind::report(format_args!(
                "{panic}; {}",
                match handler {
                    WorkerHandler::Start => "the worker starts anyway",
                    WorkerHandler::Exit => "the worker exits anyway",
                }
            )),
        }
    }

    pub(crate) fn run_start_handler(&self, index: usize) {
        if let Some(h) = &self.start_handler {
            if let Err(p) = unwind::halt_unwinding(|| h(index)) {
                self.handle_worker_handler_panic(WorkerHandler::Start, index, p);
            }
        }
    }

    pub(crate) fn run_exit_handler(&self, index: usize) {
        if let Some(h) = &self.exit_handler {
            if let Err(p) = unwind::halt_unwinding(|| h(index)) {
                self.handle_worker_handler_panic(WorkerHandler::Exit, index, p);
            }
        }
    }

    /// Each worker's counters, in index order.
    pub(crate) fn worker_counters(&self) -> Vec<CounterSnapshot> {
        let n = self.num_threads();
        let now = crate::platform::clock::ticks();
        self.thread_infos[..n]
            .iter()
            .enumerate()
            .map(|(index, info)| {
                let s = &info.stats;
                // Relaxed: statistics.
                let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
                let since = load(&s.idle_since);
                let idle = load(&s.idle_ticks)
                    + if since == BUSY {
                        0
                    } else {
                        now.saturating_sub(since)
                    };
                let alive = now.saturating_sub(load(&s.started_at));
                let idle = idle.min(alive);
                CounterSnapshot {
                    // The `join` fast path counts its pops in the job stack's owner line.
                    private_pops: info.jobs.popped(),
                    deque_pops: load(&s.local_pops),
                    failed_steals: load(&s.failed_steals),
                    empty_probes: load(&s.empty_probes),
                    injector_pops: load(&s.injector_pops),
                    sleeps: load(&s.sleeps),
                    published: load(&s.published),
                    offered: load(&s.offered),
                    heavy_steals: load(&s.heavy_steals),
                    wakeups: self.sleep.wakeups_of(index),
                    stolen_from: (0..n)
                        .map(|v| load(&s.stolen_from[v / VICTIMS_PER_LINE][v % VICTIMS_PER_LINE]))
                        .collect(),
                    busy_ns: crate::platform::clock::ticks_to_ns(alive - idle),
                    idle_ns: crate::platform::clock::ticks_to_ns(idle),
                }
            })
            .collect()
    }

    /// The pool's trace recorder, if it traces.
    #[inline]
    pub(crate) fn trace(&self) -> Option<&Arc<PoolTrace>> {
        self.trace.as_ref()
    }
}

#[cold]
#[inline(never)]
fn lost_to_fork_panic() -> ! {
    panic!(
        "forkjoin: this thread pool was started before the process forked, and its threads do not \
         exist in the child process (fork() copies only the calling thread); build a new pool in \
         the child (the global pool is rebuilt there by itself)"
    )
}

/// Gives `payload` to the user's panic handler; a panic of the handler itself is printed and
/// dropped (it must not unwind into a worker loop).
fn call_panic_handler(handler: &PanicHandler, payload: Payload) {
    if let Err(p) = unwind::halt_unwinding(|| handler(payload)) {
        unwind::report(format_args!(
            "the panic handler itself panicked ({}); ignoring",
            unwind::payload_message(&p)
        ));
    }
}

impl Registry {
    /// Writes the trace file with the pool's final events, if it traces; call once every worker
    /// thread has exited. The pool's handle does so on drop, so that the file is there when the
    /// drop returns even if another thread still holds a reference to the registry.
    pub(crate) fn finish_trace(&self) {
        // A spawn handler's threads are not joined (their handles are not ours): the registry's
        // drop, after the last of them, writes the file.
        if !self.resizable {
            return;
        }
        if let Some(trace) = &self.trace {
            trace.finish();
        }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        // Every worker has exited (each held a reference): their rings are complete.
        if let Some(trace) = self.trace.take() {
            trace.finish();
        }
    }
}
