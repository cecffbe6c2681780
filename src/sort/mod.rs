//! Parallel sorts on `&mut [T]`, built on [`join`](fn@crate::join).
//!
//! The public methods are those of [`ParallelSliceMut`](crate::slice::ParallelSliceMut), as in rayon.
//!
//! * Stable ([`par_sort`](crate::slice::ParallelSliceMut::par_sort) and friends): a parallel merge sort. The slice is cut into
//!   a few leaves per thread, each leaf is sorted with std's stable sort, and sibling runs are merged
//!   pairwise through one scratch buffer of `len` elements. Each merge is itself split (by a binary
//!   search in the shorter run) so the last, largest merges also use every thread. See [`stable`].
//! * Unstable ([`par_sort_unstable`](crate::slice::ParallelSliceMut::par_sort_unstable) and friends): a parallel quicksort in the style of
//!   pdqsort. A ninther pivot, an in-place partition, both sides recursed with `join`, std's
//!   `sort_unstable` below a cutoff, and a fall-back to std's sort (O(n log n) worst case) when
//!   partitions keep coming out unbalanced. Safe code only. See [`unstable`].
//!
//! With a single thread both sorts call std's sequential sort directly: the parallel structure only
//! costs extra passes when nobody can share the work.

mod stable;
mod unstable;

use std::cmp::Ordering;

use crate::platform::sync::shared::ThreadResult;

pub(crate) use stable::par_merge_sort;
pub(crate) use unstable::par_quicksort;

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
fn join_catch<A, B, RA, RB>(a: A, b: B) -> (ThreadResult<RA>, ThreadResult<RB>)
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
