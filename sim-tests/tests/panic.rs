//! Panics at schedule-drawn points on real pools under shuttle: a panic in a `join` arm or a scope
//! job reaches the caller, nothing of it runs afterwards, and the pool stays usable.
#![cfg(forkjoin_shuttle)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use sim_tests::{
    draw, drop_and_check_joined, explore, fib_seq, intended_panic, pool, quiet_intended_panics,
    schedules, Counter, Intended,
};

/// `fib(n)` with a `join` at every call; the call numbered `panic_at` panics.
fn fib_panicking(n: u64, calls: &AtomicUsize, panic_at: usize) -> u64 {
    if calls.fetch_add(1, Ordering::Relaxed) == panic_at {
        intended_panic();
    }
    if n < 2 {
        return n;
    }
    let (a, b) = forkjoin::join(
        || fib_panicking(n - 1, calls, panic_at),
        || fib_panicking(n - 2, calls, panic_at),
    );
    a + b
}

fn join_panic_on(workers: usize, n: u64, default_schedules: usize) {
    explore(
        "panic-join",
        workers,
        schedules(default_schedules),
        move || {
            quiet_intended_panics();
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let panic_at = draw(fib_seq(n).1 as u64) as usize;
            let calls = AtomicUsize::new(0);
            let err = catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| fib_panicking(n, &calls, panic_at))
            }))
            .expect_err("the panic reaches the caller");
            assert!(err.is::<Intended>(), "the job's own payload");
            let after_return = calls.load(Ordering::Relaxed);
            assert!(after_return > panic_at);
            // The pool still works.
            let again = AtomicUsize::new(0);
            let got = pool.install(|| fib_panicking(n, &again, usize::MAX));
            assert_eq!((got, again.into_inner()), fib_seq(n));
            drop_and_check_joined(pool, &exits);
            assert_eq!(
                calls.load(Ordering::Relaxed),
                after_return,
                "no call of the panicked join ran after it returned"
            );
        },
    );
}

#[test]
fn panic_join_2() {
    join_panic_on(2, 8, 1000);
}

#[test]
fn panic_join_8() {
    join_panic_on(8, 8, 1000);
}

#[test]
fn panic_join_64() {
    join_panic_on(64, 8, 500);
}

/// Deep enough that the joins below the offered jobs (five at 256 workers) are latent and some of
/// their b's are offered (see `fib_latent_256`): a panic in an a whose b was offered waits for b.
#[test]
fn panic_join_256() {
    join_panic_on(256, 22, 8);
}

fn scope_panic_on(workers: usize, default_schedules: usize) {
    explore(
        "panic-scope",
        workers,
        schedules(default_schedules),
        move || {
            quiet_intended_panics();
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let jobs = 12;
            let panicking = draw(jobs as u64) as usize;
            let ran = AtomicUsize::new(0);
            let err = catch_unwind(AssertUnwindSafe(|| {
                pool.scope(|s| {
                    for i in 0..jobs {
                        let ran = &ran;
                        s.spawn(move |_| {
                            ran.fetch_add(1, Ordering::Relaxed);
                            if i == panicking {
                                intended_panic();
                            }
                        });
                    }
                })
            }))
            .expect_err("the panic reaches the scope's caller");
            assert!(err.is::<Intended>());
            assert_eq!(
                ran.load(Ordering::Relaxed),
                jobs,
                "the scope waited for every job"
            );
            let sum = pool.install(|| forkjoin::join(|| 1, || 2));
            assert_eq!(sum, (1, 2), "the pool still works");
            drop_and_check_joined(pool, &exits);
            assert_eq!(
                ran.load(Ordering::Relaxed),
                jobs,
                "nothing ran after the scope returned"
            );
        },
    );
}

#[test]
fn panic_scope_2() {
    scope_panic_on(2, 1000);
}

#[test]
fn panic_scope_8() {
    scope_panic_on(8, 1000);
}

#[test]
fn panic_scope_64() {
    scope_panic_on(64, 500);
}
