//! Unit tests of the join protocol: results, panics, migration flags, pools of every size.

use crate::platform::sync::for_tests::{thread, AtomicUsize, Ordering};
use crate::ThreadPoolBuilder;

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = crate::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// The jobs `fib(n)` pushes on a worker whose pool has nobody idle, by the depth rule of
/// `worker::take_inline_join`: a join pushes while its inline-join budget is not armed; a push
/// with `offered` older jobs below arms it (63 inline joins); the join that finds it spent renews
/// it (nobody idle) and runs inline; popping back one of the first `offered` jobs disarms it.
fn fib_pushes_with_nobody_idle(n: u64, offered: usize) -> u64 {
    struct Model {
        budget: u32,
        depth: usize,
        offered: usize,
        pushes: u64,
    }
    fn fib(m: &mut Model, n: u64) {
        if n < 2 {
            return;
        }
        if m.budget > 1 {
            m.budget -= 1;
        } else if m.budget == 1 {
            m.budget = 64;
        } else {
            m.depth += 1;
            m.pushes += 1;
            let depth = m.depth;
            if depth > m.offered {
                m.budget = 64;
            }
            fib(m, n - 1);
            if depth <= m.offered {
                m.budget = 0;
            }
            m.depth -= 1;
            fib(m, n - 2);
            return;
        }
        fib(m, n - 1);
        fib(m, n - 2);
    }
    let mut m = Model {
        budget: 0,
        depth: 0,
        offered,
        pushes: 0,
    };
    fib(&mut m, n);
    assert_eq!((m.budget == 0 || m.budget > 1, m.depth), (true, 0));
    m.pushes
}

#[test]
fn fib_in_pools_of_every_size() {
    // fib(22) makes 28656 joins; with nobody idle only the shallow ones push, more of them in a
    // larger pool (its offered depth: 3 up to 16 workers, 4 up to 64, 5 beyond).
    let pushes_by_depth = [3, 4, 5].map(|offered| fib_pushes_with_nobody_idle(22, offered));
    assert!(
        4 < pushes_by_depth[0]
            && pushes_by_depth[0] < pushes_by_depth[1]
            && pushes_by_depth[1] < pushes_by_depth[2]
            && pushes_by_depth[2] < 28656,
        "model: {pushes_by_depth:?}"
    );
    for threads in [1, 2, 3, 8, 16, 17, 64, 65] {
        let pushes = pushes_by_depth[usize::from(threads > 16) + usize::from(threads > 64)];
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        // Every other worker blocked in user code: nobody idles, nobody steals, and the count is
        // exact.
        let blocked: Vec<_> = (1..threads)
            .map(|_| crate::test_support::block_one_worker(&pool))
            .collect();
        assert_eq!(pool.install(|| fib(22)), 17711, "{threads} threads");
        let stats = pool.stats();
        drop(blocked);
        if threads == 1 {
            // The only worker's joins push nothing (nobody could steal): only the install.
            assert_eq!(stats.jobs_executed, 1, "{stats:?}");
        } else {
            // Each pushed job is popped back and run once, plus the install and the blocking
            // jobs (injector pops).
            let injected = threads as u64;
            assert_eq!(stats.steals, 0, "{stats:?}");
            assert_eq!(stats.injector_pops, injected, "{stats:?}");
            assert_eq!(stats.local_pops, pushes, "{threads} threads: {stats:?}");
            assert_eq!(
                stats.jobs_executed,
                pushes + injected,
                "{threads} threads: {stats:?}"
            );
        }
        // With the workers free again, the result is the same whoever runs what.
        assert_eq!(pool.install(|| fib(22)), 17711, "{threads} threads, free");
    }
}

/// Runs 128 plain deep joins, then 128 offering ones, below three pending jobs on a 2-thread
/// pool whose other worker is blocked (so nothing is stolen); with `fake_idle`, the pool's
/// idle count and flag say someone idles. Returns the jobs executed by each group.
fn deep_join_pushes(fake_idle: bool) -> (u64, u64) {
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let release_tx = crate::test_support::block_one_worker(&pool);
    let executed = || pool.stats().jobs_executed;
    let counts = pool.install(|| {
        let registry = super::WorkerThread::with_current(|wt| wt.registry().clone()).unwrap();
        if fake_idle {
            registry.sleep().enter_idle();
        }
        // Three pending jobs of this worker: the joins below are "deep".
        let nest = |f: &(dyn Fn() -> (u64, u64) + Sync)| {
            crate::join(|| crate::join(|| crate::join(f, || ()).0, || ()).0, || ()).0
        };
        let counts = nest(&|| {
            let start = executed();
            for _ in 0..128 {
                crate::join(|| (), || ());
            }
            let middle = executed();
            for _ in 0..128 {
                crate::runtime::sharing::join_for_idle_worker(|| (), || ());
            }
            (middle - start, executed() - middle)
        });
        if fake_idle {
            registry.sleep().leave_idle();
        }
        counts
    });
    drop(release_tx);
    counts
}

#[test]
fn below_three_pending_jobs_joins_push_only_for_an_idle_worker_and_offered_ones_always() {
    // Nobody idles: the first deep join pushes (that push arms the budget), the next 127 have
    // nobody to offer b to, so they run it inline.
    let (plain, offered) = deep_join_pushes(false);
    assert_eq!(plain, 1, "jobs for 128 deep joins, nobody idle");
    assert_eq!(offered, 128, "jobs for 128 offered joins");
    // Someone idles: at least one deep join in 64 pushes (its publications, which rewind the
    // private stack, can make later joins shallow enough to push too).
    let (plain, offered) = deep_join_pushes(true);
    assert!(
        plain >= 2,
        "jobs for 128 deep joins with an idle worker: {plain}"
    );
    assert_eq!(offered, 128, "jobs for 128 offered joins");
}

#[test]
fn join_from_outside_uses_the_global_pool() {
    assert_eq!(fib(15), 610);
    let (a, b) = crate::join_context(|c| c.migrated(), |c| c.migrated());
    assert!(a && b, "called from outside: both halves run elsewhere");
}

#[test]
fn migrated_flag_matches_the_executing_thread() {
    let pool = ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    let mismatches = AtomicUsize::new(0);
    pool.install(|| {
        for _ in 0..2000 {
            let caller = thread::current().id();
            crate::join_context(
                |c| {
                    if c.migrated() != (thread::current().id() != caller) {
                        mismatches.fetch_add(1, Ordering::Relaxed);
                    }
                },
                |c| {
                    if c.migrated() != (thread::current().id() != caller) {
                        mismatches.fetch_add(1, Ordering::Relaxed);
                    }
                    std::hint::black_box(fib(8));
                },
            );
        }
    });
    assert_eq!(mismatches.into_inner(), 0);
}

#[test]
fn panics_in_a_b_and_both() {
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let ran_b = AtomicUsize::new(0);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            crate::join(
                || panic!("a"),
                || {
                    ran_b.fetch_add(1, Ordering::SeqCst);
                },
            )
        })
    }));
    assert_eq!(
        crate::platform::unwind::payload_message(&r.unwrap_err()),
        "a"
    );
    assert_eq!(
        ran_b.load(Ordering::SeqCst),
        1,
        "b still runs when a panics"
    );
    let r = std::panic::catch_unwind(|| pool.join(|| 1, || -> u8 { panic!("b") }));
    assert_eq!(
        crate::platform::unwind::payload_message(&r.unwrap_err()),
        "b"
    );
    let r = std::panic::catch_unwind(|| {
        pool.join(|| -> u8 { panic!("first") }, || -> u8 { panic!("second") })
    });
    assert_eq!(
        crate::platform::unwind::payload_message(&r.unwrap_err()),
        "first"
    );
    assert_eq!(pool.install(|| fib(18)), 2584, "pool still usable");
}

#[test]
fn panic_in_stolen_b_is_resumed() {
    let pool = ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    for _ in 0..50 {
        let r = std::panic::catch_unwind(|| {
            pool.install(|| {
                crate::join(
                    || fib(20),
                    || {
                        if crate::current_thread_index().is_some() {
                            panic!("stolen b")
                        }
                    },
                )
            })
        });
        assert_eq!(
            crate::platform::unwind::payload_message(&r.unwrap_err()),
            "stolen b"
        );
    }
}
