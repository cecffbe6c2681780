//! `par_drain()` on `BinaryHeap`, `HashMap` and `HashSet` (`ParallelDrainFull`): every item
//! once, the collection empty with its capacity kept (also when the iterator is dropped unused
//! or a closure panics), owned items dropped exactly once, in and out of pools.

use crate::iter_common;

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};

use forkjoin::prelude::*;
use iter_common::{assert_dropped_once, drop_counters, everywhere, Tracked, LENGTHS};

/// A drop-counted heap item, ordered by id.
struct Item(Tracked);

impl PartialEq for Item {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for Item {}
impl PartialOrd for Item {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Item {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.id.cmp(&other.0.id)
    }
}

#[test]
fn every_item_comes_out_once_and_the_capacity_stays() {
    everywhere(|| {
        for &n in LENGTHS {
            let mut heap: BinaryHeap<usize> = (0..n).collect();
            let cap = heap.capacity();
            assert_eq!(heap.par_drain().len(), n);
            assert!(heap.is_empty() && heap.capacity() == cap);
            heap.extend(0..n);
            let mut got: Vec<usize> = heap.par_drain().with_max_len(7).collect();
            got.sort_unstable();
            assert_eq!(got, (0..n).collect::<Vec<_>>());
            assert!(heap.is_empty() && heap.capacity() == cap);

            let mut map: HashMap<usize, usize> = (0..n).map(|i| (i, i * 2)).collect();
            let cap = map.capacity();
            let mut got: Vec<(usize, usize)> = map.par_drain().collect();
            got.sort_unstable();
            assert_eq!(got, (0..n).map(|i| (i, i * 2)).collect::<Vec<_>>());
            assert!(map.is_empty() && map.capacity() == cap);

            let mut set: HashSet<usize> = (0..n).collect();
            assert_eq!(set.par_drain().sum::<usize>(), n * n.saturating_sub(1) / 2);
            assert!(set.is_empty());
        }
    });
}

#[test]
fn dropped_unused_the_collections_are_emptied() {
    let mut heap: BinaryHeap<u32> = (0..100).collect();
    drop(heap.par_drain());
    assert!(heap.is_empty());
    let mut map: HashMap<u32, u32> = (0..100).map(|i| (i, i)).collect();
    drop(map.par_drain());
    assert!(map.is_empty());
    let mut set: HashSet<u32> = (0..100).collect();
    drop(set.par_drain());
    assert!(set.is_empty());
}

#[test]
fn owned_items_drop_once_also_after_a_panic() {
    everywhere(|| {
        for n in [0usize, 1, 2, 100, 1025] {
            let drops = drop_counters(n);
            let mut heap: BinaryHeap<Item> =
                (0..n).map(|i| Item(Tracked::new(i, &drops))).collect();
            let got: Vec<Item> = heap.par_drain().collect();
            assert_eq!(got.len(), n);
            drop(got);
            assert_dropped_once(&drops, "heap drain");

            let drops = drop_counters(n);
            let mut map: HashMap<usize, Tracked> =
                (0..n).map(|i| (i, Tracked::new(i, &drops))).collect();
            assert_eq!(map.par_drain().count(), n);
            assert_dropped_once(&drops, "map drain");

            if n > 0 {
                let drops = drop_counters(n);
                let mut heap: BinaryHeap<Item> =
                    (0..n).map(|i| Item(Tracked::new(i, &drops))).collect();
                let res = catch_unwind(AssertUnwindSafe(|| {
                    heap.par_drain()
                        .for_each(|t| assert!(t.0.id != n / 2, "boom"))
                }));
                assert!(res.is_err());
                assert!(heap.is_empty());
                assert_dropped_once(&drops, "heap drain panic");

                let drops = drop_counters(n);
                let mut map: HashMap<usize, Tracked> =
                    (0..n).map(|i| (i, Tracked::new(i, &drops))).collect();
                let res = catch_unwind(AssertUnwindSafe(|| {
                    map.par_drain()
                        .for_each(|(k, _)| assert!(k != n / 2, "boom"))
                }));
                assert!(res.is_err());
                assert!(map.is_empty());
                assert_dropped_once(&drops, "map drain panic");
            }
        }
    });
}
