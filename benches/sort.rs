//! Sorting 10^7 random u64: forkjoin's parallel sorts vs rayon's vs std's sequential sorts, at 1 and
//! 2 threads (a dedicated pool of each size per library). Rows of one group are side by side:
//! `sort/stable/{std, rayon-1t, forkjoin-1t, rayon-2t, forkjoin-2t}` and the same for `unstable`.
//!
//! Each sample sorts a fresh copy of the same input; the copy is not timed.

use std::time::Duration;

#[path = "../examples/common/workloads.rs"]
mod workloads;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkGroup, Criterion};

const LEN: usize = 10_000_000;

fn input() -> Vec<u64> {
    // splitmix64
    let mut s = 0x5EED_u64;
    (0..LEN)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

/// One row of a group: each sample sorts a fresh copy of `data` with `sort` (the copy is not timed).
fn row(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    data: &[u64],
    sort: impl Fn(&mut [u64]),
) {
    group.bench_function(name, |b| {
        b.iter_batched_ref(|| data.to_vec(), |v| sort(v), BatchSize::LargeInput)
    });
}

fn bench_sorts(c: &mut Criterion) {
    use forkjoin::prelude::ParallelSortMut;
    use rayon::slice::ParallelSliceMut;

    let data = input();
    let pools = workloads::forkjoin_and_rayon_pools();

    for stable in [true, false] {
        let mut group = c.benchmark_group(if stable {
            "sort/stable"
        } else {
            "sort/unstable"
        });
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(5));
        row(&mut group, "std", &data, |v| {
            if stable {
                v.sort()
            } else {
                v.sort_unstable()
            }
        });
        for (t, fj, ry) in &pools {
            row(&mut group, &format!("rayon-{t}t"), &data, |v| {
                ry.install(|| {
                    if stable {
                        ParallelSliceMut::par_sort(v)
                    } else {
                        ParallelSliceMut::par_sort_unstable(v)
                    }
                })
            });
            row(&mut group, &format!("forkjoin-{t}t"), &data, |v| {
                fj.install(|| {
                    if stable {
                        ParallelSortMut::par_sort(v)
                    } else {
                        ParallelSortMut::par_sort_unstable(v)
                    }
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench_sorts);
criterion_main!(benches);
