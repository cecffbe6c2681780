//! `zip_eq`: `zip` of two indexed iterators that must have the same length.

use crate::iter::adaptors::zips::zip::Zip;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`IndexedParallelIterator::zip_eq`]: a [`Zip`] of two iterators of
/// equal length.
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct ZipEq<A, B> {
    zip: Zip<A, B>,
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> ZipEq<A, B> {
    pub(in crate::iter) fn new(a: A, b: B) -> Self {
        assert_eq!(a.len(), b.len(), "iterators must have the same length");
        ZipEq { zip: a.zip(b) }
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> ParallelIterator for ZipEq<A, B> {
    type Item = (A::Item, B::Item);

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.zip.drive_lazy(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.zip.opt_len()
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> IndexedParallelIterator
    for ZipEq<A, B>
{
    fn len(&self) -> usize {
        self.zip.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.zip.with_producer(callback)
    }
}
