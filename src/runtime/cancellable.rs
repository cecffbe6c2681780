//! [`cancellable`]: run work under a [`CancelToken`], and stop all of it when the token is
//! cancelled (`crate::runtime::cancel` has the protocol).

use crate::platform::unwind;
use crate::runtime::cancel::node::Node;
use crate::runtime::cancel::token::CancelToken;
use crate::runtime::cancel::{self, Cancelled};
use crate::runtime::registry::worker::WorkerThread;
use crate::runtime::registry::{entry, Registry};

/// Runs `work` under `token`: once the token is cancelled, everything `work` started stops at its
/// next boundary, on every worker, and this returns `Err(Cancelled)`; if `work` returns first,
/// `Ok` of its result.
///
/// The boundaries: a `join` before it runs its second closure (and, in a recursion of joins, at
/// least every 64 joins), a parallel iterator's leaf before each batch (every few microseconds),
/// a scope's `spawn`, and a scope's job, a `spawn` or a `spawn_future` before it starts. A job
/// that has not started is dropped unrun; code between two boundaries runs to the next one. The stopped work is unwound
/// like a panic (with the payload [`Cancelled`], which prints nothing): every value it captured is
/// dropped once, locks are released, and no partial result escapes (a cancelled `collect` returns
/// nothing). Work outside `work` is untouched, and so are a thread's own loops: long sequential
/// code may poll [`CancelToken::is_cancelled`] itself.
///
/// A panic wins: if `work` panics while it is being cancelled, the panic is resumed here. Nested
/// `cancellable` calls stop when either token is cancelled; the inner call returns
/// `Err(Cancelled)` and the outer work goes on to its own next boundary. `spawn`s and
/// `spawn_future`s made inside keep the token and stop too, even after this returned.
///
/// Called from outside any pool, `work` runs in the global pool (like [`join`](crate::join())),
/// and the calling thread waits. A token already cancelled returns `Err(Cancelled)` without
/// running `work`. Under `panic = "abort"` nothing can unwind: joins and batches let the work run
/// on, jobs not yet started (a scope's, a `spawn`'s, a `spawn_future`'s) are still dropped unrun,
/// and this returns `Err(Cancelled)` if the token was cancelled before `work` returned (the
/// [README](https://github.com/forkjoin-rs/forkjoin#cancellation), "Cancellation").
///
/// ```
/// use forkjoin::prelude::*;
/// use forkjoin::{cancellable, CancelToken, Cancelled};
/// use std::sync::atomic::{AtomicBool, Ordering};
///
/// // A search that stops everything once one worker found the answer.
/// let token = CancelToken::new();
/// let found = AtomicBool::new(false);
/// let result = cancellable(&token, || {
///     (0..u64::MAX).into_par_iter().for_each(|i| {
///         if i == 1_000 {
///             found.store(true, Ordering::Relaxed);
///             token.cancel();
///         }
///     })
/// });
/// assert_eq!(result, Err(Cancelled));
/// assert!(found.load(Ordering::Relaxed));
/// ```
pub fn cancellable<OP, R>(token: &CancelToken, work: OP) -> Result<R, Cancelled>
where
    OP: FnOnce() -> R + Send,
    R: Send,
{
    entry::with_current_registry(|registry| cancellable_in(registry, token, work))
}

/// [`cancellable`] in `registry`'s pool ([`ThreadPool::cancellable`](crate::ThreadPool::cancellable)).
pub(crate) fn cancellable_in<OP, R>(
    registry: &Registry,
    token: &CancelToken,
    work: OP,
) -> Result<R, Cancelled>
where
    OP: FnOnce() -> R + Send,
    R: Send,
{
    if token.is_cancelled() {
        return Err(Cancelled);
    }
    entry::in_worker(registry, |wt, _| run_cancellable(wt, token, work))
}

/// `cancellable` on worker `wt`: `work` in a region of its own, under a node of its own, cancelled
/// with the token or with the node `wt` already runs under (an enclosing `cancellable`'s). Its own,
/// so that a panic kept for this call (see `Node::keep_panic`) stays with it.
fn run_cancellable<OP, R>(wt: &WorkerThread, token: &CancelToken, work: OP) -> Result<R, Cancelled>
where
    OP: FnOnce() -> R,
{
    let outer = wt.cancel_node();
    let node = if outer.is_null() {
        Node::child_of(&[token.node()])
    } else {
        // SAFETY: the node this worker runs under outlives the region it runs in, which encloses
        // this call (`WorkerThread`'s `cancel` invariant).
        Node::child_of(&[token.node(), unsafe { &*outer }])
    };
    if node.is_cancelled() {
        return Err(Cancelled);
    }
    match wt.run_under(&node, work) {
        // Under `panic = "abort"` the boundaries could not stop the work: its result may lack
        // what was dropped unrun.
        Ok(_) if !cancel::CAN_UNWIND && node.is_cancelled() => Err(Cancelled),
        Ok(result) => Ok(result),
        Err(payload) if cancel::is_cancellation(&payload) && node.is_cancelled() => {
            match node.take_panic() {
                Some(panic) => unwind::resume_unwinding(panic),
                None => Err(Cancelled),
            }
        }
        Err(payload) => unwind::resume_unwinding(payload),
    }
}
