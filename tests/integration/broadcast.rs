//! Broadcasts: `broadcast`, `spawn_broadcast`, `Scope::spawn_broadcast`, `ScopeFifo::spawn_broadcast`
//! and their `ThreadPool` methods. Every worker runs exactly one share, results come back in index
//! order, panics propagate, and the per-worker delivery holds up with more threads than cores
//! (workers asleep when their share arrives).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use crate::common;
use common::{pool, TIMEOUT};

/// Thread counts: one, a few, and more than this machine's cores (the delivery must wake sleepers).
fn thread_counts() -> Vec<usize> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    vec![1, 2, 3, cores * 4]
}

#[test]
fn every_worker_runs_one_share_and_results_are_in_index_order() {
    for n in thread_counts() {
        let pool = pool(n);
        let per_worker: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        let got = pool.broadcast(|ctx| {
            assert_eq!(ctx.num_threads(), n);
            assert_eq!(forkjoin::current_thread_index(), Some(ctx.index()));
            per_worker[ctx.index()].fetch_add(1, Ordering::Relaxed);
            ctx.index() * 10
        });
        assert_eq!(got, (0..n).map(|i| i * 10).collect::<Vec<_>>());
        assert!(per_worker.iter().all(|c| c.load(Ordering::Relaxed) == 1));
    }
}

#[test]
fn repeated_broadcasts_reach_sleeping_workers() {
    // More threads than cores: most workers are asleep when each broadcast is delivered.
    let n = thread_counts().pop().unwrap();
    let pool = pool(n);
    for round in 0..200 {
        let got = pool.broadcast(|ctx| ctx.index() + round);
        assert_eq!(got.len(), n);
        assert_eq!(got[n - 1], n - 1 + round);
    }
}

#[test]
fn a_broadcast_wakes_workers_that_are_fast_asleep() {
    let n = thread_counts().pop().unwrap();
    let pool = pool(n);
    for _ in 0..20 {
        // Some sequential work on this thread first, so that the idle workers are likely to have
        // gone all the way to sleep (without a timeout: the whole pool is idle) when the shares
        // arrive. Whatever state they are in, every share must be run.
        let mut x = 0u64;
        for i in 0..200_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        let got = pool.broadcast(|ctx| ctx.index());
        assert_eq!(got, (0..n).collect::<Vec<_>>(), "{x}");
    }
}

#[test]
fn broadcast_from_inside_the_pool_and_from_another_pool() {
    let a = pool(3);
    let b = pool(2);
    // From a worker of the same pool: its own share runs while it waits.
    let inner = a.install(|| forkjoin::broadcast(|ctx| ctx.index()));
    assert_eq!(inner, [0, 1, 2]);
    // From a worker of another pool: the broadcast goes to the pool asked.
    let cross = b.install(|| a.broadcast(|ctx| (ctx.num_threads(), ctx.index())));
    assert_eq!(cross, [(3, 0), (3, 1), (3, 2)]);
    // Nested: a share that broadcasts again.
    let nested = a.broadcast(|_| forkjoin::broadcast(|ctx| ctx.index()).len());
    assert_eq!(nested, [3, 3, 3]);
}

#[test]
fn global_broadcast_covers_the_global_pool() {
    let n = forkjoin::current_num_threads();
    let got = forkjoin::broadcast(|ctx| ctx.index());
    assert_eq!(got, (0..n).collect::<Vec<_>>());
}

#[test]
fn a_panicking_share_is_resumed_after_all_shares_ran() {
    let pool = pool(4);
    let ran = AtomicUsize::new(0);
    let results_dropped = Arc::new(AtomicUsize::new(0));
    #[derive(Debug)]
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.broadcast(|ctx| {
            ran.fetch_add(1, Ordering::Relaxed);
            if ctx.index() == 2 {
                panic!("share 2");
            }
            Counted(results_dropped.clone())
        })
    }))
    .unwrap_err();
    assert_eq!(err.downcast_ref::<&str>(), Some(&"share 2"));
    assert_eq!(ran.into_inner(), 4);
    // The three results that were made are dropped exactly once.
    assert_eq!(results_dropped.load(Ordering::Relaxed), 3);
    assert_eq!(
        pool.broadcast(|ctx| ctx.index()),
        [0, 1, 2, 3],
        "pool still works"
    );
}

#[test]
fn spawn_broadcast_runs_once_per_worker_and_keeps_the_pool_alive() {
    for n in thread_counts() {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let pool = pool(n);
        pool.spawn_broadcast(move |ctx| tx.lock().unwrap().send(ctx.index()).unwrap());
        drop(pool); // the shares still run
        let mut got: Vec<usize> = (0..n).map(|_| rx.recv_timeout(TIMEOUT).unwrap()).collect();
        got.sort_unstable();
        assert_eq!(got, (0..n).collect::<Vec<_>>());
        assert!(rx
            .recv_timeout(std::time::Duration::from_millis(1))
            .is_err());
    }
}

#[test]
fn spawn_broadcast_panics_go_to_the_panic_handler() {
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(3)
        .panic_handler(move |_| tx.lock().unwrap().send(()).unwrap())
        .build()
        .unwrap();
    pool.spawn_broadcast(|ctx| {
        if ctx.index() != 1 {
            panic!("share");
        }
    });
    for _ in 0..2 {
        rx.recv_timeout(TIMEOUT).unwrap();
    }
    assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1, 2]);
}

#[test]
fn global_spawn_broadcast() {
    let n = forkjoin::current_num_threads();
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    forkjoin::spawn_broadcast(move |ctx| tx.lock().unwrap().send(ctx.index()).unwrap());
    let mut got: Vec<usize> = (0..n).map(|_| rx.recv_timeout(TIMEOUT).unwrap()).collect();
    got.sort_unstable();
    assert_eq!(got, (0..n).collect::<Vec<_>>());
}

#[test]
fn scope_spawn_broadcast_is_waited_for_and_may_borrow() {
    for n in thread_counts() {
        let pool = pool(n);
        let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        pool.scope(|s| {
            s.spawn_broadcast(|s, ctx| {
                hits[ctx.index()].fetch_add(1, Ordering::Relaxed);
                // A share may spawn more work into the scope.
                s.spawn(|_| {
                    hits[0].fetch_add(0, Ordering::Relaxed);
                });
            });
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        let fifo_hits = AtomicUsize::new(0);
        pool.scope_fifo(|s| {
            s.spawn_broadcast(|_, _| {
                fifo_hits.fetch_add(1, Ordering::Relaxed);
            })
        });
        assert_eq!(fifo_hits.into_inner(), n);
    }
}

#[test]
fn scope_spawn_broadcast_panic_is_resumed_by_the_scope() {
    let pool = pool(3);
    let ran = AtomicUsize::new(0);
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.scope(|s| {
            s.spawn_broadcast(|_, ctx| {
                ran.fetch_add(1, Ordering::Relaxed);
                if ctx.index() == 0 {
                    panic!("scoped share");
                }
            })
        })
    }))
    .unwrap_err();
    assert_eq!(err.downcast_ref::<&str>(), Some(&"scoped share"));
    assert_eq!(ran.into_inner(), 3);
}

#[test]
fn broadcast_context_debug() {
    let pool = pool(2);
    let text = pool.broadcast(|ctx| format!("{ctx:?}"));
    assert_eq!(
        text[1],
        "BroadcastContext { index: 1, num_threads: 2 }".to_string()
    );
}
