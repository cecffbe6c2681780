//! Unit tests of the sort internals with tiny cut-offs, so that every merge split, partition and
//! panic path is reached on small inputs (the public API only goes parallel above ~16k elements).

use std::cmp::Ordering;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::platform::sync::{AtomicUsize, Ordering as AtOrd};

use super::{stable, unstable};

/// splitmix64: a tiny deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Inputs of the shapes that stress sorts: random, few distinct keys, sorted, reversed, all equal,
/// sawtooth and "organ pipe".
fn patterns(len: usize, rng: &mut Rng) -> Vec<Vec<u32>> {
    vec![
        (0..len).map(|_| rng.next() as u32).collect(),
        (0..len).map(|_| (rng.next() % 4) as u32).collect(),
        (0..len as u32).collect(),
        (0..len as u32).rev().collect(),
        vec![7; len],
        (0..len as u32).map(|i| i % 5).collect(),
        (0..len as u32).map(|i| i.min(len as u32 - i)).collect(),
    ]
}

const LENGTHS: &[usize] = &[
    0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 64, 100, 127, 257, 1000,
];

#[test]
fn stable_matches_std_for_all_cutoffs() {
    let mut rng = Rng(1);
    for &len in LENGTHS {
        for keys in patterns(len, &mut rng) {
            // (key, original index): equal keys must keep their index order.
            let input: Vec<(u32, usize)> = keys.into_iter().zip(0..).collect();
            let mut expected = input.clone();
            expected.sort_by_key(|p| p.0);
            for depth in [0, 1, 2, 3, 4, 7, 12] {
                for merge_seq in [2, 3, 16] {
                    let mut v = input.clone();
                    stable::sort_with_depth(
                        &mut v,
                        &|a: &(u32, usize), b: &(u32, usize)| a.0.cmp(&b.0),
                        depth,
                        merge_seq,
                    );
                    assert_eq!(v, expected, "len {len} depth {depth} merge {merge_seq}");
                }
            }
        }
    }
}

#[test]
fn unstable_matches_std_for_all_cutoffs() {
    let mut rng = Rng(2);
    for &len in LENGTHS {
        for input in patterns(len, &mut rng) {
            let mut expected = input.clone();
            expected.sort_unstable();
            for leaf in [1, 2, 8, 50] {
                let mut v = input.clone();
                unstable::sort_with_leaf(&mut v, &u32::cmp, leaf);
                assert_eq!(v, expected, "len {len} leaf {leaf}");
            }
        }
    }
}

#[test]
fn long_slices_match_std() {
    // Long enough for the sampled pivot (unstable) and for deep, many-piece merges (stable).
    let mut rng = Rng(3);
    for input in patterns(100_003, &mut rng) {
        let mut expected = input.clone();
        expected.sort_unstable();
        let mut v = input.clone();
        unstable::sort_with_leaf(&mut v, &u32::cmp, 1000);
        assert_eq!(v, expected, "unstable");
        let mut v = input.clone();
        stable::sort_with_depth(&mut v, &u32::cmp, 6, 1000);
        assert_eq!(v, expected, "stable");
    }
}

/// McIlroy's adversary ("A Killer Adversary for Quicksort", 1999): element values are decided lazily,
/// during the sort, so that every pivot turns out to be nearly the smallest element. Any quicksort
/// with a constant number of pivot candidates goes quadratic without a fall-back.
struct Adversary {
    val: Vec<usize>,
    gas: usize,
    solid: usize,
    candidate: usize,
}

impl Adversary {
    fn compare(&mut self, x: usize, y: usize) -> Ordering {
        if self.val[x] == self.gas && self.val[y] == self.gas {
            let freeze = if x == self.candidate { x } else { y };
            self.val[freeze] = self.solid;
            self.solid += 1;
        }
        if self.val[x] == self.gas {
            self.candidate = x;
        } else if self.val[y] == self.gas {
            self.candidate = y;
        }
        self.val[x].cmp(&self.val[y])
    }
}

#[test]
fn unstable_stays_n_log_n_against_an_adaptive_adversary() {
    let len = 1 << 14;
    let adversary = crate::platform::sync::Mutex::new(Adversary {
        val: vec![len; len],
        gas: len,
        solid: 0,
        candidate: 0,
    });
    let calls = AtomicUsize::new(0);
    let cmp = |a: &usize, b: &usize| {
        calls.fetch_add(1, AtOrd::Relaxed);
        adversary.lock().unwrap().compare(*a, *b)
    };
    let mut v: Vec<usize> = (0..len).collect();
    unstable::sort_with_leaf(&mut v, &cmp, 1);
    let adversary = adversary.into_inner().unwrap();
    assert!(
        v.windows(2)
            .all(|w| adversary.val[w[0]] <= adversary.val[w[1]]),
        "sorted"
    );
    let made = calls.load(AtOrd::Relaxed);
    // n log2 n is ~230k; this sort makes ~610k; without the bad-partition budget it makes ~14M.
    assert!(made < 8 * len * 14, "{made} comparisons");
}

/// An element that records how often it is dropped.
struct Tracked<'a> {
    key: u32,
    id: usize,
    drops: &'a [AtomicUsize],
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.drops[self.id].fetch_add(1, AtOrd::Relaxed);
    }
}

/// Runs `sort` with a comparator that panics at comparison number `panic_at`, then checks that the
/// slice still holds every element exactly once and that each is dropped exactly once.
fn check_panic_safety(
    len: usize,
    panic_at: usize,
    sort: impl Fn(&mut [Tracked<'_>], &(dyn Fn(&Tracked<'_>, &Tracked<'_>) -> Ordering + Sync)),
) {
    let drops: Vec<AtomicUsize> = (0..len).map(|_| AtomicUsize::new(0)).collect();
    let mut rng = Rng(len as u64 * 31 + panic_at as u64);
    let mut v: Vec<Tracked<'_>> = (0..len)
        .map(|id| Tracked {
            key: (rng.next() % 50) as u32,
            id,
            drops: &drops,
        })
        .collect();
    let count = AtomicUsize::new(0);
    let cmp = |a: &Tracked<'_>, b: &Tracked<'_>| {
        if count.fetch_add(1, AtOrd::Relaxed) == panic_at {
            panic!("comparator panic (expected by the test)");
        }
        a.key.cmp(&b.key)
    };
    let result = catch_unwind(AssertUnwindSafe(|| sort(&mut v, &cmp)));
    let compared = count.load(AtOrd::Relaxed);
    assert_eq!(
        result.is_err(),
        compared > panic_at,
        "panicked iff the comparator did"
    );
    let mut ids: Vec<usize> = v.iter().map(|t| t.id).collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        (0..len).collect::<Vec<_>>(),
        "every element exactly once after the panic"
    );
    assert!(
        drops.iter().all(|d| d.load(AtOrd::Relaxed) == 0),
        "nothing dropped by the sort"
    );
    drop(v);
    assert!(
        drops.iter().all(|d| d.load(AtOrd::Relaxed) == 1),
        "each element dropped exactly once"
    );
}

#[test]
fn stable_comparator_panic_keeps_every_element() {
    for len in [2, 9, 40, 300] {
        for panic_at in (0..len * 12).step_by(len / 2 + 1) {
            for (depth, merge_seq) in [(12, 2), (3, 3), (2, 64)] {
                check_panic_safety(len, panic_at, |v, cmp| {
                    stable::sort_with_depth(v, &cmp, depth, merge_seq)
                });
            }
        }
    }
}

#[test]
fn unstable_comparator_panic_keeps_every_element() {
    for len in [2, 9, 40, 300] {
        for panic_at in (0..len * 12).step_by(len / 2 + 1) {
            for leaf in [1, 16] {
                check_panic_safety(len, panic_at, |v, cmp| {
                    unstable::sort_with_leaf(v, &cmp, leaf)
                });
            }
        }
    }
}

#[test]
fn inconsistent_comparator_still_permutes() {
    // Not an order at all: the merges must still take every element exactly once.
    for len in [5, 100, 1000, 5000] {
        for (depth, merge_seq) in [(12, 2), (4, 100)] {
            let calls = AtomicUsize::new(0);
            let cmp = |a: &u64, b: &u64| {
                let c = calls.fetch_add(1, AtOrd::Relaxed) as u64;
                [
                    Ordering::Less,
                    Ordering::Greater,
                    Ordering::Equal,
                    Ordering::Less,
                ][((a ^ b ^ c).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 62) as usize]
            };
            let input: Vec<u64> = (0..len).collect();
            let mut v = input.clone();
            // std's leaf sort may detect the violation and panic; either way nothing is lost.
            let _ = catch_unwind(AssertUnwindSafe(|| {
                stable::sort_with_depth(&mut v, &cmp, depth, merge_seq)
            }));
            v.sort_unstable();
            assert_eq!(v, input, "stable, len {len}");
            let mut v = input.clone();
            let _ = catch_unwind(AssertUnwindSafe(|| {
                unstable::sort_with_leaf(&mut v, &cmp, 1)
            }));
            v.sort_unstable();
            assert_eq!(v, input, "unstable, len {len}");
        }
    }
}
