//! Parallel quicksort with `join` on the two partitions.
//!
//! ```sh
//! cargo run --release --example quicksort -- [--len n] [--threads k] [--cutoff c] [--seed s] [--runs r]
//! ```
//!
//! Sorts `n` (default 10,000,000) pseudo-random `u32` from a seeded xorshift generator, sequentially
//! and with forkjoin on 1..=k threads (each in its own `ThreadPool` via `install`). Partitions shorter
//! than `cutoff` (default 2,048) are sorted sequentially with the same quicksort. Every output is
//! checked to be sorted and to be a permutation of the input (an order-independent checksum); a failure
//! exits with status 1. Times are medians of `runs` (default 3) sorts, after one untimed warm-up sort.

use std::process::ExitCode;
use std::time::{Duration, Instant};

// The sequential quicksort, partition and input generator timed by `benches/join.rs` too.
#[path = "common/workloads.rs"]
mod workloads;
use workloads::{partition, qs_seq, random_data};

const USAGE: &str = "usage: quicksort [--len n] [--threads k] [--cutoff c] [--seed s] [--runs r]
  --len n      number of u32 to sort, 1..=1_000_000_000 (default 10_000_000)
  --threads k  run forkjoin on 1..=k threads (default: available parallelism)
  --cutoff c   partitions shorter than c are sorted sequentially, >= 2 (default 2048)
  --seed s     xorshift seed, non-zero (default 0x9E3779B97F4A7C15)
  --runs r     timed sorts per row, the median is reported, 1..=100 (default 3)";

struct Args {
    len: usize,
    threads: usize,
    cutoff: usize,
    seed: u64,
    runs: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        len: 10_000_000,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        cutoff: 2048,
        seed: 0x9E37_79B9_7F4A_7C15,
        runs: 3,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        if arg == "-h" || arg == "--help" {
            return Err(String::new());
        }
        let v = it
            .next()
            .ok_or_else(|| format!("`{arg}` needs a value (or is unknown)"))?;
        let num: u64 = v
            .replace('_', "")
            .parse()
            .map_err(|_| format!("{arg}: `{v}` is not a non-negative integer"))?;
        match arg.as_str() {
            "--len" => args.len = num as usize,
            "--threads" => args.threads = num as usize,
            "--cutoff" => args.cutoff = num as usize,
            "--seed" => args.seed = num,
            "--runs" => args.runs = num as usize,
            _ => return Err(format!("unknown option `{arg}`")),
        }
    }
    if args.len == 0 || args.len > 1_000_000_000 {
        return Err(format!(
            "--len must be in 1..=1_000_000_000, got {}",
            args.len
        ));
    }
    if args.threads == 0 || args.threads > 1024 {
        return Err(format!(
            "--threads must be in 1..=1024, got {}",
            args.threads
        ));
    }
    if args.cutoff < 2 {
        return Err(format!("--cutoff must be >= 2, got {}", args.cutoff));
    }
    if args.runs == 0 || args.runs > 100 {
        return Err(format!("--runs must be in 1..=100, got {}", args.runs));
    }
    if args.seed == 0 {
        return Err("--seed must be non-zero (xorshift has a fixed point at 0)".into());
    }
    Ok(args)
}

/// An order-independent checksum of a multiset: a sum of mixed values (splitmix64 finalizer) and a
/// plain sum, so a sort that loses, duplicates or corrupts an element is caught with high probability.
fn checksum(v: &[u32]) -> (u64, u64) {
    v.iter().fold((0u64, 0u64), |(h, s), &x| {
        let mut z = (x as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (h.wrapping_add(z), s.wrapping_add(x as u64))
    })
}

fn quicksort_par(v: &mut [u32], cutoff: usize) {
    if v.len() < cutoff.max(17) {
        qs_seq(v);
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    forkjoin::join(|| quicksort_par(lo, cutoff), || quicksort_par(hi, cutoff));
}

fn fmt_time(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// Sorts fresh copies of `input` `runs` times after an untimed warm-up; checks every output; returns
/// the median time or an error message.
fn run(
    input: &[u32],
    expected: (u64, u64),
    runs: usize,
    mut sort: impl FnMut(&mut [u32]),
) -> Result<Duration, String> {
    let mut times = Vec::with_capacity(runs);
    for k in 0..=runs {
        let mut v = input.to_vec();
        let start = Instant::now();
        sort(&mut v);
        let t = start.elapsed();
        if let Some(i) = v.windows(2).position(|w| w[0] > w[1]) {
            return Err(format!("not sorted at index {i}: {} > {}", v[i], v[i + 1]));
        }
        if checksum(&v) != expected {
            return Err("output is not a permutation of the input (checksum differs)".into());
        }
        if k > 0 {
            times.push(t);
        }
    }
    times.sort();
    Ok(times[runs / 2])
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(msg) if msg.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("error: {msg}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let input = random_data(args.len, args.seed);
    let expected = checksum(&input);
    println!(
        "quicksort of {} pseudo-random u32 (xorshift seed {:#x}), sequential cutoff {}, median of {} run(s)",
        args.len, args.seed, args.cutoff, args.runs
    );
    println!();
    println!("{:>8}  {:>11}  {:>8}", "threads", "time", "speedup");

    let t_seq = match run(&input, expected, args.runs, qs_seq) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: sequential sort: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("{:>8}  {:>11}  {:>8}", "seq", fmt_time(t_seq), "1.00x");
    // std's pdqsort as a reference point for the sequential algorithm.
    if let Ok(t) = run(&input, expected, args.runs, |v| v.sort_unstable()) {
        println!(
            "{:>8}  {:>11}  {:>7.2}x",
            "std",
            fmt_time(t),
            t_seq.as_secs_f64() / t.as_secs_f64()
        );
    }

    let mut ok = true;
    for k in 1..=args.threads {
        let pool = match forkjoin::ThreadPoolBuilder::new().num_threads(k).build() {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: cannot build a pool of {k} threads: {e}");
                return ExitCode::FAILURE;
            }
        };
        let cutoff = args.cutoff;
        match run(&input, expected, args.runs, |v| {
            pool.install(|| quicksort_par(v, cutoff))
        }) {
            Ok(t) => println!(
                "{:>8}  {:>11}  {:>7.2}x",
                k,
                fmt_time(t),
                t_seq.as_secs_f64() / t.as_secs_f64()
            ),
            Err(e) => {
                eprintln!("error: {k} thread(s): {e}");
                ok = false;
            }
        }
    }
    println!();
    if ok {
        println!("all outputs sorted and permutations of the input");
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
