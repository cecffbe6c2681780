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
//!   `FORKJOIN_SIM_REPLAY=@FILE` reads the schedule from a file (a long one does not fit a variable).
#![cfg(forkjoin_shuttle)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use shuttle::scheduler::{PctScheduler, RandomScheduler, ReplayScheduler};
use shuttle::sync::{Condvar, Mutex};
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

/// Runs `body` once in the timing mode (virtual time, the development VM's costs, `seed` breaking
/// ties) on a pool of `workers` that started, found nothing and fell asleep, as between a program's
/// calls; returns what `body` returned. For tests of what a pool does over time (`pace.rs`,
/// `heartbeat.rs`), which one deterministic run answers.
pub fn after_idle_in_virtual_time<R, F>(seed: u64, workers: usize, body: F) -> R
where
    R: Send + 'static,
    F: Fn(&forkjoin::ThreadPool) -> R + Send + Sync + 'static,
{
    use forkjoin::__sim::{work, Costs, VirtualTimeScheduler};
    let out = Arc::new(std::sync::Mutex::new(None));
    let result = out.clone();
    let mut config = config();
    config.stack_size = 8 << 20;
    config.max_steps = MaxSteps::FailAfter(50_000_000);
    Runner::new(
        VirtualTimeScheduler::with_costs(seed, Costs::MEASURED),
        config,
    )
    .run(move || {
        let pool = forkjoin::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .expect("pool");
        // The workers start, find nothing and fall asleep.
        work(1_000_000);
        shuttle::thread::yield_now();
        *result.lock().unwrap() = Some(body(&pool));
        drop(pool);
    });
    let r = out.lock().unwrap().take();
    r.expect("the run completed")
}

/// The stack size of every simulated worker (shuttle allocates one per virtual thread).
pub const WORKER_STACK: usize = 1 << 20;

/// Runs `body` under `schedules` schedules, half from shuttle's random scheduler and half from its
/// PCT scheduler (preemption depth 3), and prints `sim: NAME workers=P schedules=N ok (T s)`. A failing
/// schedule panics after shuttle printed it (replay it with `FORKJOIN_SIM_REPLAY`).
pub fn explore<F>(name: &str, workers: usize, schedules: usize, body: F)
where
    F: Fn() + Send + Sync + 'static,
{
    explore_with(name, workers, schedules, true, body)
}

/// [`explore`] with shuttle's random scheduler only, for a test whose progress needs every thread
/// to run now and then while others spin (a timer thread cancelling endless work): PCT runs the
/// highest-priority runnable thread, and may starve a low-priority one for millions of steps,
/// which no real kernel does.
pub fn explore_fair<F>(name: &str, workers: usize, schedules: usize, body: F)
where
    F: Fn() + Send + Sync + 'static,
{
    explore_with(name, workers, schedules, false, body)
}

fn explore_with<F>(name: &str, workers: usize, schedules: usize, with_pct: bool, body: F)
where
    F: Fn() + Send + Sync + 'static,
{
    if !selected(workers) {
        return;
    }
    let body = Arc::new(body);
    if let Ok(schedule) = std::env::var("FORKJOIN_SIM_REPLAY") {
        let body = body.clone();
        // The schedule as shuttle prints it, line breaks (and quotes) and all, or `@FILE` holding
        // it: a failure at the step bound prints 20 million steps, more than a variable can hold.
        let schedule = match schedule.strip_prefix('@') {
            Some(path) => std::fs::read_to_string(path).expect("FORKJOIN_SIM_REPLAY=@FILE: a file"),
            None => schedule,
        };
        let schedule: String = schedule
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '"')
            .collect();
        // The exploration's settings (step bound, main thread's stack), not shuttle's defaults.
        Runner::new(ReplayScheduler::new_from_encoded(&schedule), config()).run(move || body());
        println!("sim: {name} workers={workers} replayed ok");
        return;
    }
    let started = std::time::Instant::now();
    let seed = seed() ^ (workers as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let random = if with_pct {
        schedules.div_ceil(2)
    } else {
        schedules
    };
    let pct = schedules - random;
    let ran = Arc::new(AtomicUsize::new(0));
    let counted = |body: &Arc<F>| {
        let (body, ran) = (body.clone(), ran.clone());
        move || {
            body();
            ran.fetch_add(1, Ordering::Relaxed);
        }
    };
    // The two halves run on two OS threads at once (each shuttle execution lives on the thread
    // that runs it), so a long test keeps both of CI's cores busy; a panic in either fails the test.
    let pct_half = (pct > 0).then(|| {
        let body = counted(&body);
        std::thread::spawn(move || {
            Runner::new(PctScheduler::new_from_seed(seed, 3, pct), config()).run(body)
        })
    });
    Runner::new(RandomScheduler::new_from_seed(seed, random), config()).run(counted(&body));
    if let Some(Err(panic)) = pct_half.map(|half| half.join()) {
        std::panic::resume_unwind(panic);
    }
    let ran = ran.load(Ordering::Relaxed);
    assert_eq!(ran, schedules, "{name}: every schedule must run to the end");
    println!(
        "sim: {name} workers={workers} schedules={ran} ok ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
}

/// A count that a virtual thread can wait on (shuttle's `Mutex` + `Condvar`, so a wait that can
/// never end is a deadlock shuttle reports).
#[derive(Default)]
pub struct Counter {
    count: Mutex<usize>,
    changed: Condvar,
}

impl Counter {
    /// Adds one and wakes the waiters.
    pub fn bump(&self) {
        *self.count.lock().unwrap() += 1;
        self.changed.notify_all();
    }

    /// The count now.
    pub fn get(&self) -> usize {
        *self.count.lock().unwrap()
    }

    /// Blocks until the count reaches `n`.
    pub fn wait_for(&self, n: usize) {
        let mut count = self.count.lock().unwrap();
        while *count < n {
            count = self.changed.wait(count).unwrap();
        }
    }
}

/// A pool of `workers` simulated workers whose exit handlers bump `exits`.
pub fn pool(workers: usize, exits: &Arc<Counter>) -> forkjoin::ThreadPool {
    let exits = exits.clone();
    forkjoin::ThreadPoolBuilder::new()
        .num_threads(workers)
        .stack_size(WORKER_STACK)
        .exit_handler(move |_| exits.bump())
        .build()
        .expect("pool")
}

/// Drops `pool` while it is idle and checks that the drop joined every worker: each one ran its
/// exit handler before `drop` returned.
pub fn drop_and_check_joined(pool: forkjoin::ThreadPool, exits: &Counter) {
    let workers = pool.current_num_threads();
    drop(pool);
    assert_eq!(
        exits.get(),
        workers,
        "dropping an idle pool must join every worker"
    );
}

/// Drops `pool`, whose spawned jobs may still be finishing (its drop then returns at once), and
/// waits until every worker has run its exit handler (shuttle's step bound is the watchdog).
pub fn drop_and_await_exits(pool: forkjoin::ThreadPool, exits: &Counter) {
    let workers = pool.current_num_threads();
    drop(pool);
    while exits.get() < workers {
        shuttle::thread::yield_now();
    }
    assert_eq!(exits.get(), workers, "every worker exits once");
}

/// The payload of the panics the tests raise on purpose.
pub struct Intended;

/// Raises an [`Intended`] panic.
pub fn intended_panic() -> ! {
    std::panic::panic_any(Intended)
}

/// Keeps [`Intended`] panics quiet: shuttle's panic hook would print a "failing" schedule for each.
/// Call inside an execution (after shuttle installed its hook); other panics reach shuttle's hook.
pub fn quiet_intended_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.payload().is::<Intended>() {
                previous(info);
            }
        }));
    });
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

/// A complete binary tree of boxed nodes.
pub struct Node {
    /// This node's value.
    pub value: u64,
    /// Its two subtrees (none at the leaves).
    pub children: Option<Box<(Node, Node)>>,
    /// Set by the first visit: a second one fails at once, in the job that ran twice (before a
    /// job executed twice can corrupt its waiter's frame).
    pub visited: std::sync::atomic::AtomicBool,
}

/// A tree of the given depth whose values number the nodes in preorder from `first`.
pub fn tree(depth: u32, first: &mut u64) -> Node {
    let value = *first;
    *first += 1;
    let children = (depth > 0).then(|| Box::new((tree(depth - 1, first), tree(depth - 1, first))));
    Node {
        value,
        children,
        visited: std::sync::atomic::AtomicBool::new(false),
    }
}

/// The sum of a tree's values with a `join` at every node; counts the nodes visited in `visits`.
pub fn tree_sum(node: &Node, visits: &AtomicUsize) -> u64 {
    visits.fetch_add(1, Ordering::Relaxed);
    assert!(
        !node.visited.swap(true, Ordering::Relaxed),
        "tree node {} visited twice",
        node.value
    );
    match &node.children {
        None => node.value,
        Some(children) => {
            let (a, b) = forkjoin::join(
                || tree_sum(&children.0, visits),
                || tree_sum(&children.1, visits),
            );
            node.value + a + b
        }
    }
}

/// A number below `n` drawn from the schedule's randomness (so a replay draws the same).
pub fn draw(n: u64) -> u64 {
    use shuttle::rand::RngCore;
    shuttle::rand::thread_rng().next_u64() % n.max(1)
}

/// Gives the scheduler `steps` chances to run other threads (idle workers then tend to fall asleep).
/// Not synchronisation: a test passes whatever the others did meanwhile.
pub fn pause(steps: usize) {
    for _ in 0..steps {
        shuttle::thread::yield_now();
    }
}

/// One level of a skynet-shaped sum: `k` parallel children per level, `depth` levels, leaves
/// numbered `0..k^depth` from `base`; counts the leaves in `leaves`.
pub fn skynet(base: u64, depth: u32, k: u64, leaves: &AtomicUsize) -> u64 {
    use forkjoin::prelude::*;
    if depth == 0 {
        leaves.fetch_add(1, Ordering::Relaxed);
        return base;
    }
    (0..k)
        .into_par_iter()
        .map(|i| skynet(base * k + i, depth - 1, k, leaves))
        .sum()
}

/// Solutions of the `n`-queens problem with the first `placed.len()` rows fixed, one parallel
/// iterator (over a `Vec` of candidate columns) per row; calls `visit` once per board examined.
pub fn nqueens<V: Fn() + Sync>(n: usize, placed: Vec<usize>, visit: &V) -> usize {
    use forkjoin::prelude::*;
    visit();
    if placed.len() == n {
        return 1;
    }
    let row = placed.len();
    let candidates: Vec<usize> = (0..n)
        .filter(|&c| {
            placed
                .iter()
                .enumerate()
                .all(|(r, &q)| q != c && q.abs_diff(c) != row - r)
        })
        .collect();
    candidates
        .into_par_iter()
        .map(|c| {
            let mut next = placed.clone();
            next.push(c);
            nqueens(n, next, visit)
        })
        .sum()
}

/// `a × b` for `n × n` matrices with one scope job per block of `block` rows and, nested in it,
/// one per row; counts the jobs in `jobs`.
pub fn matmul(a: &[u64], b: &[u64], n: usize, block: usize, jobs: &AtomicUsize) -> Vec<u64> {
    let mut c = vec![0; n * n];
    forkjoin::scope(|s| {
        for (bi, rows) in c.chunks_mut(block * n).enumerate() {
            s.spawn(move |s| {
                jobs.fetch_add(1, Ordering::Relaxed);
                for (ri, row) in rows.chunks_mut(n).enumerate() {
                    s.spawn(move |_| {
                        jobs.fetch_add(1, Ordering::Relaxed);
                        let i = bi * block + ri;
                        for (j, cell) in row.iter_mut().enumerate() {
                            *cell = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
                        }
                    });
                }
            });
        }
    });
    c
}

/// `a × b`, sequentially.
pub fn matmul_seq(a: &[u64], b: &[u64], n: usize) -> Vec<u64> {
    let mut c = vec![0; n * n];
    for i in 0..n {
        for j in 0..n {
            c[i * n + j] = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
        }
    }
    c
}

/// `n`-queens solutions and boards examined from `placed`, sequentially.
pub fn nqueens_seq(n: usize, placed: &mut Vec<usize>) -> (usize, usize) {
    if placed.len() == n {
        return (1, 1);
    }
    let row = placed.len();
    let (mut solutions, mut boards) = (0, 1);
    for c in 0..n {
        if placed
            .iter()
            .enumerate()
            .all(|(r, &q)| q != c && q.abs_diff(c) != row - r)
        {
            placed.push(c);
            let (s, b) = nqueens_seq(n, placed);
            placed.pop();
            solutions += s;
            boards += b;
        }
    }
    (solutions, boards)
}
