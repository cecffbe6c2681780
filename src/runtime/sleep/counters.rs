//! The sleep module's packed counters word: `[jobs event counter: 32 bits][sleepers: 32 bits]`.
//!
//! Both halves live in one `AtomicU64` so that "the JEC still holds the value I announced" and "count
//! me as a sleeper" are decided by a single CAS (README, rule 3). [`Counters`] is a snapshot of the word
//! with named accessors; [`AtomicCounters`] is the word itself. The wrapper adds no ordering of its own:
//! every operation takes the caller's `Ordering`, so each ordering (and the comment naming its pair)
//! stays at the protocol step in `sleep/mod.rs` that needs it.

use crate::platform::sync::{AtomicU64, Ordering};

/// Low half of the word: number of threads counted as sleeping.
const SLEEPERS_MASK: u64 = 0xFFFF_FFFF;
/// High half of the word: the jobs event counter.
const JEC_SHIFT: u32 = 32;
/// One step of the jobs event counter, in place in the word.
const JEC_ONE: u64 = 1 << JEC_SHIFT;

/// A snapshot of the counters word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Counters(u64);

impl Counters {
    /// Number of threads counted as sleeping.
    #[inline]
    pub(super) fn sleeping_threads(self) -> u32 {
        (self.0 & SLEEPERS_MASK) as u32
    }

    /// The jobs event counter.
    #[inline]
    pub(super) fn jobs_counter(self) -> JobsEventCounter {
        JobsEventCounter((self.0 >> JEC_SHIFT) as u32)
    }

    /// The same word with the jobs event counter advanced by one (wrapping at 32 bits; the sleeper count
    /// is unchanged): even → odd announces a sleepy thread, odd → even announces new work.
    #[inline]
    pub(super) fn with_next_jobs_counter(self) -> Counters {
        Counters(self.0.wrapping_add(JEC_ONE))
    }

    /// The same word with one more sleeper (the jobs event counter is unchanged).
    #[inline]
    pub(super) fn with_one_more_sleeper(self) -> Counters {
        debug_assert!(self.0 & SLEEPERS_MASK < SLEEPERS_MASK);
        Counters(self.0 + 1)
    }
}

/// The jobs event counter (JEC): **even** ("active") while nobody is about to sleep, **odd** ("sleepy")
/// once some worker announced that it is about to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct JobsEventCounter(u32);

impl JobsEventCounter {
    /// Odd: some worker announced it is about to sleep, so a publisher must advance the counter.
    #[inline]
    pub(super) fn is_sleepy(self) -> bool {
        self.0 & 1 == 1
    }
}

/// The counters word of one pool (see the module docs).
pub(super) struct AtomicCounters(AtomicU64);

impl AtomicCounters {
    /// No sleepers, JEC 0 (active).
    pub(super) fn new() -> Self {
        AtomicCounters(AtomicU64::new(0))
    }

    /// Loads the word with `order`.
    #[inline]
    pub(super) fn load(&self, order: Ordering) -> Counters {
        Counters(self.0.load(order))
    }

    /// `compare_exchange_weak` of the whole word: fails if either half changed.
    #[inline]
    pub(super) fn compare_exchange_weak(
        &self,
        current: Counters,
        new: Counters,
        success: Ordering,
        failure: Ordering,
    ) -> Result<Counters, Counters> {
        self.0
            .compare_exchange_weak(current.0, new.0, success, failure)
            .map(Counters)
            .map_err(Counters)
    }

    /// Removes one sleeper (the caller's own earlier increment).
    #[inline]
    pub(super) fn remove_sleeper(&self, order: Ordering) {
        self.0.fetch_sub(1, order);
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;

    #[test]
    fn halves_are_independent() {
        let c = Counters(0).with_one_more_sleeper().with_next_jobs_counter();
        assert_eq!(c.sleeping_threads(), 1);
        assert!(c.jobs_counter().is_sleepy());
        let c = c.with_next_jobs_counter();
        assert_eq!(c.sleeping_threads(), 1);
        assert!(!c.jobs_counter().is_sleepy());
    }

    #[test]
    fn jobs_counter_wraps_without_touching_sleepers() {
        let c = Counters(0xFFFF_FFFF_0000_0003);
        assert_eq!(c.jobs_counter(), JobsEventCounter(u32::MAX));
        let next = c.with_next_jobs_counter();
        assert_eq!(next.jobs_counter(), JobsEventCounter(0));
        assert_eq!(next.sleeping_threads(), 3);
    }
}
