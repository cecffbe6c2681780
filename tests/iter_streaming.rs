//! `unzip`, `partition`, `partition_map`, arrays by value, `VecDeque::par_drain` and extending the
//! std collections: exact results in order, and every owned item dropped exactly once (consumed,
//! dropped unconsumed, or a closure panicking midway).

mod iter_common;

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use forkjoin::iter::Either;
use forkjoin::prelude::*;
use iter_common::{assert_dropped_once, drop_counters, everywhere, tracked, Tracked, LENGTHS};

#[test]
fn unzip_and_partition_keep_order() {
    everywhere(|| {
        for &n in LENGTHS {
            let (a, b): (Vec<usize>, Vec<u64>) =
                (0..n).into_par_iter().map(|i| (i, 3 * i as u64)).unzip();
            assert_eq!(a, (0..n).collect::<Vec<_>>());
            assert_eq!(b, (0..n as u64).map(|i| 3 * i).collect::<Vec<_>>());

            // Unindexed input.
            let (a, b): (Vec<usize>, VecDeque<usize>) = (0..n)
                .into_par_iter()
                .filter(|i| i % 3 != 1)
                .map(|i| (i, i + 1))
                .unzip();
            let expected: Vec<usize> = (0..n).filter(|i| i % 3 != 1).collect();
            assert_eq!(a, expected);
            assert!(b.iter().copied().eq(expected.iter().map(|i| i + 1)));

            let (mut l, mut r) = (vec![7usize], vec![8usize]);
            (0..n)
                .into_par_iter()
                .map(|i| (i, 2 * i))
                .unzip_into_vecs(&mut l, &mut r);
            assert_eq!(l, (0..n).collect::<Vec<_>>());
            assert_eq!(r, (0..n).map(|i| 2 * i).collect::<Vec<_>>());

            let (even, odd): (Vec<usize>, Vec<usize>) =
                (0..n).into_par_iter().partition(|i| i % 2 == 0);
            assert_eq!(even, (0..n).step_by(2).collect::<Vec<_>>());
            assert_eq!(odd, (1..n).step_by(2).collect::<Vec<_>>());

            let (small, big): (Vec<usize>, BTreeSet<String>) =
                (0..n).into_par_iter().partition_map(|i| {
                    if i < n / 3 {
                        Either::Left(i)
                    } else {
                        Either::Right(i.to_string())
                    }
                });
            assert_eq!(small, (0..n / 3).collect::<Vec<_>>());
            assert_eq!(big, (n / 3..n).map(|i| i.to_string()).collect());

            // Collecting `Either`s into two `FromParallelIterator` collections.
            let (l, r): (Vec<usize>, String) = (0..n)
                .into_par_iter()
                .map(|i| {
                    if i % 4 == 0 {
                        Either::Right('x')
                    } else {
                        Either::Left(i)
                    }
                })
                .collect();
            assert_eq!(l, (0..n).filter(|i| i % 4 != 0).collect::<Vec<_>>());
            assert_eq!(r.len(), n.div_ceil(4));
        }
    });
}

#[test]
fn unzip_and_partition_drop_every_item_once() {
    everywhere(|| {
        for &n in LENGTHS {
            let (v, drops) = tracked(n);
            let (w, drops2) = tracked(n);
            let (a, b): (Vec<Tracked>, Vec<Tracked>) = v.into_par_iter().zip(w).unzip();
            assert!(a.iter().enumerate().all(|(i, t)| t.id == i));
            assert!(b.iter().enumerate().all(|(i, t)| t.id == i));
            drop((a, b));
            assert_dropped_once(&drops, "unzip left");
            assert_dropped_once(&drops2, "unzip right");

            // Unindexed, into a `Vec` and a `LinkedList`.
            let (v, drops) = tracked(n);
            let (w, drops2) = tracked(n);
            let (a, b): (Vec<Tracked>, LinkedList<Tracked>) = v
                .into_par_iter()
                .zip(w)
                .filter(|(t, _)| t.id % 4 != 1)
                .unzip();
            assert!(a.iter().map(|t| t.id).eq((0..n).filter(|i| i % 4 != 1)));
            assert!(b.iter().map(|t| t.id).eq((0..n).filter(|i| i % 4 != 1)));
            drop((a, b));
            assert_dropped_once(&drops, "unindexed unzip left");
            assert_dropped_once(&drops2, "unindexed unzip right");

            let (v, drops) = tracked(n);
            let (a, b): (Vec<Tracked>, LinkedList<Tracked>) =
                v.into_par_iter().partition(|t| t.id % 3 == 0);
            assert!(a.iter().map(|t| t.id).eq((0..n).step_by(3)));
            assert!(b.iter().map(|t| t.id).eq((0..n).filter(|i| i % 3 != 0)));
            drop((a, b));
            assert_dropped_once(&drops, "partition");
        }
    });
}

#[test]
fn unzip_and_partition_panic_midway_drop_every_item_once() {
    everywhere(|| {
        for &n in &[1usize, 100, 1025, 65_537] {
            for victim in [0, n / 2, n - 1] {
                let (v, drops) = tracked(n);
                let (w, drops2) = tracked(n);
                let res = catch_unwind(AssertUnwindSafe(|| {
                    let (a, b): (Vec<Tracked>, Vec<Tracked>) = v
                        .into_par_iter()
                        .zip(w)
                        .inspect(|(t, _)| assert!(t.id != victim, "boom"))
                        .unzip();
                    (a, b)
                }));
                assert!(res.is_err());
                assert_dropped_once(&drops, "unzip panic left");
                assert_dropped_once(&drops2, "unzip panic right");

                let (v, drops) = tracked(n);
                let res = catch_unwind(AssertUnwindSafe(|| {
                    let (a, b): (Vec<Tracked>, Vec<Tracked>) = v.into_par_iter().partition(|t| {
                        assert!(t.id != victim, "boom");
                        t.id % 2 == 0
                    });
                    (a, b)
                }));
                assert!(res.is_err());
                assert_dropped_once(&drops, "partition panic");

                let (v, drops) = tracked(n);
                let res = catch_unwind(AssertUnwindSafe(|| {
                    let (a, b): (Vec<Tracked>, Vec<Tracked>) =
                        v.into_par_iter().partition_map(|t| {
                            assert!(t.id != victim, "boom");
                            if t.id % 2 == 0 {
                                Either::Left(t)
                            } else {
                                Either::Right(t)
                            }
                        });
                    (a, b)
                }));
                assert!(res.is_err());
                assert_dropped_once(&drops, "partition_map panic");
            }
        }
    });
}

fn tracked_array<const N: usize>() -> ([Tracked; N], Arc<Vec<AtomicUsize>>) {
    let drops = drop_counters(N);
    (std::array::from_fn(|i| Tracked::new(i, &drops)), drops)
}

#[test]
fn arrays_by_value_move_out_in_place() {
    everywhere(|| {
        let a: [String; 5] = std::array::from_fn(|i| i.to_string());
        let out: Vec<String> = a.into_par_iter().rev().collect();
        assert_eq!(out, ["4", "3", "2", "1", "0"]);
        let empty: [u8; 0] = [];
        assert_eq!(empty.into_par_iter().count(), 0);

        let (a, drops) = tracked_array::<1000>();
        let ids: Vec<usize> = a.into_par_iter().map(|t| t.id).collect();
        assert_eq!(ids, (0..1000).collect::<Vec<_>>());
        assert_dropped_once(&drops, "array consumed");

        let (a, drops) = tracked_array::<1000>();
        drop(a.into_par_iter());
        assert_dropped_once(&drops, "array unconsumed");

        let (a, drops) = tracked_array::<1000>();
        assert_eq!(a.into_par_iter().skip(10).take(5).count(), 5);
        assert_dropped_once(&drops, "array skip/take");

        for victim in [0, 500, 999] {
            let (a, drops) = tracked_array::<1000>();
            let res = catch_unwind(AssertUnwindSafe(|| {
                a.into_par_iter()
                    .for_each(|t| assert!(t.id != victim, "boom"))
            }));
            assert!(res.is_err());
            assert_dropped_once(&drops, "array panic");
        }
    });
}

/// A deque holding `0..n` whose items wrap around the end of its buffer.
fn wrapped_deque(n: usize) -> (VecDeque<Tracked>, Arc<Vec<AtomicUsize>>) {
    let drops = drop_counters(n);
    let mut d = VecDeque::with_capacity(n);
    for id in (0..n / 2).rev() {
        d.push_front(Tracked::new(id, &drops));
    }
    for id in n / 2..n {
        d.push_back(Tracked::new(id, &drops));
    }
    (d, drops)
}

#[test]
fn vec_deque_drain_in_place() {
    everywhere(|| {
        for &n in LENGTHS {
            for (start, end) in [(0, n), (n / 4, n / 2), (n / 2, n), (0, 0), (n, n)] {
                let (mut d, drops) = wrapped_deque(n);
                let ids: Vec<usize> = d.par_drain(start..end).map(|t| t.id).collect();
                assert_eq!(ids, (start..end).collect::<Vec<_>>());
                assert!(d.iter().map(|t| t.id).eq((0..start).chain(end..n)));
                d.push_back(Tracked::new(0, &drop_counters(1)));
                d.pop_back();
                drop(d);
                assert_dropped_once(&drops, "deque drain");

                let (mut d, drops) = wrapped_deque(n);
                drop(d.par_drain(start..end));
                assert!(d.iter().map(|t| t.id).eq((0..start).chain(end..n)));
                drop(d);
                assert_dropped_once(&drops, "deque drain unconsumed");
            }
        }
        let mut d: VecDeque<u32> = (0..10).collect();
        let sum: u32 = d.par_iter().sum::<u32>() + d.par_iter_mut().map(|x| *x).sum::<u32>();
        assert_eq!(sum, 90);

        for victim in [0, 30_000, 59_999] {
            let (mut d, drops) = wrapped_deque(100_000);
            let res = catch_unwind(AssertUnwindSafe(|| {
                d.par_drain(20_000..80_000)
                    .for_each(|t| assert!(t.id != 20_000 + victim, "boom"))
            }));
            assert!(res.is_err());
            assert!(d
                .iter()
                .map(|t| t.id)
                .eq((0..20_000).chain(80_000..100_000)));
            drop(d);
            assert_dropped_once(&drops, "deque drain panic");
        }
    });
}

#[test]
fn extend_std_collections_in_order() {
    everywhere(|| {
        for &n in LENGTHS {
            let filtered = || (0..n).into_par_iter().filter(|i| i % 5 != 2);
            let expected: Vec<usize> = (0..n).filter(|i| i % 5 != 2).collect();

            let mut d = VecDeque::from([usize::MAX]);
            d.par_extend(filtered());
            assert!(d.iter().skip(1).eq(expected.iter()));
            let mut l = LinkedList::from([usize::MAX]);
            l.par_extend(filtered());
            assert!(l.iter().skip(1).eq(expected.iter()));
            let l2: LinkedList<usize> = filtered().collect();
            assert!(l2.iter().eq(expected.iter()));
            let mut h = BinaryHeap::new();
            h.par_extend(filtered());
            assert_eq!(h.into_sorted_vec(), expected);
            let mut m: HashMap<usize, usize> = HashMap::new();
            m.par_extend(filtered().map(|i| (i % 7, i)));
            // A later value of a key wins.
            for (k, v) in &m {
                assert_eq!(Some(v), expected.iter().rev().find(|i| *i % 7 == *k));
            }
            let b: BTreeMap<usize, usize> = filtered().map(|i| (i % 7, i)).collect();
            assert_eq!(b.len(), m.len());
            let s: HashSet<usize> = filtered().collect();
            assert_eq!(s.len(), expected.len());
            let mut v = vec![usize::MAX];
            v.par_extend(filtered());
            assert_eq!(v[1..], expected[..]);
        }
    });
}
