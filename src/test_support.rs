//! Helpers shared by the crate's unit tests.

use crate::platform::sync::for_tests::mpsc;
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

#[path = "../tests/common/watchdog.rs"]
mod watchdog_impl;
pub(crate) use watchdog_impl::watchdog;
