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

    /// What one leaf costs on the development VM (2 cores; docs/benchmarks.md, "Predicted scaling:
    /// the virtual-time simulator"), in picoseconds: `seq`, the sequential program's row over its leaves (the
    /// speedup's numerator), and `par`, forkjoin's 1-thread row over its leaves, which is what the
    /// simulation charges. forkjoin's leaf costs more than the sequential one by the plain code of
    /// an inline join or iterator step, which the model cannot see (it charges only the facade's
    /// operations); charging `par` puts that overhead back. `--leaf SHAPE=SEQ:PAR` replaces a
    /// shape's pair (the validation of other builds uses their own 1-thread rows).
    #[derive(Clone, Copy, Debug)]
    struct Leaf {
        seq: u64,
        par: u64,
    }

    /// fib(36): 27.7 ms sequential, 49.3 ms forkjoin on 1 thread, over 48,315,633 calls.
    const FIB: Leaf = Leaf {
        seq: 573,
        par: 1_020,
    };
    /// skynet 1e7: 12.0 ms and 9.11 ms over 10^7 leaves (the inner nodes' sums folded in).
    const SKYNET: Leaf = Leaf {
        seq: 1_200,
        par: 911,
    };
    /// nqueens(12): 91.0 ms and 95.8 ms over 856,189 boards examined.
    const NQUEENS: Leaf = Leaf {
        seq: 106_285,
        par: 111_892,
    };
    /// matmul 1024: 120 ms and 123 ms over 32,768 multiplications of 32×32 blocks.
    const MATMUL: Leaf = Leaf {
        seq: 3_662_109,
        par: 3_753_662,
    };
    /// tree 2^23 left-first: 10.4 ms and 11.5 ms over 2^23 − 1 nodes.
    const TREE_LEFT: Leaf = Leaf {
        seq: 1_240,
        par: 1_371,
    };
    /// tree 2^23 right-first (against the allocation order): 29.9 ms and 32.5 ms.
    const TREE_RIGHT: Leaf = Leaf {
        seq: 3_564,
        par: 3_874,
    };

    /// A shape's default leaf costs.
    fn default_leaf(shape: &str) -> Leaf {
        match shape {
            "fib" => FIB,
            "skynet" => SKYNET,
            "nqueens" => NQUEENS,
            "matmul" => MATMUL,
            "tree-left" => TREE_LEFT,
            _ => TREE_RIGHT,
        }
    }

    /// Charges a leaf and counts its sequential cost.
    struct Charge {
        leaf: Leaf,
        seq_total: AtomicU64,
    }

    impl Charge {
        fn leaf(&self) {
            work_ps(self.leaf.par);
            // A std atomic: not a scheduling point, not charged (the harness's bookkeeping).
            self.seq_total.fetch_add(self.leaf.seq, Ordering::Relaxed);
        }
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

    fn fib(n: u64, t: &Charge) -> u64 {
        t.leaf();
        if n < 2 {
            return n;
        }
        let (a, b) = forkjoin::join(|| fib(n - 1, t), || fib(n - 2, t));
        a + b
    }

    fn skynet(base: u64, size: u64, t: &Charge) -> u64 {
        if size == 1 {
            t.leaf();
            return base;
        }
        let offset = size / 10;
        (0..10u64)
            .into_par_iter()
            .map(|i| skynet(base + offset * i, offset, t))
            .sum()
    }

    fn nqueens<const N: usize>(x: usize, b: [i8; N], t: &Charge) -> u64 {
        t.leaf();
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
    fn matmul(n: usize, t: &Charge) {
        if n <= MM_LEAF {
            t.leaf();
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
    fn tree(layers: u32, t: &Charge) -> u64 {
        if layers == 0 {
            return 0;
        }
        t.leaf();
        let (a, b) = forkjoin::join(|| tree(layers - 1, t), || tree(layers - 1, t));
        1 + a + b
    }

    fn run_shape(shape: &str, t: &Charge) {
        match shape {
            "fib" => assert_eq!(fib(FIB_N, t), 14_930_352),
            "skynet" => assert_eq!(
                skynet(0, SKYNET_LEAVES, t),
                SKYNET_LEAVES * (SKYNET_LEAVES - 1) / 2
            ),
            "nqueens" => assert_eq!(nqueens(0, [0i8; NQUEENS_N], t), 14_200),
            "matmul" => matmul(MATMUL_N, t),
            "tree-left" | "tree-right" => assert_eq!(tree(TREE_LAYERS, t), (1 << TREE_LAYERS) - 1),
            _ => unreachable!("shapes are checked in main"),
        }
    }

    /// One prediction's result.
    #[derive(Default, Clone, Copy)]
    struct Outcome {
        time_ns: u64,
        /// The sequential program's time: the leaves' `seq` costs.
        seq_ps: u64,
        steals: u64,
        failed_steals: u64,
        sleeps: u64,
        steps: u64,
    }

    fn predict(shape: &'static str, leaf: Leaf, cores: usize, seed: u64) -> Outcome {
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
            let charge = Charge {
                leaf,
                seq_total: AtomicU64::new(0),
            };
            let before = pool.stats();
            let start = now_ns().expect("timing mode");
            pool.install(|| run_shape(shape, &charge));
            let end = now_ns().expect("timing mode");
            *result.lock().unwrap() = Outcome {
                time_ns: end - start,
                seq_ps: charge.seq_total.load(Ordering::Relaxed),
                steals: pool.stats().steals - before.steals,
                failed_steals: pool.stats().failed_steals - before.failed_steals,
                sleeps: pool.stats().sleeps - before.sleeps,
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
        let mut leaves: Vec<(String, Leaf)> = Vec::new();
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
                "--leaf" => {
                    let v = value()?;
                    let bad = || format!("--leaf wants SHAPE=SEQ_PS:PAR_PS, not {v}");
                    let (shape, costs) = v.split_once('=').ok_or_else(bad)?;
                    let (seq, par) = costs.split_once(':').ok_or_else(bad)?;
                    let leaf = Leaf {
                        seq: seq.parse().map_err(|_| bad())?,
                        par: par.parse().map_err(|_| bad())?,
                    };
                    leaves.push((shape.to_string(), leaf));
                }
                _ => return Err(format!("unknown argument {a}")),
            }
        }
        for &shape in &shapes {
            let leaf = leaves
                .iter()
                .rev()
                .find(|(s, _)| s == shape)
                .map_or(default_leaf(shape), |l| l.1);
            for &p in &cores {
                for &seed in &seeds {
                    let started = Instant::now();
                    let o = predict(shape, leaf, p, seed);
                    let speedup = o.seq_ps as f64 / 1000.0 / o.time_ns.max(1) as f64;
                    println!(
                        "predict: {shape} cores={p} time_us={:.1} speedup={speedup:.2} steals={} \
                         (failed {}, sleeps {}; seed {seed}, {} steps, {:.1} s)",
                        o.time_ns as f64 / 1000.0,
                        o.steals,
                        o.failed_steals,
                        o.sleeps,
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
            eprintln!(
                "usage: predict [--cores 1,2,4] [--shapes fib,skynet] [--seeds 0,1,2] \
                 [--leaf SHAPE=SEQ_PS:PAR_PS]..."
            );
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
