//! forkjoin's runtime under rayon-core's name and layout.
//!
//! Patch it over rayon-core (together with the `rayon` crate beside it) and every crate of a
//! dependency tree that calls rayon or rayon-core runs on forkjoin's pool instead: one pool per
//! process, not one of each fighting for the cores.
//!
//! ```toml
//! [patch.crates-io]
//! rayon = { path = "path/to/forkjoin/compat/rayon" }
//! rayon-core = { path = "path/to/forkjoin/compat/rayon-core" }
//! ```
//!
//! Every item is forkjoin's (`forkjoin::join` is `rayon_core::join`); see forkjoin's
//! `docs/rayon-compatibility.md` for the few differences.

#[allow(deprecated)]
pub use forkjoin::{initialize, Configuration};
pub use forkjoin::{
    broadcast, current_num_threads, current_thread_has_pending_tasks, current_thread_index,
    in_place_scope, in_place_scope_fifo, join, join_context, max_num_threads, scope, scope_fifo,
    spawn, spawn_broadcast, spawn_fifo, yield_local, yield_now, BroadcastContext, FnContext, Scope,
    ScopeFifo, ThreadBuilder, ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder, Yield,
};
