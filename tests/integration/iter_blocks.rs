//! `by_exponential_blocks` and `by_uniform_blocks`: the same items as the base iterator, in
//! order, and a block starts only after the block before it is done.

use crate::iter_common;

use std::sync::atomic::{AtomicUsize, Ordering};

use forkjoin::prelude::*;
use iter_common::{assert_dropped_once, assert_panics, everywhere, random_inputs, tracked};

#[test]
fn blocks_yield_the_base_items_in_order() {
    everywhere(|| {
        for v in random_inputs(5, 1000) {
            let n = v.len();
            let got: Vec<u64> = v.par_iter().copied().by_exponential_blocks().collect();
            assert_eq!(got, v, "exponential, n = {n}");
            for size in [1, 2, 3, 64, 1000, usize::MAX] {
                let got: Vec<u64> = v.par_iter().copied().by_uniform_blocks(size).collect();
                assert_eq!(got, v, "uniform {size}, n = {n}");
            }
            let sum: u64 = v.par_iter().by_uniform_blocks(7).sum();
            assert_eq!(sum, v.iter().sum::<u64>());
            let first = v.par_iter().by_exponential_blocks().find_any(|_| true);
            assert_eq!(first.is_some(), n > 0);
        }
    });
}

#[test]
fn a_block_runs_after_the_previous_one() {
    everywhere(|| {
        for size in [1, 10, 100] {
            let clock = AtomicUsize::new(0);
            let ticks: Vec<usize> = (0..1000)
                .into_par_iter()
                .map(|_| clock.fetch_add(1, Ordering::Relaxed))
                .by_uniform_blocks(size)
                .collect();
            let maxima: Vec<usize> = ticks
                .chunks(size)
                .map(|c| *c.iter().max().unwrap())
                .collect();
            let minima: Vec<usize> = ticks
                .chunks(size)
                .map(|c| *c.iter().min().unwrap())
                .collect();
            assert!(maxima
                .iter()
                .zip(&minima[1..])
                .all(|(max, next_min)| max < next_min));
        }
    });
}

#[test]
fn exponential_blocks_stop_at_the_block_with_the_match() {
    everywhere(|| {
        let visited = AtomicUsize::new(0);
        let found = (0..1_000_000u64)
            .into_par_iter()
            .inspect(|_| {
                visited.fetch_add(1, Ordering::Relaxed);
            })
            .by_exponential_blocks()
            .find_first(|&x| x == 10);
        assert_eq!(found, Some(10));
        // Blocks of t, 2t, 4t, ... items (t threads): the search stops after the block that holds
        // item 10, which ends before 2 * (11 + t).
        let threads = forkjoin::current_num_threads();
        assert!(visited.into_inner() < 2 * (11 + threads));
    });
}

#[test]
#[should_panic(expected = "block_size must not be zero")]
fn uniform_blocks_of_zero_panic() {
    let _ = (0..10).into_par_iter().by_uniform_blocks(0);
}

#[test]
fn blocks_drop_owned_items_once_and_propagate_panics() {
    everywhere(|| {
        for &n in &[0, 1, 64, 1000] {
            let (items, drops) = tracked(n);
            let ids: Vec<usize> = items
                .into_par_iter()
                .by_uniform_blocks(10)
                .map(|t| t.id)
                .collect();
            assert!(ids.into_iter().eq(0..n));
            assert_dropped_once(&drops, "blocks");
        }
        let (items, drops) = tracked(1000);
        assert_panics(
            || {
                items.into_par_iter().by_exponential_blocks().for_each(|t| {
                    if t.id == 300 {
                        panic!("blocks boom");
                    }
                })
            },
            "blocks boom",
        );
        assert_dropped_once(&drops, "blocks panic");
    });
}

#[test]
fn clone_and_debug_like_rayon() {
    let it = (0..10).into_par_iter().by_uniform_blocks(3);
    let base = format!("{:?}", (0..10).into_par_iter());
    assert_eq!(
        format!("{it:?}"),
        format!("UniformBlocks {{ base: {base}, block_size: 3 }}")
    );
    assert_eq!(it.clone().collect::<Vec<_>>(), it.collect::<Vec<_>>());
    let it = (0..10).into_par_iter().by_exponential_blocks();
    assert!(format!("{it:?}").starts_with("ExponentialBlocks { base: "));
    assert_eq!(it.clone().collect::<Vec<_>>(), it.collect::<Vec<_>>());
}
