//! The node behind a [`CancelToken`](super::token::CancelToken): a flag that is set once, and the
//! nodes cancelled with it.
//!
//! Cancelling a node sets its flag and then cancels every node registered as its child, so that
//! checking any node is one load, however the nodes nest. A child registers under its parent's
//! lock and reads the parent's flag under the same lock: either the parent's `cancel` finds the
//! child in its list, or the child sees the flag and is born cancelled. Parents hold their children
//! weakly, so a child that nobody holds any more frees itself; the dead entries are pruned when the
//! list doubles.

use crate::platform::clock::Instant;
use crate::platform::sync::shared::{Arc, Weak};
use crate::platform::sync::{AtomicBool, Mutex, Ordering};
use crate::platform::unwind::Payload;

/// One cancellation flag and the nodes cancelled with it.
pub(crate) struct Node {
    cancelled: AtomicBool,
    /// Nodes cancelled when this one is: child tokens, and the nodes of the `cancellable` regions,
    /// futures and spawns made under this one.
    children: Mutex<Children>,
    /// When a deadline timer cancels this node (the token's, for [`CancelToken::deadline`](super::token::CancelToken::deadline)).
    deadline: Option<Instant>,
    /// A panic that a `join` had to drop while its other half unwound with the cancellation: the
    /// node's `cancellable` resumes it instead of returning `Err(Cancelled)` (a panic wins).
    panic: Mutex<Option<Payload>>,
}

struct Children {
    nodes: Vec<Weak<Node>>,
    /// The length at which dead entries are pruned next.
    prune_at: usize,
}

impl Node {
    /// A node that is not cancelled and has no parent.
    pub(crate) fn new() -> Arc<Node> {
        Self::with_deadline(None)
    }

    /// A node without parent that a deadline timer will cancel at `deadline`, if any.
    pub(crate) fn with_deadline(deadline: Option<Instant>) -> Arc<Node> {
        Arc::new(Node {
            cancelled: AtomicBool::new(false),
            children: Mutex::new(Children {
                nodes: Vec::new(),
                prune_at: 8,
            }),
            deadline,
            panic: Mutex::new(None),
        })
    }

    /// A node cancelled when any of `parents` is (and born cancelled if one already is).
    pub(crate) fn child_of(parents: &[&Node]) -> Arc<Node> {
        let child = Node::new();
        for parent in parents {
            parent.adopt(&child);
        }
        child
    }

    /// Registers `child` to be cancelled with `self`; cancels it now if `self` already is.
    pub(crate) fn adopt(&self, child: &Arc<Node>) {
        let mut children = self.children.lock().unwrap_or_else(|e| e.into_inner());
        // Read under the lock that `cancel` takes after setting the flag: either it sees the child
        // in the list, or we see the flag.
        if self.cancelled.load(Ordering::Acquire) {
            drop(children);
            child.cancel();
            return;
        }
        if children.nodes.len() >= children.prune_at {
            children.nodes.retain(|n| n.strong_count() > 0);
            children.prune_at = (children.nodes.len() * 2).max(8);
        }
        children.nodes.push(Arc::downgrade(child));
    }

    /// The deadline the node was made with.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// True once the node is cancelled: one load.
    #[inline(always)]
    pub(crate) fn is_cancelled(&self) -> bool {
        // Acquire: what the canceller wrote before `cancel` is visible to whoever stops because of
        // it (a flag read in a loop needs no more; on x86 it is a plain load).
        self.cancelled.load(Ordering::Acquire)
    }

    /// Sets the flag of this node and of every node registered under it, transitively. Idempotent.
    pub(crate) fn cancel(&self) {
        if self.cancelled.swap(true, Ordering::AcqRel) {
            return;
        }
        let mut pending = self.take_children();
        while let Some(weak) = pending.pop() {
            if let Some(node) = weak.upgrade() {
                if !node.cancelled.swap(true, Ordering::AcqRel) {
                    pending.extend(node.take_children());
                }
            }
        }
    }

    /// Keeps `payload`, a panic dropped while work under this node unwound (the first one kept).
    pub(crate) fn keep_panic(&self, payload: Payload) {
        let mut slot = self.panic.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(payload);
        }
    }

    /// The panic kept by [`keep_panic`](Self::keep_panic), if any.
    pub(crate) fn take_panic(&self) -> Option<Payload> {
        self.panic.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn take_children(&self) -> Vec<Weak<Node>> {
        let mut children = self.children.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut children.nodes)
    }
}
