//! `ThreadPool::install` from a plain thread, from the same pool, and from a worker of another pool
//! (both directions, while both pools are busy), plus `current_thread_index` inside and outside.

use std::sync::mpsc;
use std::thread;

use forkjoin::{join, ThreadPool};

use crate::common;
use common::{fib, pool, TIMEOUT};

/// Runs `f` on a fresh thread; fails the test if it neither returns nor panics within `TIMEOUT`
/// (a deadlock then fails instead of hanging the suite; the stuck thread is leaked).
fn with_timeout<R: Send + 'static>(what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    let handle = thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(TIMEOUT) {
        Ok(r) => r,
        Err(_) => {
            if handle.is_finished() {
                // The closure panicked: re-raise its panic here.
                std::panic::resume_unwind(handle.join().unwrap_err());
            }
            panic!("{what}: no result within {TIMEOUT:?} (deadlock?)");
        }
    }
}

#[test]
fn install_from_a_plain_thread_runs_on_a_worker() {
    let p = pool(2);
    let caller = thread::current().id();
    let (index, id, threads) = p.install(|| {
        (
            forkjoin::current_thread_index(),
            thread::current().id(),
            forkjoin::current_num_threads(),
        )
    });
    assert!(matches!(index, Some(i) if i < 2), "got {index:?}");
    assert_ne!(id, caller, "a plain thread blocks while a worker runs op");
    assert_eq!(threads, 2);
    assert_eq!(p.install(|| fib(20)), 6765);
}

#[test]
fn install_borrows_from_the_caller() {
    let p = pool(2);
    let data: Vec<u64> = (1..=1000).collect();
    let mut out = Vec::new();
    let sum = p.install(|| {
        out.extend(data.iter().map(|x| x * 2));
        data.iter().sum::<u64>()
    });
    assert_eq!(sum, 500_500);
    assert_eq!(out.len(), 1000);
}

#[test]
fn install_from_the_same_pool_runs_inline() {
    let p = pool(3);
    p.install(|| {
        let outer = (thread::current().id(), forkjoin::current_thread_index());
        let inner = p.install(|| (thread::current().id(), forkjoin::current_thread_index()));
        assert_eq!(inner, outer);
        assert_eq!(p.install(|| p.install(|| fib(15))), 610);
    });
}

#[test]
fn current_thread_index_inside_and_outside() {
    assert_eq!(forkjoin::current_thread_index(), None);
    let a = pool(2);
    let b = pool(3);
    assert_eq!(a.current_thread_index(), None);
    a.install(|| {
        let i = forkjoin::current_thread_index().expect("inside a");
        assert!(i < 2);
        assert_eq!(a.current_thread_index(), Some(i));
        assert_eq!(b.current_thread_index(), None, "not a worker of b");
        b.install(|| {
            let j = forkjoin::current_thread_index().expect("inside b");
            assert!(j < 3);
            assert_eq!(b.current_thread_index(), Some(j));
            assert_eq!(
                a.current_thread_index(),
                None,
                "a worker of b is not one of a"
            );
        });
    });
    assert_eq!(forkjoin::current_thread_index(), None);
}

/// `x.install(join(fib, y.install(join(fib, x.install(...)))))`, `depth` pool crossings deep.
fn cross(x: &'static ThreadPool, y: &'static ThreadPool, depth: u32) -> u64 {
    x.install(|| {
        assert!(x.current_thread_index().is_some());
        assert!(y.current_thread_index().is_none());
        let (a, b) = join(
            || fib(14),
            || {
                if depth == 0 {
                    fib(14)
                } else {
                    cross(y, x, depth - 1)
                }
            },
        );
        a + b
    })
}

#[test]
fn install_into_another_pool_both_directions_while_both_are_busy() {
    // Leaked so that a deadlocked run (test failure) cannot hang in the pools' destructors.
    let a: &'static ThreadPool = Box::leak(Box::new(pool(2)));
    let b: &'static ThreadPool = Box::leak(Box::new(pool(2)));
    let expected = 377 * 6; // fib(14) at each of 6 levels (depths 4..=0 plus the innermost b)
    let drivers: Vec<_> = (0..4)
        .map(|i| {
            let (x, y) = if i % 2 == 0 { (a, b) } else { (b, a) };
            thread::spawn(move || (0..20).map(|_| cross(x, y, 4)).collect::<Vec<u64>>())
        })
        .collect();
    let results = with_timeout("cross-pool installs", move || {
        drivers
            .into_iter()
            .map(|h| h.join().expect("driver panicked"))
            .collect::<Vec<_>>()
    });
    for r in results {
        assert_eq!(r, vec![expected; 20]);
    }
}

#[test]
fn installs_from_many_plain_threads_at_once() {
    let p: &'static ThreadPool = Box::leak(Box::new(pool(2)));
    let results = with_timeout("concurrent installs", move || {
        let handles: Vec<_> = (0..8u64)
            .map(|t| {
                thread::spawn(move || (0..200u64).map(|i| p.install(|| t * 1000 + i)).sum::<u64>())
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect::<Vec<_>>()
    });
    for (t, s) in results.into_iter().enumerate() {
        assert_eq!(s, 200 * 1000 * t as u64 + 199 * 200 / 2);
    }
}

#[test]
fn threadpool_join_and_scope_run_in_that_pool() {
    let p = pool(3);
    let (a, b) = p.join(forkjoin::current_num_threads, forkjoin::current_num_threads);
    assert_eq!((a, b), (3, 3));
    let mut hits = [0u8; 64];
    p.scope(|s| {
        for h in hits.iter_mut() {
            s.spawn(move |_| *h = forkjoin::current_thread_index().map_or(0, |_| 1));
        }
    });
    assert!(hits.iter().all(|&h| h == 1), "scope jobs run on workers");
}
