//! loom models of the sleep protocol: new work published while a worker goes idle → sleepy → asleep.
//! The work is a Relaxed flag (so only the protocol's own fences can make it visible); a lost wake-up
//! is a loom deadlock (the worker blocks forever on its futex stand-in).
#![cfg(forkjoin_loom)]

use forkjoin::__loom::{CoreLatch, Idled, Sleep};
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

/// An idle worker's loop: search (the flag), else go through the idle rounds; returns once it found
/// the work.
fn worker(sleep: &Sleep, index: usize, work: &AtomicBool) {
    let never_set = CoreLatch::new();
    let mut idle = sleep.start_looking(index);
    loop {
        // Relaxed: the sleep protocol's fences must order this against the publisher.
        if work.swap(false, Ordering::Relaxed) {
            return;
        }
        match sleep.no_work_found(&mut idle, || never_set.try_sleep(), || false) {
            Idled::Waited => {}
            Idled::Aborted | Idled::Slept => never_set.wake_up(),
        }
    }
}

#[test]
fn new_work_vs_falling_asleep() {
    loom::model(|| {
        let sleep = Arc::new(Sleep::new(1));
        let work = Arc::new(AtomicBool::new(false));
        let (s2, w2) = (sleep.clone(), work.clone());
        let publisher = thread::spawn(move || {
            // Relaxed: `new_jobs`' fence is what must make this visible to a sleepy worker. An RMW rather
            // than a store: loom's vector-clock modification order would otherwise let the worker's
            // later swaps read around this write, which real hardware cannot do.
            w2.swap(true, Ordering::Relaxed);
            s2.new_jobs();
        });
        worker(&sleep, 0, &work);
        publisher.join().unwrap();
    });
}

#[test]
fn two_jobs_two_idle_workers() {
    // Two idle workers, two jobs published one after the other: each worker must end up with one job.
    // A worker left asleep with a job still queued shows up as a loom deadlock.
    loom::model(|| {
        let sleep = Arc::new(Sleep::new(2));
        let jobs = Arc::new(AtomicUsize::new(0));
        let (s2, j2) = (sleep.clone(), jobs.clone());
        let publisher = thread::spawn(move || {
            for _ in 0..2 {
                // Relaxed RMW: only the protocol's fences order it (see above).
                j2.fetch_add(1, Ordering::Relaxed);
                s2.new_jobs();
            }
        });
        let (s3, j3) = (sleep.clone(), jobs.clone());
        let other = thread::spawn(move || take_one(&s3, 1, &j3));
        take_one(&sleep, 0, &jobs);
        publisher.join().unwrap();
        other.join().unwrap();
        assert_eq!(jobs.load(Ordering::Relaxed), 0);
    });
}

/// Like `worker`, but takes one unit from a job counter.
fn take_one(sleep: &Sleep, index: usize, jobs: &AtomicUsize) {
    let never_set = CoreLatch::new();
    let mut idle = sleep.start_looking(index);
    loop {
        let took = jobs
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok();
        if took {
            return;
        }
        match sleep.no_work_found(&mut idle, || never_set.try_sleep(), || false) {
            Idled::Waited => {}
            Idled::Aborted | Idled::Slept => never_set.wake_up(),
        }
    }
}
