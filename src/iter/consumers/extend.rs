//! [`ParallelExtend`]: appending the items of a parallel iterator to an existing collection, in
//! order (the parallel [`Extend`]).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};

use crate::iter::consumers::collect::{
    append_pieces, append_string_pieces, append_with_len, ListVecConsumer,
};
use crate::iter::{IntoParallelIterator, ParallelIterator};

/// Extends a collection with the items of a parallel iterator, in order (the parallel [`Extend`]).
///
/// ```
/// use forkjoin::prelude::*;
/// let mut v = vec![0u32];
/// v.par_extend((1..4u32).into_par_iter().map(|x| x * 10));
/// assert_eq!(v, [0, 10, 20, 30]);
/// ```
pub trait ParallelExtend<T: Send> {
    /// Appends the items of `par_iter` to `self`, in order.
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I);
}

/// Items of an indexed iterator are written straight after the existing ones; otherwise every piece
/// collects into its own `Vec` and the pieces are appended in order. If a closure panics, the vector
/// keeps exactly its old items.
///
/// ```
/// use forkjoin::prelude::*;
/// let mut v = vec![1u32, 2];
/// v.par_extend((0..10u32).into_par_iter().filter(|x| x % 4 == 0));
/// assert_eq!(v, [1, 2, 0, 4, 8]);
/// ```
impl<T: Send> ParallelExtend<T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        let par_iter = par_iter.into_par_iter();
        match par_iter.opt_len() {
            Some(len) => append_with_len(par_iter, len, self),
            None => append_pieces(par_iter, self),
        }
    }
}

/// Every piece builds its own `String`; the pieces are appended in order.
///
/// ```
/// use forkjoin::prelude::*;
/// let mut s = String::from("fork");
/// s.par_extend(["-", "join"].par_iter().copied());
/// s.par_extend(vec!['!'; 2]);
/// assert_eq!(s, "fork-join!!");
/// ```
impl ParallelExtend<char> for String {
    fn par_extend<I: IntoParallelIterator<Item = char>>(&mut self, par_iter: I) {
        append_string_pieces(self, par_iter, String::push);
    }
}

/// Every piece builds its own `String`; the pieces are appended in order.
impl<'a> ParallelExtend<&'a char> for String {
    fn par_extend<I: IntoParallelIterator<Item = &'a char>>(&mut self, par_iter: I) {
        append_string_pieces(self, par_iter, |s, c| s.push(*c));
    }
}

/// Every piece builds its own `String`; the pieces are appended in order.
impl<'a> ParallelExtend<&'a str> for String {
    fn par_extend<I: IntoParallelIterator<Item = &'a str>>(&mut self, par_iter: I) {
        append_string_pieces(self, par_iter, String::push_str);
    }
}

/// Every piece builds its own `String`; the pieces are appended in order.
impl ParallelExtend<String> for String {
    fn par_extend<I: IntoParallelIterator<Item = String>>(&mut self, par_iter: I) {
        append_string_pieces(self, par_iter, |s, t| s.push_str(&t));
    }
}

/// Every piece builds its own `String`; the pieces are appended in order.
impl ParallelExtend<Box<str>> for String {
    fn par_extend<I: IntoParallelIterator<Item = Box<str>>>(&mut self, par_iter: I) {
        append_string_pieces(self, par_iter, |s, t| s.push_str(&t));
    }
}

/// Every piece builds its own `String`; the pieces are appended in order.
impl<'a> ParallelExtend<Cow<'a, str>> for String {
    fn par_extend<I: IntoParallelIterator<Item = Cow<'a, str>>>(&mut self, par_iter: I) {
        append_string_pieces(self, par_iter, |s, t| s.push_str(&t));
    }
}

/// Copies of the referenced items, written in place like owned ones.
///
/// ```
/// use forkjoin::prelude::*;
/// let mut v = vec![0u8];
/// v.par_extend(&[1u8, 2, 3]);
/// assert_eq!(v, [0, 1, 2, 3]);
/// ```
impl<'a, T: Copy + Send + Sync + 'a> ParallelExtend<&'a T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = &'a T>>(&mut self, par_iter: I) {
        self.par_extend(par_iter.into_par_iter().copied());
    }
}

/// Every piece of `par_iter` collects into its own `Vec`; `target` then makes room for all the
/// items at once and takes the pieces in order (rayon's way for collections that cannot be written
/// in place). No vector of all the items is made.
fn extend_via_pieces<T: Send, C: Extend<T> + Reserve>(
    target: &mut C,
    par_iter: impl IntoParallelIterator<Item = T>,
) {
    let pieces = par_iter.into_par_iter().drive_lazy(ListVecConsumer::new());
    target.reserve_items(pieces.iter().map(Vec::len).sum());
    for piece in pieces {
        target.extend(piece);
    }
}

/// Making room for more items ahead of an `extend`, where the collection can.
trait Reserve {
    /// Makes room for `additional` more items (or does nothing).
    fn reserve_items(&mut self, additional: usize);
}

/// `Reserve` for the std collections: `$reserve` is `reserve`, or nothing where there is none.
macro_rules! reserve {
    ($([$($p:ident),*] $ty:ty $(where [$($bound:tt)*])? => $($reserve:ident)?;)*) => {$(
        impl<$($p),*> Reserve for $ty $(where $($bound)*)? {
            #[allow(unused_variables)]
            fn reserve_items(&mut self, additional: usize) {
                $(self.$reserve(additional);)?
            }
        }
    )*};
}

reserve! {
    [T] VecDeque<T> => reserve;
    [T] BinaryHeap<T> where [T: Ord] => reserve;
    [K, V, S] HashMap<K, V, S> where [K: Eq + Hash, S: BuildHasher] => reserve;
    [T, S] HashSet<T, S> where [T: Eq + Hash, S: BuildHasher] => reserve;
    [K, V] BTreeMap<K, V> => ;
    [T] BTreeSet<T> => ;
}

/// Every piece builds its own list; the lists are linked in order (no item is moved twice).
///
/// ```
/// use forkjoin::prelude::*;
/// use std::collections::LinkedList;
/// let mut l = LinkedList::from([0]);
/// l.par_extend((1..4).into_par_iter());
/// assert!(l.iter().eq(&[0, 1, 2, 3]));
/// ```
impl<T: Send> ParallelExtend<T> for LinkedList<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        let mut list = par_iter
            .into_par_iter()
            .fold(LinkedList::new, |mut list, item| {
                list.push_back(item);
                list
            })
            .reduce(LinkedList::new, |mut left, mut right| {
                left.append(&mut right);
                left
            });
        self.append(&mut list);
    }
}

/// Copies, linked in as for owned items.
impl<'a, T: Copy + Send + Sync + 'a> ParallelExtend<&'a T> for LinkedList<T> {
    fn par_extend<I: IntoParallelIterator<Item = &'a T>>(&mut self, par_iter: I) {
        self.par_extend(par_iter.into_par_iter().copied());
    }
}

/// `ParallelExtend` for the std collections that cannot be written in place: every piece collects
/// into its own `Vec`, the collection reserves room for all of them where it can, and the pieces
/// are added in order (a map keeps the last value of a key).
macro_rules! extend_via_pieces {
    ($($(#[$doc:meta])* impl<$($lt:lifetime,)? $($p:ident),*> $item:ty => $ty:ty where [$($bound:tt)*];)*) => {$(
        $(#[$doc])*
        impl<$($lt,)? $($p),*> ParallelExtend<$item> for $ty
        where
            $($bound)*
        {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                extend_via_pieces(self, par_iter);
            }
        }
    )*};
}

extend_via_pieces! {
    /// Items pushed at the back, in order.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::collections::VecDeque;
    /// let mut d = VecDeque::from([0]);
    /// d.par_extend((1..4).into_par_iter());
    /// assert_eq!(d, [0, 1, 2, 3]);
    /// ```
    impl<T> T => VecDeque<T> where [T: Send];
    /// Copies pushed at the back, in order.
    impl<'a, T> &'a T => VecDeque<T> where [T: Copy + Send + Sync + 'a];
    /// Items pushed onto the heap.
    impl<T> T => BinaryHeap<T> where [T: Ord + Send];
    /// Copies pushed onto the heap.
    impl<'a, T> &'a T => BinaryHeap<T> where [T: Ord + Copy + Send + Sync + 'a];
    /// Entries inserted in order: a later value of a key replaces an earlier one.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::collections::HashMap;
    /// let mut m = HashMap::from([(0, 'a')]);
    /// m.par_extend(vec![(0, 'b'), (1, 'c')]);
    /// assert_eq!(m[&0], 'b');
    /// assert_eq!(m.len(), 2);
    /// ```
    impl<K, V, S> (K, V) => HashMap<K, V, S> where [K: Eq + Hash + Send, V: Send, S: BuildHasher];
    /// Copies of the entries inserted in order: a later value of a key replaces an earlier one.
    impl<'a, K, V, S> (&'a K, &'a V) => HashMap<K, V, S>
        where [K: Eq + Hash + Copy + Send + Sync + 'a, V: Copy + Send + Sync + 'a, S: BuildHasher];
    /// Items inserted.
    impl<T, S> T => HashSet<T, S> where [T: Eq + Hash + Send, S: BuildHasher];
    /// Copies inserted.
    impl<'a, T, S> &'a T => HashSet<T, S> where [T: Eq + Hash + Copy + Send + Sync + 'a, S: BuildHasher];
    /// Entries inserted in order: a later value of a key replaces an earlier one.
    impl<K, V> (K, V) => BTreeMap<K, V> where [K: Ord + Send, V: Send];
    /// Copies of the entries inserted in order: a later value of a key replaces an earlier one.
    impl<'a, K, V> (&'a K, &'a V) => BTreeMap<K, V>
        where [K: Ord + Copy + Send + Sync + 'a, V: Copy + Send + Sync + 'a];
    /// Items inserted.
    impl<T> T => BTreeSet<T> where [T: Ord + Send];
    /// Copies inserted.
    impl<'a, T> &'a T => BTreeSet<T> where [T: Ord + Copy + Send + Sync + 'a];
}
