//! Sources of at most one item: `Option<T>` (by value, `&`, `&mut`), `Result<T, E>` (its `Ok`
//! value), [`once`] and [`empty`]. All are an [`OptionIter`], indexed, with a producer of length 0
//! or 1.

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// Parallel iterator over the zero or one item of an `Option` (rayon's `option::IntoIter`,
/// `option::Iter`, `option::IterMut`, their `result` counterparts, `iter::Once` and `iter::Empty`).
///
/// ```
/// use forkjoin::prelude::*;
/// assert_eq!(Some(3).into_par_iter().map(|x| x * 2).collect::<Vec<_>>(), [6]);
/// assert_eq!(None::<i32>.into_par_iter().count(), 0);
/// let r: Result<i32, String> = Ok(5);
/// assert_eq!(r.par_iter().sum::<i32>(), 5);
/// ```
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct OptionIter<T> {
    opt: Option<T>,
}

impl<T> From<Option<T>> for OptionIter<T> {
    fn from(opt: Option<T>) -> Self {
        OptionIter { opt }
    }
}

/// The parallel iterator of [`once`] (rayon's `iter::Once`).
pub type Once<T> = OptionIter<T>;

/// The parallel iterator of [`empty`] (rayon's `iter::Empty`).
pub type Empty<T> = OptionIter<T>;

/// A parallel iterator over exactly one item (rayon's `iter::once`).
///
/// ```
/// use forkjoin::prelude::*;
/// assert_eq!(forkjoin::iter::once(7).map(|x| x + 1).collect::<Vec<_>>(), [8]);
/// ```
pub fn once<T: Send>(item: T) -> OptionIter<T> {
    Some(item).into()
}

/// A parallel iterator over no items of type `T` (rayon's `iter::empty`).
///
/// ```
/// use forkjoin::prelude::*;
/// assert_eq!(forkjoin::iter::empty::<String>().count(), 0);
/// ```
pub fn empty<T: Send>() -> OptionIter<T> {
    None.into()
}

impl<T: Send> IntoParallelIterator for Option<T> {
    type Iter = OptionIter<T>;
    type Item = T;
    fn into_par_iter(self) -> OptionIter<T> {
        self.into()
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a Option<T> {
    type Iter = OptionIter<&'a T>;
    type Item = &'a T;
    fn into_par_iter(self) -> OptionIter<&'a T> {
        self.as_ref().into()
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut Option<T> {
    type Iter = OptionIter<&'a mut T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> OptionIter<&'a mut T> {
        self.as_mut().into()
    }
}

/// The `Ok` value, if any.
///
/// ```
/// use forkjoin::prelude::*;
/// let (ok, err): (Result<u8, ()>, Result<u8, ()>) = (Ok(1), Err(()));
/// assert_eq!(ok.into_par_iter().collect::<Vec<_>>(), [1]);
/// assert_eq!(err.into_par_iter().count(), 0);
/// ```
impl<T: Send, E> IntoParallelIterator for Result<T, E> {
    type Iter = OptionIter<T>;
    type Item = T;
    fn into_par_iter(self) -> OptionIter<T> {
        self.ok().into()
    }
}

impl<'a, T: Sync, E> IntoParallelIterator for &'a Result<T, E> {
    type Iter = OptionIter<&'a T>;
    type Item = &'a T;
    fn into_par_iter(self) -> OptionIter<&'a T> {
        self.as_ref().ok().into()
    }
}

impl<'a, T: Send, E> IntoParallelIterator for &'a mut Result<T, E> {
    type Iter = OptionIter<&'a mut T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> OptionIter<&'a mut T> {
        self.as_mut().ok().into()
    }
}

impl<T: Send> ParallelIterator for OptionIter<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<T: Send> IndexedParallelIterator for OptionIter<T> {
    fn len(&self) -> usize {
        usize::from(self.opt.is_some())
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(OptionProducer { opt: self.opt })
    }
}

/// The producer of an [`OptionIter`]: zero or one position.
#[derive(Debug)]
struct OptionProducer<T> {
    opt: Option<T>,
}

impl<T: Send> Producer for OptionProducer<T> {
    type Item = T;
    type IntoIter = std::option::IntoIter<T>;

    fn split_at(self, index: usize) -> (Self, Self) {
        debug_assert!(index <= usize::from(self.opt.is_some()));
        let none = OptionProducer { opt: None };
        if index == 0 {
            (none, self)
        } else {
            (self, none)
        }
    }

    fn into_iter(self) -> Self::IntoIter {
        self.opt.into_iter()
    }
}
