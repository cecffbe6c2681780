//! Waits that cannot deadlock on the user's own locks.
//!
//! Each pattern below is deadlock-free when run sequentially, and hung rayon (and forkjoin before
//! its waits ran only the work they wait for) in some runs: a worker that holds a lock and waits
//! inside a parallel call used to run an unrelated job that takes the same lock on the same thread.
//! Each runs [`runs`] times (1,000 under `FORKJOIN_SOAK`, 100 by default) on pools of 2 and 8
//! threads, and a tenth as often on a pool of 96 (over the 64 workers from which a pool's joins turn
//! latent, `docs/architecture.md`, "latent join"; at the full count its runs added about 40 s to the
//! suite on 2 cores, a tenth adds 4 s), under a watchdog that fails the test instead of hanging it.

use crate::common;

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use forkjoin::prelude::*;
use forkjoin::ThreadPool;

/// Runs per pattern on a pool of `threads`.
fn runs(threads: usize) -> usize {
    let runs = common::soak(1000, 100);
    if threads > 8 {
        runs / 10
    } else {
        runs
    }
}
/// The watchdog's limit for all runs of one pattern on one pool (they take well under a second
/// each when nothing hangs).
const LIMIT: Duration = Duration::from_secs(240);

fn on_pools(what: &'static str, pattern: fn(&ThreadPool)) {
    for threads in [2, 8, 96] {
        common::watchdog(&format!("{what} on {threads} threads"), LIMIT, move || {
            let pool = common::pool(threads);
            for _ in 0..runs(threads) {
                pattern(&pool);
            }
        });
    }
}

/// Work that the compiler cannot fold away: a dependent chain of `steps` multiply-adds.
fn work(seed: u64, steps: u64) -> u64 {
    (0..steps).fold(seed, |a, k| a.wrapping_mul(31).wrapping_add(black_box(k)))
}

/// rayon #592 (with #1181, #1205, #1174): 2,000 outer items each lock one `Mutex` around an inner
/// parallel sum. A worker that waits for the inner sum's stolen half while it holds the lock must
/// not start another outer item, which would lock it again on the same thread.
#[test]
fn a_lock_held_around_a_parallel_call() {
    fn pattern(pool: &ThreadPool) {
        let total = Mutex::new(0u64);
        pool.install(|| {
            (0..2000u64).into_par_iter().for_each(|i| {
                let mut total = total.lock().unwrap();
                *total += (0..1000u64)
                    .into_par_iter()
                    .map(|x| black_box(x ^ i))
                    .sum::<u64>();
            })
        });
        let expected: u64 = (0..2000u64)
            .map(|i| (0..1000u64).map(|x| x ^ i).sum::<u64>())
            .sum();
        assert_eq!(total.into_inner().unwrap(), expected);
    }
    on_pools("a Mutex around a parallel sum", pattern);
}

/// rayon #1251: `OnceLock::get_or_init` whose initializer runs a parallel iterator, called from
/// inside a parallel iterator. The initializing worker must not start another item, which would
/// wait for the same `OnceLock` on the same thread.
#[test]
fn a_once_lock_initialised_by_a_parallel_iterator_inside_one() {
    fn pattern(pool: &ThreadPool) {
        let once = OnceLock::new();
        let init = || {
            (0..8u64)
                .into_par_iter()
                .with_max_len(1)
                .map(|j| work(j, 50_000))
                .sum::<u64>()
        };
        let sum: u64 = pool.install(|| {
            (0..8u64)
                .into_par_iter()
                .with_max_len(1)
                .map(|i| i ^ *once.get_or_init(init))
                .sum()
        });
        let value = init();
        assert_eq!(sum, (0..8u64).map(|i| i ^ value).sum::<u64>());
    }
    on_pools("OnceLock::get_or_init with a parallel initializer", pattern);
}

/// The same with a `scope` in the initializer: its owner, waiting for the scope's jobs, must not
/// pop the outer items queued below them.
#[test]
fn a_once_lock_initialised_by_a_scope_inside_a_parallel_iterator() {
    fn pattern(pool: &ThreadPool) {
        let once = OnceLock::new();
        let init = || {
            let total = AtomicU64::new(0);
            forkjoin::scope(|s| {
                for j in 0..8u64 {
                    let total = &total;
                    s.spawn(move |_| {
                        total.fetch_add(work(j, 1000), Ordering::Relaxed);
                    });
                }
            });
            total.into_inner()
        };
        let sum: u64 = pool.install(|| {
            (0..16u64)
                .into_par_iter()
                .with_max_len(1)
                .map(|i| i ^ *once.get_or_init(init))
                .sum()
        });
        let value = init();
        assert_eq!(sum, (0..16u64).map(|i| i ^ value).sum::<u64>());
    }
    on_pools("OnceLock::get_or_init with a scope inside", pattern);
}

/// rayon #835: 2,000 jobs of an outer scope each lock a `Mutex` and, holding it, wait for an
/// inner scope. The inner scope's owner must not run another outer job, which takes the lock it
/// holds.
#[test]
fn a_lock_held_around_a_nested_scope() {
    fn pattern(pool: &ThreadPool) {
        let count = Mutex::new(0usize);
        pool.scope(|outer| {
            for _ in 0..2000 {
                outer.spawn(|_| {
                    let mut count = count.lock().unwrap();
                    let inner_sum = AtomicU64::new(0);
                    forkjoin::scope(|inner| {
                        for j in 0..4u64 {
                            let inner_sum = &inner_sum;
                            inner.spawn(move |_| {
                                inner_sum.fetch_add(work(j, 1000), Ordering::Relaxed);
                            });
                        }
                    });
                    let expected: u64 = (0..4u64).map(|j| work(j, 1000)).sum();
                    assert_eq!(inner_sum.into_inner(), expected);
                    *count += 1;
                });
            }
        });
        assert_eq!(count.into_inner().unwrap(), 2000);
    }
    on_pools("a Mutex around a nested scope", pattern);
}

/// rayon #1142 (PR #1311): `par_bridge` over an iterator whose `next` itself runs parallel work.
/// The bridge locks its iterator while it calls `next`; the worker holding that lock and waiting
/// for the inner work must not pull from the bridge again.
#[test]
fn par_bridge_over_an_iterator_that_runs_parallel_work() {
    fn pattern(pool: &ThreadPool) {
        let sum: u64 = pool.install(|| {
            (0..64u64)
                .map(|i| {
                    (0..20_000u64)
                        .into_par_iter()
                        .map(|x| black_box(x * i))
                        .sum::<u64>()
                })
                .par_bridge()
                .sum()
        });
        assert_eq!(sum, (0..64u64).sum::<u64>() * (20_000 * 19_999 / 2));
    }
    on_pools("par_bridge over parallel work", pattern);
}
