//! A leaf's pace in virtual time (the timing mode of the simulation, `docs/testing.md`): expensive
//! items behind cheap ones reach the idle worker. The cheap items cost nothing on the virtual clock
//! (plain code is not charged), so the leaf measures its first batches as free and its polls back
//! off while the other worker sleeps; the end batches that meet the expensive items must still be
//! measured, and their rest offered (`iter::plumbing::bridge::indexed::run_leaf`).
#![cfg(forkjoin_shuttle)]

use std::sync::atomic::{AtomicUsize, Ordering};

use forkjoin::__sim::work;
use forkjoin::prelude::*;
use sim_tests::after_idle_in_virtual_time;

/// Runs `cheap` free items and then `expensive` items of 100 virtual µs each on a pool of 2, and
/// returns how many of the expensive ones each worker ran.
fn expensive_after_cheap(cheap: u64, expensive: u64, seed: u64) -> [usize; 2] {
    after_idle_in_virtual_time(seed, 2, move |pool| {
        let counts = [AtomicUsize::new(0), AtomicUsize::new(0)];
        pool.install(|| {
            (0..cheap + expensive).into_par_iter().for_each(|i| {
                if i >= cheap {
                    let me = forkjoin::current_thread_index().expect("a worker");
                    counts[me].fetch_add(1, Ordering::Relaxed);
                    work(100_000);
                }
            })
        });
        counts.map(|c| c.into_inner())
    })
}

#[test]
fn expensive_items_behind_cheap_ones_reach_the_sleeping_worker() {
    for cheap in [1_500, 10_000, 100_000] {
        for seed in 0..3 {
            let ran = expensive_after_cheap(cheap, 1_000, seed);
            assert_eq!(ran[0] + ran[1], 1_000, "every item once");
            // Each end batch takes at most half of the rest, so the first one to meet the
            // expensive items may hold half of them; the rest is then shared. Before the end
            // batches were measured, the muted polls let this worker run all but a few.
            assert!(
                ran[0].min(ran[1]) >= 200,
                "{cheap} cheap items, seed {seed}: expensive items per worker {ran:?}"
            );
        }
    }
}

/// On a pool of 8, `small` ten-item calls of free items (each finds idle workers it cannot feed,
/// so its thread's back-off grows), then 256 items of 50 virtual µs: returns the most of those
/// any one worker ran.
fn expensive_after_small_calls(small: usize, seed: u64) -> usize {
    after_idle_in_virtual_time(seed, 8, move |pool| {
        let counts: Vec<AtomicUsize> = (0..8).map(|_| AtomicUsize::new(0)).collect();
        pool.install(|| {
            for i in 0..small as u64 {
                let sum: u64 = (0..10u64).into_par_iter().map(|x| x ^ i).sum();
                std::hint::black_box(sum);
            }
            (0..256u64).into_par_iter().for_each(|_| {
                let me = forkjoin::current_thread_index().expect("a worker");
                counts[me].fetch_add(1, Ordering::Relaxed);
                work(50_000);
            })
        });
        let ran: Vec<usize> = counts.into_iter().map(|c| c.into_inner()).collect();
        assert_eq!(ran.iter().sum::<usize>(), 256, "every item once");
        ran.into_iter().max().unwrap()
    })
}

#[test]
fn expensive_items_after_a_grown_back_off_are_shared() {
    for seed in 0..3 {
        let most = expensive_after_small_calls(2_000, seed);
        // Shared among 8 workers, one holds a fraction; a back-off that muted the expensive
        // loop's polls too would leave them all to the caller's worker.
        assert!(most <= 128, "seed {seed}: one worker ran {most} of 256");
    }
}
