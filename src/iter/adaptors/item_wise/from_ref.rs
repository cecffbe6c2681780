//! `copied` and `cloned`: turn `&T` items into `T` items.
//!
//! The two adaptors differ only in how one item is made from a reference (`Copy` vs `Clone`), so they
//! share one implementation, [`FromRef`], parameterised by a zero-sized kind ([`CopyItems`] or
//! [`CloneItems`]); [`Copied`] and [`Cloned`] are aliases of it.

use std::fmt;
use std::marker::PhantomData;

use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// A [`FromRef`] kind: a zero-sized marker naming one way to turn references into values.
pub trait RefKind: Send + Sync {
    /// Name of the adaptor, used by its `Debug` output (`"Copied"`, `"Cloned"`).
    const NAME: &'static str;
}

/// How a [`FromRef`] kind turns `&'a T` items into `T` items, for one sequential iterator at a time.
pub trait RefToOwned<'a, T: 'a>: RefKind {
    /// The std adaptor that does the conversion (`std::iter::Copied`, `std::iter::Cloned`).
    type Iter<I: Iterator<Item = &'a T>>: Iterator<Item = T>;
    /// Wraps a sequential iterator of references.
    fn owned<I: Iterator<Item = &'a T>>(iter: I) -> Self::Iter<I>;
    /// The same adaptor over a producer's iterator, which runs from both ends and knows its
    /// length (so does the adaptor).
    type ProducerIter<I: DoubleEndedIterator<Item = &'a T> + ExactSizeIterator>: DoubleEndedIterator<Item = T>
        + ExactSizeIterator;
    /// Wraps a producer's iterator of references.
    fn owned_both_ends<I: DoubleEndedIterator<Item = &'a T> + ExactSizeIterator>(
        iter: I,
    ) -> Self::ProducerIter<I>;
}

/// Kind of [`Copied`]: items are copied (`T: Copy`).
#[derive(Debug, Clone, Copy)]
pub struct CopyItems;

impl RefKind for CopyItems {
    const NAME: &'static str = "Copied";
}

impl<'a, T: 'a + Copy> RefToOwned<'a, T> for CopyItems {
    type Iter<I: Iterator<Item = &'a T>> = std::iter::Copied<I>;
    fn owned<I: Iterator<Item = &'a T>>(iter: I) -> Self::Iter<I> {
        iter.copied()
    }
    type ProducerIter<I: DoubleEndedIterator<Item = &'a T> + ExactSizeIterator> =
        std::iter::Copied<I>;
    fn owned_both_ends<I: DoubleEndedIterator<Item = &'a T> + ExactSizeIterator>(
        iter: I,
    ) -> Self::ProducerIter<I> {
        iter.copied()
    }
}

/// Kind of [`Cloned`]: items are cloned (`T: Clone`).
#[derive(Debug, Clone, Copy)]
pub struct CloneItems;

impl RefKind for CloneItems {
    const NAME: &'static str = "Cloned";
}

impl<'a, T: 'a + Clone> RefToOwned<'a, T> for CloneItems {
    type Iter<I: Iterator<Item = &'a T>> = std::iter::Cloned<I>;
    fn owned<I: Iterator<Item = &'a T>>(iter: I) -> Self::Iter<I> {
        iter.cloned()
    }
    type ProducerIter<I: DoubleEndedIterator<Item = &'a T> + ExactSizeIterator> =
        std::iter::Cloned<I>;
    fn owned_both_ends<I: DoubleEndedIterator<Item = &'a T> + ExactSizeIterator>(
        iter: I,
    ) -> Self::ProducerIter<I> {
        iter.cloned()
    }
}

/// Parallel iterator returned by [`ParallelIterator::copied`].
pub type Copied<I> = FromRef<I, CopyItems>;

/// Parallel iterator returned by [`ParallelIterator::cloned`].
pub type Cloned<I> = FromRef<I, CloneItems>;

/// Parallel iterator turning `&T` items into `T` items the way kind `K` says ([`Copied`], [`Cloned`]).
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct FromRef<I, K> {
    base: I,
    kind: PhantomData<K>,
}

impl<I, K> FromRef<I, K> {
    pub(in crate::iter) fn new(base: I) -> Self {
        FromRef {
            base,
            kind: PhantomData,
        }
    }
}

impl<'a, T, I, K> ParallelIterator for FromRef<I, K>
where
    I: ParallelIterator<Item = &'a T>,
    T: 'a + Send + Sync,
    K: RefToOwned<'a, T>,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<T>>(self, consumer: C) -> C::Result {
        self.base.drive_lazy(FromRefConsumer::<C, K>::new(consumer))
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<'a, T, I, K> IndexedParallelIterator for FromRef<I, K>
where
    I: IndexedParallelIterator<Item = &'a T>,
    T: 'a + Send + Sync,
    K: RefToOwned<'a, T>,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        return self.base.with_producer(Callback::<CB, K> {
            callback,
            kind: PhantomData,
        });

        struct Callback<CB, K> {
            callback: CB,
            kind: PhantomData<K>,
        }

        impl<'a, T, CB, K> ProducerCallback<&'a T> for Callback<CB, K>
        where
            CB: ProducerCallback<T>,
            T: 'a + Send + Sync,
            K: RefToOwned<'a, T>,
        {
            type Output = CB::Output;
            fn callback<P: Producer<Item = &'a T>>(self, base: P) -> CB::Output {
                self.callback.callback(FromRefProducer::<P, K>::new(base))
            }
        }
    }
}

/// Producer of a [`FromRef`] over an indexed iterator.
pub(crate) struct FromRefProducer<P, K> {
    base: P,
    kind: PhantomData<K>,
}

impl<P, K> FromRefProducer<P, K> {
    fn new(base: P) -> Self {
        FromRefProducer {
            base,
            kind: PhantomData,
        }
    }
}

impl<'a, T, P, K> Producer for FromRefProducer<P, K>
where
    P: Producer<Item = &'a T>,
    T: 'a,
    K: RefToOwned<'a, T>,
{
    type Item = T;
    type IntoIter = K::ProducerIter<P::IntoIter>;

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        (Self::new(left), Self::new(right))
    }
    fn into_iter(self) -> Self::IntoIter {
        K::owned_both_ends(self.base.into_iter())
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
}

/// LazyConsumer of a [`FromRef`]: converts referenced items before passing them on.
pub(crate) struct FromRefConsumer<C, K> {
    base: C,
    kind: PhantomData<K>,
}

impl<C, K> FromRefConsumer<C, K> {
    fn new(base: C) -> Self {
        FromRefConsumer {
            base,
            kind: PhantomData,
        }
    }
}

impl<'a, T, C, K> LazyConsumer<&'a T> for FromRefConsumer<C, K>
where
    C: LazyConsumer<T>,
    T: 'a,
    K: RefToOwned<'a, T>,
{
    type Result = C::Result;
    type Reducer = C::Reducer;

    fn consume_iter<I: Iterator<Item = &'a T>>(self, iter: I) -> Self {
        Self::new(self.base.consume_iter(K::owned(iter)))
    }
    fn split_off(self, keep: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_off(keep);
        (Self::new(left), Self::new(right), reducer)
    }
    fn complete(self) -> C::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
    fn prefers_end(&self) -> bool {
        self.base.prefers_end()
    }
    const CAN_PREFER_END: bool = C::CAN_PREFER_END;
}

// `Debug` by hand so the output keeps the adaptor's own name (`Copied { base: .. }`), as before the
// two adaptors shared this type, and so `K` need not be `Debug`.
macro_rules! debug_as {
    ($ty:ident, $suffix:literal) => {
        impl<B: fmt::Debug, K: RefKind> fmt::Debug for $ty<B, K> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let name = format!("{}{}", K::NAME, $suffix);
                f.debug_struct(&name).field("base", &self.base).finish()
            }
        }
    };
}
debug_as!(FromRef, "");
debug_as!(FromRefProducer, "Producer");
debug_as!(FromRefConsumer, "LazyConsumer");
