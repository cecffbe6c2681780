//! `filter_map`: maps every item to an `Option` and keeps the `Some`s (the result is not indexed).

use super::plumbing::Consumer;
use super::ParallelIterator;

/// Parallel iterator returned by [`ParallelIterator::filter_map`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct FilterMap<I, P> {
    base: I,
    filter_op: P,
}

impl<I, P> FilterMap<I, P> {
    pub(super) fn new(base: I, filter_op: P) -> Self {
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

    fn drive_unindexed<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let filter_op = &self.filter_op;
        self.base.drive_unindexed(FilterMapConsumer {
            base: consumer,
            filter_op,
        })
    }
}

/// Consumer that applies a `filter_map` function before passing the kept values on.
#[derive(Debug)]
pub struct FilterMapConsumer<'p, C, P> {
    base: C,
    filter_op: &'p P,
}

impl<'p, T, R, C, P> Consumer<T> for FilterMapConsumer<'p, C, P>
where
    C: Consumer<R>,
    P: Fn(T) -> Option<R> + Sync,
{
    type Result = C::Result;
    type Reducer = C::Reducer;

    fn consume_iter<I: Iterator<Item = T>>(self, iter: I) -> Self {
        let filter_op = self.filter_op;
        FilterMapConsumer {
            base: self.base.consume_iter(iter.filter_map(filter_op)),
            filter_op,
        }
    }
    fn split_off(self, keep: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_off(keep);
        let filter_op = self.filter_op;
        (
            FilterMapConsumer {
                base: left,
                filter_op,
            },
            FilterMapConsumer {
                base: right,
                filter_op,
            },
            reducer,
        )
    }
    fn complete(self) -> C::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}
