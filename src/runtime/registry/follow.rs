//! Pools that follow the machine's CPU limit (`ThreadPoolBuilder::follow_cpu_limit`): a
//! process-wide thread re-reads the limit once a second and resizes each following pool when it
//! changes.
//!
//! **What is followed.** The CPUs the process may use, as the default size reads them
//! (`crate::platform::cpu_limit`: the affinity mask of the process and the cgroup CPU quota, the
//! smaller), capped at the pool's capacity. A pool is resized only when that number changes from
//! what the follower last saw for it (at first, what it was when the pool was built): a size the
//! builder or `set_num_threads` chose stands until the machine changes. A failed resize (a thread
//! that cannot be spawned) is retried at the next change.
//!
//! **Cost.** One thread for the process while some pool follows, waking once a second to read the
//! affinity mask (one system call) and two small `/proc` files and the cgroup's quota files. It
//! exits when no following pool is left. Nothing on any worker's path. Not under loom or the
//! simulation.

use std::time::Duration;

use crate::platform::sync::shared::Weak;
use crate::platform::sync::{process_static, thread, Arc, Mutex};
use crate::runtime::registry::{resize, Registry};

/// How often the limit is re-read.
const PERIOD: Duration = Duration::from_secs(1);

/// The pools that follow, and whether the follower thread runs, in which fork generation.
struct Followed {
    pools: Vec<(Weak<Registry>, usize)>,
    running: bool,
    generation: u64,
}

process_static! {
    static FOLLOWED: Mutex<Followed> = Mutex::new(Followed {
        pools: Vec::new(),
        running: false,
        generation: 0,
    });
}

fn followed() -> crate::platform::sync::MutexGuard<'static, Followed> {
    FOLLOWED.lock().unwrap_or_else(|e| e.into_inner())
}

/// The limit a pool with `capacity` slots follows now.
fn limit(capacity: usize) -> usize {
    crate::platform::cpu_limit::available_cpus().clamp(1, capacity)
}

/// Starts following the CPU limit for `registry`, starting the follower thread if none runs. If
/// it cannot be started, the pool keeps its size (and the next following pool tries again).
pub(crate) fn follow(registry: &Arc<Registry>) {
    let seen = limit(registry.capacity());
    let mut followed = followed();
    let generation = crate::platform::fork::generation();
    if followed.generation != generation {
        // A forked child: its parent's follower thread was left behind.
        followed.pools.clear();
        followed.running = false;
        followed.generation = generation;
    }
    followed.pools.push((Arc::downgrade(registry), seen));
    if !followed.running {
        let spawned = thread::Builder::new()
            .name("forkjoin-follow".into())
            .stack_size(64 << 10)
            .spawn(follower);
        followed.running = spawned.is_ok();
    }
}

/// The follower thread: every [`PERIOD`], resizes the following pools whose limit changed; exits
/// when none is left.
fn follower() {
    loop {
        crate::platform::sync::sleep(PERIOD);
        let changed: Vec<(Arc<Registry>, usize)> = {
            let mut followed = followed();
            followed.pools.retain(|(pool, _)| pool.strong_count() > 0);
            if followed.pools.is_empty() {
                followed.running = false;
                return;
            }
            followed
                .pools
                .iter_mut()
                .filter_map(|(pool, seen)| {
                    let pool = pool.upgrade()?;
                    let now = limit(pool.capacity());
                    (now != std::mem::replace(seen, now)).then_some((pool, now))
                })
                .collect()
        };
        // Resized outside the lock: a resize spawns threads.
        for (pool, n) in changed {
            if !pool.is_terminated() {
                let _ = resize::set_num_threads(&pool, n);
            }
        }
    }
}
