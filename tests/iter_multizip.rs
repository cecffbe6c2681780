//! `into_par_iter()` on tuples (`MultiZip`): against std's nested `zip` on the usual lengths, in
//! and out of pools, by value, `&` and `&mut`, with components of different lengths, cut at
//! every position and reversed; owned items dropped exactly once, also after a panic.

mod iter_common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use forkjoin::iter::MultiZip;
use forkjoin::prelude::*;
use iter_common::{assert_dropped_once, everywhere, tracked, Rng, LENGTHS};

#[test]
fn tuples_zip_like_std() {
    everywhere(|| {
        let mut rng = Rng::new(73);
        for &n in LENGTHS {
            let a = rng.vec(n, 1000);
            let b: Vec<u64> = a.iter().map(|x| x * 3).collect();
            let m = n.saturating_sub(n / 3);
            let c = &a[..m];

            let one: Vec<(&u64,)> = (&a,).into_par_iter().collect();
            assert_eq!(one, a.iter().map(|x| (x,)).collect::<Vec<_>>());

            let expected: Vec<(&u64, &u64, u64)> = a
                .iter()
                .zip(&b)
                .zip(0..)
                .map(|((x, y), z)| (x, y, z))
                .collect();
            let got: Vec<(&u64, &u64, u64)> = (&a, &b, 0..u64::MAX).into_par_iter().collect();
            assert_eq!(got, expected);
            let it = (&a, &b, 0..u64::MAX).into_par_iter();
            assert_eq!(it.len(), n);
            let rev: Vec<(&u64, &u64, u64)> = (&a, &b, 0..u64::MAX).into_par_iter().rev().collect();
            assert_eq!(rev, expected.iter().rev().copied().collect::<Vec<_>>());

            // The shortest component decides the length, wherever it is.
            let short: Vec<(&u64, &u64)> = (&a, c).into_par_iter().with_max_len(1).collect();
            assert_eq!(short, a.iter().zip(c).collect::<Vec<_>>());
            let short: Vec<(&u64, &u64)> = (c, &a).into_par_iter().collect();
            assert_eq!(short, c.iter().zip(&a).collect::<Vec<_>>());

            // Twelve components, through a reference to the tuple.
            let v = || a.clone();
            let tuple = (
                v(),
                v(),
                v(),
                v(),
                v(),
                v(),
                v(),
                v(),
                v(),
                v(),
                v(),
                b.clone(),
            );
            let sums: Vec<u64> = tuple
                .par_iter()
                .map(|(x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, y)| {
                    x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + y
                })
                .collect();
            assert_eq!(sums, a.iter().map(|x| 14 * x).collect::<Vec<_>>());

            // Exclusive references.
            let (mut p, mut q) = (a.clone(), b.clone());
            (&mut p, &mut q, &a).into_par_iter().for_each(|(x, y, z)| {
                *x += z;
                *y += 1;
            });
            assert_eq!(p, a.iter().map(|x| 2 * x).collect::<Vec<_>>());
            assert_eq!(q, b.iter().map(|x| x + 1).collect::<Vec<_>>());
            let mut pair = (p, q);
            (&mut pair)
                .into_par_iter()
                .for_each(|(x, y)| std::mem::swap(x, y));
            assert_eq!(pair.1, a.iter().map(|x| 2 * x).collect::<Vec<_>>());
        }
    });
}

#[test]
fn multizip_is_clone_and_debug() {
    let it: MultiZip<_> = (0..3u32, 5..9u32).into_par_iter();
    assert_eq!(it.clone().count(), 3);
    assert!(format!("{it:?}").starts_with("MultiZip"));
}

#[test]
fn owned_items_drop_once() {
    everywhere(|| {
        for n in [0usize, 1, 2, 100, 1025] {
            let (a, da) = tracked(n);
            let (b, db) = tracked(n / 2);
            let pairs: Vec<_> = (a, b).into_par_iter().collect();
            assert_eq!(pairs.len(), n / 2);
            drop(pairs);
            assert_dropped_once(&da, "multizip a");
            assert_dropped_once(&db, "multizip b");

            if n > 0 {
                let (a, da) = tracked(n);
                let (b, db) = tracked(n);
                let res = catch_unwind(AssertUnwindSafe(|| {
                    (a, b, 0..n)
                        .into_par_iter()
                        .for_each(|(_, _, i)| assert!(i != n / 2, "boom"))
                }));
                assert!(res.is_err());
                assert_dropped_once(&da, "multizip panic a");
                assert_dropped_once(&db, "multizip panic b");
            }
        }
    });
}
