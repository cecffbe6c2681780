//! `scope` and `spawn` on real pools under shuttle: matmul-shaped nested scope jobs, and bursts of
//! spawns into a pool whose workers may be asleep (wake-on-hoard).
#![cfg(forkjoin_shuttle)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use sim_tests::{
    drop_and_check_joined, explore, matmul, matmul_seq, pause, pool, schedules, Counter,
};

fn matmul_on(workers: usize, n: usize, default_schedules: usize) {
    explore("matmul", workers, schedules(default_schedules), move || {
        let exits = Arc::new(Counter::default());
        let pool = pool(workers, &exits);
        let a: Vec<u64> = (0..n * n).map(|i| (i % 7) as u64).collect();
        let b: Vec<u64> = (0..n * n).map(|i| (i % 5) as u64 + 1).collect();
        let jobs = AtomicUsize::new(0);
        let returned = AtomicBool::new(false);
        let late = AtomicBool::new(false);
        let got = pool.install(|| {
            let c = forkjoin::scope(|s| {
                // A job that notes whether it ran after its scope returned.
                s.spawn(|_| {
                    late.fetch_or(returned.load(Ordering::SeqCst), Ordering::SeqCst);
                });
                matmul(&a, &b, n, 2, &jobs)
            });
            returned.store(true, Ordering::SeqCst);
            c
        });
        assert_eq!(got, matmul_seq(&a, &b, n));
        assert_eq!(
            jobs.load(Ordering::Relaxed),
            n / 2 + n,
            "every scope job runs once"
        );
        drop_and_check_joined(pool, &exits);
        assert!(
            !late.load(Ordering::SeqCst),
            "a scope job ran after its scope returned"
        );
    });
}

#[test]
fn matmul_2() {
    matmul_on(2, 8, 1000);
}

#[test]
fn matmul_8() {
    matmul_on(8, 8, 1000);
}

#[test]
fn matmul_64() {
    matmul_on(64, 8, 500);
}

#[test]
fn matmul_256() {
    matmul_on(256, 4, 120);
}

/// A worker hoards a burst of scope spawns in its own deque while the others may sleep; then a burst
/// of `ThreadPool::spawn` from outside. Every job runs exactly once, and the pool finishes.
fn bursts_on(workers: usize, burst: usize, default_schedules: usize) {
    explore("bursts", workers, schedules(default_schedules), move || {
        let exits = Arc::new(Counter::default());
        let pool = pool(workers, &exits);
        // Let the idle workers go to sleep (in most schedules).
        pause(400);
        let hoarded = AtomicUsize::new(0);
        pool.scope(|s| {
            for _ in 0..burst {
                s.spawn(|_| {
                    hoarded.fetch_add(1, Ordering::Relaxed);
                });
            }
        });
        assert_eq!(
            hoarded.load(Ordering::Relaxed),
            burst,
            "every scope spawn ran once"
        );
        pause(400);
        let spawned = Arc::new(Counter::default());
        for _ in 0..burst {
            let spawned = spawned.clone();
            pool.spawn(move || spawned.bump());
        }
        spawned.wait_for(burst);
        // The last spawn may still be finishing: the drop need not join, but every worker exits.
        drop(pool);
        exits.wait_for(workers);
        assert_eq!(spawned.get(), burst, "every spawn ran once");
    });
}

#[test]
fn bursts_2() {
    bursts_on(2, 16, 1000);
}

#[test]
fn bursts_8() {
    bursts_on(8, 16, 1000);
}

#[test]
fn bursts_64() {
    bursts_on(64, 16, 500);
}
