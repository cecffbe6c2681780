//! loom models of the latch protocol: a worker waiting on a `SpinLatch` through the sleep module
//! (probe → announce sleepy → `UNSET → SLEEPING` → fall asleep) against the setter's swap + targeted wake.
//! A lost wake-up shows up as a loom deadlock; a missing release/acquire as a stale read of the result.

use crate::runtime::jobs::latch::{Latch, SpinLatch};
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

/// A pointer to a latch on the waiter's stack; the waiter joins the setter before the latch dies.
struct LatchPtr(*const SpinLatch<'static>);
// SAFETY: the latch is only set through this pointer (an atomic protocol), and outlives the setter.
unsafe impl Send for LatchPtr {}

/// The waiting side of `WorkerThread::wait_until` when there is no other work to run.
fn wait(sleep: &Sleep, latch: &SpinLatch<'_>, index: usize) {
    let mut idle = sleep.start_looking(index);
    while !latch.probe() {
        match sleep.no_work_found(&mut idle, || latch.core().try_sleep(), || false) {
            Idled::Waited => {}
            Idled::Aborted | Idled::Slept | Idled::TimedOut => latch.core().wake_up(),
        }
    }
}

#[test]
fn latch_set_vs_wait() {
    loom::model(|| {
        let sleep: &'static Arc<Sleep> = Box::leak(Box::new(Arc::new(all_idle(Sleep::new(1)))));
        let latch = SpinLatch::waking(sleep.slot(0));
        let result = Arc::new(AtomicUsize::new(0));
        let ptr = LatchPtr(&latch);
        let r2 = result.clone();
        let setter = thread::spawn(move || {
            let ptr = ptr;
            // Relaxed: the latch's release must publish it.
            r2.store(42, Ordering::Relaxed);
            // SAFETY: the latch outlives this thread (the waiter joins us first).
            unsafe { Latch::set(ptr.0) };
        });
        wait(sleep, &latch, 0);
        assert_eq!(
            result.load(Ordering::Relaxed),
            42,
            "result not published by the latch"
        );
        setter.join().unwrap();
        // SAFETY: reclaim the leaked Arc now that no thread uses it (keeps loom's leak check quiet).
        drop(unsafe { Box::from_raw(sleep as *const Arc<Sleep> as *mut Arc<Sleep>) });
    });
}

#[test]
fn latch_set_while_another_worker_sleeps() {
    // Worker 1 is asleep-prone too; the targeted wake must reach worker 0, not be spent on worker 1.
    loom::model(|| {
        let sleep: &'static Arc<Sleep> = Box::leak(Box::new(Arc::new(all_idle(Sleep::new(2)))));
        let latch = SpinLatch::waking(sleep.slot(0));
        let ptr = LatchPtr(&latch);
        let setter = thread::spawn(move || {
            let ptr = ptr;
            // SAFETY: as above.
            unsafe { Latch::set(ptr.0) };
        });
        wait(sleep, &latch, 0);
        setter.join().unwrap();
        // SAFETY: as above.
        drop(unsafe { Box::from_raw(sleep as *const Arc<Sleep> as *mut Arc<Sleep>) });
    });
}
