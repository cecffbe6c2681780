//! Scheduling regressions: jobs that must reach idle workers without the owner's cooperation, and
//! work the stack guard must not strand. Each test pins down a bug an earlier version had (found in
//! review):
//!
//! * nested `join`s whose halves must all run at once (a rendezvous) on a pool of 3 or 4 sleeping
//!   workers: a job that stayed private while a worker slept left the rendezvous short;
//! * a job published while its owner sleeps past its stack guard (where it may not steal) must wake
//!   another worker: a wake-up spent on the guarded owner left the job untaken;
//! * a worker past its stack guard still takes an `install` from another pool and a scope job
//!   spawned from a plain thread (injected work), where a guard that refused them deadlocked.
//!
//! Every wait is bounded and fails the test instead of hanging.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use forkjoin::{current_thread_index, join, ThreadPool, ThreadPoolBuilder};

use crate::common;
use common::TIMEOUT;

/// How long to wait for workers to reach the blocked state a bug needed before going on anyway.
const SETTLE: Duration = Duration::from_secs(5);

/// An n-party rendezvous: `arrive` returns true once all n arrived, false after `TIMEOUT`.
struct Rendezvous {
    count: Mutex<usize>,
    all: Condvar,
    n: usize,
}

impl Rendezvous {
    fn new(n: usize) -> Self {
        Rendezvous {
            count: Mutex::new(0),
            all: Condvar::new(),
            n,
        }
    }

    fn arrive(&self) -> bool {
        let mut c = self.count.lock().unwrap();
        *c += 1;
        self.all.notify_all();
        let deadline = Instant::now() + TIMEOUT;
        while *c < self.n {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            c = self.all.wait_timeout(c, left).unwrap().0;
        }
        true
    }
}

/// A pool of `n` threads named `{name}-{index}`, so the tests can find its threads in /proc.
fn named_pool(name: &'static str, n: usize, stack_size: Option<usize>) -> ThreadPool {
    let mut builder = ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(move |i| format!("{name}-{i}"));
    if let Some(size) = stack_size {
        builder = builder.stack_size(size);
    }
    builder.build().unwrap()
}

/// How many threads of this process named `prefix…` are blocked (state `S` in /proc/self/task/*/stat).
fn blocked_threads(prefix: &str) -> usize {
    let tasks = std::fs::read_dir("/proc/self/task").expect("/proc/self/task");
    tasks
        .filter_map(|task| {
            let dir = task.ok()?.path();
            // A thread may exit between listing and reading: skip it.
            let comm = std::fs::read_to_string(dir.join("comm")).ok()?;
            let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
            // `tid (comm) S ...`: the state letter follows the last ')'.
            let state = stat.rsplit_once(')')?.1.trim_start().chars().next()?;
            (comm.trim_end().starts_with(prefix) && state == 'S').then_some(())
        })
        .count()
}

/// Polls /proc until `count` threads named `prefix…` are blocked — idle workers asleep on their
/// futexes, the state the bugs needed — or `SETTLE` has passed. Correctness does not depend on it:
/// the tests must pass whatever state the workers are in; this only makes the bad interleaving likely.
fn wait_until_blocked(prefix: &str, count: usize) {
    let deadline = Instant::now() + SETTLE;
    while blocked_threads(prefix) < count && Instant::now() < deadline {
        // A poll interval, not a synchronisation: the loop re-checks the real state.
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn three_nested_joins_meet_on_three_sleeping_workers() {
    let p = named_pool("rr3", 3, None);
    for round in 0..5 {
        wait_until_blocked("rr3-", 3);
        let r = Rendezvous::new(3);
        let ((x, y), z) = p.install(|| join(|| join(|| r.arrive(), || r.arrive()), || r.arrive()));
        assert!(
            x && y && z,
            "round {round}: a job stayed private while a worker slept"
        );
    }
}

#[test]
fn four_joins_meet_on_four_sleeping_workers() {
    let p = named_pool("rr4", 4, None);
    for round in 0..5 {
        wait_until_blocked("rr4-", 4);
        let r = Rendezvous::new(4);
        let ((a, b), (c, d)) = p.install(|| {
            join(
                || join(|| r.arrive(), || r.arrive()),
                || join(|| r.arrive(), || r.arrive()),
            )
        });
        assert!(
            a && b && c && d,
            "round {round}: not every job reached a worker"
        );
    }
}

/// Recurses `levels` frames of 64 KiB each, then runs `f`: past the stack guard of a 1 MiB stack.
fn deep<R>(levels: usize, f: &mut dyn FnMut() -> R) -> R {
    let pad = [0u8; 64 * 1024];
    std::hint::black_box(&pad);
    let r = if levels == 0 {
        f()
    } else {
        deep(levels - 1, f)
    };
    std::hint::black_box(&pad);
    r
}

/// Runs `f` on a helper thread and fails the test if it does not finish within `TIMEOUT`.
fn bounded<R: Send + 'static>(what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(TIMEOUT + Duration::from_secs(10))
        .unwrap_or_else(|_| panic!("{what}: no progress (deadlock)"))
}

#[test]
fn a_wake_is_not_spent_on_a_worker_past_its_stack_guard() {
    let p = named_pool("rg", 3, Some(1 << 20));
    for round in 0..3 {
        let ok = p.install(|| {
            let owner = format!("rg-{}", current_thread_index().unwrap());
            let a_done = AtomicBool::new(false);
            deep(10, &mut || {
                let (tx, rx) = mpsc::channel::<()>();
                let (tx2, rx2) = mpsc::channel::<()>();
                let (a_done, owner) = (&a_done, &owner);
                let (a_ok, b_ok) = join(
                    // The owner, deep in its stack, waits for b once a is done: it cannot steal.
                    move || {
                        let ok = rx.recv_timeout(TIMEOUT).is_ok();
                        a_done.store(true, Ordering::SeqCst);
                        ok
                    },
                    move || {
                        tx.send(()).unwrap();
                        // Let the owner finish a and fall asleep (guarded) waiting for this b.
                        while !a_done.load(Ordering::SeqCst) {
                            std::thread::yield_now();
                        }
                        wait_until_blocked(owner, 1);
                        let (x, ()) = join(
                            move || rx2.recv_timeout(TIMEOUT).is_ok(),
                            move || tx2.send(()).unwrap(),
                        );
                        x
                    },
                );
                a_ok && b_ok
            })
        });
        assert!(ok, "round {round}: a published job was never taken");
    }
}

#[test]
fn stack_guard_still_takes_a_cross_pool_install() {
    let ok = bounded("cross-pool install under the stack guard", || {
        let a = ThreadPoolBuilder::new()
            .num_threads(1)
            .stack_size(1 << 20)
            .build()
            .unwrap();
        let b = common::pool(1);
        a.install(|| deep(10, &mut || b.install(|| a.install(|| 42))))
    });
    assert_eq!(ok, 42);
}

#[test]
fn stack_guard_still_takes_scope_jobs_spawned_from_a_plain_thread() {
    let n = bounded(
        "scope job from a plain thread under the stack guard",
        || {
            let a = ThreadPoolBuilder::new()
                .num_threads(1)
                .stack_size(1 << 20)
                .build()
                .unwrap();
            let count = std::sync::atomic::AtomicUsize::new(0);
            a.install(|| {
                deep(10, &mut || {
                    forkjoin::scope(|s| {
                        std::thread::scope(|ts| {
                            ts.spawn(|| {
                                s.spawn(|_| {
                                    count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                                })
                            });
                        });
                    })
                })
            });
            count.into_inner()
        },
    );
    assert_eq!(n, 1);
}
