//! Owned iteration (`Vec::into_par_iter`) with drop-counting items, and panics in user closures.

use crate::iter_common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use forkjoin::prelude::*;
use iter_common::{assert_dropped_once, everywhere, tracked, Tracked, LENGTHS};

fn panic_message(err: Box<dyn std::any::Any + Send>) -> String {
    err.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| err.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

#[test]
fn every_item_dropped_exactly_once() {
    everywhere(|| {
        for &n in LENGTHS {
            let (v, drops) = tracked(n);
            v.into_par_iter().for_each(drop);
            assert_dropped_once(&drops, "for_each(drop)");

            let (v, drops) = tracked(n);
            let kept: Vec<Tracked> = v.into_par_iter().filter(|t| t.id % 3 == 0).collect();
            assert!(kept.iter().enumerate().all(|(i, t)| t.id == i * 3));
            drop(kept);
            assert_dropped_once(&drops, "filter+collect");

            let (v, drops) = tracked(n);
            let out: Vec<(usize, Tracked)> = v.into_par_iter().enumerate().collect();
            assert!(out.iter().all(|(i, t)| *i == t.id));
            drop(out);
            assert_dropped_once(&drops, "enumerate+collect");

            // Zip with a shorter side: the owned tail beyond the common length must be dropped too.
            let (v, drops) = tracked(n);
            assert_eq!(v.into_par_iter().zip(0..n / 2).count(), n / 2);
            assert_dropped_once(&drops, "zip shorter");

            // Short-circuit: the items never looked at are still dropped.
            let (v, drops) = tracked(n);
            let hit = v.into_par_iter().find_any(|t| t.id == n / 3);
            assert_eq!(hit.as_ref().map(|t| t.id), (n > 0).then_some(n / 3));
            drop(hit);
            assert_dropped_once(&drops, "find_any");

            let (v, drops) = tracked(n);
            assert_eq!(v.into_par_iter().any(|t| t.id == 0), n > 0);
            assert_dropped_once(&drops, "any");
        }
    });
}

#[test]
fn panic_midway_drops_every_item_once_and_propagates() {
    everywhere(|| {
        for &n in &[1usize, 2, 100, 1025, 65_537] {
            for victim in [0, n / 2, n - 1] {
                let (v, drops) = tracked(n);
                let err = catch_unwind(AssertUnwindSafe(|| {
                    v.into_par_iter().for_each(|t| {
                        if t.id == victim {
                            panic!("boom at {}", t.id);
                        }
                    })
                }))
                .expect_err("the panic must propagate");
                assert_eq!(panic_message(err), format!("boom at {victim}"));
                assert_dropped_once(&drops, "for_each panic");

                // A panic while collecting: the items already written are dropped, none twice.
                let (v, drops) = tracked(n);
                let (w, out_drops) = tracked(n);
                let w = std::sync::Mutex::new(w.into_iter().map(Some).collect::<Vec<_>>());
                let res = catch_unwind(AssertUnwindSafe(|| {
                    v.into_par_iter()
                        .map(|t| {
                            if t.id == victim {
                                panic!("collect boom");
                            }
                            w.lock().unwrap()[t.id].take().unwrap()
                        })
                        .collect::<Vec<Tracked>>()
                }));
                assert!(res.is_err());
                drop(w);
                assert_dropped_once(&drops, "collect panic: inputs");
                assert_dropped_once(&out_drops, "collect panic: outputs");
            }
        }
    });
}

#[test]
fn panic_returns_only_after_running_pieces_stop() {
    everywhere(|| {
        let active = AtomicUsize::new(0);
        let res = catch_unwind(AssertUnwindSafe(|| {
            (0..10_000u32).into_par_iter().for_each(|i| {
                active.fetch_add(1, Ordering::SeqCst);
                if i == 5_000 {
                    active.fetch_sub(1, Ordering::SeqCst);
                    panic!("stop");
                }
                // A little work so several pieces are in flight.
                std::hint::black_box((0..200).sum::<u32>());
                active.fetch_sub(1, Ordering::SeqCst);
            })
        }));
        assert!(res.is_err());
        assert_eq!(
            active.load(Ordering::SeqCst),
            0,
            "a piece still ran after the panic returned"
        );
    });
}

#[test]
fn pool_usable_after_a_panic() {
    everywhere(|| {
        let r = catch_unwind(AssertUnwindSafe(|| {
            (0..1000u32)
                .into_par_iter()
                .map(|x| if x == 999 { panic!("late") } else { x })
                .sum::<u32>()
        }));
        assert!(r.is_err());
        assert_eq!((0..1000u32).into_par_iter().sum::<u32>(), 499_500);
    });
}

#[test]
fn owned_strings_round_trip() {
    everywhere(|| {
        let v: Vec<String> = (0..10_007).map(|i| i.to_string()).collect();
        let lens: Vec<usize> = v.clone().into_par_iter().map(|s| s.len()).collect();
        assert_eq!(lens, v.iter().map(|s| s.len()).collect::<Vec<_>>());
        let back: Vec<String> = v.clone().into_par_iter().collect();
        assert_eq!(back, v);
        let joined = v.clone().into_par_iter().reduce(String::new, |a, b| a + &b);
        assert_eq!(joined, v.concat());
    });
}
