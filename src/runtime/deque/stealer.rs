//! The thieves' end: `steal` from the top, and the `Steal` result.

use std::fmt;

use super::inner::Inner;
use crate::platform::sync::{fence, sim_bug, Arc, Ordering};

/// A thief's handle on a [`Worker`](super::Worker)'s deque: takes the oldest item, FIFO.
///
/// `Stealer` is `Clone + Send + Sync`; any number of threads may steal concurrently.
///
/// ```
/// use forkjoin::deque::{Steal, Worker};
///
/// let w = Worker::new();
/// w.push(1);
/// w.push(2);
/// let s = w.stealer();
/// assert_eq!(s.steal(), Steal::Success(1));
/// assert_eq!(s.steal(), Steal::Success(2));
/// assert_eq!(s.steal(), Steal::Empty);
/// ```
pub struct Stealer<T> {
    inner: Arc<Inner<T>>,
}

impl<T> Stealer<T> {
    /// Names the deque's shared lines for the simulation's line profile (`sync::sim_label`): the
    /// ends and the buffer pointer (the buffer's items count with the jobs they hold).
    pub(crate) fn label_lines(&self) {
        crate::platform::sync::sim_label(&self.inner.top, "public deques: top");
        crate::platform::sync::sim_label(&self.inner.bottom, "public deques: bottom");
        crate::platform::sync::sim_label(&*self.inner.buffer, "public deques: buffer pointer");
    }

    pub(super) fn new(inner: Arc<Inner<T>>) -> Self {
        Stealer { inner }
    }

    /// Tries to take the oldest item.
    ///
    /// Returns [`Steal::Retry`] when it lost a race (to another thief, to the owner taking the last
    /// item, or to a buffer swap); the deque may still hold items, so callers usually try again.
    ///
    /// ```
    /// use forkjoin::deque::Worker;
    ///
    /// let w = Worker::new();
    /// let s = w.stealer();
    /// assert!(s.steal().is_empty());
    /// w.push('a');
    /// assert_eq!(s.steal().success(), Some('a'));
    /// ```
    #[inline]
    pub fn steal(&self) -> Steal<T> {
        match self.steal_if(|_| true) {
            Some(steal) => steal,
            None => Steal::Retry,
        }
    }

    /// Like [`steal`](Self::steal), but takes the oldest item only if `accept` says yes to it;
    /// `None` if it said no (the item stays). `accept` gets a pointer to the item's bits as read
    /// before the CAS, which may be torn or stale: it must read only plain data from it, and its
    /// answer counts only if the CAS then succeeds (which proves the bits were the item's).
    #[inline]
    pub(crate) fn steal_if(&self, accept: impl FnOnce(*const T) -> bool) -> Option<Steal<T>> {
        let inner = &*self.inner;
        // Cheap pre-check, no fence and no pin: an idle thief scanning empty deques stops here.
        // Returning `Empty` takes nothing, so a stale view only costs a missed chance, exactly like a
        // steal that ran a moment earlier. Acquire on both, for the same pairings as below.
        let t = inner.top.load(Ordering::Acquire);
        if inner.bottom.load(Ordering::Acquire).wrapping_sub(t) <= 0 {
            return Some(Steal::Empty);
        }
        // Pin before the protocol below, so the pin's own cost is outside the window between our
        // `top` load and our CAS (a wider window means more lost races), and before loading the buffer
        // pointer: the owner cannot free any buffer we load from now on.
        let guard = inner.reclaim.pin();
        // Acquire: pairs with the CAS on `top` of the thief (or owner) that took the previous item.
        let t = inner.top.load(Ordering::Acquire);
        // SeqCst: pairs with the SeqCst fence in `pop` (between its `bottom` store and `top` load):
        // if `pop` saw our old `top`, we see its lowered `bottom`, so we never both take the last item
        // without the CAS deciding. Explicit, not left to epoch pinning or the CAS.
        fence(Ordering::SeqCst);
        // Acquire: pairs with the Release fence in `push`: the slot of every position below `b`, and
        // the buffer pointer of any resize before it, are visible.
        let b = inner.bottom.load(Ordering::Acquire);
        if b.wrapping_sub(t) <= 0 {
            return Some(Steal::Empty);
        }
        // Acquire: pairs with the Release store in `resize`: the copied slots are visible.
        let buffer = inner.buffer.load(Ordering::Acquire);
        // SAFETY: `buffer` is protected by `guard`; `t < b`, so position `t` was written into every
        // buffer current since. The bits may be stale or torn if we lose the race below; they stay
        // `MaybeUninit` until we have won.
        let item = unsafe { (*buffer).read(t) };
        // The buffer we read must still be current (the CVE-2021-32810 class of bug: a copy read from
        // a replaced buffer must never be handed out). Relaxed suffices: only equality matters, and
        // a stale value only makes us retry.
        if inner.buffer.load(Ordering::Relaxed) != buffer {
            return Some(Steal::Retry);
        }
        if let Some(bits) = item.as_ptr() {
            if !accept(bits) {
                return None;
            }
        }
        // A deliberately broken variant for the simulation's self-check (docs/testing.md): the CAS
        // compares against a fresh `top`, so it no longer decides who took the item read above.
        let t = if sim_bug("steal_without_cas") {
            inner.top.load(Ordering::SeqCst)
        } else {
            t
        };
        // SeqCst CAS (loom models it as AcqRel; the fence above carries the SeqCst argument). Its
        // Release half pairs with the owner's Acquire loads of `top`: our read of the slot happens
        // before the owner reuses it.
        if inner
            .top
            .compare_exchange(t, t.wrapping_add(1), Ordering::SeqCst, Ordering::Relaxed)
            .is_err()
        {
            return Some(Steal::Retry);
        }
        drop(guard);
        // SAFETY: our CAS won position `t` and the buffer we read it from was current; no one else can
        // take this item.
        Some(Steal::Success(unsafe { item.assume_owned() }))
    }

    /// Whether the deque looked empty (a snapshot: it may change right after).
    ///
    /// ```
    /// let w = forkjoin::deque::Worker::new();
    /// let s = w.stealer();
    /// assert!(s.is_empty());
    /// w.push(1);
    /// assert!(!s.is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of items the deque held (a snapshot: it may change right after).
    ///
    /// ```
    /// let w = forkjoin::deque::Worker::new();
    /// w.push(1);
    /// w.push(2);
    /// assert_eq!(w.stealer().len(), 2);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        // Acquire on both: pairs with the thieves' CAS and the owner's push fence, so the snapshot
        // is no older than what this thread already observed.
        let t = self.inner.top.load(Ordering::Acquire);
        let b = self.inner.bottom.load(Ordering::Acquire);
        b.wrapping_sub(t).max(0) as usize
    }
}

impl<T> Clone for Stealer<T> {
    /// Another handle on the same deque.
    ///
    /// ```
    /// let w = forkjoin::deque::Worker::new();
    /// w.push(1);
    /// let s2 = w.stealer().clone();
    /// assert_eq!(s2.steal().success(), Some(1));
    /// ```
    fn clone(&self) -> Self {
        Stealer {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T> fmt::Debug for Stealer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Stealer { .. }")
    }
}

/// The outcome of [`Stealer::steal`].
///
/// ```
/// use forkjoin::deque::Steal;
///
/// let s: Steal<u32> = Steal::Success(3);
/// assert_eq!(s.success(), Some(3));
/// assert!(Steal::<u32>::Empty.is_empty());
/// assert!(Steal::<u32>::Retry.is_retry());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[must_use]
pub enum Steal<T> {
    /// The deque was empty.
    Empty,
    /// An item was stolen.
    Success(T),
    /// The steal lost a race; the deque may still hold items.
    Retry,
}

impl<T> Steal<T> {
    /// The stolen item, if any.
    ///
    /// ```
    /// assert_eq!(forkjoin::deque::Steal::Success(1).success(), Some(1));
    /// ```
    #[inline]
    pub fn success(self) -> Option<T> {
        match self {
            Steal::Success(v) => Some(v),
            _ => None,
        }
    }

    /// Whether the deque was empty.
    ///
    /// ```
    /// assert!(forkjoin::deque::Steal::<()>::Empty.is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        matches!(self, Steal::Empty)
    }

    /// Whether the steal should be retried.
    ///
    /// ```
    /// assert!(forkjoin::deque::Steal::<()>::Retry.is_retry());
    /// ```
    #[inline]
    pub fn is_retry(&self) -> bool {
        matches!(self, Steal::Retry)
    }
}
