//! `fold_chunks` and `fold_chunks_with` on indexed iterators: every run of `chunk_size` items
//! (the last one may be shorter) folded sequentially into one value; indexed, one position per
//! chunk.
//!
//! A chunk is a sub-producer of the base, cut off with `split_at`, so each chunk is folded in
//! position order by its own sequential iterator, from either end of a piece.

use std::fmt;

use crate::iter::adaptors::folds::try_fold::{FromClone, FromIdentity, Seed};
use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::user_op::inlinable_op2;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`IndexedParallelIterator::fold_chunks`].
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct FoldChunks<I, ID, F> {
    base: I,
    chunk_size: usize,
    fold_op: F,
    identity: ID,
}

impl<I, ID, F> FoldChunks<I, ID, F> {
    pub(in crate::iter) fn new(base: I, chunk_size: usize, identity: ID, fold_op: F) -> Self {
        FoldChunks {
            base,
            chunk_size,
            fold_op,
            identity,
        }
    }
}

impl<I: fmt::Debug, ID, F> fmt::Debug for FoldChunks<I, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldChunks")
            .field("base", &self.base)
            .field("chunk_size", &self.chunk_size)
            .finish_non_exhaustive()
    }
}

impl<I, ID, U, F> ParallelIterator for FoldChunks<I, ID, F>
where
    I: IndexedParallelIterator,
    ID: Fn() -> U + Send + Sync,
    F: Fn(U, I::Item) -> U + Send + Sync,
    U: Send,
{
    type Item = U;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<U>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I, ID, U, F> IndexedParallelIterator for FoldChunks<I, ID, F>
where
    I: IndexedParallelIterator,
    ID: Fn() -> U + Send + Sync,
    F: Fn(U, I::Item) -> U + Send + Sync,
    U: Send,
{
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.chunk_size)
    }

    fn with_producer<CB: ProducerCallback<U>>(self, callback: CB) -> CB::Output {
        let len = self.base.len();
        self.base.with_producer(ChunkCallback {
            callback,
            len,
            size: self.chunk_size,
            seed: FromIdentity(&self.identity),
            fold_op: &self.fold_op,
        })
    }
}

/// Parallel iterator returned by [`IndexedParallelIterator::fold_chunks_with`].
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct FoldChunksWith<I, U, F> {
    base: I,
    chunk_size: usize,
    item: U,
    fold_op: F,
}

impl<I, U, F> FoldChunksWith<I, U, F> {
    pub(in crate::iter) fn new(base: I, chunk_size: usize, item: U, fold_op: F) -> Self {
        FoldChunksWith {
            base,
            chunk_size,
            item,
            fold_op,
        }
    }
}

impl<I: fmt::Debug, U: fmt::Debug, F> fmt::Debug for FoldChunksWith<I, U, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldChunksWith")
            .field("base", &self.base)
            .field("chunk_size", &self.chunk_size)
            .field("item", &self.item)
            .finish_non_exhaustive()
    }
}

impl<I, U, F> ParallelIterator for FoldChunksWith<I, U, F>
where
    I: IndexedParallelIterator,
    U: Send + Clone,
    F: Fn(U, I::Item) -> U + Send + Sync,
{
    type Item = U;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<U>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I, U, F> IndexedParallelIterator for FoldChunksWith<I, U, F>
where
    I: IndexedParallelIterator,
    U: Send + Clone,
    F: Fn(U, I::Item) -> U + Send + Sync,
{
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.chunk_size)
    }

    fn with_producer<CB: ProducerCallback<U>>(self, callback: CB) -> CB::Output {
        let len = self.base.len();
        self.base.with_producer(ChunkCallback {
            callback,
            len,
            size: self.chunk_size,
            seed: FromClone(self.item),
            fold_op: &self.fold_op,
        })
    }
}

/// Wraps the base producer into a [`FoldChunksProducer`].
struct ChunkCallback<'f, CB, S, F> {
    callback: CB,
    /// The base's length (rayon's producers do not know theirs).
    len: usize,
    size: usize,
    seed: S,
    fold_op: &'f F,
}

impl<T, CB, S, F> ProducerCallback<T> for ChunkCallback<'_, CB, S, F>
where
    CB: ProducerCallback<S::Value>,
    S: Seed<Value: Send>,
    F: Fn(S::Value, T) -> S::Value + Sync,
{
    type Output = CB::Output;
    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(FoldChunksProducer {
            base,
            items: self.len,
            size: self.size,
            seed: self.seed,
            fold_op: self.fold_op,
        })
    }
}

/// Producer of the chunk folds: position `i` folds the base's positions `i · size ..`.
struct FoldChunksProducer<'f, P, S, F> {
    base: P,
    /// The base's length.
    items: usize,
    size: usize,
    seed: S,
    fold_op: &'f F,
}

impl<'f, P, S, F> Producer for FoldChunksProducer<'f, P, S, F>
where
    P: Producer,
    S: Seed,
    F: Fn(S::Value, P::Item) -> S::Value + Sync,
{
    type Item = S::Value;
    type IntoIter = FoldChunksSeq<'f, P, S, F>;

    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.size).min(self.items);
        let (left, right) = self.base.split_at(at);
        let right = FoldChunksProducer {
            base: right,
            items: self.items - at,
            seed: self.seed.clone(),
            ..self
        };
        (
            FoldChunksProducer {
                base: left,
                items: at,
                ..self
            },
            right,
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        FoldChunksSeq {
            base: Some(self.base),
            items: self.items,
            size: self.size,
            seed: self.seed,
            fold_op: self.fold_op,
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len().div_ceil(self.size)
    }

    fn max_len(&self) -> usize {
        (self.base.max_len() / self.size).max(1)
    }
}

/// The sequential iterator of a [`FoldChunksProducer`] piece: cuts chunks off either end of the
/// base producer and folds each one front to back.
struct FoldChunksSeq<'f, P, S, F> {
    /// The items not folded yet (`None` only transiently, while a chunk is cut off).
    base: Option<P>,
    /// How many they are.
    items: usize,
    size: usize,
    seed: S,
    fold_op: &'f F,
}

impl<P, S, F> FoldChunksSeq<'_, P, S, F>
where
    P: Producer,
    S: Seed,
    F: Fn(S::Value, P::Item) -> S::Value,
{
    /// Cuts the base at `at` and folds the left part (`front`) or the right part.
    fn fold_off(&mut self, at: usize, front: bool) -> S::Value {
        let base = self.base.take().expect("a chunk is cut off at a time");
        let (left, right) = base.split_at(at);
        let (chunk, rest) = if front { (left, right) } else { (right, left) };
        self.base = Some(rest);
        self.items -= if front { at } else { self.items - at };
        // `inlinable_op2`: so that `fold_op` can be inlined into this loop.
        chunk
            .into_iter()
            .fold(self.seed.make(), inlinable_op2(self.fold_op))
    }

    fn items(&self) -> usize {
        self.items
    }
}

impl<P, S, F> Iterator for FoldChunksSeq<'_, P, S, F>
where
    P: Producer,
    S: Seed,
    F: Fn(S::Value, P::Item) -> S::Value,
{
    type Item = S::Value;

    fn next(&mut self) -> Option<S::Value> {
        match self.items() {
            0 => None,
            items => Some(self.fold_off(self.size.min(items), true)),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.items().div_ceil(self.size);
        (n, Some(n))
    }
}

impl<P, S, F> DoubleEndedIterator for FoldChunksSeq<'_, P, S, F>
where
    P: Producer,
    S: Seed,
    F: Fn(S::Value, P::Item) -> S::Value,
{
    fn next_back(&mut self) -> Option<S::Value> {
        // The last chunk holds what is left over after the full ones.
        match self.items() {
            0 => None,
            items => match items % self.size {
                0 => Some(self.fold_off(items - self.size, false)),
                rest => Some(self.fold_off(items - rest, false)),
            },
        }
    }
}

impl<P, S, F> ExactSizeIterator for FoldChunksSeq<'_, P, S, F>
where
    P: Producer,
    S: Seed,
    F: Fn(S::Value, P::Item) -> S::Value,
{
}
