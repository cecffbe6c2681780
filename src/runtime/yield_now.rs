//! Cooperative yielding to the pool: [`yield_now`], [`yield_local`] and their result, [`Yield`].

use crate::runtime::registry::worker::{self, WorkerThread};

/// What [`yield_now`] or [`yield_local`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yield {
    /// A job was found and run.
    Executed,
    /// No job was available.
    Idle,
}

/// Runs one pending job of the current pool if the calling thread is one of its workers: one of
/// its own first, else anything a search finds (injected work, a broadcast's share, a steal).
/// Nested work the job starts is waited for as usual.
///
/// Unlike [`std::thread::yield_now`] it does not yield to the OS: a polling loop that gets
/// [`Yield::Idle`] may want to do that too. `None` outside any pool.
///
/// ```
/// use forkjoin::Yield;
/// assert_eq!(forkjoin::yield_now(), None); // not a worker
/// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let (tx, rx) = std::sync::mpsc::channel();
/// let ran = pool.install(|| {
///     forkjoin::spawn(move || tx.send(()).unwrap());
///     // The only worker is busy here: yielding runs the spawned job.
///     forkjoin::yield_now()
/// });
/// assert_eq!(ran, Some(Yield::Executed));
/// rx.try_recv().unwrap();
/// ```
pub fn yield_now() -> Option<Yield> {
    yield_with(false)
}

/// Like [`yield_now`], but runs only a job of the calling worker's own (its deque, its private
/// stack, its share of a broadcast), never one taken from another worker or the injector.
///
/// ```
/// use forkjoin::Yield;
/// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// pool.install(|| {
///     assert_eq!(forkjoin::yield_local(), Some(Yield::Idle));
///     forkjoin::spawn(|| ());
///     assert_eq!(forkjoin::yield_local(), Some(Yield::Executed));
/// });
/// ```
pub fn yield_local() -> Option<Yield> {
    yield_with(true)
}

fn yield_with(local: bool) -> Option<Yield> {
    WorkerThread::with_current(|wt| run_one(wt, local))
        .or_else(|| worker::adopted().map(|adopted| adopted.run(|wt| run_one(wt, local))))
}

/// One [`yield_now`] (or, with `local`, [`yield_local`]) on worker `wt`.
pub(crate) fn run_one(wt: &WorkerThread, local: bool) -> Yield {
    if wt.run_one(local) {
        Yield::Executed
    } else {
        Yield::Idle
    }
}

/// True if the calling worker holds jobs it pushed that no thread has taken yet (they may be
/// stolen at any moment, so the answer is only a hint); `None` outside any pool.
///
/// ```
/// assert_eq!(forkjoin::current_thread_has_pending_tasks(), None);
/// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// pool.install(|| {
///     assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(false));
///     forkjoin::spawn(|| ());
///     assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(true));
/// });
/// ```
pub fn current_thread_has_pending_tasks() -> Option<bool> {
    let wt = worker::current_or_adopted();
    if wt.is_null() {
        return None;
    }
    // SAFETY: a current worker is valid while this thread runs; a `use_current_thread` one until
    // the thread, outside pool code, finds its pool terminated, or exits: not in here.
    Some(unsafe { (*wt).has_pending_tasks() })
}
