//! Helpers shared by the crate's unit tests.

use std::sync::mpsc;
use std::time::Duration;

use crate::ThreadPool;

/// Occupies one worker of `pool` with a job blocked in user code until the returned sender sends
/// (or is dropped): that worker neither steals nor counts as idle meanwhile. Returns once the job
/// runs.
pub(crate) fn block_one_worker(pool: &ThreadPool) -> mpsc::Sender<()> {
    let (started_tx, started_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    pool.spawn(move || {
        started_tx.send(()).unwrap();
        let _ = release_rx.recv();
    });
    started_rx.recv().unwrap();
    release_tx
}

/// Runs `f` on its own thread and fails the test if it has not returned within `limit`: a test
/// that could hang fails instead (the hung thread is left behind). As `tests/common`'s.
pub(crate) fn watchdog<T: Send + 'static>(
    what: &str,
    limit: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name(format!("watched: {what}"))
        .spawn(move || {
            let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
        })
        .expect("spawn the watched thread");
    match rx.recv_timeout(limit) {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("{what}: no answer after {limit:?} (hung)"),
    }
}
