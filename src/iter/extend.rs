//! [`ParallelExtend`]: appending the items of a parallel iterator to an existing collection, in
//! order (the parallel [`Extend`]).

use super::collect::{append_pieces, append_string_pieces, append_with_len};
use super::{IntoParallelIterator, ParallelIterator};

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
