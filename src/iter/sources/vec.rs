//! Owned parallel iteration over a `Vec<T>`: `vec.into_par_iter()`.
//!
//! Ownership protocol: the vector's length is set to 0 first, so from then on the `Vec` only owns its
//! buffer. Every item is owned by exactly one [`DrainProducer`] or [`SliceDrain`] (their slices are
//! disjoint), which either moves it out to the caller or drops it in its own `Drop`. A panic anywhere
//! unwinds through those owners, so every item is dropped exactly once and the buffer is freed when the
//! `Vec` goes out of scope after all pieces stopped.

use std::mem::MaybeUninit;

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// Parallel iterator that moves the items out of a `Vec<T>` (`vec.into_par_iter()`).
///
/// ```
/// use forkjoin::prelude::*;
/// let v = vec![String::from("x"), String::from("yz")];
/// let lens: Vec<usize> = v.into_par_iter().map(|s| s.len()).collect();
/// assert_eq!(lens, [1, 2]);
/// ```
#[derive(Debug, Clone)]
pub struct VecIntoIter<T> {
    vec: Vec<T>,
}

impl<T: Send> IntoParallelIterator for Vec<T> {
    type Iter = VecIntoIter<T>;
    type Item = T;
    fn into_par_iter(self) -> VecIntoIter<T> {
        VecIntoIter { vec: self }
    }
}

impl<T: Send> ParallelIterator for VecIntoIter<T> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.vec.len())
    }
}

impl<T: Send> IndexedParallelIterator for VecIntoIter<T> {
    fn len(&self) -> usize {
        self.vec.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let mut vec = self.vec;
        let len = vec.len();
        // SAFETY: 0 <= capacity, and no element is read through the Vec afterwards: ownership of the
        // `len` initialised items moves to the producer below (see the module doc), so the Vec's drop
        // only frees the buffer.
        unsafe { vec.set_len(0) };
        let slots = &mut vec.spare_capacity_mut()[..len];
        callback.callback(DrainProducer { slots })
        // `vec` drops here, after every producer and iterator borrowing `slots` is gone.
    }
}

/// Producer that owns (and moves out) the items in `slots`.
#[derive(Debug)]
pub(crate) struct DrainProducer<'a, T> {
    /// Invariant: every slot is initialised, and this producer is its only owner.
    slots: &'a mut [MaybeUninit<T>],
}

impl<'a, T> DrainProducer<'a, T> {
    /// A producer that owns the items in `slots`: the caller hands over their ownership (every
    /// slot must be initialised, and nothing else may read or drop them afterwards).
    pub(in crate::iter) fn new(slots: &'a mut [MaybeUninit<T>]) -> Self {
        DrainProducer { slots }
    }
}

impl<'a, T: Send> Producer for DrainProducer<'a, T> {
    type Item = T;
    type IntoIter = SliceDrain<'a, T>;

    fn split_at(mut self, index: usize) -> (Self, Self) {
        // Take the slots so `self`'s Drop sees an empty slice and drops nothing.
        let slots = std::mem::take(&mut self.slots);
        let (left, right) = slots.split_at_mut(index);
        (
            DrainProducer { slots: left },
            DrainProducer { slots: right },
        )
    }

    fn into_iter(mut self) -> SliceDrain<'a, T> {
        let slots = std::mem::take(&mut self.slots);
        SliceDrain {
            iter: slots.iter_mut(),
        }
    }
}

impl<T> Drop for DrainProducer<'_, T> {
    fn drop(&mut self) {
        let slots: &mut [MaybeUninit<T>] = std::mem::take(&mut self.slots);
        let slots: *mut [MaybeUninit<T>] = slots;
        // SAFETY: by the field invariant every slot is initialised and owned only by us; we took the
        // slice out, so nothing can reach these items again.
        unsafe { std::ptr::drop_in_place(slots as *mut [T]) };
    }
}

/// Sequential iterator that moves items out of a [`DrainProducer`]'s slots.
#[derive(Debug)]
pub(crate) struct SliceDrain<'a, T> {
    /// Invariant: every slot the iterator has not yet yielded is initialised and owned by us.
    iter: std::slice::IterMut<'a, MaybeUninit<T>>,
}

impl<T> Iterator for SliceDrain<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        let slot = self.iter.next()?;
        // SAFETY: by the field invariant the slot is initialised and ours; the iterator has moved past
        // it, so it is read exactly once and never dropped by us.
        Some(unsafe { slot.assume_init_read() })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

impl<T> ExactSizeIterator for SliceDrain<'_, T> {}

impl<T> DoubleEndedIterator for SliceDrain<'_, T> {
    fn next_back(&mut self) -> Option<T> {
        let slot = self.iter.next_back()?;
        // SAFETY: as in `next`.
        Some(unsafe { slot.assume_init_read() })
    }
}

impl<T> Drop for SliceDrain<'_, T> {
    fn drop(&mut self) {
        let rest: *mut [MaybeUninit<T>] = std::mem::take(&mut self.iter).into_slice();
        // SAFETY: by the field invariant the slots not yet yielded are initialised and owned only by
        // us; the iterator is now empty, so nothing reaches them again.
        unsafe { std::ptr::drop_in_place(rest as *mut [T]) };
    }
}
