//! The two adapters between rayon's consumer protocol ([`Consumer`], [`UnindexedConsumer`]) and
//! forkjoin's ([`LazyConsumer`]).
//!
//! * [`AsConsumer`]: a forkjoin consumer handed to code written for rayon (a user's
//!   `drive_unindexed`, which calls `split_off_left`, `split_at`, `into_folder` or passes it to
//!   `bridge`). At the first bridge or `drive` it reaches, it takes itself back out
//!   ([`Consumer::lazy_drive`]): from there on the consumer runs its own protocol, and a
//!   producer's fold loop calls its folder ([`ConsumerFolder`]) with nothing in between.
//! * [`FromConsumer`]: a consumer written for rayon, driven by forkjoin's iterators and bridge. It
//!   is split once per batch it receives: `split_at` the batch's length, fold the batch into the
//!   left part, keep the right part for the rest. The running piece can therefore still be split
//!   after a prefix, as forkjoin's bridge needs, and positions stay exact.

use std::cell::Cell;
use std::marker::PhantomData;

use crate::iter::plumbing::{
    Consumer, Folder, LazyConsumer, LazyDrive, Reducer, UnindexedConsumer,
};
use crate::iter::ParallelIterator;

/// A consumer written for rayon as a [`LazyConsumer`] (see the module docs). `rest` takes the
/// positions not consumed yet; `done` is the result of those consumed. (rayon's reducers need not
/// be `Send`, so none is kept: each join uses the reducer of the split made at that moment;
/// rayon's reducers only combine a left result with the right one that follows it.)
pub(crate) struct FromConsumer<C: Consumer<T>, T> {
    rest: C,
    done: Option<C::Result>,
    /// How an unindexed consumer is split: `split_off_left` and `to_reducer`, which need no
    /// position (and so no count of a batch whose length is not known up front, as after a
    /// `filter`). `None` for a consumer that may depend on positions: `split_at`.
    unindexed: Option<SplitFn<C, T>>,
    _items: PhantomData<fn(T)>,
}

type SplitFn<C, T> = fn(C) -> (C, C, <C as Consumer<T>>::Reducer);

/// Splits `consumer` after `index` positions (the index is ignored by an unindexed consumer).
fn cut<C: Consumer<T>, T>(
    consumer: C,
    unindexed: Option<SplitFn<C, T>>,
    index: usize,
) -> (C, C, C::Reducer) {
    match unindexed {
        Some(split) => split(consumer),
        None => consumer.split_at(index),
    }
}

fn split_unindexed<C: UnindexedConsumer<T>, T>(consumer: C) -> (C, C, C::Reducer) {
    let left = consumer.split_off_left();
    let reducer = consumer.to_reducer();
    (left, consumer, reducer)
}

impl<C: UnindexedConsumer<T>, T> FromConsumer<C, T> {
    /// An unindexed consumer (from `drive_unindexed` or `bridge_unindexed`).
    pub(crate) fn unindexed(consumer: C) -> Self {
        Self::new(consumer, None, Some(split_unindexed::<C, T>))
    }
}

impl<C: Consumer<T>, T> FromConsumer<C, T> {
    /// A consumer that may depend on positions (from `drive`, `bridge` or
    /// `bridge_producer_consumer`).
    pub(crate) fn indexed(consumer: C) -> Self {
        Self::new(consumer, None, None)
    }

    fn new(rest: C, done: Option<C::Result>, unindexed: Option<SplitFn<C, T>>) -> Self {
        FromConsumer {
            rest,
            done,
            unindexed,
            _items: PhantomData,
        }
    }
}

/// Folds `items` (exactly `len` of them, where positions matter) into the first `len` positions
/// of `rest`; returns the consumer for the positions after them and the result so far.
fn fold_batch<C, T>(
    rest: C,
    done: Option<C::Result>,
    unindexed: Option<SplitFn<C, T>>,
    len: usize,
    items: impl Iterator<Item = T>,
) -> (C, Option<C::Result>)
where
    C: Consumer<T>,
{
    let (left, rest, reducer) = cut(rest, unindexed, len);
    let result = left.into_folder().consume_iter(items).complete();
    let result = match done {
        None => result,
        Some(before) => reducer.reduce(before, result),
    };
    (rest, Some(result))
}

impl<C: Consumer<T>, T> LazyConsumer<T> for FromConsumer<C, T> {
    type Result = C::Result;
    type Reducer = C::Reducer;

    fn consume_iter<I: Iterator<Item = T>>(self, iter: I) -> Self {
        let (rest, done) = match iter.size_hint() {
            // The bridge's batches know their length, and an unindexed split needs none.
            (low, Some(high)) if low == high => {
                fold_batch(self.rest, self.done, self.unindexed, low, iter)
            }
            _ if self.unindexed.is_some() => {
                fold_batch(self.rest, self.done, self.unindexed, 0, iter)
            }
            _ => {
                let batch: Vec<T> = iter.collect();
                let len = batch.len();
                fold_batch(self.rest, self.done, self.unindexed, len, batch.into_iter())
            }
        };
        Self::new(rest, done, self.unindexed)
    }

    fn split_off(self, keep: usize) -> (Self, Self, C::Reducer) {
        let (mine, theirs, reducer) = cut(self.rest, self.unindexed, keep);
        (
            Self::new(mine, self.done, self.unindexed),
            Self::new(theirs, None, self.unindexed),
            reducer,
        )
    }

    fn complete(self) -> C::Result {
        match self.done {
            None => self.rest.into_folder().complete(),
            Some(before) => {
                // A split at 0 for the reducer; its empty left part gives nothing.
                let (empty, rest, reducer) = cut(self.rest, self.unindexed, 0);
                drop(empty.into_folder().complete());
                reducer.reduce(before, rest.into_folder().complete())
            }
        }
    }

    fn full(&self) -> bool {
        self.rest.full()
    }
}

/// A forkjoin [`LazyConsumer`] as rayon's [`Consumer`] and [`UnindexedConsumer`] (see the module
/// docs). `split_off_left` and `to_reducer` take `&self`, so the consumer sits in a `Cell`: the
/// wrapper is `!Sync`, so only its owner calls them.
pub(crate) struct AsConsumer<L> {
    inner: Cell<Option<L>>,
}

impl<L> AsConsumer<L> {
    pub(crate) fn new(consumer: L) -> Self {
        AsConsumer {
            inner: Cell::new(Some(consumer)),
        }
    }

    fn into_inner(self) -> L {
        self.inner
            .into_inner()
            .expect("an AsConsumer always holds its consumer between calls")
    }

    /// Runs `f` on the consumer, which it may replace.
    fn with<R>(&self, f: impl FnOnce(L) -> (L, R)) -> R {
        let consumer = self
            .inner
            .take()
            .expect("an AsConsumer always holds its consumer between calls");
        let (consumer, result) = f(consumer);
        self.inner.set(Some(consumer));
        result
    }
}

impl<T, L: LazyConsumer<T>> Consumer<T> for AsConsumer<L> {
    type Folder = ConsumerFolder<L>;
    type Reducer = L::Reducer;
    type Result = L::Result;

    fn split_at(self, index: usize) -> (Self, Self, L::Reducer) {
        let (left, right, reducer) = self.into_inner().split_off(index);
        (AsConsumer::new(left), AsConsumer::new(right), reducer)
    }

    fn into_folder(self) -> ConsumerFolder<L> {
        self.into_inner().into_folder()
    }

    fn full(&self) -> bool {
        self.with(|c| {
            let full = c.full();
            (c, full)
        })
    }

    fn lazy_drive<D: LazyDrive<T>>(self, drive: D) -> L::Result {
        drive.drive(self.into_inner())
    }
}

/// A forkjoin consumer takes items whatever their positions when driven unindexed, so the left
/// consumer is split off at position 0: it and `self` each take whatever they are given.
impl<T, L: LazyConsumer<T>> UnindexedConsumer<T> for AsConsumer<L> {
    fn split_off_left(&self) -> Self {
        self.with(|c| {
            let (left, right, _) = c.split_off(0);
            (right, AsConsumer::new(left))
        })
    }

    fn to_reducer(&self) -> L::Reducer {
        self.with(|c| {
            // A split at 0 yields the reducer; its empty left part has nothing to give.
            let (empty, right, reducer) = c.split_off(0);
            drop(empty.complete());
            (right, reducer)
        })
    }

    fn lazy_drive_unindexed<D: LazyDrive<T>>(self, drive: D) -> L::Result {
        drive.drive(self.into_inner())
    }
}

/// The largest batch a [`ConsumerFolder`] feeds its consumer between two checks of `full`.
const FOLD_BATCH: usize = 1024;

/// A [`LazyConsumer`] seen as rayon's [`Folder`] (from [`LazyConsumer::into_folder`]).
#[derive(Debug)]
pub struct ConsumerFolder<C>(pub(crate) C);

impl<Item, C: LazyConsumer<Item>> Folder<Item> for ConsumerFolder<C> {
    type Result = C::Result;

    fn consume(self, item: Item) -> Self {
        ConsumerFolder(self.0.consume_iter(std::iter::once(item)))
    }

    /// Feeds `iter` in batches that double up to `FOLD_BATCH` items, so that a consumer that
    /// becomes full (through a hit elsewhere) stops within a batch, as rayon's folders stop
    /// within an item.
    fn consume_iter<I>(mut self, iter: I) -> Self
    where
        I: IntoIterator<Item = Item>,
    {
        let mut iter = iter.into_iter();
        let mut batch = 1;
        while !self.0.full() {
            // `take` on `&mut I`, whose `fold` goes to the producer's own iterator (a `from_fn`
            // around `next` kept the iterator's state in memory, and a hash table's walk paid a
            // store per item).
            let mut taken = 0;
            self.0 = self
                .0
                .consume_iter(iter.by_ref().take(batch).inspect(|_| taken += 1));
            if taken < batch {
                // The iterator ran out, or the consumer stopped pulling (it is full, or it takes
                // the rest in the next batch, as before): one more item says which.
                if self.0.full() {
                    break;
                }
                match iter.next() {
                    Some(item) => self.0 = self.0.consume_iter(std::iter::once(item)),
                    None => break,
                }
            }
            batch = (batch * 2).min(FOLD_BATCH);
        }
        self
    }

    fn complete(self) -> C::Result {
        self.0.complete()
    }

    fn full(&self) -> bool {
        self.0.full()
    }
}

impl<C> ConsumerFolder<C> {
    /// The consumer again, with what it was fed.
    pub(crate) fn into_consumer(self) -> C {
        self.0
    }
}

/// An iterator's `drive_unindexed` when it implements
/// [`drive_lazy`](crate::iter::ParallelIterator::drive_lazy): the consumer picks its protocol
/// ([`UnindexedConsumer::lazy_drive_unindexed`]), and the iterator then drives it lazily. Only for
/// iterators that override `drive_lazy`: with the default one the two would call each other.
#[inline]
pub(crate) fn drive_unindexed_lazily<I, C>(iter: I, consumer: C) -> C::Result
where
    I: ParallelIterator,
    C: UnindexedConsumer<I::Item>,
{
    consumer.lazy_drive_unindexed(DriveLazy(iter))
}

/// [`drive_unindexed_lazily`]'s drive: the iterator's own `drive_lazy`.
struct DriveLazy<I>(I);

impl<I: ParallelIterator> LazyDrive<I::Item> for DriveLazy<I> {
    #[inline]
    fn drive<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        self.0.drive_lazy(consumer)
    }
}
