//! `deterministic`: reductions over a fixed tree of blocks, the same bits on every pool.
//!
//! The adaptor changes no item: it hands its base's producer on while it asks the bridge that
//! receives it to reduce over the fixed tree of blocks of [`DETERMINISTIC_BLOCK_LEN`] positions
//! that `crate::iter::plumbing::fixed_tree` describes, instead of splitting it adaptively. The
//! producer adaptors after it (`map`, `zip`, `enumerate`, `rev`, `chunks`, a user's own, ...) only
//! wrap the producer on its way to that bridge, and the consumer-side ones (`filter`,
//! `flat_map`, `fold`, ...) follow the producer's cuts, so they keep the guarantee with nothing
//! to forward.

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::fixed_tree::with_fixed_tree;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, ProducerCallback};
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

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

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
        with_fixed_tree(DETERMINISTIC_BLOCK_LEN, || {
            self.base.with_producer(callback)
        })
    }
}
