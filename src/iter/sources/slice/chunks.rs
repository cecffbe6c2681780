//! Parallel iteration over fixed-size chunks of a slice: `par_chunks(n)` and `par_chunks_mut(n)`.

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::sources::slice::SliceRef;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

const ZERO_CHUNK: &str = "chunk size must be non-zero";

/// Parallel iterator over `&[T]` chunks (see [`ParallelSlice::par_chunks`](crate::slice::ParallelSlice)).
pub type Chunks<'a, T> = ChunksOf<&'a [T]>;

/// Parallel iterator over `&mut [T]` chunks (see
/// [`ParallelSliceMut::par_chunks_mut`](crate::slice::ParallelSliceMut)).
pub type ChunksMut<'a, T> = ChunksOf<&'a mut [T]>;

/// Parallel iterator over fixed-size chunks of a borrowed slice ([`Chunks`], [`ChunksMut`]).
#[derive(Debug, Clone)]
pub struct ChunksOf<S> {
    slice: S,
    size: usize,
}

impl<S: SliceRef> ChunksOf<S> {
    pub(in crate::iter) fn new(slice: S, size: usize) -> Self {
        assert!(size != 0, "{ZERO_CHUNK}");
        ChunksOf { slice, size }
    }
}

impl<S: SliceRef> ParallelIterator for ChunksOf<S> {
    type Item = S::Chunk;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<S::Chunk>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<S: SliceRef> IndexedParallelIterator for ChunksOf<S> {
    fn len(&self) -> usize {
        self.slice.slice_len().div_ceil(self.size)
    }
    fn with_producer<CB: ProducerCallback<S::Chunk>>(self, callback: CB) -> CB::Output {
        callback.callback(ChunksOfProducer {
            slice: self.slice,
            size: self.size,
        })
    }
}

/// Producer of [`ChunksOf`].
#[derive(Debug)]
pub(crate) struct ChunksOfProducer<S> {
    slice: S,
    size: usize,
}

impl<S: SliceRef> Producer for ChunksOfProducer<S> {
    type Item = S::Chunk;
    type IntoIter = S::Chunks;
    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.size).min(self.slice.slice_len());
        let (left, right) = self.slice.split(at);
        let size = self.size;
        (
            ChunksOfProducer { slice: left, size },
            ChunksOfProducer { slice: right, size },
        )
    }
    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks_of(self.size)
    }
}
