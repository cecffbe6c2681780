//! [`Either`], the `either` crate's type (rayon re-exports it too): the side
//! [`partition_map`](crate::iter::ParallelIterator::partition_map) sorts items by, and, when both sides
//! are parallel iterators (or collections) with the same items, a parallel iterator (or
//! collection) itself, so code that picks one of two iterators at run time need not box them.
//!
//! ```
//! use forkjoin::iter::Either;
//! use forkjoin::prelude::*;
//! let pick = |sorted: bool| -> Either<_, _> {
//!     if sorted {
//!         Either::Left((0..4).into_par_iter())
//!     } else {
//!         Either::Right((0..4).into_par_iter().rev())
//!     }
//! };
//! assert_eq!(pick(true).collect::<Vec<i32>>(), [0, 1, 2, 3]);
//! assert_eq!(pick(false).collect::<Vec<i32>>(), [3, 2, 1, 0]);
//! ```

use either::Either;

use crate::iter::consumers::unzip::{collect_eithers, split_eithers_into};
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, ProducerCallback};
use crate::iter::{
    FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, ParallelExtend,
    ParallelIterator,
};

/// An `Either` of two parallel iterators with the same items iterates the one it holds.
impl<L, R> ParallelIterator for Either<L, R>
where
    L: ParallelIterator,
    R: ParallelIterator<Item = L::Item>,
{
    type Item = L::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        match self {
            Either::Left(l) => l.drive_lazy(consumer),
            Either::Right(r) => r.drive_lazy(consumer),
        }
    }

    fn opt_len(&self) -> Option<usize> {
        self.as_ref().either(L::opt_len, R::opt_len)
    }
}

/// Indexed when both sides are.
impl<L, R> IndexedParallelIterator for Either<L, R>
where
    L: IndexedParallelIterator,
    R: IndexedParallelIterator<Item = L::Item>,
{
    fn len(&self) -> usize {
        self.as_ref().either(L::len, R::len)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        match self {
            Either::Left(l) => l.with_producer(callback),
            Either::Right(r) => r.with_producer(callback),
        }
    }
}

/// Extends the collection the `Either` holds.
///
/// ```
/// use forkjoin::iter::Either;
/// use forkjoin::prelude::*;
/// use std::collections::BTreeSet;
/// let mut e: Either<Vec<u8>, BTreeSet<u8>> = Either::Left(vec![]);
/// e.par_extend(vec![1u8, 2]);
/// assert_eq!(e, Either::Left(vec![1, 2]));
/// ```
impl<L, R, T> ParallelExtend<T> for Either<L, R>
where
    L: ParallelExtend<T>,
    R: ParallelExtend<T>,
    T: Send,
{
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        match self {
            Either::Left(l) => l.par_extend(par_iter),
            Either::Right(r) => r.par_extend(par_iter),
        }
    }
}

/// Collects the `Left` values into the first collection and the `Right` values into the second,
/// each in order.
///
/// ```
/// use forkjoin::iter::Either;
/// use forkjoin::prelude::*;
/// let (even, odd): (Vec<u32>, Vec<u32>) = (0..6u32)
///     .into_par_iter()
///     .map(|x| if x % 2 == 0 { Either::Left(x) } else { Either::Right(x) })
///     .collect();
/// assert_eq!((even, odd), (vec![0, 2, 4], vec![1, 3, 5]));
/// ```
impl<L, R, A, B> FromParallelIterator<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + FromParallelIterator<L>,
    B: Send + FromParallelIterator<R>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Either<L, R>>>(par_iter: I) -> Self {
        collect_eithers(par_iter.into_par_iter())
    }
}

/// Appends the `Left` values to the first collection and the `Right` values to the second.
impl<L, R, A, B> ParallelExtend<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + ParallelExtend<L>,
    B: Send + ParallelExtend<R>,
{
    fn par_extend<I: IntoParallelIterator<Item = Either<L, R>>>(&mut self, par_iter: I) {
        split_eithers_into(par_iter.into_par_iter(), &mut self.0, &mut self.1);
    }
}
