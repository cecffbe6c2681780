//! Cancellation: tokens, and how work under a cancelled token stops.
//!
//! ```text
//! cancel/
//!   node.rs       Node: a flag set once, the child nodes cancelled with it, a kept panic
//!   token.rs      CancelToken: the user's handle to a node
//!   deadline.rs   the timer thread that cancels tokens at their deadlines
//! ```
//!
//! **What carries the token.** [`cancellable`](crate::cancellable) runs its work in a region of
//! its own (see `crate::runtime::jobs::region`) whose entry holds a pointer to a node: the token's
//! node, or, nested under another cancellable region, a node cancelled with either. Each worker
//! keeps the node of the region it runs in (`WorkerThread::cancel_node`): opening a region for a
//! job taken from a queue copies the node from the entry of the job's tag, exactly as it copies the
//! parent's depth, so every job created under the work, on any worker, runs with the same node,
//! and jobs from outside it (another caller's, `spawn`'s, injected ones) run with none. A `spawn`
//! or `spawn_future` made under a node holds the node itself (a reference count), since it may
//! outlive the region.
//!
//! **Where work stops: its boundaries.** A check is one load of the worker's node pointer and, if
//! there is one, one load of its flag:
//!
//! * a `join` before it runs b inline, and a stolen job b before it starts; a recursive tree of
//!   inline joins reaches a check at least every 64 joins (the inline budget's renewal);
//! * a parallel iterator's leaf before each batch (the leaf reads the node once, with its start;
//!   on a one-thread pool, a call under a node runs in batches too, so that it has boundaries).
//!   This boundary does not unwind: the leaf returns what it has, the joins between the loop's
//!   pieces are no boundaries (`sharing::join_pieces_for_split`), and the loop's call, once every
//!   piece is back, drops the partial result and unwinds (`sharing::stopped_at_end`);
//! * a scope's `spawn` (the spawner stops there), a scope's job before it starts; a `spawn`, a
//!   `spawn_future` before they start.
//!
//! A check that finds the node cancelled unwinds with the payload [`Cancelled`], through the same
//! paths as a panic: joins wait for their other half, scopes for their jobs, every captured value
//! is dropped once, every latch is set. A job that has not started is dropped without unwinding
//! (an unwinding costs about a microsecond, a scope may hold a million jobs): its scope notes it and
//! unwinds once at its end, and the worker that dropped it counts it off the scope's latch together
//! with the next ones it drops (`registry/worker/deferred_release.rs`). A join whose a unwinds
//! takes b's result or panic as a value, and a wait inside cancelled work stays awake and steals
//! nothing for a while (`registry/worker/wait.rs`): a chain of stolen b's unwinds link by link.
//! `cancellable` catches that payload and returns `Err(Cancelled)`; a
//! real panic in the same region wins (joins and scopes keep a real panic over a cancellation) and
//! is resumed. A spawned job that stops ends silently (no panic handler).
//!
//! **Cost when nothing is cancelled.** Nothing on the inline join path (its check is in the
//! budget's renewal); a pointer test on the pushing join path after a, a register test per batch, a
//! thread-local read per job start and per scope `spawn`; a region's open copies one more word.
//!
//! **`panic = "abort"`.** Nothing can unwind, so the boundaries that would unwind (joins, batches)
//! let the work run on; jobs not yet started (a scope's, `spawn`'s, `spawn_future`'s) are still
//! dropped unrun. `cancellable` then returns `Err(Cancelled)` if the token was cancelled before
//! the work returned.

#[cfg(not(forkjoin_loom))]
pub(crate) mod deadline;
pub(crate) mod node;
pub(crate) mod token;

use std::fmt;

use crate::platform::unwind::{self, Payload};

/// The error of work that was cancelled before it finished, and the unwind payload that stops it.
///
/// [`cancellable`](crate::cancellable) returns `Err(Cancelled)` when its token was cancelled
/// before the work returned. Inside the work, code that catches panics (`catch_unwind`) may see
/// this payload pass: let it go on (resume it), or the work does not stop there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Cancelled;

impl fmt::Display for Cancelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the work was cancelled")
    }
}

impl std::error::Error for Cancelled {}

/// Whether a cancelled boundary may unwind (not under `panic = "abort"`).
pub(crate) const CAN_UNWIND: bool = cfg!(panic = "unwind");

/// Stops the current work: unwinds with the [`Cancelled`] payload (no panic hook, no message).
#[cold]
#[inline(never)]
pub(crate) fn unwind_cancelled() -> ! {
    unwind::resume_unwinding(payload())
}

/// The payload a cancellation unwinds with (a zero-sized box: no allocation).
#[inline]
pub(crate) fn payload() -> Payload {
    Box::new(Cancelled)
}

/// True if `payload` is a cancellation, not a panic.
#[inline]
pub(crate) fn is_cancellation(payload: &Payload) -> bool {
    payload.is::<Cancelled>()
}
