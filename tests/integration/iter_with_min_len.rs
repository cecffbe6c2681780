//! `with_min_len`: a piece too short to split in two is folded whole, never cut into batches (a
//! cut of a `repeat_n` producer clones its item; rayon's `count_repeat_n_clones`).

use crate::iter_common;

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use forkjoin::prelude::*;
use iter_common::everywhere;

/// A piece too short to split under `with_min_len` is folded whole, never cut into batches: a cut
/// of a `repeat_n` producer clones its item (rayon's `count_repeat_n_clones`).
#[test]
fn an_unsplittable_piece_is_not_cut_into_batches() {
    static CLONES: AtomicUsize = AtomicUsize::new(0);
    struct Counted;
    impl Clone for Counted {
        fn clone(&self) -> Self {
            CLONES.fetch_add(1, Relaxed);
            Counted
        }
    }
    everywhere(|| {
        CLONES.store(0, Relaxed);
        let n = forkjoin::iter::repeat_n(Counted, 100)
            .step_by(99)
            .with_min_len(2)
            .count();
        assert_eq!(n, 2);
        // One clone for the first of the two items; the last one is the original.
        assert_eq!(CLONES.load(Relaxed), 1);
    });
}
