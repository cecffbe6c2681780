//! forkjoin's Chase-Lev deque side by side with crossbeam-deque's `Worker::new_lifo`.
//!
//! Items are 16-byte `Copy` values, the size of the runtime's `JobRef` (two pointers).
//! Groups: (1) push+pop pairs on one thread; (2) push N then pop N; (3) one owner pushing while 1 and
//! 3 thieves steal (throughput = items stolen); (4) the owner's push+pop cost while thieves hammer.
//! Short settings (the machine has 2 shared cores); the lead re-runs benchmarks on a quiet machine.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
// A plain identifier for `impl_deque!` (a macro cannot append `::Worker` to a path fragment).
use forkjoin::deque as fj_deque;

/// Stand-in for the runtime's `JobRef`: two words, `Copy`.
#[derive(Clone, Copy)]
struct Job(#[allow(dead_code)] usize, #[allow(dead_code)] usize);

/// The operations the benchmarks need, over both implementations.
trait Owner: Send + 'static {
    type Thief: Thief;
    const NAME: &'static str;
    fn new() -> Self;
    fn push(&self, job: Job);
    fn pop(&self) -> Option<Job>;
    fn thief(&self) -> Self::Thief;
}

trait Thief: Send + 'static {
    /// `Some` on success; `None` when empty or on a lost race.
    fn steal(&self) -> Option<Job>;
}

/// Implements `Owner`/`Thief` for one deque: both crates name the operations alike (`push`, `pop`,
/// `stealer`, `steal().success()`), so only the types, the name and the constructor differ.
macro_rules! impl_deque {
    ($owner:ident, $thief:ident, $name:literal, $krate:ident, $new:ident) => {
        struct $owner($krate::Worker<Job>);
        struct $thief($krate::Stealer<Job>);

        impl Owner for $owner {
            type Thief = $thief;
            const NAME: &'static str = $name;
            fn new() -> Self {
                $owner($krate::Worker::$new())
            }
            #[inline]
            fn push(&self, job: Job) {
                self.0.push(job)
            }
            #[inline]
            fn pop(&self) -> Option<Job> {
                self.0.pop()
            }
            fn thief(&self) -> $thief {
                $thief(self.0.stealer())
            }
        }

        impl Thief for $thief {
            #[inline]
            fn steal(&self) -> Option<Job> {
                self.0.steal().success()
            }
        }
    };
}

impl_deque!(Fj, FjThief, "forkjoin", fj_deque, new);
// crossbeam's LIFO flavour: the owner pops the newest item, as a work-stealing worker does.
impl_deque!(Cb, CbThief, "crossbeam", crossbeam_deque, new_lifo);

fn push_pop_pairs<W: Owner>(c: &mut Criterion) {
    let mut g = c.benchmark_group("1_push_pop_pair");
    g.throughput(Throughput::Elements(1));
    g.bench_function(W::NAME, |b| {
        let w = W::new();
        b.iter(|| {
            w.push(black_box(Job(1, 2)));
            black_box(w.pop())
        })
    });
    g.finish();
}

fn push_n_pop_n<W: Owner>(c: &mut Criterion) {
    let mut g = c.benchmark_group("2_push_n_pop_n");
    for n in [1_000usize, 100_000] {
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new(W::NAME, n), &n, |b, &n| {
            let w = W::new();
            b.iter(|| {
                for i in 0..n {
                    w.push(Job(i, i));
                }
                while let Some(j) = w.pop() {
                    black_box(j);
                }
            })
        });
    }
    g.finish();
}

fn steal_single<W: Owner>(c: &mut Criterion) {
    let mut g = c.benchmark_group("0_push_n_steal_n_one_thread");
    let n = 1000usize;
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(W::NAME, |b| {
        let w = W::new();
        let s = w.thief();
        b.iter(|| {
            for i in 0..n {
                w.push(Job(i, i));
            }
            while let Some(j) = s.steal() {
                black_box(j);
            }
        })
    });
    g.finish();
}

/// Thieves steal until `target` items are taken in total; the owner pushes exactly `target`.
fn steal_throughput<W: Owner>(c: &mut Criterion) {
    const ITEMS: usize = 200_000;
    let mut g = c.benchmark_group("3_steal_throughput");
    g.throughput(Throughput::Elements(ITEMS as u64));
    for thieves in [1usize, 3] {
        g.bench_with_input(
            BenchmarkId::new(W::NAME, thieves),
            &thieves,
            |b, &thieves| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let w = W::new();
                        let stolen = Arc::new(AtomicUsize::new(0));
                        let start = Arc::new(Barrier::new(thieves + 1));
                        let handles: Vec<_> = (0..thieves)
                            .map(|_| {
                                let (s, stolen, start) = (w.thief(), stolen.clone(), start.clone());
                                thread::spawn(move || {
                                    start.wait();
                                    let mut mine = 0;
                                    while stolen.load(Ordering::Relaxed) < ITEMS {
                                        if let Some(j) = s.steal() {
                                            black_box(j);
                                            mine += 1;
                                            if mine == 64 {
                                                stolen.fetch_add(mine, Ordering::Relaxed);
                                                mine = 0;
                                            }
                                        } else if mine > 0 {
                                            stolen.fetch_add(mine, Ordering::Relaxed);
                                            mine = 0;
                                        } else {
                                            std::hint::spin_loop();
                                        }
                                    }
                                    stolen.fetch_add(mine, Ordering::Relaxed);
                                })
                            })
                            .collect();
                        start.wait();
                        let t0 = Instant::now();
                        for i in 0..ITEMS {
                            w.push(Job(i, i));
                        }
                        for h in handles {
                            h.join().unwrap();
                        }
                        total += t0.elapsed();
                    }
                    total
                })
            },
        );
    }
    g.finish();
}

/// The owner's push+pop pair while `thieves` threads steal continuously.
fn owner_under_contention<W: Owner>(c: &mut Criterion) {
    let mut g = c.benchmark_group("4_owner_pair_while_thieves_steal");
    g.throughput(Throughput::Elements(1));
    for thieves in [1usize, 3] {
        g.bench_with_input(
            BenchmarkId::new(W::NAME, thieves),
            &thieves,
            |b, &thieves| {
                let w = W::new();
                let stop = Arc::new(AtomicBool::new(false));
                let handles: Vec<_> = (0..thieves)
                    .map(|_| {
                        let (s, stop) = (w.thief(), stop.clone());
                        thread::spawn(move || {
                            while !stop.load(Ordering::Relaxed) {
                                black_box(s.steal());
                            }
                        })
                    })
                    .collect();
                b.iter(|| {
                    w.push(black_box(Job(1, 2)));
                    black_box(w.pop())
                });
                stop.store(true, Ordering::Relaxed);
                for h in handles {
                    h.join().unwrap();
                }
            },
        );
    }
    g.finish();
}

fn all(c: &mut Criterion) {
    steal_single::<Fj>(c);
    steal_single::<Cb>(c);
    push_pop_pairs::<Fj>(c);
    push_pop_pairs::<Cb>(c);
    push_n_pop_n::<Fj>(c);
    push_n_pop_n::<Cb>(c);
    steal_throughput::<Fj>(c);
    steal_throughput::<Cb>(c);
    owner_under_contention::<Fj>(c);
    owner_under_contention::<Cb>(c);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(15)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = all
}
criterion_main!(benches);
