//! Nested parallel loops whose outer rest is offered from inside an item (a loop's latent fork,
//! `docs/architecture.md` "Many cores"): results stay in place, panics come through, and the
//! offers do happen. Pools have more threads than the machine has cores on purpose, so idle
//! workers keep asking while items run.

use crate::common;

use std::hint::black_box;
use std::time::Duration;

use forkjoin::prelude::*;
use forkjoin::ThreadPoolBuilder;

/// An inner item worth a few hundred nanoseconds.
fn work(i: u64, j: u64) -> u64 {
    let mut x = i.wrapping_mul(31).wrapping_add(j);
    for _ in 0..64 {
        x = black_box(
            x.wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407),
        );
    }
    x >> 40
}

fn inner_seq(i: u64) -> u64 {
    (0..(i % 97 + 2)).map(|j| work(i, j)).sum()
}

fn inner_par(i: u64) -> u64 {
    (0..(i % 97 + 2)).into_par_iter().map(|j| work(i, j)).sum()
}

/// An outer item: a loop of 70 to 99 loops, enough for its loop to offer its rest item by item.
/// (The threshold is 64 nested loops per item, `OFFER_LOOPS_PER_ITEM`.)
fn item_seq(i: u64) -> u64 {
    (0..(i % 30 + 70))
        .map(|k| inner_seq(i * 100 + k) % 1000)
        .sum()
}

fn item_par(i: u64) -> u64 {
    (0..(i % 30 + 70))
        .into_par_iter()
        .map(|k| inner_par(i * 100 + k) % 1000)
        .sum()
}

#[test]
fn a_nested_collect_keeps_every_result_in_place_and_its_rest_is_offered() {
    common::watchdog("nested collect", Duration::from_secs(120), || {
        let expected: Vec<u64> = (0..40).map(item_seq).collect();
        for threads in [2, 4, 8] {
            let pool = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            // A pool of 2 answers its one asker from the innermost loop (see `leaf_start` in
            // `src/runtime/sharing.rs`); larger pools offer the outer rest.
            let offers_expected = threads >= 3;
            let mut offered = 0;
            for round in 0..200 {
                let before = pool.stats().jobs_offered;
                let got: Vec<u64> =
                    pool.install(|| (0..40).into_par_iter().map(item_par).collect());
                assert_eq!(got, expected, "{threads} threads, round {round}");
                offered += pool.stats().jobs_offered - before;
                if (offered > 0 || !offers_expected) && round >= 20 {
                    break;
                }
            }
            assert_eq!(
                offered > 0,
                offers_expected,
                "{threads} threads: {offered} pieces of an outer rest offered"
            );
        }
    });
}

#[test]
fn three_levels_of_nested_loops_reduce_in_order() {
    common::watchdog("three levels", Duration::from_secs(120), || {
        let pool = ThreadPoolBuilder::new().num_threads(6).build().unwrap();
        let seq: Vec<String> = (0..60u64)
            .map(|i| {
                (0..i % 7 + 1)
                    .map(|j| format!("{}", item_seq(i * 8 + j) % 10))
                    .collect::<String>()
            })
            .collect();
        for round in 0..5 {
            let got: Vec<String> = pool.install(|| {
                (0..60u64)
                    .into_par_iter()
                    .with_min_len(2)
                    .map(|i| {
                        (0..i % 7 + 1)
                            .into_par_iter()
                            .map(|j| format!("{}", item_par(i * 8 + j) % 10))
                            .collect::<String>()
                    })
                    .collect()
            });
            assert_eq!(got, seq, "round {round}");
        }
    });
}

#[test]
fn a_panic_in_an_item_comes_through_after_every_offered_piece_finished() {
    common::watchdog("panic in an item", Duration::from_secs(120), || {
        let pool = ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        for round in 0..20 {
            let result = std::panic::catch_unwind(|| {
                pool.install(|| {
                    (0..20u64)
                        .into_par_iter()
                        .map(|i| {
                            assert!(i != 15, "item 15 of round {round}");
                            item_par(i)
                        })
                        .sum::<u64>()
                })
            });
            let payload = result.expect_err("item 15 panics");
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .unwrap_or("");
            assert!(message.contains("item 15 "), "round {round}: {message}");
        }
        // The pool still works.
        let sum: u64 = pool.install(|| (0..20u64).into_par_iter().map(item_par).sum());
        assert_eq!(sum, (0..20u64).map(item_seq).sum());
    });
}
