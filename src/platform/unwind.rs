//! Panic capture and propagation.
//!
//! Jobs run on threads other than the one that will observe their result, so a panic is caught where it
//! happens ([`halt_unwinding`]), carried as a payload, and re-raised where the result is consumed
//! ([`resume_unwinding`]). [`AbortIfPanic`] guards the few regions where unwinding would leave shared
//! state inconsistent (e.g. between taking a job and setting its latch).

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

/// A caught panic payload.
pub(crate) type Payload = Box<dyn Any + Send + 'static>;

/// Runs `f`, returning its panic payload instead of unwinding.
///
/// The closure is asserted unwind-safe: every caller either re-raises the payload after the shared
/// state is consistent again, or hands it to the user's panic handler.
#[inline]
pub(crate) fn halt_unwinding<F, R>(f: F) -> Result<R, Payload>
where
    F: FnOnce() -> R,
{
    #[cfg(forkjoin_shuttle)]
    {
        // The simulation's timing mode charges the unwinding it stops (`sync::sim::vtime`).
        use crate::platform::sync::sim::vtime;
        let outer = vtime::unwind_catch_begin();
        let result = panic::catch_unwind(AssertUnwindSafe(f));
        vtime::unwind_caught(stack_address(), result.is_err(), outer);
        result
    }
    #[cfg(not(forkjoin_shuttle))]
    panic::catch_unwind(AssertUnwindSafe(f))
}

/// Re-raises a payload caught by [`halt_unwinding`] without invoking the panic hook again.
pub(crate) fn resume_unwinding(payload: Payload) -> ! {
    #[cfg(forkjoin_shuttle)]
    crate::platform::sync::sim::vtime::unwind_raised(stack_address());
    panic::resume_unwind(payload)
}

/// Called by a destructor that runs during an unwinding and may wait for another thread (a `join`
/// finishing its b): the simulation's timing mode charges the frames unwound so far now. Nothing
/// elsewhere.
#[inline(always)]
pub(crate) fn unwinding_passes_here() {
    #[cfg(forkjoin_shuttle)]
    crate::platform::sync::sim::vtime::unwind_passing(stack_address());
}

/// An address in the caller's frame (the simulation charges the frames an unwinding passes
/// between two such addresses).
#[cfg(forkjoin_shuttle)]
#[inline(always)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// The message carried by a panic payload, if it is a string.
pub(crate) fn payload_message(payload: &Payload) -> &str {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "<non-string panic payload>"
    }
}

/// Prints a runtime message on stderr. Never panics (unlike `eprintln!`, which panics when stderr is
/// a closed pipe): a report must not unwind into a worker loop.
pub(crate) fn report(message: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "forkjoin: {message}");
}

/// Aborts the process if dropped during a panic: for code that must never unwind because a waiter
/// would otherwise hang or memory would be freed twice.
pub(crate) struct AbortIfPanic;

impl Drop for AbortIfPanic {
    fn drop(&mut self) {
        report(format_args!(
            "a runtime invariant was broken by an unexpected panic; aborting"
        ));
        std::process::abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halt_then_resume_round_trips_the_payload() {
        let caught = halt_unwinding(|| -> u32 { panic!("boom {}", 7) }).unwrap_err();
        assert_eq!(payload_message(&caught), "boom 7");
        let again = halt_unwinding(|| resume_unwinding(caught)).unwrap_err();
        assert_eq!(payload_message(&again), "boom 7");
    }

    #[test]
    fn halt_passes_values_through() {
        assert_eq!(halt_unwinding(|| 41 + 1).unwrap(), 42);
    }

    #[test]
    fn static_str_payloads_are_readable() {
        let caught = halt_unwinding(|| std::panic::panic_any("plain")).unwrap_err();
        assert_eq!(payload_message(&caught), "plain");
        let other = halt_unwinding(|| std::panic::panic_any(5u8)).unwrap_err();
        assert_eq!(payload_message(&other), "<non-string panic payload>");
    }
}
