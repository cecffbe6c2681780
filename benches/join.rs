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
use std::num::NonZeroUsize;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, SamplingMode};

// ---------- workloads (one per runtime; identical shape) ----------

fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

fn fib_forkjoin(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = forkjoin::join(|| fib_forkjoin(n - 1), || fib_forkjoin(n - 2));
    a + b
}

fn fib_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

fn fib_chili(s: &mut chili::Scope<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = s.join(|s| fib_chili(s, n - 1), |s| fib_chili(s, n - 2));
    a + b
}

struct Node {
    val: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

impl Node {
    /// A full tree of `layers` levels, allocated in pre-order (parent, left subtree, right subtree),
    /// so the left-first traversal every contender does below walks memory in address order.
    fn tree(layers: u32) -> Box<Node> {
        let mut node = Box::new(Node {
            val: 1,
            left: None,
            right: None,
        });
        if layers > 1 {
            node.left = Some(Node::tree(layers - 1));
            node.right = Some(Node::tree(layers - 1));
        }
        node
    }
}

fn sum_seq(n: &Node) -> u64 {
    n.val + n.left.as_deref().map_or(0, sum_seq) + n.right.as_deref().map_or(0, sum_seq)
}

fn sum_forkjoin(n: &Node) -> u64 {
    let (l, r) = forkjoin::join(
        || n.left.as_deref().map_or(0, sum_forkjoin),
        || n.right.as_deref().map_or(0, sum_forkjoin),
    );
    n.val + l + r
}

fn sum_rayon(n: &Node) -> u64 {
    let (l, r) = rayon::join(
        || n.left.as_deref().map_or(0, sum_rayon),
        || n.right.as_deref().map_or(0, sum_rayon),
    );
    n.val + l + r
}

/// chili's join runs its second closure first when it does not share the work (its common path), so
/// the subtrees are passed swapped: chili then walks left-first like the others. Same memory order for
/// every contender; otherwise the traversal order, not the join, dominates the difference.
fn sum_chili(s: &mut chili::Scope<'_>, n: &Node) -> u64 {
    let (r, l) = s.join(
        |s| n.right.as_deref().map_or(0, |c| sum_chili(s, c)),
        |s| n.left.as_deref().map_or(0, |c| sum_chili(s, c)),
    );
    n.val + l + r
}

const QS_CUTOFF: usize = 2048;

fn random_data(len: usize, mut seed: u64) -> Vec<u32> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 32) as u32
        })
        .collect()
}

fn insertion_sort(v: &mut [u32]) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// Hoare partition around the median of three; both sides non-empty.
fn partition(v: &mut [u32]) -> usize {
    let len = v.len();
    let (a, b, c) = (v[0], v[len / 2], v[len - 1]);
    let pivot = a.max(b).min(a.min(b).max(c));
    let (mut i, mut j) = (0usize, len - 1);
    loop {
        while v[i] < pivot {
            i += 1;
        }
        while v[j] > pivot {
            j -= 1;
        }
        if i >= j {
            return j + 1;
        }
        v.swap(i, j);
        i += 1;
        j -= 1;
    }
}

fn qs_seq(v: &mut [u32]) {
    if v.len() <= 16 {
        insertion_sort(v);
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    qs_seq(lo);
    qs_seq(hi);
}

fn qs_forkjoin(v: &mut [u32]) {
    if v.len() < QS_CUTOFF {
        return qs_seq(v);
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    forkjoin::join(|| qs_forkjoin(lo), || qs_forkjoin(hi));
}

fn qs_rayon(v: &mut [u32]) {
    if v.len() < QS_CUTOFF {
        return qs_seq(v);
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    rayon::join(|| qs_rayon(lo), || qs_rayon(hi));
}

fn qs_chili(s: &mut chili::Scope<'_>, v: &mut [u32]) {
    if v.len() < QS_CUTOFF {
        return qs_seq(v);
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    s.join(|s| qs_chili(s, lo), |s| qs_chili(s, hi));
}

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
            forkjoin: forkjoin::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .expect("forkjoin pool"),
            rayon: rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .expect("rayon pool"),
            // chili counts the calling thread: thread_count n = caller + (n - 1) workers.
            chili: chili::ThreadPool::with_config(chili::Config {
                thread_count: NonZeroUsize::new(n),
                ..Default::default()
            }),
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
