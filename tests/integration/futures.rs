//! `spawn_future`, `JobFuture` and `block_on`: awaited from tokio, blocked on from plain threads
//! and from pool workers, panics, drops and wakers.
//!
//! Every test that could hang runs under [`watchdog`], which fails it after [`common::TIMEOUT`].

use crate::common;

// The README's async example, run in the test path (the file itself, not a copy).
#[path = "../../examples/async.rs"]
#[allow(dead_code)] // the example's `main` is not called here
mod async_example;

use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use common::{pool, TIMEOUT};
use forkjoin::{block_on, join, spawn_future, JobFuture, ThreadPoolBuilder};

/// Runs `test` under the shared watchdog, which fails it after [`TIMEOUT`] (a deadlock or a lost
/// wake-up); a panic of `test` is raised again here.
fn watchdog<T: Send + 'static>(test: impl FnOnce() -> T + Send + 'static) -> T {
    common::watchdog("a futures test", TIMEOUT, test)
}

/// A gate that pool jobs block on (in user code) until it opens.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    cond: Condvar,
}

impl Gate {
    fn wait(&self) {
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.cond.wait(open).unwrap();
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.cond.notify_all();
    }
}

/// A waker that counts its wakes and reports each on a channel.
struct CountingWaker {
    wakes: AtomicUsize,
    tx: Mutex<mpsc::Sender<()>>,
}

impl CountingWaker {
    fn new() -> (Arc<CountingWaker>, Waker, mpsc::Receiver<()>) {
        let (tx, rx) = mpsc::channel();
        let counter = Arc::new(CountingWaker {
            wakes: AtomicUsize::new(0),
            tx: Mutex::new(tx),
        });
        (counter.clone(), Waker::from(counter), rx)
    }

    fn wakes(&self) -> usize {
        self.wakes.load(Ordering::SeqCst)
    }
}

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
        let _ = self.tx.lock().unwrap().send(());
    }
}

/// Counts drops of its values.
#[derive(Clone)]
struct DropCount(Arc<AtomicUsize>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn poll_once<F: Future + Unpin>(future: &mut F, waker: &Waker) -> Poll<F::Output> {
    Pin::new(future).poll(&mut Context::from_waker(waker))
}

/// Runs one job on a one-thread `pool` after everything injected before it: a barrier for the
/// jobs spawned into the pool from outside (its injector is first in, first out).
fn drain(pool: &forkjoin::ThreadPool) {
    pool.install(|| ());
}

/// The future and the job are `Send`, the future `Unpin`: they cross threads and tasks.
#[test]
fn job_future_is_send_and_unpin() {
    fn send_unpin<T: Send + Unpin>(_: &T) {}
    let future: JobFuture<Vec<u8>> = spawn_future(Vec::new);
    send_unpin(&future);
    assert!(format!("{future:?}").starts_with("JobFuture"));
    assert_eq!(watchdog(move || block_on(future)), Vec::<u8>::new());
}

/// 10,000 `spawn_future`s awaited by as many tasks of a multi-thread tokio runtime: every result
/// right, and no tokio worker blocked while they wait. The pool's jobs are held at a gate that only
/// a tokio task opens, once every awaiting task has polled its future: if awaiting a `JobFuture`
/// blocked the tokio workers, that task would never run and the test would hang (the watchdog
/// fails it).
#[test]
fn ten_thousand_spawn_futures_awaited_from_tokio() {
    const N: u64 = 10_000;
    watchdog(|| {
        let pool = Arc::new(pool(2));
        let gate = Arc::new(Gate::default());
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let waiting = Arc::new(AtomicUsize::new(0));
        let results = runtime.block_on(async {
            let tasks: Vec<_> = (0..N)
                .map(|i| {
                    let (pool, gate, waiting) = (pool.clone(), gate.clone(), waiting.clone());
                    tokio::spawn(async move {
                        let future = pool.spawn_future(move || {
                            gate.wait();
                            i * 3
                        });
                        waiting.fetch_add(1, Ordering::SeqCst);
                        future.await
                    })
                })
                .collect();
            // A task that only yields: it opens the gate once all tasks are about to await.
            let opener = {
                let (gate, waiting) = (gate.clone(), waiting.clone());
                tokio::spawn(async move {
                    let mut ticks = 0u64;
                    while waiting.load(Ordering::SeqCst) < N as usize {
                        tokio::task::yield_now().await;
                        ticks += 1;
                    }
                    gate.open();
                    ticks
                })
            };
            let mut results = Vec::with_capacity(N as usize);
            for task in tasks {
                results.push(task.await.unwrap());
            }
            opener.await.unwrap();
            results
        });
        assert_eq!(results.len(), N as usize);
        for (i, r) in results.into_iter().enumerate() {
            assert_eq!(r, i as u64 * 3);
        }
    });
}

/// Both halves of a `join` on the only worker of a pool `block_on` a future of a job of the same
/// pool: the worker runs those jobs while it waits, so nothing deadlocks.
#[test]
fn block_on_inside_join_on_a_one_thread_pool() {
    let got = watchdog(|| {
        let pool = pool(1);
        pool.install(|| {
            join(
                || block_on(spawn_future(|| 1)),
                || {
                    // Nested: the job itself joins and blocks on another job.
                    block_on(spawn_future(|| {
                        let (a, b) = join(|| 2, || block_on(spawn_future(|| 3)));
                        a + b
                    }))
                },
            )
        })
    });
    assert_eq!(got, (1, 5));
}

/// `block_on(spawn_future(..))` on the only worker of a pool: the worker runs the job itself.
#[test]
fn block_on_spawn_future_from_the_only_worker() {
    let (index, pending) = watchdog(|| {
        let pool = pool(1);
        pool.install(|| {
            let index = block_on(spawn_future(forkjoin::current_thread_index));
            (index, forkjoin::current_thread_has_pending_tasks())
        })
    });
    assert_eq!(index, Some(0));
    assert_eq!(pending, Some(false));
}

/// A worker in `block_on` that found no job sleeps, and new pool work wakes it: the job that
/// completes its future is spawned into the pool from outside, later.
#[test]
fn a_worker_in_block_on_runs_work_that_arrives_later() {
    watchdog(|| {
        let pool = Arc::new(pool(1));
        let (tx, rx) = tokio::sync::oneshot::channel::<u32>();
        let (started_tx, started_rx) = mpsc::channel();
        let p = pool.clone();
        let outside = std::thread::spawn(move || {
            started_rx.recv().unwrap();
            // Give the worker time to fall asleep (not needed for correctness).
            std::thread::sleep(std::time::Duration::from_millis(20));
            p.spawn(move || tx.send(9).unwrap());
        });
        let got = pool.install(|| {
            started_tx.send(()).unwrap();
            block_on(rx).unwrap()
        });
        assert_eq!(got, 9);
        outside.join().unwrap();
    });
}

/// A worker in `block_on` is woken by a waker called from a thread outside the pool.
#[test]
fn a_worker_in_block_on_is_woken_from_outside_the_pool() {
    watchdog(|| {
        let pool = pool(2);
        let (tx, rx) = tokio::sync::oneshot::channel::<&str>();
        let sender = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            tx.send("woken").unwrap();
        });
        assert_eq!(pool.install(|| block_on(rx)).unwrap(), "woken");
        sender.join().unwrap();
    });
}

/// `block_on` on a worker of one pool, for a job of another: the other pool's worker wakes it.
#[test]
fn block_on_a_job_of_another_pool() {
    watchdog(|| {
        let a = Arc::new(pool(2));
        let b = pool(1);
        let a2 = a.clone();
        let (in_a, index_b) = b.install(move || {
            let a3 = a2.clone();
            let in_a = block_on(a2.spawn_future(move || a3.current_thread_index().is_some()));
            (in_a, forkjoin::current_thread_index())
        });
        assert!(in_a);
        assert_eq!(index_b, Some(0));
    });
}

/// `ThreadPool::spawn_future` runs the job on that pool's workers, from anywhere; the free
/// function runs it on the current pool.
#[test]
fn thread_pool_spawn_future_runs_on_that_pool() {
    watchdog(|| {
        let a = Arc::new(pool(2));
        let b = Arc::new(pool(3));
        let (a2, b2) = (a.clone(), b.clone());
        let where_ran = block_on(a.spawn_future(move || {
            (
                a2.current_thread_index(),
                b2.current_thread_index(),
                forkjoin::current_num_threads(),
            )
        }));
        assert!(where_ran.0.unwrap() < 2);
        assert_eq!(where_ran.1, None);
        assert_eq!(where_ran.2, 2);
        // From a worker of b, into a.
        let a2 = a.clone();
        let index = b.install(|| block_on(a.spawn_future(move || a2.current_thread_index())));
        assert!(index.unwrap() < 2);
        // The free function, inside b: b's pool.
        let b2 = b.clone();
        let index = b.install(|| block_on(spawn_future(move || b2.current_thread_index())));
        assert!(index.unwrap() < 3);
    });
}

/// A panic in the job is raised where the future is awaited (as a tokio task's panic, and out of
/// `block_on`), with its payload; the pool's panic handler does not see it and the pool stays
/// usable.
#[test]
fn panics_propagate_to_the_awaiting_task() {
    watchdog(|| {
        let handled = Arc::new(AtomicUsize::new(0));
        let h = handled.clone();
        let pool = Arc::new(
            ThreadPoolBuilder::new()
                .num_threads(2)
                .panic_handler(move |_| {
                    h.fetch_add(1, Ordering::SeqCst);
                })
                .build()
                .unwrap(),
        );
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let p = pool.clone();
        let err =
            runtime
                .block_on(runtime.spawn(async move {
                    p.spawn_future(|| -> u8 { panic!("boom in the job") }).await
                }))
                .unwrap_err();
        assert!(err.is_panic());
        let payload = err.into_panic();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom in the job"));

        let caught = panic::catch_unwind(AssertUnwindSafe(|| {
            block_on(pool.spawn_future(|| -> u8 { panic!("{}", String::from("boom again")) }))
        }))
        .unwrap_err();
        assert_eq!(caught.downcast_ref::<String>().unwrap(), "boom again");

        // The same from a worker: the panic unwinds out of `block_on` inside the pool.
        let p = pool.clone();
        let inner = pool.install(move || {
            panic::catch_unwind(AssertUnwindSafe(|| {
                block_on(p.spawn_future(|| -> u8 { panic!("boom inside") }))
            }))
            .is_err()
        });
        assert!(inner);

        // The pool carries on, and its handler saw none of these panics.
        assert_eq!(pool.install(|| forkjoin::join(|| 1, || 2)), (1, 2));
        assert_eq!(block_on(pool.spawn_future(|| 4)), 4);
        assert_eq!(handled.load(Ordering::SeqCst), 0);
    });
}

/// A future dropped while its job runs: dropping it cancels the job, which stops at its next
/// boundary; this one has none and runs to its end. Its result and its closure's captures are
/// dropped (each exactly once), and the waker it registered is released and never woken. (A job
/// not yet started when its future drops never runs: `cancel.rs`.)
#[test]
fn dropping_the_future_before_completion() {
    watchdog(|| {
        let pool = pool(1);
        let gate = Arc::new(Gate::default());
        let drops = Arc::new(AtomicUsize::new(0));
        let ran = Arc::new(AtomicBool::new(false));
        let (captured, returned) = (DropCount(drops.clone()), DropCount(drops.clone()));
        let (g, r) = (gate.clone(), ran.clone());
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let mut future = pool.spawn_future(move || {
            started_tx.send(()).unwrap();
            g.wait();
            let _captured = &captured;
            r.store(true, Ordering::SeqCst);
            returned
        });
        let (counter, waker, _woken) = CountingWaker::new();
        assert!(poll_once(&mut future, &waker).is_pending());
        drop(waker);
        assert_eq!(Arc::strong_count(&counter), 2, "the future holds the waker");
        started_rx.recv().unwrap();
        drop(future);
        assert_eq!(
            Arc::strong_count(&counter),
            1,
            "dropping the future drops its waker"
        );
        assert_eq!(
            drops.load(Ordering::SeqCst),
            0,
            "nothing dropped before the job runs"
        );
        gate.open();
        drain(&pool);
        assert!(ran.load(Ordering::SeqCst), "the running job ran to its end");
        assert_eq!(
            drops.load(Ordering::SeqCst),
            2,
            "the capture and the result are dropped once each"
        );
        assert_eq!(counter.wakes(), 0, "nobody awaits: nobody is woken");
        assert_eq!(
            Arc::strong_count(&drops),
            1,
            "no clone of the counter leaked"
        );
    });
}

/// A future dropped without ever being polled, and one dropped after its job finished: the result
/// is dropped once either way.
#[test]
fn dropping_a_finished_or_unpolled_future() {
    watchdog(|| {
        let pool = pool(1);
        let drops = Arc::new(AtomicUsize::new(0));
        let d = DropCount(drops.clone());
        let future = pool.spawn_future(move || d);
        drain(&pool);
        assert_eq!(
            drops.load(Ordering::SeqCst),
            0,
            "the result waits in the future"
        );
        drop(future);
        assert_eq!(drops.load(Ordering::SeqCst), 1);

        let d = DropCount(drops.clone());
        drop(pool.spawn_future(move || d));
        drain(&pool);
        assert_eq!(drops.load(Ordering::SeqCst), 2);

        // A panic payload of a dropped future is dropped quietly too.
        drop(pool.spawn_future(|| -> u8 { panic!("nobody awaits this") }));
        drain(&pool);
        assert_eq!(pool.install(|| 1), 1);
    });
}

/// The waker is woken exactly once, and only when the result is ready: not while the job is
/// held, once when it finishes, and a poll after the wake is ready.
#[test]
fn the_waker_is_woken_exactly_when_ready() {
    watchdog(|| {
        let pool = pool(1);
        let gate = Arc::new(Gate::default());
        let g = gate.clone();
        let mut future = pool.spawn_future(move || {
            g.wait();
            "ready"
        });
        let (counter, waker, woken) = CountingWaker::new();
        assert!(poll_once(&mut future, &waker).is_pending());
        assert!(poll_once(&mut future, &waker).is_pending(), "a second poll");
        assert_eq!(counter.wakes(), 0, "not woken while the job is held");
        gate.open();
        woken
            .recv_timeout(TIMEOUT)
            .expect("the waker was never woken");
        drain(&pool);
        assert_eq!(counter.wakes(), 1, "woken exactly once");
        assert_eq!(poll_once(&mut future, &waker), Poll::Ready("ready"));
        assert_eq!(counter.wakes(), 1);
        // Polling a finished future again is a bug: it panics.
        let again = panic::catch_unwind(AssertUnwindSafe(|| poll_once(&mut future, &waker)));
        assert!(again.is_err());
    });
}

/// The waker of the latest poll is the one woken; an earlier one is not.
#[test]
fn the_latest_waker_is_woken() {
    watchdog(|| {
        let pool = pool(1);
        let gate = Arc::new(Gate::default());
        let g = gate.clone();
        let mut future = pool.spawn_future(move || {
            g.wait();
            1
        });
        let (first, first_waker, _) = CountingWaker::new();
        let (second, second_waker, second_woken) = CountingWaker::new();
        assert!(poll_once(&mut future, &first_waker).is_pending());
        assert!(poll_once(&mut future, &second_waker).is_pending());
        assert_eq!(
            Arc::strong_count(&first),
            2,
            "the replaced waker is released"
        );
        gate.open();
        second_woken
            .recv_timeout(TIMEOUT)
            .expect("latest waker never woken");
        drain(&pool);
        assert_eq!((first.wakes(), second.wakes()), (0, 1));
        assert_eq!(poll_once(&mut future, &second_waker), Poll::Ready(1));
    });
}

/// A job that finished before the first poll: ready at once, no wake.
#[test]
fn a_finished_job_is_ready_without_a_wake() {
    let pool = pool(1);
    let mut future = pool.spawn_future(|| 5);
    drain(&pool);
    let (counter, waker, _) = CountingWaker::new();
    assert_eq!(poll_once(&mut future, &waker), Poll::Ready(5));
    assert_eq!(counter.wakes(), 0);
}

/// A future that wakes itself and returns pending a few times (a cooperative yield), on a plain
/// thread and on a worker: `block_on` polls it again each time.
#[test]
fn block_on_a_future_that_wakes_itself() {
    struct YieldTimes(u32);
    impl Future for YieldTimes {
        type Output = &'static str;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<&'static str> {
            if self.0 == 0 {
                return Poll::Ready("done");
            }
            self.0 -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
    watchdog(|| {
        assert_eq!(block_on(YieldTimes(100)), "done");
        assert_eq!(pool(1).install(|| block_on(YieldTimes(100))), "done");
    });
}

/// `block_on` from a plain thread parks until a waker called on another thread unparks it.
#[test]
fn block_on_outside_a_pool_parks_until_woken() {
    watchdog(|| {
        let (tx, rx) = tokio::sync::oneshot::channel::<u32>();
        let sender = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            tx.send(17).unwrap();
        });
        assert_eq!(block_on(rx).unwrap(), 17);
        sender.join().unwrap();
    });
}

/// Many workers at once in `block_on`, each waiting for jobs that other workers may run (more
/// threads than cores): every result arrives.
#[test]
fn many_workers_block_on_each_others_jobs() {
    use forkjoin::prelude::*;
    let total = watchdog(|| {
        let pool = pool(8);
        pool.install(|| {
            (0..2_000u64)
                .into_par_iter()
                .map(|i| {
                    let inner = spawn_future(move || {
                        if i % 7 == 0 {
                            block_on(spawn_future(move || i))
                        } else {
                            i
                        }
                    });
                    block_on(inner)
                })
                .sum::<u64>()
        })
    });
    assert_eq!(total, (0..2_000u64).sum());
}

/// `block_on` from a plain thread of an async block that awaits two `spawn_future`s of the global
/// pool.
#[test]
fn spawn_future_on_the_global_pool() {
    let got = watchdog(|| {
        block_on(async {
            let a = spawn_future(|| 20);
            let b = spawn_future(|| 22);
            a.await + b.await
        })
    });
    assert_eq!(got, 42);
}

/// The README's example (`examples/async.rs`): four requests served at once on tokio.
#[test]
fn the_async_example_runs() {
    let answers = watchdog(async_example::run);
    assert_eq!(
        answers,
        [
            "4 primes below 10",
            "168 primes below 1000",
            "9592 primes below 100000",
            "78498 primes below 1000000",
        ]
    );
}
