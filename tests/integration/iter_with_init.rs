//! `map_with`, `map_init`, `for_each_with` and `for_each_init`: against std's `map`/`for_each` on the
//! usual lengths, in and out of pools; one state per piece (pieces contiguous, `init` run once per
//! piece, `map_with` cloning a fresh state per piece), states that are not `Send`, and panics in the
//! closure or in `init`.

use crate::iter_common;

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use forkjoin::prelude::*;
use iter_common::{everywhere, panic_message, random_inputs, LENGTHS};

/// A per-piece state that records the positions it saw; when dropped it hands them to `sink`.
/// Clones are counted (the `map_with` flavour) and start from the cloned state's record, so a clone
/// of a state that already saw items would show up as a duplicated position.
struct Piece<'a> {
    seen: Vec<usize>,
    sink: &'a Mutex<Vec<Vec<usize>>>,
    made: &'a AtomicUsize,
}

impl<'a> Piece<'a> {
    fn new(sink: &'a Mutex<Vec<Vec<usize>>>, made: &'a AtomicUsize) -> Self {
        made.fetch_add(1, Relaxed);
        Piece {
            seen: Vec::new(),
            sink,
            made,
        }
    }
}

impl Clone for Piece<'_> {
    fn clone(&self) -> Self {
        self.made.fetch_add(1, Relaxed);
        Piece {
            seen: self.seen.clone(),
            sink: self.sink,
            made: self.made,
        }
    }
}

impl Drop for Piece<'_> {
    fn drop(&mut self) {
        if !self.seen.is_empty() {
            self.sink
                .lock()
                .unwrap()
                .push(std::mem::take(&mut self.seen));
        }
    }
}

/// Checks that the recorded runs are contiguous, ascending and together cover `0..n` exactly once
/// (every item processed once, each state private to one contiguous piece); returns their number.
fn check_pieces(sink: Mutex<Vec<Vec<usize>>>, n: usize) -> usize {
    let mut runs = sink.into_inner().unwrap();
    runs.sort_by_key(|r| r[0]);
    for r in &runs {
        assert!(
            r.windows(2).all(|w| w[1] == w[0] + 1),
            "a state saw a non-contiguous run: {:?}..",
            &r[..r.len().min(8)]
        );
    }
    let all: Vec<usize> = runs.concat();
    assert_eq!(all, (0..n).collect::<Vec<_>>(), "pieces do not tile 0..{n}");
    runs.len()
}

#[test]
fn map_with_and_map_init_match_std() {
    everywhere(|| {
        for v in random_inputs(7, 1000) {
            let expect: Vec<u64> = v.iter().map(|x| x * 3 + 1).collect();
            let with: Vec<u64> = v.par_iter().map_with(5u64, |k, x| x * 3 + *k - 4).collect();
            assert_eq!(with, expect);
            let init: Vec<u64> = v.par_iter().map_init(|| 1u64, |k, x| x * 3 + *k).collect();
            assert_eq!(init, expect);
            // Unindexed input (pieces may receive no items at all).
            let expect: Vec<u64> = v.iter().filter(|&&x| x % 3 == 0).map(|x| x + 1).collect();
            let got: Vec<u64> = v
                .par_iter()
                .filter(|&&x| x % 3 == 0)
                .map_init(Vec::<u64>::new, |scratch, x| {
                    scratch.push(*x);
                    x + 1
                })
                .collect();
            assert_eq!(got, expect);
            let sum: u64 = v.par_iter().map_with(2u64, |k, x| x * *k).sum();
            assert_eq!(sum, v.iter().map(|x| x * 2).sum::<u64>());
        }
    });
}

#[test]
fn map_init_state_is_per_piece_and_init_runs_once_per_piece() {
    everywhere(|| {
        for &n in LENGTHS {
            let sink = Mutex::new(Vec::new());
            let inits = AtomicUsize::new(0);
            let out: Vec<usize> = (0..n)
                .into_par_iter()
                .enumerate()
                .map_init(
                    || Piece::new(&sink, &inits),
                    |piece, (i, x)| {
                        piece.seen.push(i);
                        x * 2
                    },
                )
                .collect();
            assert_eq!(out, (0..n).map(|x| x * 2).collect::<Vec<_>>());
            let pieces = check_pieces(sink, n);
            let inits = inits.into_inner();
            // One init per piece that received items: at least one if there are items, never more
            // than the pieces (each piece's run is non-empty and the runs are disjoint).
            assert_eq!(inits, pieces, "n = {n}");
            assert!(n == 0 || inits >= 1);
            assert!(inits <= n);
        }
    });
}

#[test]
fn for_each_init_state_is_per_piece() {
    everywhere(|| {
        for &n in LENGTHS {
            let sink = Mutex::new(Vec::new());
            let inits = AtomicUsize::new(0);
            let processed = AtomicUsize::new(0);
            (0..n).into_par_iter().for_each_init(
                || Piece::new(&sink, &inits),
                |piece, i| {
                    piece.seen.push(i);
                    processed.fetch_add(1, Relaxed);
                },
            );
            assert_eq!(processed.into_inner(), n);
            assert_eq!(check_pieces(sink, n), inits.into_inner());
        }
    });
}

#[test]
fn map_with_clones_a_fresh_state_per_piece() {
    everywhere(|| {
        for &n in LENGTHS {
            let sink = Mutex::new(Vec::new());
            let made = AtomicUsize::new(0);
            let template = Piece::new(&sink, &made);
            let out: Vec<usize> = (0..n)
                .into_par_iter()
                .map_with(template, |piece, i| {
                    piece.seen.push(i);
                    i + 1
                })
                .collect();
            assert_eq!(out, (1..=n).collect::<Vec<_>>());
            // A clone of a state that had seen items would duplicate positions: check_pieces fails.
            let pieces = check_pieces(sink, n);
            assert!(made.into_inner() > pieces, "every piece works on a clone");
        }
    });
}

#[test]
fn for_each_with_processes_every_item_once() {
    everywhere(|| {
        for &n in LENGTHS {
            let sink = Mutex::new(Vec::new());
            let made = AtomicUsize::new(0);
            let counts: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            (0..n)
                .into_par_iter()
                .for_each_with(Piece::new(&sink, &made), |piece, i| {
                    piece.seen.push(i);
                    counts[i].fetch_add(1, Relaxed);
                });
            assert!(counts.iter().all(|c| c.load(Relaxed) == 1));
            check_pieces(sink, n);
        }
    });
}

#[test]
fn map_init_accepts_a_state_that_is_not_send() {
    use std::cell::Cell;
    use std::rc::Rc;
    everywhere(|| {
        let v: Vec<u64> = (0..10_000).collect();
        let got: Vec<u64> = v
            .par_iter()
            .map_init(
                || Rc::new(Cell::new(0u64)),
                |rc, x| {
                    rc.set(rc.get() + 1);
                    x + 1
                },
            )
            .collect();
        assert_eq!(got, (1..=10_000).collect::<Vec<_>>());
    });
}

#[test]
fn map_with_and_map_init_panics_propagate() {
    everywhere(|| {
        let msg = panic_message(|| {
            (0..100_000u32)
                .into_par_iter()
                .map_init(
                    || 0u32,
                    |_, x| {
                        if x == 77_777 {
                            panic!("expected: map_init")
                        } else {
                            x
                        }
                    },
                )
                .for_each(|_| {})
        });
        assert_eq!(msg, "expected: map_init");
        let msg = panic_message(|| {
            (0..1000u32)
                .into_par_iter()
                .for_each_init(|| -> u32 { panic!("expected: init") }, |_, _| {})
        });
        assert_eq!(msg, "expected: init");
        let msg = panic_message(|| {
            (0..1000u32)
                .into_par_iter()
                .for_each_with(0u8, |_, x| assert!(x != 999, "expected: for_each_with"))
        });
        assert_eq!(msg, "expected: for_each_with");
    });
}
