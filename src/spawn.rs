//! `spawn`: fire-and-forget jobs.

use crate::entry;
use crate::worker::WorkerThread;

/// Runs `func` asynchronously in the current pool (the global pool from outside any pool).
///
/// The pool stays alive until `func` has run, even if its last handle is dropped first. A panic in
/// `func` goes to the pool's panic handler, or is printed; the worker keeps running either way.
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// forkjoin::spawn(move || tx.send("done").unwrap());
/// assert_eq!(rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap(), "done");
/// ```
pub fn spawn<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    let wt = WorkerThread::current();
    if wt.is_null() {
        entry::spawn(entry::global_registry(), func);
    } else {
        // SAFETY: a non-null current worker is valid while this thread runs.
        unsafe { entry::spawn((*wt).registry(), func) };
    }
}
