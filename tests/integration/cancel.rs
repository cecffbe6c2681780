//! Cancellation (`CancelToken`, `cancellable`, `Scope::cancel`, dropped `JobFuture`s): what stops,
//! what still runs, and that every job runs at most once and every captured value drops once. Each
//! test runs on pools of 1, 2, 8 and 64 threads (more threads than cores on purpose) under a
//! watchdog that fails it instead of hanging.

use crate::common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use forkjoin::prelude::*;
use forkjoin::{cancellable, join, scope, CancelToken, Cancelled, ThreadPool};

const SIZES: [usize; 4] = [1, 2, 8, 64];
const LIMIT: Duration = Duration::from_secs(120);

fn on_pools(what: &'static str, test: fn(&ThreadPool, usize)) {
    for threads in SIZES {
        common::watchdog(&format!("{what} on {threads} threads"), LIMIT, move || {
            let pool = common::pool(threads);
            test(&pool, threads);
        });
    }
}

/// Counts drops of the values jobs capture: each must drop exactly once.
#[derive(Clone)]
struct Drops(Arc<AtomicUsize>);

struct Tracked {
    drops: Arc<AtomicUsize>,
}

impl Drops {
    fn new() -> Self {
        Drops(Arc::new(AtomicUsize::new(0)))
    }
    fn value(&self) -> Tracked {
        Tracked {
            drops: self.0.clone(),
        }
    }
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

/// A recursive join tree over `depth` levels whose every closure captures a tracked value; counts
/// the leaves run and the closures created, and notes any leaf that runs once `returned` is set.
struct Tree<'a> {
    made: &'a AtomicUsize,
    drops: &'a Drops,
    leaves: &'a AtomicUsize,
    returned: &'a AtomicBool,
    late: &'a AtomicUsize,
    /// Cancel this token when the leaf with this number runs.
    cancel_at: Option<(usize, &'a CancelToken)>,
}

impl Tree<'_> {
    fn walk(&self, depth: u32) -> u64 {
        if self.returned.load(Ordering::SeqCst) {
            self.late.fetch_add(1, Ordering::SeqCst);
        }
        if depth == 0 {
            let n = self.leaves.fetch_add(1, Ordering::Relaxed);
            if let Some((at, token)) = self.cancel_at {
                if n == at {
                    token.cancel();
                }
            }
            return std::hint::black_box(1);
        }
        let (va, vb) = (self.drops.value(), self.drops.value());
        self.made.fetch_add(2, Ordering::SeqCst);
        let (a, b) = join(
            move || {
                let _v = va;
                self.walk(depth - 1)
            },
            move || {
                let _v = vb;
                self.walk(depth - 1)
            },
        );
        a + b
    }
}

#[test]
fn work_that_finishes_returns_ok_with_its_result() {
    on_pools("ok", |pool, _| {
        let token = CancelToken::new();
        let sum = pool.cancellable(&token, || (0..100_000u64).into_par_iter().sum::<u64>());
        assert_eq!(sum, Ok(4_999_950_000));
        let fib = pool.cancellable(&token, || common::fib(20));
        assert_eq!(fib, Ok(6765));
        assert!(!token.is_cancelled());
    });
}

#[test]
fn a_cancelled_token_runs_nothing() {
    on_pools("pre-cancelled", |pool, _| {
        let token = CancelToken::new();
        token.cancel();
        let drops = Drops::new();
        let v = drops.value();
        let ran = AtomicBool::new(false);
        let ran_ref = &ran;
        let r = pool.cancellable(&token, move || {
            let _v = v;
            ran_ref.store(true, Ordering::SeqCst);
        });
        assert_eq!(r, Err(Cancelled));
        assert!(!ran.load(Ordering::SeqCst));
        assert_eq!(drops.count(), 1, "the work's captures drop once");
    });
}

#[test]
fn a_join_tree_cancelled_from_inside_stops_and_drops_everything_once() {
    on_pools("join tree, from inside", |pool, _| {
        let token = CancelToken::new();
        let (made, leaves, late) = (
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        );
        let returned = AtomicBool::new(false);
        let drops = Drops::new();
        let tree = Tree {
            made: &made,
            drops: &drops,
            leaves: &leaves,
            returned: &returned,
            late: &late,
            cancel_at: Some((1_000, &token)),
        };
        let r = pool.cancellable(&token, || tree.walk(16));
        returned.store(true, Ordering::SeqCst);
        assert_eq!(r, Err(Cancelled));
        assert!(
            leaves.load(Ordering::Relaxed) < 1 << 16,
            "the tree stopped early"
        );
        assert_eq!(late.load(Ordering::SeqCst), 0, "nothing ran after return");
        assert_eq!(
            drops.count(),
            made.load(Ordering::SeqCst),
            "every capture dropped once"
        );
    });
}

#[test]
fn a_long_iterator_cancelled_from_another_thread_stops() {
    on_pools("iterator, from outside", |pool, _| {
        let token = CancelToken::new();
        let (started_tx, started_rx) = mpsc::channel();
        let started = Mutex::new(Some(started_tx));
        let canceller = {
            let token = token.clone();
            std::thread::spawn(move || {
                started_rx.recv().unwrap();
                token.cancel();
            })
        };
        let r = pool.cancellable(&token, || {
            (0..u64::MAX)
                .into_par_iter()
                .map(|i| {
                    if let Some(tx) = started.lock().unwrap().take() {
                        tx.send(()).unwrap();
                    }
                    std::hint::black_box(i)
                })
                .sum::<u64>()
        });
        assert_eq!(r, Err(Cancelled));
        canceller.join().unwrap();
    });
}

#[test]
fn a_deadline_stops_a_long_iterator() {
    on_pools("deadline", |pool, _| {
        let token = CancelToken::with_timeout(Duration::from_millis(20));
        let r = pool.cancellable(&token, || {
            (0..u64::MAX).into_par_iter().for_each(|i| {
                std::hint::black_box(i);
            })
        });
        assert_eq!(r, Err(Cancelled));
        assert!(token.is_cancelled());
        assert!(Instant::now() >= token.deadline().unwrap());
    });
}

#[test]
fn a_collect_cancelled_yields_no_partial_collection() {
    on_pools("collect", |pool, _| {
        let token = CancelToken::new();
        let drops = Drops::new();
        let made = AtomicUsize::new(0);
        let r: Result<Vec<Tracked>, _> = pool.cancellable(&token, || {
            (0..1_000_000u32)
                .into_par_iter()
                .map(|i| {
                    if i == 5_000 {
                        token.cancel();
                    }
                    made.fetch_add(1, Ordering::SeqCst);
                    drops.value()
                })
                .collect()
        });
        assert!(r.is_err());
        assert_eq!(
            drops.count(),
            made.load(Ordering::SeqCst),
            "every item made was dropped"
        );
    });
}

/// Every way a parallel loop runs its pieces stops: leaves in batches, a loop whose items run
/// nested loops (offered item by item in pools of 3 or more), a consumer that walks its pieces from
/// the end, an unindexed source, and `collect`s nested inside another loop's items. Each loop is
/// endless unless cancelled (but one, see there); the token is cancelled from inside once some
/// items ran, and `cancellable` returns `Err`: no loop's partial result escapes.
#[test]
fn every_kind_of_loop_stops() {
    on_pools("loop kinds", |pool, _| {
        type Loop = fn(&(dyn Fn(u64) + Sync)) -> u64;
        let loops: [(&str, Loop); 5] = [
            ("batches", |item| {
                (0..u64::MAX)
                    .into_par_iter()
                    .map(|i| {
                        item(i);
                        i & 1
                    })
                    .sum()
            }),
            ("nested loops", |item| {
                (0..u64::MAX)
                    .into_par_iter()
                    .map(|i| {
                        (0..100u64)
                            .into_par_iter()
                            .map(|j| {
                                item(i);
                                j
                            })
                            .sum::<u64>()
                    })
                    .sum()
            }),
            ("from the end", |item| {
                (0..u64::MAX)
                    .into_par_iter()
                    .find_last(|&i| {
                        item(i);
                        false
                    })
                    .unwrap_or(0)
            }),
            ("unindexed", |item| {
                // Finite: on one thread the source is not cut, and its one piece is a plain loop,
                // which runs on to its end (the call still returns `Err`).
                forkjoin::iter::split(0..1u64 << 24, |r| {
                    if r.end - r.start <= 1024 {
                        return (r, None);
                    }
                    let mid = r.start + (r.end - r.start) / 2;
                    (r.start..mid, Some(mid..r.end))
                })
                .map(|r| {
                    r.into_iter()
                        .map(|i| {
                            item(i);
                            i & 1
                        })
                        .sum::<u64>()
                })
                .sum()
            }),
            ("nested collects", |item| {
                (0..u64::MAX)
                    .into_par_iter()
                    .map(|i| {
                        let v: Vec<u64> = (0..1_000u64)
                            .into_par_iter()
                            .map(|j| {
                                item(i);
                                j
                            })
                            .collect();
                        v.len() as u64
                    })
                    .sum()
            }),
        ];
        for (name, run) in loops {
            let token = CancelToken::new();
            let seen = AtomicUsize::new(0);
            let r = pool.cancellable(&token, || {
                run(&|_| {
                    if seen.fetch_add(1, Ordering::Relaxed) == 20_000 {
                        token.cancel();
                    }
                })
            });
            assert_eq!(r, Err(Cancelled), "{name}");
        }
    });
}

#[test]
fn scope_jobs_not_started_are_dropped_unrun() {
    on_pools("scope under a token", |pool, _| {
        let token = CancelToken::new();
        let drops = Drops::new();
        let (spawned, ran) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let returned = AtomicBool::new(false);
        let late = AtomicUsize::new(0);
        let r = pool.cancellable(&token, || {
            scope(|s| {
                for i in 0..10_000 {
                    let v = drops.value();
                    spawned.fetch_add(1, Ordering::SeqCst);
                    let (ran, returned, late, token) = (&ran, &returned, &late, &token);
                    s.spawn(move |_| {
                        let _v = v;
                        if returned.load(Ordering::SeqCst) {
                            late.fetch_add(1, Ordering::SeqCst);
                        }
                        ran.fetch_add(1, Ordering::SeqCst);
                        if i == 100 {
                            token.cancel();
                        }
                    });
                }
            })
        });
        returned.store(true, Ordering::SeqCst);
        assert_eq!(r, Err(Cancelled));
        assert!(ran.load(Ordering::SeqCst) < 10_000);
        assert_eq!(late.load(Ordering::SeqCst), 0);
        assert_eq!(drops.count(), spawned.load(Ordering::SeqCst));
    });
}

#[test]
fn scope_cancel_drops_what_has_not_started_and_returns_normally() {
    on_pools("Scope::cancel", |pool, _| {
        let drops = Drops::new();
        let ran = AtomicUsize::new(0);
        let out = pool.scope(|s| {
            for _ in 0..1_000 {
                let v = drops.value();
                let ran = &ran;
                s.spawn(move |s| {
                    let _v = v;
                    ran.fetch_add(1, Ordering::SeqCst);
                    s.cancel();
                });
            }
            "body's result"
        });
        assert_eq!(out, "body's result");
        assert!(ran.load(Ordering::SeqCst) < 1_000);
        assert_eq!(drops.count(), 1_000);
    });
}

/// Runs until its region is cancelled (a long iterator: it stops at a batch boundary).
fn until_cancelled() -> u64 {
    (0..u64::MAX)
        .into_par_iter()
        .map(std::hint::black_box)
        .sum()
}

#[test]
fn a_panic_wins_over_a_cancellation() {
    fn panic_message(r: std::thread::Result<Result<(u64, u64), Cancelled>>) -> &'static str {
        let payload = r.expect_err("the panic is resumed");
        payload.downcast_ref::<&str>().copied().unwrap_or("?")
    }
    on_pools("panic wins", |pool, threads| {
        // a cancels, then panics; b is a long loop that stops (or never starts).
        let token = CancelToken::new();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.cancellable(&token, || {
                join(
                    || -> u64 {
                        token.cancel();
                        panic!("panic in a")
                    },
                    until_cancelled,
                )
            })
        }));
        assert_eq!(panic_message(r), "panic in a");
        if threads == 1 {
            return;
        }
        // a stops with the cancellation while b, stolen and running, panics: b's panic wins.
        let token = CancelToken::new();
        let b_started = AtomicBool::new(false);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.cancellable(&token, || {
                join(
                    || {
                        while !b_started.load(Ordering::SeqCst) {
                            std::hint::spin_loop();
                        }
                        token.cancel();
                        until_cancelled()
                    },
                    || -> u64 {
                        b_started.store(true, Ordering::SeqCst);
                        while !token.is_cancelled() {
                            std::hint::spin_loop();
                        }
                        panic!("panic in b")
                    },
                )
            })
        }));
        assert_eq!(panic_message(r), "panic in b");
    });
}

#[test]
fn nested_tokens_stop_with_either_parent() {
    on_pools("nested", |pool, _| {
        let outer = CancelToken::new();
        let inner = CancelToken::new();
        // Cancelling the outer token stops the inner region too; the inner call reports it.
        let r = pool.cancellable(&outer, || {
            let inner_r = cancellable(&inner, || {
                outer.cancel();
                (0..u64::MAX).into_par_iter().for_each(|i| {
                    std::hint::black_box(i);
                })
            });
            assert_eq!(inner_r, Err(Cancelled));
            // The outer work stops at its next boundary.
            (0..u64::MAX).into_par_iter().for_each(|i| {
                std::hint::black_box(i);
            });
        });
        assert_eq!(r, Err(Cancelled));
        assert!(!inner.is_cancelled(), "the inner token itself is untouched");
        // A child token is cancelled with its parent.
        let parent = CancelToken::new();
        let child = parent.child();
        let r = pool.cancellable(&child, || {
            parent.cancel();
            common::fib(25)
        });
        assert!(r == Err(Cancelled) || r == Ok(75_025));
        assert!(child.is_cancelled());
    });
}

#[test]
fn racing_completion_returns_ok_or_cancelled_and_drops_once() {
    on_pools("race", |pool, _| {
        for i in 0..200u64 {
            let token = CancelToken::new();
            let drops = Drops::new();
            let made = AtomicUsize::new(0);
            let t2 = token.clone();
            let canceller = std::thread::spawn(move || {
                for _ in 0..i * 50 {
                    std::hint::spin_loop();
                }
                t2.cancel();
            });
            let r = pool.cancellable(&token, || {
                (0..64u32)
                    .into_par_iter()
                    .map(|_| {
                        made.fetch_add(1, Ordering::SeqCst);
                        let _v = drops.value();
                        common::fib(10)
                    })
                    .sum::<u64>()
            });
            canceller.join().unwrap();
            assert!(r == Ok(64 * 55) || r == Err(Cancelled), "{r:?}");
            assert_eq!(drops.count(), made.load(Ordering::SeqCst));
        }
    });
}

#[test]
fn spawns_made_under_a_token_stop_with_it() {
    on_pools("spawn", |pool, _| {
        let token = CancelToken::new();
        let drops = Drops::new();
        let ran = Arc::new(AtomicUsize::new(0));
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let r = pool.cancellable(&token, || {
            token.cancel();
            for _ in 0..100 {
                let (v, ran, done) = (drops.value(), ran.clone(), done_tx.clone());
                forkjoin::spawn(move || {
                    let _v = v;
                    let _done = done;
                    ran.fetch_add(1, Ordering::SeqCst);
                });
            }
        });
        drop(done_tx);
        // Every spawn has ended (run or dropped) once all senders are gone.
        assert!(done_rx.recv_timeout(common::TIMEOUT).is_err());
        assert!(r == Ok(()) || r == Err(Cancelled));
        assert_eq!(
            ran.load(Ordering::SeqCst),
            0,
            "spawned after cancel: never run"
        );
        assert_eq!(drops.count(), 100);
    });
}

#[test]
fn a_dropped_job_future_cancels_its_job() {
    on_pools("JobFuture drop", |pool, threads| {
        // Hold every worker, then spawn: the job cannot have started when its future drops.
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let release_rx = Arc::new(Mutex::new(release_rx));
        let (held_tx, held_rx) = mpsc::channel();
        for _ in 0..threads {
            let (rx, held) = (release_rx.clone(), held_tx.clone());
            pool.spawn(move || {
                held.send(()).unwrap();
                let _ = rx.lock().unwrap().recv();
            });
            held_rx.recv_timeout(common::TIMEOUT).unwrap();
        }
        let ran = Arc::new(AtomicBool::new(false));
        let drops = Drops::new();
        let (ran2, v) = (ran.clone(), drops.value());
        let (gone_tx, gone_rx) = mpsc::channel::<()>();
        let future = pool.spawn_future(move || {
            let _v = v;
            let _gone = gone_tx;
            ran2.store(true, Ordering::SeqCst);
        });
        drop(future);
        drop(release_tx);
        // The job's closure is dropped (unrun) once its sender disconnects.
        assert!(gone_rx.recv_timeout(common::TIMEOUT).is_err());
        assert_eq!(drops.count(), 1);
        assert!(!ran.load(Ordering::SeqCst));
    });
}

#[test]
fn work_installed_into_another_pool_stops_with_the_token() {
    on_pools("cross-pool install", |pool, _| {
        let other = common::pool(2);
        let token = CancelToken::new();
        let r = pool.cancellable(&token, || {
            other.install(|| {
                token.cancel();
                until_cancelled()
            })
        });
        assert_eq!(r, Err(Cancelled));
        assert_eq!(
            other.install(|| common::fib(15)),
            610,
            "the other pool still works"
        );
    });
}

#[test]
fn a_job_future_resolves_with_the_cancellation_of_its_work() {
    on_pools("JobFuture of cancelled work", |pool, _| {
        // Made after the cancel: never runs; awaited inside, the work stops there.
        let token = CancelToken::new();
        let r = pool.cancellable(&token, || {
            token.cancel();
            forkjoin::block_on(forkjoin::spawn_future(|| 42))
        });
        assert_eq!(r, Err(Cancelled));
        // Made under a token and awaited after its `cancellable` returned: the job keeps the
        // token, stops when it is cancelled, and its future raises the cancellation.
        let token = CancelToken::new();
        let future = pool
            .cancellable(&token, || forkjoin::spawn_future(until_cancelled))
            .expect("returns before any cancel");
        token.cancel();
        let awaited =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| forkjoin::block_on(future)));
        let payload = awaited.expect_err("the cancellation is raised");
        assert!(payload.is::<Cancelled>());
    });
}

#[test]
fn a_wait_in_cancelled_work_still_runs_what_a_blocked_thief_waits_for() {
    // A wait inside cancelled work steals nothing for a while (a chain of stolen b's unwinds
    // faster without new links), but it must not strand work: a's join waits for b, b's thief
    // blocks until a job of b's scope has ended, and on two threads only the waiting worker is free
    // to take that job. It completes (the job run or dropped, its capture dropped once).
    for threads in [2, 8] {
        common::watchdog(
            &format!("cancelled wait, blocked thief, {threads} threads"),
            LIMIT,
            move || {
                let pool = common::pool(threads);
                let token = CancelToken::new();
                let drops = Drops::new();
                let ran = AtomicUsize::new(0);
                let b_started = AtomicBool::new(false);
                let r = pool.cancellable(&token, || {
                    join(
                        || {
                            // b is offered to the idle worker and taken (a patrol takes it even
                            // from a spinning owner); then cancel, and the join waits for b.
                            while !b_started.load(Ordering::SeqCst) {
                                std::hint::spin_loop();
                            }
                            token.cancel();
                        },
                        || {
                            b_started.store(true, Ordering::SeqCst);
                            let (tx, rx) = mpsc::channel::<()>();
                            let rx = Mutex::new(rx);
                            scope(|s| {
                                let (v, ran) = (drops.value(), &ran);
                                s.spawn(move |_| {
                                    let _v = v;
                                    ran.fetch_add(1, Ordering::SeqCst);
                                    let _ = tx.send(());
                                });
                                // Returns once the job ran (it sent) or was dropped unrun (its
                                // sender dropped with it).
                                let _ = rx.lock().unwrap().recv();
                            });
                        },
                    )
                });
                assert!(r == Ok(((), ())) || r == Err(Cancelled));
                assert!(ran.load(Ordering::SeqCst) <= 1);
                // The scope returned only after its job ended: the capture has dropped.
                assert_eq!(drops.count(), 1, "the scope job's capture drops once");
            },
        );
    }
}

/// The latest `Instant` this platform can hold from now (within a factor of two).
fn far_future() -> Instant {
    let now = Instant::now();
    let mut ahead = Duration::MAX;
    loop {
        if let Some(at) = now.checked_add(ahead) {
            return at;
        }
        ahead /= 2;
    }
}

/// Waits (under the caller's watchdog) until the deadline timer cancels a token due in 1 ms.
fn timer_fires_a_short_deadline() {
    let soon = CancelToken::with_timeout(Duration::from_millis(1));
    while !soon.is_cancelled() {
        std::thread::yield_now();
    }
}

#[test]
fn a_timeout_too_long_to_represent_never_fires() {
    common::watchdog("far deadlines", LIMIT, || {
        // `Instant::now() + Duration::MAX` panics with an overflow: these must not.
        let never = CancelToken::with_timeout(Duration::MAX);
        let parent = CancelToken::new();
        let child = parent.child_with_timeout(Duration::MAX);
        assert_eq!(never.deadline(), None);
        assert_eq!(child.deadline(), None);
        // The latest deadline an `Instant` holds goes to the timer thread, which must neither
        // panic nor spin on it: after the first short deadline fires, the timer's earliest entry is
        // the far one, so it computes its wait for it before it can fire the second.
        let far = CancelToken::with_deadline(far_future());
        timer_fires_a_short_deadline();
        timer_fires_a_short_deadline();
        assert!(!never.is_cancelled());
        assert!(!child.is_cancelled());
        assert!(!far.is_cancelled());
        assert_eq!(cancellable(&never, || 1 + 1), Ok(2));
        // The child of a timeout that never comes is still cancelled with its parent.
        parent.cancel();
        assert!(child.is_cancelled());
    });
}
