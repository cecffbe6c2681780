//! Conversions into parallel iterators: `into_par_iter()`, `par_iter()` and `par_iter_mut()`.

use crate::iter::ParallelIterator;

/// Conversion into a [`ParallelIterator`] (the parallel [`IntoIterator`]).
///
/// Implemented for integer ranges, `Vec<T>` (owned items), slices and vectors by reference, and every
/// parallel iterator itself.
///
/// ```
/// use forkjoin::prelude::*;
/// let v = vec![String::from("a"), String::from("b")];
/// let total: usize = v.into_par_iter().map(|s| s.len()).sum();
/// assert_eq!(total, 2);
/// ```
pub trait IntoParallelIterator {
    /// The parallel iterator this converts into.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The item type of that iterator.
    type Item: Send;

    /// Converts `self` into a parallel iterator.
    fn into_par_iter(self) -> Self::Iter;
}

impl<T: ParallelIterator> IntoParallelIterator for T {
    type Iter = T;
    type Item = T::Item;

    fn into_par_iter(self) -> T {
        self
    }
}

/// `par_iter()`: a parallel iterator over `&T` items of a borrowed collection (`&[T]`, `&Vec<T>`).
///
/// ```
/// use forkjoin::prelude::*;
/// let v = vec![1, 2, 3];
/// assert_eq!(v.par_iter().sum::<i32>(), 6);
/// ```
pub trait IntoParallelRefIterator<'data> {
    /// The parallel iterator type.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The item type (a shared reference into the collection).
    type Item: Send + 'data;

    /// Iterates over shared references to the items, in parallel.
    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefIterator<'data> for I
where
    &'data I: IntoParallelIterator,
{
    type Iter = <&'data I as IntoParallelIterator>::Iter;
    type Item = <&'data I as IntoParallelIterator>::Item;

    fn par_iter(&'data self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// `par_iter_mut()`: a parallel iterator over `&mut T` items of a borrowed collection.
///
/// ```
/// use forkjoin::prelude::*;
/// let mut v = vec![1, 2, 3];
/// v.par_iter_mut().for_each(|x| *x *= 2);
/// assert_eq!(v, [2, 4, 6]);
/// ```
pub trait IntoParallelRefMutIterator<'data> {
    /// The parallel iterator type.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The item type (an exclusive reference into the collection).
    type Item: Send + 'data;

    /// Iterates over exclusive references to the items, in parallel.
    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefMutIterator<'data> for I
where
    &'data mut I: IntoParallelIterator,
{
    type Iter = <&'data mut I as IntoParallelIterator>::Iter;
    type Item = <&'data mut I as IntoParallelIterator>::Item;

    fn par_iter_mut(&'data mut self) -> Self::Iter {
        self.into_par_iter()
    }
}
