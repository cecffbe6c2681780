//! `ThreadPool::set_num_threads`: a pool resized 1,000 times between 1 and 64 threads while
//! iterators, scopes and spawns run in it gives every right result and runs every job once, and
//! its thread count in `/proc/self/task` follows each change; broadcasts reach exactly the pool's
//! size; bad sizes are errors. A binary of its own: it counts the process's threads.

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::watchdog;
use forkjoin::prelude::*;
use forkjoin::ThreadPoolBuilder;

const LIMIT: Duration = Duration::from_secs(600);
/// Thread names of the stress test's pool: its threads are counted by name.
const PREFIX: &str = "fj-resize-";

/// How many threads of this process have a name starting with `prefix` (Linux: from `/proc`).
fn threads_named(prefix: &str) -> usize {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return usize::MAX;
    };
    tasks
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|comm| comm.starts_with(prefix))
        .count()
}

/// A small deterministic generator for the sizes.
fn sizes(count: usize) -> Vec<usize> {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    (0..count)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            1 + (x % 64) as usize
        })
        .collect()
}

#[test]
fn resized_a_thousand_times_while_it_runs() {
    watchdog("resize stress", LIMIT, || {
        let pool = Arc::new(
            ThreadPoolBuilder::new()
                .num_threads(4)
                .resizable_up_to(64)
                .thread_name(|i| format!("{PREFIX}{i}"))
                .build()
                .unwrap(),
        );
        let linux = threads_named(PREFIX) != usize::MAX;
        if linux {
            assert_eq!(threads_named(PREFIX), 4);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let ran = Arc::new(AtomicUsize::new(0));
        let expected = Arc::new(AtomicUsize::new(0));
        // Two callers keep the pool busy with every kind of work, checking each result.
        let callers: Vec<_> = (0..2)
            .map(|caller| {
                let (pool, stop, ran, expected) =
                    (pool.clone(), stop.clone(), ran.clone(), expected.clone());
                std::thread::spawn(move || {
                    let mut round = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        round += 1;
                        let n = 1_000 + (round % 7) * 100 + caller;
                        let sum: u64 = pool.install(|| (0..n).into_par_iter().map(|x| x * 2).sum());
                        assert_eq!(sum, n * (n - 1));
                        let v: Vec<u64> =
                            pool.install(|| (0..n).into_par_iter().map(|x| x + 1).collect());
                        assert!(v.iter().copied().eq(1..=n));
                        // Every scope job and spawn once.
                        let hits: Vec<AtomicUsize> = (0..64).map(|_| AtomicUsize::new(0)).collect();
                        pool.scope(|s| {
                            for hit in &hits {
                                s.spawn(move |_| {
                                    hit.fetch_add(1, Ordering::Relaxed);
                                });
                            }
                        });
                        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
                        for _ in 0..8 {
                            expected.fetch_add(1, Ordering::Relaxed);
                            let ran = ran.clone();
                            pool.spawn(move || {
                                ran.fetch_add(1, Ordering::Relaxed);
                            });
                        }
                    }
                })
            })
            .collect();
        let mut slowest = Duration::ZERO;
        for n in sizes(1_000) {
            pool.set_num_threads(n).unwrap();
            assert_eq!(pool.current_num_threads(), n);
            if linux {
                // The thread count follows: threads past n end after their current job.
                let start = Instant::now();
                while threads_named(PREFIX) != n {
                    std::thread::yield_now();
                }
                slowest = slowest.max(start.elapsed());
            }
        }
        stop.store(true, Ordering::Relaxed);
        for caller in callers {
            caller.join().unwrap();
        }
        // Every spawn ran once: wait for the last ones through a final scope-free barrier.
        pool.set_num_threads(3).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        pool.spawn(move || tx.send(()).unwrap());
        rx.recv().unwrap();
        while ran.load(Ordering::Relaxed) < expected.load(Ordering::Relaxed) {
            std::thread::yield_now();
        }
        assert_eq!(
            ran.load(Ordering::Relaxed),
            expected.load(Ordering::Relaxed)
        );
        eprintln!("slowest thread-count change: {slowest:?}");
    });
}

#[test]
fn broadcast_reaches_exactly_the_pool_size() {
    watchdog("broadcast after resizes", LIMIT, || {
        const NAME: &str = "fj-bcast-";
        let pool = ThreadPoolBuilder::new()
            .num_threads(8)
            .resizable_up_to(16)
            .thread_name(|i| format!("{NAME}{i}"))
            .build()
            .unwrap();
        for n in [1, 16, 3, 8, 2, 16, 5] {
            pool.set_num_threads(n).unwrap();
            let seen: Vec<usize> = pool.broadcast(|ctx| {
                assert_eq!(ctx.num_threads(), n);
                ctx.index()
            });
            let mut sorted = seen.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "after resizing to {n}");
            // Once the workers past n have left, the indices seen from inside the pool are below n.
            if threads_named(NAME) != usize::MAX {
                while threads_named(NAME) != n {
                    std::thread::yield_now();
                }
            }
            let indices = Mutex::new(HashMap::new());
            pool.install(|| {
                (0..10_000).into_par_iter().for_each(|_| {
                    let i = forkjoin::current_thread_index().unwrap();
                    *indices.lock().unwrap().entry(i).or_insert(0usize) += 1;
                })
            });
            let indices = indices.into_inner().unwrap();
            assert!(
                indices.keys().all(|&i| i < n),
                "{indices:?} in a pool of {n}"
            );
        }
    });
}

#[test]
fn bad_sizes_are_errors() {
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .resizable_up_to(4)
        .build()
        .unwrap();
    let zero = pool.set_num_threads(0).unwrap_err().to_string();
    assert!(zero.contains("at least one thread"), "{zero}");
    let past = pool.set_num_threads(5).unwrap_err().to_string();
    assert!(past.contains("at most 4"), "{past}");
    assert_eq!(pool.current_num_threads(), 2);
    pool.set_num_threads(4).unwrap();
    assert_eq!(pool.current_num_threads(), 4);
    // A spawn handler's pool cannot be resized: its threads are not ours to start.
    let handles = Arc::new(Mutex::new(Vec::new()));
    let h = handles.clone();
    let custom = ThreadPoolBuilder::new()
        .num_threads(2)
        .spawn_handler(move |thread| {
            h.lock()
                .unwrap()
                .push(std::thread::spawn(move || thread.run()));
            Ok(())
        })
        .build()
        .unwrap();
    let err = custom.set_num_threads(1).unwrap_err().to_string();
    assert!(err.contains("spawn_handler"), "{err}");
    drop(custom);
    for handle in handles.lock().unwrap().drain(..) {
        handle.join().unwrap();
    }
}

#[test]
fn a_shrink_lets_running_jobs_finish_and_keeps_their_spawns() {
    watchdog("shrink during long jobs", LIMIT, || {
        // Eight jobs hold eight workers; the pool shrinks to 1 meanwhile; each job then spawns
        // more work from its (leaving) worker: all of it runs, on the one worker left.
        let pool = Arc::new(ThreadPoolBuilder::new().num_threads(8).build().unwrap());
        let started = Arc::new(std::sync::Barrier::new(9));
        let release = Arc::new(std::sync::Barrier::new(9));
        let done = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = std::sync::mpsc::channel();
        for _ in 0..8 {
            let (started, release, done, tx, pool2) = (
                started.clone(),
                release.clone(),
                done.clone(),
                tx.clone(),
                pool.clone(),
            );
            pool.spawn(move || {
                started.wait();
                release.wait();
                for _ in 0..4 {
                    let (done, tx) = (done.clone(), tx.clone());
                    pool2.spawn(move || {
                        done.fetch_add(1, Ordering::Relaxed);
                        tx.send(()).unwrap();
                    });
                }
            });
        }
        // Every worker runs one of the jobs: now shrink, then let them go on.
        started.wait();
        pool.set_num_threads(1).unwrap();
        release.wait();
        for _ in 0..32 {
            rx.recv().unwrap();
        }
        assert_eq!(done.load(Ordering::Relaxed), 32);
        assert_eq!(pool.install(forkjoin::current_thread_index), Some(0));
    });
}

#[test]
fn the_global_pool_resizes() {
    watchdog("global resize", LIMIT, || {
        let n = forkjoin::current_num_threads();
        forkjoin::set_num_threads(1).unwrap();
        assert_eq!(forkjoin::current_num_threads(), 1);
        let sum: u64 = (0..10_000u64).into_par_iter().sum();
        assert_eq!(sum, 49_995_000);
        forkjoin::set_num_threads(n).unwrap();
        assert_eq!(forkjoin::current_num_threads(), n);
        assert!(forkjoin::set_num_threads(0).is_err());
    });
}
