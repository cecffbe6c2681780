//! `skip_any` and `skip_any_while`: drop items in whatever order the pieces meet them, until a
//! shared budget is spent or a shared flag falls; everything after passes.

use std::fmt;

use crate::iter::adaptors::item_wise::op_consumer::{ItemOp, OpConsumer};
use crate::iter::adaptors::take_any::{take_one, WhileOp};
use crate::iter::plumbing::LazyConsumer;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::ParallelIterator;
use crate::platform::sync::{AtomicBool, AtomicUsize};

/// Parallel iterator returned by [`ParallelIterator::skip_any`]: all items but some `n`, not
/// necessarily the first ones.
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct SkipAny<I> {
    base: I,
    count: usize,
}

impl<I> SkipAny<I> {
    pub(in crate::iter) fn new(base: I, count: usize) -> Self {
        SkipAny { base, count }
    }
}

impl<I: ParallelIterator> ParallelIterator for SkipAny<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let left = AtomicUsize::new(self.count);
        self.base
            .drive_lazy(OpConsumer::new(consumer, SkipAnyOp(&left)))
    }
}

/// The [`ItemOp`] of `skip_any`: an item is dropped while the shared budget lasts. Once the budget
/// is spent it stays spent, so `skip_while` (which stops asking after one refusal) loses nothing.
#[derive(Clone, Copy)]
struct SkipAnyOp<'f>(&'f AtomicUsize);

impl<T> ItemOp<T> for SkipAnyOp<'_> {
    type Out = T;
    fn apply<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = T> {
        iter.skip_while(move |_| take_one(self.0))
    }
}

/// Parallel iterator returned by [`ParallelIterator::skip_any_while`]: items are dropped until any
/// piece meets one that fails the predicate; from then on every item passes.
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct SkipAnyWhile<I, P> {
    base: I,
    predicate: P,
}

impl<I, P> SkipAnyWhile<I, P> {
    pub(in crate::iter) fn new(base: I, predicate: P) -> Self {
        SkipAnyWhile { base, predicate }
    }
}

impl<I: fmt::Debug, P> fmt::Debug for SkipAnyWhile<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkipAnyWhile")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I, P> ParallelIterator for SkipAnyWhile<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let skipping = AtomicBool::new(true);
        let op = WhileOp {
            predicate: &self.predicate,
            flag: &skipping,
        };
        self.base
            .drive_lazy(OpConsumer::new(consumer, SkipAnyWhileOp(op)))
    }
}

/// The [`ItemOp`] of `skip_any_while`.
struct SkipAnyWhileOp<'f, P>(WhileOp<'f, P>);

impl<P> Clone for SkipAnyWhileOp<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for SkipAnyWhileOp<'_, P> {}

impl<T, P: Fn(&T) -> bool + Sync> ItemOp<T> for SkipAnyWhileOp<'_, P> {
    type Out = T;
    fn apply<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = T> {
        iter.skip_while(move |item| self.0.holds(item))
    }
}
