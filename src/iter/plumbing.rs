//! The protocol between parallel-iterator sources, adaptors and consumers: rayon's
//! `iter::plumbing`, for writing parallel iterators of your own.
//!
//! A [`Producer`] is a splittable, sequentially iterable piece of an indexed iterator's input (a
//! sub-range, a sub-slice). A [`Consumer`] is a splittable accumulator (a running sum, a slice of
//! the destination vector). The bridge ([`bridge`], [`bridge_producer_consumer`]) cuts both at the
//! same positions, feeds every producer piece into its consumer piece sequentially, and joins the
//! results back in order with a [`Reducer`]. Unlike rayon's, forkjoin's bridge cuts a piece on
//! demand while it runs (when an idle worker asks), so a consumer may be split after it has
//! consumed a prefix ([`Consumer::split_off`]); that is the one place where this protocol differs
//! from rayon's (see [`Consumer`]).
//!
//! Producers, producer callbacks and iterators written for rayon port unchanged:
//!
//! ```
//! use forkjoin::iter::plumbing::*;
//! use forkjoin::prelude::*;
//!
//! /// The squares of `0..n`.
//! struct Squares(usize);
//! struct SquaresProducer(std::ops::Range<usize>);
//!
//! impl ParallelIterator for Squares {
//!     type Item = usize;
//!     fn drive_unindexed<C>(self, consumer: C) -> C::Result
//!     where
//!         C: UnindexedConsumer<Self::Item>,
//!     {
//!         bridge(self, consumer)
//!     }
//!     fn opt_len(&self) -> Option<usize> {
//!         Some(self.0)
//!     }
//! }
//!
//! impl IndexedParallelIterator for Squares {
//!     fn len(&self) -> usize {
//!         self.0
//!     }
//!     fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
//!         bridge(self, consumer)
//!     }
//!     fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
//!         callback.callback(SquaresProducer(0..self.0))
//!     }
//! }
//!
//! impl Producer for SquaresProducer {
//!     type Item = usize;
//!     type IntoIter = std::iter::Map<std::ops::Range<usize>, fn(usize) -> usize>;
//!     fn into_iter(self) -> Self::IntoIter {
//!         self.0.map(|i| i * i)
//!     }
//!     fn split_at(self, index: usize) -> (Self, Self) {
//!         let mid = self.0.start + index;
//!         (SquaresProducer(self.0.start..mid), SquaresProducer(mid..self.0.end))
//!     }
//! }
//!
//! let v: Vec<(usize, usize)> = Squares(4).enumerate().collect();
//! assert_eq!(v, [(0, 0), (1, 1), (2, 4), (3, 9)]);
//! assert_eq!(Squares(4).rev().sum::<usize>(), 14);
//! ```

/// A splittable piece of an indexed iterator's input (a sub-range, a sub-slice): rayon's `Producer`.
///
/// A producer does not know its own length: whoever holds it (the bridge, an adaptor that needs it)
/// tracks it from the iterator's [`len`](super::IndexedParallelIterator::len) and the split indices,
/// as in rayon. Its sequential iterator runs from both ends and knows how many items it has left.
pub trait Producer: Send + Sized {
    /// The items this producer yields, one per position.
    type Item;
    /// The sequential iterator over the whole piece.
    type IntoIter: Iterator<Item = Self::Item> + DoubleEndedIterator + ExactSizeIterator;

    /// Iterates the piece sequentially, in position order.
    fn into_iter(self) -> Self::IntoIter;

    /// Smallest piece size worth handing to another thread (set by `with_min_len`).
    fn min_len(&self) -> usize {
        1
    }

    /// Largest piece size one thread may take as a unit (set by `with_max_len`).
    fn max_len(&self) -> usize {
        usize::MAX
    }

    /// Splits into positions `[0, index)` and `[index, len)`; `index <= len`.
    fn split_at(self, index: usize) -> (Self, Self);

    /// Feeds every item of the piece into `folder`, in order (stopping once it is full).
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>,
    {
        folder.consume_iter(self.into_iter())
    }
}

/// A piece of an unindexed iterator's input: rayon's `UnindexedProducer`. It cannot be cut at an
/// index, only in two where it sees fit ([`split`](Self::split)).
///
/// [`bridge_unindexed`] splits such a producer up front for every thread, again whenever a piece is
/// stolen or an idle worker asks, then folds each piece whole.
pub trait UnindexedProducer: Send + Sized {
    /// The items this producer yields.
    type Item;

    /// Splits in two, or returns `(self, None)` when it cannot (or should not) be split further.
    fn split(self) -> (Self, Option<Self>);

    /// Feeds every item of the piece into `folder`, in order (stopping once it is full).
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>;
}

/// The sequential end of a consumer: takes items one at a time and produces a result (rayon's
/// `Folder`).
pub trait Folder<Item>: Sized {
    /// What the folder produces when complete.
    type Result;

    /// Takes one item.
    fn consume(self, item: Item) -> Self;

    /// Takes the items of `iter` in order, stopping early once [`full`](Self::full).
    fn consume_iter<I>(mut self, iter: I) -> Self
    where
        I: IntoIterator<Item = Item>,
    {
        for item in iter {
            self = self.consume(item);
            if self.full() {
                break;
            }
        }
        self
    }

    /// Finishes and returns the result.
    fn complete(self) -> Self::Result;

    /// True when no further item can change the result.
    fn full(&self) -> bool;
}

/// A splittable accumulator that receives items in position order.
///
/// A consumer may already have consumed a prefix of its positions when it is split: `split_off(keep)`
/// leaves the next `keep` positions with `self` and returns a fresh consumer for everything after them.
/// This is what lets a running loop hand half of its remaining range to an idle thread.
///
/// This is where forkjoin's protocol differs from rayon's, whose consumer is split only before it
/// consumes anything and hands its items to a separate [`Folder`]. Code that *uses* a consumer the
/// rayon way ports unchanged: [`split_at`](Self::split_at) is `split_off` on a fresh consumer and
/// [`into_folder`](Self::into_folder) wraps the consumer in a `Folder`. A consumer type written
/// for rayon (with `split_at`, `into_folder` and an associated `Folder` type) has to be rewritten
/// with `consume_iter`, `split_off` and `complete`.
pub trait Consumer<Item>: Send + Sized {
    /// What the consumer produces when complete.
    type Result: Send;
    /// Combines the results of two split halves, left then right.
    type Reducer: Reducer<Self::Result>;

    /// Feeds the next items, in order, and returns the updated consumer.
    fn consume_iter<I: Iterator<Item = Item>>(self, iter: I) -> Self;

    /// Keeps the next `keep` positions and splits off a consumer for the positions after them.
    fn split_off(self, keep: usize) -> (Self, Self, Self::Reducer);

    /// Finishes and returns the result.
    fn complete(self) -> Self::Result;

    /// True when no further input can change the result (`any`, `find_any` after a hit).
    fn full(&self) -> bool {
        false
    }

    /// True for a search that prefers the match nearest the end (`find_last` and the searches built
    /// on it): the bridge then runs the right side of every split first and cuts a piece's batches
    /// off its end, so the last match is usually the first one found and every piece before it
    /// stops at once. Any consumer accepts either order (its split halves are independent);
    /// adaptors pass on the answer of the consumer they feed.
    fn prefers_end(&self) -> bool {
        false
    }

    /// rayon's name for [`split_off`](Self::split_off) on a consumer that has consumed nothing yet:
    /// a consumer for positions `[0, index)`, one for the positions after them, and the reducer of
    /// their results.
    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer) {
        self.split_off(index)
    }

    /// The consumer as a [`Folder`], for code written against rayon's protocol (a producer's
    /// [`fold_with`](Producer::fold_with)).
    fn into_folder(self) -> ConsumerFolder<Self> {
        ConsumerFolder(self)
    }
}

/// rayon's `UnindexedConsumer`: a consumer that accepts items with no positions.
///
/// Every forkjoin [`Consumer`] is one: a consumer handed to
/// [`drive_unindexed`](super::ParallelIterator::drive_unindexed) does not depend on the positions
/// it is split at (only the `collect` of an iterator with an exact
/// [`opt_len`](super::ParallelIterator::opt_len) does, and that one is indexed). So this trait only
/// keeps rayon's bounds (`C: UnindexedConsumer<Self::Item>`) compiling; rayon's
/// `split_off_left` and `to_reducer` have no counterpart.
pub trait UnindexedConsumer<Item>: Consumer<Item> {}

impl<Item, C: Consumer<Item>> UnindexedConsumer<Item> for C {}

/// The largest batch a [`ConsumerFolder`] feeds its consumer between two checks of `full`.
const FOLD_BATCH: usize = 1024;

/// A [`Consumer`] seen as rayon's [`Folder`] (from [`Consumer::into_folder`]).
#[derive(Debug)]
pub struct ConsumerFolder<C>(C);

impl<Item, C: Consumer<Item>> Folder<Item> for ConsumerFolder<C> {
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
        let mut exhausted = false;
        while !exhausted && !self.0.full() {
            let mut taken = 0;
            let next_batch = std::iter::from_fn(|| {
                if taken == batch {
                    return None;
                }
                let item = iter.next();
                taken += 1;
                exhausted = item.is_none();
                item
            });
            self.0 = self.0.consume_iter(next_batch);
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

/// Combines the results of the left and right half of a split, in that order.
pub trait Reducer<R> {
    /// Returns the combination of `left` followed by `right`.
    fn reduce(self, left: R, right: R) -> R;
}

/// Receives the producer of an indexed iterator (rayon's `ProducerCallback`).
///
/// Producers may borrow from the iterator that makes them (an owned `Vec`'s buffer lives only for the
/// duration of the call), so an iterator hands its producer to a callback instead of returning it.
pub trait ProducerCallback<T> {
    /// What the callback returns.
    type Output;
    /// Called once with the iterator's producer.
    fn callback<P>(self, producer: P) -> Self::Output
    where
        P: Producer<Item = T>;
}

pub use super::bridge::{bridge, bridge_producer_consumer, bridge_unindexed};

/// A reducer for results that need no combining (`for_each`).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopReducer;

impl Reducer<()> for NoopReducer {
    #[inline]
    fn reduce(self, _left: (), _right: ()) {}
}
