//! `par_drain()` on the collections that cannot drain a range ([`ParallelDrainFull`]): a
//! `BinaryHeap` (its backing vector, drained in place, indexed) and the hash maps and sets (the
//! items moved out into a `Vec` by one thread first, as in rayon). Each keeps its capacity.

use std::collections::{BinaryHeap, HashMap, HashSet};
use std::marker::PhantomData;

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, ProducerCallback};
use crate::iter::sources::vec::VecIntoIter;
use crate::iter::{
    IndexedParallelIterator, IntoParallelIterator, ParallelDrainRange, ParallelIterator,
};

/// `par_drain()`: moves every item out of a collection and iterates over them in parallel,
/// keeping the collection's capacity, as rayon's `ParallelDrainFull`. The collection is empty
/// afterwards, even if the iterator is dropped unused. (Collections that can drain a range
/// implement [`ParallelDrainRange`] instead: `par_drain(..)` drains them fully.)
///
/// ```
/// use forkjoin::prelude::*;
/// use std::collections::{BinaryHeap, HashMap};
/// let mut heap: BinaryHeap<u32> = (1..=10).collect();
/// assert_eq!(heap.par_drain().sum::<u32>(), 55);
/// assert!(heap.is_empty());
/// let mut map: HashMap<u32, char> = [(1, 'a'), (2, 'b')].into_iter().collect();
/// let mut keys: Vec<u32> = map.par_drain().map(|(k, _)| k).collect();
/// keys.sort();
/// assert_eq!((keys, map.len()), (vec![1, 2], 0));
/// ```
pub trait ParallelDrainFull {
    /// The parallel iterator over the drained items.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The drained items.
    type Item: Send;

    /// Moves every item out of the collection and iterates over them in parallel.
    fn par_drain(self) -> Self::Iter;
}

/// Parallel iterator over the items moved out of a `BinaryHeap` by
/// [`ParallelDrainFull::par_drain`], in the heap's internal order (not sorted); indexed.
#[derive(Debug)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed (the heap is emptied anyway)"]
pub struct HeapDrain<'a, T: Ord> {
    heap: &'a mut BinaryHeap<T>,
}

impl<'a, T: Ord + Send> ParallelDrainFull for &'a mut BinaryHeap<T> {
    type Iter = HeapDrain<'a, T>;
    type Item = T;
    fn par_drain(self) -> HeapDrain<'a, T> {
        HeapDrain { heap: self }
    }
}

impl<T: Ord + Send> ParallelIterator for HeapDrain<'_, T> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<T: Ord + Send> IndexedParallelIterator for HeapDrain<'_, T> {
    fn len(&self) -> usize {
        self.heap.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        // The backing vector drains like any `Vec` (which keeps the items exactly-once safe on a
        // panic); the empty vector, with its capacity, becomes the heap again.
        let mut vec = std::mem::take(&mut *self.heap).into_vec();
        let output = vec.par_drain(..).with_producer(callback);
        *self.heap = BinaryHeap::from(vec);
        output
    }
}

impl<T: Ord> Drop for HeapDrain<'_, T> {
    fn drop(&mut self) {
        // Not iterated: remove the items anyway, as std's `drain` does.
        self.heap.clear();
    }
}

/// Parallel iterator over the items moved out of a `HashMap` (as `(K, V)` pairs) or a `HashSet`
/// by [`ParallelDrainFull::par_drain`], in the collection's iteration order. The items are moved
/// into a `Vec` first, by one thread.
#[derive(Debug)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed (the collection is emptied anyway)"]
pub struct HashDrain<'a, T> {
    items: VecIntoIter<T>,
    /// Borrows the collection, as rayon's `Drain` does, though the items have left it already.
    marker: PhantomData<&'a mut T>,
}

impl<T: Send> HashDrain<'_, T> {
    fn new(items: impl Iterator<Item = T>) -> Self {
        HashDrain {
            items: items.collect::<Vec<T>>().into_par_iter(),
            marker: PhantomData,
        }
    }
}

impl<'a, K: Send, V: Send, S> ParallelDrainFull for &'a mut HashMap<K, V, S> {
    type Iter = HashDrain<'a, (K, V)>;
    type Item = (K, V);
    fn par_drain(self) -> HashDrain<'a, (K, V)> {
        HashDrain::new(self.drain())
    }
}

impl<'a, T: Send, S> ParallelDrainFull for &'a mut HashSet<T, S> {
    type Iter = HashDrain<'a, T>;
    type Item = T;
    fn par_drain(self) -> HashDrain<'a, T> {
        HashDrain::new(self.drain())
    }
}

impl<T: Send> ParallelIterator for HashDrain<'_, T> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<T>>(self, consumer: C) -> C::Result {
        self.items.drive_lazy(consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        self.items.opt_len()
    }
}
