//! loom models of the work map (`src/runtime/sleep/work_map.rs`): an owner pushes a job and marks its deque while
//! a thief unmarks it (its probe found the deque empty) and another worker searches and falls
//! asleep. Both searchers use the production search (`WorkMap::steal`) and sleep through the real
//! protocol with every worker counted idle (no patrol timeout), so a job hidden behind a cleared bit,
//! or a lost wake-up, is a loom deadlock.

use crate::deque::{Stealer, Worker};
use crate::runtime::jobs::latch::CoreLatch;
use crate::runtime::sleep::work_map::WorkMap;
use crate::runtime::sleep::{Idled, Sleep};
use loom::sync::atomic::Ordering;
use loom::sync::Arc;
use loom::thread;

const OWNER: usize = 2;

struct Pool {
    sleep: Sleep,
    map: WorkMap,
    /// Each searcher's "stop" latch: set by the searcher that took the job, for the other.
    done: [CoreLatch; 2],
}

/// Searcher `me` (0 or 1): searches through the map, else goes idle, until it takes the job (then
/// it stops the other searcher) or its own latch is set. Returns whether it took the job.
fn searcher(pool: &Pool, me: usize, stealer: &Stealer<usize>) -> bool {
    let latch = &pool.done[me];
    let mut idle = pool.sleep.start_looking(me);
    while !latch.probe() {
        let found = pool.map.steal(
            me,
            OWNER,
            &pool.sleep,
            |_| Some(stealer.steal()),
            |_| stealer.is_empty(),
            || false,
        );
        if found.is_some() {
            let other = 1 - me;
            if pool.done[other].set_owned_for_tests() {
                pool.sleep.notify_worker_latch_is_set(other);
            }
            return true;
        }
        match pool
            .sleep
            .no_work_found(&mut idle, || latch.try_sleep(), || false)
        {
            Idled::Waited => {}
            Idled::Aborted | Idled::Slept | Idled::TimedOut => latch.wake_up(),
        }
    }
    false
}

/// One job pushed by the owner while two workers search; `stale_mark`: the owner's bit is already
/// set (an earlier job was taken and nobody has probed since), so the owner's push reads it set and
/// skips its own set, racing with a searcher's clear.
fn one_job_two_searchers(stale_mark: bool) {
    loom::model(move || {
        let sleep = Sleep::new(3);
        // Every worker idle: sleeps have no patrol timeout, so a lost job deadlocks.
        sleep.idle_workers().fetch_add(3, Ordering::Relaxed);
        let pool = Arc::new(Pool {
            map: WorkMap::new(3),
            sleep,
            done: [CoreLatch::new(), CoreLatch::new()],
        });
        if stale_mark {
            pool.map.publish(OWNER, &pool.sleep);
        }
        let deque = Worker::new();
        let stealers = [deque.stealer(), deque.stealer()];
        let p = pool.clone();
        let owner = thread::spawn(move || {
            deque.push(7);
            p.map.publish(OWNER, &p.sleep);
            deque
        });
        let (p, s) = (pool.clone(), stealers[1].clone());
        let other = thread::spawn(move || searcher(&p, 1, &s));
        let took = searcher(&pool, 0, &stealers[0]);
        let other_took = other.join().unwrap();
        let deque = owner.join().unwrap();
        assert!(deque.pop().is_none(), "the job was left in the deque");
        assert!(took != other_took, "the job must be taken exactly once");
    });
}

#[test]
fn a_push_into_an_unmarked_deque_vs_two_searchers() {
    one_job_two_searchers(false);
}

#[test]
fn a_push_that_reads_a_stale_mark_vs_a_searcher_clearing_it() {
    one_job_two_searchers(true);
}
