//! The scheduler: work-stealing deques, jobs and latches, the sleep protocol, the pool's workers,
//! and the public runtime API built on them.
//!
//! ```text
//! runtime/
//!   deque/       Chase-Lev deque: Worker / Stealer / Steal, growable buffer, epoch reclamation
//!   trace/       opt-in event tracing (FORKJOIN_TRACE): per-worker rings, Chrome JSON
//!   sleep/       idle workers: counters, sleep slots, the wake-up protocol (README), the work map
//!   cancel/      cancellation tokens, their nodes and the deadline timer
//!   jobs/        job references, latches, the owner-private job stack, the FIFO queue of spawns,
//!                regions and caps
//!   registry/    a pool's state, the worker loop and its search, starting threads, entering a pool
//!   sharing.rs   work sharing, the one door for `iter/` and `sort/`: when to split, how to offer work
//!   future/      spawn_future's JobFuture (a lock-free oneshot channel) and block_on
//!   join.rs, scope.rs, scope_fifo.rs, spawn.rs, broadcast.rs, yield_now.rs, cancellable.rs,
//!   max_threads.rs, thread_pool.rs, builder.rs, stats.rs, configuration.rs, error.rs
//!                the public API
//! ```
//!
//! Imports point down that list (`deque` and `trace` use only [`crate::platform`]; `sleep` uses
//! `deque`; `jobs` use `sleep` and `trace`; `registry` uses all of those; the API files use
//! `registry`). The folders are private to this module: outside it the crate sees only the public
//! API (re-exported from the crate root), [`sharing`], and [`deque`], which is public in its own right.
//! `tests/layers.rs` checks both rules on the source.

pub mod deque;
mod jobs;
mod registry;
mod sleep;
mod trace;

pub use registry::handler_panic::{HandlerPanic, WorkerHandler};
pub use registry::thread_builder::ThreadBuilder;

pub(crate) mod sharing;

pub(crate) mod broadcast;
pub(crate) mod builder;
pub(crate) mod cancel;
pub(crate) mod cancellable;
pub(crate) mod configuration;
pub(crate) mod error;
pub(crate) mod future;
pub(crate) mod join;
pub(crate) mod max_threads;
pub(crate) mod offers;
pub(crate) mod scope;
pub(crate) mod scope_fifo;
pub(crate) mod spawn;
pub(crate) mod stats;
pub(crate) mod thread_pool;
pub(crate) mod yield_now;

// The loom models (`loom-tests/models/`) are unit tests of the crate, so that they reach the
// scheduler's internals while those stay `pub(crate)`; docs/testing.md has the command.
#[cfg(all(test, forkjoin_loom))]
#[path = "../../loom-tests/models/mod.rs"]
mod loom_models;
