//! `with_max_len(1)` on default pools under shuttle, rayon's fix for loop items that wait for each
//! other (README, "Limitations"): a `Barrier(n)` across the `n` items of a loop on `n` workers
//! completes, at 2, 8 and 64 virtual workers, with the workers asleep when the call starts. Every
//! split the length demands is published at once: a piece left private while its owner blocks at
//! the barrier is out of reach of a worker asleep without a patrol timeout, which the simulation
//! never wakes (on real threads, a second later), so the wait deadlocks and shuttle reports it.
#![cfg(forkjoin_shuttle)]

use std::sync::Arc;

use forkjoin::prelude::*;
use shuttle::sync::Barrier;
use sim_tests::{drop_and_await_exits, explore, pool, schedules, Counter};

fn barrier_across_the_items(workers: usize, default_schedules: usize) {
    explore(
        "with_max_len(1): Barrier(n) across n items",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let barrier = Barrier::new(workers);
            let leaders: usize = pool.install(|| {
                (0..workers)
                    .into_par_iter()
                    .with_max_len(1)
                    .map(|_| usize::from(barrier.wait().is_leader()))
                    .sum()
            });
            assert_eq!(leaders, 1);
            drop_and_await_exits(pool, &exits);
        },
    );
}

#[test]
fn max_len_barrier_across_the_items_2() {
    barrier_across_the_items(2, 300);
}

#[test]
fn max_len_barrier_across_the_items_8() {
    // 2,000 schedules (2 s): the broken variant `demanded_split_private` (scripts/sim-bugs.sh)
    // needs between 400 and 800 since the sleeper map's atomics added scheduling points.
    barrier_across_the_items(8, 2000);
}

#[test]
fn max_len_barrier_across_the_items_64() {
    barrier_across_the_items(64, 50);
}
