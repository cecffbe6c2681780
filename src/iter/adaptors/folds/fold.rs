//! `fold`: one sequential accumulator per piece, yielded as a (not indexed) parallel iterator.

use crate::iter::adaptors::debug_impl::debug_skipping_closures;
use crate::iter::plumbing::user_op::inlinable_op2;
use crate::iter::plumbing::LazyConsumer;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::ParallelIterator;

/// Parallel iterator returned by [`ParallelIterator::fold`]: yields one accumulator per piece.
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Fold<I, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
}

debug_skipping_closures!(Fold<I, ID, F> { base: I });

impl<I, ID, F> Fold<I, ID, F> {
    pub(in crate::iter) fn new(base: I, identity: ID, fold_op: F) -> Self {
        Fold {
            base,
            identity,
            fold_op,
        }
    }
}

impl<I, ID, F, U> ParallelIterator for Fold<I, ID, F>
where
    I: ParallelIterator,
    F: Fn(U, I::Item) -> U + Sync + Send,
    ID: Fn() -> U + Sync + Send,
    U: Send,
{
    type Item = U;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<U>>(self, consumer: C) -> C::Result {
        let consumer = FoldConsumer {
            base: consumer,
            acc: (self.identity)(),
            identity: &self.identity,
            fold_op: &self.fold_op,
        };
        self.base.drive_lazy(consumer)
    }
}

/// LazyConsumer that folds its items into `acc` and, when complete, passes `acc` on as one item.
#[derive(Debug)]
pub(crate) struct FoldConsumer<'f, C, U, ID, F> {
    base: C,
    acc: U,
    identity: &'f ID,
    fold_op: &'f F,
}

impl<'f, T, U, C, ID, F> LazyConsumer<T> for FoldConsumer<'f, C, U, ID, F>
where
    C: LazyConsumer<U>,
    F: Fn(U, T) -> U + Sync,
    ID: Fn() -> U + Sync,
    U: Send,
{
    type Result = C::Result;
    type Reducer = C::Reducer;

    fn consume_iter<I: Iterator<Item = T>>(self, iter: I) -> Self {
        FoldConsumer {
            // The leaf loop of every `fold().reduce()`: `inlinable_op2`, so that `fold_op` can be
            // inlined into it.
            acc: iter.fold(self.acc, inlinable_op2(self.fold_op)),
            ..self
        }
    }
    fn split_off(self, keep: usize) -> (Self, Self, C::Reducer) {
        // The accumulators are not positioned items, so `keep` means nothing downstream (a `fold` is
        // never collected by index).
        let (left, right, reducer) = self.base.split_off(keep);
        let right = FoldConsumer {
            base: right,
            acc: (self.identity)(),
            identity: self.identity,
            fold_op: self.fold_op,
        };
        (FoldConsumer { base: left, ..self }, right, reducer)
    }
    fn complete(self) -> C::Result {
        self.base.consume_iter(std::iter::once(self.acc)).complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}
