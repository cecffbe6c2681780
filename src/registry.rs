//! The shared state of one pool: every worker's stealer and private job stack, the injector for work
//! from outside, the sleep state, the handlers, the statistics storage, and termination.
//!
//! This is the bottom of the scheduler layer: it imports neither the worker thread nor the entry
//! points and starts no thread. The threads are started by [`crate::worker::start_pool`] (which owns
//! the main loop they run), and calls and spawned jobs get into a pool through [`crate::entry`]. Both
//! import this module, never the reverse.
//!
//! **Termination.** `terminate_count` starts at 1 for the `ThreadPool` handle and is incremented by every
//! `spawn` until that job has finished. Dropping the handle and finishing a spawned job both decrement it;
//! the decrement that reaches zero sets every worker's terminate latch (waking sleepers). Workers wait on
//! that latch in their main loop, so they keep running jobs until then and exit afterwards, running the
//! exit handler once each. Nothing else can be in flight at that point: `install`, `join` and `scope` all
//! need either a pool handle or a running job of the pool.

use std::collections::VecDeque;

use crate::deque::{Stealer, Worker};
use crate::error::ThreadPoolBuildError;
use crate::job::JobRef;
use crate::jobstack::{JobStackOwner, JobStackThief};
use crate::latch::{CoreLatch, Latch, LockLatch};
use crate::sleep::{Sleep, MAX_THREADS};
use crate::sync::{thread, Arc, AtomicBool, AtomicU64, AtomicUsize, Mutex, Ordering};
use crate::unwind::{self, Payload};
use crate::util::CachePadded;

/// User callback receiving a panic payload.
pub(crate) type PanicHandler = dyn Fn(Payload) + Send + Sync;
/// User callback receiving a worker index.
pub(crate) type IndexHandler = dyn Fn(usize) + Send + Sync;
/// User callback naming worker threads.
pub(crate) type NameFn = dyn FnMut(usize) -> String;

/// Everything needed to start a pool (the builder's options, resolved).
#[derive(Default)]
pub(crate) struct RegistryConfig {
    pub(crate) num_threads: usize,
    pub(crate) thread_name: Option<Box<NameFn>>,
    pub(crate) stack_size: Option<usize>,
    pub(crate) panic_handler: Option<Box<PanicHandler>>,
    pub(crate) start_handler: Option<Box<IndexHandler>>,
    pub(crate) exit_handler: Option<Box<IndexHandler>>,
    /// With `ThreadPoolBuilder::pin_threads`: the CPUs to pin the workers to (never empty), worker `i`
    /// on `cpus[i % cpus.len()]`. For the starter (`crate::worker::start_pool`).
    pub(crate) pin_cpus: Option<Vec<usize>>,
}

/// Per-worker event counters. Written only by their worker (load + store, no read-modify-write), read by
/// anyone with Relaxed loads: exact for the owner, a consistent-enough snapshot for `stats()`.
#[derive(Debug, Default)]
pub(crate) struct WorkerStats {
    pub(crate) local_pops: AtomicU64,
    pub(crate) steals: AtomicU64,
    pub(crate) failed_steals: AtomicU64,
    pub(crate) injector_pops: AtomicU64,
    pub(crate) sleeps: AtomicU64,
    pub(crate) published: AtomicU64,
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
    pub(crate) stats: CachePadded<WorkerStats>,
    /// A thief handle of the worker's owner-private job stack (heavy steals); the worker thread holds
    /// the stack's only owner handle.
    pub(crate) jobs: JobStackThief,
    /// Set once the pool terminates; the worker's main loop waits on it.
    pub(crate) terminate: CoreLatch,
}

/// Queue of jobs from outside the pool (plain threads, other pools).
struct Injector {
    queue: Mutex<VecDeque<JobRef>>,
    /// `queue.len()`, readable without the lock so idle workers can skip an empty injector.
    len: AtomicUsize,
}

impl Injector {
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
}

/// The shared state of one pool.
pub(crate) struct Registry {
    thread_infos: Box<[ThreadInfo]>,
    sleep: Arc<Sleep>,
    injector: Injector,
    terminate_count: AtomicUsize,
    panic_handler: Option<Box<PanicHandler>>,
    start_handler: Option<Box<IndexHandler>>,
    exit_handler: Option<Box<IndexHandler>>,
    handles: Mutex<Vec<thread::JoinHandle<()>>>,
    /// Workers that have not finished starting (TLS set, start handler run) yet.
    starting: AtomicUsize,
    /// Set by the last worker to finish starting; the starter waits for it
    /// ([`Registry::wait_until_started`]).
    started: Arc<LockLatch>,
    /// A plain thread is yielding while it waits for its injected job. Only one may: many threads
    /// calling `install` at once then block at once instead of taking CPU time from the workers.
    caller_yielding: AtomicBool,
}

/// Name of the environment variable that sets the default thread count.
pub(crate) const NUM_THREADS_ENV: &str = "FORKJOIN_NUM_THREADS";

/// The machine's available parallelism (1 if unknown).
pub(crate) fn available_parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `FORKJOIN_NUM_THREADS` if set (an error if it is not a positive integer), else the machine's
/// available parallelism.
pub(crate) fn default_num_threads() -> Result<usize, ThreadPoolBuildError> {
    match std::env::var_os(NUM_THREADS_ENV) {
        None => Ok(available_parallelism().min(MAX_THREADS)),
        Some(raw) => {
            let text = raw.to_string_lossy();
            match text.trim().parse::<usize>() {
                Ok(n) if n > 0 => {
                    if n > MAX_THREADS {
                        Err(ThreadPoolBuildError::too_many_threads(n, MAX_THREADS))
                    } else {
                        Ok(n)
                    }
                }
                _ => Err(ThreadPoolBuildError::invalid_env(
                    NUM_THREADS_ENV,
                    text.into_owned(),
                )),
            }
        }
    }
}

/// The owner handles of one worker's two queues: its public deque and its private job stack.
/// [`Registry::new`] keeps the thief side of each (in [`ThreadInfo`]) and returns these, to be moved
/// into the thread that will own them.
pub(crate) struct WorkerQueues {
    pub(crate) deque: Worker<JobRef>,
    pub(crate) jobs: JobStackOwner,
}

impl Registry {
    /// Creates the shared state of a pool of `config.num_threads` workers, and the owner handles of
    /// each worker's queues (in index order). Starts no thread: `config.thread_name`,
    /// `config.stack_size` and `config.pin_cpus` are for the starter (`crate::worker::start_pool`),
    /// which moves each worker's queues into its thread and registers the thread with
    /// [`Registry::add_thread`].
    pub(crate) fn new(mut config: RegistryConfig) -> (Arc<Registry>, Vec<WorkerQueues>) {
        let n = config.num_threads;
        crate::sync::init_asymmetric_barriers();
        assert!(
            (1..=MAX_THREADS).contains(&n),
            "thread count checked by the builder"
        );
        let workers: Vec<Worker<JobRef>> = (0..n).map(|_| Worker::new()).collect();
        // Each private job stack's only owner handle is created here and moved into its worker's
        // thread by the starter, like the deque's `Worker`; the registry keeps thief handles.
        let job_stacks: Vec<JobStackOwner> = (0..n).map(|_| JobStackOwner::new()).collect();
        let registry = Arc::new(Registry {
            thread_infos: workers
                .iter()
                .zip(&job_stacks)
                .map(|(w, jobs)| ThreadInfo {
                    stealer: w.stealer(),
                    stats: CachePadded::new(WorkerStats::default()),
                    jobs: jobs.thief(),
                    terminate: CoreLatch::new(),
                })
                .collect(),
            sleep: Arc::new(Sleep::new(n)),
            injector: Injector {
                queue: Mutex::new(VecDeque::new()),
                len: AtomicUsize::new(0),
            },
            terminate_count: AtomicUsize::new(1),
            panic_handler: config.panic_handler.take(),
            start_handler: config.start_handler.take(),
            exit_handler: config.exit_handler.take(),
            handles: Mutex::new(Vec::with_capacity(n)),
            starting: AtomicUsize::new(n),
            started: Arc::new(LockLatch::new()),
            caller_yielding: AtomicBool::new(false),
        });
        let queues = workers
            .into_iter()
            .zip(job_stacks)
            .map(|(deque, jobs)| WorkerQueues { deque, jobs })
            .collect();
        (registry, queues)
    }

    /// Keeps a started worker thread's handle, for [`Registry::join_threads`].
    pub(crate) fn add_thread(&self, handle: thread::JoinHandle<()>) {
        self.lock_handles().push(handle);
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

    fn lock_handles(&self) -> crate::sync::MutexGuard<'_, Vec<thread::JoinHandle<()>>> {
        self.handles.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for every worker thread to exit (after termination). Must not run on a worker of this pool.
    pub(crate) fn join_threads(&self) {
        let handles = std::mem::take(&mut *self.lock_handles());
        for h in handles {
            let _ = h.join();
        }
    }

    #[inline]
    pub(crate) fn num_threads(&self) -> usize {
        self.thread_infos.len()
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

    /// Makes a job from outside the pool visible and wakes a worker for it.
    pub(crate) fn inject(&self, job: JobRef) {
        self.injector.push(job);
        self.sleep.new_injected_jobs();
    }

    pub(crate) fn pop_injected(&self) -> Option<JobRef> {
        self.injector.pop()
    }

    pub(crate) fn has_injected_jobs(&self) -> bool {
        self.injector.has_jobs()
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

    /// Routes a panic from spawned work to the user's handler, or prints it.
    pub(crate) fn handle_panic(&self, payload: Payload) {
        match &self.panic_handler {
            Some(handler) => {
                if let Err(p) = unwind::halt_unwinding(|| handler(payload)) {
                    unwind::report(format_args!(
                        "the panic handler itself panicked ({}); ignoring",
                        unwind::payload_message(&p)
                    ));
                }
            }
            None => unwind::report(format_args!(
                "a spawned job panicked ({}); the worker keeps running",
                unwind::payload_message(&payload)
            )),
        }
    }

    pub(crate) fn run_start_handler(&self, index: usize) {
        if let Some(h) = &self.start_handler {
            if let Err(p) = unwind::halt_unwinding(|| h(index)) {
                self.handle_panic(p);
            }
        }
    }

    pub(crate) fn run_exit_handler(&self, index: usize) {
        if let Some(h) = &self.exit_handler {
            if let Err(p) = unwind::halt_unwinding(|| h(index)) {
                self.handle_panic(p);
            }
        }
    }

    /// Per worker: `[local_pops, steals, failed_steals, injector_pops, sleeps, published]`.
    pub(crate) fn worker_counters(&self) -> Vec<[u64; 6]> {
        self.thread_infos
            .iter()
            .map(|info| {
                let s = &info.stats;
                let mut counters = [
                    &s.local_pops,
                    &s.steals,
                    &s.failed_steals,
                    &s.injector_pops,
                    &s.sleeps,
                    &s.published,
                ]
                .map(|c| c.load(Ordering::Relaxed));
                // The `join` fast path counts its pops in the job stack's owner line.
                counters[0] += info.jobs.popped();
                counters
            })
            .collect()
    }

    pub(crate) fn wakeups(&self) -> u64 {
        self.sleep.wakeups()
    }
}
