//! `deterministic`: reductions over a fixed tree of blocks, the same bits on every pool.
//!
//! The adaptor changes no item: it wraps its base's producer in one that reports a block length,
//! [`DETERMINISTIC_BLOCK_LEN`], and the bridge then reduces the producer over the fixed tree that
//! `crate::iter::plumbing::fixed_tree` describes instead of splitting it adaptively. The producer
//! adaptors after it (`map`, `zip`, `enumerate`, `rev`, `chunks`, ...) pass the block length on,
//! and the consumer-side ones (`filter`, `flat_map`, `fold`, ...) follow the producer's cuts, so
//! they keep the guarantee.

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{Folder, LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The number of positions in each block of a
/// [`deterministic`](IndexedParallelIterator::deterministic) iterator: the blocks are the
/// positions `[k·B, (k+1)·B)` (the last one may be shorter), each folded sequentially.
///
/// Part of the reduction's definition: results are bit-identical across pools and runs of the same
/// build, and may change when this constant changes between versions.
///
/// ```
/// use forkjoin::iter::DETERMINISTIC_BLOCK_LEN;
/// use forkjoin::prelude::*;
/// // One block: the plain sequential fold.
/// let v: Vec<f64> = (0..DETERMINISTIC_BLOCK_LEN).map(|i| 1.0 / (i as f64 + 1.0)).collect();
/// let seq: f64 = v.iter().sum();
/// assert_eq!(v.par_iter().deterministic().sum::<f64>().to_bits(), seq.to_bits());
/// ```
pub const DETERMINISTIC_BLOCK_LEN: usize = 4096;

/// Parallel iterator returned by [`IndexedParallelIterator::deterministic`]: the same items, reduced
/// over a fixed tree of blocks that depends only on the length.
///
/// ```
/// use forkjoin::prelude::*;
/// let v: Vec<f32> = (0..100_000).map(|i| (i as f32).sin() * 1e3).collect();
/// let one = forkjoin::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let four = forkjoin::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
/// let a = one.install(|| v.par_iter().deterministic().sum::<f32>());
/// let b = four.install(|| v.par_iter().deterministic().sum::<f32>());
/// assert_eq!(a.to_bits(), b.to_bits());
/// ```
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Deterministic<I> {
    base: I,
}

impl<I> Deterministic<I> {
    pub(in crate::iter) fn new(base: I) -> Self {
        Deterministic { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Deterministic<I> {
    type Item = I::Item;

    fn drive_lazy<C: LazyConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Deterministic<I> {
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        return self.base.with_producer(Callback { callback });

        struct Callback<CB> {
            callback: CB,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(DeterministicProducer { base })
            }
        }
    }
}

/// Producer of [`Deterministic`]: its base, with a block length.
#[derive(Debug)]
struct DeterministicProducer<P> {
    base: P,
}

impl<P: Producer> Producer for DeterministicProducer<P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;

    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        (
            DeterministicProducer { base: left },
            DeterministicProducer { base: right },
        )
    }
    fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_with(folder)
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
    fn __block_len(&self) -> usize {
        DETERMINISTIC_BLOCK_LEN
    }
}
