//! The work map: one bit per worker, set while that worker's public deque may hold jobs, so that a
//! search probes the deques that may hold work instead of every other worker's.
//!
//! Without it an idle worker's search visits all P − 1 deques, and the simulation measured failed
//! probes per job growing linearly with P (`docs/benchmarks.md`, "Many cores"). With it a search
//! reads P / 64 words and probes only marked deques; a deque is left marked after it empties only
//! until the next probe finds it empty.
//!
//! **Protocol.** The map is part of making a job *visible* (sleep README, rule 1): a job counts as
//! visible once it is in its owner's public deque *and* the owner's bit is set. Searches, the last
//! one before a worker sleeps included, probe only marked deques.
//!
//! * **Mark** ([`WorkMap::publish`], after a push onto the public deque): `fence(SeqCst)`; if the
//!   bit reads clear, `fetch_or` it and `fence(SeqCst)` again; then announce the job to sleepers
//!   (`Sleep::new_jobs_fenced`, which reads the sleep counters). A bit that reads set costs no
//!   read-modify-write: pushes into a deque that already holds jobs stay a load.
//! * **Unmark** (a probe found a marked deque empty, in [`WorkMap::steal`]): if the bit still reads
//!   set, `fetch_and` it clear, `fence(SeqCst)`, and look at the deque again. If it filled in between, mark it again
//!   and announce, exactly as a publisher does. Only thieves unmark; the owner never does, so its
//!   pops stay free of the map, and so does the `join` fast path (the private stack).
//!
//! **Why no job is hidden.** Say the owner pushed J and a thief T unmarks. T's fence and the
//! owner's fence are totally ordered. If the owner's comes first, T's second look (after its
//! fence) sees J and T marks again. If T's comes first, the owner's load after its fence sees T's
//! clear, or a later set: a clear makes the owner set the bit; a set was written by another
//! unmarker that saw J (the same argument, one step later in the bit's modification order). So
//! the last write to the bit while J waits is a set.
//!
//! **Why no wake-up is lost.** The sleep proof (sleep README) takes a publisher's `fence; read
//! counters` against a sleeper's `announce; fence; search`. Marking keeps that shape: every set
//! that makes J findable is followed by a fence before the setter reads the counters. A sleeper
//! whose search read the bit clear read a clear that comes before that set in the bit's
//! modification order, so its fence precedes the setter's, and the setter sees it sleepy (or
//! asleep) and wakes it, as in case B of the proof. `loom-tests/models/work_map.rs` checks a push,
//! a thief that unmarks and a worker falling asleep.

use crate::platform::sync::{fence, AtomicU64, Ordering};
use crate::runtime::deque::Steal;
use crate::runtime::sleep::Sleep;
use crossbeam_utils::CachePadded;

const BITS: usize = u64::BITS as usize;

/// One bit per worker: "its public deque may hold jobs" (see the module docs).
#[derive(Debug)]
pub(crate) struct WorkMap {
    /// 64 workers per word, each word on its own cache line (words change independently).
    words: Box<[CachePadded<AtomicU64>]>,
}

impl WorkMap {
    /// Names the map's words for the simulation's line profile (`sync::sim_label`).
    pub(crate) fn label_lines(&self) {
        for word in self.words.iter() {
            crate::platform::sync::sim_label(&**word, "work map");
        }
    }

    /// A map for `num_workers` workers, none marked.
    pub(crate) fn new(num_workers: usize) -> Self {
        WorkMap {
            words: (0..num_workers.div_ceil(BITS).max(1))
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
        }
    }

    fn word_and_bit(&self, index: usize) -> (&AtomicU64, u64) {
        (&self.words[index / BITS], 1 << (index % BITS))
    }

    /// Worker `index` pushed onto its public deque: mark it, then announce the work to sleepers.
    /// Returns the worker woken, if any. Call after the push, from the owner or from a thief that
    /// saw the deque fill while it unmarked it.
    #[inline]
    pub(crate) fn publish(&self, index: usize, sleep: &Sleep) -> Option<usize> {
        let (word, bit) = self.word_and_bit(index);
        // SeqCst fence: pairs with the fence in `unmark_if_empty` (one of us sees the other's
        // write: our push, or its clear) and, when the bit is already set, with a sleeper's
        // `announce_sleepy` (the sleep proof's publisher fence).
        fence(Ordering::SeqCst);
        // Relaxed: ordered by the fences around it.
        if word.load(Ordering::Relaxed) & bit == 0 {
            // Release: an unmarker's AcqRel clear that reads this value sees our push.
            word.fetch_or(bit, Ordering::Release);
            // SeqCst fence: pairs with a sleeper's `announce_sleepy`: our read of the sleep
            // counters comes after the set (see the module docs).
            fence(Ordering::SeqCst);
        }
        sleep.new_jobs_fenced(index)
    }

    /// One search: probes the marked deques other than `me`'s, starting at worker `start` and
    /// wrapping around, until `probe` steals something or `stop` says the search is moot. A probe
    /// that finds a deque empty unmarks it; if `is_empty` then says it filled meanwhile, the deque
    /// is marked and announced again (through `sleep`) and probed once more. `probe(victim)` steals
    /// from `victim`'s deque and `is_empty(victim)` reads its length; both only read the deque.
    /// Returns the victim and what was stolen, or `None` if every marked deque was empty or `stop`
    /// said so (asked before each probe: a waiting worker's latch, which a search of hundreds of
    /// deques would otherwise see only at its end).
    #[inline]
    pub(crate) fn steal<T>(
        &self,
        me: usize,
        start: usize,
        sleep: &Sleep,
        mut probe: impl FnMut(usize) -> Option<Steal<T>>,
        is_empty: impl Fn(usize) -> bool,
        stop: impl Fn() -> bool,
    ) -> Option<(usize, T)> {
        loop {
            let mut retry = false;
            for victim in self.marked_from(start) {
                if victim == me {
                    continue;
                }
                if stop() {
                    return None;
                }
                match probe(victim) {
                    // The probe refused the oldest job (a waiting worker's region test): the
                    // deque stays marked, for others.
                    None => {}
                    Some(Steal::Success(job)) => return Some((victim, job)),
                    Some(Steal::Retry) => retry = true,
                    Some(Steal::Empty) if self.unmark_if_empty(victim, &is_empty) => {
                        self.publish(victim, sleep);
                        retry = true;
                    }
                    Some(Steal::Empty) => {}
                }
            }
            if !retry {
                return None;
            }
        }
    }

    /// True if some worker other than `me` is marked: a hint (no fence) that jobs may wait in
    /// another deque, for deciding whether waking one more sleeper could pay off.
    #[inline]
    pub(crate) fn others_marked(&self, me: usize) -> bool {
        let (mine, bit) = (me / BITS, 1u64 << (me % BITS));
        self.words.iter().enumerate().any(|(w, word)| {
            // Relaxed: a hint (see above).
            let bits = word.load(Ordering::Relaxed);
            (if w == mine { bits & !bit } else { bits }) != 0
        })
    }

    /// Clears `index`'s bit after a probe found its deque empty; true if the deque holds jobs
    /// again (the caller must mark and announce it).
    #[cold]
    fn unmark_if_empty(&self, index: usize, is_empty: &impl Fn(usize) -> bool) -> bool {
        let (word, bit) = self.word_and_bit(index);
        // Relaxed: a bit already clear was cleared by another thief, which looks again itself; we
        // clear nothing, so we hide nothing. Reading first spares the word a read-modify-write
        // per thief when many find the same deque empty (64 thieves queue on the one line).
        if word.load(Ordering::Relaxed) & bit == 0 {
            return false;
        }
        // AcqRel: reads the set of the push we may be hiding (Release in `publish`), so the look
        // below sees that push.
        if word.fetch_and(!bit, Ordering::AcqRel) & bit == 0 {
            // Another thief unmarked it first, and looks again itself.
            return false;
        }
        // SeqCst fence: pairs with the first fence of `publish`: either we see the owner's push
        // below, or the owner sees our clear and sets the bit again.
        fence(Ordering::SeqCst);
        !is_empty(index)
    }

    /// The marked workers, from `start` on, wrapping around. Each word is read when the walk
    /// reaches it.
    fn marked_from(&self, start: usize) -> impl Iterator<Item = usize> + '_ {
        let n = self.words.len();
        let (first, shift) = ((start / BITS) % n, start % BITS);
        (0..=n).flat_map(move |k| {
            let w = (first + k) % n;
            // Relaxed: a hint the probe confirms; before a worker sleeps its announce fence
            // orders this load (see the module docs).
            let mut bits = self.words[w].load(Ordering::Relaxed);
            if k == 0 {
                bits &= !0 << shift;
            } else if k == n {
                // Back in the first word: the bits below `start`.
                bits &= !(!0 << shift);
            }
            Bits(bits).map(move |b| w * BITS + b)
        })
    }
}

/// The set bits of a word, lowest first.
struct Bits(u64);

impl Iterator for Bits {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(b)
    }
}

#[cfg(all(test, not(any(forkjoin_loom, forkjoin_shuttle))))]
mod tests {
    use super::*;
    use crate::runtime::deque::Worker;

    fn marked(map: &WorkMap, start: usize) -> Vec<usize> {
        map.marked_from(start).collect()
    }

    #[test]
    fn walks_the_marked_workers_from_start_wrapping_around() {
        let sleep = Sleep::new(130);
        let map = WorkMap::new(130);
        for i in [0, 5, 63, 64, 100, 129] {
            map.publish(i, &sleep);
        }
        assert_eq!(marked(&map, 0), [0, 5, 63, 64, 100, 129]);
        assert_eq!(marked(&map, 5), [5, 63, 64, 100, 129, 0]);
        assert_eq!(marked(&map, 64), [64, 100, 129, 0, 5, 63]);
        assert_eq!(marked(&map, 101), [129, 0, 5, 63, 64, 100]);
        assert_eq!(marked(&map, 129), [129, 0, 5, 63, 64, 100]);
    }

    #[test]
    fn a_search_unmarks_empty_deques_and_skips_itself() {
        let sleep = Sleep::new(4);
        let map = WorkMap::new(4);
        let deques: Vec<Worker<u32>> = (0..4).map(|_| Worker::new()).collect();
        let stealers: Vec<_> = deques.iter().map(Worker::stealer).collect();
        deques[2].push(7);
        for i in [0, 1, 2] {
            map.publish(i, &sleep);
        }
        let search_until = |me, start, stop: bool| {
            map.steal(
                me,
                start,
                &sleep,
                |v| Some(stealers[v].steal()),
                |v| stealers[v].is_empty(),
                || stop,
            )
        };
        let search = |me, start| search_until(me, start, false);
        // A search told to stop (its waiter's latch is set) probes nothing: the job stays, and
        // so do the marks.
        assert_eq!(search_until(0, 0, true), None);
        assert_eq!(marked(&map, 0), [0, 1, 2]);
        assert_eq!(search(0, 0), Some((2, 7)));
        // Worker 1's deque was empty: unmarked. Worker 2 is still marked (the steal left it so),
        // worker 0's own bit is never touched by its own search.
        assert_eq!(marked(&map, 0), [0, 2]);
        assert_eq!(search(0, 3), None);
        assert_eq!(marked(&map, 0), [0]);
        assert!(!map.others_marked(0), "only its own bit");
        assert!(map.others_marked(1));
    }

    #[test]
    fn an_unmarked_deque_that_filled_is_marked_again() {
        let sleep = Sleep::new(2);
        let map = WorkMap::new(2);
        let deque = Worker::new();
        let stealer = deque.stealer();
        map.publish(1, &sleep);
        // The probe sees an empty deque, and the job arrives before the second look (as if the
        // owner had pushed it and read the bit set just before the clear).
        let mut first = true;
        let found = map.steal(
            0,
            0,
            &sleep,
            |_| {
                if std::mem::take(&mut first) {
                    deque.push(9);
                    Some(Steal::Empty)
                } else {
                    Some(stealer.steal())
                }
            },
            |_| stealer.is_empty(),
            || false,
        );
        assert_eq!(found, Some((1, 9)));
        assert_eq!(marked(&map, 0), [1]);
    }
}
