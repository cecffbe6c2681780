//! loom model checks of forkjoin's concurrent protocols, one file per primitive. They are unit
//! tests of the crate (included from `src/runtime/mod.rs` under `cfg(all(test, forkjoin_loom))`),
//! so they reach the scheduler's internals as `crate::runtime::...` while those stay private to
//! the crate. docs/testing.md has the command.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

mod cancel;
mod cap;
mod deque;
mod future;
mod join;
mod latch;
mod region;
mod resize;
mod sleep;
mod work_map;

/// The paths a model took over all its interleavings: each model requires every path it names, so
/// one that stopped reaching a race fails instead of passing without checking it.
#[derive(Clone, Default)]
struct Reached(Arc<Mutex<BTreeSet<&'static str>>>);

impl Reached {
    /// Notes that an interleaving took `path`.
    fn note(&self, path: &'static str) {
        self.0.lock().unwrap().insert(path);
    }

    /// Fails unless some interleaving took each of `paths`.
    fn require(&self, paths: &[&'static str]) {
        let reached = self.0.lock().unwrap();
        for path in paths {
            assert!(reached.contains(path), "no interleaving reached {path:?}");
        }
    }
}
