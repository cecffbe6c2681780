//! `chain`, `step_by`, `chunks`, `interleave`, `interleave_shortest`: against std (or a
//! sequential model) on the usual lengths, in and out of pools; cut at every position
//! (`with_max_len(1)`) and through `zip`/`enumerate`; owned items dropped exactly once; panics.

mod common;
mod iter_common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use forkjoin::prelude::*;
use iter_common::{everywhere, Rng, LENGTHS};

fn inputs() -> Vec<Vec<u64>> {
    let mut rng = Rng::new(13);
    LENGTHS.iter().map(|&n| rng.vec(n, 1000)).collect()
}

/// Small lengths, every pair: where interleavings change shape.
const SMALL: &[usize] = &[0, 1, 2, 3, 4, 7, 8];

/// std's interleaving of `a` and `b`, `a` first; `shortest` stops when the side due is empty.
fn interleave_model(a: &[u64], b: &[u64], shortest: bool) -> Vec<u64> {
    let (mut a, mut b) = (a.iter(), b.iter());
    let mut out = Vec::new();
    loop {
        match a.next() {
            Some(&x) => out.push(x),
            None if shortest => return out,
            None => {
                out.extend(b);
                return out;
            }
        }
        match b.next() {
            Some(&y) => out.push(y),
            None if shortest => return out,
            None => {
                out.extend(a);
                return out;
            }
        }
    }
}

#[test]
fn chain_matches_std() {
    everywhere(|| {
        let all = inputs();
        for (v, w) in all.iter().zip(all.iter().rev()) {
            let expected: Vec<u64> = v.iter().chain(w).copied().collect();
            let got: Vec<u64> = v.par_iter().chain(w.par_iter()).copied().collect();
            assert_eq!(got, expected);
            let got: Vec<u64> = v.par_iter().chain(w).copied().with_max_len(1).collect();
            assert_eq!(got, expected);
            // Indexed: length, enumerate, zip, and a collect that writes by position.
            assert_eq!(v.par_iter().chain(w).len(), v.len() + w.len());
            let e: Vec<(usize, &u64)> = v.par_iter().chain(w).enumerate().collect();
            assert_eq!(e, v.iter().chain(w).enumerate().collect::<Vec<_>>());
            let z: Vec<(&u64, u64)> = v.par_iter().chain(w).zip(0..u64::MAX).collect();
            assert_eq!(z, v.iter().chain(w).zip(0..).collect::<Vec<_>>());
            // Unindexed on either side.
            let odd = |x: &&u64| **x % 2 == 1;
            let got: Vec<&u64> = v.par_iter().filter(odd).chain(w.par_iter()).collect();
            assert_eq!(got, v.iter().filter(odd).chain(w).collect::<Vec<_>>());
            let got: Vec<&u64> = v.par_iter().chain(w.par_iter().filter(odd)).collect();
            assert_eq!(
                got,
                v.iter().chain(w.iter().filter(odd)).collect::<Vec<_>>()
            );
            let s = v
                .par_iter()
                .chain(w)
                .map(|x| x.to_string())
                .reduce(String::new, |a, b| a + &b);
            assert_eq!(
                s,
                v.iter().chain(w).map(|x| x.to_string()).collect::<String>()
            );
            assert_eq!(
                v.par_iter().chain(w).position_first(|&x| x > 500),
                v.iter().chain(w).position(|&x| x > 500)
            );
        }
    });
}

#[test]
fn step_by_and_chunks_match_std() {
    everywhere(|| {
        for v in inputs() {
            for step in [1, 2, 3, 7, 64, 1000, usize::MAX] {
                let expected: Vec<u64> = v.iter().copied().step_by(step).collect();
                let got: Vec<u64> = v.par_iter().copied().step_by(step).collect();
                assert_eq!(got, expected, "step_by({step}) of {}", v.len());
                assert_eq!(v.par_iter().step_by(step).len(), expected.len());
                let got: Vec<(usize, u64)> = v
                    .par_iter()
                    .copied()
                    .step_by(step)
                    .with_max_len(1)
                    .enumerate()
                    .collect();
                assert_eq!(
                    got,
                    expected.iter().copied().enumerate().collect::<Vec<_>>()
                );

                let size = step.min(5000);
                let expected: Vec<Vec<u64>> = v.chunks(size).map(<[u64]>::to_vec).collect();
                let got: Vec<Vec<u64>> = v.par_iter().copied().chunks(size).collect();
                assert_eq!(got, expected, "chunks({size}) of {}", v.len());
                assert_eq!(v.par_iter().chunks(size).len(), expected.len());
                let got: Vec<Vec<u64>> =
                    v.par_iter().copied().chunks(size).with_max_len(1).collect();
                assert_eq!(got, expected);
            }
        }
    });
}

#[test]
fn interleavings_match_a_sequential_model() {
    everywhere(|| {
        let mut pairs: Vec<(Vec<u64>, Vec<u64>)> = Vec::new();
        for &n in SMALL {
            for &m in SMALL {
                pairs.push(((0..n as u64).collect(), (100..100 + m as u64).collect()));
            }
        }
        let all = inputs();
        for (v, w) in all.iter().zip(all.iter().skip(3)) {
            pairs.push((v.clone(), w.clone()));
            pairs.push((w.clone(), v.clone()));
        }
        for (a, b) in &pairs {
            for shortest in [false, true] {
                let expected = interleave_model(a, b, shortest);
                let (ai, bi) = (a.par_iter().copied(), b.par_iter().copied());
                let got: Vec<u64> = if shortest {
                    ai.interleave_shortest(bi).collect()
                } else {
                    ai.interleave(bi).collect()
                };
                assert_eq!(got, expected, "{} and {}", a.len(), b.len());
                // Cut at every position, and the length.
                let (ai, bi) = (a.par_iter().copied(), b.par_iter().copied());
                let (got, len): (Vec<u64>, usize) = if shortest {
                    let it = ai.interleave_shortest(bi);
                    let len = it.len();
                    (it.with_max_len(1).collect(), len)
                } else {
                    let it = ai.interleave(bi);
                    let len = it.len();
                    (it.with_max_len(1).collect(), len)
                };
                assert_eq!(got, expected);
                assert_eq!(len, expected.len());
                // A split at each index, checked directly through `skip` and `take`.
                for k in [0, 1, expected.len() / 2, expected.len()] {
                    let got: Vec<u64> = a
                        .par_iter()
                        .copied()
                        .interleave(b.par_iter().copied())
                        .skip(k)
                        .collect();
                    assert_eq!(
                        got,
                        interleave_model(a, b, false)[k.min(a.len() + b.len())..]
                    );
                }
            }
        }
    });
}

/// An item that records how often it was dropped.
#[derive(Debug)]
struct Tracked {
    id: usize,
    drops: Arc<Vec<AtomicUsize>>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.drops[self.id].fetch_add(1, Ordering::Relaxed);
    }
}

fn tracked(n: usize) -> (Vec<Tracked>, Vec<Tracked>, Arc<Vec<AtomicUsize>>) {
    let drops: Arc<Vec<AtomicUsize>> = Arc::new((0..2 * n).map(|_| AtomicUsize::new(0)).collect());
    let make = |ids: std::ops::Range<usize>| -> Vec<Tracked> {
        ids.map(|id| Tracked {
            id,
            drops: Arc::clone(&drops),
        })
        .collect()
    };
    let (a, b) = (make(0..n), make(n..n + n / 2));
    (a, b, drops)
}

fn assert_dropped_once(drops: &[AtomicUsize], upto: usize, what: &str) {
    for (id, d) in drops.iter().enumerate().take(upto) {
        assert_eq!(d.load(Ordering::Relaxed), 1, "{what}: item {id}");
    }
}

#[test]
fn owned_items_are_dropped_exactly_once() {
    everywhere(|| {
        for &n in LENGTHS {
            let total = n + n / 2;
            let (a, b, drops) = tracked(n);
            let out: Vec<Tracked> = a.into_par_iter().chain(b).collect();
            assert!(out.iter().enumerate().all(|(i, t)| t.id == i));
            drop(out);
            assert_dropped_once(&drops, total, "chain");

            let (a, b, drops) = tracked(n);
            let hit = a
                .into_par_iter()
                .interleave(b)
                .find_first(|t| t.id % 5 == 4);
            drop(hit);
            assert_dropped_once(&drops, total, "interleave+find_first");

            let (a, b, drops) = tracked(n);
            let kept = a.into_par_iter().interleave_shortest(b).count();
            assert_eq!(kept, if n == 0 { 0 } else { 2 * (n / 2) + 1 });
            assert_dropped_once(&drops, total, "interleave_shortest");

            let (a, _b, drops) = tracked(n);
            let chunks: Vec<Vec<Tracked>> = a.into_par_iter().step_by(2).chunks(3).collect();
            assert_eq!(chunks.iter().map(Vec::len).sum::<usize>(), n.div_ceil(2));
            drop(chunks);
            drop(_b);
            assert_dropped_once(&drops, total, "step_by+chunks");
        }
    });
}

#[test]
fn a_panic_midway_propagates_and_drops_every_item_once() {
    everywhere(|| {
        for n in [1usize, 2, 100, 1025, 65_537] {
            for victim in [0, n / 2, n - 1] {
                let total = n + n / 2;
                let (a, b, drops) = tracked(n);
                let res = catch_unwind(AssertUnwindSafe(|| {
                    a.into_par_iter()
                        .chain(b)
                        .chunks(4)
                        .for_each(|c| assert!(c.iter().all(|t| t.id != victim), "boom"))
                }));
                assert!(res.is_err());
                assert_dropped_once(&drops, total, "chain+chunks panic");

                let (a, b, drops) = tracked(n);
                let res = catch_unwind(AssertUnwindSafe(|| {
                    a.into_par_iter()
                        .interleave(b)
                        .for_each(|t| assert!(t.id != victim, "boom"))
                }));
                assert!(res.is_err());
                assert_dropped_once(&drops, total, "interleave panic");
            }
        }
    });
}

#[test]
fn zero_steps_and_chunk_sizes_panic() {
    assert!(catch_unwind(|| drop((0..3).into_par_iter().step_by(0))).is_err());
    assert!(catch_unwind(|| drop((0..3).into_par_iter().chunks(0))).is_err());
}

/// `rev` over every kind of indexed producer: each piece runs its base piece from the back.
#[test]
fn rev_matches_std_over_every_producer() {
    everywhere(|| {
        let all = inputs();
        for (v, w) in all.iter().zip(all.iter().rev()) {
            let n = v.len();
            let r = |it: Vec<u64>| it.into_iter().rev().collect::<Vec<_>>();
            macro_rules! check {
                ($par:expr, $seq:expr) => {{
                    let expected: Vec<_> = $seq.rev().collect();
                    assert_eq!($par.rev().collect::<Vec<_>>(), expected, stringify!($par));
                    assert_eq!(
                        $par.rev().with_max_len(1).collect::<Vec<_>>(),
                        expected,
                        stringify!($par)
                    );
                }};
            }
            check!(v.par_iter(), v.iter());
            check!(v.clone().into_par_iter(), v.clone().into_iter());
            check!((0..n as u64).into_par_iter(), 0..n as u64);
            check!(v.par_iter().map(|x| x * 2), v.iter().map(|x| x * 2));
            check!(v.par_iter().enumerate(), v.iter().enumerate());
            check!(v.par_iter().zip(w), v.iter().zip(w));
            check!(v.par_iter().copied(), v.iter().copied());
            check!(
                v.par_iter().cloned().skip(3).take(n / 2),
                v.iter().cloned().skip(3).take(n / 2)
            );
            check!(v.par_chunks(7), v.chunks(7));
            check!(v.par_chunks_exact(7), v.chunks_exact(7));
            check!(v.par_rchunks(7), v.rchunks(7));
            check!(v.par_windows(3), v.windows(3));
            check!(v.par_iter().step_by(3), v.iter().step_by(3));
            check!(v.par_iter().chain(w), v.iter().chain(w));
            check!(v.par_iter().with_min_len(10), v.iter());
            // Sequential models for the adaptors std has no reversible form of.
            let chunks: Vec<Vec<u64>> = v.chunks(5).map(<[u64]>::to_vec).collect();
            assert_eq!(
                v.par_iter()
                    .copied()
                    .chunks(5)
                    .rev()
                    .with_max_len(1)
                    .collect::<Vec<_>>(),
                chunks.into_iter().rev().collect::<Vec<_>>()
            );
            for shortest in [false, true] {
                let expected = r(interleave_model(v, w, shortest));
                let (a, b) = (v.par_iter().copied(), w.par_iter().copied());
                let got: Vec<u64> = if shortest {
                    a.interleave_shortest(b).rev().with_max_len(1).collect()
                } else {
                    a.interleave(b).rev().with_max_len(1).collect()
                };
                assert_eq!(got, expected);
            }
            // rev of rev, and positions through rev.
            assert_eq!(
                v.par_iter().rev().rev().collect::<Vec<_>>(),
                v.iter().collect::<Vec<_>>()
            );
            assert_eq!(
                v.par_iter().rev().position_first(|&x| x > 900),
                v.iter().rev().position(|&x| x > 900)
            );
        }
        // Interleavings of every small shape, from the back.
        for &a in SMALL {
            for &b in SMALL {
                let (x, y): (Vec<u64>, Vec<u64>) =
                    ((0..a as u64).collect(), (100..100 + b as u64).collect());
                for shortest in [false, true] {
                    let mut expected = interleave_model(&x, &y, shortest);
                    expected.reverse();
                    let (p, q) = (x.par_iter().copied(), y.par_iter().copied());
                    let got: Vec<u64> = if shortest {
                        p.interleave_shortest(q).rev().collect()
                    } else {
                        p.interleave(q).rev().collect()
                    };
                    assert_eq!(got, expected, "{a} and {b}");
                }
            }
        }
    });
}

#[test]
fn rev_drops_owned_items_exactly_once() {
    everywhere(|| {
        for &n in LENGTHS {
            let total = n + n / 2;
            let (a, b, drops) = tracked(n);
            let out: Vec<Tracked> = a.into_par_iter().chain(b).rev().collect();
            assert!(out.iter().rev().enumerate().all(|(i, t)| t.id == i));
            drop(out);
            assert_dropped_once(&drops, total, "chain+rev");

            let (a, b, drops) = tracked(n);
            let hit = a.into_par_iter().rev().find_first(|t| t.id % 7 == 3);
            assert_eq!(
                hit.as_ref().map(|t| t.id),
                (0..n).rev().find(|i| i % 7 == 3)
            );
            drop((hit, b));
            assert_dropped_once(&drops, total, "rev+find_first");
        }
    });
}

/// `step_by` over adaptors of a huge range costs what it yields: a large step cuts the base
/// producer at each item instead of walking the base's iterator, whose `nth` goes one item at a time
/// for `map`, `enumerate`, `zip` and `chain` (each of these used to run for 2^64 items). A skipped
/// item is never produced, so `map` is called only on the items yielded.
#[test]
fn step_by_over_adaptors_of_huge_ranges_costs_what_it_yields() {
    common::watchdog(
        "step_by over huge adaptors",
        Duration::from_secs(120),
        || {
            everywhere(|| {
                const STEP: usize = 1 << 60;
                let n = usize::MAX;
                let seq: Vec<usize> = (0..n).step_by(STEP).collect();
                let calls = AtomicUsize::new(0);
                let mapped: Vec<usize> = (0..n)
                    .into_par_iter()
                    .map(|x| {
                        calls.fetch_add(1, Ordering::Relaxed);
                        x / 2
                    })
                    .step_by(STEP)
                    .collect();
                assert_eq!(mapped, seq.iter().map(|x| x / 2).collect::<Vec<_>>());
                assert_eq!(calls.load(Ordering::Relaxed), seq.len());
                let numbered: Vec<(usize, usize)> =
                    (0..n).into_par_iter().enumerate().step_by(STEP).collect();
                assert_eq!(numbered, seq.iter().map(|&x| (x, x)).collect::<Vec<_>>());
                let zipped: Vec<(usize, u64)> = (0..n)
                    .into_par_iter()
                    .zip(0..u64::MAX)
                    .step_by(STEP)
                    .rev()
                    .collect();
                let expected: Vec<(usize, u64)> =
                    seq.iter().rev().map(|&x| (x, x as u64)).collect();
                assert_eq!(zipped, expected);
                // A chain whose halves are each longer than the step.
                let half = n / 2;
                let chained: Vec<usize> = (0..half)
                    .into_par_iter()
                    .chain(half..n)
                    .step_by(STEP)
                    .collect();
                assert_eq!(chained, seq);
                let back: Vec<usize> = (0..n).into_par_iter().rev().step_by(STEP).collect();
                assert_eq!(back, (0..n).rev().step_by(STEP).collect::<Vec<_>>());
                // Owned items: the skipped ones are still dropped, each once.
                let (items, drops) = iter_common::tracked(10_000);
                let kept: Vec<usize> = items.into_par_iter().step_by(999).map(|t| t.id).collect();
                assert_eq!(kept, (0..10_000).step_by(999).collect::<Vec<_>>());
                iter_common::assert_dropped_once(&drops, "step_by(999) of owned items");
            })
        },
    );
}
