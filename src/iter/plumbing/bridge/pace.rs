//! A leaf's pace: how many items its next batch takes, when it reads the clock, and whether the
//! remainder it would hand off is worth the hand-off (rules 3 and 4 of the [bridge's module
//! doc](super)).

use std::time::Duration;

use crate::platform::clock::{self, ticks};
use crate::platform::sync::shared::OnceLock;

/// A batch shorter than this grows the next batch size: eightfold while batches take under an
/// eighth of it, twofold above that (see [`next_batch`]).
pub(super) const BATCH_TARGET: Duration = Duration::from_micros(10);
/// A remainder estimated below this is not split for an idle worker: about what a hand-off costs
/// (a publication, a steal, a latch; 3–4 µs measured on 2 threads), so splitting it cannot pay.
pub(super) const MIN_SHARED_WORK: Duration = Duration::from_micros(2);
/// A batch at least this long measures the cost per item well (see [`worth_sharing`]).
const MEASURABLE: Duration = Duration::from_micros(1);
/// A batch longer than this halves the next batch size (hysteresis against flapping).
const BATCH_TOO_LONG: Duration = Duration::from_micros(40);
/// A batch shorter than this cost about what its own poll and clock read cost (see
/// [`FREE_BATCH`]).
const NEGLIGIBLE: Duration = Duration::from_nanos(125);
/// A batch of at least this many items that takes less than [`NEGLIGIBLE`] (under 2 ps an item:
/// faster than a cache can deliver bytes to a vectorised loop) ran no per-item work at all: the
/// compiler turned the loop into a closed form (a range `sum`). Such a piece drops its end batches
/// (see [`run_leaf`](super::indexed::run_leaf)).
pub(super) const FREE_BATCH: usize = 1 << 16;
/// Batches of fewer items run untimed (see [`Pace`]).
pub(super) const TIMED_FROM: usize = 16;
/// How many batches a piece whose consumer [prefers the end](crate::iter::plumbing::LazyConsumer::prefers_end) cuts off its
/// end before it runs the rest forward. Each one splits the consumer, and a `find_last` consumer
/// can tell apart only 64 levels of splits (see `find_first_last.rs`): an unbounded walk from the
/// end would use them all up on a long piece, and pieces sharing a boundary cannot stop each other.
pub(super) const TAIL_BATCHES: u8 = 12;

/// A leaf's batch size and, once it reads the clock, the rate of its last batch.
///
/// Small batches are not timed: even the cheap clock costs as much as a few cheap items, and a small
/// parallel call (ten items, each a nested call) would pay for several reads per call. The clock
/// starts once a piece has consumed [`TIMED_FROM`] items (from then on it bounds a batch's
/// duration whatever the item cost) or when an idle worker asks for work and the leaf keeps
/// polling (the next poll then knows whether the remainder is worth a hand-off). Durations stay in
/// ticks (see `crate::platform::clock`): no conversion on the hot path, the limits are converted
/// once.
#[derive(Clone, Copy)]
pub(super) struct Pace {
    pub(super) batch: usize,
    /// Ticks when the current batch started, once timing is on.
    pub(super) clock: Option<u64>,
    /// Items and ticks of the last timed batch (or batches: see `batch_done`).
    pub(super) rate: Option<(usize, u64)>,
    /// Items consumed since the clock was last read (before the clock starts: since the start).
    pub(super) untimed_items: usize,
    /// Batches still to cut off the end of the piece (see [`TAIL_BATCHES`]).
    pub(super) tails: u8,
    /// The last measured batch showed the items to be free (see [`FREE_BATCH`]).
    pub(super) free: bool,
}

impl Pace {
    pub(super) fn new() -> Self {
        Pace {
            batch: 1,
            clock: None,
            rate: None,
            untimed_items: 0,
            tails: TAIL_BATCHES,
            free: false,
        }
    }

    /// A split-off piece keeps timing if its parent did, from its own start.
    // Inlined: every leaf calls it on entry, and out of line (no generic parameter, so compiled
    // in forkjoin's crate) it was a call through the GOT per call, for a branch on `clock`.
    #[inline]
    pub(super) fn restart_clock(&mut self) {
        if self.clock.is_some() {
            self.clock = Some(ticks());
            self.untimed_items = 0;
        }
    }

    pub(super) fn start_clock(&mut self) {
        if self.clock.is_none() {
            self.clock = Some(ticks());
            self.untimed_items = 0;
        }
    }

    /// Before answering a request: if batches ran untimed since the last clock read (see
    /// [`batch_done`](Self::batch_done)), measures them together, so the answer rests on the items
    /// just run and not on older, perhaps cheaper ones (expensive items behind many free ones
    /// would otherwise stay on one worker while a stale estimate refuses every request).
    #[inline]
    pub(super) fn refresh_rate(&mut self) {
        if let Some(started) = self.clock {
            if self.untimed_items > 0 {
                let now = ticks();
                self.clock = Some(now);
                let items = std::mem::take(&mut self.untimed_items);
                self.measured(items, now.saturating_sub(started), Limits::get());
            }
        }
    }

    /// After a batch of `n` items: starts the clock once [`TIMED_FROM`] items ran, and from then on
    /// measures the batch and sets the next size ([`next_batch`]).
    ///
    /// `capped`: the batch was cut to half of what was left. Such batches only shrink towards the end
    /// of the piece and say nothing new about the batch size, so once a rate is known they are not
    /// timed (a closed-form range sum would otherwise read the clock some twenty times in its tail);
    /// the next timed batch, or the next request ([`refresh_rate`](Self::refresh_rate)), measures
    /// them together.
    // Always inlined: out of line (as LLVM chose once `next_batch` grew a third step) the leaf's
    // pace moved through memory at every batch, which small calls paid for.
    #[inline(always)]
    pub(super) fn batch_done(&mut self, n: usize, capped: bool) {
        let Some(started) = self.clock else {
            // Untimed batches of 1 and `TIMED_FROM - 1` items: a small nested call of up to
            // `TIMED_FROM` items runs in two batches (one fold while nobody asks, see
            // `first_batches`; each extra batch would cost a split, a fold and a poll), and the clock starts
            // after `TIMED_FROM` items. Counted in items consumed, not in batch size: a ten-item
            // call must not read the clock.
            self.untimed_items += n;
            if self.untimed_items >= TIMED_FROM {
                self.untimed_items = 0;
                self.clock = Some(ticks());
                // The first timed batch: a few times the untimed items, short enough that the
                // clock bounds the piece's batches from here on.
                self.batch = 4 * TIMED_FROM;
            } else {
                self.batch = TIMED_FROM - self.untimed_items;
            }
            return;
        };
        self.untimed_items += n;
        if capped && self.rate.is_some() {
            return;
        }
        // One clock read per timed batch: its duration is the time since the previous read (the poll
        // and split check in between cost next to nothing).
        let now = ticks();
        let took = now.saturating_sub(started);
        self.clock = Some(now);
        let limits = Limits::get();
        let items = std::mem::take(&mut self.untimed_items);
        self.measured(items, took, limits);
        self.batch = next_batch(self.batch, took, limits);
    }

    /// Records that the last `items` items took `took` ticks.
    #[inline]
    pub(super) fn measured(&mut self, items: usize, took: u64, limits: &Limits) {
        self.rate = Some((items, took));
        // A few end items measured fast say nothing new; any measurable batch ends the free regime.
        self.free = took < limits.negligible && (self.free || items >= FREE_BATCH);
    }
}

/// The batch size after a batch of size `batch` took `took` ticks: grows it while batches are short
/// (eightfold while they are very short), halves it when one took much longer than
/// [`BATCH_TARGET`]. No upper bound of its own: the clock bounds a batch's duration whatever the
/// item cost.
/// Eightfold, not more: a 64-fold step under a 64th of the target saved a closed-form sum two of
/// its five timed batches, but the larger code around the leaf's loop cost the ten-item call more
/// (docs/benchmarks.md, "Free items and the closed-form call").
pub(super) fn next_batch(batch: usize, took: u64, limits: &Limits) -> usize {
    if took < limits.batch_target / 8 {
        batch.saturating_mul(8)
    } else if took < limits.batch_target {
        batch.saturating_mul(2)
    } else if took > limits.batch_too_long && batch > 1 {
        batch / 2
    } else {
        batch
    }
}

/// The duration constants of this module, in ticks.
pub(super) struct Limits {
    batch_target: u64,
    batch_too_long: u64,
    min_shared_work: u64,
    measurable: u64,
    negligible: u64,
}

impl Limits {
    pub(super) fn compute() -> Limits {
        Limits {
            batch_target: clock::ticks_in(BATCH_TARGET),
            batch_too_long: clock::ticks_in(BATCH_TOO_LONG),
            min_shared_work: clock::ticks_in(MIN_SHARED_WORK),
            measurable: clock::ticks_in(MEASURABLE),
            negligible: clock::ticks_in(NEGLIGIBLE),
        }
    }

    #[cfg(not(forkjoin_shuttle))]
    #[inline]
    pub(super) fn get() -> &'static Limits {
        static LIMITS: OnceLock<Limits> = OnceLock::new();
        LIMITS.get_or_init(Limits::compute)
    }

    /// Under shuttle the tick's length depends on the execution's mode (a scheduling step, or a
    /// virtual nanosecond in the timing mode), so the limits are computed per execution.
    #[cfg(forkjoin_shuttle)]
    #[inline]
    pub(super) fn get() -> &'static Limits {
        static STEPS: OnceLock<Limits> = OnceLock::new();
        static NANOS: OnceLock<Limits> = OnceLock::new();
        let cell = if crate::platform::sync::timing_mode() {
            &NANOS
        } else {
            &STEPS
        };
        cell.get_or_init(Limits::compute)
    }
}

/// True if `len` remaining items are estimated to take at least [`MIN_SHARED_WORK`] ×
/// log2(`threads`) at the rate of the previous batch (`items` in `took` ticks).
///
/// Handing half of a shorter remainder to another worker costs about as much as it saves (a
/// publication, a steal, a latch). Without this check a loop of near-free items (a range sum that
/// LLVM turns into a closed form) split again on every request, about 12 hand-offs per call on 2
/// threads. The estimate is trusted only from a batch of at least [`MEASURABLE`]: shorter ones are
/// dominated by the clock read itself and overstate the cost per item; no estimate means no split
/// yet (a piece's first batches are over within a few microseconds).
///
/// The threshold grows with the pool: a request is answered by the innermost leaf that polls, so
/// the pieces handed off are about as small as the threshold allows, and in a pool of many idle
/// workers every one of them keeps asking; a flat threshold let many-core pools hand off pieces
/// barely worth their hand-off. log2(`threads`) keeps 2 µs on 2 threads and asks for 8 µs on 16,
/// 12 µs on 64.
///
/// `threads` is asked only once a rate is measured: a small call answers most requests without an
/// estimate, and the pool size is one more cache line for such a call to read.
pub(super) fn worth_sharing(
    len: usize,
    rate: Option<(usize, u64)>,
    limits: &Limits,
    threads: impl FnOnce() -> usize,
) -> bool {
    rate.is_some_and(|(items, took)| {
        took >= limits.measurable && {
            let min_shared = limits.min_shared_work as u128 * threads().max(2).ilog2() as u128;
            took as u128 * len as u128 >= min_shared * items as u128
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn a_remainder_is_shared_only_with_a_measured_rate_that_predicts_enough_work() {
        let limits = limits_in_ns();
        let us = |n: u64| n * 1_000;
        // No batch yet: no estimate, no split.
        assert!(!worth_sharing(1_000_000, None, &limits, || 2));
        // 1000 items in 2 µs: 500 more take 1 µs (too little), 1000 more take 2 µs (enough).
        assert!(!worth_sharing(500, Some((1_000, us(2))), &limits, || 2));
        assert!(worth_sharing(1_000, Some((1_000, us(2))), &limits, || 2));
        // A pool of 16 asks for four times as much (8 µs), of 3 the same as of 2.
        assert!(!worth_sharing(3_999, Some((1_000, us(2))), &limits, || 16));
        assert!(worth_sharing(4_000, Some((1_000, us(2))), &limits, || 16));
        assert!(worth_sharing(1_000, Some((1_000, us(2))), &limits, || 3));
        // A batch shorter than `MEASURABLE` is mostly the clock read: never trusted, however many
        // items remain (a closed-form loop whose batches cost nothing).
        assert!(!worth_sharing(usize::MAX, Some((1, 900)), &limits, || 2));
        // One expensive item measured: a few more of them are worth a hand-off.
        assert!(worth_sharing(2, Some((1, us(50))), &limits, || 2));
        // One cheap item left (5 ns at the measured rate) is not.
        assert!(!worth_sharing(1, Some((1_000, us(5))), &limits, || 2));
    }

    /// One tick per nanosecond, the constants as documented.
    pub(super) fn limits_in_ns() -> Limits {
        let ns = |d: Duration| d.as_nanos() as u64;
        Limits {
            batch_target: ns(BATCH_TARGET),
            batch_too_long: ns(BATCH_TOO_LONG),
            min_shared_work: ns(MIN_SHARED_WORK),
            measurable: ns(MEASURABLE),
            negligible: ns(NEGLIGIBLE),
        }
    }

    #[test]
    pub(super) fn batches_grow_while_short_and_shrink_when_too_long() {
        let l = limits_in_ns();
        assert_eq!(next_batch(16, 20, &l), 16 * 8);
        assert_eq!(next_batch(16, 500, &l), 16 * 8);
        assert_eq!(next_batch(16, 5_000, &l), 16 * 2);
        assert_eq!(next_batch(16, 20_000, &l), 16);
        assert_eq!(next_batch(16, 50_000, &l), 8);
        assert_eq!(next_batch(1, 50_000, &l), 1);
        assert_eq!(next_batch(usize::MAX / 4, 20, &l), usize::MAX);
    }

    #[test]
    pub(super) fn only_a_large_batch_that_cost_nothing_makes_a_piece_free_and_any_measurable_one_ends_it(
    ) {
        let l = limits_in_ns();
        let mut pace = Pace::new();
        // Few items fast: could be cheap real work hidden by the clock's own cost.
        pace.measured(FREE_BATCH - 1, 10, &l);
        assert!(!pace.free);
        // Many items, slower than negligible: real work, however cheap.
        pace.measured(FREE_BATCH, NEGLIGIBLE.as_nanos() as u64, &l);
        assert!(!pace.free);
        pace.measured(FREE_BATCH, 10, &l);
        assert!(pace.free);
        // End batches measured fast keep it; one that took time (expensive items behind the free
        // ones) ends it.
        pace.measured(3, 10, &l);
        assert!(pace.free);
        pace.measured(3, 300_000, &l);
        assert!(!pace.free);
    }

    #[test]
    pub(super) fn the_limits_keep_their_order_in_ticks() {
        let l = Limits::get();
        assert!(l.negligible > 0 && l.negligible < l.measurable);
        assert!(l.measurable > 0);
        assert!(l.measurable <= l.min_shared_work && l.min_shared_work <= l.batch_target);
        assert!(l.batch_target < l.batch_too_long);
    }
}
