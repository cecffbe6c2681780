//! Waits that cannot deadlock on the user's locks, on real pools under shuttle: every outer item
//! holds one (shuttle) `Mutex` around a parallel call, and a worker that waits inside that call must
//! run only the call's own work. A worker that ran another outer item instead would lock the mutex
//! again on its own thread, which shuttle reports as a deadlock.
#![cfg(forkjoin_shuttle)]

use std::sync::Arc;

use forkjoin::prelude::*;
use shuttle::sync::Mutex;
use sim_tests::{drop_and_check_joined, explore, pool, schedules, Counter};

/// rayon #592: a `for_each` whose items lock one mutex around an inner parallel sum.
fn lock_around_join(workers: usize, default_schedules: usize) {
    explore(
        "lock around a join",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let total = Mutex::new(0u64);
            pool.install(|| {
                (0..12u64).into_par_iter().with_max_len(1).for_each(|i| {
                    let mut total = total.lock().unwrap();
                    let (a, b) = forkjoin::join(
                        || (0..8u64).into_par_iter().map(|x| x * i).sum::<u64>(),
                        || (8..16u64).into_par_iter().map(|x| x * i).sum::<u64>(),
                    );
                    *total += a + b;
                })
            });
            assert_eq!(*total.lock().unwrap(), (0..12u64).sum::<u64>() * 120);
            drop_and_check_joined(pool, &exits);
        },
    );
}

/// rayon #835: scope jobs lock one mutex around an inner scope.
fn lock_around_scope(workers: usize, default_schedules: usize) {
    explore(
        "lock around a scope",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let count = Mutex::new(0u64);
            pool.scope(|outer| {
                for _ in 0..8 {
                    outer.spawn(|_| {
                        let mut count = count.lock().unwrap();
                        let inner = std::sync::atomic::AtomicU64::new(0);
                        forkjoin::scope(|s| {
                            for j in 0..3u64 {
                                let inner = &inner;
                                s.spawn(move |_| {
                                    inner.fetch_add(j, std::sync::atomic::Ordering::Relaxed);
                                });
                            }
                        });
                        *count += inner.into_inner();
                    });
                }
            });
            assert_eq!(*count.lock().unwrap(), 8 * 3);
            drop_and_check_joined(pool, &exits);
        },
    );
}

/// README's example with a scope as the inner work, under `depth` nested scopes: each scope opens a
/// region on its worker, and the inner scope's wait must accept exactly its own jobs however deep.
fn lock_around_deep_scope(workers: usize, depth: usize, default_schedules: usize) {
    fn nested(depth: usize, f: &(dyn Fn() + Sync)) {
        if depth == 0 {
            f()
        } else {
            forkjoin::scope(|_| nested(depth - 1, f))
        }
    }
    explore(
        "lock around a deep scope",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let total = Mutex::new(0u64);
            pool.install(|| {
                nested(depth, &|| {
                    (0..8u64).into_par_iter().with_max_len(1).for_each(|i| {
                        let mut total = total.lock().unwrap();
                        let inner = std::sync::atomic::AtomicU64::new(0);
                        forkjoin::scope(|s| {
                            for j in 0..3u64 {
                                let inner = &inner;
                                s.spawn(move |_| {
                                    inner.fetch_add(i * j, std::sync::atomic::Ordering::Relaxed);
                                });
                            }
                        });
                        *total += inner.into_inner();
                    })
                })
            });
            assert_eq!(*total.lock().unwrap(), (0..8u64).sum::<u64>() * 3);
            drop_and_check_joined(pool, &exits);
        },
    );
}

#[test]
fn lock_around_join_2() {
    lock_around_join(2, 300);
}

#[test]
fn lock_around_join_8() {
    lock_around_join(8, 300);
}

#[test]
fn lock_around_join_64() {
    lock_around_join(64, 100);
}

#[test]
fn lock_around_scope_2() {
    lock_around_scope(2, 300);
}

#[test]
fn lock_around_scope_8() {
    lock_around_scope(8, 300);
}

#[test]
fn lock_around_scope_64() {
    lock_around_scope(64, 100);
}

#[test]
fn lock_around_deep_scope_2() {
    lock_around_deep_scope(2, 70, 200);
}

#[test]
fn lock_around_deep_scope_8() {
    lock_around_deep_scope(8, 70, 200);
}

#[test]
fn lock_around_deep_scope_64() {
    lock_around_deep_scope(64, 70, 50);
}
