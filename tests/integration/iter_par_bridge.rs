//! `par_bridge` against the sequential iterator it wraps: the same items (in some order) for the
//! usual lengths, in and out of pools of one and several threads; owned items dropped exactly once,
//! also when the consumer stops early or a closure panics; a pool-using `next` does not deadlock.

use crate::common;
use crate::iter_common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use forkjoin::iter::{IterBridge, ParallelBridge};
use forkjoin::prelude::*;
use iter_common::{assert_dropped_once, drop_counters, everywhere, Tracked, LENGTHS};

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

#[test]
fn par_bridge_yields_every_item_once() {
    everywhere(|| {
        for &len in LENGTHS {
            let seq: Vec<u64> = (0..len as u64).map(|i| i * 3 + 1).collect();
            // A sequential-only iterator (no exact size, no double-endedness).
            let source = (0..len as u64).filter(|_| true).map(|i| i * 3 + 1);
            let got: Vec<u64> = source.par_bridge().collect();
            assert_eq!(sorted(got), seq, "len {len}");
            let sum: u64 = (0..len as u64).par_bridge().map(|i| i * 3 + 1).sum();
            assert_eq!(sum, seq.iter().sum::<u64>(), "len {len}");
            let count = (0..len).par_bridge().filter(|i| i % 7 == 3).count();
            assert_eq!(count, (0..len).filter(|i| i % 7 == 3).count(), "len {len}");
        }
    });
}

#[test]
fn par_bridge_of_a_channel_receiver() {
    everywhere(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        let producer = std::thread::spawn(move || (0..1000u32).for_each(|i| tx.send(i).unwrap()));
        let got: Vec<u32> = rx.into_iter().par_bridge().map(|i| i + 1).collect();
        producer.join().unwrap();
        assert_eq!(sorted(got), (1..=1000).collect::<Vec<_>>());
    });
}

#[test]
fn owned_items_are_dropped_exactly_once() {
    everywhere(|| {
        for &len in &[0usize, 1, 7, 64, 1000] {
            let drops = drop_counters(len);
            let items: Vec<Tracked> = (0..len).map(|id| Tracked::new(id, &drops)).collect();
            let ids: Vec<usize> = items.into_iter().par_bridge().map(|t| t.id).collect();
            assert_eq!(sorted(ids), (0..len).collect::<Vec<_>>());
            assert_dropped_once(&drops, "par_bridge map");

            // Stopping early: the items never pulled stay in the iterator and drop with it.
            let drops = drop_counters(len);
            let items: Vec<Tracked> = (0..len).map(|id| Tracked::new(id, &drops)).collect();
            let found = items.into_iter().par_bridge().find_any(|t| t.id == len / 2);
            assert_eq!(found.as_ref().map(|t| t.id), (len > 0).then_some(len / 2));
            drop(found);
            assert_dropped_once(&drops, "par_bridge find_any");
        }
    });
}

#[test]
fn a_panic_midway_propagates_and_drops_everything_once() {
    everywhere(|| {
        let len = 500;
        let drops = drop_counters(len);
        let items: Vec<Tracked> = (0..len).map(|id| Tracked::new(id, &drops)).collect();
        let seen = AtomicUsize::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            items.into_iter().par_bridge().for_each(|t| {
                seen.fetch_add(1, Relaxed);
                if t.id == 250 {
                    panic!("item 250");
                }
            })
        }));
        assert_eq!(r.unwrap_err().downcast_ref::<&str>(), Some(&"item 250"));
        assert!(seen.load(Relaxed) >= 1);
        assert_dropped_once(&drops, "par_bridge panic");
    });
}

#[test]
fn a_panicking_next_propagates() {
    everywhere(|| {
        let r = catch_unwind(AssertUnwindSafe(|| {
            (0..100)
                .map(|i| if i == 40 { panic!("next 40") } else { i })
                .par_bridge()
                .sum::<i32>()
        }));
        assert_eq!(r.unwrap_err().downcast_ref::<&str>(), Some(&"next 40"));
    });
}

#[test]
fn a_next_that_uses_the_pool_does_not_deadlock() {
    // rayon's par_bridge_recursion, smaller: `next` joins, so a worker waiting inside `next` may
    // steal another piece of the same bridge.
    for n in [1, 2, 8] {
        let pool = forkjoin::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap();
        let seq: Vec<(u32, String)> = (0..2000).map(|i| (i, i.to_string())).collect();
        let got = pool.install(|| {
            let mut v: Vec<(u32, String)> = (0..2000u32)
                .into_par_iter()
                .flat_map(|i| {
                    std::iter::once_with(move || forkjoin::join(move || i, move || i.to_string()))
                        .par_bridge()
                })
                .collect();
            v.par_sort_unstable();
            v
        });
        assert_eq!(got, seq, "{n} threads");
    }
}

#[test]
fn iter_bridge_is_clone_and_debug_like_rayon() {
    let bridge: IterBridge<std::ops::Range<u8>> = (0..3u8).par_bridge();
    let copy = bridge.clone();
    assert_eq!(format!("{bridge:?}"), "IterBridge { iter: 0..3 }");
    assert_eq!(sorted(copy.collect::<Vec<_>>()), [0, 1, 2]);
    assert_eq!(sorted(bridge.collect::<Vec<_>>()), [0, 1, 2]);
}

#[test]
fn every_piece_runs_at_once_when_the_items_wait_for_each_other() {
    // jwalk's shape: a piece pulls until the iterator ends, so a piece left for a later split
    // never runs. Here every item waits for one item of the other piece (a barrier of 2 on 2
    // threads): rayon completes, and so must we.
    for round in 0..50 {
        common::watchdog(
            &format!("par_bridge barrier, round {round}"),
            std::time::Duration::from_secs(60),
            || {
                let pool = common::pool(2);
                let barrier = std::sync::Barrier::new(2);
                let n = pool.install(|| {
                    (0..2)
                        .par_bridge()
                        .map(|_| {
                            barrier.wait();
                            1
                        })
                        .sum::<usize>()
                });
                assert_eq!(n, 2);
            },
        );
    }
}
