//! `try_fold`, `try_fold_with`, `fold_chunks`, `fold_chunks_with`: against std on the usual
//! lengths, in and out of pools; chunk folds cut at every position, reversed and zipped; a failure
//! stops only its own piece; owned items dropped exactly once, also after a panic.

mod iter_common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use forkjoin::prelude::*;
use iter_common::{assert_dropped_once, everywhere, tracked, Rng, LENGTHS};

fn inputs() -> Vec<Vec<u64>> {
    let mut rng = Rng::new(41);
    LENGTHS.iter().map(|&n| rng.vec(n, 1000)).collect()
}

#[test]
fn try_fold_without_failure_sums_like_std() {
    everywhere(|| {
        for v in inputs() {
            let total: u64 = v.iter().sum();
            let pieces: Option<Vec<u64>> = v
                .par_iter()
                .try_fold(|| 0u64, |a, &x| a.checked_add(x))
                .collect();
            assert_eq!(pieces.unwrap().iter().sum::<u64>(), total);
            let pieces: Result<Vec<u64>, u64> = v
                .par_iter()
                .with_max_len(1)
                .try_fold_with(0u64, |a, &x| Ok(a + x))
                .collect();
            assert_eq!(pieces.unwrap().iter().sum::<u64>(), total);
        }
    });
}

#[test]
fn a_failure_stops_only_its_own_piece() {
    everywhere(|| {
        for &n in &LENGTHS[1..] {
            for victim in [0, n / 2, n - 1] {
                let pieces: Vec<Result<usize, usize>> = (0..n)
                    .into_par_iter()
                    .try_fold(|| 0, |a, x| if x == victim { Err(x) } else { Ok(a + x) })
                    .collect();
                let failures: Vec<usize> = pieces.iter().filter_map(|p| p.err()).collect();
                assert_eq!(failures, [victim]);
                let pieces: Vec<Option<usize>> = (0..n)
                    .into_par_iter()
                    .with_max_len(1)
                    .try_fold_with(0, |a, x| (x != victim).then_some(a + x))
                    .collect();
                assert_eq!(pieces.iter().filter(|p| p.is_none()).count(), 1);
                // Cut into single items: every other piece succeeds with its item.
                let ok: usize = pieces.iter().flatten().sum();
                assert_eq!(ok, n * (n - 1) / 2 - victim);
            }
        }
    });
}

#[test]
fn fold_chunks_matches_std_chunks() {
    everywhere(|| {
        for v in inputs() {
            for size in [1, 2, 3, 7, 64, 1000] {
                let expected: Vec<u64> = v.chunks(size).map(|c| c.iter().sum()).collect();
                let it = || v.par_iter().fold_chunks(size, || 0, |a, &x| a + x);
                assert_eq!(it().len(), expected.len());
                assert_eq!(it().collect::<Vec<_>>(), expected);
                assert_eq!(it().with_max_len(1).collect::<Vec<_>>(), expected);
                let rev: Vec<u64> = it().rev().collect();
                assert_eq!(rev, expected.iter().rev().copied().collect::<Vec<_>>());
                let zipped: Vec<(u64, usize)> = it().zip(0..usize::MAX).with_max_len(2).collect();
                assert_eq!(
                    zipped,
                    expected.iter().copied().zip(0..).collect::<Vec<_>>()
                );
                // Order within a chunk: a non-commutative fold.
                let strings: Vec<String> = v
                    .par_iter()
                    .fold_chunks_with(size, String::new(), |s, x| s + &x.to_string() + ",")
                    .with_max_len(1)
                    .rev()
                    .collect();
                let expected: Vec<String> = v
                    .chunks(size)
                    .rev()
                    .map(|c| c.iter().map(|x| x.to_string() + ",").collect())
                    .collect();
                assert_eq!(strings, expected);
            }
        }
    });
}

#[test]
fn zero_chunk_sizes_panic() {
    assert!(catch_unwind(|| drop((0..3).into_par_iter().fold_chunks(0, || 0, |a, _| a))).is_err());
    assert!(
        catch_unwind(|| drop((0..3).into_par_iter().fold_chunks_with(0, 0, |a, _| a))).is_err()
    );
}

#[test]
fn owned_items_drop_once() {
    everywhere(|| {
        for n in [0usize, 1, 2, 100, 1025] {
            let (items, drops) = tracked(n);
            let chunks: Vec<Vec<_>> = items
                .into_par_iter()
                .fold_chunks(3, Vec::new, |mut c, t| {
                    c.push(t);
                    c
                })
                .collect();
            assert_eq!(chunks.len(), n.div_ceil(3));
            drop(chunks);
            assert_dropped_once(&drops, "fold_chunks");

            let (items, drops) = tracked(n);
            let pieces: Vec<Option<usize>> = items
                .into_par_iter()
                .try_fold(|| 0, |a, t| (t.id != n / 2).then_some(a + 1))
                .collect();
            assert_eq!(
                pieces.iter().filter(|p| p.is_none()).count(),
                usize::from(n > 0)
            );
            assert_dropped_once(&drops, "try_fold");

            for victim in [0, n / 2, n.saturating_sub(1)]
                .into_iter()
                .filter(|_| n > 0)
            {
                let (items, drops) = tracked(n);
                let res = catch_unwind(AssertUnwindSafe(|| {
                    items
                        .into_par_iter()
                        .fold_chunks(
                            4,
                            || 0,
                            |a, t| {
                                assert!(t.id != victim, "boom");
                                a + 1
                            },
                        )
                        .for_each(drop)
                }));
                assert!(res.is_err());
                assert_dropped_once(&drops, "fold_chunks panic");
            }
        }
    });
}
