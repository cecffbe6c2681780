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
use crate::sync::{AtomicPtr, Ordering};

/// A power-of-two ring of item slots.
pub(crate) struct Buffer<T> {
    /// `cap - 1`: position `i` lives in slot `i & mask`.
    mask: usize,
    #[cfg(not(forkjoin_loom))]
    slots: *mut MaybeUninit<T>,
    #[cfg(forkjoin_loom)]
    slots: Box<[AtomicPtr<T>]>,
}

/// A copy of a slot read by a thief before it has won the item. Dropping it drops nothing: the bits
/// become an item only through [`Speculative::assume_owned`].
#[cfg(not(forkjoin_loom))]
pub(crate) struct Speculative<T>(MaybeUninit<T>);

/// Under loom a speculative read is the slot's pointer; the box is taken only once the item is won.
#[cfg(forkjoin_loom)]
pub(crate) struct Speculative<T>(*mut T);

impl<T> Speculative<T> {
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
        let slots = {
            let boxed: Box<[MaybeUninit<T>]> = (0..cap).map(|_| MaybeUninit::uninit()).collect();
            Box::into_raw(boxed).cast::<MaybeUninit<T>>()
        };
        #[cfg(forkjoin_loom)]
        let slots = (0..cap)
            .map(|_| AtomicPtr::new(std::ptr::null_mut()))
            .collect();
        Buffer {
            mask: cap - 1,
            slots,
        }
    }

    /// The number of slots.
    #[inline]
    pub(crate) fn cap(&self) -> usize {
        self.mask + 1
    }

    #[cfg(not(forkjoin_loom))]
    #[inline]
    fn at(&self, pos: isize) -> *mut MaybeUninit<T> {
        // SAFETY: `pos & mask < cap`, so the offset stays inside the allocation.
        unsafe { self.slots.add(pos as usize & self.mask) }
    }

    /// Writes `value` into the slot of `pos`.
    ///
    /// # Safety
    /// Only the owner writes, and only into a slot no thief can still win: `pos - cap` must be below a
    /// `top` the owner loaded with `Acquire` (so every read of the old occupant happened before).
    #[inline]
    pub(crate) unsafe fn write(&self, pos: isize, value: T) {
        #[cfg(not(forkjoin_loom))]
        // SAFETY: the slot is in bounds and, per the contract, nobody may take its previous bits.
        unsafe {
            self.at(pos).write(MaybeUninit::new(value));
        }
        #[cfg(forkjoin_loom)]
        self.slots[pos as usize & self.mask]
            .store(Box::into_raw(Box::new(value)), Ordering::Relaxed);
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
            // SAFETY: in bounds; a volatile read of `MaybeUninit` asserts nothing about the bits, and the
            // caller discards them unless it wins the item (the read then raced with no write).
            Speculative(unsafe { self.at(pos).read_volatile() })
        }
        #[cfg(forkjoin_loom)]
        {
            Speculative(self.slots[pos as usize & self.mask].load(Ordering::Relaxed))
        }
    }

    /// Copies positions `from..to` into `dst`, which must be large enough to hold `to - from` items.
    ///
    /// # Safety
    /// Only the owner calls this, on positions it wrote into `self`; `dst` is not yet shared.
    pub(crate) unsafe fn copy_to(&self, dst: &Buffer<T>, from: isize, to: isize) {
        let mut pos = from;
        while pos != to {
            #[cfg(not(forkjoin_loom))]
            // SAFETY: both slots are in bounds; `dst` is private, and a thief only reads `self` (a
            // read-read overlap), so this copy races with no write.
            unsafe {
                std::ptr::copy_nonoverlapping(self.at(pos), dst.at(pos), 1);
            }
            #[cfg(forkjoin_loom)]
            {
                let item = self.slots[pos as usize & self.mask].load(Ordering::Relaxed);
                dst.slots[pos as usize & dst.mask].store(item, Ordering::Relaxed);
            }
            pos = pos.wrapping_add(1);
        }
    }
}

#[cfg(not(forkjoin_loom))]
impl<T> Drop for Buffer<T> {
    fn drop(&mut self) {
        let slice = std::ptr::slice_from_raw_parts_mut(self.slots, self.cap());
        // SAFETY: `slots` came from `Box::into_raw` of a slice of exactly `cap` slots in `alloc`;
        // dropping `MaybeUninit` slots drops no items.
        drop(unsafe { Box::from_raw(slice) });
    }
}
