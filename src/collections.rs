//! Parallel iterators over the std collections, under rayon's paths (`collections::hash_map::Iter`,
//! ...). As in rayon, a collection that cannot be split cheaply is first gathered into a `Vec` (of its
//! items or of references to them), so most of these are a [`vec::IntoIter`](crate::vec::IntoIter)
//! under rayon's name; a `BinaryHeap` by reference is a [`slice::Iter`](crate::slice::Iter), a
//! `VecDeque` by reference the [`Chain`] of its two slices, and its `par_drain`
//! drains the deque's own buffer.
//!
//! ```
//! use forkjoin::prelude::*;
//! use std::collections::HashMap;
//! let m = HashMap::from([(1, 10), (2, 20)]);
//! let it: forkjoin::collections::hash_map::Iter<'_, i32, i32> = m.par_iter();
//! assert_eq!(it.map(|(k, v)| k * v).sum::<i32>(), 50);
//! ```

use crate::iter::sources::drain_full::{HashDrain, HeapDrain};
use crate::iter::sources::drain_range::VecDequeDrain;
use crate::iter::sources::slice::{SliceIter, SliceIterMut};
use crate::iter::sources::vec::VecIntoIter;
use crate::iter::Chain;

macro_rules! collection_paths {
    ($(
        $(#[$doc:meta])*
        $module:ident {
            $($(#[$tdoc:meta])* $name:ident<$($lt:lifetime,)? $($p:ident),*> = $target:ty;)*
        }
    )*) => {$(
        $(#[$doc])*
        pub mod $module {
            use super::*;
            $(
                $(#[$tdoc])*
                pub type $name<$($lt,)? $($p),*> = $target;
            )*
        }
    )*};
}

collection_paths! {
    /// `HashMap` sources.
    hash_map {
        /// `HashMap::into_par_iter()`: the entries, moved out.
        IntoIter<K, V> = VecIntoIter<(K, V)>;
        /// `HashMap::par_iter()`: references to the entries.
        Iter<'a, K, V> = VecIntoIter<(&'a K, &'a V)>;
        /// `HashMap::par_iter_mut()`: references to the keys, exclusive references to the values.
        IterMut<'a, K, V> = VecIntoIter<(&'a K, &'a mut V)>;
        /// `HashMap::par_drain()`: the entries, moved out.
        Drain<'a, K, V> = HashDrain<'a, (K, V)>;
    }
    /// `HashSet` sources.
    hash_set {
        /// `HashSet::into_par_iter()`: the items, moved out.
        IntoIter<T> = VecIntoIter<T>;
        /// `HashSet::par_iter()`: references to the items.
        Iter<'a, T> = VecIntoIter<&'a T>;
        /// `HashSet::par_drain()`: the items, moved out.
        Drain<'a, T> = HashDrain<'a, T>;
    }
    /// `BTreeMap` sources.
    btree_map {
        /// `BTreeMap::into_par_iter()`: the entries, moved out, in key order.
        IntoIter<K, V> = VecIntoIter<(K, V)>;
        /// `BTreeMap::par_iter()`: references to the entries, in key order.
        Iter<'a, K, V> = VecIntoIter<(&'a K, &'a V)>;
        /// `BTreeMap::par_iter_mut()`: references to the keys, exclusive references to the values.
        IterMut<'a, K, V> = VecIntoIter<(&'a K, &'a mut V)>;
    }
    /// `BTreeSet` sources.
    btree_set {
        /// `BTreeSet::into_par_iter()`: the items, moved out, in order.
        IntoIter<T> = VecIntoIter<T>;
        /// `BTreeSet::par_iter()`: references to the items, in order.
        Iter<'a, T> = VecIntoIter<&'a T>;
    }
    /// `BinaryHeap` sources.
    binary_heap {
        /// `BinaryHeap::into_par_iter()`: the items, moved out, in the heap's internal order.
        IntoIter<T> = VecIntoIter<T>;
        /// `BinaryHeap::par_iter()`: references to the items, in the heap's internal order.
        Iter<'a, T> = SliceIter<'a, T>;
        /// `BinaryHeap::par_drain()`: the items, moved out, in the heap's internal order.
        Drain<'a, T> = HeapDrain<'a, T>;
    }
    /// `LinkedList` sources.
    linked_list {
        /// `LinkedList::into_par_iter()`: the items, moved out, front to back.
        IntoIter<T> = VecIntoIter<T>;
        /// `LinkedList::par_iter()`: references to the items, front to back.
        Iter<'a, T> = VecIntoIter<&'a T>;
        /// `LinkedList::par_iter_mut()`: exclusive references to the items, front to back.
        IterMut<'a, T> = VecIntoIter<&'a mut T>;
    }
    /// `VecDeque` sources.
    vec_deque {
        /// `VecDeque::into_par_iter()`: the items, moved out, front to back.
        IntoIter<T> = VecIntoIter<T>;
        /// `VecDeque::par_iter()`: references to the items, front to back (its two slices).
        Iter<'a, T> = Chain<SliceIter<'a, T>, SliceIter<'a, T>>;
        /// `VecDeque::par_iter_mut()`: exclusive references to the items, front to back.
        IterMut<'a, T> = Chain<SliceIterMut<'a, T>, SliceIterMut<'a, T>>;
        /// `VecDeque::par_drain(range)`: the drained items, moved out of the deque's buffer.
        Drain<'a, T> = VecDequeDrain<'a, T>;
    }
}
