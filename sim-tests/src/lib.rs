//! forkjoin's real pools under shuttle's deterministic scheduler. The tests live in `tests/`; this
//! is their harness: how many schedules to run, which schedulers, and how a failure is replayed.
//!
//! Everything compiles to nothing unless built with `--cfg forkjoin_shuttle`; `docs/testing.md` has
//! the commands. Environment variables:
//!
//! * `FORKJOIN_SIM_SCHEDULES=N`: run N schedules per test and pool size (default: each test's own
//!   count), for deeper runs.
//! * `FORKJOIN_SIM_SEED=S`: the base seed of the schedulers (default: a fixed one, so a run repeats).
//! * `FORKJOIN_SIM_REPLAY=SCHEDULE`: replay one failing schedule (the string a failure prints) instead
//!   of exploring; run only the failing test, and with `FORKJOIN_SIM_WORKERS=P` only its pool size.
#![cfg(forkjoin_shuttle)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use shuttle::scheduler::{PctScheduler, RandomScheduler};
use shuttle::{Config, MaxSteps, Runner};

/// The schedules to run: `FORKJOIN_SIM_SCHEDULES`, or `default`.
pub fn schedules(default: usize) -> usize {
    std::env::var("FORKJOIN_SIM_SCHEDULES")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(default)
}

/// The schedulers' base seed: `FORKJOIN_SIM_SEED`, or a fixed one.
fn seed() -> u64 {
    std::env::var("FORKJOIN_SIM_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0x5EED_F0CC)
}

/// True if this pool size should run (`FORKJOIN_SIM_WORKERS` narrows a replay to one size).
fn selected(workers: usize) -> bool {
    std::env::var("FORKJOIN_SIM_WORKERS")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .is_none_or(|w| w == workers)
}

/// shuttle's settings for every simulation: quiet, a main thread with room for deep recursion, and
/// a step bound far above any passing schedule (so a livelock fails instead of hanging).
pub fn config() -> Config {
    let mut config = Config::new();
    config.silence_warnings = true;
    config.stack_size = 1 << 20;
    config.max_steps = MaxSteps::FailAfter(20_000_000);
    config
}

/// The stack size of every simulated worker (shuttle allocates one per virtual thread).
pub const WORKER_STACK: usize = 1 << 20;

/// Runs `body` under `schedules` schedules, half from shuttle's random scheduler and half from its
/// PCT scheduler (preemption depth 3), and prints `sim: NAME workers=P schedules=N ok`. A failing
/// schedule panics after shuttle printed it (replay it with `FORKJOIN_SIM_REPLAY`).
pub fn explore<F>(name: &str, workers: usize, schedules: usize, body: F)
where
    F: Fn() + Send + Sync + 'static,
{
    if !selected(workers) {
        return;
    }
    let body = Arc::new(body);
    if let Ok(schedule) = std::env::var("FORKJOIN_SIM_REPLAY") {
        let body = body.clone();
        shuttle::replay(move || body(), schedule.trim());
        println!("sim: {name} workers={workers} replayed ok");
        return;
    }
    let seed = seed() ^ (workers as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let random = schedules.div_ceil(2);
    let pct = schedules - random;
    let ran = Arc::new(AtomicUsize::new(0));
    let counted = |body: &Arc<F>| {
        let (body, ran) = (body.clone(), ran.clone());
        move || {
            body();
            ran.fetch_add(1, Ordering::Relaxed);
        }
    };
    Runner::new(RandomScheduler::new_from_seed(seed, random), config()).run(counted(&body));
    if pct > 0 {
        Runner::new(PctScheduler::new_from_seed(seed, 3, pct), config()).run(counted(&body));
    }
    let ran = ran.load(Ordering::Relaxed);
    assert_eq!(ran, schedules, "{name}: every schedule must run to the end");
    println!("sim: {name} workers={workers} schedules={ran} ok");
}

/// A pool of `workers` simulated workers whose exit handlers count into `exits`.
pub fn pool(workers: usize, exits: &Arc<AtomicUsize>) -> forkjoin::ThreadPool {
    let exits = exits.clone();
    forkjoin::ThreadPoolBuilder::new()
        .num_threads(workers)
        .stack_size(WORKER_STACK)
        .exit_handler(move |_| {
            exits.fetch_add(1, Ordering::Relaxed);
        })
        .build()
        .expect("pool")
}

/// Drops `pool` while it is idle and checks that the drop joined every worker: each one ran its
/// exit handler before `drop` returned.
pub fn drop_and_check_joined(pool: forkjoin::ThreadPool, exits: &Arc<AtomicUsize>) {
    let workers = pool.current_num_threads();
    drop(pool);
    assert_eq!(
        exits.load(Ordering::Relaxed),
        workers,
        "dropping an idle pool must join every worker"
    );
}

/// `fib(n)` with a `join` at every call; counts every call in `calls`.
pub fn fib(n: u64, calls: &AtomicUsize) -> u64 {
    calls.fetch_add(1, Ordering::Relaxed);
    if n < 2 {
        return n;
    }
    let (a, b) = forkjoin::join(|| fib(n - 1, calls), || fib(n - 2, calls));
    a + b
}

/// `fib(n)` and the number of calls the recursion makes, sequentially.
pub fn fib_seq(n: u64) -> (u64, usize) {
    if n < 2 {
        return (n, 1);
    }
    let (a, ca) = fib_seq(n - 1);
    let (b, cb) = fib_seq(n - 2);
    (a + b, ca + cb + 1)
}
