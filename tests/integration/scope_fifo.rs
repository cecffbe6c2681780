//! FIFO spawning and in-place scopes: `spawn_fifo`, `scope_fifo`, `ScopeFifo::spawn_fifo`,
//! `in_place_scope`, `in_place_scope_fifo` and their `ThreadPool` methods.
//!
//! The order guarantee is per thread: the jobs one worker spawns and runs itself start oldest
//! first. A pool of one thread makes that deterministic; larger pools check completion, borrows,
//! panics and exactly-once execution.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use crate::common;
use common::{pool, TIMEOUT};

fn thread_counts() -> Vec<usize> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    vec![1, 2, 3, cores * 4]
}

#[test]
fn scope_fifo_runs_one_workers_spawns_oldest_first() {
    let pool = pool(1);
    let order = Mutex::new(Vec::new());
    pool.scope_fifo(|s| {
        for i in 0..100 {
            let order = &order;
            s.spawn_fifo(move |s| {
                order.lock().unwrap().push(i);
                if i % 10 == 0 {
                    // Spawned from a job: queued behind everything already spawned.
                    s.spawn_fifo(move |_| order.lock().unwrap().push(1000 + i));
                }
            });
        }
    });
    let order = order.into_inner().unwrap();
    let expected: Vec<i32> = (0..100)
        .chain((0..100).step_by(10).map(|i| 1000 + i))
        .collect();
    assert_eq!(order, expected);
}

#[test]
fn plain_scope_runs_one_workers_spawns_newest_first() {
    // The contrast that makes the FIFO test meaningful.
    let pool = pool(1);
    let order = Mutex::new(Vec::new());
    pool.scope(|s| {
        for i in 0..5 {
            let order = &order;
            s.spawn(move |_| order.lock().unwrap().push(i));
        }
    });
    assert_eq!(order.into_inner().unwrap(), [4, 3, 2, 1, 0]);
}

#[test]
fn nested_fifo_scopes_wait_for_their_own_jobs() {
    let pool = pool(1);
    let order = Mutex::new(Vec::new());
    pool.scope_fifo(|outer| {
        let order = &order;
        outer.spawn_fifo(move |_| order.lock().unwrap().push("outer 1"));
        outer.spawn_fifo(move |_| {
            forkjoin::scope_fifo(|inner| {
                inner.spawn_fifo(move |_| order.lock().unwrap().push("inner 1"));
                inner.spawn_fifo(move |_| order.lock().unwrap().push("inner 2"));
            });
            order.lock().unwrap().push("outer 2 done");
        });
        outer.spawn_fifo(move |_| order.lock().unwrap().push("outer 3"));
    });
    // The inner scope's owner runs its own scope's jobs, oldest first, before the outer's third.
    assert_eq!(
        order.into_inner().unwrap(),
        ["outer 1", "inner 1", "inner 2", "outer 2 done", "outer 3"]
    );
}

#[test]
fn scope_fifo_runs_every_job_once_on_any_pool() {
    for n in thread_counts() {
        let pool = pool(n);
        for len in [0usize, 1, 2, 7, 64, 1000] {
            let hits: Vec<AtomicUsize> = (0..len).map(|_| AtomicUsize::new(0)).collect();
            pool.scope_fifo(|s| {
                for h in &hits {
                    s.spawn_fifo(move |s| {
                        h.fetch_add(1, Ordering::Relaxed);
                        s.spawn_fifo(move |_| {
                            h.fetch_add(1, Ordering::Relaxed);
                        });
                    });
                }
            });
            assert!(
                hits.iter().all(|h| h.load(Ordering::Relaxed) == 2),
                "n={n} len={len}"
            );
        }
    }
}

#[test]
fn scope_fifo_from_outside_any_pool_and_panics() {
    let mut v = vec![0; 10];
    forkjoin::scope_fifo(|s| {
        for (i, x) in v.iter_mut().enumerate() {
            s.spawn_fifo(move |_| *x = i);
        }
    });
    assert_eq!(v, (0..10).collect::<Vec<_>>());

    let pool = pool(3);
    let ran = AtomicUsize::new(0);
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.scope_fifo(|s| {
            for i in 0..20 {
                let ran = &ran;
                s.spawn_fifo(move |_| {
                    ran.fetch_add(1, Ordering::Relaxed);
                    if i == 7 {
                        panic!("fifo job 7");
                    }
                });
            }
        })
    }))
    .unwrap_err();
    assert_eq!(err.downcast_ref::<&str>(), Some(&"fifo job 7"));
    assert_eq!(ran.into_inner(), 20, "the other jobs still ran");
}

#[test]
fn spawn_fifo_runs_one_workers_spawns_oldest_first() {
    let pool = pool(1);
    let order = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = mpsc::channel();
    pool.install(|| {
        for i in 0..50 {
            let (order, tx) = (order.clone(), tx.clone());
            forkjoin::spawn_fifo(move || {
                order.lock().unwrap().push(i);
                tx.send(()).unwrap();
            });
        }
    });
    for _ in 0..50 {
        rx.recv_timeout(TIMEOUT).unwrap();
    }
    assert_eq!(*order.lock().unwrap(), (0..50).collect::<Vec<_>>());
}

#[test]
fn spawn_fifo_from_outside_and_on_many_threads_runs_each_once() {
    for n in thread_counts() {
        let pool = pool(n);
        let hits = Arc::new((0..200).map(|_| AtomicUsize::new(0)).collect::<Vec<_>>());
        let (tx, rx) = mpsc::channel();
        for i in 0..100 {
            let (hits, tx) = (hits.clone(), tx.clone());
            pool.spawn_fifo(move || {
                hits[i].fetch_add(1, Ordering::Relaxed);
                // And from inside the pool, through the worker's FIFO queue.
                forkjoin::spawn_fifo(move || {
                    hits[100 + i].fetch_add(1, Ordering::Relaxed);
                    tx.send(()).unwrap();
                });
            });
        }
        drop(pool); // spawned work keeps the pool alive
        for _ in 0..100 {
            rx.recv_timeout(TIMEOUT).unwrap();
        }
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1), "n={n}");
    }
}

#[test]
fn spawn_fifo_panic_goes_to_the_handler() {
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(2)
        .panic_handler(move |_| tx.lock().unwrap().send(()).unwrap())
        .build()
        .unwrap();
    pool.install(|| forkjoin::spawn_fifo(|| panic!("fifo")));
    rx.recv_timeout(TIMEOUT).unwrap();
}

#[test]
fn in_place_scope_runs_op_on_the_calling_thread() {
    // Outside any pool: op on this plain thread, jobs in the global pool.
    let caller = std::thread::current().id();
    let here = Cell::new(0); // not Sync: only an in-place op may touch it
    let mut parts = vec![0; 16];
    let r = forkjoin::in_place_scope(|s| {
        assert_eq!(std::thread::current().id(), caller);
        assert_eq!(forkjoin::current_thread_index(), None);
        here.set(1);
        for (i, p) in parts.iter_mut().enumerate() {
            s.spawn(move |_| *p = i * 2);
        }
        "done"
    });
    assert_eq!((r, here.get()), ("done", 1));
    assert_eq!(parts, (0..16).map(|i| i * 2).collect::<Vec<_>>());

    // With a pool: jobs run on that pool's workers.
    for n in thread_counts() {
        let pool = pool(n);
        let on_pool = AtomicUsize::new(0);
        pool.in_place_scope(|s| {
            assert_eq!(std::thread::current().id(), caller);
            for _ in 0..32 {
                s.spawn(|_| {
                    if pool.current_thread_index().is_some() {
                        on_pool.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
        });
        assert_eq!(on_pool.into_inner(), 32);
    }
}

#[test]
fn in_place_scope_inside_a_worker_and_across_pools() {
    let a = pool(2);
    let b = pool(3);
    let seen = a.install(|| {
        let me = forkjoin::current_thread_index();
        // Inside a worker of the same pool: op stays on this worker.
        let same = forkjoin::in_place_scope(|s| {
            s.spawn(|_| ());
            forkjoin::current_thread_index()
        });
        assert_eq!(same, me);
        // From a worker of `a`, a scope whose jobs run in `b`.
        let count = AtomicUsize::new(0);
        b.in_place_scope(|s| {
            for _ in 0..10 {
                s.spawn(|_| {
                    assert!(b.current_thread_index().is_some());
                    count.fetch_add(1, Ordering::Relaxed);
                });
            }
        });
        count.into_inner()
    });
    assert_eq!(seen, 10);
}

#[test]
fn in_place_scope_panics_after_all_jobs_ran() {
    let ran = AtomicUsize::new(0);
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        forkjoin::in_place_scope(|s| {
            for _ in 0..5 {
                s.spawn(|_| {
                    ran.fetch_add(1, Ordering::Relaxed);
                });
            }
            panic!("in place body");
        })
    }))
    .unwrap_err();
    assert_eq!(err.downcast_ref::<&str>(), Some(&"in place body"));
    assert_eq!(ran.into_inner(), 5);
}

#[test]
fn in_place_scope_fifo_orders_and_borrows() {
    let pool = pool(1);
    let order = Mutex::new(Vec::new());
    let local = std::rc::Rc::new(3); // not Send
    pool.in_place_scope_fifo(|s| {
        let k = *local;
        // From outside the pool the jobs go through the injector, which is FIFO too.
        for i in 0..10 {
            let order = &order;
            s.spawn_fifo(move |_| order.lock().unwrap().push(i * k));
        }
    });
    assert_eq!(
        order.into_inner().unwrap(),
        (0..10).map(|i| i * 3).collect::<Vec<_>>()
    );
    let mut out = [0; 4];
    forkjoin::in_place_scope_fifo(|s| {
        for (i, o) in out.iter_mut().enumerate() {
            s.spawn_fifo(move |_| *o = i + 1);
        }
    });
    assert_eq!(out, [1, 2, 3, 4]);
}

#[test]
fn scope_fifo_debug_names_the_type() {
    let pool = pool(2);
    let text = pool.scope_fifo(|s| format!("{s:?}"));
    assert!(text.starts_with("ScopeFifo"), "{text}");
}
