//! Cancellation on real pools under shuttle: a `cancellable` join tree cancelled at a drawn leaf, a
//! long iterator cancelled from another thread, a scope's jobs cancelled by one of them, and a
//! stolen b that only stops by cancellation. Every captured value drops once, nothing of the work
//! runs after `cancellable` returned, and the pool's threads exit.
#![cfg(forkjoin_shuttle)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use forkjoin::prelude::*;
use forkjoin::{CancelToken, Cancelled};
use sim_tests::{draw, drop_and_check_joined, explore, pool, schedules, Counter};

/// Counts drops of the values the work's closures capture: each must drop exactly once.
#[derive(Clone, Default)]
struct Drops(Arc<AtomicUsize>);

struct Tracked(Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl Drops {
    fn value(&self) -> Tracked {
        Tracked(self.0.clone())
    }

    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// Notes work that runs after its `cancellable` call returned (`returned` set by the caller).
#[derive(Default)]
struct Late {
    returned: AtomicBool,
    late: AtomicUsize,
}

impl Late {
    /// Called at the start of every piece of work.
    fn check(&self) {
        if self.returned.load(Ordering::SeqCst) {
            self.late.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn returned(&self) {
        self.returned.store(true, Ordering::SeqCst);
    }

    /// Asserts, once the pool's threads have exited, that nothing ran after the return.
    fn assert_none(&self) {
        assert_eq!(
            self.late.load(Ordering::SeqCst),
            0,
            "work ran after `cancellable` returned"
        );
    }
}

/// A join tree whose every closure captures a tracked value; the leaf numbered `cancel_at` cancels
/// `token`.
struct Tree<'a> {
    drops: &'a Drops,
    made: &'a AtomicUsize,
    leaves: &'a AtomicUsize,
    late: &'a Late,
    token: &'a CancelToken,
    cancel_at: usize,
}

impl Tree<'_> {
    fn walk(&self, depth: u32) -> u64 {
        self.late.check();
        if depth == 0 {
            if self.leaves.fetch_add(1, Ordering::SeqCst) == self.cancel_at {
                self.token.cancel();
            }
            return 1;
        }
        let (va, vb) = (self.drops.value(), self.drops.value());
        self.made.fetch_add(2, Ordering::SeqCst);
        let (a, b) = forkjoin::join(
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

fn join_tree_on(workers: usize, depth: u32, default_schedules: usize) {
    explore(
        "cancel-join-tree",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let token = CancelToken::new();
            let (drops, late) = (Drops::default(), Late::default());
            let (made, leaves) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let all = 1usize << depth;
            let tree = Tree {
                drops: &drops,
                made: &made,
                leaves: &leaves,
                late: &late,
                token: &token,
                cancel_at: draw(all as u64) as usize,
            };
            let r = pool.cancellable(&token, || tree.walk(depth));
            late.returned();
            let ran = leaves.load(Ordering::SeqCst);
            match r {
                // The cancel came after every boundary had passed: the whole tree ran.
                Ok(sum) => assert_eq!((sum, ran), (all as u64, all), "an Ok tree is whole"),
                Err(Cancelled) => assert!(ran > tree.cancel_at, "cancelled before the cancel"),
            }
            assert!(token.is_cancelled());
            assert_eq!(
                drops.count(),
                made.load(Ordering::SeqCst),
                "captures drop once"
            );
            drop_and_check_joined(pool, &exits);
            late.assert_none();
            assert_eq!(
                leaves.load(Ordering::SeqCst),
                ran,
                "a leaf ran after the return"
            );
        },
    );
}

#[test]
fn cancel_join_tree_2() {
    join_tree_on(2, 7, 1000);
}

#[test]
fn cancel_join_tree_8() {
    join_tree_on(8, 7, 1000);
}

#[test]
fn cancel_join_tree_64() {
    join_tree_on(64, 6, 400);
}

/// `(0..u64::MAX).into_par_iter().map(..).sum()`, which only ends by cancellation; counts the items
/// mapped and bumps `started` once `signal_at` of them were (a number drawn by the test, so that the
/// cancel comes at different stages of the splitting).
///
/// Each item yields: a scheduling step, which the virtual clock counts (items that take no step take
/// no virtual time, and a leaf whose batches take none treats its items as free and folds its rest
/// in one go, without boundaries: `FREE_BATCH` in the bridge's `pace.rs`), and under PCT a yield
/// lowers the worker's priority, so a canceller outside the pool is not starved.
fn endless_sum(
    drops: &Drops,
    late: &Late,
    items: &AtomicUsize,
    started: &Counter,
    signal_at: usize,
) -> u64 {
    let captured = drops.value();
    (0..u64::MAX)
        .into_par_iter()
        .map(move |i| {
            let _keep = &captured;
            late.check();
            shuttle::thread::yield_now();
            if items.fetch_add(1, Ordering::SeqCst) + 1 == signal_at {
                started.bump();
            }
            i & 1
        })
        .sum()
}

fn iterator_from_outside_on(workers: usize, default_schedules: usize) {
    explore(
        "cancel-iter-outside",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let token = CancelToken::new();
            let started = Arc::new(Counter::default());
            let canceller = {
                let (token, started) = (token.clone(), started.clone());
                shuttle::thread::spawn(move || {
                    started.wait_for(1);
                    token.cancel();
                })
            };
            let (drops, late, items) = (Drops::default(), Late::default(), AtomicUsize::new(0));
            let signal_at = 1 + draw(200) as usize;
            let r = pool.cancellable(&token, || {
                endless_sum(&drops, &late, &items, &started, signal_at)
            });
            late.returned();
            assert_eq!(r, Err(Cancelled));
            canceller.join().unwrap();
            let mapped = items.load(Ordering::SeqCst);
            assert!(mapped >= signal_at, "cancelled before the signal");
            assert_eq!(drops.count(), 1, "the map's capture drops once");
            drop_and_check_joined(pool, &exits);
            late.assert_none();
            assert_eq!(items.load(Ordering::SeqCst), mapped);
        },
    );
}

#[test]
fn cancel_iter_outside_2() {
    iterator_from_outside_on(2, 1000);
}

#[test]
fn cancel_iter_outside_8() {
    iterator_from_outside_on(8, 1000);
}

#[test]
fn cancel_iter_outside_64() {
    iterator_from_outside_on(64, 400);
}

fn scope_on(workers: usize, jobs: usize, default_schedules: usize) {
    explore(
        "cancel-scope",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let token = CancelToken::new();
            let (drops, late, ran) = (Drops::default(), Late::default(), AtomicUsize::new(0));
            let made = AtomicUsize::new(0);
            let cancel_at = draw(jobs as u64) as usize;
            let r = pool.cancellable(&token, || {
                forkjoin::scope(|s| {
                    // The body stops at its first `spawn` after the cancel (a boundary), so it
                    // may make fewer than `jobs` jobs.
                    for i in 0..jobs {
                        made.fetch_add(1, Ordering::SeqCst);
                        let v = drops.value();
                        let (late, ran, token) = (&late, &ran, &token);
                        s.spawn(move |_| {
                            let _v = v;
                            late.check();
                            ran.fetch_add(1, Ordering::SeqCst);
                            if i == cancel_at {
                                token.cancel();
                            }
                        });
                    }
                })
            });
            late.returned();
            let ran_then = ran.load(Ordering::SeqCst);
            assert!(ran_then >= 1, "the cancelling job ran");
            if r.is_ok() {
                // Every other job had started when the cancel came.
                assert_eq!(ran_then, jobs, "an Ok scope ran every job");
            }
            assert_eq!(
                drops.count(),
                made.load(Ordering::SeqCst),
                "every job's capture drops once"
            );
            drop_and_check_joined(pool, &exits);
            late.assert_none();
            assert_eq!(ran.load(Ordering::SeqCst), ran_then);
        },
    );
}

#[test]
fn cancel_scope_2() {
    scope_on(2, 32, 1000);
}

#[test]
fn cancel_scope_8() {
    scope_on(8, 32, 1000);
}

#[test]
fn cancel_scope_64() {
    scope_on(64, 32, 400);
}

/// `join(a, b)` under a token: a blocks until b started, so b ran on another worker, taken from a
/// queue; b sums an endless iterator; a then cancels. b stops only if the node reached every job
/// its iterator made on every worker (`scripts/sim-bugs.sh`'s `cancel_not_inherited` never stops).
fn stolen_endless_b_on(workers: usize, default_schedules: usize) {
    explore(
        "cancel-stolen-b",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let token = CancelToken::new();
            let (drops, late, items) = (Drops::default(), Late::default(), AtomicUsize::new(0));
            let started = Counter::default();
            let signal_at = 1 + draw(100) as usize;
            let (va, vb) = (drops.value(), drops.value());
            let (token_ref, drops, late_ref, items_ref, started) =
                (&token, &drops, &late, &items, &started);
            let r = pool.cancellable(&token, || {
                forkjoin::join(
                    move || {
                        let _v = va;
                        started.wait_for(1);
                        token_ref.cancel();
                    },
                    move || {
                        let _v = vb;
                        endless_sum(drops, late_ref, items_ref, started, signal_at)
                    },
                )
            });
            late.returned();
            assert_eq!(r, Err(Cancelled));
            let mapped = items.load(Ordering::SeqCst);
            assert!(mapped >= signal_at, "cancelled before the signal");
            assert_eq!(
                drops.count(),
                3,
                "a's, b's and the map's captures drop once"
            );
            drop_and_check_joined(pool, &exits);
            late.assert_none();
            assert_eq!(items.load(Ordering::SeqCst), mapped);
        },
    );
}

#[test]
fn cancel_stolen_b_2() {
    stolen_endless_b_on(2, 1000);
}

#[test]
fn cancel_stolen_b_8() {
    stolen_endless_b_on(8, 1000);
}

#[test]
fn cancel_stolen_b_64() {
    stolen_endless_b_on(64, 400);
}
