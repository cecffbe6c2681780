//! The timing mode of the shuttle build: one virtual clock per virtual thread, advanced by what
//! each synchronising operation and each unit of simulated work costs, so that a run of the real
//! pool predicts how long it takes on P cores.
//!
//! **When it is on.** Only while [`super::scheduler::VirtualTimeScheduler`] drives the execution:
//! it installs a fresh [`Model`] for its execution (an OS-thread-local: shuttle runs every virtual
//! thread of an execution on the thread that runs it). With any other scheduler (the correctness
//! tests) there is no model, every hook below returns at once, and the build behaves as before:
//! no scheduling point is added or removed.
//!
//! **How time advances.** Each virtual thread owns a clock (in picoseconds, so that sub-nanosecond
//! hits add up; [`now`] reports nanoseconds, a tick of the timing mode). An operation charges its
//! cost ([`super::costs::Costs`]) to the clock of the thread that runs it, after shuttle has
//! performed it; [`work_ps`] charges simulated computation. The scheduler always runs the runnable
//! thread with the smallest clock, so each thread is a core of its own: P threads with work advance
//! side by side, and the time of a run is the clock of the thread that finishes it.
//!
//! **Causality.** shuttle makes every atomic operation a scheduling point *before* the operation,
//! and the scheduler picks the smallest clock there; so operations take effect in the order of the
//! times at which they are issued, and a thread never reads a value written at a later virtual
//! time than its own (the "only run the minimum" rule, which needs no version stamps on values; a
//! reader whose clock was ahead would instead have to be held back, which shuttle cannot express).
//! Costs are charged after the operation: it is issued at the thread's time and the thread is
//! busy for its cost. Blocking is the exception to "everyone runs at the minimum": a thread parked
//! on a futex keeps its old clock, so a wake-up sets it to max(its clock, the waker's clock + the
//! wake latency) before it can run. A timed wait sets the waiter's clock to its deadline and leaves
//! it runnable: it runs again when every other thread has passed the deadline (the timeout fires)
//! or earlier, if a wake lowers its clock to the waker's clock + the wake latency.
//!
//! **Contention.** Per cache line (64-byte granularity, so false sharing counts) the model keeps
//! the last writer and the threads that read it since. A load is a hit if this thread wrote the line
//! last or read it since; otherwise it is a transfer. A store or RMW is a hit if this thread owns the
//! line (wrote it last, nobody else read it since); otherwise it takes a transfer, and transfers of
//! one line are serialised: each starts when the previous one ended, so P threads hammering one
//! counter queue up as on a machine.
//!
//! **Barriers.** `membarrier` charges its caller, and every other thread that is running (not parked,
//! not in a timed wait) loses the interrupt's cost. The owner's light barrier (a compiler fence on
//! Linux) costs nothing.
//!
//! **Unwinding.** A panic payload resumed by the runtime (a cancellation's, or a job's panic
//! carried to its owner) charges a raise where it is thrown, and the catch that stops it charges
//! each frame between the two: an unwinding costs per frame, whatever the frame's size. The raise
//! records the frames on the thread's stack ([`super::frames`]); a catch or a passing point at stack
//! address `a` charges the recorded frames below `a` not charged yet. A catch inside a destructor
//! that runs during an unwinding keeps the outer raise and its frames for the outer catch; a `join`
//! whose a unwinds charges the frames below it before it waits for b. Panics raised by user code
//! (`panic!`) are not charged.
//!
//! **Plain memory a job carries.** A job is plain memory its creator wrote and whoever runs it
//! reads; a stack job's result is written by the thread that ran it and read by its creator. The
//! runtime marks a job's first lines as its creator's when it makes a reference to it
//! ([`plain_created`]), charges the lines the executing thread reads when it runs the job, and the
//! result's lines where a thief writes them and where the creator takes them ([`plain_access`]):
//! on the creator's own thread these are hits, after a steal each line is a transfer, as on a
//! machine. Up to [`PLAIN_LINES`] lines per access.
//!
//! **Not modelled.** Caches beyond the last-writer rule (capacity, other plain memory, prefetch),
//! memory bandwidth, SMT, NUMA, the OS scheduler (every virtual thread has a core of its own, as on a
//! machine with at least as many cores as the pool has threads), and plain code between the facade's
//! operations except what [`work_ps`] charges (`scripts/predict.sh`'s leaves charge forkjoin's
//! 1-thread time per leaf, which includes the plain code of an inline join).
use std::cell::RefCell;
use std::collections::HashMap;

use super::costs::Costs;
use super::line_profile::{self, LineCharge, LineProfile};

/// A virtual thread's state, as far as time is concerned.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    /// Running, spinning or runnable: takes the interrupts of a `membarrier`.
    Running,
    /// Parked on a futex with no timeout since the given time (its clock then).
    Parked,
    /// In a timed wait that started at the given time; its clock holds the deadline.
    TimedWait { start: u64 },
    /// A timed wait ended by a wake.
    Woken,
}

/// One cache line's sharing state (see the module docs).
struct Line {
    /// The thread that wrote it last.
    writer: usize,
    /// Threads other than `writer` that read it since the last write.
    readers: Vec<usize>,
    /// When the last transfer of the line ends: the next one starts no earlier.
    busy_until: u64,
}

/// Counts of one execution, for the prediction's report.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// Scheduling decisions taken.
    pub steps: u64,
    /// Charged operations that moved a cache line between threads.
    pub transfers: u64,
    /// `membarrier`s.
    pub membarriers: u64,
    /// Futex wake-ups that ended a wait.
    pub wakeups: u64,
    /// Reads of the runtime's clock.
    pub clock_reads: u64,
}

/// The model of one execution (see the module docs).
pub(crate) struct Model {
    costs: Costs,
    /// Per shuttle task id: its clock, in picoseconds.
    clocks: Vec<u64>,
    /// Per shuttle task id: its state.
    states: Vec<State>,
    /// The task the scheduler chose last: the one running now.
    current: usize,
    lines: HashMap<usize, Line>,
    /// Per shuttle task id: the stack address up to which its pending unwinding was charged (where
    /// it was raised, or its last passing point), or 0.
    thrown_at: Vec<usize>,
    /// Per shuttle task id: the frames on its stack when its pending unwinding was raised
    /// (ascending CFAs, see [`super::frames`]).
    frames: Vec<Vec<usize>>,
    /// Per shuttle task id: the frames of the unwindings under way outside its open catches
    /// (a catch inside a destructor that runs during an unwinding), innermost last.
    outer_frames: Vec<Vec<Vec<usize>>>,
    /// Seed of the tie-breaks (0: lowest task id first).
    seed: u64,
    counts: Counts,
    /// Per shuttle task id: the worker is idle (`sync::sim_idle`), for the line profile.
    idle: Vec<bool>,
    /// Where the charges for shared lines went, if this execution keeps a profile.
    profile: Option<LineProfile>,
}

std::thread_local! {
    /// The model of the execution running on this OS thread, if it runs in the timing mode.
    static MODEL: RefCell<Option<Model>> = const { RefCell::new(None) };
}

/// Runs `f` on the model, or returns `None` outside the timing mode.
#[inline]
fn with_model<R>(f: impl FnOnce(&mut Model) -> R) -> Option<R> {
    MODEL.with(|m| m.borrow_mut().as_mut().map(f))
}

/// Installs a fresh model for the execution about to start on this OS thread.
pub(crate) fn install(costs: Costs, seed: u64) {
    MODEL.with(|m| {
        *m.borrow_mut() = Some(Model {
            costs,
            clocks: vec![0],
            states: vec![State::Running],
            current: 0,
            lines: HashMap::new(),
            thrown_at: vec![0],
            frames: vec![Vec::new()],
            outer_frames: vec![Vec::new()],
            seed,
            counts: Counts::default(),
            idle: vec![false],
            profile: line_profile::enabled().then(LineProfile::default),
        })
    });
}

/// Removes this OS thread's model (the timing mode ends).
pub(crate) fn uninstall() {
    MODEL.with(|m| *m.borrow_mut() = None);
}

/// True while the execution on this OS thread runs in the timing mode.
#[inline]
pub(crate) fn active() -> bool {
    MODEL.with(|m| m.borrow().is_some())
}

impl Model {
    /// Makes room for task `t`; a task first seen starts at the clock of the task running now
    /// (its spawner).
    fn ensure(&mut self, t: usize) {
        if t >= self.clocks.len() {
            let start = self.clocks.get(self.current).copied().unwrap_or(0);
            self.clocks.resize(t + 1, start);
            self.states.resize(t + 1, State::Running);
            self.thrown_at.resize(t + 1, 0);
            self.frames.resize_with(t + 1, Vec::new);
            self.outer_frames.resize_with(t + 1, Vec::new);
            self.idle.resize(t + 1, false);
        }
    }

    /// Charges the current thread's pending unwinding for its recorded frames below stack address
    /// `sp` not charged yet, and marks them charged.
    fn charge_frames_up_to(&mut self, sp: usize) {
        let me = self.current;
        let raised = self.thrown_at[me];
        if raised != 0 && raised < sp {
            let frames = super::frames::between(&self.frames[me], raised, sp);
            self.charge(frames * self.costs.unwind_per_frame);
            self.thrown_at[me] = sp;
        }
    }

    fn charge(&mut self, ns: u64) {
        let me = self.current;
        self.ensure(me);
        self.clocks[me] += ns;
    }

    fn now(&mut self) -> u64 {
        let me = self.current;
        self.ensure(me);
        self.clocks[me]
    }

    /// The scheduler's choice among `runnable` (task ids): the smallest clock, ties broken by
    /// task id, or by a hash of it under a nonzero seed.
    pub(crate) fn pick(&mut self, runnable: impl Iterator<Item = usize>) -> usize {
        let seed = self.seed;
        let key = |t: usize| {
            if seed == 0 {
                t as u64
            } else {
                (t as u64 ^ seed)
                    .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    .rotate_left(29)
            }
        };
        let mut best: Option<(u64, u64, usize)> = None;
        for t in runnable {
            self.ensure(t);
            let candidate = (self.clocks[t], key(t), t);
            if best.is_none_or(|b| (candidate.0, candidate.1) < (b.0, b.1)) {
                best = Some(candidate);
            }
        }
        let chosen = best.map_or(0, |b| b.2);
        self.current = chosen;
        self.counts.steps += 1;
        chosen
    }

    fn access(&mut self, addr: usize, kind: Access) {
        let me = self.current;
        let now = self.now();
        let c = self.costs;
        let line = self.lines.entry(addr >> 6).or_insert(Line {
            writer: me,
            readers: Vec::new(),
            busy_until: 0,
        });
        let transfers = self.counts.transfers;
        let cost = match kind {
            Access::Load => {
                if line.writer == me || line.readers.contains(&me) {
                    c.load_hit
                } else {
                    line.readers.push(me);
                    self.counts.transfers += 1;
                    c.transfer
                }
            }
            Access::Store | Access::Rmw => {
                let hit = if kind == Access::Store {
                    c.store_hit
                } else {
                    c.rmw_hit
                };
                if line.writer == me && line.readers.is_empty() {
                    hit
                } else {
                    let start = now.max(line.busy_until);
                    line.busy_until = start + c.transfer;
                    line.writer = me;
                    line.readers.clear();
                    self.counts.transfers += 1;
                    line.busy_until - now
                }
            }
        };
        self.charge(cost);
        if let Some(profile) = &mut self.profile {
            let transfer = self.counts.transfers != transfers;
            profile.record(
                addr >> 6,
                self.idle[me],
                kind == Access::Load,
                transfer,
                cost,
            );
        }
    }
}

/// Lines of plain memory charged per access at most ([`Model::plain`]): a stolen job's closure may
/// capture a large value by move, of which the job's first lines are what every steal reads
/// (its function, its latch, the captures a small closure has); the rest is the work's own
/// memory, which the model leaves to the leaves' charge.
pub(crate) const PLAIN_LINES: usize = 4;

impl Model {
    /// The cache lines of `bytes` bytes of plain memory at `addr`, up to [`PLAIN_LINES`].
    fn plain_lines(addr: usize, bytes: usize) -> std::ops::Range<usize> {
        let first = addr >> 6;
        let end = if bytes == 0 {
            first
        } else {
            ((addr + bytes - 1) >> 6) + 1
        };
        first..end.min(first + PLAIN_LINES)
    }

    /// Plain (non-atomic) memory accessed by the current thread: charged line by line as an
    /// atomic of that kind would be, without a scheduling point (plain code between two of
    /// shuttle's).
    fn plain(&mut self, addr: usize, bytes: usize, kind: Access) {
        for line in Self::plain_lines(addr, bytes) {
            self.access(line << 6, kind);
        }
    }

    /// Plain memory the current thread just created (a job): it becomes the lines' writer, free
    /// of charge (the leaves' charge covers the creator's own writes).
    fn plain_created(&mut self, addr: usize, bytes: usize) {
        let me = self.current;
        for line in Self::plain_lines(addr, bytes) {
            let entry = self.lines.entry(line).or_insert(Line {
                writer: me,
                readers: Vec::new(),
                busy_until: 0,
            });
            entry.writer = me;
            entry.readers.clear();
        }
    }
}

/// What an atomic operation does to its cache line.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Load,
    Store,
    Rmw,
}

/// The scheduler's choice among `runnable` task ids (see [`Model::pick`]); task 0 outside the
/// timing mode.
pub(crate) fn pick(runnable: impl Iterator<Item = usize>) -> usize {
    with_model(|m| m.pick(runnable)).unwrap_or(0)
}

/// Charges an atomic operation on the line of `addr` (see the module docs).
#[inline]
pub(crate) fn access(addr: usize, kind: Access) {
    with_model(|m| m.access(addr, kind));
}

/// Records the current thread as the writer of the plain memory at `addr` (a job it created),
/// free of charge (see [`Model::plain_created`]).
#[inline]
pub(crate) fn plain_created(addr: usize, bytes: usize) {
    with_model(|m| m.plain_created(addr, bytes));
}

/// Charges a read (`write == false`) or a write of the plain memory at `addr` by the current
/// thread, line by line as the cache would move it (see [`Model::plain`]).
#[inline]
pub(crate) fn plain_access(addr: usize, bytes: usize, write: bool) {
    let kind = if write { Access::Store } else { Access::Load };
    with_model(|m| m.plain(addr, bytes, kind));
}

/// Charges a `fence(SeqCst)`.
#[inline]
pub(crate) fn fence() {
    with_model(|m| m.charge(m.costs.fence));
}

/// Charges one spin-loop hint; true in the timing mode (the caller then skips shuttle's yield: a
/// `pause` reads no memory, and the clock it advances is what lets other threads run).
#[inline]
pub(crate) fn spin() -> bool {
    with_model(|m| m.charge(m.costs.spin)).is_some()
}

/// Charges a `sched_yield`.
#[inline]
pub(crate) fn yield_now() {
    with_model(|m| m.charge(m.costs.yield_now));
}

/// Charges a `membarrier` to the caller and its interrupt to every other running thread.
pub(crate) fn membarrier() {
    with_model(|m| {
        let me = m.current;
        let (own, victim) = (m.costs.membarrier, m.costs.membarrier_victim);
        m.charge(own);
        m.counts.membarriers += 1;
        for t in 0..m.clocks.len() {
            if t != me && m.states[t] == State::Running {
                m.clocks[t] += victim;
            }
        }
    });
}

/// Charges `ps` picoseconds of simulated computation to the calling virtual thread.
pub(crate) fn work_ps(ps: u64) {
    with_model(|m| m.charge(ps));
}

/// The runtime reads its clock (`platform::clock::ticks`): charges the read, then returns the
/// calling virtual thread's clock in nanoseconds; `None` outside the timing mode.
#[inline]
pub(crate) fn clock_read() -> Option<u64> {
    with_model(|m| {
        m.charge(m.costs.clock_read);
        m.counts.clock_reads += 1;
        m.now() / 1000
    })
}

/// The calling virtual thread's clock in nanoseconds, or `None` outside the timing mode.
#[inline]
pub(crate) fn now() -> Option<u64> {
    with_model(|m| m.now() / 1000)
}

/// The calling virtual thread raises an unwinding at stack address `sp`: charges the raise, and
/// records where it began and the frames it may pass, for [`unwind_caught`].
pub(crate) fn unwind_raised(sp: usize) {
    with_model(|m| {
        let me = m.current;
        m.ensure(me);
        m.thrown_at[me] = sp;
        super::frames::walk(&mut m.frames[me]);
        m.charge(m.costs.unwind_raise);
    });
}

/// A catch begins: sets aside the unwinding already under way, if any (the catch runs inside a
/// destructor that runs during it), and returns where it was charged up to, to give back to
/// [`unwind_caught`].
pub(crate) fn unwind_catch_begin() -> usize {
    with_model(|m| {
        let me = m.current;
        m.ensure(me);
        let frames = std::mem::take(&mut m.frames[me]);
        m.outer_frames[me].push(frames);
        m.thrown_at[me]
    })
    .unwrap_or(0)
}

/// The catch whose frame sits at stack address `sp` ends; if it caught an unwinding, charges the
/// frames between its raise and `sp`. Then the unwinding set aside by [`unwind_catch_begin`]
/// (`outer`: what it returned) is the pending one again.
pub(crate) fn unwind_caught(sp: usize, caught: bool, outer: usize) {
    with_model(|m| {
        let me = m.current;
        m.ensure(me);
        if caught {
            m.charge_frames_up_to(sp);
        }
        m.thrown_at[me] = outer;
        m.frames[me] = m.outer_frames[me].pop().unwrap_or_default();
    });
}

/// The unwinding under way reaches a destructor at stack address `sp` that may wait for another
/// thread: charges the frames unwound so far now, so that the time it waits is not charged after
/// the frames below were unwound (the rest is charged by the catch).
pub(crate) fn unwind_passing(sp: usize) {
    with_model(|m| {
        let me = m.current;
        m.ensure(me);
        m.charge_frames_up_to(sp);
    });
}

/// The calling thread is about to park on a futex with no timeout.
pub(crate) fn park_begin() {
    with_model(|m| {
        m.charge(m.costs.futex_wait);
        let me = m.current;
        m.states[me] = State::Parked;
    });
}

/// The calling thread returned from a park.
pub(crate) fn park_end() {
    with_model(|m| {
        let me = m.current;
        m.ensure(me);
        m.states[me] = State::Running;
    });
}

/// The calling thread starts a timed wait of `timeout_ns`: returns its deadline (a
/// [`timed_wait_over`] argument). Its clock jumps to the deadline, so it runs again when the
/// timeout fires or a wake brings it forward.
pub(crate) fn timed_wait_begin(timeout_ns: u64) -> Option<u64> {
    with_model(|m| {
        m.charge(m.costs.futex_wait);
        let me = m.current;
        let start = m.clocks[me];
        let deadline = start + timeout_ns.max(1).saturating_mul(1000);
        m.states[me] = State::TimedWait { start };
        m.clocks[me] = deadline;
        deadline
    })
}

/// True if the calling thread's timed wait with this deadline is over: a wake ended it, or its
/// clock reached the deadline (outside the timing mode: true).
pub(crate) fn timed_wait_over(deadline: u64) -> bool {
    with_model(|m| m.states[m.current] == State::Woken || m.now() >= deadline).unwrap_or(true)
}

/// The calling thread's timed wait is over.
pub(crate) fn timed_wait_end() {
    park_end();
}

/// The calling thread is about to wake waiters of a futex: charges the system call.
pub(crate) fn wake_call() {
    with_model(|m| m.charge(m.costs.futex_wake));
}

/// The calling thread wakes task `t`: a parked `t` may run at the waker's clock + the wake latency
/// at the earliest, a timed wait of `t` ends then (or at its deadline, if that is sooner).
pub(crate) fn wake(t: usize) {
    with_model(|m| {
        let at = m.now() + m.costs.wake_latency;
        m.ensure(t);
        match m.states[t] {
            State::Parked => {
                m.clocks[t] = m.clocks[t].max(at);
                m.counts.wakeups += 1;
            }
            State::TimedWait { start } => {
                m.clocks[t] = m.clocks[t].min(at.max(start));
                m.states[t] = State::Woken;
                m.counts.wakeups += 1;
            }
            State::Running | State::Woken => {}
        }
    });
}

/// Names the shared lines of `bytes` bytes at `addr` in the line profile, if one is kept.
pub(crate) fn label(addr: usize, bytes: usize, label: &'static str) {
    with_model(|m| {
        if let Some(profile) = &mut m.profile {
            profile.label(addr, bytes, label);
        }
    });
}

/// The calling virtual thread (a worker) starts (`true`) or ends an idle period, for the line
/// profile.
pub(crate) fn set_idle(idle: bool) {
    with_model(|m| {
        let me = m.current;
        m.ensure(me);
        m.idle[me] = idle;
    });
}

/// This execution's line profile so far (empty outside the timing mode or without a profile).
pub(crate) fn line_profile() -> Vec<LineCharge> {
    with_model(|m| m.profile.as_ref().map(LineProfile::rows))
        .flatten()
        .unwrap_or_default()
}

/// This execution's counts so far (zero outside the timing mode).
pub(crate) fn counts() -> Counts {
    with_model(|m| m.counts).unwrap_or_default()
}
