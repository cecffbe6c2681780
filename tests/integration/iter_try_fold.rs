//! `try_fold` and `try_fold_with`: fallible per-piece folds against std's sum on the usual lengths,
//! in and out of pools; a failure stops only its own piece (cut into single items, every other
//! piece succeeds); owned items dropped exactly once.

use crate::iter_common;

use forkjoin::prelude::*;
use iter_common::{assert_dropped_once, everywhere, random_inputs, tracked, LENGTHS};

#[test]
fn try_fold_without_failure_sums_like_std() {
    everywhere(|| {
        for v in random_inputs(41, 1000) {
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
fn owned_items_drop_once() {
    everywhere(|| {
        for n in [0usize, 1, 2, 100, 1025] {
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
        }
    });
}
