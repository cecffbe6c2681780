//! `unzip`, `partition` and collecting or extending into pairs of collections.
//!
//! A first version built from existing pieces: the items are collected into one `Vec` in parallel
//! (in place for indexed input), split into two `Vec`s in one sequential pass of moves, and each
//! is appended to its destination with `par_extend`. rayon instead feeds both destinations while
//! splitting; that saves the intermediate vectors and the sequential pass.

use crate::iter::{Either, IntoParallelIterator, ParallelExtend, ParallelIterator};

/// Appends the left and right halves of the pairs of `par_iter` to `left` and `right`, in order.
pub(in crate::iter) fn unzip_into<I, A, B, FromA, FromB>(
    par_iter: I,
    left: &mut FromA,
    right: &mut FromB,
) where
    I: ParallelIterator<Item = (A, B)>,
    A: Send,
    B: Send,
    FromA: ParallelExtend<A>,
    FromB: ParallelExtend<B>,
{
    let pairs: Vec<(A, B)> = par_iter.collect();
    let (a, b): (Vec<A>, Vec<B>) = pairs.into_iter().unzip();
    left.par_extend(a);
    right.par_extend(b);
}

/// Appends the items of `par_iter` for which `predicate` holds to `yes`, the others to `no`.
pub(in crate::iter) fn partition_into<I, P, A, B>(
    par_iter: I,
    predicate: P,
    yes: &mut A,
    no: &mut B,
) where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
    A: ParallelExtend<I::Item>,
    B: ParallelExtend<I::Item>,
{
    let (a, b) = split_eithers(par_iter.map(|x| {
        if predicate(&x) {
            Either::Left(x)
        } else {
            Either::Right(x)
        }
    }));
    yes.par_extend(a);
    no.par_extend(b);
}

/// The `Left` and the `Right` values of `par_iter`, each in order.
pub(in crate::iter) fn split_eithers<I, L, R>(par_iter: I) -> (Vec<L>, Vec<R>)
where
    I: ParallelIterator<Item = Either<L, R>>,
    L: Send,
    R: Send,
{
    let tagged: Vec<Either<L, R>> = par_iter.collect();
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for item in tagged {
        match item {
            Either::Left(l) => left.push(l),
            Either::Right(r) => right.push(r),
        }
    }
    (left, right)
}

/// Collects pairs into a pair of collections, as [`ParallelIterator::unzip`] does.
///
/// ```
/// use forkjoin::prelude::*;
/// let (evens, odds): (Vec<u32>, Vec<u32>) = (0..4u32).into_par_iter().map(|x| (2 * x, 2 * x + 1)).collect();
/// assert_eq!((evens, odds), (vec![0, 2, 4, 6], vec![1, 3, 5, 7]));
/// ```
impl<A, B, FromA, FromB> crate::iter::FromParallelIterator<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Default + Send + ParallelExtend<A>,
    FromB: Default + Send + ParallelExtend<B>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = (A, B)>>(par_iter: I) -> Self {
        let mut pair = (FromA::default(), FromB::default());
        unzip_into(par_iter.into_par_iter(), &mut pair.0, &mut pair.1);
        pair
    }
}

/// Appends the halves of every pair to the two collections, in order.
///
/// ```
/// use forkjoin::prelude::*;
/// let mut pair = (vec![0u8], String::from(">"));
/// pair.par_extend(vec![(1u8, 'a'), (2, 'b')]);
/// assert_eq!(pair, (vec![0, 1, 2], String::from(">ab")));
/// ```
impl<A, B, FromA, FromB> ParallelExtend<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Send + ParallelExtend<A>,
    FromB: Send + ParallelExtend<B>,
{
    fn par_extend<I: IntoParallelIterator<Item = (A, B)>>(&mut self, par_iter: I) {
        unzip_into(par_iter.into_par_iter(), &mut self.0, &mut self.1);
    }
}
