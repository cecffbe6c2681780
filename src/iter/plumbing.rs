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

/// A splittable piece of input: a run of positions that can be cut in two or iterated sequentially.
pub trait Producer: Send + Sized {
    /// The items this producer yields, one per position.
    type Item;
    /// The sequential iterator over the whole piece.
    type IntoIter: Iterator<Item = Self::Item>;

    /// Number of positions (= items, for every producer in this crate) in this piece.
    fn len(&self) -> usize;

    /// True if there are no positions left.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Splits into positions `[0, index)` and `[index, len)`; `index <= len`.
    fn split_at(self, index: usize) -> (Self, Self);

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

/// The producer of an indexed iterator: one item per position, and, as in rayon's protocol, a
/// sequential iterator that runs from both ends and knows its length (which `rev` and std's
/// `zip`, `enumerate` and `step_by` build on).
///
/// Every [`Producer`] whose `IntoIter` is a [`DoubleEndedIterator`] and an
/// [`ExactSizeIterator`] is one. The producers of unindexed sources (strings) need not be: their
/// positions are bytes, not items.
pub trait IndexedProducer: Producer<IntoIter: DoubleEndedIterator + ExactSizeIterator> {}

impl<P> IndexedProducer for P where P: Producer<IntoIter: DoubleEndedIterator + ExactSizeIterator> {}

/// Receives the producer of an indexed iterator.
///
/// Producers may borrow from the iterator that makes them (an owned `Vec`'s buffer lives only for the
/// duration of the call), so an iterator hands its producer to a callback instead of returning it.
/// A callback that needs nothing of the producer's iterator may ask only for a [`Producer`].
pub trait ProducerCallback<Item> {
    /// What the callback returns.
    type Output;
    /// Called once with the iterator's producer.
    fn callback<P: IndexedProducer<Item = Item>>(self, producer: P) -> Self::Output;
}

/// A reducer for results that need no combining (`for_each`).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopReducer;

impl Reducer<()> for NoopReducer {
    #[inline]
    fn reduce(self, _left: (), _right: ()) {}
}
