//! Every adaptor and consumer against its sequential std equivalent, on many lengths, in and out of pools.

mod common;
mod iter_common;

use forkjoin::prelude::*;
use iter_common::{everywhere, Rng, LENGTHS};

fn inputs() -> Vec<Vec<u64>> {
    let mut rng = Rng::new(42);
    LENGTHS.iter().map(|&n| rng.vec(n, 1000)).collect()
}

#[test]
fn sources_match_std() {
    everywhere(|| {
        for v in inputs() {
            let n = v.len();
            assert_eq!(
                v.par_iter().collect::<Vec<_>>(),
                v.iter().collect::<Vec<_>>()
            );
            assert_eq!(v.clone().into_par_iter().collect::<Vec<_>>(), v);
            let r: Vec<usize> = (0..n).into_par_iter().collect();
            assert_eq!(r, (0..n).collect::<Vec<_>>());
            let r: Vec<usize> = (0..=n).into_par_iter().collect();
            assert_eq!(r, (0..=n).collect::<Vec<_>>());
            let mut w = v.clone();
            w.par_iter_mut().for_each(|x| *x = *x * 3 + 1);
            assert_eq!(w, v.iter().map(|x| x * 3 + 1).collect::<Vec<_>>());
            for size in [1, 2, 3, 64, 1000] {
                let c: Vec<u64> = v.par_chunks(size).map(|c| c.iter().sum()).collect();
                let s: Vec<u64> = v.chunks(size).map(|c| c.iter().sum()).collect();
                assert_eq!(c, s, "par_chunks({size}) of {n}");
                let mut w = v.clone();
                w.par_chunks_mut(size).enumerate().for_each(|(i, c)| {
                    for x in c.iter_mut() {
                        *x += i as u64;
                    }
                });
                let mut e = v.clone();
                e.chunks_mut(size).enumerate().for_each(|(i, c)| {
                    for x in c.iter_mut() {
                        *x += i as u64;
                    }
                });
                assert_eq!(w, e, "par_chunks_mut({size}) of {n}");
            }
        }
    });
}

#[test]
fn integer_ranges_of_every_type() {
    everywhere(|| {
        assert_eq!(
            (0..1000u32).into_par_iter().sum::<u32>(),
            (0..1000u32).sum()
        );
        assert_eq!((0..1000u64).into_par_iter().sum::<u64>(), 499_500);
        assert_eq!((-500..500i32).into_par_iter().sum::<i32>(), -500);
        assert_eq!((-500..=500i64).into_par_iter().sum::<i64>(), 0);
        assert_eq!(
            (0..=u8::MAX).into_par_iter().map(u32::from).sum::<u32>(),
            32_640
        );
        assert_eq!((i8::MIN..=i8::MAX).into_par_iter().count(), 256);
        assert_eq!(
            (u32::MAX - 10..=u32::MAX)
                .into_par_iter()
                .collect::<Vec<_>>(),
            (u32::MAX - 10..=u32::MAX).collect::<Vec<_>>()
        );
        assert_eq!(
            (i64::MAX - 3..=i64::MAX)
                .into_par_iter()
                .collect::<Vec<_>>(),
            (i64::MAX - 3..=i64::MAX).collect::<Vec<_>>()
        );
        let (hi, lo) = (std::hint::black_box(10usize), 0usize);
        assert_eq!((hi..lo).into_par_iter().count(), 0);
        #[allow(clippy::reversed_empty_ranges)]
        let empty = 10..=0u64;
        assert_eq!(empty.into_par_iter().count(), 0);
        assert_eq!((5..=5i32).into_par_iter().collect::<Vec<_>>(), [5]);
        assert_eq!((0..1u64 << 40).into_par_iter().len(), 1 << 40);
        assert_eq!((i64::MIN..0).into_par_iter().len(), 1 << 63);
    });
}

#[test]
#[should_panic(expected = "more than usize::MAX items")]
fn range_too_long_panics_clearly() {
    let _ = (0..=u64::MAX).into_par_iter();
}

#[test]
fn adaptors_match_std() {
    everywhere(|| {
        for v in inputs() {
            let n = v.len();
            let m: Vec<u64> = v.par_iter().map(|x| x * x).collect();
            assert_eq!(m, v.iter().map(|x| x * x).collect::<Vec<_>>());
            let f: Vec<&u64> = v.par_iter().filter(|&&x| x % 3 == 0).collect();
            assert_eq!(f, v.iter().filter(|&&x| x % 3 == 0).collect::<Vec<_>>());
            let fm: Vec<u64> = v
                .par_iter()
                .filter_map(|&x| (x % 2 == 1).then_some(x / 2))
                .collect();
            let e: Vec<u64> = v
                .iter()
                .filter_map(|&x| (x % 2 == 1).then_some(x / 2))
                .collect();
            assert_eq!(fm, e);
            let en: Vec<(usize, u64)> = v.par_iter().copied().enumerate().collect();
            assert_eq!(en, v.iter().copied().enumerate().collect::<Vec<_>>());
            let other: Vec<u64> = (0..n as u64 / 2 + 3).collect();
            let z: Vec<(u64, u64)> = v
                .par_iter()
                .copied()
                .zip(other.par_iter().copied())
                .collect();
            assert_eq!(
                z,
                v.iter()
                    .copied()
                    .zip(other.iter().copied())
                    .collect::<Vec<_>>()
            );
            let z2: Vec<(usize, (&u64, u64))> = v.par_iter().zip(0..n as u64).enumerate().collect();
            assert_eq!(
                z2,
                v.iter().zip(0..n as u64).enumerate().collect::<Vec<_>>()
            );
            let c: Vec<u64> = v.par_iter().cloned().collect();
            assert_eq!(c, v);
            for (min, max) in [(1, usize::MAX), (7, usize::MAX), (1, 1), (1, 10), (50, 100)] {
                let s: u64 = v.par_iter().with_min_len(min).with_max_len(max).sum();
                assert_eq!(s, v.iter().sum::<u64>(), "min {min} max {max} len {n}");
                let mc: Vec<u64> = v
                    .par_iter()
                    .map(|x| x + 1)
                    .with_max_len(max)
                    .with_min_len(min)
                    .collect();
                assert_eq!(mc, v.iter().map(|x| x + 1).collect::<Vec<_>>());
            }
            // Map over an unindexed iterator, and map then filter then map.
            let mfm: Vec<u64> = v
                .par_iter()
                .map(|x| x * 2)
                .filter(|x| x % 3 == 0)
                .map(|x| x + 1)
                .collect();
            let e: Vec<u64> = v
                .iter()
                .map(|x| x * 2)
                .filter(|x| x % 3 == 0)
                .map(|x| x + 1)
                .collect();
            assert_eq!(mfm, e);
        }
    });
}

#[test]
fn consumers_match_std() {
    everywhere(|| {
        for v in inputs() {
            assert_eq!(v.par_iter().sum::<u64>(), v.iter().sum::<u64>());
            let small: Vec<u64> = v.iter().map(|x| x % 3 + 1).take(30).collect();
            assert_eq!(
                small.par_iter().product::<u64>(),
                small.iter().product::<u64>()
            );
            assert_eq!(v.par_iter().count(), v.len());
            assert_eq!(
                v.par_iter().filter(|&&x| x > 500).count(),
                v.iter().filter(|&&x| x > 500).count()
            );
            assert_eq!(v.par_iter().min(), v.iter().min());
            assert_eq!(v.par_iter().max(), v.iter().max());
            // Ties: the key collapses many items; std returns the first minimum and the last maximum.
            let by_key_min = v.par_iter().enumerate().min_by_key(|&(_, &x)| x / 100);
            assert_eq!(
                by_key_min,
                v.iter().enumerate().min_by_key(|&(_, &x)| x / 100)
            );
            let by_key_max = v.par_iter().enumerate().max_by_key(|&(_, &x)| x / 100);
            assert_eq!(
                by_key_max,
                v.iter().enumerate().max_by_key(|&(_, &x)| x / 100)
            );
            assert_eq!(
                v.par_iter().copied().reduce(|| 0, |a, b| a.wrapping_add(b)),
                v.iter().sum::<u64>()
            );
            let folded: u64 = v
                .par_iter()
                .fold(|| 0u64, |acc, &x| acc + x)
                .reduce(|| 0, |a, b| a + b);
            assert_eq!(folded, v.iter().sum::<u64>());
            let fold_sum: u64 = v.par_iter().fold(|| 0u64, |acc, &x| acc + x).sum();
            assert_eq!(fold_sum, v.iter().sum::<u64>());
            for probe in [0, 1, 999, 1000] {
                assert_eq!(v.par_iter().any(|&x| x == probe), v.contains(&probe));
                assert_eq!(v.par_iter().all(|&x| x != probe), !v.contains(&probe));
                let found = v.par_iter().find_any(|&&x| x == probe);
                assert_eq!(found.is_some(), v.contains(&probe));
                assert!(found.is_none_or(|&x| x == probe));
            }
            let mut seen = std::sync::Mutex::new(Vec::new());
            v.par_iter().for_each(|&x| seen.lock().unwrap().push(x));
            let seen = seen.get_mut().unwrap();
            seen.sort_unstable();
            let mut sorted = v.clone();
            sorted.sort_unstable();
            assert_eq!(*seen, sorted);
        }
    });
}

#[test]
fn empty_inputs() {
    everywhere(|| {
        let v: Vec<u64> = Vec::new();
        assert_eq!(v.par_iter().min(), None);
        assert_eq!(v.par_iter().max_by_key(|&&x| x), None);
        assert_eq!(v.par_iter().sum::<u64>(), 0);
        assert_eq!(v.par_iter().product::<u64>(), 1);
        assert!(!v.par_iter().any(|_| true));
        assert!(v.par_iter().all(|_| false));
        assert_eq!(v.par_iter().find_any(|_| true), None);
        assert_eq!(v.par_iter().copied().reduce(|| 7, |a, b| a + b), 7);
        assert_eq!(v.par_chunks(3).count(), 0);
    });
}

/// 2x2 matrix product: associative, not commutative.
fn mat_mul(a: [u64; 4], b: [u64; 4]) -> [u64; 4] {
    const M: u64 = 1_000_000_007;
    [
        (a[0] * b[0] + a[1] * b[2]) % M,
        (a[0] * b[1] + a[1] * b[3]) % M,
        (a[2] * b[0] + a[3] * b[2]) % M,
        (a[2] * b[1] + a[3] * b[3]) % M,
    ]
}

#[test]
fn order_sensitive_reductions_equal_sequential() {
    everywhere(|| {
        for v in inputs() {
            let mats: Vec<[u64; 4]> = v.iter().map(|&x| [x, x + 1, x % 7, 1]).collect();
            let id = [1, 0, 0, 1];
            let seq = mats.iter().fold(id, |a, &b| mat_mul(a, b));
            assert_eq!(mats.par_iter().copied().reduce(|| id, mat_mul), seq);
            let folded = mats
                .par_iter()
                .fold(|| id, |a, &b| mat_mul(a, b))
                .reduce(|| id, mat_mul);
            assert_eq!(folded, seq);

            if v.len() <= 5000 {
                let s = v
                    .par_iter()
                    .map(|x| format!("{x},"))
                    .reduce(String::new, |a, b| a + &b);
                let e: String = v.iter().map(|x| format!("{x},")).collect();
                assert_eq!(s, e);
                let s = v
                    .par_iter()
                    .filter(|&&x| x % 2 == 0)
                    .fold(String::new, |mut acc, x| {
                        acc.push_str(&x.to_string());
                        acc.push(';');
                        acc
                    })
                    .reduce(String::new, |a, b| a + &b);
                let e: String = v
                    .iter()
                    .filter(|&&x| x % 2 == 0)
                    .map(|x| format!("{x};"))
                    .collect();
                assert_eq!(s, e);
            }
        }
    });
}

#[test]
fn collect_keeps_order_for_millions_of_items() {
    everywhere(|| {
        let n = 1_500_000usize;
        let v: Vec<usize> = (0..n).into_par_iter().map(|i| i * 2).collect();
        assert_eq!(v.len(), n);
        assert!(v.iter().enumerate().all(|(i, &x)| x == i * 2));
        let f: Vec<usize> = (0..n).into_par_iter().filter(|i| i % 3 != 0).collect();
        assert_eq!(f, (0..n).filter(|i| i % 3 != 0).collect::<Vec<_>>());
        let mut target = vec![1usize; 10];
        (0..n).into_par_iter().collect_into_vec(&mut target);
        assert!(target.iter().enumerate().all(|(i, &x)| x == i));
    });
}

#[test]
fn indexed_lengths() {
    let v = [1u8; 10];
    assert_eq!(v.par_iter().len(), 10);
    assert_eq!(v.par_chunks(3).len(), 4);
    assert_eq!(v.par_iter().zip(0..4u32).len(), 4);
    assert_eq!((0..7u8).into_par_iter().map(|x| x).enumerate().len(), 7);
}

#[test]
#[should_panic(expected = "chunk size must be non-zero")]
fn par_chunks_zero_panics() {
    let v = [1, 2, 3];
    let _ = v.par_chunks(0);
}

#[test]
#[should_panic(expected = "chunk size must be non-zero")]
fn par_chunks_mut_zero_panics() {
    let mut v = [1, 2, 3];
    let _ = v.par_chunks_mut(0);
}

#[test]
fn nested_parallel_loops() {
    everywhere(|| {
        let total: u64 = (0..100u64)
            .into_par_iter()
            .map(|i| (0..i).into_par_iter().sum::<u64>())
            .sum();
        assert_eq!(total, (0..100u64).map(|i| (0..i).sum::<u64>()).sum());
    });
}

#[test]
fn piece_sizes_respect_min_and_max_len() {
    // `fold` yields one accumulator per piece, so counting items per accumulator shows piece sizes.
    everywhere(|| {
        for &n in LENGTHS {
            for (min, max) in [(1, 1), (1, 7), (10, usize::MAX), (64, 200), (1000, 1000)] {
                let pieces: Vec<usize> = (0..n)
                    .into_par_iter()
                    .with_min_len(min)
                    .with_max_len(max)
                    .fold(|| 0usize, |c, _| c + 1)
                    .filter(|&c| c > 0)
                    .collect();
                assert_eq!(pieces.iter().sum::<usize>(), n);
                for &p in &pieces {
                    // `min` wins where both cannot hold: a piece is cut only if both halves reach `min`.
                    assert!(p <= max || p < 2 * min, "piece of {p} > max {max} (n {n})");
                    assert!(p >= min.min(n), "piece of {p} < min {min} (n {n})");
                }
                if max < usize::MAX && 2 * min <= max {
                    assert!(
                        pieces.len() >= n.div_ceil(max),
                        "too few pieces for max {max}"
                    );
                }
            }
        }
    });
}

/// The pieces a `fold` over `0..n` ran as (one accumulator per piece), in a pool of two workers.
fn piece_count(pool: &forkjoin::ThreadPool, n: u64) -> usize {
    pool.install(|| {
        (0..n)
            .into_par_iter()
            .fold(|| 0u64, |c, _| c + 1)
            .filter(|&c| c > 0)
            .count()
    })
}

#[test]
fn a_call_made_while_every_other_worker_is_busy_runs_as_one_piece() {
    // Nobody could take an up-front half, and nobody asks for one later: one leaf, no joins. (The
    // nested calls of a busy recursion are exactly this case.)
    let pool = common::pool(2);
    let release_tx = common::block_the_other_worker(&pool);
    // The other worker is blocked in the spawned job (not idle) until released.
    for n in [2, 1000, 1_000_000] {
        assert_eq!(piece_count(&pool, n), 1, "n = {n}");
    }
    release_tx.send(()).unwrap();
    // With the other worker back, a long enough call is shared (up front, or when it asks). Its
    // items must cost something: a closed-form fold is rightly folded whole while the other worker
    // sleeps (see `a_closed_form_loop_folds_its_free_rest_correctly`).
    let shared = (0..100).any(|_| {
        pool.install(|| {
            (0..1u64 << 24)
                .into_par_iter()
                .fold(
                    || 0u64,
                    |c, x| c + u64::from(std::hint::black_box(x) < 1 << 24),
                )
                .filter(|&c| c > 0)
                .count()
        }) > 1
    });
    assert!(shared, "a free worker never got a piece");
}

#[test]
fn expensive_items_behind_many_free_ones_are_shared() {
    // 100,000 free items, then 64 that each spin for 300 µs: an estimate taken on the free items
    // says the rest is not worth a hand-off. The leaf that meets the expensive ones must notice
    // (its end batches are measured when a worker asks) and share them: both workers run some.
    let pool = common::pool(2);
    let free = 100_000u32;
    let spin = |d: std::time::Duration| {
        let t = std::time::Instant::now();
        while t.elapsed() < d {
            std::hint::spin_loop();
        }
    };
    let shared = (0..10).any(|_| {
        let ran_on = std::sync::Mutex::new(std::collections::HashSet::new());
        pool.install(|| {
            (0..free + 64).into_par_iter().for_each(|i| {
                if i >= free {
                    spin(std::time::Duration::from_micros(300));
                    ran_on
                        .lock()
                        .unwrap()
                        .insert(forkjoin::current_thread_index());
                }
            })
        });
        ran_on.into_inner().unwrap().len() == 2
    });
    assert!(shared, "the expensive items never left one worker");
}

#[test]
fn a_closed_form_loop_folds_its_free_rest_correctly() {
    // LLVM sums a range batch in closed form: a leaf sees batches of 2^16 items and more take
    // nanoseconds and folds its rest in one go. Whichever path a call takes (split up front or
    // not, free or not yet), every item counts once.
    let pool = common::pool(2);
    pool.install(|| {
        for n in [1u64 << 20, 1 << 30, 1_000_000_007] {
            for _ in 0..200 {
                let sum: u64 = (0..n).into_par_iter().sum();
                assert_eq!(sum, n * (n - 1) / 2, "n = {n}");
            }
            let wrapped = (0..n)
                .into_par_iter()
                .fold(|| 0u64, |a, x| a.wrapping_add(x))
                .reduce(|| 0, u64::wrapping_add);
            assert_eq!(wrapped, n * (n - 1) / 2, "n = {n}");
        }
    });
}

#[test]
fn collect_into_other_collections() {
    use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
    everywhere(|| {
        for v in inputs() {
            let s: String = v
                .par_iter()
                .map(|&x| char::from(b'a' + (x % 26) as u8))
                .collect();
            let e: String = v
                .iter()
                .map(|&x| char::from(b'a' + (x % 26) as u8))
                .collect();
            assert_eq!(s, e);
            let words: Vec<String> = v.iter().take(3000).map(|x| format!("{x} ")).collect();
            let s: String = words.par_iter().map(|w| w.as_str()).collect();
            assert_eq!(s, words.concat());
            let s: String = words.clone().into_par_iter().collect();
            assert_eq!(s, words.concat());
            let m: HashMap<u64, usize> = v.par_iter().enumerate().map(|(i, &x)| (x, i)).collect();
            let e: HashMap<u64, usize> = v.iter().enumerate().map(|(i, &x)| (x, i)).collect();
            assert_eq!(m, e, "later keys win, as sequentially");
            let m: BTreeMap<u64, usize> = v.par_iter().enumerate().map(|(i, &x)| (x, i)).collect();
            assert_eq!(m, v.iter().enumerate().map(|(i, &x)| (x, i)).collect());
            let s: HashSet<u64> = v.par_iter().copied().collect();
            assert_eq!(s, v.iter().copied().collect());
            let s: BTreeSet<u64> = v.par_iter().copied().filter(|x| x % 2 == 0).collect();
            assert_eq!(s, v.iter().copied().filter(|x| x % 2 == 0).collect());
            let d: VecDeque<u64> = v.par_iter().copied().collect();
            assert_eq!(d, v.iter().copied().collect::<VecDeque<_>>());
        }
    });
}

#[test]
fn min_by_and_max_by_match_std() {
    everywhere(|| {
        for v in inputs() {
            let f: Vec<f64> = v.iter().map(|&x| (x % 100) as f64 / 7.0).collect();
            let cmp = |a: &&f64, b: &&f64| a.total_cmp(b);
            assert_eq!(
                f.par_iter().min_by(cmp).map(|x| x.to_bits()),
                f.iter().min_by(cmp).map(|x| x.to_bits())
            );
            assert_eq!(
                f.par_iter().max_by(cmp).map(|x| x.to_bits()),
                f.iter().max_by(cmp).map(|x| x.to_bits())
            );
            // Ties resolved like std: first minimum, last maximum.
            let by_tens = |a: &(usize, &u64), b: &(usize, &u64)| (a.1 / 10).cmp(&(b.1 / 10));
            assert_eq!(
                v.par_iter().enumerate().min_by(by_tens),
                v.iter().enumerate().min_by(by_tens)
            );
            assert_eq!(
                v.par_iter().enumerate().max_by(by_tens),
                v.iter().enumerate().max_by(by_tens)
            );
        }
    });
}

#[test]
fn items_run_on_the_installing_pool() {
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(3)
        .thread_name(|i| format!("iter-test-pool-{i}"))
        .build()
        .unwrap();
    let names: Vec<String> = pool.install(|| {
        (0..10_000u32)
            .into_par_iter()
            .map(|_| std::thread::current().name().unwrap_or("").to_string())
            .collect()
    });
    assert!(
        names.iter().all(|n| n.starts_with("iter-test-pool-")),
        "an item ran outside the pool"
    );
    let indices: Vec<Option<usize>> = pool.install(|| {
        (0..1000u32)
            .into_par_iter()
            .map(|_| forkjoin::current_thread_index())
            .collect()
    });
    assert!(indices.iter().all(|i| matches!(i, Some(0..=2))));
}

#[test]
fn copied_and_cloned_keep_their_debug_names() {
    let v = vec![1u64, 2, 3];
    let copied = format!("{:?}", v.par_iter().copied());
    let cloned = format!("{:?}", v.par_iter().cloned());
    assert!(copied.starts_with("Copied { base: "), "{copied}");
    assert!(cloned.starts_with("Cloned { base: "), "{cloned}");
}
