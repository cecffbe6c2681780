//! Parallel iteration over ranges of integers and `char`s: `(a..b).into_par_iter()` and
//! `(a..=b).into_par_iter()`.
//!
//! `IntoParallelIterator` is implemented once for `Range<T>` and once for `RangeInclusive<T>`, generic
//! over `T: RangeInteger`, as in rayon. That is what lets an untyped literal range fall back to `i32`:
//! `(0..100).into_par_iter()` has the known type `RangeIter<{integer}>`, whose methods the compiler can
//! look up before it picks the integer type. (One impl per integer type would leave the iterator's
//! type unknown until then, and every method call on it an error: "type annotations needed".)
//!
//! ```
//! use forkjoin::prelude::*;
//! let s: i32 = (0..100).into_par_iter().sum();
//! assert_eq!(s, 4950);
//! let doubled = (0..4).into_par_iter().map(|x| x * 2).collect::<Vec<_>>();
//! assert_eq!(doubled, [0, 2, 4, 6]);
//! ```
//!
//! Ranges of up to 64-bit integers and of `char`s are indexed (rayon's `u64`/`i64` ranges are not);
//! their length must fit in a `usize`, so `(0..=u64::MAX).into_par_iter()` panics on a 64-bit target.
//! Ranges of `u128`/`i128` may be longer than that: they are not indexed, and a range longer than
//! `usize::MAX` is halved with `join` until every piece fits.

use std::fmt::Debug;
use std::ops::{Range, RangeInclusive};

use crate::iter::plumbing::bridge::{bridge_pieces, Piece};
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback, Reducer};
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// Parallel iterator over a range of integers or `char`s (half-open or inclusive), produced by
/// `into_par_iter()`; rayon's `range::Iter` and `range_inclusive::Iter`.
///
/// ```
/// use forkjoin::prelude::*;
/// assert_eq!((0..=u8::MAX).into_par_iter().count(), 256);
/// assert_eq!((-5..5i32).into_par_iter().sum::<i32>(), -5);
/// assert_eq!(('a'..='e').into_par_iter().collect::<String>(), "abcde");
/// assert_eq!((0..1u128 << 100).into_par_iter().find_any(|&x| x == 1 << 99), Some(1 << 99));
/// ```
#[derive(Debug, Clone)]
pub struct RangeIter<T: RangeInteger> {
    start: T,
    len: T::Len,
}

/// The producer of a [`RangeIter`]: `len` consecutive integers starting at `start`.
#[derive(Debug)]
pub(crate) struct RangeProducer<T> {
    start: T,
    len: usize,
}

/// The types whose ranges can be iterated in parallel: every primitive integer type and `char`.
pub trait RangeInteger: Copy + PartialOrd + Send + Sync + 'static {
    /// How a range's length is kept: `usize` for the indexed ranges (integers up to 64 bits, `char`),
    /// `Option<u128>` (the offset of the last item; `None` when empty) for `u128` and `i128`.
    #[doc(hidden)]
    type Len: Copy + Debug + Send + Sync;
    /// `self + n` (for `char`: the `n`th scalar value after `self`), where the caller guarantees
    /// that `n` is at most the range's length. At the length itself (one past the end, which is
    /// never yielded) the value may be clamped.
    #[doc(hidden)]
    fn offset(self, n: usize) -> Self;
    /// The length of `start..end` (empty if `end <= start`); panics if it does not fit in `Len`.
    #[doc(hidden)]
    fn len_exclusive(start: Self, end: Self) -> Self::Len;
    /// The length of `start..=end`, where `start <= end`; panics if it does not fit in `Len`.
    #[doc(hidden)]
    fn len_inclusive(start: Self, end: Self) -> Self::Len;
    /// The length as a `usize`, or `None` if it does not fit.
    #[doc(hidden)]
    fn opt_len(len: Self::Len) -> Option<usize>;
    /// Feeds the `len` values starting at `start` into `consumer`, in parallel.
    #[doc(hidden)]
    fn drive<C: LazyConsumer<Self>>(start: Self, len: Self::Len, consumer: C) -> C::Result;
    /// Folds `f` over the `len` values starting at `start`, in order.
    #[doc(hidden)]
    fn fold_run<B, F: FnMut(B, Self) -> B>(start: Self, len: usize, init: B, f: F) -> B;
}

/// The number of items of a range, as a `usize`; panics if there are more.
///
/// Inlined: every parallel range call computes its length here (a nested call of ten items pays
/// for it each time), and for types of up to 64 bits the 128-bit arithmetic folds to a subtraction.
#[inline(always)]
fn usize_len(count: i128) -> usize {
    match usize::try_from(count.max(0)) {
        Ok(len) => len,
        Err(_) => too_many_items(count),
    }
}

#[cold]
#[inline(never)]
fn too_many_items(count: i128) -> ! {
    panic!("parallel range with more than usize::MAX items ({count})")
}

macro_rules! range_integer {
    ($($t:ty),*) => {$(
        impl RangeInteger for $t {
            type Len = usize;
            #[inline]
            fn offset(self, n: usize) -> Self {
                // The result lies in the original range, so the truncating cast and wrapping add give
                // exactly the mathematical value.
                self.wrapping_add(n as $t)
            }
            #[inline]
            fn len_exclusive(start: Self, end: Self) -> usize {
                usize_len(end as i128 - start as i128)
            }
            #[inline]
            fn len_inclusive(start: Self, end: Self) -> usize {
                usize_len(end as i128 - start as i128 + 1)
            }
            #[inline]
            fn opt_len(len: usize) -> Option<usize> {
                Some(len)
            }
            #[inline]
            fn drive<C: LazyConsumer<Self>>(start: Self, len: usize, consumer: C) -> C::Result {
                bridge_pieces(RangeProducer { start, len }, consumer)
            }
            #[inline]
            fn fold_run<B, F: FnMut(B, Self) -> B>(start: Self, len: usize, init: B, mut f: F) -> B {
                let end = start.wrapping_add(len as $t);
                if start as i128 + len as i128 == end as i128 {
                    // The common case: std's own `Range` loop, the shape LLVM optimises best (one
                    // induction variable that is the item itself).
                    (start..end).fold(init, f)
                } else {
                    // The run ends at the type's maximum, where `start..end` cannot be written.
                    (0..len).fold(init, move |acc, i| f(acc, start.offset(i)))
                }
            }
        }

    )*};
}

range_integer!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// `u128` and `i128`: a range may hold more than `usize::MAX` items (up to 2^128), so the length is
/// kept as the offset of the last item, and such ranges are not indexed.
macro_rules! wide_range_integer {
    ($($t:ty),*) => {$(
        impl RangeInteger for $t {
            type Len = Option<u128>;
            #[inline]
            fn offset(self, n: usize) -> Self {
                self.wrapping_add(n as $t)
            }
            fn len_exclusive(start: Self, end: Self) -> Option<u128> {
                // The wrapping difference, read unsigned, is the distance when `start < end`.
                (start < end).then(|| end.wrapping_sub(start) as u128 - 1)
            }
            fn len_inclusive(start: Self, end: Self) -> Option<u128> {
                Some(end.wrapping_sub(start) as u128)
            }
            fn opt_len(len: Option<u128>) -> Option<usize> {
                match len {
                    None => Some(0),
                    Some(last) => usize::try_from(last).ok()?.checked_add(1),
                }
            }
            fn drive<C: LazyConsumer<Self>>(start: Self, len: Option<u128>, consumer: C) -> C::Result {
                let add: fn(Self, u128) -> Self = |x, n| x.wrapping_add(n as $t);
                drive_wide(start, len, consumer, add, usize::MAX as u128)
            }
            #[inline]
            fn fold_run<B, F: FnMut(B, Self) -> B>(start: Self, len: usize, init: B, mut f: F) -> B {
                match start.checked_add(len as $t) {
                    Some(end) => (start..end).fold(init, f),
                    // The run ends at the type's maximum.
                    None => (0..len).fold(init, move |acc, i| f(acc, start.offset(i))),
                }
            }
        }
    )*};
}

wide_range_integer!(u128, i128);

/// Drives a `u128`/`i128` range whose last item is at offset `last` (`None`: empty) from `start`:
/// a range of at most `max_piece` items (`usize::MAX` but in tests) goes to the bridge as one
/// producer; a longer one is halved with `join` until it fits (at most 64 levels), stopping early
/// once the consumer is full.
fn drive_wide<T, C>(
    start: T,
    last: Option<u128>,
    consumer: C,
    add: fn(T, u128) -> T,
    max_piece: u128,
) -> C::Result
where
    T: RangeInteger,
    C: LazyConsumer<T>,
{
    let last = match last {
        None => return bridge_pieces(RangeProducer { start, len: 0 }, consumer),
        Some(last) => last,
    };
    if last < max_piece {
        // `last + 1 <= max_piece <= usize::MAX` items.
        let len = (last + 1) as usize;
        return bridge_pieces(RangeProducer { start, len }, consumer);
    }
    if consumer.full() {
        return consumer.complete();
    }
    // Left: offsets 0..=left_last; right: the `last - left_last` items after them.
    let left_last = last / 2;
    let right_start = add(start, left_last + 1);
    let right_last = last - left_last - 1;
    // `keep` cannot be exact here, and need not be: a range this long has no `opt_len`, so its
    // consumers are not positional (only an indexed `collect` writes by position).
    let keep = usize::try_from(left_last + 1).unwrap_or(usize::MAX);
    let from_end = consumer.prefers_end();
    let (left, right, reducer) = consumer.split_off(keep);
    let left = move || drive_wide(start, Some(left_last), left, add, max_piece);
    let right = move || drive_wide(right_start, Some(right_last), right, add, max_piece);
    let (a, b) = if from_end {
        // The right half first (see `LazyConsumer::prefers_end`).
        let (b, a) = crate::join(right, left);
        (a, b)
    } else {
        crate::join(left, right)
    };
    reducer.reduce(a, b)
}

/// The first scalar value after the surrogate gap, and the gap's size.
const AFTER_GAP: u32 = 0xE000;
const GAP: u32 = 0xE000 - 0xD800;

/// `char`: the scalar values, skipping the surrogate gap `0xD800..0xE000` as std's `char` ranges do.
impl RangeInteger for char {
    type Len = usize;
    #[inline]
    fn offset(self, n: usize) -> Self {
        let from = self as u32;
        // In range, so `n` fits: there are fewer than 2^21 scalar values.
        let mut to = from + n as u32;
        if from < 0xD800 && to >= 0xD800 {
            to += GAP;
        }
        // Only one past the end of a range that ends at `char::MAX` is not a scalar value.
        char::from_u32(to).unwrap_or(char::MAX)
    }
    fn len_exclusive(start: Self, end: Self) -> usize {
        let (from, to) = (start as u32, end as u32);
        if to <= from {
            0
        } else if from < 0xD800 && to >= AFTER_GAP {
            (to - from - GAP) as usize
        } else {
            (to - from) as usize
        }
    }
    fn len_inclusive(start: Self, end: Self) -> usize {
        Self::len_exclusive(start, end) + 1
    }
    #[inline]
    fn opt_len(len: usize) -> Option<usize> {
        Some(len)
    }
    fn drive<C: LazyConsumer<Self>>(start: Self, len: usize, consumer: C) -> C::Result {
        bridge_pieces(RangeProducer { start, len }, consumer)
    }
    #[inline]
    fn fold_run<B, F: FnMut(B, Self) -> B>(start: Self, len: usize, init: B, f: F) -> B {
        match len {
            0 => init,
            // std's inclusive `char` range skips the gap itself and can end at `char::MAX`.
            _ => (start..=start.offset(len - 1)).fold(init, f),
        }
    }
}

/// Every range of a `RangeInteger` type: one generic impl (as in rayon), so that the item type of
/// `(0..n).into_par_iter()` can still be inferred, falling back to `i32`.
///
/// ```
/// use forkjoin::prelude::*;
/// let n = 10;
/// assert_eq!((0..n).into_par_iter().count(), 10);
/// ```
impl<T: RangeInteger> IntoParallelIterator for Range<T> {
    type Iter = RangeIter<T>;
    type Item = T;
    #[inline]
    fn into_par_iter(self) -> RangeIter<T> {
        RangeIter {
            start: self.start,
            len: T::len_exclusive(self.start, self.end),
        }
    }
}

/// Every inclusive range of a `RangeInteger` type, up to the type's maximum.
///
/// ```
/// use forkjoin::prelude::*;
/// assert_eq!((0..=100).into_par_iter().sum::<i32>(), 5050);
/// assert_eq!((i8::MIN..=i8::MAX).into_par_iter().count(), 256);
/// ```
impl<T: RangeInteger> IntoParallelIterator for RangeInclusive<T> {
    type Iter = RangeIter<T>;
    type Item = T;
    #[inline]
    fn into_par_iter(self) -> RangeIter<T> {
        let start = *self.start();
        let len = if self.is_empty() {
            // `is_empty` also covers an exhausted inclusive range.
            T::len_exclusive(start, start)
        } else {
            T::len_inclusive(start, *self.end())
        };
        RangeIter { start, len }
    }
}

impl<T: RangeInteger> ParallelIterator for RangeIter<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    #[inline]
    fn drive_lazy<C: LazyConsumer<T>>(self, consumer: C) -> C::Result {
        T::drive(self.start, self.len, consumer)
    }

    #[inline]
    fn opt_len(&self) -> Option<usize> {
        T::opt_len(self.len)
    }
}

/// Ranges of integers up to 64 bits and of `char`s.
impl<T: RangeInteger<Len = usize>> IndexedParallelIterator for RangeIter<T> {
    fn len(&self) -> usize {
        self.len
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(RangeProducer {
            start: self.start,
            len: self.len,
        })
    }
}

impl<T: RangeInteger> Producer for RangeProducer<T> {
    type Item = T;
    type IntoIter = RangeSeq<T>;

    fn split_at(self, index: usize) -> (Self, Self) {
        debug_assert!(index <= self.len);
        let right = RangeProducer {
            start: self.start.offset(index),
            len: self.len - index,
        };
        (
            RangeProducer {
                start: self.start,
                len: index,
            },
            right,
        )
    }

    fn into_iter(self) -> RangeSeq<T> {
        RangeSeq {
            start: self.start,
            offsets: 0..self.len,
        }
    }
}

/// A range's producer knows its length, so the bridge drives it as it is (no separate count on
/// the hot path of nested small sums).
impl<T: RangeInteger> Piece for RangeProducer<T> {
    type Item = T;
    type IntoIter = RangeSeq<T>;
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        Producer::split_at(self, index)
    }
    #[inline]
    fn into_iter(self) -> RangeSeq<T> {
        Producer::into_iter(self)
    }
}

/// Sequential iterator over a [`RangeProducer`]: `start + i` for the offsets `i` in `0..len`.
///
/// Counting offsets in a `Range<usize>` (instead of iterating `start..end` directly) never overflows,
/// even for a range that ends at the type's maximum, and compiles to the same tight loop.
#[derive(Debug, Clone)]
pub(crate) struct RangeSeq<T> {
    start: T,
    offsets: Range<usize>,
}

impl<T: RangeInteger> Iterator for RangeSeq<T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        let i = self.offsets.next()?;
        Some(self.start.offset(i))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.offsets.size_hint()
    }

    /// Skips by moving the offset, as std's ranges do: `step_by`, `skip` and `nth` cost what they
    /// yield, not what they pass over (the default walks every skipped item, which on
    /// `(0..usize::MAX).into_par_iter().step_by(1 << 60)` never ends).
    #[inline]
    fn nth(&mut self, n: usize) -> Option<T> {
        let i = self.offsets.nth(n)?;
        Some(self.start.offset(i))
    }

    #[inline]
    fn count(self) -> usize {
        self.offsets.len()
    }

    #[inline]
    fn last(mut self) -> Option<T> {
        self.next_back()
    }

    #[inline]
    fn fold<B, F: FnMut(B, T) -> B>(self, init: B, f: F) -> B {
        let start = self.start.offset(self.offsets.start);
        T::fold_run(start, self.offsets.len(), init, f)
    }
}

impl<T: RangeInteger> ExactSizeIterator for RangeSeq<T> {}

impl<T: RangeInteger> DoubleEndedIterator for RangeSeq<T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        let i = self.offsets.next_back()?;
        Some(self.start.offset(i))
    }

    /// Skips from the back in constant time, like [`Iterator::nth`] above.
    #[inline]
    fn nth_back(&mut self, n: usize) -> Option<T> {
        let i = self.offsets.nth_back(n)?;
        Some(self.start.offset(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `u128` range driven with pieces of at most `max_piece` items, to check the halving of
    /// ranges longer than `usize::MAX` on short ones.
    struct Pieces {
        start: u128,
        last: Option<u128>,
        max_piece: u128,
    }

    impl ParallelIterator for Pieces {
        type Item = u128;
        fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
            drive_unindexed_lazily(self, consumer)
        }

        fn drive_lazy<C: LazyConsumer<u128>>(self, consumer: C) -> C::Result {
            let add: fn(u128, u128) -> u128 = |x, n| x.wrapping_add(n);
            drive_wide(self.start, self.last, consumer, add, self.max_piece)
        }
    }

    #[test]
    fn long_ranges_halve_into_exact_pieces() {
        for (start, end) in [
            (0u128, 0u128),
            (0, 1),
            (5, 6),
            (0, 100),
            (7, 1031),
            (u128::MAX - 77, u128::MAX),
        ] {
            for max_piece in [1, 2, 3, 7, 64, 1000] {
                let it = Pieces {
                    start,
                    last: u128::len_exclusive(start, end),
                    max_piece,
                };
                let got: Vec<u128> = it.collect();
                assert_eq!(
                    got,
                    (start..end).collect::<Vec<_>>(),
                    "{start}..{end} by {max_piece}"
                );
            }
        }
        // The whole domain, inclusive: 2^128 items, the left half found first.
        let it = Pieces {
            start: 0,
            last: u128::len_inclusive(0, u128::MAX),
            max_piece: 1 << 20,
        };
        assert_eq!(it.find_any(|&x| x == 12345), Some(12345));
    }
}
