//! `ThreadPoolBuilder` options and `ThreadPool` behaviour: thread counts, names, start/exit handlers,
//! stats, oversubscription, and dropping a pool with spawned work still pending.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use forkjoin::{PoolStats, ThreadPool, ThreadPoolBuilder};

use crate::common;
use common::{fib, TIMEOUT};

#[test]
fn threadpool_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<ThreadPool>();
    check::<forkjoin::ThreadPoolBuildError>();
}

#[test]
fn num_threads_is_honoured() {
    for n in [1, 2, 5, 16] {
        let p = ThreadPoolBuilder::new().num_threads(n).build().unwrap();
        assert_eq!(p.current_num_threads(), n);
        assert_eq!(p.install(forkjoin::current_num_threads), n);
    }
}

#[test]
fn zero_threads_means_the_default() {
    // The environment of this test binary is not modified (see pool_env.rs for FORKJOIN_NUM_THREADS).
    let expected = match std::env::var("FORKJOIN_NUM_THREADS") {
        Ok(v) => v.parse().expect("the test environment sets a valid value"),
        Err(_) => std::thread::available_parallelism().unwrap().get(),
    };
    let p = ThreadPoolBuilder::new().num_threads(0).build().unwrap();
    assert_eq!(p.current_num_threads(), expected);
    assert_eq!(
        ThreadPoolBuilder::new()
            .build()
            .unwrap()
            .current_num_threads(),
        expected
    );
}

#[test]
fn thread_names_come_from_the_builder() {
    let n = 3;
    let p = ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("fj-test-worker-{i}"))
        .build()
        .unwrap();
    let names = Mutex::new(BTreeSet::new());
    // Enough concurrent blocking-free work that each call checks the name of whichever worker runs it.
    p.install(|| {
        forkjoin::scope(|s| {
            for _ in 0..1_000 {
                s.spawn(|_| {
                    let i = forkjoin::current_thread_index().unwrap();
                    let name = std::thread::current().name().map(str::to_owned);
                    assert_eq!(name, Some(format!("fj-test-worker-{i}")));
                    names.lock().unwrap().insert(i);
                });
            }
        })
    });
    assert!(!names.lock().unwrap().is_empty());
}

#[test]
fn start_and_exit_handlers_run_once_per_thread() {
    let n = 4;
    let (start_tx, start_rx) = mpsc::channel();
    let (exit_tx, exit_rx) = mpsc::channel();
    let start_tx = Mutex::new(start_tx);
    let exit_tx = Mutex::new(exit_tx);
    let p = ThreadPoolBuilder::new()
        .num_threads(n)
        .start_handler(move |i| start_tx.lock().unwrap().send(i).unwrap())
        .exit_handler(move |i| exit_tx.lock().unwrap().send(i).unwrap())
        .build()
        .unwrap();
    let starts: BTreeSet<usize> = (0..n)
        .map(|_| start_rx.recv_timeout(TIMEOUT).expect("a start handler ran"))
        .collect();
    assert_eq!(starts, (0..n).collect());
    assert_eq!(p.install(|| fib(18)), 2584);
    drop(p);
    let exits: BTreeSet<usize> = (0..n)
        .map(|_| exit_rx.recv_timeout(TIMEOUT).expect("an exit handler ran"))
        .collect();
    assert_eq!(exits, (0..n).collect());
    // Exactly once per thread: the handlers (and their senders) are gone after the last exit.
    assert!(matches!(
        start_rx.recv_timeout(TIMEOUT),
        Err(mpsc::RecvTimeoutError::Disconnected)
    ));
    assert!(matches!(
        exit_rx.recv_timeout(TIMEOUT),
        Err(mpsc::RecvTimeoutError::Disconnected)
    ));
}

#[test]
fn dropping_a_pool_lets_pending_spawned_work_finish() {
    // One worker, blocked by the first job until the pool handle is gone: the other 1,000 jobs are
    // certainly still queued when the pool is dropped.
    let (exit_tx, exit_rx) = mpsc::channel();
    let exit_tx = Mutex::new(exit_tx);
    let p = ThreadPoolBuilder::new()
        .num_threads(1)
        .exit_handler(move |i| exit_tx.lock().unwrap().send(i).unwrap())
        .build()
        .unwrap();
    let (gate_tx, gate_rx) = mpsc::channel::<()>();
    let (started_tx, started_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel::<usize>();
    p.spawn(move || {
        started_tx.send(()).unwrap();
        gate_rx
            .recv_timeout(TIMEOUT)
            .expect("gate opened (does dropping a ThreadPool block until its work finishes?)");
    });
    started_rx.recv_timeout(TIMEOUT).expect("first job started");
    for i in 0..1_000 {
        let done_tx = done_tx.clone();
        p.spawn(move || done_tx.send(i).unwrap());
    }
    drop(done_tx);
    drop(p);
    gate_tx.send(()).unwrap();
    let mut ran = vec![false; 1_000];
    for k in 0..1_000 {
        let i = done_rx
            .recv_timeout(TIMEOUT)
            .unwrap_or_else(|e| panic!("only {k} of 1000 pending jobs ran after drop: {e}"));
        ran[i] = true;
    }
    assert!(ran.iter().all(|&r| r));
    assert_eq!(exit_rx.recv_timeout(TIMEOUT), Ok(0), "the worker exits");
}

#[test]
fn stats_count_work() {
    let p = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let before = p.stats();
    let (tx, rx) = mpsc::channel();
    for _ in 0..100 {
        let tx = tx.clone();
        p.spawn(move || tx.send(()).unwrap());
    }
    for _ in 0..100 {
        rx.recv_timeout(TIMEOUT).unwrap();
    }
    assert_eq!(p.install(|| fib(20)), 6765);
    let after: PoolStats = p.stats();
    assert!(
        after.jobs_executed >= before.jobs_executed + 100,
        "100 spawned jobs: {before:?} -> {after:?}"
    );
    assert!(
        after.injector_pops > before.injector_pops,
        "work from outside goes through the injector: {after:?}"
    );
    // Totals never go down.
    let later = p.stats();
    assert!(later.jobs_executed >= after.jobs_executed);
    assert!(later.local_pops >= after.local_pops);
    assert!(later.steals >= after.steals);
    assert!(later.sleeps >= after.sleeps && later.wakeups >= after.wakeups);
}

#[test]
fn oversubscribed_pools_compute_correctly() {
    // 16 threads on 2 cores, then 3 concurrent pools of 8 driven by plain threads.
    let big = ThreadPoolBuilder::new().num_threads(16).build().unwrap();
    assert_eq!(big.install(|| fib(22)), 17711);
    let count = AtomicUsize::new(0);
    big.install(|| {
        forkjoin::scope(|s| {
            for _ in 0..5_000 {
                s.spawn(|_| {
                    count.fetch_add(1, Ordering::Relaxed);
                });
            }
        })
    });
    assert_eq!(count.load(Ordering::Relaxed), 5_000);

    let total = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let total = Arc::clone(&total);
            std::thread::spawn(move || {
                let p = ThreadPoolBuilder::new().num_threads(8).build().unwrap();
                for _ in 0..10 {
                    assert_eq!(p.install(|| fib(18)), 2584);
                    total.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("no panic");
    }
    assert_eq!(total.load(Ordering::Relaxed), 30);
}

#[test]
fn build_error_is_an_error_with_a_message() {
    fn check<E: std::error::Error + std::fmt::Display + Send + Sync + 'static>() {}
    check::<forkjoin::ThreadPoolBuildError>();
}

/// A name with a NUL byte (std's thread builder would panic on it) fails `build`, `build_scoped`
/// and `build_global` with an error that names the worker, whichever index it is, before any
/// thread starts: neither a spawn handler nor a start handler runs.
#[test]
fn a_thread_name_with_a_nul_byte_is_a_build_error() {
    let bad = |bad_index: usize| {
        move |i: usize| {
            if i == bad_index {
                format!("fj\0{i}")
            } else {
                format!("fj-{i}")
            }
        }
    };
    let started = Arc::new(AtomicUsize::new(0));
    let check = |err: forkjoin::ThreadPoolBuildError, index: usize| {
        let msg = err.to_string();
        assert!(
            msg.contains("NUL") && msg.contains(&format!("worker {index}")),
            "{msg}"
        );
    };
    for index in [0, 2] {
        let s = started.clone();
        let err = ThreadPoolBuilder::new()
            .num_threads(3)
            .thread_name(bad(index))
            .start_handler(move |_| {
                s.fetch_add(1, Ordering::SeqCst);
            })
            .build()
            .unwrap_err();
        check(err, index);
        let handled = Arc::new(AtomicUsize::new(0));
        let h = handled.clone();
        let err = ThreadPoolBuilder::new()
            .num_threads(3)
            .thread_name(bad(index))
            .spawn_handler(move |thread| {
                h.fetch_add(1, Ordering::SeqCst);
                std::thread::spawn(|| thread.run());
                Ok(())
            })
            .build()
            .unwrap_err();
        check(err, index);
        assert_eq!(
            handled.load(Ordering::SeqCst),
            0,
            "no worker was handed out"
        );
        let err = ThreadPoolBuilder::new()
            .num_threads(3)
            .thread_name(bad(index))
            .build_scoped(|thread| thread.run(), |_| unreachable!("no pool"))
            .unwrap_err();
        check(err, index);
        // Checked before the global pool is looked at, so this holds whether or not another test
        // started it.
        let err = ThreadPoolBuilder::new()
            .num_threads(3)
            .thread_name(bad(index))
            .build_global()
            .unwrap_err();
        check(err, index);
    }
    // `use_current_thread` names worker 0 too (its thread keeps its own name).
    let err = std::thread::spawn(move || {
        ThreadPoolBuilder::new()
            .num_threads(2)
            .use_current_thread()
            .thread_name(bad(0))
            .build()
            .map(drop)
    })
    .join()
    .unwrap()
    .unwrap_err();
    check(err, 0);
    assert_eq!(started.load(Ordering::SeqCst), 0, "no worker started");
}

/// The order in which a one-thread pool runs three jobs one spawned job spawns.
fn spawn_order(builder: forkjoin::ThreadPoolBuilder) -> Vec<u32> {
    let pool = builder.num_threads(1).build().unwrap();
    let order = std::sync::Mutex::new(Vec::new());
    pool.scope(|s| {
        s.spawn(|s| {
            for i in 0..3 {
                let order = &order;
                s.spawn(move |_| order.lock().unwrap().push(i));
            }
        });
    });
    order.into_inner().unwrap()
}

#[test]
#[allow(deprecated)]
fn breadth_first_takes_own_jobs_oldest_first() {
    assert_eq!(spawn_order(forkjoin::ThreadPoolBuilder::new()), [2, 1, 0]);
    assert_eq!(
        spawn_order(forkjoin::ThreadPoolBuilder::new().breadth_first()),
        [0, 1, 2]
    );
}
