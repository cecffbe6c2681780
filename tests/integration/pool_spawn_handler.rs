//! How a pool's threads start: `spawn_handler` with `ThreadBuilder`, `build_scoped`, and
//! `use_current_thread` (the building thread becomes worker 0).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::common;
use common::{fib, TIMEOUT};

fn many_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()) * 3
}

#[test]
fn spawn_handler_receives_each_worker_once_with_its_settings() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let handles = Arc::new(Mutex::new(Vec::<JoinHandle<()>>::new()));
    let (s, h) = (seen.clone(), handles.clone());
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(3)
        .thread_name(|i| format!("handled-{i}"))
        .stack_size(4 << 20)
        .spawn_handler(move |thread| {
            assert!(format!("{thread:?}").starts_with("ThreadBuilder"));
            s.lock().unwrap().push((
                thread.index(),
                thread.name().map(str::to_owned),
                thread.stack_size(),
            ));
            let mut b = std::thread::Builder::new();
            if let Some(name) = thread.name() {
                b = b.name(name.to_owned());
            }
            h.lock().unwrap().push(b.spawn(|| thread.run())?);
            Ok(())
        })
        .build()
        .unwrap();
    let mut seen = seen.lock().unwrap().clone();
    seen.sort();
    assert_eq!(
        seen,
        (0..3)
            .map(|i| (i, Some(format!("handled-{i}")), Some(4 << 20)))
            .collect::<Vec<_>>()
    );
    assert_eq!(pool.install(|| fib(15)), 610);
    let names = pool.broadcast(|_| std::thread::current().name().unwrap().to_owned());
    assert_eq!(names, ["handled-0", "handled-1", "handled-2"]);
    drop(pool);
    // The handler's threads exit once the pool is dropped.
    for handle in std::mem::take(&mut *handles.lock().unwrap()) {
        handle.join().unwrap();
    }
}

#[test]
fn a_spawn_handler_error_fails_build_and_stops_the_started_threads() {
    let started = Arc::new(Mutex::new(Vec::<JoinHandle<()>>::new()));
    let exits = Arc::new(AtomicUsize::new(0));
    let (s, e) = (started.clone(), exits.clone());
    let err = forkjoin::ThreadPoolBuilder::new()
        .num_threads(4)
        .exit_handler(move |_| {
            e.fetch_add(1, Ordering::SeqCst);
        })
        .spawn_handler(move |thread| {
            if thread.index() == 2 {
                return Err(std::io::Error::other("no more threads"));
            }
            s.lock().unwrap().push(std::thread::spawn(|| thread.run()));
            Ok(())
        })
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("no more threads"), "{err}");
    for handle in std::mem::take(&mut *started.lock().unwrap()) {
        handle.join().unwrap(); // terminated: the started workers exit
    }
    assert_eq!(exits.load(Ordering::SeqCst), 2);
}

/// A spawn that fails at the first, a middle and the last thread: `build` returns an error that
/// names the failing thread and how many had started, and every started thread has exited.
#[test]
fn a_failed_spawn_at_any_thread_says_which_and_how_many_had_started() {
    const THREADS: usize = 6;
    for failing in [0, THREADS / 2, THREADS - 1] {
        let started = Arc::new(Mutex::new(Vec::<JoinHandle<()>>::new()));
        let exits = Arc::new(AtomicUsize::new(0));
        let (s, e) = (started.clone(), exits.clone());
        let err = forkjoin::ThreadPoolBuilder::new()
            .num_threads(THREADS)
            .exit_handler(move |_| {
                e.fetch_add(1, Ordering::SeqCst);
            })
            .spawn_handler(move |thread| {
                if thread.index() == failing {
                    return Err(std::io::Error::from(std::io::ErrorKind::WouldBlock));
                }
                s.lock().unwrap().push(std::thread::spawn(|| thread.run()));
                Ok(())
            })
            .build()
            .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("worker thread {failing} of {THREADS}"))
                && msg.contains(&format!("({failing} had started"))
                && std::error::Error::source(&err).is_some(),
            "{msg}"
        );
        for handle in std::mem::take(&mut *started.lock().unwrap()) {
            handle.join().unwrap();
        }
        assert_eq!(
            exits.load(Ordering::SeqCst),
            failing,
            "every started thread exited"
        );
    }
}

#[test]
fn a_spawn_handler_may_start_its_threads_after_build() {
    // build does not wait for a user's threads (rayon does not either).
    let parked = Arc::new(Mutex::new(Vec::new()));
    let p = parked.clone();
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(2)
        .spawn_handler(move |thread| {
            p.lock().unwrap().push(thread);
            Ok(())
        })
        .build()
        .unwrap();
    let threads: Vec<_> = std::mem::take(&mut *parked.lock().unwrap())
        .into_iter()
        .map(|t| std::thread::spawn(move || t.run()))
        .collect();
    assert_eq!(pool.install(|| fib(12)), 144);
    drop(pool);
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn build_scoped_threads_may_borrow_and_are_joined() {
    let data = [1u64, 2, 3, 4];
    let started = AtomicUsize::new(0);
    for n in [1, 2, many_threads()] {
        let sum = forkjoin::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_scoped(
                |thread| {
                    started.fetch_add(1, Ordering::Relaxed);
                    assert_eq!(data.len(), 4);
                    thread.run()
                },
                |pool| {
                    assert_eq!(pool.current_num_threads(), n);
                    pool.install(|| forkjoin::join(|| data[..2].iter().sum::<u64>(), || fib(10)))
                },
            )
            .unwrap();
        assert_eq!(sum, (3, 55));
    }
    // Every wrapper ran, and returned before build_scoped did (the scope joined the threads).
    assert_eq!(started.into_inner(), 3 + many_threads());
}

#[test]
fn build_scoped_returns_build_errors() {
    let err = forkjoin::ThreadPoolBuilder::new()
        .num_threads(forkjoin::max_num_threads() + 1)
        .build_scoped(|thread| thread.run(), |_| unreachable!("no pool"))
        .unwrap_err();
    assert!(err.to_string().contains("at most"), "{err}");
}

#[test]
fn use_current_thread_makes_the_caller_worker_zero() {
    for n in [1, 2, many_threads()] {
        std::thread::spawn(move || {
            let started = Arc::new(Mutex::new(Vec::new()));
            let s = started.clone();
            let pool = forkjoin::ThreadPoolBuilder::new()
                .num_threads(n)
                .use_current_thread()
                .start_handler(move |i| s.lock().unwrap().push(i))
                .build()
                .unwrap();
            assert_eq!(forkjoin::current_thread_index(), Some(0));
            assert_eq!(pool.current_thread_index(), Some(0));
            assert_eq!(forkjoin::current_num_threads(), n);
            // No start handler for the current thread; build waited for the others.
            let mut started = started.lock().unwrap().clone();
            started.sort_unstable();
            assert_eq!(started, (1..n).collect::<Vec<_>>());
            // Work runs on this thread and the others; a broadcast reaches worker 0 while it waits.
            assert_eq!(forkjoin::join(|| fib(18), || fib(17)), (2584, 1597));
            assert_eq!(
                pool.broadcast(|ctx| ctx.index()),
                (0..n).collect::<Vec<_>>()
            );
            // Already a worker: a second pool on this thread is an error.
            let err = forkjoin::ThreadPoolBuilder::new()
                .num_threads(2)
                .use_current_thread()
                .build()
                .unwrap_err();
            assert!(err.to_string().contains("already a worker"), "{err}");
        })
        .join()
        .unwrap();
    }
}

#[test]
fn use_current_thread_jobs_run_while_worker_zero_blocks_or_yields() {
    std::thread::spawn(|| {
        let pool = forkjoin::ThreadPoolBuilder::new()
            .num_threads(3)
            .use_current_thread()
            .build()
            .unwrap();
        // Spawned from worker 0 (it sits on its deque): another worker must steal it while
        // this thread blocks in recv.
        let (tx, rx) = mpsc::channel();
        pool.spawn(move || tx.send(forkjoin::current_thread_index()).unwrap());
        let ran_on = rx.recv_timeout(TIMEOUT).unwrap();
        assert_ne!(ran_on, Some(0));
        // A one-thread pool: only worker 0 exists, and it runs its jobs when it yields.
        drop(pool);
    })
    .join()
    .unwrap();
    std::thread::spawn(|| {
        let pool = forkjoin::ThreadPoolBuilder::new()
            .num_threads(1)
            .use_current_thread()
            .build()
            .unwrap();
        let (tx, rx) = mpsc::channel();
        pool.spawn(move || tx.send(()).unwrap());
        assert!(rx.try_recv().is_err(), "nobody else runs it");
        assert_eq!(forkjoin::yield_now(), Some(forkjoin::Yield::Executed));
        rx.try_recv().unwrap();
    })
    .join()
    .unwrap();
}

#[test]
fn use_current_thread_from_a_worker_is_an_error() {
    let pool = common::pool(2);
    let err = pool
        .install(|| {
            forkjoin::ThreadPoolBuilder::new()
                .num_threads(2)
                .use_current_thread()
                .build()
        })
        .unwrap_err();
    assert!(err.to_string().contains("already a worker"), "{err}");
}

/// A thread leaves its `use_current_thread` pool when it drops it: the drop joins the other
/// workers (their exit handlers have run when it returns), and the thread, a plain thread again,
/// builds the next pool. 200 pools in a row on one thread (each kept ~290 KB and made a second
/// build fail before).
#[test]
fn use_current_thread_pools_follow_one_another_on_one_thread() {
    common::watchdog(
        "200 use_current_thread pools",
        Duration::from_secs(120),
        || {
            let n = 4;
            let exits = Arc::new(AtomicUsize::new(0));
            for round in 0..200 {
                let e = exits.clone();
                let pool = forkjoin::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .use_current_thread()
                    .exit_handler(move |_| {
                        e.fetch_add(1, Ordering::SeqCst);
                    })
                    .build()
                    .unwrap();
                assert_eq!(forkjoin::current_thread_index(), Some(0));
                assert_eq!(forkjoin::join(|| fib(12), || fib(11)), (144, 89));
                drop(pool);
                assert_eq!(forkjoin::current_thread_index(), None);
                assert_eq!(exits.load(Ordering::SeqCst), (round + 1) * (n - 1));
            }
        },
    );
}

/// On the only worker of a pool, the calls that wait (`in_place_scope`, `block_on`) and yield run
/// as that worker from the thread's top level; spawned work goes to its own deque.
#[test]
fn use_current_thread_alone_runs_its_work_from_the_top_level() {
    common::watchdog("one-thread use_current_thread pool", TIMEOUT, || {
        let pool = forkjoin::ThreadPoolBuilder::new()
            .num_threads(1)
            .use_current_thread()
            .build()
            .unwrap();
        let mut out = 0;
        pool.in_place_scope(|s| s.spawn(|_| out = 1));
        forkjoin::in_place_scope(|s| s.spawn(|_| out += 1));
        assert_eq!(out, 2);
        let answer = forkjoin::spawn_future(|| 42);
        assert_eq!(forkjoin::block_on(answer), 42);
        let (tx, rx) = mpsc::channel();
        pool.spawn(move || tx.send(forkjoin::current_thread_index()).unwrap());
        assert_eq!(pool.current_thread_has_pending_tasks(), Some(true));
        assert_eq!(pool.yield_local(), Some(forkjoin::Yield::Executed));
        assert_eq!(rx.try_recv().unwrap(), Some(0));
        assert_eq!(pool.broadcast(|ctx| ctx.index()), [0]);
        drop(pool);
        assert_eq!(forkjoin::current_thread_index(), None);
    });
}
