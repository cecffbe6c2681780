//! [`CancelToken`]: the user's handle to a cancellation [`Node`].

use std::fmt;
use std::time::Duration;

use crate::platform::clock::Instant;
use crate::platform::sync::shared::Arc;

use super::node::Node;

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
        // The models have no clock: loom never reaches a deadline.
        #[cfg(not(forkjoin_loom))]
        super::deadline::cancel_at(deadline, &token.node);
        token
    }

    /// A token cancelled `timeout` from now (see [`with_deadline`](Self::with_deadline)).
    ///
    /// A timeout too long for an [`Instant`] to hold (such as [`Duration::MAX`]) is a deadline that
    /// never comes: the token is then cancelled only by [`cancel`](Self::cancel), and its
    /// [`deadline`](Self::deadline) is `None`.
    ///
    /// ```
    /// use std::time::Duration;
    /// let token = forkjoin::CancelToken::with_timeout(Duration::from_secs(3600));
    /// assert!(!token.is_cancelled());
    /// let never = forkjoin::CancelToken::with_timeout(Duration::MAX);
    /// assert_eq!(never.deadline(), None);
    /// ```
    pub fn with_timeout(timeout: Duration) -> Self {
        match Instant::now().checked_add(timeout) {
            Some(deadline) => Self::with_deadline(deadline),
            None => Self::new(),
        }
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

    /// A token cancelled with this one or `timeout` from now, whichever comes first. A timeout too
    /// long for an [`Instant`] to hold never comes (see [`with_timeout`](Self::with_timeout)).
    pub fn child_with_timeout(&self, timeout: Duration) -> Self {
        match Instant::now().checked_add(timeout) {
            Some(deadline) => self.child_with_deadline(deadline),
            None => self.child(),
        }
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

    /// The deadline this token was made with, if any (`None` for a timeout too long to hold).
    pub fn deadline(&self) -> Option<Instant> {
        self.node.deadline()
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
            .field("deadline", &self.node.deadline())
            .finish()
    }
}
