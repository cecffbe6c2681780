//! Helpers shared by the runtime integration tests (`mod common;` in each test file).
//!
//! Every test file is its own crate and uses a different subset of these, so each item carries
//! `#[allow(dead_code)]`: an item one binary leaves unused would otherwise warn (and fail clippy).

use std::sync::mpsc;
use std::time::Duration;

use forkjoin::{join, ThreadPool, ThreadPoolBuilder};

/// Bounded waits fail the test instead of hanging it.
#[allow(dead_code)] // not every test binary waits on a channel
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// A dedicated pool of `n` threads.
#[allow(dead_code)] // some binaries only use the global pool or build pools with other options
pub fn pool(n: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("pool builds")
}

/// Occupies one worker of a pool of two (the other one, when called from a worker of `pool`) with a
/// job blocked in user code until the returned sender sends or is dropped: meanwhile that worker
/// neither steals nor counts as idle. Returns once the job runs.
#[allow(dead_code)] // only the binaries that need a busy sibling use it
pub fn block_the_other_worker(pool: &ThreadPool) -> mpsc::Sender<()> {
    let (started_tx, started_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    pool.spawn(move || {
        started_tx.send(()).unwrap();
        let _ = release_rx.recv();
    });
    // The caller never runs it (it blocks here, not in a worker's wait): only another worker can.
    started_rx.recv().unwrap();
    release_tx
}

/// Fibonacci with a `join` at every level: many small joins, checkable result.
#[allow(dead_code)] // not every test binary needs a join-heavy workload
pub fn fib(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// Runs `f` on its own thread and fails the test if it has not returned within `limit`: a test
/// that could hang (a deadlock it checks for) fails instead. The hung thread is left behind; the
/// test binary still exits when its tests are done.
#[allow(dead_code)] // only the binaries that test for hangs use it
pub fn watchdog<T: Send + 'static>(
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
