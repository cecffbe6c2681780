//! forkjoin: a fork-join parallelism runtime built on hand-written Chase-Lev work-stealing deques.
//!
//! ```
//! fn fib(n: u64) -> u64 {
//!     if n < 2 {
//!         return n;
//!     }
//!     let (a, b) = forkjoin::join(|| fib(n - 1), || fib(n - 2));
//!     a + b
//! }
//! assert_eq!(fib(20), 6765);
//! ```
//!
//! Layers (a module imports only its own layer or lower, and never in a cycle):
//! `sync`/`util`/`clock`/`affinity` → `deque`/`unwind`/`trace` → `sleep`/`latch`/`job`/`jobstack` → `registry`
//! → `worker` → `entry` → `pool`/`join`/`scope`/`spawn`/`hints` → `iter`/`sort` (which reach the
//! scheduler only through `hints`).
#![warn(missing_docs)]

mod affinity;
mod clock;
mod sync;
mod util;

pub mod deque;
mod unwind;

mod trace;

mod job;
mod jobstack;
mod latch;
mod sleep;

mod entry;
mod registry;
mod worker;

mod hints;

mod error;
mod join;
mod pool;
mod scope;
mod spawn;

pub mod iter;
pub mod prelude;
mod sort;

pub use error::ThreadPoolBuildError;
pub use join::{join, join_context, FnContext};
pub use pool::{
    current_num_threads, current_thread_index, flush_trace, PoolStats, ThreadPool,
    ThreadPoolBuilder, WorkerStats,
};
pub use scope::{scope, Scope};
pub use spawn::spawn;

// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

// So is the example of docs/tracing.md.
#[cfg(doctest)]
#[doc = include_str!("../docs/tracing.md")]
struct TracingDoctests;

/// Internals the loom models in `loom-tests/` need; not part of the public API.
#[cfg(forkjoin_loom)]
#[doc(hidden)]
pub mod __loom {
    pub use crate::deque::Reclaimer;
    pub use crate::job::{JobRef, StackJob};
    pub use crate::jobstack::{JobStackOwner, JobStackThief, Pushed};
    pub use crate::latch::{CoreLatch, Latch, SpinLatch};
    pub use crate::sleep::{IdleState, Idled, Sleep};
    pub use crate::sync::heavy_barrier;
    pub use crossbeam_epoch::Collector;
}
