//! The standard fork-join suite under criterion: sequential baseline, forkjoin, rayon, chili and forte
//! on pools of 1 and 2 threads. Workloads (and what each measures) are documented in
//! `examples/common/suite.rs`; `cargo run --release --example suite` prints the same rows as one
//! markdown table.
//!
//! Groups: `fib36`, `skynet1e7`, `nqueens12`, `matmul1024`, `tree_sum/{left_first,right_first}` (2^23 - 1
//! nodes), `iter_small` and `iter_sum` (time per call, calls back to back inside one `install`), and
//! `tiny_joins` (time per join, a flat loop inside one `install`). Ids: `sequential` once, then
//! `<runtime>/<threads>`; chili and forte count the calling thread.
//!
//! The thread counts run as passes in ascending order, each with its own pools: forte's pool is a
//! static that can only grow (see `forte_grow`), so groups reopen once per pass.
//!
//! Run: `cargo bench --bench suite` (a few minutes), or e.g. `cargo bench --bench suite -- fib36`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, SamplingMode,
};

#[path = "../examples/common/suite.rs"]
mod suite;
use suite::*;

const FIB_N: u64 = 36;
const NQUEENS_N: usize = 12;
const MATMUL_N: usize = 1024;
const TREE_LAYERS: u32 = 23;
const TINY_JOINS: u64 = 200_000;

struct Pools {
    threads: usize,
    forkjoin: forkjoin::ThreadPool,
    rayon: rayon::ThreadPool,
    chili: chili::ThreadPool,
}

/// Inputs built once and shared by both passes.
struct Inputs {
    tree: Box<Node>,
    a: Vec<i32>,
    b: Vec<i32>,
    product: Vec<i32>,
}

/// Groups of whole runs (milliseconds each): flat sampling, 10 samples.
fn whole_runs<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    g
}

/// Groups timed per call or per join.
fn per_call<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(700));
    g
}

fn id(runtime: &str, p: &Pools) -> BenchmarkId {
    BenchmarkId::new(runtime, p.threads)
}

/// `f`'s wall time.
fn timed<R>(f: impl FnOnce() -> R) -> Duration {
    let start = Instant::now();
    black_box(f());
    start.elapsed()
}

fn bench_fib(c: &mut Criterion, p: &Pools, seq: bool) {
    let expected = fib_seq(FIB_N);
    assert_eq!(p.forkjoin.install(|| fib_forkjoin(FIB_N)), expected);
    assert_eq!(p.rayon.install(|| fib_rayon(FIB_N)), expected);
    assert_eq!(fib_chili(&mut p.chili.scope(), FIB_N), expected);
    assert_eq!(FORTE.with_worker(|w| fib_forte(w, FIB_N)), expected);
    let mut g = whole_runs(c, "fib36");
    if seq {
        g.bench_function("sequential", |b| b.iter(|| fib_seq(black_box(FIB_N))));
    }
    g.bench_function(id("forkjoin", p), |b| {
        b.iter(|| p.forkjoin.install(|| fib_forkjoin(black_box(FIB_N))))
    });
    g.bench_function(id("rayon", p), |b| {
        b.iter(|| p.rayon.install(|| fib_rayon(black_box(FIB_N))))
    });
    g.bench_function(id("chili", p), |b| {
        let mut s = p.chili.scope();
        b.iter(|| fib_chili(&mut s, black_box(FIB_N)))
    });
    g.bench_function(id("forte", p), |b| {
        FORTE.with_worker(|w| b.iter(|| fib_forte(w, black_box(FIB_N))))
    });
    g.finish();
}

fn bench_skynet(c: &mut Criterion, p: &Pools, seq: bool) {
    let (n, expected) = (SKYNET_LEAVES, skynet_expected(SKYNET_LEAVES));
    assert_eq!(p.forkjoin.install(|| skynet_forkjoin(0, n)), expected);
    assert_eq!(p.rayon.install(|| skynet_rayon(0, n)), expected);
    assert_eq!(skynet_chili(&mut p.chili.scope(), 0, n), expected);
    assert_eq!(FORTE.with_worker(|w| skynet_forte(w, 0, n)), expected);
    let mut g = whole_runs(c, "skynet1e7");
    if seq {
        g.bench_function("sequential", |b| b.iter(|| skynet_seq(0, black_box(n))));
    }
    g.bench_function(id("forkjoin", p), |b| {
        b.iter(|| p.forkjoin.install(|| skynet_forkjoin(0, black_box(n))))
    });
    g.bench_function(id("rayon", p), |b| {
        b.iter(|| p.rayon.install(|| skynet_rayon(0, black_box(n))))
    });
    g.bench_function(id("chili", p), |b| {
        let mut s = p.chili.scope();
        b.iter(|| skynet_chili(&mut s, 0, black_box(n)))
    });
    g.bench_function(id("forte", p), |b| {
        FORTE.with_worker(|w| b.iter(|| skynet_forte(w, 0, black_box(n))))
    });
    g.finish();
}

fn bench_nqueens(c: &mut Criterion, p: &Pools, seq: bool) {
    const N: usize = NQUEENS_N;
    let expected = nqueens_expected(N);
    let board = [0i8; N];
    assert_eq!(p.forkjoin.install(|| nqueens_forkjoin(0, board)), expected);
    assert_eq!(p.rayon.install(|| nqueens_rayon(0, board)), expected);
    assert_eq!(nqueens_chili(&mut p.chili.scope(), 0, board), expected);
    assert_eq!(FORTE.with_worker(|w| nqueens_forte(w, 0, board)), expected);
    let mut g = whole_runs(c, "nqueens12");
    if seq {
        g.bench_function("sequential", |b| {
            b.iter(|| nqueens_seq(0, black_box(board)))
        });
    }
    g.bench_function(id("forkjoin", p), |b| {
        b.iter(|| p.forkjoin.install(|| nqueens_forkjoin(0, black_box(board))))
    });
    g.bench_function(id("rayon", p), |b| {
        b.iter(|| p.rayon.install(|| nqueens_rayon(0, black_box(board))))
    });
    g.bench_function(id("chili", p), |b| {
        let mut s = p.chili.scope();
        b.iter(|| nqueens_chili(&mut s, 0, black_box(board)))
    });
    g.bench_function(id("forte", p), |b| {
        FORTE.with_worker(|w| b.iter(|| nqueens_forte(w, 0, black_box(board))))
    });
    g.finish();
}

/// `c` is zeroed before every run, outside the timing (the products accumulate into it).
fn bench_matmul(c: &mut Criterion, p: &Pools, seq: bool, inputs: &Inputs) {
    let (a, b, product) = (&inputs.a[..], &inputs.b[..], &inputs.product);
    let mut out = vec![0; MATMUL_N * MATMUL_N];
    let mut check = |name: &str, run: &mut dyn FnMut(&mut [i32])| {
        out.fill(0);
        run(&mut out);
        assert!(out == *product, "{name} matmul is wrong");
    };
    check("forkjoin", &mut |c| {
        p.forkjoin.install(|| matmul_forkjoin(c, a, b))
    });
    check("rayon", &mut |c| p.rayon.install(|| matmul_rayon(c, a, b)));
    check("chili", &mut |c| {
        matmul_chili(&mut p.chili.scope(), c, a, b)
    });
    check("forte", &mut |c| {
        FORTE.with_worker(|_| matmul_forte(c, a, b))
    });

    let mut g = whole_runs(c, "matmul1024");
    let mut iter_zeroed = |iters: u64, run: &mut dyn FnMut(&mut [i32])| {
        (0..iters)
            .map(|_| {
                out.fill(0);
                timed(|| run(black_box(&mut out)))
            })
            .sum()
    };
    if seq {
        g.bench_function("sequential", |bn| {
            bn.iter_custom(|iters| iter_zeroed(iters, &mut |c| matmul_seq(c, a, b)))
        });
    }
    g.bench_function(id("forkjoin", p), |bn| {
        bn.iter_custom(|iters| {
            iter_zeroed(iters, &mut |c| {
                p.forkjoin.install(|| matmul_forkjoin(c, a, b))
            })
        })
    });
    g.bench_function(id("rayon", p), |bn| {
        bn.iter_custom(|iters| {
            iter_zeroed(iters, &mut |c| p.rayon.install(|| matmul_rayon(c, a, b)))
        })
    });
    g.bench_function(id("chili", p), |bn| {
        let mut s = p.chili.scope();
        bn.iter_custom(|iters| iter_zeroed(iters, &mut |c| matmul_chili(&mut s, c, a, b)))
    });
    g.bench_function(id("forte", p), |bn| {
        FORTE.with_worker(|_| {
            bn.iter_custom(|iters| iter_zeroed(iters, &mut |c| matmul_forte(c, a, b)))
        })
    });
    g.finish();
}

fn bench_tree<const LEFT_FIRST: bool>(c: &mut Criterion, p: &Pools, seq: bool, tree: &Node) {
    let expected = (1u64 << TREE_LAYERS) - 1;
    assert_eq!(
        p.forkjoin.install(|| tree_sum_forkjoin::<LEFT_FIRST>(tree)),
        expected
    );
    assert_eq!(
        p.rayon.install(|| tree_sum_rayon::<LEFT_FIRST>(tree)),
        expected
    );
    assert_eq!(
        tree_sum_chili::<LEFT_FIRST>(&mut p.chili.scope(), tree),
        expected
    );
    assert_eq!(
        FORTE.with_worker(|w| tree_sum_forte::<LEFT_FIRST>(w, tree)),
        expected
    );
    let name = if LEFT_FIRST {
        "tree_sum/left_first"
    } else {
        "tree_sum/right_first"
    };
    let mut g = whole_runs(c, name);
    if seq {
        g.bench_function("sequential", |b| {
            b.iter(|| tree_sum_seq::<LEFT_FIRST>(black_box(tree)))
        });
    }
    g.bench_function(id("forkjoin", p), |b| {
        b.iter(|| {
            p.forkjoin
                .install(|| tree_sum_forkjoin::<LEFT_FIRST>(black_box(tree)))
        })
    });
    g.bench_function(id("rayon", p), |b| {
        b.iter(|| {
            p.rayon
                .install(|| tree_sum_rayon::<LEFT_FIRST>(black_box(tree)))
        })
    });
    g.bench_function(id("chili", p), |b| {
        let mut s = p.chili.scope();
        b.iter(|| tree_sum_chili::<LEFT_FIRST>(&mut s, black_box(tree)))
    });
    g.bench_function(id("forte", p), |b| {
        FORTE.with_worker(|w| b.iter(|| tree_sum_forte::<LEFT_FIRST>(w, black_box(tree))))
    });
    g.finish();
}

/// Per call: criterion's `iters` calls back to back inside one `install`.
fn bench_iter(c: &mut Criterion, p: &Pools, seq: bool) {
    assert_eq!(
        p.forkjoin.install(|| iter_small_forkjoin(100)),
        100 * ITER_SMALL_EXPECTED
    );
    assert_eq!(
        p.rayon.install(|| iter_small_rayon(100)),
        100 * ITER_SMALL_EXPECTED
    );
    let mut g = per_call(c, "iter_small");
    if seq {
        g.bench_function("sequential", |b| {
            b.iter_custom(|iters| {
                timed(|| assert_eq!(iter_small_seq(iters), iters * ITER_SMALL_EXPECTED))
            })
        });
    }
    g.bench_function(id("forkjoin", p), |b| {
        b.iter_custom(|iters| p.forkjoin.install(|| timed(|| iter_small_forkjoin(iters))))
    });
    g.bench_function(id("rayon", p), |b| {
        b.iter_custom(|iters| p.rayon.install(|| timed(|| iter_small_rayon(iters))))
    });
    g.finish();

    let n = ITER_SUM_N;
    let one = n * (n - 1) / 2;
    assert_eq!(
        p.forkjoin.install(|| iter_sum_forkjoin(3, n)),
        one.wrapping_mul(3)
    );
    assert_eq!(
        p.rayon.install(|| iter_sum_rayon(3, n)),
        one.wrapping_mul(3)
    );
    let mut g = per_call(c, "iter_sum");
    if seq {
        g.bench_function("sequential", |b| {
            b.iter_custom(|iters| timed(|| iter_sum_seq(iters, n)))
        });
    }
    g.bench_function(id("forkjoin", p), |b| {
        b.iter_custom(|iters| p.forkjoin.install(|| timed(|| iter_sum_forkjoin(iters, n))))
    });
    g.bench_function(id("rayon", p), |b| {
        b.iter_custom(|iters| p.rayon.install(|| timed(|| iter_sum_rayon(iters, n))))
    });
    g.finish();
}

/// Per join: criterion's `iters` joins in one flat loop (inside one `install` / scope / worker).
fn bench_tiny_joins(c: &mut Criterion, p: &Pools, seq: bool) {
    let expected = tiny_joins_expected(TINY_JOINS);
    assert_eq!(
        p.forkjoin.install(|| tiny_joins_forkjoin(TINY_JOINS)),
        expected
    );
    assert_eq!(p.rayon.install(|| tiny_joins_rayon(TINY_JOINS)), expected);
    assert_eq!(tiny_joins_chili(&mut p.chili.scope(), TINY_JOINS), expected);
    assert_eq!(
        FORTE.with_worker(|w| tiny_joins_forte(w, TINY_JOINS)),
        expected
    );
    let mut g = per_call(c, "tiny_joins");
    if seq {
        g.bench_function("sequential", |b| {
            b.iter_custom(|iters| timed(|| tiny_joins_seq(iters)))
        });
    }
    g.bench_function(id("forkjoin", p), |b| {
        b.iter_custom(|iters| p.forkjoin.install(|| timed(|| tiny_joins_forkjoin(iters))))
    });
    g.bench_function(id("rayon", p), |b| {
        b.iter_custom(|iters| p.rayon.install(|| timed(|| tiny_joins_rayon(iters))))
    });
    g.bench_function(id("chili", p), |b| {
        b.iter_custom(|iters| {
            let mut s = p.chili.scope();
            timed(|| black_box(tiny_joins_chili(&mut s, iters)))
        })
    });
    g.bench_function(id("forte", p), |b| {
        b.iter_custom(|iters| {
            FORTE.with_worker(|w| timed(|| black_box(tiny_joins_forte(w, iters))))
        })
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    let a = mm_matrix(MATMUL_N, 0x9E37_79B9_7F4A_7C15);
    let b = mm_matrix(MATMUL_N, 0xD1B5_4A32_D192_ED03);
    let mut product = vec![0; MATMUL_N * MATMUL_N];
    matmul_seq(&mut product, &a, &b);
    assert!(
        mm_spot_check(MATMUL_N, &product, &a, &b),
        "sequential matmul is wrong"
    );
    let inputs = Inputs {
        tree: Node::tree(TREE_LAYERS),
        a,
        b,
        product,
    };
    assert_eq!(
        tree_sum_seq::<true>(&inputs.tree),
        (1u64 << TREE_LAYERS) - 1
    );
    assert_eq!(
        nqueens_seq(0, [0i8; NQUEENS_N]),
        nqueens_expected(NQUEENS_N)
    );

    for threads in [1, 2] {
        forte_grow(threads);
        let p = Pools {
            threads,
            forkjoin: forkjoin_pool(threads),
            rayon: rayon_pool(threads),
            chili: chili_pool(threads),
        };
        let seq = threads == 1;
        bench_fib(c, &p, seq);
        bench_skynet(c, &p, seq);
        bench_nqueens(c, &p, seq);
        bench_matmul(c, &p, seq, &inputs);
        bench_tree::<true>(c, &p, seq, &inputs.tree);
        bench_tree::<false>(c, &p, seq, &inputs.tree);
        bench_iter(c, &p, seq);
        bench_tiny_joins(c, &p, seq);
    }
}

criterion_group!(suite_benches, benches);
criterion_main!(suite_benches);
