//! `chunks` on indexed iterators: the items gathered into `Vec`s of `chunk_size` (the last one
//! may be shorter).

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`IndexedParallelIterator::chunks`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Chunks<I> {
    base: I,
    size: usize,
}

impl<I> Chunks<I> {
    pub(in crate::iter) fn new(base: I, size: usize) -> Self {
        assert!(size != 0, "chunk_size must not be zero");
        Chunks { base, size }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Chunks<I> {
    type Item = Vec<I::Item>;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<Vec<I::Item>>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Chunks<I> {
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }

    fn with_producer<CB: ProducerCallback<Vec<I::Item>>>(self, callback: CB) -> CB::Output {
        let len = self.base.len();
        return self.base.with_producer(Callback {
            callback,
            size: self.size,
            len,
        });

        struct Callback<CB> {
            callback: CB,
            size: usize,
            len: usize,
        }

        impl<T, CB: ProducerCallback<Vec<T>>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(ChunksProducer {
                    base,
                    size: self.size,
                    len: self.len,
                })
            }
        }
    }
}

/// Producer of [`Chunks`]: position `i` gathers the base's positions `i · size ..`.
struct ChunksProducer<P> {
    base: P,
    size: usize,
    /// The base's length.
    len: usize,
}

impl<P: Producer> Producer for ChunksProducer<P> {
    type Item = Vec<P::Item>;
    type IntoIter = ChunkSeq<P::IntoIter>;

    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.size).min(self.len);
        let (left, right) = self.base.split_at(at);
        let size = self.size;
        (
            ChunksProducer {
                base: left,
                size,
                len: at,
            },
            ChunksProducer {
                base: right,
                size,
                len: self.len - at,
            },
        )
    }
    fn into_iter(self) -> ChunkSeq<P::IntoIter> {
        ChunkSeq {
            len: self.len,
            iter: self.base.into_iter(),
            size: self.size,
        }
    }
    fn min_len(&self) -> usize {
        self.base.min_len().div_ceil(self.size)
    }
    fn max_len(&self) -> usize {
        (self.base.max_len() / self.size).max(1)
    }
}

/// The sequential iterator of a [`ChunksProducer`]: `Vec`s of `size` items of `iter`, which
/// holds `len` more items.
struct ChunkSeq<I> {
    iter: I,
    len: usize,
    size: usize,
}

impl<I: Iterator> Iterator for ChunkSeq<I> {
    type Item = Vec<I::Item>;

    fn next(&mut self) -> Option<Vec<I::Item>> {
        if self.len == 0 {
            return None;
        }
        let n = self.size.min(self.len);
        self.len -= n;
        let mut chunk = Vec::with_capacity(n);
        chunk.extend(self.iter.by_ref().take(n));
        Some(chunk)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len.div_ceil(self.size);
        (n, Some(n))
    }
}

impl<I: DoubleEndedIterator> DoubleEndedIterator for ChunkSeq<I> {
    fn next_back(&mut self) -> Option<Vec<I::Item>> {
        if self.len == 0 {
            return None;
        }
        // The last chunk holds what is left over after the full ones.
        let n = match self.len % self.size {
            0 => self.size,
            rest => rest,
        };
        self.len -= n;
        let mut chunk: Vec<I::Item> = self.iter.by_ref().rev().take(n).collect();
        chunk.reverse();
        Some(chunk)
    }
}

impl<I: Iterator> ExactSizeIterator for ChunkSeq<I> {}
