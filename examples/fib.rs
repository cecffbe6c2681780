//! The README's demo: first what forkjoin gives a recursive program, then what a single join costs.
//!
//! ```sh
//! cargo run --release --example fib -- [n] [--cutoff c] [--threads k] [--runs r] [--join-n m] [--pin] [--quick]
//! ```
//!
//! **1. Speedup.** fib(`n`) (default 40) the way one parallelises real code: split with `join` near the
//! root, and run subproblems with `n <= cutoff` (default 20) as plain sequential code. fib(20) is
//! ~22,000 calls, roughly 10–20 µs of work here, so a leaf costs a thousand times more than a join
//! (a few ns on the owner, a few hundred when the other half is stolen) and the ~18,000 leaves of
//! fib(40) still leave plenty to share between threads: the join overhead disappears and the time
//! scales with the threads. A much larger cutoff leaves too few pieces to balance; a much smaller one
//! goes back to paying for joins. Sequential code against forkjoin on its own pool of 1, 2, …, `k`
//! threads (default: the available parallelism), with the speedup over sequential.
//!
//! **2. Overhead.** fib(`m`) (default 32) with a join at *every* call (cutoff 1), the worst case for a
//! runtime: each join guards one addition. forkjoin against rayon, on pools of 1 and `k` threads,
//! measured in the same run. `ns/join = (time x threads - sequential time) / joins`: the CPU time each
//! join adds to the sequential program (at `k` threads it includes time spent waiting or stealing).
//!
//! Rows are interleaved round by round (sequential, then each pool), so a noisy neighbour slows every
//! row alike; times are medians of `runs` (default 5) rounds. Every run's result is checked against
//! the sequential one: any mismatch, or a pool that cannot be built, exits with status 1 (bad
//! arguments: status 2). `--quick` shrinks every size (a smoke test, run by `tests/examples.rs`);
//! `--pin` builds forkjoin's pools with `ThreadPoolBuilder::pin_threads(true)`.
//!
//! `tests/examples.rs` includes this file as a module and calls [`parse_args`] and [`run`], hence
//! their `pub`.

use std::hint::black_box;
use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The help text; `--help` prints it, a bad argument prints it after the error.
pub const USAGE: &str = "usage: fib [n] [--cutoff c] [--threads k] [--runs r] [--join-n m] [--pin] [--quick]
  n             speedup table: fib(n) with a sequential cutoff, 2..=50 (default 40)
  --cutoff c    subproblems with n <= c run sequentially, 1..=n (default 20)
  --threads k   forkjoin on 1..=k threads, the overhead table on 1 and k (default: available parallelism)
  --runs r      rounds per row, the median is reported, 1..=100 (default 5)
  --join-n m    overhead table: fib(m) with a join at every call, 2..=40 (default 32)
  --pin         pin forkjoin's workers to CPUs (ThreadPoolBuilder::pin_threads)
  --quick       small sizes and one round (a smoke test); explicit options still apply";

/// The demo's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    pub n: u32,
    pub cutoff: u32,
    pub threads: usize,
    pub runs: usize,
    pub join_n: u32,
    pub pin: bool,
}

/// Parses the arguments after the program name. `Ok(None)`: `--help` was asked for.
pub fn parse_args<I>(args: I) -> Result<Option<Args>, String>
where
    I: IntoIterator<Item = String>,
{
    let (mut n, mut cutoff, mut threads, mut runs, mut join_n) = (None, None, None, None, None);
    let (mut pin, mut quick) = (false, false);
    let mut it = args.into_iter();
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
            "-h" | "--help" => return Ok(None),
            "--cutoff" => cutoff = Some(value("--cutoff")?),
            "--threads" => threads = Some(value("--threads")?),
            "--runs" => runs = Some(value("--runs")?),
            "--join-n" => join_n = Some(value("--join-n")?),
            "--pin" => pin = true,
            "--quick" => quick = true,
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`")),
            s if n.is_none() => {
                n = Some(
                    s.parse::<u64>()
                        .map_err(|_| format!("n: `{s}` is not a non-negative integer"))?,
                );
            }
            s => return Err(format!("unexpected argument `{s}`")),
        }
    }
    let available = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let (n_default, cutoff_default, runs_default, join_n_default) = if quick {
        (24, 12, 1, 16)
    } else {
        (40, 20, 5, 32)
    };
    let n = n.unwrap_or(n_default);
    let cutoff = cutoff.unwrap_or(cutoff_default.min(n.saturating_sub(1)).max(1));
    let threads = threads.unwrap_or(available);
    let runs = runs.unwrap_or(runs_default);
    let join_n = join_n.unwrap_or(join_n_default);
    let check = |name: &str, v: u64, lo: u64, hi: u64| {
        if (lo..=hi).contains(&v) {
            Ok(v)
        } else {
            Err(format!("{name} must be in {lo}..={hi}, got {v}"))
        }
    };
    let n = check("n", n, 2, 50)?;
    Ok(Some(Args {
        n: n as u32,
        cutoff: check("--cutoff", cutoff, 1, n)? as u32,
        threads: check("--threads", threads, 1, 1024)? as usize,
        runs: check("--runs", runs, 1, 100)? as usize,
        join_n: check("--join-n", join_n, 2, 40)? as u32,
        pin,
    }))
}

/// Plain sequential fib: the baseline, and the leaves of the parallel versions.
fn fib_seq(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

/// fib with forkjoin's `join` above `cutoff` and sequential code at and below it.
fn fib_forkjoin(n: u32, cutoff: u32) -> u64 {
    if n <= cutoff {
        return fib_seq(n);
    }
    let (a, b) = forkjoin::join(
        || fib_forkjoin(n - 1, cutoff),
        || fib_forkjoin(n - 2, cutoff),
    );
    a + b
}

/// The same with rayon's `join`.
fn fib_rayon(n: u32, cutoff: u32) -> u64 {
    if n <= cutoff {
        return fib_seq(n);
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1, cutoff), || fib_rayon(n - 2, cutoff));
    a + b
}

/// Number of `join` calls `fib_forkjoin(n, cutoff)` makes: one per call above the cutoff.
fn joins(n: u32, cutoff: u32) -> u64 {
    // joins(k) = 0 for k <= cutoff, else 1 + joins(k - 1) + joins(k - 2).
    let mut table = vec![0u64; n as usize + 1];
    for k in 0..=n as usize {
        if k as u32 > cutoff {
            table[k] = 1 + table[k - 1] + table[k - 2];
        }
    }
    table[n as usize]
}

/// One table row: its label, its timed closure, its samples and any wrong results.
struct Row<'a> {
    threads: usize,
    label: &'static str,
    run: Box<dyn FnMut() -> u64 + 'a>,
    times: Vec<Duration>,
    wrong: Vec<u64>,
}

impl<'a> Row<'a> {
    fn new(threads: usize, label: &'static str, run: impl FnMut() -> u64 + 'a) -> Self {
        Row {
            threads,
            label,
            run: Box::new(run),
            times: Vec::new(),
            wrong: Vec::new(),
        }
    }

    fn median(&self) -> Duration {
        let mut t = self.times.clone();
        t.sort();
        t[t.len() / 2]
    }
}

/// Runs every row `runs` times, interleaved round by round, checking each result against `expected`.
fn measure(rows: &mut [Row<'_>], runs: usize, expected: u64) {
    for _ in 0..runs {
        for row in rows.iter_mut() {
            let start = Instant::now();
            let r = black_box((row.run)());
            row.times.push(start.elapsed());
            if r != expected {
                row.wrong.push(r);
            }
        }
    }
}

/// A time with three significant digits.
fn fmt_time(d: Duration) -> String {
    let s = d.as_secs_f64();
    let (v, unit) = if s >= 1.0 {
        (s, "s")
    } else if s >= 1e-3 {
        (s * 1e3, "ms")
    } else if s >= 1e-6 {
        (s * 1e6, "µs")
    } else {
        (s * 1e9, "ns")
    };
    let decimals = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.decimals$} {unit}")
}

/// `1234567` as `1,234,567`.
fn grouped(v: u64) -> String {
    let digits = v.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn forkjoin_pool(threads: usize, pin: bool) -> Result<forkjoin::ThreadPool, String> {
    forkjoin::ThreadPoolBuilder::new()
        .num_threads(threads)
        .pin_threads(pin)
        .build()
        .map_err(|e| format!("cannot build a forkjoin pool of {threads} thread(s): {e}"))
}

fn rayon_pool(threads: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot build a rayon pool of {threads} thread(s): {e}"))
}

/// Collects the wrong results of `rows` into error lines.
fn wrong_results(rows: &[Row<'_>], what: &str, expected: u64, errors: &mut Vec<String>) {
    for row in rows.iter().filter(|r| !r.wrong.is_empty()) {
        errors.push(format!(
            "{what}, {} on {} thread(s): got {:?}, expected {expected}",
            row.label, row.threads, row.wrong
        ));
    }
}

/// Runs the demo, printing its tables to `out`. `Err`: a pool could not be built, a result differed
/// from the sequential one (the tables are printed first, wrong rows marked), or `out` failed.
pub fn run(args: &Args, out: &mut impl Write) -> Result<(), String> {
    let io = |e: std::io::Error| format!("cannot write the output: {e}");
    let Args {
        n,
        cutoff,
        threads,
        runs,
        join_n,
        pin,
    } = *args;
    let mut errors = Vec::new();
    let pinned = if pin { ", workers pinned" } else { "" };
    writeln!(
        out,
        "forkjoin demo: {} CPU(s) available; median of {runs} run(s){pinned}",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    )
    .map_err(io)?;

    // ---------- 1. speedup: a sequential cutoff, forkjoin on 1..=threads ----------
    let expected = fib_seq(n);
    let njoins = joins(n, cutoff);
    let pools = (1..=threads)
        .map(|k| forkjoin_pool(k, pin))
        .collect::<Result<Vec<_>, _>>()?;
    let mut rows = vec![Row::new(0, "sequential", || fib_seq(black_box(n)))];
    for (i, pool) in pools.iter().enumerate() {
        rows.push(Row::new(i + 1, "forkjoin", move || {
            pool.install(|| fib_forkjoin(black_box(n), cutoff))
        }));
    }
    measure(&mut rows, runs, expected);
    let t_seq = rows[0].median();
    // Every join above the cutoff has two children; the calls at the cutoff are the leaves.
    let leaves = njoins + 1;
    writeln!(out).map_err(io)?;
    writeln!(
        out,
        "1) What you get: fib({n}), subproblems of n <= {cutoff} run sequentially \
         ({} joins, {} leaves of ~{} each)",
        grouped(njoins),
        grouped(leaves),
        fmt_time(t_seq / leaves.max(1).min(u32::MAX as u64) as u32)
    )
    .map_err(io)?;
    writeln!(out).map_err(io)?;
    writeln!(out, "{:>10}  {:>10}  {:>8}", "threads", "time", "speedup").map_err(io)?;
    for row in &rows {
        let t = row.median();
        writeln!(
            out,
            "{:>10}  {:>10}  {:>7.2}x{}",
            if row.threads == 0 {
                "sequential".to_string()
            } else {
                row.threads.to_string()
            },
            fmt_time(t),
            t_seq.as_secs_f64() / t.as_secs_f64(),
            if row.wrong.is_empty() { "" } else { "  WRONG" }
        )
        .map_err(io)?;
    }
    wrong_results(&rows, &format!("fib({n})"), expected, &mut errors);
    drop(rows);
    drop(pools);

    // ---------- 2. overhead: a join at every call, forkjoin vs rayon on 1 and threads ----------
    let expected_j = fib_seq(join_n);
    let njoins = joins(join_n, 1);
    let counts: Vec<usize> = if threads == 1 {
        vec![1]
    } else {
        vec![1, threads]
    };
    let fj = counts
        .iter()
        .map(|&k| forkjoin_pool(k, pin))
        .collect::<Result<Vec<_>, _>>()?;
    let ry = counts
        .iter()
        .map(|&k| rayon_pool(k))
        .collect::<Result<Vec<_>, _>>()?;
    let mut rows = vec![Row::new(0, "sequential", || fib_seq(black_box(join_n)))];
    for ((&k, fj), ry) in counts.iter().zip(&fj).zip(&ry) {
        rows.push(Row::new(k, "forkjoin", move || {
            fj.install(|| fib_forkjoin(black_box(join_n), 1))
        }));
        rows.push(Row::new(k, "rayon", move || {
            ry.install(|| fib_rayon(black_box(join_n), 1))
        }));
    }
    measure(&mut rows, runs, expected_j);
    let t_seq = rows[0].median();
    writeln!(out).map_err(io)?;
    writeln!(
        out,
        "2) What a join costs: fib({join_n}) with a join at every call ({} joins), forkjoin vs rayon",
        grouped(njoins)
    )
    .map_err(io)?;
    writeln!(out).map_err(io)?;
    writeln!(
        out,
        "{:>10}  {:>9}  {:>10}  {:>8}",
        "threads", "runtime", "time", "ns/join"
    )
    .map_err(io)?;
    let ns_per_join = |row: &Row<'_>| {
        (row.median().as_secs_f64() * row.threads as f64 - t_seq.as_secs_f64()) * 1e9
            / njoins as f64
    };
    for row in &rows {
        let per_join = if row.threads == 0 {
            "-".to_string()
        } else {
            format!("{:.1}", ns_per_join(row))
        };
        writeln!(
            out,
            "{:>10}  {:>9}  {:>10}  {:>8}{}",
            if row.threads == 0 {
                "sequential".to_string()
            } else {
                row.threads.to_string()
            },
            if row.threads == 0 { "-" } else { row.label },
            fmt_time(row.median()),
            per_join,
            if row.wrong.is_empty() { "" } else { "  WRONG" }
        )
        .map_err(io)?;
    }
    writeln!(out).map_err(io)?;
    writeln!(
        out,
        "ns/join = (time x threads - sequential time) / joins: the CPU time a join adds to the sequential code"
    )
    .map_err(io)?;
    // rows[1 + 2i] is forkjoin on counts[i] threads, rows[2 + 2i] rayon.
    let ratios: Vec<String> = counts
        .iter()
        .enumerate()
        .map(|(i, &k)| {
            let fj = rows[1 + 2 * i].median().as_secs_f64();
            let ry = rows[2 + 2 * i].median().as_secs_f64();
            let s = if k == 1 { "" } else { "s" };
            format!("{:.1}x on {k} thread{s}", ry / fj)
        })
        .collect();
    writeln!(out, "rayon's time / forkjoin's: {}", ratios.join(", ")).map_err(io)?;
    wrong_results(&rows, &format!("fib({join_n})"), expected_j, &mut errors);

    writeln!(out).map_err(io)?;
    if errors.is_empty() {
        writeln!(
            out,
            "fib({n}) = {expected}, fib({join_n}) = {expected_j}: every run matched the sequential result"
        )
        .map_err(io)?;
    }
    writeln!(
        out,
        "Set FORKJOIN_TRACE=trace.json to see a timeline (see docs/tracing.md)"
    )
    .map_err(io)?;
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "results differ from the sequential ones:\n  {}",
            errors.join("\n  ")
        ))
    }
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("error: {msg}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args, &mut std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::FAILURE
        }
    }
}
