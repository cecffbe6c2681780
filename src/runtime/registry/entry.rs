//! How a call gets into a pool: the global pool, running an operation on a worker of a given pool,
//! and spawning a job into one.
//!
//! This module sits on top of both halves of the scheduler layer: it reads the shared state of a pool
//! ([`Registry`]) and the calling thread's worker ([`WorkerThread`]), which import nothing from here.
//!
//! **Entering a pool** ([`in_worker`]): a worker of this pool runs the operation inline; a plain thread
//! injects a [`StackJob`] and waits on a [`LockLatch`] (yielding for up to 50 µs if no other plain
//! thread is yielding for this pool, then blocking on its futex, see [`Registry::wait_for_injected`]);
//! a worker of *another* pool injects the job and keeps executing its own pool's work until the job's
//! [`CrossPoolLatch`] is set — so neither pool loses a thread to the wait and no cycle of pools can deadlock.
//!
//! **The global pool** is started, with the default configuration, by the first call from outside any
//! pool that needs it ([`global_registry`]), unless [`init_global`] configured it before.

use crate::platform::sync::{shared, Arc, Ordering};
use crate::platform::unwind::{self, Payload};
use crate::runtime::cancel::{self, node::Node};
use crate::runtime::error::ThreadPoolBuildError;
use crate::runtime::jobs::job::{HeapJob, JobRef, StackJob};
use crate::runtime::jobs::latch::{CrossPoolLatch, LockLatch};
use crate::runtime::jobs::region::WaitFor;
use crate::runtime::registry::thread_builder::{self, DefaultSpawn, StartError, ThreadSpawn};
use crate::runtime::registry::worker::{self, CapHold, WorkerThread};
use crate::runtime::registry::{self, Registry, RegistryConfig};
use crate::runtime::trace::{self, TraceConfig};

/// The global pool: null until it is started, then a registry that is never freed (so a
/// reference to it is `'static`). Replaced only in a child made by `fork()`, whose copy of the
/// pool has no threads (the old one is leaked: its threads' stacks and handles are the parent's).
/// std's atomic on purpose: loom models never start the global pool.
static GLOBAL: shared::AtomicPtr<Arc<Registry>> = shared::AtomicPtr::new(std::ptr::null_mut());
/// Held while the global pool is started (or replaced).
static GLOBAL_INIT: shared::Mutex<()> = shared::Mutex::new(());

/// The global pool if it is started and its threads exist in this process.
#[inline]
fn live_global() -> Option<&'static Arc<Registry>> {
    // Acquire: pairs with the Release store in `publish_global`, so the registry is seen built.
    let ptr = GLOBAL.load(Ordering::Acquire);
    // SAFETY: a non-null `GLOBAL` points to a leaked `Box<Arc<Registry>>` (`publish_global`), valid
    // for the rest of the process.
    let registry = unsafe { ptr.as_ref() }?;
    (!registry.lost_to_fork()).then_some(registry)
}

/// Installs `registry` as the global pool (under `GLOBAL_INIT`), leaking it.
fn publish_global(registry: Arc<Registry>) -> &'static Arc<Registry> {
    let leaked: &'static Arc<Registry> = Box::leak(Box::new(registry));
    // Release: pairs with the Acquire load in `live_global`.
    GLOBAL.store(
        leaked as *const Arc<Registry> as *mut Arc<Registry>,
        Ordering::Release,
    );
    leaked
}

/// The global pool, started with the default configuration on first use.
///
/// **After `fork()`.** A child process made by `fork()` gets a copy of the global pool without
/// its threads (`fork` copies only the calling thread), on which the first parallel call would
/// wait forever. The child's first call therefore starts a new global pool, with its parent's
/// thread count, stack size, handlers and CPU-limit following (`Registry::config_for_fork_child`):
/// code that forks worker processes keeps working in them, as with LLVM's OpenMP runtime.
/// Explicitly built pools are not rebuilt (their spawn handler, pinning or names belong to the
/// code that built them): a call into one panics and says why (`Registry::inject`).
#[inline]
pub(crate) fn global_registry() -> &'static Arc<Registry> {
    live_global().unwrap_or_else(|| init_global_default())
}

#[cold]
fn init_global_default() -> &'static Arc<Registry> {
    let _lock = GLOBAL_INIT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(r) = live_global() {
        return r;
    }
    // SAFETY: as in `live_global`.
    if let Some(lost) = unsafe { GLOBAL.load(Ordering::Acquire).as_ref() } {
        // A forked child: a pool like the parent's.
        let registry = thread_builder::start_pool(lost.config_for_fork_child(), &mut DefaultSpawn)
            .unwrap_or_else(|e| {
                panic!(
                    "forkjoin: could not start the global thread pool after fork(): {}",
                    ThreadPoolBuildError::from(e)
                )
            });
        return publish_global(registry);
    }
    let num_threads = match registry::default_num_threads() {
        Ok(n) => n,
        Err(err) => {
            // Warn once (we hold the init lock and initialise exactly once).
            let fallback = registry::available_parallelism();
            unwind::report(format_args!(
                "{err}; the global pool uses {fallback} threads instead"
            ));
            fallback
        }
    };
    let trace = trace::path_from_env().map(|path| TraceConfig {
        path,
        capacity: trace::capacity_from_env()
            .unwrap_or_else(|raw| {
                unwind::report(format_args!(
                    "invalid value {raw:?} for {}: expected a positive integer; using {}",
                    trace::CAPACITY_ENV,
                    trace::DEFAULT_CAPACITY
                ));
                None
            })
            .unwrap_or(trace::DEFAULT_CAPACITY),
        global: true,
    });
    let siblings_may_wait = registry::siblings_may_wait_from_env().unwrap_or_else(|raw| {
        unwind::report(format_args!(
            "invalid value {raw:?} for {}: expected 1, true, 0 or false; using false",
            registry::SIBLINGS_MAY_WAIT_ENV
        ));
        false
    });
    let capacity = registry::default_capacity(num_threads, false);
    let config = |num_threads| RegistryConfig {
        num_threads,
        capacity,
        trace: trace.clone(),
        siblings_may_wait,
        ..RegistryConfig::default()
    };
    let registry =
        start_with_what_spawns(num_threads, config, &mut DefaultSpawn).unwrap_or_else(|e| {
            panic!(
                "forkjoin: could not start the global thread pool: {}",
                ThreadPoolBuildError::from(e)
            )
        });
    publish_global(registry)
}

/// Starts the implicit global pool with `num_threads` threads or, when only some of them could
/// be spawned (a process or container thread limit: on a 208-CPU server under `ulimit -u 512`,
/// helix #12625), with as many as had started, after one warning on stderr: a program that
/// never asked for a thread count runs on fewer threads rather than not at all. An error only
/// if not even one thread could start. (A pool the program builds itself fails instead: it
/// asked for that many.)
fn start_with_what_spawns(
    num_threads: usize,
    config: impl Fn(usize) -> RegistryConfig,
    spawn: &mut dyn ThreadSpawn,
) -> Result<Arc<Registry>, StartError> {
    let mut threads = num_threads;
    let mut warned = false;
    loop {
        match thread_builder::start_pool(config(threads), spawn) {
            // `started < threads`: each try asks for fewer, so this ends.
            Err(StartError::Spawn { started, err, .. }) if started > 0 => {
                if !warned {
                    warned = true;
                    unwind::report(format_args!(
                        "forkjoin: the global pool could start only {started} of its \
                         {num_threads} threads ({err}); it runs with the threads it can start"
                    ));
                }
                threads = started;
            }
            result => return result,
        }
    }
}

/// Installs `config` as the global pool; an error if it already exists.
pub(crate) fn init_global(
    mut config: RegistryConfig,
    spawn: &mut dyn ThreadSpawn,
) -> Result<(), ThreadPoolBuildError> {
    if let Some(trace) = config.trace.as_mut() {
        trace.global = true;
    }
    let _lock = GLOBAL_INIT.lock().unwrap_or_else(|e| e.into_inner());
    // In a forked child, the parent's global pool has no threads here: configuring a new one is
    // allowed.
    if live_global().is_some() {
        return Err(ThreadPoolBuildError::global_already_initialized());
    }
    let registry = thread_builder::start_pool(config, spawn)?;
    publish_global(registry);
    Ok(())
}

/// Runs `f` with the current pool: the calling worker's, or the global pool from outside any pool.
/// A `use_current_thread` worker's pool is its thread's current pool, and `f` runs as that worker
/// (`Adopted::run` on the token [`worker::adopted`] returns).
#[inline]
pub(crate) fn with_current_registry<R>(f: impl FnOnce(&Arc<Registry>) -> R) -> R {
    WorkerThread::with_current_opt(|wt| match wt {
        Some(wt) => f(wt.registry()),
        None => match worker::adopted() {
            Some(adopted) => adopted.run(|wt| f(wt.registry())),
            None => f(global_registry()),
        },
    })
}

/// The current thread's worker if it is a worker of `registry`, its `use_current_thread` worker
/// included. For calls that run no user code with it (a push, a query): an adopted worker may be
/// freed once the thread is back outside pool code. To run pool code, use [`with_worker_in`].
#[inline]
pub(crate) fn current_worker(registry: &Registry) -> Option<&WorkerThread> {
    let wt = worker::current_or_adopted();
    if wt.is_null() {
        return None;
    }
    // SAFETY: a current worker is valid for the rest of this thread's job (the worker outlives
    // every job it runs); a `use_current_thread` one until the thread, outside pool code, finds
    // its pool terminated, or exits, which the caller's use (no user code) does not reach. Used on
    // this thread only.
    let wt = unsafe { &*wt };
    if std::ptr::eq(&**wt.registry(), registry) {
        Some(wt)
    } else {
        None
    }
}

/// Runs `f` on the current thread's worker if it is a worker of `registry` (a `use_current_thread`
/// worker runs `f` as its thread's current worker, see `Adopted::run` on the token
/// [`worker::adopted`] returns); `None` otherwise.
pub(crate) fn with_worker_in<R>(
    registry: &Registry,
    f: impl FnOnce(&WorkerThread) -> R,
) -> Option<R> {
    WorkerThread::with_current_opt(|wt| match wt {
        Some(wt) => std::ptr::eq(&**wt.registry(), registry).then(|| f(wt)),
        None => {
            let adopted = worker::adopted()?;
            let mine = std::ptr::eq(&**adopted.registry(), registry);
            mine.then(|| adopted.run(f))
        }
    })
}

/// Pushes a job on the current worker's public deque if it belongs to `registry`'s pool, else injects
/// it.
pub(crate) fn push_or_inject(registry: &Registry, job: JobRef) {
    match current_worker(registry) {
        Some(wt) => wt.push_public(job),
        None => registry.inject(job),
    }
}

/// Runs `op` on a worker of `registry`'s pool; the flag says whether it was injected from elsewhere.
#[inline]
pub(crate) fn in_worker<OP, R>(registry: &Registry, op: OP) -> R
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    WorkerThread::with_current_opt(|wt| match wt {
        Some(wt) if std::ptr::eq(&**wt.registry(), registry) => op(wt, false),
        wt => in_worker_elsewhere(registry, wt, op),
    })
}

/// An operation of [`in_worker`] without its types: called once, it runs the operation and keeps
/// the result where the caller reads it.
type ErasedOp<'a> = dyn FnMut(&WorkerThread, bool) + Send + 'a;

/// [`in_worker`] from a plain thread or a worker of another pool. The operation is type-erased
/// here: the paths below (inject, wait, trace, cancellation) are compiled once, not once per
/// operation with its body inlined into each (every parallel call from outside a pool comes
/// through here).
#[cold]
#[inline(never)]
fn in_worker_elsewhere<OP, R>(registry: &Registry, current: Option<&WorkerThread>, op: OP) -> R
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    with_erased(op, |op| match current {
        None => in_worker_cold(registry, op),
        Some(current) => in_worker_cross(registry, current, op),
    })
}

/// [`in_worker`] in the current pool ([`with_current_registry`]): on the calling worker, or
/// moved into the pool from outside every pool (then with `op` type-erased, see
/// [`in_worker_elsewhere`]).
#[inline]
pub(crate) fn in_current_pool<OP, R>(op: OP) -> R
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    WorkerThread::with_current_opt(|wt| match wt {
        Some(wt) => op(wt, false),
        None => in_current_pool_from_outside(op),
    })
}

/// [`in_current_pool`] from a thread that runs no worker now.
#[cold]
#[inline(never)]
pub(crate) fn in_current_pool_from_outside<OP, R>(op: OP) -> R
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    with_erased(op, in_current_pool_erased)
}

/// [`in_current_pool_from_outside`] without the operation's types (compiled once).
fn in_current_pool_erased(op: &mut ErasedOp<'_>) {
    with_current_registry(|registry| in_worker(registry, op));
}

/// Calls `run` with `op` type-erased, and returns what `op` returned once `run` called it.
#[inline(always)]
fn with_erased<OP, R>(op: OP, run: impl FnOnce(&mut ErasedOp<'_>)) -> R
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    let mut op = Some(op);
    let mut result = None;
    run(&mut |wt: &WorkerThread, injected: bool| {
        let op = op.take().expect("an injected operation runs once");
        result = Some(op(wt, injected));
    });
    // A panic of the operation unwound out of `run`, so here it returned.
    result.expect("the injected operation ran")
}

/// From a plain thread: inject, yield briefly if no other caller is yielding, then block. Traced as
/// an `install` span on this thread's track if the pool traces. A `use_current_thread` thread calls
/// again as its worker instead (inline in its own pool, waiting as a worker for another).
fn in_worker_cold(registry: &Registry, op: &mut ErasedOp<'_>) {
    if let Some(adopted) = worker::adopted() {
        return adopted.run(|_| in_worker(registry, op));
    }
    match registry.trace() {
        None => inject_and_block(registry, op),
        Some(trace) => {
            let begin = crate::platform::clock::ticks();
            inject_and_block(registry, op);
            trace.record_install(begin, crate::platform::clock::ticks());
        }
    }
}

fn inject_and_block(registry: &Registry, op: &mut ErasedOp<'_>) {
    let latch = Arc::new(LockLatch::new());
    let job = StackJob::new(
        |_stolen| {
            WorkerThread::with_current(|wt| op(wt, true))
                .expect("injected job ran outside a worker")
        },
        latch.clone(),
    );
    // SAFETY: `job` lives in this frame until its latch is set, which `wait_for_injected` waits for;
    // the closure and result are Send.
    registry.inject(unsafe { job.as_job_ref() });
    registry.wait_for_injected(&latch);
    // SAFETY: `wait_for_injected` returned: the latch is set.
    unsafe { job.into_result() }
}

/// From a worker of another pool: inject, and wait; meanwhile that worker runs only work injected into its own pool.
/// Traced as an `install` span on this thread's caller track of the target pool, if it traces.
fn in_worker_cross(registry: &Registry, current: &WorkerThread, op: &mut ErasedOp<'_>) {
    match registry.trace() {
        None => inject_and_work(registry, current, op),
        Some(trace) => {
            let begin = crate::platform::clock::ticks();
            inject_and_work(registry, current, op);
            trace.record_install(begin, crate::platform::clock::ticks());
        }
    }
}

fn inject_and_work(registry: &Registry, current: &WorkerThread, op: &mut ErasedOp<'_>) {
    let latch = CrossPoolLatch::new(current.registry().sleep(), current.index());
    // Called under a cancellation node, the work runs under it in the other pool too (see
    // `crate::runtime::cancel`); its cancellation unwinds back here like a panic.
    let under = current.cancel_node_shared();
    let job = StackJob::new(
        |_stolen| {
            WorkerThread::with_current(|wt| match &under {
                None => op(wt, true),
                Some(node) => wt
                    .run_under(node, || op(wt, true))
                    .unwrap_or_else(|payload| unwind::resume_unwinding(payload)),
            })
            .expect("injected job ran outside a worker")
        },
        latch,
    );
    // SAFETY: `job` lives in this frame until its latch is set (`wait_for` below).
    registry.inject(unsafe { job.as_job_ref() });
    // Nothing of this worker's pool belongs to the job it waits for, except work injected from
    // outside (the other pool may call back into this one).
    current.wait_for(job.latch().core(), WaitFor::Injected);
    // SAFETY: `wait_for` returned: the latch is set.
    unsafe { job.into_result() }
}

/// Fire-and-forget `func` in `registry`'s pool; keeps the pool alive until it has run.
pub(crate) fn spawn<F>(registry: &Arc<Registry>, func: F)
where
    F: FnOnce() + Send + 'static,
{
    let job = spawned_job(registry, true, func);
    match current_worker(registry) {
        Some(wt) => wt.push_spawned(job),
        None => registry.inject(job),
    }
}

/// Runs a spawned job's `func` under `node`: dropped unrun if the node is already cancelled (a
/// boundary, see `crate::runtime::cancel`), else in a region of its own under it.
fn run_spawned_under<F: FnOnce()>(node: &shared::Arc<Node>, func: F) -> Result<(), Payload> {
    if node.is_cancelled() {
        return unwind::halt_unwinding(move || drop(func));
    }
    WorkerThread::with_current(|wt| wt.run_under(node, func)).expect("spawned jobs run on a worker")
}

/// What a `spawn` runs: its closure, the pool it keeps alive, and the cancellation node and cap
/// it was made under.
struct Spawned<F> {
    pool: Arc<Registry>,
    under: Option<shared::Arc<Node>>,
    cap: Option<CapHold>,
    func: F,
}

/// The job of a `spawn` of `func` into `registry`'s pool, to be pushed or delivered by the caller:
/// it keeps the pool alive until it has run, and sends a panic to the pool's handler. With
/// `capped`, a job made under a cap of the pool runs under it (a `spawn_broadcast`'s shares, each
/// for one worker, run uncapped).
pub(crate) fn spawned_job<F>(registry: &Arc<Registry>, capped: bool, func: F) -> JobRef
where
    F: FnOnce() + Send + 'static,
{
    registry.increment_terminate_count();
    // Made under a cancellation node, the job runs under it too, and holds it: it may outlive the
    // region it was made in (see `crate::runtime::cancel`). The same for a cap of this pool.
    let (under, cap) = WorkerThread::with_current(|wt| {
        let cap = if capped {
            wt.hold_cap_for(registry)
        } else {
            None
        };
        (wt.cancel_node_shared(), cap)
    })
    .unwrap_or((None, None));
    let spawned = Spawned {
        pool: registry.clone(),
        under,
        cap,
        func,
    };
    let job = HeapJob::new(move || run_spawned(spawned, false));
    // SAFETY: the body is 'static (it owns `func` and an Arc of the registry); the caller has it
    // executed once.
    unsafe { job.into_job_ref() }
}

/// Runs a spawned job: under its cap if it has one (entering it, or parking the job in it if it
/// has no room: `token` says a pump already reserved the places, see `crate::runtime::jobs::cap`),
/// under its node if it has one; a panic goes to the pool's handler.
fn run_spawned<F: FnOnce() + Send + 'static>(spawned: Spawned<F>, token: bool) {
    let run = |under: Option<shared::Arc<Node>>, func: F| match under {
        None => unwind::halt_unwinding(func),
        Some(node) => run_spawned_under(&node, func),
    };
    let cap = spawned.cap.as_ref().map(CapHold::id);
    let outcome = match cap {
        None => run(spawned.under, spawned.func),
        Some(cap) => {
            let entered = WorkerThread::with_current(|wt| wt.enter_cap_for_spawn(cap, token))
                .expect("spawned jobs run on a worker");
            if let Err(full) = entered {
                let pool = spawned.pool.clone();
                let parked = Box::new(move || run_spawned(spawned, true));
                pool.caps()
                    .park(full, cap, parked, &mut |job| pool.inject_parked(job));
                return;
            }
            let (under, func) = (spawned.under, spawned.func);
            let outcome = WorkerThread::with_current(|wt| wt.run_in_cap(cap, || run(under, func)))
                .expect("spawned jobs run on a worker");
            // After the region gave its places back: the cap's last hold may free its slot.
            drop(spawned.cap);
            outcome
        }
    };
    let pool = spawned.pool;
    if let Err(payload) = outcome {
        // Nothing may unwind out of a job into the worker loop (not even a panicking payload
        // drop), or the worker would die and the pool never terminate. A cancelled job ends
        // silently.
        if !cancel::is_cancellation(&payload) {
            let _ = unwind::halt_unwinding(|| pool.handle_panic(payload));
        }
    }
    pool.terminate();
}

#[cfg(all(test, not(any(forkjoin_loom, forkjoin_shuttle))))]
mod tests {
    use std::io;

    use super::*;
    use crate::platform::sync::for_tests::{thread, Mutex};
    use crate::runtime::registry::thread_builder::{CustomSpawn, ThreadBuilder};

    /// [`start_with_what_spawns`] with a spawn handler that can start only `limits[k]` threads on
    /// its `k`-th pool (no limit past the list); returns the pool's size or the error's count of
    /// started threads, and how many pools were tried. Every thread started is stopped and joined.
    fn start_under_limits(threads: usize, limits: &[usize]) -> (Result<usize, usize>, usize) {
        let handles = Mutex::new(Vec::<thread::JoinHandle<()>>::new());
        let tries = std::cell::Cell::new(0);
        let mut spawned_in_try = 0;
        let mut spawn = CustomSpawn::new(|thread: ThreadBuilder| {
            if thread.index() == 0 {
                tries.set(tries.get() + 1);
                spawned_in_try = 0;
            }
            if limits
                .get(tries.get() - 1)
                .is_some_and(|&limit| spawned_in_try >= limit)
            {
                return Err(io::Error::from(io::ErrorKind::WouldBlock));
            }
            spawned_in_try += 1;
            handles
                .lock()
                .unwrap()
                .push(thread::spawn(move || thread.run()));
            Ok(())
        });
        let config = |num_threads| RegistryConfig {
            num_threads,
            ..RegistryConfig::default()
        };
        let result = match start_with_what_spawns(threads, config, &mut spawn) {
            Ok(registry) => {
                let size = registry.num_threads();
                registry.terminate();
                Ok(size)
            }
            Err(StartError::Spawn { started, .. }) => Err(started),
            Err(other) => panic!("not a spawn failure: {other:?}"),
        };
        for handle in handles.into_inner().unwrap() {
            handle.join().unwrap();
        }
        (result, tries.get())
    }

    #[test]
    fn the_global_pool_starts_with_the_threads_it_could_spawn() {
        // The first try stops at 3 of 8 threads: the second asks for 3 and gets them.
        assert_eq!(start_under_limits(8, &[3]), (Ok(3), 2));
        // A limit that shrinks between tries: 5, then 2 of those 5.
        assert_eq!(start_under_limits(8, &[5, 2]), (Ok(2), 3));
        // The last thread fails: one fewer.
        assert_eq!(start_under_limits(4, &[3]), (Ok(3), 2));
    }

    #[test]
    fn no_thread_at_all_is_an_error() {
        assert_eq!(start_under_limits(4, &[0]), (Err(0), 1));
    }
}
