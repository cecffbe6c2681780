//! `sum` and `product`: each piece uses std's `Sum`/`Product`, then the partial results are combined.
//!
//! The two differ only in which std trait totals a run of items, so they share [`TotalConsumer`] and
//! [`TotalReducer`], parameterised by a zero-sized kind ([`Add`] or [`Mul`]).

use std::iter::{empty, once, Product, Sum};
use std::marker::PhantomData;

use crate::iter::plumbing::{LazyConsumer, Reducer};

/// How a kind totals a run of `T` items into an `S` (std's `Sum` or `Product`).
pub(crate) trait Total<T, S>: Send {
    /// The total of `iter`; the total of nothing is the identity (0 or 1).
    fn total<I: Iterator<Item = T>>(iter: I) -> S;
}

/// Kind of [`SumConsumer`]: totals with [`Sum`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Add;

impl<T, S: Sum<T>> Total<T, S> for Add {
    fn total<I: Iterator<Item = T>>(iter: I) -> S {
        iter.sum()
    }
}

/// Kind of [`ProductConsumer`]: totals with [`Product`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mul;

impl<T, P: Product<T>> Total<T, P> for Mul {
    fn total<I: Iterator<Item = T>>(iter: I) -> P {
        iter.product()
    }
}

/// LazyConsumer behind [`ParallelIterator::sum`](crate::iter::ParallelIterator::sum).
pub(crate) type SumConsumer<S> = TotalConsumer<S, Add>;
/// LazyConsumer behind [`ParallelIterator::product`](crate::iter::ParallelIterator::product).
pub(crate) type ProductConsumer<P> = TotalConsumer<P, Mul>;

/// LazyConsumer that totals its items the way kind `K` says ([`SumConsumer`], [`ProductConsumer`]).
#[derive(Debug)]
pub(crate) struct TotalConsumer<S, K> {
    acc: S,
    kind: PhantomData<K>,
}

impl<S, K> TotalConsumer<S, K> {
    pub(in crate::iter) fn new<T>() -> Self
    where
        K: Total<T, S>,
    {
        TotalConsumer {
            acc: K::total(empty::<T>()),
            kind: PhantomData,
        }
    }
}

impl<T, S: Send, K: Total<T, S> + Total<S, S>> LazyConsumer<T> for TotalConsumer<S, K> {
    type Result = S;
    type Reducer = TotalReducer<S, K>;

    fn consume_iter<I: Iterator<Item = T>>(self, iter: I) -> Self {
        let part: S = K::total(iter);
        TotalConsumer {
            acc: K::total([self.acc, part].into_iter()),
            kind: PhantomData,
        }
    }
    fn split_off(self, _keep: usize) -> (Self, Self, TotalReducer<S, K>) {
        let right = TotalConsumer::new::<T>();
        (self, right, TotalReducer(PhantomData))
    }
    fn complete(self) -> S {
        self.acc
    }
}

/// Combines two partial totals the way kind `K` says (adds or multiplies them).
#[derive(Debug)]
pub(crate) struct TotalReducer<S, K>(PhantomData<fn() -> (S, K)>);

impl<S, K: Total<S, S>> Reducer<S> for TotalReducer<S, K> {
    fn reduce(self, left: S, right: S) -> S {
        K::total(once(left).chain(once(right)))
    }
}
