//! `cloned`: turns `&T` items into `T` items (`Clone`).

use super::plumbing::{Consumer, Producer, ProducerCallback};
use super::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`ParallelIterator::cloned`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Cloned<I> {
    base: I,
}

impl<I> Cloned<I> {
    pub(super) fn new(base: I) -> Self {
        Cloned { base }
    }
}

impl<'a, T, I> ParallelIterator for Cloned<I>
where
    I: ParallelIterator<Item = &'a T>,
    T: 'a + Clone + Send + Sync,
{
    type Item = T;

    fn drive_unindexed<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(ClonedConsumer { base: consumer })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<'a, T, I> IndexedParallelIterator for Cloned<I>
where
    I: IndexedParallelIterator<Item = &'a T>,
    T: 'a + Clone + Send + Sync,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        return self.base.with_producer(Callback { callback });

        struct Callback<CB> {
            callback: CB,
        }

        impl<'a, T, CB> ProducerCallback<&'a T> for Callback<CB>
        where
            CB: ProducerCallback<T>,
            T: 'a + Clone + Send + Sync,
        {
            type Output = CB::Output;
            fn callback<P: Producer<Item = &'a T>>(self, base: P) -> CB::Output {
                self.callback.callback(ClonedProducer { base })
            }
        }
    }
}

/// Producer of a [`Cloned`] over an indexed iterator.
#[derive(Debug)]
pub struct ClonedProducer<P> {
    base: P,
}

impl<'a, T, P> Producer for ClonedProducer<P>
where
    P: Producer<Item = &'a T>,
    T: 'a + Clone,
{
    type Item = T;
    type IntoIter = std::iter::Cloned<P::IntoIter>;

    fn len(&self) -> usize {
        self.base.len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        (
            ClonedProducer { base: left },
            ClonedProducer { base: right },
        )
    }
    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().cloned()
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
}

/// Consumer that clones referenced items before passing them on.
#[derive(Debug)]
pub struct ClonedConsumer<C> {
    base: C,
}

impl<'a, T, C> Consumer<&'a T> for ClonedConsumer<C>
where
    C: Consumer<T>,
    T: 'a + Clone,
{
    type Result = C::Result;
    type Reducer = C::Reducer;

    fn consume_iter<I: Iterator<Item = &'a T>>(self, iter: I) -> Self {
        ClonedConsumer {
            base: self.base.consume_iter(iter.cloned()),
        }
    }
    fn split_off(self, keep: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_off(keep);
        (
            ClonedConsumer { base: left },
            ClonedConsumer { base: right },
            reducer,
        )
    }
    fn complete(self) -> C::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}
