//! The atomics of the shuttle build: shuttle's, each operation then charged to the virtual clock of
//! the timing mode (`super::vtime`; outside that mode the charge is a no-op and these are shuttle's
//! atomics exactly). The address keys the cache-line model, so a value moved while nobody shares it
//! only starts a fresh line.
use shuttle::sync::atomic as sa;
pub(crate) use shuttle::sync::atomic::Ordering;

use super::vtime::{self, Access};

/// `fence`, charged.
#[inline]
pub(crate) fn fence(order: Ordering) {
    sa::fence(order);
    vtime::fence();
}

/// Defines the common operations of a wrapped atomic holding `$t`.
macro_rules! common {
    ($name:ident, $t:ty) => {
        // std's whole atomic API, as the types this stands in for: not every type uses every
        // operation.
        #[allow(dead_code)]
        impl $name {
            #[inline]
            fn addr(&self) -> usize {
                self as *const Self as usize
            }

            #[inline]
            pub(crate) fn get_mut(&mut self) -> &mut $t {
                self.0.get_mut()
            }

            #[inline]
            pub(crate) fn into_inner(self) -> $t {
                self.0.into_inner()
            }

            #[inline]
            pub(crate) fn load(&self, order: Ordering) -> $t {
                let v = self.0.load(order);
                vtime::access(self.addr(), Access::Load);
                v
            }

            #[inline]
            pub(crate) fn store(&self, v: $t, order: Ordering) {
                self.0.store(v, order);
                vtime::access(self.addr(), Access::Store);
            }

            #[inline]
            pub(crate) fn swap(&self, v: $t, order: Ordering) -> $t {
                let r = self.0.swap(v, order);
                vtime::access(self.addr(), Access::Rmw);
                r
            }

            #[inline]
            pub(crate) fn compare_exchange(
                &self,
                current: $t,
                new: $t,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$t, $t> {
                let r = self.0.compare_exchange(current, new, success, failure);
                vtime::access(self.addr(), Access::Rmw);
                r
            }

            #[inline]
            pub(crate) fn compare_exchange_weak(
                &self,
                current: $t,
                new: $t,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$t, $t> {
                let r = self.0.compare_exchange_weak(current, new, success, failure);
                vtime::access(self.addr(), Access::Rmw);
                r
            }

            #[inline]
            pub(crate) fn fetch_update<F>(
                &self,
                set: Ordering,
                fetch: Ordering,
                f: F,
            ) -> Result<$t, $t>
            where
                F: FnMut($t) -> Option<$t>,
            {
                #[allow(deprecated)] // shuttle's alias of try_update; std's name for it
                let r = self.0.fetch_update(set, fetch, f);
                vtime::access(self.addr(), Access::Rmw);
                r
            }
        }
    };
}

/// Defines a read-modify-write operation of a wrapped atomic.
macro_rules! rmw {
    ($name:ident, $t:ty, $($op:ident),*) => {
        // std's whole atomic API, as the types this stands in for: not every type uses every
        // operation.
        #[allow(dead_code)]
        impl $name {
            $(
                #[inline]
                pub(crate) fn $op(&self, v: $t, order: Ordering) -> $t {
                    let r = self.0.$op(v, order);
                    vtime::access(self.addr(), Access::Rmw);
                    r
                }
            )*
        }
    };
}

macro_rules! int {
    ($($name:ident: $t:ty),*) => {
        $(
            #[derive(Default, Debug)]
            #[repr(transparent)]
            pub(crate) struct $name(sa::$name);

            impl $name {
                #[inline]
                pub(crate) const fn new(v: $t) -> Self {
                    $name(sa::$name::new(v))
                }
            }

            common!($name, $t);
            rmw!($name, $t, fetch_add, fetch_sub, fetch_and, fetch_or, fetch_xor, fetch_max, fetch_min);
        )*
    };
}

int!(AtomicU32: u32, AtomicU64: u64, AtomicUsize: usize, AtomicIsize: isize);

#[derive(Default, Debug)]
#[repr(transparent)]
pub(crate) struct AtomicBool(sa::AtomicBool);

impl AtomicBool {
    #[inline]
    pub(crate) const fn new(v: bool) -> Self {
        AtomicBool(sa::AtomicBool::new(v))
    }
}

common!(AtomicBool, bool);
rmw!(AtomicBool, bool, fetch_and, fetch_or, fetch_xor);

#[derive(Debug)]
#[repr(transparent)]
pub(crate) struct AtomicPtr<T>(sa::AtomicPtr<T>);

impl<T> Default for AtomicPtr<T> {
    fn default() -> Self {
        AtomicPtr::new(std::ptr::null_mut())
    }
}

// std's whole `AtomicPtr` API, as the type this stands in for: not every operation is used.
#[allow(dead_code)]
impl<T> AtomicPtr<T> {
    #[inline]
    pub(crate) const fn new(v: *mut T) -> Self {
        AtomicPtr(sa::AtomicPtr::new(v))
    }

    #[inline]
    fn addr(&self) -> usize {
        self as *const Self as usize
    }

    #[inline]
    pub(crate) fn get_mut(&mut self) -> &mut *mut T {
        self.0.get_mut()
    }

    #[inline]
    pub(crate) fn into_inner(self) -> *mut T {
        self.0.into_inner()
    }

    #[inline]
    pub(crate) fn load(&self, order: Ordering) -> *mut T {
        let v = self.0.load(order);
        vtime::access(self.addr(), Access::Load);
        v
    }

    #[inline]
    pub(crate) fn store(&self, v: *mut T, order: Ordering) {
        self.0.store(v, order);
        vtime::access(self.addr(), Access::Store);
    }

    #[inline]
    pub(crate) fn swap(&self, v: *mut T, order: Ordering) -> *mut T {
        let r = self.0.swap(v, order);
        vtime::access(self.addr(), Access::Rmw);
        r
    }

    #[inline]
    pub(crate) fn compare_exchange(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        let r = self.0.compare_exchange(current, new, success, failure);
        vtime::access(self.addr(), Access::Rmw);
        r
    }

    #[inline]
    pub(crate) fn compare_exchange_weak(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        let r = self.0.compare_exchange_weak(current, new, success, failure);
        vtime::access(self.addr(), Access::Rmw);
        r
    }
}
