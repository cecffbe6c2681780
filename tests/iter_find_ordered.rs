//! `find_first`, `find_last`, `find_map_first`, `find_map_last`, `position_first`,
//! `position_last`: against std's sequential searches on the usual lengths, in and out of pools;
//! early exit on huge ranges; owned items dropped exactly once; panics in the predicate.

mod iter_common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use forkjoin::prelude::*;
use forkjoin::ThreadPoolBuilder;
use iter_common::spin::spin;
use iter_common::{assert_dropped_once, everywhere, tracked, Rng, LENGTHS};

fn inputs() -> Vec<Vec<u64>> {
    let mut rng = Rng::new(17);
    LENGTHS.iter().map(|&n| rng.vec(n, 50)).collect()
}

#[test]
fn ordered_finds_match_std() {
    everywhere(|| {
        for v in inputs() {
            // Targets: common, rare, the first and last items, and absent.
            let mut targets = vec![0, 7, 49, 1000];
            targets.extend(v.first().copied());
            targets.extend(v.last().copied());
            for t in targets {
                let eq = |x: &u64| *x == t;
                assert_eq!(v.par_iter().find_first(|x| eq(x)), v.iter().find(|x| eq(x)));
                assert_eq!(
                    v.par_iter().find_last(|x| eq(x)),
                    v.iter().rev().find(|x| eq(x))
                );
                assert_eq!(
                    v.par_iter().position_first(eq),
                    v.iter().position(eq),
                    "position_first {t} in {}",
                    v.len()
                );
                assert_eq!(
                    v.par_iter().position_last(eq),
                    v.iter().rposition(eq),
                    "position_last {t} in {}",
                    v.len()
                );
                let fm = |(i, x): (usize, &u64)| (*x == t).then_some(i * 2);
                assert_eq!(
                    v.par_iter().enumerate().find_map_first(fm),
                    v.iter().enumerate().find_map(fm)
                );
                assert_eq!(
                    v.par_iter().enumerate().find_map_last(fm),
                    v.iter().enumerate().rev().find_map(fm)
                );
            }
            // Ranges of predicates: the first/last of many matches.
            let big = |x: &&u64| **x >= 25;
            assert_eq!(v.par_iter().find_first(big), v.iter().find(big));
            assert_eq!(v.par_iter().find_last(big), v.iter().rev().find(big));
            // After an unindexed adaptor: positions are unknown to the consumer.
            let odd = |x: &u64| x % 2 == 1;
            let sq = |x: &u64| x * x % 97;
            assert_eq!(
                v.par_iter()
                    .copied()
                    .filter(odd)
                    .map(|x| sq(&x))
                    .find_first(|x| x % 3 == 0),
                v.iter()
                    .copied()
                    .filter(odd)
                    .map(|x| sq(&x))
                    .find(|x| x % 3 == 0)
            );
            assert_eq!(
                v.par_iter()
                    .copied()
                    .filter(odd)
                    .map(|x| sq(&x))
                    .find_last(|x| x % 3 == 0),
                v.iter()
                    .copied()
                    .filter(odd)
                    .map(|x| sq(&x))
                    .rfind(|x| x % 3 == 0)
            );
        }
    });
}

/// Expensive predicates on 4 threads: leaves split while they run, also after a match, and every
/// split must keep the answer exact.
#[test]
fn ordered_finds_stay_exact_when_leaves_split_midway() {
    let pool = ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    let mut rng = Rng::new(3);
    for round in 0..20u64 {
        let n = 2_000 + (rng.next_u64() % 3_000) as usize;
        // Sparse matches in the middle, and an expensive left part.
        let v: Vec<u64> = (0..n as u64)
            .map(|i| rng.next_u64() % 400 + i % 3)
            .collect();
        let hit = |x: &u64| x % 199 == round % 7;
        let cost = |i: usize| if i < n / 3 { 2_000 } else { 200 };
        let first = pool.install(|| {
            v.par_iter()
                .enumerate()
                .find_first(|&(i, x)| spin(cost(i)) > 0 && hit(x))
        });
        assert_eq!(first, v.iter().enumerate().find(|&(_, x)| hit(x)));
        let last = pool.install(|| {
            v.par_iter()
                .enumerate()
                .find_last(|&(i, x)| spin(cost(n - 1 - i)) > 0 && hit(x))
        });
        assert_eq!(last, v.iter().enumerate().rev().find(|&(_, x)| hit(x)));
        // Matches only in a prefix, every item costly: a leaf that holds a match is split
        // while it scans for a later one, and the pieces after the prefix find nothing.
        let prefix = n / 4 + round as usize * 50;
        let last = pool.install(|| {
            v.par_iter()
                .enumerate()
                .find_last(|&(i, x)| spin(300) > 0 && i < prefix && x % 5 == 0)
        });
        let expected = v
            .iter()
            .enumerate()
            .rev()
            .find(|&(i, x)| i < prefix && x % 5 == 0);
        assert_eq!(last, expected);
    }
}

/// Early exit: a range of 2^100 items would take forever to scan. `find_first` stops once the
/// pieces left of a match are done; `find_last`, on 2 threads, once the pieces right of it are
/// (dense matches: a thread that takes the end of the input finds one at once, as in rayon's
/// `octillion` tests; a single match at the very end would need the whole input scanned).
#[test]
fn ordered_finds_stop_early_on_huge_ranges() {
    const N: u128 = 1 << 100;
    assert_eq!((0..N).into_par_iter().find_first(|_| true), Some(0));
    assert_eq!(
        (0..N).into_par_iter().find_first(|x| x % 100_000 == 99_999),
        Some(99_999)
    );
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_eq!(
        pool.install(|| (0..N).into_par_iter().find_last(|_| true)),
        Some(N - 1)
    );
    assert_eq!(
        pool.install(|| (0..=N).into_par_iter().find_last(|x| x % 1000 == 0)),
        Some(N - N % 1000)
    );
    // Indexed: a `usize` range of 2^62 items.
    let n = 1usize << 62;
    assert_eq!((0..n).into_par_iter().position_first(|x| x == 5), Some(5));
    assert_eq!(
        pool.install(|| (0..n).into_par_iter().position_last(|x| x % 3 == 0)),
        Some((n - 1) / 3 * 3)
    );
}

/// `find_last` walks from the end (right halves first, batches cut off the end of a piece), so it
/// stops early on any number of threads, also where the items before the last match hold whole
/// nested searches (rayon's `find_last_octillion_flat`, scaled down to 10^18 items).
#[test]
fn find_last_walks_from_the_end_on_any_pool() {
    let nested = || {
        (0u32..1_000_000)
            .into_par_iter()
            .with_max_len(1_000)
            .map(|i| u64::from(i) * 1_000_000)
            .flat_map(|i| {
                (0u32..1_000_000)
                    .into_par_iter()
                    .with_max_len(1_000)
                    .map(move |j| u128::from(i + u64::from(j)) * 1_000_000)
            })
            .flat_map(|i| {
                (0u32..1_000_000)
                    .into_par_iter()
                    .with_max_len(1_000)
                    .map(move |j| i + u128::from(j))
            })
    };
    const LAST: u128 = 1_000_000_000_000_000_000 - 1;
    everywhere(|| {
        assert_eq!(nested().find_last(|_| true), Some(LAST));
        assert_eq!(nested().find_last(|x| x % 7 == 0), Some(LAST - LAST % 7));
        assert_eq!(
            (0..1u128 << 100).into_par_iter().find_last(|x| x % 3 == 0),
            Some(((1u128 << 100) - 1) / 3 * 3)
        );
        let n = 1usize << 62;
        assert_eq!(
            (0..n)
                .into_par_iter()
                .filter(|x| x % 5 == 1)
                .find_last(|_| true),
            (0..n).rev().find(|x| x % 5 == 1)
        );
        // Every adaptor passes the walk from the end on (`LazyConsumer::CAN_PREFER_END`): one
        // that did not would run the outer items, each a nested search, forward.
        assert_eq!(
            nested()
                .map_with(1u128, |one, x| x + *one)
                .find_last(|_| true),
            Some(LAST + 1)
        );
        assert_eq!(nested().map(|_| &7u8).copied().find_last(|_| true), Some(7));
    });
}

/// String pieces are cut where the items allow, which may be nowhere: a search from the end then
/// takes the piece whole.
#[test]
fn find_last_on_strings_matches_std() {
    everywhere(|| {
        let texts = [
            String::new(),
            "x".to_string(),
            "no separator at all".repeat(50),
            "a,b,,c,".repeat(300),
            "é,ü;ß,😀".repeat(200),
        ];
        for text in &texts {
            let seps = [',', ';'];
            assert_eq!(
                text.par_split(&seps[..]).find_last(|s| !s.is_empty()),
                text.split(&seps[..]).rev().find(|s| !s.is_empty())
            );
            assert_eq!(
                text.par_split(',').find_last(|_| true),
                text.split(',').next_back()
            );
            assert_eq!(
                text.par_chars().find_last(|c| c.is_alphabetic()),
                text.chars().rev().find(|c| c.is_alphabetic())
            );
            assert_eq!(
                text.par_char_indices().find_last(|(_, c)| *c == ','),
                text.char_indices().rev().find(|(_, c)| *c == ',')
            );
        }
    });
}

#[test]
fn comparisons_stop_at_the_first_difference() {
    // A difference at the start of a 2^62-item comparison: only early exit finishes this.
    let n = 1usize << 62;
    let a = (0..n).into_par_iter();
    let b = (1..n + 1).into_par_iter();
    assert_eq!(a.cmp(b), std::cmp::Ordering::Less);
    let a = (0..n).into_par_iter().map(|x| x as f64);
    let b = (0..n)
        .into_par_iter()
        .map(|x| if x == 3 { f64::NAN } else { x as f64 });
    assert_eq!(a.partial_cmp(b), None);
}

#[test]
fn owned_items_are_dropped_exactly_once() {
    everywhere(|| {
        for &n in LENGTHS {
            for target in [0, n / 3, n.saturating_sub(1), n + 1] {
                let (v, drops) = tracked(n);
                let hit = v.into_par_iter().find_first(|t| t.id % 7 == target % 7);
                let expected = (0..n).find(|id| id % 7 == target % 7);
                assert_eq!(hit.as_ref().map(|t| t.id), expected);
                drop(hit);
                assert_dropped_once(&drops, "find_first");

                let (v, drops) = tracked(n);
                let hit = v.into_par_iter().find_last(|t| t.id % 7 == target % 7);
                let expected = (0..n).rev().find(|id| id % 7 == target % 7);
                assert_eq!(hit.as_ref().map(|t| t.id), expected);
                drop(hit);
                assert_dropped_once(&drops, "find_last");

                let (v, drops) = tracked(n);
                let at = v.into_par_iter().position_first(|t| t.id == target);
                assert_eq!(at, (target < n).then_some(target));
                assert_dropped_once(&drops, "position_first");

                let (v, drops) = tracked(n);
                let hit = v
                    .into_par_iter()
                    .find_map_last(|t| (t.id <= target).then_some(t));
                let expected = (n > 0).then(|| target.min(n - 1));
                assert_eq!(hit.as_ref().map(|t| t.id), expected);
                drop(hit);
                assert_dropped_once(&drops, "find_map_last");
            }
        }
    });
}

#[test]
fn a_panicking_predicate_propagates_and_drops_every_item_once() {
    everywhere(|| {
        for &n in &[1usize, 2, 100, 1025, 65_537] {
            for victim in [0, n / 2, n - 1] {
                let (v, drops) = tracked(n);
                let err = catch_unwind(AssertUnwindSafe(|| {
                    v.into_par_iter().find_last(|t| {
                        if t.id == victim {
                            panic!("boom at {}", t.id);
                        }
                        false
                    })
                }))
                .expect_err("the panic must propagate");
                let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
                assert_eq!(msg, format!("boom at {victim}"));
                assert_dropped_once(&drops, "find_last panic");

                let (v, drops) = tracked(n);
                let res = catch_unwind(AssertUnwindSafe(|| {
                    v.into_par_iter().find_first(|t| {
                        assert!(t.id != victim, "first boom");
                        false
                    })
                }));
                assert!(res.is_err());
                assert_dropped_once(&drops, "find_first panic");
            }
        }
    });
}

/// The only worker of a pool folds every piece in one go: a piece after the match must not be
/// scanned at all (rayon's `check_cmp_short_circuit`), nor a piece of `find_any`/`any` after a
/// hit elsewhere.
#[test]
fn pieces_after_a_match_are_skipped_on_one_thread() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    pool.install(|| {
        let a = vec![0u8; 1024];
        let mut b = a.clone();
        b[42] = 1;
        for len in 1..10 {
            let visited = AtomicUsize::new(0);
            let count = |_: &&u8| {
                visited.fetch_add(1, Ordering::Relaxed);
            };
            assert_eq!(
                a.par_iter().with_max_len(len).inspect(count).cmp(&b),
                std::cmp::Ordering::Less
            );
            assert!(
                visited.swap(0, Ordering::Relaxed) < a.len(),
                "cmp, max_len {len}"
            );
            assert_eq!(
                b.par_iter()
                    .with_max_len(len)
                    .inspect(count)
                    .position_first(|&x| x == 1),
                Some(42)
            );
            assert!(
                visited.swap(0, Ordering::Relaxed) < a.len(),
                "find_first, max_len {len}"
            );
            assert!(b
                .par_iter()
                .with_max_len(len)
                .inspect(count)
                .any(|&x| x == 1));
            assert!(
                visited.swap(0, Ordering::Relaxed) < a.len(),
                "any, max_len {len}"
            );
            assert_eq!(
                b.par_iter()
                    .with_max_len(len)
                    .inspect(count)
                    .find_any(|&&x| x == 1),
                Some(&1)
            );
            assert!(visited.into_inner() < a.len(), "find_any, max_len {len}");
        }
    });
}
