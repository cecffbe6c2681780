//! loom model checks for forkjoin's concurrent protocols live in `tests/`, one file per primitive.
//!
//! They compile to nothing unless built with `--cfg forkjoin_loom`; see the README for the command.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// The paths a model took over all its interleavings: each model requires every path it names, so
/// one that stopped reaching a race fails instead of passing without checking it.
#[derive(Clone, Default)]
pub struct Reached(Arc<Mutex<BTreeSet<&'static str>>>);

impl Reached {
    /// Notes that an interleaving took `path`.
    pub fn note(&self, path: &'static str) {
        self.0.lock().unwrap().insert(path);
    }

    /// Fails unless some interleaving took each of `paths`.
    pub fn require(&self, paths: &[&'static str]) {
        let reached = self.0.lock().unwrap();
        for path in paths {
            assert!(reached.contains(path), "no interleaving reached {path:?}");
        }
    }
}
