//! Ranges of every integer type, `char`, `u128`/`i128`, against std's sequential ranges: empty, one
//! item, prime lengths and lengths around the split points, the ends of each type's domain, and
//! untyped integer literals (which must fall back to `i32`, as with rayon).

mod common;
mod iter_common;

use std::time::Duration;

use forkjoin::prelude::*;
use iter_common::{everywhere, LENGTHS};

/// Untyped literals compile and fall back to `i32`, as rayon's do (each line used to be "type
/// annotations needed").
#[test]
fn untyped_literals_fall_back_to_i32() {
    everywhere(|| {
        let s: i32 = (0..100).into_par_iter().sum();
        assert_eq!(s, 4950);
        let v = (0..100).into_par_iter().map(|x| x * 2).collect::<Vec<_>>();
        let w: Vec<i32> = v; // the item type fell back to i32
        assert_eq!(w, (0..100).map(|x| x * 2).collect::<Vec<i32>>());
        let n = 10;
        assert_eq!((0..n).into_par_iter().count(), 10);
        assert_eq!((0..=n).into_par_iter().sum::<i32>(), 55);
        assert_eq!(
            (1..=5)
                .into_par_iter()
                .map(|x| x * x)
                .reduce(|| 0, |a, b| a + b),
            55
        );
        let max = (0..1000).into_par_iter().map(|x| x % 7).max();
        assert_eq!(max, Some(6));
    });
}

/// The item type is inferred from later uses, as in rayon's `test_issue_833`.
#[test]
fn item_type_inferred_from_use() {
    fn is_even(n: i64) -> bool {
        n % 2 == 0
    }
    let v: Vec<_> = (1..100).into_par_iter().filter(|&x| is_even(x)).collect();
    assert!(v.into_iter().eq((2..100).step_by(2)));
    let hit = (0..100)
        .into_par_iter()
        .enumerate()
        .find_any(|&(_, x)| x == 50i16);
    assert_eq!(hit, Some((50usize, 50i16)));
    assert!((0..100)
        .into_par_iter()
        .zip(0..100)
        .all(|(a, b)| i16::eq(&a, &b)));
    let n = 1000u64;
    assert_eq!((0..n).into_par_iter().sum::<u64>(), 499_500);
}

/// Compares `(start..start + len)` and its inclusive form with std for the lengths of `LENGTHS`
/// that fit between `start` and the type's maximum, by collecting (in place for the indexed types)
/// and summing (through a fold, wrapping); the indexed types also by zipping with an index after
/// cutting into pieces of at most 7 (the producer's splits).
macro_rules! check_type {
    ($t:ty $(, $indexed:ident)?) => {{
        let wrapping_sum = |v: &[$t]| v.iter().fold(0i128, |a, &x| a.wrapping_add(x as i128));
        let starts: [$t; 3] = [0, <$t>::MIN, <$t>::MAX / 2];
        for start in starts {
            for &len in LENGTHS {
                let Some(end) = <$t>::try_from(len).ok().and_then(|l| start.checked_add(l)) else {
                    continue;
                };
                let seq: Vec<$t> = (start..end).collect();
                let par: Vec<$t> = (start..end).into_par_iter().collect();
                assert_eq!(par, seq, "{}..{}", start, end);
                let sum = (start..end)
                    .into_par_iter()
                    .map(|x| x as i128)
                    .reduce(|| 0, i128::wrapping_add);
                assert_eq!(sum, wrapping_sum(&seq));
                $(check_type!(@$indexed start..end, seq);)?
                if len > 0 {
                    let last = end - 1;
                    let par: Vec<$t> = (start..=last).into_par_iter().collect();
                    assert_eq!(par, seq, "{}..={}", start, last);
                    $(check_type!(@$indexed start..=last, seq);)?
                }
            }
            // Empty, reversed and exhausted ranges.
            let one = start.checked_add(1).unwrap_or(start);
            #[allow(clippy::reversed_empty_ranges)]
            {
                assert_eq!((one..start).into_par_iter().count(), (one..start).count());
                assert_eq!((start..start).into_par_iter().count(), 0);
            }
            let mut exhausted = start..=start;
            exhausted.next();
            assert_eq!(exhausted.into_par_iter().count(), 0);
        }
        // The end of the domain, where `start..end` cannot be written.
        let top = <$t>::MAX - 70..=<$t>::MAX;
        let seq: Vec<$t> = top.clone().collect();
        assert_eq!(top.clone().into_par_iter().collect::<Vec<_>>(), seq);
        $(check_type!(@$indexed top, seq);)?
    }};
    (@indexed $range:expr, $seq:expr) => {{
        assert_eq!($range.clone().into_par_iter().len(), $seq.len());
        let pieces: Vec<_> = $range.clone().into_par_iter().with_max_len(7).enumerate().collect();
        assert_eq!(pieces, $seq.iter().copied().enumerate().collect::<Vec<_>>());
    }};
}

#[test]
fn every_integer_type_matches_std() {
    everywhere(|| {
        check_type!(u8, indexed);
        check_type!(u16, indexed);
        check_type!(u32, indexed);
        check_type!(u64, indexed);
        check_type!(usize, indexed);
        check_type!(i8, indexed);
        check_type!(i16, indexed);
        check_type!(i32, indexed);
        check_type!(i64, indexed);
        check_type!(isize, indexed);
        check_type!(u128);
        check_type!(i128);
    });
}

#[test]
fn whole_domains_inclusive() {
    everywhere(|| {
        assert_eq!(
            (0..=u8::MAX).into_par_iter().collect::<Vec<_>>(),
            (0..=u8::MAX).collect::<Vec<_>>()
        );
        assert_eq!(
            (i8::MIN..=i8::MAX).into_par_iter().collect::<Vec<_>>(),
            (i8::MIN..=i8::MAX).collect::<Vec<_>>()
        );
        assert_eq!(
            (0..=u16::MAX).into_par_iter().map(u64::from).sum::<u64>(),
            (0..=u16::MAX).map(u64::from).sum::<u64>()
        );
        assert_eq!(
            (i16::MIN..=i16::MAX).into_par_iter().collect::<Vec<_>>(),
            (i16::MIN..=i16::MAX).collect::<Vec<_>>()
        );
        assert_eq!((0..=u32::MAX).into_par_iter().len(), 1 << 32);
        assert_eq!((i32::MIN..=i32::MAX).into_par_iter().len(), 1 << 32);
        assert_eq!((i64::MIN..=i64::MAX - 1).into_par_iter().len(), usize::MAX);
    });
}

/// `u128`/`i128` ranges longer than `usize::MAX` work with the consumers that stop early, without
/// visiting every item.
#[test]
fn ranges_longer_than_usize() {
    everywhere(|| {
        assert_eq!(
            (0..u128::MAX).into_par_iter().find_any(|&x| x == 5),
            Some(5)
        );
        assert_eq!(
            (0..=u128::MAX).into_par_iter().find_any(|&x| x == 7),
            Some(7)
        );
        assert_eq!(
            (i128::MIN..=i128::MAX)
                .into_par_iter()
                .find_any(|&x| x == i128::MIN + 3),
            Some(i128::MIN + 3)
        );
        assert!((0..1u128 << 100).into_par_iter().any(|x| x == 1));
        // `while_some` stops every piece at the first `None`.
        let few: Vec<u128> = (0..1u128 << 70)
            .into_par_iter()
            .map(|x| (x < 100).then_some(x * 2))
            .while_some()
            .collect();
        assert!(few.len() <= 100 && few.iter().all(|x| x % 2 == 0 && *x < 200));
        // Short ones are still exact.
        let near_top: Vec<i128> = (i128::MAX - 5..=i128::MAX).into_par_iter().collect();
        assert_eq!(near_top, (i128::MAX - 5..=i128::MAX).collect::<Vec<_>>());
    });
}

/// `char` ranges yield the scalar values, skipping the surrogate gap like std's.
#[test]
fn char_ranges_match_std() {
    everywhere(|| {
        let all: Vec<char> = ('\0'..=char::MAX).into_par_iter().collect();
        assert_eq!(all, ('\0'..=char::MAX).collect::<Vec<_>>());
        assert_eq!(all.len(), 0x11_0000 - 0x800);
        assert_eq!(('\0'..=char::MAX).into_par_iter().len(), all.len());
        let cases = [
            ('a', 'a'),
            ('a', 'b'),
            ('a', 'z'),
            ('\u{D700}', '\u{D7FF}'),
            ('\u{D7FF}', '\u{E000}'),
            ('\u{D7FF}', '\u{E001}'),
            ('\u{D7F0}', '\u{E010}'),
            ('\u{E000}', '\u{E100}'),
            ('\u{10FFF0}', char::MAX),
            ('\0', '\u{10000}'),
        ];
        for (a, b) in cases {
            let seq: Vec<char> = (a..b).collect();
            assert_eq!(
                (a..b).into_par_iter().collect::<Vec<_>>(),
                seq,
                "{a:?}..{b:?}"
            );
            assert_eq!((a..b).into_par_iter().len(), seq.len());
            let split: Vec<(usize, char)> =
                (a..b).into_par_iter().with_max_len(5).enumerate().collect();
            assert_eq!(split, seq.iter().copied().enumerate().collect::<Vec<_>>());
            let seq: Vec<char> = (a..=b).collect();
            assert_eq!(
                (a..=b).into_par_iter().collect::<Vec<_>>(),
                seq,
                "{a:?}..={b:?}"
            );
            let s: String = (a..=b).into_par_iter().collect();
            assert_eq!(s, (a..=b).collect::<String>());
        }
        #[allow(clippy::reversed_empty_ranges)]
        {
            assert_eq!(('b'..'a').into_par_iter().count(), 0);
            assert_eq!(('b'..='a').into_par_iter().count(), 0);
        }
    });
}

/// `step_by` on a range costs what it yields, not the range's length: the leaf skips with
/// `nth`, in constant time on a range. (Walking every skipped item, `(0..usize::MAX)` with a step of
/// 2^60 never finished; a 2^32 range took seconds.) Every indexed range type, at the ends of its
/// domain, against std's `step_by`, forwards and backwards, collected, cut into pieces of one item,
/// counted and enumerated. The watchdog turns a regression into a failure instead of a hang.
macro_rules! check_step_by_ends {
    ($t:ty) => {{
        let ranges: [(std::ops::RangeInclusive<$t>, &str); 4] = [
            (<$t>::MIN..=<$t>::MAX - 1, "MIN..MAX"),
            (<$t>::MIN + 1..=<$t>::MAX, "MIN+1..=MAX"),
            (<$t>::MAX / 2..=<$t>::MAX, "MAX/2..=MAX"),
            (<$t>::MIN..=<$t>::MIN / 2 + 3, "MIN..=MIN/2+3"),
        ];
        for (range, what) in ranges {
            let len = range.clone().into_par_iter().len();
            // Steps that yield from one item to about a thousand.
            for step in [
                len / 1000 + 1,
                len / 7 + 3,
                len / 2,
                len - 1,
                len,
                usize::MAX,
                1 << 60,
            ] {
                let step = step.max(1);
                let seq: Vec<$t> = range.clone().step_by(step).collect();
                let ctx = format!("{}: ({what}).step_by({step})", stringify!($t));
                let it = || range.clone().into_par_iter().step_by(step);
                assert_eq!(it().len(), seq.len(), "{ctx}");
                assert_eq!(it().count(), seq.len(), "{ctx}");
                assert_eq!(it().collect::<Vec<_>>(), seq, "{ctx}");
                let pieces: Vec<$t> = it().with_max_len(1).collect();
                assert_eq!(pieces, seq, "{ctx}, pieces of one");
                let rev: Vec<$t> = it().rev().collect();
                assert!(rev.iter().eq(seq.iter().rev()), "{ctx}, rev");
                let numbered: Vec<(usize, $t)> = it().enumerate().collect();
                assert!(
                    numbered.into_iter().eq(seq.iter().copied().enumerate()),
                    "{ctx}"
                );
                // The half-open form of the same range.
                let (lo, hi) = (*range.start(), *range.end());
                let half: Vec<$t> = (lo..hi).into_par_iter().step_by(step).collect();
                let seq: Vec<$t> = (lo..hi).step_by(step).collect();
                assert_eq!(half, seq, "{ctx}, half-open");
            }
        }
    }};
}

#[test]
fn step_by_costs_what_it_yields_on_every_range_type() {
    common::watchdog("step_by on long ranges", Duration::from_secs(120), || {
        everywhere(|| {
            // The case of the report: rayon answers 16 at once.
            assert_eq!((0..usize::MAX).into_par_iter().step_by(1 << 60).count(), 16);
            assert_eq!(
                (0..usize::MAX)
                    .into_par_iter()
                    .step_by(1 << 60)
                    .collect::<Vec<_>>(),
                (0..usize::MAX).step_by(1 << 60).collect::<Vec<_>>()
            );
            check_step_by_ends!(u8);
            check_step_by_ends!(u16);
            check_step_by_ends!(u32);
            check_step_by_ends!(u64);
            check_step_by_ends!(usize);
            check_step_by_ends!(i8);
            check_step_by_ends!(i16);
            check_step_by_ends!(i32);
            check_step_by_ends!(i64);
            check_step_by_ends!(isize);
            // `char`: across the surrogate gap, which the positions skip.
            for step in [1, 17, 0x800, 0x1_0000, 0x10_0000, usize::MAX] {
                let seq: Vec<char> = ('\0'..=char::MAX).step_by(step).collect();
                let par: Vec<char> = ('\0'..=char::MAX).into_par_iter().step_by(step).collect();
                assert_eq!(par, seq, "chars by {step}");
                let rev: Vec<char> = ('\0'..=char::MAX)
                    .into_par_iter()
                    .step_by(step)
                    .rev()
                    .collect();
                assert!(rev.iter().eq(seq.iter().rev()), "chars by {step}, rev");
            }
        })
    });
}
