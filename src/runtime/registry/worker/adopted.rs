//! `use_current_thread`: the building thread as worker 0 of its pool, without a main loop.
//!
//! The thread runs the pool's jobs only while it waits (in `join`, `scope`, `install`, a
//! broadcast) or yields. Its worker state is owned by a thread-local ([`ADOPTED`]) and is the
//! thread's current worker only while the thread runs pool code ([`Adopted::run`]); outside, the
//! state may be freed, once its pool has terminated ([`adopted`]) or when the thread exits. So the
//! thread leaves a terminated pool, and may build another.

use std::cell::Cell;
use std::ptr;

use super::WorkerThread;
use crate::platform::sync::{thread_local, Arc};
use crate::runtime::registry::{Registry, WorkerQueues};

thread_local! {
    /// The worker this thread became with `use_current_thread` ([`adopt_current_thread`]), owned
    /// here, or null. It is the thread's current worker ([`WORKER_THREAD`]) only while the thread
    /// runs pool code ([`Adopted::run`]): while [`WORKER_THREAD`] is null no frame of this thread
    /// uses it, so it can be freed then, once its pool has terminated ([`adopted`]) or when the
    /// thread exits.
    ///
    /// [`WORKER_THREAD`]: super::WORKER_THREAD
    static ADOPTED: AdoptedWorker = const { AdoptedWorker(Cell::new(ptr::null_mut())) };
}

/// The owner of a `use_current_thread` worker (see [`ADOPTED`]).
struct AdoptedWorker(Cell<*mut WorkerThread>);

impl AdoptedWorker {
    /// Frees the worker, if there is one.
    ///
    /// # Safety
    /// No frame of this thread uses the worker ([`WORKER_THREAD`](super::WORKER_THREAD) is not it).
    unsafe fn free(&self) {
        let worker = self.0.replace(ptr::null_mut());
        if !worker.is_null() {
            // SAFETY: made by `Box::into_raw` in `adopt_current_thread` and owned by this cell,
            // which no longer holds it; nothing else refers to it (caller contract: no frame of
            // this thread; other threads never refer to another worker's `WorkerThread`).
            drop(unsafe { Box::from_raw(worker) });
        }
    }
}

impl Drop for AdoptedWorker {
    fn drop(&mut self) {
        // SAFETY: the thread is exiting: it returned from every frame, `Adopted::run`'s included.
        unsafe { self.free() }
    }
}

/// The calling thread's `use_current_thread` worker, while the thread runs no pool code (see
/// [`adopted`]): a token for [`Adopted::run`], which runs pool code on it.
pub(crate) struct Adopted {
    worker: *const WorkerThread,
}

impl Adopted {
    /// Runs `f` on this worker, which is the thread's current worker for the call, as a worker
    /// thread's own is for its life: pool code `f` reaches finds it as [`WorkerThread::current`].
    /// On the way out, even by a panic, the thread leaves the pool if it has terminated (`f` may
    /// have dropped it).
    #[cold]
    pub(crate) fn run<R>(self, f: impl FnOnce(&WorkerThread) -> R) -> R {
        /// Makes the thread run no pool code again, and leaves a terminated pool.
        struct Leave;
        impl Drop for Leave {
            fn drop(&mut self) {
                super::leave();
                leave_terminated_pool();
            }
        }
        // SAFETY: `adopted` found it in its cell, and only `adopted` frees it there, only while
        // WORKER_THREAD is null; from here until `Leave` runs (after `f`, the only user of this
        // reference) WORKER_THREAD points to it. (At thread exit every frame has returned.)
        let worker = unsafe { &*self.worker };
        worker.enter();
        let _leave = Leave;
        f(worker)
    }

    /// The worker, for calls that run no user code with it (see [`current_or_adopted`]).
    fn as_ptr(&self) -> *const WorkerThread {
        self.worker
    }

    /// The worker's pool.
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        // SAFETY: live while this token is (see `run`); the reference lives no longer.
        unsafe { &(*self.worker).registry }
    }
}

/// The calling thread's `use_current_thread` worker, if it has one and runs no pool code now
/// ([`WORKER_THREAD`](super::WORKER_THREAD) null). If the worker's pool has terminated (dropped, and its spawned work
/// done), the thread leaves it instead: frees the worker, which drops the pool's shared state with
/// its last reference, and is a plain thread again (`None`).
#[cold]
pub(crate) fn adopted() -> Option<Adopted> {
    if !WorkerThread::current().is_null() {
        return None;
    }
    ADOPTED
        .try_with(|cell| {
            let worker = cell.0.get();
            if worker.is_null() {
                return None;
            }
            // SAFETY: a worker in the cell is live until it is freed, below or at thread exit.
            let worker_ref = unsafe { &*worker };
            if worker_ref.registry.is_terminated() {
                // Nothing is left to run: the pool's spawned work is done, and this thread's
                // calls into the pool have returned.
                debug_assert!(!worker_ref.has_pending_tasks(), "left jobs behind");
                // SAFETY: WORKER_THREAD is null: no frame of this thread uses it.
                unsafe { cell.free() };
                return None;
            }
            Some(Adopted {
                worker: worker.cast_const(),
            })
        })
        .ok()
        // Destroyed: the thread is exiting, and its worker was freed.
        .flatten()
}

/// The worker of the calling thread: the one it runs as now, else its `use_current_thread` worker
/// (see [`adopted`]); null if none. Only for calls that run no user code with it (a query, a push):
/// an adopted worker may be freed once the thread is back outside pool code. To run pool code on
/// an adopted worker, use [`Adopted::run`].
#[inline]
pub(crate) fn current_or_adopted() -> *const WorkerThread {
    let wt = WorkerThread::current();
    if !wt.is_null() {
        return wt;
    }
    adopted().map_or(ptr::null(), |adopted| adopted.as_ptr())
}

/// Frees the calling thread's `use_current_thread` worker if its pool has terminated and the
/// thread runs no pool code now (see [`adopted`]).
pub(crate) fn leave_terminated_pool() {
    adopted();
}

/// True when the calling thread is a worker of some pool: it runs pool code as one, or is the
/// `use_current_thread` worker of a pool that has not terminated.
#[inline]
pub(crate) fn is_worker_thread() -> bool {
    !current_or_adopted().is_null()
}

/// `ThreadPoolBuilder::use_current_thread`: the calling thread becomes worker `index` without
/// running the main loop. It runs the pool's jobs only while it waits (in `join`, `scope`,
/// `install`, a broadcast) or yields ([`yield_now`](fn@crate::yield_now)); no start or exit handler runs
/// for it. Its worker state lives in [`ADOPTED`], and is its current worker only while it is in a
/// call into a pool ([`Adopted::run`]). The thread leaves the pool, freeing that state (and with
/// it the registry's last reference, once the other workers have exited), as soon as the pool has
/// terminated and the thread runs no pool code: when it drops the pool, else when it returns from
/// the pool call it dropped the pool in, or from its next call into a pool (spawned work was still
/// pending at the drop), or when it exits. rayon keeps the thread a worker, and leaks that state,
/// for good. False, and nothing done, if the thread already is a worker of some pool.
pub(crate) fn adopt_current_thread(
    registry: &Arc<Registry>,
    index: usize,
    queues: WorkerQueues,
    stack_size: usize,
) -> bool {
    if is_worker_thread() {
        return false;
    }
    let worker = Box::new(WorkerThread::new(registry, index, queues, stack_size));
    ADOPTED.with(|adopted| adopted.0.set(Box::into_raw(worker)));
    registry.worker_started();
    true
}
