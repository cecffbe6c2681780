//! Latches: one-shot "this happened" flags that a thread can wait on.
//!
//! * [`CoreLatch`] is the state machine every worker-side latch embeds: `UNSET → SET`, with a detour
//!   `UNSET → SLEEPING → UNSET` while its waiter sleeps. The setter swaps in `SET`; if it finds `SLEEPING`,
//!   the waiter is (or is about to be) blocked and must be woken **through the sleep module**
//!   ([`Sleep::notify_worker_latch_is_set`]). Waiting workers never block on the latch itself: they keep
//!   executing other jobs and only sleep through the pool's idle protocol.
//! * [`SpinLatch`]: the latch of a `join`'s job b; wakes one worker through its sleep slot.
//! * [`CrossPoolLatch`]: the same for a worker's `install` into another pool.
//! * [`CountLatch`]: `scope`'s "all spawned jobs finished" counter.
//! * [`LockLatch`]: for threads outside any pool, which may yield briefly, then block on a futex.
//!
//! **Lifetime rule.** Setting a latch is the last thing a setter does with it: the waiter may return and
//! free the latch the instant it observes `SET`. So a setter copies out everything it needs to wake the
//! waiter *before* the swap, and what it needs must outlive the swap by other means (the executing worker
//! holds its pool's registry; a [`CrossPoolLatch`]'s setter clones the waiter's `Arc<Sleep>`; an outside waiter's
//! `LockLatch` is shared through an `Arc`).

use crate::platform::sync::{self, Arc, AtomicU32, AtomicUsize, Futex, Ordering};
use crate::runtime::sleep::{Sleep, Slot};
use crate::runtime::trace::JobKind;

/// Setting a latch.
pub(crate) trait Latch {
    /// What the trace calls a `StackJob` that signals this latch: a `join`'s b (a [`SpinLatch`]),
    /// an `install` moved into a pool ([`LockLatch`], [`CrossPoolLatch`]), or another job.
    const JOB_KIND: JobKind = JobKind::Other;

    /// Sets the latch, waking its waiter if needed.
    ///
    /// # Safety
    /// `this` must point to a live latch. It may be freed by the waiter as soon as the latch is observed
    /// set, so the implementation must not touch `*this` after the state change, and the caller must not
    /// use `this` after the call.
    unsafe fn set(this: *const Self);
}

/// A value of a [`CoreLatch`]'s state word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LatchState(u32);

impl LatchState {
    /// Not set; the waiter is awake (running jobs or searching).
    const UNSET: LatchState = LatchState(0);
    /// Not set; the waiter is (about to be) asleep and its setter must wake it through the sleep module.
    const SLEEPING: LatchState = LatchState(1);
    /// Set: final. The waiter may free the latch as soon as it observes this.
    const SET: LatchState = LatchState(2);
}

/// A [`CoreLatch`]'s state word, holding a [`LatchState`]. Adds no ordering of its own: the caller
/// passes it.
#[derive(Debug)]
struct AtomicLatchState(AtomicU32);

impl AtomicLatchState {
    #[inline]
    fn new(state: LatchState) -> Self {
        AtomicLatchState(AtomicU32::new(state.0))
    }

    #[inline]
    fn load(&self, order: Ordering) -> LatchState {
        LatchState(self.0.load(order))
    }

    /// Swaps in `state`; returns the previous state.
    #[inline]
    fn swap(&self, state: LatchState, order: Ordering) -> LatchState {
        LatchState(self.0.swap(state.0, order))
    }

    /// True if the state was `from` and is now `to`.
    #[inline]
    fn compare_exchange(
        &self,
        from: LatchState,
        to: LatchState,
        success: Ordering,
        failure: Ordering,
    ) -> bool {
        self.0
            .compare_exchange(from.0, to.0, success, failure)
            .is_ok()
    }
}

/// The state machine shared by worker-side latches.
#[derive(Debug)]
pub(crate) struct CoreLatch {
    state: AtomicLatchState,
}

impl CoreLatch {
    /// An unset latch.
    #[inline]
    pub(crate) fn new() -> Self {
        CoreLatch {
            state: AtomicLatchState::new(LatchState::UNSET),
        }
    }

    /// True once the latch is set. Everything the setter wrote before setting is then visible.
    #[inline]
    pub(crate) fn probe(&self) -> bool {
        // Acquire: pairs with the AcqRel swap in `set`.
        self.state.load(Ordering::Acquire) == LatchState::SET
    }

    /// The waiter is about to sleep: `UNSET → SLEEPING`. False if already set.
    #[inline]
    pub(crate) fn try_sleep(&self) -> bool {
        // SeqCst: ordered after the waiter's SeqCst store of its sleep slot, so a setter that sees
        // SLEEPING (via its swap) also finds the slot claimable.
        self.state.compare_exchange(
            LatchState::UNSET,
            LatchState::SLEEPING,
            Ordering::SeqCst,
            Ordering::Acquire,
        )
    }

    /// The waiter is awake again: `SLEEPING → UNSET` (no-op if the latch was set meanwhile).
    #[inline]
    pub(crate) fn wake_up(&self) {
        // Relaxed suffices: the waiter re-probes with Acquire before trusting the state.
        self.state.compare_exchange(
            LatchState::SLEEPING,
            LatchState::UNSET,
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }

    /// Sets the latch; returns true if the waiter was sleeping and must be woken.
    ///
    /// # Safety
    /// `this` must point to a live `CoreLatch`; it may be freed right after the swap.
    #[inline]
    unsafe fn set_core(this: *const Self) -> bool {
        // SAFETY: the caller guarantees `this` is live until the swap completes.
        let state = unsafe { &(*this).state };
        // AcqRel: release publishes the job's result to the waiter's `probe`; acquire pairs with the
        // waiter's `try_sleep` so we observe SLEEPING if it went first.
        state.swap(LatchState::SET, Ordering::AcqRel) == LatchState::SLEEPING
    }
}

impl CoreLatch {
    /// Sets a latch that outlives this call by construction (e.g. one owned by the registry); returns
    /// true if its waiter sleeps and must be woken.
    pub(crate) fn set_owned(&self) -> bool {
        // SAFETY: `&self` is live for the whole call by the caller's ownership.
        unsafe { CoreLatch::set_core(self) }
    }

    /// Unsets a set latch, for its next wait: a worker's terminate latch, set by a resize that a
    /// later one undid (`crate::runtime::registry::slots`). Only its waiter calls it, awake, under
    /// the lock every setter of this latch holds.
    pub(crate) fn reset_owned(&self) {
        // Relaxed: the setters and this reset are ordered by that lock.
        self.state.0.store(LatchState::UNSET.0, Ordering::Relaxed);
    }
}

#[cfg(all(test, forkjoin_loom))]
impl CoreLatch {
    /// [`set_owned`](Self::set_owned) for the loom models.
    pub(crate) fn set_owned_for_tests(&self) -> bool {
        self.set_owned()
    }
}

impl Default for CoreLatch {
    fn default() -> Self {
        Self::new()
    }
}

impl Latch for CoreLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: forwarded caller contract. A bare CoreLatch has no sleeper to wake (used only where the
        // waiter polls, e.g. in tests).
        unsafe {
            CoreLatch::set_core(this);
        }
    }
}

/// The latch of a `join`'s job b: wakes its one waiter through that worker's sleep slot.
///
/// Two words — the state and a reference to the waiter's [`Slot`] — because one is created on every
/// `join` that may share b. Its setter must run in the waiter's own pool, whose sleep state (and so the
/// slot) that setter's worker keeps alive after the swap; a job b is only reachable through the queues of
/// its own pool, so this holds. For a setter that may run in another pool, see [`CrossPoolLatch`].
pub(crate) struct SpinLatch<'r> {
    core: CoreLatch,
    waiter: &'r Slot,
}

impl<'r> SpinLatch<'r> {
    /// A latch whose waiter sleeps on `waiter`; its setter runs in the waiter's pool.
    #[inline(always)]
    pub(crate) fn waking(waiter: &'r Slot) -> Self {
        SpinLatch {
            core: CoreLatch::new(),
            waiter,
        }
    }

    /// The state machine inside (what a waiting worker sleeps on).
    #[inline]
    pub(crate) fn core(&self) -> &CoreLatch {
        &self.core
    }

    /// True once set.
    #[inline]
    pub(crate) fn probe(&self) -> bool {
        self.core.probe()
    }
}

impl Latch for SpinLatch<'_> {
    const JOB_KIND: JobKind = JobKind::JoinB;

    #[inline]
    unsafe fn set(this: *const Self) {
        // SAFETY: the caller guarantees `*this` is live until the swap inside `set_core`; the slot
        // reference is copied out first.
        let waiter: *const Slot = unsafe { (*this).waiter };
        // SAFETY: `this` is live until the swap.
        if unsafe { CoreLatch::set_core(&(*this).core) } {
            // SAFETY: the slot lives in the pool's sleep state, which the setter (a worker of the
            // waiter's pool) keeps alive.
            unsafe { (*waiter).notify_latch_is_set() };
        }
    }
}

/// A [`SpinLatch`] whose setter may run in another pool (a worker's `install` into a foreign pool): it
/// keeps the waiter's sleep state alive with its own `Arc` while it wakes the waiter.
pub(crate) struct CrossPoolLatch<'r> {
    core: CoreLatch,
    sleep: &'r Arc<Sleep>,
    target: usize,
}

impl<'r> CrossPoolLatch<'r> {
    /// A latch for worker `target` of `sleep`'s pool.
    pub(crate) fn new(sleep: &'r Arc<Sleep>, target: usize) -> Self {
        CrossPoolLatch {
            core: CoreLatch::new(),
            sleep,
            target,
        }
    }

    /// The state machine inside (what a waiting worker sleeps on).
    pub(crate) fn core(&self) -> &CoreLatch {
        &self.core
    }
}

impl Latch for CrossPoolLatch<'_> {
    const JOB_KIND: JobKind = JobKind::Install;

    unsafe fn set(this: *const Self) {
        // SAFETY: the caller guarantees `*this` is live until the swap inside `set_core`; we copy out
        // everything needed afterwards first. Nothing else keeps the waiter's pool alive once the
        // waiter returns, so the setter holds its own `Arc`.
        let (sleep, target) = unsafe { (Arc::clone((*this).sleep), (*this).target) };
        // SAFETY: `this` is live until the swap.
        if unsafe { CoreLatch::set_core(&(*this).core) } {
            sleep.notify_worker_latch_is_set(target);
        }
    }
}

/// Counts outstanding jobs of a `scope`; set when the count reaches zero.
pub(crate) struct CountLatch {
    core: CoreLatch,
    counter: AtomicUsize,
    sleep: Arc<Sleep>,
    owner: usize,
}

impl CountLatch {
    /// A latch with count 1 (the scope body itself), waited on by worker `owner`.
    pub(crate) fn new(sleep: Arc<Sleep>, owner: usize) -> Self {
        CountLatch {
            core: CoreLatch::new(),
            counter: AtomicUsize::new(1),
            sleep,
            owner,
        }
    }

    /// One more job to wait for.
    #[inline]
    pub(crate) fn increment(&self) {
        // Relaxed: the increment happens before the job is published, and publication orders it.
        let old = self.counter.fetch_add(1, Ordering::Relaxed);
        debug_assert!(old != 0, "CountLatch incremented after it was set");
    }

    #[inline]
    pub(crate) fn core(&self) -> &CoreLatch {
        &self.core
    }
}

impl CountLatch {
    /// `n` jobs finished: [`Latch::set`] `n` times, in one decrement.
    ///
    /// # Safety
    /// As [`Latch::set`]; the caller holds `n` of the counts.
    pub(crate) unsafe fn set_many(this: *const Self, n: usize) {
        // SAFETY: the caller guarantees `*this` is live; until our decrement reaches zero the
        // owner cannot return, so reading fields before the decrement is fine.
        let this_ref = unsafe { &*this };
        // AcqRel: release our jobs' writes; the last decrementer acquires everyone's before setting.
        if this_ref.counter.fetch_sub(n, Ordering::AcqRel) == n {
            // Keep the sleep state alive past the swap, after which the owner may free the latch.
            let sleep = this_ref.sleep.clone();
            let owner = this_ref.owner;
            // SAFETY: still live: the owner waits for the core latch we are about to set.
            if unsafe { CoreLatch::set_core(&(*this).core) } {
                sleep.notify_worker_latch_is_set(owner);
            }
        }
    }
}

impl Latch for CountLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: forwarded caller contract; one count.
        unsafe { CountLatch::set_many(this, 1) }
    }
}

/// How long a thread outside the pool may yield before it blocks on a [`LockLatch`].
#[cfg(not(forkjoin_loom))]
const CALLER_AWAKE_WINDOW: std::time::Duration = std::time::Duration::from_micros(50);

/// A latch for a thread outside the pool: blocks on a futex.
///
/// Shared through an `Arc` so the setter's futex wake never touches freed memory.
pub(crate) struct LockLatch {
    futex: Futex,
}

impl LockLatch {
    pub(crate) fn new() -> Self {
        LockLatch {
            futex: Futex::new(0),
        }
    }

    /// Yields until set, or for at most [`CALLER_AWAKE_WINDOW`] (not at all under loom).
    ///
    /// A short job (an `install` of a small loop) is then over before this thread's CPU goes idle, so
    /// the setter's wake-up does not have to rouse it (slow, on a virtual machine most of all), and
    /// the next job of a loop of `install`s arrives while the worker is still in its idle rounds.
    /// Call [`wait`](Self::wait) afterwards.
    pub(crate) fn yield_until_set(&self) {
        #[cfg(not(forkjoin_loom))]
        {
            let (start, window) = (
                crate::platform::clock::ticks(),
                crate::platform::clock::ticks_in(CALLER_AWAKE_WINDOW),
            );
            while !self.probe() && crate::platform::clock::ticks().wrapping_sub(start) < window {
                crate::platform::sync::yield_now();
            }
        }
    }

    /// Blocks until set.
    pub(crate) fn wait(&self) {
        while !self.probe() {
            self.futex.wait(0);
        }
    }

    /// True once set (and the job's result is visible).
    fn probe(&self) -> bool {
        // Acquire: pairs with the Release store in `set`, publishing the job's result.
        self.futex.word().load(Ordering::Acquire) != 0
    }
}

impl Latch for Arc<LockLatch> {
    const JOB_KIND: JobKind = JobKind::Install;

    unsafe fn set(this: *const Self) {
        // SAFETY: `*this` is live until we have cloned the Arc; the clone keeps the futex alive.
        let latch = unsafe { (*this).clone() };
        // Release: pairs with the Acquire load in `wait`.
        latch.futex.word().store(1, Ordering::Release);
        // A deliberately broken variant for the simulation's self-check (docs/testing.md).
        if !sync::sim_bug("no_wake_on_latch") {
            latch.futex.wake(i32::MAX);
        }
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;
    use crate::platform::sync::for_tests::{mpsc, thread};
    use std::time::Duration;

    #[test]
    fn core_latch_transitions() {
        let l = CoreLatch::new();
        assert!(!l.probe());
        assert!(l.try_sleep());
        l.wake_up();
        assert!(l.try_sleep());
        assert!(l.set_owned(), "setter must see SLEEPING");
        assert!(l.probe());
        assert!(!l.try_sleep());
        l.wake_up();
        assert!(l.probe(), "wake_up must not unset a set latch");
    }

    #[test]
    fn count_latch_sets_at_zero() {
        let sleep = Arc::new(Sleep::new(1));
        let l = CountLatch::new(sleep, 0);
        l.increment();
        l.increment();
        for _ in 0..2 {
            // SAFETY: `l` is live; the count stays above zero.
            unsafe { Latch::set(&l as *const CountLatch) };
            assert!(!l.core().probe());
        }
        // SAFETY: `l` is live and not used through the pointer afterwards.
        unsafe { Latch::set(&l as *const CountLatch) };
        assert!(l.core().probe());
    }

    #[test]
    fn lock_latch_wakes_a_blocked_thread() {
        let latch = Arc::new(LockLatch::new());
        let (tx, rx) = mpsc::channel();
        let l2 = latch.clone();
        let t = thread::spawn(move || {
            l2.wait();
            tx.send(()).unwrap();
        });
        // SAFETY: `latch` is live and we only use it through our own Arc afterwards.
        unsafe { Latch::set(&latch as *const Arc<LockLatch>) };
        rx.recv_timeout(Duration::from_secs(60))
            .expect("LockLatch waiter never woke");
        t.join().unwrap();
        assert!(latch.probe());
    }
}
