//! `skip` and `take` on indexed iterators: the producer is cut at `n`, and one side is passed on.
//! As with std's adaptors, the skipped items are still produced (a `map` before `skip` runs on them)
//! and dropped; the items after a `take` are dropped without being produced.

use crate::iter::consumers::for_each::ForEachConsumer;
use crate::iter::plumbing::bridge::{bridge_lazy, bridge_producer_lazy};
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`IndexedParallelIterator::skip`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Skip<I> {
    base: I,
    n: usize,
}

/// Parallel iterator returned by [`IndexedParallelIterator::take`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Take<I> {
    base: I,
    n: usize,
}

impl<I: IndexedParallelIterator> Skip<I> {
    pub(in crate::iter) fn new(base: I, n: usize) -> Self {
        let n = n.min(base.len());
        Skip { base, n }
    }
}

impl<I: IndexedParallelIterator> Take<I> {
    pub(in crate::iter) fn new(base: I, n: usize) -> Self {
        let n = n.min(base.len());
        Take { base, n }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Skip<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Skip<I> {
    fn len(&self) -> usize {
        self.base.len() - self.n
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        return self.base.with_producer(SkipCallback {
            callback,
            n: self.n,
        });

        struct SkipCallback<CB> {
            callback: CB,
            n: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for SkipCallback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                let (skipped, kept) = base.split_at(self.n);
                let output = self.callback.callback(kept);
                // Produce and drop the skipped items too (in parallel), for their side effects.
                bridge_producer_lazy(self.n, skipped, ForEachConsumer { op: &drop::<T> });
                output
            }
        }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Take<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.n)
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Take<I> {
    fn len(&self) -> usize {
        self.n
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        return self.base.with_producer(TakeCallback {
            callback,
            n: self.n,
        });

        struct TakeCallback<CB> {
            callback: CB,
            n: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for TakeCallback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                // The rest is dropped with its producer (owned items included), unproduced.
                let (taken, _rest) = base.split_at(self.n);
                self.callback.callback(taken)
            }
        }
    }
}
