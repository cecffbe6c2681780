//! Parallel stable merge sort.
//!
//! Layout: the slice `v` and one scratch buffer `buf` of the same length. The recursion halves both in
//! step down to a fixed depth; a leaf is sorted in `v` with std's stable sort, and each inner node
//! merges its two sorted halves from one array into the other, alternating so that the root ends in
//! `v`. An even depth puts the leaves' output where the first merges read it, saving a copy pass.
//! Merges split recursively: cut the longer run at its middle, binary-search the cut's partner
//! position in the other run, merge both pairs in parallel. The sequential merge is branch-free and
//! bidirectional (see [`merge_seq`]).
//!
//! Panic safety (a comparator may panic anywhere). While the sort runs, elements are moved bitwise
//! between `v` and `buf`, so at any moment every element has exactly one *owning* slot. Each function
//! below states where the elements are when it returns and when it unwinds; the invariant the caller
//! sees is: if [`par_merge_sort`] unwinds, `v` holds every original element exactly once.

use std::cmp::Ordering;
use std::mem::{self, MaybeUninit};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;

use super::{join_catch, parallel_threads};
use crate::runtime::sharing::publish_on_heartbeat;

/// Below this many elements the sort is sequential (std's stable sort).
const SEQ_LEN: usize = 1 << 14;
/// Smallest leaf of the parallel recursion.
const MIN_LEAF: usize = 1 << 12;
/// Leaves per thread (at least): several, so that work stealing can even out uneven leaves, and
/// more merge passes over smaller leaves cost less than they save: the leaves sort in cache, and the
/// bidirectional merge makes a pass cheap (docs/benchmarks.md, "Design measurements").
const LEAVES_PER_THREAD: usize = 8;
/// Merges of at most this many elements run sequentially...
const MERGE_SEQ_LEN: usize = 1 << 14;
/// ...and so do merges of at most `len / (threads * MERGE_PIECES_PER_THREAD)`: plenty of pieces to
/// balance, few enough that the binary searches that cut them (cache misses) cost nothing.
const MERGE_PIECES_PER_THREAD: usize = 32;

/// Sorts `v` stably and in parallel by `compare`.
pub(crate) fn par_merge_sort<T, F>(v: &mut [T], compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let Some(threads) = parallel_threads(v, compare, SEQ_LEN, |v| v.sort_by(compare)) else {
        return;
    };
    // Depth: enough leaves, rounded up to an even depth, but no leaf under MIN_LEAF.
    let mut depth = (LEAVES_PER_THREAD * threads)
        .next_power_of_two()
        .trailing_zeros();
    depth += depth % 2;
    while depth > 0 && v.len() >> depth < MIN_LEAF {
        depth -= 2;
    }
    if depth == 0 {
        v.sort_by(compare);
        return;
    }
    let merge_seq_len = (v.len() / (threads * MERGE_PIECES_PER_THREAD)).max(MERGE_SEQ_LEN);
    sort_with_depth(v, compare, depth, merge_seq_len);
}

/// The parallel merge sort with explicit cut-offs (unit tests use tiny ones to exercise every path):
/// `2^depth` leaves (fewer if the slice is shorter), merges of at most `merge_seq_len` sequential.
pub(super) fn sort_with_depth<T, F>(v: &mut [T], compare: &F, depth: u32, merge_seq_len: usize)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let mut buf: Vec<MaybeUninit<T>> = Vec::with_capacity(v.len());
    // SAFETY: MaybeUninit<T> needs no initialisation, and the capacity is at least v.len().
    unsafe { buf.set_len(v.len()) };
    let merge_seq_len = merge_seq_len.max(2);
    // SAFETY: `MaybeUninit<T>` has the layout of `T`. The view is only written with elements of the
    // slice itself, and `sort_rec` leaves every element in `v` exactly once on return and on unwind,
    // so `v` is fully initialised again before this borrow ends.
    let v_mu = unsafe { &mut *(v as *mut [T] as *mut [MaybeUninit<T>]) };
    sort_rec(v_mu, &mut buf, false, compare, depth, merge_seq_len);
    // `buf` is dropped as `MaybeUninit`: it owns no element by now.
}

/// Sorts the elements of `v` into `v` (`into_buf == false`) or into `buf` (`into_buf == true`),
/// splitting `depth` more times.
///
/// Requires: `v` holds `v.len()` elements, `buf.len() == v.len()` owns none.
/// On return: the sorted elements are owned by the chosen array, the other owns none.
/// On unwind: `v` owns every element exactly once (any order), `buf` owns none.
fn sort_rec<T, F>(
    v: &mut [MaybeUninit<T>],
    buf: &mut [MaybeUninit<T>],
    into_buf: bool,
    compare: &F,
    depth: u32,
    merge_seq_len: usize,
) where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let len = v.len();
    if depth == 0 || len < 2 {
        // SAFETY: by this function's precondition `v` owns all its elements, so it is initialised.
        let s = unsafe { assume_init_mut(v) };
        publish_on_heartbeat();
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
            || {
                sort_rec(
                    v_left,
                    buf_left,
                    !into_buf,
                    compare,
                    depth - 1,
                    merge_seq_len,
                )
            },
            || {
                sort_rec(
                    v_right,
                    buf_right,
                    !into_buf,
                    compare,
                    depth - 1,
                    merge_seq_len,
                )
            },
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
        par_merge(run_a, run_b, dst, compare, merge_seq_len)
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

/// Sequential, branch-free, bidirectional merge of `a` then `b` into `dst` (stable).
///
/// The front end takes the smaller head, the back end the larger tail, in the same loop: two
/// independent dependency chains, so the CPU overlaps them. Steps run in batches that are too short
/// to exhaust either run, so no pointer ever passes the other end of its run and every element is
/// taken exactly once, even if `compare` is not a total order (the output is then just unsorted).
///
/// # Safety
/// `a` and `b` must own their elements, and `dst` must be a slice distinct from both with
/// `dst.len() == a.len() + b.len()` that owns none. Afterwards `dst` owns every element and `a`/`b`
/// own none, also if `compare` unwinds.
unsafe fn merge_seq<T, F>(
    a: &[MaybeUninit<T>],
    b: &[MaybeUninit<T>],
    dst: &mut [MaybeUninit<T>],
    compare: &F,
) where
    F: Fn(&T, &T) -> Ordering,
{
    /// Until defused, copies both runs to `dst` verbatim when dropped. The merge only *copies* out
    /// of the runs, which stay intact, so on unwind this overwrites the partial output (bitwise
    /// copies, owned by no one) and leaves `dst` owning every element exactly once.
    struct Restore<T> {
        a: *const T,
        na: usize,
        b: *const T,
        nb: usize,
        dst: *mut T,
    }
    impl<T> Drop for Restore<T> {
        fn drop(&mut self) {
            // SAFETY: the runs are intact and `dst` (distinct, `na + nb` long) is the place the
            // caller's contract wants the elements in.
            unsafe {
                ptr::copy_nonoverlapping(self.a, self.dst, self.na);
                ptr::copy_nonoverlapping(self.b, self.dst.add(self.na), self.nb);
            }
        }
    }

    let (na, nb) = (a.len(), b.len());
    let restore = Restore {
        a: a.as_ptr().cast::<T>(),
        na,
        b: b.as_ptr().cast::<T>(),
        nb,
        dst: dst.as_mut_ptr().cast::<T>(),
    };
    // SAFETY: the function's contract makes all of `a` and `b` initialised; every read below is of
    // a slot in `[l, l_end)` or `[r, r_end)`, which stay within the runs (see the batch argument
    // below), and every write is of a slot in `[out, out_end)`, inside `dst`. Each write is paired
    // with consuming one element, so `out_end - out` always equals the elements left.
    unsafe {
        let less = |x: *const T, y: *const T| compare(&*x, &*y) == Ordering::Less;
        let (mut l, mut l_end) = (restore.a, restore.a.add(na));
        let (mut r, mut r_end) = (restore.b, restore.b.add(nb));
        let (mut out, mut out_end) = (restore.dst, restore.dst.add(na + nb));
        // Already in order (typical for presorted input): the verbatim copy is the merge.
        if na == 0 || nb == 0 || !less(r, l_end.sub(1)) {
            return; // `restore` copies `a` then `b`.
        }
        // Entirely reversed: all of `b` strictly precedes all of `a`.
        if less(r_end.sub(1), l) {
            mem::forget(restore);
            ptr::copy_nonoverlapping(r, out, nb);
            ptr::copy_nonoverlapping(l, out.add(nb), na);
            return;
        }
        loop {
            let left_a = l_end.offset_from(l) as usize;
            let left_b = r_end.offset_from(r) as usize;
            // Each pair of steps takes at most two elements from a run, so with `pairs` this small
            // both runs still hold an element before every read.
            let pairs = left_a.min(left_b) / 2;
            if pairs == 0 {
                break;
            }
            for _ in 0..pairs {
                // Front: take `b`'s head only if strictly smaller (ties keep `a` first).
                let take_b = less(r, l);
                ptr::copy_nonoverlapping(if take_b { r } else { l }, out, 1);
                out = out.add(1);
                r = r.add(take_b as usize);
                l = l.add(!take_b as usize);
                // Back: take `a`'s tail only if strictly greater (ties keep `b` last).
                let take_a = less(r_end.sub(1), l_end.sub(1));
                out_end = out_end.sub(1);
                ptr::copy_nonoverlapping(
                    if take_a { l_end.sub(1) } else { r_end.sub(1) },
                    out_end,
                    1,
                );
                l_end = l_end.sub(take_a as usize);
                r_end = r_end.sub(!take_a as usize);
            }
        }
        // One run has at most one element left: finish from the front, checking bounds.
        while l < l_end && r < r_end {
            let take_b = less(r, l);
            ptr::copy_nonoverlapping(if take_b { r } else { l }, out, 1);
            out = out.add(1);
            r = r.add(take_b as usize);
            l = l.add(!take_b as usize);
        }
        let rest_a = l_end.offset_from(l) as usize;
        ptr::copy_nonoverlapping(l, out, rest_a);
        ptr::copy_nonoverlapping(r, out.add(rest_a), r_end.offset_from(r) as usize);
        // Every element now sits in `dst` in merged order: the verbatim copy must not run.
        mem::forget(restore);
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
