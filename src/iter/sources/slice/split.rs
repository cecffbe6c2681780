//! Slice splits by a separator predicate: [`par_split`](crate::slice::ParallelSlice::par_split),
//! [`par_split_inclusive`](crate::slice::ParallelSlice::par_split_inclusive) and their `_mut` forms on
//! [`ParallelSliceMut`](crate::slice::ParallelSliceMut), yielding what `slice::split`,
//! `slice::split_inclusive`, `split_mut` and `split_inclusive_mut` yield.
//!
//! These are unindexed sources (the number of pieces is not known without a full scan): a piece
//! is cut at a separator, the first one at or after its middle, else the last one before it, else
//! not at all. A cut at separator `j` gives `[..j]` and `[j + 1..]` (`[..=j]` and `[j + 1..]` for
//! the inclusive forms), and the items of the two parts, concatenated, are exactly the items of
//! the whole: the separator ends the first part's last item either way. A piece is an
//! [`UnindexedProducer`] that the bridge folds a few items at a time, so what is left of a running
//! piece can still be cut when an idle worker asks.

use std::fmt;

use crate::iter::plumbing::bridge::bridge_unindexed_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{Folder, LazyConsumer, UnindexedProducer};
use crate::iter::ParallelIterator;

/// A shared or a mutable sub-slice: what a piece of the split holds and yields.
trait SubSlice: Send + Sized {
    type Elem;
    fn items(&self) -> &[Self::Elem];
    fn split_at(self, mid: usize) -> (Self, Self);
}

impl<T: Sync> SubSlice for &[T] {
    type Elem = T;
    fn items(&self) -> &[T] {
        self
    }
    fn split_at(self, mid: usize) -> (Self, Self) {
        <[T]>::split_at(self, mid)
    }
}

impl<T: Send> SubSlice for &mut [T] {
    type Elem = T;
    fn items(&self) -> &[T] {
        self
    }
    fn split_at(self, mid: usize) -> (Self, Self) {
        self.split_at_mut(mid)
    }
}

/// A piece of a split: a sub-slice and the separator predicate. `slice` is `None` only while a
/// cut moves it.
struct SplitRun<'p, S, P> {
    slice: Option<S>,
    separator: &'p P,
    inclusive: bool,
}

impl<'p, S, P> SplitRun<'p, S, P>
where
    S: SubSlice,
    P: Fn(&S::Elem) -> bool,
{
    fn new(slice: S, separator: &'p P, inclusive: bool) -> Self {
        SplitRun {
            slice: Some(slice),
            separator,
            inclusive,
        }
    }

    /// Cuts `slice` at the separator at `index`: the part that ends there, and the rest.
    fn cut(&self, slice: S, index: usize) -> (S, S) {
        if self.inclusive {
            slice.split_at(index + 1)
        } else {
            let (head, tail) = slice.split_at(index);
            (head, tail.split_at(1).1)
        }
    }
}

impl<S, P> Iterator for SplitRun<'_, S, P>
where
    S: SubSlice,
    P: Fn(&S::Elem) -> bool,
{
    type Item = S;

    fn next(&mut self) -> Option<S> {
        let slice = self.slice.take()?;
        match slice.items().iter().position(self.separator) {
            Some(index) => {
                let (head, rest) = self.cut(slice, index);
                self.slice = Some(rest);
                Some(head)
            }
            // The inclusive forms yield no empty item after a final separator (nor for an empty
            // slice); the others always end with the (possibly empty) part after the last one.
            None if self.inclusive && slice.items().is_empty() => None,
            None => Some(slice),
        }
    }
}

impl<S, P> SplitRun<'_, S, P>
where
    S: SubSlice,
    P: Fn(&S::Elem) -> bool,
{
    /// Cuts the piece in two as the module doc describes: `self` keeps the first part, the second
    /// is returned (`None`, and `self` unchanged, without a separator to cut at).
    fn cut_in_two(&mut self) -> Option<Self> {
        let items = self.slice.as_ref()?.items();
        // An inclusive cut after the last item would leave this piece as it is (and an empty
        // second part): only the items before the last one can end a first part.
        let end = items.len() - usize::from(self.inclusive && !items.is_empty());
        let mid = end / 2;
        let index = match items[mid..end].iter().position(self.separator) {
            Some(i) => mid + i,
            None => items[..mid].iter().rposition(self.separator)?,
        };
        let slice = self.slice.take()?;
        let (first, second) = self.cut(slice, index);
        self.slice = Some(first);
        Some(SplitRun::new(second, self.separator, self.inclusive))
    }
}

impl<S, P> UnindexedProducer for SplitRun<'_, S, P>
where
    S: SubSlice,
    P: Fn(&S::Elem) -> bool + Sync,
{
    type Item = S;

    fn split(mut self) -> (Self, Option<Self>) {
        let second = self.cut_in_two();
        (self, second)
    }

    fn fold_with<F: Folder<S>>(self, folder: F) -> F {
        folder.consume_iter(self)
    }

    fn fold_batch<C: LazyConsumer<S>>(mut self, consumer: C, batch: usize) -> (C, Option<Self>) {
        if batch == usize::MAX {
            return (consumer.consume_iter(self), None);
        }
        let consumer = consumer.consume_iter(self.by_ref().take(batch));
        let rest = self.slice.is_some().then_some(self);
        (consumer, rest)
    }
}

/// Defines one of the four iterators; `$slice` is the sub-slice type (with lifetime `'data`).
macro_rules! split_iter {
    ($(#[$doc:meta])* $name:ident, $slice:ty, $bound:ident, $inclusive:expr) => {
        $(#[$doc])*
        #[must_use = "parallel iterators are lazy and do nothing unless consumed"]
        pub struct $name<'data, T, P> {
            slice: $slice,
            separator: P,
        }

        impl<'data, T, P> $name<'data, T, P> {
            pub(in crate::iter) fn new(slice: $slice, separator: P) -> Self {
                $name { slice, separator }
            }
        }

        impl<T: fmt::Debug, P> fmt::Debug for $name<'_, T, P> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("slice", &self.slice)
                    .finish()
            }
        }

        impl<'data, T, P> ParallelIterator for $name<'data, T, P>
        where
            T: $bound,
            P: Fn(&T) -> bool + Sync + Send,
        {
            type Item = $slice;

            fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
                drive_unindexed_lazily(self, consumer)
            }

            fn drive_lazy<C: LazyConsumer<$slice>>(self, consumer: C) -> C::Result {
                bridge_unindexed_lazy(
                    SplitRun::new(self.slice, &self.separator, $inclusive),
                    consumer,
                )
            }
        }
    };
}

split_iter! {
    /// Parallel iterator over the sub-slices separated by items that match a predicate, returned
    /// by [`par_split`](crate::slice::ParallelSlice::par_split) (`forkjoin::slice::Split`).
    Split, &'data [T], Sync, false
}

split_iter! {
    /// Parallel iterator over the sub-slices ended by items that match a predicate, returned by
    /// [`par_split_inclusive`](crate::slice::ParallelSlice::par_split_inclusive)
    /// (`forkjoin::slice::SplitInclusive`).
    SplitInclusive, &'data [T], Sync, true
}

split_iter! {
    /// Parallel iterator over the mutable sub-slices separated by items that match a predicate,
    /// returned by [`par_split_mut`](crate::slice::ParallelSliceMut::par_split_mut)
    /// (`forkjoin::slice::SplitMut`).
    SplitMut, &'data mut [T], Send, false
}

split_iter! {
    /// Parallel iterator over the mutable sub-slices ended by items that match a predicate,
    /// returned by [`par_split_inclusive_mut`](crate::slice::ParallelSliceMut::par_split_inclusive_mut)
    /// (`forkjoin::slice::SplitInclusiveMut`).
    SplitInclusiveMut, &'data mut [T], Send, true
}

macro_rules! clone_split {
    ($($name:ident),*) => {$(
        impl<T, P: Clone> Clone for $name<'_, T, P> {
            fn clone(&self) -> Self {
                $name::new(self.slice, self.separator.clone())
            }
        }
    )*};
}

clone_split!(Split, SplitInclusive);
