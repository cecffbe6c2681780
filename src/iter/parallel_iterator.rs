//! The [`ParallelIterator`] trait: adaptors and consumers available on every parallel iterator.

use std::iter::{Product, Sum};

use crate::iter::adaptors::chain::Chain;
use crate::iter::adaptors::flat_map::{FlatMap, Flatten};
use crate::iter::adaptors::flat_map_iter::{FlatMapIter, FlattenIter};
use crate::iter::adaptors::folds::fold::Fold;
use crate::iter::adaptors::folds::fold_with::FoldWith;
use crate::iter::adaptors::folds::try_fold::{TryFold, TryFoldWith};
use crate::iter::adaptors::intersperse::Intersperse;
use crate::iter::adaptors::item_wise::filter::Filter;
use crate::iter::adaptors::item_wise::filter_map::FilterMap;
use crate::iter::adaptors::item_wise::from_ref::{Cloned, Copied};
use crate::iter::adaptors::item_wise::inspect::{Inspect, Update};
use crate::iter::adaptors::item_wise::map::Map;
use crate::iter::adaptors::item_wise::map_with::{MapInit, MapWith};
use crate::iter::adaptors::panic_fuse::PanicFuse;
use crate::iter::adaptors::skip_any::{SkipAny, SkipAnyWhile};
use crate::iter::adaptors::take_any::{TakeAny, TakeAnyWhile};
use crate::iter::adaptors::while_some::WhileSome;
use crate::iter::consumers::collect::{FromParallelIterator, ListVecConsumer};
use crate::iter::consumers::find::{AnyConsumer, FindAnyConsumer};
use crate::iter::consumers::find_first_last::{self, Direction};
use crate::iter::consumers::for_each::ForEachConsumer;
use crate::iter::consumers::reduce::ReduceConsumer;
use crate::iter::consumers::sum::{ProductConsumer, SumConsumer};
use crate::iter::consumers::try_op::{collect_until_failure, Try};
use crate::iter::consumers::unzip::{partition_into, unzip_into};
use crate::iter::plumbing::{AsConsumer, LazyConsumer, UnindexedConsumer};
use crate::iter::{Either, IntoParallelIterator, ParallelExtend};
use crate::platform::sync::AtomicBool;

/// A parallel version of [`Iterator`]: items are produced and consumed on the pool's threads.
///
/// Names and closure signatures follow rayon's, so code ports by renaming the crate. Closures must be
/// `Fn + Sync + Send` because several threads call them at once. Reductions (`reduce`, `sum`, `collect`,
/// `min`, ...) combine partial results in the sequential order, so an associative operation gives the
/// same answer as the sequential loop even if it is not commutative.
///
/// ```
/// use forkjoin::prelude::*;
/// let squares: u64 = (1..=100u64).into_par_iter().map(|x| x * x).sum();
/// assert_eq!(squares, 338_350);
/// ```
pub trait ParallelIterator: Sized + Send {
    /// The type of item this iterator produces.
    type Item: Send;

    /// Drives every item into `consumer`: rayon's plumbing, and the one method every implementation
    /// writes (indexed iterators feed items in position order). An iterator written for rayon
    /// implements it as rayon teaches, usually with [`bridge`](fn@crate::iter::plumbing::bridge)
    /// or [`bridge_unindexed`](crate::iter::plumbing::bridge_unindexed).
    ///
    /// It has no default, as in rayon, so an implementation that forgets it does not compile:
    ///
    /// ```compile_fail,E0046
    /// use forkjoin::iter::ParallelIterator;
    ///
    /// struct Nothing;
    ///
    /// impl ParallelIterator for Nothing {
    ///     type Item = u8;
    /// }
    /// ```
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>;

    /// forkjoin's extension point, iterator side: drives every item into a
    /// [`LazyConsumer`], the consumer protocol that can split
    /// a running loop after a prefix (see [`plumbing`](crate::iter::plumbing), "forkjoin's
    /// extension point").
    ///
    /// The default goes through [`drive_unindexed`](Self::drive_unindexed) and is always correct:
    /// an iterator written for rayon never needs to override it. forkjoin's own iterators
    /// override it to hand their consumer down with no adapter between.
    fn drive_lazy<C: LazyConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.drive_unindexed(AsConsumer::new(consumer))
    }

    /// The exact number of items if known (indexed iterators), which lets `collect` write
    /// straight into the destination; `None`, the default, is always correct (rayon's `opt_len`).
    fn opt_len(&self) -> Option<usize> {
        None
    }

    /// Calls `op` on every item.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let total = AtomicUsize::new(0);
    /// (0..10usize).into_par_iter().for_each(|i| { total.fetch_add(i, Ordering::Relaxed); });
    /// assert_eq!(total.into_inner(), 45);
    /// ```
    fn for_each<OP>(self, op: OP)
    where
        OP: Fn(Self::Item) + Sync + Send,
    {
        self.drive_lazy(ForEachConsumer { op: &op })
    }

    /// Calls the fallible `op` on every item and stops early, on all threads, once a call fails:
    /// `op` returns `Result<(), E>` or `Option<()>` (the sealed `Try` trait). Returns the success value if every
    /// call succeeded, otherwise a failure.
    ///
    /// If several calls fail, which failure is returned is unspecified (as in rayon): it is the
    /// first one any thread met, not necessarily the one at the lowest position. Soon after a
    /// failure every thread stops calling `op` (each checks a shared flag before every item); calls
    /// already running finish.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let r = (0..1000u32)
    ///     .into_par_iter()
    ///     .try_for_each(|x| if x == 500 { Err(x) } else { Ok(()) });
    /// assert_eq!(r, Err(500));
    /// assert_eq!((0..10u32).into_par_iter().try_for_each(|x| (x < 10).then_some(())), Some(()));
    /// ```
    fn try_for_each<OP, R>(self, op: OP) -> R
    where
        OP: Fn(Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        match collect_until_failure(self, |item| op(item).into_output()) {
            Ok(()) => R::from_output(()),
            Err(failure) => failure,
        }
    }

    /// [`try_for_each`](Self::try_for_each) with a mutable state: each piece gets a clone of
    /// `init` (as [`map_with`](Self::map_with) does).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let r: Result<(), u32> = (0..100u32)
    ///     .into_par_iter()
    ///     .try_for_each_with(7u32, |seven, x| if x == *seven { Err(x) } else { Ok(()) });
    /// assert_eq!(r, Err(7));
    /// ```
    fn try_for_each_with<OP, T, R>(self, init: T, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Try<Output = ()> + Send,
    {
        self.map_with(init, op).try_for_each(|r| r)
    }

    /// [`try_for_each`](Self::try_for_each) with a mutable state: each piece makes its own with
    /// `init` (as [`map_init`](Self::map_init) does).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let r: Option<()> = (0..100u32)
    ///     .into_par_iter()
    ///     .try_for_each_init(Vec::new, |seen, x| { seen.push(x); (x < 100).then_some(()) });
    /// assert_eq!(r, Some(()));
    /// ```
    fn try_for_each_init<OP, INIT, T, R>(self, init: INIT, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map_init(init, op).try_for_each(|r| r)
    }

    /// [`reduce`](Self::reduce) of fallible items (`Result` or `Option`): the combination of the
    /// successes with `op`, or a failure if any item or any call of `op` failed (which failure is
    /// unspecified, as in rayon). A piece stops folding at its first failure.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let sum: Option<u32> = (1..=100u32).into_par_iter().map(Some).try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(sum, Some(5050));
    /// let bad: Result<u32, String> = ["1", "x", "3"]
    ///     .par_iter()
    ///     .map(|s| s.parse::<u32>().map_err(|e| e.to_string()))
    ///     .try_reduce(|| 0, |a, b| Ok(a + b));
    /// assert!(bad.is_err());
    /// ```
    fn try_reduce<T, OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        self.try_fold(&identity, |acc, item| match item.into_output() {
            Ok(x) => op(acc, x),
            Err(failure) => failure,
        })
        .reduce(
            || Self::Item::from_output(identity()),
            |a, b| combine_tries(a, b, &op),
        )
    }

    /// [`reduce_with`](Self::reduce_with) of fallible items: `None` for no items, else the
    /// combination of the successes with `op`, or a failure if any item or call of `op` failed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let max: Option<Result<u32, ()>> = [3u32, 9, 4].par_iter().map(|&x| Ok(x)).try_reduce_with(|a, b| Ok(a.max(b)));
    /// assert_eq!(max, Some(Ok(9)));
    /// ```
    fn try_reduce_with<T, OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        self.reduce_with(|a, b| combine_tries(a, b, &op))
    }

    /// Collects the items into a list of `Vec`s, one per piece the work was split into, in
    /// order: the cheapest way to gather an unindexed iterator's items.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let list = (0..1000u32).into_par_iter().filter(|x| x % 3 == 0).collect_vec_list();
    /// let all: Vec<u32> = list.into_iter().flatten().collect();
    /// assert_eq!(all, (0..1000).filter(|x| x % 3 == 0).collect::<Vec<u32>>());
    /// ```
    fn collect_vec_list(self) -> std::collections::LinkedList<Vec<Self::Item>> {
        if self.opt_len().is_some() {
            // Known length: one `Vec`, written in place, as rayon gives (and as a map's
            // `par_extend` wants: it reserves per piece).
            let all: Vec<Self::Item> = self.collect();
            return (!all.is_empty()).then_some(all).into_iter().collect();
        }
        self.drive_lazy(ListVecConsumer::new())
            .into_iter()
            .collect()
    }

    /// Applies `map_op` to every item. Keeps the iterator indexed if it was.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<i32> = [1, 2, 3].par_iter().map(|x| x * 10).collect();
    /// assert_eq!(v, [10, 20, 30]);
    /// ```
    fn map<F, R>(self, map_op: F) -> Map<Self, F>
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Send,
    {
        Map::new(self, map_op)
    }

    /// Calls `inspect_op` on a reference to every item as it passes through; the items go on
    /// unchanged. Keeps the iterator indexed if it was.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let seen = AtomicUsize::new(0);
    /// let v: Vec<u32> = (0..5u32)
    ///     .into_par_iter()
    ///     .inspect(|_| { seen.fetch_add(1, Ordering::Relaxed); })
    ///     .map(|x| x * 2)
    ///     .collect();
    /// assert_eq!(v, [0, 2, 4, 6, 8]);
    /// assert_eq!(seen.into_inner(), 5);
    /// ```
    fn inspect<OP>(self, inspect_op: OP) -> Inspect<Self, OP>
    where
        OP: Fn(&Self::Item) + Sync + Send,
    {
        Inspect::new(self, inspect_op)
    }

    /// Changes every item in place with `update_op` (which gets `&mut` to it) as it passes
    /// through. Keeps the iterator indexed if it was.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<Vec<u8>> = vec![vec![2, 1], vec![4, 3]]
    ///     .into_par_iter()
    ///     .update(|v| v.sort())
    ///     .collect();
    /// assert_eq!(v, [[1, 2], [3, 4]]);
    /// ```
    fn update<F>(self, update_op: F) -> Update<Self, F>
    where
        F: Fn(&mut Self::Item) + Sync + Send,
    {
        Update::new(self, update_op)
    }

    /// Like [`for_each`](Self::for_each), with a mutable state per piece of the input: every piece
    /// starts from its own clone of `init`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::sync::mpsc::channel;
    /// let (sender, receiver) = channel();
    /// (0..5u32).into_par_iter().for_each_with(sender, |s, x| s.send(x).unwrap());
    /// let mut got: Vec<u32> = receiver.iter().collect();
    /// got.sort();
    /// assert_eq!(got, [0, 1, 2, 3, 4]);
    /// ```
    fn for_each_with<OP, T>(self, init: T, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        T: Send + Clone,
    {
        self.map_with(init, op).for_each(|()| {})
    }

    /// Like [`for_each`](Self::for_each), with a mutable state per piece of the input made by
    /// `init()`. `init` is called once per piece that receives items, so possibly several times per
    /// thread, and not at all on an empty input. The state need not be `Send`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut out = vec![0u64; 1000];
    /// out.par_iter_mut().enumerate().for_each_init(
    ///     || Vec::with_capacity(16), // a scratch buffer, allocated once per piece
    ///     |buf, (i, x)| {
    ///         buf.clear();
    ///         buf.extend((0..=i as u64).rev().take(3));
    ///         *x = buf.iter().sum();
    ///     },
    /// );
    /// assert_eq!(out[10], 10 + 9 + 8);
    /// ```
    fn for_each_init<OP, INIT, T>(self, init: INIT, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
    {
        self.map_init(init, op).for_each(|()| {})
    }

    /// Applies `map_op` to every item together with a mutable state per piece of the input: every
    /// piece starts from its own clone of `init` (a split-off piece clones the original value, not a
    /// state that already saw items).
    ///
    /// As in rayon, the result is indexed when `self` is (it can be `zip`ped or `enumerate`d).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::sync::mpsc::channel;
    /// let (sender, receiver) = channel();
    /// let doubled: Vec<u32> = (0..5u32)
    ///     .into_par_iter()
    ///     .map_with(sender, |s, x| {
    ///         s.send(x).unwrap();
    ///         x * 2
    ///     })
    ///     .collect();
    /// assert_eq!(doubled, [0, 2, 4, 6, 8]);
    /// assert_eq!(receiver.iter().count(), 5);
    /// ```
    fn map_with<F, T, R>(self, init: T, map_op: F) -> MapWith<Self, T, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Send,
    {
        MapWith::new(self, init, map_op)
    }

    /// Applies `map_op` to every item together with a mutable state per piece of the input made by
    /// `init()` — for states that are expensive to make or cannot be cloned or sent (a random number
    /// generator, a scratch buffer). `init` is called once per piece that receives items, so possibly
    /// several times per thread, and not at all on an empty input.
    ///
    /// As in rayon, the result is indexed when `self` is.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let words = ["fork", "join", "steal"];
    /// let upper: Vec<String> = words
    ///     .par_iter()
    ///     .map_init(String::new, |buf, w| {
    ///         buf.clear();
    ///         buf.push_str(w);
    ///         buf.make_ascii_uppercase();
    ///         buf.clone()
    ///     })
    ///     .collect();
    /// assert_eq!(upper, ["FORK", "JOIN", "STEAL"]);
    /// ```
    fn map_init<F, INIT, T, R>(self, init: INIT, map_op: F) -> MapInit<Self, INIT, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Send,
    {
        MapInit::new(self, init, map_op)
    }

    /// Keeps the items for which `filter_op` returns `true`. The result is not indexed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let evens: Vec<u32> = (0..10u32).into_par_iter().filter(|x| x % 2 == 0).collect();
    /// assert_eq!(evens, [0, 2, 4, 6, 8]);
    /// ```
    fn filter<P>(self, filter_op: P) -> Filter<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Filter::new(self, filter_op)
    }

    /// Maps every item to an `Option` and keeps the `Some` values. The result is not indexed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let parsed: Vec<i32> = ["1", "x", "3"].par_iter().filter_map(|s| s.parse().ok()).collect();
    /// assert_eq!(parsed, [1, 3]);
    /// ```
    fn filter_map<P, R>(self, filter_op: P) -> FilterMap<Self, P>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        FilterMap::new(self, filter_op)
    }

    /// Maps every item to a parallel iterator (anything [`IntoParallelIterator`]) and yields the
    /// items of all of them, in order. The outer items are split between threads, and so is each
    /// inner iterator: a few long inner iterators still keep every thread busy. The result is not
    /// indexed. For short inner sequences, [`flat_map_iter`](Self::flat_map_iter) with a
    /// sequential iterator costs less.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (1..4u32)
    ///     .into_par_iter()
    ///     .flat_map(|n| (0..n).into_par_iter().map(move |i| n * 10 + i))
    ///     .collect();
    /// assert_eq!(v, [10, 20, 21, 30, 31, 32]);
    /// ```
    fn flat_map<F, PI>(self, map_op: F) -> FlatMap<Self, F>
    where
        F: Fn(Self::Item) -> PI + Sync + Send,
        PI: IntoParallelIterator,
    {
        FlatMap::new(self, map_op)
    }

    /// Yields the items of every item (each an [`IntoParallelIterator`], itself iterated in
    /// parallel), in order. The result is not indexed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let nested = vec![vec![1, 2], vec![], vec![3]];
    /// let flat: Vec<i32> = nested.into_par_iter().flatten().collect();
    /// assert_eq!(flat, [1, 2, 3]);
    /// ```
    fn flatten(self) -> Flatten<Self>
    where
        Self::Item: IntoParallelIterator,
    {
        Flatten::new(self)
    }

    /// Maps every item to a sequential iterator (anything [`IntoIterator`]) and yields the items of
    /// all of them, in order. The outer items are split between threads; each inner iterator runs on
    /// one thread. The result is not indexed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map_iter(|n| 0..n).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    fn flat_map_iter<F, SI>(self, map_op: F) -> FlatMapIter<Self, F>
    where
        F: Fn(Self::Item) -> SI + Sync + Send,
        SI: IntoIterator<Item: Send>,
    {
        FlatMapIter::new(self, map_op)
    }

    /// Yields the items of every item (each an [`IntoIterator`], iterated sequentially), in order.
    /// The result is not indexed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let nested = vec![vec![1, 2], vec![], vec![3]];
    /// let flat: Vec<i32> = nested.into_par_iter().flatten_iter().collect();
    /// assert_eq!(flat, [1, 2, 3]);
    /// ```
    fn flatten_iter(self) -> FlattenIter<Self>
    where
        Self::Item: IntoIterator<Item: Send>,
    {
        FlattenIter::new(self)
    }

    /// The items of `self`, then those of `chain`, like [`Iterator::chain`]. Indexed if both
    /// are. Both iterators run at once (the second one is offered to another thread).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (0..3u32).into_par_iter().chain(vec![7, 8]).collect();
    /// assert_eq!(v, [0, 1, 2, 7, 8]);
    /// let odd = (0..10u32).into_par_iter().filter(|x| x % 2 == 1);
    /// assert_eq!(odd.chain([100u32]).max(), Some(100));
    /// ```
    fn chain<C>(self, chain: C) -> Chain<Self, C::Iter>
    where
        C: IntoParallelIterator<Item = Self::Item>,
    {
        Chain::new(self, chain.into_par_iter())
    }

    /// Copies every referenced item (`&T` → `T`).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = vec![1u8, 2, 3];
    /// let w: Vec<u8> = v.par_iter().copied().collect();
    /// assert_eq!(v, w);
    /// ```
    fn copied<'a, T>(self) -> Copied<Self>
    where
        T: 'a + Copy + Send + Sync,
        Self: ParallelIterator<Item = &'a T>,
    {
        Copied::new(self)
    }

    /// Clones every referenced item (`&T` → `T`).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = vec![String::from("a"), String::from("b")];
    /// let w: Vec<String> = v.par_iter().cloned().collect();
    /// assert_eq!(v, w);
    /// ```
    fn cloned<'a, T>(self) -> Cloned<Self>
    where
        T: 'a + Clone + Send + Sync,
        Self: ParallelIterator<Item = &'a T>,
    {
        Cloned::new(self)
    }

    /// Reduces the items with `op`, starting every piece from `identity()`.
    ///
    /// `op` must be associative and `identity()` its neutral element; it need not be commutative
    /// (pieces are combined in order).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let words = ["fork", "-", "join"];
    /// let s = words.par_iter().map(|w| w.to_string()).reduce(String::new, |a, b| a + &b);
    /// assert_eq!(s, "fork-join");
    /// ```
    fn reduce<OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
        ID: Fn() -> Self::Item + Sync + Send,
    {
        self.drive_lazy(ReduceConsumer::new(&identity, &op))
    }

    /// Reduces the items with `op`, or returns `None` if there are none: like
    /// [`Iterator::reduce`], no identity element is needed.
    ///
    /// `op` must be associative; it need not be commutative (pieces are combined in order).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let longest = ["fork", "join", "steal"]
    ///     .par_iter()
    ///     .reduce_with(|a, b| if b.len() > a.len() { b } else { a });
    /// assert_eq!(longest, Some(&"steal"));
    /// assert_eq!((0..0u32).into_par_iter().reduce_with(|a, b| a + b), None);
    /// ```
    fn reduce_with<OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        // `None` is the identity: a piece without items contributes nothing.
        self.map(Some).reduce(
            || None,
            |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(op(a, b)),
                (a, None) => a,
                (None, b) => b,
            },
        )
    }

    /// Folds each piece of the input sequentially into an accumulator started by `identity()`; the
    /// result is a parallel iterator over the accumulators (one per piece, in order), usually followed
    /// by `reduce` or `sum`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let total = (0..1000u32)
    ///     .into_par_iter()
    ///     .fold(|| 0u64, |acc, x| acc + u64::from(x))
    ///     .reduce(|| 0, |a, b| a + b);
    /// assert_eq!(total, 499_500);
    /// ```
    fn fold<T, ID, F>(self, identity: ID, fold_op: F) -> Fold<Self, ID, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        T: Send,
    {
        Fold::new(self, identity, fold_op)
    }

    /// Like [`fold`](Self::fold), with every piece starting from a clone of `init` instead of a
    /// call of an identity function (`init` need only be `Clone + Send`, not `Sync`).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let total: u64 = (1..=100u32)
    ///     .into_par_iter()
    ///     .fold_with(0u64, |acc, x| acc + u64::from(x))
    ///     .sum();
    /// assert_eq!(total, 5050);
    /// ```
    fn fold_with<F, T>(self, init: T, fold_op: F) -> FoldWith<Self, T, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        T: Send + Clone,
    {
        FoldWith::new(self, init, fold_op)
    }

    /// Like [`fold`](Self::fold) with a fallible `fold_op` (returning `Result<T, E>` or
    /// `Option<T>`, the sealed `Try` trait): each piece folds from `identity()` until a call fails and then
    /// stops, yielding that failure; a piece without failure yields its accumulator as a success.
    /// A failure stops only its own piece. The result is not indexed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let pieces: Vec<Option<u32>> = (0..100u32)
    ///     .into_par_iter()
    ///     .try_fold(|| 0, |acc, x| (x != 50).then_some(acc + x))
    ///     .collect();
    /// assert_eq!(pieces.iter().filter(|p| p.is_none()).count(), 1); // the piece that met 50
    /// let totals: Result<Vec<u32>, String> = ["1", "2", "3"]
    ///     .par_iter()
    ///     .try_fold(|| 0u32, |acc, s| s.parse::<u32>().map(|x| acc + x).map_err(|e| e.to_string()))
    ///     .collect();
    /// assert_eq!(totals.unwrap().iter().sum::<u32>(), 6);
    /// ```
    fn try_fold<T, R, ID, F>(self, identity: ID, fold_op: F) -> TryFold<Self, R, ID, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        R: Try<Output = T> + Send,
    {
        TryFold::new(self, identity, fold_op)
    }

    /// Like [`try_fold`](Self::try_fold), with every piece starting from a clone of `init`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let pieces: Vec<Option<u32>> = (0..10u32)
    ///     .into_par_iter()
    ///     .try_fold_with(100u32, |acc, x| acc.checked_sub(x))
    ///     .collect();
    /// assert!(!pieces.is_empty() && pieces.iter().all(Option::is_some));
    /// ```
    fn try_fold_with<F, T, R>(self, init: T, fold_op: F) -> TryFoldWith<Self, R, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        R: Try<Output = T> + Send,
        T: Clone + Send,
    {
        TryFoldWith::new(self, init, fold_op)
    }

    /// Sums the items (`S::sum` of each piece, then of the partial sums).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((1..=10i64).into_par_iter().sum::<i64>(), 55);
    /// ```
    fn sum<S>(self) -> S
    where
        S: Send + Sum<Self::Item> + Sum<S>,
    {
        self.drive_lazy(SumConsumer::new::<Self::Item>())
    }

    /// Multiplies the items (`P::product` of each piece, then of the partial products).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((1..=5u32).into_par_iter().product::<u32>(), 120);
    /// ```
    fn product<P>(self) -> P
    where
        P: Send + Product<Self::Item> + Product<P>,
    {
        self.drive_lazy(ProductConsumer::new::<Self::Item>())
    }

    /// The smallest item, or `None` if empty. Among equal minima the first is returned, as in std.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!([3, 1, 2].par_iter().min(), Some(&1));
    /// ```
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        best(self, |a, b| b < a)
    }

    /// The largest item, or `None` if empty. Among equal maxima the last is returned, as in std.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!([3, 1, 2].par_iter().max(), Some(&3));
    /// ```
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        best(self, |a, b| b >= a)
    }

    /// The smallest item according to `compare`, or `None` if empty; the first among equals.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [2.5f64, -1.0, 7.0];
    /// assert_eq!(v.par_iter().min_by(|a, b| a.total_cmp(b)), Some(&-1.0));
    /// ```
    fn min_by<F>(self, compare: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> std::cmp::Ordering + Sync + Send,
    {
        best(self, |a, b| compare(b, a).is_lt())
    }

    /// The largest item according to `compare`, or `None` if empty; the last among equals.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [2.5f64, -1.0, 7.0];
    /// assert_eq!(v.par_iter().max_by(|a, b| a.total_cmp(b)), Some(&7.0));
    /// ```
    fn max_by<F>(self, compare: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> std::cmp::Ordering + Sync + Send,
    {
        best(self, |a, b| compare(b, a).is_ge())
    }

    /// The item with the smallest key (`f` is called once per item); the first among equals.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!(["ccc", "a", "bb"].par_iter().min_by_key(|s| s.len()), Some(&"a"));
    /// ```
    fn min_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        best(self.map(|x| (f(&x), x)), |a, b| b.0 < a.0).map(|(_, x)| x)
    }

    /// The item with the largest key (`f` is called once per item); the last among equals.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!(["ccc", "a", "bb"].par_iter().max_by_key(|s| s.len()), Some(&"ccc"));
    /// ```
    fn max_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        best(self.map(|x| (f(&x), x)), |a, b| b.0 >= a.0).map(|(_, x)| x)
    }

    /// Counts the items.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!((0..100u32).into_par_iter().filter(|x| x % 3 == 0).count(), 34);
    /// ```
    fn count(self) -> usize {
        self.map(|_| 1usize).sum()
    }

    /// True if `predicate` holds for some item. Stops early (on all threads) once one is found.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert!((0..1000u32).into_par_iter().any(|x| x == 999));
    /// ```
    fn any<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let found = AtomicBool::new(false);
        self.drive_lazy(AnyConsumer::new(&found, &predicate))
    }

    /// True if `predicate` holds for every item (vacuously true if empty). Stops early on a failure.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert!([2, 4, 6].par_iter().all(|x| x % 2 == 0));
    /// ```
    fn all<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        !self.any(|x| !predicate(x))
    }

    /// Some item for which `predicate` holds — not necessarily the first — or `None`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let hit = (0..1000u32).into_par_iter().find_any(|x| x % 100 == 42);
    /// assert!(matches!(hit, Some(x) if x % 100 == 42));
    /// ```
    fn find_any<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        let found = AtomicBool::new(false);
        self.drive_lazy(FindAnyConsumer::new(&found, &predicate))
    }

    /// Applies `predicate` to the items and returns some `Some` it gives — not necessarily the one
    /// of the first item — or `None`. Stops early (on all threads) once one is found, like
    /// [`find_any`](Self::find_any).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let words = ["fork", "17", "join", "42"];
    /// let n = words.par_iter().find_map_any(|w| w.parse::<u32>().ok());
    /// assert!(n == Some(17) || n == Some(42));
    /// assert_eq!(["a", "b"].par_iter().find_map_any(|w| w.parse::<u32>().ok()), None);
    /// ```
    fn find_map_any<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_any(|_| true)
    }

    /// The first item (in position order) for which `predicate` holds, or `None`: what
    /// [`Iterator::find`] returns.
    ///
    /// Pieces of the input after a match stop at their next batch (and pieces not started yet are
    /// skipped), while pieces before it are still searched, since they might hold an earlier
    /// match. So with a match near the start, `find_first` looks at little more than the items
    /// before it, even on an input of 10^27 items.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [1, 8, 3, 8, 5];
    /// assert_eq!(v.par_iter().find_first(|&&x| x > 2), Some(&8));
    /// assert_eq!(v.par_iter().find_first(|&&x| x > 9), None);
    /// let big = (0..1u128 << 100).into_par_iter().find_first(|x| x % 1000 == 999);
    /// assert_eq!(big, Some(999));
    /// ```
    fn find_first<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find_first_last::find(self, predicate, Direction::First)
    }

    /// The last item (in position order) for which `predicate` holds, or `None`: what
    /// `Iterator::filter(predicate).last()` returns.
    ///
    /// Pieces of the input before a match stop at their next batch, while pieces after it are
    /// still searched. Each piece scans forwards, so a match near the end is found early only if
    /// another worker takes the end of the input.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [1, 8, 3, 8, 5];
    /// assert_eq!(v.par_iter().enumerate().find_last(|&(_, &x)| x == 8), Some((3, &8)));
    /// assert_eq!(v.par_iter().find_last(|&&x| x > 9), None);
    /// ```
    fn find_last<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find_first_last::find(self, predicate, Direction::Last)
    }

    /// Applies `predicate` to the items and returns the first `Some` (in position order) it gives,
    /// or `None`: what [`Iterator::find_map`] returns. Stops early like
    /// [`find_first`](Self::find_first).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let words = ["fork", "17", "join", "42"];
    /// assert_eq!(words.par_iter().find_map_first(|w| w.parse::<u32>().ok()), Some(17));
    /// ```
    fn find_map_first<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_first(|_| true)
    }

    /// Applies `predicate` to the items and returns the last `Some` (in position order) it gives,
    /// or `None`. Stops early like [`find_last`](Self::find_last).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let words = ["fork", "17", "join", "42"];
    /// assert_eq!(words.par_iter().find_map_last(|w| w.parse::<u32>().ok()), Some(42));
    /// ```
    fn find_map_last<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_last(|_| true)
    }

    /// Yields the values of the `Some` items and stops at the first `None`, on all threads. Which
    /// values come before the stop is not deterministic when the input holds a `None`: pieces
    /// after it may have run ahead, pieces before it may have stopped early. The result is not indexed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let all: Vec<u32> = (0..5u32).into_par_iter().map(Some).while_some().collect();
    /// assert_eq!(all, [0, 1, 2, 3, 4]);
    /// let some: Vec<u32> = (0..1000u32)
    ///     .into_par_iter()
    ///     .map(|x| (x != 500).then_some(x))
    ///     .while_some()
    ///     .collect();
    /// assert!(some.len() < 1000 && !some.contains(&500));
    /// ```
    fn while_some<T>(self) -> WhileSome<Self>
    where
        Self: ParallelIterator<Item = Option<T>>,
        T: Send,
    {
        WhileSome::new(self)
    }

    /// A clone of `element` between every two neighbouring items (none before the first or after
    /// the last). Indexed if `self` is: `n` items become `2n - 1`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<i32> = (1..4).into_par_iter().intersperse(0).collect();
    /// assert_eq!(v, [1, 0, 2, 0, 3]);
    /// let s: String = "a,b,c".par_split(',').intersperse("; ").collect();
    /// assert_eq!(s, "a; b; c");
    /// ```
    fn intersperse(self, element: Self::Item) -> Intersperse<Self>
    where
        Self::Item: Clone,
    {
        Intersperse::new(self, element)
    }

    /// Stops every piece early once a closure panics in one of them (each piece checks before
    /// pulling every item), instead of letting the other pieces run to the end before the panic
    /// reaches the caller. Indexed if `self` is.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let r = std::panic::catch_unwind(|| {
    ///     (0..1_000_000u32).into_par_iter().panic_fuse().for_each(|x| assert!(x != 10));
    /// });
    /// assert!(r.is_err());
    /// ```
    fn panic_fuse(self) -> PanicFuse<Self> {
        PanicFuse::new(self)
    }

    /// Some `n` items (all of them if there are fewer), in whatever order the pieces reach them:
    /// not necessarily the first `n`, unlike
    /// [`IndexedParallelIterator::take`](crate::iter::IndexedParallelIterator::take). Every piece stops
    /// once `n` items have passed. The result is not indexed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let some: Vec<u32> = (0..100u32).into_par_iter().take_any(5).collect();
    /// assert_eq!(some.len(), 5);
    /// assert!(some.windows(2).all(|w| w[0] < w[1])); // still in position order
    /// ```
    fn take_any(self, n: usize) -> TakeAny<Self> {
        TakeAny::new(self, n)
    }

    /// All items but some `n` (none if there are fewer), in whatever order the pieces reach them:
    /// not necessarily all but the first `n`, unlike
    /// [`IndexedParallelIterator::skip`](crate::iter::IndexedParallelIterator::skip). The result is not
    /// indexed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let rest: Vec<u32> = (0..100u32).into_par_iter().skip_any(95).collect();
    /// assert_eq!(rest.len(), 5);
    /// ```
    fn skip_any(self, n: usize) -> SkipAny<Self> {
        SkipAny::new(self, n)
    }

    /// The items for which `predicate` holds, until some piece meets one for which it does not:
    /// from then on no piece passes any item on. Which items pass before that is not
    /// deterministic (pieces after the failing item may have run ahead). The result is not indexed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (0..100u32).into_par_iter().take_any_while(|&x| x < 50).collect();
    /// assert!(v.len() <= 50 && v.iter().all(|&x| x < 50));
    /// ```
    fn take_any_while<P>(self, predicate: P) -> TakeAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        TakeAnyWhile::new(self, predicate)
    }

    /// Drops the items for which `predicate` holds, until some piece meets one for which it does
    /// not: from then on every item passes. Which items are dropped before that is not
    /// deterministic. The result is not indexed.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (0..100u32).into_par_iter().skip_any_while(|&x| x < 50).collect();
    /// assert!(v.len() >= 50 && (50..100).all(|x| v.contains(&x)));
    /// ```
    fn skip_any_while<P>(self, predicate: P) -> SkipAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        SkipAnyWhile::new(self, predicate)
    }

    /// Splits pairs into two collections, like [`Iterator::unzip`]: the first halves in order into
    /// one, the second halves into the other.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let (a, b): (Vec<u32>, Vec<char>) = vec![(1, 'x'), (2, 'y')].into_par_iter().unzip();
    /// assert_eq!((a, b), (vec![1, 2], vec!['x', 'y']));
    /// ```
    fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        Self: ParallelIterator<Item = (A, B)>,
        FromA: Default + Send + ParallelExtend<A>,
        FromB: Default + Send + ParallelExtend<B>,
        A: Send,
        B: Send,
    {
        let mut pair = (FromA::default(), FromB::default());
        unzip_into(self, &mut pair.0, &mut pair.1);
        pair
    }

    /// Splits the items into two collections, like [`Iterator::partition`]: those for which
    /// `predicate` holds, in order, into the first, the others into the second.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let (even, odd): (Vec<u32>, Vec<u32>) = (0..7u32).into_par_iter().partition(|x| x % 2 == 0);
    /// assert_eq!((even, odd), (vec![0, 2, 4, 6], vec![1, 3, 5]));
    /// ```
    fn partition<A, B, P>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<Self::Item>,
        B: Default + Send + ParallelExtend<Self::Item>,
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        let mut pair = (A::default(), B::default());
        partition_into(self, predicate, &mut pair.0, &mut pair.1);
        pair
    }

    /// Splits the items into two collections by the side of the [`Either`] that `predicate` maps
    /// them to: `Left` values, in order, into the first, `Right` values into the second.
    ///
    /// ```
    /// use forkjoin::iter::Either;
    /// use forkjoin::prelude::*;
    /// let (numbers, words): (Vec<i32>, Vec<&str>) = "1 fork 2 join"
    ///     .par_split_whitespace()
    ///     .partition_map(|s| s.parse::<i32>().map_or(Either::Right(s), Either::Left));
    /// assert_eq!((numbers, words), (vec![1, 2], vec!["fork", "join"]));
    /// ```
    fn partition_map<A, B, P, L, R>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<L>,
        B: Default + Send + ParallelExtend<R>,
        P: Fn(Self::Item) -> Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        let mut pair = (A::default(), B::default());
        pair.par_extend(self.map(predicate));
        pair
    }

    /// Collects the items into a collection, in order. For indexed iterators a `Vec` is filled in place:
    /// every piece writes straight into its part of the destination.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<usize> = (0..5usize).into_par_iter().map(|i| i * i).collect();
    /// assert_eq!(v, [0, 1, 4, 9, 16]);
    /// ```
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        C::from_par_iter(self)
    }
}

/// The item that survives combining neighbours left to right, or `None` if empty: of two neighbours
/// `a` (earlier) and `b`, `b` survives iff `keep_right(&a, &b)`. Shared by `min`/`max` and their `_by`
/// and `_by_key` forms, which differ only in `keep_right` (strict for "first among equals", non-strict
/// for "last among equals").
fn best<I, F>(iter: I, keep_right: F) -> Option<I::Item>
where
    I: ParallelIterator,
    F: Fn(&I::Item, &I::Item) -> bool + Sync + Send,
{
    iter.reduce_with(|a, b| if keep_right(&a, &b) { b } else { a })
}

/// Two fallible partial results of `try_reduce`: `op` of both successes, or a failure.
fn combine_tries<R, T, OP>(a: R, b: R, op: &OP) -> R
where
    R: Try<Output = T>,
    OP: Fn(T, T) -> R,
{
    match (a.into_output(), b.into_output()) {
        (Ok(a), Ok(b)) => op(a, b),
        (Err(failure), _) | (_, Err(failure)) => failure,
    }
}
