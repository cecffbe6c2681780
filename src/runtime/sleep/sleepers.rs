//! The *sleeper map*: one bit per worker and sleeping mark, set while the worker's slot may hold
//! that mark, so that a wake reads one word per 64 workers instead of trying every worker's slot.
//!
//! A claim is a CAS on the slot, and a CAS takes the slot's cache line exclusive even when it
//! fails: a wake that tried the slots from worker 0 on moved one line per awake worker it passed,
//! and every other waker scanning at the same time moved the same lines. A wake now loads the
//! map's words for the mark it wants and tries only the slots whose bit is set.
//!
//! The bit is a hint, the slot stays the truth: a bit may be set for a slot that no longer holds
//! the mark (its worker was claimed or is leaving), and a claim still CASes the slot. What the
//! map must never do is hide a counted sleeper from a waker that saw it counted: the worker sets
//! its bit after its slot holds its sleeping mark and *before* its fall-asleep CAS on the
//! counters, and clears it only after its slot left the mark, so a waker whose read of the
//! counters counts it (and so synchronizes with that CAS) reads the bit set, or cleared by a
//! worker that already left (README, "Why no wake-up is lost"). Only the worker writes its own
//! bits; a waker never clears one (it could clear the bit of the worker's *next* sleep).
//!
//! Layout: one map per sleeping mark, each word on its own cache line. A sleeper writes its word
//! twice per sleep and every wake reads it; separate lines keep the sleeps of one group of 64
//! workers (or of waiting and guarded workers, which most wakes never look for) from moving the
//! line that other wakes read. A pool of 256 workers has 4 words per mark, 12 lines in all.

use super::SleepMode;
use crate::platform::sync::{AtomicU64, Ordering};
use crossbeam_utils::CachePadded;

/// Bits per word.
const BITS: usize = 64;

/// The sleeper maps of one pool: see the module docs.
pub(super) struct SleeperMap {
    /// `words[mode * per_mode + w]`: bit `b` of word `w` is worker `64 w + b` sleeping (or about to
    /// sleep, or about to leave) under `mode`'s mark. Written only by that worker.
    words: Box<[CachePadded<AtomicU64>]>,
    /// Words per mode: one per 64 workers.
    per_mode: usize,
}

/// The row of `mode`'s map in [`SleeperMap::words`].
#[inline]
fn row(mode: SleepMode) -> usize {
    match mode {
        SleepMode::Idle => 0,
        SleepMode::Waiting => 1,
        SleepMode::Guarded => 2,
    }
}

impl SleeperMap {
    /// Names the map's words for the simulation's line profile (`sync::sim_label`).
    pub(super) fn label_lines(&self) {
        for word in self.words.iter() {
            crate::platform::sync::sim_label(&**word, "sleeper map");
        }
    }

    /// Empty maps for `workers` workers.
    pub(super) fn new(workers: usize) -> Self {
        let per_mode = workers.div_ceil(BITS).max(1);
        SleeperMap {
            words: (0..3 * per_mode)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            per_mode,
        }
    }

    fn word_and_bit(&self, index: usize, mode: SleepMode) -> (&AtomicU64, u64) {
        (
            &self.words[row(mode) * self.per_mode + index / BITS],
            1 << (index % BITS),
        )
    }

    /// Worker `index`, whose slot already holds `mode`'s mark, lists itself. Call before the
    /// fall-asleep CAS on the counters.
    #[inline]
    pub(super) fn insert(&self, index: usize, mode: SleepMode) {
        let (word, bit) = self.word_and_bit(index, mode);
        // Release: pairs with a waker's Acquire load of the counters that reads our fall-asleep
        // CAS (or a later write of the counters): that waker's `claim_first` loads this word after
        // the set, and (the set being after our mark) then finds our slot holding the mark.
        word.fetch_or(bit, Ordering::Release);
    }

    /// Worker `index` unlists itself; call once its slot no longer holds `mode`'s mark.
    #[inline]
    pub(super) fn remove(&self, index: usize, mode: SleepMode) {
        let (word, bit) = self.word_and_bit(index, mode);
        // Relaxed: a waker that reads the bit cleared skips a worker that already left its mark
        // (and is awake); one that still reads it set tries the slot, which says no.
        word.fetch_and(!bit, Ordering::Relaxed);
    }

    /// Calls `claim(worker)` for each worker listed under `mode` until one call returns true;
    /// returns that worker. The order: from worker `start` to the end of its word of 64, then the
    /// workers before `start` in that word, then the following words, wrapping around. Each word
    /// is loaded once: a worker listed after its word was read is not tried.
    #[inline]
    pub(super) fn find(
        &self,
        mode: SleepMode,
        start: usize,
        mut claim: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        let map = &self.words[row(mode) * self.per_mode..][..self.per_mode];
        let first = (start / BITS) % self.per_mode;
        let shift = (start % BITS) as u32;
        for k in 0..self.per_mode {
            let w = (first + k) % self.per_mode;
            // Acquire: pairs with `insert`'s Release, so a slot whose bit we read set holds its
            // worker's mark (or a later state) for the claim. The caller's read of the counters
            // orders this load after the fall-asleep CAS of every sleeper it counted.
            let bits = map[w].load(Ordering::Acquire);
            // In the first word start at bit `shift`: rotate it to bit 0.
            let mut rest = if k == 0 {
                bits.rotate_right(shift)
            } else {
                bits
            };
            while rest != 0 {
                let b = rest.trailing_zeros();
                rest &= rest - 1;
                let bit = if k == 0 { (b + shift) % BITS as u32 } else { b };
                let worker = w * BITS + bit as usize;
                if claim(worker) {
                    return Some(worker);
                }
            }
        }
        None
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;

    fn listed(map: &SleeperMap, mode: SleepMode, start: usize) -> Vec<usize> {
        let mut seen = Vec::new();
        map.find(mode, start, |w| {
            seen.push(w);
            false
        });
        seen
    }

    #[test]
    fn find_visits_each_listed_worker_once_from_start() {
        let map = SleeperMap::new(130);
        for w in [0, 5, 63, 64, 100, 129] {
            map.insert(w, SleepMode::Idle);
        }
        map.insert(7, SleepMode::Waiting);
        assert_eq!(listed(&map, SleepMode::Idle, 0), [0, 5, 63, 64, 100, 129]);
        assert_eq!(listed(&map, SleepMode::Idle, 6), [63, 0, 5, 64, 100, 129]);
        assert_eq!(listed(&map, SleepMode::Idle, 101), [64, 100, 129, 0, 5, 63]);
        assert_eq!(listed(&map, SleepMode::Waiting, 70), [7]);
        assert!(listed(&map, SleepMode::Guarded, 0).is_empty());
        map.remove(63, SleepMode::Idle);
        map.remove(7, SleepMode::Waiting);
        assert_eq!(listed(&map, SleepMode::Idle, 64), [64, 100, 129, 0, 5]);
        assert!(listed(&map, SleepMode::Waiting, 0).is_empty());
        assert_eq!(map.find(SleepMode::Idle, 0, |w| w == 100), Some(100));
    }
}
