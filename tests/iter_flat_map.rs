//! `flat_map` and `flatten` with parallel inner iterators: against std's `flat_map`/`flatten` on
//! the usual lengths, in and out of pools; long and nested inner iterators; early exit through
//! them; owned items dropped exactly once; panics midway.

mod iter_common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use forkjoin::prelude::*;
use forkjoin::ThreadPoolBuilder;
use iter_common::{assert_dropped_once, drop_counters, everywhere, Rng, Tracked, LENGTHS};

fn inputs() -> Vec<Vec<u64>> {
    let mut rng = Rng::new(23);
    LENGTHS.iter().map(|&n| rng.vec(n, 9)).collect()
}

#[test]
fn flat_map_and_flatten_match_std() {
    everywhere(|| {
        for v in inputs() {
            let inner = |x: u64| (0..x).map(move |j| x * 100 + j);
            let expected: Vec<u64> = v.iter().flat_map(|&x| inner(x)).collect();
            let got: Vec<u64> = v
                .par_iter()
                .flat_map(|&x| (0..x).into_par_iter().map(move |j| x * 100 + j))
                .collect();
            assert_eq!(got, expected);
            // Through an unindexed consumer chain, and a non-commutative reduction (order).
            let s = v
                .par_iter()
                .flat_map(|&x| (0..x).into_par_iter().map(move |j| x * 100 + j))
                .filter(|y| y % 3 != 0)
                .map(|y| y.to_string())
                .reduce(String::new, |a, b| a + &b);
            let t: String = expected
                .iter()
                .filter(|y| *y % 3 != 0)
                .map(|y| y.to_string())
                .collect();
            assert_eq!(s, t);
            assert_eq!(
                v.par_iter().flat_map(|&x| (0..x).into_par_iter()).count(),
                v.iter().map(|&x| x as usize).sum::<usize>()
            );
            // Inner iterators of every kind: owned vectors, options, slices.
            let nested: Vec<Vec<u64>> = v.iter().map(|&x| inner(x).collect()).collect();
            let flat: Vec<u64> = nested.clone().into_par_iter().flatten().collect();
            assert_eq!(flat, expected);
            let flat: Vec<&u64> = nested.par_iter().flatten().collect();
            assert_eq!(flat, expected.iter().collect::<Vec<_>>());
            let odd: Vec<u64> = v
                .par_iter()
                .flat_map(|&x| (x % 2 == 1).then_some(x))
                .collect();
            assert_eq!(
                odd,
                v.iter().copied().filter(|x| x % 2 == 1).collect::<Vec<_>>()
            );
            // Nested twice.
            let deep: u64 = v
                .par_iter()
                .flat_map(|&x| {
                    (0..x)
                        .into_par_iter()
                        .flat_map(move |j| (0..j).into_par_iter().map(move |k| x + j * k))
                })
                .sum();
            let s: u64 = v
                .iter()
                .flat_map(|&x| (0..x).flat_map(move |j| (0..j).map(move |k| x + j * k)))
                .sum();
            assert_eq!(deep, s);
            // fold after flat_map: one accumulator per piece, whatever the pieces.
            let total = v
                .par_iter()
                .flat_map(|&x| (0..x).into_par_iter())
                .fold(|| 0u64, |a, b| a + b)
                .sum::<u64>();
            assert_eq!(total, v.iter().map(|&x| x * x.saturating_sub(1) / 2).sum());
        }
    });
}

/// A few outer items with long inner iterators: the inner ones are split too, and the result
/// is still ordered.
#[test]
fn long_inner_iterators() {
    everywhere(|| {
        for outer in [1u64, 2, 3, 7] {
            let n = 300_000u64;
            let got: Vec<u64> = (0..outer)
                .into_par_iter()
                .flat_map(|i| (0..n).into_par_iter().map(move |j| i * n + j))
                .collect();
            assert_eq!(got, (0..outer * n).collect::<Vec<_>>());
        }
    });
}

/// Early exit through flat_map: a flat iterator of 10^18 items, as in rayon's `octillion` tests
/// (10^27 there).
#[test]
fn ordered_finds_stop_early_through_flat_map() {
    let flat = || {
        (0u32..1_000_000)
            .into_par_iter()
            .with_max_len(1_000)
            .map(|i| u64::from(i) * 1_000_000_000_000)
            .flat_map(|i| {
                (0u64..1_000_000_000_000)
                    .into_par_iter()
                    .with_max_len(1_000)
                    .map(move |j| i + j)
            })
    };
    let end = 1_000_000u64 * 1_000_000_000_000;
    assert_eq!(flat().find_first(|_| true), Some(0));
    assert_eq!(flat().find_first(|x| x % 12_345 == 777), Some(777));
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_eq!(pool.install(|| flat().find_last(|_| true)), Some(end - 1));
    assert!(pool
        .install(|| flat().find_any(|&x| x > end / 2))
        .is_some_and(|x| x > end / 2));
}

/// `n` tracked items in groups of 0, 1, 2, ... items.
fn nested_tracked(n: usize) -> (Vec<Vec<Tracked>>, Arc<Vec<AtomicUsize>>) {
    let drops = drop_counters(n);
    let mut groups = Vec::new();
    let mut id = 0;
    while id < n {
        let len = (groups.len() % 5).min(n - id);
        groups.push((id..id + len).map(|id| Tracked::new(id, &drops)).collect());
        id += len;
    }
    (groups, drops)
}

#[test]
fn owned_items_are_dropped_exactly_once() {
    everywhere(|| {
        for &n in LENGTHS {
            let (v, drops) = nested_tracked(n);
            let out: Vec<Tracked> = v.into_par_iter().flatten().collect();
            assert!(out.iter().enumerate().all(|(i, t)| t.id == i));
            drop(out);
            assert_dropped_once(&drops, "flatten+collect");

            let (v, drops) = nested_tracked(n);
            let hit = v
                .into_par_iter()
                .flat_map(|g| g.into_par_iter().filter(|t| t.id % 3 == 1))
                .find_first(|t| t.id >= n / 2);
            let expected = (n / 2..n).find(|id| id % 3 == 1);
            assert_eq!(hit.as_ref().map(|t| t.id), expected);
            drop(hit);
            assert_dropped_once(&drops, "flat_map+find_first");

            let (v, drops) = nested_tracked(n);
            let hit = v.into_par_iter().flatten().find_any(|t| t.id == n / 3);
            assert_eq!(hit.as_ref().map(|t| t.id), (n > 0).then_some(n / 3));
            drop(hit);
            assert_dropped_once(&drops, "flatten+find_any");
        }
    });
}

#[test]
fn a_panic_midway_propagates_and_drops_every_item_once() {
    everywhere(|| {
        for &n in &[1usize, 2, 100, 1025, 65_537] {
            for victim in [0, n / 2, n - 1] {
                let (v, drops) = nested_tracked(n);
                let err = catch_unwind(AssertUnwindSafe(|| {
                    v.into_par_iter()
                        .flatten()
                        .map(|t| {
                            if t.id == victim {
                                panic!("boom at {}", t.id);
                            }
                            t
                        })
                        .collect::<Vec<_>>()
                }))
                .expect_err("the panic must propagate");
                let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
                assert_eq!(msg, format!("boom at {victim}"));
                assert_dropped_once(&drops, "flatten panic");

                // A panic in the outer closure.
                let (v, drops) = nested_tracked(n);
                let res = catch_unwind(AssertUnwindSafe(|| {
                    v.into_par_iter()
                        .flat_map(|g| {
                            assert!(!g.iter().any(|t| t.id == victim), "outer boom");
                            g
                        })
                        .for_each(drop)
                }));
                assert!(res.is_err());
                assert_dropped_once(&drops, "flat_map outer panic");
            }
        }
    });
}
