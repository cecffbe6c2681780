//! `fold_chunks` and `fold_chunks_with`: against std's `chunks` on the usual lengths and chunk
//! sizes, in and out of pools; cut at every position, reversed and zipped, in order within a chunk;
//! a zero chunk size panics; owned items dropped exactly once, also after a panic.

use crate::iter_common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use forkjoin::prelude::*;
use iter_common::{assert_dropped_once, everywhere, random_inputs, tracked};

#[test]
fn fold_chunks_matches_std_chunks() {
    everywhere(|| {
        for v in random_inputs(41, 1000) {
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
