//! `sum` and `product`: each piece uses std's `Sum`/`Product`, then the partial results are combined.

use std::iter::{once, Product, Sum};
use std::marker::PhantomData;

use super::plumbing::{Consumer, Reducer};

/// Consumer behind [`ParallelIterator::sum`](super::ParallelIterator::sum).
#[derive(Debug)]
pub struct SumConsumer<S> {
    acc: S,
}

impl<S> SumConsumer<S> {
    pub(super) fn new<T>() -> Self
    where
        S: Sum<T>,
    {
        SumConsumer {
            acc: std::iter::empty::<T>().sum(),
        }
    }
}

impl<T, S: Send + Sum<T> + Sum<S>> Consumer<T> for SumConsumer<S> {
    type Result = S;
    type Reducer = SumReducer<S>;

    fn consume_iter<I: Iterator<Item = T>>(self, iter: I) -> Self {
        let part: S = iter.sum();
        SumConsumer {
            acc: [self.acc, part].into_iter().sum(),
        }
    }
    fn split_off(self, _keep: usize) -> (Self, Self, SumReducer<S>) {
        let right = SumConsumer::new::<T>();
        (self, right, SumReducer(PhantomData))
    }
    fn complete(self) -> S {
        self.acc
    }
}

/// Adds two partial sums.
#[derive(Debug)]
pub struct SumReducer<S>(PhantomData<fn() -> S>);

impl<S: Sum<S>> Reducer<S> for SumReducer<S> {
    fn reduce(self, left: S, right: S) -> S {
        once(left).chain(once(right)).sum()
    }
}

/// Consumer behind [`ParallelIterator::product`](super::ParallelIterator::product).
#[derive(Debug)]
pub struct ProductConsumer<P> {
    acc: P,
}

impl<P> ProductConsumer<P> {
    pub(super) fn new<T>() -> Self
    where
        P: Product<T>,
    {
        ProductConsumer {
            acc: std::iter::empty::<T>().product(),
        }
    }
}

impl<T, P: Send + Product<T> + Product<P>> Consumer<T> for ProductConsumer<P> {
    type Result = P;
    type Reducer = ProductReducer<P>;

    fn consume_iter<I: Iterator<Item = T>>(self, iter: I) -> Self {
        let part: P = iter.product();
        ProductConsumer {
            acc: [self.acc, part].into_iter().product(),
        }
    }
    fn split_off(self, _keep: usize) -> (Self, Self, ProductReducer<P>) {
        let right = ProductConsumer::new::<T>();
        (self, right, ProductReducer(PhantomData))
    }
    fn complete(self) -> P {
        self.acc
    }
}

/// Multiplies two partial products.
#[derive(Debug)]
pub struct ProductReducer<P>(PhantomData<fn() -> P>);

impl<P: Product<P>> Reducer<P> for ProductReducer<P> {
    fn reduce(self, left: P, right: P) -> P {
        once(left).chain(once(right)).product()
    }
}
