//! `sim-counts`: what the pool does at scale, counted under shuttle's random scheduler. A report,
//! not a test: it prints numbers and checks none of them. Run it with
//!
//! ```sh
//! RUSTFLAGS="--cfg forkjoin_shuttle" CARGO_TARGET_DIR=target/shuttle \
//!   cargo run --release -p sim-tests --example counts
//! ```
//!
//! For fib, skynet, n-queens and matmul shapes on 2, 8, 64 and 256 simulated workers it averages
//! `ThreadPool::stats()` over `FORKJOIN_SIM_COUNT_SCHEDULES` random schedules (default 4; 2 at 256
//! workers) and prints a markdown table: the counters per 1,000 jobs executed, the scheduler steps
//! the call took, and the steps from the first job until every worker had run a job of the call
//! (with how many schedules got there: a small problem may never reach every worker).

#[cfg(forkjoin_shuttle)]
mod counts {
    use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use forkjoin::prelude::*;
    use shuttle::scheduler::RandomScheduler;
    use shuttle::Runner;
    use sim_tests::{config, nqueens, pool, Counter};

    /// Notes, at the start of each job of the call, which worker runs it and when (in scheduler steps).
    struct Tracker {
        first: AtomicU64,
        seen: Vec<AtomicBool>,
        reached: AtomicUsize,
        all_at: AtomicU64,
    }

    impl Tracker {
        fn new(workers: usize) -> Self {
            Tracker {
                first: AtomicU64::new(u64::MAX),
                seen: (0..workers).map(|_| AtomicBool::new(false)).collect(),
                reached: AtomicUsize::new(0),
                all_at: AtomicU64::new(u64::MAX),
            }
        }

        /// A job of the call starts on this worker. Each job also stands for one step of work (a yield:
        /// plain computation takes no scheduling step, so without it jobs would cost nothing).
        fn touch(&self) {
            shuttle::thread::yield_now();
            let now = shuttle::current::context_switches() as u64;
            self.first.fetch_min(now, Ordering::Relaxed);
            let index = forkjoin::current_thread_index().expect("jobs run on workers");
            if !self.seen[index].swap(true, Ordering::Relaxed)
                && self.reached.fetch_add(1, Ordering::Relaxed) + 1 == self.seen.len()
            {
                self.all_at.store(now, Ordering::Relaxed);
            }
        }

        /// Steps from the first job until every worker had run one, if that happened.
        fn steps_to_all(&self) -> Option<u64> {
            let all = self.all_at.load(Ordering::Relaxed);
            (all != u64::MAX).then(|| all - self.first.load(Ordering::Relaxed))
        }
    }

    /// The shapes: big enough that 256 workers all find work.
    const FIB: u64 = 21;
    const SKYNET_DEPTH: u32 = 5;
    const QUEENS: usize = 8;
    const MATMUL: usize = 256;

    fn fib(n: u64, t: &Tracker) -> u64 {
        t.touch();
        if n < 2 {
            return n;
        }
        let (a, b) = forkjoin::join(|| fib(n - 1, t), || fib(n - 2, t));
        a + b
    }

    fn skynet(base: u64, depth: u32, k: u64, t: &Tracker) -> u64 {
        t.touch();
        if depth == 0 {
            return base;
        }
        (0..k)
            .into_par_iter()
            .map(|i| skynet(base * k + i, depth - 1, k, t))
            .sum()
    }

    fn matmul(n: usize, block: usize, t: &Tracker) -> u64 {
        let a: Vec<u64> = (0..n * n).map(|i| (i % 7) as u64).collect();
        let mut c = vec![0u64; n * n];
        forkjoin::scope(|s| {
            for (bi, rows) in c.chunks_mut(block * n).enumerate() {
                let a = &a;
                s.spawn(move |s| {
                    t.touch();
                    for (ri, row) in rows.chunks_mut(n).enumerate() {
                        s.spawn(move |_| {
                            t.touch();
                            // A row is n² multiply-adds: give it n / 8 steps of work.
                            for _ in 0..n / 8 {
                                shuttle::thread::yield_now();
                            }
                            let i = bi * block + ri;
                            for (j, cell) in row.iter_mut().enumerate() {
                                *cell = (0..n).map(|k| a[i * n + k] * a[k * n + j]).sum();
                            }
                        });
                    }
                });
            }
        });
        c.iter().sum()
    }

    #[derive(Default, Clone, Copy)]
    struct Sample {
        jobs: f64,
        steals: f64,
        failed: f64,
        empty_probes: f64,
        published: f64,
        heavy: f64,
        sleeps: f64,
        wakeups: f64,
        steps: f64,
        to_all: Option<u64>,
    }

    fn measure(shape: &'static str, workers: usize, schedules: usize) -> Vec<Sample> {
        let samples = Arc::new(Mutex::new(Vec::new()));
        let out = samples.clone();
        Runner::new(RandomScheduler::new_from_seed(0xC0DE, schedules), config()).run(move || {
            let exits = Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            let t = Tracker::new(workers);
            let start = shuttle::current::context_switches();
            let result = pool.install(|| match shape {
                "fib" => fib(FIB, &t),
                "skynet" => skynet(0, SKYNET_DEPTH, 8, &t),
                "nqueens" => nqueens(QUEENS, Vec::new(), &|| t.touch()) as u64,
                _ => matmul(MATMUL, 4, &t),
            });
            let steps = (shuttle::current::context_switches() - start) as f64;
            std::hint::black_box(result);
            let s = pool.stats();
            out.lock().unwrap().push(Sample {
                jobs: s.jobs_executed as f64,
                steals: s.steals as f64,
                failed: s.failed_steals as f64,
                empty_probes: s.empty_probes as f64,
                published: s.jobs_published as f64,
                heavy: s.heavy_steals as f64,
                sleeps: s.sleeps as f64,
                wakeups: s.wakeups as f64,
                steps,
                to_all: t.steps_to_all(),
            });
            drop(pool);
        });
        samples.lock().unwrap().clone()
    }

    pub fn main() {
        let schedules: usize = std::env::var("FORKJOIN_SIM_COUNT_SCHEDULES")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(4);
        println!(
            "shapes: fib({FIB}) join; skynet 8^{SKYNET_DEPTH} nested range iterators; {QUEENS}-queens nested Vec iterators; {MATMUL}x{MATMUL} matmul, scope jobs per 4 rows and per row"
        );
        println!();
        println!(
            "| shape | workers | schedules | jobs | steals /1k | empty probes /steal | failed searches /1k | published /1k | heavy steals /1k | sleeps /1k | wake-ups /1k | steps of the call | steps until every worker ran a job (schedules) |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for shape in ["fib", "skynet", "nqueens", "matmul"] {
            for workers in [2, 8, 64, 256] {
                let n = if workers == 256 {
                    schedules.min(2)
                } else {
                    schedules
                };
                let samples = measure(shape, workers, n);
                let mean = |f: fn(&Sample) -> f64| samples.iter().map(f).sum::<f64>() / n as f64;
                let jobs = mean(|s| s.jobs);
                let per_k = |f: fn(&Sample) -> f64| mean(f) * 1000.0 / jobs;
                let reached: Vec<u64> = samples.iter().filter_map(|s| s.to_all).collect();
                let to_all = if reached.is_empty() {
                    "never (0)".to_string()
                } else {
                    format!(
                        "{:.0} ({}/{n})",
                        reached.iter().sum::<u64>() as f64 / reached.len() as f64,
                        reached.len()
                    )
                };
                println!(
                    "| {shape} | {workers} | {n} | {jobs:.0} | {:.0} | {:.1} | {:.0} | {:.0} | {:.1} | {:.1} | {:.1} | {:.0} | {to_all} |",
                    per_k(|s| s.steals),
                    mean(|s| s.empty_probes) / mean(|s| s.steals).max(1.0),
                    per_k(|s| s.failed),
                    per_k(|s| s.published),
                    per_k(|s| s.heavy),
                    per_k(|s| s.sleeps),
                    per_k(|s| s.wakeups),
                    mean(|s| s.steps),
                );
            }
        }
    }
}

fn main() {
    #[cfg(forkjoin_shuttle)]
    counts::main();
    #[cfg(not(forkjoin_shuttle))]
    {
        eprintln!(
            "counts: build with RUSTFLAGS=\"--cfg forkjoin_shuttle\" \
             (see docs/testing.md, \"Counts at scale\")"
        );
        std::process::exit(1);
    }
}
