//! `collect` into `Result<C, E>`, `Option<C>` and `()`: against std on the usual lengths, in and
//! out of pools, with a failure at no, the first, a middle and the last position; one of several
//! errors is returned, every thread stops early, owned items are dropped exactly once, panics
//! propagate.

use crate::iter_common;

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use forkjoin::prelude::*;
use iter_common::{everywhere, failure_positions, panic_message, random_inputs, LENGTHS};

#[test]
fn collect_into_unit_runs_every_item() {
    everywhere(|| {
        for &n in LENGTHS {
            let count = AtomicUsize::new(0);
            let () = (0..n)
                .into_par_iter()
                .map(|_| {
                    count.fetch_add(1, Relaxed);
                })
                .collect();
            assert_eq!(count.into_inner(), n);
        }
    });
}

#[test]
fn collect_into_result_and_option_matches_std() {
    everywhere(|| {
        for v in random_inputs(7, 1000) {
            let n = v.len();
            for fail in failure_positions(n) {
                let check = |i: usize, x: u64| {
                    if Some(i) == fail {
                        Err(format!("bad {i}"))
                    } else {
                        Ok(x * 2)
                    }
                };
                let items: Vec<(usize, u64)> = v.iter().copied().enumerate().collect();
                let got: Result<Vec<u64>, String> =
                    items.par_iter().map(|&(i, x)| check(i, x)).collect();
                let expect: Result<Vec<u64>, String> =
                    items.iter().map(|&(i, x)| check(i, x)).collect();
                assert_eq!(got, expect, "n = {n}, failure at {fail:?}");
                let got: Option<Vec<u64>> =
                    items.par_iter().map(|&(i, x)| check(i, x).ok()).collect();
                let expect: Option<Vec<u64>> =
                    items.iter().map(|&(i, x)| check(i, x).ok()).collect();
                assert_eq!(got, expect);
                // Other collections, and an unindexed input.
                let got: Result<String, String> = items
                    .par_iter()
                    .filter(|(i, _)| i % 3 != 1)
                    .map(|&(i, x)| check(i, x).map(|y| char::from(b'a' + (y % 26) as u8)))
                    .collect();
                let expect: Result<String, String> = items
                    .iter()
                    .filter(|(i, _)| i % 3 != 1)
                    .map(|&(i, x)| check(i, x).map(|y| char::from(b'a' + (y % 26) as u8)))
                    .collect();
                assert_eq!(got, expect);
                let got: Option<std::collections::BTreeSet<u64>> =
                    items.par_iter().map(|&(i, x)| check(i, x).ok()).collect();
                let expect: Option<std::collections::BTreeSet<u64>> =
                    items.iter().map(|&(i, x)| check(i, x).ok()).collect();
                assert_eq!(got, expect);
            }
        }
    });
}

#[test]
fn collect_into_result_returns_one_of_several_errors() {
    everywhere(|| {
        for &n in LENGTHS {
            let got: Result<Vec<usize>, usize> = (0..n)
                .into_par_iter()
                .map(|i| if i % 100 == 99 { Err(i) } else { Ok(i) })
                .collect();
            match got {
                Ok(v) => assert!(n < 100 && v == (0..n).collect::<Vec<_>>()),
                Err(i) => assert!(i % 100 == 99 && i < n),
            }
        }
    });
}

#[test]
fn collect_into_result_stops_early_on_all_threads() {
    everywhere(|| {
        let n: usize = 1_000_000;
        let processed = AtomicUsize::new(0);
        let got: Result<Vec<usize>, &str> = (0..n)
            .into_par_iter()
            .map(|i| {
                processed.fetch_add(1, Relaxed);
                if i == 0 {
                    Err("first")
                } else {
                    Ok(i)
                }
            })
            .collect();
        assert_eq!(got, Err("first"));
        let processed = processed.into_inner();
        assert!(processed < n, "processed {processed} of {n}: no early exit");
        let processed = AtomicUsize::new(0);
        let got: Option<Vec<usize>> = (0..n)
            .into_par_iter()
            .map(|i| {
                processed.fetch_add(1, Relaxed);
                (i != 0).then_some(i)
            })
            .collect();
        assert_eq!(got, None);
        assert!(processed.into_inner() < n);
    });
}

#[test]
fn collect_into_result_drops_every_item_once() {
    // Owned items that are dropped when an error discards the collection.
    let live = AtomicUsize::new(0);
    struct Counted<'a>(&'a AtomicUsize);
    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Relaxed);
        }
    }
    everywhere(|| {
        for &n in LENGTHS {
            for fail in failure_positions(n) {
                let got: Result<Vec<Counted>, usize> = (0..n)
                    .into_par_iter()
                    .map(|i| {
                        if Some(i) == fail {
                            return Err(i);
                        }
                        live.fetch_add(1, Relaxed);
                        Ok(Counted(&live))
                    })
                    .collect();
                assert_eq!(
                    got.as_ref().map(Vec::len).ok(),
                    fail.map_or(Some(n), |_| None)
                );
                drop(got);
                assert_eq!(live.load(Relaxed), 0, "n = {n}, failure at {fail:?}");
            }
        }
    });
}

#[test]
fn collect_into_result_panics_propagate() {
    everywhere(|| {
        let msg = panic_message(|| {
            let _: Result<Vec<u32>, ()> = (0..10_000u32)
                .into_par_iter()
                .map(|x| {
                    assert!(x != 3_333, "expected: collect Result");
                    Ok(x)
                })
                .collect();
        });
        assert_eq!(msg, "expected: collect Result");
    });
}
