//! `yield_now`, `yield_local`, `current_thread_has_pending_tasks` and their `ThreadPool` methods.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use forkjoin::Yield;

use crate::common;
use common::{block_the_other_worker, pool};

#[test]
fn outside_any_pool_there_is_nothing_to_yield_to() {
    assert_eq!(forkjoin::yield_now(), None);
    assert_eq!(forkjoin::yield_local(), None);
    assert_eq!(forkjoin::current_thread_has_pending_tasks(), None);
    let pool = pool(2);
    assert_eq!(pool.yield_now(), None);
    assert_eq!(pool.yield_local(), None);
    assert_eq!(pool.current_thread_has_pending_tasks(), None);
    // A worker of another pool is not this pool's.
    let other = common::pool(1);
    assert_eq!(other.install(|| pool.yield_now()), None);
    assert_eq!(
        other.install(|| pool.current_thread_has_pending_tasks()),
        None
    );
}

#[test]
fn yield_local_runs_the_workers_own_spawns_one_at_a_time() {
    let pool = pool(1);
    let ran = Arc::new(AtomicUsize::new(0));
    pool.install(|| {
        assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(false));
        assert_eq!(forkjoin::yield_local(), Some(Yield::Idle));
        for _ in 0..3 {
            let ran = ran.clone();
            forkjoin::spawn(move || {
                ran.fetch_add(1, Ordering::SeqCst);
            });
        }
        assert_eq!(pool.current_thread_has_pending_tasks(), Some(true));
        for expected in 1..=3 {
            assert_eq!(pool.yield_local(), Some(Yield::Executed));
            assert_eq!(ran.load(Ordering::SeqCst), expected);
        }
        assert_eq!(forkjoin::yield_local(), Some(Yield::Idle));
        assert_eq!(forkjoin::current_thread_has_pending_tasks(), Some(false));
    });
}

#[test]
fn yield_local_runs_a_pending_join_half() {
    let pool = pool(2);
    let (yields, b) = pool.install(|| {
        let release = block_the_other_worker(&pool);
        // The other worker is blocked: only a yield inside a can run b.
        forkjoin::join(
            || {
                let mut yields = 0;
                while forkjoin::yield_local() == Some(Yield::Executed) {
                    yields += 1;
                }
                release.send(()).unwrap();
                yields
            },
            || "b",
        )
    });
    assert_eq!((yields, b), (1, "b"));
}

#[test]
fn yield_now_also_takes_work_from_outside_the_worker() {
    let pool = pool(2);
    let (done_tx, done_rx) = mpsc::channel();
    let pool_ref = &pool;
    let executed = pool.install(move || {
        let release = block_the_other_worker(pool_ref);
        // Inject a job from a plain thread: only a yield of this worker can run it.
        std::thread::scope(|s| {
            s.spawn(|| pool_ref.spawn(move || done_tx.send(()).unwrap()));
        });
        assert_eq!(forkjoin::yield_local(), Some(Yield::Idle), "not ours");
        let result = forkjoin::yield_now().unwrap();
        assert!(done_rx.try_recv().is_ok());
        release.send(()).unwrap();
        result
    });
    assert_eq!(executed, Yield::Executed);
}
