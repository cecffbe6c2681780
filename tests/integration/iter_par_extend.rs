//! `par_extend` of `Vec` and `String`: against std's `extend` on the usual lengths, in and out of
//! pools, indexed and unindexed, after existing items; a panicking closure leaves the old items as
//! they were.

use crate::iter_common;

use forkjoin::prelude::*;
use iter_common::{everywhere, panic_message, random_inputs};

#[test]
fn par_extend_matches_std_extend() {
    everywhere(|| {
        for v in random_inputs(7, 1000) {
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
