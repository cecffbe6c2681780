//! `join` and `join_context`: results, borrowing, deep recursion, oversubscription, and the `migrated`
//! flag when a thief steals `b` (provoked deterministically: `a` waits until `b` reports it ran).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use forkjoin::{join, join_context};

use crate::common;
use common::{fib, pool, TIMEOUT};

/// Waits until `flag` is set, calling tiny `join`s meanwhile: a runtime that publishes private work
/// only when its owner next pushes (demand-driven splitting) still lets a thief take the pending `b`.
/// Fails the test after `TIMEOUT` instead of hanging.
fn wait_with_joins(flag: &AtomicBool, what: &str) {
    let deadline = Instant::now() + TIMEOUT;
    // Acquire pairs with the Release store of the closure that sets the flag.
    while !flag.load(Ordering::Acquire) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        join(|| (), || ());
        std::thread::yield_now();
    }
}

#[test]
fn join_returns_both_results_of_different_types() {
    let (a, b) = join(|| 6 * 7, || String::from("forty-two"));
    assert_eq!(a, 42);
    assert_eq!(b, "forty-two");
    let (v, unit) = join(|| vec![1u8; 3], || ());
    assert_eq!(v, [1, 1, 1]);
    let () = unit;
}

#[test]
fn join_borrows_shared_and_disjoint_mutable_data() {
    let input: Vec<u64> = (0..10_000).collect();
    let mut output = vec![0u64; input.len()];
    let (lo, hi) = output.split_at_mut(5_000);
    let (sum_lo, sum_hi) = join(
        || {
            for (o, x) in lo.iter_mut().zip(&input[..5_000]) {
                *o = x * 2;
            }
            input[..5_000].iter().sum::<u64>()
        },
        || {
            for (o, x) in hi.iter_mut().zip(&input[5_000..]) {
                *o = x * 3;
            }
            input[5_000..].iter().sum::<u64>()
        },
    );
    assert_eq!(sum_lo + sum_hi, 10_000 * 9_999 / 2);
    assert!(output[..5_000]
        .iter()
        .enumerate()
        .all(|(i, &o)| o == 2 * i as u64));
    assert!(output[5_000..]
        .iter()
        .enumerate()
        .all(|(i, &o)| o == 3 * (i as u64 + 5_000)));
}

/// Sums `lo..hi` splitting down to single elements: `hi - lo - 1` joins. Returns (sum, leaves).
fn sum_range(lo: u64, hi: u64) -> (u64, u64) {
    if hi - lo == 1 {
        return (lo, 1);
    }
    let mid = lo + (hi - lo) / 2;
    let ((s1, c1), (s2, c2)) = join(|| sum_range(lo, mid), || sum_range(mid, hi));
    (s1 + s2, c1 + c2)
}

const MILLION: u64 = 1_000_000;

fn check_million_joins() {
    // MILLION + 1 leaves → exactly MILLION joins.
    let (sum, leaves) = sum_range(0, MILLION + 1);
    assert_eq!(leaves, MILLION + 1);
    assert_eq!(sum, MILLION * (MILLION + 1) / 2);
}

#[test]
fn one_million_joins_from_outside_any_pool() {
    check_million_joins();
}

#[test]
fn one_million_joins_in_pools_of_1_2_16_and_96_threads() {
    // 96: a pool of more than 64 threads, whose first joins below the offered jobs are latent.
    for n in [1, 2, 16, 96] {
        pool(n).install(check_million_joins);
    }
}

/// Runs `f` under `depth` nested joins whose b's do nothing: in a pool of more than 64 threads the
/// first pushes fill the offered depth (5) and the next joins are latent.
fn under_joins<R: Send>(depth: usize, f: impl FnOnce() -> R + Send) -> R {
    if depth == 0 {
        f()
    } else {
        join(|| under_joins(depth - 1, f), || ()).0
    }
}

/// A pool of more than 64 threads (96 on this machine's few cores): its joins below the offered
/// jobs are latent, with b registered while a runs.
const LATENT_POOL: usize = 96;

#[test]
fn a_latent_b_goes_to_an_idle_worker_while_its_a_runs() {
    let pool = pool(LATENT_POOL);
    let (b_thread, a_thread) = pool.install(|| {
        under_joins(8, || {
            let ran = AtomicBool::new(false);
            let ((a_thread, _), b_thread) = join_context(
                // a runs until b has run; every 64th of its tiny joins asks whether a worker
                // idles (95 do), and offers the oldest latent b, ours, to one of them.
                |_| {
                    wait_with_joins(&ran, "the latent b to run elsewhere");
                    (forkjoin::current_thread_index(), ())
                },
                |ctx| {
                    // Release pairs with the Acquire load in `wait_with_joins`.
                    ran.store(true, Ordering::Release);
                    assert!(ctx.migrated(), "b ran on another worker");
                    forkjoin::current_thread_index()
                },
            );
            (b_thread, a_thread)
        })
    });
    assert_ne!(a_thread, b_thread);
    assert!(
        pool.stats().jobs_offered >= 1,
        "b went out as an offered job"
    );
}

#[test]
fn a_panic_in_a_waits_for_its_offered_latent_b() {
    let pool = pool(LATENT_POOL);
    let finished = AtomicUsize::new(0);
    let started = AtomicBool::new(false);
    let caught = pool.install(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            under_joins(8, || {
                join(
                    || {
                        wait_with_joins(&started, "the latent b to start elsewhere");
                        panic!("a fails");
                    },
                    || {
                        started.store(true, Ordering::Release);
                        // Work the compiler cannot skip, so that a's panic comes while b runs.
                        let x = (0..2_000_000u64).fold(1u64, |x, k| {
                            std::hint::black_box(x.wrapping_mul(31).wrapping_add(k))
                        });
                        finished.fetch_add(1, Ordering::Release);
                        x
                    },
                )
            })
        }))
    });
    let payload = caught.expect_err("a's panic comes out of the join");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"a fails"));
    // Acquire pairs with b's Release increment: the join did not return before b finished.
    assert_eq!(
        finished.load(Ordering::Acquire),
        1,
        "b ran to its end exactly once"
    );
}

#[test]
fn join_from_outside_runs_both_closures_in_the_global_pool() {
    let (a, b) = join(
        forkjoin::current_thread_index,
        forkjoin::current_thread_index,
    );
    assert!(
        a.is_some() && b.is_some(),
        "join from a plain thread must run in the global pool, got {a:?} {b:?}"
    );
    assert_eq!(forkjoin::current_thread_index(), None);
}

#[test]
fn every_closure_runs_on_a_worker_of_the_installing_pool() {
    fn walk(depth: u32, n: usize, seen: &[AtomicUsize]) {
        let i = forkjoin::current_thread_index().expect("inside the pool");
        assert!(i < n, "index {i} out of range for {n} threads");
        seen[i].fetch_add(1, Ordering::Relaxed);
        if depth > 0 {
            join(|| walk(depth - 1, n, seen), || walk(depth - 1, n, seen));
        }
    }
    let n = 4;
    let seen: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
    pool(n).install(|| walk(14, n, &seen));
    let total: usize = seen.iter().map(|c| c.load(Ordering::Relaxed)).sum();
    assert_eq!(total, (1 << 15) - 1);
}

#[test]
fn join_context_on_one_thread_never_migrates() {
    let p = pool(1);
    for _ in 0..100 {
        let ((ma, ia), (mb, ib)) = p.install(|| {
            join_context(
                |c| (c.migrated(), forkjoin::current_thread_index()),
                |c| (c.migrated(), forkjoin::current_thread_index()),
            )
        });
        assert_eq!((ma, mb), (false, false));
        assert_eq!((ia, ib), (Some(0), Some(0)));
    }
}

#[test]
fn join_context_b_migrates_when_stolen() {
    let p = pool(2);
    for round in 0..20 {
        let b_ran = AtomicBool::new(false);
        let (caller, ((ma, ia), (mb, ib))) = p.install(|| {
            let caller = forkjoin::current_thread_index();
            let r = join_context(
                |c| {
                    // a cannot finish before b ran, so b must have been taken by the other worker.
                    wait_with_joins(&b_ran, "b to be stolen");
                    (c.migrated(), forkjoin::current_thread_index())
                },
                |c| {
                    let r = (c.migrated(), forkjoin::current_thread_index());
                    // Release pairs with the Acquire load in wait_with_joins.
                    b_ran.store(true, Ordering::Release);
                    r
                },
            );
            (caller, r)
        });
        assert!(caller.is_some());
        assert_eq!(ia, caller, "round {round}: a runs on the caller's thread");
        assert!(!ma, "round {round}: a is never migrated inside the pool");
        assert_ne!(ib, caller, "round {round}: b must have run on the thief");
        assert!(mb, "round {round}: stolen b must report migrated()");
    }
}

#[test]
fn b_is_stolen_while_a_blocks_without_joining() {
    // A user's `a` that blocks (here: on a channel b feeds) must not starve b when another worker is
    // idle: b has to become stealable without a's cooperation.
    let p = pool(2);
    for round in 0..5 {
        let (tx, rx) = mpsc::channel::<()>();
        let (a_ok, b_migrated) = p.install(|| {
            join_context(
                move |_| rx.recv_timeout(TIMEOUT).is_ok(),
                move |c| {
                    tx.send(()).expect("a is waiting");
                    c.migrated()
                },
            )
        });
        assert!(
            a_ok,
            "round {round}: b never ran while a was blocked (b was not stealable)"
        );
        assert!(b_migrated, "round {round}");
    }
}

#[test]
fn blocked_owners_in_an_oversubscribed_pool_all_get_their_b() {
    // Six workers on (typically) two cores; three owners at a time each push a b right after a burst
    // of joins (so their sharing heartbeat has usually just fired and b stays private), then block
    // until b has run. Every b must be found, by publication or by an idle worker's patrol.
    let p = pool(6);
    for round in 0..20 {
        p.install(|| {
            forkjoin::scope(|s| {
                for owner in 0..3 {
                    s.spawn(move |_| {
                        assert_eq!(fib(12), 144);
                        let (tx, rx) = mpsc::channel::<()>();
                        let (a_ok, ()) = join(
                            move || rx.recv_timeout(TIMEOUT).is_ok(),
                            move || tx.send(()).expect("a is waiting"),
                        );
                        assert!(a_ok, "round {round}, owner {owner}: b never ran");
                    });
                }
            })
        });
    }
}

#[test]
fn an_owner_back_from_waiting_publishes_its_next_b_at_once() {
    // Review finding: worker X waits for a stolen b1 and is counted idle; the thief W finishes b1,
    // goes idle and, still seeing both workers idle, sleeps without a patrol timeout. X leaves
    // through its latch, pushes b2 within the sharing heartbeat and blocks in a2 until b2 runs. X's
    // first publication after idling must not be skipped, nor used up by a call that published
    // nothing (the tiny parallel loop in between, on odd rounds). Hung in ~5 % of rounds.
    let p = pool(2);
    let mut seed: u64 = 0x1234_5678;
    for round in 0..400u32 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let b1_time = Duration::from_micros(seed % 81);
        let idle_first = Duration::from_micros((seed >> 20) % 300);
        let b2_ran = p.install(|| {
            if round % 2 == 0 {
                // Give the other worker time to fall asleep (timing variety, not synchronisation).
                spin_for(idle_first);
            }
            let started = AtomicBool::new(false);
            join(
                || {
                    let deadline = Instant::now() + Duration::from_millis(200);
                    while !started.load(Ordering::Acquire) && Instant::now() < deadline {
                        std::hint::spin_loop();
                    }
                },
                || {
                    started.store(true, Ordering::Release);
                    spin_for(b1_time);
                },
            );
            if round % 4 == 1 {
                use forkjoin::prelude::*;
                (0..1usize).into_par_iter().for_each(|x| {
                    std::hint::black_box(x);
                });
            }
            let (tx, rx) = mpsc::sync_channel::<()>(1);
            let (ran, ()) = join(
                move || rx.recv_timeout(TIMEOUT).is_ok(),
                move || tx.send(()).expect("a is waiting"),
            );
            ran
        });
        assert!(b2_ran, "round {round}: b2 never ran while a2 waited for it");
    }
}

fn spin_for(d: Duration) {
    let start = Instant::now();
    while start.elapsed() < d {
        std::hint::spin_loop();
    }
}

#[test]
fn b_pushed_while_every_worker_was_busy_is_stolen_once_one_frees_up() {
    // Worker Y is held by a spawned job while the other worker pushes b and blocks in a; then Y is
    // released and must find b (still unpublished) on its own: a depends on b to finish.
    let p = pool(2);
    for round in 0..10 {
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        let (held_tx, held_rx) = mpsc::channel::<()>();
        p.spawn(move || {
            held_tx.send(()).unwrap();
            gate_rx.recv_timeout(TIMEOUT).expect("gate opened");
        });
        held_rx
            .recv_timeout(TIMEOUT)
            .expect("the spawned job holds a worker");
        let (a_started_tx, a_started_rx) = mpsc::channel::<()>();
        let ((), b_migrated) = std::thread::scope(|s| {
            s.spawn(move || {
                a_started_rx.recv_timeout(TIMEOUT).expect("a started");
                gate_tx.send(()).unwrap(); // free the other worker only now
            });
            p.install(|| {
                let (b_tx, b_rx) = mpsc::channel::<()>();
                join_context(
                    move |_| {
                        a_started_tx.send(()).unwrap();
                        b_rx.recv_timeout(TIMEOUT).unwrap_or_else(|_| {
                            panic!("round {round}: b was never taken by the freed worker")
                        });
                    },
                    move |c| {
                        b_tx.send(()).unwrap();
                        c.migrated()
                    },
                )
            })
        });
        assert!(b_migrated, "round {round}");
    }
}

/// Both closures announce they started and wait for the other's announcement: passes only if a and b
/// run at the same time. Neither closure calls `join`, so b must be published at the push itself.
fn handshake_join(join2: impl FnOnce(Box<dyn FnOnce() + Send>, Box<dyn FnOnce() + Send>)) {
    let (a_tx, a_rx) = mpsc::channel::<()>();
    let (b_tx, b_rx) = mpsc::channel::<()>();
    join2(
        Box::new(move || {
            a_tx.send(()).unwrap();
            b_rx.recv_timeout(TIMEOUT)
                .expect("a: b never started while a ran (join did not run them in parallel)");
        }),
        Box::new(move || {
            b_tx.send(()).unwrap();
            a_rx.recv_timeout(TIMEOUT)
                .expect("b: a never started while b ran");
        }),
    );
}

#[test]
fn join_of_two_long_closures_runs_them_in_parallel() {
    // A fresh pool each round: its other worker is idle (and maybe asleep) when join pushes b.
    for _ in 0..20 {
        let p = pool(2);
        p.install(|| {
            handshake_join(|a, b| {
                let ((), ()) = join(a, b);
            })
        });
    }
    for _ in 0..20 {
        let p = pool(2);
        handshake_join(|a, b| {
            let ((), ()) = p.join(a, b);
        });
    }
    // And in a pool that has been busy and went idle again.
    let p = pool(2);
    for _ in 0..20 {
        p.install(|| {
            handshake_join(|a, b| {
                let ((), ()) = join(a, b);
            })
        });
    }
}

#[test]
fn join_in_oversubscribed_pools_from_many_threads() {
    // 4 pools of 8 threads each on a 2-core machine, driven concurrently.
    let handles: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                let p = pool(8);
                (0..5).map(|_| p.install(|| fib(20))).collect::<Vec<_>>()
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().expect("no panic"), vec![6765; 5]);
    }
}
