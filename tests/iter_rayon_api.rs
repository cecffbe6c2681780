//! The adaptors, consumers, collections and module paths added for rayon compatibility, against
//! their sequential std equivalents on the usual lengths, in and out of pools.

mod iter_common;

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use forkjoin::prelude::*;
use iter_common::{everywhere, Rng, LENGTHS};

fn inputs() -> Vec<Vec<u64>> {
    let mut rng = Rng::new(9);
    LENGTHS.iter().map(|&n| rng.vec(n, 50)).collect()
}

#[test]
fn inspect_and_update_match_std() {
    everywhere(|| {
        for v in inputs() {
            let seen = Mutex::new(Vec::new());
            let out: Vec<u64> = v
                .par_iter()
                .inspect(|&&x| seen.lock().unwrap().push(x))
                .map(|x| x + 1)
                .collect();
            assert_eq!(out, v.iter().map(|x| x + 1).collect::<Vec<_>>());
            let mut seen = seen.into_inner().unwrap();
            seen.sort();
            let mut sorted = v.clone();
            sorted.sort();
            assert_eq!(seen, sorted);
            // Still indexed: enumerate after inspect.
            let calls = AtomicUsize::new(0);
            let e: Vec<(usize, &u64)> = v
                .par_iter()
                .inspect(|_| {
                    calls.fetch_add(1, Relaxed);
                })
                .enumerate()
                .collect();
            assert_eq!(e, v.iter().enumerate().collect::<Vec<_>>());
            assert_eq!(calls.into_inner(), v.len());

            let u: Vec<u64> = v.clone().into_par_iter().update(|x| *x *= 3).collect();
            assert_eq!(u, v.iter().map(|x| x * 3).collect::<Vec<_>>());
            let u: Vec<u64> = v
                .par_iter()
                .copied()
                .filter(|x| x % 2 == 0)
                .update(|x| *x += 1)
                .collect();
            let s: Vec<u64> = v.iter().filter(|x| *x % 2 == 0).map(|x| x + 1).collect();
            assert_eq!(u, s);
            assert_eq!(v.par_iter().copied().update(|x| *x += 1).len(), v.len());
        }
    });
}

#[test]
fn finding_and_positions_match_std() {
    everywhere(|| {
        for v in inputs() {
            let target = v.get(v.len() / 2).copied().unwrap_or(7);
            // Any hit must be a real one; none iff std finds none.
            let hit = v
                .par_iter()
                .find_map_any(|&x| (x == target).then_some(x * 10));
            assert_eq!(hit, v.iter().find_map(|&x| (x == target).then_some(x * 10)));
            assert_eq!(
                v.par_iter().find_map_any(|&x| (x > 1000).then_some(x)),
                None
            );

            match v.par_iter().position_any(|&x| x == target) {
                Some(i) => assert_eq!(v[i], target),
                None => assert!(!v.contains(&target)),
            }
            assert_eq!(v.par_iter().position_any(|&x| x > 1000), None);

            let at: Vec<usize> = v.par_iter().positions(|&x| x % 5 == 0).collect();
            let s: Vec<usize> = v
                .iter()
                .enumerate()
                .filter(|(_, x)| *x % 5 == 0)
                .map(|(i, _)| i)
                .collect();
            assert_eq!(at, s);
        }
    });
}

#[test]
fn comparisons_match_std() {
    everywhere(|| {
        for v in inputs() {
            let n = v.len();
            let mut others = vec![v.clone(), v[..n / 2].to_vec()];
            let mut longer = v.clone();
            longer.push(0);
            others.push(longer);
            for at in [0, n / 3, n.saturating_sub(1)] {
                if at < n {
                    let mut w = v.clone();
                    w[at] += 1;
                    others.push(w.clone());
                    // One less (an item may be 0: wrap around to a greater one instead).
                    w[at] = v[at].wrapping_sub(1);
                    others.push(w);
                }
            }
            for w in &others {
                assert_eq!(v.par_iter().cmp(w), v.iter().cmp(w.iter()), "cmp");
                assert_eq!(
                    v.par_iter().partial_cmp(w),
                    v.iter().partial_cmp(w.iter()),
                    "partial_cmp"
                );
                assert_eq!(v.par_iter().eq(w), v.iter().eq(w.iter()));
                assert_eq!(v.par_iter().ne(w), v.iter().ne(w.iter()));
                assert_eq!(v.par_iter().lt(w), v.iter().lt(w.iter()));
                assert_eq!(v.par_iter().le(w), v.iter().le(w.iter()));
                assert_eq!(v.par_iter().gt(w), v.iter().gt(w.iter()));
                assert_eq!(v.par_iter().ge(w), v.iter().ge(w.iter()));
            }
            // Incomparable items: the first one decides, as in std.
            let f: Vec<f64> = v.iter().map(|&x| x as f64).collect();
            let mut g = f.clone();
            if let Some(x) = g.get_mut(n / 2) {
                *x = f64::NAN;
            }
            assert_eq!(f.par_iter().partial_cmp(&g), f.iter().partial_cmp(g.iter()));
            assert_eq!(f.par_iter().lt(&g), f.iter().lt(g.iter()));
            assert_eq!(f.par_iter().ge(&g), f.iter().ge(g.iter()));
        }
        assert_eq!((0..3).into_par_iter().cmp(0..3), Ordering::Equal);
    });
}

#[test]
fn collect_into_more_collections() {
    everywhere(|| {
        for v in inputs() {
            let l: LinkedList<u64> = v.par_iter().copied().collect();
            assert_eq!(l, v.iter().copied().collect::<LinkedList<_>>());
            let h: BinaryHeap<u64> = v.par_iter().copied().collect();
            assert_eq!(h.into_sorted_vec(), {
                let mut s = v.clone();
                s.sort();
                s
            });
            let b: Box<[u64]> = v.par_iter().copied().collect();
            assert_eq!(&*b, &v[..]);
            let r: Rc<[u64]> = v.par_iter().copied().collect();
            assert_eq!(&*r, &v[..]);
            let a: Arc<[u64]> = v.par_iter().copied().collect();
            assert_eq!(&*a, &v[..]);
            let c: Cow<'_, [u64]> = v.par_iter().copied().collect();
            assert_eq!(&*c, &v[..]);

            let chars: Vec<char> = v
                .iter()
                .map(|&x| char::from(b'a' + (x % 26) as u8))
                .collect();
            let s: String = chars.iter().collect();
            assert_eq!(chars.par_iter().collect::<String>(), s);
            assert_eq!(&*chars.par_iter().collect::<Box<str>>(), s);
            let cows: Vec<Cow<'_, str>> = chars.iter().map(|c| Cow::Owned(c.to_string())).collect();
            assert_eq!(cows.par_iter().cloned().collect::<String>(), s);
            let boxes: Vec<Box<str>> = chars.iter().map(|c| c.to_string().into()).collect();
            assert_eq!(boxes.clone().into_par_iter().collect::<String>(), s);
            let cs: Cow<'_, str> = chars.par_iter().copied().collect();
            assert_eq!(cs, s);
        }
    });
}

#[test]
fn extend_more_collections() {
    everywhere(|| {
        for v in inputs() {
            let mut w = vec![1u64, 2];
            w.par_extend(&v);
            assert_eq!(w[2..], v[..]);
            w.par_extend(v.par_iter());
            assert_eq!(w.len(), 2 + 2 * v.len());

            macro_rules! check {
                ($c:expr, $items:expr, $refs:expr) => {{
                    let mut par = $c;
                    let mut seq = par.clone();
                    par.par_extend($items.clone());
                    seq.extend($items.clone());
                    assert_eq!(par, seq);
                    par.par_extend($refs);
                    seq.extend($refs);
                    assert_eq!(par, seq);
                }};
            }
            check!(VecDeque::from([9u64]), v, &v);
            check!(LinkedList::from([9u64]), v, &v);
            check!(HashSet::from([9u64]), v, &v);
            check!(BTreeSet::from([9u64]), v, &v);
            let pairs: Vec<(u64, usize)> = v.iter().enumerate().map(|(i, &x)| (x, i)).collect();
            let pair_refs: Vec<(&u64, &usize)> = pairs.iter().map(|(k, v)| (k, v)).collect();
            // Later values of a key win, as with `Extend`.
            check!(HashMap::from([(1u64, 7usize)]), pairs, pair_refs.clone());
            check!(BTreeMap::from([(1u64, 7usize)]), pairs, pair_refs.clone());

            let mut heap = BinaryHeap::from([5u64]);
            heap.par_extend(v.clone());
            heap.par_extend(&v);
            let mut expect: Vec<u64> = v.iter().chain(&v).copied().collect();
            expect.push(5);
            expect.sort();
            assert_eq!(heap.into_sorted_vec(), expect);

            let chars: Vec<char> = v
                .iter()
                .map(|&x| char::from(b'a' + (x % 26) as u8))
                .collect();
            let mut s = String::from(">");
            s.par_extend(&chars);
            s.par_extend(
                chars
                    .iter()
                    .map(|c| Box::<str>::from(c.to_string()))
                    .collect::<Vec<_>>(),
            );
            s.par_extend(
                chars
                    .iter()
                    .map(|c| Cow::<str>::Owned(c.to_string()))
                    .collect::<Vec<_>>(),
            );
            let one: String = chars.iter().collect();
            assert_eq!(s, format!(">{one}{one}{one}"));
        }
    });
}

/// rayon's module paths name the types forkjoin returns.
#[test]
fn rayon_module_paths() {
    let v = vec![1, 2, 3];
    let _: forkjoin::slice::Iter<'_, i32> = v.par_iter();
    let mut w = v.clone();
    let _: forkjoin::slice::IterMut<'_, i32> = w.par_iter_mut();
    let _: forkjoin::slice::Chunks<'_, i32> = v.par_chunks(2);
    let _: forkjoin::slice::ChunksMut<'_, i32> = w.par_chunks_mut(2);
    let _: forkjoin::vec::IntoIter<i32> = v.clone().into_par_iter();
    let _: forkjoin::array::IntoIter<i32, 2> = [1, 2].into_par_iter();
    let _: forkjoin::range::Iter<u8> = (0..3u8).into_par_iter();
    let _: forkjoin::range_inclusive::Iter<u8> = (0..=3u8).into_par_iter();
    let mut o = Some(1);
    let _: forkjoin::option::IntoIter<i32> = o.into_par_iter();
    let _: forkjoin::option::Iter<'_, i32> = o.par_iter();
    let _: forkjoin::option::IterMut<'_, i32> = o.par_iter_mut();
    let mut r: Result<i32, ()> = Ok(1);
    let _: forkjoin::result::IntoIter<i32> = r.into_par_iter();
    let _: forkjoin::result::Iter<'_, i32> = r.par_iter();
    let _: forkjoin::result::IterMut<'_, i32> = r.par_iter_mut();
    let _: forkjoin::iter::Once<i32> = forkjoin::iter::once(1);
    let _: forkjoin::iter::Empty<i32> = forkjoin::iter::empty();

    use forkjoin::collections::*;
    let mut hm = HashMap::from([(1, 2)]);
    let _: hash_map::Iter<'_, i32, i32> = hm.par_iter();
    let _: hash_map::IterMut<'_, i32, i32> = hm.par_iter_mut();
    let _: hash_map::IntoIter<i32, i32> = hm.into_par_iter();
    let hs = HashSet::from([1]);
    let _: hash_set::Iter<'_, i32> = hs.par_iter();
    let _: hash_set::IntoIter<i32> = hs.into_par_iter();
    let mut bm = BTreeMap::from([(1, 2)]);
    let _: btree_map::Iter<'_, i32, i32> = bm.par_iter();
    let _: btree_map::IterMut<'_, i32, i32> = bm.par_iter_mut();
    let _: btree_map::IntoIter<i32, i32> = bm.into_par_iter();
    let bs = BTreeSet::from([1]);
    let _: btree_set::Iter<'_, i32> = bs.par_iter();
    let _: btree_set::IntoIter<i32> = bs.into_par_iter();
    let bh = BinaryHeap::from([1]);
    let _: binary_heap::Iter<'_, i32> = bh.par_iter();
    let _: binary_heap::IntoIter<i32> = bh.into_par_iter();
    let mut ll = LinkedList::from([1]);
    let _: linked_list::Iter<'_, i32> = ll.par_iter();
    let _: linked_list::IterMut<'_, i32> = ll.par_iter_mut();
    let _: linked_list::IntoIter<i32> = ll.into_par_iter();
    let mut vd = VecDeque::from([1]);
    let _: vec_deque::Iter<'_, i32> = vd.par_iter();
    let _: vec_deque::IterMut<'_, i32> = vd.par_iter_mut();
    let _: vec_deque::IntoIter<i32> = vd.into_par_iter();

    use forkjoin::iter::plumbing::{Consumer, Producer};
    fn _named<P: Producer, C: Consumer<P::Item>>() {}
}

/// The sorts are methods of `ParallelSliceMut`, so rayon's `use rayon::slice::ParallelSliceMut;`
/// ports; a type of one's own gets them (and the chunks) by giving its slice.
mod slice_traits_alone {
    use super::{everywhere, Rng, LENGTHS};
    use forkjoin::iter::ParallelIterator;
    use forkjoin::slice::{ParallelSlice, ParallelSliceMut};

    struct Buffer(Vec<u64>);

    impl ParallelSliceMut<u64> for Buffer {
        fn as_parallel_slice_mut(&mut self) -> &mut [u64] {
            &mut self.0
        }
    }

    impl ParallelSlice<u64> for Buffer {
        fn as_parallel_slice(&self) -> &[u64] {
            &self.0
        }
    }

    #[test]
    fn sorts_and_chunks_match_std() {
        everywhere(|| {
            let mut rng = Rng::new(3);
            for &n in LENGTHS {
                let v = rng.vec(n, 100);
                let mut sorted = v.clone();
                sorted.sort();
                let mut w = v.clone();
                w.par_sort();
                assert_eq!(w, sorted);
                let mut w = v.clone();
                w.par_sort_unstable_by(|a, b| b.cmp(a));
                assert_eq!(w, sorted.iter().rev().copied().collect::<Vec<_>>());
                let mut b = Buffer(v.clone());
                b.par_sort_by_key(|&x| x % 10);
                let mut s = v.clone();
                s.sort_by_key(|&x| x % 10);
                assert_eq!(b.0, s);
                let sums: Vec<u64> = b.par_chunks(7).map(|c| c.iter().sum()).collect();
                assert_eq!(
                    sums,
                    s.chunks(7).map(|c| c.iter().sum()).collect::<Vec<u64>>()
                );
                b.par_chunks_mut(5).for_each(|c| c.reverse());
                s.chunks_mut(5).for_each(|c| c.reverse());
                assert_eq!(b.0, s);
            }
        });
    }
}

#[test]
fn skip_take_zip_eq_match_std() {
    everywhere(|| {
        for v in inputs() {
            let n = v.len();
            for k in [0, 1, n / 3, n / 2, n.saturating_sub(1), n, n + 5] {
                let s: Vec<u64> = v.par_iter().copied().skip(k).collect();
                assert_eq!(
                    s,
                    v.iter().copied().skip(k).collect::<Vec<_>>(),
                    "skip {k} of {n}"
                );
                assert_eq!(v.par_iter().skip(k).len(), n.saturating_sub(k));
                let t: Vec<u64> = v.par_iter().copied().take(k).collect();
                assert_eq!(
                    t,
                    v.iter().copied().take(k).collect::<Vec<_>>(),
                    "take {k} of {n}"
                );
                assert_eq!(v.par_iter().take(k).len(), k.min(n));
                // Through splits, and after each other: positions stay exact.
                let st: Vec<(usize, u64)> = v
                    .par_iter()
                    .copied()
                    .skip(k / 2)
                    .take(k)
                    .with_max_len(3)
                    .enumerate()
                    .collect();
                let ss: Vec<(usize, u64)> =
                    v.iter().copied().skip(k / 2).take(k).enumerate().collect();
                assert_eq!(st, ss);
                // Skipped items are still produced (as in std); items after a take are not.
                let calls = AtomicUsize::new(0);
                let count = v
                    .par_iter()
                    .inspect(|_| {
                        calls.fetch_add(1, Relaxed);
                    })
                    .skip(k)
                    .count();
                assert_eq!((count, calls.into_inner()), (n.saturating_sub(k), n));
                let calls = AtomicUsize::new(0);
                let count = v
                    .par_iter()
                    .inspect(|_| {
                        calls.fetch_add(1, Relaxed);
                    })
                    .take(k)
                    .count();
                assert_eq!((count, calls.into_inner()), (k.min(n), k.min(n)));
            }
            let z: Vec<(&u64, usize)> = v.par_iter().zip_eq(0..n).collect();
            assert_eq!(z, v.iter().zip(0..n).collect::<Vec<_>>());
        }
    });
}

#[test]
#[should_panic(expected = "iterators must have the same length")]
fn zip_eq_of_different_lengths_panics() {
    let _ = (0..3).into_par_iter().zip_eq(0..4);
}

/// Owned items cut off by `skip` and `take` are dropped exactly once, also when a closure panics.
#[test]
fn skip_take_drop_owned_items_once() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    struct Counted;
    impl Drop for Counted {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Relaxed);
        }
    }
    for &n in LENGTHS {
        for k in [0, 1, n / 2, n, n + 1] {
            let rest = n.saturating_sub(k);
            DROPS.store(0, Relaxed);
            let kept: Vec<Counted> = (0..n)
                .map(|_| Counted)
                .collect::<Vec<_>>()
                .into_par_iter()
                .skip(k)
                .collect();
            assert_eq!(kept.len(), rest);
            drop(kept);
            assert_eq!(DROPS.load(Relaxed), n, "skip {k} of {n}");
            DROPS.store(0, Relaxed);
            let kept: Vec<Counted> = (0..n)
                .map(|_| Counted)
                .collect::<Vec<_>>()
                .into_par_iter()
                .take(k)
                .collect();
            assert_eq!(kept.len(), k.min(n));
            drop(kept);
            assert_eq!(DROPS.load(Relaxed), n, "take {k} of {n}");
            DROPS.store(0, Relaxed);
            let items: Vec<Counted> = (0..n).map(|_| Counted).collect();
            let hit = AtomicUsize::new(0);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                items.into_par_iter().skip(k).for_each(|_| {
                    if hit.fetch_add(1, Relaxed) == rest / 2 {
                        panic!("expected: midway");
                    }
                })
            }));
            assert_eq!(r.is_err(), rest > 0);
            assert_eq!(DROPS.load(Relaxed), n, "skip {k} of {n}, panic midway");
        }
    }
}

#[test]
fn unzip_and_partition_match_std() {
    everywhere(|| {
        for v in inputs() {
            let pairs: Vec<(u64, String)> = v.iter().map(|&x| (x, x.to_string())).collect();
            let (a, b): (Vec<u64>, Vec<String>) = pairs.clone().into_par_iter().unzip();
            let (sa, sb): (Vec<u64>, Vec<String>) = pairs.clone().into_iter().unzip();
            assert_eq!((&a, &b), (&sa, &sb));
            // Unindexed input, other collections.
            let (a, b): (HashSet<u64>, String) = v
                .par_iter()
                .filter(|&&x| x % 3 == 0)
                .map(|&x| (x, char::from(b'a' + (x % 26) as u8)))
                .unzip();
            let (sa, sb): (HashSet<u64>, String) = v
                .iter()
                .filter(|&&x| x % 3 == 0)
                .map(|&x| (x, char::from(b'a' + (x % 26) as u8)))
                .unzip();
            assert_eq!((a, b), (sa, sb));
            let c: (Vec<u64>, Vec<String>) = pairs.par_iter().cloned().collect();
            assert_eq!(c, pairs.iter().cloned().unzip());
            let mut e = (vec![7u64], vec![String::from("x")]);
            e.par_extend(pairs.clone());
            let mut se = (vec![7u64], vec![String::from("x")]);
            se.extend(pairs.clone());
            assert_eq!(e, se);
            let (mut l, mut r) = (vec![1u64], vec![String::new()]);
            pairs
                .clone()
                .into_par_iter()
                .unzip_into_vecs(&mut l, &mut r);
            assert_eq!((l, r), pairs.iter().cloned().unzip());

            let (even, odd): (Vec<u64>, Vec<u64>) = v.par_iter().partition(|&&x| x % 2 == 0);
            let (se, so): (Vec<u64>, Vec<u64>) = v.iter().partition(|&&x| x % 2 == 0);
            assert_eq!((even, odd), (se, so));
            let (small, big): (BTreeSet<u64>, LinkedList<u64>) =
                v.par_iter().copied().partition(|&x| x < 25);
            let (ss, sb): (Vec<u64>, Vec<u64>) = v.iter().partition(|&&x| x < 25);
            let (ss, sb): (BTreeSet<u64>, LinkedList<u64>) =
                (ss.into_iter().collect(), sb.into_iter().collect());
            assert_eq!((small, big), (ss, sb));
        }
    });
}

#[test]
fn try_reduce_try_for_each_with_init_and_collect_vec_list_match_std() {
    everywhere(|| {
        for &n in LENGTHS {
            let n = n as u64;
            // try_reduce: the sum, or the failure of the one bad item or of an overflowing `op`.
            let ok: Option<u64> = (0..n)
                .into_par_iter()
                .map(Some)
                .try_reduce(|| 0, |a, b| a.checked_add(b));
            assert_eq!(ok, Some((0..n).sum()));
            let bad: Result<u64, u64> = (0..n)
                .into_par_iter()
                .map(|x| if x == n / 2 { Err(x) } else { Ok(x) })
                .try_reduce(|| 0, |a, b| Ok(a + b));
            assert_eq!(bad, if n == 0 { Ok(0) } else { Err(n / 2) });
            let overflow: Option<u64> = (0..n)
                .into_par_iter()
                .map(|_| Some(u64::MAX))
                .try_reduce(|| 0, |a, b| a.checked_add(b));
            assert_eq!(overflow, if n < 2 { Some(n * u64::MAX) } else { None });
            // try_reduce_with: None for no items.
            let max = (0..n)
                .into_par_iter()
                .map(Ok::<u64, ()>)
                .try_reduce_with(|a, b| Ok(a.max(b)));
            assert_eq!(max, n.checked_sub(1).map(Ok));
            // try_for_each_with / _init: the first failure found (any of them: here only one).
            let r = (0..n).into_par_iter().try_for_each_with(n / 3, |k, x| {
                if x == *k {
                    Err(x)
                } else {
                    Ok(())
                }
            });
            assert_eq!(r, if n == 0 { Ok(()) } else { Err(n / 3) });
            let visited = AtomicUsize::new(0);
            let r: Option<()> = (0..n).into_par_iter().try_for_each_init(
                || 1u64,
                |one, _| {
                    visited.fetch_add(*one as usize, Relaxed);
                    Some(())
                },
            );
            assert_eq!((r, visited.into_inner()), (Some(()), n as usize));
            // collect_vec_list: the pieces in order.
            let list = (0..n)
                .into_par_iter()
                .filter(|x| x % 3 != 0)
                .collect_vec_list();
            let flat: Vec<u64> = list.into_iter().flatten().collect();
            assert_eq!(flat, (0..n).filter(|x| x % 3 != 0).collect::<Vec<_>>());
            // A known length gives one `Vec` (none when empty), as in rayon: a map's
            // `par_extend` reserves per piece.
            let list = (0..n).into_par_iter().map(|x| x * 2).collect_vec_list();
            assert_eq!(list.len(), usize::from(n > 0), "n = {n}");
            let flat: Vec<u64> = list.into_iter().flatten().collect();
            assert_eq!(flat, (0..n).map(|x| x * 2).collect::<Vec<_>>());
        }
    });
}
