//! The test watchdog, std only: shared by the integration tests (`tests/common`) and the crate's
//! unit tests (`src/test_support.rs`), which include this file by path.

use std::sync::mpsc;
use std::time::Duration;

/// Runs `f` on its own thread and fails the test if it has not returned within `limit`: a test
/// that could hang (a deadlock it checks for) fails instead. The hung thread is left behind; the
/// test binary still exits when its tests are done.
#[allow(dead_code)] // not every test binary tests for hangs
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
