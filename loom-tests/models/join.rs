//! loom models of `join`'s pop-vs-steal of job b: the owner pushes b on its private job stack, runs a,
//! then pops b back or — if a thief took it (heavy steal after its process-wide barrier, or the owner's
//! own publication) — waits on b's latch. b must run exactly once and its result reach the owner.
// The explicit drops mark where each job's borrow of the leaked `Sleep` ends, before `free_sleep`.
#![allow(clippy::drop_non_drop)]

use crate::platform::sync::heavy_barrier;
use crate::runtime::jobs::job::StackJob;
use crate::runtime::jobs::jobstack::{JobStackOwner, JobStackThief, Pushed};
use crate::runtime::jobs::latch::{CoreLatch, SpinLatch};
use crate::runtime::sleep::{Idled, Sleep};
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

/// Counts all `n` workers of `sleep` idle, so their sleeps have no patrol timeout: a lost wake-up
/// is then a loom deadlock instead of being hidden by a timeout (which loom fires at once).
fn all_idle(sleep: Sleep) -> Sleep {
    let n = sleep.num_threads();
    sleep.idle_workers().fetch_add(n, Ordering::Relaxed);
    sleep
}

fn leak_sleep(n: usize) -> &'static Arc<Sleep> {
    Box::leak(Box::new(Arc::new(all_idle(Sleep::new(n)))))
}

fn free_sleep(sleep: &'static Arc<Sleep>) {
    // SAFETY: produced by `leak_sleep`; no thread uses it any more.
    drop(unsafe { Box::from_raw(sleep as *const Arc<Sleep> as *mut Arc<Sleep>) });
}

/// The owner's wait for a stolen b (no other work to run).
fn wait(sleep: &Sleep, latch: &SpinLatch<'_>) {
    let mut idle = sleep.start_looking(0);
    while !latch.probe() {
        match sleep.no_work_found(&mut idle, || latch.core().try_sleep(), || false) {
            Idled::Waited => {}
            Idled::Aborted | Idled::Slept | Idled::TimedOut => latch.core().wake_up(),
        }
    }
    // The model has no other work to pass on (sleep README rule 12).
    sleep.stop_searching(&mut idle);
}

/// The owner's step 3 for one job: pop it back and run it, or wait for the thief's latch.
///
/// # Safety
/// `pushed` witnesses the push of `job`'s reference on `stack`, once.
unsafe fn pop_or_wait<F: FnOnce(bool) -> u32>(
    sleep: &Sleep,
    stack: &JobStackOwner,
    job: &StackJob<SpinLatch<'_>, F, u32>,
    pushed: Pushed,
) -> u32 {
    if stack.pop(pushed) {
        // SAFETY: popped back: the JobRef will not be executed.
        unsafe { job.run_inline(false) }
    } else {
        wait(sleep, job.latch());
        // SAFETY: the latch is set, so the thief is done with the job.
        unsafe { job.take_result() }
    }
}

/// One thief attempt: read base, barrier, steal, run.
fn thief(stack: &JobStackThief, runs: &AtomicUsize) {
    let base = stack.top_before_barrier();
    heavy_barrier();
    if let Some(job) = stack.steal_after_barrier(base) {
        runs.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the job was taken exactly once from the stack; its owner waits for its latch.
        unsafe { job.execute() };
    }
}

#[test]
fn pop_vs_heavy_steal_of_b() {
    loom::model(|| {
        let sleep = leak_sleep(2);
        let stack = JobStackOwner::new();
        let thief_runs = Arc::new(AtomicUsize::new(0));
        let job_b = StackJob::new(|_stolen: bool| 7u32, SpinLatch::waking(sleep.slot(0)));
        // SAFETY: `job_b` outlives every use of the reference: we pop it back or wait for its latch.
        let job_ref = unsafe { job_b.as_job_ref() };
        let pushed = stack.push(job_ref).unwrap();
        let (s2, r2) = (stack.thief(), thief_runs.clone());
        let t = thread::spawn(move || thief(&s2, &r2));
        // ... a runs here ...
        let result = if stack.pop(pushed) {
            // SAFETY: popped back: the JobRef will not be executed.
            unsafe { job_b.run_inline(false) }
        } else {
            wait(sleep, job_b.latch());
            // SAFETY: the latch is set.
            unsafe { job_b.take_result() }
        };
        assert_eq!(result, 7);
        t.join().unwrap();
        let stolen = thief_runs.load(Ordering::Relaxed);
        assert!(stolen <= 1, "b ran twice");
        drop(job_b);
        free_sleep(sleep);
    });
}

#[test]
fn nested_push_pop_vs_steal_of_the_oldest() {
    // The owner pushes b, then a nested b2 and pops b2 (the nested join), then pops b; a thief steals
    // once. Every job runs exactly once whatever the interleaving.
    loom::model(|| {
        let sleep = leak_sleep(2);
        let stack = JobStackOwner::new();
        let runs = Arc::new(AtomicUsize::new(0));
        let job_b = StackJob::new(|_| 1u32, SpinLatch::waking(sleep.slot(0)));
        let job_b2 = StackJob::new(|_| 2u32, SpinLatch::waking(sleep.slot(0)));
        // SAFETY: both jobs outlive their references (popped back or latch awaited below).
        let (rb, rb2) = unsafe { (job_b.as_job_ref(), job_b2.as_job_ref()) };
        let pb = stack.push(rb).unwrap();
        let (s2, r2) = (stack.thief(), runs.clone());
        let t = thread::spawn(move || thief(&s2, &r2));
        let pb2 = stack.push(rb2).unwrap();
        // SAFETY: each job was pushed once; it is popped once and its latch awaited if it was taken.
        let total = unsafe {
            pop_or_wait(sleep, &stack, &job_b2, pb2) + pop_or_wait(sleep, &stack, &job_b, pb)
        };
        assert_eq!(total, 3);
        t.join().unwrap();
        drop((job_b, job_b2));
        free_sleep(sleep);
    });
}

#[test]
fn publication_vs_heavy_steal() {
    // The owner publishes its oldest job (as on a share request) while a thief heavy-steals: exactly
    // one of them gets it.
    loom::model(|| {
        let sleep = leak_sleep(2);
        let stack = JobStackOwner::new();
        let runs = Arc::new(AtomicUsize::new(0));
        let job_b = StackJob::new(|_| 5u32, SpinLatch::waking(sleep.slot(0)));
        // SAFETY: `job_b` outlives the reference (run below or latch awaited).
        let rb = unsafe { job_b.as_job_ref() };
        assert!(stack.push(rb).is_some());
        let (s2, r2) = (stack.thief(), runs.clone());
        let t = thread::spawn(move || thief(&s2, &r2));
        let result = match stack.take_oldest() {
            // Published (here: run by the owner itself, as if popped back from its public deque).
            Some(job) => {
                assert_eq!(job.id(), rb.id());
                // SAFETY: the owner took the JobRef itself; nobody else executes it.
                unsafe { job_b.run_inline(false) }
            }
            None => {
                wait(sleep, job_b.latch());
                // SAFETY: the latch is set.
                unsafe { job_b.take_result() }
            }
        };
        assert_eq!(result, 5);
        t.join().unwrap();
        drop(job_b);
        free_sleep(sleep);
    });
}

#[test]
fn patrol_finds_a_job_whose_owner_blocks() {
    // The owner pushes b and never publishes it (its sharing heartbeat is not due) nor pops it: its
    // `a` blocks until b has run (a channel only b feeds). The idle thief sleeps with a patrol timeout
    // because the owner is busy (loom fires it at once), then heavy-steals b. A missing patrol is a
    // loom deadlock.
    loom::model(|| {
        let sleep: &'static Arc<Sleep> = Box::leak(Box::new(Arc::new(Sleep::new(2))));
        let stack = JobStackOwner::new();
        let job_b = StackJob::new(|_| 9u32, SpinLatch::waking(sleep.slot(0)));
        // SAFETY: `job_b` outlives the reference: the owner waits for its latch below.
        let rb = unsafe { job_b.as_job_ref() };
        assert!(stack.push(rb).is_some());
        let thieves = stack.thief();
        let t = thread::spawn(move || {
            // The thief's idle loop, as in `WorkerThread::wait_until_cold`: counted idle (1 of 2
            // workers), patrols when a timed sleep ran out.
            sleep.idle_workers().fetch_add(1, Ordering::Relaxed);
            let never_set = CoreLatch::new();
            let mut idle = sleep.start_looking(1);
            loop {
                if idle.take_patrol_due() {
                    let base = thieves.top_before_barrier();
                    heavy_barrier();
                    if let Some(job) = thieves.steal_after_barrier(base) {
                        sleep.stop_searching(&mut idle);
                        // SAFETY: taken exactly once from the stack; its owner waits for its latch.
                        unsafe { job.execute() };
                        return;
                    }
                }
                match sleep.no_work_found(&mut idle, || never_set.try_sleep(), || false) {
                    Idled::Waited => {}
                    Idled::Aborted | Idled::Slept | Idled::TimedOut => never_set.wake_up(),
                }
            }
        });
        // The blocked `a`: waits for b's effect without taking part in the pool.
        while !job_b.latch().probe() {
            thread::yield_now();
        }
        // SAFETY: the latch is set.
        assert_eq!(unsafe { job_b.take_result() }, 9);
        t.join().unwrap();
        drop(job_b);
        free_sleep(sleep);
    });
}
