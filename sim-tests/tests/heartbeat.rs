//! The sharing heartbeat in virtual time (the timing mode of the simulation, `docs/testing.md`):
//! publications that come back unstolen stretch it, and a steal restores it
//! (`runtime::registry::worker::heartbeat`).
//!
//! A sleeper needs a wake-up (1.9 virtual µs with the VM's costs) before it can steal. A loop of
//! joins smaller than that pops every published job back itself, and each publication's wake-up
//! was wasted: the heartbeat stretches to 16 intervals. Joins big enough for the sleeper are
//! stolen, and the heartbeat is back to one interval at once.
#![cfg(forkjoin_shuttle)]

use std::sync::atomic::{AtomicUsize, Ordering};

use forkjoin::__sim::work;
use sim_tests::after_idle_in_virtual_time;

/// What one run saw: publications during the small joins; heavy steals during the big ones, and
/// how many of their b's the worker that did not start the loop ran.
#[derive(Clone, Copy, Debug)]
struct Seen {
    published_small: u64,
    heavy_big: u64,
    big_b_elsewhere: usize,
}

/// On a pool of 2 whose workers fell asleep: `small` joins of 1 + 1 virtual µs, then `big` joins
/// of 50 + 50 µs, in one loop on one worker.
fn small_then_big(small: u64, big: u64, seed: u64) -> Seen {
    after_idle_in_virtual_time(seed, 2, move |pool| {
        let elsewhere = AtomicUsize::new(0);
        let (published_small, heavy_big) = pool.install(|| {
            let me = forkjoin::current_thread_index();
            for _ in 0..small {
                forkjoin::join(|| work(1_000), || work(1_000));
            }
            let before = pool.stats();
            for _ in 0..big {
                forkjoin::join(
                    || work(50_000),
                    || {
                        if forkjoin::current_thread_index() != me {
                            elsewhere.fetch_add(1, Ordering::Relaxed);
                        }
                        work(50_000)
                    },
                );
            }
            let after = pool.stats();
            (
                before.jobs_published,
                after.heavy_steals - before.heavy_steals,
            )
        });
        Seen {
            published_small,
            heavy_big,
            big_b_elsewhere: elsewhere.into_inner(),
        }
    })
}

#[test]
fn joins_too_small_for_a_wake_up_stretch_the_heartbeat_and_a_steal_restores_it() {
    for seed in 0..3 {
        // 4,000 small joins: 8 virtual ms, 80 heartbeats of 100 µs.
        let seen = small_then_big(4_000, 200, seed);
        // Stretched: 100, 200, 400, 800 µs, then every 1.6 ms, except that a patrol's heavy
        // steal of a small b restores the interval (about once a millisecond: 19 to 27
        // publications over seeds and builds). Before the back-off, every heartbeat published
        // (and woke the sleeper) for a job that came back: 79.
        assert!(
            seen.published_small <= 32,
            "seed {seed}: {} publications in 8 ms of small joins",
            seen.published_small
        );
        // The sleeper's patrols reach the big b's either way, but the first big job published is
        // stolen, and the heartbeat is back to 100 µs: most of what the sleeper runs it takes
        // from the public deque. Without the reset it had to heavy-steal nearly all of them
        // (91 `membarrier`s in this run, each interrupting the busy worker; 13 with it).
        assert!(
            seen.big_b_elsewhere >= 40,
            "seed {seed}: the other worker ran {} of 200 big b's",
            seen.big_b_elsewhere
        );
        assert!(
            seen.heavy_big <= 40,
            "seed {seed}: {} heavy steals for the big joins",
            seen.heavy_big
        );
    }
}
