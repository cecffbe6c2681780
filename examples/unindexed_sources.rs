//! Timings of the self-splitting unindexed sources: `split`, the tree walks and `par_split`.
//!
//! ```text
//! cargo run --release --example unindexed_sources -- [--threads 2] [--rounds 5] [--skip comb]
//! ```
//!
//! `--skip WORD` leaves out the rows whose name contains `WORD`.
//!
//! Prints one line per row: the median of `--rounds` runs, in milliseconds.

use std::hint::black_box;
use std::time::Instant;

use forkjoin::iter::{split, walk_tree_postfix, walk_tree_prefix};
use forkjoin::prelude::*;

/// Nodes of the complete binary tree walked by the tree rows.
const TREE: u32 = 1 << 21;
/// Numbers summed by the `split` row.
const RANGE: u64 = 1 << 26;
/// Bytes of the `par_split` row.
const BYTES: usize = 1 << 24;

fn children(&i: &u32) -> Vec<u32> {
    [2 * i + 1, 2 * i + 2]
        .into_iter()
        .filter(|&c| c < TREE)
        .collect()
}

/// A comb: node `i` has children `i + 1` (the spine) and a leaf, down to `TREE / 8` nodes.
fn comb(&i: &u32) -> Vec<u32> {
    if i >= TREE / 8 || i % 2 == 1 {
        vec![]
    } else {
        vec![i + 1, i + 2]
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut threads = 2;
    let mut rounds = 5;
    let mut skip = Vec::new();
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        match pair[0].as_str() {
            "--threads" => threads = pair[1].parse().expect("--threads N"),
            "--rounds" => rounds = pair[1].parse().expect("--rounds N"),
            "--skip" => skip.push(pair[1].clone()),
            other => panic!("unknown argument {other}"),
        }
    }
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    let bytes: Vec<u8> = (0..BYTES).map(|i| (i * 7 % 13) as u8).collect();
    type Row<'a> = (&'a str, Box<dyn Fn() -> u64 + Sync + 'a>);
    let rows: Vec<Row<'_>> = vec![
        (
            "walk_tree_prefix sum",
            Box::new(|| walk_tree_prefix(0u32, children).map(u64::from).sum()),
        ),
        (
            "walk_tree_postfix sum",
            Box::new(|| walk_tree_postfix(0u32, children).map(u64::from).sum()),
        ),
        (
            "walk_tree_prefix collect",
            Box::new(|| walk_tree_prefix(0u32, children).collect::<Vec<_>>().len() as u64),
        ),
        (
            "walk_tree_prefix comb sum",
            Box::new(|| walk_tree_prefix(0u32, comb).map(u64::from).sum()),
        ),
        (
            "split range sum",
            Box::new(|| {
                split(0..RANGE, |r| {
                    if r.end - r.start <= 4096 {
                        (r, None)
                    } else {
                        let mid = r.start + (r.end - r.start) / 2;
                        (r.start..mid, Some(mid..r.end))
                    }
                })
                .map(|r| r.map(|x| x ^ (x >> 3)).sum::<u64>())
                .sum()
            }),
        ),
        (
            "par_split count",
            Box::new(|| bytes.par_split(|&b| b == 0).map(|s| s.len() as u64).sum()),
        ),
    ];
    for (name, row) in &rows {
        if skip.iter().any(|word| name.contains(word.as_str())) {
            continue;
        }
        let expected = pool.install(row);
        let times: Vec<f64> = (0..rounds)
            .map(|_| {
                let start = Instant::now();
                let got = pool.install(|| black_box(row()));
                let t = start.elapsed().as_secs_f64() * 1e3;
                assert_eq!(got, expected, "{name}");
                t
            })
            .collect();
        println!("{name:28} {:9.3} ms", median(times));
    }
}
