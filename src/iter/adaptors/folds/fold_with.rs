//! `fold_with`: `fold` with every piece's accumulator cloned from one initial value.
//!
//! The initial value need not be `Sync`, so the pieces cannot share it by reference: every
//! consumer carries its own untouched copy (its `init`) to clone for the pieces split off from it,
//! since a consumer can be split after it has folded a prefix (see `map_with`'s `CloneState`).

use std::fmt;

use crate::iter::plumbing::user_op::inlinable_op2;
use crate::iter::plumbing::LazyConsumer;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::ParallelIterator;

/// Parallel iterator returned by [`ParallelIterator::fold_with`]: yields one accumulator per piece.
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct FoldWith<I, U, F> {
    base: I,
    item: U,
    fold_op: F,
}

impl<I, U, F> FoldWith<I, U, F> {
    pub(in crate::iter) fn new(base: I, item: U, fold_op: F) -> Self {
        FoldWith {
            base,
            item,
            fold_op,
        }
    }
}

impl<I: fmt::Debug, U: fmt::Debug, F> fmt::Debug for FoldWith<I, U, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, U, F> ParallelIterator for FoldWith<I, U, F>
where
    I: ParallelIterator,
    F: Fn(U, I::Item) -> U + Sync + Send,
    U: Send + Clone,
{
    type Item = U;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<U>>(self, consumer: C) -> C::Result {
        let consumer = FoldWithConsumer {
            base: consumer,
            acc: None,
            init: self.item,
            fold_op: &self.fold_op,
        };
        self.base.drive_lazy(consumer)
    }
}

/// Folds its items into `acc` (cloned from `init` when the first item arrives) and, when
/// complete, passes the accumulator on as one item.
struct FoldWithConsumer<'f, C, U, F> {
    base: C,
    acc: Option<U>,
    init: U,
    fold_op: &'f F,
}

impl<T, U, C, F> LazyConsumer<T> for FoldWithConsumer<'_, C, U, F>
where
    C: LazyConsumer<U>,
    F: Fn(U, T) -> U + Sync,
    U: Send + Clone,
{
    type Result = C::Result;
    type Reducer = C::Reducer;

    fn consume_iter<I: Iterator<Item = T>>(mut self, iter: I) -> Self {
        let acc = self.acc.take().unwrap_or_else(|| self.init.clone());
        // `inlinable_op2`: so that `fold_op` can be inlined into this loop.
        self.acc = Some(iter.fold(acc, inlinable_op2(self.fold_op)));
        self
    }

    fn split_off(self, keep: usize) -> (Self, Self, C::Reducer) {
        // Accumulators are not positioned items: `keep` is passed on only for form's sake.
        let (left, right, reducer) = self.base.split_off(keep);
        let right = FoldWithConsumer {
            base: right,
            acc: None,
            init: self.init.clone(),
            fold_op: self.fold_op,
        };
        (FoldWithConsumer { base: left, ..self }, right, reducer)
    }

    fn complete(self) -> C::Result {
        // A piece that received nothing still yields its (initial) accumulator, as `fold` does.
        let acc = self.acc.unwrap_or(self.init);
        self.base.consume_iter(std::iter::once(acc)).complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
