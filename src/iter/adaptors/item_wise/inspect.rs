//! `inspect` and `update`: call a function on every item (by reference, or by exclusive reference
//! to change it) on its way through. Both are a [`Map`](crate::iter::Map) that returns the item, so they
//! stay indexed when their input is.

use crate::iter::adaptors::debug_impl::debug_skipping_closures;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`ParallelIterator::inspect`].
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Inspect<I, F> {
    base: I,
    inspect_op: F,
}

debug_skipping_closures!(Inspect<I, F> { base: I });

impl<I, F> Inspect<I, F> {
    pub(in crate::iter) fn new(base: I, inspect_op: F) -> Self {
        Inspect { base, inspect_op }
    }
}

impl<I, F> ParallelIterator for Inspect<I, F>
where
    I: ParallelIterator,
    F: Fn(&I::Item) + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let op = &self.inspect_op;
        self.base
            .map(move |x| {
                op(&x);
                x
            })
            .drive_lazy(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, F> IndexedParallelIterator for Inspect<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(&I::Item) + Sync + Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let op = &self.inspect_op;
        self.base
            .map(move |x| {
                op(&x);
                x
            })
            .with_producer(callback)
    }
}

/// Parallel iterator returned by [`ParallelIterator::update`].
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Update<I, F> {
    base: I,
    update_op: F,
}

debug_skipping_closures!(Update<I, F> { base: I });

impl<I, F> Update<I, F> {
    pub(in crate::iter) fn new(base: I, update_op: F) -> Self {
        Update { base, update_op }
    }
}

impl<I, F> ParallelIterator for Update<I, F>
where
    I: ParallelIterator,
    F: Fn(&mut I::Item) + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let op = &self.update_op;
        self.base
            .map(move |mut x| {
                op(&mut x);
                x
            })
            .drive_lazy(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, F> IndexedParallelIterator for Update<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(&mut I::Item) + Sync + Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let op = &self.update_op;
        self.base
            .map(move |mut x| {
                op(&mut x);
                x
            })
            .with_producer(callback)
    }
}
