//! `zip`: iterates two indexed iterators in lockstep.

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`IndexedParallelIterator::zip`]; as long as the shorter input.
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Zip<A, B> {
    a: A,
    b: B,
}

impl<A, B> Zip<A, B> {
    pub(in crate::iter) fn new(a: A, b: B) -> Self {
        Zip { a, b }
    }
}

impl<A, B> ParallelIterator for Zip<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    type Item = (A::Item, B::Item);

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A, B> IndexedParallelIterator for Zip<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    fn len(&self) -> usize {
        self.a.len().min(self.b.len())
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let len = self.len();
        return self.a.with_producer(CallbackA {
            callback,
            b: self.b,
            len,
        });

        struct CallbackA<CB, B> {
            callback: CB,
            b: B,
            /// The common length.
            len: usize,
        }

        impl<CB, ItemA, B> ProducerCallback<ItemA> for CallbackA<CB, B>
        where
            B: IndexedParallelIterator,
            CB: ProducerCallback<(ItemA, B::Item)>,
        {
            type Output = CB::Output;
            fn callback<PA: Producer<Item = ItemA>>(self, a: PA) -> CB::Output {
                self.b.with_producer(CallbackB {
                    callback: self.callback,
                    a,
                    len: self.len,
                })
            }
        }

        struct CallbackB<CB, PA> {
            callback: CB,
            a: PA,
            len: usize,
        }

        impl<CB, PA, ItemB> ProducerCallback<ItemB> for CallbackB<CB, PA>
        where
            PA: Producer,
            CB: ProducerCallback<(PA::Item, ItemB)>,
        {
            type Output = CB::Output;
            fn callback<PB: Producer<Item = ItemB>>(self, b: PB) -> CB::Output {
                // Trim both to the common length so positions mean the same thing on both sides.
                let len = self.len;
                let (a, _) = self.a.split_at(len);
                let (b, _) = b.split_at(len);
                self.callback.callback(ZipProducer { a, b })
            }
        }
    }
}

/// Producer of [`Zip`]: two producers of equal length, split at the same positions.
#[derive(Debug)]
pub(crate) struct ZipProducer<PA, PB> {
    a: PA,
    b: PB,
}

impl<PA: Producer, PB: Producer> Producer for ZipProducer<PA, PB> {
    type Item = (PA::Item, PB::Item);
    type IntoIter = std::iter::Zip<PA::IntoIter, PB::IntoIter>;

    fn split_at(self, index: usize) -> (Self, Self) {
        let (a_left, a_right) = self.a.split_at(index);
        let (b_left, b_right) = self.b.split_at(index);
        (
            ZipProducer {
                a: a_left,
                b: b_left,
            },
            ZipProducer {
                a: a_right,
                b: b_right,
            },
        )
    }
    fn into_iter(self) -> Self::IntoIter {
        self.a.into_iter().zip(self.b.into_iter())
    }
    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }
    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }
}
