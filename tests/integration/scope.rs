//! `scope` / `Scope::spawn`: many spawns, nested spawns, borrowing, and waiting for every job.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use forkjoin::{scope, Scope};

use crate::common;
use common::pool;

fn ten_thousand_spawns_write_borrowed_slots() {
    let factor = 3usize; // borrowed by every job
    let mut slots = vec![0usize; 10_000];
    let counter = AtomicUsize::new(0);
    let r = scope(|s| {
        for (i, slot) in slots.iter_mut().enumerate() {
            let (factor, counter) = (&factor, &counter);
            s.spawn(move |_| {
                *slot = i * *factor;
                counter.fetch_add(1, Ordering::Relaxed);
            });
        }
        "scope result"
    });
    assert_eq!(r, "scope result");
    // scope returned: every job finished (the count is complete, every slot written).
    assert_eq!(counter.load(Ordering::Relaxed), 10_000);
    assert!(slots.iter().enumerate().all(|(i, &v)| v == 3 * i));
}

#[test]
fn scope_with_10k_spawns_from_outside_any_pool() {
    ten_thousand_spawns_write_borrowed_slots();
}

#[test]
fn scope_with_10k_spawns_inside_pools() {
    for n in [1, 2, 8] {
        pool(n).install(ten_thousand_spawns_write_borrowed_slots);
    }
}

/// Each job spawns two children until `depth` reaches 0: 2^(depth+1) - 1 jobs in all.
fn spawn_tree<'s>(s: &Scope<'s>, depth: u32, count: &'s AtomicUsize) {
    count.fetch_add(1, Ordering::Relaxed);
    if depth > 0 {
        s.spawn(move |s| spawn_tree(s, depth - 1, count));
        s.spawn(move |s| spawn_tree(s, depth - 1, count));
    }
}

#[test]
fn nested_spawns_are_all_awaited() {
    for n in [1, 3, 16] {
        let count = AtomicUsize::new(0);
        pool(n).install(|| scope(|s| spawn_tree(s, 13, &count)));
        assert_eq!(count.load(Ordering::Relaxed), (1 << 14) - 1, "{n} threads");
    }
}

#[test]
fn nested_scopes_and_joins_inside_spawns() {
    let total = AtomicUsize::new(0);
    pool(4).install(|| {
        scope(|s| {
            for _ in 0..50 {
                s.spawn(|_| {
                    let (a, b) = forkjoin::join(
                        || {
                            scope(|s2| {
                                for _ in 0..20 {
                                    s2.spawn(|_| {
                                        total.fetch_add(1, Ordering::Relaxed);
                                    });
                                }
                            });
                            1
                        },
                        || 2,
                    );
                    total.fetch_add(a + b, Ordering::Relaxed);
                });
            }
        })
    });
    assert_eq!(total.load(Ordering::Relaxed), 50 * (20 + 3));
}

#[test]
fn spawned_jobs_run_on_pool_workers() {
    let n = 3;
    let seen = Mutex::new(Vec::new());
    pool(n).install(|| {
        scope(|s| {
            for _ in 0..1_000 {
                s.spawn(|_| seen.lock().unwrap().push(forkjoin::current_thread_index()));
            }
        })
    });
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.len(), 1_000);
    assert!(
        seen.iter().all(|i| matches!(i, Some(i) if *i < n)),
        "every job runs on a worker of the pool"
    );
}

#[test]
fn scope_spawn_moves_owned_values_and_returns_borrowed_results() {
    let names: Vec<String> = (0..100).map(|i| format!("job-{i}")).collect();
    let lengths = Mutex::new(Vec::new());
    scope(|s| {
        for name in &names {
            let owned = name.clone();
            let lengths = &lengths;
            s.spawn(move |_| lengths.lock().unwrap().push(owned.len()));
        }
    });
    let mut lengths = lengths.into_inner().unwrap();
    lengths.sort();
    let mut expected: Vec<usize> = names.iter().map(String::len).collect();
    expected.sort();
    assert_eq!(lengths, expected);
}
