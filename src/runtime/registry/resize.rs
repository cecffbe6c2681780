//! Resizing a live pool: [`set_num_threads`] starts threads for vacant slots and asks the threads
//! past the new size to leave, through the slots protocol (`slots.rs`, where the states and the
//! argument live). The leaving side is the worker's main loop (`worker::main_loop`).
//!
//! **Cost.** Nothing on any worker's path: the pool's size is one relaxed load wherever it was a
//! field read before, and a worker looks at its slot only when its terminate latch is set. A
//! resize takes the slots lock, sets latches and spawns threads; `broadcast` takes the same lock
//! while it delivers its shares.

use std::io;

use crate::platform::sync::{thread, Arc, Mutex, Ordering};
use crate::runtime::error::ThreadPoolBuildError;
use crate::runtime::registry::worker;
use crate::runtime::registry::{Registry, WorkerQueues};

/// Sets `registry`'s pool to `n` threads (see `ThreadPool::set_num_threads`). Returns once the
/// new threads are spawned and the leaving ones are told; the leaving ones end after their current
/// job.
pub(crate) fn set_num_threads(
    registry: &Arc<Registry>,
    n: usize,
) -> Result<(), ThreadPoolBuildError> {
    if n == 0 {
        return Err(ThreadPoolBuildError::resize_to_zero());
    }
    if !registry.resizable {
        return Err(ThreadPoolBuildError::not_resizable());
    }
    if n > registry.capacity() {
        return Err(ThreadPoolBuildError::beyond_capacity(
            n,
            registry.capacity(),
        ));
    }
    let (failed, retired) = {
        let mut slots = registry.lock_slots();
        let (stop, failed) = slots.resize(n, |index, queues| {
            // Counted before the thread can idle: sleepers patrol while it may hold private jobs.
            registry.sleep().thread_started(true);
            spawn_worker(registry, index, queues).map_err(|(queues, err)| {
                registry.sleep().thread_started(false);
                (queues, err)
            })
        });
        // Relaxed: a hint to splitters (see `Registry::num_threads`); stores happen under the lock.
        registry
            .num_threads
            .store(slots.target(), Ordering::Relaxed);
        for index in stop {
            if registry.thread_info(index).terminate.set_owned() {
                registry.sleep().notify_worker_latch_is_set(index);
            }
        }
        (failed, slots.take_retired())
    };
    // Outside the lock: an ended thread may still be running its last instructions.
    for handle in retired {
        let _ = handle.join();
    }
    match failed {
        None => Ok(()),
        Some((index, err)) => Err(ThreadPoolBuildError::grow_failed(index, n, err)),
    }
}

/// Starts a thread running worker `index` with `queues` (a vacant slot's); gives the queues back
/// if the thread cannot be spawned.
fn spawn_worker(
    registry: &Arc<Registry>,
    index: usize,
    queues: WorkerQueues,
) -> Result<thread::JoinHandle<()>, (WorkerQueues, io::Error)> {
    let stack_size = registry.thread_stack_size();
    let mut builder = thread::Builder::new().stack_size(stack_size);
    if let Some(name) = registry
        .thread_names
        .as_ref()
        .and_then(|names| names.get(index))
    {
        builder = builder.name(name.clone());
    }
    let pin = registry
        .pin_cpus
        .as_ref()
        .map(|cpus| cpus[index % cpus.len()]);
    let pool = registry.clone();
    // Handed over through a shared cell, so that a failed spawn leaves them with us.
    let handoff = Arc::new(Mutex::new(Some(queues)));
    let theirs = handoff.clone();
    let spawned = builder.spawn(move || {
        let taken = theirs.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(queues) = taken {
            if let Some(cpu) = pin {
                // A worker that cannot pin itself runs unpinned: a resize has no caller to tell.
                let _ = crate::platform::affinity::pin_current_thread(cpu);
            }
            worker::main_loop(pool, index, queues, stack_size, false);
        }
    });
    spawned.map_err(|err| {
        let queues = handoff.lock().unwrap_or_else(|e| e.into_inner()).take();
        (queues.expect("the thread never ran"), err)
    })
}
