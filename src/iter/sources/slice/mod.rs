//! Parallel iteration over borrowed slices and vectors: `par_iter()`, `par_iter_mut()`, and the
//! slice extension traits [`ParallelSlice`] / [`ParallelSliceMut`] (`par_chunks`, `par_chunks_mut`, and
//! the parallel sorts of `crate::sort`).

pub(crate) mod array_windows;
pub(crate) mod chunk_by;
pub(crate) mod chunk_variants;
pub(crate) mod chunks;
pub(crate) mod split;

use std::cmp::Ordering;

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::sources::slice::array_windows::ArrayWindows;
use crate::iter::sources::slice::chunk_by::{ChunkBy, ChunkByMut};
use crate::iter::sources::slice::chunk_variants::{
    ChunksExact, ChunksExactMut, RChunks, RChunksExact, RChunksExactMut, RChunksMut, Windows,
};
use crate::iter::sources::slice::chunks::{Chunks, ChunksMut};
use crate::iter::{
    IndexedParallelIterator, IntoParallelIterator, IntoParallelRefMutIterator, ParallelIterator,
};
use crate::sort::{par_merge_sort, par_quicksort};

/// A borrowed slice, shared (`&[T]`) or exclusive (`&mut [T]`): what the slice and chunk iterators
/// need from it, so each of them is written once for both borrow kinds.
pub trait SliceRef: Send + Sized {
    /// One element: `&T` or `&mut T`.
    type Item: Send;
    /// The std iterator over the elements.
    type Iter: DoubleEndedIterator<Item = Self::Item> + ExactSizeIterator;
    /// One chunk: `&[T]` or `&mut [T]`.
    type Chunk: Send;
    /// The std iterator over the chunks.
    type Chunks: DoubleEndedIterator<Item = Self::Chunk> + ExactSizeIterator;
    /// std's `chunks_exact` iterator.
    type ChunksExact: DoubleEndedIterator<Item = Self::Chunk> + ExactSizeIterator;
    /// std's `rchunks` iterator.
    type RChunks: DoubleEndedIterator<Item = Self::Chunk> + ExactSizeIterator;
    /// std's `rchunks_exact` iterator.
    type RChunksExact: DoubleEndedIterator<Item = Self::Chunk> + ExactSizeIterator;

    /// Number of elements.
    fn slice_len(&self) -> usize;
    /// Splits at element `index` (`split_at` / `split_at_mut`).
    fn split(self, index: usize) -> (Self, Self);
    /// The elements in order (`iter` / `iter_mut`).
    fn elements(self) -> Self::Iter;
    /// Chunks of `size` elements in order (`chunks` / `chunks_mut`).
    fn chunks_of(self, size: usize) -> Self::Chunks;
    /// `chunks_exact` / `chunks_exact_mut`.
    fn chunks_exact_of(self, size: usize) -> Self::ChunksExact;
    /// `rchunks` / `rchunks_mut`.
    fn rchunks_of(self, size: usize) -> Self::RChunks;
    /// `rchunks_exact` / `rchunks_exact_mut`.
    fn rchunks_exact_of(self, size: usize) -> Self::RChunksExact;
}

impl<'a, T: Sync> SliceRef for &'a [T] {
    type Item = &'a T;
    type Iter = std::slice::Iter<'a, T>;
    type Chunk = &'a [T];
    type Chunks = std::slice::Chunks<'a, T>;
    type ChunksExact = std::slice::ChunksExact<'a, T>;
    type RChunks = std::slice::RChunks<'a, T>;
    type RChunksExact = std::slice::RChunksExact<'a, T>;
    fn slice_len(&self) -> usize {
        self.len()
    }
    fn split(self, index: usize) -> (Self, Self) {
        self.split_at(index)
    }
    fn elements(self) -> Self::Iter {
        self.iter()
    }
    fn chunks_of(self, size: usize) -> Self::Chunks {
        self.chunks(size)
    }
    fn chunks_exact_of(self, size: usize) -> Self::ChunksExact {
        self.chunks_exact(size)
    }
    fn rchunks_of(self, size: usize) -> Self::RChunks {
        self.rchunks(size)
    }
    fn rchunks_exact_of(self, size: usize) -> Self::RChunksExact {
        self.rchunks_exact(size)
    }
}

impl<'a, T: Send> SliceRef for &'a mut [T] {
    type Item = &'a mut T;
    type Iter = std::slice::IterMut<'a, T>;
    type Chunk = &'a mut [T];
    type Chunks = std::slice::ChunksMut<'a, T>;
    type ChunksExact = std::slice::ChunksExactMut<'a, T>;
    type RChunks = std::slice::RChunksMut<'a, T>;
    type RChunksExact = std::slice::RChunksExactMut<'a, T>;
    fn slice_len(&self) -> usize {
        self.len()
    }
    fn split(self, index: usize) -> (Self, Self) {
        self.split_at_mut(index)
    }
    fn elements(self) -> Self::Iter {
        self.iter_mut()
    }
    fn chunks_of(self, size: usize) -> Self::Chunks {
        self.chunks_mut(size)
    }
    fn chunks_exact_of(self, size: usize) -> Self::ChunksExact {
        self.chunks_exact_mut(size)
    }
    fn rchunks_of(self, size: usize) -> Self::RChunks {
        self.rchunks_mut(size)
    }
    fn rchunks_exact_of(self, size: usize) -> Self::RChunksExact {
        self.rchunks_exact_mut(size)
    }
}

/// Parallel iterator over `&T` items of a slice (`slice.par_iter()`).
///
/// ```
/// use forkjoin::prelude::*;
/// let v = [1, 5, 3];
/// assert_eq!(v.par_iter().max(), Some(&5));
/// ```
pub type SliceIter<'a, T> = Elements<&'a [T]>;

/// Parallel iterator over `&mut T` items of a slice (`slice.par_iter_mut()`).
///
/// ```
/// use forkjoin::prelude::*;
/// let mut v = [1, 2, 3];
/// v.par_iter_mut().for_each(|x| *x += 1);
/// assert_eq!(v, [2, 3, 4]);
/// ```
pub type SliceIterMut<'a, T> = Elements<&'a mut [T]>;

/// Parallel iterator over the elements of a borrowed slice ([`SliceIter`], [`SliceIterMut`]).
#[derive(Debug, Clone)]
pub struct Elements<S> {
    slice: S,
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

impl<S: SliceRef> ParallelIterator for Elements<S> {
    type Item = S::Item;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<S::Item>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.slice.slice_len())
    }
}

impl<S: SliceRef> IndexedParallelIterator for Elements<S> {
    fn len(&self) -> usize {
        self.slice.slice_len()
    }
    fn with_producer<CB: ProducerCallback<S::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(ElementsProducer { slice: self.slice })
    }
}

/// Producer of [`Elements`].
#[derive(Debug)]
pub(crate) struct ElementsProducer<S> {
    slice: S,
}

impl<S: SliceRef> Producer for ElementsProducer<S> {
    type Item = S::Item;
    type IntoIter = S::Iter;
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split(index);
        (
            ElementsProducer { slice: left },
            ElementsProducer { slice: right },
        )
    }
    fn into_iter(self) -> Self::IntoIter {
        self.slice.elements()
    }
}

/// Parallel methods on shared slices (and, by auto-deref, `Vec`s and arrays), as rayon's
/// `ParallelSlice`: implement [`as_parallel_slice`](Self::as_parallel_slice) for a type to get the
/// rest.
///
/// ```
/// use forkjoin::prelude::*;
/// let v: Vec<u32> = (1..=10).collect();
/// let sums: Vec<u32> = v.par_chunks(4).map(|c| c.iter().sum()).collect();
/// assert_eq!(sums, [10, 26, 19]);
/// ```
pub trait ParallelSlice<T: Sync> {
    /// The slice these methods work on.
    ///
    /// ```
    /// use forkjoin::slice::ParallelSlice;
    /// let v = vec![1, 2];
    /// assert_eq!(v.as_parallel_slice(), &[1, 2]);
    /// ```
    fn as_parallel_slice(&self) -> &[T];

    /// Iterates over non-overlapping chunks of `chunk_size` items; the last chunk may be shorter.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    fn par_chunks(&self, chunk_size: usize) -> Chunks<'_, T> {
        Chunks::new(self.as_parallel_slice(), chunk_size)
    }

    /// Iterates over non-overlapping chunks of exactly `chunk_size` items, like
    /// [`slice::chunks_exact`]; the last `len % chunk_size` items are left out, and
    /// `remainder()` returns them.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// let sums: Vec<i32> = v.par_chunks_exact(2).map(|c| c.iter().sum()).collect();
    /// assert_eq!(sums, [3, 7]);
    /// ```
    fn par_chunks_exact(&self, chunk_size: usize) -> ChunksExact<'_, T> {
        ChunksExact::new(self.as_parallel_slice(), chunk_size)
    }

    /// Iterates over non-overlapping chunks of `chunk_size` items from the end of the slice,
    /// like [`slice::rchunks`]; the last chunk (the start of the slice) may be shorter.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// let chunks: Vec<&[i32]> = v.par_rchunks(2).collect();
    /// assert_eq!(chunks, [&[4, 5][..], &[2, 3], &[1]]);
    /// ```
    fn par_rchunks(&self, chunk_size: usize) -> RChunks<'_, T> {
        RChunks::new(self.as_parallel_slice(), chunk_size)
    }

    /// Iterates over non-overlapping chunks of exactly `chunk_size` items from the end of the
    /// slice, like [`slice::rchunks_exact`]; the first `len % chunk_size` items are left out,
    /// and `remainder()` returns them.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// let chunks: Vec<&[i32]> = v.par_rchunks_exact(2).collect();
    /// assert_eq!(chunks, [&[4, 5][..], &[2, 3]]);
    /// ```
    fn par_rchunks_exact(&self, chunk_size: usize) -> RChunksExact<'_, T> {
        RChunksExact::new(self.as_parallel_slice(), chunk_size)
    }

    /// Iterates over all overlapping windows of `window_size` items, like [`slice::windows`].
    ///
    /// # Panics
    /// If `window_size` is 0.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [1, 2, 3, 4];
    /// let sums: Vec<i32> = v.par_windows(2).map(|w| w[0] + w[1]).collect();
    /// assert_eq!(sums, [3, 5, 7]);
    /// ```
    fn par_windows(&self, window_size: usize) -> Windows<'_, T> {
        Windows::new(self.as_parallel_slice(), window_size)
    }

    /// Iterates over the sub-slices separated by items that match `separator`, like
    /// [`slice::split`] (the separators are left out; an empty slice yields one empty item).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [10, 40, 33, 20];
    /// let parts: Vec<&[i32]> = v.par_split(|x| x % 3 == 0).collect();
    /// assert_eq!(parts, [&[10, 40][..], &[20]]);
    /// ```
    fn par_split<P>(&self, separator: P) -> split::Split<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        split::Split::new(self.as_parallel_slice(), separator)
    }

    /// Iterates over the sub-slices ended by items that match `separator`, like
    /// [`slice::split_inclusive`] (each separator ends its item; no empty item follows a final
    /// separator).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [10, 40, 33, 20];
    /// let parts: Vec<&[i32]> = v.par_split_inclusive(|x| x % 3 == 0).collect();
    /// assert_eq!(parts, [&[10, 40, 33][..], &[20]]);
    /// ```
    fn par_split_inclusive<P>(&self, separator: P) -> split::SplitInclusive<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        split::SplitInclusive::new(self.as_parallel_slice(), separator)
    }

    /// Iterates over the runs of elements in which every two neighbours satisfy `pred`, like
    /// std's `chunk_by`. The result is not indexed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [1, 1, 2, 3, 3, 3];
    /// let runs: Vec<&[i32]> = v.par_chunk_by(|a, b| a == b).collect();
    /// assert_eq!(runs, [&[1, 1][..], &[2], &[3, 3, 3]]);
    /// ```
    fn par_chunk_by<F>(&self, pred: F) -> ChunkBy<'_, T, F>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        ChunkBy::new(self.as_parallel_slice(), pred)
    }

    /// Iterates over all overlapping windows of `N` elements as arrays, like std's
    /// `array_windows`; indexed.
    ///
    /// # Panics
    /// If `N` is 0.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [1, 2, 3, 4];
    /// let sums: Vec<i32> = v.par_array_windows().map(|[a, b, c]| a + b + c).collect();
    /// assert_eq!(sums, [6, 9]);
    /// ```
    fn par_array_windows<const N: usize>(&self) -> ArrayWindows<'_, T, N> {
        ArrayWindows::new(self.as_parallel_slice())
    }
}

impl<T: Sync> ParallelSlice<T> for [T] {
    #[inline]
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}

/// Parallel methods on exclusive slices (and, by auto-deref, `Vec`s and arrays), as rayon's
/// `ParallelSliceMut`: mutable chunks and the parallel sorts. Implement
/// [`as_parallel_slice_mut`](Self::as_parallel_slice_mut) for a type to get the rest.
///
/// The sorts run in the current pool (the one entered by
/// [`ThreadPool::install`](crate::ThreadPool::install), or the global pool). The comparators are
/// called from several threads at once, hence the `Sync` bounds. If a comparator (or key function)
/// panics, the panic propagates to the caller after all running pieces stop, and the slice still
/// holds every one of its original elements exactly once, in unspecified order. How they work:
/// `src/sort/`.
///
/// ```
/// use forkjoin::prelude::*;
/// let mut v = vec![0u32; 7];
/// v.par_chunks_mut(3).enumerate().for_each(|(i, c)| c.fill(i as u32));
/// assert_eq!(v, [0, 0, 0, 1, 1, 1, 2]);
/// ```
///
/// Imported alone, as rayon code does:
///
/// ```
/// use forkjoin::slice::ParallelSliceMut;
/// let mut v = vec![3, 1, 2];
/// v.par_sort_unstable();
/// assert_eq!(v, [1, 2, 3]);
/// ```
pub trait ParallelSliceMut<T: Send> {
    /// The slice these methods work on.
    ///
    /// ```
    /// use forkjoin::slice::ParallelSliceMut;
    /// let mut v = vec![1, 2];
    /// v.as_parallel_slice_mut()[0] = 5;
    /// assert_eq!(v, [5, 2]);
    /// ```
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    /// Iterates over non-overlapping mutable chunks of `chunk_size` items; the last may be shorter.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    fn par_chunks_mut(&mut self, chunk_size: usize) -> ChunksMut<'_, T> {
        ChunksMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Iterates over the runs of elements in which every two neighbours satisfy `pred`, as
    /// mutable slices, like std's `chunk_by_mut`. The result is not indexed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut v = [1, 1, 2, 3, 3, 3];
    /// v.par_chunk_by_mut(|a, b| a == b).for_each(|run| run.fill(run.len() as i32));
    /// assert_eq!(v, [2, 2, 1, 3, 3, 3]);
    /// ```
    fn par_chunk_by_mut<F>(&mut self, pred: F) -> ChunkByMut<'_, T, F>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        ChunkByMut::new(self.as_parallel_slice_mut(), pred)
    }

    /// Iterates over non-overlapping mutable chunks of exactly `chunk_size` items, like
    /// [`slice::chunks_exact_mut`]; the last `len % chunk_size` items are left out
    /// (`into_remainder()` returns them).
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_chunks_exact_mut(2).for_each(|c| c.swap(0, 1));
    /// assert_eq!(v, [2, 1, 4, 3, 5]);
    /// ```
    fn par_chunks_exact_mut(&mut self, chunk_size: usize) -> ChunksExactMut<'_, T> {
        ChunksExactMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Iterates over non-overlapping mutable chunks of `chunk_size` items from the end of the
    /// slice, like [`slice::rchunks_mut`]; the last chunk (the start of the slice) may be shorter.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_rchunks_mut(2).enumerate().for_each(|(i, c)| c.fill(i));
    /// assert_eq!(v, [2, 1, 1, 0, 0]);
    /// ```
    fn par_rchunks_mut(&mut self, chunk_size: usize) -> RChunksMut<'_, T> {
        RChunksMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Iterates over non-overlapping mutable chunks of exactly `chunk_size` items from the end
    /// of the slice, like [`slice::rchunks_exact_mut`]; the first `len % chunk_size` items are
    /// left out (`into_remainder()` returns them).
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_rchunks_exact_mut(2).for_each(|c| c.swap(0, 1));
    /// assert_eq!(v, [1, 3, 2, 5, 4]);
    /// ```
    fn par_rchunks_exact_mut(&mut self, chunk_size: usize) -> RChunksExactMut<'_, T> {
        RChunksExactMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Iterates over the mutable sub-slices separated by items that match `separator`, like
    /// [`slice::split_mut`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut v = [10, 40, 30, 20, 60, 50];
    /// v.par_split_mut(|x| x % 3 == 0).for_each(|part| part[0] = 1);
    /// assert_eq!(v, [1, 40, 30, 1, 60, 1]);
    /// ```
    fn par_split_mut<P>(&mut self, separator: P) -> split::SplitMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        split::SplitMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// Iterates over the mutable sub-slices ended by items that match `separator`, like
    /// [`slice::split_inclusive_mut`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut v = [10, 40, 30, 20, 60, 50];
    /// v.par_split_inclusive_mut(|x| x % 3 == 0).for_each(|part| *part.last_mut().unwrap() = 1);
    /// assert_eq!(v, [10, 40, 1, 20, 1, 1]);
    /// ```
    fn par_split_inclusive_mut<P>(&mut self, separator: P) -> split::SplitInclusiveMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        split::SplitInclusiveMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// Sorts the slice in parallel, stably (equal elements keep their order).
    ///
    /// Allocates a scratch buffer of `len` elements. O(n log n) comparisons in the worst case.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    ///
    /// let mut v = vec![5, -3, 1, 4, -2, 1];
    /// v.par_sort();
    /// assert_eq!(v, [-3, -2, 1, 1, 4, 5]);
    /// ```
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        par_merge_sort(self.as_parallel_slice_mut(), &T::cmp);
    }

    /// Sorts the slice in parallel with a comparator, stably.
    ///
    /// The comparator must define a total order, as for [`slice::sort_by`]; if it does not, the
    /// result is unspecified (but still a permutation of the input).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    ///
    /// let mut v = vec![(1, 'b'), (0, 'z'), (1, 'a'), (0, 'y')];
    /// v.par_sort_by(|x, y| y.0.cmp(&x.0)); // descending by number; letters keep their order
    /// assert_eq!(v, [(1, 'b'), (1, 'a'), (0, 'z'), (0, 'y')]);
    /// ```
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        par_merge_sort(self.as_parallel_slice_mut(), &compare);
    }

    /// Sorts the slice in parallel by a key, stably.
    ///
    /// The key function is called on every comparison (keys are not cached).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    ///
    /// let mut words = vec!["kiwi", "fig", "banana", "apple", "date"];
    /// words.par_sort_by_key(|w| w.len());
    /// assert_eq!(words, ["fig", "kiwi", "date", "apple", "banana"]);
    /// ```
    fn par_sort_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        par_merge_sort(self.as_parallel_slice_mut(), &|a: &T, b: &T| {
            f(a).cmp(&f(b))
        });
    }

    /// Sorts the slice in parallel by a key, stably, calling the key function once per element
    /// (in parallel) and caching the keys, like [`slice::sort_by_cached_key`]: for keys that are
    /// expensive to compute.
    ///
    /// Allocates the keys with one index each (a `u32` where the length fits, as std does), sorts
    /// them in parallel, then moves the elements into place in one pass.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    ///
    /// let mut v = vec![-5i32, 4, 32, -3, 2];
    /// v.par_sort_by_cached_key(|k| k.to_string());
    /// assert_eq!(v, [-3, -5, 2, 32, 4]);
    /// ```
    fn par_sort_by_cached_key<K, F>(&mut self, f: F)
    where
        K: Ord + Send,
        F: Fn(&T) -> K + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        if slice.len() < 2 {
            return;
        }
        if u32::try_from(slice.len()).is_ok() {
            sort_by_cached_key::<T, K, u32>(slice, &f);
        } else {
            sort_by_cached_key::<T, K, usize>(slice, &f);
        }
    }

    /// Sorts the slice in parallel, without preserving the order of equal elements.
    ///
    /// In place (no allocation), O(n log n) comparisons in the worst case; usually faster than
    /// [`par_sort`](Self::par_sort).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    ///
    /// let mut v: Vec<u64> = (0..1000).rev().collect();
    /// v.par_sort_unstable();
    /// assert!(v.windows(2).all(|w| w[0] <= w[1]));
    /// ```
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        par_quicksort(self.as_parallel_slice_mut(), &T::cmp);
    }

    /// Sorts the slice in parallel with a comparator, without preserving the order of equal elements.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    ///
    /// let mut v = vec![2.5_f64, -1.0, 9.75, 0.0];
    /// v.par_sort_unstable_by(|a, b| a.total_cmp(b));
    /// assert_eq!(v, [-1.0, 0.0, 2.5, 9.75]);
    /// ```
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        par_quicksort(self.as_parallel_slice_mut(), &compare);
    }

    /// Sorts the slice in parallel by a key, without preserving the order of equal elements.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    ///
    /// let mut v = vec![-7_i32, 3, -1, 5];
    /// v.par_sort_unstable_by_key(|x| x.abs());
    /// assert_eq!(v, [-1, 3, 5, -7]);
    /// ```
    fn par_sort_unstable_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        par_quicksort(self.as_parallel_slice_mut(), &|a: &T, b: &T| {
            f(a).cmp(&f(b))
        });
    }
}

/// An element's position in [`ParallelSliceMut::par_sort_by_cached_key`]'s key list: `u32` where
/// the slice's length fits, to keep the list small.
trait CachedIndex: Copy + Ord + Send {
    /// `i`, which the caller checked fits.
    fn from_usize(i: usize) -> Self;
    fn get(self) -> usize;
}

impl CachedIndex for u32 {
    fn from_usize(i: usize) -> Self {
        i as u32
    }
    fn get(self) -> usize {
        self as usize
    }
}

impl CachedIndex for usize {
    fn from_usize(i: usize) -> Self {
        i
    }
    fn get(self) -> usize {
        self
    }
}

/// Computes every key in parallel, sorts (key, index) pairs in parallel (the indices are unique,
/// so an unstable sort keeps equal keys in slice order), then moves each element to its place.
fn sort_by_cached_key<T, K, I>(slice: &mut [T], f: &(impl Fn(&T) -> K + Sync))
where
    T: Send,
    K: Ord + Send,
    I: CachedIndex,
{
    let mut keyed: Vec<(K, I)> = slice
        .par_iter_mut()
        .enumerate()
        .map(|(i, x)| (f(x), I::from_usize(i)))
        .collect();
    keyed.par_sort_unstable();
    // Position i receives the element that was at `keyed[i].1` originally. Earlier swaps moved it:
    // positions below i were filled in order, and each records where the element it displaced
    // went, so follow those links until the index is at or past i.
    for i in 0..keyed.len() {
        let mut index = keyed[i].1.get();
        while index < i {
            index = keyed[index].1.get();
        }
        keyed[i].1 = I::from_usize(index);
        slice.swap(i, index);
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    #[inline]
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}
