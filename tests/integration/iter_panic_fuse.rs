//! `panic_fuse`: the same items as without it when nothing panics (indexed and unindexed, in and
//! out of pools); after a panic the other pieces stop early, and owned items are dropped once.

use crate::iter_common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use forkjoin::prelude::*;
use forkjoin::ThreadPoolBuilder;
use iter_common::{assert_dropped_once, everywhere, tracked, Rng, LENGTHS};

#[test]
fn without_a_panic_the_items_are_unchanged() {
    everywhere(|| {
        let mut rng = Rng::new(5);
        for &n in LENGTHS {
            let v = rng.vec(n, 1000);
            let got: Vec<u64> = v.par_iter().copied().panic_fuse().collect();
            assert_eq!(got, v);
            let got: Vec<u64> = v
                .par_iter()
                .copied()
                .panic_fuse()
                .with_max_len(1)
                .rev()
                .collect();
            assert_eq!(got, v.iter().rev().copied().collect::<Vec<_>>());
            assert_eq!(v.par_iter().panic_fuse().len(), n);
            let odd: Vec<u64> = v
                .par_iter()
                .copied()
                .filter(|x| x % 2 == 1)
                .panic_fuse()
                .collect();
            assert_eq!(
                odd,
                v.iter().copied().filter(|x| x % 2 == 1).collect::<Vec<_>>()
            );
            let pairs: Vec<(usize, u64)> = v.par_iter().copied().panic_fuse().enumerate().collect();
            assert_eq!(pairs, v.iter().copied().enumerate().collect::<Vec<_>>());
        }
    });
}

/// Items reached by `for_each` on `0..n` cut into single items, when item `victim` panics
/// downstream (`inspect`) of `iter`.
fn reached(iter: impl ParallelIterator<Item = usize>, victim: usize) -> usize {
    let count = AtomicUsize::new(0);
    let result = catch_unwind(AssertUnwindSafe(|| {
        iter.inspect(|&i| assert!(i != victim, "boom"))
            .for_each(|_| {
                count.fetch_add(1, Ordering::Relaxed);
            })
    }));
    assert!(result.is_err());
    count.into_inner()
}

#[test]
fn after_a_panic_the_other_pieces_stop() {
    // One thread: the pieces run in order, so how far they get is deterministic.
    let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    pool.install(|| {
        let n = 1000;
        let items = || (0..n).into_par_iter().with_max_len(1);
        for victim in [0, 1, n / 2, n - 2] {
            // Without the fuse every other item is reached.
            assert_eq!(reached(items(), victim), n - 1);
            // With it (consumer and producer side), the pieces after the panic stop.
            assert_eq!(reached(items().panic_fuse(), victim), victim);
            let through_producer = reached(items().panic_fuse().rev(), n - 1 - victim);
            assert_eq!(through_producer, victim);
            let unindexed = reached(items().filter(|_| true).panic_fuse(), victim);
            assert_eq!(unindexed, victim);
        }
    });
}

#[test]
fn a_panic_drops_owned_items_once() {
    everywhere(|| {
        for n in [1usize, 2, 100, 1025] {
            for victim in [0, n / 2, n - 1] {
                let (items, drops) = tracked(n);
                let res = catch_unwind(AssertUnwindSafe(|| {
                    items
                        .into_par_iter()
                        .panic_fuse()
                        .for_each(|t| assert!(t.id != victim, "boom"))
                }));
                assert!(res.is_err());
                assert_dropped_once(&drops, "panic_fuse for_each");

                let (items, drops) = tracked(n);
                let res = catch_unwind(AssertUnwindSafe(|| {
                    let _: Vec<_> = items
                        .into_par_iter()
                        .panic_fuse()
                        .map(|t| {
                            assert!(t.id != victim, "boom");
                            t
                        })
                        .collect();
                }));
                assert!(res.is_err());
                assert_dropped_once(&drops, "panic_fuse collect");
            }
        }
    });
}
