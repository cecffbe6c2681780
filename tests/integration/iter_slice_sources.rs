//! `par_chunks_exact(_mut)`, `par_rchunks(_exact)(_mut)`, `par_windows` and `par_drain`: against
//! std on the usual lengths, in and out of pools; owned items dropped exactly once; panics.

use crate::iter_common;

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use forkjoin::prelude::*;
use iter_common::{everywhere, tracked, Rng, Tracked, LENGTHS};

const SIZES: &[usize] = &[1, 2, 3, 7, 64, 1000];

fn inputs() -> Vec<Vec<u64>> {
    let mut rng = Rng::new(11);
    LENGTHS.iter().map(|&n| rng.vec(n, 1000)).collect()
}

#[test]
fn shared_chunkings_and_windows_match_std() {
    everywhere(|| {
        for v in inputs() {
            for &k in SIZES {
                let got: Vec<&[u64]> = v.par_chunks_exact(k).collect();
                assert_eq!(got, v.chunks_exact(k).collect::<Vec<_>>());
                assert_eq!(
                    v.par_chunks_exact(k).remainder(),
                    v.chunks_exact(k).remainder()
                );
                assert_eq!(v.par_chunks_exact(k).len(), v.chunks_exact(k).len());

                let got: Vec<&[u64]> = v.par_rchunks(k).collect();
                assert_eq!(got, v.rchunks(k).collect::<Vec<_>>());
                assert_eq!(v.par_rchunks(k).len(), v.rchunks(k).len());

                let got: Vec<&[u64]> = v.par_rchunks_exact(k).collect();
                assert_eq!(got, v.rchunks_exact(k).collect::<Vec<_>>());
                assert_eq!(
                    v.par_rchunks_exact(k).remainder(),
                    v.rchunks_exact(k).remainder()
                );

                let got: Vec<&[u64]> = v.par_windows(k).collect();
                assert_eq!(got, v.windows(k).collect::<Vec<_>>());
                assert_eq!(v.par_windows(k).len(), v.windows(k).len());

                // Indexed: enumerate, zip, and a reduction over the windows.
                let sums: Vec<(usize, u64)> = v
                    .par_windows(k)
                    .map(|w| w.iter().sum::<u64>())
                    .enumerate()
                    .collect();
                let s: Vec<(usize, u64)> =
                    v.windows(k).map(|w| w.iter().sum()).enumerate().collect();
                assert_eq!(sums, s);
                let z: Vec<(&[u64], &[u64])> =
                    v.par_rchunks(k).zip(v.par_chunks_exact(k)).collect();
                assert_eq!(z, v.rchunks(k).zip(v.chunks_exact(k)).collect::<Vec<_>>());
            }
        }
    });
}

#[test]
fn mutable_chunkings_match_std() {
    everywhere(|| {
        for v in inputs() {
            for &k in SIZES {
                let mark = |(i, c): (usize, &mut [u64])| {
                    for x in c.iter_mut() {
                        *x = *x * 1000 + i as u64;
                    }
                };
                let (mut a, mut b) = (v.clone(), v.clone());
                a.par_chunks_exact_mut(k).enumerate().for_each(mark);
                b.chunks_exact_mut(k).enumerate().for_each(mark);
                assert_eq!(a, b);
                assert_eq!(
                    a.par_chunks_exact_mut(k).into_remainder(),
                    b.chunks_exact_mut(k).into_remainder()
                );

                let (mut a, mut b) = (v.clone(), v.clone());
                a.par_rchunks_mut(k).enumerate().for_each(mark);
                b.rchunks_mut(k).enumerate().for_each(mark);
                assert_eq!(a, b);

                let (mut a, mut b) = (v.clone(), v.clone());
                a.par_rchunks_exact_mut(k).enumerate().for_each(mark);
                b.rchunks_exact_mut(k).enumerate().for_each(mark);
                assert_eq!(a, b);
                let mut it = a.par_rchunks_exact_mut(k);
                assert_eq!(it.remainder().len(), v.len() % k);
                let rem = it.take_remainder();
                assert_eq!(rem, b.rchunks_exact_mut(k).into_remainder());
                assert!(it.remainder().is_empty());
            }
        }
    });
}

#[test]
fn zero_sizes_panic_like_std() {
    let v = [1, 2, 3];
    assert!(catch_unwind(|| drop(v.par_chunks_exact(0))).is_err());
    assert!(catch_unwind(|| drop(v.par_rchunks(0))).is_err());
    assert!(catch_unwind(|| drop(v.par_rchunks_exact(0))).is_err());
    assert!(catch_unwind(|| drop(v.par_windows(0))).is_err());
}

fn drop_counts(drops: &[AtomicUsize]) -> Vec<usize> {
    drops.iter().map(|d| d.load(Ordering::Relaxed)).collect()
}

fn ranges(n: usize) -> Vec<(usize, usize)> {
    vec![
        (0, 0),
        (0, n),
        (0, n / 2),
        (n / 3, n),
        (n / 3, n / 3),
        (n / 4, 3 * n / 4),
        (n, n),
    ]
}

#[test]
fn vec_drain_matches_std_and_drops_every_item_once() {
    everywhere(|| {
        for &n in LENGTHS {
            for (a, b) in ranges(n) {
                let v: Vec<usize> = (0..n).collect();
                let (mut x, mut y) = (v.clone(), v.clone());
                let got: Vec<usize> = x.par_drain(a..b).collect();
                let expected: Vec<usize> = y.drain(a..b).collect();
                assert_eq!((got, &x), (expected, &y));
                // Dropped unused: the range is removed all the same.
                let mut x = v.clone();
                drop(x.par_drain(a..b));
                assert_eq!(x, y);

                // Owned items: drained ones moved out or dropped exactly once, the rest kept.
                let (mut v, drops) = tracked(n);
                let kept: Vec<Tracked> = v.par_drain(a..b).filter(|t| t.id % 2 == 0).collect();
                assert!(kept.iter().all(|t| (a..b).contains(&t.id)));
                assert!(v.iter().map(|t| t.id).eq((0..a).chain(b..n)));
                drop(kept);
                drop(v);
                assert!(drop_counts(&drops).iter().all(|&d| d == 1));

                // A short-circuit leaves undriven items for the producer to drop.
                let (mut v, drops) = tracked(n);
                let hit = v.par_drain(a..b).find_first(|t| t.id % 3 == 0);
                assert_eq!(hit.as_ref().map(|t| t.id), (a..b).find(|i| i % 3 == 0));
                drop(hit);
                assert_eq!(v.len(), n - (b - a));
                drop(v);
                assert!(drop_counts(&drops).iter().all(|&d| d == 1));
            }
        }
    });
}

#[test]
fn vec_drain_restores_the_tail_after_a_panic() {
    everywhere(|| {
        for n in [1usize, 2, 100, 1025, 65_537] {
            let (a, b) = (n / 4, n - n / 4);
            let (mut v, drops) = tracked(n);
            let res = catch_unwind(AssertUnwindSafe(|| {
                v.par_drain(a..b).for_each(|t| {
                    assert!(t.id != (a + b) / 2, "boom");
                })
            }));
            assert_eq!(res.is_err(), a < b);
            assert!(v.iter().map(|t| t.id).eq((0..a).chain(b..n)));
            drop(v);
            assert!(drop_counts(&drops).iter().all(|&d| d == 1));
        }
    });
}

#[test]
fn drain_ranges_out_of_bounds_panic_like_std() {
    let mut v = vec![1, 2, 3];
    let err = catch_unwind(AssertUnwindSafe(|| drop(v.par_drain(2..5)))).unwrap_err();
    assert_eq!(
        err.downcast_ref::<String>().unwrap(),
        "range end index 5 out of range for slice of length 3"
    );
    #[allow(clippy::reversed_empty_ranges)]
    let err = catch_unwind(AssertUnwindSafe(|| drop(v.par_drain(2..1)))).unwrap_err();
    assert_eq!(
        err.downcast_ref::<String>().unwrap(),
        "slice index starts at 2 but ends at 1"
    );
    assert_eq!(v, [1, 2, 3]);
    let mut s = String::from("aé");
    assert!(catch_unwind(AssertUnwindSafe(|| drop(s.par_drain(2..)))).is_err());
}

#[test]
fn string_and_deque_drains_match_std() {
    everywhere(|| {
        for s in ["", "a", "fork-join", "aé🦀b,c", &"xyz🦀".repeat(5000)] {
            let n = s.len();
            let bounds: Vec<usize> = (0..=n).filter(|&i| s.is_char_boundary(i)).collect();
            let pick = |f: usize| bounds[(bounds.len() - 1) * f / 4];
            for (a, b) in [(0, 4), (1, 3), (0, 0), (2, 2), (4, 4)] {
                let (a, b) = (pick(a), pick(b));
                let (mut x, mut y) = (s.to_string(), s.to_string());
                let got: String = x.par_drain(a..b).collect();
                let expected: String = y.drain(a..b).collect();
                assert_eq!((got, &x), (expected, &y));
                let mut x = s.to_string();
                drop(x.par_drain(a..b));
                assert_eq!(x, y);
            }
        }
        for n in [0usize, 1, 5, 1000, 65_537] {
            for (a, b) in ranges(n) {
                let mut d: VecDeque<usize> = (0..n).collect();
                d.rotate_left(n / 3);
                let mut e = d.clone();
                let got: Vec<usize> = d.par_drain(a..b).collect();
                let expected: Vec<usize> = e.drain(a..b).collect();
                assert_eq!((got, &d), (expected, &e));
            }
        }
    });
}
