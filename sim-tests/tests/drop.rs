//! Dropping real pools under shuttle: idle right after it started, and busy with pending spawns
//! (the drop returns at once; the workers finish every spawn, then exit).
#![cfg(forkjoin_shuttle)]

use std::sync::Arc;

use sim_tests::{drop_and_check_joined, explore, pool, schedules, Counter};

fn idle_on(workers: usize, default_schedules: usize) {
    explore(
        "drop-idle",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            drop_and_check_joined(pool(workers, &exits), &exits);
        },
    );
}

#[test]
fn drop_idle_2() {
    idle_on(2, 1000);
}

#[test]
fn drop_idle_64() {
    idle_on(64, 500);
}

#[test]
fn drop_idle_256() {
    idle_on(256, 120);
}

fn busy_on(workers: usize, default_schedules: usize) {
    explore(
        "drop-busy",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let spawned = Arc::new(Counter::default());
            let jobs = 24;
            for _ in 0..jobs {
                let spawned = spawned.clone();
                pool.spawn(move || spawned.bump());
            }
            drop(pool);
            // Every worker exits, and only after every spawn ran.
            exits.wait_for(workers);
            assert_eq!(
                spawned.get(),
                jobs,
                "every spawn ran once before the workers exited"
            );
        },
    );
}

#[test]
fn drop_busy_2() {
    busy_on(2, 1000);
}

#[test]
fn drop_busy_8() {
    busy_on(8, 1000);
}

#[test]
fn drop_busy_64() {
    busy_on(64, 500);
}
