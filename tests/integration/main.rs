//! The integration tests that can share a process and are quick to build, as one test binary: each
//! file of this folder is a module (`cargo test --profile release-tests --test integration --
//! join::` runs one). One binary links once instead of once per file, and runs the tests of every
//! file side by side.
//!
//! The other tests are files of their own under `tests/`, each its own binary (`docs/testing.md`,
//! "Normal tests"):
//!
//! - those that need a process of their own: they configure or depend on state of the whole
//!   process (the global pool's configuration, `build_global`, `FORKJOIN_*` variables, `fork`, a
//!   global allocator, counts of the process's threads or CPU time), or, as `no_stranded_work.rs`,
//!   need every party of a barrier on a CPU at once, which the oversubscribed pools of tests
//!   running beside it would stretch towards its watchdog's limit;
//! - the iterator tests whose build takes 20 s or more (`iter_differential.rs`, `iter_ranges.rs`,
//!   ...): their cost is the code they instantiate, which one binary does not share, and with them
//!   this binary took about 1.3 times the CPU time they all take apart (`docs/testing.md`).

// `examples.rs` includes examples as they are, and they bring their own copies of files that
// `trace.rs` and `iter_common` load too (`examples/common/trace_json.rs`, `iter_common/spin.rs`):
// separate modules, each used by its own includer.
#![allow(clippy::duplicate_mod)]

#[path = "../common/mod.rs"]
mod common;
#[path = "../iter_common/mod.rs"]
mod iter_common;

mod broadcast;
mod cancel;
mod deque;
mod deque_stress;
mod doc_names;
mod examples;
mod futures;
mod install;
mod iter_any_order;
mod iter_blocks;
mod iter_collect_result;
mod iter_drain_full;
mod iter_flat_map_iter;
mod iter_fold_chunks;
mod iter_fold_with;
mod iter_nested;
mod iter_owned;
mod iter_panic_fuse;
mod iter_par_bridge;
mod iter_par_extend;
mod iter_reduce_with;
mod iter_slice_sources;
mod iter_split;
mod iter_try_fold;
mod iter_try_for_each;
mod iter_with_init;
mod iter_with_min_len;
mod join;
mod layers;
mod max_threads;
mod no_deadlock;
mod no_deadlock_at_depth;
mod panic;
mod pinning;
mod pool;
mod pool_spawn_handler;
mod rayon_consumers;
mod runtime_regressions;
mod scope;
mod scope_fifo;
mod sleep;
mod sort;
mod spawn;
mod stack;
mod trace;
mod yield_now;
