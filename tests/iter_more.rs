//! The less common rayon adaptors and consumers (`map_with`/`map_init`, ...) against their sequential
//! std equivalents, on many lengths, in and out of pools.

mod iter_common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use forkjoin::prelude::*;
use iter_common::{everywhere, Rng, LENGTHS};

fn inputs() -> Vec<Vec<u64>> {
    let mut rng = Rng::new(7);
    LENGTHS.iter().map(|&n| rng.vec(n, 1000)).collect()
}

/// The panic message of `f`, which must panic. Panics whose message starts with "expected:" are not
/// printed.
fn panic_message(f: impl FnOnce()) -> String {
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let expected = payload
                .downcast_ref::<&str>()
                .map(|s| s.starts_with("expected:"))
                .or_else(|| {
                    payload
                        .downcast_ref::<String>()
                        .map(|s| s.starts_with("expected:"))
                });
            if expected != Some(true) {
                default(info);
            }
        }));
    });
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("must panic");
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        String::from("<non-string payload>")
    }
}

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
        for v in inputs() {
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

#[test]
fn reduce_with_matches_std_reduce() {
    everywhere(|| {
        for v in inputs() {
            assert_eq!(
                v.par_iter().copied().reduce_with(|a, b| a.wrapping_add(b)),
                v.iter().copied().reduce(|a, b| a.wrapping_add(b))
            );
            // Not commutative: pieces must be combined in order.
            let s: Option<String> = v
                .par_iter()
                .map(|x| x.to_string())
                .reduce_with(|a, b| a + "," + &b);
            let e: Option<String> = v.iter().map(|x| x.to_string()).reduce(|a, b| a + "," + &b);
            assert_eq!(s, e);
            // Unindexed input, where pieces may be empty.
            assert_eq!(
                v.par_iter()
                    .filter(|&&x| x % 7 == 0)
                    .copied()
                    .reduce_with(u64::max),
                v.iter().filter(|&&x| x % 7 == 0).copied().reduce(u64::max)
            );
        }
    });
}

#[test]
fn reduce_with_panics_propagate() {
    everywhere(|| {
        let msg = panic_message(|| {
            (0..10_000u32).into_par_iter().reduce_with(|a, b| {
                assert!(a != 4_321 && b != 4_321, "expected: reduce_with");
                a.max(b)
            });
        });
        assert_eq!(msg, "expected: reduce_with");
    });
}

#[test]
fn flat_map_iter_and_flatten_iter_match_std() {
    everywhere(|| {
        for v in inputs() {
            let got: Vec<u64> = v.par_iter().flat_map_iter(|&x| x..x + x % 5).collect();
            let expect: Vec<u64> = v.iter().flat_map(|&x| x..x + x % 5).collect();
            assert_eq!(got, expect);
            let got = v
                .par_iter()
                .flat_map_iter(|&x| vec![x; (x % 3) as usize])
                .count();
            assert_eq!(got, v.iter().map(|&x| (x % 3) as usize).sum::<usize>());
            // Nothing at all from any item.
            let none: Vec<u64> = v.par_iter().flat_map_iter(|_| None).collect();
            assert!(none.is_empty());
            let nested: Vec<Vec<u64>> = v.iter().map(|&x| (0..x % 4).collect()).collect();
            let got: Vec<u64> = nested.clone().into_par_iter().flatten_iter().collect();
            assert_eq!(got, nested.iter().flatten().copied().collect::<Vec<_>>());
            let got: u64 = nested.par_iter().flatten_iter().sum();
            assert_eq!(got, nested.iter().flatten().sum::<u64>());
            // Short-circuiting consumers see through the adaptor.
            let hit = v
                .par_iter()
                .flat_map_iter(|&x| [x, x + 1])
                .find_any(|&y| y == 1000);
            assert_eq!(hit.is_some(), v.contains(&999));
        }
    });
}

#[test]
fn flat_map_iter_panics_propagate() {
    everywhere(|| {
        let msg = panic_message(|| {
            (0..10_000u32)
                .into_par_iter()
                .flat_map_iter(|x| {
                    assert!(x != 9_999, "expected: flat_map_iter");
                    [x]
                })
                .for_each(|_| {})
        });
        assert_eq!(msg, "expected: flat_map_iter");
        let msg = panic_message(|| {
            (0..100u32)
                .into_par_iter()
                .map(|x| (0..x).map(move |y| assert!(x != 99 || y != 98, "expected: inner")))
                .flatten_iter()
                .for_each(|()| {})
        });
        assert_eq!(msg, "expected: inner");
    });
}

/// The failure positions to try on a length-`n` input: none, the first, a middle and the last.
fn failure_positions(n: usize) -> Vec<Option<usize>> {
    let mut at = vec![None];
    if n > 0 {
        at.extend([Some(0), Some(n / 2), Some(n - 1)]);
    }
    at
}

#[test]
fn try_for_each_matches_std() {
    everywhere(|| {
        for v in inputs() {
            let n = v.len();
            for fail in failure_positions(n) {
                let is_bad = |i: usize| Some(i) == fail;
                let items: Vec<(usize, u64)> = v.iter().copied().enumerate().collect();
                let got =
                    items
                        .par_iter()
                        .try_for_each(|&(i, x)| if is_bad(i) { Err((i, x)) } else { Ok(()) });
                let expect =
                    items
                        .iter()
                        .try_for_each(|&(i, x)| if is_bad(i) { Err((i, x)) } else { Ok(()) });
                assert_eq!(got, expect, "n = {n}, failure at {fail:?}");
                let got = (0..n)
                    .into_par_iter()
                    .try_for_each(|i| (!is_bad(i)).then_some(()));
                assert_eq!(got, fail.map_or(Some(()), |_| None));
                // Unindexed input.
                let got = (0..n)
                    .into_par_iter()
                    .filter(|i| i % 2 == 0 || is_bad(*i))
                    .try_for_each(|i| if is_bad(i) { Err(i) } else { Ok(()) });
                assert_eq!(got, fail.map_or(Ok(()), Err));
            }
        }
    });
}

#[test]
fn try_for_each_returns_one_of_several_failures() {
    everywhere(|| {
        for &n in LENGTHS {
            let got =
                (0..n)
                    .into_par_iter()
                    .try_for_each(|i| if i % 100 == 99 { Err(i) } else { Ok(()) });
            match got {
                Ok(()) => assert!(n < 100),
                Err(i) => assert!(i % 100 == 99 && i < n),
            }
        }
    });
}

#[test]
fn try_for_each_stops_early_on_all_threads() {
    everywhere(|| {
        let n: usize = 1_000_000;
        let processed = AtomicUsize::new(0);
        let got = (0..n).into_par_iter().try_for_each(|i| {
            processed.fetch_add(1, Relaxed);
            if i == 0 {
                Err("first")
            } else {
                Ok(())
            }
        });
        assert_eq!(got, Err("first"));
        let processed = processed.into_inner();
        assert!(processed < n, "processed {processed} of {n}: no early exit");
    });
}

#[test]
fn try_for_each_panics_propagate() {
    everywhere(|| {
        let msg = panic_message(|| {
            let _ = (0..10_000u32).into_par_iter().try_for_each(|x| {
                assert!(x != 7_777, "expected: try_for_each");
                Ok::<(), ()>(())
            });
        });
        assert_eq!(msg, "expected: try_for_each");
    });
}

#[test]
fn while_some_keeps_order_and_stops_at_none() {
    everywhere(|| {
        for &n in LENGTHS {
            for stop in failure_positions(n) {
                let got: Vec<usize> = (0..n)
                    .into_par_iter()
                    .map(|i| (Some(i) != stop).then_some(i))
                    .while_some()
                    .collect();
                match stop {
                    None => assert_eq!(got, (0..n).collect::<Vec<_>>()),
                    Some(s) => {
                        assert!(got.windows(2).all(|w| w[0] < w[1]), "order kept");
                        assert!(got.iter().all(|&i| i < n && i != s));
                        if s == 0 && forkjoin::current_num_threads() == 1 {
                            assert!(got.is_empty(), "one thread stops at once");
                        }
                    }
                }
            }
        }
    });
}

#[test]
fn collect_into_unit_runs_every_item() {
    everywhere(|| {
        for &n in LENGTHS {
            let count = AtomicUsize::new(0);
            let () = (0..n)
                .into_par_iter()
                .map(|_| {
                    count.fetch_add(1, Relaxed);
                })
                .collect();
            assert_eq!(count.into_inner(), n);
        }
    });
}

#[test]
fn collect_into_result_and_option_matches_std() {
    everywhere(|| {
        for v in inputs() {
            let n = v.len();
            for fail in failure_positions(n) {
                let check = |i: usize, x: u64| {
                    if Some(i) == fail {
                        Err(format!("bad {i}"))
                    } else {
                        Ok(x * 2)
                    }
                };
                let items: Vec<(usize, u64)> = v.iter().copied().enumerate().collect();
                let got: Result<Vec<u64>, String> =
                    items.par_iter().map(|&(i, x)| check(i, x)).collect();
                let expect: Result<Vec<u64>, String> =
                    items.iter().map(|&(i, x)| check(i, x)).collect();
                assert_eq!(got, expect, "n = {n}, failure at {fail:?}");
                let got: Option<Vec<u64>> =
                    items.par_iter().map(|&(i, x)| check(i, x).ok()).collect();
                let expect: Option<Vec<u64>> =
                    items.iter().map(|&(i, x)| check(i, x).ok()).collect();
                assert_eq!(got, expect);
                // Other collections, and an unindexed input.
                let got: Result<String, String> = items
                    .par_iter()
                    .filter(|(i, _)| i % 3 != 1)
                    .map(|&(i, x)| check(i, x).map(|y| char::from(b'a' + (y % 26) as u8)))
                    .collect();
                let expect: Result<String, String> = items
                    .iter()
                    .filter(|(i, _)| i % 3 != 1)
                    .map(|&(i, x)| check(i, x).map(|y| char::from(b'a' + (y % 26) as u8)))
                    .collect();
                assert_eq!(got, expect);
                let got: Option<std::collections::BTreeSet<u64>> =
                    items.par_iter().map(|&(i, x)| check(i, x).ok()).collect();
                let expect: Option<std::collections::BTreeSet<u64>> =
                    items.iter().map(|&(i, x)| check(i, x).ok()).collect();
                assert_eq!(got, expect);
            }
        }
    });
}

#[test]
fn collect_into_result_returns_one_of_several_errors() {
    everywhere(|| {
        for &n in LENGTHS {
            let got: Result<Vec<usize>, usize> = (0..n)
                .into_par_iter()
                .map(|i| if i % 100 == 99 { Err(i) } else { Ok(i) })
                .collect();
            match got {
                Ok(v) => assert!(n < 100 && v == (0..n).collect::<Vec<_>>()),
                Err(i) => assert!(i % 100 == 99 && i < n),
            }
        }
    });
}

#[test]
fn collect_into_result_stops_early_on_all_threads() {
    everywhere(|| {
        let n: usize = 1_000_000;
        let processed = AtomicUsize::new(0);
        let got: Result<Vec<usize>, &str> = (0..n)
            .into_par_iter()
            .map(|i| {
                processed.fetch_add(1, Relaxed);
                if i == 0 {
                    Err("first")
                } else {
                    Ok(i)
                }
            })
            .collect();
        assert_eq!(got, Err("first"));
        let processed = processed.into_inner();
        assert!(processed < n, "processed {processed} of {n}: no early exit");
        let processed = AtomicUsize::new(0);
        let got: Option<Vec<usize>> = (0..n)
            .into_par_iter()
            .map(|i| {
                processed.fetch_add(1, Relaxed);
                (i != 0).then_some(i)
            })
            .collect();
        assert_eq!(got, None);
        assert!(processed.into_inner() < n);
    });
}

#[test]
fn collect_into_result_drops_every_item_once() {
    // Owned items that are dropped when an error discards the collection.
    let live = AtomicUsize::new(0);
    struct Counted<'a>(&'a AtomicUsize);
    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Relaxed);
        }
    }
    everywhere(|| {
        for &n in LENGTHS {
            for fail in failure_positions(n) {
                let got: Result<Vec<Counted>, usize> = (0..n)
                    .into_par_iter()
                    .map(|i| {
                        if Some(i) == fail {
                            return Err(i);
                        }
                        live.fetch_add(1, Relaxed);
                        Ok(Counted(&live))
                    })
                    .collect();
                assert_eq!(
                    got.as_ref().map(Vec::len).ok(),
                    fail.map_or(Some(n), |_| None)
                );
                drop(got);
                assert_eq!(live.load(Relaxed), 0, "n = {n}, failure at {fail:?}");
            }
        }
    });
}

#[test]
fn collect_into_result_panics_propagate() {
    everywhere(|| {
        let msg = panic_message(|| {
            let _: Result<Vec<u32>, ()> = (0..10_000u32)
                .into_par_iter()
                .map(|x| {
                    assert!(x != 3_333, "expected: collect Result");
                    Ok(x)
                })
                .collect();
        });
        assert_eq!(msg, "expected: collect Result");
    });
}

#[test]
fn par_extend_matches_std_extend() {
    everywhere(|| {
        for v in inputs() {
            for prefix in [vec![], vec![7u64, 8, 9]] {
                let mut got = prefix.clone();
                got.par_extend(v.par_iter().map(|x| x + 1));
                let mut expect = prefix.clone();
                expect.extend(v.iter().map(|x| x + 1));
                assert_eq!(got, expect);
                // Unindexed, then again on top (a second extend appends after the first).
                got.par_extend(v.par_iter().copied().filter(|x| x % 2 == 1));
                expect.extend(v.iter().copied().filter(|x| x % 2 == 1));
                assert_eq!(got, expect);
                got.par_extend(v.clone());
                expect.extend(v.clone());
                assert_eq!(got, expect);
            }
            let words: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            let mut s = String::from(">");
            s.par_extend(words.par_iter().map(String::as_str));
            s.par_extend(words.par_iter().cloned());
            s.par_extend(words.par_iter().flat_map_iter(|w| w.chars()));
            let mut e = String::from(">");
            e.extend(words.iter().map(String::as_str));
            e.extend(words.iter().cloned());
            e.extend(words.iter().flat_map(|w| w.chars()));
            assert_eq!(s, e);
        }
    });
}

#[test]
fn par_extend_keeps_the_old_items_if_a_closure_panics() {
    everywhere(|| {
        for indexed in [true, false] {
            let mut v = vec![1u64, 2, 3];
            let msg = panic_message(|| {
                let items = (0..10_000u64).into_par_iter();
                let f = |x: u64| {
                    assert!(x != 5_555, "expected: par_extend");
                    x
                };
                if indexed {
                    v.par_extend(items.map(f));
                } else {
                    v.par_extend(items.filter(|x| x % 5 == 0).map(f));
                }
            });
            assert_eq!(msg, "expected: par_extend");
            // Indexed: the written slots are dropped, the length never moved. Unindexed: the pieces
            // are appended only after every piece is done.
            assert_eq!(v, [1, 2, 3], "indexed: {indexed}");
        }
    });
}

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
