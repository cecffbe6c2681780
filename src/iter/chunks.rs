//! Parallel iteration over fixed-size chunks of a slice: `par_chunks(n)` and `par_chunks_mut(n)`.

use super::bridge::BridgeCallback;
use super::plumbing::{Consumer, Producer, ProducerCallback};
use super::{IndexedParallelIterator, ParallelIterator};

const ZERO_CHUNK: &str = "chunk size must be non-zero";

/// Parallel iterator over `&[T]` chunks (see [`ParallelSlice::par_chunks`](super::ParallelSlice)).
#[derive(Debug)]
pub struct Chunks<'a, T> {
    slice: &'a [T],
    size: usize,
}

/// Parallel iterator over `&mut [T]` chunks (see
/// [`ParallelSliceMut::par_chunks_mut`](super::ParallelSliceMut)).
#[derive(Debug)]
pub struct ChunksMut<'a, T> {
    slice: &'a mut [T],
    size: usize,
}

impl<'a, T: Sync> Chunks<'a, T> {
    pub(super) fn new(slice: &'a [T], size: usize) -> Self {
        assert!(size != 0, "{ZERO_CHUNK}");
        Chunks { slice, size }
    }
}

impl<'a, T: Send> ChunksMut<'a, T> {
    pub(super) fn new(slice: &'a mut [T], size: usize) -> Self {
        assert!(size != 0, "{ZERO_CHUNK}");
        ChunksMut { slice, size }
    }
}

impl<'a, T: Sync> ParallelIterator for Chunks<'a, T> {
    type Item = &'a [T];
    fn drive_unindexed<C: Consumer<&'a [T]>>(self, consumer: C) -> C::Result {
        self.with_producer(BridgeCallback(consumer))
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'a, T: Sync> IndexedParallelIterator for Chunks<'a, T> {
    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }
    fn with_producer<CB: ProducerCallback<&'a [T]>>(self, callback: CB) -> CB::Output {
        callback.callback(ChunksProducer {
            slice: self.slice,
            size: self.size,
        })
    }
}

impl<'a, T: Send> ParallelIterator for ChunksMut<'a, T> {
    type Item = &'a mut [T];
    fn drive_unindexed<C: Consumer<&'a mut [T]>>(self, consumer: C) -> C::Result {
        self.with_producer(BridgeCallback(consumer))
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'a, T: Send> IndexedParallelIterator for ChunksMut<'a, T> {
    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }
    fn with_producer<CB: ProducerCallback<&'a mut [T]>>(self, callback: CB) -> CB::Output {
        callback.callback(ChunksMutProducer {
            slice: self.slice,
            size: self.size,
        })
    }
}

/// Producer of [`Chunks`].
#[derive(Debug)]
pub struct ChunksProducer<'a, T> {
    slice: &'a [T],
    size: usize,
}

impl<'a, T: Sync> Producer for ChunksProducer<'a, T> {
    type Item = &'a [T];
    type IntoIter = std::slice::Chunks<'a, T>;
    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.size).min(self.slice.len());
        let (left, right) = self.slice.split_at(at);
        let size = self.size;
        (
            ChunksProducer { slice: left, size },
            ChunksProducer { slice: right, size },
        )
    }
    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks(self.size)
    }
}

/// Producer of [`ChunksMut`].
#[derive(Debug)]
pub struct ChunksMutProducer<'a, T> {
    slice: &'a mut [T],
    size: usize,
}

impl<'a, T: Send> Producer for ChunksMutProducer<'a, T> {
    type Item = &'a mut [T];
    type IntoIter = std::slice::ChunksMut<'a, T>;
    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.size).min(self.slice.len());
        let (left, right) = self.slice.split_at_mut(at);
        let size = self.size;
        (
            ChunksMutProducer { slice: left, size },
            ChunksMutProducer { slice: right, size },
        )
    }
    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks_mut(self.size)
    }
}
