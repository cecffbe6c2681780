//! One worker's sleep slot: the futex word it blocks on, and the states that word may hold.
//!
//! The worker moves its own slot `AWAKE → SLEEPING` (or `SLEEPING_WAITING`, `SLEEPING_GUARDED`) before it blocks and back to
//! `AWAKE` when it leaves; a waker claims a sleeping worker by CAS out of its sleeping mark (to
//! `WOKEN_FOR_WORK`, or to `AWAKE` for a latch) and only then issues the futex wake (README, rules 4, 5
//! and 7). Like the counters wrapper, [`Slot`] adds no ordering of its own: the caller passes it.

use std::time::Duration;

use super::SleepMode;
use crate::platform::sync::{AtomicU64, Futex, Ordering};

/// A value of a worker's slot word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SlotState(u32);

impl SlotState {
    /// The worker runs or searches.
    pub(super) const AWAKE: SlotState = SlotState(0);
    /// The worker is (about to be) blocked on its futex and may be claimed by a waker.
    pub(super) const SLEEPING: SlotState = SlotState(1);
    /// Like `SLEEPING`, but the worker is past its stack guard and cannot steal: only its latch or
    /// injected work (which it may take) wake it, never a publication it could not take.
    pub(super) const SLEEPING_GUARDED: SlotState = SlotState(2);
    /// A waker claimed the worker *for new work*; if it then leaves without searching (its latch got
    /// set), it must pass the wake on.
    pub(super) const WOKEN_FOR_WORK: SlotState = SlotState(3);
    /// Like `SLEEPING`, but the worker waits for a job and takes only jobs that belong to it
    /// (`crate::runtime::jobs::region`): a publication wakes it only when no `SLEEPING` worker,
    /// which takes anything, is there to claim.
    pub(super) const SLEEPING_WAITING: SlotState = SlotState(4);

    /// The mark a worker in `mode` sleeps under.
    #[inline]
    pub(super) fn sleeping(mode: SleepMode) -> SlotState {
        match mode {
            SleepMode::Idle => SlotState::SLEEPING,
            SleepMode::Waiting => SlotState::SLEEPING_WAITING,
            SleepMode::Guarded => SlotState::SLEEPING_GUARDED,
        }
    }

    /// A waker claimed the worker for new work (see [`SlotState::WOKEN_FOR_WORK`]).
    #[inline]
    pub(super) fn is_woken_for_work(self) -> bool {
        self == SlotState::WOKEN_FOR_WORK
    }
}

/// One worker's futex word, holding a [`SlotState`], and the count of futex wakes sent to it.
///
/// A latch keeps a reference to its waiter's slot ([`crate::runtime::jobs::latch::SpinLatch`]), so that its setter
/// wakes the waiter with [`notify_latch_is_set`](Self::notify_latch_is_set) without first finding the
/// pool's sleep state and indexing it.
pub(crate) struct Slot {
    futex: Futex,
    /// Futex wakes issued to this worker (statistics; cold path only).
    wakeups: AtomicU64,
}

impl Slot {
    /// An `AWAKE` slot.
    pub(super) fn new() -> Self {
        Slot {
            futex: Futex::new(SlotState::AWAKE.0),
            wakeups: AtomicU64::new(0),
        }
    }

    /// A latch that this slot's worker may be sleeping on was set: wake the worker if it sleeps.
    pub(crate) fn notify_latch_is_set(&self) {
        // The sleeper's mark says how it sleeps; a latch wakes it whichever it is.
        for mark in [
            SlotState::SLEEPING,
            SlotState::SLEEPING_WAITING,
            SlotState::SLEEPING_GUARDED,
        ] {
            if self.claim(mark, SlotState::AWAKE) {
                return;
            }
        }
    }

    /// Claims the slot by CAS `from → to` and, if that succeeded, wakes its worker (README, rule 4).
    pub(super) fn claim(&self, from: SlotState, to: SlotState) -> bool {
        // AcqRel: pairs with the sleeper's SeqCst store of its sleeping mark (acquire) and its Acquire
        // load in the wait loop (release), so work published before this call is visible to it.
        if self.compare_exchange(from, to, Ordering::AcqRel, Ordering::Relaxed) {
            self.wake();
            // Relaxed: a statistic.
            self.wakeups.fetch_add(1, Ordering::Relaxed);
            true
        } else {
            false
        }
    }

    /// Futex wakes issued to this worker so far.
    pub(super) fn wakeups(&self) -> u64 {
        // Relaxed: a statistic.
        self.wakeups.load(Ordering::Relaxed)
    }

    /// Loads the state with `order`.
    #[inline]
    pub(super) fn load(&self, order: Ordering) -> SlotState {
        SlotState(self.futex.word().load(order))
    }

    /// Stores `state` with `order`.
    #[inline]
    pub(super) fn store(&self, state: SlotState, order: Ordering) {
        self.futex.word().store(state.0, order);
    }

    /// Swaps in `state` with `order`; returns the previous state.
    #[inline]
    pub(super) fn swap(&self, state: SlotState, order: Ordering) -> SlotState {
        SlotState(self.futex.word().swap(state.0, order))
    }

    /// `compare_exchange` of the state; true if it held `from` and now holds `to`.
    #[inline]
    pub(super) fn compare_exchange(
        &self,
        from: SlotState,
        to: SlotState,
        success: Ordering,
        failure: Ordering,
    ) -> bool {
        self.futex
            .word()
            .compare_exchange(from.0, to.0, success, failure)
            .is_ok()
    }

    /// Blocks while the slot holds `state` (may return spuriously: callers re-check in a loop).
    /// Only the models sleep with no timeout at all (see `ALL_IDLE_PATROL`).
    #[cfg(any(forkjoin_loom, forkjoin_shuttle))]
    #[inline]
    pub(super) fn wait_while(&self, state: SlotState) {
        self.futex.wait(state.0);
    }

    /// Blocks while the slot holds `state`, for at most `timeout` (may return spuriously).
    #[inline]
    pub(super) fn wait_while_for(&self, state: SlotState, timeout: Duration) {
        self.futex.wait_timeout(state.0, timeout);
    }

    /// Wakes the worker blocked on this slot, if any; call after changing the state.
    #[inline]
    pub(super) fn wake(&self) {
        self.futex.wake(1);
    }
}
