//! `spawn` and `spawn_fifo`: fire-and-forget jobs.

use crate::platform::sync::Arc;
use crate::runtime::registry::entry;
use crate::runtime::registry::Registry;

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
    entry::with_current_registry(|registry| entry::spawn(registry, func));
}

/// Like [`spawn`], but the jobs a worker spawns this way start in the order it spawned them
/// (first in, first out) when that worker runs them itself, where [`spawn`]'s start newest first.
/// Thieves take the oldest too. From outside the pool both go through the pool's FIFO injector.
///
/// ```
/// use std::sync::{mpsc, Mutex};
/// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let order = std::sync::Arc::new(Mutex::new(Vec::new()));
/// let (tx, rx) = mpsc::channel();
/// pool.install(|| {
///     for i in 0..3 {
///         let (order, tx) = (order.clone(), tx.clone());
///         forkjoin::spawn_fifo(move || {
///             order.lock().unwrap().push(i);
///             tx.send(()).unwrap();
///         });
///     }
/// });
/// for _ in 0..3 {
///     rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap();
/// }
/// assert_eq!(*order.lock().unwrap(), [0, 1, 2]);
/// ```
pub fn spawn_fifo<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    entry::with_current_registry(|registry| spawn_fifo_in(registry, func));
}

/// [`spawn_fifo`] into `registry`'s pool.
pub(crate) fn spawn_fifo_in<F>(registry: &Arc<Registry>, func: F)
where
    F: FnOnce() + Send + 'static,
{
    let job = entry::spawned_job(registry, true, func);
    match entry::current_worker(registry) {
        Some(wt) => {
            // SAFETY: the registry's queues outlive every job of its pool (whichever worker runs
            // the trampoline holds the registry), and the trampoline goes on this pool's deque.
            let trampoline = unsafe { registry.thread_info(wt.index()).fifo.push(job) };
            wt.push_public(trampoline);
        }
        // The injector is FIFO already.
        None => registry.inject(job),
    }
}
