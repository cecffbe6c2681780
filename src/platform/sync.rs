//! The one place that names std's, loom's or shuttle's synchronisation primitives.
//!
//! Production code, the loom models in `loom-tests/` and the simulations in `sim-tests/` run the same
//! source: every module imports its atomics, cells, fences, threads and thread-locals from here.
//! `--cfg forkjoin_loom` swaps them for loom's model types; `--cfg forkjoin_shuttle` swaps them for
//! shuttle's (a deterministic scheduler that runs whole pools on virtual threads), with the
//! stand-ins of `sync/sim.rs` for what shuttle does not model (futex waits, timeouts, time). Nothing
//! else in the crate may name `std::sync::atomic`, `std::cell::UnsafeCell`, `std::thread` or
//! `thread_local!` directly.
#[cfg(all(forkjoin_loom, forkjoin_shuttle))]
compile_error!("`--cfg forkjoin_loom` and `--cfg forkjoin_shuttle` exclude each other");

#[cfg(not(any(forkjoin_loom, forkjoin_shuttle)))]
mod imp {
    pub(crate) use super::StdUnsafeCell as UnsafeCell;
    pub(crate) use std::sync::atomic::{
        fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
    };
    pub(crate) use std::sync::{Arc, Mutex, MutexGuard};
    // The futex stand-in's (off Linux only).
    #[cfg(not(target_os = "linux"))]
    pub(crate) use std::sync::Condvar;
    pub(crate) use std::thread;
    pub(crate) use std::thread_local;

    /// A busy-wait hint; under loom and shuttle it yields so the model can schedule another thread.
    #[inline(always)]
    pub(crate) fn spin_loop() {
        std::hint::spin_loop();
    }
}

/// `UnsafeCell` with loom's closure-based access API, so call sites are identical in every build
/// (std and shuttle use this one; loom has its own).
#[cfg(not(forkjoin_loom))]
#[derive(Debug, Default)]
#[repr(transparent)]
pub(crate) struct StdUnsafeCell<T: ?Sized>(std::cell::UnsafeCell<T>);

#[cfg(not(forkjoin_loom))]
impl<T> StdUnsafeCell<T> {
    pub(crate) const fn new(value: T) -> Self {
        StdUnsafeCell(std::cell::UnsafeCell::new(value))
    }

    pub(crate) fn into_inner(self) -> T {
        self.0.into_inner()
    }
}

#[cfg(not(forkjoin_loom))]
impl<T: ?Sized> StdUnsafeCell<T> {
    #[inline(always)]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

#[cfg(forkjoin_shuttle)]
pub(crate) mod sim;

#[cfg(forkjoin_shuttle)]
mod imp {
    pub(crate) use super::sim::{sim_thread_local as thread_local, LocalKey};
    // shuttle's atomics, each operation charged to the virtual clock in the timing mode.
    pub(crate) use super::sim::atomic::{
        fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
    };
    pub(crate) use super::StdUnsafeCell as UnsafeCell;
    pub(crate) use shuttle::sync::{Mutex, MutexGuard};
    pub(crate) use shuttle::thread;
    pub(crate) use std::sync::Arc;

    /// Under shuttle a spin yields to the scheduler (a scheduling point); in the timing mode it
    /// charges a `pause` instead (see `sim::vtime`).
    #[inline(always)]
    pub(crate) fn spin_loop() {
        if !super::sim::vtime::spin() {
            shuttle::hint::spin_loop();
        }
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
    pub(crate) use std::thread_local;

    /// Under loom a spin must yield, or the model would explore an unbounded busy loop.
    #[inline(always)]
    pub(crate) fn spin_loop() {
        loom::thread::yield_now();
    }
}

pub(crate) use imp::*;

/// std's types, in every build (loom's and shuttle's included): for state the models need not
/// see, for what must be one type across builds, and for what must live in a `static` (loom's
/// types have no `const` constructors). The facade's items above are the modelled ones; code
/// that names one of these chose std's on purpose.
pub(crate) mod shared {
    /// The global pool's pointer, in a `static`; the models never start the global pool.
    pub(crate) use std::sync::atomic::AtomicPtr;
    /// A value set once in a `static` (the iterators' pacing): never model-checked.
    pub(crate) use std::sync::OnceLock;
    /// One type across builds: a cancellation node (which tokens and region words share), the
    /// handlers a forked child's pool shares, a waker; loom's `Arc` has no weak references.
    pub(crate) use std::sync::{Arc, Weak};
    /// A lock in a `static` (trace sinks, the global pool's start): `const`-constructible, and
    /// never model-checked.
    pub(crate) use std::sync::{Mutex, MutexGuard};
    /// A panic caught by a `join` (`Err` holds its payload), as std's threads return it.
    pub(crate) use std::thread::Result as ThreadResult;
    /// How the trace tells outside callers apart: the OS thread's id in every build.
    pub(crate) use std::thread::ThreadId;

    /// `ThreadPoolBuilder::build_scoped`'s threads: OS threads scoped to the caller's call, which
    /// borrow from it, in every build (loom's threads cannot be scoped; no model or simulation
    /// builds a scoped pool).
    pub(crate) mod thread {
        /// std's scoped threads and the builder that names and sizes one.
        pub(crate) use std::thread::{scope, Builder};
    }
}

/// std's threads, channels, locks and counters for the crate's unit tests, whatever the facade
/// holds: a test's helper threads and the values it checks belong to the test, not to the scheduler
/// under test, so no model needs to see them. Not in the loom build, whose unit tests are the loom
/// models (they use loom's own); the others do not run there.
#[cfg(all(test, not(forkjoin_loom)))]
pub(crate) mod for_tests {
    /// A test's counters and flags.
    pub(crate) use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    /// A test's channels (`crate::test_support` blocks a worker on one).
    pub(crate) use std::sync::mpsc;
    /// A test's shared values.
    pub(crate) use std::sync::{Arc, Mutex};
    /// A test's helper threads, and the ids of the threads that ran its jobs.
    pub(crate) use std::thread;
}

/// A 32-bit word that threads can block on until it changes: the sleep module's and the blocking latch's
/// only way to put a thread to sleep.
///
/// On Linux (outside loom) this is a raw futex, so a sleeping thread costs no CPU and waking it is one
/// syscall. Elsewhere, and under loom, a `Mutex` + `Condvar` pair stands in: the waker takes the lock
/// after changing the word, and the waiter re-checks the word under the lock, so a wake cannot slip
/// between the waiter's check and its wait.
///
/// Under shuttle, `sim::Futex` stands in: virtual threads park, and a timed wait ends on the
/// virtual clock.
///
/// `wait` may return spuriously; callers re-check the word in a loop.
#[cfg(not(forkjoin_shuttle))]
pub(crate) struct Futex {
    word: AtomicU32,
    #[cfg(any(forkjoin_loom, not(target_os = "linux")))]
    lock: Mutex<()>,
    #[cfg(any(forkjoin_loom, not(target_os = "linux")))]
    cond: Condvar,
}

#[cfg(not(forkjoin_shuttle))]
impl Futex {
    /// A word holding `value` (a `const fn` outside loom, for statics).
    #[cfg(not(forkjoin_loom))]
    pub(crate) const fn new(value: u32) -> Self {
        Futex {
            word: AtomicU32::new(value),
            #[cfg(not(target_os = "linux"))]
            lock: Mutex::new(()),
            #[cfg(not(target_os = "linux"))]
            cond: Condvar::new(),
        }
    }

    /// A word holding `value`.
    #[cfg(forkjoin_loom)]
    pub(crate) fn new(value: u32) -> Self {
        Futex {
            word: AtomicU32::new(value),
            #[cfg(any(forkjoin_loom, not(target_os = "linux")))]
            lock: Mutex::new(()),
            #[cfg(any(forkjoin_loom, not(target_os = "linux")))]
            cond: Condvar::new(),
        }
    }

    /// The word itself; all state changes go through it.
    #[inline(always)]
    pub(crate) fn word(&self) -> &AtomicU32 {
        &self.word
    }

    /// Blocks while the word equals `expected` (may return spuriously).
    #[cfg(all(target_os = "linux", not(forkjoin_loom)))]
    pub(crate) fn wait(&self, expected: u32) {
        self.futex_wait(expected, None);
    }

    /// Blocks while the word equals `expected`, for at most `timeout` (may return earlier, spuriously).
    #[cfg(all(target_os = "linux", not(forkjoin_loom)))]
    pub(crate) fn wait_timeout(&self, expected: u32, timeout: std::time::Duration) {
        self.futex_wait(expected, Some(timeout));
    }

    #[cfg(all(target_os = "linux", not(forkjoin_loom)))]
    fn futex_wait(&self, expected: u32, timeout: Option<std::time::Duration>) {
        let timeout = timeout.map(|t| libc::timespec {
            tv_sec: t.as_secs() as libc::time_t,
            tv_nsec: t.subsec_nanos() as libc::c_long,
        });
        let timeout_ptr = timeout
            .as_ref()
            .map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: FUTEX_WAIT reads the u32 at a valid, aligned address we borrow for the whole call and
        // blocks only if it still equals `expected` (checked atomically by the kernel); the timeout is
        // null ("no timeout") or a valid relative `timespec` that lives across the call. Errors
        // (EAGAIN, EINTR, ETIMEDOUT) are spurious returns, which callers tolerate.
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                self.word.as_ptr(),
                libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
                expected,
                timeout_ptr,
            );
        }
    }

    /// Wakes up to `n` threads blocked in [`Futex::wait`]; call after changing the word.
    #[cfg(all(target_os = "linux", not(forkjoin_loom)))]
    pub(crate) fn wake(&self, n: i32) {
        // SAFETY: FUTEX_WAKE only uses the address as a key; it never dereferences it in user space.
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                self.word.as_ptr(),
                libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
                n,
            );
        }
    }

    /// Blocks while the word equals `expected` (may return spuriously).
    #[cfg(any(forkjoin_loom, not(target_os = "linux")))]
    pub(crate) fn wait(&self, expected: u32) {
        let guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        // SeqCst: pairs with the waker's change of the word, which happens before it takes `lock`.
        if self.word.load(Ordering::SeqCst) == expected {
            drop(self.cond.wait(guard).unwrap_or_else(|e| e.into_inner()));
        }
    }

    /// Blocks while the word equals `expected`, for at most `timeout` (may return earlier, spuriously).
    ///
    /// loom has no time: a timed wait returns at once, as if the timeout had fired, so the models
    /// explore the path that needs it.
    #[cfg(any(forkjoin_loom, not(target_os = "linux")))]
    pub(crate) fn wait_timeout(&self, expected: u32, timeout: std::time::Duration) {
        #[cfg(forkjoin_loom)]
        let _ = (expected, timeout);
        #[cfg(not(forkjoin_loom))]
        {
            let guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            // SeqCst: as in `wait`.
            if self.word.load(Ordering::SeqCst) == expected {
                drop(
                    self.cond
                        .wait_timeout(guard, timeout)
                        .unwrap_or_else(|e| e.into_inner()),
                );
            }
        }
    }

    /// Wakes up to `n` threads blocked in [`Futex::wait`]; call after changing the word.
    #[cfg(any(forkjoin_loom, not(target_os = "linux")))]
    pub(crate) fn wake(&self, n: i32) {
        // Taking the lock orders us after any waiter that saw the old word and is about to wait.
        drop(self.lock.lock().unwrap_or_else(|e| e.into_inner()));
        if n == 1 {
            self.cond.notify_one();
        } else {
            self.cond.notify_all();
        }
    }
}

#[cfg(forkjoin_shuttle)]
pub(crate) use sim::Futex;

/// A deliberately broken variant of the runtime, for the simulation's self-check
/// (`scripts/sim-bugs.sh`, docs/testing.md): under shuttle, true when the environment variable
/// `FORKJOIN_SIM_BUG` names `bug`. Elsewhere a constant false: the broken branch compiles away.
/// Chosen at run time, not by a `cfg`, so every variant runs on the one simulation build.
#[cfg(not(forkjoin_shuttle))]
#[inline(always)]
pub(crate) const fn sim_bug(_bug: &str) -> bool {
    false
}

#[cfg(forkjoin_shuttle)]
pub(crate) use sim::sim_bug;

/// A job's plain memory was just created by the calling thread (`sim::vtime`, "Plain memory a job
/// carries"): the simulation's timing mode records the thread as its lines' writer. Nothing in
/// any other build.
#[inline(always)]
pub(crate) fn plain_created<T>(job: *const T) {
    #[cfg(forkjoin_shuttle)]
    sim::vtime::plain_created(job as usize, std::mem::size_of::<T>());
    #[cfg(not(forkjoin_shuttle))]
    let _ = job;
}

/// The calling thread reads (`write == false`) or writes the plain memory at `at` (a job it runs,
/// a result slot): the simulation's timing mode charges the lines as the cache would move them.
/// Nothing in any other build.
#[inline(always)]
pub(crate) fn plain_access<T>(at: *const T, write: bool) {
    #[cfg(forkjoin_shuttle)]
    sim::vtime::plain_access(at as usize, std::mem::size_of::<T>(), write);
    #[cfg(not(forkjoin_shuttle))]
    let _ = (at, write);
}

/// Names the cache lines of `*at` (`size_of::<T>()` bytes) in the simulation's line profile
/// (`sim::line_profile`), so that what the timing mode charged for them shows under `label`.
/// Nothing in any other build.
#[inline(always)]
pub(crate) fn sim_label<T: ?Sized>(at: &T, label: &'static str) {
    #[cfg(forkjoin_shuttle)]
    sim::vtime::label(
        at as *const T as *const u8 as usize,
        std::mem::size_of_val(at),
        label,
    );
    #[cfg(not(forkjoin_shuttle))]
    let _ = (at, label);
}

/// The calling worker starts (`true`) or ends an idle period: the simulation's line profile
/// counts what it pays meanwhile as idle (`sim::line_profile`). Nothing in any other build.
#[inline(always)]
pub(crate) fn sim_idle(idle: bool) {
    #[cfg(forkjoin_shuttle)]
    sim::vtime::set_idle(idle);
    #[cfg(not(forkjoin_shuttle))]
    let _ = idle;
}

/// True while the simulation runs in its timing mode (`sim::vtime`), where the runtime idles as in
/// production; only the shuttle build has one.
#[cfg(forkjoin_shuttle)]
#[inline]
pub(crate) fn timing_mode() -> bool {
    sim::vtime::active()
}

/// The simulation's virtual-time mode, for `sim-tests` (not public API): the scheduler, simulated
/// work, the calling virtual thread's clock and the execution's counts.
#[cfg(forkjoin_shuttle)]
pub mod sim_time {
    pub use super::sim::costs::Costs;
    pub use super::sim::scheduler::VirtualTimeScheduler;
    pub use super::sim::vtime::Counts;

    /// Charges `ns` nanoseconds of computation to the calling virtual thread (timing mode only;
    /// elsewhere nothing).
    pub fn work(ns: u64) {
        super::sim::vtime::work_ps(ns.saturating_mul(1000));
    }

    /// Charges `ps` picoseconds of computation (for leaves cheaper than a nanosecond, like fib's).
    pub fn work_ps(ps: u64) {
        super::sim::vtime::work_ps(ps);
    }

    /// The calling virtual thread's clock in nanoseconds (timing mode only).
    pub fn now_ns() -> Option<u64> {
        super::sim::vtime::now()
    }

    /// The execution's counts so far (timing mode only; zero elsewhere).
    pub fn counts() -> Counts {
        super::sim::vtime::counts()
    }

    pub use super::sim::line_profile::{Charged, LineCharge};

    /// Executions started from now on keep a profile of what the timing mode charged per shared
    /// cache line (`sim::line_profile`); off by default.
    pub fn profile_lines(on: bool) {
        super::sim::line_profile::set_enabled(on);
    }

    /// The execution's line profile so far, most charged to busy threads first (timing mode with
    /// [`profile_lines`] on; empty elsewhere).
    pub fn line_profile() -> Vec<LineCharge> {
        super::sim::vtime::line_profile()
    }

    /// Pools built from now on (in this process) keep a reserve worker, started by the monitor
    /// (`runtime::registry::reserve`), which the simulation runs as a virtual thread; off by
    /// default. The simulated kernel reports every thread blocked, so the monitor starts the
    /// reserve whenever work waits at two looks: every start a machine could make, and more.
    pub fn keep_reserve_workers(on: bool) {
        super::sim::keep_reserve_workers(on);
    }
}

/// Marks a pool worker's thread as running for as long as it is held (`main_loop` holds one). The
/// simulation's virtual clock divides each scheduling step among the running threads
/// (`sim::RunningThread`); every other build has no use for it.
#[cfg(not(forkjoin_shuttle))]
pub(crate) struct RunningThread;

#[cfg(not(forkjoin_shuttle))]
impl RunningThread {
    #[inline(always)]
    pub(crate) fn enter() -> Self {
        RunningThread
    }
}

#[cfg(forkjoin_shuttle)]
pub(crate) use sim::RunningThread;

/// The calling OS thread's id and name: how the trace tells outside callers apart (the OS thread in
/// both builds; loom's model threads do not trace).
pub(crate) fn current_thread_identity() -> (std::thread::ThreadId, Option<String>) {
    let thread = std::thread::current();
    (thread.id(), thread.name().map(str::to_owned))
}

/// Gives up the rest of this thread's time slice (a model step under loom; charged as a
/// `sched_yield` in the simulation's timing mode).
#[inline]
pub(crate) fn yield_now() {
    #[cfg(forkjoin_shuttle)]
    sim::vtime::yield_now();
    thread::yield_now();
}

/// Sleeps the calling thread for `duration`: std's sleep; under shuttle (which has no time), a
/// timed wait on the virtual clock (`sim::Futex`), so a sleeper does not spin the scheduler.
// Its users, the reserve's monitor and the CPU-limit follower, are not under loom.
#[cfg_attr(forkjoin_loom, allow(dead_code))]
pub(crate) fn sleep(duration: std::time::Duration) {
    #[cfg(not(forkjoin_shuttle))]
    std::thread::sleep(duration);
    #[cfg(forkjoin_shuttle)]
    Futex::new(0).wait_timeout(0, duration);
}

/// A process-wide static holding a lock: a plain `static` in every build but shuttle's, where it
/// is one per execution (`shuttle::lazy_static!`): an execution that ends while a thread holds the
/// lock (shuttle stops detached threads when the main thread returns) must not leave it held for
/// the next one. Use as `process_static! { static NAME: Mutex<T> = Mutex::new(INIT); }`.
#[cfg(not(forkjoin_shuttle))]
#[cfg_attr(forkjoin_loom, allow(unused_macros))] // its users (reserve, follow) are not under loom
macro_rules! process_static {
    (static $name:ident: $t:ty = $init:expr;) => {
        static $name: $t = $init;
    };
}
#[cfg(forkjoin_shuttle)]
macro_rules! process_static {
    (static $name:ident: $t:ty = $init:expr;) => {
        ::shuttle::lazy_static! {
            static ref $name: $t = $init;
        }
    };
}
// Its users, the reserve and the CPU-limit follower, are not under loom.
#[cfg_attr(forkjoin_loom, allow(unused_imports))]
pub(crate) use process_static;

/// Asymmetric barriers for the owner-private job stack (`crate::runtime::jobs::jobstack`): the owner's frequent side
/// pays only a compiler fence ([`light_barrier`]), a thief's rare side pays a process-wide barrier
/// ([`heavy_barrier`], Linux `membarrier(PRIVATE_EXPEDITED)`), which forces a full fence on every running
/// thread of the process. Together they order "owner: store; load" against "thief: store/load; load" like
/// a pair of SeqCst fences would. On other systems and under loom both sides are `fence(SeqCst)`. On a
/// Linux whose `membarrier` registration fails (old kernels, valgrind) the light barrier would be
/// unsound, so the private stacks are not used at all ([`light_barrier_is_sound`]): every job goes to
/// the public deque, and the owner never reaches a light barrier. Under shuttle, which runs every
/// virtual thread sequentially consistent, both sides are `fence(SeqCst)` too: each a scheduling point.
/// The simulation's timing mode charges them as on Linux: nothing for the light side, a `membarrier`
/// (the caller's cost and every running thread's interrupt) for the heavy side.
#[cfg(all(target_os = "linux", not(forkjoin_loom), not(forkjoin_shuttle)))]
mod asym {
    use super::{fence, AtomicBool, Ordering};
    use std::sync::Once;

    const MEMBARRIER_CMD_PRIVATE_EXPEDITED: libc::c_int = 1 << 3;
    const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_int = 1 << 4;

    /// True once this process registered for private expedited membarriers.
    static ENABLED: AtomicBool = AtomicBool::new(false);
    static INIT: Once = Once::new();

    /// Registers the process for `membarrier`; call before any thread relies on [`light_barrier`].
    pub(crate) fn init_asymmetric_barriers() {
        INIT.call_once(|| {
            // SAFETY: a plain syscall with integer arguments; failure is reported through the result.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_membarrier,
                    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
                    0,
                    0,
                )
            };
            // Relaxed: read by threads started after this (thread spawn synchronises), or by threads
            // that then take the conservative path until they see it.
            ENABLED.store(r == 0, Ordering::Relaxed);
        });
    }

    /// True if [`light_barrier`] pairs with [`heavy_barrier`]: here, once the `membarrier`
    /// registration of [`init_asymmetric_barriers`] succeeded. Private job stacks are used only then.
    pub(crate) fn light_barrier_is_sound() -> bool {
        // Relaxed: the flag only ever goes false → true, before any pool thread exists.
        ENABLED.load(Ordering::Relaxed)
    }

    /// The owner's side: a compiler fence; the thief's `membarrier` makes it a full one. Sound only
    /// while [`light_barrier_is_sound`] (owners check it once, when their stack is created).
    #[inline(always)]
    pub(crate) fn light_barrier() {
        std::sync::atomic::compiler_fence(Ordering::SeqCst);
    }

    /// The thief's side: a process-wide barrier (or a full fence, pairing with `light_barrier`'s).
    pub(crate) fn heavy_barrier() {
        // Relaxed: see `light_barrier`.
        if ENABLED.load(Ordering::Relaxed) {
            // SAFETY: a plain syscall with integer arguments.
            let r = unsafe {
                libc::syscall(libc::SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0)
            };
            if r == 0 {
                return;
            }
            // Cannot happen after a successful registration; owners keep using compiler fences, so
            // continuing would be unsound.
            // A write that cannot panic (`eprintln!` panics if stderr is closed, and unwinding
            // from here would carry on without the barrier).
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                b"forkjoin: membarrier failed after registration; aborting\n",
            );
            std::process::abort();
        }
        // SeqCst fence: pairs with the owner's fence in `light_barrier`.
        fence(Ordering::SeqCst);
    }
}

#[cfg(not(all(target_os = "linux", not(forkjoin_loom), not(forkjoin_shuttle))))]
mod asym {
    #[cfg(not(forkjoin_shuttle))] // shuttle's barriers take shuttle's uncharged fence
    use super::fence;
    use super::Ordering;

    pub(crate) fn init_asymmetric_barriers() {}

    /// Always true here: both sides use full fences.
    pub(crate) fn light_barrier_is_sound() -> bool {
        true
    }

    /// The owner's side (portable: a full fence).
    #[inline(always)]
    pub(crate) fn light_barrier() {
        // SeqCst fence: pairs with the fence in `heavy_barrier`. Under shuttle the uncharged one:
        // on Linux this side is a compiler fence.
        #[cfg(forkjoin_shuttle)]
        shuttle::sync::atomic::fence(Ordering::SeqCst);
        #[cfg(not(forkjoin_shuttle))]
        fence(Ordering::SeqCst);
    }

    /// The thief's side (portable: a full fence).
    pub(crate) fn heavy_barrier() {
        // SeqCst fence: pairs with the fence in `light_barrier`. Under shuttle the uncharged one,
        // charged as the `membarrier` it is on Linux instead.
        #[cfg(forkjoin_shuttle)]
        {
            shuttle::sync::atomic::fence(Ordering::SeqCst);
            super::sim::vtime::membarrier();
        }
        #[cfg(not(forkjoin_shuttle))]
        fence(Ordering::SeqCst);
    }
}

pub(crate) use asym::{
    heavy_barrier, init_asymmetric_barriers, light_barrier, light_barrier_is_sound,
};
