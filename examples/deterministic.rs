//! What `deterministic()` costs, and what its fixed tree does to rounding error, as tables for
//! `docs/benchmarks.md` and `docs/iterators.md`.
//!
//! ```sh
//! cargo run --release --example deterministic -- [--n N] [--runs R] [--skip-error]
//! ```
//!
//! **Speed.** The workload is `(0..N).into_par_iter().map(|i| 1.0 / (i as f64 + 1.0))` summed into
//! an `f64` (N = 10^8 by default). Each round times, in this order: the sequential loop (on the
//! calling thread), the plain parallel sum and the `deterministic()` sum on a 1-thread pool, and
//! the same two on a 2-thread pool. Rounds are interleaved so drift hits every column alike; the
//! table shows the median of `R` rounds (default 9) and two ratios per pair: of the medians, and
//! the median of the per-round ratios (both columns of a pair ran seconds apart).
//!
//! A second table times a cheap reduction that the compiler vectorises (the `u64` sum of a slice
//! of 10^7 items), where the fixed cost of a block shows most.
//!
//! **Rounding.** The error of the sequential sum, the `deterministic()` sum and the plain parallel
//! sum (2 threads), against an exact reference (double-double accumulation of the same `f64`
//! terms), for the harmonic terms above and for 10^7 random terms of mixed sign and magnitude.

use std::hint::black_box;
use std::time::{Duration, Instant};

use forkjoin::prelude::*;

fn term(i: u32) -> f64 {
    1.0 / (i as f64 + 1.0)
}

fn seq_sum(n: u32) -> f64 {
    (0..n).map(term).sum::<f64>()
}

fn par_sum(n: u32) -> f64 {
    (0..n).into_par_iter().map(term).sum::<f64>()
}

fn det_sum(n: u32) -> f64 {
    (0..n)
        .into_par_iter()
        .map(term)
        .deterministic()
        .sum::<f64>()
}

fn time(f: impl FnOnce() -> f64) -> (Duration, f64) {
    let start = Instant::now();
    let r = black_box(f());
    (start.elapsed(), r)
}

fn median<T: PartialOrd + Copy>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// The columns of the speed table.
const COLUMNS: [&str; 5] = ["seq", "plain 1T", "det 1T", "plain 2T", "det 2T"];

fn speed(n: u32, runs: usize) {
    let pools: Vec<forkjoin::ThreadPool> = (1..=2)
        .map(|t| {
            forkjoin::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
        })
        .collect();
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); COLUMNS.len()];
    let mut det_bits: Option<u64> = None;
    // One warm-up round, not recorded.
    for round in 0..=runs {
        let results = [
            time(|| seq_sum(black_box(n))),
            pools[0].install(|| time(|| par_sum(black_box(n)))),
            pools[0].install(|| time(|| det_sum(black_box(n)))),
            pools[1].install(|| time(|| par_sum(black_box(n)))),
            pools[1].install(|| time(|| det_sum(black_box(n)))),
        ];
        for col in [2, 4] {
            let bits = results[col].1.to_bits();
            assert_eq!(
                *det_bits.get_or_insert(bits),
                bits,
                "deterministic sum changed"
            );
        }
        if round > 0 {
            for (s, (t, _)) in samples.iter_mut().zip(results) {
                s.push(t);
            }
        }
    }
    let med: Vec<f64> = samples
        .iter()
        .map(|s| median(s.clone()).as_secs_f64())
        .collect();
    let per_round = |a: usize, b: usize| {
        median(
            samples[a]
                .iter()
                .zip(&samples[b])
                .map(|(x, y)| x.as_secs_f64() / y.as_secs_f64())
                .collect(),
        )
    };
    println!("## Speed: sum of 1/(i+1), i < {n}, medians of {runs} interleaved rounds\n");
    println!("| column | median (ms) |");
    println!("| --- | ---: |");
    for (name, m) in COLUMNS.iter().zip(&med) {
        println!("| {name} | {:.1} |", m * 1e3);
    }
    println!();
    println!("| ratio | of medians | median of per-round ratios | bound |");
    println!("| --- | ---: | ---: | ---: |");
    for (name, a, b, bound) in [
        ("det 1T / plain 1T", 2, 1, 1.10),
        ("det 2T / plain 2T", 4, 3, 1.10),
        ("det 1T / seq", 2, 0, 1.05),
    ] {
        println!(
            "| {name} | {:.3} | {:.3} | {bound:.2} |",
            med[a] / med[b],
            per_round(a, b)
        );
    }
    println!();
}

/// An exact-enough sum: double-double accumulation (Knuth's TwoSum, renormalised each step),
/// about 32 significant digits, so its own error is far below any f64 sum's.
fn exact_sum(terms: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut hi, mut lo) = (0.0f64, 0.0f64);
    for x in terms {
        let s = hi + x;
        let bb = s - hi;
        let err = (hi - (s - bb)) + (x - bb);
        lo += err;
        hi = s + lo;
        lo -= hi - s;
    }
    (hi, lo)
}

/// `value - (hi + lo)`, in units of the reference's last place and relative.
fn error(value: f64, (hi, lo): (f64, f64)) -> (f64, f64) {
    let diff = (value - hi) - lo;
    let ulp = f64::from_bits(hi.abs().to_bits() + 1) - hi.abs();
    (diff / ulp, diff / hi)
}

fn rounding(n: u32) {
    let two = forkjoin::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    // Random terms: sign and a magnitude spread over 10^-6..10^6 (xorshift, fixed seed).
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let random: Vec<f64> = (0..10_000_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            let exponent = ((state & 0xff) as f64 / 255.0) * 12.0 - 6.0;
            let sign = if state & 0x100 == 0 { 1.0 } else { -1.0 };
            sign * (0.5 + unit) * 10f64.powf(exponent)
        })
        .collect();
    println!("## Rounding error against an exact (double-double) reference\n");
    println!("| terms | sum | sequential | deterministic() | plain, 2 threads |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let row = |name: &str, reference: (f64, f64), seq: f64, det: f64, par: f64| {
        let cell = |v: f64| {
            let (ulps, rel) = error(v, reference);
            format!("{ulps:+.1} ulp ({rel:+.1e})")
        };
        println!(
            "| {name} | {:.6} | {} | {} | {} |",
            reference.0,
            cell(seq),
            cell(det),
            cell(par)
        );
    };
    row(
        &format!("1/(i+1), i < {n}"),
        exact_sum((0..n).map(term)),
        seq_sum(n),
        det_sum(n),
        two.install(|| par_sum(n)),
    );
    row(
        "10^7 random, ±10^-6..10^6",
        exact_sum(random.iter().copied()),
        random.iter().sum(),
        random.par_iter().deterministic().sum(),
        two.install(|| random.par_iter().sum()),
    );
    println!();
}

/// A cheap, vectorisable reduction, where a block's fixed cost shows most: `u64` sum of a slice.
fn cheap(runs: usize) {
    let v: Vec<u64> = (0..10_000_000u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9))
        .collect();
    let pools: Vec<forkjoin::ThreadPool> = (1..=2)
        .map(|t| {
            forkjoin::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
        })
        .collect();
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); 5];
    let t = |f: &dyn Fn() -> u64| {
        let start = Instant::now();
        black_box(f());
        start.elapsed()
    };
    for round in 0..=runs {
        let results = [
            t(&|| v.iter().sum::<u64>()),
            pools[0].install(|| t(&|| v.par_iter().sum::<u64>())),
            pools[0].install(|| t(&|| v.par_iter().deterministic().sum::<u64>())),
            pools[1].install(|| t(&|| v.par_iter().sum::<u64>())),
            pools[1].install(|| t(&|| v.par_iter().deterministic().sum::<u64>())),
        ];
        if round > 0 {
            for (s, r) in samples.iter_mut().zip(results) {
                s.push(r);
            }
        }
    }
    let med: Vec<f64> = samples
        .into_iter()
        .map(|s| median(s).as_secs_f64() * 1e3)
        .collect();
    println!("## Speed: sum of a slice of 10^7 u64 (vectorised), medians of {runs} rounds\n");
    println!("| seq | plain 1T | det 1T | plain 2T | det 2T | det/plain 1T | det/plain 2T |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    println!(
        "| {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {:.3} | {:.3} |\n",
        med[0],
        med[1],
        med[2],
        med[3],
        med[4],
        med[2] / med[1],
        med[4] / med[3]
    );
}

fn main() {
    let mut n: u32 = 100_000_000;
    let mut runs = 9;
    let mut skip_error = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--n" => n = args.next().and_then(|v| v.parse().ok()).expect("--n N"),
            "--runs" => runs = args.next().and_then(|v| v.parse().ok()).expect("--runs R"),
            "--skip-error" => skip_error = true,
            _ => panic!("usage: deterministic [--n N] [--runs R] [--skip-error]"),
        }
    }
    speed(n, runs.max(1));
    cheap(runs.max(1));
    if !skip_error {
        rounding(n);
    }
}
