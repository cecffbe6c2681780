//! `map`: applies a function to every item.

use crate::iter::adaptors::debug_impl::debug_skipping_closures;
use crate::iter::adaptors::item_wise::op_consumer::{MapOp, OpConsumer};
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`ParallelIterator::map`].
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Map<I, F> {
    base: I,
    map_op: F,
}

debug_skipping_closures!(Map<I, F> { base: I });

impl<I, F> Map<I, F> {
    pub(in crate::iter) fn new(base: I, map_op: F) -> Self {
        Map { base, map_op }
    }
}

impl<I, F, R> ParallelIterator for Map<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<R>>(self, consumer: C) -> C::Result {
        let op = MapOp(&self.map_op);
        self.base.drive_lazy(OpConsumer::new(consumer, op))
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, F, R> IndexedParallelIterator for Map<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        return self.base.with_producer(Callback {
            callback,
            map_op: self.map_op,
        });

        struct Callback<CB, F> {
            callback: CB,
            map_op: F,
        }

        impl<T, R, CB, F> ProducerCallback<T> for Callback<CB, F>
        where
            CB: ProducerCallback<R>,
            F: Fn(T) -> R + Sync,
        {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(MapProducer {
                    base,
                    map_op: &self.map_op,
                })
            }
        }
    }
}

/// Producer of a [`Map`] over an indexed iterator.
#[derive(Debug)]
pub(crate) struct MapProducer<'f, P, F> {
    base: P,
    map_op: &'f F,
}

impl<'f, P, F, R> Producer for MapProducer<'f, P, F>
where
    P: Producer,
    F: Fn(P::Item) -> R + Sync,
{
    type Item = R;
    type IntoIter = std::iter::Map<P::IntoIter, &'f F>;

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let map_op = self.map_op;
        (
            MapProducer { base: left, map_op },
            MapProducer {
                base: right,
                map_op,
            },
        )
    }
    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().map(self.map_op)
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
}
