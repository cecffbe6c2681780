//! Parallel unstable sort: quicksort in the style of pdqsort, recursing with `join`.
//!
//! Each step picks a pivot by the ninther (median of three medians of three; on long slices the
//! median of a 255-element sample, for balanced top-level splits), partitions in place (block
//! partitioning: no data-dependent branch) and sorts both sides in parallel. Below a cut-off the
//! slice goes to std's `sort_unstable_by`. Two pdqsort ideas keep the worst case at O(n log n):
//! * many equal elements: a side whose pivot equals the pivot of the partition that bounds it from
//!   below is split into "equal" (done) and "greater" (recursed), so duplicates cost one pass;
//! * adversarial input: every badly unbalanced partition costs one unit of a budget of log2(n); the
//!   positions around the pivot samples are scrambled, and when the budget runs out the slice goes to
//!   std's `sort_unstable_by` (itself O(n log n) worst case).
//!
//! Safe code only: a panicking comparator can only leave the slice in a permuted order.

use std::cmp::Ordering;
use std::mem;

use super::parallel_threads;
use crate::runtime::sharing::publish_on_heartbeat;

/// Below this many elements the whole sort is sequential (std's `sort_unstable_by`).
const SEQ_LEN: usize = 1 << 14;
/// Smallest leaf of the parallel recursion.
const MIN_LEAF: usize = 1 << 13;
/// Leaves per thread (roughly): enough pieces for work stealing to balance uneven partitions.
const LEAVES_PER_THREAD: usize = 8;

/// Sorts `v` in parallel by `compare`, not preserving the order of equal elements.
pub(crate) fn par_quicksort<T, F>(v: &mut [T], compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let Some(threads) = parallel_threads(v, compare, SEQ_LEN, |v| v.sort_unstable_by(compare))
    else {
        return;
    };
    let leaf_len = (v.len() / (LEAVES_PER_THREAD * threads)).max(MIN_LEAF);
    sort_with_leaf(v, compare, leaf_len);
}

/// The parallel quicksort with an explicit leaf size (unit tests use tiny ones).
pub(super) fn sort_with_leaf<T, F>(v: &mut [T], compare: &F, leaf_len: usize)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let budget = usize::BITS - v.len().leading_zeros();
    recurse(v, compare, None, budget, leaf_len.max(1));
}

/// Sorts `v`. `pred`, if any, is the pivot of an enclosing partition that every element of `v` is
/// greater than or equal to. `budget` counts the unbalanced partitions still tolerated.
fn recurse<'a, T, F>(
    mut v: &'a mut [T],
    compare: &F,
    pred: Option<&'a mut T>,
    mut budget: u32,
    leaf_len: usize,
) where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let is_less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
    loop {
        let len = v.len();
        publish_on_heartbeat();
        if len <= leaf_len || len < 8 || budget == 0 {
            v.sort_unstable_by(compare);
            return;
        }
        let pivot = choose_pivot(v, compare);
        if let Some(p) = pred.as_deref() {
            if !is_less(p, &v[pivot]) {
                // pivot <= pred <= every element, so pivot == pred: peel off all copies of it (they
                // are in their final place) and go on with the strictly greater rest.
                let equal = partition(v, pivot, |x, piv| !is_less(piv, x));
                v = &mut mem::take(&mut v)[equal + 1..];
                continue;
            }
        }
        let mid = partition(v, pivot, is_less);
        let (left, rest) = mem::take(&mut v).split_at_mut(mid);
        let (pivot, right) = rest.split_first_mut().expect("the pivot is in the slice");
        if left.len().min(right.len()) < len / 8 {
            budget -= 1;
            scramble(left);
            scramble(right);
        }
        crate::join(
            || recurse(left, compare, pred, budget, leaf_len),
            || recurse(right, compare, Some(pivot), budget, leaf_len),
        );
        return;
    }
}

/// Slices at least this long take their pivot from a sorted sample of [`SAMPLE`] elements.
const SAMPLE_FROM: usize = 1 << 16;
/// Sample size for long slices: the median of 255 evenly spaced elements lands within ~3% of the
/// true median (one standard deviation), where the ninther's spread is ~15%. Those are the top
/// levels of the recursion, where an unbalanced split leaves a thread without work.
const SAMPLE: usize = 255;

/// Picks a pivot and returns its index (`v.len() >= 8`).
///
/// The ninther (median of the medians of three triples around the quartiles), or for long slices
/// the median of a sample, moved to the front of `v` and sorted there.
fn choose_pivot<T, F>(v: &mut [T], compare: &F) -> usize
where
    F: Fn(&T, &T) -> Ordering,
{
    let len = v.len();
    if len >= SAMPLE_FROM {
        let step = len / SAMPLE;
        // step >= SAMPLE, so the sources i * step (i >= 1) never fall inside v[..SAMPLE].
        for i in 1..SAMPLE {
            v.swap(i, i * step);
        }
        v[..SAMPLE].sort_unstable_by(compare);
        return SAMPLE / 2;
    }
    let is_less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
    let q = len / 4;
    let median3 = |a: usize, b: usize, c: usize| {
        let x = is_less(&v[a], &v[b]);
        let y = is_less(&v[a], &v[c]);
        if x == y {
            // a is the smallest or the largest: the median is the median of b and c.
            let z = is_less(&v[b], &v[c]);
            if z ^ x {
                c
            } else {
                b
            }
        } else {
            a
        }
    };
    let a = median3(q - 1, q, q + 1);
    let b = median3(2 * q - 1, 2 * q, 2 * q + 1);
    let c = median3(3 * q - 1, 3 * q, 3 * q + 1);
    median3(a, b, c)
}

/// Moves the element at `pivot` to its place in a partition of `v` by `goes_left(x, pivot)`:
/// afterwards `v[..m]` all go left, `v[m]` is the pivot, `v[m + 1..]` all go right. Returns `m`.
fn partition<T>(v: &mut [T], pivot: usize, goes_left: impl Fn(&T, &T) -> bool) -> usize {
    v.swap(0, pivot);
    let (piv, rest) = v.split_first_mut().expect("partition of an empty slice");
    let m = partition_blocks(rest, |x| goes_left(x, piv));
    v.swap(0, m);
    m
}

/// Elements per block of [`partition_blocks`]: offsets fit a `u8`, and a block's offsets stay in L1.
const BLOCK: usize = 128;

/// Partitions `v` by `goes_left` and returns the number of left-goers, which end up first.
///
/// Block partitioning (Edelkamp & Weiß, "BlockQuicksort", 2016), in safe code: scan a block at each
/// end, recording the offsets of misplaced elements without branching on the data, then swap the
/// misplaced pairs. Comparisons and swaps are separate loops, so a wrong branch prediction never
/// stalls the scan. The middle that is left over (under three blocks) goes through a branch-free
/// Lomuto pass.
fn partition_blocks<T>(v: &mut [T], goes_left: impl Fn(&T) -> bool) -> usize {
    // Invariant: v[..l] go left, v[r..] go right; the blocks being worked on are v[l..l + BLOCK]
    // (its misplaced elements at offsets_l[start_l..start_l + num_l]) and v[r - BLOCK..r] (offsets
    // counted from its end).
    let (mut l, mut r) = (0, v.len());
    let mut offsets_l = [0u8; BLOCK];
    let mut offsets_r = [0u8; BLOCK];
    let (mut start_l, mut num_l) = (0, 0);
    let (mut start_r, mut num_r) = (0, 0);
    while r - l >= 2 * BLOCK {
        if num_l == 0 {
            start_l = 0;
            let block = &v[l..l + BLOCK];
            for (i, x) in block.iter().enumerate() {
                offsets_l[num_l] = i as u8;
                num_l += !goes_left(x) as usize;
            }
        }
        if num_r == 0 {
            start_r = 0;
            let block = &v[r - BLOCK..r];
            for (i, x) in block.iter().rev().enumerate() {
                offsets_r[num_r] = i as u8;
                num_r += goes_left(x) as usize;
            }
        }
        let num = num_l.min(num_r);
        for k in 0..num {
            let a = l + offsets_l[start_l + k] as usize;
            let b = r - 1 - offsets_r[start_r + k] as usize;
            v.swap(a, b);
        }
        (start_l, num_l) = (start_l + num, num_l - num);
        (start_r, num_r) = (start_r + num, num_r - num);
        if num_l == 0 {
            l += BLOCK;
        }
        if num_r == 0 {
            r -= BLOCK;
        }
    }
    // The rest, including a block with misplaced elements left over, is partitioned from scratch:
    // branch-free Lomuto, where v[l..m] go left and v[m..i] go right.
    let mut m = l;
    for i in l..r {
        let left = goes_left(&v[i]);
        v.swap(m, i);
        m += left as usize;
    }
    m
}

/// Swaps a few elements near the quarter points with pseudo-random partners, so that an input built
/// to defeat the ninther does not keep producing unbalanced partitions.
fn scramble<T>(v: &mut [T]) {
    let len = v.len();
    if len < 8 {
        return;
    }
    // xorshift64, seeded by the length: deterministic, different for each sub-slice length.
    let mut seed = len as u64 | 1;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % len as u64) as usize
    };
    let q = len / 4;
    for pos in [
        q - 1,
        q,
        q + 1,
        2 * q - 1,
        2 * q,
        2 * q + 1,
        3 * q - 1,
        3 * q,
        3 * q + 1,
    ] {
        let other = next();
        v.swap(pos, other);
    }
}
