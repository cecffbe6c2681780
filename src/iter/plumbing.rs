//! The internal protocol between parallel-iterator sources, adaptors and consumers.
//!
//! A [`Producer`] is a splittable, sequentially iterable piece of the input (a sub-range, a sub-slice),
//! counted in *positions*. A [`Consumer`] is a splittable accumulator (a running sum, a slice of the
//! destination vector). The bridge (the splitting policy, `src/iter/bridge.rs`) cuts both at the same positions, feeds every producer
//! piece into its consumer piece sequentially, and joins the results back in order with a [`Reducer`].
//!
//! Only [`IndexedParallelIterator`](super::IndexedParallelIterator)s expose producers; every parallel
//! iterator can be driven into a consumer. These traits are public because the public iterator traits
//! name them; user code normally never touches them.

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
/// [`bridge_unindexed`](super::bridge_unindexed) splits such a producer up front for every thread
/// and again whenever a piece is stolen, then folds each piece whole.
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

/// A reducer for results that need no combining (`for_each`).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopReducer;

impl Reducer<()> for NoopReducer {
    #[inline]
    fn reduce(self, _left: (), _right: ()) {}
}
