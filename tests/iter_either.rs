//! `iter::Either`: as a parallel iterator and a collection, and `partition_map`, against the
//! sequential equivalents.

mod iter_common;

use std::collections::HashSet;

use forkjoin::iter::Either;
use forkjoin::prelude::*;
use iter_common::{assert_dropped_once, assert_panics, everywhere, random_inputs, tracked};

#[test]
fn either_iterates_the_side_it_holds() {
    type E =
        Either<forkjoin::vec::IntoIter<u64>, forkjoin::iter::Rev<forkjoin::vec::IntoIter<u64>>>;
    everywhere(|| {
        for v in random_inputs(9, 1000) {
            let left: E = Either::Left(v.clone().into_par_iter());
            assert_eq!(left.opt_len(), Some(v.len()));
            assert_eq!(left.collect::<Vec<_>>(), v);
            let right: E = Either::Right(v.clone().into_par_iter().rev());
            assert_eq!(right.len(), v.len());
            let reversed: Vec<u64> = v.iter().rev().copied().collect();
            assert_eq!(right.enumerate().collect::<Vec<_>>(), {
                reversed.iter().copied().enumerate().collect::<Vec<_>>()
            });
            let left: E = Either::Left(v.clone().into_par_iter());
            assert!(left.zip(v.par_iter()).all(|(a, &b)| a == b));
        }
    });
}

#[test]
fn either_methods() {
    let mut l: Either<u8, &str> = Either::Left(1);
    let r: Either<u8, &str> = Either::Right("fork");
    assert!(l.is_left() && r.is_right());
    assert_eq!(
        (l.left(), l.right(), r.left(), r.right()),
        (Some(1), None, None, Some("fork"))
    );
    assert_eq!(l.as_ref(), Either::Left(&1));
    if let Either::Left(x) = l.as_mut() {
        *x = 2;
    }
    assert_eq!(l.flip(), Either::Right(2));
    assert_eq!(l.map_left(|x| x * 10), Either::Left(20));
    assert_eq!(r.map_right(str::len), Either::Right(4));
    assert_eq!(r.either(usize::from, str::len), 4);
    assert_eq!(Either::<u8, u8>::Right(3).into_inner(), 3);
    assert!(Either::<u8, u8>::Left(9) < Either::Right(0));
    assert_eq!(
        (l.left_or(0), r.left_or(0), l.right_or("x"), r.right_or("x")),
        (2, 0, "x", "fork")
    );
    assert_eq!(r.left_or_else(|s| s.len() as u8), 4);
    assert_eq!(l.right_or_else(|_| "two"), "two");
    assert_eq!(l.map_either(|x| x + 1, str::len), Either::Left(3));
    assert_eq!((l.unwrap_left(), r.unwrap_right()), (2, "fork"));
    assert_panics(
        || {
            r.unwrap_left();
        },
        "called `Either::unwrap_left()` on a `Right` value: \"fork\"",
    );
}

#[test]
fn either_of_sequential_iterators_iterates_the_side_it_holds() {
    everywhere(|| {
        for n in [0usize, 1, 7, 1000] {
            let pick = |x: usize| {
                if x % 2 == 0 {
                    Either::Left(0..x)
                } else {
                    Either::Right(std::iter::repeat_n(x, 2))
                }
            };
            let expected: Vec<usize> = (0..n).flat_map(pick).collect();
            let got: Vec<usize> = (0..n).into_par_iter().flat_map_iter(pick).collect();
            assert_eq!(got, expected);
            let back: Vec<usize> = (0..n).flat_map(|x| pick(x).rev()).collect();
            assert_eq!(
                back,
                (0..n)
                    .flat_map(|x| pick(x).collect::<Vec<_>>().into_iter().rev())
                    .collect::<Vec<_>>()
            );
            assert!((0..n).all(|x| pick(x).len() == pick(x).count()));
        }
    });
}

#[test]
fn either_extends_the_collection_it_holds() {
    everywhere(|| {
        for v in random_inputs(9, 1000) {
            let mut left: Either<Vec<u64>, HashSet<u64>> = Either::Left(vec![7]);
            left.par_extend(v.par_iter().copied());
            let expected: Vec<u64> = std::iter::once(7).chain(v.iter().copied()).collect();
            assert_eq!(left, Either::Left(expected));
            let mut right: Either<Vec<u64>, HashSet<u64>> = Either::Right(HashSet::new());
            right.par_extend(v.clone());
            assert_eq!(right, Either::Right(v.iter().copied().collect()));
        }
    });
}

#[test]
fn partition_map_and_collecting_eithers_match_std() {
    everywhere(|| {
        for v in random_inputs(9, 1000) {
            let route = |&x: &u64| {
                if x % 3 == 0 {
                    Either::Left(x)
                } else {
                    Either::Right(x.to_string())
                }
            };
            let (a, b): (Vec<u64>, Vec<String>) = v.par_iter().partition_map(route);
            let c: Vec<u64> = v.iter().copied().filter(|x| x % 3 == 0).collect();
            let d: Vec<String> = v
                .iter()
                .filter(|&x| x % 3 != 0)
                .map(u64::to_string)
                .collect();
            assert_eq!((&a, &b), (&c, &d));

            let (e, f): (Vec<u64>, String) = v.par_iter().map(route).collect();
            assert_eq!((e, f), (c.clone(), d.concat()));

            let mut pair = (vec![1u64], String::from(">"));
            pair.par_extend(v.par_iter().map(route));
            assert_eq!(pair.0[1..], c[..]);
            assert_eq!(pair.1, format!(">{}", d.concat()));
        }
    });
}

#[test]
fn partition_map_moves_owned_items_once_and_propagates_panics() {
    everywhere(|| {
        for &n in &[0, 1, 7, 1000] {
            let (items, drops) = tracked(n);
            let (odd, even): (Vec<_>, Vec<_>) = items.into_par_iter().partition_map(|t| {
                if t.id % 2 == 1 {
                    Either::Left(t)
                } else {
                    Either::Right(t)
                }
            });
            assert!(odd.iter().map(|t| t.id).eq((1..n).step_by(2)));
            assert!(even.iter().map(|t| t.id).eq((0..n).step_by(2)));
            drop((odd, even));
            assert_dropped_once(&drops, "partition_map");
        }
        let (items, drops) = tracked(1000);
        assert_panics(
            || {
                let _: (Vec<_>, Vec<_>) = items.into_par_iter().partition_map(|t| {
                    if t.id == 500 {
                        panic!("partition_map boom");
                    }
                    Either::<_, ()>::Left(t)
                });
            },
            "partition_map boom",
        );
        assert_dropped_once(&drops, "partition_map panic");
    });
}
