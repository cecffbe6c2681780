//! Loops with uneven item costs, so that pieces are split lazily in the middle of running leaves (a
//! consumer split after it already consumed a prefix): results must still be exact and in order.

use crate::iter_common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use forkjoin::prelude::*;
use forkjoin::ThreadPoolBuilder;
use iter_common::everywhere;
use iter_common::spin::spin;

fn cost(i: usize) -> u64 {
    // Skewed: the last items are the expensive ones; every 97th item is extra heavy.
    (i as u64 / 4) + if i % 97 == 0 { 3_000 } else { 0 }
}

#[test]
fn skewed_collect_and_reduce_stay_ordered() {
    everywhere(|| {
        for n in [1usize, 2, 3, 100, 4_099] {
            let expected: Vec<u64> = (0..n).map(|i| spin(cost(i)) ^ i as u64).collect();
            let got: Vec<u64> = (0..n)
                .into_par_iter()
                .map(|i| spin(cost(i)) ^ i as u64)
                .collect();
            assert_eq!(got, expected, "collect, n = {n}");

            let v: Vec<usize> = (0..n).collect();
            let got: Vec<(usize, u64)> = v
                .par_iter()
                .enumerate()
                .map(|(i, &x)| (i, spin(cost(x))))
                .collect();
            assert!(got.iter().enumerate().all(|(k, &(i, _))| k == i));

            let s = (0..n)
                .into_par_iter()
                .map(|i| {
                    spin(cost(i));
                    format!("{i}.")
                })
                .reduce(String::new, |a, b| a + &b);
            let e: String = (0..n).map(|i| format!("{i}.")).collect();
            assert_eq!(s, e, "reduce, n = {n}");

            let kept: Vec<usize> = (0..n)
                .into_par_iter()
                .filter(|&i| spin(cost(i)) % 3 != 0)
                .collect();
            let e: Vec<usize> = (0..n).filter(|&i| spin(cost(i)) % 3 != 0).collect();
            assert_eq!(kept, e, "filter+collect, n = {n}");
        }
    });
}

#[test]
fn skewed_for_each_visits_every_item_once() {
    everywhere(|| {
        let n = 3_001;
        let seen: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        let mut v: Vec<u64> = vec![0; n];
        v.par_iter_mut().enumerate().for_each(|(i, x)| {
            *x = spin(cost(i));
            seen[i].fetch_add(1, Ordering::Relaxed);
        });
        assert!(seen.iter().all(|s| s.load(Ordering::Relaxed) == 1));
        assert!(v.iter().enumerate().all(|(i, &x)| x == spin(cost(i))));
    });
}

#[test]
fn oversubscribed_pool_runs_skewed_loop_correctly() {
    // 8 workers on a 2-core machine: many thieves, many lazy splits.
    let pool = ThreadPoolBuilder::new().num_threads(8).build().unwrap();
    let order = Mutex::new(Vec::new());
    let total: u64 = pool.install(|| {
        (0..2_000usize)
            .into_par_iter()
            .map(|i| {
                let r = spin(cost(i) * 2);
                if i % 500 == 0 {
                    order.lock().unwrap().push(i);
                }
                r
            })
            .reduce(|| 0, u64::wrapping_add)
    });
    let expected = (0..2_000usize)
        .map(|i| spin(cost(i) * 2))
        .fold(0, u64::wrapping_add);
    assert_eq!(total, expected);
    let mut order = order.into_inner().unwrap();
    order.sort_unstable();
    assert_eq!(order, [0, 500, 1000, 1500]);
}
