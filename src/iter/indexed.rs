//! The [`IndexedParallelIterator`] trait: iterators that know their length and can be cut at any index.

use super::collect::collect_indexed_into;
use super::enumerate::Enumerate;
use super::into::IntoParallelIterator;
use super::len_bounds::{MaxLen, MinLen};
use super::plumbing::ProducerCallback;
use super::zip::Zip;
use super::ParallelIterator;

/// A parallel iterator with a known length whose items have positions (ranges, slices, vectors,
/// chunks, and `map`/`enumerate`/`zip`/`copied`/`cloned` of those). Only these can be `zip`ped or
/// `enumerate`d; `filter` and `fold` produce plain [`ParallelIterator`]s.
///
/// ```
/// use forkjoin::prelude::*;
/// let a = [1, 2, 3];
/// let b = [10, 20, 30];
/// let dot: i32 = a.par_iter().zip(b.par_iter()).map(|(x, y)| x * y).sum();
/// assert_eq!(dot, 140);
/// ```
#[allow(clippy::len_without_is_empty)] // rayon's trait has no `is_empty`; keep the same surface
pub trait IndexedParallelIterator: ParallelIterator {
    /// The exact number of items.
    fn len(&self) -> usize;

    /// Internal: hands this iterator's producer to `callback`.
    #[doc(hidden)]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output;

    /// Pairs every item with its index.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<(usize, char)> = ['a', 'b'].par_iter().copied().enumerate().collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'b')]);
    /// ```
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// Iterates over pairs from `self` and `other`; the length is the shorter of the two.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<(u32, u32)> = (0..3u32).into_par_iter().zip(10..20u32).collect();
    /// assert_eq!(v, [(0, 10), (1, 11), (2, 12)]);
    /// ```
    fn zip<Z>(self, other: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        Zip::new(self, other.into_par_iter())
    }

    /// Never splits the work into pieces shorter than `min` items (except when the whole input is
    /// shorter). Useful when per-piece setup is expensive; not needed for balance.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let s: u64 = (0..1000u64).into_par_iter().with_min_len(100).sum();
    /// assert_eq!(s, 499_500);
    /// ```
    fn with_min_len(self, min: usize) -> MinLen<Self> {
        MinLen::new(self, min)
    }

    /// Splits the work into pieces of at most `max` items up front (`max = 0` is treated as 1). Where
    /// this conflicts with [`with_min_len`](Self::with_min_len), the minimum wins.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let s: u64 = (0..1000u64).into_par_iter().with_max_len(10).sum();
    /// assert_eq!(s, 499_500);
    /// ```
    fn with_max_len(self, max: usize) -> MaxLen<Self> {
        MaxLen::new(self, max)
    }

    /// Collects into `target` (cleared first), writing every item straight into its final slot.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut v = vec![7; 2];
    /// (0..4u8).into_par_iter().collect_into_vec(&mut v);
    /// assert_eq!(v, [0, 1, 2, 3]);
    /// ```
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        collect_indexed_into(self, target);
    }
}
