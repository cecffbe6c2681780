//! Predicts how the suite's shapes scale: the real pool, under shuttle in the simulation's timing
//! mode (`forkjoin::__sim`: one virtual clock per thread, operations charged at the costs measured
//! by `examples/calibrate.rs`), at a given number of virtual cores (pool threads = cores). Each leaf
//! of a shape charges the sequential time of one leaf of the real suite on the development VM
//! instead of computing, so a prediction costs scheduling steps, not the work itself.
//!
//! Run it through `scripts/predict.sh [CORES] [SHAPES] [SEEDS] [--costs FILE] [--measured CSV]`,
//! which builds it with `--cfg forkjoin_shuttle`. Prints, per shape and core count,
//! `predict: SHAPE cores=P time_us=T speedup=S self_speedup=U steals=N`, where the speedup is the
//! sequential charge (every leaf's cost, what the sequential program would take) over the predicted
//! time and the self-speedup forkjoin's 1-thread charge over it, then the seed, shuttle's scheduling
//! steps and the real seconds the prediction took. With `--measured`, also the run's forkjoin time
//! at that count and the ratio of the two.
//!
//! `PREDICT_TRACE=FILE` records each prediction's pool in FILE (the trace of `docs/tracing.md`, in
//! virtual time; the last prediction's is what stays): which workers are busy when.
//! `PREDICT_LINES=N` prints, under each prediction, the N groups of shared cache lines that cost
//! busy workers most during the call (`forkjoin::__sim::line_profile`): where many cores lose time.
//!
//! The shapes mirror `examples/common/suite.rs` at its sizes, and the field's 64-thread comparison
//! at its own (`fib-39`, `skynet-1e8`, `nqueens-14`, `matmul-2048`): docs/testing.md, "Predicted
//! scaling", has the sizes, the leaf costs and their work ÷ span.

#[cfg(forkjoin_shuttle)]
mod predict {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use forkjoin::__sim::{
        line_profile, now_ns, work, work_ps, Charged, Costs, LineCharge, VirtualTimeScheduler,
    };
    use forkjoin::prelude::*;
    use shuttle::{Config, MaxSteps, Runner};

    /// What one leaf costs on the development VM (2 cores; docs/benchmarks.md, "Predicted scaling:
    /// the virtual-time simulator"), in picoseconds: `seq`, the sequential program's row over its
    /// leaves (the speedup's numerator); `par`, forkjoin's 1-thread row over its leaves, which the
    /// simulation charges on one core; and `busy`, the same leaf in a pool of more than one thread
    /// with nobody idle (`examples/suite.rs --busy`), charged from two cores on. forkjoin's leaf
    /// costs more than the sequential one by the plain code of an inline join or iterator step,
    /// which the model cannot see (it charges only the facade's operations); charging `par` or
    /// `busy` puts that code back, and a pool with company runs more of it (a small parallel
    /// call's batches and polls, which a pool of one skips). `--leaf SHAPE=SEQ:PAR[:BUSY]`
    /// replaces a shape's costs, `--measured` takes them from a run.
    #[derive(Clone, Copy, Debug)]
    struct Leaf {
        seq: u64,
        par: u64,
        busy: u64,
    }

    impl Leaf {
        /// What one leaf charges on `cores` cores.
        fn charge(&self, cores: usize) -> u64 {
            if cores == 1 {
                self.par
            } else {
                self.busy
            }
        }
    }

    /// fib(36): 27.7 ms sequential, 49.3 ms forkjoin on 1 thread, over 48,315,633 calls; the
    /// 1.02× on a busy pool (CPU time; docs/testing.md, "Shapes", has every shape's ratio).
    const FIB: Leaf = Leaf {
        seq: 573,
        par: 1_020,
        busy: 1_040,
    };
    /// skynet 1e7: 12.0 ms and 9.11 ms over 10^7 leaves (the inner nodes' sums folded in); 1.52×
    /// that on a busy pool, whose 1.1 M ten-item calls run their two batches as one fold with a
    /// poll inside (2.44× when they ran in three batches, 2.01× in two; the later figures scale the
    /// measured one by the instruction counts, docs/testing.md, "The busy leaf").
    const SKYNET: Leaf = Leaf {
        seq: 1_200,
        par: 911,
        busy: 1_388,
    };
    /// nqueens(12): 91.0 ms and 95.8 ms over 856,189 boards examined; 1.047× on a busy pool.
    const NQUEENS: Leaf = Leaf {
        seq: 106_285,
        par: 111_892,
        busy: 117_151,
    };
    /// matmul 1024: 120 ms and 123 ms over 32,768 multiplications of 32×32 blocks (a leaf of
    /// microseconds: a busy pool's extra polls are lost in it).
    const MATMUL: Leaf = Leaf {
        seq: 3_662_109,
        par: 3_753_662,
        busy: 3_753_662,
    };
    /// tree 2^23 left-first: 10.4 ms and 11.5 ms over 2^23 − 1 nodes; 0.974× on a busy pool.
    const TREE_LEFT: Leaf = Leaf {
        seq: 1_240,
        par: 1_371,
        busy: 1_335,
    };
    /// tree 2^23 right-first (against the allocation order): 29.9 ms and 32.5 ms; 1.116× on a
    /// busy pool.
    const TREE_RIGHT: Leaf = Leaf {
        seq: 3_564,
        par: 3_874,
        busy: 4_323,
    };

    /// Charges a leaf and counts it.
    struct Charge {
        /// Picoseconds per leaf ([`Leaf::charge`]).
        ps: u64,
        leaves: AtomicU64,
    }

    impl Charge {
        fn leaf(&self) {
            work_ps(self.ps);
            // A std atomic: not a scheduling point, not charged (the harness's bookkeeping).
            self.leaves.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A shape: its name on the command line, its default leaf costs, how many leaves it charges
    /// (what converts a measured time into a leaf cost, `--measured`), and its run.
    struct Shape {
        name: &'static str,
        leaf: Leaf,
        leaves: u64,
        run: fn(&Charge),
    }

    /// The suite's shapes (`examples/common/suite.rs`, at its sizes), then the field's sizes
    /// (tzcnt/runtime-benchmarks: fib(39), skynet with 10^8 leaves, nqueens(14), matmul 2048),
    /// which charge the suite's leaf costs per leaf (an nqueens board of 14 costs more than one of
    /// 12 by its longer checks: the leaf is the suite's, so the work is slightly under-charged).
    const SHAPES: [Shape; 10] = [
        Shape {
            name: "fib",
            leaf: FIB,
            leaves: 48_315_633,
            run: fib_36,
        },
        Shape {
            name: "skynet",
            leaf: SKYNET,
            leaves: 10_000_000,
            run: skynet_1e7,
        },
        Shape {
            name: "nqueens",
            leaf: NQUEENS,
            leaves: 856_189,
            run: nqueens_12,
        },
        Shape {
            name: "matmul",
            leaf: MATMUL,
            leaves: 32_768,
            run: matmul_1024,
        },
        Shape {
            name: "tree-left",
            leaf: TREE_LEFT,
            leaves: (1 << 23) - 1,
            run: tree_23,
        },
        Shape {
            name: "tree-right",
            leaf: TREE_RIGHT,
            leaves: (1 << 23) - 1,
            run: tree_23,
        },
        Shape {
            name: "fib-39",
            leaf: FIB,
            leaves: 204_668_309,
            run: fib_39,
        },
        Shape {
            name: "skynet-1e8",
            leaf: SKYNET,
            leaves: 100_000_000,
            run: skynet_1e8,
        },
        Shape {
            name: "nqueens-14",
            leaf: NQUEENS,
            leaves: 27_358_553,
            run: nqueens_14,
        },
        Shape {
            name: "matmul-2048",
            leaf: MATMUL,
            leaves: 262_144,
            run: matmul_2048,
        },
    ];

    /// What `scripts/predict.sh` runs without a list of shapes: the suite's.
    const DEFAULT_SHAPES: usize = 6;

    /// Side of matmul's leaf block.
    const MM_LEAF: usize = 32;

    fn fib_36(t: &Charge) {
        assert_eq!(fib(36, t), 14_930_352);
    }

    fn fib_39(t: &Charge) {
        assert_eq!(fib(39, t), 63_245_986);
    }

    fn skynet_1e7(t: &Charge) {
        const LEAVES: u64 = 10_000_000;
        assert_eq!(skynet(0, LEAVES, t), LEAVES * (LEAVES - 1) / 2);
    }

    fn skynet_1e8(t: &Charge) {
        const LEAVES: u64 = 100_000_000;
        assert_eq!(skynet(0, LEAVES, t), LEAVES * (LEAVES - 1) / 2);
    }

    fn nqueens_12(t: &Charge) {
        assert_eq!(nqueens(0, [0i8; 12], t), 14_200);
    }

    fn nqueens_14(t: &Charge) {
        assert_eq!(nqueens(0, [0i8; 14], t), 365_596);
    }

    fn matmul_1024(t: &Charge) {
        matmul(1024, t);
    }

    fn matmul_2048(t: &Charge) {
        matmul(2048, t);
    }

    fn tree_23(t: &Charge) {
        const LAYERS: u32 = 23;
        assert_eq!(tree(LAYERS, t), (1 << LAYERS) - 1);
    }

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

    /// One prediction's result.
    #[derive(Default, Clone)]
    struct Outcome {
        time_ns: u64,
        /// Leaves charged (each at the leaf's `par`; the sequential program takes `seq` each).
        leaves: u64,
        steals: u64,
        failed_steals: u64,
        sleeps: u64,
        steps: u64,
        clock_reads: u64,
        /// What the shared lines cost during `install` (with `PREDICT_LINES`).
        lines: Vec<LineCharge>,
    }

    fn predict(shape: &Shape, leaf: Leaf, costs: Costs, cores: usize, seed: u64) -> Outcome {
        let out = Arc::new(Mutex::new(Outcome::default()));
        let result = out.clone();
        let run = shape.run;
        let mut config = Config::new();
        config.silence_warnings = true;
        config.stack_size = 8 << 20;
        config.max_steps = MaxSteps::None;
        Runner::new(VirtualTimeScheduler::with_costs(seed, costs), config).run(move || {
            let mut builder = forkjoin::ThreadPoolBuilder::new()
                .num_threads(cores)
                .stack_size(1 << 20);
            if let Some(path) = std::env::var_os("PREDICT_TRACE") {
                builder = builder.trace_file(path);
            }
            let pool = builder.build().expect("pool");
            // As between the suite's rounds: the workers start, find nothing and fall asleep. The
            // main thread lets a millisecond pass (the yield lets the others run up to it).
            work(1_000_000);
            shuttle::thread::yield_now();
            let charge = Charge {
                ps: leaf.charge(cores),
                leaves: AtomicU64::new(0),
            };
            let before = pool.stats();
            let lines_before = line_profile();
            let start = now_ns().expect("timing mode");
            pool.install(|| run(&charge));
            let end = now_ns().expect("timing mode");
            let lines = lines_since(line_profile(), &lines_before);
            *result.lock().unwrap() = Outcome {
                time_ns: end - start,
                leaves: charge.leaves.load(Ordering::Relaxed),
                steals: pool.stats().steals - before.steals,
                failed_steals: pool.stats().failed_steals - before.failed_steals,
                sleeps: pool.stats().sleeps - before.sleeps,
                steps: forkjoin::__sim::counts().steps,
                clock_reads: forkjoin::__sim::counts().clock_reads,
                lines,
            };
            drop(pool);
        });
        let o = out.lock().unwrap().clone();
        assert_eq!(o.leaves, shape.leaves, "{}: leaves charged", shape.name);
        o
    }

    /// The profile `after` less what `before` had already charged, per label.
    fn lines_since(after: Vec<LineCharge>, before: &[LineCharge]) -> Vec<LineCharge> {
        let less = |a: Charged, b: Charged| Charged {
            accesses: a.accesses - b.accesses,
            transfers: a.transfers - b.transfers,
            ps: a.ps - b.ps,
            load_ps: a.load_ps - b.load_ps,
        };
        let mut rows: Vec<LineCharge> = after
            .into_iter()
            .map(|row| match before.iter().find(|b| b.label == row.label) {
                Some(b) => LineCharge {
                    busy: less(row.busy, b.busy),
                    idle: less(row.idle, b.idle),
                    ..row
                },
                None => row,
            })
            .collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.busy.ps));
        rows
    }

    /// Prints the first `n` rows of a line profile, under the prediction's line.
    fn print_lines(lines: &[LineCharge], n: usize) {
        let us = |ps: u64| ps as f64 / 1e6;
        let total = |f: fn(&LineCharge) -> u64| us(lines.iter().map(f).sum());
        println!(
            "  lines: all shared lines: busy {:.1} us, idle {:.1} us (summed over threads)",
            total(|r| r.busy.ps),
            total(|r| r.idle.ps)
        );
        for r in lines.iter().take(n) {
            println!(
                "  lines: {:<34} busy {:>9.1} us ({:>3.0} % loads, {:>8} transfers)  idle {:>9.1} us  \
                 ({} lines)",
                r.label,
                us(r.busy.ps),
                100.0 * r.busy.load_ps as f64 / r.busy.ps.max(1) as f64,
                r.busy.transfers,
                us(r.idle.ps),
                r.lines
            );
        }
    }

    fn list<T: std::str::FromStr>(s: &str) -> Result<Vec<T>, String> {
        s.split(',')
            .filter(|x| !x.is_empty())
            .map(|x| x.trim().parse().map_err(|_| format!("bad list item {x:?}")))
            .collect()
    }

    /// forkjoin's measured times of one `scripts/scale.sh` run, per shape and thread count, in
    /// nanoseconds, and the sequential program's at 1 thread.
    struct Measured {
        /// (shape, threads, runtime, ns)
        rows: Vec<(String, usize, String, f64)>,
    }

    impl Measured {
        fn read(file: &str) -> Result<Measured, String> {
            let text =
                std::fs::read_to_string(file).map_err(|e| format!("--measured {file}: {e}"))?;
            let mut rows = Vec::new();
            for line in text.lines().skip(1) {
                let f: Vec<&str> = line.split(',').collect();
                let (Some(key), Some(unit), Some(threads), Some(runtime), Some(median)) =
                    (f.first(), f.get(2), f.get(3), f.get(4), f.get(5))
                else {
                    return Err(format!("--measured {file}: short line {line:?}"));
                };
                let scale = match *unit {
                    "ms" => 1e6,
                    _ => continue, // per-call rows: not shapes of the simulator
                };
                let bad = || format!("--measured {file}: bad line {line:?}");
                rows.push((
                    key.to_string(),
                    threads.parse().map_err(|_| bad())?,
                    runtime.to_string(),
                    median.parse::<f64>().map_err(|_| bad())? * scale,
                ));
            }
            Ok(Measured { rows })
        }

        fn ns(&self, shape: &str, threads: usize, runtime: &str) -> Option<f64> {
            self.rows
                .iter()
                .find(|r| r.0 == shape && r.1 == threads && r.2 == runtime)
                .map(|r| r.3)
        }

        /// The leaf costs of the run's 1-thread rows (sequential, forkjoin) and of its busy-pool
        /// row at 2 threads (`suite --busy`); without one, the development VM's ratio of busy to
        /// 1-thread leaf (said on stderr).
        fn leaf(&self, shape: &Shape) -> Option<Leaf> {
            let per_leaf = |ns: f64| (ns * 1000.0 / shape.leaves as f64).round() as u64;
            let par = per_leaf(self.ns(shape.name, 1, "forkjoin")?);
            let busy = match self.ns(shape.name, 2, "forkjoin-busy") {
                Some(ns) => per_leaf(ns),
                None => {
                    let ratio = shape.leaf.busy as f64 / shape.leaf.par as f64;
                    eprintln!(
                        "predict: {}: no forkjoin-busy row; busy leaf = 1-thread leaf × {ratio:.2} \
                         (the development VM's)",
                        shape.name
                    );
                    (par as f64 * ratio).round() as u64
                }
            };
            Some(Leaf {
                seq: per_leaf(self.ns(shape.name, 1, "seq")?),
                par,
                busy,
            })
        }
    }

    pub fn main() -> Result<(), String> {
        let mut cores: Vec<usize> = vec![1, 2, 4, 8, 16, 64, 256];
        let mut shapes: Vec<&'static Shape> = SHAPES[..DEFAULT_SHAPES].iter().collect();
        let mut seeds: Vec<u64> = vec![0];
        let mut leaves: Vec<(String, Leaf)> = Vec::new();
        let mut costs = Costs::MEASURED;
        let mut measured = None;
        // PREDICT_LINES=N: the N shared lines that cost busy workers most, per prediction.
        let lines_shown: Option<usize> = std::env::var("PREDICT_LINES")
            .ok()
            .map(|n| {
                n.parse()
                    .map_err(|_| format!("PREDICT_LINES={n}: not a count"))
            })
            .transpose()?;
        forkjoin::__sim::profile_lines(lines_shown.is_some());
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
                        let known = SHAPES.iter().find(|k| k.name == s).ok_or_else(|| {
                            let names: Vec<&str> = SHAPES.iter().map(|k| k.name).collect();
                            format!("unknown shape {s}; known: {}", names.join(","))
                        })?;
                        shapes.push(known);
                    }
                }
                "--costs" => {
                    let file = value()?;
                    let text = std::fs::read_to_string(&file)
                        .map_err(|e| format!("--costs {file}: {e}"))?;
                    let (read, defaulted) = Costs::from_calibration(&text)
                        .map_err(|e| format!("--costs {file}: {e}"))?;
                    for row in defaulted {
                        eprintln!(
                            "predict: --costs {file} has no row `{row}`: charged the development \
                             VM's"
                        );
                    }
                    costs = read;
                }
                "--measured" => {
                    // Several files add up (a run's suite and its `--busy` rows).
                    let more = Measured::read(&value()?)?;
                    match &mut measured {
                        None => measured = Some(more),
                        Some(m) => m.rows.extend(more.rows),
                    }
                }
                "--leaf" => {
                    let v = value()?;
                    let bad = || format!("--leaf wants SHAPE=SEQ_PS:PAR_PS[:BUSY_PS], not {v}");
                    let (shape, costs) = v.split_once('=').ok_or_else(bad)?;
                    let ps: Vec<u64> = list(costs.replace(':', ",").as_str()).map_err(|_| bad())?;
                    let leaf = match ps[..] {
                        [seq, par] => Leaf {
                            seq,
                            par,
                            busy: par,
                        },
                        [seq, par, busy] => Leaf { seq, par, busy },
                        _ => return Err(bad()),
                    };
                    leaves.push((shape.to_string(), leaf));
                }
                _ => return Err(format!("unknown argument {a}")),
            }
        }
        for &shape in &shapes {
            // An explicit --leaf, else the measured run's 1-thread rows, else the defaults.
            let from_run = measured.as_ref().and_then(|m| m.leaf(shape));
            let leaf = leaves
                .iter()
                .rev()
                .find(|(s, _)| s == shape.name)
                .map(|l| l.1)
                .or(from_run)
                .unwrap_or(shape.leaf);
            for &p in &cores {
                for &seed in &seeds {
                    let started = Instant::now();
                    let o = predict(shape, leaf, costs, p, seed);
                    let time = o.time_ns.max(1) as f64;
                    // Both numerators are the leaves' charges: the sequential program's time and
                    // forkjoin's own 1-thread time (by construction of `par`).
                    let speedup = (o.leaves * leaf.seq) as f64 / 1000.0 / time;
                    let self_speedup = (o.leaves * leaf.par) as f64 / 1000.0 / time;
                    let versus = measured
                        .as_ref()
                        .and_then(|m| m.ns(shape.name, p, "forkjoin"))
                        .map_or(String::new(), |ns| {
                            format!(
                                " measured_us={:.1} predicted/measured={:.2}",
                                ns / 1000.0,
                                time / ns
                            )
                        });
                    println!(
                        "predict: {} cores={p} time_us={:.1} speedup={speedup:.2} \
                         self_speedup={self_speedup:.2} steals={}{versus} \
                         (failed {}, sleeps {}, clock reads {}; seed {seed}, {} steps, {:.1} s)",
                        shape.name,
                        time / 1000.0,
                        o.steals,
                        o.failed_steals,
                        o.sleeps,
                        o.clock_reads,
                        o.steps,
                        started.elapsed().as_secs_f64()
                    );
                    if let Some(n) = lines_shown {
                        print_lines(&o.lines, n);
                    }
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
                 [--costs FILE] [--measured CSV]... [--leaf SHAPE=SEQ_PS:PAR_PS[:BUSY_PS]]..."
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
