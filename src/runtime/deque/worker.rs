//! The owner's end: `push` and `pop` at the bottom, and the resize that only the owner performs.

use std::cell::Cell;
use std::fmt;

use super::buffer::Buffer;
use super::inner::{Inner, MIN_CAP};
use super::reclaim::Reclaimer;
use super::stealer::Stealer;
use crate::platform::sync::{fence, Arc, Ordering};

/// The owner's end of a work-stealing deque: pushes and pops at the bottom, LIFO.
///
/// Only the thread holding the `Worker` pushes and pops, which the type enforces: `Worker` is `Send`
/// but neither `Sync` nor `Clone`. Other threads take the oldest items through [`Stealer`]s.
///
/// ```
/// use forkjoin::deque::Worker;
///
/// let w = Worker::new();
/// w.push(1);
/// w.push(2);
/// assert_eq!(w.pop(), Some(2));
/// assert_eq!(w.pop(), Some(1));
/// assert_eq!(w.pop(), None);
/// ```
///
/// Sharing a `Worker` between threads does not compile:
///
/// ```compile_fail
/// fn assert_sync<T: Sync>() {}
/// assert_sync::<forkjoin::deque::Worker<u32>>();
/// ```
///
/// Nor can it be cloned into a second owner:
///
/// ```compile_fail
/// let w = forkjoin::deque::Worker::<u32>::new();
/// let w2 = w.clone();
/// ```
pub struct Worker<T> {
    inner: Arc<Inner<T>>,
    /// The owner's copy of `inner.buffer` (the boxed handle, needed to retire it); only the owner
    /// replaces the buffer.
    buffer: Cell<*mut Buffer<T>>,
    /// The owner's copy of the handle itself, so push and pop reach a slot without going through
    /// the shared box.
    view: Cell<Buffer<T>>,
    /// The owner's copy of `inner.bottom`; only the owner writes `bottom`.
    bottom: Cell<isize>,
    /// A value of `top` loaded with `Acquire` (or written by the owner's own CAS). `top` only grows,
    /// so this is a lower bound: positions below it are free for reuse, and `bottom <= top_cache`
    /// proves the deque empty without touching the shared `top` line.
    top_cache: Cell<isize>,
}

// SAFETY: the raw buffer pointer is the owner's cached copy of `inner.buffer`; moving the owner's
// handle to another thread moves the owner role with it. Items cross threads, hence `T: Send`.
// (`Cell` keeps `Worker` `!Sync`.)
unsafe impl<T: Send> Send for Worker<T> {}

impl<T> Default for Worker<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Worker<T> {
    /// Creates an empty deque.
    ///
    /// ```
    /// let w = forkjoin::deque::Worker::<u32>::new();
    /// assert!(w.is_empty());
    /// ```
    pub fn new() -> Self {
        Self::with_reclaimer(Reclaimer::new())
    }

    /// Creates an empty deque whose retired buffers go to `reclaim` (loom models pick the mode).
    pub(crate) fn with_reclaimer(reclaim: Reclaimer) -> Self {
        Self::from_inner(Inner::new(reclaim))
    }

    fn from_inner(inner: Inner<T>) -> Self {
        let buffer = inner.buffer.load(Ordering::Relaxed);
        // SAFETY: `buffer` was just boxed by `Inner::new` and is alive until `inner` drops.
        let view = unsafe { *buffer };
        Worker {
            inner: Arc::new(inner),
            buffer: Cell::new(buffer),
            view: Cell::new(view),
            bottom: Cell::new(0),
            top_cache: Cell::new(0),
        }
    }

    /// Pushes an item onto the bottom. Grows the buffer when it is full.
    ///
    /// ```
    /// let w = forkjoin::deque::Worker::new();
    /// w.push("job");
    /// assert_eq!(w.len(), 1);
    /// ```
    #[inline]
    pub fn push(&self, value: T) {
        let b = self.bottom.get();
        let mut buffer = self.view.get();
        if b.wrapping_sub(self.top_cache.get()) >= buffer.cap() as isize {
            buffer = self.make_room(b);
        }
        // SAFETY: the owner's buffer is live (only the owner retires buffers, after replacing its
        // copy), and `make_room` (or the cached bound) ensures `b - cap < top_cache`: the slot's
        // previous occupant was taken by a CAS we acquired, so no winning read of it is in flight.
        unsafe { buffer.write(b, value) };
        // Release: pairs with the Acquire load of `bottom` in `steal` (and with the later `bottom`
        // stores of `pop`, which carry it): a thief that sees position `b` also sees its slot and the
        // buffer pointer stored by any earlier resize.
        fence(Ordering::Release);
        let b1 = b.wrapping_add(1);
        self.inner.bottom.store(b1, Ordering::Relaxed);
        self.bottom.set(b1);
    }

    /// Reloads `top`; grows the buffer if it really is full. Returns the buffer to write into.
    #[cold]
    #[inline(never)]
    fn make_room(&self, b: isize) -> Buffer<T> {
        // Acquire: pairs with the successful CAS on `top` in `steal`, so each thief's read of a slot
        // below `t` happens before we overwrite that slot.
        let t = self.inner.top.load(Ordering::Acquire);
        self.top_cache.set(t);
        let buffer = self.view.get();
        let cap = buffer.cap();
        if b.wrapping_sub(t) < cap as isize {
            return buffer;
        }
        let new_cap = cap
            .checked_mul(2)
            .expect("forkjoin::deque: capacity overflow");
        self.resize(new_cap, t, b)
    }

    /// Pops the newest item from the bottom, or `None` if the deque is empty. May shrink the buffer.
    ///
    /// ```
    /// let w = forkjoin::deque::Worker::new();
    /// w.push(1);
    /// w.push(2);
    /// assert_eq!(w.pop(), Some(2));
    /// ```
    #[inline]
    pub fn pop(&self) -> Option<T> {
        let b = self.bottom.get().wrapping_sub(1);
        // `top_cache <= top`, so this proves emptiness without touching shared state.
        if b.wrapping_sub(self.top_cache.get()) < 0 {
            return None;
        }
        let inner = &*self.inner;
        inner.bottom.store(b, Ordering::Relaxed);
        // SeqCst: pairs with the SeqCst fence in `steal`. Either a thief's fence comes first in the
        // total order (and we see its `top` increment below) or ours does (and it sees the lowered
        // `bottom`), so owner and thief never both take position `b` without the CAS deciding.
        fence(Ordering::SeqCst);
        // Acquire: pairs with thieves' successful CAS, like in `make_room`, so `top_cache` stays a
        // value that makes slot reuse safe.
        let t = inner.top.load(Ordering::Acquire);
        self.top_cache.set(t);
        let len = b.wrapping_sub(t);
        if len < 0 {
            // Empty: undo the decrement (nobody can take position `b`, it holds nothing).
            inner.bottom.store(b.wrapping_add(1), Ordering::Relaxed);
            return None;
        }
        let buffer = self.view.get();
        // SAFETY: `t <= b < bottom`, so position `b` was written into the owner's (live) buffer.
        let item = unsafe { buffer.read(b) };
        if len > 0 {
            // Another item lies below `b`: thieves can only win positions below `b` (see the fence above).
            self.bottom.set(b);
            let cap = buffer.cap();
            if cap > MIN_CAP && len as usize <= cap / 4 {
                self.resize(cap / 2, t, b);
            }
            // SAFETY: position `b` is unreachable for thieves and read once, by us.
            return Some(unsafe { item.assume_owned() });
        }
        // The last item: race the thieves for it with the same CAS they use.
        // SeqCst for symmetry with `steal`; the ordering proof leans on the explicit fences.
        let won = inner
            .top
            .compare_exchange(t, t.wrapping_add(1), Ordering::SeqCst, Ordering::Relaxed)
            .is_ok();
        // Either way `top` is now `b + 1`; restore `bottom` to match (empty deque).
        inner.bottom.store(b.wrapping_add(1), Ordering::Relaxed);
        if won {
            self.top_cache.set(t.wrapping_add(1));
            // SAFETY: our CAS moved `top` past `b`, so no thief can win it; we read it before the CAS
            // from the buffer only we replace.
            Some(unsafe { item.assume_owned() })
        } else {
            None
        }
    }

    /// Moves positions `t..b` into a new buffer of `new_cap` slots, publishes it and retires the old.
    #[cold]
    #[inline(never)]
    fn resize(&self, new_cap: usize, t: isize, b: isize) -> Buffer<T> {
        let old = self.buffer.get();
        let view = Buffer::alloc(new_cap);
        // SAFETY: the owner wrote positions `t..b` into its live buffer (some may be taken by thieves
        // meanwhile: copying their bits is harmless, nobody reads them from `new`); `new` is private.
        unsafe { self.view.get().copy_to(&view, t, b) };
        let new = Box::into_raw(Box::new(view));
        // Release: pairs with the Acquire load of `buffer` in `steal`, so a thief that sees `new` also
        // sees the copied slots.
        self.inner.buffer.store(new, Ordering::Release);
        self.buffer.set(new);
        self.view.set(view);
        // SAFETY: `old` came from `Box::into_raw`, is no longer the current buffer, and is retired once.
        unsafe { self.inner.reclaim.retire(old) };
        view
    }

    /// Creates a [`Stealer`] for this deque. Stealers can be cloned and sent to other threads.
    ///
    /// ```
    /// let w = forkjoin::deque::Worker::new();
    /// w.push(7);
    /// let s = w.stealer();
    /// assert_eq!(std::thread::spawn(move || s.steal().success()).join().unwrap(), Some(7));
    /// ```
    pub fn stealer(&self) -> Stealer<T> {
        Stealer::new(Arc::clone(&self.inner))
    }

    /// The number of items in the deque (thieves may change it at any moment).
    ///
    /// ```
    /// let w = forkjoin::deque::Worker::new();
    /// w.push(1);
    /// w.push(2);
    /// assert_eq!(w.len(), 2);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        let t = self.inner.top.load(Ordering::Relaxed);
        self.bottom.get().wrapping_sub(t).max(0) as usize
    }

    /// Whether the deque is empty (thieves may empty it at any moment, but only the owner fills it).
    ///
    /// ```
    /// let w = forkjoin::deque::Worker::<u8>::new();
    /// assert!(w.is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> fmt::Debug for Worker<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Worker { .. }")
    }
}
