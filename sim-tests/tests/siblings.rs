//! Pools built with `siblings_may_wait` under shuttle: closures and loop items that wait for each
//! other (a `Barrier` across the two halves of a deep `join`, a `Barrier` across every item of a
//! loop) complete, as on rayon, at 2 to 256 virtual workers. Without the option the deep join
//! runs b after a and the loop may run as one leaf: both would wait forever.
#![cfg(forkjoin_shuttle)]

use std::sync::Arc;

use forkjoin::prelude::*;
use shuttle::sync::Barrier;
use sim_tests::{drop_and_await_exits, explore, schedules, Counter, WORKER_STACK};

fn pool(workers: usize, exits: &Arc<Counter>) -> forkjoin::ThreadPool {
    let exits = exits.clone();
    forkjoin::ThreadPoolBuilder::new()
        .num_threads(workers)
        .stack_size(WORKER_STACK)
        .siblings_may_wait(true)
        .exit_handler(move |_| exits.bump())
        .build()
        .expect("pool")
}

/// A `join` `depth` deep on its leftmost path whose halves meet at a `Barrier(2)`; the other
/// subtrees are small sums.
fn deep(depth: usize, blocking: bool) -> u64 {
    if depth == 0 {
        if blocking {
            let barrier = Barrier::new(2);
            forkjoin::join(|| barrier.wait(), || barrier.wait());
        }
        return 1;
    }
    let (a, b) = forkjoin::join(|| deep(depth - 1, blocking), || deep(depth - 1, false));
    a + b
}

fn barrier_in_a_deep_join(workers: usize, default_schedules: usize) {
    explore(
        "siblings: Barrier(2) across a deep join",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            assert_eq!(pool.install(|| deep(6, true)), 1 << 6);
            drop_and_await_exits(pool, &exits);
        },
    );
}

#[test]
fn siblings_barrier_in_a_deep_join_2() {
    barrier_in_a_deep_join(2, 300);
}

#[test]
fn siblings_barrier_in_a_deep_join_8() {
    barrier_in_a_deep_join(8, 100);
}

#[test]
fn siblings_barrier_in_a_deep_join_64() {
    barrier_in_a_deep_join(64, 20);
}

#[test]
fn siblings_barrier_in_a_deep_join_256() {
    barrier_in_a_deep_join(256, 4);
}

/// `Barrier(n)` across the `n` items of a loop on `n` workers.
fn barrier_across_the_items(workers: usize, default_schedules: usize) {
    explore(
        "siblings: Barrier(n) across n items",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let barrier = Barrier::new(workers);
            let leaders: usize = pool.install(|| {
                (0..workers)
                    .into_par_iter()
                    .map(|_| usize::from(barrier.wait().is_leader()))
                    .sum()
            });
            assert_eq!(leaders, 1);
            drop_and_await_exits(pool, &exits);
        },
    );
}

#[test]
fn siblings_barrier_across_the_items_2() {
    barrier_across_the_items(2, 300);
}

#[test]
fn siblings_barrier_across_the_items_8() {
    barrier_across_the_items(8, 400);
}

#[test]
fn siblings_barrier_across_the_items_64() {
    barrier_across_the_items(64, 10);
}

/// The deep join's barrier after a broadcast that worker `workers - 1` finishes last: every
/// worker went idle after work, so each searched, announced and fell asleep, the last one with
/// no patrol timeout (all were idle). The call then wakes one worker for its injected job, and
/// the other halves of the joins reach the rest only by their publications' wakes (sleep README
/// rule 12: a sleeper must not count as a searcher, or the publications wake nobody; the
/// broken variant `searcher_counted_asleep`).
fn barrier_after_the_last_worker_slept(workers: usize, default_schedules: usize) {
    explore(
        "siblings: Barrier(2) across a deep join, after every worker slept",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            pool.broadcast(|ctx| {
                if ctx.index() == workers - 1 {
                    for _ in 0..50 {
                        shuttle::thread::yield_now();
                    }
                }
            });
            // Time for the workers to search, announce and fall asleep.
            for _ in 0..500 {
                shuttle::thread::yield_now();
            }
            assert_eq!(pool.install(|| deep(6, true)), 1 << 6);
            drop_and_await_exits(pool, &exits);
        },
    );
}

#[test]
fn siblings_barrier_after_the_last_worker_slept_2() {
    barrier_after_the_last_worker_slept(2, 200);
}
