//! Parallel sorts on `&mut [T]`, built on [`join`](fn@crate::join).
//!
//! * Stable ([`ParallelSortMut::par_sort`] and friends): a parallel merge sort. The slice is cut into
//!   a few leaves per thread, each leaf is sorted with std's stable sort, and sibling runs are merged
//!   pairwise through one scratch buffer of `len` elements. Each merge is itself split (by a binary
//!   search in the shorter run) so the last, largest merges also use every thread. See [`stable`].
//! * Unstable ([`ParallelSortMut::par_sort_unstable`] and friends): a parallel quicksort in the style of
//!   pdqsort. A ninther pivot, an in-place partition, both sides recursed with `join`, std's
//!   `sort_unstable` below a cutoff, and a fall-back to std's sort (O(n log n) worst case) when
//!   partitions keep coming out unbalanced. Safe code only. See [`unstable`].
//!
//! With a single thread both sorts call std's sequential sort directly: the parallel structure only
//! costs extra passes when nobody can share the work.

mod stable;
mod unstable;

use std::cmp::Ordering;

/// Parallel sorting methods on mutable slices (and, through auto-deref, on `Vec<T>`).
///
/// Method names and bounds match rayon's, so `use forkjoin::prelude::*;` ports rayon code by renaming
/// the crate. The sorts run in the current pool (the one entered by
/// [`ThreadPool::install`](crate::ThreadPool::install), or the global pool).
///
/// The comparators are called from several threads at once, hence the `Sync` bounds. If a
/// comparator (or key function) panics, the panic propagates to the caller after all running pieces
/// stop, and the slice still holds every one of its original elements exactly once, in unspecified
/// order.
pub trait ParallelSortMut<T: Send> {
    /// Sorts the slice in parallel, stably (equal elements keep their order).
    ///
    /// Allocates a scratch buffer of `len` elements. O(n log n) comparisons in the worst case.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    ///
    /// let mut v = vec![5, -3, 1, 4, -2, 1];
    /// v.par_sort();
    /// assert_eq!(v, [-3, -2, 1, 1, 4, 5]);
    /// ```
    fn par_sort(&mut self)
    where
        T: Ord;

    /// Sorts the slice in parallel with a comparator, stably.
    ///
    /// The comparator must define a total order, as for [`slice::sort_by`]; if it does not, the
    /// result is unspecified (but still a permutation of the input).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    ///
    /// let mut v = vec![(1, 'b'), (0, 'z'), (1, 'a'), (0, 'y')];
    /// v.par_sort_by(|x, y| y.0.cmp(&x.0)); // descending by number; letters keep their order
    /// assert_eq!(v, [(1, 'b'), (1, 'a'), (0, 'z'), (0, 'y')]);
    /// ```
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync;

    /// Sorts the slice in parallel by a key, stably.
    ///
    /// The key function is called on every comparison (keys are not cached).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    ///
    /// let mut words = vec!["kiwi", "fig", "banana", "apple", "date"];
    /// words.par_sort_by_key(|w| w.len());
    /// assert_eq!(words, ["fig", "kiwi", "date", "apple", "banana"]);
    /// ```
    fn par_sort_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync;

    /// Sorts the slice in parallel, without preserving the order of equal elements.
    ///
    /// In place (no allocation), O(n log n) comparisons in the worst case; usually faster than
    /// [`par_sort`](Self::par_sort).
    ///
    /// ```
    /// use forkjoin::prelude::*;
    ///
    /// let mut v: Vec<u64> = (0..1000).rev().collect();
    /// v.par_sort_unstable();
    /// assert!(v.windows(2).all(|w| w[0] <= w[1]));
    /// ```
    fn par_sort_unstable(&mut self)
    where
        T: Ord;

    /// Sorts the slice in parallel with a comparator, without preserving the order of equal elements.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    ///
    /// let mut v = vec![2.5_f64, -1.0, 9.75, 0.0];
    /// v.par_sort_unstable_by(|a, b| a.total_cmp(b));
    /// assert_eq!(v, [-1.0, 0.0, 2.5, 9.75]);
    /// ```
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync;

    /// Sorts the slice in parallel by a key, without preserving the order of equal elements.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    ///
    /// let mut v = vec![-7_i32, 3, -1, 5];
    /// v.par_sort_unstable_by_key(|x| x.abs());
    /// assert_eq!(v, [-1, 3, 5, -7]);
    /// ```
    fn par_sort_unstable_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync;
}

impl<T: Send> ParallelSortMut<T> for [T] {
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        stable::par_merge_sort(self, &T::cmp);
    }

    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        stable::par_merge_sort(self, &compare);
    }

    fn par_sort_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        stable::par_merge_sort(self, &|a: &T, b: &T| f(a).cmp(&f(b)));
    }

    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        unstable::par_quicksort(self, &T::cmp);
    }

    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        unstable::par_quicksort(self, &compare);
    }

    fn par_sort_unstable_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        unstable::par_quicksort(self, &|a: &T, b: &T| f(a).cmp(&f(b)));
    }
}

/// The start both parallel sorts share: settles the cases that need no parallel algorithm.
///
/// Zero-sized elements, slices of at most `seq_len` elements and one-thread pools go to `seq_sort`
/// (std's sequential sort): the parallel structure would only add passes. Input that is a single run
/// (non-descending, or strictly descending and then reversed) is finished in one pass. Returns `None`
/// when `v` is sorted, else the current pool's thread count (at least 2) to size the parallel sort.
fn parallel_threads<T, F>(
    v: &mut [T],
    compare: &F,
    seq_len: usize,
    seq_sort: impl FnOnce(&mut [T]),
) -> Option<usize>
where
    F: Fn(&T, &T) -> Ordering,
{
    let threads = crate::current_num_threads();
    if std::mem::size_of::<T>() == 0 || v.len() <= seq_len || threads <= 1 {
        seq_sort(v);
        return None;
    }
    let (run, descending) = initial_run(v, compare);
    if run == v.len() {
        if descending {
            v.reverse();
        }
        return None;
    }
    Some(threads)
}

/// Length of the run at the start of `v`: non-descending, or strictly descending (`true`).
///
/// Lets both sorts finish already-sorted and reversed input in one pass. Strictly descending only,
/// so reversing the run keeps equal elements in order (the stable sort relies on that).
fn initial_run<T, F>(v: &[T], compare: &F) -> (usize, bool)
where
    F: Fn(&T, &T) -> Ordering,
{
    if v.len() < 2 {
        return (v.len(), false);
    }
    let descending = compare(&v[1], &v[0]) == Ordering::Less;
    let mut end = 2;
    if descending {
        while end < v.len() && compare(&v[end], &v[end - 1]) == Ordering::Less {
            end += 1;
        }
    } else {
        while end < v.len() && compare(&v[end], &v[end - 1]) != Ordering::Less {
            end += 1;
        }
    }
    (end, descending)
}

/// Runs `a` and `b` with [`join`](fn@crate::join), catching a panic on each side separately.
///
/// The sorts need both sides to have finished (so every element is back where the caller's panic
/// guard expects it) before they decide how to unwind, whatever `join` does with a panic.
fn join_catch<A, B, RA, RB>(a: A, b: B) -> (std::thread::Result<RA>, std::thread::Result<RB>)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    use std::panic::{catch_unwind, AssertUnwindSafe};
    // AssertUnwindSafe: on a panic the callers restore their slices before anyone observes them.
    crate::join(
        || catch_unwind(AssertUnwindSafe(a)),
        || catch_unwind(AssertUnwindSafe(b)),
    )
}

#[cfg(test)]
mod tests;
