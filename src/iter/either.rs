//! [`Either`]: a value of one of two types, as the `either` crate's type that rayon re-exports.
//!
//! forkjoin has no dependencies, so it defines its own. It is what
//! [`partition_map`](super::ParallelIterator::partition_map) sorts items by, and an `Either` of
//! two parallel iterators (or collections) with the same items is one itself: code that picks one
//! of two iterators at run time need not box them.

use super::plumbing::{Consumer, ProducerCallback};
use super::unzip::split_eithers;
use super::{
    FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, ParallelExtend,
    ParallelIterator,
};

/// A value of type `L` or of type `R`.
///
/// ```
/// use forkjoin::iter::Either;
/// use forkjoin::prelude::*;
/// let pick = |sorted: bool| -> Either<_, _> {
///     if sorted {
///         Either::Left((0..4).into_par_iter())
///     } else {
///         Either::Right((0..4).into_par_iter().rev())
///     }
/// };
/// assert_eq!(pick(true).collect::<Vec<i32>>(), [0, 1, 2, 3]);
/// assert_eq!(pick(false).collect::<Vec<i32>>(), [3, 2, 1, 0]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Either<L, R> {
    /// A value of the left type.
    Left(L),
    /// A value of the right type.
    Right(R),
}

impl<L, R> Either<L, R> {
    /// True for a `Left`.
    ///
    /// ```
    /// use forkjoin::iter::Either;
    /// assert!(Either::<u8, char>::Left(1).is_left());
    /// ```
    pub fn is_left(&self) -> bool {
        matches!(self, Either::Left(_))
    }

    /// True for a `Right`.
    pub fn is_right(&self) -> bool {
        !self.is_left()
    }

    /// The left value, if any.
    ///
    /// ```
    /// use forkjoin::iter::Either;
    /// assert_eq!(Either::<u8, char>::Left(1).left(), Some(1));
    /// assert_eq!(Either::<u8, char>::Right('x').left(), None);
    /// ```
    pub fn left(self) -> Option<L> {
        match self {
            Either::Left(l) => Some(l),
            Either::Right(_) => None,
        }
    }

    /// The right value, if any.
    pub fn right(self) -> Option<R> {
        self.flip().left()
    }

    /// References to the value.
    ///
    /// ```
    /// use forkjoin::iter::Either;
    /// let e: Either<String, u8> = Either::Left("fork".to_string());
    /// assert_eq!(e.as_ref(), Either::Left(&"fork".to_string()));
    /// ```
    pub fn as_ref(&self) -> Either<&L, &R> {
        match self {
            Either::Left(l) => Either::Left(l),
            Either::Right(r) => Either::Right(r),
        }
    }

    /// Mutable references to the value.
    pub fn as_mut(&mut self) -> Either<&mut L, &mut R> {
        match self {
            Either::Left(l) => Either::Left(l),
            Either::Right(r) => Either::Right(r),
        }
    }

    /// Swaps the sides: `Left` becomes `Right` and the other way round.
    pub fn flip(self) -> Either<R, L> {
        match self {
            Either::Left(l) => Either::Right(l),
            Either::Right(r) => Either::Left(r),
        }
    }

    /// Applies `f` to a left value; a right value is kept.
    ///
    /// ```
    /// use forkjoin::iter::Either;
    /// assert_eq!(Either::<u8, char>::Left(1).map_left(|x| x + 1), Either::Left(2));
    /// ```
    pub fn map_left<F: FnOnce(L) -> M, M>(self, f: F) -> Either<M, R> {
        match self {
            Either::Left(l) => Either::Left(f(l)),
            Either::Right(r) => Either::Right(r),
        }
    }

    /// Applies `f` to a right value; a left value is kept.
    pub fn map_right<F: FnOnce(R) -> S, S>(self, f: F) -> Either<L, S> {
        self.flip().map_left(f).flip()
    }

    /// Applies `f` to a left value or `g` to a right one.
    ///
    /// ```
    /// use forkjoin::iter::Either;
    /// let len = |e: Either<&str, u32>| e.either(str::len, |n| n as usize);
    /// assert_eq!(len(Either::Left("fork")), 4);
    /// assert_eq!(len(Either::Right(7)), 7);
    /// ```
    pub fn either<F: FnOnce(L) -> T, G: FnOnce(R) -> T, T>(self, f: F, g: G) -> T {
        match self {
            Either::Left(l) => f(l),
            Either::Right(r) => g(r),
        }
    }
}

impl<L, R> Either<L, R> {
    /// The left value, or `default` for a right one.
    pub fn left_or(self, default: L) -> L {
        self.left_or_else(|_| default)
    }

    /// The left value, or `f` of the right one.
    pub fn left_or_else<F: FnOnce(R) -> L>(self, f: F) -> L {
        self.either(|l| l, f)
    }

    /// The right value, or `default` for a left one.
    pub fn right_or(self, default: R) -> R {
        self.right_or_else(|_| default)
    }

    /// The right value, or `f` of the left one.
    pub fn right_or_else<F: FnOnce(L) -> R>(self, f: F) -> R {
        self.either(f, |r| r)
    }

    /// Applies `f` to a left value or `g` to a right one, keeping the side.
    pub fn map_either<F: FnOnce(L) -> M, G: FnOnce(R) -> S, M, S>(
        self,
        f: F,
        g: G,
    ) -> Either<M, S> {
        self.map_left(f).map_right(g)
    }
}

impl<L, R: std::fmt::Debug> Either<L, R> {
    /// The left value.
    ///
    /// # Panics
    /// On a right value, with the value in the message.
    pub fn unwrap_left(self) -> L {
        self.left_or_else(|r| panic!("called `Either::unwrap_left()` on a `Right` value: {r:?}"))
    }
}

impl<L: std::fmt::Debug, R> Either<L, R> {
    /// The right value.
    ///
    /// # Panics
    /// On a left value, with the value in the message.
    pub fn unwrap_right(self) -> R {
        self.right_or_else(|l| panic!("called `Either::unwrap_right()` on a `Left` value: {l:?}"))
    }
}

/// An `Either` of two sequential iterators with the same items iterates the one it holds (for
/// example the iterator a `flat_map_iter` closure returns from one of two branches).
///
/// ```
/// use forkjoin::iter::Either;
/// use forkjoin::prelude::*;
/// let v: Vec<u32> = (0..4u32)
///     .into_par_iter()
///     .flat_map_iter(|x| if x % 2 == 0 { Either::Left(0..x) } else { Either::Right(std::iter::once(x)) })
///     .collect();
/// assert_eq!(v, [1, 0, 1, 3]);
/// ```
impl<L, R> Iterator for Either<L, R>
where
    L: Iterator,
    R: Iterator<Item = L::Item>,
{
    type Item = L::Item;

    fn next(&mut self) -> Option<L::Item> {
        match self {
            Either::Left(l) => l.next(),
            Either::Right(r) => r.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.as_ref().either(L::size_hint, R::size_hint)
    }

    fn fold<Acc, F: FnMut(Acc, L::Item) -> Acc>(self, init: Acc, f: F) -> Acc {
        match self {
            Either::Left(l) => l.fold(init, f),
            Either::Right(r) => r.fold(init, f),
        }
    }
}

impl<L, R> DoubleEndedIterator for Either<L, R>
where
    L: DoubleEndedIterator,
    R: DoubleEndedIterator<Item = L::Item>,
{
    fn next_back(&mut self) -> Option<L::Item> {
        match self {
            Either::Left(l) => l.next_back(),
            Either::Right(r) => r.next_back(),
        }
    }
}

impl<L, R> ExactSizeIterator for Either<L, R>
where
    L: ExactSizeIterator,
    R: ExactSizeIterator<Item = L::Item>,
{
}

impl<T> Either<T, T> {
    /// The value, whichever side holds it.
    pub fn into_inner(self) -> T {
        self.either(|t| t, |t| t)
    }
}

/// An `Either` of two parallel iterators with the same items iterates the one it holds.
impl<L, R> ParallelIterator for Either<L, R>
where
    L: ParallelIterator,
    R: ParallelIterator<Item = L::Item>,
{
    type Item = L::Item;

    fn drive_unindexed<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        match self {
            Either::Left(l) => l.drive_unindexed(consumer),
            Either::Right(r) => r.drive_unindexed(consumer),
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
        let (left, right) = split_eithers(par_iter.into_par_iter());
        (A::from_par_iter(left), B::from_par_iter(right))
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
        let (left, right) = split_eithers(par_iter.into_par_iter());
        self.0.par_extend(left);
        self.1.par_extend(right);
    }
}
