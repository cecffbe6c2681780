//! The std collections as sources, by value, `&` and `&mut`. As in rayon, the items of the maps,
//! sets and lists (or references to them) are first gathered into a `Vec` by one thread, and that
//! `Vec` is iterated in parallel: these collections cannot be split cheaply. The others need no
//! gathering: a `BinaryHeap` by reference or by value is its backing vector (in heap order, as
//! `BinaryHeap::iter`), a `VecDeque` by value becomes a `Vec` in place, and a `VecDeque` by
//! reference is the chain of its two slices.
//!
//! ```
//! use forkjoin::prelude::*;
//! use std::collections::{BTreeMap, HashSet};
//! let m: BTreeMap<u32, &str> = [(1, "a"), (2, "bb")].into_iter().collect();
//! assert_eq!(m.par_iter().map(|(k, v)| *k as usize * v.len()).sum::<usize>(), 5);
//! let s: HashSet<u32> = (0..100).collect();
//! assert_eq!(s.into_par_iter().sum::<u32>(), 4950);
//! ```

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};

use crate::iter::sources::slice::{SliceIter, SliceIterMut};
use crate::iter::sources::vec::VecIntoIter;
use crate::iter::{Chain, IntoParallelIterator, ParallelIterator};

/// `IntoParallelIterator` for a collection (or a reference to one) through a `Vec` of its items.
macro_rules! via_vec {
    ($(
        $(#[$doc:meta])*
        impl<$($lt:lifetime,)? $($p:ident $(: $b:path)?),*> for $ty:ty => $item:ty;
    )*) => {$(
        $(#[$doc])*
        impl<$($lt,)? $($p $(: $b)?),*> IntoParallelIterator for $ty
        where
            $item: Send,
        {
            type Iter = VecIntoIter<$item>;
            type Item = $item;
            fn into_par_iter(self) -> VecIntoIter<$item> {
                self.into_iter().collect::<Vec<_>>().into_par_iter()
            }
        }
    )*};
}

via_vec! {
    /// The entries, moved out, in the map's iteration order.
    impl<K, V, S> for HashMap<K, V, S> => (K, V);
    /// References to the entries, in the map's iteration order.
    impl<'a, K, V, S> for &'a HashMap<K, V, S> => (&'a K, &'a V);
    /// References to the keys, exclusive references to the values.
    impl<'a, K, V, S> for &'a mut HashMap<K, V, S> => (&'a K, &'a mut V);
    /// The items, moved out, in the set's iteration order.
    impl<T, S> for HashSet<T, S> => T;
    /// References to the items, in the set's iteration order.
    impl<'a, T, S> for &'a HashSet<T, S> => &'a T;
    /// The entries, moved out, in key order.
    impl<K, V> for BTreeMap<K, V> => (K, V);
    /// References to the entries, in key order.
    impl<'a, K, V> for &'a BTreeMap<K, V> => (&'a K, &'a V);
    /// References to the keys, exclusive references to the values, in key order.
    impl<'a, K, V> for &'a mut BTreeMap<K, V> => (&'a K, &'a mut V);
    /// The items, moved out, in order.
    impl<T> for BTreeSet<T> => T;
    /// References to the items, in order.
    impl<'a, T> for &'a BTreeSet<T> => &'a T;
    /// The items, moved out, front to back.
    impl<T> for LinkedList<T> => T;
    /// References to the items, front to back.
    impl<'a, T> for &'a LinkedList<T> => &'a T;
    /// Exclusive references to the items, front to back.
    impl<'a, T> for &'a mut LinkedList<T> => &'a mut T;
}

/// References to the items, front to back: the deque's two slices, chained.
impl<'a, T: Sync> IntoParallelIterator for &'a VecDeque<T> {
    type Iter = Chain<SliceIter<'a, T>, SliceIter<'a, T>>;
    type Item = &'a T;
    fn into_par_iter(self) -> Self::Iter {
        let (front, back) = self.as_slices();
        front.into_par_iter().chain(back)
    }
}

/// Exclusive references to the items, front to back: the deque's two slices, chained.
impl<'a, T: Send> IntoParallelIterator for &'a mut VecDeque<T> {
    type Iter = Chain<SliceIterMut<'a, T>, SliceIterMut<'a, T>>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> Self::Iter {
        let (front, back) = self.as_mut_slices();
        front.into_par_iter().chain(back)
    }
}

/// The items, moved out, front to back (the deque becomes a `Vec` in place).
impl<T: Send> IntoParallelIterator for VecDeque<T> {
    type Iter = VecIntoIter<T>;
    type Item = T;
    fn into_par_iter(self) -> VecIntoIter<T> {
        Vec::from(self).into_par_iter()
    }
}

/// The items, moved out, in the heap's internal order (as `BinaryHeap::into_vec`), not sorted.
impl<T: Send> IntoParallelIterator for BinaryHeap<T> {
    type Iter = VecIntoIter<T>;
    type Item = T;
    fn into_par_iter(self) -> VecIntoIter<T> {
        self.into_vec().into_par_iter()
    }
}

/// References to the items, in the heap's internal order (as `BinaryHeap::iter`), not sorted.
impl<'a, T: Sync> IntoParallelIterator for &'a BinaryHeap<T> {
    type Iter = SliceIter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> SliceIter<'a, T> {
        self.as_slice().into_par_iter()
    }
}
