//! The *searchers* (sleep README rule 12): idle workers that take anything, counted while they
//! spin and yield between searches, so that a publication which finds a sleeper to wake wakes
//! nobody while one of them will look.
//!
//! At 256 workers every publication of a call's tail woke a sleeper, which often found the job
//! already taken by a worker that was searching anyway; it then counted itself, announced and
//! fell asleep again, three read-modify-writes on the counters' line, behind which the next
//! publisher's wake queued for tens of microseconds (docs/benchmarks.md, "Searchers instead of
//! wakes").
//!
//! The count is a store–fence–load handshake with the publisher, both sides SeqCst fences: a
//! searcher counts itself and fences before its next search, and fences after it uncounts itself
//! before its last look (the search after its announcement, or its check for work still visible
//! when it leaves); a publisher reads the count after its own fence. So a publisher that reads a
//! searcher counted has its job seen by that searcher's next look, and a searcher that leaves
//! with work still visible announces it again (`Sleep::announce_visible_work`).

use crate::platform::sync::{fence, sim_label, AtomicUsize, Ordering};
use crossbeam_utils::CachePadded;

/// The pool's count of searchers, on a line of its own (see the module docs).
pub(super) struct Searchers {
    count: CachePadded<AtomicUsize>,
}

impl Searchers {
    pub(super) fn new() -> Self {
        Searchers {
            count: CachePadded::new(AtomicUsize::new(0)),
        }
    }

    /// Names the line for the simulation's line profile.
    pub(super) fn label_lines(&self) {
        sim_label(&*self.count, "searchers");
    }

    /// One more searcher, then the fence: the caller's next search sees every job published
    /// before a publisher read the count without it.
    pub(super) fn enter(&self) {
        // SeqCst, and the fence: pairs with the publisher's fence before `any`.
        self.count.fetch_add(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
    }

    /// One searcher fewer, then the fence: of this fence and a publisher's, one comes first. If
    /// ours, the publisher's read misses the searcher; if its, the caller's look after this sees
    /// the publisher's job.
    pub(super) fn leave(&self) {
        // SeqCst, and the fence: as in `enter`.
        self.count.fetch_sub(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
    }

    /// True if a searcher is counted. Call after the publisher's `fence(SeqCst)`.
    #[inline]
    pub(super) fn any(&self) -> bool {
        // Relaxed: ordered by the fences (see `enter` and `leave`).
        self.count.load(Ordering::Relaxed) != 0
    }
}
