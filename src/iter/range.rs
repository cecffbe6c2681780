//! Parallel iteration over integer ranges: `(a..b).into_par_iter()` and `(a..=b).into_par_iter()`.

use std::ops::{Range, RangeInclusive};

use super::bridge::BridgeCallback;
use super::plumbing::{Consumer, Producer, ProducerCallback};
use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// Parallel iterator over an integer range (half-open or inclusive), produced by `into_par_iter()`.
///
/// ```
/// use forkjoin::prelude::*;
/// assert_eq!((0..=u8::MAX).into_par_iter().count(), 256);
/// assert_eq!((-5..5i32).into_par_iter().sum::<i32>(), -5);
/// ```
#[derive(Debug, Clone)]
pub struct RangeIter<T> {
    start: T,
    len: usize,
}

/// The producer of a [`RangeIter`]: `len` consecutive integers starting at `start`.
#[derive(Debug)]
pub struct RangeProducer<T> {
    start: T,
    len: usize,
}

/// Integer types that can be iterated in parallel (implemented for the primitive integers up to 64 bits).
pub trait RangeInteger: Copy + Send + Sync + 'static {
    /// `self + n`, where the caller guarantees the result is in range.
    #[doc(hidden)]
    fn offset(self, n: usize) -> Self;
    /// Number of values in `start..end` (0 if empty), or `None` if it exceeds `usize::MAX`.
    #[doc(hidden)]
    fn distance(start: Self, end_exclusive: i128) -> Option<usize>;
    /// The value as an `i128`.
    #[doc(hidden)]
    fn to_i128(self) -> i128;
    /// Folds `f` over the `len` values starting at `start`, in order.
    #[doc(hidden)]
    fn fold_run<B, F: FnMut(B, Self) -> B>(start: Self, len: usize, init: B, f: F) -> B;
}

macro_rules! range_integer {
    ($($t:ty),*) => {$(
        impl RangeInteger for $t {
            #[inline]
            fn offset(self, n: usize) -> Self {
                // The result lies in the original range, so the truncating cast and wrapping add give
                // exactly the mathematical value.
                self.wrapping_add(n as $t)
            }
            fn distance(start: Self, end_exclusive: i128) -> Option<usize> {
                usize::try_from((end_exclusive - start as i128).max(0)).ok()
            }
            fn to_i128(self) -> i128 {
                self as i128
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

        impl IntoParallelIterator for Range<$t> {
            type Iter = RangeIter<$t>;
            type Item = $t;
            fn into_par_iter(self) -> RangeIter<$t> {
                RangeIter::new(self.start, self.end as i128)
            }
        }

        impl IntoParallelIterator for RangeInclusive<$t> {
            type Iter = RangeIter<$t>;
            type Item = $t;
            fn into_par_iter(self) -> RangeIter<$t> {
                let (start, end) = (*self.start(), *self.end());
                if self.is_empty() {
                    // `is_empty` also covers an exhausted inclusive range.
                    RangeIter { start, len: 0 }
                } else {
                    RangeIter::new(start, end as i128 + 1)
                }
            }
        }
    )*};
}

range_integer!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl<T: RangeInteger> RangeIter<T> {
    fn new(start: T, end_exclusive: i128) -> Self {
        let len = T::distance(start, end_exclusive).unwrap_or_else(|| {
            panic!(
                "parallel range {}..{} has more than usize::MAX items",
                start.to_i128(),
                end_exclusive
            )
        });
        RangeIter { start, len }
    }
}

impl<T: RangeInteger> ParallelIterator for RangeIter<T> {
    type Item = T;

    fn drive_unindexed<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.with_producer(BridgeCallback(consumer))
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len)
    }
}

impl<T: RangeInteger> IndexedParallelIterator for RangeIter<T> {
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

    fn len(&self) -> usize {
        self.len
    }

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

/// Sequential iterator over a [`RangeProducer`]: `start + i` for the offsets `i` in `0..len`.
///
/// Counting offsets in a `Range<usize>` (instead of iterating `start..end` directly) never overflows,
/// even for a range that ends at the type's maximum, and compiles to the same tight loop.
#[derive(Debug, Clone)]
pub struct RangeSeq<T> {
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
}
