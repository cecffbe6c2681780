//! Waits that cannot deadlock on the user's own locks, however deeply regions nest.
//!
//! The patterns of `no_deadlock.rs`, placed under a chain of nested `scope`s: every scope
//! (and every job taken from a queue) opens a region, and a wait must accept exactly the work of
//! its own region at any depth. Each pattern runs [`runs`] times (200 under `FORKJOIN_SOAK`, 50 by
//! default) on pools of 1, 2, 8 and 64 threads under a watchdog that fails the test instead of
//! hanging it. With a region table of bounded depth, a wait past its end used the deepest region
//! that had an entry and accepted the enclosing work too: these patterns hung from about 58 nested
//! scopes.

use crate::common;

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use forkjoin::prelude::*;
use forkjoin::ThreadPool;

/// Runs per pattern, depth and pool size.
fn runs() -> usize {
    common::soak(200, 50)
}
/// The watchdog's limit for all runs of one pattern at one depth on one pool.
const LIMIT: Duration = Duration::from_secs(240);

/// Runs `pattern(pool, depth)` [`runs`] times on each pool size, under the watchdog.
fn on_pools(what: &'static str, depth: usize, pattern: fn(&ThreadPool, usize)) {
    for threads in [1, 2, 8, 64] {
        common::watchdog(
            &format!("{what}, {depth} scopes deep, on {threads} threads"),
            LIMIT,
            move || {
                let pool = common::pool(threads);
                for _ in 0..runs() {
                    pattern(&pool, depth);
                }
            },
        );
    }
}

/// Runs `f` inside `depth` nested scopes (each opens a region on the calling worker).
fn nested<R: Send>(depth: usize, f: impl FnOnce() -> R + Send) -> R {
    if depth == 0 {
        f()
    } else {
        forkjoin::scope(|_| nested(depth - 1, f))
    }
}

/// Work that the compiler cannot fold away: a dependent chain of `steps` multiply-adds.
fn work(seed: u64, steps: u64) -> u64 {
    (0..steps).fold(seed, |a, k| a.wrapping_mul(31).wrapping_add(black_box(k)))
}

/// README's example with a scope as the inner work, under `depth` nested scopes: 64 items each
/// lock one `Mutex` around a scope of four jobs. The worker waiting for that scope while it holds
/// the lock must not start another item, which would lock it again on the same thread.
fn a_lock_around_a_scope(pool: &ThreadPool, depth: usize) {
    let total = Mutex::new(0u64);
    pool.install(|| {
        nested(depth, || {
            (0..64u64).into_par_iter().for_each(|i| {
                let mut total = total.lock().unwrap();
                let inner = AtomicU64::new(0);
                forkjoin::scope(|s| {
                    for j in 0..4u64 {
                        let inner = &inner;
                        s.spawn(move |_| {
                            inner.fetch_add(work(i ^ j, 200), Ordering::Relaxed);
                        });
                    }
                });
                *total += inner.into_inner();
            })
        })
    });
    let expected: u64 = (0..64u64)
        .flat_map(|i| (0..4u64).map(move |j| work(i ^ j, 200)))
        .sum();
    assert_eq!(total.into_inner().unwrap(), expected);
}

#[test]
fn a_lock_around_a_scope_at_depth_0() {
    on_pools("a Mutex around a scope", 0, a_lock_around_a_scope);
}

#[test]
fn a_lock_around_a_scope_at_depth_57() {
    on_pools("a Mutex around a scope", 57, a_lock_around_a_scope);
}

#[test]
fn a_lock_around_a_scope_at_depth_61() {
    on_pools("a Mutex around a scope", 61, a_lock_around_a_scope);
}

#[test]
fn a_lock_around_a_scope_at_depth_100() {
    on_pools("a Mutex around a scope", 100, a_lock_around_a_scope);
}

#[test]
fn a_lock_around_a_scope_at_depth_500() {
    on_pools("a Mutex around a scope", 500, a_lock_around_a_scope);
}

/// The owner of an outer scope holds a lock and waits for an inner scope, whose body spawns a
/// long inner job and then eight jobs of the outer scope that take the lock. Those sit on top of
/// the owner's deque while the inner job runs: the inner wait must not run one (it would lock
/// again on the same thread); idle workers take them and wait for the lock instead.
fn an_outer_job_in_an_inner_wait(pool: &ThreadPool, depth: usize) {
    let lock = Mutex::new(0usize);
    let inner_done = AtomicUsize::new(0);
    pool.install(|| {
        nested(depth, || {
            forkjoin::scope(|outer| {
                let held = lock.lock().unwrap();
                forkjoin::scope(|inner| {
                    inner.spawn(|_| {
                        black_box(work(1, 20_000));
                        inner_done.fetch_add(1, Ordering::Relaxed);
                    });
                    for _ in 0..8 {
                        outer.spawn(|_| *lock.lock().unwrap() += 1);
                    }
                });
                drop(held);
            })
        })
    });
    assert_eq!(lock.into_inner().unwrap(), 8);
    assert_eq!(inner_done.into_inner(), 1);
}

#[test]
fn an_outer_job_in_an_inner_wait_at_depth_62() {
    on_pools(
        "an outer scope's job in an inner wait",
        62,
        an_outer_job_in_an_inner_wait,
    );
}

#[test]
fn an_outer_job_in_an_inner_wait_at_depth_500() {
    on_pools(
        "an outer scope's job in an inner wait",
        500,
        an_outer_job_in_an_inner_wait,
    );
}
