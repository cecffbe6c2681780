//! Fork-join benchmarks, side by side in one run: sequential baseline, forkjoin, rayon and chili, each
//! runtime on dedicated pools of 1 and 2 threads.
//!
//! - `fib30`: fib(30) with a join at every level (no cutoff): 1,346,268 joins per run.
//! - `tree_sum`: sum of a binary tree of 2^22 - 1 heap nodes, a join at every node (chili's benchmark).
//! - `quicksort/{1e6,1e7}`: quicksort of pseudo-random u32, join on the partitions, sequential below
//!   2,048 elements; input copy excluded from the time.
//! - `install_latency`: an `install(|| ())` round trip from the bench thread, back to back (`hot`) and
//!   after 2 ms of idleness so the workers have gone to sleep (`idle`). chili has no `install`.
//!
//! Run: `cargo bench --bench join`. Derived numbers (ns per join, T1/T2): `cargo run --release
//! --example join_overhead`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, SamplingMode};

#[path = "../examples/common/workloads.rs"]
mod workloads;
use workloads::*;

// ---------- pools ----------

struct Pools {
    threads: usize,
    forkjoin: forkjoin::ThreadPool,
    rayon: rayon::ThreadPool,
    chili: chili::ThreadPool,
}

fn pools() -> Vec<Pools> {
    [1usize, 2]
        .into_iter()
        .map(|n| Pools {
            threads: n,
            forkjoin: forkjoin_pool(n),
            rayon: rayon_pool(n),
            chili: chili_pool(n),
        })
        .collect()
}

// ---------- benchmarks ----------

fn bench_fib(c: &mut Criterion, pools: &[Pools]) {
    const N: u64 = 30;
    let expected = fib_seq(N);
    let mut g = c.benchmark_group("fib30");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    g.bench_function("sequential", |b| b.iter(|| fib_seq(black_box(N))));
    for p in pools {
        assert_eq!(p.forkjoin.install(|| fib_forkjoin(N)), expected);
        g.bench_function(BenchmarkId::new("forkjoin", p.threads), |b| {
            b.iter(|| p.forkjoin.install(|| fib_forkjoin(black_box(N))))
        });
        g.bench_function(BenchmarkId::new("rayon", p.threads), |b| {
            b.iter(|| p.rayon.install(|| fib_rayon(black_box(N))))
        });
        let mut s = p.chili.scope();
        assert_eq!(fib_chili(&mut s, N), expected);
        g.bench_function(BenchmarkId::new("chili", p.threads), |b| {
            b.iter(|| fib_chili(&mut s, black_box(N)))
        });
    }
    g.finish();
}

fn bench_tree(c: &mut Criterion, pools: &[Pools]) {
    const LAYERS: u32 = 22;
    let tree = Node::tree(LAYERS);
    let expected = (1u64 << LAYERS) - 1;
    assert_eq!(sum_seq(&tree), expected);
    let mut g = c.benchmark_group("tree_sum");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    g.bench_function("sequential", |b| b.iter(|| sum_seq(black_box(&tree))));
    for p in pools {
        assert_eq!(p.forkjoin.install(|| sum_forkjoin(&tree)), expected);
        g.bench_function(BenchmarkId::new("forkjoin", p.threads), |b| {
            b.iter(|| p.forkjoin.install(|| sum_forkjoin(black_box(&tree))))
        });
        g.bench_function(BenchmarkId::new("rayon", p.threads), |b| {
            b.iter(|| p.rayon.install(|| sum_rayon(black_box(&tree))))
        });
        let mut s = p.chili.scope();
        assert_eq!(sum_chili(&mut s, &tree), expected);
        g.bench_function(BenchmarkId::new("chili", p.threads), |b| {
            b.iter(|| sum_chili(&mut s, black_box(&tree)))
        });
    }
    g.finish();
}

fn bench_quicksort(c: &mut Criterion, pools: &[Pools]) {
    for (name, len, secs) in [("1e6", 1_000_000usize, 1u64), ("1e7", 10_000_000, 3)] {
        let input = random_data(len, 0x9E37_79B9_7F4A_7C15);
        let mut sorted = input.clone();
        sorted.sort_unstable();
        let mut g = c.benchmark_group(format!("quicksort/{name}"));
        g.sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(secs));
        let fresh = || input.clone();
        g.bench_function("sequential", |b| {
            b.iter_batched(fresh, |mut v| qs_seq(&mut v), BatchSize::LargeInput)
        });
        for p in pools {
            let mut v = input.clone();
            p.forkjoin.install(|| qs_forkjoin(&mut v));
            assert!(v == sorted, "forkjoin quicksort is wrong");
            g.bench_function(BenchmarkId::new("forkjoin", p.threads), |b| {
                b.iter_batched(
                    fresh,
                    |mut v| p.forkjoin.install(|| qs_forkjoin(&mut v)),
                    BatchSize::LargeInput,
                )
            });
            g.bench_function(BenchmarkId::new("rayon", p.threads), |b| {
                b.iter_batched(
                    fresh,
                    |mut v| p.rayon.install(|| qs_rayon(&mut v)),
                    BatchSize::LargeInput,
                )
            });
            let mut s = p.chili.scope();
            g.bench_function(BenchmarkId::new("chili", p.threads), |b| {
                b.iter_batched(
                    fresh,
                    |mut v| qs_chili(&mut s, &mut v),
                    BatchSize::LargeInput,
                )
            });
        }
        g.finish();
    }
}

/// Sum of `iters` round trips, each started after `gap` of idleness (so an idle pool's workers sleep).
fn idle_round_trips(iters: u64, gap: Duration, mut round_trip: impl FnMut()) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        // Not synchronisation: the workload is "a request arriving at an idle pool".
        std::thread::sleep(gap);
        let start = Instant::now();
        round_trip();
        total += start.elapsed();
    }
    total
}

fn bench_install(c: &mut Criterion, pools: &[Pools]) {
    let mut g = c.benchmark_group("install_latency");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(500));
    for p in pools {
        g.bench_function(BenchmarkId::new("forkjoin/hot", p.threads), |b| {
            b.iter(|| p.forkjoin.install(|| black_box(())))
        });
        g.bench_function(BenchmarkId::new("rayon/hot", p.threads), |b| {
            b.iter(|| p.rayon.install(|| black_box(())))
        });
    }
    // Criterion sizes the sample from wall time, gaps included: a short target keeps this ~2 s each.
    g.sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(500));
    let gap = Duration::from_millis(2);
    for p in pools {
        g.bench_function(BenchmarkId::new("forkjoin/idle", p.threads), |b| {
            b.iter_custom(|iters| {
                idle_round_trips(iters, gap, || p.forkjoin.install(|| black_box(())))
            })
        });
        g.bench_function(BenchmarkId::new("rayon/idle", p.threads), |b| {
            b.iter_custom(|iters| {
                idle_round_trips(iters, gap, || p.rayon.install(|| black_box(())))
            })
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    let pools = pools();
    bench_fib(c, &pools);
    bench_tree(c, &pools);
    bench_quicksort(c, &pools);
    bench_install(c, &pools);
}

criterion_group!(join_benches, benches);
criterion_main!(join_benches);
