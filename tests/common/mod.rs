//! Helpers shared by the integration tests: a module of the combined binary (`tests/integration/`) and of
//! each test that runs as a binary of its own (`mod common;` in the file).
//!
//! Each binary uses a different subset of these, so each item carries `#[allow(dead_code)]`: an item
//! one binary leaves unused would otherwise warn (and fail clippy).

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

/// The number of runs of a soak: `full` when the environment variable `FORKJOIN_SOAK` is set to
/// anything but `0` (`.ci/run` sets it), `short` otherwise, so that the README's test command
/// stays quick on a newcomer's machine while CI runs every soak in full (`docs/testing.md`).
#[allow(dead_code)] // only the binaries with soaks use it
pub fn soak(full: usize, short: usize) -> usize {
    match std::env::var_os("FORKJOIN_SOAK") {
        Some(v) if !v.is_empty() && v != "0" => full,
        _ => short,
    }
}

#[path = "watchdog.rs"]
mod watchdog_impl;
#[allow(unused_imports)] // only the binaries that test for hangs use it
pub(crate) use watchdog_impl::watchdog;

/// The name the test harness gives test function `name` of the module whose `module_path!()` is
/// `module_path`: its path without the crate's name (`panic::name` in the combined binary, `name` in
/// a binary of its own), what a `--exact` filter must match when a test re-runs itself.
#[allow(dead_code)] // only the tests that re-run themselves use it
pub fn test_name(module_path: &str, name: &str) -> String {
    match module_path.split_once("::") {
        Some((_crate, module)) => format!("{module}::{name}"),
        None => name.to_owned(),
    }
}

/// This test binary, set to re-run only its ignored probe test `name` in a child process, with
/// `probe_var` set so that the probe knows it is the child.
#[allow(dead_code)] // only the binaries that run probes in child processes use it
pub fn probe_command(name: &str, probe_var: &str) -> std::process::Command {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([
        name,
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(probe_var, "1");
    cmd
}

/// Runs a [`probe_command`] and fails the test unless its one probe passed; returns the child's
/// stderr. `what` names the case in the failure message.
#[allow(dead_code)] // as above
pub fn run_probe_command(mut cmd: std::process::Command, what: &str) -> String {
    let out = cmd.output().expect("the test binary re-executes");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "probe {what} failed:\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    stderr
}
