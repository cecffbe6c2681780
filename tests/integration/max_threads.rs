//! `with_max_threads`: a probe counts the threads running a capped call's work at once (a thread
//! counts once however deep it nests the call's jobs) and must never see more than the cap, for
//! joins, iterators, scopes and spawns, on pools of 2, 8 and 64 threads (more threads than cores
//! on purpose), 200 runs each; results equal the uncapped ones; nested caps take the smaller; a
//! cap holds nothing else back; each test runs under a watchdog.

use crate::common;

use std::cell::Cell;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use forkjoin::prelude::*;
use forkjoin::{join, scope, with_max_threads, ThreadPool};

const SIZES: [usize; 3] = [2, 8, 64];
const RUNS: usize = 200;
const LIMIT: Duration = Duration::from_secs(300);

/// Threads inside the probed work now, and the most seen at once.
#[derive(Default)]
struct Probe {
    now: AtomicUsize,
    most: AtomicUsize,
}

thread_local! {
    /// How deep this thread is inside probed work (a waiting thread may nest another piece).
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

impl Probe {
    /// Runs `f` as probed work: counts this thread in while it runs, with a little work of its
    /// own so that pieces overlap.
    fn work<R>(&self, f: impl FnOnce() -> R) -> R {
        let outer = DEPTH.with(|d| d.replace(d.get() + 1));
        if outer == 0 {
            let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
        }
        let mut x = 0u64;
        for i in 0..200 {
            x = x.wrapping_add(black_box(i));
        }
        black_box(x);
        let result = f();
        DEPTH.with(|d| d.set(outer));
        if outer == 0 {
            self.now.fetch_sub(1, Ordering::SeqCst);
        }
        result
    }

    fn most(&self) -> usize {
        self.most.load(Ordering::SeqCst)
    }
}

fn fib(probe: &Probe, n: u32) -> u64 {
    probe.work(|| {
        if n < 2 {
            return n as u64;
        }
        let (a, b) = join(|| fib(probe, n - 1), || fib(probe, n - 2));
        a + b
    })
}

/// Runs `shape` capped at `k` for every `k` in {1, 2, half the pool} on each pool size, `RUNS`
/// times, and checks the probe and the result.
fn capped_runs(what: &'static str, shape: fn(&ThreadPool, &Probe) -> u64, expected: u64) {
    for threads in SIZES {
        common::watchdog(&format!("{what} on {threads} threads"), LIMIT, move || {
            let pool = common::pool(threads);
            let mut caps = vec![1, 2, threads / 2];
            caps.dedup();
            for k in caps {
                let mut most = 0;
                for run in 0..RUNS {
                    let probe = Probe::default();
                    let result = pool.with_max_threads(k, || shape(&pool, &probe));
                    assert_eq!(result, expected, "{what}: run {run}, cap {k} of {threads}");
                    most = most.max(probe.most());
                    assert!(
                        probe.most() <= k,
                        "{what}: {} threads inside a call capped at {k} (pool of {threads}, run {run})",
                        probe.most()
                    );
                }
                assert!(most >= 1);
            }
        });
    }
}

#[test]
fn joins_never_run_on_more_threads_than_the_cap() {
    capped_runs("joins", |_, probe| fib(probe, 12), 144);
}

#[test]
fn iterators_never_run_on_more_threads_than_the_cap() {
    capped_runs(
        "iterators",
        |_, probe| {
            (0..2_000u64)
                .into_par_iter()
                .map(|i| probe.work(|| i))
                .sum::<u64>()
        },
        1_999_000,
    );
}

#[test]
fn scopes_never_run_on_more_threads_than_the_cap() {
    capped_runs(
        "scopes",
        |_, probe| {
            let total = AtomicUsize::new(0);
            scope(|s| {
                for i in 0..200 {
                    let total = &total;
                    s.spawn(move |s| {
                        probe.work(|| {
                            total.fetch_add(i, Ordering::Relaxed);
                            s.spawn(move |_| {
                                probe.work(|| total.fetch_add(1, Ordering::Relaxed));
                            });
                        });
                    });
                }
            });
            total.into_inner() as u64
        },
        19_900 + 200,
    );
}

#[test]
fn spawns_never_run_on_more_threads_than_the_cap_even_after_the_call() {
    for threads in SIZES {
        common::watchdog(&format!("spawns on {threads} threads"), LIMIT, move || {
            let pool = common::pool(threads);
            for k in [1, 2, threads / 2] {
                for run in 0..RUNS / 4 {
                    let probe = Arc::new(Probe::default());
                    let (tx, rx) = mpsc::channel();
                    let futures = pool.with_max_threads(k, || {
                        let mut futures = Vec::new();
                        for i in 0..100u64 {
                            let (probe, tx) = (probe.clone(), tx.clone());
                            // Plain and FIFO spawns, and futures (kept: a dropped one cancels).
                            let job = move || {
                                probe.work(|| tx.send(i).unwrap());
                            };
                            match i % 3 {
                                0 => forkjoin::spawn(job),
                                1 => forkjoin::spawn_fifo(job),
                                _ => futures.push(forkjoin::spawn_future(job)),
                            }
                        }
                        futures
                    });
                    let mut sum = 0;
                    for _ in 0..100 {
                        sum += rx.recv_timeout(common::TIMEOUT).expect("every spawn runs");
                    }
                    assert_eq!(sum, 4_950);
                    for future in futures {
                        forkjoin::block_on(future);
                    }
                    assert!(
                        probe.most() <= k,
                        "spawns: {} threads inside a call capped at {k} (pool of {threads}, run {run})",
                        probe.most()
                    );
                }
            }
        });
    }
}

#[test]
fn nested_caps_take_the_smaller() {
    common::watchdog("nested caps", LIMIT, || {
        let pool = common::pool(8);
        for (outer, inner) in [(2, 6), (6, 2), (3, 3)] {
            for _ in 0..RUNS {
                let probe = Probe::default();
                let sum = pool.with_max_threads(outer, || {
                    with_max_threads(inner, || {
                        (0..1_000u64)
                            .into_par_iter()
                            .map(|i| probe.work(|| i))
                            .sum::<u64>()
                    })
                });
                assert_eq!(sum, 499_500);
                assert!(probe.most() <= outer.min(inner), "{outer} / {inner}");
            }
        }
    });
}

#[test]
fn a_cap_holds_other_work_back_not_at_all() {
    // A call capped at 1 thread that waits for work outside it: the rest of the pool runs that
    // work, so the call returns (it would hang if the cap held the pool).
    common::watchdog("other work beside a cap", LIMIT, || {
        let pool = common::pool(4);
        let (tx, rx) = mpsc::channel();
        let rx = std::sync::Mutex::new(rx);
        pool.with_max_threads(1, || {
            forkjoin::current_thread_index().expect("on a worker");
            let tx = tx.clone();
            // Not made under the cap: spawned from a plain thread into the pool.
            std::thread::scope(|s| {
                s.spawn(|| pool.spawn(move || tx.send(42).unwrap()));
            });
            assert_eq!(rx.lock().unwrap().recv_timeout(common::TIMEOUT), Ok(42));
        });
    });
}

#[test]
fn a_panic_in_a_capped_call_gives_its_places_back() {
    common::watchdog("panic under a cap", LIMIT, || {
        let pool = common::pool(4);
        for _ in 0..50 {
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.with_max_threads(2, || {
                    (0..1_000u32).into_par_iter().for_each(|i| {
                        if i == 777 {
                            panic!("boom");
                        }
                    })
                })
            }));
            assert!(caught.is_err());
        }
        // Every cap was given back: a new call capped at 2 still gets its places.
        let probe = Probe::default();
        let sum = pool.with_max_threads(2, || fib(&probe, 15));
        assert_eq!(sum, 610);
        assert!(probe.most() <= 2);
    });
}

#[test]
fn a_cap_at_or_above_the_pool_and_from_outside_any_pool() {
    let pool = common::pool(2);
    assert_eq!(pool.with_max_threads(2, || fib(&Probe::default(), 10)), 55);
    assert_eq!(
        pool.with_max_threads(100, || fib(&Probe::default(), 10)),
        55
    );
    // From a plain thread: the global pool.
    let probe = Probe::default();
    assert_eq!(with_max_threads(1, || fib(&probe, 10)), 55);
    assert_eq!(probe.most(), 1);
}

#[test]
#[should_panic(expected = "at least 1 thread")]
fn a_cap_of_zero_is_an_error() {
    with_max_threads(0, || ());
}

#[test]
fn a_cap_leaves_the_call_its_threads() {
    // The probe can see more than one thread: a cap of 2 of 8 runs the call on 2 at times (a
    // cap that ran everything on its caller would pass the tests above). Over 200 runs of a
    // recursion of 600 joins, one with two threads inside is all but certain on any machine of
    // two cores or more while the pool has them; with other tests' pools busy beside it on 2
    // cores, the other workers may get no CPU for a while, so it runs on, up to 50 times as many
    // runs, until one has.
    common::watchdog("two threads under a cap of two", LIMIT, || {
        let pool = common::pool(8);
        let (mut most, mut runs) = (0, 0);
        while runs < RUNS || (most < 2 && runs < 50 * RUNS) {
            let probe = Probe::default();
            pool.with_max_threads(2, || fib(&probe, 14));
            most = most.max(probe.most());
            runs += 1;
        }
        assert_eq!(
            most, 2,
            "the most threads inside the call at once, over {runs} runs"
        );
    });
}
