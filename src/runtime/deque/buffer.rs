//! The deque's circular array: a power-of-two number of slots indexed by wrapping `isize` positions.
//!
//! A buffer never owns the items in it: whoever moves an item out (owner or thief) owns it, and the
//! deque's `Drop` reads out whatever is left. Dropping a `Buffer` frees memory only.
//!
//! Production slots are plain `MaybeUninit<T>` memory. Under loom every slot is an `AtomicPtr` to a
//! boxed item accessed with `Relaxed`, the formulation Lê et al. prove correct: loom then explores stale
//! slot values itself, so a missing fence shows up as a duplicated or lost item in the models.

#[cfg(not(forkjoin_loom))]
use std::mem::MaybeUninit;

#[cfg(forkjoin_loom)]
use crate::platform::sync::{AtomicPtr, Ordering};

/// One item's slot: plain memory in production, a `Relaxed` atomic pointer to a boxed item under loom.
#[cfg(not(forkjoin_loom))]
type ItemSlot<T> = MaybeUninit<T>;
#[cfg(forkjoin_loom)]
type ItemSlot<T> = AtomicPtr<T>;

/// A power-of-two ring of item slots.
///
/// A `Buffer` is a two-word handle (`Copy`), so the owner keeps its own copy next to its other
/// private state and reaches a slot with one load less than through the shared pointer. The slots
/// are freed explicitly, once, by [`Buffer::free`].
pub(crate) struct Buffer<T> {
    /// `cap - 1`: position `i` lives in slot `i & mask`.
    mask: usize,
    /// `cap` slots, from `Box::into_raw` in `alloc`.
    slots: *mut ItemSlot<T>,
}

impl<T> Clone for Buffer<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Buffer<T> {}

/// A copy of a slot read by a thief before it has won the item. Dropping it drops nothing: the bits
/// become an item only through [`Speculative::assume_owned`].
#[cfg(not(forkjoin_loom))]
pub(crate) struct Speculative<T>(MaybeUninit<T>);

/// Under loom a speculative read is the slot's pointer; the box is taken only once the item is won.
#[cfg(forkjoin_loom)]
pub(crate) struct Speculative<T>(*mut T);

impl<T> Speculative<T> {
    /// The bits read, for a look before the item is won (they may be torn or stale); `None` under
    /// loom for a slot never written.
    #[inline]
    pub(crate) fn as_ptr(&self) -> Option<*const T> {
        #[cfg(not(forkjoin_loom))]
        {
            Some(self.0.as_ptr())
        }
        #[cfg(forkjoin_loom)]
        {
            (!self.0.is_null()).then_some(self.0.cast_const())
        }
    }

    /// Takes ownership of the item that was read.
    ///
    /// # Safety
    /// The caller must have won the item (its CAS on `top` succeeded, or it is the owner and no thief
    /// can reach the position), the read must have come from a slot that held this item, and no other
    /// `Speculative` for the same item may be turned into an item.
    #[inline]
    pub(crate) unsafe fn assume_owned(self) -> T {
        #[cfg(not(forkjoin_loom))]
        {
            // SAFETY: per this function's contract the bits are an initialised item that only we own.
            unsafe { self.0.assume_init() }
        }
        #[cfg(forkjoin_loom)]
        {
            // The box is leaked on purpose: if a model ever took an item twice, the duplicate shows up
            // as a failed exactly-once assertion instead of a double free that aborts the run.
            assert!(
                !self.0.is_null(),
                "forkjoin::deque: took a slot that was never published"
            );
            // SAFETY: the pointer came from `Box::into_raw` in `write` and is never freed.
            unsafe { self.0.read() }
        }
    }
}

impl<T> Buffer<T> {
    /// Allocates an empty buffer of `cap` slots (`cap` a power of two, at least 1).
    pub(crate) fn alloc(cap: usize) -> Buffer<T> {
        debug_assert!(cap.is_power_of_two());
        #[cfg(not(forkjoin_loom))]
        let boxed: Box<[ItemSlot<T>]> = (0..cap).map(|_| MaybeUninit::uninit()).collect();
        #[cfg(forkjoin_loom)]
        let boxed: Box<[ItemSlot<T>]> = (0..cap)
            .map(|_| AtomicPtr::new(std::ptr::null_mut()))
            .collect();
        Buffer {
            mask: cap - 1,
            slots: Box::into_raw(boxed).cast::<ItemSlot<T>>(),
        }
    }

    /// Frees the slots (not the items in them: those belong to whoever takes them).
    ///
    /// # Safety
    /// Called once per `alloc`, when no copy of this handle will be used again.
    pub(crate) unsafe fn free(self) {
        let slice = std::ptr::slice_from_raw_parts_mut(self.slots, self.cap());
        // SAFETY: `slots` came from `Box::into_raw` of exactly `cap` slots in `alloc`, and per the
        // contract this is its only release. Dropping a slot drops no item.
        drop(unsafe { Box::from_raw(slice) });
    }

    /// Frees a boxed handle (as published through the deque's buffer pointer) and its slots.
    ///
    /// # Safety
    /// `boxed` came from `Box::into_raw(Box::new(buffer))`; neither it nor any copy of the handle is
    /// used again.
    pub(crate) unsafe fn free_boxed(boxed: *mut Buffer<T>) {
        // SAFETY: per the contract, this is the only release of the box and of its slots.
        unsafe { Box::from_raw(boxed).free() }
    }

    /// The number of slots.
    #[inline]
    pub(crate) fn cap(&self) -> usize {
        self.mask + 1
    }

    /// The slot of `pos`.
    ///
    /// # Safety
    /// The buffer must not have been freed.
    #[inline]
    unsafe fn at(&self, pos: isize) -> *mut ItemSlot<T> {
        // SAFETY: `pos & mask < cap`, so the offset stays inside the live allocation.
        unsafe { self.slots.add(pos as usize & self.mask) }
    }

    /// Writes `value` into the slot of `pos`.
    ///
    /// # Safety
    /// Only the owner writes, and only into a slot no thief can still win: `pos - cap` must be below a
    /// `top` the owner loaded with `Acquire` (so every read of the old occupant happened before).
    /// The buffer must not have been freed.
    #[inline]
    pub(crate) unsafe fn write(&self, pos: isize, value: T) {
        #[cfg(not(forkjoin_loom))]
        // SAFETY: the slot is live and, per the contract, nobody may take its previous bits.
        unsafe {
            self.at(pos).write(MaybeUninit::new(value));
        }
        #[cfg(forkjoin_loom)]
        // SAFETY: the slot is live.
        unsafe {
            (*self.at(pos)).store(Box::into_raw(Box::new(value)), Ordering::Relaxed);
        }
    }

    /// Reads the slot of `pos` without taking ownership: the copy may be torn or stale if the owner
    /// is reusing the slot, which is why a thief only keeps it after winning its CAS.
    ///
    /// # Safety
    /// `pos` must have been written into this buffer (the deque's `top <= pos < bottom` when it was
    /// loaded), and the buffer must still be allocated (epoch guard held, or caller is the owner).
    #[inline]
    pub(crate) unsafe fn read(&self, pos: isize) -> Speculative<T> {
        #[cfg(not(forkjoin_loom))]
        {
            // SAFETY: the slot is live; a volatile read of `MaybeUninit` asserts nothing about the
            // bits, and the caller discards them unless it wins the item (the read then raced with
            // no write).
            Speculative(unsafe { self.at(pos).read_volatile() })
        }
        #[cfg(forkjoin_loom)]
        {
            // SAFETY: the slot is live.
            Speculative(unsafe { (*self.at(pos)).load(Ordering::Relaxed) })
        }
    }

    /// Copies positions `from..to` into `dst`, which must be large enough to hold `to - from` items.
    ///
    /// # Safety
    /// Only the owner calls this, on positions it wrote into `self`; `dst` is not yet shared; neither
    /// buffer has been freed.
    pub(crate) unsafe fn copy_to(&self, dst: &Buffer<T>, from: isize, to: isize) {
        let mut pos = from;
        while pos != to {
            #[cfg(not(forkjoin_loom))]
            // SAFETY: both slots are live; `dst` is private, and a thief only reads `self` (a
            // read-read overlap), so this copy races with no write.
            unsafe {
                std::ptr::copy_nonoverlapping(self.at(pos), dst.at(pos), 1);
            }
            #[cfg(forkjoin_loom)]
            // SAFETY: both slots are live.
            unsafe {
                let item = (*self.at(pos)).load(Ordering::Relaxed);
                (*dst.at(pos)).store(item, Ordering::Relaxed);
            }
            pos = pos.wrapping_add(1);
        }
    }
}
