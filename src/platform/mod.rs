//! The platform layer: what the rest of the crate needs from the standard library, the operating
//! system and the model checkers, behind one interface.
//!
//! | module | what it wraps |
//! |---|---|
//! | [`sync`] | atomics, cells, fences, threads, thread-locals, the futex and the process-wide barrier; std's, loom's or shuttle's by cfg |
//! | [`clock`] | the cheap tick clock (time-stamp counter or `Instant`; virtual under loom and shuttle) |
//! | [`unwind`] | catching a panic where it happens and resuming it where the result is read |
//! | [`affinity`] | the CPUs the process may run on, and pinning a thread to one |
//! | [`cpu_limit`] | how many CPUs the process may use: its affinity mask and its cgroup CPU quota |
//! | [`fork`] | telling a `fork()`ed child, whose pools lost their threads, from its parent |
//! | [`thread_state`] | whether the kernel runs a thread or has it blocked (`/proc`) |
//!
//! Nothing here imports from another layer of the crate. The scheduler ([`crate::runtime`]) is built
//! on all seven; the iterators use [`sync`] for their shared flags and [`clock`] for batch timing.

pub(crate) mod affinity;
pub(crate) mod clock;
pub(crate) mod cpu_limit;
pub(crate) mod fork;
pub(crate) mod sync;
pub(crate) mod thread_state;
pub(crate) mod unwind;
