//! `deterministic()`: the same bits on every pool, in every run, equal to the documented reference
//! tree (computed here sequentially, independently of the crate's driver), with adaptors after it
//! and with rayon's tie rules and short-circuits.
//!
//! The inputs mix magnitudes (10^-8..10^8 with both signs) so that any change of grouping changes
//! the bits. Pools of 1..=8 threads on a 2-core machine preempt each other, which varies the
//! stealing from run to run. Release builds run the reductions 50 times a pool (the other checks
//! 5 or 10 times); debug builds run each once to four times.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

use forkjoin::iter::DETERMINISTIC_BLOCK_LEN;
use forkjoin::prelude::*;

/// The documented block length, written out: the reference below must not borrow the crate's.
const B: usize = 4096;
const RUNS: usize = if cfg!(debug_assertions) { 4 } else { 50 };
/// For the checks of adaptors and other consumers.
const FEW: usize = if cfg!(debug_assertions) { 1 } else { 10 };
/// 0, 1, a prime spanning 17 blocks (the last one of a single item), and 10^6.
const LENGTHS: [usize; 4] = [0, 1, 65_537, 1_000_000];

fn pools() -> &'static [forkjoin::ThreadPool] {
    static POOLS: OnceLock<Vec<forkjoin::ThreadPool>> = OnceLock::new();
    POOLS.get_or_init(|| {
        (1..=8)
            .map(|t| {
                forkjoin::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .unwrap()
            })
            .collect()
    })
}

/// Runs `f` `runs` times on every pool and checks each result against `expected`.
fn on_every_pool<R: PartialEq + std::fmt::Debug + Send>(
    what: &str,
    runs: usize,
    expected: R,
    f: impl Fn() -> R + Sync,
) {
    for (i, pool) in pools().iter().enumerate() {
        for run in 0..runs {
            let got = pool.install(&f);
            assert_eq!(got, expected, "{what}: {} threads, run {run}", i + 1);
        }
    }
}

/// The reference tree of the documentation: blocks of `B` positions; a range of `n <= 1` blocks
/// is `leaf` of its items, a longer one `combine`s its first `n / 2` blocks with the rest.
fn tree<T, R>(items: &[T], leaf: &dyn Fn(&[T]) -> R, combine: &dyn Fn(R, R) -> R) -> R {
    let n = items.len().div_ceil(B);
    if n <= 1 {
        return leaf(items);
    }
    let mid = n / 2 * B;
    let left = tree(&items[..mid], leaf, combine);
    let right = tree(&items[mid..], leaf, combine);
    combine(left, right)
}

/// `len` values of mixed sign and magnitude (xorshift, fixed seed).
fn mixed(len: usize, seed: u64) -> Vec<f64> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            let exponent = (state % 17) as i32 - 8;
            let sign = if state & 0x100 == 0 { 1.0 } else { -1.0 };
            sign * (1.0 + unit) * 10f64.powi(exponent)
        })
        .collect()
}

/// Factors close to 1, whose product neither overflows nor underflows.
fn near_one(len: usize) -> Vec<f64> {
    mixed(len, 7).iter().map(|x| 1.0 + x * 1e-12).collect()
}

#[test]
fn the_block_length_is_the_documented_one() {
    assert_eq!(DETERMINISTIC_BLOCK_LEN, B);
}

/// A test that `sum`, `product`, `reduce`, `fold`+`reduce` and `fold`+`sum` of `$float` give the
/// reference tree's bits on every pool, for sums over `$v(len)` and products over `$p(len)`.
macro_rules! reductions_are_the_reference_tree {
    ($name:ident, $float:ty, $v:expr, $p:expr) => {
        #[test]
        fn $name() {
            for len in LENGTHS {
                let v: Vec<$float> = $v(len);
                let p: Vec<$float> = $p(len);
                let plus = |a: $float, b: $float| a + b;
                let sum = tree(&v, &|s| s.iter().sum::<$float>(), &plus);
                let product = tree(&p, &|s| s.iter().product::<$float>(), &|a, b| a * b);
                let reduce = tree(&v, &|s| s.iter().fold(0.0, |a, &x| a + x), &plus);
                // fold(id, f).reduce(id2, op): each block's accumulator folded into id2() by op.
                let fold = |s: &[$float]| s.iter().fold(0.5, |a, &x| a + x * 0.25);
                let fold_reduce = tree(&v, &|s| 0.0 + fold(s), &plus);
                // fold(...).sum(): each block's accumulator is the block's one item.
                let fold_sum = tree(&v, &fold, &plus);
                let bits = [sum, product, reduce, fold_reduce, fold_sum].map(<$float>::to_bits);
                let what = format!("{}, len {len}", stringify!($float));
                on_every_pool(&what, RUNS, bits, || {
                    [
                        v.par_iter().deterministic().sum::<$float>(),
                        p.par_iter().deterministic().product::<$float>(),
                        v.par_iter()
                            .deterministic()
                            .copied()
                            .reduce(|| 0.0, |a, b| a + b),
                        v.par_iter()
                            .deterministic()
                            .fold(|| 0.5, |a, &x| a + x * 0.25)
                            .reduce(|| 0.0, |a, b| a + b),
                        v.par_iter()
                            .deterministic()
                            .fold(|| 0.5, |a, &x| a + x * 0.25)
                            .sum::<$float>(),
                    ]
                    .map(<$float>::to_bits)
                });
            }
        }
    };
}

reductions_are_the_reference_tree!(
    f64_reductions_are_the_reference_tree_on_every_pool,
    f64,
    |len| mixed(len, 42),
    near_one
);

reductions_are_the_reference_tree!(
    f32_reductions_are_the_reference_tree_on_every_pool,
    f32,
    |len| mixed(len, 43).iter().map(|&x| x as f32).collect(),
    |len| mixed(len, 44)
        .iter()
        .map(|&x| 1.0 + x as f32 * 1e-9)
        .collect()
);

#[test]
fn the_grouping_matters_for_these_inputs() {
    // The check above could not fail if every grouping gave the same bits: it does not.
    let v = mixed(65_537, 42);
    let tree_sum = tree(&v, &|s| s.iter().sum::<f64>(), &|a, b| a + b);
    assert_ne!(tree_sum.to_bits(), v.iter().sum::<f64>().to_bits());
    let halves = v[..32_768].iter().sum::<f64>() + v[32_768..].iter().sum::<f64>();
    assert_ne!(tree_sum.to_bits(), halves.to_bits());
}

#[test]
fn adaptors_after_deterministic_give_the_same_bits_as_before_it() {
    let v = mixed(100_003, 5);
    let w = mixed(100_003, 6);
    let f = |x: &f64| x * 1.5 - 2.0;
    let plus = |a: f64, b: f64| a + b;
    let mapped = tree(&v, &|s| s.iter().map(f).sum::<f64>(), &plus).to_bits();
    let products: Vec<f64> = v.iter().zip(&w).map(|(a, b)| a * b).collect();
    let zipped = tree(&products, &|s| s.iter().sum::<f64>(), &plus).to_bits();
    let positive = |x: &&f64| **x > 0.0;
    let filtered = tree(&v, &|s| s.iter().filter(positive).sum::<f64>(), &plus).to_bits();
    let reversed: Vec<f64> = v.iter().rev().copied().collect();
    let rev = tree(&reversed, &|s| s.iter().sum::<f64>(), &plus).to_bits();
    let runs = FEW;
    on_every_pool("map", runs, [mapped; 3], || {
        [
            v.par_iter().map(f).deterministic().sum::<f64>(),
            v.par_iter().deterministic().map(f).sum::<f64>(),
            // Length bounds do not move the cuts.
            v.par_iter()
                .deterministic()
                .with_max_len(10)
                .with_min_len(1000)
                .map(f)
                .sum::<f64>(),
        ]
        .map(f64::to_bits)
    });
    on_every_pool("zip", runs, [zipped; 4], || {
        let prod = |(a, b): (&f64, &f64)| a * b;
        [
            v.par_iter().zip(&w).map(prod).deterministic().sum::<f64>(),
            v.par_iter().deterministic().zip(&w).map(prod).sum::<f64>(),
            v.par_iter()
                .zip(w.par_iter().deterministic())
                .map(prod)
                .sum::<f64>(),
            v.par_iter()
                .deterministic()
                .enumerate()
                .map(|(i, a)| a * w[i])
                .sum::<f64>(),
        ]
        .map(f64::to_bits)
    });
    on_every_pool("filter", runs, [filtered; 2], || {
        [
            v.par_iter().deterministic().filter(positive).sum::<f64>(),
            v.par_iter()
                .deterministic()
                .filter_map(|x| (*x > 0.0).then_some(*x))
                .sum::<f64>(),
        ]
        .map(f64::to_bits)
    });
    on_every_pool("rev", runs, rev, || {
        v.par_iter().deterministic().rev().sum::<f64>().to_bits()
    });
}

#[test]
fn nested_calls_are_deterministic_too() {
    // Inside a busy pool a call starts as one leaf that splits only on request.
    let v = mixed(65_537, 9);
    let expected = tree(&v, &|s| s.iter().sum::<f64>(), &|a, b| a + b).to_bits();
    on_every_pool("nested", FEW, vec![expected; 16], || {
        (0..16)
            .into_par_iter()
            .map(|_| v.par_iter().deterministic().sum::<f64>().to_bits())
            .collect::<Vec<_>>()
    });
}

#[test]
fn min_and_max_keep_rayons_tie_rules() {
    // Many ties: the key is a small hash; the payload is the position.
    let items: Vec<(u32, usize)> = (0..100_003)
        .map(|i| (((i as u64 * 2_654_435_761) >> 7) as u32 % 97, i))
        .collect();
    let key = |x: &(u32, usize)| x.0;
    let by_key = |a: &(u32, usize), b: &(u32, usize)| a.0.cmp(&b.0);
    let expected = [
        items.iter().copied().min_by(by_key),
        items.iter().copied().max_by(by_key),
        items.iter().copied().min_by_key(key),
        items.iter().copied().max_by_key(key),
    ];
    // std's rules: the first of equal minima, the last of equal maxima.
    assert_eq!(
        expected[0].unwrap().1,
        items.iter().position(|x| x.0 == 0).unwrap()
    );
    assert_eq!(
        expected[1].unwrap().1,
        items.iter().rposition(|x| x.0 == 96).unwrap()
    );
    on_every_pool("min/max", FEW, expected, || {
        let it = || items.par_iter().copied().deterministic();
        [
            it().min_by(by_key),
            it().max_by(by_key),
            it().min_by_key(key),
            it().max_by_key(key),
        ]
    });
}

#[test]
fn try_reduce_stops_each_block_at_its_failure_and_returns_the_leftmost() {
    let len = 10 * B;
    let fail_at = [3 * B + 5, 7 * B + 100];
    let calls = AtomicUsize::new(0);
    let run = || {
        (0..len)
            .into_par_iter()
            .deterministic()
            .map(|i| {
                calls.fetch_add(1, Relaxed);
                if fail_at.contains(&i) {
                    Err(i)
                } else {
                    Ok(i as u64)
                }
            })
            .try_reduce(|| 0, |a, b| Ok(a + b))
    };
    for (i, pool) in pools().iter().enumerate() {
        for _ in 0..FEW {
            calls.store(0, Relaxed);
            assert_eq!(pool.install(run), Err(fail_at[0]), "{} threads", i + 1);
            // Each failing block stops right after its failure; every other item is visited once.
            let skipped: usize = fail_at.iter().map(|&p| B - 1 - p % B).sum();
            assert_eq!(calls.load(Relaxed), len - skipped, "{} threads", i + 1);
        }
    }
    let ok: Result<u64, usize> = (0..len)
        .into_par_iter()
        .deterministic()
        .map(|i| Ok(i as u64))
        .try_reduce(|| 0, |a, b| Ok(a + b));
    assert_eq!(ok, Ok((len as u64 - 1) * len as u64 / 2));
}

#[test]
fn reduce_with_and_count_follow_the_tree() {
    let v = mixed(65_537, 11);
    let expected = tree(
        &v,
        &|s| s.iter().copied().reduce(|a, b| a + b),
        &|a, b| match (a, b) {
            (Some(a), Some(b)) => Some(a + b),
            (a, None) => a,
            (None, b) => b,
        },
    )
    .map(f64::to_bits);
    on_every_pool("reduce_with", FEW, (expected, 65_537), || {
        let it = || v.par_iter().copied().deterministic();
        (
            it().reduce_with(|a, b| a + b).map(f64::to_bits),
            it().count(),
        )
    });
    assert_eq!(
        Vec::<f64>::new()
            .par_iter()
            .deterministic()
            .copied()
            .reduce_with(|a, b| a + b),
        None
    );
}

#[test]
fn producer_adaptors_keep_the_fixed_tree() {
    // `enumerate` at the end drives each chain through its producers (a chain whose bridge missed
    // the fixed tree would be split adaptively); each sum must be the tree over the adapted items.
    let v: Vec<f64> = mixed(50_001, 13);
    let w: Vec<f64> = mixed(30_011, 14);
    let sum_tree = |items: &[f64]| tree(items, &|s| s.iter().sum::<f64>(), &|a, b| a + b);
    let by3 = |c: &[f64]| c.iter().fold(0.0, |a, x| a + x);
    let twice: Vec<f64> = v.iter().map(|x| x * 2.0).collect();
    let step: Vec<f64> = v.iter().step_by(3).copied().collect();
    let chunked: Vec<f64> = v.chunks(3).map(|c| c.iter().sum()).collect();
    let folded: Vec<f64> = v.chunks(3).map(by3).collect();
    let spaced: Vec<f64> = v.iter().flat_map(|&x| [0.0, x]).skip(1).collect();
    let chained: Vec<f64> = v.iter().chain(&w).copied().collect();
    let mut woven = Vec::new();
    for (i, &x) in v.iter().enumerate() {
        woven.push(x);
        woven.extend(w.get(i));
    }
    let expected: Vec<u64> = [
        sum_tree(&twice),
        sum_tree(&v),
        sum_tree(&twice),
        sum_tree(&twice),
        sum_tree(&v),
        sum_tree(&v),
        sum_tree(&step),
        sum_tree(&chunked),
        sum_tree(&folded),
        sum_tree(&spaced),
        sum_tree(&chained),
        sum_tree(&woven),
        sum_tree(&v[5..40_005]),
    ]
    .map(f64::to_bits)
    .to_vec();
    on_every_pool("producer adaptors", FEW.div_ceil(2), expected, || {
        let det = || v.par_iter().deterministic();
        let last = |x: (usize, f64)| x.1;
        [
            det().map(|x| x * 2.0).enumerate().map(last).sum::<f64>(),
            det().copied().enumerate().map(last).sum(),
            det()
                .map_with(2.0, |k, x| x * *k)
                .enumerate()
                .map(last)
                .sum(),
            det()
                .map_init(|| 2.0, |k, x| x * *k)
                .enumerate()
                .map(last)
                .sum(),
            det().copied().panic_fuse().enumerate().map(last).sum(),
            det()
                .copied()
                .with_min_len(100)
                .with_max_len(3)
                .enumerate()
                .map(last)
                .sum(),
            det().copied().step_by(3).enumerate().map(last).sum(),
            det()
                .copied()
                .chunks(3)
                .map(|c| c.iter().sum::<f64>())
                .enumerate()
                .map(last)
                .sum(),
            det()
                .fold_chunks(3, || 0.0, |a, x| a + x)
                .enumerate()
                .map(last)
                .sum(),
            det().copied().intersperse(0.0).enumerate().map(last).sum(),
            det()
                .copied()
                .chain(w.par_iter().copied())
                .enumerate()
                .map(last)
                .sum(),
            det()
                .copied()
                .interleave(w.par_iter().copied())
                .enumerate()
                .map(last)
                .sum(),
            det()
                .copied()
                .skip(5)
                .take(40_000)
                .enumerate()
                .map(last)
                .sum(),
        ]
        .map(f64::to_bits)
        .to_vec()
    });
}

#[test]
fn other_consumers_work_on_a_deterministic_iterator() {
    let len = 5 * B + 77;
    let v: Vec<u64> = (0..len as u64).collect();
    let sum = std::sync::atomic::AtomicU64::new(0);
    for pool in &pools()[..4] {
        pool.install(|| {
            let det = || v.par_iter().copied().deterministic();
            assert_eq!(
                det().map(|x| x * 2).collect::<Vec<_>>(),
                v.iter().map(|x| x * 2).collect::<Vec<_>>()
            );
            assert_eq!(
                det().filter(|x| x % 7 == 3).collect::<Vec<_>>(),
                v.iter().copied().filter(|x| x % 7 == 3).collect::<Vec<_>>()
            );
            assert_eq!(det().find_first(|&x| x % 1000 == 999), Some(999));
            assert_eq!(
                det().find_last(|&x| x % 1000 == 999),
                v.iter().rev().copied().find(|x| x % 1000 == 999)
            );
            assert_eq!(det().position_first(|x| x == 3 * B as u64), Some(3 * B));
            assert!(det().any(|x| x == len as u64 - 1));
            assert!(!det().all(|x| x < 5));
            sum.store(0, Relaxed);
            det().for_each(|x| {
                sum.fetch_add(x, Relaxed);
            });
            assert_eq!(sum.load(Relaxed), v.iter().sum::<u64>());
            let (evens, odds): (Vec<u64>, Vec<u64>) = det().partition(|x| x % 2 == 0);
            assert_eq!(evens.len() + odds.len(), len);
        });
    }
}

/// A producer adaptor of a user's own, written the way rayon's plumbing README teaches (the
/// items scaled by a factor): it knows nothing of `deterministic()`.
mod user_adaptor {
    use forkjoin::iter::plumbing::*;
    use forkjoin::prelude::*;

    pub struct Scale<I> {
        pub base: I,
        pub factor: f64,
    }

    impl<I: IndexedParallelIterator<Item = f64>> ParallelIterator for Scale<I> {
        type Item = f64;
        fn drive_unindexed<C: UnindexedConsumer<f64>>(self, consumer: C) -> C::Result {
            bridge(self, consumer)
        }
        fn opt_len(&self) -> Option<usize> {
            Some(self.base.len())
        }
    }

    impl<I: IndexedParallelIterator<Item = f64>> IndexedParallelIterator for Scale<I> {
        fn len(&self) -> usize {
            self.base.len()
        }
        fn drive<C: Consumer<f64>>(self, consumer: C) -> C::Result {
            bridge(self, consumer)
        }
        fn with_producer<CB: ProducerCallback<f64>>(self, callback: CB) -> CB::Output {
            return self.base.with_producer(Callback {
                callback,
                factor: self.factor,
            });

            struct Callback<CB> {
                callback: CB,
                factor: f64,
            }
            impl<CB: ProducerCallback<f64>> ProducerCallback<f64> for Callback<CB> {
                type Output = CB::Output;
                fn callback<P: Producer<Item = f64>>(self, base: P) -> CB::Output {
                    self.callback.callback(ScaleProducer {
                        base,
                        factor: self.factor,
                    })
                }
            }
        }
    }

    struct ScaleProducer<P> {
        base: P,
        factor: f64,
    }

    impl<P: Producer<Item = f64>> Producer for ScaleProducer<P> {
        type Item = f64;
        type IntoIter = std::iter::Map<P::IntoIter, Box<dyn Fn(f64) -> f64>>;
        fn into_iter(self) -> Self::IntoIter {
            let factor = self.factor;
            self.base.into_iter().map(Box::new(move |x| x * factor))
        }
        fn split_at(self, index: usize) -> (Self, Self) {
            let (left, right) = self.base.split_at(index);
            let factor = self.factor;
            (
                ScaleProducer { base: left, factor },
                ScaleProducer {
                    base: right,
                    factor,
                },
            )
        }
    }

    /// A consumer-side adaptor of a user's own (rayon style): drops the negative items.
    pub struct KeepPositive<I>(pub I);

    impl<I: ParallelIterator<Item = f64>> ParallelIterator for KeepPositive<I> {
        type Item = f64;
        fn drive_unindexed<C: UnindexedConsumer<f64>>(self, consumer: C) -> C::Result {
            self.0.drive_unindexed(PositiveConsumer(consumer))
        }
    }

    struct PositiveConsumer<C>(C);
    struct PositiveFolder<F>(F);

    impl<C: UnindexedConsumer<f64>> Consumer<f64> for PositiveConsumer<C> {
        type Folder = PositiveFolder<C::Folder>;
        type Reducer = C::Reducer;
        type Result = C::Result;
        fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
            let (l, r, red) = self.0.split_at(index);
            (PositiveConsumer(l), PositiveConsumer(r), red)
        }
        fn into_folder(self) -> Self::Folder {
            PositiveFolder(self.0.into_folder())
        }
        fn full(&self) -> bool {
            self.0.full()
        }
    }

    impl<C: UnindexedConsumer<f64>> UnindexedConsumer<f64> for PositiveConsumer<C> {
        fn split_off_left(&self) -> Self {
            PositiveConsumer(self.0.split_off_left())
        }
        fn to_reducer(&self) -> C::Reducer {
            self.0.to_reducer()
        }
    }

    impl<F: Folder<f64>> Folder<f64> for PositiveFolder<F> {
        type Result = F::Result;
        fn consume(self, item: f64) -> Self {
            if item > 0.0 {
                PositiveFolder(self.0.consume(item))
            } else {
                self
            }
        }
        fn complete(self) -> F::Result {
            self.0.complete()
        }
        fn full(&self) -> bool {
            self.0.full()
        }
    }
}

#[test]
fn a_users_own_adaptors_after_deterministic_keep_the_same_bits() {
    use user_adaptor::{KeepPositive, Scale};
    let v = mixed(100_003, 9);
    let plus = |a: f64, b: f64| a + b;
    let scaled = tree(&v, &|s| s.iter().map(|x| x * 0.7).sum::<f64>(), &plus).to_bits();
    let positive = tree(&v, &|s| s.iter().filter(|x| **x > 0.0).sum::<f64>(), &plus).to_bits();
    on_every_pool("a user's producer adaptor", FEW, [scaled; 2], || {
        let base = v.par_iter().copied().deterministic();
        [
            Scale { base, factor: 0.7 }.sum::<f64>(),
            Scale {
                base: v.par_iter().copied().deterministic(),
                factor: 0.7,
            }
            .map(|x| x + 0.0)
            .sum::<f64>(),
        ]
        .map(f64::to_bits)
    });
    on_every_pool("a user's consumer adaptor", FEW, positive, || {
        KeepPositive(v.par_iter().copied().deterministic())
            .sum::<f64>()
            .to_bits()
    });
}
