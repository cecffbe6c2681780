//! Consumers written the rayon way (rayon's plumbing: `Consumer` with its own `Folder` and
//! `Reducer`, `UnindexedConsumer` with `split_off_left` and `to_reducer`) driven by forkjoin's
//! iterators, and a user adaptor that wraps the consumer forkjoin hands it, in pools of 1 to 4
//! threads and on inputs long enough that running pieces are split.

use crate::iter_common;

use std::sync::atomic::{AtomicUsize, Ordering};

use forkjoin::iter::plumbing::*;
use forkjoin::prelude::*;
use iter_common::everywhere;

// ----- A counting consumer with its own folder and reducer --------------------------------------

/// Counts the items and sums them; counts its splits so a test can tell it was split.
struct Count<'a> {
    splits: &'a AtomicUsize,
}
struct CountFolder {
    count: usize,
    sum: u64,
}
struct AddBoth;

impl<'a> Consumer<u64> for Count<'a> {
    type Folder = CountFolder;
    type Reducer = AddBoth;
    type Result = (usize, u64);

    fn split_at(self, _index: usize) -> (Self, Self, AddBoth) {
        self.splits.fetch_add(1, Ordering::Relaxed);
        let splits = self.splits;
        (Count { splits }, Count { splits }, AddBoth)
    }

    fn into_folder(self) -> CountFolder {
        CountFolder { count: 0, sum: 0 }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<'a> UnindexedConsumer<u64> for Count<'a> {
    fn split_off_left(&self) -> Self {
        self.splits.fetch_add(1, Ordering::Relaxed);
        Count {
            splits: self.splits,
        }
    }

    fn to_reducer(&self) -> AddBoth {
        AddBoth
    }
}

impl Folder<u64> for CountFolder {
    type Result = (usize, u64);

    fn consume(self, item: u64) -> Self {
        CountFolder {
            count: self.count + 1,
            sum: self.sum + item,
        }
    }

    fn complete(self) -> (usize, u64) {
        (self.count, self.sum)
    }

    fn full(&self) -> bool {
        false
    }
}

impl Reducer<(usize, u64)> for AddBoth {
    fn reduce(self, left: (usize, u64), right: (usize, u64)) -> (usize, u64) {
        (left.0 + right.0, left.1 + right.1)
    }
}

#[test]
fn a_counting_consumer_gives_the_sequential_answer_indexed_and_unindexed() {
    everywhere(|| {
        for n in [0u64, 1, 2, 7, 1000, 200_000] {
            let splits = AtomicUsize::new(0);
            let expected = (n as usize, n * n.saturating_sub(1) / 2);
            let indexed = (0..n).into_par_iter().drive(Count { splits: &splits });
            assert_eq!(indexed, expected, "drive, n = {n}");
            let unindexed = (0..n)
                .into_par_iter()
                .drive_unindexed(Count { splits: &splits });
            assert_eq!(unindexed, expected, "drive_unindexed, n = {n}");
            let odd = (0..n)
                .into_par_iter()
                .filter(|x| x % 2 == 1)
                .drive_unindexed(Count { splits: &splits });
            let odd_count = (n / 2) as usize;
            assert_eq!(
                odd,
                (odd_count, (odd_count as u64).pow(2)),
                "filter, n = {n}"
            );
        }
    });
}

// ----- A positional consumer: writes each item into its own slot --------------------------------

/// Writes item `i` of its piece into `slots[i]`: wrong positions show as a wrong output.
struct WriteSlots<'s> {
    slots: &'s mut [Option<u64>],
}
struct SlotsFolder<'s> {
    slots: std::slice::IterMut<'s, Option<u64>>,
}
struct NoReduce;

impl<'s> Consumer<u64> for WriteSlots<'s> {
    type Folder = SlotsFolder<'s>;
    type Reducer = NoReduce;
    type Result = ();

    fn split_at(self, index: usize) -> (Self, Self, NoReduce) {
        let (left, right) = self.slots.split_at_mut(index);
        (
            WriteSlots { slots: left },
            WriteSlots { slots: right },
            NoReduce,
        )
    }

    fn into_folder(self) -> SlotsFolder<'s> {
        SlotsFolder {
            slots: self.slots.iter_mut(),
        }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<'s> Folder<u64> for SlotsFolder<'s> {
    type Result = ();

    fn consume(mut self, item: u64) -> Self {
        let slot = self.slots.next().expect("an item past the piece's end");
        assert!(slot.replace(item).is_none(), "a slot written twice");
        self
    }

    fn complete(self) {
        assert_eq!(self.slots.len(), 0, "a piece left slots unwritten");
    }

    fn full(&self) -> bool {
        false
    }
}

impl Reducer<()> for NoReduce {
    fn reduce(self, _left: (), _right: ()) {}
}

#[test]
fn a_positional_consumer_receives_every_item_at_its_position() {
    everywhere(|| {
        for n in [0usize, 1, 3, 1000, 100_000] {
            let mut slots = vec![None; n];
            (0..n as u64)
                .into_par_iter()
                .map(|x| x * 3)
                .drive(WriteSlots { slots: &mut slots });
            let expected: Vec<Option<u64>> = (0..n as u64).map(|x| Some(x * 3)).collect();
            assert!(slots == expected, "n = {n}");
        }
    });
}

// ----- A user adaptor that wraps the consumer forkjoin hands it ---------------------------------

/// Doubles every item of `base`, as rayon's plumbing README teaches: a consumer wrapper with a
/// folder wrapper, split with the wrapped consumer's own methods.
struct Doubled<I> {
    base: I,
}
struct DoubledConsumer<C> {
    base: C,
}
struct DoubledFolder<F> {
    base: F,
}

impl<I: ParallelIterator<Item = u64>> ParallelIterator for Doubled<I> {
    type Item = u64;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<u64>,
    {
        self.base
            .drive_unindexed(DoubledConsumer { base: consumer })
    }
}

impl<C: Consumer<u64>> Consumer<u64> for DoubledConsumer<C> {
    type Folder = DoubledFolder<C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            DoubledConsumer { base: left },
            DoubledConsumer { base: right },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        DoubledFolder {
            base: self.base.into_folder(),
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<C: UnindexedConsumer<u64>> UnindexedConsumer<u64> for DoubledConsumer<C> {
    fn split_off_left(&self) -> Self {
        DoubledConsumer {
            base: self.base.split_off_left(),
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

impl<F: Folder<u64>> Folder<u64> for DoubledFolder<F> {
    type Result = F::Result;

    fn consume(self, item: u64) -> Self {
        DoubledFolder {
            base: self.base.consume(item * 2),
        }
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

/// Splits its range in halves down to single items with `bridge_unindexed`, calling the consumer's
/// `split_off_left` and `to_reducer` itself, as a hand-written rayon iterator may.
struct HandSplit {
    range: std::ops::Range<u64>,
}

impl ParallelIterator for HandSplit {
    type Item = u64;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<u64>,
    {
        hand_split(self.range, consumer)
    }
}

fn hand_split<C: UnindexedConsumer<u64>>(range: std::ops::Range<u64>, consumer: C) -> C::Result {
    if range.end - range.start <= 64 {
        return consumer.into_folder().consume_iter(range).complete();
    }
    let mid = range.start + (range.end - range.start) / 2;
    let left = consumer.split_off_left();
    let reducer = consumer.to_reducer();
    let (a, b) = forkjoin::join(
        || hand_split(range.start..mid, left),
        || hand_split(mid..range.end, consumer),
    );
    reducer.reduce(a, b)
}

#[test]
fn forkjoins_consumers_answer_rayons_methods_in_a_user_adaptor() {
    everywhere(|| {
        for n in [0u64, 1, 5, 10_000, 300_000] {
            let sum: u64 = Doubled {
                base: (0..n).into_par_iter(),
            }
            .sum();
            assert_eq!(sum, n * n.saturating_sub(1), "sum, n = {n}");
            let v: Vec<u64> = Doubled {
                base: (0..n).into_par_iter().filter(|x| x % 3 == 0),
            }
            .collect();
            let expected: Vec<u64> = (0..n).filter(|x| x % 3 == 0).map(|x| x * 2).collect();
            assert_eq!(v, expected, "collect, n = {n}");
            let hand: Vec<u64> = HandSplit { range: 0..n }.map(|x| x + 1).collect();
            assert_eq!(hand, (1..=n).collect::<Vec<_>>(), "hand split, n = {n}");
            assert_eq!(
                HandSplit { range: 0..n }.find_first(|&x| x >= n / 2),
                (n > 0).then_some(n / 2),
                "find_first through a hand split, n = {n}"
            );
        }
    });
}

#[test]
fn a_rayon_consumer_is_split_per_batch_not_folded_whole() {
    // A rayon consumer is cut once per batch it receives (and again when a running piece is split
    // for an idle worker), each time through its own `split_at`: an adapter that folded the whole
    // input into one folder would never call it.
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let splits = AtomicUsize::new(0);
    let n = 1_000_000u64;
    let got = pool.install(|| (0..n).into_par_iter().drive(Count { splits: &splits }));
    assert_eq!(got, (n as usize, n * (n - 1) / 2));
    assert!(splits.into_inner() > 1, "the consumer was never split");
}
