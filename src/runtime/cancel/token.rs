//! [`CancelToken`] and the node behind it: a flag that is set once, and the nodes cancelled with it.
//!
//! A token is a handle to a [`Node`]. Cancelling a node sets its flag and then cancels every node
//! registered as its child, so that checking any node is one load, however the nodes nest. A
//! child registers under its parent's lock and reads the parent's flag under the same lock: either
//! the parent's `cancel` finds the child in its list, or the child sees the flag and is born
//! cancelled. Parents hold their children weakly, so a child that nobody holds any more frees
//! itself; the dead entries are pruned when the list doubles.

use std::fmt;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use crate::platform::sync::{AtomicBool, Mutex, Ordering};
use crate::platform::unwind::Payload;

/// One cancellation flag and the nodes cancelled with it.
pub struct Node {
    cancelled: AtomicBool,
    /// Nodes cancelled when this one is: child tokens, and the nodes of the `cancellable` regions,
    /// futures and spawns made under this one.
    children: Mutex<Children>,
    /// When a deadline timer cancels this node (the token's, for [`CancelToken::deadline`]).
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
    pub fn new() -> Arc<Node> {
        Self::with_deadline(None)
    }

    fn with_deadline(deadline: Option<Instant>) -> Arc<Node> {
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
    pub fn child_of(parents: &[&Node]) -> Arc<Node> {
        let child = Node::new();
        for parent in parents {
            parent.adopt(&child);
        }
        child
    }

    /// Registers `child` to be cancelled with `self`; cancels it now if `self` already is.
    fn adopt(&self, child: &Arc<Node>) {
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

    /// True once the node is cancelled: one load.
    #[inline(always)]
    pub fn is_cancelled(&self) -> bool {
        // Acquire: what the canceller wrote before `cancel` is visible to whoever stops because of
        // it (a flag read in a loop needs no more; on x86 it is a plain load).
        self.cancelled.load(Ordering::Acquire)
    }

    /// Sets the flag of this node and of every node registered under it, transitively. Idempotent.
    pub fn cancel(&self) {
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

/// A request to stop parallel work that nobody wants any more.
///
/// Work runs under a token with [`cancellable`](crate::cancellable) (or
/// [`ThreadPool::cancellable`](crate::ThreadPool::cancellable)); once the token is cancelled, that
/// work stops at its next boundary on every worker, and `cancellable` returns
/// [`Err(Cancelled)`](crate::Cancelled). A token is cancelled by [`cancel`](Self::cancel), by its
/// deadline ([`with_deadline`](Self::with_deadline), [`with_timeout`](Self::with_timeout)), or
/// with its parent ([`child`](Self::child)). Cancelling is permanent.
///
/// Cheap to clone (a reference count), `Send + Sync`: hand clones to the threads that may cancel.
/// Checking it ([`is_cancelled`](Self::is_cancelled)) is one load, so long sequential code may poll
/// it too.
///
/// ```
/// use forkjoin::prelude::*;
/// use forkjoin::{cancellable, CancelToken, Cancelled};
///
/// let token = CancelToken::new();
/// let sum = cancellable(&token, || (0..1_000u64).into_par_iter().sum::<u64>());
/// assert_eq!(sum, Ok(499_500));
///
/// token.cancel();
/// let stopped = cancellable(&token, || (0..1_000u64).into_par_iter().sum::<u64>());
/// assert_eq!(stopped, Err(Cancelled));
/// ```
#[derive(Clone)]
pub struct CancelToken {
    node: Arc<Node>,
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        CancelToken { node: Node::new() }
    }

    /// A token cancelled at `deadline` (at once if it has passed). A timer thread, started the
    /// first time a deadline is set, cancels it within the operating system's wake-up latency.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// let token = forkjoin::CancelToken::with_deadline(Instant::now() - Duration::from_secs(1));
    /// assert!(token.is_cancelled());
    /// ```
    pub fn with_deadline(deadline: Instant) -> Self {
        let token = CancelToken {
            node: Node::with_deadline(Some(deadline)),
        };
        super::deadline::cancel_at(deadline, &token.node);
        token
    }

    /// A token cancelled `timeout` from now (see [`with_deadline`](Self::with_deadline)).
    ///
    /// ```
    /// let token = forkjoin::CancelToken::with_timeout(std::time::Duration::from_secs(3600));
    /// assert!(!token.is_cancelled());
    /// ```
    pub fn with_timeout(timeout: Duration) -> Self {
        Self::with_deadline(Instant::now() + timeout)
    }

    /// A token cancelled with this one (and cancellable on its own without touching this one).
    ///
    /// ```
    /// let parent = forkjoin::CancelToken::new();
    /// let child = parent.child();
    /// child.cancel();
    /// assert!(!parent.is_cancelled());
    /// let other = parent.child();
    /// parent.cancel();
    /// assert!(other.is_cancelled());
    /// ```
    pub fn child(&self) -> Self {
        CancelToken {
            node: Node::child_of(&[&self.node]),
        }
    }

    /// A token cancelled with this one or at `deadline`, whichever comes first.
    pub fn child_with_deadline(&self, deadline: Instant) -> Self {
        let child = Self::with_deadline(deadline);
        self.node.adopt(&child.node);
        child
    }

    /// A token cancelled with this one or `timeout` from now, whichever comes first.
    pub fn child_with_timeout(&self, timeout: Duration) -> Self {
        self.child_with_deadline(Instant::now() + timeout)
    }

    /// Cancels this token and every token and region made under it. Idempotent; callable from any
    /// thread, including from inside the work it cancels.
    pub fn cancel(&self) {
        self.node.cancel();
    }

    /// True once the token is cancelled (by [`cancel`](Self::cancel), its deadline or a parent).
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.node.is_cancelled()
    }

    /// The deadline this token was made with, if any.
    pub fn deadline(&self) -> Option<Instant> {
        self.node.deadline
    }

    pub(crate) fn node(&self) -> &Arc<Node> {
        &self.node
    }
}

impl Default for CancelToken {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .field("deadline", &self.node.deadline)
            .finish()
    }
}
