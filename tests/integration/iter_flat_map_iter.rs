//! `flat_map_iter` and `flatten_iter` (sequential inner iterators): against std's `flat_map` and
//! `flatten` on the usual lengths, in and out of pools, with empty inner iterators and a
//! short-circuiting consumer; panics in the closure or in an inner iterator propagate.

use crate::iter_common;

use forkjoin::prelude::*;
use iter_common::{everywhere, panic_message, random_inputs};

#[test]
fn flat_map_iter_and_flatten_iter_match_std() {
    everywhere(|| {
        for v in random_inputs(7, 1000) {
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
