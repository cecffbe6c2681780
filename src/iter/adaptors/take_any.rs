//! `take_any` and `take_any_while`: keep items in whatever order the pieces meet them, until a
//! shared budget or a shared flag says stop.
//!
//! Both share their state through one atomic read by every piece; relaxed ordering suffices: the
//! state only decides which items pass, and results travel back through `join`, which synchronises.

use std::fmt;

use crate::iter::adaptors::item_wise::op_consumer::{ItemOp, OpConsumer};
use crate::iter::plumbing::LazyConsumer;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::ParallelIterator;
use crate::platform::sync::{AtomicBool, AtomicUsize, Ordering};

/// Parallel iterator returned by [`ParallelIterator::take_any`]: some `n` items, not necessarily
/// the first ones.
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct TakeAny<I> {
    base: I,
    count: usize,
}

impl<I> TakeAny<I> {
    pub(in crate::iter) fn new(base: I, count: usize) -> Self {
        TakeAny { base, count }
    }
}

impl<I: ParallelIterator> ParallelIterator for TakeAny<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let left = AtomicUsize::new(self.count);
        self.base
            .drive_lazy(OpConsumer::new(consumer, TakeAnyOp(&left)))
    }
}

/// Takes one unit from `budget` if any is left.
pub(in crate::iter) fn take_one(budget: &AtomicUsize) -> bool {
    budget
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
        .is_ok()
}

/// The [`ItemOp`] of `take_any`: an item passes while the shared budget lasts.
#[derive(Clone, Copy)]
struct TakeAnyOp<'f>(&'f AtomicUsize);

impl<T> ItemOp<T> for TakeAnyOp<'_> {
    type Out = T;
    fn apply<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = T> {
        iter.take_while(move |_| take_one(self.0))
    }
    fn stopped(self) -> bool {
        self.0.load(Ordering::Relaxed) == 0
    }
}

/// Parallel iterator returned by [`ParallelIterator::take_any_while`]: items pass until any piece
/// meets one that fails the predicate; from then on no piece passes any more.
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct TakeAnyWhile<I, P> {
    base: I,
    predicate: P,
}

impl<I, P> TakeAnyWhile<I, P> {
    pub(in crate::iter) fn new(base: I, predicate: P) -> Self {
        TakeAnyWhile { base, predicate }
    }
}

impl<I: fmt::Debug, P> fmt::Debug for TakeAnyWhile<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TakeAnyWhile")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I, P> ParallelIterator for TakeAnyWhile<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let taking = AtomicBool::new(true);
        let op = WhileOp {
            predicate: &self.predicate,
            flag: &taking,
        };
        self.base
            .drive_lazy(OpConsumer::new(consumer, TakeAnyWhileOp(op)))
    }
}

/// A predicate and the flag it clears on its first failure (shared by `take_any_while` and
/// `skip_any_while`).
pub(in crate::iter) struct WhileOp<'f, P> {
    pub(in crate::iter) predicate: &'f P,
    pub(in crate::iter) flag: &'f AtomicBool,
}

impl<P> Clone for WhileOp<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for WhileOp<'_, P> {}

impl<P> WhileOp<'_, P> {
    /// True while the flag is up and `item` passes; clears the flag at the first item that does not.
    pub(in crate::iter) fn holds<T>(self, item: &T) -> bool
    where
        P: Fn(&T) -> bool,
    {
        if !self.flag.load(Ordering::Relaxed) {
            return false;
        }
        let holds = (self.predicate)(item);
        if !holds {
            self.flag.store(false, Ordering::Relaxed);
        }
        holds
    }
}

/// The [`ItemOp`] of `take_any_while`.
struct TakeAnyWhileOp<'f, P>(WhileOp<'f, P>);

impl<P> Clone for TakeAnyWhileOp<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for TakeAnyWhileOp<'_, P> {}

impl<T, P: Fn(&T) -> bool + Sync> ItemOp<T> for TakeAnyWhileOp<'_, P> {
    type Out = T;
    fn apply<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = T> {
        iter.take_while(move |item| self.0.holds(item))
    }
    fn stopped(self) -> bool {
        !self.0.flag.load(Ordering::Relaxed)
    }
}
