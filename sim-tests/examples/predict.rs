//! Predicts how the suite's shapes scale: the real pool, under shuttle in the simulation's timing
//! mode (`forkjoin::__sim`: one virtual clock per thread, operations charged at the costs measured
//! by `examples/calibrate.rs`), at a given number of virtual cores (pool threads = cores). Each leaf
//! of a shape charges the sequential time of one leaf of the real suite on the development VM
//! instead of computing, so a prediction costs scheduling steps, not the work itself.
//!
//! Run it through `scripts/predict.sh [CORES] [SHAPES] [SEEDS]`, which builds it with
//! `--cfg forkjoin_shuttle`. Prints, per shape and core count,
//! `predict: SHAPE cores=P time_us=T speedup=S steals=N`, where the speedup is the sequential charge
//! (every leaf's cost, what the sequential program would take) over the predicted time, then the
//! seed, shuttle's scheduling steps and the real seconds the prediction took.
//!
//! The shapes mirror `examples/common/suite.rs` at sizes the simulator can afford (each fork costs
//! tens of scheduling steps): docs/testing.md, "Predicted scaling", has the sizes, the leaf costs
//! and their work ÷ span.

#[cfg(forkjoin_shuttle)]
mod predict {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use forkjoin::__sim::{now_ns, work, work_ps, VirtualTimeScheduler};
    use forkjoin::prelude::*;
    use shuttle::{Config, MaxSteps, Runner};

    /// Sequential cost of one leaf on the development VM (2 cores, docs/benchmarks.md, "The standard
    /// fork-join suite"): the sequential row's time over its leaves, in picoseconds.
    mod leaf_ps {
        /// fib(36): 27.7 ms over 48,315,633 calls.
        pub const FIB: u64 = 573;
        /// skynet 1e7: 12.0 ms over 10^7 leaves (the inner nodes' sums folded in).
        pub const SKYNET: u64 = 1_200;
        /// nqueens(12): 91.0 ms over 856,189 boards examined.
        pub const NQUEENS: u64 = 106_000;
        /// matmul 1024: 120 ms over 32,768 multiplications of 32×32 blocks.
        pub const MATMUL: u64 = 3_662_000;
        /// tree 2^23 left-first: 10.4 ms over 2^23 − 1 nodes.
        pub const TREE_LEFT: u64 = 1_240;
        /// tree 2^23 right-first: 29.9 ms over 2^23 − 1 nodes (against the allocation order).
        pub const TREE_RIGHT: u64 = 3_564;
    }

    /// The simulated sizes (see the module docs).
    const FIB_N: u64 = 36;
    const SKYNET_LEAVES: u64 = 10_000_000;
    const NQUEENS_N: usize = 12;
    const MATMUL_N: usize = 1024;
    const MM_LEAF: usize = 32;
    const TREE_LAYERS: u32 = 23;

    pub const SHAPES: [&str; 6] = [
        "fib",
        "skynet",
        "nqueens",
        "matmul",
        "tree-left",
        "tree-right",
    ];

    /// Charges `ps` to the calling virtual thread and counts it into the sequential charge.
    fn leaf(total: &AtomicU64, ps: u64) {
        work_ps(ps);
        // A std atomic: not a scheduling point, not charged (bookkeeping of the harness).
        total.fetch_add(ps, Ordering::Relaxed);
    }

    fn fib(n: u64, t: &AtomicU64) -> u64 {
        leaf(t, leaf_ps::FIB);
        if n < 2 {
            return n;
        }
        let (a, b) = forkjoin::join(|| fib(n - 1, t), || fib(n - 2, t));
        a + b
    }

    fn skynet(base: u64, size: u64, t: &AtomicU64) -> u64 {
        if size == 1 {
            leaf(t, leaf_ps::SKYNET);
            return base;
        }
        let offset = size / 10;
        (0..10u64)
            .into_par_iter()
            .map(|i| skynet(base + offset * i, offset, t))
            .sum()
    }

    fn nqueens<const N: usize>(x: usize, b: [i8; N], t: &AtomicU64) -> u64 {
        leaf(t, leaf_ps::NQUEENS);
        if x == N {
            return 1;
        }
        let placed = &b[..x];
        let children: Vec<[i8; N]> = (0..N as i8)
            .filter(|&y| {
                placed
                    .iter()
                    .enumerate()
                    .all(|(i, &q)| q != y && (q - y).unsigned_abs() as usize != x - i)
            })
            .map(|y| {
                let mut c = b;
                c[x] = y;
                c
            })
            .collect();
        children.into_par_iter().map(|b| nqueens(x + 1, b, t)).sum()
    }

    /// The suite's quadrant recursion (two `scope`s of four `spawn`s per level) on a matrix of side
    /// `n`; a 32×32 leaf block charges its multiplication instead of doing it.
    fn matmul(n: usize, t: &AtomicU64) {
        if n <= MM_LEAF {
            leaf(t, leaf_ps::MATMUL);
            return;
        }
        for _phase in 0..2 {
            forkjoin::scope(|s| {
                for _quadrant in 0..4 {
                    s.spawn(|_| matmul(n / 2, t));
                }
            });
        }
    }

    /// The suite's tree sum with a join at every node, leaves included (their children are absent:
    /// `map_or(0, ..)`). No tree is allocated: the walk order only changes the charge, as memory is
    /// not modelled.
    fn tree(layers: u32, ps: u64, t: &AtomicU64) -> u64 {
        if layers == 0 {
            return 0;
        }
        leaf(t, ps);
        let (a, b) = forkjoin::join(|| tree(layers - 1, ps, t), || tree(layers - 1, ps, t));
        1 + a + b
    }

    fn run_shape(shape: &str, t: &AtomicU64) {
        match shape {
            "fib" => assert_eq!(fib(FIB_N, t), 14_930_352),
            "skynet" => assert_eq!(
                skynet(0, SKYNET_LEAVES, t),
                SKYNET_LEAVES * (SKYNET_LEAVES - 1) / 2
            ),
            "nqueens" => assert_eq!(nqueens(0, [0i8; NQUEENS_N], t), 14_200),
            "matmul" => matmul(MATMUL_N, t),
            "tree-left" => assert_eq!(
                tree(TREE_LAYERS, leaf_ps::TREE_LEFT, t),
                (1 << TREE_LAYERS) - 1
            ),
            "tree-right" => assert_eq!(
                tree(TREE_LAYERS, leaf_ps::TREE_RIGHT, t),
                (1 << TREE_LAYERS) - 1
            ),
            _ => unreachable!("shapes are checked in main"),
        }
    }

    /// One prediction's result.
    #[derive(Default, Clone, Copy)]
    struct Outcome {
        time_ns: u64,
        work_ps: u64,
        steals: u64,
        steps: u64,
    }

    fn predict(shape: &'static str, cores: usize, seed: u64) -> Outcome {
        let out = Arc::new(Mutex::new(Outcome::default()));
        let result = out.clone();
        let mut config = Config::new();
        config.silence_warnings = true;
        config.stack_size = 8 << 20;
        config.max_steps = MaxSteps::None;
        Runner::new(VirtualTimeScheduler::new(seed), config).run(move || {
            let pool = forkjoin::ThreadPoolBuilder::new()
                .num_threads(cores)
                .stack_size(1 << 20)
                .build()
                .expect("pool");
            // As between the suite's rounds: the workers start, find nothing and fall asleep. The
            // main thread lets a millisecond pass (the yield lets the others run up to it).
            work(1_000_000);
            shuttle::thread::yield_now();
            let total = AtomicU64::new(0);
            let steals = pool.stats().steals;
            let start = now_ns().expect("timing mode");
            pool.install(|| run_shape(shape, &total));
            let end = now_ns().expect("timing mode");
            *result.lock().unwrap() = Outcome {
                time_ns: end - start,
                work_ps: total.load(Ordering::Relaxed),
                steals: pool.stats().steals - steals,
                steps: forkjoin::__sim::counts().steps,
            };
            drop(pool);
        });
        let o = *out.lock().unwrap();
        o
    }

    fn list<T: std::str::FromStr>(s: &str) -> Result<Vec<T>, String> {
        s.split(',')
            .filter(|x| !x.is_empty())
            .map(|x| x.trim().parse().map_err(|_| format!("bad list item {x:?}")))
            .collect()
    }

    pub fn main() -> Result<(), String> {
        let mut cores: Vec<usize> = vec![1, 2, 4, 8, 16, 64, 256];
        let mut shapes: Vec<&'static str> = SHAPES.to_vec();
        let mut seeds: Vec<u64> = vec![0];
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            let mut value = || args.next().ok_or(format!("{a} needs a value"));
            match a.as_str() {
                "--cores" => cores = list(&value()?)?,
                "--seeds" => seeds = list(&value()?)?,
                "--shapes" => {
                    let v = value()?;
                    shapes = Vec::new();
                    for s in v.split(',').filter(|s| !s.is_empty()) {
                        let known = SHAPES.iter().find(|k| **k == s);
                        shapes.push(known.ok_or(format!("unknown shape {s}; known: {SHAPES:?}"))?);
                    }
                }
                _ => return Err(format!("unknown argument {a}")),
            }
        }
        for &shape in &shapes {
            for &p in &cores {
                for &seed in &seeds {
                    let started = Instant::now();
                    let o = predict(shape, p, seed);
                    let speedup = o.work_ps as f64 / 1000.0 / o.time_ns.max(1) as f64;
                    println!(
                        "predict: {shape} cores={p} time_us={:.1} speedup={speedup:.2} steals={} \
                         (seed {seed}, {} steps, {:.1} s)",
                        o.time_ns as f64 / 1000.0,
                        o.steals,
                        o.steps,
                        started.elapsed().as_secs_f64()
                    );
                }
            }
        }
        Ok(())
    }
}

fn main() -> std::process::ExitCode {
    #[cfg(forkjoin_shuttle)]
    {
        if let Err(e) = predict::main() {
            eprintln!("predict: {e}");
            eprintln!("usage: predict [--cores 1,2,4] [--shapes fib,skynet] [--seeds 0,1,2]");
            return std::process::ExitCode::FAILURE;
        }
        std::process::ExitCode::SUCCESS
    }
    #[cfg(not(forkjoin_shuttle))]
    {
        eprintln!("predict: build with RUSTFLAGS=\"--cfg forkjoin_shuttle\" (scripts/predict.sh)");
        std::process::ExitCode::FAILURE
    }
}
