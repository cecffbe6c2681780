//! Work stays reachable while its owner blocks in user code (a channel, a barrier): each pattern
//! completes on rayon, and runs [`runs`] times (200 under `FORKJOIN_SOAK`, 20 by default) per pool
//! size here under a watchdog that fails the test instead of hanging it: by a steal, a patrol, or
//! the pool's reserve worker when every thread is blocked. The patterns that still hang on forkjoin
//! are README limitations ("Blocking inside parallel work"); for those, these tests run the fixes
//! it gives, and the patterns themselves on pools built with `siblings_may_wait(true)`, where they
//! complete as on rayon (at 2 threads and more: on one thread they hang on rayon too). Pools of 96
//! threads run the joins of more than 64 workers' pools, which are latent below the offered jobs
//! (`docs/architecture.md`, "latent join").
//!
//! A binary of its own, not a module of `tests/integration/`: its barriers need every party on a CPU at
//! once, and the oversubscribed pools of other tests running beside it on 2 cores would stretch its
//! runs towards the watchdog's limit.

mod common;

use std::sync::{mpsc, Barrier, Mutex};
use std::time::Duration;

use forkjoin::prelude::*;
use forkjoin::{ThreadPool, ThreadPoolBuilder};

/// Runs per pattern and pool size.
fn runs() -> usize {
    common::soak(200, 20)
}
/// The watchdog's limit for all runs of one pattern on one pool.
const LIMIT: Duration = Duration::from_secs(240);

/// One pattern at a time: a `Barrier` across 8 workers needs all of them on a CPU at once, and
/// 64-thread pools of other tests running beside it on 2 cores stretch each run to seconds.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn on_pools(what: &'static str, sizes: &[usize], pattern: fn(&ThreadPool, usize)) {
    on_built_pools(what, sizes, common::pool, pattern);
}

/// [`on_pools`] on pools built with `siblings_may_wait(true)`.
fn on_pools_where_siblings_may_wait(
    what: &'static str,
    sizes: &[usize],
    pattern: fn(&ThreadPool, usize),
) {
    fn build(threads: usize) -> ThreadPool {
        ThreadPoolBuilder::new()
            .num_threads(threads)
            .siblings_may_wait(true)
            .build()
            .expect("pool builds")
    }
    on_built_pools(what, sizes, build, pattern);
}

fn on_built_pools(
    what: &'static str,
    sizes: &[usize],
    build: fn(usize) -> ThreadPool,
    pattern: fn(&ThreadPool, usize),
) {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for &threads in sizes {
        common::watchdog(&format!("{what} on {threads} threads"), LIMIT, move || {
            let pool = build(threads);
            for _ in 0..runs() {
                pattern(&pool, threads);
            }
        });
    }
}

/// A tree of `join`s `depth` deep whose leftmost leaf runs `wait` (a pattern that blocks until
/// other work runs) and whose every leaf then computes fib(10): the sum is `55 << depth`. The
/// other subtrees compute, so the blocked worker's pending work is what idle workers find.
fn deep_with_a_waiting_leaf(depth: usize, wait: fn()) -> u64 {
    fn deep(depth: usize, wait: Option<fn()>) -> u64 {
        if depth == 0 {
            if let Some(wait) = wait {
                wait();
            }
            return common::fib(10);
        }
        let (a, b) = forkjoin::join(|| deep(depth - 1, wait), || deep(depth - 1, None));
        a + b
    }
    deep(depth, Some(wait))
}

/// `Barrier(threads)` across the `threads` items of a parallel loop whose pieces are at most
/// `max_len` long: exactly one item is the barrier's leader.
fn barrier_across_the_items(pool: &ThreadPool, threads: usize, max_len: usize) {
    let barrier = Barrier::new(threads);
    let leaders: usize = pool.install(|| {
        (0..threads)
            .into_par_iter()
            .with_max_len(max_len)
            .map(|_| usize::from(barrier.wait().is_leader()))
            .sum()
    });
    assert_eq!(leaders, 1);
}

/// Runs `b` as the b of a `join` whose a spins until b has started, so b runs on another worker
/// (stolen) while this one waits for it; returns b's result.
fn with_b_stolen<R: Send>(b: impl FnOnce() -> R + Send) -> R {
    use std::sync::atomic::{AtomicBool, Ordering};
    let b_started = AtomicBool::new(false);
    forkjoin::join(
        || {
            while !b_started.load(Ordering::SeqCst) {
                std::hint::spin_loop();
            }
        },
        || {
            b_started.store(true, Ordering::SeqCst);
            b()
        },
    )
    .1
}

/// `join(|| spawn(send), || recv())`: b blocks until the job a spawned has run. When b is
/// stolen, its thief blocks in `recv`, and the job a spawned sits on the joining worker's deque:
/// that worker runs it before it waits for b (it hung here before). On a pool of one thread b
/// runs right after a and blocks with the job still queued: the pool's reserve worker runs it.
#[test]
fn a_join_whose_b_waits_for_a_job_its_a_spawned() {
    fn pattern(pool: &ThreadPool, _: usize) {
        let got = pool.install(|| {
            let (tx, rx) = mpsc::channel();
            forkjoin::join(
                move || forkjoin::spawn(move || tx.send(7u32).unwrap()),
                move || rx.recv().unwrap(),
            )
            .1
        });
        assert_eq!(got, 7);
    }
    on_pools("join(spawn(send), recv)", &[1, 2, 8, 64, 96], pattern);
}

/// A spawner that blocks until its spawned job has run, inside a join tree: the spawned job sits
/// on the blocked worker's deque with private jobs below it.
#[test]
fn a_worker_blocked_on_the_job_it_spawned_inside_a_join_tree() {
    fn pattern(pool: &ThreadPool, _: usize) {
        let sum = pool.install(|| {
            forkjoin::join(
                || {
                    let (tx, rx) = mpsc::channel();
                    forkjoin::spawn(move || tx.send(common::fib(12)).unwrap());
                    rx.recv().unwrap()
                },
                || common::fib(15),
            )
        });
        assert_eq!(sum, (144, 610));
    }
    on_pools("spawn then recv inside a join", &[2, 8, 64, 96], pattern);
}

/// A stolen b that blocks until a job it made has run, the fix the README gives for it: the job
/// is a scope's (`scope(|s| { s.spawn(send); recv() })`), so it belongs to b, and the worker
/// waiting in the join for b takes it at once, even when no other worker is free. (With `spawn`
/// instead the job belongs to nobody's wait: on two threads only the reserve worker takes it,
/// tested below.)
#[test]
fn a_stolen_b_that_waits_for_a_job_of_its_own_scope() {
    fn pattern(pool: &ThreadPool, _: usize) {
        let got = pool.install(|| {
            with_b_stolen(|| {
                let (tx, rx) = mpsc::channel();
                let rx = Mutex::new(rx);
                forkjoin::scope(|s| {
                    s.spawn(move |_| tx.send(7u32).unwrap());
                    rx.lock().unwrap().recv().unwrap()
                })
            })
        });
        assert_eq!(got, 7);
    }
    on_pools(
        "stolen b: scope(spawn(send), recv)",
        &[2, 8, 64, 96],
        pattern,
    );
}

/// `Barrier(n)` across the `n` items of a parallel loop on `n` threads, with `with_max_len(1)`:
/// every split that `with_max_len` demands pushes, however deep, and an idle worker takes each
/// item's job even while the worker that pushed it waits at the barrier.
#[test]
fn a_barrier_across_the_items_of_a_loop_split_to_single_items() {
    fn pattern(pool: &ThreadPool, threads: usize) {
        barrier_across_the_items(pool, threads, 1);
    }
    on_pools(
        "Barrier(n) over n single items",
        &[1, 2, 8, 64, 96],
        pattern,
    );
}

/// The README's fix for a blocking `a` in a deep `join`: order the halves so that `a` never waits
/// for `b` (here a sends and b receives), eight joins deep where most joins run inline.
#[test]
fn a_deep_join_whose_a_sends_and_b_receives() {
    fn deep(depth: usize) -> u32 {
        if depth == 0 {
            let (tx, rx) = mpsc::channel();
            forkjoin::join(move || tx.send(5u32).unwrap(), move || rx.recv().unwrap()).1
        } else {
            let (a, b) = forkjoin::join(|| deep(depth - 1), || deep(depth - 1));
            a + b
        }
    }
    fn pattern(pool: &ThreadPool, _: usize) {
        assert_eq!(pool.install(|| deep(8)), 5 << 8);
    }
    on_pools("a deep join whose a sends", &[1, 2, 8, 64, 96], pattern);
}

/// A receive after a `join` whose a spawned the sender, inside `install` on a pool of one
/// thread: the only worker blocks in `recv` with the job on its own deque, and the pool's reserve
/// worker runs it.
#[test]
fn a_receive_after_a_join_whose_a_spawned_the_sender() {
    fn pattern(pool: &ThreadPool, _: usize) {
        let got = pool.install(|| {
            let (tx, rx) = mpsc::channel();
            forkjoin::join(
                move || forkjoin::spawn(move || tx.send(9u32).unwrap()),
                || (),
            );
            rx.recv().unwrap()
        });
        assert_eq!(got, 9);
    }
    on_pools("join(spawn(send), ()); recv", &[1, 2, 8, 64, 96], pattern);
}

/// A stolen b that `spawn`s a job and blocks until it has run, while the worker that waits for
/// b refuses the job (spawned work belongs to nobody's wait) and, on two threads, no other worker
/// exists: every thread is blocked or waiting, and the pool's reserve worker runs the job.
#[test]
fn a_stolen_b_that_waits_for_a_job_it_spawned() {
    fn pattern(pool: &ThreadPool, _: usize) {
        let got = pool.install(|| {
            with_b_stolen(|| {
                let (tx, rx) = mpsc::channel();
                forkjoin::spawn(move || tx.send(7u32).unwrap());
                rx.recv().unwrap()
            })
        });
        assert_eq!(got, 7);
    }
    on_pools("stolen b: spawn(send), recv", &[2, 8, 64, 96], pattern);
}

/// Every worker of the pool blocks in user code (a barrier of all of them plus the caller)
/// while a job waits in the pool: the reserve worker runs it, then the caller releases the
/// barrier (on rayon the job would wait for the barrier). A reserve thread still searching after
/// the previous run may take one of the blocking jobs instead, which leaves a worker free for
/// the last job: either way it runs. On the reserve thread `current_thread_index()` is `None`
/// (it is none of the pool's threads) and the pool's size is unchanged.
#[test]
fn a_job_waiting_while_every_worker_blocks_runs_on_the_reserve() {
    /// The thread's index in its pool, checked against its name: `None` exactly on the reserve.
    fn index_here(threads: usize) -> Option<usize> {
        let index = forkjoin::current_thread_index();
        let on_reserve = std::thread::current().name() == Some("forkjoin-reserve");
        assert_eq!(index.is_none(), on_reserve, "{index:?}");
        assert!(index.is_none_or(|i| i < threads), "{index:?}");
        assert_eq!(forkjoin::current_num_threads(), threads);
        index
    }
    fn pattern(pool: &ThreadPool, threads: usize) {
        let barrier = std::sync::Arc::new(Barrier::new(threads + 1));
        let (tx, rx) = mpsc::channel();
        for _ in 0..threads {
            let barrier = barrier.clone();
            let tx = tx.clone();
            pool.spawn(move || {
                tx.send(("blocked", index_here(threads))).unwrap();
                barrier.wait();
            });
        }
        for _ in 0..threads {
            assert_eq!(rx.recv().unwrap().0, "blocked");
        }
        // Every thread that took a job above is in `barrier.wait()`.
        let done = tx.clone();
        pool.spawn(move || done.send(("ran", index_here(threads))).unwrap());
        assert_eq!(rx.recv().unwrap().0, "ran");
        barrier.wait();
    }
    on_pools("a job while every worker blocks", &[1, 2, 8], pattern);
}

/// The README's fix for a loop whose items wait for each other: every item a job of a `scope`.
/// On one thread the barrier is of one; on more, the scope's owner runs scope jobs while it waits
/// and every other worker takes one.
#[test]
fn a_barrier_across_the_jobs_of_a_scope() {
    fn pattern(pool: &ThreadPool, threads: usize) {
        let barrier = Barrier::new(threads);
        let leaders = std::sync::atomic::AtomicUsize::new(0);
        pool.install(|| {
            forkjoin::scope(|s| {
                for _ in 0..threads {
                    s.spawn(|_| {
                        if barrier.wait().is_leader() {
                            leaders.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        }
                    });
                }
            })
        });
        assert_eq!(leaders.into_inner(), 1);
    }
    on_pools("Barrier(n) over n scope jobs", &[1, 2, 8, 64, 96], pattern);
}

/// The README's other fix for a blocking a in a deep join: what a waits for is a scope's job,
/// which always is a job. One leaf of a join tree eight deep waits at a `Barrier(2)` with the
/// job (the others compute); on one thread the scope's owner blocks there with the job on its
/// own deque, and the reserve worker runs it. (Every leaf blocking at once is another pattern:
/// two workers each blocked at a leaf, each with its job on its own deque, hang rayon too.)
#[test]
fn a_deep_join_whose_a_waits_for_a_job_of_its_scope() {
    fn pattern(pool: &ThreadPool, _: usize) {
        let leaves = pool.install(|| {
            deep_with_a_waiting_leaf(8, || {
                let barrier = Barrier::new(2);
                forkjoin::scope(|s| {
                    s.spawn(|_| {
                        barrier.wait();
                    });
                    barrier.wait();
                });
            })
        });
        assert_eq!(leaves, 55 << 8);
    }
    on_pools(
        "a deep join whose a waits for its scope's job",
        &[1, 2, 8, 64, 96],
        pattern,
    );
}

/// The sizes at which rayon completes the patterns below (on one thread they wait for work that
/// only the blocked thread could run, on rayon too).
const SHARED_SIZES: &[usize] = &[2, 8, 64, 96];

/// A `join` eight deep whose halves meet at a `Barrier(2)`: without `siblings_may_wait`, the
/// deep join runs b after a, which waits for b at the barrier forever.
#[test]
fn siblings_may_wait_a_barrier_across_the_halves_of_a_deep_join() {
    fn pattern(pool: &ThreadPool, _: usize) {
        let leaves = pool.install(|| {
            deep_with_a_waiting_leaf(8, || {
                let barrier = Barrier::new(2);
                forkjoin::join(|| barrier.wait(), || barrier.wait());
            })
        });
        assert_eq!(leaves, 55 << 8);
    }
    on_pools_where_siblings_may_wait("Barrier(2) across a deep join", SHARED_SIZES, pattern);
}

/// A `join` eight deep whose a receives what b sends (rayon's one-thread-blocked case: the other
/// subtrees compute, so the blocked worker's b is the oldest job left to steal).
#[test]
fn siblings_may_wait_a_deep_join_whose_a_receives_from_b() {
    fn pattern(pool: &ThreadPool, _: usize) {
        let leaves = pool.install(|| {
            deep_with_a_waiting_leaf(8, || {
                let (tx, rx) = mpsc::channel();
                let got = forkjoin::join(move || rx.recv().unwrap(), move || tx.send(5).unwrap());
                assert_eq!(got.0, 5);
            })
        });
        assert_eq!(leaves, 55 << 8);
    }
    on_pools_where_siblings_may_wait("a deep join whose a receives", SHARED_SIZES, pattern);
}

/// `Barrier(n)` across the `n` items of a plain parallel loop on `n` threads (no `with_max_len`):
/// without `siblings_may_wait`, a call made while the other workers sleep runs as one leaf,
/// whose first item waits at the barrier with the others in its rest.
#[test]
fn siblings_may_wait_a_barrier_across_the_items_of_a_loop() {
    fn pattern(pool: &ThreadPool, threads: usize) {
        // `usize::MAX`: pieces as long as the loop chooses, as without `with_max_len`.
        barrier_across_the_items(pool, threads, usize::MAX);
    }
    on_pools_where_siblings_may_wait("Barrier(n) over n items", SHARED_SIZES, pattern);
}

/// Item 0 of a parallel loop waits on a `Condvar` until the last item has run.
#[test]
fn siblings_may_wait_the_first_item_waits_for_the_last() {
    fn pattern(pool: &ThreadPool, _: usize) {
        const ITEMS: usize = 100;
        let done = Mutex::new(false);
        let signal = std::sync::Condvar::new();
        let sum: usize = pool.install(|| {
            (0..ITEMS)
                .into_par_iter()
                .map(|i| {
                    if i == 0 {
                        let mut done = done.lock().unwrap();
                        while !*done {
                            done = signal.wait(done).unwrap();
                        }
                    } else if i == ITEMS - 1 {
                        *done.lock().unwrap() = true;
                        signal.notify_all();
                    }
                    i
                })
                .sum()
        });
        assert_eq!(sum, ITEMS * (ITEMS - 1) / 2);
    }
    on_pools_where_siblings_may_wait("item 0 waits for the last", SHARED_SIZES, pattern);
}
