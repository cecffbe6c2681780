//! The state the owner and its thieves share: the two indices and the current buffer.

use super::buffer::Buffer;
use super::reclaim::Reclaimer;
use crate::platform::sync::{AtomicIsize, AtomicPtr, Ordering};
use crossbeam_utils::CachePadded;

/// Smallest buffer. Under loom it is tiny so a few pushes already grow, shrink and wrap around.
#[cfg(not(forkjoin_loom))]
pub(crate) const MIN_CAP: usize = 64;
#[cfg(forkjoin_loom)]
pub(crate) const MIN_CAP: usize = 2;

/// Shared deque state. Positions `top..bottom` (wrapping `isize`) hold items.
///
/// Invariants: only the owner writes `bottom` and `buffer`; `top` only ever grows (by CAS, from the
/// owner taking the last item or a thief stealing); the owner frees nothing a thief can still reach
/// (old buffers go through `reclaim`).
///
/// Layout: `top` and `bottom` share a cache line (a steal reads both, so one miss fetches both); the
/// read-mostly buffer pointer has its own line, so pushes and steals do not invalidate it. The padded
/// field also aligns all of `Inner` to a cache line, so the `Arc` counts do not share the index line.
pub(crate) struct Inner<T> {
    /// Next position a thief steals. Written by CAS from thieves and from the owner (last item).
    pub(crate) top: AtomicIsize,
    /// One past the owner's newest item. Written only by the owner.
    pub(crate) bottom: AtomicIsize,
    /// The current buffer (a `Box` leaked by the owner); replaced only by the owner's resize.
    pub(crate) buffer: CachePadded<AtomicPtr<Buffer<T>>>,
    pub(crate) reclaim: Reclaimer,
}

// SAFETY: items move between threads through the deque, so `T: Send` is required and sufficient;
// the raw buffer pointer is managed by the protocol documented in `deque/mod.rs`.
unsafe impl<T: Send> Send for Inner<T> {}
// SAFETY: shared access is the protocol itself (atomics plus owner-only writes), and a shared
// `Inner` never hands out `&T`, only moves items out, so `T: Sync` is not needed.
unsafe impl<T: Send> Sync for Inner<T> {}

impl<T> Inner<T> {
    pub(crate) fn new(reclaim: Reclaimer) -> Self {
        let buffer = Box::into_raw(Box::new(Buffer::alloc(MIN_CAP)));
        Inner {
            top: AtomicIsize::new(0),
            bottom: AtomicIsize::new(0),
            buffer: CachePadded::new(AtomicPtr::new(buffer)),
            reclaim,
        }
    }
}

impl<T> Drop for Inner<T> {
    fn drop(&mut self) {
        // `&mut self`: the owner and every thief are gone, so plain loads see the final state.
        let top = self.top.load(Ordering::Relaxed);
        let bottom = self.bottom.load(Ordering::Relaxed);
        let buffer = self.buffer.load(Ordering::Relaxed);
        // Loom slots box their items, so the loop also frees memory there.
        if std::mem::needs_drop::<T>() || cfg!(forkjoin_loom) {
            for i in 0..bottom.wrapping_sub(top).max(0) {
                // SAFETY: positions `top..bottom` hold items nobody took; each is read once here.
                drop(unsafe { (*buffer).read(top.wrapping_add(i)).assume_owned() });
            }
        }
        // SAFETY: the current buffer was never retired and nothing else can reach it now.
        unsafe { Buffer::free_boxed(buffer) };
    }
}
