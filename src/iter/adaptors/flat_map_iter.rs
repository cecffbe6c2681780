//! `flat_map_iter` and `flatten_iter`: every item becomes a sequential iterator whose items are passed
//! on in order (the result is not indexed).
//!
//! Only the outer items are split between threads; each inner iterator runs on the thread that made
//! it. That is the right choice when the inner sequences are short or cheap, and it needs no
//! parallel inner iterators.

use crate::iter::adaptors::debug_impl::debug_skipping_closures;
use crate::iter::adaptors::item_wise::op_consumer::{FlatMapIterOp, ItemOp, OpConsumer};
use crate::iter::plumbing::LazyConsumer;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::ParallelIterator;

/// Parallel iterator returned by [`ParallelIterator::flat_map_iter`].
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct FlatMapIter<I, F> {
    base: I,
    map_op: F,
}

debug_skipping_closures!(FlatMapIter<I, F> { base: I });

impl<I, F> FlatMapIter<I, F> {
    pub(in crate::iter) fn new(base: I, map_op: F) -> Self {
        FlatMapIter { base, map_op }
    }
}

impl<I, F, SI> ParallelIterator for FlatMapIter<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> SI + Sync + Send,
    SI: IntoIterator<Item: Send>,
{
    type Item = SI::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<SI::Item>>(self, consumer: C) -> C::Result {
        let op = FlatMapIterOp(&self.map_op);
        self.base.drive_lazy(OpConsumer::new(consumer, op))
    }
}

/// Parallel iterator returned by [`ParallelIterator::flatten_iter`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct FlattenIter<I> {
    base: I,
}

impl<I> FlattenIter<I> {
    pub(in crate::iter) fn new(base: I) -> Self {
        FlattenIter { base }
    }
}

impl<I> ParallelIterator for FlattenIter<I>
where
    I: ParallelIterator<Item: IntoIterator<Item: Send>>,
{
    type Item = <I::Item as IntoIterator>::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.base
            .drive_lazy(OpConsumer::new(consumer, FlattenIterOp))
    }
}

/// The `ItemOp` of `flatten_iter`: replaces every item by its own items.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FlattenIterOp;

impl<T: IntoIterator> ItemOp<T> for FlattenIterOp {
    type Out = T::Item;
    fn apply<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = T::Item> {
        iter.flatten()
    }
}
