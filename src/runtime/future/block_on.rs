//! [`block_on`]: runs a future to completion on the calling thread, parking a plain thread and
//! keeping a pool worker at work.

use std::fmt;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Wake, Waker};

use crate::platform::sync::{shared, thread, Arc};
use crate::runtime::jobs::latch::CoreLatch;
use crate::runtime::registry::worker::{self, WorkerThread};
use crate::runtime::sleep::Sleep;

/// Runs `future` to completion on the calling thread and returns its output.
///
/// * **Outside any pool** the thread polls the future and, while it is pending, parks until the
///   future's waker is called (no busy loop, no timed polling).
/// * **On a pool worker** the thread never blocks while the pool has work: while the future is
///   pending it runs the pool's jobs (its own first, then injected ones, then stolen ones), exactly
///   as [`join`](crate::join()) does while it waits for a stolen job, and sleeps only when there is no
///   job to run, woken either by the future's waker or by new work. So `block_on(spawn_future(f))`
///   completes even in a pool of one thread: the waiting worker runs `f` itself.
///
/// Like [`yield_now`](fn@crate::yield_now), `block_on` on a worker may run **unrelated pool jobs**
/// while it waits, on top of the current stack: a job that blocks in user code, or waits for
/// something only this frame will do after `block_on` returns, delays this `block_on` as well.
/// A waker may be called from any thread, and `block_on` can be nested.
///
/// As with `join`, waiting by working cannot deadlock while every future a worker blocks on is
/// completed by work started after it (a [`spawn_future`](crate::spawn_future) of its own, work of
/// another pool, an outside event). A future that only a frame *beneath* the `block_on` on the
/// same thread can complete (or only a job that itself waits for that frame) never completes.
///
/// The future is polled only on the calling thread, so it need not be `Send`.
///
/// ```
/// // Outside a pool: the thread parks until the job is done.
/// let answer = forkjoin::block_on(forkjoin::spawn_future(|| 6 * 7));
/// assert_eq!(answer, 42);
///
/// // On the only worker of a pool: it runs the spawned job itself while it waits.
/// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let sum = pool.install(|| {
///     let a = forkjoin::spawn_future(|| 1);
///     let b = forkjoin::spawn_future(|| 2);
///     forkjoin::block_on(async { a.await + b.await })
/// });
/// assert_eq!(sum, 3);
/// ```
pub fn block_on<F: Future>(future: F) -> F::Output {
    let future = pin!(future);
    WorkerThread::with_current_opt(|wt| match wt {
        Some(wt) => work_until_ready(wt, future),
        // A `use_current_thread` thread waits as its worker (it may be its pool's only one).
        None => match worker::adopted() {
            Some(adopted) => adopted.run(|wt| work_until_ready(wt, future)),
            None => park_until_ready(future),
        },
    })
}

/// Wakes a parked thread (`block_on` outside any pool).
///
/// `std::task::Wake` is implemented for std's `Arc` only, so the waker is one (the reference count
/// is not part of any protocol a model checks).
struct Unparker(thread::Thread);

impl Wake for Unparker {
    fn wake(self: shared::Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &shared::Arc<Self>) {
        self.0.unpark();
    }
}

/// Polls until ready, parking in between. A wake before the park leaves the thread's token set,
/// so the park returns at once; a spurious return only costs a poll.
fn park_until_ready<F: Future>(mut future: std::pin::Pin<&mut F>) -> F::Output {
    let waker = Waker::from(shared::Arc::new(Unparker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        thread::park();
    }
}

/// Polls until ready; after each pending poll, waits on a fresh [`WakeLatch`] (which the poll's
/// waker sets) by working: [`WorkerThread::wait_until`].
fn work_until_ready<F: Future>(wt: &WorkerThread, mut future: std::pin::Pin<&mut F>) -> F::Output {
    let sleep = wt.registry().sleep();
    loop {
        // A latch sets once, so each poll gets its own (and its own waker). A stale waker of an
        // earlier poll only sets that poll's latch, which nobody waits on any more.
        let latch = shared::Arc::new(WakeLatch::new(sleep.clone(), wt.index()));
        let waker = Waker::from(latch.clone());
        if let Poll::Ready(output) = future.as_mut().poll(&mut Context::from_waker(&waker)) {
            return output;
        }
        // Runs pool jobs until the latch is set; sleeps through the pool's idle protocol when it
        // finds none, and the waker's `notify_worker_latch_is_set` wakes it (as for a
        // `CrossPoolLatch`). A wake during the poll has set the latch already: no wait.
        wt.wait_until(latch.core());
    }
}

/// The latch a worker in [`block_on`] waits on, set by the waker of one poll: a [`CoreLatch`] plus
/// what the setter needs to wake its worker if it sleeps on it.
///
/// Like a [`CrossPoolLatch`](crate::runtime::jobs::latch::CrossPoolLatch), but owned by the
/// waker's `Arc`, so the latch and the sleep state outlive every wake (a waker may be called from
/// any thread, at any time, any number of times, also after `block_on` returned).
pub(crate) struct WakeLatch {
    core: CoreLatch,
    sleep: Arc<Sleep>,
    index: usize,
}

impl WakeLatch {
    /// A latch that worker `index` of `sleep`'s pool waits on.
    pub(crate) fn new(sleep: Arc<Sleep>, index: usize) -> Self {
        WakeLatch {
            core: CoreLatch::new(),
            sleep,
            index,
        }
    }

    /// The state machine inside (what the waiting worker sleeps on).
    pub(crate) fn core(&self) -> &CoreLatch {
        &self.core
    }

    /// Sets the latch and wakes the worker if it sleeps on it (what the waker does).
    pub(crate) fn set(&self) {
        // The latch lives as long as `self` (the waker's `Arc`): no lifetime rule to keep. A
        // second set finds `SET`, not `SLEEPING`, and wakes nobody.
        if self.core.set_owned() {
            self.sleep.notify_worker_latch_is_set(self.index);
        }
    }
}

impl Wake for WakeLatch {
    fn wake(self: shared::Arc<Self>) {
        self.set();
    }

    fn wake_by_ref(self: &shared::Arc<Self>) {
        self.set();
    }
}

impl fmt::Debug for WakeLatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WakeLatch")
            .field("set", &self.core.probe())
            .field("worker", &self.index)
            .finish()
    }
}
