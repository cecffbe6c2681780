//! Parallel iterators on a uniform and on skewed workloads: sequential vs forkjoin, with per-worker
//! item counts, busy time and an ASCII timeline, next to a static partition of the same loop.
//!
//! ```sh
//! cargo run --release --example par_iter -- [--threads k]
//! ```
//!
//! Workloads (no `with_min_len` tuning anywhere):
//! * `uniform`: sum of `x ^ (x >> 3)` over 2·10^8 integers (trivial items; measures overhead).
//! * `linear skew`: item `i` of 20,000 costs ∝ `i` (the last half holds 3/4 of the work).
//! * `one heavy item`: 20,000 unit items plus one item holding 90% of all work.
//!
//! The static partition is the same loop with `with_min_len(n / threads)`: exactly one fixed piece per
//! thread, no further splitting — what a loop without work stealing would do.

use std::hint::black_box;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use forkjoin::prelude::*;

const USAGE: &str = "usage: par_iter [--threads k]
  --threads k  pool size, 1..=256 (default: available parallelism)";

#[path = "../tests/iter_common/spin.rs"]
mod spin;
use spin::spin;

/// Per-item record: which worker ran it and when (ns since the run started).
struct Trace {
    worker: Vec<AtomicUsize>,
    start: Vec<AtomicU64>,
    end: Vec<AtomicU64>,
    t0: Instant,
}

impl Trace {
    fn new(n: usize) -> Self {
        Trace {
            worker: (0..n).map(|_| AtomicUsize::new(0)).collect(),
            start: (0..n).map(|_| AtomicU64::new(0)).collect(),
            end: (0..n).map(|_| AtomicU64::new(0)).collect(),
            t0: Instant::now(),
        }
    }

    fn record(&self, i: usize, f: impl FnOnce()) {
        let s = self.t0.elapsed().as_nanos() as u64;
        f();
        let e = self.t0.elapsed().as_nanos() as u64;
        let w = forkjoin::current_thread_index().unwrap_or(0);
        self.worker[i].store(w, Ordering::Relaxed);
        self.start[i].store(s, Ordering::Relaxed);
        self.end[i].store(e, Ordering::Relaxed);
    }

    /// Prints items and busy time per worker, and a timeline: one row per worker, one column per
    /// 1/64 of the wall time; `#` busy ≥ 75% of the column, `+` ≥ 25%, `.` less, blank idle.
    fn report(&self, threads: usize, wall: Duration) {
        const COLS: usize = 64;
        let wall_ns = wall.as_nanos().max(1) as u64;
        let mut items = vec![0usize; threads];
        let mut busy = vec![0u64; threads];
        let mut cells = vec![[0u64; COLS]; threads];
        let col_ns = wall_ns.div_ceil(COLS as u64).max(1);
        for i in 0..self.worker.len() {
            let w = self.worker[i].load(Ordering::Relaxed).min(threads - 1);
            let (s, e) = (
                self.start[i].load(Ordering::Relaxed),
                self.end[i].load(Ordering::Relaxed),
            );
            items[w] += 1;
            busy[w] += e - s;
            let mut t = s;
            while t < e {
                let c = (t / col_ns) as usize;
                let col_end = (c as u64 + 1) * col_ns;
                let upto = e.min(col_end);
                if c < COLS {
                    cells[w][c] += upto - t;
                }
                t = upto;
            }
        }
        for w in 0..threads {
            let line: String = cells[w]
                .iter()
                .map(|&b| match b * 100 / col_ns {
                    0 => ' ',
                    1..=24 => '.',
                    25..=74 => '+',
                    _ => '#',
                })
                .collect();
            println!(
                "    worker {w}: |{line}| {:>6} items, busy {:>5.1}% of {:.1} ms",
                items[w],
                busy[w] as f64 * 100.0 / wall_ns as f64,
                wall.as_secs_f64() * 1e3
            );
        }
    }
}

/// Number of pieces the splitter cut `iter` into (a fresh run of the same loop).
fn pieces<I: ParallelIterator>(iter: I) -> usize {
    iter.fold(|| (), |(), _| ()).count()
}

fn time<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed())
}

fn best_of<R>(runs: usize, mut f: impl FnMut() -> R) -> (R, Duration) {
    let mut best = time(&mut f);
    for _ in 1..runs {
        let r = time(&mut f);
        if r.1 < best.1 {
            best = r;
        }
    }
    best
}

fn ms(d: Duration) -> String {
    format!("{:8.1} ms", d.as_secs_f64() * 1e3)
}

/// Runs a skewed loop of `costs.len()` items sequentially, adaptively and statically partitioned.
fn skewed(pool: &forkjoin::ThreadPool, name: &str, costs: &[u64]) -> bool {
    let threads = pool.current_num_threads();
    let n = costs.len();
    println!(
        "\n== {name}: {n} items, total {:.0}M spin rounds",
        costs.iter().sum::<u64>() as f64 / 1e6
    );
    let (seq, t_seq) = time(|| costs.iter().map(|&c| spin(c)).fold(0, u64::wrapping_add));
    println!("  sequential          {}", ms(t_seq));
    let mut ok = true;
    for (label, min_len) in [
        ("forkjoin (adaptive)", 1),
        ("static partition", n.div_ceil(threads)),
    ] {
        let trace = Trace::new(n);
        let (par, t_par) = time(|| {
            pool.install(|| {
                costs
                    .par_iter()
                    .enumerate()
                    .with_min_len(min_len)
                    .map(|(i, &c)| {
                        let mut r = 0;
                        trace.record(i, || r = spin(c));
                        r
                    })
                    .reduce(|| 0, u64::wrapping_add)
            })
        });
        println!(
            "  {label:<19} {}  speedup {:.2}x",
            ms(t_par),
            t_seq.as_secs_f64() / t_par.as_secs_f64()
        );
        trace.report(threads, t_par);
        let count =
            pool.install(|| pieces(costs.par_iter().with_min_len(min_len).map(|&c| spin(c))));
        println!("    pieces: {count}");
        if par != seq {
            eprintln!("  WRONG RESULT: {par} != {seq}");
            ok = false;
        }
    }
    ok
}

fn main() -> ExitCode {
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match (a.as_str(), args.next().map(|v| v.parse::<usize>())) {
            ("--threads", Some(Ok(k))) if (1..=256).contains(&k) => threads = k,
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::FAILURE;
            }
        }
    }
    let pool = match forkjoin::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cannot build a pool of {threads} threads: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("forkjoin parallel iterators, {threads} threads");

    // Uniform: trivial items, measures splitting overhead.
    let n = 200_000_000u64;
    println!("\n== uniform: sum of x ^ (x >> 3) over {n} items");
    let f = |x: u64| x ^ (x >> 3);
    let (seq, t_seq) = best_of(3, || (0..black_box(n)).map(f).sum::<u64>());
    let (par, t_par) = best_of(3, || {
        pool.install(|| (0..black_box(n)).into_par_iter().map(f).sum::<u64>())
    });
    println!("  sequential          {}", ms(t_seq));
    println!(
        "  forkjoin            {}  speedup {:.2}x",
        ms(t_par),
        t_seq.as_secs_f64() / t_par.as_secs_f64()
    );
    let mut ok = seq == par;
    println!(
        "  pieces (sequential runs of items; `fold` yields one accumulator per piece): {}",
        pool.install(|| pieces((0..n).into_par_iter().map(f)))
    );

    // Linear skew: item i costs ∝ i.
    let costs: Vec<u64> = (0..20_000u64).map(|i| i * 2).collect();
    ok &= skewed(&pool, "linear skew (item i costs ∝ i)", &costs);

    // One item holds 90% of the work; it sits in the first quarter.
    let mut costs = vec![500u64; 20_000];
    costs[5_000] = 9 * 500 * 20_000;
    ok &= skewed(&pool, "one heavy item (90% of the work)", &costs);
    println!(
        "  (best possible with one unsplittable 90% item: speedup {:.2}x)",
        1.0 / 0.9
    );

    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
