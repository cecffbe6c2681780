//! Sources that repeat one item: [`repeat_n`] (`n` clones, indexed) and [`repeat`] (endless).

use crate::iter::adaptors::zips::zip::Zip;
use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// Parallel iterator over `n` clones of an item, from [`repeat_n`] (rayon's `iter::RepeatN`).
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct RepeatN<T> {
    item: Option<T>,
    count: usize,
}

/// A parallel iterator over `n` clones of `item` (the last one is `item` itself), like
/// [`std::iter::repeat_n`]. Indexed.
///
/// ```
/// use forkjoin::prelude::*;
/// let v: Vec<(usize, &str)> = forkjoin::iter::repeat_n("x", 3).enumerate().collect();
/// assert_eq!(v, [(0, "x"), (1, "x"), (2, "x")]);
/// ```
pub fn repeat_n<T: Clone + Send>(item: T, n: usize) -> RepeatN<T> {
    RepeatN {
        item: (n > 0).then_some(item),
        count: n,
    }
}

impl<T: Clone + Send> ParallelIterator for RepeatN<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.count)
    }
}

impl<T: Clone + Send> IndexedParallelIterator for RepeatN<T> {
    fn len(&self) -> usize {
        self.count
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(RepeatNProducer {
            item: self.item,
            count: self.count,
        })
    }
}

/// The producer of a [`RepeatN`]: `count` positions, all the same item (`None` iff `count == 0`).
#[derive(Debug)]
struct RepeatNProducer<T> {
    item: Option<T>,
    count: usize,
}

impl<T: Clone + Send> Producer for RepeatNProducer<T> {
    type Item = T;
    type IntoIter = RepeatNIter<T>;

    fn split_at(self, index: usize) -> (Self, Self) {
        debug_assert!(index <= self.count);
        let right_count = self.count - index;
        // Clone only when both halves have items.
        let (left, right) = match self.item {
            Some(item) if index > 0 && right_count > 0 => (Some(item.clone()), Some(item)),
            Some(item) if index > 0 => (Some(item), None),
            item => (None, item),
        };
        (
            RepeatNProducer {
                item: left,
                count: index,
            },
            RepeatNProducer {
                item: right,
                count: right_count,
            },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        RepeatNIter {
            item: self.item,
            count: self.count,
        }
    }
}

/// Sequential iterator over `count` clones of `item` (the last one is `item` itself); `item` is
/// `None` iff `count == 0`. (std's `RepeatN` needs an item even when empty.)
#[derive(Debug, Clone)]
pub(crate) struct RepeatNIter<T> {
    item: Option<T>,
    count: usize,
}

impl<T: Clone> Iterator for RepeatNIter<T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        self.count = self.count.checked_sub(1)?;
        if self.count == 0 {
            self.item.take()
        } else {
            self.item.clone()
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.count, Some(self.count))
    }

    /// Skips without cloning (`step_by` skips through `nth`); skipping past the end drops the
    /// item.
    #[inline]
    fn nth(&mut self, n: usize) -> Option<T> {
        if n >= self.count {
            self.count = 0;
            self.item = None;
            return None;
        }
        self.count -= n;
        self.next()
    }
}

impl<T: Clone> DoubleEndedIterator for RepeatNIter<T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        self.next()
    }

    #[inline]
    fn nth_back(&mut self, n: usize) -> Option<T> {
        self.nth(n)
    }
}

impl<T: Clone> ExactSizeIterator for RepeatNIter<T> {}

/// Parallel iterator over endless clones of an item, from [`repeat`] (rayon's `iter::Repeat`).
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Repeat<T> {
    item: T,
}

/// A parallel iterator over endless clones of `item`, like [`std::iter::repeat`]. Not indexed; use
/// a consumer that stops early (`find_any`, `any`, `while_some`), or [`Repeat::take`] /
/// [`Repeat::zip`] to bound it.
///
/// ```
/// use forkjoin::prelude::*;
/// let x = forkjoin::iter::repeat(4).find_any(|&x| x % 2 == 0);
/// assert_eq!(x, Some(4));
/// let v: Vec<(i32, char)> = forkjoin::iter::repeat(1).zip(['a', 'b']).collect();
/// assert_eq!(v, [(1, 'a'), (1, 'b')]);
/// ```
pub fn repeat<T: Clone + Send>(item: T) -> Repeat<T> {
    Repeat { item }
}

impl<T: Clone + Send> Repeat<T> {
    /// The first `n` clones: [`repeat_n(item, n)`](repeat_n), indexed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!(forkjoin::iter::repeat('z').take(3).collect::<String>(), "zzz");
    /// ```
    pub fn take(self, n: usize) -> RepeatN<T> {
        repeat_n(self.item, n)
    }

    /// Pairs a clone of the item with every item of the indexed `zip_op`, which sets the length.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<(u8, u32)> = forkjoin::iter::repeat(0u8).zip(5..7u32).collect();
    /// assert_eq!(v, [(0, 5), (0, 6)]);
    /// ```
    pub fn zip<Z>(self, zip_op: Z) -> Zip<RepeatN<T>, Z::Iter>
    where
        Z: IntoParallelIterator<Iter: IndexedParallelIterator>,
    {
        let other = zip_op.into_par_iter();
        let n = other.len();
        self.take(n).zip(other)
    }
}

impl<T: Clone + Send> ParallelIterator for Repeat<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<T>>(self, consumer: C) -> C::Result {
        // "Endless" is `usize::MAX` positions, split lazily like any other run: no consumer that
        // stops early gets anywhere near the end.
        self.take(usize::MAX).drive_lazy(consumer)
    }
}
