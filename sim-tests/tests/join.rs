//! Recursive `join` on real pools under shuttle.
#![cfg(forkjoin_shuttle)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use sim_tests::{drop_and_check_joined, explore, fib, fib_seq, pool, schedules};

fn fib_on(workers: usize, n: u64, default_schedules: usize) {
    explore("fib", workers, schedules(default_schedules), move || {
        let exits = Arc::new(AtomicUsize::new(0));
        let pool = pool(workers, &exits);
        let calls = AtomicUsize::new(0);
        let got = pool.install(|| fib(n, &calls));
        let (want, want_calls) = fib_seq(n);
        assert_eq!(got, want);
        assert_eq!(calls.load(Ordering::Relaxed), want_calls, "every call runs exactly once");
        drop_and_check_joined(pool, &exits);
    });
}

#[test]
fn fib_2() {
    fib_on(2, 10, 1000);
}

#[test]
fn fib_8() {
    fib_on(8, 10, 1000);
}

#[test]
fn fib_64() {
    fib_on(64, 8, 1000);
}
