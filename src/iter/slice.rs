//! Parallel iteration over borrowed slices and vectors: `par_iter()`, `par_iter_mut()`, and the
//! slice extension traits [`ParallelSlice`] / [`ParallelSliceMut`] (`par_chunks`, `par_chunks_mut`).

use super::bridge::BridgeCallback;
use super::chunks::{Chunks, ChunksMut};
use super::plumbing::{Consumer, Producer, ProducerCallback};
use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// Parallel iterator over `&T` items of a slice (`slice.par_iter()`).
///
/// ```
/// use forkjoin::prelude::*;
/// let v = [1, 5, 3];
/// assert_eq!(v.par_iter().max(), Some(&5));
/// ```
#[derive(Debug)]
pub struct SliceIter<'a, T> {
    slice: &'a [T],
}

/// Parallel iterator over `&mut T` items of a slice (`slice.par_iter_mut()`).
///
/// ```
/// use forkjoin::prelude::*;
/// let mut v = [1, 2, 3];
/// v.par_iter_mut().for_each(|x| *x += 1);
/// assert_eq!(v, [2, 3, 4]);
/// ```
#[derive(Debug)]
pub struct SliceIterMut<'a, T> {
    slice: &'a mut [T],
}

impl<'a, T: Sync> IntoParallelIterator for &'a [T] {
    type Iter = SliceIter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> SliceIter<'a, T> {
        SliceIter { slice: self }
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a Vec<T> {
    type Iter = SliceIter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> SliceIter<'a, T> {
        SliceIter { slice: self }
    }
}

impl<'a, T: Sync, const N: usize> IntoParallelIterator for &'a [T; N] {
    type Iter = SliceIter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> SliceIter<'a, T> {
        SliceIter { slice: self }
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut [T] {
    type Iter = SliceIterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> SliceIterMut<'a, T> {
        SliceIterMut { slice: self }
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut Vec<T> {
    type Iter = SliceIterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> SliceIterMut<'a, T> {
        SliceIterMut { slice: self }
    }
}

impl<'a, T: Send, const N: usize> IntoParallelIterator for &'a mut [T; N] {
    type Iter = SliceIterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> SliceIterMut<'a, T> {
        SliceIterMut { slice: self }
    }
}

impl<'a, T: Sync> ParallelIterator for SliceIter<'a, T> {
    type Item = &'a T;
    fn drive_unindexed<C: Consumer<&'a T>>(self, consumer: C) -> C::Result {
        self.with_producer(BridgeCallback(consumer))
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.slice.len())
    }
}

impl<'a, T: Sync> IndexedParallelIterator for SliceIter<'a, T> {
    fn len(&self) -> usize {
        self.slice.len()
    }
    fn with_producer<CB: ProducerCallback<&'a T>>(self, callback: CB) -> CB::Output {
        callback.callback(SliceProducer { slice: self.slice })
    }
}

impl<'a, T: Send> ParallelIterator for SliceIterMut<'a, T> {
    type Item = &'a mut T;
    fn drive_unindexed<C: Consumer<&'a mut T>>(self, consumer: C) -> C::Result {
        self.with_producer(BridgeCallback(consumer))
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.slice.len())
    }
}

impl<'a, T: Send> IndexedParallelIterator for SliceIterMut<'a, T> {
    fn len(&self) -> usize {
        self.slice.len()
    }
    fn with_producer<CB: ProducerCallback<&'a mut T>>(self, callback: CB) -> CB::Output {
        callback.callback(SliceMutProducer { slice: self.slice })
    }
}

/// Producer of a [`SliceIter`].
#[derive(Debug)]
pub struct SliceProducer<'a, T> {
    slice: &'a [T],
}

impl<'a, T: Sync> Producer for SliceProducer<'a, T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn len(&self) -> usize {
        self.slice.len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split_at(index);
        (
            SliceProducer { slice: left },
            SliceProducer { slice: right },
        )
    }
    fn into_iter(self) -> Self::IntoIter {
        self.slice.iter()
    }
}

/// Producer of a [`SliceIterMut`].
#[derive(Debug)]
pub struct SliceMutProducer<'a, T> {
    slice: &'a mut [T],
}

impl<'a, T: Send> Producer for SliceMutProducer<'a, T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn len(&self) -> usize {
        self.slice.len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split_at_mut(index);
        (
            SliceMutProducer { slice: left },
            SliceMutProducer { slice: right },
        )
    }
    fn into_iter(self) -> Self::IntoIter {
        self.slice.iter_mut()
    }
}

/// Parallel methods on shared slices (and, by auto-deref, `Vec`s and arrays).
///
/// ```
/// use forkjoin::prelude::*;
/// let v: Vec<u32> = (1..=10).collect();
/// let sums: Vec<u32> = v.par_chunks(4).map(|c| c.iter().sum()).collect();
/// assert_eq!(sums, [10, 26, 19]);
/// ```
pub trait ParallelSlice<T: Sync> {
    /// Iterates over non-overlapping chunks of `chunk_size` items; the last chunk may be shorter.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    fn par_chunks(&self, chunk_size: usize) -> Chunks<'_, T>;
}

impl<T: Sync> ParallelSlice<T> for [T] {
    fn par_chunks(&self, chunk_size: usize) -> Chunks<'_, T> {
        Chunks::new(self, chunk_size)
    }
}

/// Parallel methods on exclusive slices (and, by auto-deref, `Vec`s and arrays). The parallel sorts
/// live in their own trait, [`ParallelSortMut`](crate::prelude::ParallelSortMut), also in the prelude.
///
/// ```
/// use forkjoin::prelude::*;
/// let mut v = vec![0u32; 7];
/// v.par_chunks_mut(3).enumerate().for_each(|(i, c)| c.fill(i as u32));
/// assert_eq!(v, [0, 0, 0, 1, 1, 1, 2]);
/// ```
pub trait ParallelSliceMut<T: Send> {
    /// Iterates over non-overlapping mutable chunks of `chunk_size` items; the last may be shorter.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    fn par_chunks_mut(&mut self, chunk_size: usize) -> ChunksMut<'_, T>;
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    fn par_chunks_mut(&mut self, chunk_size: usize) -> ChunksMut<'_, T> {
        ChunksMut::new(self, chunk_size)
    }
}
