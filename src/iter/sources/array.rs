//! Arrays by value: `[T; N]::into_par_iter()` moves the items out of the array's own storage.
//!
//! Ownership protocol: until it is driven, the iterator owns the array as a plain value (dropping
//! it unconsumed drops every item). Driving moves the array into a `ManuallyDrop`, whose items are
//! then owned by the [`DrainProducer`] pieces over its slots, exactly as for `Vec::into_par_iter`:
//! each item is moved out to the caller or dropped by its piece, once, also when a closure panics.

use std::mem::{ManuallyDrop, MaybeUninit};

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, ProducerCallback};
use crate::iter::sources::vec::DrainProducer;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// Parallel iterator that moves the items out of an array (rayon's `array::IntoIter`), in place.
///
/// ```
/// use forkjoin::prelude::*;
/// let words = [String::from("fork"), String::from("join")];
/// let lens: Vec<usize> = words.into_par_iter().map(|s| s.len()).collect();
/// assert_eq!(lens, [4, 4]);
/// ```
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct ArrayIntoIter<T, const N: usize> {
    array: [T; N],
}

impl<T: Send, const N: usize> IntoParallelIterator for [T; N] {
    type Iter = ArrayIntoIter<T, N>;
    type Item = T;
    fn into_par_iter(self) -> ArrayIntoIter<T, N> {
        ArrayIntoIter { array: self }
    }
}

impl<T: Send, const N: usize> ParallelIterator for ArrayIntoIter<T, N> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(N)
    }
}

impl<T: Send, const N: usize> IndexedParallelIterator for ArrayIntoIter<T, N> {
    fn len(&self) -> usize {
        N
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        // The array never drops its items itself from here on: the producer owns them.
        let mut array = ManuallyDrop::new(self.array);
        let items: *mut T = array.as_mut_ptr();
        // SAFETY: `items` points to the `N` initialised items of `array`, which lives (and is not
        // touched otherwise) until this function returns, after the producer and every piece of it
        // are gone. `MaybeUninit<T>` has `T`'s layout. Ownership of the items moves to the producer
        // (the `ManuallyDrop` never drops them), so each is moved out or dropped exactly once.
        let slots = unsafe { std::slice::from_raw_parts_mut(items.cast::<MaybeUninit<T>>(), N) };
        callback.callback(DrainProducer::new(slots))
    }
}
