//! The one place that names std's or loom's synchronisation primitives.
//!
//! Production code and the loom models in `loom-tests/` run the same source: every module imports its
//! atomics, cells, fences and threads from here, and `--cfg forkjoin_loom` swaps them for loom's model
//! types. Nothing else in the crate may name `std::sync::atomic`, `std::cell::UnsafeCell` or
//! `std::thread` directly.
#![allow(dead_code, unused_imports)] // a facade: not every build configuration uses every item

#[cfg(not(forkjoin_loom))]
mod imp {
    pub(crate) use std::sync::atomic::{
        fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
    };
    pub(crate) use std::sync::{Arc, Condvar, Mutex, MutexGuard};
    pub(crate) use std::thread;

    /// `UnsafeCell` with loom's closure-based access API, so call sites are identical in both builds.
    #[derive(Debug, Default)]
    #[repr(transparent)]
    pub(crate) struct UnsafeCell<T: ?Sized>(std::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        pub(crate) const fn new(value: T) -> Self {
            UnsafeCell(std::cell::UnsafeCell::new(value))
        }

        pub(crate) fn into_inner(self) -> T {
            self.0.into_inner()
        }
    }

    impl<T: ?Sized> UnsafeCell<T> {
        #[inline(always)]
        pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            f(self.0.get())
        }

        #[inline(always)]
        pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }

    /// A busy-wait hint; under loom it yields so the model can schedule another thread.
    #[inline(always)]
    pub(crate) fn spin_loop() {
        std::hint::spin_loop();
    }
}

#[cfg(forkjoin_loom)]
mod imp {
    pub(crate) use loom::cell::UnsafeCell;
    pub(crate) use loom::sync::atomic::{
        fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
    };
    pub(crate) use loom::sync::{Arc, Condvar, Mutex, MutexGuard};
    pub(crate) use loom::thread;

    /// Under loom a spin must yield, or the model would explore an unbounded busy loop.
    #[inline(always)]
    pub(crate) fn spin_loop() {
        loom::thread::yield_now();
    }
}

#[allow(unused_imports)]
pub(crate) use imp::*;
