//! `fold_with`: one accumulator per piece, each started from a clone of the initial value,
//! against the sequential fold.

use crate::iter_common;

use std::sync::mpsc;

use forkjoin::prelude::*;
use iter_common::{assert_dropped_once, assert_panics, everywhere, random_inputs, tracked};

#[test]
fn fold_with_matches_the_sequential_fold() {
    everywhere(|| {
        for v in random_inputs(3, 1000) {
            let n = v.len();
            // Concatenation is associative but not commutative: the pieces stay in order.
            let pieces: Vec<Vec<u64>> = v
                .par_iter()
                .fold_with(Vec::new(), |mut acc, &x| {
                    acc.push(x);
                    acc
                })
                .collect();
            assert!(!pieces.is_empty(), "n = {n}: at least one accumulator");
            assert_eq!(pieces.concat(), v, "n = {n}");
            let sum: u64 = v.par_iter().fold_with(0u64, |a, &x| a + x).sum();
            assert_eq!(sum, v.iter().sum::<u64>());
            // After an unindexed adaptor, too.
            let odd = v
                .par_iter()
                .filter(|&&x| x % 2 == 1)
                .fold_with(0usize, |a, _| a + 1)
                .sum::<usize>();
            assert_eq!(odd, v.iter().filter(|&&x| x % 2 == 1).count());
        }
    });
}

#[test]
fn fold_with_clones_the_state_per_piece() {
    // rayon's own test: an `mpsc::Sender` as the state, one clone per piece.
    everywhere(|| {
        let (sender, receiver) = mpsc::channel();
        (0..1024u32)
            .into_par_iter()
            .fold_with(sender, |s, i| {
                s.send(i).unwrap();
                s
            })
            .for_each(drop);
        let mut got: Vec<u32> = receiver.iter().collect();
        got.sort_unstable();
        assert!(got.into_iter().eq(0..1024));
    });
}

#[test]
fn fold_with_drops_owned_items_once_and_propagates_panics() {
    everywhere(|| {
        for &n in &[0, 1, 64, 1000] {
            let (items, drops) = tracked(n);
            // The items are dropped inside the fold; the accumulators keep their ids.
            let ids: Vec<usize> = items
                .into_par_iter()
                .fold_with(Vec::new(), |mut acc, t| {
                    acc.push(t.id);
                    acc
                })
                .flatten_iter()
                .collect();
            assert!(ids.into_iter().eq(0..n));
            assert_dropped_once(&drops, "fold_with");
        }
        let (items, drops) = tracked(1000);
        assert_panics(
            || {
                items
                    .into_par_iter()
                    .fold_with(Vec::new(), |mut acc, t| {
                        if t.id == 600 {
                            panic!("fold_with boom");
                        }
                        acc.push(t.id);
                        acc
                    })
                    .for_each(drop)
            },
            "fold_with boom",
        );
        assert_dropped_once(&drops, "fold_with panic");
    });
}

#[test]
fn clone_and_debug_like_rayon() {
    let it = (0..10).into_par_iter().fold_with(0, |a, x| a + x);
    let base = format!("{:?}", (0..10).into_par_iter());
    assert_eq!(
        format!("{it:?}"),
        format!("FoldWith {{ base: {base}, item: 0 }}")
    );
    let total: i32 = it.clone().sum();
    assert_eq!(total, it.sum::<i32>());
}
