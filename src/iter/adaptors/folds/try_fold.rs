//! `try_fold` and `try_fold_with`: one fallible sequential fold per piece, which stops that piece
//! at its first failure; yields one `Try` value (success or failure) per piece.
//!
//! A failure stops only its own piece (as in rayon): the other pieces fold on and yield their own
//! results; a following `try_reduce` or `collect` into `Result` decides what a failure means.

use std::fmt;
use std::iter::once;
use std::marker::PhantomData;

use crate::iter::consumers::try_op::Try;
use crate::iter::plumbing::LazyConsumer;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::ParallelIterator;

/// Parallel iterator returned by [`ParallelIterator::try_fold`]: yields one `R` per piece.
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct TryFold<I, R, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
    marker: PhantomData<R>,
}

impl<I, R, ID, F> TryFold<I, R, ID, F> {
    pub(in crate::iter) fn new(base: I, identity: ID, fold_op: F) -> Self {
        TryFold {
            base,
            identity,
            fold_op,
            marker: PhantomData,
        }
    }
}

impl<I: fmt::Debug, R, ID, F> fmt::Debug for TryFold<I, R, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryFold")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I, R, ID, F> ParallelIterator for TryFold<I, R, ID, F>
where
    I: ParallelIterator,
    F: Fn(R::Output, I::Item) -> R + Sync + Send,
    ID: Fn() -> R::Output + Sync + Send,
    R: Try + Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<R>>(self, consumer: C) -> C::Result {
        let seed = FromIdentity(&self.identity);
        self.base
            .drive_lazy(TryFoldConsumer::new(consumer, seed, &self.fold_op))
    }
}

/// Parallel iterator returned by [`ParallelIterator::try_fold_with`]: yields one `R` per piece.
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct TryFoldWith<I, R: Try, F> {
    base: I,
    item: R::Output,
    fold_op: F,
}

impl<I, R: Try, F> TryFoldWith<I, R, F> {
    pub(in crate::iter) fn new(base: I, item: R::Output, fold_op: F) -> Self {
        TryFoldWith {
            base,
            item,
            fold_op,
        }
    }
}

impl<I: fmt::Debug, R: Try<Output: fmt::Debug>, F> fmt::Debug for TryFoldWith<I, R, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryFoldWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish_non_exhaustive()
    }
}

impl<I, R, F> ParallelIterator for TryFoldWith<I, R, F>
where
    I: ParallelIterator,
    F: Fn(R::Output, I::Item) -> R + Sync + Send,
    R: Try<Output: Clone + Send> + Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<R>>(self, consumer: C) -> C::Result {
        let seed = FromClone(self.item);
        self.base
            .drive_lazy(TryFoldConsumer::new(consumer, seed, &self.fold_op))
    }
}

/// Where a piece's first accumulator comes from: `identity()` or a clone of an initial value.
/// Every split-off piece gets its own.
pub(in crate::iter) trait Seed: Clone + Send {
    /// The accumulator's type.
    type Value;
    /// A fresh accumulator.
    fn make(&self) -> Self::Value;
}

/// The seed of `try_fold` and `fold_chunks`: calls the identity closure.
pub(in crate::iter) struct FromIdentity<'f, ID>(pub(in crate::iter) &'f ID);

impl<ID> Clone for FromIdentity<'_, ID> {
    fn clone(&self) -> Self {
        FromIdentity(self.0)
    }
}

impl<T, ID: Fn() -> T + Sync> Seed for FromIdentity<'_, ID> {
    type Value = T;
    fn make(&self) -> T {
        (self.0)()
    }
}

/// The seed of `try_fold_with` and `fold_chunks_with`: clones the initial value.
#[derive(Clone)]
pub(in crate::iter) struct FromClone<T>(pub(in crate::iter) T);

impl<T: Clone + Send> Seed for FromClone<T> {
    type Value = T;
    fn make(&self) -> T {
        self.0.clone()
    }
}

/// LazyConsumer that folds its items with `fold_op` until a call fails, then passes one `R` on.
///
/// The accumulator is kept as an `R` (a success holding it, or the failure): `R: Send` is all
/// rayon's bounds promise, not `R::Output: Send`.
struct TryFoldConsumer<'f, C, R, S, F> {
    base: C,
    acc: R,
    failed: bool,
    seed: S,
    fold_op: &'f F,
}

impl<'f, C, R: Try, S: Seed<Value = R::Output>, F> TryFoldConsumer<'f, C, R, S, F> {
    fn new(base: C, seed: S, fold_op: &'f F) -> Self {
        TryFoldConsumer {
            base,
            acc: R::from_output(seed.make()),
            failed: false,
            seed,
            fold_op,
        }
    }
}

impl<T, C, R, S, F> LazyConsumer<T> for TryFoldConsumer<'_, C, R, S, F>
where
    C: LazyConsumer<R>,
    R: Try + Send,
    S: Seed<Value = R::Output>,
    F: Fn(R::Output, T) -> R + Sync,
{
    type Result = C::Result;
    type Reducer = C::Reducer;

    fn consume_iter<I: Iterator<Item = T>>(mut self, mut iter: I) -> Self {
        if self.failed {
            return self;
        }
        let fold_op = self.fold_op;
        let acc = match self.acc.into_output() {
            Ok(acc) => iter.try_fold(acc, |acc, item| fold_op(acc, item).into_output()),
            Err(failure) => Err(failure),
        };
        self.failed = acc.is_err();
        self.acc = acc.map_or_else(|failure| failure, R::from_output);
        self
    }

    fn split_off(self, keep: usize) -> (Self, Self, C::Reducer) {
        // Not indexed: `keep` means nothing downstream, as for `fold`.
        let (left, right, reducer) = self.base.split_off(keep);
        let right = TryFoldConsumer::new(right, self.seed.clone(), self.fold_op);
        (TryFoldConsumer { base: left, ..self }, right, reducer)
    }

    fn complete(self) -> C::Result {
        self.base.consume_iter(once(self.acc)).complete()
    }

    fn full(&self) -> bool {
        self.failed || self.base.full()
    }
}
