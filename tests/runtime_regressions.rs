//! Regression tests for scheduling bugs found in review (see /work/bugs.md): jobs that must reach an
//! idle worker without the owner's cooperation, wake-ups that must not be spent on a worker that cannot
//! use them, and the stack guard never blocking injected work. Every wait is bounded and fails the
//! test instead of hanging.

use std::sync::mpsc;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use forkjoin::{join, ThreadPool, ThreadPoolBuilder};

const TIMEOUT: Duration = Duration::from_secs(20);

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

fn pool(n: usize) -> ThreadPool {
    ThreadPoolBuilder::new().num_threads(n).build().unwrap()
}

/// Lets the pool's idle workers go all the way to sleep, the state the bugs needed. Correctness does
/// not depend on it: the tests must pass whatever state the workers are in.
fn let_workers_fall_asleep() {
    std::thread::sleep(Duration::from_millis(50));
}

#[test]
fn three_nested_joins_meet_on_three_sleeping_workers() {
    let p = pool(3);
    for round in 0..5 {
        let_workers_fall_asleep();
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
    let p = pool(4);
    for round in 0..5 {
        let_workers_fall_asleep();
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
    let p = ThreadPoolBuilder::new()
        .num_threads(3)
        .stack_size(1 << 20)
        .build()
        .unwrap();
    for round in 0..3 {
        let ok = p.install(|| {
            deep(10, &mut || {
                let (tx, rx) = mpsc::channel::<()>();
                let (tx2, rx2) = mpsc::channel::<()>();
                let (a_ok, b_ok) = join(
                    // Worker 0, deep in its stack, waits for b: it cannot steal.
                    move || rx.recv_timeout(TIMEOUT).is_ok(),
                    move || {
                        tx.send(()).unwrap();
                        // Give worker 0 time to finish a and wait (guarded) for this b.
                        std::thread::sleep(Duration::from_millis(20));
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
        let b = pool(1);
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
