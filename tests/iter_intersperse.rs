//! `intersperse`: against a sequential model on the usual lengths, in and out of pools, indexed
//! (cut at every position, `rev`, `zip_eq`, `enumerate`) and unindexed; owned items dropped
//! exactly once, also when a closure panics midway.

mod iter_common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use forkjoin::prelude::*;
use iter_common::{assert_dropped_once, drop_counters, everywhere, Rng, Tracked, LENGTHS};

fn inputs() -> Vec<Vec<u64>> {
    let mut rng = Rng::new(29);
    LENGTHS.iter().map(|&n| rng.vec(n, 1000)).collect()
}

/// `sep` between every two neighbours of `v`.
fn model<T: Clone>(v: &[T], sep: T) -> Vec<T> {
    let mut out = Vec::new();
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            out.push(sep.clone());
        }
        out.push(x.clone());
    }
    out
}

#[test]
fn indexed_intersperse_matches_the_model() {
    everywhere(|| {
        for v in inputs() {
            let expected = model(&v, u64::MAX);
            let it = || v.par_iter().copied().intersperse(u64::MAX);
            assert_eq!(it().len(), expected.len());
            assert_eq!(it().collect::<Vec<_>>(), expected);
            assert_eq!(it().with_max_len(1).collect::<Vec<_>>(), expected);
            let rev: Vec<u64> = it().rev().collect();
            assert_eq!(rev, expected.iter().rev().copied().collect::<Vec<_>>());
            let enumerated: Vec<(usize, u64)> = it().enumerate().with_max_len(3).collect();
            assert_eq!(
                enumerated,
                expected.iter().copied().enumerate().collect::<Vec<_>>()
            );
            // Through a producer and cut everywhere: every position pairs with its index.
            it().zip_eq(0..expected.len())
                .with_max_len(1)
                .for_each(|(x, i)| assert_eq!(x, expected[i]));
            // Twice: the second separator goes between the first's output items.
            let twice: Vec<u64> = it().intersperse(u64::MAX - 1).collect();
            assert_eq!(twice, model(&expected, u64::MAX - 1));
        }
    });
}

#[test]
fn unindexed_intersperse_matches_the_model() {
    everywhere(|| {
        for v in inputs() {
            let odd: Vec<u64> = v.iter().copied().filter(|x| x % 2 == 1).collect();
            let expected = model(&odd, 0);
            let got: Vec<u64> = v
                .par_iter()
                .copied()
                .filter(|x| x % 2 == 1)
                .intersperse(0)
                .collect();
            assert_eq!(got, expected);
            let sum: u64 = v
                .par_iter()
                .copied()
                .filter(|x| x % 2 == 1)
                .intersperse(1)
                .sum();
            assert_eq!(sum, model(&odd, 1).iter().sum::<u64>());
            let count = v
                .par_iter()
                .flat_map_iter(|&x| [x, x])
                .intersperse(7)
                .count();
            assert_eq!(count, (4 * v.len()).saturating_sub(1));
        }
        // Pieces that pass nothing on (here all but the last few) must not add separators.
        for n in [1u64, 2, 10, 1000] {
            for keep_from in [0, n / 2, n - 1] {
                let got: Vec<u64> = (0..n)
                    .into_par_iter()
                    .with_max_len(1)
                    .filter(|&x| x >= keep_from && x % 3 != 1)
                    .intersperse(u64::MAX)
                    .collect();
                let kept: Vec<u64> = (keep_from..n).filter(|x| x % 3 != 1).collect();
                assert_eq!(got, model(&kept, u64::MAX), "n {n}, from {keep_from}");
            }
        }
        let words: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
        let s: String = words.join(",").par_split(',').intersperse(";").collect();
        assert_eq!(s, words.join(";"));
        let empty: Vec<u64> = (0..0u64).into_par_iter().intersperse(9).collect();
        assert!(empty.is_empty());
    });
}

#[test]
fn owned_items_and_separators_drop_once() {
    everywhere(|| {
        for n in [0usize, 1, 2, 65, 1025] {
            let drops = drop_counters(n + 1);
            let items: Vec<Arc<Tracked>> = (0..n)
                .map(|id| Arc::new(Tracked::new(id, &drops)))
                .collect();
            let sep = Arc::new(Tracked::new(n, &drops));
            let out: Vec<Arc<Tracked>> = items.into_par_iter().intersperse(sep).collect();
            assert_eq!(out.len(), (2 * n).saturating_sub(1));
            let ids: Vec<usize> = out.iter().map(|t| t.id).collect();
            assert_eq!(ids, model(&(0..n).collect::<Vec<_>>(), n));
            drop(out);
            assert_dropped_once(&drops, "intersperse collect");
        }
    });
}

#[test]
fn a_panic_midway_drops_everything_once() {
    everywhere(|| {
        for n in [1usize, 2, 100, 1025] {
            for victim in [0, n / 2, n - 1] {
                let drops = drop_counters(n + 1);
                let items: Vec<Arc<Tracked>> = (0..n)
                    .map(|id| Arc::new(Tracked::new(id, &drops)))
                    .collect();
                let sep = Arc::new(Tracked::new(n, &drops));
                let res = catch_unwind(AssertUnwindSafe(|| {
                    let _: Vec<Arc<Tracked>> = items
                        .into_par_iter()
                        .intersperse(sep)
                        .map(|t| {
                            assert!(t.id != victim, "boom");
                            t
                        })
                        .collect();
                }));
                assert!(res.is_err());
                assert_dropped_once(&drops, "intersperse panic");
            }
        }
    });
}
