//! forkjoin under rayon's name and layout.
//!
//! Patch it over rayon (together with the `rayon-core` crate beside it) and every crate of a
//! dependency tree that calls rayon runs on forkjoin instead:
//!
//! ```toml
//! [patch.crates-io]
//! rayon = { path = "path/to/forkjoin/compat/rayon" }
//! rayon-core = { path = "path/to/forkjoin/compat/rayon-core" }
//! ```
//!
//! `cargo tree -i rayon` then shows this crate, over forkjoin. Every item is forkjoin's (the
//! modules are forkjoin's modules of the same names, the runtime items come through
//! `rayon_core`, as in rayon); see forkjoin's `docs/rayon-compatibility.md` for the few
//! differences.

pub use forkjoin::{
    array, collections, iter, option, prelude, range, range_inclusive, result, slice, str, string,
    vec,
};
#[allow(deprecated)]
pub use rayon_core::{initialize, Configuration};
pub use rayon_core::{
    broadcast, current_num_threads, current_thread_index, in_place_scope, in_place_scope_fifo,
    join, join_context, max_num_threads, scope, scope_fifo, spawn, spawn_broadcast, spawn_fifo,
    yield_local, yield_now, BroadcastContext, FnContext, Scope, ScopeFifo, ThreadBuilder,
    ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder, Yield,
};
