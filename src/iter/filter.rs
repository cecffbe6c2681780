//! `filter`: keeps the items a predicate accepts (the result is not indexed).

use super::plumbing::Consumer;
use super::ParallelIterator;

/// Parallel iterator returned by [`ParallelIterator::filter`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Filter<I, P> {
    base: I,
    filter_op: P,
}

impl<I, P> Filter<I, P> {
    pub(super) fn new(base: I, filter_op: P) -> Self {
        Filter { base, filter_op }
    }
}

impl<I, P> ParallelIterator for Filter<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        let filter_op = &self.filter_op;
        self.base.drive_unindexed(FilterConsumer {
            base: consumer,
            filter_op,
        })
    }
}

/// Consumer that drops rejected items before passing the rest on.
#[derive(Debug)]
pub struct FilterConsumer<'p, C, P> {
    base: C,
    filter_op: &'p P,
}

impl<'p, T, C, P> Consumer<T> for FilterConsumer<'p, C, P>
where
    C: Consumer<T>,
    P: Fn(&T) -> bool + Sync,
{
    type Result = C::Result;
    type Reducer = C::Reducer;

    fn consume_iter<I: Iterator<Item = T>>(self, iter: I) -> Self {
        let filter_op = self.filter_op;
        FilterConsumer {
            base: self.base.consume_iter(iter.filter(|x| filter_op(x))),
            filter_op,
        }
    }
    fn split_off(self, keep: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_off(keep);
        let filter_op = self.filter_op;
        (
            FilterConsumer {
                base: left,
                filter_op,
            },
            FilterConsumer {
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
