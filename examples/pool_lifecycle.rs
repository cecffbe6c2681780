//! What it costs to build a pool and drop it again, forkjoin against rayon.
//!
//! ```sh
//! cargo run --release --example pool_lifecycle -- [--threads t] [--pools n] [--runs r] [--verbose]
//! ```
//!
//! Each run builds and drops `pools` pools of `threads` threads (default 2 threads, 1,000 pools)
//! with each runtime, the runtimes interleaved run by run (default 7 runs) so that drift hits both
//! alike, and reports the median time per pool. Both builders start the threads and the drops wait
//! for them: forkjoin's `build` returns once every worker runs, and its `Drop` joins the threads;
//! rayon's `build` returns once the threads are spawned and its `Drop` does not wait, so rayon's
//! column is the lower bound of the work, not the same guarantee.

use std::hint::black_box;
use std::time::{Duration, Instant};

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().expect("a number"))
        .unwrap_or(default)
}

fn per_pool(pools: usize, mut build_and_drop: impl FnMut()) -> Duration {
    let start = Instant::now();
    for _ in 0..pools {
        build_and_drop();
    }
    start.elapsed() / pools as u32
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let threads = arg("--threads", 2);
    let pools = arg("--pools", 1_000);
    let runs = arg("--runs", 7);
    let mut forkjoin_times = Vec::new();
    let mut rayon_times = Vec::new();
    let verbose = std::env::args().any(|a| a == "--verbose");
    for run in 0..runs {
        forkjoin_times.push(per_pool(pools, || {
            let pool = forkjoin::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            drop(black_box(pool));
        }));
        rayon_times.push(per_pool(pools, || {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            drop(black_box(pool));
        }));
        if verbose {
            let (f, r) = (forkjoin_times[run], rayon_times[run]);
            eprintln!("run {run}: forkjoin {f:.1?}, rayon {r:.1?} per pool");
        }
    }
    let (f, r) = (median(forkjoin_times), median(rayon_times));
    println!("build + drop of a {threads}-thread pool, median of {runs} runs of {pools} pools");
    println!("| runtime  | per pool | vs rayon |");
    println!("| -------- | -------: | -------: |");
    println!(
        "| forkjoin | {f:>8.1?} | {:>7.2}x |",
        f.as_secs_f64() / r.as_secs_f64()
    );
    println!("| rayon    | {r:>8.1?} |    1.00x |");
}
