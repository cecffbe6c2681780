//! The stand-ins of the shuttle build (`--cfg forkjoin_shuttle`) for what shuttle does not model:
//! thread-locals of virtual threads, futex waits, timeouts and time, and the timing mode that
//! predicts scaling (submodules `vtime`, `scheduler`, `atomic`, `costs`, `frames`, `line_profile`).
//!
//! shuttle runs every virtual thread of an execution on one OS thread and switches between them
//! only at its own operations (atomics, locks, spawns, yields, parks). Code between two such
//! operations therefore runs as one atomic step, which is what lets this module keep its own
//! bookkeeping in plain `std` cells without adding scheduling points.
//!
//! * **Thread-locals.** [`sim_thread_local!`] declares a `shuttle::thread_local!` (one value per
//!   virtual thread) behind [`LocalKey`], which has the `get`/`set` of `std`'s `LocalKey<Cell<_>>`,
//!   so the declaring module reads the same in every build.
//! * **Time.** The virtual clock ([`now`]) advances with the execution's scheduling steps
//!   (`shuttle::current::context_switches`), plus the time skipped by timed waits (below). A step
//!   counts as [`NS_PER_TICK`] nanoseconds divided by the number of *running* virtual threads: the
//!   pool's workers (each counted while in [`RunningThread`]) and the test's main thread, less
//!   those parked on a futex. On a machine each core advances on its own, so P busy workers take
//!   P steps in the time one step takes; a clock counting every step in full would make
//!   heartbeats, patrols and timeouts come P times too often at P workers. Heartbeats, patrols and
//!   timeouts happen after a number of steps, and a schedule replays with the same times.
//! * **Futex.** A waiter registers in the futex's waiter list, re-checks the word and parks its
//!   virtual thread; a waker that changed the word unparks up to `n` registered waiters. The
//!   registration comes before the check, so a wake cannot slip between them. Parking is a
//!   [`Parker`] per virtual thread (shuttle's `Mutex` + `Condvar`, which wake only when notified:
//!   shuttle's own `thread::park` may wake spuriously at any step, and a pool of parked workers
//!   would then spin). A virtual thread parked with no timeout can only be unparked by a waker:
//!   when every thread is parked, shuttle reports a deadlock, which is how a lost wake-up shows.
//! * **Timeouts.** A timed waiter also registers a timer. Of all timed waiters, the one with the
//!   earliest deadline, the *timekeeper*, stays runnable: it yields in a loop and returns once the
//!   virtual clock passes its deadline. When the scheduler runs it twice in a row (no other thread
//!   took a step in between: every other thread is blocked, or the scheduler chose to let time
//!   pass), it moves the clock to its deadline at once. The other timed waiters park until they
//!   become the timekeeper or are woken. So a timed wait never blocks the simulation: with nothing
//!   else to run, time jumps to the next deadline, as an idle machine's timer interrupt would.
//! * **Timing mode.** While `scheduler::VirtualTimeScheduler` drives the execution, [`vtime`]
//!   replaces the step-counting clock above: each virtual thread has its own clock, the atomics of
//!   [`atomic`] (shuttle's, charged), fences, barriers, spins, yields and futex calls charge their
//!   calibrated costs ([`costs`]), [`now`] reads the calling thread's clock in nanoseconds, a wake
//!   sets the woken thread's clock (max of its own and the waker's + the wake latency), and a timed
//!   wait moves the waiter's clock to its deadline instead of electing a timekeeper. Under any
//!   other scheduler the hooks do nothing and everything above holds unchanged.

use std::cell::Cell;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use shuttle::sync::{Condvar, Mutex};
use shuttle::thread;

pub(crate) mod atomic;
pub(crate) mod costs;
pub(crate) mod frames;
pub(crate) mod line_profile;
pub(crate) mod scheduler;
pub(crate) mod vtime;

use atomic::{AtomicU32, Ordering};

/// Whether pools built from now on keep a reserve worker (`sim_time::keep_reserve_workers`); off
/// by default, so that the other simulations model the pool's own threads only (a reserve would
/// hide the lost wake-ups they look for).
static RESERVE_WORKERS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// See [`RESERVE_WORKERS`].
pub(crate) fn reserve_workers() -> bool {
    RESERVE_WORKERS.load(std::sync::atomic::Ordering::Relaxed)
}

/// See [`RESERVE_WORKERS`].
pub(crate) fn keep_reserve_workers(on: bool) {
    RESERVE_WORKERS.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Nanoseconds one scheduling step stands for on the virtual clock. A step is one atomic
/// operation, lock, yield or park; counting it as a microsecond makes the 100 µs sharing heartbeat
/// and the first patrol come every hundred steps, so small simulated problems reach them.
pub(crate) const NS_PER_TICK: u64 = 1000;

/// Fixed-point fraction bits of [`Execution::steps_time`].
const FRACTION_BITS: u32 = 16;

/// What one execution keeps besides the threads' own state.
#[derive(Default)]
struct Execution {
    /// Virtual time skipped by timekeepers (see the module docs), in ticks.
    skew: u64,
    /// Virtual time the scheduling steps stand for, in ticks << [`FRACTION_BITS`].
    steps_time: u64,
    /// `context_switches` when `steps_time` was last brought up to date.
    steps_seen: u64,
    /// Pool workers running ([`RunningThread`]), besides the test's main thread.
    workers: usize,
    /// Virtual threads parked on a futex (not taking steps).
    parked: usize,
    /// Pending timed waits: (deadline, unique id, the waiting thread's parker).
    timers: Vec<(u64, u64, Arc<Parker>)>,
    /// The next timer id.
    next_timer: u64,
}

shuttle::lazy_static! {
    /// Per execution: shuttle drops it when the execution ends and starts the next one afresh.
    static ref EXECUTION: StdMutex<Execution> = StdMutex::new(Execution::default());
}

/// Runs `f` on this execution's state. Never holds the lock across a scheduling point.
fn with_execution<R>(f: impl FnOnce(&mut Execution) -> R) -> R {
    f(&mut EXECUTION.lock().unwrap_or_else(|e| e.into_inner()))
}

impl Execution {
    /// Brings the time of the steps up to date: each step since the last update counts as one tick
    /// shared by the running threads. Call before the number of running threads changes.
    fn advance(&mut self) {
        let steps = shuttle::current::context_switches() as u64;
        let running = (1 + self.workers).saturating_sub(self.parked).max(1) as u64;
        self.steps_time += ((steps - self.steps_seen.min(steps)) << FRACTION_BITS) / running;
        self.steps_seen = steps;
    }

    /// The virtual clock, in ticks.
    fn now(&mut self) -> u64 {
        self.advance();
        (self.steps_time >> FRACTION_BITS) + self.skew
    }
}

/// The virtual clock, in ticks of [`ns_per_tick`] nanoseconds (see the module docs): in the timing
/// mode the calling virtual thread's own clock, and the read is charged.
pub(crate) fn now() -> u64 {
    vtime::clock_read().unwrap_or_else(|| with_execution(Execution::now))
}

/// Nanoseconds per tick of [`now`]: [`NS_PER_TICK`], or 1 in the timing mode (whose clocks count
/// nanoseconds).
pub(crate) fn ns_per_tick() -> u64 {
    if vtime::active() {
        1
    } else {
        NS_PER_TICK
    }
}

/// Counts the calling virtual thread among the running pool workers until dropped (the pool's
/// `main_loop` holds one), for the clock's rate (see the module docs).
pub(crate) struct RunningThread(());

impl RunningThread {
    pub(crate) fn enter() -> Self {
        with_execution(|e| {
            e.advance();
            e.workers += 1;
        });
        RunningThread(())
    }
}

impl Drop for RunningThread {
    fn drop(&mut self) {
        with_execution(|e| {
            e.advance();
            e.workers -= 1;
        });
    }
}

/// `d` in ticks, at least 1.
fn ticks_in(d: Duration) -> u64 {
    ((d.as_nanos() / ns_per_tick() as u128) as u64).max(1)
}

/// Parks and unparks one virtual thread, with no spurious wake-ups (see the module docs).
pub(crate) struct Parker {
    /// The token: set by `unpark`, taken by `park`.
    token: Mutex<bool>,
    unparked: Condvar,
    /// The virtual thread it parks (its shuttle task id), for the timing mode's wake-up rule.
    task: usize,
}

impl Parker {
    /// Blocks until the token is available, and takes it.
    fn park(&self) {
        let mut token = self.token.lock().unwrap_or_else(|e| e.into_inner());
        with_execution(|e| {
            e.advance();
            e.parked += 1;
        });
        if !*token {
            vtime::park_begin();
            while !*token {
                token = self.unparked.wait(token).unwrap_or_else(|e| e.into_inner());
            }
            vtime::park_end();
        }
        with_execution(|e| {
            e.advance();
            e.parked -= 1;
        });
        *token = false;
    }

    /// Makes the token available, waking the thread if it is parked.
    fn unpark(&self) {
        vtime::wake(self.task);
        *self.token.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.unparked.notify_one();
    }

    /// The calling virtual thread's parker.
    fn current() -> Arc<Parker> {
        shuttle::thread_local! {
            static PARKER: Arc<Parker> = Arc::new(Parker {
                token: Mutex::new(false),
                unparked: Condvar::new(),
                task: usize::from(shuttle::current::me()),
            });
        }
        PARKER.with(Arc::clone)
    }
}

/// A thread-local of the virtual thread: `std`'s `LocalKey` API over `shuttle::thread_local!`.
pub(crate) struct LocalKey<T: 'static>(pub(crate) &'static shuttle::thread::LocalKey<T>);

impl<T: 'static> LocalKey<T> {
    /// Runs `f` on this virtual thread's value.
    #[inline]
    pub(crate) fn with<R>(&'static self, f: impl FnOnce(&T) -> R) -> R {
        self.0.with(f)
    }

    /// [`with`](Self::with), or an error once this virtual thread's value was destroyed.
    #[inline]
    pub(crate) fn try_with<R>(&'static self, f: impl FnOnce(&T) -> R) -> Result<R, ()> {
        self.0.try_with(f).map_err(drop)
    }
}

impl<T: Copy + 'static> LocalKey<Cell<T>> {
    /// This virtual thread's value.
    #[inline]
    pub(crate) fn get(&'static self) -> T {
        self.0.with(Cell::get)
    }

    /// Replaces this virtual thread's value.
    #[inline]
    pub(crate) fn set(&'static self, value: T) {
        self.0.with(|c| c.set(value));
    }
}

/// `thread_local!` of the shuttle build: one value per virtual thread (const initialisers only,
/// which is all the crate uses).
macro_rules! sim_thread_local {
    () => {};
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = const { $init:expr }; $($rest:tt)*) => {
        $(#[$attr])* $vis static $name: $crate::platform::sync::LocalKey<$t> = {
            ::shuttle::thread_local!(static KEY: $t = const { $init });
            $crate::platform::sync::LocalKey(&KEY)
        };
        $crate::platform::sync::sim::sim_thread_local!($($rest)*);
    };
}
pub(crate) use sim_thread_local;

/// The futex of the shuttle build (see the module docs): a word, and the virtual threads parked on it.
pub(crate) struct Futex {
    word: AtomicU32,
    /// Registered waiters. A `std` lock: never held across a scheduling point, so never contended.
    waiters: StdMutex<Vec<Arc<Parker>>>,
}

impl Futex {
    pub(crate) fn new(value: u32) -> Self {
        Futex {
            word: AtomicU32::new(value),
            waiters: StdMutex::new(Vec::new()),
        }
    }

    /// The word itself; all state changes go through it.
    #[inline(always)]
    pub(crate) fn word(&self) -> &AtomicU32 {
        &self.word
    }

    fn waiters(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Parker>>> {
        self.waiters.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn unregister(&self, me: &Arc<Parker>) {
        self.waiters().retain(|p| !Arc::ptr_eq(p, me));
    }

    /// Parks while the word equals `expected` (may return spuriously).
    pub(crate) fn wait(&self, expected: u32) {
        let me = Parker::current();
        self.waiters().push(me.clone());
        // SeqCst: shuttle runs sequentially consistent; the load is the step after registering, so a
        // waker that changes the word later finds us registered.
        if self.word.load(Ordering::SeqCst) == expected {
            me.park();
        }
        self.unregister(&me);
    }

    /// Waits while the word equals `expected`, until the virtual clock passes `timeout` from now
    /// (may return earlier, spuriously). See the module docs for how time passes meanwhile.
    pub(crate) fn wait_timeout(&self, expected: u32, timeout: Duration) {
        if vtime::active() {
            return self.wait_timeout_timed(expected, timeout);
        }
        let me = Parker::current();
        let deadline = now() + ticks_in(timeout);
        let id = with_execution(|e| {
            e.next_timer += 1;
            e.timers.push((deadline, e.next_timer, me.clone()));
            e.next_timer
        });
        self.waiters().push(me.clone());
        loop {
            // SeqCst: as in `wait`.
            if self.word.load(Ordering::SeqCst) != expected {
                break;
            }
            let (now, keeper) = with_execution(|e| {
                let first = e.timers.iter().min_by_key(|t| (t.0, t.1)).map(|t| t.1);
                (e.now(), first == Some(id))
            });
            if now >= deadline {
                break;
            }
            if keeper {
                let before = shuttle::current::context_switches();
                thread::yield_now();
                if shuttle::current::context_switches() == before + 1 {
                    // Nobody else took a step: let the time until our deadline pass.
                    with_execution(|e| e.skew += deadline.saturating_sub(now));
                }
            } else {
                me.park();
            }
        }
        self.unregister(&me);
        // Hand the timekeeping on to the next deadline (it may be parked).
        let next = with_execution(|e| {
            e.timers.retain(|t| t.1 != id);
            e.timers
                .iter()
                .min_by_key(|t| (t.0, t.1))
                .map(|t| t.2.clone())
        });
        if let Some(next) = next {
            next.unpark();
        }
    }

    /// `wait_timeout` in the timing mode: the waiter stays runnable with its clock at the deadline
    /// (see `vtime`), and returns when the word changed, a wake brought it forward, or the deadline
    /// passed.
    fn wait_timeout_timed(&self, expected: u32, timeout: Duration) {
        let me = Parker::current();
        self.waiters().push(me.clone());
        // SeqCst: as in `wait`.
        if self.word.load(Ordering::SeqCst) == expected {
            let timeout_ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX / 4);
            if let Some(deadline) = vtime::timed_wait_begin(timeout_ns) {
                loop {
                    // A scheduling point: the scheduler runs us when our clock is the smallest.
                    thread::yield_now();
                    // SeqCst: as in `wait`.
                    if vtime::timed_wait_over(deadline)
                        || self.word.load(Ordering::SeqCst) != expected
                    {
                        break;
                    }
                }
                vtime::timed_wait_end();
            }
        }
        self.unregister(&me);
        // The wake that ended the wait left its token: take it, so a later park does not return at
        // once (it would be a spurious wake-up, which callers tolerate, but costs a round).
        *me.token.lock().unwrap_or_else(|e| e.into_inner()) = false;
    }

    /// Unparks up to `n` waiters; call after changing the word.
    pub(crate) fn wake(&self, n: i32) {
        vtime::wake_call();
        let woken: Vec<Arc<Parker>> = {
            let mut waiters = self.waiters();
            let n = (n.max(0) as usize).min(waiters.len());
            waiters.drain(..n).collect()
        };
        for p in woken {
            p.unpark();
        }
    }
}

/// The broken variants the self-check knows (`scripts/sim-bugs.sh`): one site each.
const SIM_BUGS: [&str; 17] = [
    "no_wake_on_inject",
    "no_wake_on_latch",
    "steal_without_cas",
    "bounded_regions",
    "cancel_not_inherited",
    "release_held_while_idle",
    "reserve_keeps_running",
    "siblings_inline_joins",
    "siblings_first_push_only",
    "cap_ignored",
    "cap_no_pump",
    "resize_restart_lost",
    "deadline_keeps_running",
    "demanded_split_private",
    "bitmap_bit_after_count",
    "timeout_sleeps_on",
    "searcher_counted_asleep",
];

/// `sync::sim_bug` under shuttle: `FORKJOIN_SIM_BUG`, read once per process (a std `OnceLock`:
/// configuration, not a modeled operation, so no scheduling point). A name that is not one of
/// [`SIM_BUGS`] panics with that message, which the self-check refuses as a failure.
pub(crate) fn sim_bug(bug: &str) -> bool {
    static CHOSEN: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    debug_assert!(SIM_BUGS.contains(&bug), "an unlisted sim bug site: {bug}");
    let chosen = CHOSEN.get_or_init(|| {
        let name = std::env::var("FORKJOIN_SIM_BUG")
            .ok()
            .filter(|v| !v.is_empty())?;
        assert!(
            SIM_BUGS.contains(&name.as_str()),
            "FORKJOIN_SIM_BUG={name}: no such broken variant (known: {SIM_BUGS:?})"
        );
        Some(name)
    });
    chosen.as_deref() == Some(bug)
}
