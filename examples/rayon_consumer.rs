//! A consumer written the rayon way (rayon's plumbing: `Consumer` with its own `Folder` and
//! `Reducer`), driven by forkjoin and by rayon over the same input, side by side with forkjoin's
//! own terminal operation and a sequential loop.
//!
//! ```sh
//! cargo run --release --example rayon_consumer [-- --rounds 7]
//! ```
//!
//! Rows: `(0..N).into_par_iter().map(f).drive(Sum)` over a `usize` range (indexed) and
//! `.filter(p).drive_unindexed(Sum)` (unindexed), where `Sum` sums `u64`s through a `Folder`,
//! at 1 and 2 threads; medians of interleaved rounds.

use std::hint::black_box;
use std::time::Instant;

const N: u64 = 20_000_000;

fn f(x: u64) -> u64 {
    x ^ (x >> 3)
}

/// `f` over `usize` positions (rayon indexes `usize` ranges, not `u64` ones).
fn g(i: usize) -> u64 {
    f(i as u64)
}

fn keep(x: u64) -> bool {
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 62 != 0
}

/// The same consumer, written against the plumbing module of `$plumbing`.
macro_rules! sum_consumer {
    ($name:ident, $plumbing:path) => {
        mod $name {
            use plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
            use $plumbing as plumbing;

            pub struct Sum;
            pub struct SumFolder(u64);
            pub struct Add;

            impl Consumer<u64> for Sum {
                type Folder = SumFolder;
                type Reducer = Add;
                type Result = u64;
                fn split_at(self, _index: usize) -> (Self, Self, Add) {
                    (Sum, Sum, Add)
                }
                fn into_folder(self) -> SumFolder {
                    SumFolder(0)
                }
                fn full(&self) -> bool {
                    false
                }
            }

            impl UnindexedConsumer<u64> for Sum {
                fn split_off_left(&self) -> Self {
                    Sum
                }
                fn to_reducer(&self) -> Add {
                    Add
                }
            }

            impl Folder<u64> for SumFolder {
                type Result = u64;
                fn consume(self, item: u64) -> Self {
                    SumFolder(self.0 + item)
                }
                fn consume_iter<I: IntoIterator<Item = u64>>(self, iter: I) -> Self {
                    SumFolder(self.0 + iter.into_iter().sum::<u64>())
                }
                fn complete(self) -> u64 {
                    self.0
                }
                fn full(&self) -> bool {
                    false
                }
            }

            impl Reducer<u64> for Add {
                fn reduce(self, left: u64, right: u64) -> u64 {
                    left + right
                }
            }
        }
    };
}

sum_consumer!(fj_sum, forkjoin::iter::plumbing);
sum_consumer!(rayon_sum, rayon::iter::plumbing);

fn time(f: &mut dyn FnMut() -> u64) -> (f64, u64) {
    let start = Instant::now();
    let r = black_box(f());
    (start.elapsed().as_secs_f64() * 1e3, r)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .skip_while(|a| a != "--rounds")
        .nth(1)
        .map_or(7, |r| r.parse().expect("--rounds N"));
    println!("medians of {rounds} rounds, ms; N = {N}");
    println!();
    println!(
        "| row | threads | seq | forkjoin, own op | forkjoin, rayon-style consumer | rayon, same consumer | fj ÷ rayon |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|");
    for threads in [1, 2] {
        let fj = forkjoin::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let ry = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        type Row<'a> = (&'a str, [Box<dyn FnMut() -> u64 + 'a>; 4]);
        let rows: [Row; 2] = [
            (
                "map.drive (indexed)",
                [
                    Box::new(|| (0..N).map(f).sum()),
                    Box::new(|| {
                        use forkjoin::prelude::*;
                        fj.install(|| (0..N as usize).into_par_iter().map(g).sum())
                    }),
                    Box::new(|| {
                        use forkjoin::prelude::*;
                        fj.install(|| (0..N as usize).into_par_iter().map(g).drive(fj_sum::Sum))
                    }),
                    Box::new(|| {
                        use rayon::prelude::*;
                        ry.install(|| (0..N as usize).into_par_iter().map(g).drive(rayon_sum::Sum))
                    }),
                ],
            ),
            (
                "filter.drive_unindexed",
                [
                    Box::new(|| (0..N).filter(|&x| keep(x)).sum()),
                    Box::new(|| {
                        use forkjoin::prelude::*;
                        fj.install(|| (0..N).into_par_iter().filter(|&x| keep(x)).sum())
                    }),
                    Box::new(|| {
                        use forkjoin::prelude::*;
                        fj.install(|| {
                            (0..N)
                                .into_par_iter()
                                .filter(|&x| keep(x))
                                .drive_unindexed(fj_sum::Sum)
                        })
                    }),
                    Box::new(|| {
                        use rayon::prelude::*;
                        ry.install(|| {
                            (0..N)
                                .into_par_iter()
                                .filter(|&x| keep(x))
                                .drive_unindexed(rayon_sum::Sum)
                        })
                    }),
                ],
            ),
        ];
        for (name, mut fns) in rows {
            let mut times: [Vec<f64>; 4] = Default::default();
            let mut results = [0; 4];
            for _ in 0..rounds {
                for (k, f) in fns.iter_mut().enumerate() {
                    let (t, r) = time(f.as_mut());
                    times[k].push(t);
                    results[k] = r;
                }
            }
            assert!(
                results.iter().all(|&r| r == results[0]),
                "{name}: the four disagree: {results:?}"
            );
            let m: Vec<f64> = times.into_iter().map(median).collect();
            println!(
                "| {name} | {threads} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
                m[0],
                m[1],
                m[2],
                m[3],
                m[2] / m[3]
            );
        }
    }
}
