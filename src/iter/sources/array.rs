//! Arrays by value: `[T; N]::into_par_iter()` moves the items out.

use crate::iter::plumbing::{LazyConsumer, ProducerCallback};
use crate::iter::sources::vec::VecIntoIter;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// Parallel iterator that moves the items out of an array (rayon's `array::IntoIter`). The array
/// is moved into a `Vec` first (one allocation and copy), which then owns the items exactly as
/// `Vec::into_par_iter` does.
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
    items: VecIntoIter<T>,
}

impl<T: Send, const N: usize> IntoParallelIterator for [T; N] {
    type Iter = ArrayIntoIter<T, N>;
    type Item = T;
    fn into_par_iter(self) -> ArrayIntoIter<T, N> {
        ArrayIntoIter {
            items: Vec::from(self).into_par_iter(),
        }
    }
}

impl<T: Send, const N: usize> ParallelIterator for ArrayIntoIter<T, N> {
    type Item = T;

    fn drive_lazy<C: LazyConsumer<T>>(self, consumer: C) -> C::Result {
        self.items.drive_lazy(consumer)
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
        self.items.with_producer(callback)
    }
}
