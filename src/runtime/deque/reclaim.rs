//! When a buffer replaced by a resize may be freed: the reclamation seam.
//!
//! A thief may hold a pointer to the old buffer for as long as its steal runs, so the owner retires
//! the buffer instead of freeing it. In production retirement goes through crossbeam-epoch's global
//! collector: a thief pins before loading the buffer pointer, and the buffer is freed once every
//! thread pinned at the time of the swap has unpinned.
//!
//! Under loom the seam has two modes. `Leak` keeps retired buffers until the deque itself is dropped
//! (nobody can hold a pointer then), which keeps most models small. `Epoch` runs the real
//! crossbeam-epoch code on a collector private to the model.

use super::buffer::Buffer;

/// Buffers larger than this are pushed to the global garbage queue right away, so big bursts are
/// returned to the allocator promptly instead of waiting in a thread-local bag.
#[cfg(not(forkjoin_loom))]
const FLUSH_THRESHOLD_BYTES: usize = 1 << 10;

/// Decides when retired buffers are freed (production: crossbeam-epoch's global collector).
#[cfg(not(forkjoin_loom))]
pub(crate) struct Reclaimer;

/// Keeps a buffer alive while it is held: the epoch guard of a steal in progress.
#[cfg(not(forkjoin_loom))]
pub(crate) type Guard = crossbeam_epoch::Guard;

#[cfg(not(forkjoin_loom))]
impl Reclaimer {
    /// The global-collector reclaimer.
    pub(crate) fn new() -> Self {
        Reclaimer
    }

    /// Protects every buffer pointer loaded from now on until the guard is dropped.
    #[inline]
    pub(crate) fn pin(&self) -> Guard {
        crossbeam_epoch::pin()
    }

    /// Frees `buffer` once no guard that could have loaded it remains.
    ///
    /// # Safety
    /// `buffer` came from `Box::into_raw`, is no longer reachable through the deque's buffer pointer,
    /// and is retired exactly once.
    pub(crate) unsafe fn retire<T>(&self, buffer: *mut Buffer<T>) {
        let guard = crossbeam_epoch::pin();
        // SAFETY: the owner swapped `buffer` out before this call, so only guards pinned before now can
        // hold it and the epoch scheme runs the closure after they unpin. Dropping a `Buffer` frees
        // memory only (no `T` is dropped), so running it on another thread is fine.
        let bytes = unsafe {
            let bytes = (*buffer).cap() * std::mem::size_of::<T>();
            // `defer_unchecked` asks for no `Send`: the raw pointer moves into the closure as is.
            guard.defer_unchecked(move || Buffer::free_boxed(buffer));
            bytes
        };
        if bytes >= FLUSH_THRESHOLD_BYTES {
            guard.flush();
        }
    }
}

#[cfg(forkjoin_loom)]
pub(crate) use loom_impl::Reclaimer;

#[cfg(forkjoin_loom)]
mod loom_impl {
    use super::Buffer;
    use crate::platform::sync::UnsafeCell;

    /// A retired buffer, type-erased so one list serves every `T`.
    struct Retired {
        ptr: *mut u8,
        free: unsafe fn(*mut u8),
    }

    /// # Safety
    /// `ptr` must come from `Box::<Buffer<T>>::into_raw` and be freed once.
    unsafe fn free_buffer<T>(ptr: *mut u8) {
        // SAFETY: per the contract, `ptr` is an unfreed boxed buffer handle.
        unsafe { Buffer::free_boxed(ptr.cast::<Buffer<T>>()) };
    }

    enum Mode {
        /// Retired buffers are freed when the deque is dropped. Only the owner touches the list.
        Leak(UnsafeCell<Vec<Retired>>),
        /// The real epoch scheme on a collector owned by one model.
        Epoch(crossbeam_epoch::Collector),
    }

    /// The loom-build reclaimer: leak-until-drop (the default), or a model-private epoch collector.
    pub(crate) struct Reclaimer(Mode);

    /// What a steal holds while it reads a buffer (an epoch guard in epoch mode).
    pub(crate) struct Guard {
        /// Never read: held so that dropping it unpins.
        _pin: Option<crossbeam_epoch::Guard>,
    }

    impl Default for Reclaimer {
        fn default() -> Self {
            Self::new()
        }
    }

    impl Reclaimer {
        /// The default under loom: retired buffers are freed when the deque is dropped.
        pub(crate) fn new() -> Self {
            Reclaimer(Mode::Leak(UnsafeCell::new(Vec::new())))
        }

        /// A reclaimer that runs crossbeam-epoch on `collector` (give each model its own).
        #[cfg_attr(not(test), allow(dead_code))] // only the models (unit tests) pick this mode
        pub(crate) fn epoch(collector: crossbeam_epoch::Collector) -> Self {
            Reclaimer(Mode::Epoch(collector))
        }

        pub(crate) fn pin(&self) -> Guard {
            match &self.0 {
                Mode::Leak(_) => Guard { _pin: None },
                // A fresh handle per pin: the guard keeps its local alive after the handle drops.
                Mode::Epoch(c) => Guard {
                    _pin: Some(c.register().pin()),
                },
            }
        }

        /// # Safety
        /// Same contract as the production `retire`; only the owner calls it.
        pub(crate) unsafe fn retire<T>(&self, buffer: *mut Buffer<T>) {
            match &self.0 {
                Mode::Leak(list) => list.with_mut(|list| {
                    // SAFETY: only the owner retires, so this is the only access to the list.
                    unsafe { &mut *list }.push(Retired {
                        ptr: buffer.cast(),
                        free: free_buffer::<T>,
                    })
                }),
                Mode::Epoch(c) => {
                    let guard = c.register().pin();
                    let buffer = buffer as usize;
                    // SAFETY: `buffer` is unlinked, so the collector frees it after every guard that
                    // could have loaded it is gone; dropping a `Buffer` drops no item.
                    unsafe {
                        guard.defer_unchecked(move || Buffer::free_boxed(buffer as *mut Buffer<T>));
                    }
                    guard.flush();
                }
            }
        }
    }

    impl Drop for Reclaimer {
        fn drop(&mut self) {
            if let Mode::Leak(list) = &self.0 {
                list.with_mut(|list| {
                    // SAFETY: `&mut self`: no other access to the list exists.
                    for retired in unsafe { &mut *list }.drain(..) {
                        // SAFETY: each entry was pushed once by `retire` and the deque is gone, so no
                        // thief can hold the buffer.
                        unsafe { (retired.free)(retired.ptr) };
                    }
                });
            }
        }
    }
}
