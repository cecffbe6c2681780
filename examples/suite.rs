//! The standard fork-join suite side by side: sequential, forkjoin, rayon, chili and forte on pools of
//! 1 and 2 threads, as a markdown table. A quick developer check without criterion (that is
//! `cargo bench --bench suite`); the workloads, and what each row measures, are documented in
//! `examples/common/suite.rs`.
//!
//! ```sh
//! cargo run --release --example suite -- [--threads 1,2] [--rounds 5] [--rows fib,matmul] [--quick] \
//!     [--runtimes forkjoin,rayon] [--csv results.csv] [--stats-csv counts.csv]
//! ```
//!
//! `--runtimes` measures only the listed peers beside the sequential loop (`forkjoin` alone: a quick
//! A/B of two builds, or a profile of forkjoin's own rows).
//!
//! `--busy` measures forkjoin alone on *busy* pools: all but one of each pool's workers block in
//! user code (a condition variable) for the whole pass, so the one free worker runs every row in a
//! pool of more than one thread where nobody is idle. That is what a leaf costs once the pool has
//! company (the polls and batches a pool of one skips) without any sharing: the simulator charges
//! it per leaf from 2 cores on (`scripts/predict.sh --measured`, docs/testing.md). Its CSV rows are
//! labelled `forkjoin-busy`; thread counts must be at least 2.
//!
//! `--csv` also writes every median as CSV (one line per row, thread count and runtime, the sequential
//! loop included), the input of `examples/scaling_plot.rs` and `scripts/scale.sh`. `--stats-csv` runs
//! forkjoin once more per row and thread count, untimed, and writes that run's [`forkjoin::PoolStats`]
//! (steals, failed searches, publications, heavy steals, sleeps, wake-ups): what grows with the pool.
//!
//! One pass per thread count, in ascending order, with only that pass's pools alive. Within a pass,
//! each row runs `--rounds` rounds of sequential, forkjoin, rayon and chili, interleaved so drift
//! hits every column alike, each round starting one runtime later (so no runtime always runs right
//! after the sequential loop); the table shows medians, the sequential column measured in the same
//! pass. forte's column is measured after all passes (its pool cannot shrink, and its heartbeat
//! thread, alive as long as the pool has workers, slowed the others by up to 7 % when it ran under
//! their measurements). Every run's result is checked (a wrong one panics).
//!
//! Columns: ms per run, or ns (µs) per call / join for the per-call rows; `–` where a runtime has no
//! such API (chili and forte have no parallel iterators). `fj ÷ best` is forkjoin's time over the
//! fastest of rayon, chili and forte (below 1: forkjoin is fastest); the last table is its geometric
//! mean over fib, skynet, nqueens and matmul per thread count.
//!
//! Rows (`--rows` keys): `fib`, `skynet`, `nqueens`, `matmul`, `tree-left`, `tree-right`,
//! `iter-small`, `iter-sum`, `joins`. `--quick` shrinks every size (a smoke test: well under a second).
//! The field's sizes (tzcnt/runtime-benchmarks), under the keys `scripts/predict.sh` gives their
//! shapes, run only when listed: `fib-39`, `skynet-1e8`, `nqueens-14`, `matmul-2048` (seconds per
//! sequential run: a measurement of the predictions at those sizes, not a quick check).

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[path = "common/suite.rs"]
mod suite;
use suite::*;

const USAGE: &str =
    "usage: suite [--threads 1,2] [--rounds 5] [--rows KEYS] [--quick] [--runtimes LIST] [--busy] [--csv F] [--stats-csv F]
  --threads LIST  comma-separated pool sizes, each 1..=256 (default 1,2)
  --rounds N      interleaved rounds per row, median reported, 1..=100 (default 5)
  --rows KEYS     comma-separated subset of: fib,skynet,nqueens,matmul,tree-left,tree-right,
                  iter-small,iter-sum,joins (default: all), and the field's sizes (only when
                  listed): fib-39,skynet-1e8,nqueens-14,matmul-2048
  --quick         small sizes (smoke test)
  --runtimes LIST  comma-separated subset of forkjoin,rayon,chili,forte (default: all)
  --busy          forkjoin alone, with all but one worker of each pool blocked: a busy pool's leaf
  --csv F         also write the medians to F as CSV
  --stats-csv F   run forkjoin once more per row and thread count; write its pool counters to F";

const ROW_KEYS: [&str; 9] = [
    "fib",
    "skynet",
    "nqueens",
    "matmul",
    "tree-left",
    "tree-right",
    "iter-small",
    "iter-sum",
    "joins",
];

/// The field's sizes (the shapes of the same names in `scripts/predict.sh`): rows only when listed.
const FIELD_KEYS: [&str; 4] = ["fib-39", "skynet-1e8", "nqueens-14", "matmul-2048"];

/// The rows whose `fj ÷ best` enters the geometric mean.
const GEOMEAN_ROWS: [&str; 4] = ["fib", "skynet", "nqueens", "matmul"];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Rt {
    Seq,
    Forkjoin,
    Rayon,
    Chili,
    Forte,
}

/// Workers of a forkjoin pool blocked in user code until this is dropped (`--busy`).
struct Parked(std::sync::Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>);

impl Parked {
    /// Blocks all but one of `pool`'s `threads` workers, and returns once they all block.
    fn all_but_one(pool: &forkjoin::ThreadPool, threads: usize) -> Parked {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::{Arc, Condvar, Mutex};
        let release = Arc::new((Mutex::new(false), Condvar::new()));
        let blocked = Arc::new(AtomicUsize::new(0));
        for _ in 1..threads {
            let (release, blocked) = (release.clone(), blocked.clone());
            // A worker blocked here takes no other job: each of them parks a different worker.
            pool.spawn(move || {
                let (lock, cv) = &*release;
                let mut released = lock.lock().unwrap();
                blocked.fetch_add(1, Ordering::SeqCst);
                while !*released {
                    released = cv.wait(released).unwrap();
                }
            });
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        while blocked.load(Ordering::SeqCst) < threads - 1 {
            assert!(Instant::now() < deadline, "--busy: workers did not block");
            std::thread::yield_now();
        }
        Parked(release)
    }
}

impl Drop for Parked {
    fn drop(&mut self) {
        let (lock, cv) = &*self.0;
        *lock.lock().unwrap() = true;
        cv.notify_all();
    }
}

/// The parallel runtimes, in column order.
const PARALLEL: [Rt; 4] = [Rt::Forkjoin, Rt::Rayon, Rt::Chili, Rt::Forte];

struct Pools {
    threads: usize,
    /// `--busy`: the blocked workers, released when dropped (before the pool, which waits for
    /// its workers).
    _parked: Option<Parked>,
    forkjoin: forkjoin::ThreadPool,
    rayon: rayon::ThreadPool,
    chili: chili::ThreadPool,
}

struct Sizes {
    fib: u64,
    skynet_leaves: u64,
    /// Only 12 (default) and 8 (quick): the board size is a const generic.
    quick_nqueens: bool,
    matmul: usize,
    tree_layers: u32,
    iter_small_calls: u64,
    iter_sum_calls: u64,
    iter_sum_n: u64,
    joins: u64,
}

impl Sizes {
    fn new(quick: bool) -> Self {
        if quick {
            Sizes {
                fib: 20,
                skynet_leaves: 10_000,
                quick_nqueens: true,
                matmul: 128,
                tree_layers: 14,
                iter_small_calls: 1_000,
                iter_sum_calls: 10,
                iter_sum_n: 1_000_000,
                joins: 10_000,
            }
        } else {
            Sizes {
                fib: 36,
                skynet_leaves: SKYNET_LEAVES,
                quick_nqueens: false,
                matmul: 1024,
                tree_layers: 23,
                iter_small_calls: 100_000,
                iter_sum_calls: 10_000,
                iter_sum_n: ITER_SUM_N,
                joins: 200_000,
            }
        }
    }
}

/// One row: runs one runtime once on one pool, checks the result, returns the time in `unit`s, or
/// `None` where the runtime has no such API.
type RunFn = Box<dyn FnMut(Rt, &Pools) -> Option<f64>>;

struct Workload {
    label: String,
    unit: &'static str,
    run: RunFn,
}

fn time<R>(f: impl FnOnce() -> R) -> (Duration, R) {
    let start = Instant::now();
    let r = black_box(f());
    (start.elapsed(), r)
}

/// Times `f` on the calling thread's forte worker; [`FORTE`] is already sized for the pass.
fn time_forte<R>(f: impl FnOnce(&forte::Worker) -> R) -> (Duration, R) {
    FORTE.with_worker(|w| time(|| f(w)))
}

/// Times `f` on a fresh chili scope of `pool` (created and dropped outside the timing: a live scope
/// keeps chili's heartbeat thread ticking).
fn time_chili<R>(
    pool: &chili::ThreadPool,
    f: impl FnOnce(&mut chili::Scope<'_>) -> R,
) -> (Duration, R) {
    let mut s = pool.scope();
    time(|| f(&mut s))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn per(d: Duration, count: u64, scale: f64) -> f64 {
    d.as_secs_f64() * scale / count as f64
}

fn fib_row(n: u64) -> Workload {
    let expected = fib_seq(n);
    Workload {
        label: format!("fib({n})"),
        unit: "ms",
        run: Box::new(move |rt, p| {
            let n = black_box(n);
            let (t, r) = match rt {
                Rt::Seq => time(|| fib_seq(n)),
                Rt::Forkjoin => time(|| p.forkjoin.install(|| fib_forkjoin(n))),
                Rt::Rayon => time(|| p.rayon.install(|| fib_rayon(n))),
                Rt::Chili => time_chili(&p.chili, |s| fib_chili(s, n)),
                Rt::Forte => time_forte(|w| fib_forte(w, n)),
            };
            assert_eq!(r, expected, "fib({n}) on {rt:?}, {} threads", p.threads);
            Some(ms(t))
        }),
    }
}

fn skynet_row(leaves: u64) -> Workload {
    let expected = skynet_expected(leaves);
    Workload {
        label: format!("skynet 1e{}", leaves.ilog10()),
        unit: "ms",
        run: Box::new(move |rt, p| {
            let leaves = black_box(leaves);
            let (t, r) = match rt {
                Rt::Seq => time(|| skynet_seq(0, leaves)),
                Rt::Forkjoin => time(|| p.forkjoin.install(|| skynet_forkjoin(0, leaves))),
                Rt::Rayon => time(|| p.rayon.install(|| skynet_rayon(0, leaves))),
                Rt::Chili => time_chili(&p.chili, |s| skynet_chili(s, 0, leaves)),
                Rt::Forte => time_forte(|w| skynet_forte(w, 0, leaves)),
            };
            assert_eq!(r, expected, "skynet on {rt:?}, {} threads", p.threads);
            Some(ms(t))
        }),
    }
}

fn nqueens_row<const N: usize>() -> Workload {
    let expected = nqueens_expected(N);
    Workload {
        label: format!("nqueens({N})"),
        unit: "ms",
        run: Box::new(move |rt, p| {
            let b = black_box([0i8; N]);
            let (t, r) = match rt {
                Rt::Seq => time(|| nqueens_seq(0, b)),
                Rt::Forkjoin => time(|| p.forkjoin.install(|| nqueens_forkjoin(0, b))),
                Rt::Rayon => time(|| p.rayon.install(|| nqueens_rayon(0, b))),
                Rt::Chili => time_chili(&p.chili, |s| nqueens_chili(s, 0, b)),
                Rt::Forte => time_forte(|w| nqueens_forte(w, 0, b)),
            };
            assert_eq!(r, expected, "nqueens({N}) on {rt:?}, {} threads", p.threads);
            Some(ms(t))
        }),
    }
}

fn matmul_row(n: usize) -> Workload {
    let a = mm_matrix(n, 0x9E37_79B9_7F4A_7C15);
    let b = mm_matrix(n, 0xD1B5_4A32_D192_ED03);
    let mut expected = vec![0; n * n];
    matmul_seq(&mut expected, &a, &b);
    assert!(
        mm_spot_check(n, &expected, &a, &b),
        "sequential matmul is wrong"
    );
    let mut c = vec![0; n * n];
    Workload {
        label: format!("matmul {n}"),
        unit: "ms",
        run: Box::new(move |rt, p| {
            c.fill(0);
            let (a, b, c) = (&a[..], &b[..], &mut c[..]);
            let (t, ()) = match rt {
                Rt::Seq => time(|| matmul_seq(c, a, b)),
                Rt::Forkjoin => time(|| p.forkjoin.install(|| matmul_forkjoin(c, a, b))),
                Rt::Rayon => time(|| p.rayon.install(|| matmul_rayon(c, a, b))),
                Rt::Chili => time_chili(&p.chili, |s| matmul_chili(s, c, a, b)),
                Rt::Forte => time_forte(|_| matmul_forte(c, a, b)),
            };
            assert!(c == expected, "matmul on {rt:?}, {} threads", p.threads);
            Some(ms(t))
        }),
    }
}

fn tree_row<const LEFT_FIRST: bool>(layers: u32) -> Workload {
    let tree = Node::tree(layers);
    let expected = (1u64 << layers) - 1;
    let order = if LEFT_FIRST { "left" } else { "right" };
    Workload {
        label: format!("tree 2^{layers} {order}-first"),
        unit: "ms",
        run: Box::new(move |rt, p| {
            let tree = black_box(&*tree);
            let (t, r) = match rt {
                Rt::Seq => time(|| tree_sum_seq::<LEFT_FIRST>(tree)),
                Rt::Forkjoin => {
                    time(|| p.forkjoin.install(|| tree_sum_forkjoin::<LEFT_FIRST>(tree)))
                }
                Rt::Rayon => time(|| p.rayon.install(|| tree_sum_rayon::<LEFT_FIRST>(tree))),
                Rt::Chili => time_chili(&p.chili, |s| tree_sum_chili::<LEFT_FIRST>(s, tree)),
                Rt::Forte => time_forte(|w| tree_sum_forte::<LEFT_FIRST>(w, tree)),
            };
            assert_eq!(r, expected, "tree sum on {rt:?}, {} threads", p.threads);
            Some(ms(t))
        }),
    }
}

fn iter_small_row(calls: u64) -> Workload {
    Workload {
        label: "iter (0..10).map.sum".into(),
        unit: "ns/call",
        run: Box::new(move |rt, p| {
            let (t, r) = match rt {
                Rt::Seq => time(|| iter_small_seq(calls)),
                Rt::Forkjoin => time(|| p.forkjoin.install(|| iter_small_forkjoin(calls))),
                Rt::Rayon => time(|| p.rayon.install(|| iter_small_rayon(calls))),
                Rt::Chili | Rt::Forte => return None,
            };
            assert_eq!(r, ITER_SMALL_EXPECTED * calls, "iter-small on {rt:?}");
            Some(per(t, calls, 1e9))
        }),
    }
}

fn iter_sum_row(calls: u64, n: u64) -> Workload {
    let expected = (n * (n - 1) / 2).wrapping_mul(calls);
    Workload {
        label: format!("iter (0..1e{}).sum", n.ilog10()),
        unit: "µs/call",
        run: Box::new(move |rt, p| {
            let (t, r) = match rt {
                Rt::Seq => time(|| iter_sum_seq(calls, n)),
                Rt::Forkjoin => time(|| p.forkjoin.install(|| iter_sum_forkjoin(calls, n))),
                Rt::Rayon => time(|| p.rayon.install(|| iter_sum_rayon(calls, n))),
                Rt::Chili | Rt::Forte => return None,
            };
            assert_eq!(r, expected, "iter-sum on {rt:?}");
            Some(per(t, calls, 1e6))
        }),
    }
}

fn joins_row(n: u64) -> Workload {
    let expected = tiny_joins_expected(n);
    Workload {
        label: "flat loop of tiny joins".into(),
        unit: "ns/join",
        run: Box::new(move |rt, p| {
            let (t, r) = match rt {
                Rt::Seq => time(|| tiny_joins_seq(n)),
                // Timed on a worker, as chili's and forte's loops are (their calling thread
                // becomes one outside the timing): a time per join, without the hand-off into
                // the pool (tens of µs on a VM).
                Rt::Forkjoin => p.forkjoin.install(|| time(|| tiny_joins_forkjoin(n))),
                Rt::Rayon => p.rayon.install(|| time(|| tiny_joins_rayon(n))),
                Rt::Chili => time_chili(&p.chili, |s| tiny_joins_chili(s, n)),
                Rt::Forte => time_forte(|w| tiny_joins_forte(w, n)),
            };
            assert_eq!(r, expected, "tiny joins on {rt:?}, {} threads", p.threads);
            Some(per(t, n, 1e9))
        }),
    }
}

/// Builds the row's inputs (untimed) and its runner.
fn workload(key: &str, s: &Sizes) -> Workload {
    match key {
        "fib" => fib_row(s.fib),
        "skynet" => skynet_row(s.skynet_leaves),
        "nqueens" if s.quick_nqueens => nqueens_row::<8>(),
        "nqueens" => nqueens_row::<12>(),
        "matmul" => matmul_row(s.matmul),
        "tree-left" => tree_row::<true>(s.tree_layers),
        "tree-right" => tree_row::<false>(s.tree_layers),
        "iter-small" => iter_small_row(s.iter_small_calls),
        "iter-sum" => iter_sum_row(s.iter_sum_calls, s.iter_sum_n),
        "joins" => joins_row(s.joins),
        "fib-39" => fib_row(39),
        "skynet-1e8" => skynet_row(100_000_000),
        "nqueens-14" => nqueens_row::<14>(),
        "matmul-2048" => matmul_row(2048),
        _ => unreachable!("row keys are validated by parse_args"),
    }
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

/// Medians of one row at one thread count: the sequential time and one entry per [`PARALLEL`] runtime.
struct Measured {
    label: String,
    unit: &'static str,
    seq: f64,
    par: [Option<f64>; 4],
    /// forkjoin's pool counters over one extra untimed run, and that run's time (`--stats-csv`).
    counts: Option<(Counts, f64)>,
}

/// The [`forkjoin::PoolStats`] totals that grow with the pool, in [`COUNT_COLUMNS`] order.
type Counts = [u64; 7];

const COUNT_COLUMNS: &str =
    "jobs_executed,steals,failed_steals,jobs_published,heavy_steals,sleeps,wakeups";

fn counts(s: &forkjoin::PoolStats) -> Counts {
    [
        s.jobs_executed,
        s.steals,
        s.failed_steals,
        s.jobs_published,
        s.heavy_steals,
        s.sleeps,
        s.wakeups,
    ]
}

/// Runs forkjoin once, untimed by the rounds, and returns what its pool counted meanwhile.
fn count_run(w: &mut Workload, p: &Pools) -> (Counts, f64) {
    let before = counts(&p.forkjoin.stats());
    let time = (w.run)(Rt::Forkjoin, p).expect("every row has a forkjoin column");
    let after = counts(&p.forkjoin.stats());
    (std::array::from_fn(|i| after[i] - before[i]), time)
}

/// Medians of `rounds` rounds of the `runtimes` (with the sequential loop first in the list when
/// `with_seq`); the other runtimes' entries stay `None`.
fn measure(
    mut w: Workload,
    p: &Pools,
    rounds: usize,
    with_seq: bool,
    runtimes: &[Rt],
    with_counts: bool,
) -> Measured {
    let list: Vec<Rt> = with_seq
        .then_some(Rt::Seq)
        .into_iter()
        .chain(runtimes.iter().copied())
        .collect();
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); list.len()];
    // Round r starts with the r-th runtime of the list: a run's position in the round (right after
    // a long sequential run, which leaves the pools asleep and a CPU idle; or right after another
    // pool's run) then falls on every runtime alike.
    for round in 0..rounds {
        for k in 0..list.len() {
            let i = (round + k) % list.len();
            samples[i].extend((w.run)(list[i], p));
        }
    }
    let counts = with_counts.then(|| count_run(&mut w, p));
    let mut par: [Option<f64>; 4] = [None; 4];
    let mut seq = None;
    for (rt, v) in list.into_iter().zip(samples) {
        match PARALLEL.iter().position(|&x| x == rt) {
            Some(i) => par[i] = median(v),
            None => seq = median(v),
        }
    }
    Measured {
        label: w.label,
        unit: w.unit,
        seq: seq.unwrap_or(f64::NAN),
        par,
        counts,
    }
}

/// forkjoin over the fastest of rayon, chili and forte.
fn fj_over_best(par: &[Option<f64>; 4]) -> Option<f64> {
    let best = par[1..].iter().flatten().copied().min_by(f64::total_cmp)?;
    Some(par[0]? / best)
}

/// Three significant digits (no decimals from 100 up).
fn fmt_value(v: Option<f64>) -> String {
    match v {
        None => "–".into(),
        Some(v) if v >= 100.0 || v <= 0.0 => format!("{v:.0}"),
        Some(v) => {
            let decimals = (2 - v.log10().floor() as i32).clamp(0, 4) as usize;
            format!("{v:.decimals$}")
        }
    }
}

struct Args {
    threads: Vec<usize>,
    rounds: usize,
    rows: Vec<&'static str>,
    quick: bool,
    csv: Option<PathBuf>,
    stats_csv: Option<PathBuf>,
    /// The parallel runtimes to measure (all by default); the sequential loop always runs.
    runtimes: Vec<Rt>,
    /// `--busy`: forkjoin alone, on pools with one free worker.
    busy: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        threads: vec![1, 2],
        rounds: 5,
        rows: ROW_KEYS.to_vec(),
        quick: false,
        csv: None,
        stats_csv: None,
        runtimes: PARALLEL.to_vec(),
        busy: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--quick" => args.quick = true,
            "--busy" => args.busy = true,
            "--runtimes" => {
                let v = value("--runtimes")?;
                args.runtimes = v
                    .split(',')
                    .map(|r| match r.trim() {
                        "forkjoin" => Ok(Rt::Forkjoin),
                        "rayon" => Ok(Rt::Rayon),
                        "chili" => Ok(Rt::Chili),
                        "forte" => Ok(Rt::Forte),
                        _ => Err(format!("--runtimes: unknown runtime `{r}`")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--csv" => args.csv = Some(value("--csv")?.into()),
            "--stats-csv" => args.stats_csv = Some(value("--stats-csv")?.into()),
            "--rounds" => {
                let v = value("--rounds")?;
                args.rounds = v
                    .parse()
                    .ok()
                    .filter(|r| (1..=100).contains(r))
                    .ok_or_else(|| format!("--rounds must be in 1..=100, got `{v}`"))?;
            }
            "--threads" => {
                let v = value("--threads")?;
                args.threads = v
                    .split(',')
                    .map(|t| t.trim().parse().ok().filter(|t| (1..=256).contains(t)))
                    .collect::<Option<Vec<usize>>>()
                    .ok_or_else(|| format!("--threads: `{v}` is not a list of sizes in 1..=256"))?;
                args.threads.sort_unstable();
                args.threads.dedup();
            }
            "--rows" => {
                let v = value("--rows")?;
                args.rows = v
                    .split(',')
                    .map(|r| {
                        ROW_KEYS
                            .into_iter()
                            .chain(FIELD_KEYS)
                            .find(|k| *k == r.trim())
                            .ok_or_else(|| format!("--rows: unknown row `{r}`"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            s => return Err(format!("unknown argument `{s}`")),
        }
    }
    if args.busy {
        if args.threads.contains(&1) {
            return Err("--busy needs pools of at least 2 threads (one free worker)".into());
        }
        args.runtimes = vec![Rt::Forkjoin];
    }
    Ok(args)
}

/// One line per row, thread count and runtime: `key,workload,unit,threads,runtime,median,rounds,cpus`.
fn medians_csv(args: &Args, results: &[Vec<Measured>], cpus: usize) -> String {
    let mut out = String::from("key,workload,unit,threads,runtime,median,rounds,cpus\n");
    for (key, row) in args.rows.iter().zip(results) {
        for (threads, m) in args.threads.iter().zip(row) {
            let forkjoin = if args.busy {
                "forkjoin-busy"
            } else {
                "forkjoin"
            };
            let columns = [("seq", Some(m.seq))]
                .into_iter()
                .chain([forkjoin, "rayon", "chili", "forte"].into_iter().zip(m.par));
            for (runtime, value) in columns {
                if let Some(v) = value {
                    let (label, unit, rounds) = (&m.label, m.unit, args.rounds);
                    let _ = writeln!(
                        out,
                        "{key},{label},{unit},{threads},{runtime},{v},{rounds},{cpus}"
                    );
                }
            }
        }
    }
    out
}

/// One line per row and thread count: the row's sequential median, the counted run's time, and
/// forkjoin's pool counters over that run.
fn counts_csv(args: &Args, results: &[Vec<Measured>]) -> String {
    let mut out = format!("key,unit,threads,seq,forkjoin,{COUNT_COLUMNS}\n");
    for (key, row) in args.rows.iter().zip(results) {
        for (threads, m) in args.threads.iter().zip(row) {
            if let Some((counts, time)) = &m.counts {
                let _ = write!(out, "{key},{},{threads},{},{time}", m.unit, m.seq);
                for c in counts {
                    let _ = write!(out, ",{c}");
                }
                out.push('\n');
            }
        }
    }
    out
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if e.is_empty() {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let sizes = Sizes::new(args.quick);

    // One pass per thread count, with only that pass's pools alive. forte's pool is populated only
    // after every other runtime has been measured: it cannot shrink (see `forte_grow`), and once it
    // has workers its heartbeat thread wakes every 50-100 µs for as long as the process lives, which
    // took 7 % off rayon's and forkjoin's nqueens on 2 threads when it ran under their measurements.
    // `results[row][pass]`.
    let make_pools = |threads| {
        let forkjoin = forkjoin_pool(threads);
        Pools {
            threads,
            _parked: args.busy.then(|| Parked::all_but_one(&forkjoin, threads)),
            forkjoin,
            rayon: rayon_pool(threads),
            chili: chili_pool(threads),
        }
    };
    // One row at one thread count, timed for the progress line on stderr.
    let measure_row = |key: &str, pools: &Pools, with_seq: bool, runtimes: &[Rt]| {
        let started = Instant::now();
        let m = measure(
            workload(key, &sizes),
            pools,
            args.rounds,
            with_seq,
            runtimes,
            with_seq && args.stats_csv.is_some(),
        );
        eprintln!(
            "{:<28} {} thread(s) {:>6.1} s {}",
            m.label,
            pools.threads,
            started.elapsed().as_secs_f64(),
            if with_seq { "" } else { "(forte)" }
        );
        m
    };
    let mut results: Vec<Vec<Measured>> = args.rows.iter().map(|_| Vec::new()).collect();
    for &threads in &args.threads {
        let pools = make_pools(threads);
        for (&key, out) in args.rows.iter().zip(&mut results) {
            let runtimes: Vec<Rt> = PARALLEL[..3]
                .iter()
                .copied()
                .filter(|rt| args.runtimes.contains(rt))
                .collect();
            out.push(measure_row(key, &pools, true, &runtimes));
        }
    }
    // forte, ascending (its pool can only grow).
    let with_forte = args.runtimes.contains(&Rt::Forte);
    for (pass, &threads) in args.threads.iter().enumerate().filter(|_| with_forte) {
        forte_grow(threads);
        let pools = make_pools(threads);
        for (&key, out) in args.rows.iter().zip(&mut results) {
            out[pass].par[3] = measure_row(key, &pools, false, &[Rt::Forte]).par[3];
        }
    }

    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if let Some(path) = &args.csv {
        if let Err(e) = std::fs::write(path, medians_csv(&args, &results, cpus)) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    if let Some(path) = &args.stats_csv {
        if let Err(e) = std::fs::write(path, counts_csv(&args, &results)) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    println!(
        "medians of {} rounds, {cpus} CPU(s); chili and forte count the calling thread{}",
        args.rounds,
        if args.busy {
            "; forkjoin on busy pools (one free worker)"
        } else {
            ""
        }
    );
    println!();
    println!("| workload | unit | threads | seq | forkjoin | rayon | chili | forte | fj ÷ best |");
    println!("|---|---|--:|--:|--:|--:|--:|--:|--:|");
    for row in &results {
        for (&threads, m) in args.threads.iter().zip(row) {
            let ratio = fj_over_best(&m.par).map_or("–".into(), |r| format!("{r:.2}"));
            println!(
                "| {} | {} | {threads} | {} | {} | {} | {} | {} | {ratio} |",
                m.label,
                m.unit,
                fmt_value(Some(m.seq)),
                fmt_value(m.par[0]),
                fmt_value(m.par[1]),
                fmt_value(m.par[2]),
                fmt_value(m.par[3]),
            );
        }
    }

    let geo_rows: Vec<&Vec<Measured>> = args
        .rows
        .iter()
        .zip(&results)
        .filter(|(k, _)| GEOMEAN_ROWS.contains(k))
        .map(|(_, row)| row)
        .collect();
    if !geo_rows.is_empty() {
        println!();
        println!(
            "geometric mean of fj ÷ best over {}:",
            geo_rows
                .iter()
                .map(|row| row[0].label.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        println!();
        println!("| threads | fj ÷ best |");
        println!("|--:|--:|");
        for (pass, threads) in args.threads.iter().enumerate() {
            let ratios: Vec<f64> = geo_rows
                .iter()
                .filter_map(|row| fj_over_best(&row[pass].par))
                .collect();
            if ratios.is_empty() {
                continue; // no peer measured (`--runtimes forkjoin`)
            }
            let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
            println!("| {threads} | {geo:.2} |");
        }
    }
    ExitCode::SUCCESS
}
