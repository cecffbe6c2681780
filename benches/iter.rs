//! Parallel iterators: forkjoin vs rayon vs a sequential loop, at 1 and 2 threads (one dedicated pool
//! of each size per library). Rows of one group are side by side:
//! `iter/<workload>/{seq, rayon-1t, forkjoin-1t, rayon-2t, forkjoin-2t}`.
//!
//! Workloads: sum of 10^8 u64 from a range and from a Vec; map+collect of 10^7; two skewed for_each
//! loops (item i costs ∝ i, and front-loaded: ∝ (n−i)², like a triple loop over an upper-triangular
//! index space); filter+count over 10^8; a `for_each` over 10^5 items that do nothing followed by
//! 10^3 of ≈20 µs (the expensive ones must still be shared). No `with_min_len` tuning anywhere.
//!
//! `iter-compat/<workload>`: the adaptors and sources added for rayon compatibility, same layout:
//! `flat_map` with long inner iterators (10^3 × 10^4) and with short ones (10^6 × 4); `par_lines`
//! over 16 MB of text (lines of 0–80 bytes), summing line lengths; `par_chunks_exact(16)` over
//! 10^7 u64, summing each chunk's maximum; `chain` of two ranges of 5·10^7 and of two filtered
//! ones; `par_bridge` of a sequential iterator of 10^5 items (200 rounds of work each, ≈0.6 µs).
//!
//! `iter-fold/<workload>`: rayon-demo's nbody force loop, a large closure, through
//! `par_iter().fold(..).reduce(..)`: once per body of 2,000 as in the demo's `parreduce` mode
//! (2,000 calls of 2,000 items), and once over 10^6 bodies. On 1 thread both should cost what the
//! sequential fold costs: the loop over a piece must inline the closure.

use std::hint::black_box;
use std::time::Duration;

#[path = "../examples/common/workloads.rs"]
mod workloads;

#[path = "../examples/common/nbody.rs"]
#[macro_use]
mod nbody;

use criterion::{criterion_group, criterion_main, Criterion};

const SUM_N: u64 = 100_000_000;
const COLLECT_N: usize = 10_000_000;
const SKEW_N: u64 = 10_000;
/// Cheap items, then [`EXPENSIVE_N`] expensive ones of [`EXPENSIVE_ROUNDS`] rounds (≈20 µs each).
const CHEAP_N: u64 = 100_000;
const EXPENSIVE_N: u64 = 1_000;
const EXPENSIVE_ROUNDS: u64 = 20_000;
const FILTER_N: u64 = 100_000_000;

// Work proportional to `i`: `i` rounds of a dependent xorshift (≈1 ns each).
#[path = "../tests/iter_common/spin.rs"]
mod spin;
use spin::spin as skewed_work;

/// Front-loaded skew: item i costs (n−i)²/n rounds, so the first quarter holds 58% of the work.
#[inline]
fn front_loaded_work(i: u64, n: u64) -> u64 {
    skewed_work((n - i) * (n - i) / n)
}

#[inline]
fn keep(x: u64) -> bool {
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 61 == 0
}

const FLAT_OUTER: u64 = 1_000;
const FLAT_INNER: u64 = 10_000;
const FLAT_SHORT_OUTER: u64 = 1_000_000;

const TEXT_BYTES: usize = 16 << 20;

/// About `bytes` of ASCII text in lines of 0–80 bytes (deterministic).
fn text(bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 100);
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    while s.len() < bytes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = (x % 81) as usize;
        s.extend((0..len).map(|i| (b'a' + ((x >> (i % 50)) % 26) as u8) as char));
        s.push('\n');
    }
    s
}

const CHUNKS_N: u64 = 10_000_000;
const CHAIN_N: u64 = 100_000_000;
const BRIDGE_N: u64 = 100_000;
/// Bodies of the nbody shape (rayon-demo's `--bodies 2000`), and of the long slice folded once.
const NBODY_N: usize = 2_000;
const NBODY_SLICE_N: usize = 1_000_000;
/// Rounds of work per `par_bridge` item (a few ns each): enough that the items, not the shared
/// iterator's lock, dominate.
const BRIDGE_WORK: u64 = 200;

mod seq {
    use super::*;
    pub fn chain(n: u64) -> u64 {
        (0..n / 2).chain(n / 2..n).map(|x| x ^ (x >> 3)).sum()
    }
    pub fn chain_filtered(n: u64) -> usize {
        (0..n / 2)
            .filter(|&x| keep(x))
            .chain((n / 2..n).filter(|&x| keep(x)))
            .count()
    }
    pub fn chunks_exact(v: &[u64]) -> u64 {
        v.chunks_exact(16).map(|c| c.iter().max().unwrap()).sum()
    }
    pub fn lines(text: &str) -> usize {
        text.lines().map(str::len).sum()
    }
    pub fn bridge(n: u64) -> u64 {
        (0..n).map(|i| skewed_work(BRIDGE_WORK) ^ i).sum()
    }
    pub fn flat_map(outer: u64, inner: u64) -> u64 {
        (0..outer)
            .flat_map(|i| (0..inner).map(move |j| i ^ j))
            .sum()
    }
    pub fn sum_range(n: u64) -> u64 {
        (0..black_box(n)).sum()
    }
    pub fn sum_vec(v: &[u64]) -> u64 {
        v.iter().sum()
    }
    pub fn map_collect(n: usize) -> Vec<u64> {
        (0..n).map(|x| x as u64 * 3 + 1).collect()
    }
    pub fn skewed(n: u64) {
        (0..n).for_each(|i| {
            black_box(skewed_work(i));
        })
    }
    pub fn skewed_front(n: u64) {
        (0..n).for_each(|i| {
            black_box(front_loaded_work(i, n));
        })
    }
    pub fn filter_count(n: u64) -> usize {
        (0..n).filter(|&x| keep(x)).count()
    }
    pub fn cheap_then_expensive(cheap: u64, expensive: u64) {
        (0..cheap + expensive).for_each(|i| {
            if i >= cheap {
                black_box(skewed_work(EXPENSIVE_ROUNDS));
            }
        })
    }
    pub fn nbody_bodies(bodies: &[nbody::Body]) -> f64 {
        bodies
            .iter()
            .map(|prev| nbody::checksum(bodies.iter().fold(Default::default(), nbody_force!(prev))))
            .sum()
    }
    pub fn nbody_slice(bodies: &[nbody::Body], prev: &nbody::Body) -> f64 {
        nbody::checksum(bodies.iter().fold(Default::default(), nbody_force!(prev)))
    }
}

macro_rules! parallel_impl {
    ($name:ident, $krate:ident) => {
        mod $name {
            use super::*;
            use $krate::prelude::*;
            pub fn sum_range(n: u64) -> u64 {
                (0..black_box(n)).into_par_iter().sum()
            }
            pub fn sum_vec(v: &[u64]) -> u64 {
                v.par_iter().sum()
            }
            // A `usize` range: indexed in both libraries (rayon's `u64` ranges are not), so both
            // write straight into the destination.
            pub fn map_collect(n: usize) -> Vec<u64> {
                (0..n).into_par_iter().map(|x| x as u64 * 3 + 1).collect()
            }
            pub fn skewed(n: u64) {
                (0..n).into_par_iter().for_each(|i| {
                    black_box(skewed_work(i));
                })
            }
            pub fn skewed_front(n: u64) {
                (0..n).into_par_iter().for_each(|i| {
                    black_box(front_loaded_work(i, n));
                })
            }
            pub fn filter_count(n: u64) -> usize {
                (0..n).into_par_iter().filter(|&x| keep(x)).count()
            }
            pub fn cheap_then_expensive(cheap: u64, expensive: u64) {
                (0..cheap + expensive).into_par_iter().for_each(|i| {
                    if i >= cheap {
                        black_box(skewed_work(EXPENSIVE_ROUNDS));
                    }
                })
            }
            pub fn chain(n: u64) -> u64 {
                (0..n / 2)
                    .into_par_iter()
                    .chain(n / 2..n)
                    .map(|x| x ^ (x >> 3))
                    .sum()
            }
            pub fn chain_filtered(n: u64) -> usize {
                (0..n / 2)
                    .into_par_iter()
                    .filter(|&x| keep(x))
                    .chain((n / 2..n).into_par_iter().filter(|&x| keep(x)))
                    .count()
            }
            pub fn chunks_exact(v: &[u64]) -> u64 {
                v.par_chunks_exact(16)
                    .map(|c| c.iter().max().unwrap())
                    .sum()
            }
            pub fn lines(text: &str) -> usize {
                text.par_lines().map(str::len).sum()
            }
            pub fn bridge(n: u64) -> u64 {
                (0..n)
                    .par_bridge()
                    .map(|i| skewed_work(BRIDGE_WORK) ^ i)
                    .sum()
            }
            pub fn flat_map(outer: u64, inner: u64) -> u64 {
                (0..outer)
                    .into_par_iter()
                    .flat_map(|i| (0..inner).into_par_iter().map(move |j| i ^ j))
                    .sum()
            }
            // rayon-demo's nbody `parreduce`: a parallel fold per body, the bodies in sequence.
            pub fn nbody_bodies(bodies: &[nbody::Body]) -> f64 {
                bodies
                    .iter()
                    .map(|prev| {
                        let acc = bodies
                            .par_iter()
                            .fold(Default::default, nbody_force!(prev))
                            .reduce(Default::default, nbody::add);
                        nbody::checksum(acc)
                    })
                    .sum()
            }
            pub fn nbody_slice(bodies: &[nbody::Body], prev: &nbody::Body) -> f64 {
                let acc = bodies
                    .par_iter()
                    .fold(Default::default, nbody_force!(prev))
                    .reduce(Default::default, nbody::add);
                nbody::checksum(acc)
            }
        }
    };
}

parallel_impl!(fj, forkjoin);
parallel_impl!(ry, rayon);

/// One criterion group: the sequential loop, then rayon and forkjoin on each pool size.
macro_rules! side_by_side {
    ($c:expr, $pools:expr, $name:expr, $seq:expr, $fj:expr, $ry:expr) => {{
        let mut group = $c.benchmark_group($name);
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(2));
        group.bench_function("seq", |b| b.iter(|| black_box($seq)));
        for (t, fjp, ryp) in $pools {
            group.bench_function(format!("rayon-{t}t"), |b| {
                b.iter(|| ryp.install(|| black_box($ry)))
            });
            group.bench_function(format!("forkjoin-{t}t"), |b| {
                b.iter(|| fjp.install(|| black_box($fj)))
            });
        }
        group.finish();
    }};
}

fn bench_iter(c: &mut Criterion) {
    let pools = workloads::forkjoin_and_rayon_pools();
    let vec: Vec<u64> = (0..SUM_N).collect();

    macro_rules! group {
        ($label:expr, $seq:expr, $fj:expr, $ry:expr) => {
            side_by_side!(c, &pools, concat!("iter/", $label), $seq, $fj, $ry)
        };
    }

    group!(
        "sum_range_1e8",
        seq::sum_range(SUM_N),
        fj::sum_range(SUM_N),
        ry::sum_range(SUM_N)
    );
    group!(
        "sum_vec_1e8",
        seq::sum_vec(&vec),
        fj::sum_vec(&vec),
        ry::sum_vec(&vec)
    );
    group!(
        "map_collect_1e7",
        seq::map_collect(COLLECT_N),
        fj::map_collect(COLLECT_N),
        ry::map_collect(COLLECT_N)
    );
    group!(
        "skewed_for_each_1e4",
        seq::skewed(SKEW_N),
        fj::skewed(SKEW_N),
        ry::skewed(SKEW_N)
    );
    group!(
        "skewed_front_for_each_1e4",
        seq::skewed_front(SKEW_N),
        fj::skewed_front(SKEW_N),
        ry::skewed_front(SKEW_N)
    );
    group!(
        "filter_count_1e8",
        seq::filter_count(FILTER_N),
        fj::filter_count(FILTER_N),
        ry::filter_count(FILTER_N)
    );
    group!(
        "cheap_then_expensive_for_each",
        seq::cheap_then_expensive(CHEAP_N, EXPENSIVE_N),
        fj::cheap_then_expensive(CHEAP_N, EXPENSIVE_N),
        ry::cheap_then_expensive(CHEAP_N, EXPENSIVE_N)
    );
}

fn bench_compat(c: &mut Criterion) {
    let pools = workloads::forkjoin_and_rayon_pools();

    macro_rules! group {
        ($label:expr, $seq:expr, $fj:expr, $ry:expr) => {
            side_by_side!(c, &pools, concat!("iter-compat/", $label), $seq, $fj, $ry)
        };
    }

    group!(
        "flat_map_1e3x1e4",
        seq::flat_map(FLAT_OUTER, FLAT_INNER),
        fj::flat_map(FLAT_OUTER, FLAT_INNER),
        ry::flat_map(FLAT_OUTER, FLAT_INNER)
    );
    group!(
        "flat_map_1e6x4",
        seq::flat_map(FLAT_SHORT_OUTER, 4),
        fj::flat_map(FLAT_SHORT_OUTER, 4),
        ry::flat_map(FLAT_SHORT_OUTER, 4)
    );
    group!(
        "chain_2x5e7",
        seq::chain(CHAIN_N),
        fj::chain(CHAIN_N),
        ry::chain(CHAIN_N)
    );
    group!(
        "chain_filtered_2x5e7",
        seq::chain_filtered(CHAIN_N),
        fj::chain_filtered(CHAIN_N),
        ry::chain_filtered(CHAIN_N)
    );
    let v: Vec<u64> = (0..CHUNKS_N).map(|x| x.wrapping_mul(0x9E37_79B9)).collect();
    group!(
        "par_chunks_exact_1e7x16",
        seq::chunks_exact(&v),
        fj::chunks_exact(&v),
        ry::chunks_exact(&v)
    );
    let text = text(TEXT_BYTES);
    group!(
        "par_lines_16MB",
        seq::lines(&text),
        fj::lines(&text),
        ry::lines(&text)
    );
    group!(
        "par_bridge_1e5",
        seq::bridge(BRIDGE_N),
        fj::bridge(BRIDGE_N),
        ry::bridge(BRIDGE_N)
    );
}

/// A large fold closure (rayon-demo's nbody force loop): whether the loop over a piece inlines it.
fn bench_fold_closure(c: &mut Criterion) {
    let pools = workloads::forkjoin_and_rayon_pools();
    let bodies = nbody::bodies(NBODY_N);
    let long = nbody::bodies(NBODY_SLICE_N);
    // At the centre of the ball: some bodies of the long slice are within its zone.
    let prev = nbody::Body {
        position: nbody::V3::default(),
        ..long[0]
    };

    macro_rules! group {
        ($label:expr, $seq:expr, $fj:expr, $ry:expr) => {
            side_by_side!(c, &pools, concat!("iter-fold/", $label), $seq, $fj, $ry)
        };
    }

    group!(
        "nbody_2000x2000",
        seq::nbody_bodies(&bodies),
        fj::nbody_bodies(&bodies),
        ry::nbody_bodies(&bodies)
    );
    group!(
        "nbody_slice_1e6",
        seq::nbody_slice(&long, &prev),
        fj::nbody_slice(&long, &prev),
        ry::nbody_slice(&long, &prev)
    );
}

criterion_group!(benches, bench_iter, bench_compat, bench_fold_closure);
criterion_main!(benches);
