//! The reserve worker: a temporary thread that runs a pool's waiting work while every thread of the
//! pool is blocked in user code.
//!
//! **Why.** A worker blocked in a lock, a channel or a barrier runs nothing, and a worker waiting
//! for a `join` or a scope runs only work that belongs to what it waits for (`jobs/region.rs`).
//! So a job that every thread of the pool is waiting on, directly or not, can sit in a queue for
//! good: a job a 1-thread pool's only worker `spawn`ed before it blocked on a channel the job
//! feeds; a job a stolen b spawned before it blocked, while the worker waiting for b refuses it
//! (spawned work belongs to nobody's wait); b's of joins whose owners all block in a. rayon
//! completes these only where its threads happen to be free; Go hands a blocked thread's processor
//! to another thread, .NET injects threads into a starved pool, and Java's `ForkJoinPool` adds a
//! compensating worker around a `ManagedBlocker`.
//!
//! **What.** Each pool whose threads are its own (the default spawn handler, and the global pool)
//! has one extra worker slot past its threads: a deque, a private stack, a sleep slot, region
//! entries, but no thread. A process-wide *monitor* thread checks the watched pools on a slow tick
//! (10 ms while some pool had work waiting, doubling to 1 s while none had). A pool is *stalled*
//! when, at two ticks in a row, a job waits in its injector or a public deque and the kernel
//! reports every one of its threads blocked (not `R` in `/proc/self/task/TID/stat`,
//! `platform::thread_state`); private stacks are left to the patrols of waiting and idle workers
//! (with every thread blocked in user code and only private jobs left, rayon hangs too). Then
//! the monitor starts a thread that runs the reserve slot (`worker::reserve_loop`): it takes jobs
//! as an idle worker does, from any queue, heavy-stealing private jobs, until 16 searches in a row
//! find nothing, and exits. At most
//! one reserve thread runs per pool at a time, so compensation is bounded by the number of pools.
//!
//! **Regions and locks.** The reserve thread holds no frames and no locks of its own, so it runs
//! anything, as an idle worker does: the lock guarantee (a waiting worker runs only what the
//! sequential program would have run at that point) is about the frames of the thread that
//! waits, and the reserve adds none. A job it runs that blocks on a lock the blocked threads hold
//! blocks it too, and the pool is no worse off. **Cancellation** needs nothing new: the jobs it
//! takes carry their cancellation node in their region, as for any thief.
//!
//! **What it cannot reach.** Work no queue holds: the b of an inline `join` (a deep join runs b as
//! a plain call after a), and the unsplit rest of a parallel loop's leaf. README's Limitations
//! lists those patterns.
//!
//! **Cost.** Nothing on any worker's path: the monitor reads queue lengths and, only when work
//! waits, one small `/proc` file per thread. An idle process wakes the monitor once a second; a
//! pool with work waiting, 100 times a second. The monitor exits when no watched pool is left.
//! Linux only (elsewhere the kernel's view of a thread is not read and no reserve is kept); not
//! under loom; under the simulation only where a test asks for it (`sim-tests/tests/reserve.rs`),
//! with every thread reading as blocked. A child made by
//! `fork()` starts its own monitor with its first pool (a fork while the monitor holds its lock,
//! a window of microseconds per tick, would leave that lock held in the child).

use std::time::Duration;

use crate::platform::sync::shared::Weak;
use crate::platform::sync::{process_static, sim_bug, thread, Arc, Mutex, Ordering};
use crate::platform::thread_state;
use crate::runtime::registry::worker;
use crate::runtime::registry::Registry;

/// The monitor's tick while some watched pool has work waiting.
const TICK: Duration = Duration::from_millis(10);
/// The longest tick, reached by doubling while no watched pool has work waiting.
const LONGEST_TICK: Duration = Duration::from_secs(1);

/// The pools the monitor watches, whether it runs, and in which fork generation
/// (`platform::fork`): a child made by `fork()` has neither the monitor nor its parent's pools.
struct Watched {
    pools: Vec<Pool>,
    monitor_running: bool,
    generation: u64,
}

/// One watched pool: a weak reference (the monitor keeps no pool alive), whether it was seen
/// stalled at the last tick, and the thread to ask about first (the one last seen running: in a
/// busy pool one read of `/proc` a tick).
struct Pool {
    registry: Weak<Registry>,
    stalled_at_last_tick: bool,
    first: usize,
}

process_static! {
    static WATCHED: Mutex<Watched> = Mutex::new(Watched {
        pools: Vec::new(),
        monitor_running: false,
        generation: 0,
    });
}

fn watched() -> crate::platform::sync::MutexGuard<'static, Watched> {
    WATCHED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether a pool keeps a reserve worker: only if its threads are ours (a user's spawn handler
/// decides where and when its threads run, and `build_scoped`'s threads must not outlive their
/// scope) and the kernel's view of a thread can be read.
pub(crate) fn wanted(owns_threads: bool) -> bool {
    owns_threads && thread_state::observable()
}

/// Starts watching `registry` (which keeps a reserve slot), starting the monitor thread if none
/// runs. If the monitor cannot be started the pool simply has no reserve.
pub(crate) fn watch(registry: &Arc<Registry>) {
    debug_assert!(registry.reserve().is_some());
    let mut watched = watched();
    let generation = crate::platform::fork::generation();
    if watched.generation != generation {
        // A forked child: its parent's monitor thread and pools were left behind.
        watched.pools.clear();
        watched.monitor_running = false;
        watched.generation = generation;
    }
    watched.pools.push(Pool {
        registry: Arc::downgrade(registry),
        stalled_at_last_tick: false,
        first: 0,
    });
    if !watched.monitor_running {
        let spawned = thread::Builder::new()
            .name("forkjoin-monitor".into())
            .stack_size(64 << 10)
            .spawn(monitor);
        watched.monitor_running = spawned.is_ok();
    }
}

/// What a tick finds in one pool.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Seen {
    /// No job waits (or the pool has ended).
    Quiet,
    /// A job waits, but some thread of the pool runs (or its reserve already does).
    Working,
    /// A job waits and every thread of the pool is blocked.
    Stalled,
}

/// The monitor thread: ticks until no watched pool is left.
fn monitor() {
    let mut tick = TICK;
    loop {
        crate::platform::sync::sleep(tick);
        let pools: Vec<(Arc<Registry>, usize)> = {
            let mut watched = watched();
            watched.pools.retain(|p| p.registry.strong_count() > 0);
            if watched.pools.is_empty() {
                watched.monitor_running = false;
                return;
            }
            watched
                .pools
                .iter()
                .filter_map(|p| Some((p.registry.upgrade()?, p.first)))
                .collect()
        };
        // Looked at without the lock: reading `/proc` takes microseconds per thread.
        let seen: Vec<(*const Registry, Seen, usize)> = pools
            .iter()
            .map(|(r, first)| {
                let (seen, first) = look_at(r, *first);
                (Arc::as_ptr(r), seen, first)
            })
            .collect();
        let mut to_start = Vec::new();
        {
            let mut watched = watched();
            for pool in watched.pools.iter_mut() {
                let (now, first) = seen
                    .iter()
                    .find(|(r, _, _)| std::ptr::eq(*r, pool.registry.as_ptr()))
                    .map_or((Seen::Quiet, 0), |&(_, s, first)| (s, first));
                pool.first = first;
                if now == Seen::Stalled && pool.stalled_at_last_tick {
                    to_start.push(pool.registry.clone());
                    pool.stalled_at_last_tick = false;
                } else {
                    pool.stalled_at_last_tick = now == Seen::Stalled;
                }
            }
        }
        for registry in to_start.iter().filter_map(Weak::upgrade) {
            start(&registry);
        }
        tick = if seen.iter().any(|&(_, s, _)| s != Seen::Quiet) {
            TICK
        } else {
            (tick * 2).min(LONGEST_TICK)
        };
    }
}

/// One tick's look at a pool, asking about its threads from index `first` on; returns what it
/// saw and where to start next time.
fn look_at(registry: &Registry, first: usize) -> (Seen, usize) {
    let Some(reserve) = registry.reserve() else {
        return (Seen::Quiet, first);
    };
    if registry.is_terminated() || registry.lost_to_fork() || !registry.may_hold_jobs() {
        return (Seen::Quiet, first);
    }
    // Acquire: pairs with the reserve thread's Release as it stops.
    if reserve.running.load(Ordering::Acquire) {
        return (Seen::Working, first);
    }
    let threads = &registry.thread_infos()[..registry.num_threads()];
    for k in 0..threads.len() {
        let index = (first + k) % threads.len();
        // Relaxed: an id stored once at the thread's start; 0 (not started) reads as unknown.
        let tid = threads[index].tid.load(Ordering::Relaxed);
        // A thread we cannot see is taken to run: the reserve acts only on certain stalls.
        if thread_state::is_running(tid) != Some(false) {
            return (Seen::Working, index);
        }
    }
    (Seen::Stalled, first)
}

/// Starts a thread running `registry`'s reserve worker, unless one runs or the pool has ended.
fn start(registry: &Arc<Registry>) {
    let Some(reserve) = registry.reserve() else {
        return;
    };
    let mut slot = reserve.queues.lock().unwrap_or_else(|e| e.into_inner());
    if registry.is_terminated() || reserve.running.load(Ordering::Acquire) {
        return;
    }
    // The queues are back once the last reserve thread stopped running the worker.
    let Some(queues) = slot.take() else {
        return;
    };
    // The last reserve thread gave its queues back: it is at most a few instructions from its end.
    reserve.join_thread();
    // Relaxed: the monitor is the only thread that sets it, under the queues' lock.
    reserve.running.store(true, Ordering::Relaxed);
    registry.sleep().thread_started(true);
    let stack_size = registry.thread_stack_size();
    let pool = registry.clone();
    // Handed over through a shared cell, so that a failed spawn leaves them here.
    let handoff = Arc::new(Mutex::new(Some(queues)));
    let theirs = handoff.clone();
    let spawned = thread::Builder::new()
        .name("forkjoin-reserve".into())
        .stack_size(stack_size)
        .spawn(move || {
            let taken = theirs.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(queues) = taken {
                run(&pool, queues, stack_size);
            }
        });
    match spawned {
        Ok(handle) => {
            *reserve.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
        }
        Err(_) => {
            // No thread to be had (a process limit): the pool goes on without its reserve this
            // time, and the next stall tries again.
            *slot = handoff.lock().unwrap_or_else(|e| e.into_inner()).take();
            registry.sleep().thread_started(false);
            reserve.running.store(false, Ordering::Relaxed);
        }
    }
}

/// The reserve thread: runs the reserve worker until it finds no work, then gives its queues back.
fn run(registry: &Arc<Registry>, queues: crate::runtime::registry::WorkerQueues, stack: usize) {
    let index = registry.capacity();
    let queues = worker::reserve_loop(registry, index, queues, stack);
    let reserve = registry.reserve().expect("a pool with a reserve");
    *reserve.queues.lock().unwrap_or_else(|e| e.into_inner()) = Some(queues);
    registry.sleep().thread_started(false);
    // Release: the next start (and the monitor's look) sees the queues given back. (The
    // simulation's self-check forgets it: the pool's next stall then never gets a reserve.)
    if !sim_bug("reserve_keeps_running") {
        reserve.running.store(false, Ordering::Release);
    }
}
