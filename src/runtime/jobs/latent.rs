//! Latent forks: the unstarted rest of a running loop, which code running inside one of the loop's
//! items may split off for an idle worker.
//!
//! A request for work is seen first by the innermost parallel loop that polls between two
//! batches, and its rest is usually the smallest piece of work this worker holds: in a nested
//! loop (skynet, nqueens) the outer loops' remainders stay on one worker for the whole of an item
//! while thieves get crumbs. So a loop whose items run nested parallel loops registers its rest
//! while each item runs ([`with_latent_fork`]), and a poll inside answers a request with the
//! *oldest* pending work of its worker ([`offer_oldest`]): a private join job older than the
//! outermost fork if one is still pending (the caller publishes it), else half of the outermost
//! fork's rest (the fork's own `offer` closure makes it a job), else the next fork inward.
//!
//! A *latent join* registers the same way: in a pool of more than 64 workers, a user's first
//! joins below the offered jobs run a then b as plain calls, with b registered as a fork while a
//! runs; its `offer` makes b a job (`crate::runtime::join`'s `join_latent`, and
//! `registry/worker/inline_budget.rs` for which joins). Loops and joins share one chain, so the
//! oldest work goes first whichever kind holds it.
//!
//! The chain lives on the worker's stack, one [`LatentFork`] in each registered loop's frame,
//! linked from the innermost through a thread-local. Registering costs two thread-local writes
//! and touches no shared memory; only an answered request does. A job taken from a queue starts
//! a new chain ([`detached`]): its loops run on top of an unrelated frame, whose forks are not
//! theirs to split (and a waiting worker may run only what belongs to its wait).

use std::cell::Cell;
use std::ptr;

use crate::platform::sync::thread_local;
use crate::runtime::jobs::jobstack::StackMark;

thread_local! {
    /// The innermost registered fork of this thread, or null.
    static INNERMOST: Cell<*const LatentFork> = const { Cell::new(ptr::null()) };
    /// Loops started on this thread, wrapping (see [`loop_started`]).
    static LOOPS_STARTED: Cell<u32> = const { Cell::new(0) };
}

/// Counts a loop starting on this thread; returns the new count. A loop that sees the count move
/// while one of its items ran knows its items run nested loops.
#[inline]
pub(crate) fn loop_started() -> u32 {
    let n = LOOPS_STARTED.get().wrapping_add(1);
    LOOPS_STARTED.set(n);
    n
}

/// The count of [`loop_started`] now.
#[inline]
pub(crate) fn loops_started() -> u32 {
    LOOPS_STARTED.get()
}

/// A registered loop's rest, in the loop's frame while one of its items runs.
pub(crate) struct LatentFork {
    /// Splits off (part of) the rest as a job for an idle worker; false if nothing is left to
    /// offer. Points into the registering frame, which outlives the registration.
    offer: *const (dyn Fn() -> bool + 'static),
    /// The next fork outward, or null.
    outer: *const LatentFork,
    /// The worker's private stack when the fork was registered: jobs pushed before are older.
    older: StackMark,
}

/// Runs `body` (one item of a loop) with `offer` registered as the loop's latent fork. `older`
/// marks the worker's private stack now (see [`offer_oldest`]).
#[inline]
pub(crate) fn with_latent_fork<T>(
    offer: &dyn Fn() -> bool,
    older: StackMark,
    body: impl FnOnce() -> T,
) -> T {
    /// Restores the outer chain when `body` returns or unwinds.
    struct Unregister(*const LatentFork);
    impl Drop for Unregister {
        #[inline]
        fn drop(&mut self) {
            INNERMOST.set(self.0);
        }
    }
    let offer: *const (dyn Fn() -> bool + '_) = offer;
    // SAFETY: only the pointer's lifetime bound changes; it is dereferenced only while this
    // registration is in the chain, which `Unregister` ends before `offer`'s borrow does.
    let offer: *const (dyn Fn() -> bool + 'static) = unsafe { std::mem::transmute(offer) };
    let fork = LatentFork {
        offer,
        outer: INNERMOST.get(),
        older,
    };
    let _unregister = Unregister(fork.outer);
    INNERMOST.set(&fork);
    body()
}

/// Runs `body`, a job taken from a queue, with no latent forks of the frames below it.
#[inline]
pub(crate) fn detached<T>(body: impl FnOnce() -> T) -> T {
    struct Restore(*const LatentFork);
    impl Drop for Restore {
        #[inline]
        fn drop(&mut self) {
            INNERMOST.set(self.0);
        }
    }
    let _restore = Restore(INNERMOST.get());
    INNERMOST.set(ptr::null());
    body()
}

/// True if some loop running on this thread has registered its rest.
#[inline]
pub(crate) fn any() -> bool {
    !INNERMOST.get().is_null()
}

/// Answers a request for work with the oldest pending work of this thread, outermost fork first.
/// For each fork, `publish_older(mark)` is asked first: `Some(published)` if a private job pushed
/// before the fork's mark is still pending (the caller offers that one instead), `None` if none
/// is. True if something was offered.
pub(crate) fn offer_oldest(mut publish_older: impl FnMut(StackMark) -> Option<bool>) -> bool {
    let innermost = INNERMOST.get();
    // SAFETY: a fork in the chain is live (see `offer_from`).
    !innermost.is_null() && unsafe { offer_from(innermost, &mut publish_older) }
}

/// [`offer_oldest`] from `fork` outward: the forks outside it first (the chain is as deep as the
/// loops are nested).
///
/// # Safety
/// `fork` must be in this thread's chain.
unsafe fn offer_from(
    fork: *const LatentFork,
    publish_older: &mut impl FnMut(StackMark) -> Option<bool>,
) -> bool {
    // SAFETY: a fork in the chain is live: its frame is below us on this thread's stack, and it
    // leaves the chain before its frame ends.
    let fork = unsafe { &*fork };
    // SAFETY: `outer` is the next fork of the same chain.
    if !fork.outer.is_null() && unsafe { offer_from(fork.outer, publish_older) } {
        return true;
    }
    if let Some(published) = publish_older(fork.older) {
        return published;
    }
    // SAFETY: `offer` points into the fork's live frame (see the field). The closure may run user
    // code (a consumer's split) that polls and re-enters here: it then finds its own rest taken
    // out and offers nothing.
    unsafe { (*fork.offer)() }
}
