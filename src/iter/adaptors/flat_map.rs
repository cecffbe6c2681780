//! `flat_map` and `flatten`: every item becomes a *parallel* iterator whose items are passed on in
//! order (the result is not indexed). For sequential inner iterators see `flat_map_iter`.
//!
//! The outer items are split between threads as usual; each inner iterator is driven in turn, on
//! the thread that made it, into a consumer split off for it, so a long inner iterator is itself
//! split between threads (lazily, like any other). Its result is combined, in order, with those of
//! the inner iterators before it; the consumer left over after the last one is never fed.

use crate::iter::adaptors::debug_impl::debug_skipping_closures;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Reducer};
use crate::iter::{IntoParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`ParallelIterator::flat_map`].
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct FlatMap<I, F> {
    base: I,
    map_op: F,
}

debug_skipping_closures!(FlatMap<I, F> { base: I });

impl<I, F> FlatMap<I, F> {
    pub(in crate::iter) fn new(base: I, map_op: F) -> Self {
        FlatMap { base, map_op }
    }
}

impl<I, F, PI> ParallelIterator for FlatMap<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> PI + Sync + Send,
    PI: IntoParallelIterator,
{
    type Item = PI::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<PI::Item>>(self, consumer: C) -> C::Result {
        self.base
            .drive_lazy(FlatMapConsumer::new(consumer, &self.map_op))
    }
}

/// Parallel iterator returned by [`ParallelIterator::flatten`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Flatten<I> {
    base: I,
}

impl<I> Flatten<I> {
    pub(in crate::iter) fn new(base: I) -> Self {
        Flatten { base }
    }
}

impl<I> ParallelIterator for Flatten<I>
where
    I: ParallelIterator<Item: IntoParallelIterator>,
{
    type Item = <I::Item as IntoParallelIterator>::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        // A function item: zero-sized, `Sync`, and called like `flat_map`'s closure.
        let into_par_iter = <I::Item as IntoParallelIterator>::into_par_iter;
        self.base
            .drive_lazy(FlatMapConsumer::new(consumer, &into_par_iter))
    }
}

/// LazyConsumer of the outer items of [`FlatMap`] and [`Flatten`]. `base` is never fed directly: every
/// inner iterator gets a consumer split off from it, and `base` keeps the rest.
struct FlatMapConsumer<'f, C, R, F> {
    base: C,
    /// The combined results of the inner iterators consumed so far, in order.
    previous: Option<R>,
    map_op: &'f F,
}

impl<'f, C, R, F> FlatMapConsumer<'f, C, R, F> {
    fn new(base: C, map_op: &'f F) -> Self {
        FlatMapConsumer {
            base,
            previous: None,
            map_op,
        }
    }
}

impl<T, C, F, PI> LazyConsumer<T> for FlatMapConsumer<'_, C, C::Result, F>
where
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
    C: LazyConsumer<PI::Item>,
{
    type Result = C::Result;
    type Reducer = C::Reducer;

    fn consume_iter<I: Iterator<Item = T>>(mut self, iter: I) -> Self {
        for item in iter {
            if self.base.full() {
                break;
            }
            let inner = (self.map_op)(item).into_par_iter();
            // How many positions the inner iterator has is not known (the output is not
            // indexed), and the consumers of unindexed streams ignore `keep`.
            let (here, rest, reducer) = self.base.split_off(0);
            let result = inner.drive_lazy(here);
            self.previous = Some(match self.previous.take() {
                None => result,
                Some(previous) => reducer.reduce(previous, result),
            });
            self.base = rest;
        }
        self
    }

    fn split_off(self, keep: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_off(keep);
        let right = FlatMapConsumer::new(right, self.map_op);
        let left = FlatMapConsumer {
            base: left,
            previous: self.previous,
            map_op: self.map_op,
        };
        (left, right, reducer)
    }

    fn complete(self) -> C::Result {
        // `base` was never fed: its result would add nothing (as in rayon, it is not completed).
        match self.previous {
            Some(previous) => previous,
            None => self.base.complete(),
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
    fn prefers_end(&self) -> bool {
        self.base.prefers_end()
    }
    const CAN_PREFER_END: bool = C::CAN_PREFER_END;
}
