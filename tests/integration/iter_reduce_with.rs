//! `reduce_with`: against std's `reduce` on the usual lengths, in and out of pools, with an
//! operation that is not commutative (pieces combine in order) and after a `filter` (pieces may be
//! empty); a panic in the operation propagates.

use crate::iter_common;

use forkjoin::prelude::*;
use iter_common::{everywhere, panic_message, random_inputs};

#[test]
fn reduce_with_matches_std_reduce() {
    everywhere(|| {
        for v in random_inputs(7, 1000) {
            assert_eq!(
                v.par_iter().copied().reduce_with(|a, b| a.wrapping_add(b)),
                v.iter().copied().reduce(|a, b| a.wrapping_add(b))
            );
            // Not commutative: pieces must be combined in order.
            let s: Option<String> = v
                .par_iter()
                .map(|x| x.to_string())
                .reduce_with(|a, b| a + "," + &b);
            let e: Option<String> = v.iter().map(|x| x.to_string()).reduce(|a, b| a + "," + &b);
            assert_eq!(s, e);
            // Unindexed input, where pieces may be empty.
            assert_eq!(
                v.par_iter()
                    .filter(|&&x| x % 7 == 0)
                    .copied()
                    .reduce_with(u64::max),
                v.iter().filter(|&&x| x % 7 == 0).copied().reduce(u64::max)
            );
        }
    });
}

#[test]
fn reduce_with_panics_propagate() {
    everywhere(|| {
        let msg = panic_message(|| {
            (0..10_000u32).into_par_iter().reduce_with(|a, b| {
                assert!(a != 4_321 && b != 4_321, "expected: reduce_with");
                a.max(b)
            });
        });
        assert_eq!(msg, "expected: reduce_with");
    });
}
