//! Idle workers: spin → yield → sleep, and the protocol that wakes them without ever losing a wake-up.
//!
//! The states, rules and the proof sketch live in `src/runtime/sleep/README.md`; the short version:
//!
//! * A worker that finds no work counts idle *rounds*. The first rounds spin, the next ones yield. Then it
//!   **announces it is sleepy** by moving the global *jobs event counter* (JEC) from even ("active") to odd
//!   ("sleepy") and remembers the value, searches once more, and finally **falls asleep** only if the JEC still
//!   holds the remembered value (one CAS that also counts it as a sleeper).
//! * Whoever makes new work visible then announces it: a SeqCst fence and a load of the counters;
//!   only if the JEC is odd does it bump it to even (so no sleepy thread can complete its
//!   fall-asleep CAS), and only if some thread sleeps does it wake one. A push onto a public deque
//!   announces through `WorkMap::publish` (`crate::runtime::sleep::work_map`), which marks the
//!   deque, fences and calls [`Sleep::new_jobs_fenced`]; `Registry::inject` (work from outside the
//!   pool, through `registry::entry`) calls [`Sleep::new_injected_jobs`], which fences itself and
//!   may also wake a worker past its stack guard. (`Sleep::new_jobs`, fence and announce in one,
//!   is for the models and unit tests.) A busy pool therefore pays one fence and one shared load
//!   per publication, and no read-modify-write.
//! * A broadcast's share goes to one worker's own inbox (`Registry::push_broadcast`): a SeqCst
//!   fence, then that worker is woken directly, as for a latch (below).
//! * A latch set for a specific sleeping worker wakes exactly that worker
//!   ([`Sleep::notify_worker_latch_is_set`]).
//! * While some worker is busy, a sleeper wakes on its own after a *patrol* interval (100 µs, doubling to
//!   64 ms) to heavy-steal jobs that owners keep private (they publish on a heartbeat, and one blocked in
//!   user code never will); see [`IdleState::take_patrol_due`].
//!
//! Each worker sleeps on its own futex word (its *slot*, [`slot::SlotState`]): `AWAKE`, one of three
//! sleeping marks, or `WOKEN_FOR_WORK`. The sleeping mark says what the sleeper may take
//! ([`SleepMode`]): `SLEEPING` (idle: anything), `SLEEPING_WAITING` (waiting for a job: only jobs that
//! belong to its wait) or `SLEEPING_GUARDED` (past its stack guard, or waiting for another pool: only
//! injected work, a broadcast share or its latch wake it). A waker claims a sleeper by CAS out of its
//! sleeping mark and then issues the futex wake, so two wakers never spend their wake on the same
//! thread and the sleeper cannot miss it (the futex re-checks the word atomically). The sleeper
//! removes itself from the sleeper count when it wakes.
//!
//! A wake for work finds sleepers through the *sleeper map* ([`sleepers`]): one bit per worker
//! and sleeping mark, which the worker sets after its slot holds the mark and before it counts
//! itself a sleeper, and clears after its slot left the mark. The waker reads one word per 64
//! workers and tries only the listed slots, instead of a CAS on every worker's slot. A latch
//! wake needs no map: it knows its worker's slot.
//!
//! The packed counters word (`[JEC: 32][sleepers: 32]`) is [`counters::Counters`] /
//! [`counters::AtomicCounters`]; the slot word is [`slot::Slot`]. Both wrappers take their orderings
//! from the call sites below, where each is explained.

mod counters;
mod idle_flags;
mod searchers;
mod sleepers;
pub(crate) mod slot;
pub(crate) mod work_map;

use self::counters::{AtomicCounters, JobsEventCounter};
use self::idle_flags::IdleFlag;
use self::searchers::Searchers;
use self::sleepers::SleeperMap;
pub(crate) use self::slot::Slot;
use self::slot::SlotState;
use std::time::Duration;

use crate::platform::sync::{
    fence, sim_label, yield_now, AtomicBool, AtomicU64, AtomicUsize, Ordering,
};
use crossbeam_utils::CachePadded;

/// Rounds of `spin_loop` hints before yielding.
#[cfg(not(any(forkjoin_loom, forkjoin_shuttle)))]
const SPIN_ROUNDS: u32 = 8;
/// Round at which the worker announces it is sleepy (after spinning and yielding).
#[cfg(not(any(forkjoin_loom, forkjoin_shuttle)))]
const ROUNDS_UNTIL_SLEEPY: u32 = 32;
// Under shuttle each round of a 64-worker pool is ~130 scheduling steps of searching: keep a
// spin and a yield phase (so both paths run) but few rounds, or idle workers dominate every schedule.
#[cfg(forkjoin_shuttle)]
const SPIN_ROUNDS: u32 = 2;
#[cfg(forkjoin_shuttle)]
const ROUNDS_UNTIL_SLEEPY: u32 = 4;
// Under loom the rounds only multiply interleavings: one yielding round, in which the worker
// counts as a searcher (rule 12), then the protocol.
#[cfg(forkjoin_loom)]
const SPIN_ROUNDS: u32 = 0;
#[cfg(forkjoin_loom)]
const ROUNDS_UNTIL_SLEEPY: u32 = 1;

/// The idle rounds in force: `(SPIN_ROUNDS, ROUNDS_UNTIL_SLEEPY)`, except in the simulation's timing
/// mode, which predicts a machine's timing and so idles as production does (8, 32).
#[inline(always)]
fn idle_rounds() -> (u32, u32) {
    #[cfg(forkjoin_shuttle)]
    if crate::platform::sync::timing_mode() {
        return (8, 32);
    }
    (SPIN_ROUNDS, ROUNDS_UNTIL_SLEEPY)
}

/// How long a worker sleeps, while some other worker is busy, before it wakes to *patrol*: one heavy
/// steal of the oldest private job of every worker. Doubles after each patrol that finds nothing, up to
/// [`PATROL_MAX`]; back to this after work, or when new work is announced. Owners publish on a
/// heartbeat, not on every push, so a job pushed between two heartbeats whose owner then runs a long `a`
/// without pushing again (a sequential loop, or a wait on a channel that only b feeds) is found after
/// this long. The sharing heartbeat's length: shorter costs the busy workers more `membarrier`
/// interrupts, longer delays such a job.
const PATROL_FIRST: Duration = Duration::from_micros(100);
/// While more than half of the pool idles, patrols may come this many times as often pool-wide
/// (see [`Sleep::claim_patrol`]).
const MOSTLY_IDLE_PATROLS: u64 = 16;
/// The longest patrol interval.
const PATROL_MAX: Duration = Duration::from_millis(64);
/// How long a worker that saw every worker idle sleeps before it patrols anyway (real threads
/// only). It sleeps "without a patrol timeout" in the protocol's sense: a worker that leaves the
/// idle count afterwards publishes its first push at once (rule 8), but its later pushes stay
/// private, and if it then blocks in user code (a barrier its own private job would release),
/// only a patrol can reach them (a `siblings_may_wait` pool publishes them all: README rule 8).
/// This bound turns that hang into a delay, at one wake-up a second per sleeper of an idle pool. The models keep the sleep untimed, so a lost wake-up still
/// deadlocks them.
#[cfg(not(any(forkjoin_loom, forkjoin_shuttle)))]
const ALL_IDLE_PATROL: Duration = Duration::from_secs(1);

/// The most workers one pool may have (the sleeper count must fit the low half of the counters).
pub(crate) const MAX_THREADS: usize = 0xFFFF;

/// The idle/sleep state of one pool.
pub(crate) struct Sleep {
    /// `[JEC: 32 bits][sleepers: 32 bits]` (see [`counters`]), one word so that "JEC unchanged" and
    /// "count me as a sleeper" are decided by a single CAS.
    counters: CachePadded<AtomicCounters>,
    /// One futex word per worker.
    slots: Box<[CachePadded<Slot>]>,
    /// Which workers sleep under which mark (a hint for wakers: [`sleepers`]). Set by a worker
    /// after its slot holds its mark and before it counts itself a sleeper; cleared by it after it
    /// left the mark.
    sleepers: SleeperMap,
    /// Workers that ran out of work and can steal (searching or asleep, not past the stack guard).
    /// Written on every busy ↔ idle transition; read where the number matters (patrols, polls that
    /// decide how much to offer).
    idle_workers: CachePadded<AtomicUsize>,
    /// Idle workers that take anything, in their spinning and yielding rounds (rule 12,
    /// [`searchers`]): while one is counted, a publication wakes no sleeper.
    searchers: Searchers,
    /// The *idle flag*: `idle_workers != 0` ([`idle_flags`]: the count changes at every steal,
    /// the flag only when the count leaves or reaches zero). Owners read it on every private push
    /// and publish while it is set.
    some_idle: IdleFlag,
    /// The *second idle flag*: `idle_workers >= 2` ([`idle_flags`]). Read by polls that weigh an
    /// offer: one idle worker takes the offer already waiting, a second one the next.
    several_idle: IdleFlag,
    /// Workers asleep with no patrol timeout (they fell asleep while every worker was idle, rule 9):
    /// only while one exists must a worker leaving the idle count publish its first push at once
    /// (rule 8, [`Sleep::leave_idle`]).
    untimed_sleepers: CachePadded<AtomicUsize>,
    /// Ticks at the pool's last patrol, or [`NO_PATROL_YET`]: patrols are rate-limited pool-wide
    /// ([`Sleep::claim_patrol`]).
    last_patrol: CachePadded<AtomicU64>,
    /// [`PATROL_FIRST`] in ticks.
    patrol_gap: u64,
    /// Workers that can be in the idle count: the pool's threads (a resize changes them), plus its
    /// reserve worker while one runs (`crate::runtime::registry::reserve`). A sleeper that sees fewer idle workers than this
    /// sleeps only until its next patrol (rule 9).
    may_idle: AtomicUsize,
}

/// `last_patrol` before the first patrol.
const NO_PATROL_YET: u64 = u64::MAX;

/// A worker's progress through one idle period; create with [`Sleep::start_looking_as`].
#[derive(Debug)]
pub(crate) struct IdleState {
    index: usize,
    rounds: u32,
    /// The JEC value observed when announcing sleepiness (valid once `rounds > ROUNDS_UNTIL_SLEEPY`).
    jec: JobsEventCounter,
    /// How this worker sleeps (which wakes reach it).
    mode: SleepMode,
    /// A waker claimed this worker for new work since the last `take_woken_for_work`.
    woken_for_work: bool,
    /// The next timed sleep's length.
    patrol_interval: Duration,
    /// A timed sleep ran out since the last `take_patrol_due`: heavy-steal before sleeping again.
    patrol_due: bool,
    /// Tick counts (`crate::platform::clock::ticks`) around the last block on the futex: the trace's sleep span.
    slept: (u64, u64),
    /// Counted among the pool's searchers (rule 12): leave only through [`Sleep::stop_searching`].
    searching: bool,
}

/// What an idle worker can take, which decides which wakes for new work reach it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SleepMode {
    /// Anything: an idle worker. Sleeps as `SLEEPING`; a publication wakes it first.
    Idle,
    /// Only jobs of what it waits for (`crate::runtime::jobs::region`). Sleeps as
    /// `SLEEPING_WAITING`; a publication wakes it only if no idle worker sleeps.
    Waiting,
    /// Only its own deque's jobs, its broadcast shares and injected jobs: past its stack guard, or
    /// waiting for another pool. Sleeps as `SLEEPING_GUARDED`; only injected work wakes it.
    Guarded,
}

/// How [`Sleep::sleep`] ended.
enum Slept {
    /// It did not block (new work, the latch, or injected work intervened).
    No,
    /// A waker claimed it (for work, or its latch).
    Woken,
    /// It left on its own: the patrol interval ran out (or the wait returned spuriously).
    TimedOut,
}

/// What [`Sleep::no_work_found`] did, for the caller's statistics.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Idled {
    /// Spun, yielded or announced sleepiness.
    Waited,
    /// Tried to sleep but new work (or the latch) intervened.
    Aborted,
    /// Blocked on the futex and was woken.
    Slept,
    /// Blocked on the futex until the patrol interval ran out (see [`IdleState::take_patrol_due`]).
    TimedOut,
}

impl IdleState {
    /// Skips this idle period's spinning and yielding rounds: the next failed search announces
    /// sleepiness, and the one after it sleeps (for a worker that just started, with nothing to
    /// wait for yet). The protocol is unchanged: only how long the worker looks before it sleeps.
    pub(crate) fn skip_spinning(&mut self) {
        self.rounds = self.rounds.max(idle_rounds().1);
    }

    /// True if at least one search failed in this idle period.
    #[inline]
    pub(crate) fn has_idled(&self) -> bool {
        self.rounds > 0
    }

    /// The next timed sleep lasts twice as long, up to [`PATROL_MAX`].
    #[inline]
    fn double_patrol_interval(&mut self) {
        self.patrol_interval = (self.patrol_interval * 2).min(PATROL_MAX);
    }

    /// True (once) after a timed sleep ran out: the worker should now patrol, i.e. heavy-steal the
    /// oldest private job of every worker, before it searches and sleeps again.
    #[inline]
    pub(crate) fn take_patrol_due(&mut self) -> bool {
        std::mem::take(&mut self.patrol_due)
    }

    /// True (once) if a waker claimed this worker for new work: the worker must then search, or pass
    /// the wake on with [`Sleep::wake_one_if_sleeping`].
    #[inline]
    pub(crate) fn take_woken_for_work(&mut self) -> bool {
        std::mem::take(&mut self.woken_for_work)
    }

    /// Tick counts just before and just after the last block on the futex (valid after
    /// [`Sleep::no_work_found`] returned [`Idled::Slept`] or [`Idled::TimedOut`]). Two clock reads
    /// per sleep, against a futex wait of microseconds at least.
    #[inline]
    pub(crate) fn last_sleep(&self) -> (u64, u64) {
        self.slept
    }
}

impl Sleep {
    /// Names this state's shared lines for the simulation's line profile (`sync::sim_label`).
    pub(crate) fn label_lines(&self) {
        sim_label(&*self.counters, "sleep counters (JEC, sleepers)");
        sim_label(&*self.idle_workers, "idle count");
        self.searchers.label_lines();
        self.some_idle.label_lines("idle flag");
        self.several_idle.label_lines("second idle flag");
        sim_label(&*self.untimed_sleepers, "untimed sleepers");
        sim_label(&*self.last_patrol, "last patrol");
        self.sleepers.label_lines();
        for slot in self.slots.iter() {
            sim_label(&**slot, "sleep slots");
        }
    }

    /// Sleep state for a pool of `num_threads` workers (and no reserve worker).
    #[cfg(test)] // the unit tests and the loom models
    pub(crate) fn new(num_threads: usize) -> Self {
        Self::with_reserve(num_threads, 0)
    }

    /// Sleep state for a pool of `num_threads` workers and `reserve` more slots (vacant slots a resize
    /// may start, and the reserve worker's), which count as idle candidates only while a thread runs
    /// them ([`Sleep::thread_started`]).
    pub(crate) fn with_reserve(num_threads: usize, reserve: usize) -> Self {
        let slots = num_threads + reserve;
        assert!(slots <= MAX_THREADS + 1);
        Sleep {
            counters: CachePadded::new(AtomicCounters::new()),
            slots: (0..slots).map(|_| CachePadded::new(Slot::new())).collect(),
            sleepers: SleeperMap::new(slots),
            idle_workers: CachePadded::new(AtomicUsize::new(0)),
            searchers: Searchers::new(),
            some_idle: IdleFlag::new(1),
            several_idle: IdleFlag::new(2),
            untimed_sleepers: CachePadded::new(AtomicUsize::new(0)),
            last_patrol: CachePadded::new(AtomicU64::new(NO_PATROL_YET)),
            patrol_gap: crate::platform::clock::ticks_in(PATROL_FIRST),
            may_idle: AtomicUsize::new(num_threads),
        }
    }

    /// Number of workers this sleep state serves (reserve slots included).
    #[cfg(all(test, forkjoin_loom))] // the loom models
    pub(crate) fn num_threads(&self) -> usize {
        self.slots.len()
    }

    /// A thread starts running a worker slot past the pool's first threads (a reserve worker, or a
    /// thread a resize started), or with `false` stops: it may hold private jobs, so sleepers keep
    /// patrolling while it is not idle.
    pub(crate) fn thread_started(&self, running: bool) {
        // Relaxed: only the choice between a patrol timeout and the one-second sleep reads it.
        if running {
            self.may_idle.fetch_add(1, Ordering::Relaxed);
        } else {
            self.may_idle.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Begins an idle period for worker `index`.
    #[cfg(test)] // the unit tests and the loom models
    #[inline]
    pub(crate) fn start_looking(&self, index: usize) -> IdleState {
        self.start_looking_as(index, SleepMode::Idle)
    }

    /// Begins an idle period for worker `index`, which can take what `mode` says.
    #[inline]
    pub(crate) fn start_looking_as(&self, index: usize, mode: SleepMode) -> IdleState {
        IdleState {
            index,
            rounds: 0,
            jec: JobsEventCounter::default(),
            mode,
            woken_for_work: false,
            patrol_interval: PATROL_FIRST,
            patrol_due: false,
            slept: (0, 0),
            searching: false,
        }
    }

    /// The count of idle workers that can steal (see the field).
    #[cfg(test)] // the unit tests and the loom models; the pool reads the flags or a method
    pub(crate) fn idle_workers(&self) -> &AtomicUsize {
        &self.idle_workers
    }

    /// The idle flag (set while the idle count is non-zero), which owners read on every push.
    pub(crate) fn some_idle(&self) -> &AtomicBool {
        self.some_idle.get()
    }

    /// The second idle flag (set while two or more workers idle), which polls read.
    pub(crate) fn several_idle(&self) -> &AtomicBool {
        self.several_idle.get()
    }

    /// A worker joins the idle count (it ran out of work; [`leave_idle`](Self::leave_idle) is the
    /// way back). The first one sets the idle flag, the second one the second idle flag.
    ///
    /// **A flag never stays clear while the count is at its threshold** ([`idle_flags`]: the
    /// enter that reaches it fences and sets, the leave that goes below clears, fences and
    /// re-reads). A flag can stay *set* below its threshold after three transitions race: then
    /// owners publish a job nobody takes, or a poll offers one more piece, until the next
    /// transition through the threshold. Both states are hints only: patrols reach private jobs
    /// whatever the flags say (loom: `the_idle_flag_follows_the_count`).
    pub(crate) fn enter_idle(&self) {
        // AcqRel: the count's updates form one release sequence, so a leave that reads our
        // increment is ordered after everything before it (our earlier sets included).
        let before = self.idle_workers.fetch_add(1, Ordering::AcqRel);
        self.some_idle.entered(before);
        self.several_idle.entered(before);
    }

    /// A worker leaves the idle count (it found a job, or the latch it waited on was set). True if
    /// some worker sleeps with no patrol timeout: then this worker's first push must be published at
    /// once (README rule 8), because that sleeper will not come to heavy-steal it.
    ///
    /// Otherwise every sleeper patrols, so the worker keeps its sharing heartbeat: in a pool of many
    /// workers, a worker that waited on a stolen job or stole a small one would otherwise publish
    /// half of its next call at once, every time, and the work would break up into hand-offs that
    /// cost more than the work they carry.
    #[inline]
    pub(crate) fn leave_idle(&self) -> bool {
        // AcqRel: see `enter_idle`.
        let before = self.idle_workers.fetch_sub(1, Ordering::AcqRel);
        // A leave crosses at most one threshold.
        let cleared = if self.some_idle.left(before) {
            Some(&self.some_idle)
        } else if self.several_idle.left(before) {
            Some(&self.several_idle)
        } else {
            None
        };
        // Decrement, SeqCst fence, load: pairs with the sleeper's increment of `untimed_sleepers`,
        // fence and load of `idle_workers` in `sleep` (a store-load handshake: either it sees us
        // leave and sleeps with a patrol timeout, or we see it and publish at once). The same fence
        // orders a flag's clear before its re-read of the count ([`idle_flags`]).
        fence(Ordering::SeqCst);
        if let Some(flag) = cleared {
            flag.recheck(&self.idle_workers);
        }
        // Relaxed: see `enter_idle`.
        self.untimed_sleepers.load(Ordering::Relaxed) != 0
    }

    /// True if some worker sleeps with no patrol timeout (a hint: Relaxed). A worker that saw one
    /// when it left the idle count (`leave_idle`) sees it here until it wakes.
    #[inline]
    pub(crate) fn has_untimed_sleepers(&self) -> bool {
        self.untimed_sleepers.load(Ordering::Relaxed) != 0
    }

    /// More than half of the pool idles (Relaxed loads, both: a hint, for the patrol rate and the
    /// sharing heartbeat's tail).
    #[inline]
    pub(crate) fn mostly_idle(&self) -> bool {
        self.idle_workers.load(Ordering::Relaxed) * 2 > self.may_idle.load(Ordering::Relaxed)
    }

    /// A worker's patrol is due (its timed sleep ran out): true if it should run its heavy steal,
    /// false if another worker of the pool patrolled less than [`PATROL_FIRST`] ago, or, while
    /// more than half of the pool idles, less than [`PATROL_FIRST`] / [`MOSTLY_IDLE_PATROLS`].
    ///
    /// A heavy steal's barrier interrupts every CPU that runs a thread of the process, so each
    /// sleeper patrolling on its own timer would cost the busy workers one interrupt per patrol
    /// interval per sleeper: with 15 sleepers and one busy worker, one every 7 µs. One patrol scans
    /// every worker's private stack, so one per interval pool-wide finds what all of them would; a
    /// patrol that loses sleeps again (twice as long) and a later one takes the next hidden job.
    ///
    /// But a patrol takes one job, and at the end of a call the few workers still busy hold the
    /// rest of the work privately, publishing one job per heartbeat each: one heavy steal per
    /// 100 µs then leaves most of the pool asleep beside big private jobs (a tail of 45 % of the
    /// simulated fib(36) at 64 cores). While most workers idle, the interrupts hit few busy CPUs.
    pub(crate) fn claim_patrol(&self) -> bool {
        let now = crate::platform::clock::ticks();
        // Relaxed: a rate limit, not a protocol step; a job hidden on a private stack stays there
        // until some patrol's own barrier (see `crate::runtime::jobs::jobstack`), whoever runs it.
        let last = self.last_patrol.load(Ordering::Relaxed);
        let gap = if self.mostly_idle() {
            self.patrol_gap / MOSTLY_IDLE_PATROLS
        } else {
            self.patrol_gap
        };
        if last != NO_PATROL_YET && now.wrapping_sub(last) < gap {
            return false;
        }
        self.last_patrol
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// Called by an idle worker after a search that found nothing.
    ///
    /// `try_sleep` is the worker's latch's `UNSET → SLEEPING` transition: it runs after this worker's slot
    /// holds its sleeping mark, so a latch setter that observes the latch's sleeping state finds the slot
    /// claimable. If it returns false (latch set) the worker does not sleep. `has_injected_jobs` is the
    /// last check before blocking (see README, "JEC wrap-around").
    // Under loom both round limits are 0, which makes the first two comparisons constant.
    #[cfg_attr(forkjoin_loom, allow(clippy::absurd_extreme_comparisons))]
    pub(crate) fn no_work_found(
        &self,
        idle: &mut IdleState,
        try_sleep: impl FnOnce() -> bool,
        has_injected_jobs: impl FnOnce() -> bool,
    ) -> Idled {
        let (spin_rounds, rounds_until_sleepy) = idle_rounds();
        if idle.rounds < rounds_until_sleepy && idle.mode == SleepMode::Idle && !idle.searching {
            self.start_searching(idle);
        }
        if idle.rounds < spin_rounds {
            for _ in 0..(1u32 << idle.rounds.min(6)) {
                crate::platform::sync::spin_loop();
            }
            idle.rounds += 1;
            Idled::Waited
        } else if idle.rounds < rounds_until_sleepy {
            yield_now();
            idle.rounds += 1;
            Idled::Waited
        } else if idle.rounds == rounds_until_sleepy {
            // Uncount before the announcement's fence: the search after it is this searcher's
            // last look (rule 12). The broken variant stays counted while it sleeps, until it
            // leaves its idle loop: every publication takes it for a searcher and wakes nobody.
            if !crate::platform::sync::sim_bug("searcher_counted_asleep") {
                self.stop_searching(idle);
            }
            idle.jec = self.announce_sleepy();
            idle.rounds += 1;
            Idled::Waited
        } else {
            match self.sleep(idle, try_sleep, has_injected_jobs) {
                Slept::No => {
                    // Search in earnest again before the next attempt. New work appeared: the pool
                    // is active, so patrol at the short interval again.
                    idle.rounds = 0;
                    idle.patrol_interval = PATROL_FIRST;
                    Idled::Aborted
                }
                Slept::Woken => {
                    idle.rounds = 0;
                    idle.patrol_interval = PATROL_FIRST;
                    Idled::Slept
                }
                Slept::TimedOut => {
                    // Nobody needed us: patrol, then go back to sleep at once (announcing again),
                    // for twice as long.
                    idle.rounds = rounds_until_sleepy;
                    idle.double_patrol_interval();
                    Idled::TimedOut
                }
            }
        }
    }

    /// Counts this worker among the searchers (rule 12) before its next search.
    fn start_searching(&self, idle: &mut IdleState) {
        self.searchers.enter();
        idle.searching = true;
    }

    /// Uncounts this worker from the searchers if it was one (rule 12) and fences. True if it
    /// was: a caller that leaves its idle period (with a job, or through its latch) must then look
    /// for work still visible and announce it ([`announce_visible_work`](Self::announce_visible_work)),
    /// since a publication may have woken nobody because it counted us.
    #[inline]
    pub(crate) fn stop_searching(&self, idle: &mut IdleState) -> bool {
        if !idle.searching {
            return false;
        }
        idle.searching = false;
        self.searchers.leave();
        true
    }

    /// Work is visible that this worker, back from idling, will not take (rules 6 and 12):
    /// announces it as its publisher did, from worker `from` on, waking a sleeper unless a searcher
    /// is counted. Returns the worker woken, if any.
    #[inline]
    pub(crate) fn announce_visible_work(&self, from: usize) -> Option<usize> {
        // SeqCst fence: as in `new_jobs`; what we saw visible came before it.
        fence(Ordering::SeqCst);
        self.announce_jobs(false, from + 1)
    }

    /// Makes the JEC odd ("sleepy") unless it already is, and returns the odd value.
    fn announce_sleepy(&self) -> JobsEventCounter {
        // SeqCst: this read-modify-write and the search that follows it are ordered against the
        // publisher's fence in `new_jobs` (see README, rule 3).
        let mut current = self.counters.load(Ordering::SeqCst);
        let jec = loop {
            if current.jobs_counter().is_sleepy() {
                break current.jobs_counter();
            }
            let sleepy = current.with_next_jobs_counter();
            match self.counters.compare_exchange_weak(
                current,
                sleepy,
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => break sleepy.jobs_counter(),
                Err(now) => current = now,
            }
        };
        // SeqCst fence: pairs with the fence in `new_jobs`; the next search sees every job published
        // before a publisher read the counters as "active".
        fence(Ordering::SeqCst);
        jec
    }

    /// Blocks the worker until it is woken, or, while another worker is busy, until its patrol
    /// interval runs out.
    fn sleep(
        &self,
        idle: &mut IdleState,
        try_sleep: impl FnOnce() -> bool,
        has_injected_jobs: impl FnOnce() -> bool,
    ) -> Slept {
        let (index, mode) = (idle.index, idle.mode);
        let slot = &self.slots[index];
        let mark = SlotState::sleeping(mode);
        // Leaving the sleeping state ourselves: note whether a waker claimed us for work meanwhile,
        // then unlist ourselves from the sleeper map (only once the slot left the mark: a waker
        // that still reads our bit finds the slot unclaimable). True if nobody claimed us (we
        // leave on our own: a timeout).
        let give_up = |idle: &mut IdleState| {
            // AcqRel: acquire what a claiming waker published; the swap orders against its CAS.
            let was = slot.swap(SlotState::AWAKE, Ordering::AcqRel);
            if was.is_woken_for_work() {
                idle.woken_for_work = true;
            }
            self.sleepers.remove(index, mode);
            was == mark
        };
        // SeqCst: must be visible to any latch setter that observes the latch's SLEEPING state (set by
        // `try_sleep` below), and to any waker that observes our sleeper count.
        slot.store(mark, Ordering::SeqCst);
        if !try_sleep() {
            give_up(idle);
            return Slept::No;
        }
        // List ourselves before we count ourselves (rule 4): a waker that reads us counted then
        // finds our bit. The broken variant lists us only after the count, just before we block.
        let list_late = crate::platform::sync::sim_bug("bitmap_bit_after_count");
        if !list_late {
            self.sleepers.insert(index, mode);
        }
        // SeqCst: part of the fall-asleep step below; pairs with `announce_jobs`' fence + load.
        let mut current = self.counters.load(Ordering::SeqCst);
        loop {
            if current.jobs_counter() != idle.jec {
                // New work since we announced sleepiness: search again instead. A waker that claimed our
                // slot meanwhile is satisfied, because we are awake and about to search.
                give_up(idle);
                return Slept::No;
            }
            // SeqCst: the decisive step; pairs with `new_jobs`' fence + load (rule 3 of the README).
            match self.counters.compare_exchange_weak(
                current,
                current.with_one_more_sleeper(),
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => break,
                Err(now) => current = now,
            }
        }
        // SeqCst fence: pairs with the injector's push + `new_jobs` fence, for the wrap-around check.
        fence(Ordering::SeqCst);
        if has_injected_jobs() {
            // Relaxed: as below.
            self.counters.remove_sleeper(Ordering::Relaxed);
            give_up(idle);
            return Slept::No;
        }
        if list_late {
            self.sleepers.insert(index, mode);
        }
        // While another worker is busy it may hold private jobs that nobody will publish (its owner
        // publishes on a heartbeat and may block in user code): sleep only until the next patrol.
        // Count ourselves as a candidate untimed sleeper first. Increment, SeqCst fence, load:
        // pairs with `leave_idle` (its decrement, fence and load of this count): a worker that
        // leaves the idle count after our load sees us and publishes its first push at once, which
        // `new_jobs` announces to us.
        self.untimed_sleepers.fetch_add(1, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        let timed =
            self.idle_workers.load(Ordering::Relaxed) < self.may_idle.load(Ordering::Relaxed);
        if timed {
            // Relaxed: only `leave_idle`'s decision reads it; a stale count only publishes early.
            self.untimed_sleepers.fetch_sub(1, Ordering::Relaxed);
        }
        let asleep_at = crate::platform::clock::ticks();
        // Acquire: pairs with the waker's CAS out of `mark`, so whatever it published before waking us
        // is visible once we leave.
        if timed {
            self.wait_for_patrol(idle, mark, |idle| idle.patrol_interval);
        } else {
            #[cfg(not(any(forkjoin_loom, forkjoin_shuttle)))]
            self.wait_for_patrol(idle, mark, |_| ALL_IDLE_PATROL);
            #[cfg(any(forkjoin_loom, forkjoin_shuttle))]
            while slot.load(Ordering::Acquire) == mark {
                slot.wait_while(mark);
            }
        }
        idle.slept = (asleep_at, crate::platform::clock::ticks());
        if !timed {
            // Relaxed: as above.
            self.untimed_sleepers.fetch_sub(1, Ordering::Relaxed);
        }
        let timed_out = give_up(idle);
        // Relaxed: the count is only a hint for wakers; each sleeper removes exactly its own increment.
        self.counters.remove_sleeper(Ordering::Relaxed);
        if timed_out {
            Slept::TimedOut
        } else {
            Slept::Woken
        }
    }

    /// Blocks while this worker's slot holds `mark`, for `limit(idle)` at a time, until a waker
    /// claims the slot or a timeout claims the pool's next patrol (rule 9; then the patrol is due,
    /// [`IdleState::take_patrol_due`]). A timeout whose patrol another worker made moments ago
    /// sleeps on, for twice as long, without leaving the sleeping state: still marked, listed and
    /// counted, it is a sleeper to every waker throughout, so it needs no new announcement, search
    /// or count. Leaving and coming back cost every such timeout about ten read-modify-writes on
    /// lines every sleeper shares (the counters, the sleeper map), behind which the wakes for new
    /// work queue at hundreds of workers. A guarded sleeper, which never patrols, leaves at its
    /// first timeout.
    fn wait_for_patrol(
        &self,
        idle: &mut IdleState,
        mark: SlotState,
        limit: impl Fn(&IdleState) -> Duration,
    ) {
        let slot = &self.slots[idle.index];
        // Acquire: as in `sleep`.
        while slot.load(Ordering::Acquire) == mark {
            slot.wait_while_for(mark, limit(idle));
            if idle.mode == SleepMode::Guarded || slot.load(Ordering::Acquire) != mark {
                return;
            }
            // The simulation's self-check (scripts/sim-bugs.sh): a timeout that never claims a
            // patrol leaves a blocked owner's private b out of every sleeper's reach.
            // Loom's clock stands still, so a claim after the first would fail forever: there
            // every timeout patrols (loom fires timeouts at once).
            if !crate::platform::sync::sim_bug("timeout_sleeps_on")
                && (cfg!(forkjoin_loom) || self.claim_patrol())
            {
                idle.patrol_due = true;
                return;
            }
            idle.double_patrol_interval();
        }
    }

    /// Announces that new stealable work became visible (call *after* publishing it); wakes one sleeper
    /// that can steal, if needed. Returns the index of the worker it woke, if any (for the trace).
    /// The pool's deques announce through `WorkMap::publish`, which fences itself and calls
    /// [`new_jobs_fenced`](Self::new_jobs_fenced); the models and unit tests use this.
    #[cfg(test)]
    #[inline]
    pub(crate) fn new_jobs(&self) -> Option<usize> {
        // SeqCst fence: pairs with `announce_sleepy` and the fall-asleep CAS in `sleep`. Either a
        // sleepy thread's search sees our job, or we see its odd JEC / its sleeper count below.
        fence(Ordering::SeqCst);
        self.announce_jobs(false, 0)
    }

    /// `new_jobs` for a caller that issued the `fence(SeqCst)` itself after
    /// making the job visible (`WorkMap::publish`, whose fences follow its last write). Worker
    /// `from` published: the wake looks for a sleeper from the next worker on, so that publishers
    /// waking at once spread over the sleepers instead of racing for the lowest one.
    #[inline]
    pub(crate) fn new_jobs_fenced(&self, from: usize) -> Option<usize> {
        self.announce_jobs(false, from + 1)
    }

    /// Announces a job pushed into the injector; may also wake a worker past its stack guard (which
    /// still takes injected work).
    pub(crate) fn new_injected_jobs(&self) {
        // SeqCst fence: as in `new_jobs`.
        fence(Ordering::SeqCst);
        self.announce_jobs(true, 0);
    }

    /// Rule 2 after the publisher's fence: moves a sleepy JEC on and wakes one sleeper if any,
    /// looking from worker `start` on; a publication on a deque wakes nobody while a searcher is
    /// counted (rule 12). Injected work always wakes: it may be for a guarded sleeper.
    #[inline]
    fn announce_jobs(&self, include_guarded: bool, start: usize) -> Option<usize> {
        if self.make_jec_active() == 0 {
            return None;
        }
        if !include_guarded && self.searchers.any() {
            return None;
        }
        self.wake_any(include_guarded, start)
    }

    /// Rule 2's first half: moves a sleepy JEC on to the next (even) value. Returns the sleeper
    /// count read with it.
    #[inline]
    fn make_jec_active(&self) -> u32 {
        let mut current = self.counters.load(Ordering::SeqCst);
        loop {
            if !current.jobs_counter().is_sleepy() {
                break;
            }
            let active = current.with_next_jobs_counter();
            // SeqCst: makes every pending fall-asleep CAS fail (it compares the whole word).
            match self.counters.compare_exchange_weak(
                current,
                active,
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => {
                    current = active;
                    break;
                }
                Err(now) => current = now,
            }
        }
        current.sleeping_threads()
    }

    /// Wakes one sleeping worker if the count says there is one (a worker that found work after idling
    /// calls this so parallelism spreads). Returns the index of the worker it woke, if any.
    pub(crate) fn wake_one_if_sleeping(&self) -> Option<usize> {
        // Acquire: a heuristic (missing a sleeper here loses no work: the work is already taken),
        // but a sleeper we see counted must show in the sleeper map that `wake_any` reads, as it
        // did in its slot when every slot was tried: pairs with its fall-asleep CAS.
        if self.counters.load(Ordering::Acquire).sleeping_threads() != 0 {
            self.wake_any(false, 0)
        } else {
            None
        }
    }

    /// Passes on a wake for work that a waiting worker could not use (rule 7): wakes one *idle*
    /// sleeper, which takes anything, if one sleeps. Never another waiting worker, so a wake cannot
    /// circle among waiters that all refuse the job.
    pub(crate) fn pass_wake_to_idle(&self) -> Option<usize> {
        // Acquire: as in `wake_one_if_sleeping`.
        if self.counters.load(Ordering::Acquire).sleeping_threads() != 0 {
            self.claim_first(SleepMode::Idle, 0)
        } else {
            None
        }
    }

    /// Wakes one sleeping worker for new work, if any is still asleep: first an idle one, then one
    /// waiting for a job (it may be the job's), then (for injected work) one past its stack guard
    /// or waiting for another pool. Returns its index.
    #[cold]
    fn wake_any(&self, include_guarded: bool, start: usize) -> Option<usize> {
        self.claim_first(SleepMode::Idle, start)
            .or_else(|| self.claim_first(SleepMode::Waiting, start))
            .or_else(|| {
                include_guarded
                    .then(|| self.claim_first(SleepMode::Guarded, start))
                    .flatten()
            })
    }

    /// Claims a worker sleeping as `mode` for work (looking from worker `start` on, wrapping
    /// around), and wakes it: tries only the slots the sleeper map lists under `mode` (README,
    /// rule 4); a listed worker may have been claimed or be leaving, and the CAS on its slot
    /// decides. The caller read the counters first (an Acquire or SeqCst load), which orders the
    /// map's loads after the fall-asleep CAS of every sleeper it counted.
    fn claim_first(&self, mode: SleepMode, start: usize) -> Option<usize> {
        let mark = SlotState::sleeping(mode);
        self.sleepers.find(mode, start, |worker| {
            self.slots[worker].claim(mark, SlotState::WOKEN_FOR_WORK)
        })
    }

    /// Announces a job that only certain waiting workers may take, pushed into the injector (a job
    /// a waiting worker moved out of its own deque, or a scope's job spawned from outside the pool):
    /// wakes an idle sleeper if there is one, else every waiting and guarded sleeper, since only
    /// the one the job belongs to can use it and we cannot tell which. Rare: only waits that find
    /// another wait's job in their own deque, and scopes spawned into from plain threads.
    pub(crate) fn new_injected_jobs_for_waiters(&self) {
        // SeqCst fence: as in `new_jobs`.
        fence(Ordering::SeqCst);
        if self.make_jec_active() == 0 || self.claim_first(SleepMode::Idle, 0).is_some() {
            return;
        }
        for mode in [SleepMode::Waiting, SleepMode::Guarded] {
            while self.claim_first(mode, 0).is_some() {}
        }
    }

    /// A latch that worker `index` may be sleeping on was set: wake that worker if it sleeps.
    pub(crate) fn notify_worker_latch_is_set(&self, index: usize) {
        self.slots[index].notify_latch_is_set();
    }

    /// Worker `index`'s sleep slot: what a latch it waits on keeps to wake it.
    pub(crate) fn slot(&self, index: usize) -> &Slot {
        &self.slots[index]
    }

    /// How many idle workers that can steal are awake (spinning, yielding or searching), not
    /// asleep: they would take work offered now within microseconds, while a sleeper first needs a
    /// futex wake.
    ///
    /// Two relaxed loads, a hint: the two counts are not read at one instant, and a sleeper past
    /// its stack guard (counted as sleeping, not as idle) can hide an awake worker.
    #[inline]
    pub(crate) fn searching_workers(&self) -> usize {
        // Relaxed: see `idle_workers`; only steers how eagerly a loop answers.
        let idle = self.idle_workers.load(Ordering::Relaxed);
        idle.saturating_sub(self.counters.load(Ordering::Relaxed).sleeping_threads() as usize)
    }

    /// Futex wakes issued to worker `index` so far.
    pub(crate) fn wakeups_of(&self, index: usize) -> u64 {
        self.slots[index].wakeups()
    }

    /// Number of threads currently counted as sleeping (a snapshot).
    #[cfg(all(test, not(forkjoin_loom)))] // its tests do not run under loom
    pub(crate) fn num_sleeping(&self) -> usize {
        self.counters.load(Ordering::Relaxed).sleeping_threads() as usize
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests;
