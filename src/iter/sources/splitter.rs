//! [`split`]: an unindexed source made of user data and a function that cuts it in two.

use std::fmt;

use crate::iter::plumbing::bridge::bridge_unindexed_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{Folder, LazyConsumer, UnindexedProducer};
use crate::iter::ParallelIterator;

/// A parallel iterator over the pieces that `splitter` cuts `data` into: the splitter returns the
/// first part and, if it cut, the second (`(data, None)` when the data cannot or should not be
/// cut further). Each piece that is not cut again is one item, in order: the items, concatenated,
/// cover the original data in its order.
///
/// How far the data is cut is up to the pool (about `log2(threads) + 1` levels, more when idle
/// workers ask for work), so the splitter decides only the smallest pieces.
///
/// ```
/// use forkjoin::iter::split;
/// use forkjoin::prelude::*;
/// // Cut a range into pieces of at most 100 numbers, then sum each piece sequentially.
/// let total: u64 = split(0..1000u64, |r| {
///     if r.end - r.start <= 100 {
///         (r, None)
///     } else {
///         let mid = r.start + (r.end - r.start) / 2;
///         (r.start..mid, Some(mid..r.end))
///     }
/// })
/// .map(|r| r.sum::<u64>())
/// .sum();
/// assert_eq!(total, 499_500);
/// ```
pub fn split<D, S>(data: D, splitter: S) -> Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    Split { data, splitter }
}

/// Parallel iterator returned by [`split`].
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Split<D, S> {
    data: D,
    splitter: S,
}

impl<D: fmt::Debug, S> fmt::Debug for Split<D, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Split").field("data", &self.data).finish()
    }
}

impl<D, S> ParallelIterator for Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync + Send,
{
    type Item = D;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<D>>(self, consumer: C) -> C::Result {
        let piece = DataPiece {
            data: self.data,
            splitter: &self.splitter,
        };
        bridge_unindexed_lazy(piece, consumer)
    }
}

/// A piece of the data: split by the splitter when the bridge asks, else one item.
struct DataPiece<'s, D, S> {
    data: D,
    splitter: &'s S,
}

impl<D, S> UnindexedProducer for DataPiece<'_, D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    type Item = D;

    fn split(self) -> (Self, Option<Self>) {
        let splitter = self.splitter;
        let (left, right) = splitter(self.data);
        (
            DataPiece {
                data: left,
                splitter,
            },
            right.map(|data| DataPiece { data, splitter }),
        )
    }

    fn fold_with<F: Folder<D>>(self, folder: F) -> F {
        folder.consume(self.data)
    }

    fn fold_batch<C: LazyConsumer<D>>(self, consumer: C, _batch: usize) -> (C, Option<Self>) {
        (consumer.consume_iter(std::iter::once(self.data)), None)
    }
}
