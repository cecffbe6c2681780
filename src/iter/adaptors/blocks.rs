//! `by_exponential_blocks` and `by_uniform_blocks`: an indexed iterator run as a sequence of
//! blocks, one after the other, each block in parallel.
//!
//! A block starts only when the one before it is done, so a consumer that stops early
//! (`find_first`, `take_any_while`-like searches) never runs far past the point where it could
//! stop, and a block's items all run after the previous block's.

use std::fmt;

use crate::iter::plumbing::bridge::bridge_producer_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback, Reducer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`IndexedParallelIterator::by_exponential_blocks`]: blocks of
/// `current_num_threads()` items, then twice that, and so on.
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct ExponentialBlocks<I> {
    base: I,
}

/// Parallel iterator returned by [`IndexedParallelIterator::by_uniform_blocks`]: blocks of
/// `block_size` items (the last may be shorter).
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct UniformBlocks<I> {
    base: I,
    block_size: usize,
}

impl<I> ExponentialBlocks<I> {
    pub(in crate::iter) fn new(base: I) -> Self {
        ExponentialBlocks { base }
    }
}

impl<I> UniformBlocks<I> {
    pub(in crate::iter) fn new(base: I, block_size: usize) -> Self {
        assert!(block_size != 0, "block_size must not be zero");
        UniformBlocks { base, block_size }
    }
}

impl<I: fmt::Debug> fmt::Debug for ExponentialBlocks<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExponentialBlocks")
            .field("base", &self.base)
            .finish()
    }
}

impl<I: fmt::Debug> fmt::Debug for UniformBlocks<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UniformBlocks")
            .field("base", &self.base)
            .field("block_size", &self.block_size)
            .finish()
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for ExponentialBlocks<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let first = crate::current_num_threads().max(1);
        let sizes = std::iter::successors(Some(first), |&n| Some(n.saturating_mul(2)));
        let len = self.base.len();
        self.base.with_producer(BlocksCallback {
            sizes,
            consumer,
            len,
        })
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for UniformBlocks<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let sizes = std::iter::repeat(self.block_size);
        let len = self.base.len();
        self.base.with_producer(BlocksCallback {
            sizes,
            consumer,
            len,
        })
    }
}

/// Runs the producer block by block; `sizes` gives the block sizes in order, `len` is the
/// producer's length (tracked here: rayon's producers do not know it).
struct BlocksCallback<S, C> {
    sizes: S,
    consumer: C,
    len: usize,
}

impl<T, S, C> ProducerCallback<T> for BlocksCallback<S, C>
where
    S: Iterator<Item = usize>,
    C: LazyConsumer<T>,
{
    type Output = C::Result;

    fn callback<P: Producer<Item = T>>(mut self, mut producer: P) -> C::Result {
        let mut consumer = self.consumer;
        let mut left = self.len;
        let mut done: Option<C::Result> = None;
        while left > 0 && !consumer.full() {
            let size = self.sizes.next().unwrap_or(usize::MAX).min(left);
            left -= size;
            let (block, rest) = producer.split_at(size);
            let (here, there, reducer) = consumer.split_off(size);
            let result = bridge_producer_lazy(size, block, here);
            done = Some(match done {
                None => result,
                Some(before) => reducer.reduce(before, result),
            });
            producer = rest;
            consumer = there;
        }
        // The consumer left after the last block is never fed, as `flat_map` leaves it.
        done.unwrap_or_else(|| consumer.complete())
    }
}
