//! Parallel stable merge sort.
//!
//! Layout: the slice `v` and one scratch buffer `buf` of the same length. The recursion halves both in
//! step; a leaf (at most `leaf_len` elements) is sorted in `v` with std's stable sort, and each inner
//! node merges its two sorted halves from one array into the other, alternating so that the root
//! ends in `v`. Merges split recursively: cut the longer run at its middle, binary-search the cut's
//! partner position in the other run, merge both pairs in parallel.
//!
//! Panic safety (a comparator may panic anywhere). While the sort runs, elements are moved bitwise
//! between `v` and `buf`, so at any moment every element has exactly one *owning* slot. Each function
//! below states where the elements are when it returns and when it unwinds; the invariant the caller
//! sees is: if [`par_merge_sort`] unwinds, `v` holds every original element exactly once.

use std::cmp::Ordering;
use std::mem::{size_of, MaybeUninit};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;

use super::{initial_run, join_catch};

/// Below this many elements the sort is sequential (std's stable sort).
const SEQ_LEN: usize = 1 << 14;
/// Smallest leaf of the parallel recursion.
const MIN_LEAF: usize = 1 << 13;
/// Leaves per thread: more than one so that work stealing can even out uneven leaves, few enough that
/// the extra merge passes (one per doubling) stay cheap.
const LEAVES_PER_THREAD: usize = 4;
/// Merges of at most this many elements run sequentially.
const MERGE_SEQ_LEN: usize = 1 << 14;

/// Sorts `v` stably and in parallel by `compare`.
pub(super) fn par_merge_sort<T, F>(v: &mut [T], compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let threads = crate::current_num_threads();
    if size_of::<T>() == 0 || v.len() <= SEQ_LEN || threads <= 1 {
        v.sort_by(compare);
        return;
    }
    let (run, descending) = initial_run(v, compare);
    if run == v.len() {
        if descending {
            v.reverse();
        }
        return;
    }
    let leaf_len = v.len().div_ceil(LEAVES_PER_THREAD * threads).max(MIN_LEAF);
    sort_with_leaf(v, compare, leaf_len, MERGE_SEQ_LEN);
}

/// The parallel merge sort with explicit cut-offs (unit tests use tiny ones to exercise every path).
pub(super) fn sort_with_leaf<T, F>(v: &mut [T], compare: &F, leaf_len: usize, merge_seq_len: usize)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let mut buf: Vec<MaybeUninit<T>> = Vec::with_capacity(v.len());
    // SAFETY: MaybeUninit<T> needs no initialisation, and the capacity is at least v.len().
    unsafe { buf.set_len(v.len()) };
    let cut = Cutoffs {
        leaf_len: leaf_len.max(1),
        merge_seq_len: merge_seq_len.max(2),
    };
    // SAFETY: `MaybeUninit<T>` has the layout of `T`. The view is only written with elements of the
    // slice itself, and `sort_rec` leaves every element in `v` exactly once on return and on unwind,
    // so `v` is fully initialised again before this borrow ends.
    let v_mu = unsafe { &mut *(v as *mut [T] as *mut [MaybeUninit<T>]) };
    sort_rec(v_mu, &mut buf, false, compare, cut);
    // `buf` is dropped as `MaybeUninit`: it owns no element by now.
}

#[derive(Clone, Copy)]
struct Cutoffs {
    leaf_len: usize,
    merge_seq_len: usize,
}

/// Sorts the elements of `v` into `v` (`into_buf == false`) or into `buf` (`into_buf == true`).
///
/// Requires: `v` holds `v.len()` elements, `buf.len() == v.len()` owns none.
/// On return: the sorted elements are owned by the chosen array, the other owns none.
/// On unwind: `v` owns every element exactly once (any order), `buf` owns none.
fn sort_rec<T, F>(
    v: &mut [MaybeUninit<T>],
    buf: &mut [MaybeUninit<T>],
    into_buf: bool,
    compare: &F,
    cut: Cutoffs,
) where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let len = v.len();
    if len <= cut.leaf_len {
        // SAFETY: by this function's precondition `v` owns all its elements, so it is initialised.
        let s = unsafe { assume_init_mut(v) };
        // If `compare` panics, std's sort leaves `s` a permutation: the unwind contract holds.
        s.sort_by(compare);
        if into_buf {
            // SAFETY: `v` and `buf` are distinct slices of equal length; the elements move to `buf`
            // and `v`'s slots become logically uninitialised, as the return contract says.
            unsafe { ptr::copy_nonoverlapping(v.as_ptr(), buf.as_mut_ptr(), len) };
        }
        return;
    }
    let mid = len / 2;
    let (results_left, results_right) = {
        let (v_left, v_right) = v.split_at_mut(mid);
        let (buf_left, buf_right) = buf.split_at_mut(mid);
        join_catch(
            || sort_rec(v_left, buf_left, !into_buf, compare, cut),
            || sort_rec(v_right, buf_right, !into_buf, compare, cut),
        )
    };
    if results_left.is_err() || results_right.is_err() {
        // A child that unwound left its elements in its part of `v`; a child that returned left
        // them in its part of `buf` when it sorted into `buf` (`!into_buf`). Bring those back.
        if !into_buf {
            for (ok, range) in [
                (results_left.is_ok(), 0..mid),
                (results_right.is_ok(), mid..len),
            ] {
                if ok {
                    let n = range.len();
                    // SAFETY: the child returned, so its part of `buf` owns its elements and its
                    // part of `v` owns none; moving them back restores the unwind contract.
                    unsafe {
                        ptr::copy_nonoverlapping(
                            buf[range.clone()].as_ptr(),
                            v[range].as_mut_ptr(),
                            n,
                        )
                    };
                }
            }
        }
        let payload = match (results_left, results_right) {
            (Err(p), _) | (_, Err(p)) => p,
            _ => unreachable!(),
        };
        resume_unwind(payload);
    }
    // Both halves are sorted runs in the array *not* chosen for this node; merge into the chosen one.
    let (src, dst) = if into_buf {
        (&mut *v, &mut *buf)
    } else {
        (&mut *buf, &mut *v)
    };
    let (run_a, run_b) = src.split_at_mut(mid);
    let merged = catch_unwind(AssertUnwindSafe(|| {
        par_merge(run_a, run_b, dst, compare, cut.merge_seq_len)
    }));
    if let Err(payload) = merged {
        // `par_merge` unwinds with every element in `dst`; the contract wants them in `v`.
        if into_buf {
            // SAFETY: `dst` is `buf` here and owns every element, `v` owns none.
            unsafe { ptr::copy_nonoverlapping(buf.as_ptr(), v.as_mut_ptr(), len) };
        }
        resume_unwind(payload);
    }
}

/// Merges the sorted runs `a` then `b` into `dst`, stably (on ties, `a`'s elements first).
///
/// Requires: `a` and `b` own their elements, `dst.len() == a.len() + b.len()` owns none.
/// On return and on unwind: `dst` owns every element exactly once (sorted on return), `a`/`b` none.
fn par_merge<T, F>(
    a: &mut [MaybeUninit<T>],
    b: &mut [MaybeUninit<T>],
    dst: &mut [MaybeUninit<T>],
    compare: &F,
    merge_seq_len: usize,
) where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    debug_assert_eq!(a.len() + b.len(), dst.len());
    if dst.len() <= merge_seq_len || a.is_empty() || b.is_empty() {
        // SAFETY: the runs own their elements and `dst` is a distinct slice of exactly their total
        // length (precondition); `merge_seq` moves every element into `dst` even if it unwinds.
        unsafe { merge_seq(a, b, dst, compare) };
        return;
    }
    let split = catch_unwind(AssertUnwindSafe(|| split_point(a, b, compare)));
    let (i, j) = match split {
        Ok(ij) => ij,
        Err(payload) => {
            // Nothing has moved yet: hand both runs to `dst` unmerged to keep the contract.
            // SAFETY: as above; `a` and `b` own their elements, `dst` has room for exactly both.
            unsafe {
                ptr::copy_nonoverlapping(a.as_ptr(), dst.as_mut_ptr(), a.len());
                ptr::copy_nonoverlapping(b.as_ptr(), dst.as_mut_ptr().add(a.len()), b.len());
            }
            resume_unwind(payload);
        }
    };
    let (a_lo, a_hi) = a.split_at_mut(i);
    let (b_lo, b_hi) = b.split_at_mut(j);
    let (dst_lo, dst_hi) = dst.split_at_mut(i + j);
    // Each half moves its elements into its half of `dst`, also when it unwinds, so no clean-up is
    // needed here beyond re-raising.
    let (lo, hi) = join_catch(
        || par_merge(a_lo, b_lo, dst_lo, compare, merge_seq_len),
        || par_merge(a_hi, b_hi, dst_hi, compare, merge_seq_len),
    );
    if let Err(payload) = lo.and(hi) {
        resume_unwind(payload);
    }
}

/// Where to cut a merge of `a` then `b` in two: `(i, j)` such that `a[..i]` and `b[..j]` hold
/// exactly the first `i + j` elements of the stable merge. Cuts the longer run in the middle, so
/// both parts are non-empty when both runs are.
fn split_point<T, F>(a: &[MaybeUninit<T>], b: &[MaybeUninit<T>], compare: &F) -> (usize, usize)
where
    F: Fn(&T, &T) -> Ordering,
{
    // SAFETY: precondition of `par_merge`, the only caller: both runs own all their elements.
    let (a, b) = unsafe { (assume_init(a), assume_init(b)) };
    if a.len() >= b.len() {
        let i = a.len() / 2;
        // Ties go to `a`, so `b`'s elements equal to the pivot belong after it.
        let j = b.partition_point(|x| compare(x, &a[i]) == Ordering::Less);
        (i, j)
    } else {
        let j = b.len() / 2;
        // `a`'s elements equal to the pivot come before it.
        let i = a.partition_point(|x| compare(&b[j], x) != Ordering::Less);
        (i, j)
    }
}

/// Sequential branch-free merge of `a` then `b` into `dst`.
///
/// # Safety
/// `a` and `b` must own their elements (initialised, and not owned elsewhere once they move), and
/// `dst` must be a slice distinct from both with `dst.len() == a.len() + b.len()`. Afterwards `dst`
/// owns every element and `a`/`b` own none, also if `compare` unwinds.
unsafe fn merge_seq<T, F>(
    a: &[MaybeUninit<T>],
    b: &[MaybeUninit<T>],
    dst: &mut [MaybeUninit<T>],
    compare: &F,
) where
    F: Fn(&T, &T) -> Ordering,
{
    /// Moves whatever is left of both runs to `out` when dropped: at the end of a merge, and also
    /// when `compare` unwinds, so no element is lost or owned twice.
    struct Remaining<T> {
        a: *const T,
        a_end: *const T,
        b: *const T,
        b_end: *const T,
        out: *mut T,
    }
    impl<T> Drop for Remaining<T> {
        fn drop(&mut self) {
            // SAFETY: [a, a_end) and [b, b_end) are the unconsumed, still-owned parts of the runs;
            // `out` has exactly their total length of free slots left (each step writes one slot and
            // consumes one element), and `dst` does not overlap the runs.
            unsafe {
                let na = self.a_end.offset_from(self.a) as usize;
                ptr::copy_nonoverlapping(self.a, self.out, na);
                let nb = self.b_end.offset_from(self.b) as usize;
                ptr::copy_nonoverlapping(self.b, self.out.add(na), nb);
            }
        }
    }

    let a_range = a.as_ptr_range();
    let b_range = b.as_ptr_range();
    let mut rem = Remaining {
        a: a_range.start.cast::<T>(),
        a_end: a_range.end.cast::<T>(),
        b: b_range.start.cast::<T>(),
        b_end: b_range.end.cast::<T>(),
        out: dst.as_mut_ptr().cast::<T>(),
    };
    if a.is_empty() || b.is_empty() {
        return; // `rem` moves the non-empty run.
    }
    // SAFETY: reads below happen only while `rem.a < rem.a_end` and `rem.b < rem.b_end` whenever an element
    // is read, and those slots are owned, initialised elements (function precondition).
    unsafe {
        // Already in order (typical for presorted input): `rem` copies `a` then `b`.
        if compare(&*rem.b, &*rem.a_end.sub(1)) != Ordering::Less {
            return;
        }
        // Entirely reversed: all of `b` strictly precedes all of `a`.
        if compare(&*rem.b_end.sub(1), &*rem.a) == Ordering::Less {
            let nb = b.len();
            ptr::copy_nonoverlapping(rem.b, rem.out, nb);
            rem.b = rem.b_end;
            rem.out = rem.out.add(nb);
            return;
        }
        while rem.a < rem.a_end && rem.b < rem.b_end {
            // Take from `b` only when strictly smaller: ties keep `a` first (stability).
            let take_b = compare(&*rem.b, &*rem.a) == Ordering::Less;
            let src = if take_b { rem.b } else { rem.a };
            // The element at `src` moves to the next free slot; advancing the consumed run's
            // pointer in the same step keeps "owned exactly once" true between iterations.
            ptr::copy_nonoverlapping(src, rem.out, 1);
            rem.out = rem.out.add(1);
            rem.b = rem.b.add(take_b as usize);
            rem.a = rem.a.add(!take_b as usize);
        }
    }
}

/// # Safety
/// Every element of `s` must be initialised.
unsafe fn assume_init<T>(s: &[MaybeUninit<T>]) -> &[T] {
    // SAFETY: same layout; initialised per the caller's contract.
    unsafe { &*(s as *const [MaybeUninit<T>] as *const [T]) }
}

/// # Safety
/// Every element of `s` must be initialised (and stay so while the returned borrow lives).
unsafe fn assume_init_mut<T>(s: &mut [MaybeUninit<T>]) -> &mut [T] {
    // SAFETY: same layout; initialised per the caller's contract, and a `&mut [T]` can only write
    // initialised values back.
    unsafe { &mut *(s as *mut [MaybeUninit<T>] as *mut [T]) }
}
