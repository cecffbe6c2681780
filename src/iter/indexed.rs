//! The [`IndexedParallelIterator`] trait: iterators that know their length and can be cut at any index.

use std::cmp::Ordering;

use crate::iter::adaptors::blocks::{ExponentialBlocks, UniformBlocks};
use crate::iter::adaptors::chunks_vec::Chunks;
use crate::iter::adaptors::deterministic::Deterministic;
use crate::iter::adaptors::enumerate::Enumerate;
use crate::iter::adaptors::folds::fold_chunks::{FoldChunks, FoldChunksWith};
use crate::iter::adaptors::item_wise::positions::Positions;
use crate::iter::adaptors::len_bounds::{MaxLen, MinLen};
use crate::iter::adaptors::rev::Rev;
use crate::iter::adaptors::skip_take::{Skip, Take};
use crate::iter::adaptors::step_by::StepBy;
use crate::iter::adaptors::zips::interleave::{Interleave, InterleaveShortest};
use crate::iter::adaptors::zips::zip::Zip;
use crate::iter::adaptors::zips::zip_eq::ZipEq;
use crate::iter::consumers::collect::collect_indexed_into;
use crate::iter::into::IntoParallelIterator;
use crate::iter::plumbing::{Consumer, ProducerCallback};
use crate::iter::ParallelIterator;

/// A parallel iterator with a known length whose items have positions (ranges, slices, vectors,
/// chunks, and `map`/`enumerate`/`zip`/`copied`/`cloned` of those). Only these can be `zip`ped or
/// `enumerate`d; `filter` and `fold` produce plain [`ParallelIterator`]s.
///
/// ```
/// use forkjoin::prelude::*;
/// let a = [1, 2, 3];
/// let b = [10, 20, 30];
/// let dot: i32 = a.par_iter().zip(b.par_iter()).map(|(x, y)| x * y).sum();
/// assert_eq!(dot, 140);
/// ```
#[allow(clippy::len_without_is_empty)] // rayon's trait has no `is_empty`; keep the same surface
pub trait IndexedParallelIterator: ParallelIterator {
    /// The exact number of items.
    fn len(&self) -> usize;

    /// Hands this iterator's [`Producer`](crate::iter::plumbing::Producer) to `callback` (rayon's
    /// plumbing: see [`plumbing`](crate::iter::plumbing)).
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output;

    /// Drives this iterator into `consumer`, which may depend on the positions it is split at
    /// (rayon's plumbing). The default goes through the producer with
    /// [`plumbing::bridge`](fn@crate::iter::plumbing::bridge), which is what an implementation written
    /// for rayon does too.
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        crate::iter::plumbing::bridge(self, consumer)
    }

    /// Pairs every item with its index.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<(usize, char)> = ['a', 'b'].par_iter().copied().enumerate().collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'b')]);
    /// ```
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// Iterates over pairs from `self` and `other`; the length is the shorter of the two.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<(u32, u32)> = (0..3u32).into_par_iter().zip(10..20u32).collect();
    /// assert_eq!(v, [(0, 10), (1, 11), (2, 12)]);
    /// ```
    fn zip<Z>(self, other: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        Zip::new(self, other.into_par_iter())
    }

    /// Like [`zip`](Self::zip), for two iterators of the same length.
    ///
    /// # Panics
    /// If the lengths differ ("iterators must have the same length", as in rayon).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<(u8, char)> = (1..3u8).into_par_iter().zip_eq(['a', 'b']).collect();
    /// assert_eq!(v, [(1, 'a'), (2, 'b')]);
    /// ```
    fn zip_eq<Z>(self, other: Z) -> ZipEq<Self, Z::Iter>
    where
        Z: IntoParallelIterator<Iter: IndexedParallelIterator>,
    {
        ZipEq::new(self, other.into_par_iter())
    }

    /// Skips the first `n` items (all of them if there are fewer), like [`Iterator::skip`]. The
    /// skipped items are still produced and dropped, so a `map` before `skip` runs on them too.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (0..10u32).into_par_iter().skip(7).collect();
    /// assert_eq!(v, [7, 8, 9]);
    /// ```
    fn skip(self, n: usize) -> Skip<Self> {
        Skip::new(self, n)
    }

    /// Yields only the first `n` items (all of them if there are fewer), like [`Iterator::take`].
    /// The items after them are not produced (owned ones are dropped).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (0..10u32).into_par_iter().take(3).collect();
    /// assert_eq!(v, [0, 1, 2]);
    /// ```
    fn take(self, n: usize) -> Take<Self> {
        Take::new(self, n)
    }

    /// The items in reverse order, like [`Iterator::rev`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (0..5u32).into_par_iter().rev().collect();
    /// assert_eq!(v, [4, 3, 2, 1, 0]);
    /// ```
    fn rev(self) -> Rev<Self> {
        Rev::new(self)
    }

    /// Every `step`-th item, starting with the first, like [`Iterator::step_by`].
    ///
    /// # Panics
    /// If `step` is 0.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (0..10u32).into_par_iter().step_by(3).collect();
    /// assert_eq!(v, [0, 3, 6, 9]);
    /// ```
    fn step_by(self, step: usize) -> StepBy<Self> {
        StepBy::new(self, step)
    }

    /// The items gathered into `Vec`s of `chunk_size` items, in order; the last one may be
    /// shorter.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<Vec<u32>> = (1..=5u32).into_par_iter().chunks(2).collect();
    /// assert_eq!(v, [vec![1, 2], vec![3, 4], vec![5]]);
    /// ```
    fn chunks(self, chunk_size: usize) -> Chunks<Self> {
        Chunks::new(self, chunk_size)
    }

    /// Folds every run of `chunk_size` items (the last one may be shorter) sequentially, from
    /// `identity()`, into one item: like [`chunks`](Self::chunks) followed by a fold of each chunk,
    /// without the intermediate `Vec`s. Indexed: one position per chunk.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let sums: Vec<u32> = (1..=5u32).into_par_iter().fold_chunks(2, || 0, |a, x| a + x).collect();
    /// assert_eq!(sums, [3, 7, 5]);
    /// ```
    #[track_caller]
    fn fold_chunks<T, ID, F>(
        self,
        chunk_size: usize,
        identity: ID,
        fold_op: F,
    ) -> FoldChunks<Self, ID, F>
    where
        ID: Fn() -> T + Send + Sync,
        F: Fn(T, Self::Item) -> T + Send + Sync,
        T: Send,
    {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        FoldChunks::new(self, chunk_size, identity, fold_op)
    }

    /// Like [`fold_chunks`](Self::fold_chunks), with every chunk's fold starting from a clone of
    /// `init`.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<String> = ["a", "b", "c"]
    ///     .par_iter()
    ///     .fold_chunks_with(2, String::from(">"), |s, x| s + x)
    ///     .collect();
    /// assert_eq!(v, [">ab", ">c"]);
    /// ```
    #[track_caller]
    fn fold_chunks_with<T, F>(
        self,
        chunk_size: usize,
        init: T,
        fold_op: F,
    ) -> FoldChunksWith<Self, T, F>
    where
        T: Send + Clone,
        F: Fn(T, Self::Item) -> T + Send + Sync,
    {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        FoldChunksWith::new(self, chunk_size, init, fold_op)
    }

    /// The items of `self` and `other` alternately, starting with `self`; once one of them is
    /// exhausted, the rest of the other.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (0..3u32).into_par_iter().interleave(vec![10, 11, 12, 13, 14]).collect();
    /// assert_eq!(v, [0, 10, 1, 11, 2, 12, 13, 14]);
    /// ```
    fn interleave<I>(self, other: I) -> Interleave<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item, Iter: IndexedParallelIterator>,
    {
        Interleave::new(self, other.into_par_iter())
    }

    /// The items of `self` and `other` alternately, starting with `self`, until the side whose
    /// turn it is has no item left.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (0..3u32).into_par_iter().interleave_shortest(vec![10, 11]).collect();
    /// assert_eq!(v, [0, 10, 1, 11, 2]);
    /// let w: Vec<u32> = (0..3u32).into_par_iter().interleave_shortest(vec![10, 11, 12, 13]).collect();
    /// assert_eq!(w, [0, 10, 1, 11, 2, 12]);
    /// ```
    fn interleave_shortest<I>(self, other: I) -> InterleaveShortest<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item, Iter: IndexedParallelIterator>,
    {
        InterleaveShortest::new(self, other.into_par_iter())
    }

    /// Never splits the work into pieces shorter than `min` items (except when the whole input is
    /// shorter). Useful when per-piece setup is expensive; not needed for balance.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let s: u64 = (0..1000u64).into_par_iter().with_min_len(100).sum();
    /// assert_eq!(s, 499_500);
    /// ```
    fn with_min_len(self, min: usize) -> MinLen<Self> {
        MinLen::new(self, min)
    }

    /// Splits the work into pieces of at most `max` items up front (`max = 0` is treated as 1). Where
    /// this conflicts with [`with_min_len`](Self::with_min_len), the minimum wins.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let s: u64 = (0..1000u64).into_par_iter().with_max_len(10).sum();
    /// assert_eq!(s, 499_500);
    /// ```
    fn with_max_len(self, max: usize) -> MaxLen<Self> {
        MaxLen::new(self, max)
    }

    /// Runs the items in blocks, one block after the other, each block in parallel: first
    /// `current_num_threads()` items, then twice as many, and so on. A search that stops early
    /// (`find_first`, `any`) then runs only a little past the first block where it can stop.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let first = (0..1_000_000u32)
    ///     .into_par_iter()
    ///     .by_exponential_blocks()
    ///     .find_first(|&x| x * x > 1000);
    /// assert_eq!(first, Some(32));
    /// ```
    fn by_exponential_blocks(self) -> ExponentialBlocks<Self> {
        ExponentialBlocks::new(self)
    }

    /// Runs the items in blocks of `block_size` (the last may be shorter), one block after the
    /// other, each block in parallel.
    ///
    /// # Panics
    /// If `block_size` is 0 ("block_size must not be zero", as in rayon).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<u32> = (0..10u32).into_par_iter().by_uniform_blocks(4).collect();
    /// assert_eq!(v, (0..10).collect::<Vec<_>>());
    /// ```
    fn by_uniform_blocks(self, block_size: usize) -> UniformBlocks<Self> {
        UniformBlocks::new(self, block_size)
    }

    /// Makes every reduction of this iterator combine its items in a fixed tree that depends only
    /// on the length: bit-identical results on any pool, in any run, however the work is stolen
    /// (in the same build). Floating-point `sum`s and the like then no longer change with the
    /// thread count (rayon issues #663 and #954).
    ///
    /// **The reference tree.** With `B` = [`DETERMINISTIC_BLOCK_LEN`](crate::iter::DETERMINISTIC_BLOCK_LEN)
    /// and `len` items, the positions fall into `n = ceil(len / B)` blocks `[k·B, min((k+1)·B, len))`.
    /// A range of `n` blocks is worth
    ///
    /// * for `n <= 1`: its items folded in order, as one sequential piece of the reduction would
    ///   fold them: `sum`/`product` give std's `Sum`/`Product` of the block; `reduce(id, op)`
    ///   gives `op(...op(op(id(), x0), x1)..., xk)`; `fold(id, f)` gives `f(...f(id(), x0)..., xk)`,
    ///   an accumulator per block, which the `reduce`, `sum` (or other reduction) after it takes
    ///   as its item (so `fold(id, f).reduce(id2, op)` gives `op(id2(), acc)` per block);
    /// * for `n >= 2`: `combine(value(first n/2 blocks), value(the other n - n/2 blocks))`, with
    ///   `n/2` rounded down and `combine` the reduction's own (`+` for `sum`, `*` for `product`,
    ///   `op` for `reduce`).
    ///
    /// Every reduction built on these follows the same tree: `reduce_with`, `try_reduce` (which,
    /// being positional, then returns the failure of the leftmost failing block), `min`, `max`,
    /// `min_by`, `max_by`, `min_by_key`, `max_by_key` (the first of equal minima, the last of
    /// equal maxima, as in rayon and std), `count`. Adaptors after `deterministic()` keep the
    /// guarantee: `map`, `zip`, `enumerate`, ... keep the positions, so
    /// `v.par_iter().deterministic().map(f).sum()` gives the same bits as
    /// `v.par_iter().map(f).deterministic().sum()`; `filter`, `flat_map` and the other
    /// consumer-side adaptors fold each block's items as the block comes. Adaptors that change the
    /// length (`skip`, `take`, `step_by`, `chunks`, `rev`, `chain`) give a tree over their own
    /// length, as fixed as any. `with_min_len`/`with_max_len` have no effect: the blocks decide
    /// every cut.
    ///
    /// **Speed.** The work is still balanced by stealing: the tree's top nodes are joins, and a
    /// node below them is split for an idle worker when one asks; only the grouping is fixed. A
    /// sum of 10^8 cheap `f64` terms runs within a few percent of the plain `sum` on 1 and 2
    /// threads and of a sequential loop on 1 (`docs/benchmarks.md`, "Deterministic reductions").
    ///
    /// **Rounding.** The tree is pairwise summation over sequentially summed blocks: the error
    /// bound of a sum of `n` terms grows like `(B + log2(n/B))·ε·Σ|x|` instead of the sequential
    /// loop's `n·ε·Σ|x|`. Measured against an exact reference, the sum of `1/(i+1)` for
    /// `i < 10^8` is off by 10 ulp (1.9·10⁻¹⁵ relative) here and by 378 ulp (7.1·10⁻¹⁴) in
    /// `Iterator::sum`; 10^7 random terms of both signs spread over 10^-6..10^6, by 9.6 ulp and
    /// 446 ulp (`docs/iterators.md`, "Deterministic reductions"). More accurate, then, but a
    /// different number from the sequential one.
    ///
    /// **Limits.** A block is folded on one thread, so at most `ceil(len / B)` threads share the
    /// work. The bits are fixed for one build (`B` may change between versions). A producer
    /// adaptor written for rayon does not pass the block length on: call `deterministic()` after
    /// it.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<f64> = (0..1_000_003).map(|i| 1.0 / (i as f64 + 1.0)).collect();
    /// let sums: Vec<u64> = (1..=4)
    ///     .map(|threads| {
    ///         let pool = forkjoin::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    ///         pool.install(|| v.par_iter().deterministic().sum::<f64>().to_bits())
    ///     })
    ///     .collect();
    /// assert!(sums.iter().all(|&s| s == sums[0]));
    /// // Adaptors after it keep the tree.
    /// let a = v.par_iter().map(|x| x * 3.0).deterministic().sum::<f64>();
    /// let b = v.par_iter().deterministic().map(|x| x * 3.0).sum::<f64>();
    /// assert_eq!(a.to_bits(), b.to_bits());
    /// ```
    fn deterministic(self) -> Deterministic<Self> {
        Deterministic::new(self)
    }

    /// The index of some item for which `predicate` holds — not necessarily the first — or `None`.
    /// Stops early (on all threads) once one is found, like
    /// [`find_any`](ParallelIterator::find_any).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [3, 8, 1, 8];
    /// let i = v.par_iter().position_any(|&x| x == 8);
    /// assert!(i == Some(1) || i == Some(3));
    /// assert_eq!(v.par_iter().position_any(|&x| x == 5), None);
    /// ```
    fn position_any<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate)
            .enumerate()
            .find_any(|&(_, hit)| hit)
            .map(|(i, _)| i)
    }

    /// The index of the first item for which `predicate` holds, or `None`: what
    /// [`Iterator::position`] returns. Stops early like
    /// [`find_first`](ParallelIterator::find_first): pieces after a match stop, pieces before it
    /// are still searched.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [3, 8, 1, 8];
    /// assert_eq!(v.par_iter().position_first(|&x| x == 8), Some(1));
    /// assert_eq!(v.par_iter().position_first(|&x| x == 5), None);
    /// ```
    fn position_first<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate)
            .enumerate()
            .find_first(|&(_, hit)| hit)
            .map(|(i, _)| i)
    }

    /// The index of the last item for which `predicate` holds, or `None`: what
    /// [`Iterator::rposition`] returns. Stops early like
    /// [`find_last`](ParallelIterator::find_last).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [3, 8, 1, 8];
    /// assert_eq!(v.par_iter().position_last(|&x| x == 8), Some(3));
    /// assert_eq!(v.par_iter().position_last(|&x| x == 5), None);
    /// ```
    fn position_last<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate)
            .enumerate()
            .find_last(|&(_, hit)| hit)
            .map(|(i, _)| i)
    }

    /// The indices of the items for which `predicate` holds, in order, as a parallel iterator.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v = [3, 8, 1, 8];
    /// let at: Vec<usize> = v.par_iter().positions(|&x| x == 8).collect();
    /// assert_eq!(at, [1, 3]);
    /// ```
    fn positions<P>(self, predicate: P) -> Positions<Self, P>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        Positions::new(self, predicate)
    }

    /// Compares the items with those of `other` lexicographically, like [`Iterator::cmp`]: the first
    /// unequal pair decides, else the shorter iterator is less. Stops early, like
    /// [`find_first`](ParallelIterator::find_first), after the first difference.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::cmp::Ordering;
    /// let a = vec![1, 2, 3];
    /// assert_eq!(a.par_iter().cmp(&vec![1, 2, 4]), Ordering::Less);
    /// assert_eq!(a.par_iter().cmp(&vec![1, 2]), Ordering::Greater);
    /// assert_eq!(a.par_iter().cmp(&a), Ordering::Equal);
    /// ```
    fn cmp<I>(self, other: I) -> Ordering
    where
        I: IntoParallelIterator<Item = Self::Item, Iter: IndexedParallelIterator>,
        Self::Item: Ord,
    {
        let other = other.into_par_iter();
        let by_len = self.len().cmp(&other.len());
        self.zip(other)
            .map(|(x, y)| Ord::cmp(&x, &y))
            .find_first(|&o| o.is_ne())
            .unwrap_or(by_len)
    }

    /// Compares the items with those of `other` lexicographically, like
    /// [`Iterator::partial_cmp`]: the first pair that is not `Some(Equal)` decides, else the shorter
    /// iterator is less. Stops early after that pair.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// use std::cmp::Ordering;
    /// let a = vec![1.0, 2.0];
    /// assert_eq!(a.par_iter().partial_cmp(&vec![1.0, 3.0]), Some(Ordering::Less));
    /// assert_eq!(a.par_iter().partial_cmp(&vec![f64::NAN, 0.0]), None);
    /// ```
    fn partial_cmp<I>(self, other: I) -> Option<Ordering>
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        let by_len = self.len().cmp(&other.len());
        self.zip(other)
            .map(|(x, y)| PartialOrd::partial_cmp(&x, &y))
            .find_first(|&o| o != Some(Ordering::Equal))
            .unwrap_or(Some(by_len))
    }

    /// True if `other` has the same length and every pair of items is equal, like
    /// [`Iterator::eq`]. Stops early (on all threads) at a difference.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let a = vec![1, 2, 3];
    /// assert!(a.par_iter().eq(&vec![1, 2, 3]));
    /// assert!(!a.par_iter().eq(&vec![1, 2]));
    /// ```
    fn eq<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialEq<I::Item>,
    {
        let other = other.into_par_iter();
        self.len() == other.len() && self.zip(other).all(|(x, y)| x == y)
    }

    /// The negation of [`eq`](Self::eq), like [`Iterator::ne`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert!([1, 2].par_iter().ne(&[1, 3]));
    /// ```
    fn ne<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialEq<I::Item>,
    {
        !self.eq(other)
    }

    /// True if the items are lexicographically less than those of `other`, like [`Iterator::lt`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert!([1, 2].par_iter().lt(&[1, 3]));
    /// assert!(![1, 2].par_iter().lt(&[1, 2]));
    /// ```
    fn lt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Less)
    }

    /// True if the items are lexicographically less than or equal to those of `other`, like
    /// [`Iterator::le`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert!([1, 2].par_iter().le(&[1, 2]));
    /// ```
    fn le<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Less | Ordering::Equal)
        )
    }

    /// True if the items are lexicographically greater than those of `other`, like
    /// [`Iterator::gt`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert!([1, 3].par_iter().gt(&[1, 2, 9]));
    /// ```
    fn gt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Greater)
    }

    /// True if the items are lexicographically greater than or equal to those of `other`, like
    /// [`Iterator::ge`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert!([1, 2].par_iter().ge(&[1]));
    /// ```
    fn ge<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Greater | Ordering::Equal)
        )
    }

    /// Unzips the pairs into `left` and `right`, which are cleared first.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let (mut a, mut b) = (vec![9], vec![9]);
    /// (0..3u8).into_par_iter().map(|x| (x, x * 2)).unzip_into_vecs(&mut a, &mut b);
    /// assert_eq!((a, b), (vec![0, 1, 2], vec![0, 2, 4]));
    /// ```
    fn unzip_into_vecs<A, B>(self, left: &mut Vec<A>, right: &mut Vec<B>)
    where
        Self: IndexedParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
    {
        left.clear();
        right.clear();
        crate::iter::consumers::unzip::unzip_into(self, left, right);
    }

    /// Collects into `target` (cleared first), writing every item straight into its final slot.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let mut v = vec![7; 2];
    /// (0..4u8).into_par_iter().collect_into_vec(&mut v);
    /// assert_eq!(v, [0, 1, 2, 3]);
    /// ```
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        collect_indexed_into(self, target);
    }
}
