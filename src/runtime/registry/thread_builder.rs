//! Starting a pool's threads: [`ThreadBuilder`] (one worker, not yet running), the spawn handlers
//! that run them on threads ([`ThreadPoolBuilder::spawn_handler`](crate::ThreadPoolBuilder::spawn_handler),
//! the default one), and [`start_pool`].

use std::fmt;
use std::io;

use crate::platform::sync::{thread, Arc, Mutex};
use crate::runtime::error::ThreadPoolBuildError;
use crate::runtime::registry::worker;
use crate::runtime::registry::{default_stack_size, Registry, RegistryConfig, WorkerQueues};

/// One worker of a pool being built, handed to a
/// [`spawn_handler`](crate::ThreadPoolBuilder::spawn_handler), which must call [`run`](Self::run)
/// on a thread of its choice.
///
/// ```
/// let pool = forkjoin::ThreadPoolBuilder::new()
///     .num_threads(2)
///     .thread_name(|i| format!("custom-{i}"))
///     .spawn_handler(|thread| {
///         let mut b = std::thread::Builder::new();
///         if let Some(name) = thread.name() {
///             b = b.name(name.to_owned());
///         }
///         if let Some(size) = thread.stack_size() {
///             b = b.stack_size(size);
///         }
///         b.spawn(|| thread.run())?;
///         Ok(())
///     })
///     .build()
///     .unwrap();
/// let name = pool.install(|| std::thread::current().name().unwrap().to_owned());
/// assert!(name.starts_with("custom-"));
/// ```
pub struct ThreadBuilder {
    name: Option<String>,
    stack_size: Option<usize>,
    index: usize,
    registry: Arc<Registry>,
    queues: WorkerQueues,
    /// The CPU to pin this worker to, and where to report a failure.
    pin: Option<(usize, PinFailure)>,
}

impl ThreadBuilder {
    /// This worker's index in the pool, in `0..num_threads`.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The name [`ThreadPoolBuilder::thread_name`](crate::ThreadPoolBuilder::thread_name) gave this
    /// worker, if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The stack size given to
    /// [`ThreadPoolBuilder::stack_size`](crate::ThreadPoolBuilder::stack_size), if any.
    pub fn stack_size(&self) -> Option<usize> {
        self.stack_size
    }

    /// Runs this worker on the calling thread: its start handler, then jobs until the pool is
    /// dropped (and its spawned work done), then its exit handler.
    ///
    /// The stack guard (see the crate's `worker` docs) assumes the thread has the stack size given
    /// to the builder, or std's default, as the default handler gives it.
    pub fn run(self) {
        let ThreadBuilder {
            stack_size,
            index,
            registry,
            queues,
            pin,
            ..
        } = self;
        if let Some((cpu, failure)) = pin {
            if let Err(err) = crate::platform::affinity::pin_current_thread(cpu) {
                let mut slot = failure.lock().unwrap_or_else(|e| e.into_inner());
                if slot.as_ref().is_none_or(|&(first, _, _)| index < first) {
                    *slot = Some((index, cpu, err));
                }
            }
        }
        let stack_size = stack_size.unwrap_or_else(default_stack_size);
        worker::main_loop(registry, index, queues, stack_size, true)
    }
}

impl fmt::Debug for ThreadBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadBuilder")
            .field("index", &self.index)
            .field("name", &self.name)
            .field("stack_size", &self.stack_size)
            .finish_non_exhaustive()
    }
}

mod sealed {
    /// Keeps [`ThreadSpawn`](super::ThreadSpawn) implemented by this crate's types only.
    pub trait Sealed {}
}

/// How a pool's threads are started: [`DefaultSpawn`], or a user's
/// [`spawn_handler`](crate::ThreadPoolBuilder::spawn_handler) ([`CustomSpawn`]). Sealed; it appears
/// only in the bounds of [`ThreadPoolBuilder`](crate::ThreadPoolBuilder)'s methods.
pub trait ThreadSpawn: sealed::Sealed {
    /// Starts `thread` on some thread, which calls [`ThreadBuilder::run`].
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<()>;

    /// True if `build` may wait until every thread has started (the threads are ours).
    #[doc(hidden)]
    fn owns_threads(&self) -> bool;
}

/// The default spawn handler: an OS thread per worker, named and sized as configured, joined
/// when the pool is dropped.
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultSpawn;

impl sealed::Sealed for DefaultSpawn {}

impl ThreadSpawn for DefaultSpawn {
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<()> {
        // Set explicitly on every worker thread: the stack guard derives its limit from it.
        let mut builder =
            thread::Builder::new().stack_size(thread.stack_size.unwrap_or_else(default_stack_size));
        if let Some(name) = &thread.name {
            builder = builder.name(name.clone());
        }
        let (registry, index) = (thread.registry.clone(), thread.index);
        let handle = builder.spawn(move || thread.run())?;
        registry.add_thread(index, handle);
        Ok(())
    }

    fn owns_threads(&self) -> bool {
        true
    }
}

/// A user's spawn handler (see [`ThreadPoolBuilder::spawn_handler`](crate::ThreadPoolBuilder::spawn_handler)).
pub struct CustomSpawn<F>(F);

impl<F> CustomSpawn<F> {
    pub(crate) fn new(spawn: F) -> Self {
        CustomSpawn(spawn)
    }
}

impl<F> fmt::Debug for CustomSpawn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CustomSpawn").finish_non_exhaustive()
    }
}

impl<F> sealed::Sealed for CustomSpawn<F> {}

impl<F> ThreadSpawn for CustomSpawn<F>
where
    F: FnMut(ThreadBuilder) -> io::Result<()>,
{
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<()> {
        (self.0)(thread)
    }

    fn owns_threads(&self) -> bool {
        false
    }
}

/// The stack size std gives spawned threads by default.
/// Why [`start_pool`] could not start a pool. No thread of that pool is left running.
#[derive(Debug)]
pub(crate) enum StartError {
    /// Worker `worker` of `threads` could not be spawned; `started` others had been, and were
    /// stopped.
    Spawn {
        worker: usize,
        threads: usize,
        started: usize,
        err: io::Error,
    },
    /// Worker `worker` could not pin itself to CPU `cpu` (`RegistryConfig::pin_cpus`).
    Pin {
        worker: usize,
        cpu: usize,
        err: io::Error,
    },
    /// `use_current_thread`, but the calling thread already is a worker of a pool.
    CurrentThreadInPool,
    /// `follow_cpu_limit`, but a spawn handler starts the threads.
    NotResizable,
}

impl From<StartError> for ThreadPoolBuildError {
    fn from(err: StartError) -> Self {
        match err {
            StartError::Spawn {
                worker,
                threads,
                started,
                err,
            } => ThreadPoolBuildError::spawn_failed(worker, threads, started, err),
            StartError::Pin { worker, cpu, err } => {
                ThreadPoolBuildError::pin_failed(worker, cpu, err)
            }
            StartError::CurrentThreadInPool => ThreadPoolBuildError::current_thread_in_pool(),
            StartError::NotResizable => ThreadPoolBuildError::not_resizable(),
        }
    }
}

/// A worker's failure to pin itself, kept for [`start_pool`]: the lowest failing worker's.
type PinFailure = Arc<Mutex<Option<(usize, usize, io::Error)>>>;

/// Starts a pool: its shared state, then one [`ThreadBuilder`] per worker handed to `spawn` (worker 0
/// is the calling thread itself with `config.use_current_thread`). With our own threads
/// ([`ThreadSpawn::owns_threads`]) or pinning, returns only once every worker runs its main loop;
/// a user's spawn handler may start its threads later (rayon does not wait either), so then `build`
/// does not wait. On a spawn failure, stops the pool (joining the threads we own, no leak) and
/// returns the error.
///
/// **Pinning** (`config.pin_cpus`). Each worker pins itself, as the first thing its thread does, so
/// its start handler and every job it runs already run on its CPU. A worker that cannot pin itself
/// does not panic (a dead worker would hang the pool): it records its error in a shared slot and
/// starts as usual. Every worker records before it counts itself started, so once
/// [`Registry::wait_until_started`] returns the slot is final; if it holds an error, the starter
/// stops and joins the threads (as for a spawn failure) and returns it. One wait for both outcomes,
/// no second channel, no timeout. The current thread (`use_current_thread`) is not pinned: the
/// pool does not change the affinity of a thread it did not create.
///
/// **The current thread** (`use_current_thread`) is registered last, once every other worker was
/// handed out, so a failure leaves it a plain thread. A thread whose earlier pool has terminated
/// leaves that pool first (see `worker::adopt_current_thread`).
pub(crate) fn start_pool(
    mut config: RegistryConfig,
    spawn: &mut dyn ThreadSpawn,
) -> Result<Arc<Registry>, StartError> {
    // The registry keeps both too, for the threads a resize starts.
    let mut thread_names = config.thread_names.clone();
    let stack_size = config.stack_size;
    let pin_cpus = config.pin_cpus.clone();
    let use_current_thread = config.use_current_thread;
    if use_current_thread && worker::is_worker_thread() {
        return Err(StartError::CurrentThreadInPool);
    }
    let pin_failure: PinFailure = Arc::new(Mutex::new(None));
    #[cfg(not(forkjoin_loom))]
    {
        config.reserve = super::reserve::wanted(spawn.owns_threads());
    }
    // A resize starts threads of its own: only where the pool's threads are ours.
    config.resizable = spawn.owns_threads();
    if config.follow_cpu_limit && !config.resizable {
        return Err(StartError::NotResizable);
    }
    let follows = config.follow_cpu_limit;
    let (registry, queues) = Registry::new(config);
    let mut current = None;
    for (index, queues) in queues.into_iter().enumerate() {
        if index == 0 && use_current_thread {
            current = Some(queues);
            continue;
        }
        let thread = ThreadBuilder {
            name: thread_names
                .as_mut()
                .map(|names| std::mem::take(&mut names[index])),
            stack_size,
            index,
            registry: registry.clone(),
            queues,
            pin: pin_cpus
                .as_ref()
                .map(|cpus| (cpus[index % cpus.len()], pin_failure.clone())),
        };
        if let Err(err) = spawn.spawn(thread) {
            // Stop the threads already started, and wait for those we own: no leak on error.
            registry.terminate();
            registry.join_threads();
            return Err(StartError::Spawn {
                worker: index,
                threads: registry.num_threads(),
                // The workers before this one, less the current thread's slot (not spawned).
                started: index - usize::from(use_current_thread),
                err,
            });
        }
    }
    if let Some(queues) = current {
        let stack_size = stack_size.unwrap_or_else(default_stack_size);
        let adopted = worker::adopt_current_thread(&registry, 0, queues, stack_size);
        debug_assert!(adopted, "checked above");
    }
    #[cfg(not(forkjoin_loom))]
    if registry.reserve().is_some() {
        super::reserve::watch(&registry);
    }
    #[cfg(not(any(forkjoin_loom, forkjoin_shuttle)))]
    if follows {
        super::follow::follow(&registry);
    }
    #[cfg(any(forkjoin_loom, forkjoin_shuttle))]
    let _ = follows;
    if !spawn.owns_threads() && pin_cpus.is_none() {
        return Ok(registry);
    }
    // Return only once every worker runs its main loop: a `join` right after `build` then finds
    // the other workers already idle and looking for work, and tests see a settled pool.
    registry.wait_until_started();
    // Every worker wrote the slot (if at all) before it counted itself started.
    let failure = pin_failure.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some((worker, cpu, err)) = failure {
        registry.terminate();
        registry.join_threads();
        return Err(StartError::Pin { worker, cpu, err });
    }
    Ok(registry)
}
