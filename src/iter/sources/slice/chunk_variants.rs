//! The other chunkings of a slice: `par_chunks_exact(_mut)`, `par_rchunks(_mut)`,
//! `par_rchunks_exact(_mut)` (one producer, with a [`ChunkKind`] for the direction and
//! exactness), and `par_windows`.
//!
//! The exact kinds set their remainder aside when they are made, so the producer covers a whole
//! number of chunks. The reversed kinds count positions from the end of the slice: the first
//! `n` chunks are its last `n · size` elements.

use std::marker::PhantomData;

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::sources::slice::SliceRef;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

const ZERO_CHUNK: &str = "chunk size must be non-zero";

/// How a slice is cut into chunks: std's iterator for it, and from which end.
pub trait ChunkKind<S: SliceRef>: Send {
    /// std's iterator over the chunks of a whole number of them (or fewer, at the far end).
    type Iter: DoubleEndedIterator<Item = S::Chunk> + ExactSizeIterator;
    /// True if chunks are counted from the end of the slice.
    const REVERSED: bool;
    /// True if a shorter last chunk is set aside as the remainder.
    const EXACT: bool;
    /// The chunks of `slice`, in order.
    fn chunks(slice: S, size: usize) -> Self::Iter;
}

/// `chunks_exact`: full chunks from the front.
#[derive(Debug)]
pub struct ChunksExactKind;
/// `rchunks`: chunks from the back; the last one may be shorter.
#[derive(Debug)]
pub struct RChunksKind;
/// `rchunks_exact`: full chunks from the back.
#[derive(Debug)]
pub struct RChunksExactKind;

impl<S: SliceRef> ChunkKind<S> for ChunksExactKind {
    type Iter = S::ChunksExact;
    const REVERSED: bool = false;
    const EXACT: bool = true;
    fn chunks(slice: S, size: usize) -> S::ChunksExact {
        slice.chunks_exact_of(size)
    }
}

impl<S: SliceRef> ChunkKind<S> for RChunksKind {
    type Iter = S::RChunks;
    const REVERSED: bool = true;
    const EXACT: bool = false;
    fn chunks(slice: S, size: usize) -> S::RChunks {
        slice.rchunks_of(size)
    }
}

impl<S: SliceRef> ChunkKind<S> for RChunksExactKind {
    type Iter = S::RChunksExact;
    const REVERSED: bool = true;
    const EXACT: bool = true;
    fn chunks(slice: S, size: usize) -> S::RChunksExact {
        slice.rchunks_exact_of(size)
    }
}

/// Parallel iterator over chunks of a borrowed slice of one [`ChunkKind`]: the exact and
/// reversed chunkings ([`ChunksExact`], [`ChunksExactMut`], [`RChunks`], [`RChunksMut`],
/// [`RChunksExact`], [`RChunksExactMut`]).
#[derive(Debug)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct ChunksIter<S, K> {
    /// The part that is cut into chunks.
    slice: S,
    /// The exact kinds' remainder (empty otherwise).
    rem: S,
    size: usize,
    kind: PhantomData<fn() -> K>,
}

// Not derived: that would ask for `K: Clone`, and the kinds are only markers.
impl<S: Clone, K> Clone for ChunksIter<S, K> {
    fn clone(&self) -> Self {
        ChunksIter {
            slice: self.slice.clone(),
            rem: self.rem.clone(),
            size: self.size,
            kind: PhantomData,
        }
    }
}

/// Parallel iterator over `&[T]` chunks of exactly `chunk_size` items
/// ([`ParallelSlice::par_chunks_exact`](crate::slice::ParallelSlice::par_chunks_exact)).
pub type ChunksExact<'a, T> = ChunksIter<&'a [T], ChunksExactKind>;
/// Parallel iterator over `&mut [T]` chunks of exactly `chunk_size` items
/// ([`ParallelSliceMut::par_chunks_exact_mut`](crate::slice::ParallelSliceMut::par_chunks_exact_mut)).
pub type ChunksExactMut<'a, T> = ChunksIter<&'a mut [T], ChunksExactKind>;
/// Parallel iterator over `&[T]` chunks from the end
/// ([`ParallelSlice::par_rchunks`](crate::slice::ParallelSlice::par_rchunks)).
pub type RChunks<'a, T> = ChunksIter<&'a [T], RChunksKind>;
/// Parallel iterator over `&mut [T]` chunks from the end
/// ([`ParallelSliceMut::par_rchunks_mut`](crate::slice::ParallelSliceMut::par_rchunks_mut)).
pub type RChunksMut<'a, T> = ChunksIter<&'a mut [T], RChunksKind>;
/// Parallel iterator over `&[T]` chunks of exactly `chunk_size` items from the end
/// ([`ParallelSlice::par_rchunks_exact`](crate::slice::ParallelSlice::par_rchunks_exact)).
pub type RChunksExact<'a, T> = ChunksIter<&'a [T], RChunksExactKind>;
/// Parallel iterator over `&mut [T]` chunks of exactly `chunk_size` items from the end
/// ([`ParallelSliceMut::par_rchunks_exact_mut`](crate::slice::ParallelSliceMut::par_rchunks_exact_mut)).
pub type RChunksExactMut<'a, T> = ChunksIter<&'a mut [T], RChunksExactKind>;

impl<S: SliceRef, K: ChunkKind<S>> ChunksIter<S, K> {
    pub(in crate::iter) fn new(slice: S, size: usize) -> Self {
        assert!(size != 0, "{ZERO_CHUNK}");
        let len = slice.slice_len();
        let (slice, rem) = match (K::EXACT, K::REVERSED) {
            (false, _) => slice.split(len),
            (true, false) => slice.split(len - len % size),
            (true, true) => {
                let (rem, slice) = slice.split(len % size);
                (slice, rem)
            }
        };
        ChunksIter {
            slice,
            rem,
            size,
            kind: PhantomData,
        }
    }
}

impl<'a, T: Sync, K> ChunksIter<&'a [T], K> {
    /// The elements left over by an exact chunking: fewer than `chunk_size`, at the end of the
    /// slice for [`ChunksExact`] and at its start for [`RChunksExact`]; empty for [`RChunks`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// assert_eq!(v.par_chunks_exact(2).remainder(), [5]);
    /// assert_eq!(v.par_rchunks_exact(2).remainder(), [1]);
    /// ```
    pub fn remainder(&self) -> &'a [T] {
        self.rem
    }
}

impl<'a, T: Send, K> ChunksIter<&'a mut [T], K> {
    /// The elements left over by an exact chunking, for the rest of the borrow.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// let rem = v.par_chunks_exact_mut(2).into_remainder();
    /// rem[0] = 9;
    /// assert_eq!(v, [1, 2, 3, 4, 9]);
    /// ```
    pub fn into_remainder(self) -> &'a mut [T] {
        self.rem
    }

    /// The elements left over by an exact chunking, borrowed from the iterator.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut v = [1, 2, 3];
    /// let mut chunks = v.par_rchunks_exact_mut(2);
    /// assert_eq!(chunks.remainder(), [1]);
    /// ```
    pub fn remainder(&mut self) -> &mut [T] {
        self.rem
    }

    /// Takes the elements left over by an exact chunking out of the iterator (which keeps an
    /// empty remainder).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut v = [1, 2, 3];
    /// let mut chunks = v.par_chunks_exact_mut(2);
    /// let rem = chunks.take_remainder();
    /// assert_eq!(rem, [3]);
    /// assert!(chunks.remainder().is_empty());
    /// ```
    pub fn take_remainder(&mut self) -> &'a mut [T] {
        std::mem::take(&mut self.rem)
    }
}

impl<S: SliceRef, K: ChunkKind<S>> ParallelIterator for ChunksIter<S, K> {
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

impl<S: SliceRef, K: ChunkKind<S>> IndexedParallelIterator for ChunksIter<S, K> {
    fn len(&self) -> usize {
        self.slice.slice_len().div_ceil(self.size)
    }
    fn with_producer<CB: ProducerCallback<S::Chunk>>(self, callback: CB) -> CB::Output {
        callback.callback(ChunkKindProducer::<S, K> {
            slice: self.slice,
            size: self.size,
            kind: PhantomData,
        })
    }
}

/// Producer of [`ChunksIter`].
struct ChunkKindProducer<S, K> {
    slice: S,
    size: usize,
    kind: PhantomData<fn() -> K>,
}

impl<S: SliceRef, K: ChunkKind<S>> Producer for ChunkKindProducer<S, K> {
    type Item = S::Chunk;
    type IntoIter = K::Iter;

    fn split_at(self, index: usize) -> (Self, Self) {
        let len = self.slice.slice_len();
        let elements = index.saturating_mul(self.size).min(len);
        let (first, second) = if K::REVERSED {
            // The first `index` chunks are the last `elements` elements.
            let (rest, last) = self.slice.split(len - elements);
            (last, rest)
        } else {
            self.slice.split(elements)
        };
        let size = self.size;
        (
            ChunkKindProducer {
                slice: first,
                size,
                kind: PhantomData,
            },
            ChunkKindProducer {
                slice: second,
                size,
                kind: PhantomData,
            },
        )
    }
    fn into_iter(self) -> K::Iter {
        K::chunks(self.slice, self.size)
    }
}

/// Parallel iterator over the overlapping windows of `window_size` items of a slice
/// ([`ParallelSlice::par_windows`](crate::slice::ParallelSlice::par_windows)), like
/// [`slice::windows`]: none if the slice is shorter than a window.
#[derive(Debug)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Windows<'a, T> {
    slice: &'a [T],
    size: usize,
}

impl<T> Clone for Windows<'_, T> {
    fn clone(&self) -> Self {
        Windows { ..*self }
    }
}

impl<'a, T: Sync> Windows<'a, T> {
    pub(in crate::iter) fn new(slice: &'a [T], size: usize) -> Self {
        assert!(size != 0, "window size must be non-zero");
        Windows { slice, size }
    }
}

impl<'a, T: Sync> ParallelIterator for Windows<'a, T> {
    type Item = &'a [T];
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<&'a [T]>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'a, T: Sync> IndexedParallelIterator for Windows<'a, T> {
    fn len(&self) -> usize {
        (self.slice.len() + 1).saturating_sub(self.size)
    }
    fn with_producer<CB: ProducerCallback<&'a [T]>>(self, callback: CB) -> CB::Output {
        callback.callback(WindowsProducer {
            slice: self.slice,
            size: self.size,
        })
    }
}

/// Producer of [`Windows`]: the windows starting in a sub-slice (whose last `size - 1` elements
/// only end windows).
struct WindowsProducer<'a, T> {
    slice: &'a [T],
    size: usize,
}

impl<'a, T: Sync> Producer for WindowsProducer<'a, T> {
    type Item = &'a [T];
    type IntoIter = std::slice::Windows<'a, T>;

    fn split_at(self, index: usize) -> (Self, Self) {
        let index = index.min((self.slice.len() + 1).saturating_sub(self.size));
        // The left keeps the elements of its windows: `size - 1` more than it starts.
        let left_end = index.saturating_add(self.size - 1).min(self.slice.len());
        let size = self.size;
        (
            WindowsProducer {
                slice: &self.slice[..left_end],
                size,
            },
            WindowsProducer {
                slice: &self.slice[index..],
                size,
            },
        )
    }
    fn into_iter(self) -> Self::IntoIter {
        self.slice.windows(self.size)
    }
}
