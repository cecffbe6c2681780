//! Parallel sorts against std's sorts: input shapes, lengths around the cut-offs, stability, large
//! element types, comparator panics, and runs inside a 4-thread pool (more threads than cores).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering as AtOrd};

use forkjoin::prelude::*;
use forkjoin::{ThreadPool, ThreadPoolBuilder};

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

fn pool(threads: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("building a test pool")
}

/// Named input shapes of length `len`.
fn shapes(len: usize, rng: &mut Rng) -> Vec<(&'static str, Vec<u64>)> {
    let n = len as u64;
    vec![
        ("random", (0..len).map(|_| rng.next()).collect()),
        ("sorted", (0..n).collect()),
        ("reversed", (0..n).rev().collect()),
        ("all-equal", vec![42; len]),
        ("few-unique", (0..len).map(|_| rng.next() % 5).collect()),
        (
            "sorted+noise",
            (0..n)
                .map(|i| {
                    if i % 1000 == 7 {
                        rng.next() % n.max(1)
                    } else {
                        i
                    }
                })
                .collect(),
        ),
        ("sawtooth", (0..n).map(|i| i % 1009).collect()),
        ("organ-pipe", (0..n).map(|i| i.min(n - i)).collect()),
    ]
}

/// Lengths: tiny, odd/prime, and around the sequential cut-offs (2^13, 2^14) and the merge cut-off.
const LENGTHS: &[usize] = &[
    0, 1, 2, 3, 5, 17, 101, 997, 8191, 8192, 8193, 16383, 16384, 16385, 32768, 32771, 65537,
    100_003,
];

fn check_all_sorts_on_u64(len: usize, seed: u64) {
    let mut rng = Rng(seed);
    for (name, input) in shapes(len, &mut rng) {
        let mut expected = input.clone();
        expected.sort();
        let mut v = input.clone();
        v.par_sort();
        assert_eq!(v, expected, "par_sort, {name}, len {len}");
        let mut v = input.clone();
        v.par_sort_unstable();
        assert_eq!(v, expected, "par_sort_unstable, {name}, len {len}");
        let mut v = input.clone();
        v.par_sort_by(|a, b| b.cmp(a));
        assert!(
            v.iter().eq(expected.iter().rev()),
            "par_sort_by desc, {name}, len {len}"
        );
        let mut v = input.clone();
        v.par_sort_unstable_by(|a, b| b.cmp(a));
        assert!(
            v.iter().eq(expected.iter().rev()),
            "par_sort_unstable_by desc, {name}, len {len}"
        );
        let mut v = input.clone();
        v.par_sort_unstable_by_key(|&x| std::cmp::Reverse(x));
        assert!(
            v.iter().eq(expected.iter().rev()),
            "par_sort_unstable_by_key, {name}, len {len}"
        );
    }
}

#[test]
fn u64_shapes_and_lengths_match_std() {
    for &len in LENGTHS {
        check_all_sorts_on_u64(len, len as u64);
    }
}

#[test]
fn u64_shapes_and_lengths_match_std_in_a_4_thread_pool() {
    pool(4).install(|| {
        for &len in LENGTHS {
            check_all_sorts_on_u64(len, len as u64 + 1);
        }
    });
}

#[test]
fn a_million_elements_in_pools_of_2_and_4_threads() {
    let mut rng = Rng(1_000_000);
    let input: Vec<u64> = (0..1_000_000).map(|_| rng.next()).collect();
    let mut expected = input.clone();
    expected.sort_unstable();
    for threads in [2, 4] {
        pool(threads).install(|| {
            let mut v = input.clone();
            v.par_sort();
            assert_eq!(v, expected, "par_sort, {threads} threads");
            let mut v = input.clone();
            v.par_sort_unstable();
            assert_eq!(v, expected, "par_sort_unstable, {threads} threads");
        });
    }
    // And in the global pool.
    let mut v = input.clone();
    v.par_sort_unstable();
    assert_eq!(v, expected, "par_sort_unstable, global pool");
}

/// Stability: sort (key, original index) pairs by key only; the result must equal std's stable sort,
/// which keeps indices increasing within each key.
fn check_stability(len: usize, distinct_keys: u64, seed: u64) {
    let mut rng = Rng(seed);
    let input: Vec<(u64, usize)> = (0..len).map(|i| (rng.next() % distinct_keys, i)).collect();
    let mut expected = input.clone();
    expected.sort_by_key(|p| p.0);
    let mut v = input.clone();
    v.par_sort_by_key(|p| p.0);
    assert_eq!(
        v, expected,
        "par_sort_by_key, len {len}, {distinct_keys} keys"
    );
    let mut v = input.clone();
    v.par_sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(v, expected, "par_sort_by, len {len}, {distinct_keys} keys");
    // Descending keys: ties still keep their original order.
    let mut expected_desc = input.clone();
    expected_desc.sort_by_key(|p| std::cmp::Reverse(p.0));
    let mut v = input;
    v.par_sort_by(|a, b| b.0.cmp(&a.0));
    assert_eq!(
        v, expected_desc,
        "par_sort_by descending, len {len}, {distinct_keys} keys"
    );
}

#[test]
fn stable_sorts_keep_equal_elements_in_order() {
    pool(4).install(|| {
        for &len in LENGTHS {
            for keys in [1, 3, 100, 1 << 40] {
                check_stability(len, keys, len as u64 ^ keys);
            }
        }
        check_stability(300_007, 17, 5);
    });
}

#[test]
fn strings() {
    let mut rng = Rng(77);
    let input: Vec<String> = (0..50_000)
        .map(|_| format!("{:x}", rng.next() % 100_000))
        .collect();
    let mut expected = input.clone();
    expected.sort();
    pool(4).install(|| {
        let mut v = input.clone();
        v.par_sort();
        assert_eq!(v, expected);
        let mut v = input.clone();
        v.par_sort_unstable();
        assert_eq!(v, expected);
        // By length, stably: equal lengths keep the input order.
        let mut by_len = input.clone();
        by_len.sort_by_key(|s| s.len());
        let mut v = input.clone();
        v.par_sort_by_key(|s| s.len());
        assert_eq!(v, by_len);
    });
}

/// A large element: a key plus a 128-byte payload that must travel with it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big {
    key: u32,
    payload: [u64; 16],
}

#[test]
fn large_structs() {
    let mut rng = Rng(99);
    let input: Vec<Big> = (0..40_000)
        .map(|i| {
            let key = (rng.next() % 1000) as u32;
            Big {
                key,
                payload: [i as u64 ^ u64::from(key); 16],
            }
        })
        .collect();
    let mut expected = input.clone();
    expected.sort_by_key(|b| b.key);
    pool(4).install(|| {
        let mut v = input.clone();
        v.par_sort_by_key(|b| b.key);
        assert_eq!(
            v, expected,
            "stable: payloads follow keys and ties keep order"
        );
        let mut v = input.clone();
        v.par_sort_unstable_by_key(|b| b.key);
        assert!(v.windows(2).all(|w| w[0].key <= w[1].key));
        assert!(
            v.iter().all(|b| b.payload == [b.payload[0]; 16]),
            "payloads intact"
        );
        let mut ids: Vec<u64> = v.iter().map(|b| b.payload[0] ^ u64::from(b.key)).collect();
        ids.sort_unstable();
        assert!(
            ids.iter().copied().eq(0..40_000),
            "every element exactly once"
        );
    });
}

/// Counts its drops per element, to prove "exactly once" after a comparator panic.
struct Tracked<'a> {
    key: u64,
    id: usize,
    drops: &'a [AtomicUsize],
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.drops[self.id].fetch_add(1, AtOrd::Relaxed);
    }
}

/// The number of comparisons a sort of `len` tracked elements makes (deterministic for one input).
fn comparisons(len: usize, stable: bool) -> usize {
    check_comparator_panic(len, usize::MAX, stable)
}

/// Sorts `len` tracked elements with a comparator that panics on call number `panic_after`; returns
/// the number of comparator calls.
fn check_comparator_panic(len: usize, panic_after: usize, stable: bool) -> usize {
    let drops: Vec<AtomicUsize> = (0..len).map(|_| AtomicUsize::new(0)).collect();
    let mut rng = Rng(len as u64);
    let mut v: Vec<Tracked<'_>> = (0..len)
        .map(|id| Tracked {
            key: rng.next() % 1000,
            id,
            drops: &drops,
        })
        .collect();
    let calls = AtomicUsize::new(0);
    let cmp = |a: &Tracked<'_>, b: &Tracked<'_>| {
        if calls.fetch_add(1, AtOrd::Relaxed) == panic_after {
            panic!("comparator panic (expected by the test)");
        }
        a.key.cmp(&b.key)
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        if stable {
            v.par_sort_by(cmp);
        } else {
            v.par_sort_unstable_by(cmp);
        }
    }));
    let made = calls.load(AtOrd::Relaxed);
    assert_eq!(
        result.is_err(),
        made > panic_after,
        "a comparator panic reaches the caller"
    );
    let mut ids: Vec<usize> = v.iter().map(|t| t.id).collect();
    ids.sort_unstable();
    assert!(
        ids.iter().copied().eq(0..len),
        "every element still in the slice exactly once"
    );
    assert!(
        drops.iter().all(|d| d.load(AtOrd::Relaxed) == 0),
        "no element dropped by the sort"
    );
    drop(v);
    assert!(
        drops.iter().all(|d| d.load(AtOrd::Relaxed) == 1),
        "each element dropped exactly once"
    );
    made
}

#[test]
fn comparator_panic_midway_loses_and_duplicates_nothing() {
    pool(4).install(|| {
        for len in [100, 20_000, 100_000] {
            for stable in [true, false] {
                // Panic at the first call, early, midway (in merges/partitions) and at the last call.
                let total = comparisons(len, stable);
                for panic_after in [0, total / 10, total / 2, total * 9 / 10, total - 1] {
                    check_comparator_panic(len, panic_after, stable);
                }
            }
        }
    });
}

#[test]
fn zero_sized_elements() {
    let mut v = [(); 100_000];
    v.par_sort();
    v.par_sort_unstable();
    assert_eq!(v.len(), 100_000);
}

#[test]
fn inconsistent_comparator_still_permutes() {
    // A comparator that is not an order at all: the result is unspecified (std may even panic), but
    // the slice must still hold every element exactly once.
    pool(4).install(|| {
        for len in [1000, 100_000] {
            for stable in [true, false] {
                let input: Vec<u64> = (0..len).collect();
                let calls = AtomicUsize::new(0);
                let cmp = |a: &u64, b: &u64| {
                    let c = calls.fetch_add(1, AtOrd::Relaxed) as u64;
                    match (a ^ b ^ c).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 62 {
                        0 => std::cmp::Ordering::Less,
                        1 => std::cmp::Ordering::Greater,
                        _ => std::cmp::Ordering::Equal,
                    }
                };
                let mut v = input.clone();
                let _ = catch_unwind(AssertUnwindSafe(|| {
                    if stable {
                        v.par_sort_by(cmp);
                    } else {
                        v.par_sort_unstable_by(cmp);
                    }
                }));
                v.sort_unstable();
                assert_eq!(v, input, "stable: {stable}, len {len}");
            }
        }
    });
}

#[test]
fn elements_need_not_be_sync() {
    // Only `T: Send` is required, as in rayon: no element is ever shared between threads.
    use std::cell::Cell;
    let mut rng = Rng(5);
    let keys: Vec<u32> = (0..50_000).map(|_| rng.next() as u32).collect();
    let mut expected = keys.clone();
    expected.sort_unstable();
    pool(4).install(|| {
        let mut v: Vec<Cell<u32>> = keys.iter().map(|&k| Cell::new(k)).collect();
        v.par_sort_by_key(|c| c.get());
        assert!(v.iter().map(Cell::get).eq(expected.iter().copied()));
        let mut v: Vec<Cell<u32>> = keys.iter().map(|&k| Cell::new(k)).collect();
        v.par_sort_unstable_by_key(|c| c.get());
        assert!(v.iter().map(Cell::get).eq(expected.iter().copied()));
    });
}

#[test]
fn sort_by_cached_key_matches_std_and_computes_each_key_once() {
    let mut rng = Rng(23);
    for threads in [1, 2, 4] {
        pool(threads).install(|| {
            for len in [0, 1, 2, 3, 17, 1000, 50_000] {
                for (shape, keys) in shapes(len, &mut rng) {
                    // (key, original index): equal keys must keep their index order.
                    let input: Vec<(u64, usize)> = keys.into_iter().zip(0..).collect();
                    let mut expected = input.clone();
                    expected.sort_by_cached_key(|p| p.0 % 1000);
                    let mut got = input;
                    let calls = AtomicUsize::new(0);
                    got.par_sort_by_cached_key(|p| {
                        calls.fetch_add(1, AtOrd::Relaxed);
                        p.0 % 1000
                    });
                    assert_eq!(got, expected, "{shape}, len {len}, {threads} threads");
                    let calls = calls.into_inner();
                    assert_eq!(calls, if len < 2 { 0 } else { len }, "{shape}, len {len}");
                }
            }
        });
    }
}
