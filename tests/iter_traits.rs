//! `Clone` and `Debug` of the parallel iterators, as rayon has them: a clone runs the same iteration
//! as the original (both checked against std, on many lengths, in and out of pools), owned items are
//! cloned and dropped exactly once, and `Debug` prints the base iterator without asking the closures
//! for `Debug`.

mod iter_common;

use std::collections::{BTreeMap, HashSet, LinkedList, VecDeque};
use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use forkjoin::prelude::*;
use iter_common::{assert_dropped_once, drop_counters, everywhere, Rng, Tracked, LENGTHS};

fn inputs() -> Vec<Vec<u64>> {
    let mut rng = Rng::new(7);
    LENGTHS.iter().map(|&n| rng.vec(n, 1000)).collect()
}

/// Runs a clone of `it`, then `it` itself: both must yield `expected`, in order.
fn check_clone<I>(it: I, expected: &[I::Item])
where
    I: ParallelIterator + Clone,
    I::Item: PartialEq + Debug,
{
    let copy = it.clone();
    assert_eq!(copy.collect::<Vec<_>>(), expected, "the clone");
    assert_eq!(it.collect::<Vec<_>>(), expected, "the original");
}

#[test]
fn slice_sources_clone_like_std() {
    everywhere(|| {
        for v in inputs() {
            let n = v.len();
            check_clone(v.par_iter(), &v.iter().collect::<Vec<_>>());
            for size in [1, 2, 3, 64, 1000] {
                check_clone(v.par_chunks(size), &v.chunks(size).collect::<Vec<_>>());
                let exact = v.par_chunks_exact(size);
                assert_eq!(exact.clone().remainder(), v.chunks_exact(size).remainder());
                check_clone(exact, &v.chunks_exact(size).collect::<Vec<_>>());
                check_clone(v.par_rchunks(size), &v.rchunks(size).collect::<Vec<_>>());
                let rexact = v.par_rchunks_exact(size);
                assert_eq!(
                    rexact.clone().remainder(),
                    v.rchunks_exact(size).remainder(),
                    "{n}"
                );
                check_clone(rexact, &v.rchunks_exact(size).collect::<Vec<_>>());
                check_clone(v.par_windows(size), &v.windows(size).collect::<Vec<_>>());
            }
        }
    });
}

#[test]
fn other_sources_clone_like_std() {
    everywhere(|| {
        for v in inputs() {
            let n = v.len();
            check_clone(v.clone().into_par_iter(), &v);
            check_clone((0..n).into_par_iter(), &(0..n).collect::<Vec<_>>());
            check_clone((0..=n).into_par_iter(), &(0..=n).collect::<Vec<_>>());
            check_clone(forkjoin::iter::repeat_n(n, n), &vec![n; n]);
            let deque: VecDeque<u64> = v.iter().copied().collect();
            check_clone(deque.par_iter(), &deque.iter().collect::<Vec<_>>());
            let list: LinkedList<u64> = v.iter().copied().collect();
            check_clone(list.par_iter(), &list.iter().collect::<Vec<_>>());
            let map: BTreeMap<usize, u64> = v.iter().copied().enumerate().collect();
            check_clone(map.par_iter(), &map.iter().collect::<Vec<_>>());
            // A hash set's order is its own: the clone must repeat it.
            let set: HashSet<u64> = v.iter().copied().collect();
            let it = set.par_iter();
            let order: Vec<&u64> = it.clone().collect();
            assert_eq!(
                order.iter().copied().collect::<HashSet<_>>(),
                set.iter().collect()
            );
            check_clone(it, &order);
            let s: String = v
                .iter()
                .map(|&x| if x % 7 == 0 { '\n' } else { 'é' })
                .collect();
            check_clone(s.par_chars(), &s.chars().collect::<Vec<_>>());
            check_clone(s.par_split('\n'), &s.split('\n').collect::<Vec<_>>());
            check_clone(s.par_lines(), &s.lines().collect::<Vec<_>>());
        }
        check_clone(Some(3).into_par_iter(), &[3]);
        check_clone(Ok::<_, ()>(3).par_iter(), &[&3]);
        check_clone(forkjoin::iter::once(3), &[3]);
        check_clone(forkjoin::iter::empty::<u8>(), &[]);
        check_clone([1, 2, 3].into_par_iter(), &[1, 2, 3]);
    });
}

#[test]
fn adaptors_clone_like_std() {
    everywhere(|| {
        for v in inputs() {
            let n = v.len();
            let it = || v.par_iter();
            let seq = || v.iter();
            check_clone(
                it().map(|x| x * 3),
                &seq().map(|x| x * 3).collect::<Vec<_>>(),
            );
            check_clone(
                it().filter(|&&x| x % 3 == 0),
                &seq().filter(|&&x| x % 3 == 0).collect::<Vec<_>>(),
            );
            let odd = |&x: &u64| (x % 2 == 1).then_some(x);
            check_clone(
                it().filter_map(odd),
                &seq().filter_map(odd).collect::<Vec<_>>(),
            );
            let pair = |&x: &u64| [x, x + 1];
            check_clone(
                it().flat_map(pair),
                &seq().flat_map(pair).collect::<Vec<_>>(),
            );
            check_clone(
                it().flat_map_iter(pair),
                &seq().flat_map(pair).collect::<Vec<_>>(),
            );
            check_clone(
                it().map(pair).flatten(),
                &seq().flat_map(pair).collect::<Vec<_>>(),
            );
            check_clone(
                it().map(pair).flatten_iter(),
                &seq().flat_map(pair).collect::<Vec<_>>(),
            );
            check_clone(it().inspect(|_| ()), &seq().collect::<Vec<_>>());
            check_clone(
                it().copied().update(|x| *x += 1),
                &seq().map(|x| x + 1).collect::<Vec<_>>(),
            );
            check_clone(
                it().map_with(5u64, |k, &x| x + *k),
                &seq().map(|x| x + 5).collect::<Vec<_>>(),
            );
            check_clone(
                it().map_init(|| 5u64, |k, &x| x + *k),
                &seq().map(|x| x + 5).collect::<Vec<_>>(),
            );
            check_clone(
                it().positions(|&x| x % 5 == 0),
                &seq()
                    .enumerate()
                    .filter(|&(_, &x)| x % 5 == 0)
                    .map(|(i, _)| i)
                    .collect::<Vec<_>>(),
            );
            check_clone(it().cloned(), &v);
            check_clone(it().copied(), &v);
            check_clone(it().enumerate(), &seq().enumerate().collect::<Vec<_>>());
            check_clone(it().chain(&v), &seq().chain(&v).collect::<Vec<_>>());
            check_clone(it().zip(&v), &seq().zip(&v).collect::<Vec<_>>());
            check_clone(it().zip_eq(&v), &seq().zip(&v).collect::<Vec<_>>());
            let both: Vec<&u64> = seq().flat_map(|x| [x, x]).collect();
            check_clone(it().interleave(&v), &both);
            check_clone(it().interleave_shortest(&v), &both);
            check_clone(it().rev(), &seq().rev().collect::<Vec<_>>());
            check_clone(it().skip(n / 3), &seq().skip(n / 3).collect::<Vec<_>>());
            check_clone(it().take(n / 3), &seq().take(n / 3).collect::<Vec<_>>());
            check_clone(it().step_by(3), &seq().step_by(3).collect::<Vec<_>>());
            let chunks: Vec<Vec<&u64>> = v.chunks(3).map(|c| c.iter().collect()).collect();
            check_clone(it().chunks(3), &chunks);
            check_clone(it().with_min_len(7), &seq().collect::<Vec<_>>());
            check_clone(it().with_max_len(7), &seq().collect::<Vec<_>>());
            // `while_some` stops on all threads at a `None`, but pieces after it may have run
            // ahead (documented): only an input without `None` has one right answer.
            check_clone(it().map(Some).while_some(), &seq().collect::<Vec<_>>());
            let below = |&x: &u64| (x < 900).then_some(x);
            let stopped = it().map(below).while_some();
            for got in [stopped.clone().collect::<Vec<_>>(), stopped.collect()] {
                // Values below 900 only, each once, in the input's order.
                let mut below_900 = seq().copied().filter(|&x| x < 900);
                assert!(
                    got.iter().all(|&x| below_900.any(|y| y == x)),
                    "not an ordered subsequence: {got:?}"
                );
            }
            // `fold` cuts where the pieces fall: only the total is fixed.
            let folded = it().fold(|| 0u64, |a, &x| a + x);
            assert_eq!(folded.clone().sum::<u64>(), seq().sum::<u64>());
            assert_eq!(folded.sum::<u64>(), seq().sum::<u64>());
        }
    });
}

/// A [`Tracked`] item whose clone is tracked too: item `id`'s clone counts its drops at `id + n`.
#[derive(Debug)]
struct Twin {
    item: Tracked,
    n: usize,
    drops: Arc<Vec<AtomicUsize>>,
}

impl Clone for Twin {
    fn clone(&self) -> Self {
        assert!(self.item.id < self.n, "only the originals are cloned");
        Twin {
            item: Tracked::new(self.item.id + self.n, &self.drops),
            n: self.n,
            drops: Arc::clone(&self.drops),
        }
    }
}

/// Items `0..n` whose clones count at `n..2n`, and the `2n` counters.
fn twins(n: usize) -> (Vec<Twin>, Arc<Vec<AtomicUsize>>) {
    let drops = drop_counters(2 * n);
    let items = (0..n)
        .map(|id| Twin {
            item: Tracked::new(id, &drops),
            n,
            drops: Arc::clone(&drops),
        })
        .collect();
    (items, drops)
}

#[test]
fn cloned_owned_items_drop_once() {
    everywhere(|| {
        for &n in LENGTHS {
            let (items, drops) = twins(n);
            let it = items.into_par_iter().map(|t| t.item.id);
            let ids: Vec<usize> = it.clone().map(|id| id - n).collect();
            assert_eq!(ids, (0..n).collect::<Vec<_>>());
            assert_eq!(it.collect::<Vec<_>>(), (0..n).collect::<Vec<_>>());
            assert_dropped_once(&drops, "clone and original consumed");

            // Neither run: each owns and drops its items.
            let (items, drops) = twins(n);
            let it = items.into_par_iter();
            drop(it.clone());
            drop(it);
            assert_dropped_once(&drops, "clone and original dropped unconsumed");
        }
    });
}

#[test]
fn clone_panicking_midway_drops_once() {
    everywhere(|| {
        for &n in LENGTHS.iter().filter(|&&n| n > 0) {
            let (items, drops) = twins(n);
            let it = items.into_par_iter().with_max_len(16);
            let res = catch_unwind(AssertUnwindSafe(|| {
                it.clone().for_each(|t| {
                    if t.item.id == n + n / 2 {
                        panic!("midway");
                    }
                })
            }));
            assert!(res.is_err(), "{n}");
            // The original is untouched by its clone's panic.
            assert_eq!(it.map(|t| t.item.id).sum::<usize>(), n * (n - 1) / 2);
            assert_dropped_once(&drops, "after a panic in the clone");
        }
    });
}

#[test]
fn debug_prints_the_base_and_skips_closures() {
    let v = vec![1u8, 2];
    let base = format!("{:?}", v.par_iter());
    assert!(base.contains("[1, 2]"), "{base}");
    // None of these closures is `Debug`: the impls must not ask for it.
    let skipped = [
        ("Map", format!("{:?}", v.par_iter().map(|x| x))),
        ("Filter", format!("{:?}", v.par_iter().filter(|_| true))),
        ("FilterMap", format!("{:?}", v.par_iter().filter_map(Some))),
        ("FlatMap", format!("{:?}", v.par_iter().flat_map(Some))),
        (
            "FlatMapIter",
            format!("{:?}", v.par_iter().flat_map_iter(Some)),
        ),
        ("Fold", format!("{:?}", v.par_iter().fold(|| 0, |a, _| a))),
        ("Inspect", format!("{:?}", v.par_iter().inspect(|_| ()))),
        ("Update", format!("{:?}", v.par_iter().update(|_| ()))),
        (
            "MapInit",
            format!("{:?}", v.par_iter().map_init(|| 0, |_, x| x)),
        ),
        (
            "Positions",
            format!("{:?}", v.par_iter().positions(|_| true)),
        ),
    ];
    for (name, shown) in skipped {
        assert_eq!(shown, format!("{name} {{ base: {base}, .. }}"));
    }
    // Plain state is printed; the closure still is not.
    assert_eq!(
        format!("{:?}", v.par_iter().map_with(7, |_, x| x)),
        format!("MapWith {{ base: {base}, init: 7, .. }}")
    );
    // Nested: the inner adaptor's closure is skipped as well.
    assert_eq!(
        format!("{:?}", v.par_iter().map(Some).flatten()),
        format!("Flatten {{ base: Map {{ base: {base}, .. }} }}")
    );
    let chunks = format!("{:?}", v.par_chunks_exact(1));
    assert!(chunks.contains("[1, 2]"), "{chunks}");
    let mut w = v.clone();
    let chunks_mut = format!("{:?}", w.par_rchunks_exact_mut(1));
    assert!(chunks_mut.contains("[1, 2]"), "{chunks_mut}");
}
