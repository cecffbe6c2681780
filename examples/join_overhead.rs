//! Per-join overhead and 1→2 thread scaling of forkjoin, rayon and chili, as a table for the docs.
//!
//! ```sh
//! cargo run --release --example join_overhead -- [--runs r] [--markdown]
//! ```
//!
//! For each workload (fib(30) and a 2^22 - 1 node tree sum, a join at every node; quicksort of 10^7
//! u32 with a 2,048-element sequential cutoff) it times the sequential baseline and each runtime on
//! dedicated 1- and 2-thread pools, `runs` times each (default 7, interleaved so drift hits every
//! column alike), and reports medians:
//!
//! - `ns/join = (T1 - Tseq) / joins`: what one join costs on one thread over the sequential code;
//! - `T1/T2`: scaling from one to two threads; `Tseq/T2`: speedup over sequential.
//!
//! Also an `install(|| ())` round trip into an idle pool (after 2 ms of idleness; median of 200).

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[path = "common/workloads.rs"]
mod workloads;
use workloads::*;

/// The pools of one runtime, by thread count (index 0: 1 thread, index 1: 2 threads).
struct Pools {
    forkjoin: Vec<forkjoin::ThreadPool>,
    rayon: Vec<rayon::ThreadPool>,
    chili: Vec<chili::ThreadPool>,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Median times of one workload: `[seq, fj1, fj2, ray1, ray2, chili1, chili2]`.
fn measure(runs: usize, mut run: impl FnMut(usize) -> Duration) -> [Duration; 7] {
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); 7];
    for _ in 0..runs {
        for (col, s) in samples.iter_mut().enumerate() {
            s.push(run(col));
        }
    }
    let mut out = [Duration::ZERO; 7];
    for (o, s) in out.iter_mut().zip(samples) {
        *o = median(s);
    }
    out
}

fn time<R>(f: impl FnOnce() -> R) -> (Duration, R) {
    let start = Instant::now();
    let r = black_box(f());
    (start.elapsed(), r)
}

struct Row {
    name: &'static str,
    joins: u64,
    t: [Duration; 7],
}

fn main() -> ExitCode {
    let mut runs = 7usize;
    let mut markdown = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => match args.next().and_then(|v| v.parse().ok()) {
                Some(r) if (1..=1000).contains(&r) => runs = r,
                _ => {
                    eprintln!(
                        "error: --runs needs an integer in 1..=1000\nusage: join_overhead [--runs r] [--markdown]"
                    );
                    return ExitCode::from(2);
                }
            },
            "--markdown" => markdown = true,
            _ => {
                eprintln!(
                    "error: unknown argument `{a}`\nusage: join_overhead [--runs r] [--markdown]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let pools = Pools {
        forkjoin: (1..=2).map(forkjoin_pool).collect(),
        rayon: (1..=2).map(rayon_pool).collect(),
        chili: (1..=2).map(chili_pool).collect(),
    };
    let mut chili_scopes: Vec<chili::Scope<'_>> = pools.chili.iter().map(|p| p.scope()).collect();
    let mut ok = true;
    let mut check = |what: &str, col: usize, good: bool| {
        if !good {
            eprintln!("error: {what}: column {col} computed a wrong result");
            ok = false;
        }
    };
    let mut rows = Vec::new();

    // fib(30): joins = internal nodes = F(31) - 1.
    const N: u64 = 30;
    let fib_expected = fib_seq(N);
    let t = measure(runs, |col| {
        let (t, r) = match col {
            0 => time(|| fib_seq(black_box(N))),
            1 | 2 => time(|| pools.forkjoin[col - 1].install(|| fib_forkjoin(black_box(N)))),
            3 | 4 => time(|| pools.rayon[col - 3].install(|| fib_rayon(black_box(N)))),
            _ => time(|| fib_chili(&mut chili_scopes[col - 5], black_box(N))),
        };
        check("fib", col, r == fib_expected);
        t
    });
    rows.push(Row {
        name: "fib(30)",
        joins: fib_seq(N + 1) - 1,
        t,
    });

    // Tree sum: a join at each of the 2^22 - 1 nodes.
    const LAYERS: u32 = 22;
    let tree = Node::tree(LAYERS);
    let tree_expected = (1u64 << LAYERS) - 1;
    let t = measure(runs, |col| {
        let (t, r) = match col {
            0 => time(|| sum_seq(black_box(&tree))),
            1 | 2 => time(|| pools.forkjoin[col - 1].install(|| sum_forkjoin(black_box(&tree)))),
            3 | 4 => time(|| pools.rayon[col - 3].install(|| sum_rayon(black_box(&tree)))),
            _ => time(|| sum_chili(&mut chili_scopes[col - 5], black_box(&tree))),
        };
        check("tree", col, r == tree_expected);
        t
    });
    rows.push(Row {
        name: "tree 2^22",
        joins: tree_expected,
        t,
    });
    drop(tree);

    // Quicksort of 10^7: joins are few; the interesting number is the speedup.
    let input = random_data(10_000_000, 0x9E37_79B9_7F4A_7C15);
    let mut sorted = input.clone();
    sorted.sort_unstable();
    let t = measure(runs.min(5), |col| {
        let mut v = input.clone();
        let (t, ()) = match col {
            0 => time(|| qs_seq(&mut v)),
            1 | 2 => time(|| pools.forkjoin[col - 1].install(|| qs_forkjoin(&mut v))),
            3 | 4 => time(|| pools.rayon[col - 3].install(|| qs_rayon(&mut v))),
            _ => time(|| qs_chili(&mut chili_scopes[col - 5], &mut v)),
        };
        check("quicksort", col, v == sorted);
        t
    });
    rows.push(Row {
        name: "quicksort 1e7",
        joins: 0,
        t,
    });
    drop(chili_scopes);

    // Idle install latency.
    let gap = Duration::from_millis(2);
    let idle_latency = |f: &dyn Fn()| {
        let mut v = Vec::with_capacity(200);
        for _ in 0..200 {
            std::thread::sleep(gap); // the workload: a request arriving at an idle pool
            let start = Instant::now();
            f();
            v.push(start.elapsed());
        }
        median(v)
    };
    let lat: Vec<(String, Duration)> = (0..2)
        .flat_map(|i| {
            [
                (
                    format!("forkjoin, {} thread(s)", i + 1),
                    idle_latency(&|| pools.forkjoin[i].install(|| black_box(()))),
                ),
                (
                    format!("rayon, {} thread(s)", i + 1),
                    idle_latency(&|| pools.rayon[i].install(|| black_box(()))),
                ),
            ]
        })
        .collect();

    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (bar, sep) = if markdown { ("| ", " | ") } else { ("", "  ") };
    println!(
        "medians of {runs} runs (quicksort: {}), {cpus} CPU(s)",
        runs.min(5)
    );
    println!();
    let header = [
        "workload", "runtime", "T seq", "T 1 thr", "T 2 thr", "ns/join", "T1/T2", "Tseq/T2",
    ];
    println!(
        "{bar}{:<13}{sep}{:<8}{sep}{:>9}{sep}{:>9}{sep}{:>9}{sep}{:>8}{sep}{:>6}{sep}{:>7}{}",
        header[0],
        header[1],
        header[2],
        header[3],
        header[4],
        header[5],
        header[6],
        header[7],
        if markdown { " |" } else { "" }
    );
    if markdown {
        println!("|---|---|--:|--:|--:|--:|--:|--:|");
    }
    for row in &rows {
        let seq = row.t[0];
        for (name, c) in [("forkjoin", 1), ("rayon", 3), ("chili", 5)] {
            let (t1, t2) = (row.t[c], row.t[c + 1]);
            let ns_join = if row.joins > 0 {
                format!("{:.2}", (secs(t1) - secs(seq)) * 1e9 / row.joins as f64)
            } else {
                "-".into()
            };
            println!(
                "{bar}{:<13}{sep}{:<8}{sep}{:>9}{sep}{:>9}{sep}{:>9}{sep}{:>8}{sep}{:>6.2}{sep}{:>7.2}{}",
                row.name,
                name,
                format!("{:.2} ms", secs(seq) * 1e3),
                format!("{:.2} ms", secs(t1) * 1e3),
                format!("{:.2} ms", secs(t2) * 1e3),
                ns_join,
                secs(t1) / secs(t2),
                secs(seq) / secs(t2),
                if markdown { " |" } else { "" }
            );
        }
    }
    println!();
    println!("install(|| ()) round trip into an idle pool (after 2 ms idle), median of 200:");
    for (name, d) in &lat {
        println!("  {name:<22} {:>8.1} us", secs(*d) * 1e6);
    }
    println!("(chili has no install: its scope runs on the calling thread)");
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
