//! `par_chunk_by` and `par_chunk_by_mut`: the runs of a slice in which every two neighbours
//! satisfy a predicate, as std's `chunk_by`. Not indexed: how many runs there are is known only
//! after looking at every pair.
//!
//! A piece counts one position per element. The bridge's cut at index `i` moves to the nearest
//! run boundary at or after `i` (before it if there is none after), so no run is ever cut in
//! two; a piece known to hold no boundary tells the bridge not to cut it (`min_len`).

use std::fmt;

use crate::iter::plumbing::bridge::{bridge_pieces, Piece};
use crate::iter::plumbing::LazyConsumer;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::ParallelIterator;

/// Parallel iterator returned by [`ParallelSlice::par_chunk_by`](crate::slice::ParallelSlice::par_chunk_by).
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct ChunkBy<'a, T, P> {
    pred: P,
    slice: &'a [T],
}

impl<'a, T, P> ChunkBy<'a, T, P> {
    pub(in crate::iter) fn new(slice: &'a [T], pred: P) -> Self {
        ChunkBy { pred, slice }
    }
}

impl<T, P: Clone> Clone for ChunkBy<'_, T, P> {
    fn clone(&self) -> Self {
        ChunkBy {
            pred: self.pred.clone(),
            slice: self.slice,
        }
    }
}

impl<T: fmt::Debug, P> fmt::Debug for ChunkBy<'_, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkBy")
            .field("slice", &self.slice)
            .finish_non_exhaustive()
    }
}

impl<'a, T, P> ParallelIterator for ChunkBy<'a, T, P>
where
    T: Sync,
    P: Fn(&T, &T) -> bool + Send + Sync,
{
    type Item = &'a [T];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<&'a [T]>>(self, consumer: C) -> C::Result {
        bridge_pieces(ChunkByProducer::new(self.slice, &self.pred), consumer)
    }
}

/// Parallel iterator returned by
/// [`ParallelSliceMut::par_chunk_by_mut`](crate::slice::ParallelSliceMut::par_chunk_by_mut).
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct ChunkByMut<'a, T, P> {
    pred: P,
    slice: &'a mut [T],
}

impl<'a, T, P> ChunkByMut<'a, T, P> {
    pub(in crate::iter) fn new(slice: &'a mut [T], pred: P) -> Self {
        ChunkByMut { pred, slice }
    }
}

impl<T: fmt::Debug, P> fmt::Debug for ChunkByMut<'_, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkByMut")
            .field("slice", &self.slice)
            .finish_non_exhaustive()
    }
}

impl<'a, T, P> ParallelIterator for ChunkByMut<'a, T, P>
where
    T: Send,
    P: Fn(&T, &T) -> bool + Send + Sync,
{
    type Item = &'a mut [T];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<&'a mut [T]>>(self, consumer: C) -> C::Result {
        bridge_pieces(ChunkByProducer::new(self.slice, &self.pred), consumer)
    }
}

/// A shared or exclusive slice, as `chunk_by` needs it.
trait RunSlice<'p, P: 'p>: Sized + Send {
    /// The element type.
    type Elem;
    /// std's iterator over the runs.
    type Runs: Iterator<Item = Self>;
    fn view(&self) -> &[Self::Elem];
    fn cut(self, at: usize) -> (Self, Self);
    fn runs(self, pred: &'p P) -> Self::Runs;
}

impl<'a, 'p, T: Sync, P: Fn(&T, &T) -> bool + 'p> RunSlice<'p, P> for &'a [T] {
    type Elem = T;
    type Runs = std::slice::ChunkBy<'a, T, &'p P>;
    fn view(&self) -> &[T] {
        self
    }
    fn cut(self, at: usize) -> (Self, Self) {
        self.split_at(at)
    }
    fn runs(self, pred: &'p P) -> Self::Runs {
        self.chunk_by(pred)
    }
}

impl<'a, 'p, T: Send, P: Fn(&T, &T) -> bool + 'p> RunSlice<'p, P> for &'a mut [T] {
    type Elem = T;
    type Runs = std::slice::ChunkByMut<'a, T, &'p P>;
    fn view(&self) -> &[T] {
        self
    }
    fn cut(self, at: usize) -> (Self, Self) {
        self.split_at_mut(at)
    }
    fn runs(self, pred: &'p P) -> Self::Runs {
        self.chunk_by_mut(pred)
    }
}

/// A piece of a `chunk_by`: the runs of `slice`, one position per element.
struct ChunkByProducer<'p, S, P> {
    slice: S,
    pred: &'p P,
    /// No run boundary lies at an index from here on (a boundary `b` separates elements `b - 1`
    /// and `b`), so the piece cannot be cut there.
    tail: usize,
}

impl<'p, S, P> ChunkByProducer<'p, S, P> {
    fn new(slice: S, pred: &'p P) -> Self
    where
        S: RunSlice<'p, P>,
    {
        let tail = slice.view().len();
        ChunkByProducer { slice, pred, tail }
    }
}

impl<'p, S, P> Piece for ChunkByProducer<'p, S, P>
where
    S: RunSlice<'p, P>,
    P: Fn(&S::Elem, &S::Elem) -> bool + Sync,
{
    type Item = S;
    type IntoIter = S::Runs;

    fn len(&self) -> usize {
        self.slice.view().len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let pred = self.pred;
        let elems = self.slice.view();
        let boundary = |b: &usize| !pred(&elems[b - 1], &elems[*b]);
        let from = index.max(1);
        // After `index` first (the left side then keeps the whole run around it), then before.
        let (at, left_tail, right_tail) = if index == 0 {
            (0, 0, self.tail)
        } else if let Some(b) = (from..self.tail).find(boundary) {
            (b, from.min(b), self.tail - b)
        } else if let Some(b) = (1..from.min(self.tail)).rev().find(boundary) {
            (b, b, 0)
        } else {
            // No boundary at all: everything stays on the left, which cannot be cut.
            let len = elems.len();
            (len, 0, 0)
        };
        let (left, right) = self.slice.cut(at);
        (
            ChunkByProducer {
                slice: left,
                pred,
                tail: left_tail,
            },
            ChunkByProducer {
                slice: right,
                pred,
                tail: right_tail,
            },
        )
    }

    fn min_len(&self) -> usize {
        // Index 0 is never a boundary: a tail of 0 or 1 means no place to cut.
        if self.tail <= 1 {
            usize::MAX
        } else {
            1
        }
    }

    fn into_iter(self) -> S::Runs {
        self.slice.runs(self.pred)
    }
}
