//! `try_for_each` and `while_some`, which stop at the first `Err` or `None`: against std on the
//! usual lengths, in and out of pools, with a failure at no, the first, a middle and the last
//! position; one of several failures is returned, every thread stops early, order is kept, panics
//! propagate.

use crate::iter_common;

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use forkjoin::prelude::*;
use iter_common::{everywhere, failure_positions, panic_message, random_inputs, LENGTHS};

#[test]
fn try_for_each_matches_std() {
    everywhere(|| {
        for v in random_inputs(7, 1000) {
            let n = v.len();
            for fail in failure_positions(n) {
                let is_bad = |i: usize| Some(i) == fail;
                let items: Vec<(usize, u64)> = v.iter().copied().enumerate().collect();
                let got =
                    items
                        .par_iter()
                        .try_for_each(|&(i, x)| if is_bad(i) { Err((i, x)) } else { Ok(()) });
                let expect =
                    items
                        .iter()
                        .try_for_each(|&(i, x)| if is_bad(i) { Err((i, x)) } else { Ok(()) });
                assert_eq!(got, expect, "n = {n}, failure at {fail:?}");
                let got = (0..n)
                    .into_par_iter()
                    .try_for_each(|i| (!is_bad(i)).then_some(()));
                assert_eq!(got, fail.map_or(Some(()), |_| None));
                // Unindexed input.
                let got = (0..n)
                    .into_par_iter()
                    .filter(|i| i % 2 == 0 || is_bad(*i))
                    .try_for_each(|i| if is_bad(i) { Err(i) } else { Ok(()) });
                assert_eq!(got, fail.map_or(Ok(()), Err));
            }
        }
    });
}

#[test]
fn try_for_each_returns_one_of_several_failures() {
    everywhere(|| {
        for &n in LENGTHS {
            let got =
                (0..n)
                    .into_par_iter()
                    .try_for_each(|i| if i % 100 == 99 { Err(i) } else { Ok(()) });
            match got {
                Ok(()) => assert!(n < 100),
                Err(i) => assert!(i % 100 == 99 && i < n),
            }
        }
    });
}

#[test]
fn try_for_each_stops_early_on_all_threads() {
    everywhere(|| {
        let n: usize = 1_000_000;
        let processed = AtomicUsize::new(0);
        let got = (0..n).into_par_iter().try_for_each(|i| {
            processed.fetch_add(1, Relaxed);
            if i == 0 {
                Err("first")
            } else {
                Ok(())
            }
        });
        assert_eq!(got, Err("first"));
        let processed = processed.into_inner();
        assert!(processed < n, "processed {processed} of {n}: no early exit");
    });
}

#[test]
fn try_for_each_panics_propagate() {
    everywhere(|| {
        let msg = panic_message(|| {
            let _ = (0..10_000u32).into_par_iter().try_for_each(|x| {
                assert!(x != 7_777, "expected: try_for_each");
                Ok::<(), ()>(())
            });
        });
        assert_eq!(msg, "expected: try_for_each");
    });
}

#[test]
fn while_some_keeps_order_and_stops_at_none() {
    everywhere(|| {
        for &n in LENGTHS {
            for stop in failure_positions(n) {
                let got: Vec<usize> = (0..n)
                    .into_par_iter()
                    .map(|i| (Some(i) != stop).then_some(i))
                    .while_some()
                    .collect();
                match stop {
                    None => assert_eq!(got, (0..n).collect::<Vec<_>>()),
                    Some(s) => {
                        assert!(got.windows(2).all(|w| w[0] < w[1]), "order kept");
                        assert!(got.iter().all(|&i| i < n && i != s));
                        if s == 0 && forkjoin::current_num_threads() == 1 {
                            assert!(got.is_empty(), "one thread stops at once");
                        }
                    }
                }
            }
        }
    });
}
