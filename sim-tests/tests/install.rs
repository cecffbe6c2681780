//! `install` on real pools under shuttle: from several outside threads at once, across two pools,
//! into a pool gone to sleep, and with a job whose owner blocks in user code until another worker
//! takes its sibling.
#![cfg(forkjoin_shuttle)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use sim_tests::{drop_and_check_joined, explore, fib, fib_seq, pause, pool, schedules, Counter};

fn outside_threads_on(workers: usize, default_schedules: usize) {
    explore(
        "install-outside",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = Arc::new(pool(workers, &exits));
            let callers: Vec<_> = (0..2u64)
                .map(|i| {
                    let pool = pool.clone();
                    shuttle::thread::spawn(move || {
                        let calls = AtomicUsize::new(0);
                        let got = pool.install(|| fib(6 + i, &calls));
                        assert_eq!((got, calls.into_inner()), fib_seq(6 + i));
                    })
                })
                .collect();
            let calls = AtomicUsize::new(0);
            assert_eq!(
                (pool.install(|| fib(5, &calls)), calls.into_inner()),
                fib_seq(5)
            );
            for c in callers {
                c.join().unwrap();
            }
            let pool = Arc::into_inner(pool).expect("the callers are done");
            drop_and_check_joined(pool, &exits);
        },
    );
}

#[test]
fn install_outside_2() {
    outside_threads_on(2, 1000);
}

#[test]
fn install_outside_8() {
    outside_threads_on(8, 1000);
}

#[test]
fn install_outside_64() {
    outside_threads_on(64, 500);
}

fn two_pools_on(workers: usize, default_schedules: usize) {
    explore(
        "install-two-pools",
        workers,
        schedules(default_schedules),
        move || {
            let (exits_a, exits_b) = (Arc::new(Counter::default()), Arc::new(Counter::default()));
            let a = pool(workers, &exits_a);
            let b = pool(workers.div_ceil(2), &exits_b);
            let (calls_a, calls_b) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let (x, y) = a
                .install(|| forkjoin::join(|| b.install(|| fib(7, &calls_b)), || fib(7, &calls_a)));
            assert_eq!((x, calls_b.into_inner()), fib_seq(7));
            assert_eq!((y, calls_a.into_inner()), fib_seq(7));
            drop_and_check_joined(b, &exits_b);
            drop_and_check_joined(a, &exits_a);
        },
    );
}

#[test]
fn install_two_pools_2() {
    two_pools_on(2, 1000);
}

#[test]
fn install_two_pools_8() {
    two_pools_on(8, 1000);
}

#[test]
fn install_two_pools_64() {
    two_pools_on(64, 500);
}

/// Two installs with a pause between them, so the second one usually finds every worker asleep
/// with no timeout pending: only the injector's wake-up can start it.
fn sleeping_pool_on(workers: usize, default_schedules: usize) {
    explore(
        "install-asleep",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            for n in [6, 7] {
                let calls = AtomicUsize::new(0);
                assert_eq!(
                    (pool.install(|| fib(n, &calls)), calls.into_inner()),
                    fib_seq(n)
                );
                pause(200 + 20 * workers);
            }
            drop_and_check_joined(pool, &exits);
        },
    );
}

#[test]
fn install_asleep_2() {
    sleeping_pool_on(2, 1000);
}

#[test]
fn install_asleep_8() {
    sleeping_pool_on(8, 1000);
}

#[test]
fn install_asleep_64() {
    sleeping_pool_on(64, 500);
}

/// `join(a, b)` where `a` blocks (in user code, on a shuttle condition variable) until `b` ran: `b`
/// must reach another worker, by publication or by a patrol's heavy steal.
fn blocked_owner_on(workers: usize, default_schedules: usize) {
    explore(
        "blocked-owner",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let gate = Counter::default();
            let ran = AtomicUsize::new(0);
            pool.install(|| {
                forkjoin::join(
                    || gate.wait_for(1),
                    || {
                        ran.fetch_add(1, Ordering::Relaxed);
                        gate.bump();
                    },
                )
            });
            assert_eq!(ran.load(Ordering::Relaxed), 1);
            drop_and_check_joined(pool, &exits);
        },
    );
}

#[test]
fn blocked_owner_2() {
    blocked_owner_on(2, 1000);
}

#[test]
fn blocked_owner_8() {
    blocked_owner_on(8, 1000);
}

#[test]
fn blocked_owner_64() {
    blocked_owner_on(64, 500);
}
