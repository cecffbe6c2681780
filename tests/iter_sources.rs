//! The sources added for rayon compatibility against their sequential std equivalents: `Option`,
//! `Result`, `iter::{once, empty, repeat, repeat_n}`, and the std collections by value, `&` and
//! `&mut`, on the usual lengths; owned items dropped exactly once, also when a closure panics.

mod iter_common;

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use forkjoin::iter::{empty, once, repeat, repeat_n};
use forkjoin::prelude::*;
use iter_common::{everywhere, LENGTHS};

#[test]
fn option_and_result_match_std() {
    everywhere(|| {
        let mut some = Some(5u32);
        let mut none: Option<u32> = None;
        assert_eq!(some.into_par_iter().collect::<Vec<_>>(), [5]);
        assert_eq!(none.into_par_iter().collect::<Vec<u32>>(), []);
        assert_eq!(some.par_iter().collect::<Vec<_>>(), [&5]);
        some.par_iter_mut().for_each(|x| *x += 1);
        none.par_iter_mut().for_each(|x| *x += 1);
        assert_eq!((some, none), (Some(6), None));
        assert_eq!(some.into_par_iter().len(), 1);
        assert_eq!(none.into_par_iter().len(), 0);
        // Indexed: zip and enumerate work.
        let z: Vec<(u32, char)> = some.into_par_iter().zip(['a', 'b']).collect();
        assert_eq!(z, [(6, 'a')]);

        let mut ok: Result<String, u8> = Ok("x".into());
        let mut err: Result<String, u8> = Err(1);
        ok.par_iter_mut().for_each(|s| s.push('y'));
        err.par_iter_mut().for_each(|s| s.push('y'));
        assert_eq!(ok.par_iter().cloned().collect::<Vec<_>>(), ["xy"]);
        assert_eq!(err.par_iter().count(), 0);
        assert_eq!(ok.into_par_iter().collect::<Vec<_>>(), ["xy"]);
        assert_eq!(err.into_par_iter().count(), 0);
    });
}

#[test]
fn once_empty_repeat_match_std() {
    everywhere(|| {
        assert_eq!(
            once(3).collect::<Vec<_>>(),
            std::iter::once(3).collect::<Vec<_>>()
        );
        assert_eq!(once('a').enumerate().collect::<Vec<_>>(), [(0, 'a')]);
        assert_eq!(empty::<i32>().collect::<Vec<_>>(), Vec::<i32>::new());
        assert_eq!(empty::<i32>().len(), 0);
        assert_eq!(empty::<i32>().sum::<i32>(), 0);
        for &n in LENGTHS {
            let item = String::from("ab");
            let seq: Vec<String> = std::iter::repeat_n(item.clone(), n).collect();
            assert_eq!(repeat_n(item.clone(), n).collect::<Vec<_>>(), seq);
            assert_eq!(repeat_n(item.clone(), n).len(), n);
            assert_eq!(repeat(item.clone()).take(n).collect::<Vec<_>>(), seq);
            let pieces: Vec<(usize, String)> = repeat_n(item.clone(), n)
                .with_max_len(3)
                .enumerate()
                .collect();
            assert_eq!(pieces, seq.iter().cloned().enumerate().collect::<Vec<_>>());
            let zipped: Vec<(u8, usize)> = repeat(7u8).zip(0..n).collect();
            assert_eq!(zipped, (0..n).map(|i| (7, i)).collect::<Vec<_>>());
        }
        // Endless: only consumers that stop early finish.
        assert_eq!(repeat(4).find_any(|&x| x == 4), Some(4));
        assert!(repeat(1u8).any(|x| x == 1));
        let stop = AtomicUsize::new(0);
        let few: Vec<u32> = repeat(2u32)
            .map(|x| (stop.fetch_add(1, Relaxed) < 100).then_some(x))
            .while_some()
            .collect();
        assert!(few.len() <= 100 && few.iter().all(|&x| x == 2));
    });
}

/// `repeat_n` moves its item into the last position and clones it for the others: every clone and
/// the original are dropped exactly once.
#[test]
fn repeat_n_drops_every_clone_once() {
    static LIVE: AtomicUsize = AtomicUsize::new(0);
    struct Counted;
    impl Clone for Counted {
        fn clone(&self) -> Self {
            LIVE.fetch_add(1, Relaxed);
            Counted
        }
    }
    impl Drop for Counted {
        fn drop(&mut self) {
            LIVE.fetch_sub(1, Relaxed);
        }
    }
    everywhere(|| {
        for &n in LENGTHS {
            LIVE.fetch_add(1, Relaxed);
            let v: Vec<Counted> = repeat_n(Counted, n).collect();
            assert_eq!(v.len(), n);
            drop(v);
            assert_eq!(LIVE.load(Relaxed), 0, "n = {n}");
            LIVE.fetch_add(1, Relaxed);
            assert_eq!(repeat_n(Counted, n).with_max_len(2).count(), n);
            assert_eq!(LIVE.load(Relaxed), 0, "n = {n}, split");
        }
    });
}

#[test]
fn collections_match_std() {
    everywhere(|| {
        for &n in LENGTHS {
            let items: Vec<u64> = (0..n as u64).map(|i| i * 7 % 1009).collect();
            let seq_sum: u64 = items.iter().sum();

            let mut hm: HashMap<u64, u64> = items.iter().map(|&x| (x, x + 1)).collect();
            let mut e: Vec<(u64, u64)> = hm.par_iter().map(|(k, v)| (*k, *v)).collect();
            let mut s: Vec<(u64, u64)> = hm.iter().map(|(k, v)| (*k, *v)).collect();
            e.sort();
            s.sort();
            assert_eq!(e, s);
            hm.par_iter_mut().for_each(|(_, v)| *v *= 2);
            assert!(hm.iter().all(|(k, v)| *v == 2 * (k + 1)));
            let mut e: Vec<(u64, u64)> = hm.clone().into_par_iter().collect();
            e.sort();
            let mut s: Vec<(u64, u64)> = hm.into_iter().collect();
            s.sort();
            assert_eq!(e, s);

            let hs: HashSet<u64> = items.iter().copied().collect();
            assert_eq!(hs.par_iter().sum::<u64>(), hs.iter().sum::<u64>());
            assert_eq!(
                hs.clone().into_par_iter().sum::<u64>(),
                hs.iter().sum::<u64>()
            );

            let mut bm: BTreeMap<u64, u64> = items.iter().map(|&x| (x, x)).collect();
            let e: Vec<(&u64, &u64)> = bm.par_iter().collect();
            assert_eq!(e, bm.iter().collect::<Vec<_>>());
            bm.par_iter_mut().for_each(|(k, v)| *v += k);
            assert!(bm.iter().all(|(k, v)| *v == 2 * k));
            let e: Vec<(u64, u64)> = bm.clone().into_par_iter().collect();
            assert_eq!(e, bm.into_iter().collect::<Vec<_>>());

            let bs: BTreeSet<u64> = items.iter().copied().collect();
            assert_eq!(
                bs.par_iter().collect::<Vec<_>>(),
                bs.iter().collect::<Vec<_>>()
            );
            assert_eq!(
                bs.clone().into_par_iter().collect::<Vec<_>>(),
                bs.into_iter().collect::<Vec<_>>()
            );

            let mut ll: LinkedList<u64> = items.iter().copied().collect();
            assert_eq!(
                ll.par_iter().collect::<Vec<_>>(),
                ll.iter().collect::<Vec<_>>()
            );
            ll.par_iter_mut().for_each(|x| *x += 1);
            assert_eq!(ll.iter().sum::<u64>(), seq_sum + n as u64);
            assert_eq!(
                ll.clone().into_par_iter().collect::<Vec<_>>(),
                ll.into_iter().collect::<Vec<_>>()
            );

            // A deque whose items wrap around its buffer.
            let mut dq: VecDeque<u64> = items.iter().copied().collect();
            dq.rotate_left(n / 3);
            let seq: Vec<u64> = dq.iter().copied().collect();
            assert_eq!(dq.par_iter().copied().collect::<Vec<_>>(), seq);
            dq.par_iter_mut().for_each(|x| *x += 1);
            assert_eq!(dq.iter().map(|x| x - 1).collect::<Vec<_>>(), seq);
            assert_eq!(
                dq.clone().into_par_iter().collect::<Vec<_>>(),
                dq.into_iter().collect::<Vec<_>>()
            );

            let heap: BinaryHeap<u64> = items.iter().copied().collect();
            assert_eq!(
                heap.par_iter().collect::<Vec<_>>(),
                heap.iter().collect::<Vec<_>>()
            );
            assert_eq!(
                heap.clone().into_par_iter().collect::<Vec<_>>(),
                heap.into_vec()
            );
        }
    });
}

/// An item that counts its drops.
struct Tracked {
    id: usize,
    drops: Arc<Vec<AtomicUsize>>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.drops[self.id].fetch_add(1, Relaxed);
    }
}

fn tracked(n: usize) -> (impl Iterator<Item = Tracked>, Arc<Vec<AtomicUsize>>) {
    let drops: Arc<Vec<AtomicUsize>> = Arc::new((0..n).map(|_| AtomicUsize::new(0)).collect());
    let d = Arc::clone(&drops);
    let items = (0..n).map(move |id| Tracked {
        id,
        drops: Arc::clone(&d),
    });
    (items, drops)
}

fn assert_dropped_once(drops: &[AtomicUsize], what: &str) {
    for (id, d) in drops.iter().enumerate() {
        assert_eq!(
            d.load(Relaxed),
            1,
            "{what}: item {id} dropped wrong number of times"
        );
    }
}

/// Owned items of the collections by value are dropped exactly once, also when a closure panics
/// midway and when only some are looked at.
#[test]
fn owned_collection_items_dropped_once() {
    everywhere(|| {
        for &n in LENGTHS {
            let (items, drops) = tracked(n);
            let list: LinkedList<Tracked> = items.collect();
            let ids: Vec<usize> = list.into_par_iter().map(|t| t.id).collect();
            assert_eq!(ids, (0..n).collect::<Vec<_>>());
            assert_dropped_once(&drops, "LinkedList");

            let (items, drops) = tracked(n);
            let dq: VecDeque<Tracked> = items.collect();
            let hit = dq.into_par_iter().find_any(|t| t.id == n / 2);
            drop(hit);
            assert_dropped_once(&drops, "VecDeque find_any");

            let (items, drops) = tracked(n);
            let m: BTreeMap<usize, Tracked> = items.map(|t| (t.id, t)).collect();
            let r = catch_unwind(AssertUnwindSafe(|| {
                m.into_par_iter().for_each(|(id, _)| {
                    if id == n / 2 {
                        panic!("expected: midway");
                    }
                })
            }));
            assert_eq!(r.is_err(), n > 0);
            assert_dropped_once(&drops, "BTreeMap panic midway");

            let (items, drops) = tracked(n);
            let o: Option<Tracked> = items.take(1).next();
            let taken = o.into_par_iter().count();
            assert_eq!(taken, usize::from(n > 0));
            if n > 0 {
                assert_eq!(drops[0].load(Relaxed), 1, "Option");
            }
        }
    });
}
