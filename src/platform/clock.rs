//! The cheap clock behind the runtime's rate limits and the iterators' batch timing.
//!
//! `Instant::now` is a vDSO `clock_gettime` at best, and a system call where the kernel cannot
//! read the clock in user space: too dear for a small parallel call that times every batch (the
//! costs are in `docs/benchmarks.md`, "The clock"). On x86-64 a tick is the time-stamp counter,
//! converted to nanoseconds with a factor measured once against `Instant` (three windows of about
//! 200 µs, on first use); elsewhere a tick is a nanosecond from `Instant`. These clocks only steer
//! hints (when to publish, how large a batch is, whether a split pays), so a skew between cores
//! costs at most a badly sized batch, never a wrong result.
//!
//! Under loom the clock stands still. Under shuttle a tick is one scheduling step of the virtual
//! clock, counted as a microsecond (see `crate::platform::sync::sim`): heartbeats, patrols and timeouts come
//! after a number of steps, and a replayed schedule sees the same times. In the simulation's timing
//! mode (`crate::platform::sync::sim::vtime`) a tick is a nanosecond of the calling virtual thread's
//! own clock, so heartbeats, patrols, timeouts and batch timing see the time a machine would.

use std::time::Duration;
/// std's `Instant`, which the public API takes for deadlines; only this module reads it (and the
/// unit tests, for their own time limits).
pub(crate) use std::time::Instant;

/// The time since the process first asked, for deadlines: std's monotonic clock (no calibration to
/// drift over hours), except under shuttle, where it is the virtual clock, so that a deadline
/// passes in virtual time and a replayed schedule sees the same times.
#[cfg(not(forkjoin_loom))] // the deadline timer, its only user, is not under loom
pub(crate) fn since_start() -> Duration {
    #[cfg(forkjoin_shuttle)]
    {
        Duration::from_nanos(ticks_to_ns(ticks()))
    }
    #[cfg(not(forkjoin_shuttle))]
    {
        static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        START.get_or_init(Instant::now).elapsed()
    }
}

/// How long until `deadline` (zero once it has passed), on std's clock.
#[cfg(not(forkjoin_loom))] // the deadline timer, its only user, is not under loom
pub(crate) fn until(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}

/// The current tick count (see the module docs).
#[inline]
pub(crate) fn ticks() -> u64 {
    #[cfg(forkjoin_loom)]
    {
        0
    }
    #[cfg(forkjoin_shuttle)]
    {
        crate::platform::sync::sim::now()
    }
    #[cfg(all(not(forkjoin_loom), not(forkjoin_shuttle), target_arch = "x86_64"))]
    {
        // SAFETY: `rdtsc` exists on every x86-64 CPU and has no preconditions.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(all(not(forkjoin_loom), not(forkjoin_shuttle), not(target_arch = "x86_64")))]
    {
        use std::sync::OnceLock;
        static EPOCH: OnceLock<Instant> = OnceLock::new();
        EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}

/// The number of ticks in `d` (at least 1).
pub(crate) fn ticks_in(d: Duration) -> u64 {
    (((d.as_nanos() << 32) / ns_per_tick_q32() as u128) as u64).max(1)
}

/// The nanoseconds in `ticks` ticks (the inverse of [`ticks_in`]).
pub(crate) fn ticks_to_ns(ticks: u64) -> u64 {
    ((ticks as u128 * ns_per_tick_q32() as u128) >> 32) as u64
}

/// What a tick is, in words (for the trace file's metadata).
pub(crate) const DESCRIPTION: &str = if cfg!(forkjoin_shuttle) {
    "shuttle scheduling steps, one counted as a microsecond (virtual nanoseconds in the timing mode)"
} else if cfg!(all(not(forkjoin_loom), target_arch = "x86_64")) {
    "x86-64 time-stamp counter, calibrated against std::time::Instant"
} else {
    "std::time::Instant (nanoseconds)"
};

/// Nanoseconds per tick as a 32.32 fixed-point number.
#[inline]
fn ns_per_tick_q32() -> u64 {
    #[cfg(forkjoin_shuttle)]
    {
        crate::platform::sync::sim::ns_per_tick() << 32
    }
    #[cfg(all(not(forkjoin_loom), not(forkjoin_shuttle), target_arch = "x86_64"))]
    {
        use std::sync::OnceLock;
        static FACTOR: OnceLock<u64> = OnceLock::new();
        *FACTOR.get_or_init(calibrate)
    }
    #[cfg(all(not(forkjoin_shuttle), any(forkjoin_loom, not(target_arch = "x86_64"))))]
    {
        1 << 32
    }
}

/// Measures the tick rate against `Instant`: the median of three windows of about 200 µs.
///
/// Each end of a window reads the tick counter on both sides of its `Instant` read; a window whose
/// brackets are wide (the thread was preempted between the reads) is thrown away and measured again,
/// since one bad factor would skew every rate limit and batch size for the life of the process.
#[cfg(all(not(forkjoin_loom), not(forkjoin_shuttle), target_arch = "x86_64"))]
#[cold]
fn calibrate() -> u64 {
    use std::time::Instant;
    /// A bracket wider than this many ticks (a few µs at any clock rate) means a preemption.
    const WIDE: u64 = 20_000;
    let window = || {
        let (before, start, after) = (ticks(), Instant::now(), ticks());
        let mut elapsed = start.elapsed();
        while elapsed < Duration::from_micros(200) {
            std::hint::spin_loop();
            elapsed = start.elapsed();
        }
        let (before_end, elapsed, after_end) = (ticks(), start.elapsed(), ticks());
        let wide = after.wrapping_sub(before) > WIDE || after_end.wrapping_sub(before_end) > WIDE;
        let ticks = (before_end / 2 + after_end / 2)
            .wrapping_sub(before / 2 + after / 2)
            .max(1);
        (!wide).then(|| ((elapsed.as_nanos() << 32) / ticks as u128).max(1) as u64)
    };
    let mut factors = Vec::with_capacity(3);
    // Bounded: on a machine so loaded that every window is preempted, take what we have.
    for _ in 0..20 {
        if let Some(factor) = window() {
            factors.push(factor);
            if factors.len() == 3 {
                break;
            }
        }
    }
    if factors.is_empty() {
        factors.extend(window().or(Some(1 << 32)));
    }
    factors.sort_unstable();
    factors[factors.len() / 2]
}

#[cfg(all(test, not(forkjoin_loom), not(forkjoin_shuttle)))]
mod tests {
    use super::*;

    #[test]
    fn ticks_measure_about_the_same_time_as_instant() {
        let (start, first) = (std::time::Instant::now(), ticks());
        while start.elapsed() < Duration::from_millis(20) {
            std::hint::spin_loop();
        }
        let (real, elapsed) = (start.elapsed(), ticks() - first);
        let measured =
            Duration::from_nanos(((elapsed as u128 * ns_per_tick_q32() as u128) >> 32) as u64);
        // A preemption between the two reads at either end can only skew by its own length; 20 ms
        // against a generous factor of two keeps this free of timing flakiness.
        assert!(
            measured > real / 2 && measured < real * 2,
            "{measured:?} vs {real:?}"
        );
        assert_eq!(
            Duration::from_nanos(ticks_to_ns(elapsed)),
            measured,
            "ticks_to_ns is the same conversion"
        );
    }
}
