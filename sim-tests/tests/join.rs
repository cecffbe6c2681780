//! Recursive `join` on real pools under shuttle: fib, and a tree of boxed nodes.
#![cfg(forkjoin_shuttle)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use sim_tests::{
    drop_and_check_joined, explore, fib, fib_seq, pool, schedules, tree, tree_sum, Counter,
};

fn fib_on(workers: usize, n: u64, default_schedules: usize) {
    explore("fib", workers, schedules(default_schedules), move || {
        let exits = Arc::new(Counter::default());
        let pool = pool(workers, &exits);
        let calls = AtomicUsize::new(0);
        let got = pool.install(|| fib(n, &calls));
        let (want, want_calls) = fib_seq(n);
        assert_eq!(got, want);
        assert_eq!(
            calls.load(Ordering::Relaxed),
            want_calls,
            "every call runs exactly once"
        );
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
    fib_on(64, 8, 500);
}

#[test]
fn fib_256() {
    fib_on(256, 6, 120);
}

/// Deep enough that the joins below the offered jobs (five at 256 workers) are latent, with inline
/// regions of 64 joins and more below them whose polls offer latent b's while most workers idle
/// (1 or 2 offers in most schedules): each b still runs exactly once.
#[test]
fn fib_latent_256() {
    fib_on(256, 22, 12);
}

fn tree_on(workers: usize, depth: u32, default_schedules: usize) {
    explore("tree", workers, schedules(default_schedules), move || {
        let exits = Arc::new(Counter::default());
        let pool = pool(workers, &exits);
        let mut next = 0;
        let root = tree(depth, &mut next);
        let visits = AtomicUsize::new(0);
        let got = pool.install(|| tree_sum(&root, &visits));
        assert_eq!(
            got,
            next * (next - 1) / 2,
            "the values 0..nodes, each summed once"
        );
        assert_eq!(
            visits.load(Ordering::Relaxed) as u64,
            next,
            "every node visited once"
        );
        drop_and_check_joined(pool, &exits);
    });
}

#[test]
fn tree_2() {
    tree_on(2, 6, 1000);
}

#[test]
fn tree_8() {
    tree_on(8, 6, 1000);
}

#[test]
fn tree_64() {
    tree_on(64, 5, 500);
}
