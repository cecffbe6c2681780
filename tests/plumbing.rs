//! rayon's plumbing protocol: user-written parallel iterators and producer callbacks written
//! against rayon's `iter::plumbing` run unchanged, and the indexed `map_with`/`map_init`.

mod iter_common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use forkjoin::iter::plumbing::*;
use forkjoin::prelude::*;
use iter_common::{assert_dropped_once, everywhere, tracked, Tracked, LENGTHS};

// ----- A user-written indexed iterator, in rayon's style ---------------------------------------

/// The squares of `0..n`, written the way rayon's plumbing documentation has users write an
/// indexed parallel iterator.
struct Squares {
    n: usize,
}

struct SquaresProducer {
    start: usize,
    end: usize,
}

impl ParallelIterator for Squares {
    type Item = u64;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.n)
    }
}

impl IndexedParallelIterator for Squares {
    fn len(&self) -> usize {
        self.n
    }

    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(SquaresProducer {
            start: 0,
            end: self.n,
        })
    }
}

fn square(i: usize) -> u64 {
    (i as u64) * (i as u64)
}

impl Producer for SquaresProducer {
    type Item = u64;
    type IntoIter = std::iter::Map<std::ops::Range<usize>, fn(usize) -> u64>;

    fn into_iter(self) -> Self::IntoIter {
        (self.start..self.end).map(square as fn(usize) -> u64)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let mid = self.start + index;
        (
            SquaresProducer {
                start: self.start,
                end: mid,
            },
            SquaresProducer {
                start: mid,
                end: self.end,
            },
        )
    }
}

#[test]
fn a_user_written_indexed_iterator_runs_every_consumer() {
    everywhere(|| {
        for &n in LENGTHS {
            let seq: Vec<u64> = (0..n).map(square).collect();
            let v: Vec<u64> = Squares { n }.collect();
            assert_eq!(v, seq, "collect, n = {n}");
            assert_eq!(Squares { n }.sum::<u64>(), seq.iter().sum::<u64>());
            let zipped: Vec<(u64, usize)> = Squares { n }.zip(0..n).collect();
            assert_eq!(zipped, seq.iter().copied().zip(0..n).collect::<Vec<_>>());
            let rev: Vec<u64> = Squares { n }.rev().collect();
            assert_eq!(rev, seq.iter().rev().copied().collect::<Vec<_>>());
            let evens: Vec<u64> = Squares { n }.filter(|x| x % 2 == 0).collect();
            assert_eq!(
                evens,
                seq.iter()
                    .copied()
                    .filter(|x| x % 2 == 0)
                    .collect::<Vec<_>>()
            );
            let target = seq.last().copied().unwrap_or(0);
            assert_eq!(
                Squares { n }.find_first(|&x| x == target),
                seq.last().copied()
            );
            let mut into = Vec::new();
            Squares { n }.collect_into_vec(&mut into);
            assert_eq!(into, seq);
        }
    });
}

// ----- A user-written unindexed iterator --------------------------------------------------------

/// The numbers of `start..end`, as an unindexed producer that halves itself down to `leaf` items.
struct Halving {
    start: u64,
    end: u64,
    leaf: u64,
}

impl UnindexedProducer for Halving {
    type Item = u64;

    fn split(self) -> (Self, Option<Self>) {
        if self.end - self.start <= self.leaf {
            return (self, None);
        }
        let mid = self.start + (self.end - self.start) / 2;
        let right = Halving { start: mid, ..self };
        (Halving { end: mid, ..self }, Some(right))
    }

    fn fold_with<F: Folder<u64>>(self, folder: F) -> F {
        folder.consume_iter(self.start..self.end)
    }
}

struct Numbers {
    end: u64,
    leaf: u64,
}

impl ParallelIterator for Numbers {
    type Item = u64;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let producer = Halving {
            start: 0,
            end: self.end,
            leaf: self.leaf,
        };
        bridge_unindexed(producer, consumer)
    }
}

#[test]
fn a_user_written_unindexed_iterator_keeps_its_order() {
    everywhere(|| {
        for &n in LENGTHS {
            let n = n as u64;
            for leaf in [1, 3, 1000] {
                let v: Vec<u64> = Numbers { end: n, leaf }.collect();
                assert_eq!(v, (0..n).collect::<Vec<_>>(), "n = {n}, leaf = {leaf}");
                let s: u64 = Numbers { end: n, leaf }.map(|x| x * 3).sum();
                assert_eq!(s, (0..n).map(|x| x * 3).sum::<u64>());
                assert_eq!(
                    Numbers { end: n, leaf }.find_last(|x| x % 7 == 3),
                    (0..n).rev().find(|x| x % 7 == 3)
                );
            }
        }
    });
}

#[test]
fn an_unindexed_producer_stops_early_once_the_consumer_is_full() {
    everywhere(|| {
        // 2^40 items: only an early exit finishes.
        let numbers = Numbers {
            end: 1 << 40,
            leaf: 1 << 10,
        };
        assert!(numbers.any(|x| x == 5));
    });
}

// ----- A crate's producer folds straight into forkjoin's folder ---------------------------------

/// The type names of the folders [`Spy`] was folded into.
static FOLDERS: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());

/// `0..n` as an unindexed producer (one piece) that records the type of the folder it is given.
struct Spy(u64);

impl UnindexedProducer for Spy {
    type Item = u64;

    fn split(self) -> (Self, Option<Self>) {
        (self, None)
    }

    fn fold_with<F: Folder<u64>>(self, mut folder: F) -> F {
        FOLDERS.lock().unwrap().push(std::any::type_name::<F>());
        // Item by item, as ndarray's and hashbrown's producers fold.
        for x in 0..self.0 {
            folder = folder.consume(x);
            if folder.full() {
                break;
            }
        }
        folder
    }
}

struct SpyIter(u64);

impl ParallelIterator for SpyIter {
    type Item = u64;

    fn drive_unindexed<C: UnindexedConsumer<u64>>(self, consumer: C) -> C::Result {
        bridge_unindexed(Spy(self.0), consumer)
    }
}

/// A crate's iterator that forwards to another one (as indexmap's wrap rayon's slice iterators).
struct Forward(SpyIter);

impl ParallelIterator for Forward {
    type Item = u64;

    fn drive_unindexed<C: UnindexedConsumer<u64>>(self, consumer: C) -> C::Result {
        self.0.map(|x| x + 1).drive_unindexed(consumer)
    }
}

#[test]
fn a_crates_producer_folds_into_forkjoins_own_folder_with_no_adapter_between() {
    // What rayon hands a producer's loop is the consumer's own folder; so must forkjoin, or the
    // per-item path carries an adapter's checks and the loop stops vectorising.
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        assert_eq!(SpyIter(1000).sum::<u64>(), 499_500);
        let seen = AtomicUsize::new(0);
        SpyIter(1000).for_each(|_| {
            seen.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(seen.into_inner(), 1000);
        assert_eq!(Forward(SpyIter(1000)).sum::<u64>(), 500_500);
        assert_eq!(SpyIter(10).map(|x| x * 2).collect::<Vec<_>>().len(), 10);
    });
    let folders = FOLDERS.lock().unwrap();
    assert!(!folders.is_empty());
    for name in folders.iter() {
        // forkjoin's folder of a forkjoin consumer, not of an adapter (the consumer's own type
        // parameters may name one: a closure's type names the function that made it).
        let consumer = name
            .strip_prefix("forkjoin::iter::plumbing::consumer_adapters::ConsumerFolder<")
            .unwrap_or_else(|| panic!("not forkjoin's folder: {name}"));
        assert!(
            !consumer.starts_with("forkjoin::iter::plumbing::consumer_adapters::"),
            "a producer was handed an adapter: {name}"
        );
    }
}

// ----- Consumers used the rayon way --------------------------------------------------------------

/// An indexed iterator that drives itself with rayon's recursive `split_at` / `join` /
/// `fold_with(into_folder())` pattern instead of calling `bridge`.
struct ManualSquares {
    n: usize,
}

fn manual<P: Producer, C: Consumer<P::Item>>(len: usize, producer: P, consumer: C) -> C::Result {
    if len <= 16 || consumer.full() {
        return producer.fold_with(consumer.into_folder()).complete();
    }
    let mid = len / 2;
    let (left_p, right_p) = producer.split_at(mid);
    let (left_c, right_c, reducer) = consumer.split_at(mid);
    let (a, b) = forkjoin::join(
        || manual(mid, left_p, left_c),
        || manual(len - mid, right_p, right_c),
    );
    reducer.reduce(a, b)
}

impl ParallelIterator for ManualSquares {
    type Item = u64;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        self.drive(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.n)
    }
}

impl IndexedParallelIterator for ManualSquares {
    fn len(&self) -> usize {
        self.n
    }

    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        let n = self.n;
        manual(n, SquaresProducer { start: 0, end: n }, consumer)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        Squares { n: self.n }.with_producer(callback)
    }
}

#[test]
fn a_consumer_can_be_split_and_folded_the_rayon_way() {
    everywhere(|| {
        for &n in LENGTHS {
            let seq: Vec<u64> = (0..n).map(square).collect();
            let v: Vec<u64> = ManualSquares { n }.collect();
            assert_eq!(v, seq, "n = {n}");
            let mut into = Vec::new();
            ManualSquares { n }.collect_into_vec(&mut into);
            assert_eq!(into, seq);
            assert_eq!(
                ManualSquares { n }.position_any(|x| x == square(n / 2)),
                (n > 0).then_some(n / 2)
            );
        }
    });
}

// ----- Producer callbacks -------------------------------------------------------------------

/// Splits a producer at `i <= j <= k` and gathers the four pieces through their double-ended,
/// exact-size iterators, forwards or backwards (what rayon's `producer_split_at` test does).
struct SplitAt {
    i: usize,
    j: usize,
    k: usize,
    reverse: bool,
}

impl<T> ProducerCallback<T> for SplitAt {
    type Output = Vec<T>;

    fn callback<P>(self, producer: P) -> Vec<T>
    where
        P: Producer<Item = T>,
    {
        let (left, d) = producer.split_at(self.k);
        let (a, mid) = left.split_at(self.i);
        let (b, c) = mid.split_at(self.j - self.i);
        let (a, b, c, d) = (a.into_iter(), b.into_iter(), c.into_iter(), d.into_iter());
        assert_eq!(a.len(), self.i);
        assert_eq!(b.len(), self.j - self.i);
        assert_eq!(c.len(), self.k - self.j);
        let all = a.chain(b).chain(c).chain(d);
        if self.reverse {
            all.rev().collect()
        } else {
            all.collect()
        }
    }
}

/// Runs [`SplitAt`] for every triple of indices on a fresh iterator from `make`.
fn check_split_at<I, F>(expected: &[I::Item], make: F)
where
    F: Fn() -> I,
    I: IndexedParallelIterator<Item: PartialEq + std::fmt::Debug + Clone>,
{
    let n = expected.len();
    let reversed: Vec<I::Item> = expected.iter().rev().cloned().collect();
    for i in 0..=n {
        for j in i..=n {
            for k in j..=n {
                for reverse in [false, true] {
                    let got = make().with_producer(SplitAt { i, j, k, reverse });
                    let want = if reverse { &reversed[..] } else { expected };
                    assert_eq!(got, want, "i = {i}, j = {j}, k = {k}, reverse = {reverse}");
                }
            }
        }
    }
}

#[test]
fn producers_split_anywhere_and_iterate_from_both_ends() {
    for n in [0, 1, 2, 5, 7] {
        let seq: Vec<u32> = (0..n).collect();
        check_split_at(&seq, || (0..n).into_par_iter());
        check_split_at(&seq, || seq.clone().into_par_iter());
        check_split_at(&seq, || {
            (0..n).into_par_iter().map_with(1, |one, x| x * *one)
        });
        check_split_at(&seq, || {
            (0..n).into_par_iter().map_init(|| 1, |one, x| x * *one)
        });
        let chunks: Vec<Vec<u32>> = seq.chunks(2).map(<[u32]>::to_vec).collect();
        check_split_at(&chunks, || (0..n).into_par_iter().chunks(2));
        let stepped: Vec<u32> = seq.iter().copied().step_by(3).collect();
        check_split_at(&stepped, || (0..n).into_par_iter().step_by(3));
        let chained: Vec<u32> = seq.iter().chain(&seq).copied().collect();
        check_split_at(&chained, || (0..n).into_par_iter().chain(0..n));
    }
}

#[test]
fn owned_items_of_a_partly_iterated_producer_are_dropped_once() {
    struct Partial;
    impl ProducerCallback<Tracked> for Partial {
        type Output = Option<usize>;
        fn callback<P: Producer<Item = Tracked>>(self, producer: P) -> Option<usize> {
            let (left, _right) = producer.split_at(5);
            let mut iter = left.into_iter();
            iter.next_back();
            iter.next().map(|t| t.id)
        }
    }
    for n in [5, 6, 64] {
        let (items, drops) = tracked(n);
        assert_eq!(items.into_par_iter().with_producer(Partial), Some(0));
        assert_dropped_once(&drops, "partial producer");
    }
}

// ----- Indexed map_with / map_init ---------------------------------------------------------------

#[test]
fn map_with_and_map_init_are_indexed_when_their_base_is() {
    everywhere(|| {
        for &n in LENGTHS {
            let seq: Vec<(usize, u64)> = (0..n as u64).map(|x| x + 10).enumerate().collect();
            let with: Vec<(usize, u64)> = (0..n as u64)
                .into_par_iter()
                .map_with(10u64, |ten, x| x + *ten)
                .enumerate()
                .collect();
            assert_eq!(with, seq, "map_with, n = {n}");
            let init: Vec<(usize, u64)> = (0..n as u64)
                .into_par_iter()
                .map_init(|| 10u64, |ten, x| x + *ten)
                .enumerate()
                .collect();
            assert_eq!(init, seq, "map_init, n = {n}");
            let rev: Vec<u64> = (0..n as u64)
                .into_par_iter()
                .map_with(10u64, |ten, x| x + *ten)
                .rev()
                .collect();
            assert_eq!(rev, (10..n as u64 + 10).rev().collect::<Vec<_>>());
            assert!((0..n)
                .into_par_iter()
                .map_init(|| (), |(), x| x)
                .zip(0..n)
                .all(|(a, b)| a == b));
        }
    });
}

#[test]
fn an_indexed_map_init_makes_a_state_only_for_pieces_with_items() {
    everywhere(|| {
        let inits = AtomicUsize::new(0);
        let v: Vec<(usize, usize)> = (0..0usize)
            .into_par_iter()
            .map_init(|| inits.fetch_add(1, Ordering::Relaxed), |_, x| x)
            .enumerate()
            .collect();
        assert!(v.is_empty());
        assert_eq!(inits.load(Ordering::Relaxed), 0);
        // Every item sees a state that was made for it: nonzero, the item's own.
        let n = 10_000;
        let sums: Vec<u64> = (0..n as u64)
            .into_par_iter()
            .map_init(Vec::new, |seen: &mut Vec<u64>, x| {
                seen.push(x);
                seen.iter().sum::<u64>()
            })
            .zip(0..n)
            .map(|(s, _)| s)
            .collect();
        assert_eq!(sums.len(), n);
        assert!(sums.iter().enumerate().all(|(i, &s)| s >= i as u64));
    });
}

#[test]
fn owned_items_through_an_indexed_map_with_are_dropped_once_even_on_a_panic() {
    everywhere(|| {
        for &n in &[0, 1, 7, 1000] {
            let (items, drops) = tracked(n);
            let ids: Vec<(usize, usize)> = items
                .into_par_iter()
                .map_with(0usize, |count, t| {
                    *count += 1;
                    t
                })
                .enumerate()
                .map(|(i, t)| (i, t.id))
                .collect();
            assert_eq!(ids, (0..n).map(|i| (i, i)).collect::<Vec<_>>());
            assert_dropped_once(&drops, "map_with enumerate");

            let (items, drops) = tracked(n);
            let result = catch_unwind(AssertUnwindSafe(|| {
                items
                    .into_par_iter()
                    .map_init(
                        || (),
                        |(), t| {
                            assert!(t.id != n / 2, "boom");
                            t
                        },
                    )
                    .zip(0..n)
                    .for_each(drop);
            }));
            assert_eq!(result.is_err(), n > 0);
            assert_dropped_once(&drops, "map_init zip panic");
        }
    });
}
