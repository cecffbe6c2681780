//! Cancellation latency at many cores, predicted: the real pool under shuttle in the simulation's
//! timing mode (`forkjoin::__sim`, docs/testing.md "Predicted scaling"), the virtual time from
//! `token.cancel()` to `cancellable` returning. The real-thread counterpart is
//! `examples/cancel_latency.rs`.
//!
//! ```sh
//! scripts/cancel-latency.sh [CORES] [SHAPES] [SEEDS]      # builds with --cfg forkjoin_shuttle
//! ```
//!
//! Shapes, as on real threads but with leaves that charge virtual work instead of computing:
//!
//! - `iter`: `(0..u64::MAX).into_par_iter().map(..).sum()`, 1 ns an item;
//! - `join`: fib(46), a `join` at every call, each call charging fib's 1-thread leaf (1.02 ns);
//! - `scope`: a tree of scope jobs, each 1 µs and then 10 more `spawn`s, 6 levels (1.1 M jobs);
//! - `scope-flat`: a scope whose body spawns 20,000 jobs of 1 µs in a loop (100,000 on real threads).
//!
//! Each run builds a pool of P threads (P virtual cores), lets the workers fall asleep (a virtual
//! millisecond, as in `predict.rs`), then calls `pool.cancellable` from the main thread. `outside`:
//! a shuttle thread of its own charges `--run-us` of waiting, reads its clock and cancels. `inside`:
//! the first sample point (every 2^16 items, each fib(16) call, each scope job) that finds its
//! clock past the same moment reads it and cancels. The main thread reads its clock when
//! `cancellable` returns. Prints, per shape, canceller, core count and seed,
//! `cancel: SHAPE from=WHO cores=P latency_us=L (cancel at C us, returned at R us; seed, steps, real
//! seconds)`, times from the call.
//!
//! The model's one wake-up is its futex wake-to-run cost, 1.891 µs (`costs.rs`). The model charges
//! unwinding per frame (a raise, then each frame between it and the catch: `docs/testing.md`,
//! "Unwinding") but no other plain code, and a raise as if the unwinder's tables were in the caches.

#[cfg(forkjoin_shuttle)]
mod cancel_latency {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use forkjoin::__sim::{now_ns, work, work_ps, VirtualTimeScheduler};
    use forkjoin::prelude::*;
    use forkjoin::CancelToken;
    use shuttle::{Config, MaxSteps, Runner};

    pub const SHAPES: [&str; 4] = ["iter", "join", "scope", "scope-flat"];
    pub const FROM: [&str; 2] = ["outside", "inside"];

    /// `iter`: an item's charge, and how often it samples the clock (`inside`).
    const ITEM_PS: u64 = 1_000;
    const ITER_SAMPLE: u64 = (1 << 16) - 1;
    /// `join`: fib's 1-thread leaf on the 2-core VM (`predict.rs`), and the size that samples.
    const FIB_N: u32 = 46;
    const FIB_PS: u64 = 1_020;
    const FIB_SAMPLE_N: u32 = 16;
    /// The scope shapes: a job's charge, the tree's fan-out and depth, the flat body's spawns.
    const JOB_NS: u64 = 1_000;
    const TREE_FANOUT: usize = 10;
    const TREE_DEPTH: u32 = 6;
    /// A fifth of the real-thread example's: a spawn costs the simulator ~30 scheduling steps, and
    /// at 64 cores the body's remaining spawns are most of the latency (see the module docs).
    const FLAT_JOBS: usize = 20_000;

    /// The inside canceller: the first sample point past `at` (virtual ns) cancels. Its fields
    /// are std atomics: the harness's bookkeeping, not scheduling points, not charged.
    struct Inside<'a> {
        token: &'a CancelToken,
        at: u64,
        fired: AtomicBool,
        /// The clock of the leaf that cancelled.
        cancelled_at: &'a AtomicU64,
    }

    impl Inside<'_> {
        fn sample(&self) {
            if self.fired.load(Ordering::Relaxed) {
                return;
            }
            let now = now_ns().expect("timing mode");
            if now >= self.at && !self.fired.swap(true, Ordering::Relaxed) {
                self.cancelled_at.store(now, Ordering::Relaxed);
                self.token.cancel();
            }
        }
    }

    fn iter(c: Option<&Inside<'_>>) -> u64 {
        (0..u64::MAX)
            .into_par_iter()
            .map(|i| {
                if i & ITER_SAMPLE == 0 {
                    if let Some(c) = c {
                        c.sample();
                    }
                }
                work_ps(ITEM_PS);
                i & 1
            })
            .sum()
    }

    fn fib(n: u32, c: Option<&Inside<'_>>) -> u64 {
        work_ps(FIB_PS);
        if n < 2 {
            return n as u64;
        }
        if n == FIB_SAMPLE_N {
            if let Some(c) = c {
                c.sample();
            }
        }
        let (a, b) = forkjoin::join(|| fib(n - 1, c), || fib(n - 2, c));
        a + b
    }

    fn tree<'s>(s: &forkjoin::Scope<'s>, depth: u32, c: Option<&'s Inside<'s>>) {
        if let Some(c) = c {
            c.sample();
        }
        work(JOB_NS);
        if depth > 0 {
            for _ in 0..TREE_FANOUT {
                s.spawn(move |s| tree(s, depth - 1, c));
            }
        }
    }

    fn flat(c: Option<&Inside<'_>>) {
        forkjoin::scope(|s| {
            for _ in 0..FLAT_JOBS {
                s.spawn(move |_| {
                    if let Some(c) = c {
                        c.sample();
                    }
                    work(JOB_NS);
                });
            }
        });
    }

    fn run_shape(shape: &str, c: Option<&Inside<'_>>) {
        match shape {
            "iter" => {
                std::hint::black_box(iter(c));
            }
            "join" => {
                std::hint::black_box(fib(FIB_N, c));
            }
            "scope" => forkjoin::scope(|s| tree(s, TREE_DEPTH, c)),
            "scope-flat" => flat(c),
            _ => unreachable!("shapes are checked in main"),
        }
    }

    #[derive(Default, Clone, Copy)]
    struct Outcome {
        /// Virtual ns from the cancel to `cancellable`'s return; `None`: it finished first.
        latency_ns: Option<u64>,
        /// When the cancel happened and when `cancellable` returned, from the call.
        cancel_ns: u64,
        return_ns: u64,
        steps: u64,
    }

    fn measure(
        shape: &'static str,
        from: &'static str,
        cores: usize,
        seed: u64,
        run_ns: u64,
    ) -> Outcome {
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
            // The workers start, find nothing and fall asleep (see `predict.rs`).
            work(1_000_000);
            shuttle::thread::yield_now();
            let token = CancelToken::new();
            let cancelled_at = Arc::new(AtomicU64::new(0));
            let start = now_ns().expect("timing mode");
            let outside = (from == "outside").then(|| {
                let (token, cancelled_at) = (token.clone(), cancelled_at.clone());
                shuttle::thread::spawn(move || {
                    // Waits (a charge, then a scheduling point so the others run up to it), then
                    // cancels: `cancel` is a scheduling point, taken at this clock.
                    work(run_ns);
                    shuttle::thread::yield_now();
                    cancelled_at.store(now_ns().expect("timing mode"), Ordering::Relaxed);
                    token.cancel();
                })
            });
            let inside = (from == "inside").then(|| Inside {
                token: &token,
                at: start + run_ns,
                fired: AtomicBool::new(false),
                cancelled_at: &cancelled_at,
            });
            let r = pool.cancellable(&token, || run_shape(shape, inside.as_ref()));
            let end = now_ns().expect("timing mode");
            if let Some(t) = outside {
                t.join().expect("canceller");
            }
            let at = cancelled_at.load(Ordering::Relaxed);
            *result.lock().unwrap() = Outcome {
                latency_ns: (r.is_err() && at > 0).then(|| end - at),
                cancel_ns: at.saturating_sub(start),
                return_ns: end - start,
                steps: forkjoin::__sim::counts().steps,
            };
            drop(pool);
        });
        *out.lock().unwrap()
    }

    fn list<T: std::str::FromStr>(s: &str) -> Result<Vec<T>, String> {
        s.split(',')
            .filter(|x| !x.is_empty())
            .map(|x| x.trim().parse().map_err(|_| format!("bad list item {x:?}")))
            .collect()
    }

    fn known(v: &str, all: &[&'static str]) -> Result<Vec<&'static str>, String> {
        v.split(',')
            .filter(|s| !s.is_empty())
            .map(|s| {
                all.iter()
                    .copied()
                    .find(|k| *k == s)
                    .ok_or(format!("unknown {s}; known: {all:?}"))
            })
            .collect()
    }

    pub fn main() -> Result<(), String> {
        let mut cores: Vec<usize> = vec![16, 64];
        let mut shapes: Vec<&'static str> = SHAPES.to_vec();
        let mut from: Vec<&'static str> = FROM.to_vec();
        let mut seeds: Vec<u64> = vec![0, 1, 2];
        let mut run_ns = 200_000;
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            let mut value = || args.next().ok_or(format!("{a} needs a value"));
            match a.as_str() {
                "--cores" => cores = list(&value()?)?,
                "--seeds" => seeds = list(&value()?)?,
                "--shapes" => shapes = known(&value()?, &SHAPES)?,
                "--from" => from = known(&value()?, &FROM)?,
                "--run-us" => {
                    let v = value()?;
                    let us: u64 = v.parse().map_err(|_| format!("bad --run-us {v:?}"))?;
                    run_ns = us * 1_000;
                }
                _ => return Err(format!("unknown argument {a}")),
            }
        }
        for &shape in &shapes {
            for &who in &from {
                for &p in &cores {
                    for &seed in &seeds {
                        let started = Instant::now();
                        let o = measure(shape, who, p, seed, run_ns);
                        let latency = o
                            .latency_ns
                            .map_or("none (finished first)".to_string(), |l| {
                                format!("{:.1}", l as f64 / 1000.0)
                            });
                        println!(
                            "cancel: {shape} from={who} cores={p} latency_us={latency} \
                             (cancel at {:.1} us, returned at {:.1} us; seed {seed}, {} steps, {:.1} s)",
                            o.cancel_ns as f64 / 1000.0,
                            o.return_ns as f64 / 1000.0,
                            o.steps,
                            started.elapsed().as_secs_f64()
                        );
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
        if let Err(e) = cancel_latency::main() {
            eprintln!("cancel_latency: {e}");
            eprintln!(
                "usage: cancel_latency [--cores 16,64] [--shapes iter,join,scope,scope-flat] \
                 [--from outside,inside] [--seeds 0,1,2] [--run-us 200]"
            );
            return std::process::ExitCode::FAILURE;
        }
        std::process::ExitCode::SUCCESS
    }
    #[cfg(not(forkjoin_shuttle))]
    {
        eprintln!(
            "cancel_latency: build with RUSTFLAGS=\"--cfg forkjoin_shuttle\" \
             (scripts/cancel-latency.sh)"
        );
        std::process::ExitCode::FAILURE
    }
}
