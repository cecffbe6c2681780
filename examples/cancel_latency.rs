//! Cancellation latency on real threads: the time from `token.cancel()` to `cancellable` returning
//! on the thread that called it, against one thread wake-up measured in the same run.
//!
//! ```sh
//! cargo run --release --example cancel_latency -- [--threads 1,2] [--rounds 30] [--run-ms 3] \
//!     [--shapes iter,join,scope,scope-flat] [--from outside,inside] [--runtimes forkjoin,rayon] [--csv F]
//! ```
//!
//! Shapes, each far longer than a round lets it run:
//!
//! - `iter`: `(0..u64::MAX).into_par_iter().map(cheap).sum()`, items under a nanosecond;
//! - `join`: fib(46) with a `join` at every call;
//! - `scope`: a tree of scope jobs, each ~1 µs of work and then 10 more `spawn`s, 6 levels
//!   (1.1 M jobs);
//! - `scope-flat`: a scope whose body spawns 100,000 jobs of ~1 µs in a loop.
//!
//! A round: the main thread calls `pool.cancellable(&token, shape)`; a second thread waits until the
//! shape reports progress (a counter its leaves bump at sample points), lets it run `--run-ms`, then
//! cancels. `outside`: that thread takes `Instant::now()` and calls `token.cancel()`. `inside`: it
//! arms a flag instead, and the next leaf to reach a sample point takes the time and cancels from
//! inside the work. The main thread takes `Instant::now()` when `cancellable` returns; the latency
//! is the difference. A round whose shape finished before the cancel is counted as `early` and left
//! out.
//!
//! `rayon` is what a rayon user writes today: the same shapes polling an `AtomicBool` (every item,
//! every call, every job start; an `iter` with `try_fold`/`try_reduce`), the flag set instead of
//! `cancel()`, the latency measured until `install` returns.
//!
//! One pass per thread count, with only its pools alive. Within a pass every (shape, from, runtime)
//! runs once per round, interleaved, each round starting one combination later, so drift hits every
//! row alike. Each pass first measures **one wake-up**: a thread parked in `std::thread::park` is
//! unparked 200 µs later, from the stamp taken before `unpark` to the stamp the woken thread takes
//! (median of 200): what the blocked `cancellable` caller pays at the end. The table reports median,
//! p90 and max in µs and the median over `50 µs + one wake-up`, the bound the cancellation issue
//! sets (below 1: within it).

use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use forkjoin::prelude::*;
use forkjoin::CancelToken;

#[path = "common/workloads.rs"]
mod workloads;
use workloads::{forkjoin_pool, rayon_pool};

const USAGE: &str =
    "usage: cancel_latency [--threads 1,2] [--rounds 30] [--run-ms 3] [--shapes LIST] \
[--from outside,inside] [--runtimes forkjoin,rayon] [--csv F]
  --threads LIST   comma-separated pool sizes, each 1..=256 (default 1,2)
  --rounds N       rounds per row, median reported, 1..=1000 (default 30)
  --run-ms MS      how long the work runs before the cancel, 1..=1000 (default 3)
  --shapes LIST    subset of iter,join,scope,scope-flat (default: all)
  --from LIST      subset of outside,inside: who cancels (default: both)
  --runtimes LIST  subset of forkjoin,rayon (rayon: a polled AtomicBool; default: both)
  --csv F          also write every row to F as CSV";

/// The bound the issue sets, beside one wake-up.
const BOUND: Duration = Duration::from_micros(50);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    Iter,
    Join,
    Scope,
    ScopeFlat,
}

const SHAPES: [Shape; 4] = [Shape::Iter, Shape::Join, Shape::Scope, Shape::ScopeFlat];

impl Shape {
    fn key(self) -> &'static str {
        match self {
            Shape::Iter => "iter",
            Shape::Join => "join",
            Shape::Scope => "scope",
            Shape::ScopeFlat => "scope-flat",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Shape::Iter => "(0..u64::MAX).map.sum",
            Shape::Join => "fib(46), join per call",
            Shape::Scope => "scope tree, 1.1 M spawns",
            Shape::ScopeFlat => "scope, body spawns 100 k",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Canceller {
    Outside,
    Inside,
}

impl Canceller {
    fn key(self) -> &'static str {
        match self {
            Canceller::Outside => "outside",
            Canceller::Inside => "inside",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Rt {
    Forkjoin,
    Rayon,
}

impl Rt {
    fn key(self) -> &'static str {
        match self {
            Rt::Forkjoin => "forkjoin",
            Rt::Rayon => "rayon",
        }
    }
}

// ---------- the shapes' sizes ----------

/// `iter` reports progress every 2^16 items.
const ITER_SAMPLE: u64 = (1 << 16) - 1;
const FIB_N: u32 = 46;
/// `join` reports progress at each call of this size (fib(16): ~1,600 calls).
const FIB_SAMPLE_N: u32 = 16;
const TREE_FANOUT: usize = 10;
const TREE_DEPTH: u32 = 6;
const FLAT_JOBS: usize = 100_000;
/// A scope job's work: about a microsecond of a dependent loop.
const JOB_SPINS: u64 = 1_000;

/// One round's shared state: the token (forkjoin) or flag (rayon), progress, and when the cancel
/// happened.
struct Probe {
    rt: Rt,
    token: CancelToken,
    /// rayon's hand-polled flag.
    stop: AtomicBool,
    /// Sample points reached: the work is under way once it is nonzero.
    progress: AtomicU64,
    /// `inside`: the next sample point cancels.
    armed: AtomicBool,
    cancelled_at: OnceLock<Instant>,
}

impl Probe {
    fn new(rt: Rt) -> Self {
        Probe {
            rt,
            token: CancelToken::new(),
            stop: AtomicBool::new(false),
            progress: AtomicU64::new(0),
            armed: AtomicBool::new(false),
            cancelled_at: OnceLock::new(),
        }
    }

    /// A sample point: counts progress; fires if armed (`inside`).
    #[inline]
    fn sample(&self) {
        self.progress.fetch_add(1, Ordering::Relaxed);
        // A load first: the line stays shared until the flag is set.
        if self.armed.load(Ordering::Relaxed) && self.armed.swap(false, Ordering::Relaxed) {
            self.fire();
        }
    }

    /// Cancels, stamped just before.
    fn fire(&self) {
        let at = Instant::now();
        match self.rt {
            Rt::Forkjoin => self.token.cancel(),
            Rt::Rayon => self.stop.store(true, Ordering::Relaxed),
        }
        let _ = self.cancelled_at.set(at);
    }

    /// rayon's poll.
    #[inline]
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

#[inline]
fn cheap(i: u64) -> u64 {
    (black_box(i) >> 3) & 1
}

fn spin(n: u64) {
    let mut x = 0u64;
    for i in 0..n {
        x = black_box(x.wrapping_add(i));
    }
    black_box(x);
}

// forkjoin: no polling; the runtime stops the work at its boundaries.

fn iter_fj(p: &Probe) -> u64 {
    (0..u64::MAX)
        .into_par_iter()
        .map(|i| {
            if i & ITER_SAMPLE == 0 {
                p.sample();
            }
            cheap(i)
        })
        .sum()
}

fn fib_fj(n: u32, p: &Probe) -> u64 {
    if n < 2 {
        return n as u64;
    }
    if n == FIB_SAMPLE_N {
        p.sample();
    }
    let (a, b) = forkjoin::join(|| fib_fj(n - 1, p), || fib_fj(n - 2, p));
    a + b
}

fn tree_fj<'s>(s: &forkjoin::Scope<'s>, depth: u32, p: &'s Probe) {
    if depth > 0 {
        p.sample();
    }
    spin(JOB_SPINS);
    if depth > 0 {
        for _ in 0..TREE_FANOUT {
            s.spawn(move |s| tree_fj(s, depth - 1, p));
        }
    }
}

fn flat_fj(p: &Probe) {
    forkjoin::scope(|s| {
        for _ in 0..FLAT_JOBS {
            s.spawn(|_| {
                p.sample();
                spin(JOB_SPINS);
            });
        }
    });
}

/// rayon: the same shapes, polling the flag (its prelude in a module of its own: both preludes name
/// `into_par_iter`).
mod polled {
    use super::{cheap, spin, Probe, FIB_SAMPLE_N, FLAT_JOBS, ITER_SAMPLE, JOB_SPINS, TREE_FANOUT};
    use rayon::prelude::*;

    pub fn iter_rayon(p: &Probe) -> Option<u64> {
        (0..u64::MAX)
            .into_par_iter()
            .try_fold(
                || 0u64,
                |acc, i| {
                    if i & ITER_SAMPLE == 0 {
                        p.sample();
                    }
                    if p.stopped() {
                        None
                    } else {
                        Some(acc + cheap(i))
                    }
                },
            )
            .try_reduce(|| 0, |a, b| Some(a + b))
    }

    pub fn fib_rayon(n: u32, p: &Probe) -> u64 {
        if p.stopped() || n < 2 {
            return n as u64;
        }
        if n == FIB_SAMPLE_N {
            p.sample();
        }
        let (a, b) = rayon::join(|| fib_rayon(n - 1, p), || fib_rayon(n - 2, p));
        a + b
    }

    pub fn tree_rayon<'s>(s: &rayon::Scope<'s>, depth: u32, p: &'s Probe) {
        if p.stopped() {
            return;
        }
        if depth > 0 {
            p.sample();
        }
        spin(JOB_SPINS);
        if depth > 0 {
            for _ in 0..TREE_FANOUT {
                s.spawn(move |s| tree_rayon(s, depth - 1, p));
            }
        }
    }

    pub fn flat_rayon(p: &Probe) {
        rayon::scope(|s| {
            for _ in 0..FLAT_JOBS {
                s.spawn(|_| {
                    if p.stopped() {
                        return;
                    }
                    p.sample();
                    spin(JOB_SPINS);
                });
            }
        });
    }
}

/// Runs `shape` under `probe` and returns whether it stopped (false: it finished first).
fn run_shape(shape: Shape, pools: &Pools, p: &Probe) -> bool {
    match p.rt {
        Rt::Forkjoin => {
            let r = pools.forkjoin.cancellable(&p.token, || match shape {
                Shape::Iter => {
                    black_box(iter_fj(p));
                }
                Shape::Join => {
                    black_box(fib_fj(FIB_N, p));
                }
                Shape::Scope => forkjoin::scope(|s| tree_fj(s, TREE_DEPTH, p)),
                Shape::ScopeFlat => flat_fj(p),
            });
            r.is_err()
        }
        Rt::Rayon => {
            pools.rayon.install(|| match shape {
                Shape::Iter => {
                    black_box(polled::iter_rayon(p));
                }
                Shape::Join => {
                    black_box(polled::fib_rayon(FIB_N, p));
                }
                Shape::Scope => rayon::scope(|s| polled::tree_rayon(s, TREE_DEPTH, p)),
                Shape::ScopeFlat => polled::flat_rayon(p),
            });
            p.stopped()
        }
    }
}

struct Pools {
    threads: usize,
    forkjoin: forkjoin::ThreadPool,
    rayon: rayon::ThreadPool,
}

/// The round under way and when it started, for the watchdog.
static CURRENT: Mutex<Option<(String, Instant)>> = Mutex::new(None);

/// Reports a round that has not returned after `limit` (a lost cancellation or wake-up would hang
/// the benchmark silently), every `limit / 4` until it returns.
fn watchdog(limit: Duration) {
    std::thread::spawn(move || loop {
        std::thread::sleep(limit / 4);
        let current = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((what, since)) = &*current {
            let waited = since.elapsed();
            if waited >= limit {
                eprintln!(
                    "stuck: {what} has not returned after {:.0} s",
                    waited.as_secs_f64()
                );
            }
        }
    });
}

/// One round: the latency, or `None` if the shape finished before the cancel.
fn round(shape: Shape, from: Canceller, rt: Rt, pools: &Pools, run: Duration) -> Option<Duration> {
    let p = Probe::new(rt);
    let what = format!(
        "{} cancelled from {} on {}, {} threads",
        shape.key(),
        from.key(),
        rt.key(),
        pools.threads
    );
    *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = Some((what, Instant::now()));
    let (stopped, returned) = std::thread::scope(|ts| {
        let p = &p;
        ts.spawn(move || {
            // Under way: a leaf reached a sample point (polled; not timed).
            while p.progress.load(Ordering::Relaxed) == 0 {
                std::thread::sleep(Duration::from_micros(20));
            }
            std::thread::sleep(run);
            match from {
                Canceller::Outside => p.fire(),
                Canceller::Inside => p.armed.store(true, Ordering::Relaxed),
            }
        });
        let stopped = run_shape(shape, pools, p);
        (stopped, Instant::now())
    });
    *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = None;
    let at = *p.cancelled_at.get()?;
    (stopped && returned >= at).then(|| returned - at)
}

/// One wake-up: from the stamp before `unpark` to the stamp the parked thread takes, median of
/// `samples`. The waker stamps again only once the sleeper took the last stamp and 200 µs passed,
/// so the sleeper is asleep in `park` and no stamp is overwritten unread (which would leave the
/// sleeper parked for good).
fn wake_up(samples: usize) -> Duration {
    const NONE: u64 = u64::MAX;
    let base = Instant::now();
    let stamp = AtomicU64::new(NONE);
    let mut lat = Vec::with_capacity(samples);
    std::thread::scope(|ts| {
        let stamp = &stamp;
        let sleeper = ts.spawn(move || {
            let mut lat = Vec::with_capacity(samples);
            while lat.len() < samples {
                // Acquire/Release: the stamp's value travels with the flag it doubles as.
                let t0 = stamp.swap(NONE, Ordering::AcqRel);
                if t0 == NONE {
                    std::thread::park();
                    continue;
                }
                let now = base.elapsed().as_nanos() as u64;
                lat.push(Duration::from_nanos(now.saturating_sub(t0)));
            }
            lat
        });
        for _ in 0..samples {
            while stamp.load(Ordering::Acquire) != NONE {
                std::thread::yield_now();
            }
            std::thread::sleep(Duration::from_micros(200));
            stamp.store(base.elapsed().as_nanos() as u64, Ordering::Release);
            sleeper.thread().unpark();
        }
        lat = sleeper.join().expect("sleeper");
    });
    median(&mut lat)
}

/// Where `x` stands in `all` (the order the arguments listed).
fn pos<T: PartialEq>(x: T, all: &[T]) -> usize {
    all.iter().position(|y| *y == x).unwrap_or(0)
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

struct Row {
    shape: Shape,
    from: Canceller,
    rt: Rt,
    threads: usize,
    /// Sorted latencies of the rounds that stopped.
    lat: Vec<Duration>,
    early: usize,
    wake: Duration,
}

impl Row {
    fn stat(&self, q: f64) -> Option<Duration> {
        if self.lat.is_empty() {
            return None;
        }
        let i = ((self.lat.len() as f64 * q) as usize).min(self.lat.len() - 1);
        Some(self.lat[i])
    }
}

struct Args {
    threads: Vec<usize>,
    rounds: usize,
    run: Duration,
    shapes: Vec<Shape>,
    from: Vec<Canceller>,
    runtimes: Vec<Rt>,
    csv: Option<PathBuf>,
}

fn subset<T: Copy>(
    v: &str,
    name: &str,
    all: &[T],
    key: fn(T) -> &'static str,
) -> Result<Vec<T>, String> {
    v.split(',')
        .map(|k| {
            let k = k.trim();
            all.iter()
                .copied()
                .find(|x| key(*x) == k)
                .ok_or_else(|| format!("{name}: unknown `{k}`"))
        })
        .collect()
}

fn number(v: &str, name: &str, range: std::ops::RangeInclusive<usize>) -> Result<usize, String> {
    v.trim()
        .parse()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| format!("{name} must be in {range:?}, got `{v}`"))
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        threads: vec![1, 2],
        rounds: 30,
        run: Duration::from_millis(3),
        shapes: SHAPES.to_vec(),
        from: vec![Canceller::Outside, Canceller::Inside],
        runtimes: vec![Rt::Forkjoin, Rt::Rayon],
        csv: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--threads" => {
                let v = value("--threads")?;
                args.threads = v
                    .split(',')
                    .map(|t| number(t, "--threads", 1..=256))
                    .collect::<Result<_, _>>()?;
                args.threads.sort_unstable();
                args.threads.dedup();
            }
            "--rounds" => args.rounds = number(&value("--rounds")?, "--rounds", 1..=1000)?,
            "--run-ms" => {
                let ms = number(&value("--run-ms")?, "--run-ms", 1..=1000)?;
                args.run = Duration::from_millis(ms as u64);
            }
            "--shapes" => {
                args.shapes = subset(&value("--shapes")?, "--shapes", &SHAPES, Shape::key)?
            }
            "--from" => {
                let all = [Canceller::Outside, Canceller::Inside];
                args.from = subset(&value("--from")?, "--from", &all, Canceller::key)?;
            }
            "--runtimes" => {
                let all = [Rt::Forkjoin, Rt::Rayon];
                args.runtimes = subset(&value("--runtimes")?, "--runtimes", &all, Rt::key)?;
            }
            "--csv" => args.csv = Some(value("--csv")?.into()),
            _ => return Err(format!("unknown argument `{arg}`")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("error: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut combos = Vec::new();
    for &shape in &args.shapes {
        for &from in &args.from {
            for &rt in &args.runtimes {
                combos.push((shape, from, rt));
            }
        }
    }
    watchdog(Duration::from_secs(20));
    let mut rows = Vec::new();
    for &threads in &args.threads {
        let pools = Pools {
            threads,
            forkjoin: forkjoin_pool(threads),
            rayon: rayon_pool(threads),
        };
        let wake = wake_up(200);
        let mut lat = vec![Vec::with_capacity(args.rounds); combos.len()];
        let mut early = vec![0usize; combos.len()];
        for r in 0..args.rounds {
            for k in 0..combos.len() {
                let c = (r + k) % combos.len();
                let (shape, from, rt) = combos[c];
                match round(shape, from, rt, &pools, args.run) {
                    Some(d) => lat[c].push(d),
                    None => early[c] += 1,
                }
            }
        }
        for (c, (mut l, e)) in lat.into_iter().zip(early).enumerate() {
            l.sort_unstable();
            let (shape, from, rt) = combos[c];
            rows.push(Row {
                shape,
                from,
                rt,
                threads,
                lat: l,
                early: e,
                wake,
            });
        }
    }
    // Grouped by shape, then who cancels, runtime and threads.
    let order = |r: &Row| {
        (
            pos(r.shape, &args.shapes),
            pos(r.from, &args.from),
            pos(r.rt, &args.runtimes),
            r.threads,
        )
    };
    rows.sort_by_key(order);

    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let fmt = |d: Option<Duration>| d.map_or("–".to_string(), |d| format!("{:.1}", us(d)));
    println!(
        "cancel → cancellable returned, µs; {} rounds, {} ms of work before each cancel, {cpus} CPU(s)",
        args.rounds,
        args.run.as_millis()
    );
    println!();
    println!(
        "| shape | cancelled from | runtime | threads | median | p90 | max | one wake-up | median ÷ (50 µs + wake-up) | early |"
    );
    println!("|---|---|---|--:|--:|--:|--:|--:|--:|--:|");
    for row in &rows {
        let med = row.stat(0.5);
        let ratio = med.map_or("–".to_string(), |m| {
            format!("{:.2}", us(m) / us(BOUND + row.wake))
        });
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.1} | {ratio} | {} |",
            row.shape.label(),
            row.from.key(),
            row.rt.key(),
            row.threads,
            fmt(med),
            fmt(row.stat(0.9)),
            fmt(row.lat.last().copied()),
            us(row.wake),
            row.early
        );
    }
    if let Some(path) = &args.csv {
        let mut out = String::from(
            "shape,from,runtime,threads,rounds,early,median_us,p90_us,max_us,wake_us,cpus\n",
        );
        for row in &rows {
            let f = |d: Option<Duration>| d.map_or(String::new(), |d| format!("{:.2}", us(d)));
            out += &format!(
                "{},{},{},{},{},{},{},{},{},{:.2},{cpus}\n",
                row.shape.key(),
                row.from.key(),
                row.rt.key(),
                row.threads,
                row.lat.len(),
                row.early,
                f(row.stat(0.5)),
                f(row.stat(0.9)),
                f(row.lat.last().copied()),
                us(row.wake)
            );
        }
        if let Err(e) = std::fs::write(path, out) {
            eprintln!("error: writing {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
