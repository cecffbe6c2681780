//! `with_min_len` / `with_max_len`: bounds on the size of the pieces the splitter hands out.

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`IndexedParallelIterator::with_min_len`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct MinLen<I> {
    base: I,
    min: usize,
}

/// Parallel iterator returned by [`IndexedParallelIterator::with_max_len`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct MaxLen<I> {
    base: I,
    max: usize,
}

impl<I> MinLen<I> {
    pub(in crate::iter) fn new(base: I, min: usize) -> Self {
        MinLen { base, min }
    }
}

impl<I> MaxLen<I> {
    pub(in crate::iter) fn new(base: I, max: usize) -> Self {
        MaxLen {
            base,
            max: max.max(1),
        }
    }
}

/// Which bound a [`BoundedProducer`] applies.
#[derive(Debug, Clone, Copy)]
enum Bound {
    Min(usize),
    Max(usize),
}

macro_rules! bounded_iter {
    ($ty:ident, $field:ident, $variant:ident) => {
        impl<I: IndexedParallelIterator> ParallelIterator for $ty<I> {
            type Item = I::Item;

            fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
                drive_unindexed_lazily(self, consumer)
            }

            fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
                bridge_lazy(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.base.len())
            }
        }

        impl<I: IndexedParallelIterator> IndexedParallelIterator for $ty<I> {
            fn len(&self) -> usize {
                self.base.len()
            }

            fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
                self.base.with_producer(BoundCallback {
                    callback,
                    bound: Bound::$variant(self.$field),
                })
            }
        }
    };
}

bounded_iter!(MinLen, min, Min);
bounded_iter!(MaxLen, max, Max);

struct BoundCallback<CB> {
    callback: CB,
    bound: Bound,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for BoundCallback<CB> {
    type Output = CB::Output;
    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(BoundedProducer {
            base,
            bound: self.bound,
        })
    }
}

/// Producer that tightens its base's `min_len` or `max_len`.
#[derive(Debug)]
pub(crate) struct BoundedProducer<P> {
    base: P,
    bound: Bound,
}

impl<P: Producer> Producer for BoundedProducer<P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let bound = self.bound;
        (
            BoundedProducer { base: left, bound },
            BoundedProducer { base: right, bound },
        )
    }
    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }
    fn min_len(&self) -> usize {
        match self.bound {
            Bound::Min(min) => self.base.min_len().max(min),
            Bound::Max(_) => self.base.min_len(),
        }
    }
    fn max_len(&self) -> usize {
        match self.bound {
            Bound::Min(_) => self.base.max_len(),
            Bound::Max(max) => self.base.max_len().min(max),
        }
    }
}
