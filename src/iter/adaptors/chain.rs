//! `chain`: the items of one parallel iterator, then those of another. Indexed if both are.
//!
//! Unindexed, the consumer is split in two (at the first iterator's length when it is known) and
//! both iterators are driven at once with `join`, the second one offered to another thread.
//! Indexed, one producer holds both producers and cuts the one the index falls in.

use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback, Reducer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`ParallelIterator::chain`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Chain<A, B> {
    a: A,
    b: B,
}

impl<A, B> Chain<A, B> {
    pub(in crate::iter) fn new(a: A, b: B) -> Self {
        Chain { a, b }
    }
}

impl<A, B> ParallelIterator for Chain<A, B>
where
    A: ParallelIterator,
    B: ParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<A::Item>>(self, consumer: C) -> C::Result {
        // An exact split where the first length is known (an indexed `collect` writes by
        // position); otherwise the consumers of unindexed streams ignore `keep`.
        let keep = self.a.opt_len().unwrap_or(0);
        let (left, right, reducer) = consumer.split_off(keep);
        let Chain { a, b } = self;
        let (ra, rb) = crate::join(|| a.drive_lazy(left), || b.drive_lazy(right));
        reducer.reduce(ra, rb)
    }

    fn opt_len(&self) -> Option<usize> {
        self.a.opt_len()?.checked_add(self.b.opt_len()?)
    }
}

impl<A, B> IndexedParallelIterator for Chain<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    /// # Panics
    /// If the total length overflows `usize`.
    fn len(&self) -> usize {
        self.a
            .len()
            .checked_add(self.b.len())
            .expect("chain: the total length overflows usize")
    }

    fn with_producer<CB: ProducerCallback<A::Item>>(self, callback: CB) -> CB::Output {
        let a_len = self.a.len();
        return self.a.with_producer(CallbackA {
            callback,
            b: self.b,
            a_len,
        });

        struct CallbackA<CB, B> {
            callback: CB,
            b: B,
            a_len: usize,
        }

        impl<T, CB, B> ProducerCallback<T> for CallbackA<CB, B>
        where
            CB: ProducerCallback<T>,
            B: IndexedParallelIterator<Item = T>,
        {
            type Output = CB::Output;
            fn callback<PA: Producer<Item = T>>(self, a: PA) -> CB::Output {
                self.b.with_producer(CallbackB {
                    callback: self.callback,
                    a,
                    a_len: self.a_len,
                })
            }
        }

        struct CallbackB<CB, PA> {
            callback: CB,
            a: PA,
            a_len: usize,
        }

        impl<T, CB, PA> ProducerCallback<T> for CallbackB<CB, PA>
        where
            CB: ProducerCallback<T>,
            PA: Producer<Item = T>,
        {
            type Output = CB::Output;
            fn callback<PB: Producer<Item = T>>(self, b: PB) -> CB::Output {
                self.callback.callback(ChainProducer {
                    a: self.a,
                    b,
                    a_len: self.a_len,
                })
            }
        }
    }
}

/// Producer of an indexed [`Chain`]: the positions of `a`, then those of `b`.
struct ChainProducer<PA, PB> {
    a: PA,
    b: PB,
    /// The length of `a`.
    a_len: usize,
}

impl<PA, PB> Producer for ChainProducer<PA, PB>
where
    PA: Producer,
    PB: Producer<Item = PA::Item>,
{
    type Item = PA::Item;
    type IntoIter = ChainSeq<PA::IntoIter, PB::IntoIter>;

    fn split_at(self, index: usize) -> (Self, Self) {
        let a_len = self.a_len;
        if index <= a_len {
            let (a_left, a_right) = self.a.split_at(index);
            let (b_left, b_right) = self.b.split_at(0);
            (
                ChainProducer {
                    a: a_left,
                    b: b_left,
                    a_len: index,
                },
                ChainProducer {
                    a: a_right,
                    b: b_right,
                    a_len: a_len - index,
                },
            )
        } else {
            let (a_left, a_right) = self.a.split_at(a_len);
            let (b_left, b_right) = self.b.split_at(index - a_len);
            (
                ChainProducer {
                    a: a_left,
                    b: b_left,
                    a_len,
                },
                ChainProducer {
                    a: a_right,
                    b: b_right,
                    a_len: 0,
                },
            )
        }
    }

    fn into_iter(self) -> Self::IntoIter {
        ChainSeq {
            chain: self.a.into_iter().chain(self.b.into_iter()),
        }
    }

    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }

    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }
}

/// std's `Chain`, which also knows its exact length when both halves do (std's does not
/// implement `ExactSizeIterator`, as the sum could overflow; a producer's cannot).
struct ChainSeq<A, B> {
    chain: std::iter::Chain<A, B>,
}

impl<A, B> Iterator for ChainSeq<A, B>
where
    A: Iterator,
    B: Iterator<Item = A::Item>,
{
    type Item = A::Item;

    #[inline]
    fn next(&mut self) -> Option<A::Item> {
        self.chain.next()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chain.size_hint()
    }
    fn fold<Acc, F: FnMut(Acc, A::Item) -> Acc>(self, init: Acc, f: F) -> Acc {
        self.chain.fold(init, f)
    }
}

impl<A, B> DoubleEndedIterator for ChainSeq<A, B>
where
    A: DoubleEndedIterator,
    B: DoubleEndedIterator<Item = A::Item>,
{
    #[inline]
    fn next_back(&mut self) -> Option<A::Item> {
        self.chain.next_back()
    }
    fn rfold<Acc, F: FnMut(Acc, A::Item) -> Acc>(self, init: Acc, f: F) -> Acc {
        self.chain.rfold(init, f)
    }
}

impl<A, B> ExactSizeIterator for ChainSeq<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
}
