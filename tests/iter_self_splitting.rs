//! The unindexed sources that cut themselves: `iter::split`, the tree walks and the slice splits
//! (`par_split`, `par_split_inclusive` and their `_mut` forms), against their sequential
//! equivalents, with owned items dropped exactly once and panics midway.

mod iter_common;

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use forkjoin::iter::{split, walk_tree, walk_tree_postfix, walk_tree_prefix};
use forkjoin::prelude::*;
use iter_common::{
    assert_dropped_once, assert_panics, drop_counters, everywhere, random_inputs, Rng, Tracked,
    LENGTHS,
};

/// Halves a range down to pieces of at most `leaf` numbers.
fn halve(leaf: usize) -> impl Fn(Range<usize>) -> (Range<usize>, Option<Range<usize>>) + Sync {
    move |r| {
        if r.len() <= leaf {
            (r, None)
        } else {
            let mid = r.start + r.len() / 2;
            (r.start..mid, Some(mid..r.end))
        }
    }
}

#[test]
fn split_pieces_cover_the_data_in_order() {
    everywhere(|| {
        for &n in LENGTHS {
            for leaf in [1, 3, 1000] {
                let got: Vec<usize> = split(0..n, halve(leaf)).flat_map_iter(|r| r).collect();
                assert_eq!(got, (0..n).collect::<Vec<_>>(), "n = {n}, leaf = {leaf}");
                let pieces: Vec<Range<usize>> = split(0..n, halve(leaf)).collect();
                // How far the data is cut is the pool's choice; the pieces are contiguous.
                assert!(pieces.windows(2).all(|w| w[0].end == w[1].start));
            }
        }
        // A splitter that never cuts: the data is the one item.
        let one: Vec<Vec<u8>> = split(vec![1, 2, 3], |v| (v, None)).collect();
        assert_eq!(one, [vec![1, 2, 3]]);
    });
}

#[test]
fn split_drops_owned_data_once_and_propagates_panics() {
    everywhere(|| {
        let n = 300;
        let drops = drop_counters(n);
        let items: Vec<Tracked> = (0..n).map(|id| Tracked::new(id, &drops)).collect();
        let cut = |mut v: Vec<Tracked>| {
            if v.len() <= 2 {
                (v, None)
            } else {
                let right = v.split_off(v.len() / 2);
                (v, Some(right))
            }
        };
        let ids: Vec<usize> = split(items, cut)
            .flat_map_iter(|v| v.into_iter().map(|t| t.id))
            .collect();
        assert_eq!(ids, (0..n).collect::<Vec<_>>());
        assert_dropped_once(&drops, "split");

        let drops = drop_counters(n);
        let items: Vec<Tracked> = (0..n).map(|id| Tracked::new(id, &drops)).collect();
        assert_panics(
            || {
                split(items, cut).for_each(|v| {
                    if v.iter().any(|t| t.id == n / 3) {
                        panic!("split boom");
                    }
                })
            },
            "split boom",
        );
        assert_dropped_once(&drops, "split panic");
    });
}

/// A random tree of `n` nodes `0..n` in prefix order: node `r` owns the range `r..end`, its
/// children cut `r + 1..end` into up to `degree` random parts.
fn random_children(degree: u64, seed: u64) -> impl Fn(&Range<usize>) -> Vec<Range<usize>> + Sync {
    move |r: &Range<usize>| {
        let mut rng = Rng::new(seed ^ r.start as u64);
        let mut rest = r.start + 1..r.end;
        let mut kids = Vec::new();
        while !rest.is_empty() {
            let parts = 1 + rng.next_u64() % degree;
            let len = rest.len().div_ceil(parts as usize).max(1);
            kids.push(rest.start..rest.start + len);
            rest.start += len;
        }
        kids
    }
}

/// The sequential prefix and postfix orders of the same tree (recursion: the test trees are
/// shallow).
fn sequential_walk<S, I>(node: S, children: &impl Fn(&S) -> I, pre: &mut Vec<S>, post: &mut Vec<S>)
where
    S: Clone,
    I: IntoIterator<Item = S>,
{
    pre.push(node.clone());
    for child in children(&node) {
        sequential_walk(child, children, pre, post);
    }
    post.push(node);
}

#[test]
fn tree_walks_match_the_sequential_orders() {
    everywhere(|| {
        for &n in LENGTHS.iter().filter(|&&n| (1..=4099).contains(&n)) {
            for degree in [1, 2, 5] {
                let children = random_children(degree, n as u64);
                let (mut pre, mut post) = (Vec::new(), Vec::new());
                sequential_walk(0..n, &children, &mut pre, &mut post);
                let got: Vec<_> = walk_tree_prefix(0..n, &children).collect();
                assert_eq!(got, pre, "prefix, n = {n}, degree = {degree}");
                let got: Vec<_> = walk_tree_postfix(0..n, &children).collect();
                assert_eq!(got, post, "postfix, n = {n}, degree = {degree}");
                let mut any: Vec<usize> = walk_tree(0..n, &children).map(|r| r.start).collect();
                any.sort_unstable();
                assert_eq!(any, (0..n).collect::<Vec<_>>(), "walk_tree, n = {n}");
            }
        }
    });
}

#[test]
fn a_deep_chain_is_walked_without_recursion() {
    let n = 200_000u32;
    let next = |&e: &u32| (e + 1 < n).then_some(e + 1);
    let pre: Vec<u32> = walk_tree_prefix(0, next).collect();
    assert!(pre.into_iter().eq(0..n));
    let prev = |&e: &u32| e.checked_sub(1);
    let post: Vec<u32> = walk_tree_postfix(n - 1, prev).collect();
    assert!(post.into_iter().eq(0..n));
}

#[test]
fn tree_walks_drop_owned_nodes_once_and_propagate_panics() {
    everywhere(|| {
        let n = 500;
        // Node i has children 2i + 1 and 2i + 2 (a heap-shaped tree); the nodes are owned.
        for prefix in [true, false] {
            let drops = drop_counters(n);
            let made = AtomicUsize::new(1);
            let children = |t: &Tracked| {
                let kids: Vec<Tracked> = [2 * t.id + 1, 2 * t.id + 2]
                    .into_iter()
                    .filter(|&k| k < n)
                    .map(|k| Tracked::new(k, &drops))
                    .collect();
                made.fetch_add(kids.len(), Ordering::Relaxed);
                kids
            };
            let root = Tracked::new(0, &drops);
            let count = if prefix {
                walk_tree_prefix(root, children).count()
            } else {
                walk_tree_postfix(root, children).count()
            };
            assert_eq!(count, n);
            assert_dropped_once(&drops, "walk");

            made.store(1, Ordering::Relaxed);
            let root = Tracked::new(0, &drops);
            let panicky = |t: &Tracked| {
                if t.id == n / 5 {
                    panic!("walk boom");
                }
                children(t)
            };
            assert_panics(
                || {
                    if prefix {
                        walk_tree_prefix(root, panicky).for_each(drop);
                    } else {
                        walk_tree_postfix(root, panicky).for_each(drop);
                    }
                },
                "walk boom",
            );
            // Nodes below the panicking one were never made; every node made was dropped once
            // (the counters still hold the one drop of the first walk).
            let dropped: usize = drops.iter().map(|d| d.load(Ordering::Relaxed) - 1).sum();
            assert!(drops.iter().all(|d| d.load(Ordering::Relaxed) <= 2));
            assert_eq!(dropped, made.load(Ordering::Relaxed));
        }
    });
}

#[test]
fn slice_splits_match_std() {
    everywhere(|| {
        for v in random_inputs(7, 1000) {
            let n = v.len();
            for m in [1, 2, 7, 100, 1001] {
                let sep = |x: &u64| x % m == 0;
                let a: Vec<&[u64]> = v.split(sep).collect();
                assert_eq!(v.par_split(sep).collect::<Vec<_>>(), a, "n = {n}, m = {m}");
                let a: Vec<&[u64]> = v.split_inclusive(sep).collect();
                let b: Vec<&[u64]> = v.par_split_inclusive(sep).collect();
                assert_eq!(b, a, "inclusive, n = {n}, m = {m}");

                let (mut v1, mut v2) = (v.clone(), v.clone());
                let a: Vec<&mut [u64]> = v1.split_mut(sep).collect();
                let b: Vec<&mut [u64]> = v2.par_split_mut(sep).collect();
                assert_eq!(b, a, "mut, n = {n}, m = {m}");
                let (mut v1, mut v2) = (v.clone(), v.clone());
                let a: Vec<&mut [u64]> = v1.split_inclusive_mut(sep).collect();
                let b: Vec<&mut [u64]> = v2.par_split_inclusive_mut(sep).collect();
                assert_eq!(b, a, "inclusive mut, n = {n}, m = {m}");
            }
        }
        // Separators at both ends and next to each other.
        let v = [0, 0, 1, 0, 0];
        let zero = |x: &i32| *x == 0;
        assert_eq!(
            v.par_split(zero).collect::<Vec<_>>(),
            v.split(zero).collect::<Vec<_>>()
        );
        assert_eq!(
            v.par_split_inclusive(zero).collect::<Vec<_>>(),
            v.split_inclusive(zero).collect::<Vec<_>>()
        );
    });
}

#[test]
fn slice_split_mut_writes_every_part_and_propagates_panics() {
    everywhere(|| {
        let mut v: Vec<u32> = (0..10_000).collect();
        v.par_split_mut(|x| x % 10 == 0).for_each(|part| {
            for x in part {
                *x = 1;
            }
        });
        assert!(v
            .iter()
            .enumerate()
            .all(|(i, &x)| (x == 1) == (i % 10 != 0)));

        let v: Vec<u32> = (0..10_000).collect();
        assert_panics(
            || {
                v.par_split(|x| {
                    if *x == 7_777 {
                        panic!("separator boom");
                    }
                    x % 10 == 0
                })
                .count();
            },
            "separator boom",
        );
    });
}

#[test]
fn self_splitting_sources_stop_early() {
    everywhere(|| {
        let v: Vec<u32> = (0..100_000).collect();
        let first = v.par_split(|x| x % 100 == 0).find_first(|s| s.len() > 1);
        assert_eq!(first, Some(&v[1..100]));
        let found = walk_tree_prefix(0..100_000usize, random_children(3, 1))
            .find_any(|r| r.start == 99_999);
        assert_eq!(found.map(|r| r.start), Some(99_999));
    });
}

#[test]
fn clone_and_debug_like_rayon() {
    let v = [1, 3, 4, 6, 7];
    let it = v.par_split(|x| x % 3 == 0);
    assert_eq!(it.clone().collect::<Vec<_>>(), it.collect::<Vec<_>>());
    let it = v.par_split_inclusive(|x| x % 3 == 0);
    assert_eq!(
        format!("{it:?}"),
        "SplitInclusive { slice: [1, 3, 4, 6, 7] }"
    );
    assert_eq!(it.clone().count(), it.count());
    let mut w = v;
    let it = w.par_split_mut(|x| x % 3 == 0);
    assert_eq!(format!("{it:?}"), "SplitMut { slice: [1, 3, 4, 6, 7] }");

    let s = split(0..10, |r| (r, None));
    assert_eq!(format!("{s:?}"), "Split { data: 0..10 }");
    assert_eq!(s.clone().collect::<Vec<_>>(), s.collect::<Vec<_>>());
    let w = walk_tree_prefix(1u8, |_| None);
    assert_eq!(format!("{w:?}"), "WalkTreePrefix { initial_state: 1 }");
}

/// A pool of `threads` workers, for the tests that need an exact size.
fn pool(threads: usize) -> forkjoin::ThreadPool {
    forkjoin::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool")
}

/// Some work that the optimizer cannot remove, heavier for larger `cost`.
fn busy(cost: u64) -> u64 {
    (0..cost).fold(cost, |acc, x| {
        std::hint::black_box(acc.wrapping_mul(31) ^ x)
    })
}

#[test]
fn a_split_source_is_cut_when_the_bridge_asks_on_an_unbalanced_load() {
    let pool = pool(2);
    let n = 4096usize;
    let cuts = AtomicUsize::new(0);
    // Items near the end cost far more than the others: the first cuts leave one thread with most
    // of the work, and only cuts made on request share it.
    let cost = |i: usize| if i >= n - n / 8 { 20_000 } else { 10 };
    let expected: u64 = (0..n)
        .map(|i| busy(cost(i) as u64))
        .fold(0, u64::wrapping_add);
    // A run that starts while the other worker sleeps may start as one leaf, and a `split` piece
    // is one item: such a run is never cut. Over ten runs, some must be.
    for _ in 0..10 {
        let got = pool.install(|| {
            split(0..n, |r: Range<usize>| {
                let (left, right) = halve(1)(r);
                if right.is_some() {
                    cuts.fetch_add(1, Ordering::Relaxed);
                }
                (left, right)
            })
            .map(|r| r.map(|i| busy(cost(i) as u64)).fold(0, u64::wrapping_add))
            .reduce(|| 0, u64::wrapping_add)
        });
        assert_eq!(got, expected);
    }
    assert!(cuts.load(Ordering::Relaxed) > 0, "no cut on 2 threads");
}

/// A comb of the nodes `0..len` (`len` odd): an even node `i` has the children `i + 1` (a leaf)
/// and `i + 2`.
fn comb(len: u32) -> impl Fn(&u32) -> Vec<u32> + Sync {
    move |&i| {
        if i % 2 == 1 || i + 2 >= len {
            vec![]
        } else {
            vec![i + 1, i + 2]
        }
    }
}

#[test]
fn a_running_walk_is_cut_on_request_with_bounded_stacks() {
    // Every cut of a comb peels off one leaf, and an idle worker keeps asking: the cuts of a piece
    // nest joins on the stacks of both workers, which must stay bounded.
    let len = 400_001u32;
    for threads in [1, 2, 4] {
        let pool = pool(threads);
        for _ in 0..3 {
            let pre: Vec<u32> = pool.install(|| walk_tree_prefix(0, comb(len)).collect());
            assert!(
                pre.iter().copied().eq(0..len),
                "prefix on {threads} threads"
            );
            let sum: u64 = pool.install(|| {
                walk_tree_postfix(0, comb(len))
                    .map(|i| busy(u64::from(i % 64)) ^ busy(u64::from(i % 64)) ^ u64::from(i))
                    .sum()
            });
            assert_eq!(
                sum,
                (0..u64::from(len)).sum::<u64>(),
                "postfix on {threads} threads"
            );
        }
    }
}

#[test]
fn moved_sources_give_exact_results_on_1_and_4_threads() {
    let n = 50_000usize;
    let children = random_children(4, 7);
    let (mut pre, mut post) = (Vec::new(), Vec::new());
    sequential_walk(0..n, &children, &mut pre, &mut post);
    let v: Vec<u64> = Rng::new(3).vec(200_000, 7);
    let sep = |x: &u64| *x == 0;
    let parts: Vec<&[u64]> = v.split(sep).collect();
    let inclusive: Vec<&[u64]> = v.split_inclusive(sep).collect();
    for threads in [1, 4] {
        pool(threads).install(|| {
            let pieces: Vec<Range<usize>> = split(0..n, halve(7)).collect();
            assert!(pieces.windows(2).all(|w| w[0].end == w[1].start));
            let flat: Vec<usize> = split(0..n, halve(7)).flat_map_iter(|r| r).collect();
            assert!(flat.into_iter().eq(0..n), "split, {threads} threads");
            assert_eq!(split(0..n, halve(7)).map(|r| r.len()).sum::<usize>(), n);

            let got: Vec<_> = walk_tree_prefix(0..n, &children).collect();
            assert_eq!(got, pre, "prefix, {threads} threads");
            let got: Vec<_> = walk_tree_postfix(0..n, &children).collect();
            assert_eq!(got, post, "postfix, {threads} threads");
            let total: usize = walk_tree(0..n, &children).map(|r| r.start).sum();
            assert_eq!(total, n * (n - 1) / 2, "walk_tree, {threads} threads");
            let first = walk_tree_prefix(0..n, &children).find_first(|r| r.len() == 1);
            assert_eq!(first, pre.iter().find(|r| r.len() == 1).cloned());
            let last = walk_tree_postfix(0..n, &children).find_last(|r| r.len() > 1);
            assert_eq!(last, post.iter().rev().find(|r| r.len() > 1).cloned());

            assert_eq!(v.par_split(sep).collect::<Vec<_>>(), parts);
            assert_eq!(v.par_split_inclusive(sep).collect::<Vec<_>>(), inclusive);
            let mut w = v.clone();
            let got: Vec<Vec<u64>> = w.par_split_mut(sep).map(|s| s.to_vec()).collect();
            assert!(got.iter().map(Vec::as_slice).eq(parts.iter().copied()));
            let mut w = v.clone();
            let got: Vec<Vec<u64>> = w.par_split_inclusive_mut(sep).map(|s| s.to_vec()).collect();
            assert!(got.iter().map(Vec::as_slice).eq(inclusive.iter().copied()));
            let first = v.par_split(sep).find_first(|s| s.len() > 20);
            assert_eq!(first, parts.iter().find(|s| s.len() > 20).copied());
            let last = v.par_split(sep).find_last(|s| s.len() > 20);
            assert_eq!(last, parts.iter().rev().find(|s| s.len() > 20).copied());
        });
    }
}
