//! `positions`: the indices of the items that satisfy a predicate, built on `enumerate` and
//! `filter_map`.

use crate::iter::adaptors::debug_impl::debug_skipping_closures;
use crate::iter::plumbing::LazyConsumer;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`IndexedParallelIterator::positions`]: the indices, in order, of
/// the items for which the predicate holds. Not indexed.
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Positions<I, P> {
    base: I,
    predicate: P,
}

debug_skipping_closures!(Positions<I, P> { base: I });

impl<I, P> Positions<I, P> {
    pub(in crate::iter) fn new(base: I, predicate: P) -> Self {
        Positions { base, predicate }
    }
}

impl<I, P> ParallelIterator for Positions<I, P>
where
    I: IndexedParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    type Item = usize;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<usize>>(self, consumer: C) -> C::Result {
        let predicate = &self.predicate;
        self.base
            .enumerate()
            .filter_map(move |(i, x)| predicate(x).then_some(i))
            .drive_lazy(consumer)
    }
}
