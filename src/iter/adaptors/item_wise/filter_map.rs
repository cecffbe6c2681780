//! `filter_map`: maps every item to an `Option` and keeps the `Some`s (the result is not indexed).

use crate::iter::adaptors::debug_impl::debug_skipping_closures;
use crate::iter::adaptors::item_wise::op_consumer::{FilterMapOp, OpConsumer};
use crate::iter::plumbing::LazyConsumer;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::ParallelIterator;

/// Parallel iterator returned by [`ParallelIterator::filter_map`].
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct FilterMap<I, P> {
    base: I,
    filter_op: P,
}

debug_skipping_closures!(FilterMap<I, P> { base: I });

impl<I, P> FilterMap<I, P> {
    pub(in crate::iter) fn new(base: I, filter_op: P) -> Self {
        FilterMap { base, filter_op }
    }
}

impl<I, P, R> ParallelIterator for FilterMap<I, P>
where
    I: ParallelIterator,
    P: Fn(I::Item) -> Option<R> + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<R>>(self, consumer: C) -> C::Result {
        let op = FilterMapOp(&self.filter_op);
        self.base.drive_lazy(OpConsumer::new(consumer, op))
    }
}
