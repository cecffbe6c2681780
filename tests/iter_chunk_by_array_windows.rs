//! `par_chunk_by`, `par_chunk_by_mut` and `par_array_windows`: against std's `chunk_by`,
//! `chunk_by_mut` and `windows` on the usual lengths, in and out of pools, with predicates that
//! cut everywhere, nowhere and in between; a panicking predicate propagates.

mod iter_common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use forkjoin::prelude::*;
use iter_common::{everywhere, Rng, LENGTHS};

fn inputs(modulo: u64) -> Vec<Vec<u64>> {
    let mut rng = Rng::new(61);
    LENGTHS.iter().map(|&n| rng.vec(n, modulo)).collect()
}

#[test]
fn chunk_by_matches_std() {
    everywhere(|| {
        type Pred = fn(&u64, &u64) -> bool;
        let preds: [Pred; 5] = [
            |a, b| a == b,
            |a, b| a <= b,
            |_, _| true,
            |_, _| false,
            |a, b| (a + b) % 7 != 0,
        ];
        for modulo in [2, 3, 1000] {
            for v in inputs(modulo) {
                for pred in preds {
                    let expected: Vec<&[u64]> = v.chunk_by(pred).collect();
                    let got: Vec<&[u64]> = v.par_chunk_by(pred).collect();
                    assert_eq!(got, expected);
                    assert_eq!(v.par_chunk_by(pred).count(), expected.len());
                    let lens: usize = v.par_chunk_by(pred).map(<[u64]>::len).sum();
                    assert_eq!(lens, v.len());
                }
            }
        }
    });
}

#[test]
fn chunk_by_mut_matches_std() {
    everywhere(|| {
        for v in inputs(3) {
            let mut expected = v.clone();
            for (i, run) in expected.chunk_by_mut(|a, b| a == b).enumerate() {
                run.reverse();
                run[0] += 10 * i as u64;
            }
            let mut got = v.clone();
            let runs: Vec<&mut [u64]> = got.par_chunk_by_mut(|a, b| a == b).collect();
            runs.into_par_iter().enumerate().for_each(|(i, run)| {
                run.reverse();
                run[0] += 10 * i as u64;
            });
            assert_eq!(got, expected);
            let mut all = v.clone();
            all.par_chunk_by_mut(|_, _| false)
                .for_each(|run| run[0] += 1);
            assert_eq!(all, v.iter().map(|x| x + 1).collect::<Vec<_>>());
        }
    });
}

#[test]
fn a_panicking_predicate_propagates_and_the_slice_stays_whole() {
    everywhere(|| {
        let mut v: Vec<u64> = (0..10_000).map(|i| i / 3).collect();
        let res = catch_unwind(AssertUnwindSafe(|| {
            v.par_chunk_by_mut(|a, b| {
                assert!(*a != 2000, "boom");
                a == b
            })
            .for_each(|run| run.reverse())
        }));
        assert!(res.is_err());
        v.sort_unstable();
        assert_eq!(v, (0..10_000).map(|i| i / 3).collect::<Vec<u64>>());
    });
}

fn check_array_windows<const N: usize>(v: &[u64]) {
    let expected: Vec<&[u64; N]> = v.windows(N).map(|w| w.try_into().unwrap()).collect();
    assert_eq!(v.par_array_windows::<N>().len(), expected.len());
    assert_eq!(v.par_array_windows::<N>().collect::<Vec<_>>(), expected);
    let cut: Vec<&[u64; N]> = v.par_array_windows::<N>().with_max_len(1).collect();
    assert_eq!(cut, expected);
    let rev: Vec<&[u64; N]> = v.par_array_windows::<N>().rev().collect();
    assert_eq!(rev, expected.iter().rev().copied().collect::<Vec<_>>());
    let sums: Vec<(usize, u64)> = v
        .par_array_windows::<N>()
        .map(|w| w.iter().sum())
        .enumerate()
        .collect();
    let model: Vec<(usize, u64)> = v.windows(N).map(|w| w.iter().sum()).enumerate().collect();
    assert_eq!(sums, model);
}

#[test]
fn array_windows_match_std() {
    everywhere(|| {
        for v in inputs(1000) {
            check_array_windows::<1>(&v);
            check_array_windows::<2>(&v);
            check_array_windows::<3>(&v);
            check_array_windows::<64>(&v);
        }
    });
}

#[test]
fn zero_sized_array_windows_panic() {
    let v = [1u8, 2, 3];
    assert!(catch_unwind(|| v.par_array_windows::<0>().count()).is_err());
}
