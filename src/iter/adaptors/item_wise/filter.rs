//! `filter`: keeps the items a predicate accepts (the result is not indexed).

use crate::iter::adaptors::debug_impl::debug_skipping_closures;
use crate::iter::adaptors::item_wise::op_consumer::{FilterOp, OpConsumer};
use crate::iter::plumbing::LazyConsumer;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::ParallelIterator;

/// Parallel iterator returned by [`ParallelIterator::filter`].
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Filter<I, P> {
    base: I,
    filter_op: P,
}

debug_skipping_closures!(Filter<I, P> { base: I });

impl<I, P> Filter<I, P> {
    pub(in crate::iter) fn new(base: I, filter_op: P) -> Self {
        Filter { base, filter_op }
    }
}

impl<I, P> ParallelIterator for Filter<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let op = FilterOp(&self.filter_op);
        self.base.drive_lazy(OpConsumer::new(consumer, op))
    }
}
