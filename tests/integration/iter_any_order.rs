//! `take_any`, `skip_any`, `take_any_while`, `skip_any_while`: which items pass is not
//! deterministic with several threads, so the checks are the invariants (counts, subsequence of the
//! input, the predicate) on the usual lengths in and out of pools, plus std's exact answer on one
//! thread; owned items dropped exactly once, also after a panic.

use crate::iter_common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use forkjoin::prelude::*;
use forkjoin::ThreadPoolBuilder;
use iter_common::{assert_dropped_once, everywhere, tracked, LENGTHS};

/// True if `sub` is `all` with some items left out (order kept).
fn is_subsequence(sub: &[usize], all: &[usize]) -> bool {
    let mut rest = all.iter();
    sub.iter().all(|x| rest.any(|y| y == x))
}

#[test]
fn take_any_and_skip_any_pass_the_right_number_of_items() {
    everywhere(|| {
        for &n in LENGTHS {
            let all: Vec<usize> = (0..n).collect();
            for k in [0, 1, n / 3, n.saturating_sub(1), n, n + 5] {
                let taken: Vec<usize> = all.par_iter().copied().take_any(k).collect();
                assert_eq!(taken.len(), k.min(n));
                assert!(is_subsequence(&taken, &all));
                let skipped: Vec<usize> = all.par_iter().copied().skip_any(k).collect();
                assert_eq!(skipped.len(), n - k.min(n));
                assert!(is_subsequence(&skipped, &all));
                // Unindexed base, cut everywhere.
                let odd = || {
                    all.par_iter()
                        .copied()
                        .with_max_len(1)
                        .filter(|x| x % 2 == 1)
                };
                assert_eq!(odd().take_any(k).count(), k.min(n / 2));
                assert_eq!(odd().skip_any(k).count(), n / 2 - k.min(n / 2));
            }
        }
    });
}

#[test]
fn the_while_forms_respect_the_predicate() {
    everywhere(|| {
        for &n in LENGTHS {
            let all: Vec<usize> = (0..n).collect();
            for cut in [0, n / 2, n] {
                let taken: Vec<usize> = all
                    .par_iter()
                    .copied()
                    .take_any_while(|&x| x < cut)
                    .collect();
                assert!(taken.iter().all(|&x| x < cut));
                assert!(is_subsequence(&taken, &all));
                let kept: Vec<usize> = all
                    .par_iter()
                    .copied()
                    .skip_any_while(|&x| x < cut)
                    .collect();
                // Every item that fails the predicate passes (the input is sorted, so they end
                // the output); some that hold may too.
                assert!(kept.ends_with(&all[cut..]));
                assert!(is_subsequence(&kept, &all));
            }
            // A predicate that always holds changes nothing.
            let all_taken: Vec<usize> = all.par_iter().copied().take_any_while(|_| true).collect();
            assert_eq!(all_taken, all);
            let none_skipped: Vec<usize> =
                all.par_iter().copied().skip_any_while(|_| false).collect();
            assert_eq!(none_skipped, all);
        }
    });
}

#[test]
fn on_one_thread_they_match_std() {
    let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    pool.install(|| {
        for &n in LENGTHS {
            let all: Vec<usize> = (0..n).map(|i| i * 7 % 11).collect();
            for k in [0, 1, n / 2, n + 1] {
                let taken: Vec<usize> = all.par_iter().copied().take_any(k).collect();
                assert_eq!(taken, all.iter().copied().take(k).collect::<Vec<_>>());
                let skipped: Vec<usize> = all.par_iter().copied().skip_any(k).collect();
                assert_eq!(skipped, all.iter().copied().skip(k).collect::<Vec<_>>());
            }
            let taken: Vec<usize> = all.par_iter().copied().take_any_while(|&x| x < 9).collect();
            assert_eq!(
                taken,
                all.iter()
                    .copied()
                    .take_while(|&x| x < 9)
                    .collect::<Vec<_>>()
            );
            let kept: Vec<usize> = all.par_iter().copied().skip_any_while(|&x| x < 9).collect();
            assert_eq!(
                kept,
                all.iter()
                    .copied()
                    .skip_while(|&x| x < 9)
                    .collect::<Vec<_>>()
            );
        }
    });
}

#[test]
fn owned_items_drop_once() {
    everywhere(|| {
        for n in [0usize, 1, 2, 100, 1025] {
            let (items, drops) = tracked(n);
            let taken: Vec<_> = items.into_par_iter().take_any(n / 2).collect();
            assert_eq!(taken.len(), n / 2);
            drop(taken);
            assert_dropped_once(&drops, "take_any");

            let (items, drops) = tracked(n);
            let kept = items
                .into_par_iter()
                .skip_any_while(|t| t.id % 2 == 0)
                .count();
            assert!(kept <= n);
            assert_dropped_once(&drops, "skip_any_while");

            if n > 0 {
                let (items, drops) = tracked(n);
                let res = catch_unwind(AssertUnwindSafe(|| {
                    items
                        .into_par_iter()
                        .take_any_while(|t| t.id < n)
                        .for_each(|t| assert!(t.id != n / 2, "boom"))
                }));
                assert!(res.is_err());
                assert_dropped_once(&drops, "take_any_while panic");
            }
        }
    });
}
