//! forkjoin beside rayon on the operations that feed two collections or drain a collection's own
//! storage: `unzip`, `partition`, `partition_map`, `[T; N]::into_par_iter`, `VecDeque::par_drain`
//! and `Vec::par_extend` (unindexed input). Interleaved rounds, medians, as a markdown table.
//!
//! ```sh
//! cargo run --release --example vec_detours -- [--threads 1,2] [--rounds 15] [--n 1000000] [--only SUBSTRING]
//! ```

use std::hint::black_box;
use std::time::Instant;

/// The same workloads, written once against the prelude and `Either` in scope.
macro_rules! workloads {
    () => {
        use std::collections::VecDeque;
        use std::hint::black_box;

        pub fn unzip(n: usize) -> u64 {
            let (a, b): (Vec<u64>, Vec<u32>) =
                (0..n as u64).into_par_iter().map(|i| (i, i as u32)).unzip();
            a[n - 1] + u64::from(b[n / 2])
        }

        pub fn collect_pairs(n: usize) -> u64 {
            let v: Vec<(u64, u32)> = (0..n as u64)
                .into_par_iter()
                .map(|i| (i, i as u32))
                .collect();
            v[n - 1].0 + u64::from(v[n / 2].1)
        }

        pub fn partition(n: usize) -> u64 {
            let (a, b): (Vec<u64>, Vec<u64>) =
                (0..n as u64).into_par_iter().partition(|i| i % 3 == 0);
            (a.len() * 7 + b.len()) as u64 + a[a.len() / 2]
        }

        pub fn partition_map(n: usize) -> u64 {
            let (a, b): (Vec<u64>, Vec<u32>) = (0..n as u64).into_par_iter().partition_map(|i| {
                if i % 2 == 0 {
                    Either::Left(i)
                } else {
                    Either::Right(i as u32)
                }
            });
            (a.len() * 7 + b.len()) as u64 + u64::from(b[b.len() / 2])
        }

        pub fn array(a: &[u64; super::ARRAY]) -> u64 {
            (0..16)
                .map(|_| black_box(*a).into_par_iter().sum::<u64>())
                .sum()
        }

        pub fn deque_drain(n: usize) -> u64 {
            let mut d: VecDeque<String> = (0..n / 10).map(|i| i.to_string()).collect();
            d.rotate_left(n / 30);
            let s = d.par_drain(..).map(|s| s.len() as u64).sum::<u64>();
            s + d.len() as u64
        }

        pub fn extend(n: usize) -> u64 {
            let mut v = vec![1u64];
            v.par_extend((0..n as u64).into_par_iter().filter(|i| i % 3 != 0));
            v.len() as u64 + v[v.len() / 2]
        }
    };
}

mod fj {
    use forkjoin::iter::Either;
    use forkjoin::prelude::*;
    workloads!();
}

mod ry {
    use rayon::iter::Either;
    use rayon::prelude::*;
    workloads!();
}

const ARRAY: usize = 1 << 16;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One row: its name, then the forkjoin run and the rayon run, each returning a checksum.
type Row = (
    &'static str,
    Box<dyn Fn() -> u64 + Sync>,
    Box<dyn Fn() -> u64 + Sync>,
);

fn rows(n: usize) -> Vec<Row> {
    let a: &'static [u64; ARRAY] = Box::leak(Box::new(std::array::from_fn(|i| i as u64)));
    vec![
        (
            "unzip (indexed, into Vecs)",
            Box::new(move || fj::unzip(n)),
            Box::new(move || ry::unzip(n)),
        ),
        (
            "reference: collect the pairs into one Vec",
            Box::new(move || fj::collect_pairs(n)),
            Box::new(move || ry::collect_pairs(n)),
        ),
        (
            "partition (into Vecs)",
            Box::new(move || fj::partition(n)),
            Box::new(move || ry::partition(n)),
        ),
        (
            "partition_map (into Vecs)",
            Box::new(move || fj::partition_map(n)),
            Box::new(move || ry::partition_map(n)),
        ),
        (
            "[u64; 65536] into_par_iter().sum, x16",
            Box::new(move || fj::array(a)),
            Box::new(move || ry::array(a)),
        ),
        (
            "VecDeque<String> (n/10) par_drain(..)",
            Box::new(move || fj::deque_drain(n)),
            Box::new(move || ry::deque_drain(n)),
        ),
        (
            "Vec::par_extend(filter)",
            Box::new(move || fj::extend(n)),
            Box::new(move || ry::extend(n)),
        ),
    ]
}

fn main() {
    let mut threads = vec![1usize, 2];
    let mut rounds = 15;
    let mut n = 1_000_000usize;
    let mut only = String::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let v = args.next().expect("every option takes a value");
        match a.as_str() {
            "--threads" => {
                threads = v
                    .split(',')
                    .map(|t| t.parse().expect("--threads"))
                    .collect()
            }
            "--rounds" => rounds = v.parse().expect("--rounds"),
            "--n" => n = v.parse().expect("--n"),
            "--only" => only = v,
            _ => panic!("unknown option {a}"),
        }
    }
    let rows = rows(n);
    println!("n = {n}, medians of {rounds} interleaved rounds, ms");
    println!("| operation | threads | forkjoin | rayon | fj ÷ rayon |");
    println!("|---|--:|--:|--:|--:|");
    for &t in &threads {
        let fj = forkjoin::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap();
        let ry = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap();
        for (name, f, r) in rows.iter().filter(|row| row.0.contains(only.as_str())) {
            assert_eq!(fj.install(f), ry.install(r), "{name}: results differ");
            let (mut tf, mut tr) = (Vec::new(), Vec::new());
            for round in 0..rounds {
                let mut time_fj = || {
                    let s = Instant::now();
                    black_box(fj.install(f));
                    tf.push(s.elapsed().as_secs_f64() * 1e3);
                };
                let mut time_ry = || {
                    let s = Instant::now();
                    black_box(ry.install(r));
                    tr.push(s.elapsed().as_secs_f64() * 1e3);
                };
                if round % 2 == 0 {
                    time_fj();
                    time_ry();
                } else {
                    time_ry();
                    time_fj();
                }
            }
            let (mf, mr) = (median(tf), median(tr));
            println!("| {name} | {t} | {mf:.2} | {mr:.2} | {:.2} |", mf / mr);
        }
    }
}
