//! The counts of a scope's dropped jobs, released in one decrement.
//!
//! A job of a cancelled scope, or of cancelled work, is dropped unrun (`crate::runtime::scope`).
//! Each such job would decrement the scope's count latch, one cache line shared by every worker
//! that drops jobs, and a cancelled scope may hold thousands of them spread over all the workers:
//! those decrements queue on that line (predicted at 64 cores: 160 µs of cancellation latency for
//! a scope tree). So a worker keeps the count of the jobs it dropped, for one latch at a time, and
//! releases them in one decrement.
//!
//! **Invariant**: a worker holds counts only while one of its loops that run jobs from queues
//! (`wait.rs`, `join`'s wait for a published b) goes from one dropped scope job to the next.
//! Before it runs anything else (a job that is not a scope job, a scope job that runs, a popped
//! b), before it idles, and before such a loop returns, it releases them. So no count is held
//! while this worker could block, and the owner of the latch, waiting for its count to reach
//! zero, is released by the time this worker has nothing left to drop.

use std::ptr;

use crate::runtime::jobs::latch::CountLatch;
use crate::runtime::registry::worker::WorkerThread;

impl WorkerThread {
    /// A job counted in `latch` was dropped unrun: its count is released later, with the others
    /// this worker drops next (see the module doc).
    ///
    /// # Safety
    /// As [`Latch::set`](crate::runtime::jobs::latch::Latch::set) on `latch`: the caller holds
    /// one of its counts and gives it up.
    #[inline]
    pub(crate) unsafe fn release_later(&self, latch: *const CountLatch) {
        let (held, count) = self.deferred_release.get();
        if ptr::eq(held, latch) {
            self.deferred_release.set((held, count + 1));
        } else {
            self.release_deferred();
            self.deferred_release.set((latch, 1));
        }
    }

    /// Releases the counts this worker holds, if any (see the module doc).
    #[inline(always)]
    pub(crate) fn release_deferred(&self) {
        if self.deferred_release.get().1 != 0 {
            self.release_deferred_cold();
        }
    }

    /// [`release_deferred`](Self::release_deferred) where this worker found no job of its own:
    /// before it searches others and before it idles.
    #[inline(always)]
    pub(crate) fn release_deferred_before_search(&self) {
        // The simulation's self-check (scripts/sim-bugs.sh): counts held while the worker searches
        // and sleeps; a scope owner waiting for them is never released.
        if crate::platform::sync::sim_bug("release_held_while_idle") {
            return;
        }
        self.release_deferred();
    }

    #[cold]
    #[inline(never)]
    fn release_deferred_cold(&self) {
        let (latch, count) = self.deferred_release.replace((ptr::null(), 0));
        // SAFETY: we hold `count` of the latch's counts (`release_later`), so it is live: its
        // owner waits until they are released.
        unsafe { CountLatch::set_many(latch, count) };
    }
}
