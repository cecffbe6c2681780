//! The protocol between parallel-iterator sources, adaptors and consumers: rayon's
//! `iter::plumbing`, for writing parallel iterators of your own.
//!
//! A [`Producer`] is a splittable, sequentially iterable piece of an indexed iterator's input (a
//! sub-range, a sub-slice). A [`Consumer`] is a splittable accumulator (a running sum, a slice of
//! the destination vector). The bridge ([`bridge`](fn@bridge), [`bridge_producer_consumer`]) cuts both at the
//! same positions, feeds every producer piece into its consumer piece sequentially, and joins the
//! results back in order with a [`Reducer`]. Unlike rayon's, forkjoin's bridge cuts a piece on
//! demand while it runs (when an idle worker asks), so its own consumers can be split after they
//! consumed a prefix ([`LazyConsumer::split_off`]); a [`Consumer`] written for rayon gets the same
//! by being split once per batch it receives (see [`Consumer`]).
//!
//! `src/iter/plumbing/README.md` follows one call, `(0..n).into_par_iter().map(f).sum()`, through
//! every layer: the source, the adaptor, the consumer, the bridge, `runtime::sharing`, `join`, the
//! job stack and the deque, a thief's steal, the latch and the reduce back up.
//!
//! # forkjoin's extension point: lazy consumers
//!
//! rayon's traits are here as rayon declares them, and every method forkjoin adds to them has a
//! default that is always correct, so an implementation written the rayon way needs nothing
//! else. Under them runs one protocol of forkjoin's own, [`LazyConsumer`]: a consumer that can be
//! split after it consumed a prefix. Three optional methods reach it, each only for speed:
//!
//! * [`ParallelIterator::drive_lazy`](crate::iter::ParallelIterator::drive_lazy) (iterator side):
//!   drive a lazy consumer directly; the default wraps it for
//!   [`drive_unindexed`](crate::iter::ParallelIterator::drive_unindexed);
//! * [`Consumer::lazy_drive`] and [`UnindexedConsumer::lazy_drive_unindexed`] (consumer side):
//!   run a [`LazyDrive`] with this consumer as a lazy one; the default splits a rayon consumer
//!   once per batch, and forkjoin's wrapper of a lazy consumer takes itself back out, so a lazy
//!   consumer that passes through code written for rayon reaches the bridge unwrapped;
//! * [`UnindexedProducer::fold_batch`] (producer side): fold a prefix and keep the rest
//!   splittable; the default folds the whole piece.
//!
//! [`deterministic`](crate::iter::IndexedParallelIterator::deterministic) needs nothing from the
//! adaptors after it: the iterator tells the bridge that receives its producer, whatever wraps
//! the producer on the way, to reduce over its fixed tree of blocks (see
//! [`Deterministic`](crate::iter::Deterministic)).
//!
//! # Porting from rayon
//!
//! Producers, producer callbacks, consumers and iterators written for rayon port unchanged:
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

pub(crate) mod bridge;
pub(crate) mod consumer_adapters;
pub(crate) mod fixed_tree;
pub(crate) mod piece;
pub(crate) mod user_op;

/// A splittable piece of an indexed iterator's input (a sub-range, a sub-slice): rayon's `Producer`.
///
/// A producer does not know its own length: whoever holds it (the bridge, an adaptor that needs it)
/// tracks it from the iterator's [`len`](crate::iter::IndexedParallelIterator::len) and the split indices,
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
/// stolen, and again whenever an idle worker asks before the piece is folded. A producer written
/// for rayon is then folded whole ([`fold_with`](Self::fold_with)); forkjoin's own self-splitting
/// sources (`split`, the tree walks, the slice splits) fold in batches and can still be asked to
/// split what is left of them between two batches.
pub trait UnindexedProducer: Send + Sized {
    /// The items this producer yields.
    type Item;

    /// Splits in two, or returns `(self, None)` when it cannot (or should not) be split further.
    fn split(self) -> (Self, Option<Self>);

    /// Feeds every item of the piece into `folder`, in order (stopping once it is full).
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>;

    /// forkjoin's extension point, producer side (see the [module docs](self)): feeds the first
    /// `batch` items of the piece (or all of them, if it has fewer) into `consumer`, in order, and
    /// returns the rest of the piece, `None` once nothing is left, so that the rest can still be
    /// split between two batches. The default, always correct, folds the whole piece: a producer
    /// written for rayon is split only between folds.
    fn fold_batch<C>(self, consumer: C, _batch: usize) -> (C, Option<Self>)
    where
        C: LazyConsumer<Self::Item>,
    {
        (self.fold_with(consumer.into_folder()).into_consumer(), None)
    }
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

/// rayon's `Consumer`: a splittable accumulator that receives items in position order, split
/// before it consumes anything ([`split_at`](Self::split_at)) and then turned into a [`Folder`]
/// ([`into_folder`](Self::into_folder)) that takes the items of one piece.
///
/// A consumer written for rayon compiles unchanged and gets forkjoin's splitting: a piece that is
/// already running can still hand half of its rest to an idle worker. forkjoin does that by
/// splitting the consumer once per batch it feeds (`split_at` the batch's length, fold the
/// batch, reduce), so `split_at` should be cheap, as rayon's own consumers are. forkjoin's own
/// consumers implement [`LazyConsumer`] instead, which can be split after consuming a prefix.
///
/// ```
/// use forkjoin::iter::plumbing::*;
/// use forkjoin::prelude::*;
///
/// /// Counts the items (rayon's plumbing, written the rayon way).
/// struct Count;
/// struct CountFolder(usize);
/// struct Sum;
///
/// impl<T> Consumer<T> for Count {
///     type Folder = CountFolder;
///     type Reducer = Sum;
///     type Result = usize;
///     fn split_at(self, _index: usize) -> (Self, Self, Sum) {
///         (Count, Count, Sum)
///     }
///     fn into_folder(self) -> CountFolder {
///         CountFolder(0)
///     }
///     fn full(&self) -> bool {
///         false
///     }
/// }
/// impl<T> UnindexedConsumer<T> for Count {
///     fn split_off_left(&self) -> Self {
///         Count
///     }
///     fn to_reducer(&self) -> Sum {
///         Sum
///     }
/// }
/// impl<T> Folder<T> for CountFolder {
///     type Result = usize;
///     fn consume(self, _item: T) -> Self {
///         CountFolder(self.0 + 1)
///     }
///     fn complete(self) -> usize {
///         self.0
///     }
///     fn full(&self) -> bool {
///         false
///     }
/// }
/// impl Reducer<usize> for Sum {
///     fn reduce(self, left: usize, right: usize) -> usize {
///         left + right
///     }
/// }
///
/// assert_eq!((0..1000).into_par_iter().filter(|x| x % 3 == 0).drive_unindexed(Count), 334);
/// assert_eq!((0..1000).into_par_iter().map(|x| x * 2).drive(Count), 1000);
/// ```
pub trait Consumer<Item>: Send + Sized {
    /// The sequential end of one piece.
    type Folder: Folder<Item, Result = Self::Result>;
    /// Combines the results of two split halves, left then right.
    type Reducer: Reducer<Self::Result>;
    /// What the consumer produces when complete.
    type Result: Send;

    /// A consumer for positions `[0, index)`, one for the positions after them, and the reducer
    /// of their results.
    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer);

    /// The folder that takes this piece's items.
    fn into_folder(self) -> Self::Folder;

    /// True when no further item can change the result.
    fn full(&self) -> bool;

    /// forkjoin's extension point, consumer side (see the [module docs](self)): runs `drive` with
    /// this consumer as a [`LazyConsumer`]. The default, always correct, wraps the consumer in the
    /// adapter that splits it once per batch; forkjoin's own wrapper of a lazy consumer takes
    /// itself back out (its own protocol, its own folder, no adapter in the per-item path). A
    /// consumer written for rayon never overrides it.
    fn lazy_drive<D: LazyDrive<Item>>(self, drive: D) -> Self::Result {
        drive.drive(FromConsumer::indexed(self))
    }
}

/// rayon's `UnindexedConsumer`: a [`Consumer`] that accepts items with no positions, split with
/// [`split_off_left`](Self::split_off_left) (what [`bridge_unindexed`] and
/// [`drive_unindexed`](crate::iter::ParallelIterator::drive_unindexed) need).
pub trait UnindexedConsumer<Item>: Consumer<Item> {
    /// A consumer for items to the left of what `self` then receives.
    fn split_off_left(&self) -> Self;

    /// The reducer that combines the result of a consumer split off with
    /// [`split_off_left`](Self::split_off_left) (left) and this one's (right).
    fn to_reducer(&self) -> Self::Reducer;

    /// [`Consumer::lazy_drive`] for a consumer that ignores positions (the same default, always
    /// correct).
    fn lazy_drive_unindexed<D: LazyDrive<Item>>(self, drive: D) -> Self::Result {
        drive.drive(FromConsumer::unindexed(self))
    }
}

/// A computation that drives items into any [`LazyConsumer`] (a bridge, an iterator's
/// `drive_lazy`): what [`Consumer::lazy_drive`] hands the consumer it finds behind rayon's
/// traits, so that the consumer picks the protocol it runs.
pub trait LazyDrive<Item> {
    /// Drives every item into `consumer` and returns its result.
    fn drive<C: LazyConsumer<Item>>(self, consumer: C) -> C::Result;
}

/// forkjoin's own consumer protocol: a splittable accumulator that receives items in position
/// order and can be split *after* it consumed a prefix.
///
/// `split_off(keep)` leaves the next `keep` positions with `self` and returns a fresh consumer for
/// everything after them. This is what lets a running loop hand half of its remaining range to an
/// idle thread. Every consumer forkjoin's adaptors and terminal operations build is one; a
/// [`Consumer`] written for rayon runs through an adapter that splits it once per batch.
pub trait LazyConsumer<Item>: Send + Sized {
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

    /// False when [`prefers_end`](Self::prefers_end) is false for every value of the type (the
    /// default; an adaptor passes on its consumer's): the bridge's walk from the end is then
    /// left out of the build. A consumer that may prefer the end must set it, or the bridge runs
    /// it forward like any other.
    const CAN_PREFER_END: bool = false;

    /// The consumer as a [`Folder`] (a producer's [`fold_with`](Producer::fold_with)).
    fn into_folder(self) -> ConsumerFolder<Self> {
        ConsumerFolder(self)
    }
}

pub use crate::iter::plumbing::consumer_adapters::ConsumerFolder;
pub(crate) use crate::iter::plumbing::consumer_adapters::{
    drive_unindexed_lazily, AsConsumer, FromConsumer,
};

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

pub use crate::iter::plumbing::bridge::{bridge, bridge_producer_consumer, bridge_unindexed};
