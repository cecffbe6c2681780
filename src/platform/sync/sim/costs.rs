//! What each synchronising operation costs on the virtual clock of the timing mode
//! (`super::vtime`), in picoseconds (a hit on an owned line costs less than a nanosecond, and a
//! join on the owner's fast path is a handful of those).
//!
//! Measured on the 2-core development VM with `examples/calibrate.rs` (medians of seven runs, real
//! threads and `std` atomics; method and numbers in `docs/testing.md`, "Predicted scaling"). Each
//! charge is the measured time of the operation in a tight loop, so it covers the operation and
//! its loop, not the plain code around it in the runtime (see `super::vtime`, "Not modelled").

/// Picoseconds charged per operation kind.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Costs {
    /// A load of a line this core holds (last written by this thread, or read since): 0.4 ns measured.
    pub(crate) load_hit: u64,
    /// A store to a line this core owns: 0.2 ns measured.
    pub(crate) store_hit: u64,
    /// A read-modify-write (swap, CAS, fetch_*) on a line this core owns: 4.9 ns measured.
    pub(crate) rmw_hit: u64,
    /// Moving a line from another core: a load that misses, or the ownership a store or RMW needs.
    /// Half a ping-pong round trip between two cores: 100 ns measured (it includes the RMW).
    pub(crate) transfer: u64,
    /// `fence(SeqCst)` after a store: 5.9 ns measured.
    pub(crate) fence: u64,
    /// One `spin_loop` hint (`pause`): 24.9 ns measured.
    pub(crate) spin: u64,
    /// `sched_yield` with no other thread to run: 394 ns measured.
    pub(crate) yield_now: u64,
    /// `membarrier(PRIVATE_EXPEDITED)` for its caller, with another thread running: 727 ns measured.
    pub(crate) membarrier: u64,
    /// What a `membarrier` costs each other running thread of the process (the interrupt): 358 ns
    /// measured.
    pub(crate) membarrier_victim: u64,
    /// `FUTEX_WAKE` for the waker: 1,678 ns measured (a sleeper there to wake).
    pub(crate) futex_wake: u64,
    /// From a `FUTEX_WAKE` until the woken thread runs: 1,891 ns measured (half a round trip of two
    /// threads that take turns waking each other).
    pub(crate) wake_latency: u64,
    /// Entering `FUTEX_WAIT` (the system call before the thread sleeps): not measured separately;
    /// taken as a yield's system call.
    pub(crate) futex_wait: u64,
    /// Raising an unwinding (`resume_unwind` of a boxed payload, caught at once): 1,567 ns
    /// measured.
    pub(crate) unwind_raise: u64,
    /// Unwinding, per frame between the raise and the catch (see `super::vtime`, "Unwinding"):
    /// 407.5 ns measured, 46 nested frames of 48 bytes with a destructor each (18.75 µs more than a
    /// raise caught at once). Neither a frame's size nor being a `join`'s frame makes a difference
    /// that the measurement can tell from noise; a frame without a destructor costs about a third.
    pub(crate) unwind_per_frame: u64,
}

impl Costs {
    /// The calibrated costs of the development VM (see the module docs).
    pub(crate) const MEASURED: Costs = Costs {
        load_hit: 400,
        store_hit: 200,
        rmw_hit: 4_900,
        transfer: 100_000,
        fence: 5_900,
        spin: 24_900,
        yield_now: 394_000,
        membarrier: 727_000,
        membarrier_victim: 358_000,
        futex_wake: 1_678_000,
        wake_latency: 1_891_000,
        futex_wait: 394_000,
        unwind_raise: 1_567_000,
        unwind_per_frame: 407_500,
    };
}
