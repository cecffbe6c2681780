//! `par_array_windows`: the overlapping windows of a slice as `&[T; N]`, indexed: the windows of
//! `par_windows(N)` converted to arrays.

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, ProducerCallback};
use crate::iter::sources::slice::ParallelSlice;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by
/// [`ParallelSlice::par_array_windows`].
#[derive(Debug)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct ArrayWindows<'a, T: Sync, const N: usize> {
    slice: &'a [T],
}

impl<'a, T: Sync, const N: usize> ArrayWindows<'a, T, N> {
    pub(in crate::iter) fn new(slice: &'a [T]) -> Self {
        ArrayWindows { slice }
    }
}

impl<T: Sync, const N: usize> Clone for ArrayWindows<'_, T, N> {
    fn clone(&self) -> Self {
        ArrayWindows { slice: self.slice }
    }
}

impl<'a, T: Sync, const N: usize> ParallelIterator for ArrayWindows<'a, T, N> {
    type Item = &'a [T; N];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<&'a [T; N]>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'a, T: Sync, const N: usize> IndexedParallelIterator for ArrayWindows<'a, T, N> {
    fn len(&self) -> usize {
        assert!(N != 0, "window size must be non-zero");
        self.slice.len().saturating_sub(N - 1)
    }

    fn with_producer<CB: ProducerCallback<&'a [T; N]>>(self, callback: CB) -> CB::Output {
        // Every window of `par_windows(N)` holds exactly `N` elements, so the conversion holds.
        let as_array = |w: &'a [T]| -> &'a [T; N] { w.try_into().expect("a window of N elements") };
        self.slice
            .par_windows(N)
            .map(as_array)
            .with_producer(callback)
    }
}
