//! The *idle flags* (sleep README rule 11): `idle_workers >= 1` and `idle_workers >= 2`, each on a
//! line of its own, which busy workers read instead of the idle count.
//!
//! **Why.** The count changes at every idle ↔ busy transition; with many workers, each change
//! turns every busy reader's next load into a line transfer. A flag is written only when the count
//! crosses its threshold, so it stays put while the pool's idleness does (at 64 simulated
//! workers, the polls' reads of the count were a costly line: docs/benchmarks.md, "Idle polls at
//! many cores").
//!
//! **The protocol, once for both flags.** The enter that takes the count up to the threshold
//! (from `at - 1` to `at`) increments (AcqRel), fences (SeqCst) and sets; the leave that takes it
//! below (from `at` to `at - 1`) decrements, clears, fences (SeqCst) and re-reads the count,
//! setting the flag again if it is back at the threshold. Of two such fences one comes first: the
//! re-read sees the enter's increment, or the enter's set follows the clear. So a flag never stays
//! clear while the count is at its threshold (loom: `the_idle_flag_follows_the_count`,
//! `the_second_idle_flag_follows_the_count`). A flag can stay set after three transitions race;
//! both states are hints.

use crate::platform::sync::{fence, sim_label, AtomicBool, AtomicUsize, Ordering};
use crossbeam_utils::CachePadded;

/// A flag set while the idle count is at least `at` (see the module docs).
pub(super) struct IdleFlag {
    flag: CachePadded<AtomicBool>,
    at: usize,
}

impl IdleFlag {
    /// A clear flag that follows `idle_workers >= at` (`at >= 1`).
    pub(super) fn new(at: usize) -> Self {
        debug_assert!(at >= 1);
        IdleFlag {
            flag: CachePadded::new(AtomicBool::new(false)),
            at,
        }
    }

    /// Names the line for the simulation's line profile.
    pub(super) fn label_lines(&self, label: &'static str) {
        sim_label(&*self.flag, label);
    }

    /// The flag itself (Relaxed loads by its readers: a hint).
    pub(super) fn get(&self) -> &AtomicBool {
        &self.flag
    }

    /// After an enter's increment found `before` workers idle: the one that reached the threshold
    /// fences and sets.
    #[inline]
    pub(super) fn entered(&self, before: usize) {
        if before + 1 == self.at {
            // SeqCst fence: the other half of the leave's (module docs).
            fence(Ordering::SeqCst);
            // Relaxed: ordered by the fences.
            self.flag.store(true, Ordering::Relaxed);
        }
    }

    /// After a leave's decrement found `before` workers idle, before the leave's SeqCst fence:
    /// the one that went below the threshold clears. True if it did (then
    /// [`recheck`](Self::recheck) follows the fence).
    #[inline]
    pub(super) fn left(&self, before: usize) -> bool {
        let crossed = before == self.at;
        if crossed {
            // Relaxed: ordered against a concurrent enter's set by the fences.
            self.flag.store(false, Ordering::Relaxed);
        }
        crossed
    }

    /// After the leave's SeqCst fence, for a leave that cleared: sets the flag again if an enter
    /// took the count back to the threshold meanwhile (its set may have come before our clear).
    #[inline]
    pub(super) fn recheck(&self, count: &AtomicUsize) {
        // Relaxed: ordered by the fences (module docs).
        if count.load(Ordering::Relaxed) >= self.at {
            self.flag.store(true, Ordering::Relaxed);
        }
    }
}
