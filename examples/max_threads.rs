//! Sharing one pool between calls with `with_max_threads`.
//!
//! ```sh
//! cargo run --release --example max_threads -- [--threads 2] [--rounds 11]
//! ```
//!
//! For each shape (fib(30) with a join per call; a parallel sum of 2·10^7 small items), on a pool
//! of `P` threads (default: the machine's CPUs), each round runs, in turn:
//!
//! - `side by side`: two threads each call `pool.with_max_threads(P/2, shape)` at once; the time
//!   of each call;
//! - `half pool`: the same call alone on a pool of `P/2` threads (what the goal compares with:
//!   side by side ≤ 1.15× of it);
//! - `two pools`: the rayon way, each of the two threads calling into a pool of its own of `P/2`;
//! - `capped alone`: one call capped at `P/2` on the pool of `P`, alone: its time, and the
//!   process's CPU time over the call's time (about `P/2` if the workers outside the cap sleep).
//!
//! Prints the medians over the rounds and the ratios to `half pool`.

use std::hint::black_box;
use std::sync::Barrier;
use std::time::Instant;

use forkjoin::prelude::*;
use forkjoin::ThreadPool;

#[path = "common/workloads.rs"]
mod workloads;
use workloads::{fib_forkjoin, forkjoin_pool};

fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a live, writable timespec; CLOCK_PROCESS_CPUTIME_ID is always valid.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn sum_shape() -> u64 {
    (0..20_000_000u64)
        .into_par_iter()
        .map(|i| black_box(i).wrapping_mul(0x9E37_79B9) >> 7)
        .sum()
}

fn fib_shape() -> u64 {
    fib_forkjoin(30)
}

/// Milliseconds `f` takes.
fn ms<R>(f: impl FnOnce() -> R) -> f64 {
    let start = Instant::now();
    black_box(f());
    start.elapsed().as_secs_f64() * 1e3
}

/// Two threads each run `call(i)` at once; the time of each.
fn side_by_side(call: impl Fn(usize) -> f64 + Sync) -> [f64; 2] {
    let barrier = Barrier::new(2);
    let mut times = [0.0; 2];
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|i| {
                let (barrier, call) = (&barrier, &call);
                s.spawn(move || {
                    barrier.wait();
                    call(i)
                })
            })
            .collect();
        for (t, h) in times.iter_mut().zip(handles) {
            *t = h.join().unwrap();
        }
    });
    times
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut rounds = 11;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().and_then(|v| v.parse().ok());
        match (arg.as_str(), value) {
            ("--threads", Some(v)) => threads = v,
            ("--rounds", Some(v)) => rounds = v,
            _ => {
                eprintln!("usage: max_threads [--threads P] [--rounds R]");
                std::process::exit(2);
            }
        }
    }
    let half = (threads / 2).max(1);
    let pool = forkjoin_pool(threads);
    let halves: [ThreadPool; 2] = [forkjoin_pool(half), forkjoin_pool(half)];
    println!("max_threads: pool of {threads}, calls capped at {half}, {rounds} rounds");
    println!(
        "| shape | side by side ms | half pool ms | two pools ms | capped alone ms | CPU ÷ time, capped alone | side by side ÷ half pool | two pools ÷ half pool |"
    );
    println!("| --- | --: | --: | --: | --: | --: | --: | --: |");
    type Shape = fn() -> u64;
    let shapes: [(&str, Shape); 2] = [("fib(30)", fib_shape), ("sum 2e7", sum_shape)];
    for (name, shape) in shapes {
        let (mut side, mut alone, mut pools, mut capped, mut cpu) =
            (vec![], vec![], vec![], vec![], vec![]);
        for _ in 0..rounds {
            side.extend(side_by_side(|_| ms(|| pool.with_max_threads(half, shape))));
            alone.push(ms(|| halves[0].install(shape)));
            pools.extend(side_by_side(|i| ms(|| halves[i].install(shape))));
            let before = cpu_seconds();
            let t = ms(|| pool.with_max_threads(half, shape));
            cpu.push((cpu_seconds() - before) * 1e3 / t);
            capped.push(t);
        }
        let (side, alone, pools, capped, cpu) = (
            median(side),
            median(alone),
            median(pools),
            median(capped),
            median(cpu),
        );
        println!(
            "| {name} | {side:.2} | {alone:.2} | {pools:.2} | {capped:.2} | {cpu:.2} | {:.2} | {:.2} |",
            side / alone,
            pools / alone
        );
    }
}
