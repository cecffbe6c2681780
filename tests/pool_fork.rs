//! `fork()` in a process whose pools ran: the child's global pool works (a new one, like the
//! parent's), a pool built before the fork panics with a message that says why instead of
//! hanging, and deadlines still fire. Unix only. Its own test binary: it forks the test process,
//! and the tests take turns so that no other test thread is mid-call when one forks.

#![cfg(unix)]

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;
use std::time::Duration;

use forkjoin::prelude::*;
use forkjoin::{CancelToken, ThreadPoolBuilder};

/// One test at a time in this binary: no other test thread holds a lock when one forks.
static FORKING: Mutex<()> = Mutex::new(());

/// Exit code of a child whose check panicked.
const PANICKED: i32 = 100;

/// Forks. The child runs `child` under a one-minute alarm (its watchdog: a hang kills it with
/// SIGALRM) and leaves with `_exit` and the code `child` returned; the parent waits for it and
/// returns that code. A child killed by a signal fails the test.
fn in_forked_child(child: impl FnOnce() -> i32) -> i32 {
    // SAFETY: fork has no preconditions. The child below runs only the check and then `_exit`s,
    // never returning into the test harness (whose other threads it does not have).
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed: {}", std::io::Error::last_os_error());
    if pid == 0 {
        // SAFETY: `alarm` has no preconditions.
        unsafe { libc::alarm(60) };
        let code = catch_unwind(AssertUnwindSafe(child)).unwrap_or(PANICKED);
        // SAFETY: `_exit` has no preconditions; it skips the exit handlers and buffers that
        // belong to the parent.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    // SAFETY: `pid` is our child; `status` is a valid place for its status.
    let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(waited, pid, "waitpid: {}", std::io::Error::last_os_error());
    assert!(
        libc::WIFEXITED(status),
        "the child was killed by signal {} ({} is SIGALRM: it hung)",
        libc::WTERMSIG(status),
        libc::SIGALRM
    );
    libc::WEXITSTATUS(status)
}

fn parallel_sum() -> u64 {
    (0..10_000u64).into_par_iter().map(|x| x * 2).sum()
}

/// Waits until the deadline timer cancels a token due in 1 ms (under the caller's watchdog).
fn a_deadline_fires() {
    let token = CancelToken::with_timeout(Duration::from_millis(1));
    while !token.is_cancelled() {
        std::thread::yield_now();
    }
}

#[test]
fn a_forked_child_gets_a_working_global_pool() {
    let _turn = FORKING.lock().unwrap_or_else(|e| e.into_inner());
    // The parent's global pool and deadline timer run before the fork.
    assert_eq!(parallel_sum(), 99_990_000);
    let threads = forkjoin::current_num_threads();
    a_deadline_fires();
    let code = in_forked_child(|| {
        let mut failed = 0;
        if parallel_sum() != 99_990_000 {
            failed |= 1;
        }
        if forkjoin::join(|| 1, || 2) != (1, 2) {
            failed |= 2;
        }
        if forkjoin::current_num_threads() != threads {
            failed |= 4;
        }
        a_deadline_fires();
        failed
    });
    assert_eq!(code, 0, "the child's checks failed (bits: {code:b})");
    // The parent's pool is untouched.
    assert_eq!(parallel_sum(), 99_990_000);
}

#[test]
fn a_pool_built_before_fork_panics_in_the_child_instead_of_hanging() {
    let _turn = FORKING.lock().unwrap_or_else(|e| e.into_inner());
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_eq!(pool.install(|| forkjoin::join(|| 1, || 2)), (1, 2));
    let code = in_forked_child(|| {
        std::panic::set_hook(Box::new(|_| {}));
        let mut failed = 0;
        match catch_unwind(AssertUnwindSafe(|| pool.install(|| 1))) {
            Ok(_) => failed |= 1,
            Err(payload) => {
                let msg = payload
                    .downcast_ref::<&str>()
                    .copied()
                    .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                    .unwrap_or("");
                if !msg.contains("started before the process forked") {
                    failed |= 2;
                }
            }
        }
        if catch_unwind(AssertUnwindSafe(|| pool.spawn(|| ()))).is_ok() {
            failed |= 4;
        }
        // Dropping it must not wait for threads that are not there.
        drop(pool);
        // A pool built in the child works.
        let fresh = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        if fresh.install(parallel_sum) != 99_990_000 {
            failed |= 8;
        }
        failed
    });
    assert_eq!(code, 0, "the child's checks failed (bits: {code:b})");
}
