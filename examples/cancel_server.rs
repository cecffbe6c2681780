//! rayon #1014, "Killing ongoing rayon task": a tokio server hands heavy parallel work to the pool
//! under a time budget; when the budget runs out the client gets its timeout, but with rayon the
//! work runs on to the end, and every later request waits behind work nobody wants.
//!
//! ```sh
//! cargo run --release --example cancel_server [-- --quick]
//! ```
//!
//! The handler counts primes on a forkjoin pool under its budget, cut off in one of three ways:
//!
//! * `tokio::time::timeout` around `pool.spawn_future(..)`: the timeout drops the `JobFuture`,
//!   and dropping it cancels the job;
//! * a deadline token, `CancelToken::with_timeout(budget)`, with `cancellable` inside the job:
//!   the pool stops the work itself and the future resolves to `Err(Cancelled)`;
//! * not cancellable, as with rayon: `pool.spawn` and a oneshot channel; the timeout drops only
//!   the receiver.
//!
//! Requests are served one at a time. After each, a tiny request measures how soon the pool serves
//! the next client, and the table shows how long the timed-out work kept the pool busy past its
//! budget (until its last block ran and the job was gone) and how much of it ran. `--quick`
//! shrinks the work (`tests/examples.rs` runs it so, and checks the rows).

use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use forkjoin::prelude::*;
use forkjoin::{CancelToken, Cancelled, ThreadPool};

/// Numbers per item of the parallel loop: an item takes well under a millisecond, so a cancelled
/// loop reaches a boundary (before each batch) soon.
const BLOCK: u64 = 200;

/// How a request's work is cut off when its budget runs out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutOff {
    /// `tokio::time::timeout(budget, pool.spawn_future(..))`: the timeout drops the future.
    DropFuture,
    /// `CancelToken::with_timeout(budget)` and `cancellable` inside the job.
    Deadline,
    /// Not cancellable: `pool.spawn` and a oneshot channel, the way one does it with rayon.
    Detached,
}

impl CutOff {
    fn describe(self) -> &'static str {
        match self {
            CutOff::DropFuture => "timeout drops the JobFuture",
            CutOff::Deadline => "CancelToken::with_timeout",
            CutOff::Detached => "none (spawn + oneshot)",
        }
    }
}

/// A request: count the primes below `n` within `budget`.
pub struct Request {
    pub n: u64,
    pub budget: Duration,
    pub cut_off: CutOff,
    /// What the work reports for the table (not part of a real handler).
    pub meter: Meter,
}

/// The answer to a request.
#[derive(Debug, PartialEq, Eq)]
pub struct Answer {
    pub primes: u64,
}

/// The request's budget ran out.
#[derive(Debug, PartialEq, Eq)]
pub struct Timeout;

/// The handler: the heavy part runs on the pool under the request's budget, and this task is
/// suspended meanwhile.
pub async fn handle(pool: &ThreadPool, request: Request) -> Result<Answer, Timeout> {
    let Request {
        n,
        budget,
        cut_off,
        meter,
    } = request;
    let work = move || meter.count_primes(n);
    match cut_off {
        CutOff::DropFuture => {
            let job = pool.spawn_future(work);
            // On timeout the `JobFuture` is dropped here, which cancels its job.
            match tokio::time::timeout(budget, job).await {
                Ok(primes) => Ok(Answer { primes }),
                Err(_elapsed) => Err(Timeout),
            }
        }
        CutOff::Deadline => {
            let token = CancelToken::with_timeout(budget);
            let job = pool.spawn_future(move || forkjoin::cancellable(&token, work));
            match job.await {
                Ok(primes) => Ok(Answer { primes }),
                Err(Cancelled) => Err(Timeout),
            }
        }
        CutOff::Detached => {
            let (tx, rx) = tokio::sync::oneshot::channel();
            pool.spawn(move || {
                let _ = tx.send(work());
            });
            // On timeout only the receiver is dropped: the job runs on.
            match tokio::time::timeout(budget, rx).await {
                Ok(result) => Ok(Answer {
                    primes: result.expect("the job sends its result"),
                }),
                Err(_elapsed) => Err(Timeout),
            }
        }
    }
}

/// Instruments the work: counts the blocks done, and reports when the work is gone (returned,
/// stopped, or dropped unrun) through a oneshot sent from its `Drop`.
pub struct Meter {
    blocks: Arc<AtomicU64>,
    gone: Option<tokio::sync::oneshot::Sender<Instant>>,
}

impl Meter {
    fn new() -> (
        Meter,
        Arc<AtomicU64>,
        tokio::sync::oneshot::Receiver<Instant>,
    ) {
        let blocks = Arc::new(AtomicU64::new(0));
        let (tx, rx) = tokio::sync::oneshot::channel();
        let meter = Meter {
            blocks: blocks.clone(),
            gone: Some(tx),
        };
        (meter, blocks, rx)
    }

    /// The primes below `n`, one item of the parallel loop per `BLOCK` numbers.
    fn count_primes(&self, n: u64) -> u64 {
        (0..n.div_ceil(BLOCK))
            .into_par_iter()
            .map(|block| {
                let lo = block * BLOCK;
                let primes = (lo..(lo + BLOCK).min(n)).filter(|&k| is_prime(k)).count();
                self.blocks.fetch_add(1, Ordering::Relaxed);
                primes as u64
            })
            .sum()
    }
}

impl Drop for Meter {
    fn drop(&mut self) {
        // The parallel loop has returned or unwound, and every block it ran is done: the pool is
        // free of this work.
        if let Some(gone) = self.gone.take() {
            let _ = gone.send(Instant::now());
        }
    }
}

fn is_prime(k: u64) -> bool {
    if k < 4 {
        return k >= 2;
    }
    if k % 2 == 0 || k % 3 == 0 {
        return false;
    }
    let mut d = 5;
    while d * d <= k {
        if k % d == 0 || k % (d + 2) == 0 {
            return false;
        }
        d += 6;
    }
    true
}

/// One row of the table.
#[derive(Debug)]
pub struct Row {
    pub n: u64,
    pub budget: Duration,
    pub cut_off: CutOff,
    pub outcome: Result<Answer, Timeout>,
    /// From the request to the handler's return.
    pub returned: Duration,
    /// From the end of the budget until the work was gone (zero if it was gone before).
    pub busy_past_budget: Duration,
    /// The share of the work's blocks that ran.
    pub done: f64,
    /// How long the next (tiny) request took, sent when the handler returned.
    pub next_served: Duration,
}

/// Serves the requests one at a time on a tokio runtime and a forkjoin pool of `threads` (0: the
/// default), prints the table, and returns its rows.
pub fn run(quick: bool, threads: usize, out: &mut impl Write) -> io::Result<Vec<Row>> {
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    // Heavy work of about two seconds on 2 cores (a third of a second with --quick) under budgets
    // it cannot meet, and a small request that meets its budget easily.
    let (small, heavy, tight) = if quick {
        (100_000, 4_000_000, Duration::from_millis(20))
    } else {
        (1_000_000, 12_000_000, Duration::from_millis(100))
    };
    let requests = [
        (small, Duration::from_secs(2), CutOff::DropFuture),
        (heavy, tight, CutOff::DropFuture),
        (heavy, tight, CutOff::Deadline),
        (heavy, tight, CutOff::Detached),
    ];
    writeln!(
        out,
        "cancel_server: {} pool threads; requests one at a time, each followed by a tiny one\n",
        pool.current_num_threads()
    )?;
    writeln!(
        out,
        "{:<24} {:<28} {:>7}  {:<14} {:>9} {:>11} {:>5} {:>12}",
        "request",
        "cut off by",
        "budget",
        "outcome",
        "returned",
        "busy after",
        "done",
        "next served"
    )?;
    writeln!(
        out,
        "{:<24} {:<28} {:>7}  {:<14} {:>9} {:>11} {:>5} {:>12}",
        "", "", "", "", "after", "the budget", "", "in"
    )?;
    let mut rows = Vec::new();
    for (n, budget, cut_off) in requests {
        let row = runtime.block_on(async {
            let (meter, blocks, gone) = Meter::new();
            let request = Request {
                n,
                budget,
                cut_off,
                meter,
            };
            let start = Instant::now();
            let outcome = handle(&pool, request).await;
            let returned = start.elapsed();
            let probe = Instant::now();
            pool.spawn_future(|| ()).await;
            let next_served = probe.elapsed();
            let gone = gone.await.expect("the meter reports when the work is gone");
            Row {
                n,
                budget,
                cut_off,
                outcome,
                returned,
                busy_past_budget: gone.saturating_duration_since(start + budget),
                done: blocks.load(Ordering::Relaxed) as f64 / n.div_ceil(BLOCK) as f64,
                next_served,
            }
        });
        let outcome = match &row.outcome {
            Ok(answer) => format!("{} primes", thousands(answer.primes)),
            Err(Timeout) => "timed out".to_string(),
        };
        writeln!(
            out,
            "{:<24} {:<28} {:>7}  {:<14} {:>9} {:>11} {:>4.0}% {:>12}",
            format!("primes below {}", thousands(row.n)),
            row.cut_off.describe(),
            show(row.budget),
            outcome,
            show(row.returned),
            match row.outcome {
                Ok(_) => "-".to_string(),
                Err(Timeout) => show(row.busy_past_budget),
            },
            row.done * 100.0,
            show(row.next_served),
        )?;
        rows.push(row);
    }
    writeln!(
        out,
        "\nbusy after the budget: from the end of the budget (its timer fires a little later) until the\n\
         timed-out work's last block ran and its job was gone"
    )?;
    writeln!(
        out,
        "next served in: a tiny request sent when the handler returned, until its answer came back"
    )?;
    Ok(rows)
}

/// `n` with a comma every three digits.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A duration in µs, ms or s, with three significant digits.
fn show(d: Duration) -> String {
    let (value, unit) = match d.as_secs_f64() {
        s if s < 1e-3 => (s * 1e6, "µs"),
        s if s < 1.0 => (s * 1e3, "ms"),
        s => (s, "s"),
    };
    let decimals = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    format!("{value:.decimals$} {unit}")
}

fn main() {
    let quick = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--quick") => true,
        Some(other) => {
            eprintln!("usage: cancel_server [--quick] (unexpected `{other}`)");
            std::process::exit(2);
        }
    };
    run(quick, 0, &mut io::stdout().lock()).expect("stdout");
}
