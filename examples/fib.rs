//! The README's demo: Fibonacci with `join` at every level, sequential vs forkjoin on 1..=k threads.
//!
//! ```sh
//! cargo run --release --example fib -- [n] [--threads k] [--cutoff c] [--runs r]
//! ```
//!
//! `n` (default 35) is the Fibonacci index. Subproblems with `n <= cutoff` run sequentially (default 1:
//! a `join` at every level, the worst case for a runtime's per-join overhead). Each thread count runs in
//! its own `ThreadPool` via `install`; times are medians of `runs` (default 3) runs. Every result is
//! checked against the sequential one; a mismatch exits with status 1.

use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str = "usage: fib [n] [--threads k] [--cutoff c] [--runs r]
  n            Fibonacci index, 2..=60 (default 35)
  --threads k  run forkjoin on 1..=k threads (default: available parallelism)
  --cutoff c   subproblems with n <= c run sequentially, 1..=n (default 1: join at every level)
  --runs r     timed runs per row, the median is reported, 1..=100 (default 3)";

struct Args {
    n: u32,
    threads: usize,
    cutoff: u32,
    runs: usize,
}

fn parse_args() -> Result<Args, String> {
    let default_threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut args = Args {
        n: 35,
        threads: default_threads,
        cutoff: 1,
        runs: 3,
    };
    let mut n_seen = false;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .ok_or_else(|| format!("{name} needs a value"))
                .and_then(|v| {
                    v.parse::<u64>()
                        .map_err(|_| format!("{name}: `{v}` is not a non-negative integer"))
                })
        };
        match arg.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--threads" => args.threads = value("--threads")? as usize,
            "--cutoff" => args.cutoff = u32::try_from(value("--cutoff")?).unwrap_or(u32::MAX),
            "--runs" => args.runs = value("--runs")? as usize,
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`")),
            s if !n_seen => {
                n_seen = true;
                args.n = s
                    .parse()
                    .map_err(|_| format!("n: `{s}` is not a non-negative integer"))?;
            }
            s => return Err(format!("unexpected argument `{s}`")),
        }
    }
    if !(2..=60).contains(&args.n) {
        return Err(format!("n must be in 2..=60, got {}", args.n));
    }
    if args.threads == 0 || args.threads > 1024 {
        return Err(format!(
            "--threads must be in 1..=1024, got {}",
            args.threads
        ));
    }
    if args.cutoff == 0 || args.cutoff > args.n {
        return Err(format!(
            "--cutoff must be in 1..=n ({}), got {}",
            args.n, args.cutoff
        ));
    }
    if args.runs == 0 || args.runs > 100 {
        return Err(format!("--runs must be in 1..=100, got {}", args.runs));
    }
    Ok(args)
}

fn fib_seq(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

fn fib_par(n: u32, cutoff: u32) -> u64 {
    if n <= cutoff {
        return fib_seq(n);
    }
    let (a, b) = forkjoin::join(|| fib_par(n - 1, cutoff), || fib_par(n - 2, cutoff));
    a + b
}

/// Number of `join` calls `fib_par(n, cutoff)` makes: one per node above the cutoff.
fn joins(n: u32, cutoff: u32) -> u64 {
    // joins(k) = 0 for k <= cutoff, else 1 + joins(k-1) + joins(k-2).
    let mut table = vec![0u64; n as usize + 1];
    for k in 0..=n as usize {
        if k as u32 > cutoff {
            table[k] = 1 + table[k - 1] + table[k - 2];
        }
    }
    table[n as usize]
}

/// Runs `f` `runs` times; returns the median time and the result of every run.
fn measure(runs: usize, mut f: impl FnMut() -> u64) -> (Duration, Vec<u64>) {
    let mut times = Vec::with_capacity(runs);
    let mut results = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let r = std::hint::black_box(f());
        times.push(start.elapsed());
        results.push(r);
    }
    times.sort();
    (times[runs / 2], results)
}

fn fmt_time(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} us", s * 1e6)
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(msg) => {
            if msg.is_empty() {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {msg}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let Args {
        n,
        threads,
        cutoff,
        runs,
    } = args;
    let njoins = joins(n, cutoff);
    println!(
        "fib({n}), cutoff {cutoff}: {njoins} joins per run; median of {runs} run(s); {} CPU(s) available",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!();
    println!(
        "{:>8}  {:>11}  {:>8}  {:>9}  {:>9}  {:>10}",
        "threads", "time", "speedup", "vs 1 thr", "ns/join", "Mjoins/s"
    );

    let (t_seq, seq_results) = measure(runs, || fib_seq(n));
    let expected = seq_results[0];
    println!(
        "{:>8}  {:>11}  {:>8}  {:>9}  {:>9}  {:>10}",
        "seq",
        fmt_time(t_seq),
        "1.00x",
        "-",
        "-",
        "-"
    );

    let mut ok = seq_results.iter().all(|&r| r == expected);
    let mut t_one = None;
    for k in 1..=threads {
        let pool = match forkjoin::ThreadPoolBuilder::new().num_threads(k).build() {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: cannot build a pool of {k} threads: {e}");
                return ExitCode::FAILURE;
            }
        };
        let (t, results) = measure(runs, || pool.install(|| fib_par(n, cutoff)));
        let t1 = *t_one.get_or_insert(t);
        let bad: Vec<u64> = results.iter().copied().filter(|&r| r != expected).collect();
        // Overhead per join on top of the sequential work, spread over the threads in use.
        let ns_per_join = if njoins > 0 {
            format!(
                "{:.2}",
                (t.as_secs_f64() * k as f64 - t_seq.as_secs_f64()) * 1e9 / njoins as f64
            )
        } else {
            "-".into()
        };
        let mjoins = if njoins > 0 {
            format!("{:.1}", njoins as f64 / t.as_secs_f64() / 1e6)
        } else {
            "-".into()
        };
        println!(
            "{:>8}  {:>11}  {:>7.2}x  {:>8.2}x  {:>9}  {:>10}{}",
            k,
            fmt_time(t),
            t_seq.as_secs_f64() / t.as_secs_f64(),
            t1.as_secs_f64() / t.as_secs_f64(),
            ns_per_join,
            mjoins,
            if bad.is_empty() { "" } else { "  WRONG" }
        );
        if !bad.is_empty() {
            eprintln!("error: {k} thread(s): got {bad:?}, expected {expected}");
            ok = false;
        }
    }
    println!();
    println!("speedup = seq time / time; ns/join = (time x threads - seq time) / joins (CPU overhead per join)");
    if ok {
        println!("fib({n}) = {expected}: all results match the sequential one");
        ExitCode::SUCCESS
    } else {
        eprintln!("error: some results differ from the sequential fib({n}) = {expected}");
        ExitCode::FAILURE
    }
}
