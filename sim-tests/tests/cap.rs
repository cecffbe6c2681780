//! Caps (`with_max_threads`) on real pools under shuttle, at 2 to 256 virtual workers: a capped
//! join tree, and a capped call that spawns jobs which run after it returned (parked and pumped
//! when the cap has no room). A probe counts the workers running the call's work at once (each
//! once, however deep it nests): never more than the cap; every job runs once; the pool exits.
#![cfg(forkjoin_shuttle)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use sim_tests::{draw, drop_and_await_exits, explore, pool, schedules, Counter};

/// Workers inside the probed work now (per worker: how deep), and the most at once.
struct Probe {
    depth: Vec<AtomicUsize>,
    now: AtomicUsize,
    most: AtomicUsize,
}

impl Probe {
    fn new(workers: usize) -> Self {
        Probe {
            depth: (0..workers).map(|_| AtomicUsize::new(0)).collect(),
            now: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
        }
    }

    /// Runs `f` as probed work on the current worker.
    fn work<R>(&self, f: impl FnOnce() -> R) -> R {
        let me = &self.depth[forkjoin::current_thread_index().expect("work runs on a worker")];
        if me.fetch_add(1, Ordering::SeqCst) == 0 {
            let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
        }
        let result = f();
        if me.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.now.fetch_sub(1, Ordering::SeqCst);
        }
        result
    }

    /// Fails if more than `cap` workers were inside at once.
    fn assert_at_most(&self, cap: usize) {
        let most = self.most.load(Ordering::SeqCst);
        assert!(most <= cap, "{most} workers inside a call capped at {cap}");
    }
}

fn tree(probe: &Probe, depth: u32) -> u64 {
    probe.work(|| {
        if depth == 0 {
            return 1;
        }
        let (a, b) = forkjoin::join(|| tree(probe, depth - 1), || tree(probe, depth - 1));
        a + b
    })
}

fn join_tree_on(workers: usize, depth: u32, default_schedules: usize) {
    explore(
        "cap-join-tree",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let cap = 1 + draw(workers as u64 - 1) as usize;
            let probe = Probe::new(workers);
            let sum = pool.with_max_threads(cap, || tree(&probe, depth));
            assert_eq!(sum, 1 << depth);
            probe.assert_at_most(cap);
            drop_and_await_exits(pool, &exits);
        },
    );
}

#[test]
fn cap_join_tree_2() {
    join_tree_on(2, 6, 1000);
}

#[test]
fn cap_join_tree_8() {
    join_tree_on(8, 6, 1000);
}

#[test]
fn cap_join_tree_64() {
    join_tree_on(64, 6, 500);
}

#[test]
fn cap_join_tree_256() {
    join_tree_on(256, 6, 100);
}

fn spawns_on(workers: usize, spawns: usize, default_schedules: usize) {
    explore(
        "cap-spawns",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let cap = 1 + draw(2) as usize;
            let probe = Arc::new(Probe::new(workers));
            let ran = Arc::new(Counter::default());
            pool.with_max_threads(cap, || {
                for _ in 0..spawns {
                    let (probe, ran) = (probe.clone(), ran.clone());
                    forkjoin::spawn(move || probe.work(|| ran.bump()));
                }
                // The caller's own work beside them, so that spawns find the cap full.
                tree(&probe, 3);
            });
            // A spawn left parked for good never bumps: the wait deadlocks, which shuttle reports.
            ran.wait_for(spawns);
            assert_eq!(ran.get(), spawns, "every spawn runs once");
            probe.assert_at_most(cap);
            drop_and_await_exits(pool, &exits);
        },
    );
}

#[test]
fn cap_spawns_2() {
    spawns_on(2, 6, 1000);
}

#[test]
fn cap_spawns_8() {
    spawns_on(8, 8, 1000);
}

#[test]
fn cap_spawns_64() {
    spawns_on(64, 8, 300);
}
