//! The reserve worker (`runtime::registry::reserve`) on real pools under shuttle: every thread of
//! the pool blocks in user code while a job waits in it, and only the reserve worker, started by
//! the monitor thread, can run that job. Pools here keep a reserve (`keep_reserve_workers`), and
//! the simulated kernel reports every thread blocked, so the monitor also starts reserves where a
//! machine would not: they run beside the pool's workers, which must not lose or repeat a job.
//! Each pattern runs in rounds, so that a reserve starts again after the last one stopped.
#![cfg(forkjoin_shuttle)]

use std::sync::Arc;

use shuttle::sync::{mpsc, Barrier};
use sim_tests::{drop_and_await_exits, explore, pool, schedules, Counter};

/// Rounds per execution: a later round's stall needs a reserve after the earlier one stopped.
const ROUNDS: usize = 3;

/// Lets the schedule run on for a while between rounds (the main thread yields): a reserve that
/// ran the last round then has usually ended its searches and stopped before the next stall,
/// which must then start another. (Without it, one reserve still searching serves every round.)
fn between_rounds() {
    for _ in 0..2_000 {
        shuttle::thread::yield_now();
    }
}

/// `join(|| spawn(send), || recv())` on one thread: b runs right after a and blocks in `recv`
/// with the job a spawned on the only worker's deque.
fn join_spawn_recv(workers: usize, default_schedules: usize) {
    forkjoin::__sim::keep_reserve_workers(true);
    explore(
        "reserve: join(spawn(send), recv)",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            for round in 0..ROUNDS {
                let got = pool.install(|| {
                    let (tx, rx) = mpsc::channel();
                    forkjoin::join(
                        || forkjoin::spawn(move || tx.send(round).unwrap()),
                        || rx.recv().unwrap(),
                    )
                    .1
                });
                assert_eq!(got, round);
                between_rounds();
            }
            drop_and_await_exits(pool, &exits);
        },
    );
}

#[test]
fn reserve_join_spawn_recv_1() {
    join_spawn_recv(1, 500);
}

/// Every worker takes a job that blocks at a barrier of all of them plus the main thread; then
/// one more job, which the main thread waits for before it releases the barrier: exactly one of
/// these jobs runs on the reserve, where `current_thread_index()` is `None` and the pool's size
/// is unchanged.
fn every_worker_blocked(workers: usize, default_schedules: usize) {
    forkjoin::__sim::keep_reserve_workers(true);
    explore(
        "reserve: a job while every worker blocks",
        workers,
        schedules(default_schedules),
        move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            for _ in 0..ROUNDS {
                let barrier = Arc::new(Barrier::new(workers + 1));
                let (tx, rx) = mpsc::channel();
                for _ in 0..workers {
                    let barrier = barrier.clone();
                    let tx = tx.clone();
                    pool.spawn(move || {
                        tx.send(forkjoin::current_thread_index()).unwrap();
                        barrier.wait();
                    });
                }
                // A reserve still searching after the last round may take one of the blocking
                // jobs, leaving a worker free for the last job: either way it runs.
                let on_reserve = (0..workers)
                    .filter(|_| rx.recv().unwrap().is_none())
                    .count();
                assert!(on_reserve <= 1, "one reserve at a time: {on_reserve}");
                pool.spawn(move || {
                    assert_eq!(forkjoin::current_num_threads(), workers);
                    tx.send(forkjoin::current_thread_index()).unwrap();
                });
                // Every worker is blocked: the reserve runs it, unless it took a blocking job
                // above, which left a worker free.
                let last_on_reserve = rx.recv().unwrap().is_none();
                assert_eq!(on_reserve + usize::from(last_on_reserve), 1);
                barrier.wait();
                between_rounds();
            }
            drop_and_await_exits(pool, &exits);
        },
    );
}

#[test]
fn reserve_every_worker_blocked_1() {
    every_worker_blocked(1, 500);
}

#[test]
fn reserve_every_worker_blocked_2() {
    every_worker_blocked(2, 500);
}

#[test]
fn reserve_every_worker_blocked_8() {
    every_worker_blocked(8, 200);
}

#[test]
fn reserve_every_worker_blocked_64() {
    every_worker_blocked(64, 20);
}

#[test]
fn reserve_every_worker_blocked_256() {
    every_worker_blocked(256, 4);
}
