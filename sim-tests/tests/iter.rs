//! Parallel iterators and sorts on real pools under shuttle: skynet-shaped nested sums, n-queens
//! over nested `Vec` iterators, and both sorts.
#![cfg(forkjoin_shuttle)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use forkjoin::prelude::*;
use sim_tests::{
    drop_and_check_joined, explore, nqueens, nqueens_seq, pool, schedules, skynet, Counter,
};

fn skynet_on(workers: usize, depth: u32, k: u64, default_schedules: usize) {
    explore("skynet", workers, schedules(default_schedules), move || {
        let exits = Arc::new(Counter::default());
        let pool = pool(workers, &exits);
        let leaves = AtomicUsize::new(0);
        let got = pool.install(|| skynet(0, depth, k, &leaves));
        let n = k.pow(depth);
        assert_eq!(got, n * (n - 1) / 2, "the leaves 0..n, each summed once");
        assert_eq!(
            leaves.load(Ordering::Relaxed) as u64,
            n,
            "every leaf runs once"
        );
        drop_and_check_joined(pool, &exits);
    });
}

#[test]
fn skynet_2() {
    skynet_on(2, 3, 4, 1000);
}

#[test]
fn skynet_8() {
    skynet_on(8, 3, 4, 1000);
}

#[test]
fn skynet_64() {
    skynet_on(64, 3, 3, 500);
}

#[test]
fn skynet_256() {
    skynet_on(256, 2, 4, 120);
}

#[test]
fn nqueens_8() {
    explore("nqueens", 8, schedules(300), || {
        let exits = Arc::new(Counter::default());
        let pool = pool(8, &exits);
        let boards = AtomicUsize::new(0);
        let got = pool.install(|| {
            nqueens(5, Vec::new(), &|| {
                boards.fetch_add(1, Ordering::Relaxed);
            })
        });
        let (solutions, examined) = nqueens_seq(5, &mut Vec::new());
        assert_eq!((got, solutions), (10, 10), "5-queens has 10 solutions");
        assert_eq!(
            boards.load(Ordering::Relaxed),
            examined,
            "every board examined once"
        );
        drop_and_check_joined(pool, &exits);
    });
}

fn sorts_on(workers: usize, default_schedules: usize) {
    explore("sort", workers, schedules(default_schedules), move || {
        let exits = Arc::new(Counter::default());
        let pool = pool(workers, &exits);
        let input: Vec<u32> = (0..4096u32)
            .map(|i| i.wrapping_mul(2_654_435_761) % 1000)
            .collect();
        let mut want = input.clone();
        want.sort();
        let (unstable, stable) = pool.install(|| {
            let (mut u, mut s) = (input.clone(), input.clone());
            forkjoin::join(|| u.par_sort_unstable(), || s.par_sort());
            (u, s)
        });
        assert_eq!(unstable, want);
        assert_eq!(stable, want);
        drop_and_check_joined(pool, &exits);
    });
}

#[test]
fn sort_8() {
    sorts_on(8, 200);
}

#[test]
fn sort_64() {
    sorts_on(64, 500);
}
