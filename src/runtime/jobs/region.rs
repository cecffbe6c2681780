//! Regions: which jobs a waiting worker may run, so that a wait cannot deadlock on the user's locks.
//!
//! A worker that waits (for a stolen job b of a `join`, for a scope's jobs) keeps working, but it
//! runs only jobs that belong to what it waits for: b and b's descendants, or the scope's jobs and
//! theirs. Everything else stays where it is for idle workers. Then a thread holding a `Mutex`
//! while it waits only ever runs code that the sequential program would have run inside the same
//! critical section, and a program that cannot deadlock sequentially cannot deadlock on the pool
//! (rayon #592). It also bounds the stack: a waiting worker never nests unrelated work.
//!
//! **Tags.** Every job carries a [`RegionTag`]: the region its creator was running in when it
//! created it ([`RegionTag::ROOT`] for work nobody waits for: `spawn`, injected calls). A region is
//! opened when a worker starts a job taken from a queue (its *key* is the job's address), and by
//! every `scope` (key: the scope's address); it is an entry of a table in the pool
//! ([`Regions`], one row of [`LEVELS`] entries per worker, indexed by the worker's nesting level),
//! holding its key and its parent tag (the job's own tag, or the scope creator's region). So the
//! tags form a tree that mirrors the tree of jobs, coarsened to one node per job that changed
//! hands.
//!
//! **The test.** A wait for key `k` accepts a job if walking up from the job's tag meets a region
//! whose key is `k` (or the job itself is `k`, a b not yet taken) — [`Regions::belongs`].
//!
//! **Why reading the table is safe without locks.** A region's entry is written by its owner before
//! any job tagged with it exists (the job is created later, on that thread, and reaches other
//! threads through a queue's Release/Acquire), and it is rewritten only after the region closed,
//! which happens only after every job created in it has run (a job's creator waits for it; `scope`
//! jobs are tagged with the scope's region, which closes after all of them). A thief tests the tag
//! it read from a slot *before* its CAS; if the CAS succeeds the job was still in the queue, so
//! every region on its chain was open the whole time and the walk read their true entries. If the
//! CAS fails the walk may have read reused entries, but the answer is discarded with the job. The
//! entries are atomics in memory the pool owns, so such a stale walk reads garbage, never freed
//! memory; it is bounded by [`MAX_WALK`] steps.
//!
//! **Deeper than [`LEVELS`].** A worker nested more than `LEVELS` queue-taken jobs deep opens no
//! further regions: its jobs are tagged with its deepest open region, an ancestor of their true
//! one. Waits on those ancestors still accept them; a wait for a job in between accepts fewer jobs
//! than it could (less help, never a wrong one).

use crate::platform::sync::{AtomicUsize, Ordering};

/// Regions each worker can have open at once (its nesting depth of queue-taken jobs and scopes).
pub(crate) const LEVELS: usize = 64;

/// The longest tag chain [`Regions::belongs`] walks (a stale walk must end).
const MAX_WALK: usize = 4096;

/// The region a job was created in: `0` for none ([`RegionTag::ROOT`]), else 1 + the index of its
/// entry in [`Regions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RegionTag(usize);

impl RegionTag {
    /// Created outside every region: nobody waits for it inside the pool.
    pub const ROOT: RegionTag = RegionTag(0);

    /// The tag as one word, for a queue slot.
    #[inline(always)]
    pub(crate) fn into_raw(self) -> usize {
        self.0
    }

    /// Rebuilds a tag from [`into_raw`](Self::into_raw)'s word (any word is a valid tag: one out of
    /// range names no region).
    #[inline(always)]
    pub(crate) fn from_raw(raw: usize) -> RegionTag {
        RegionTag(raw)
    }
}

/// What a waiting worker may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitFor {
    /// Anything: an idle worker, `yield_now`, `block_on`.
    Anything,
    /// The job with this key and the jobs of its region's subtree (a `join`'s stolen b, a scope).
    Key(usize),
    /// Only jobs injected from outside the pool with no region: a worker waiting for another pool,
    /// whose job may call back into this pool.
    Injected,
}

/// One region: its key and its parent's tag. Written only by the owning worker.
struct Entry {
    key: AtomicUsize,
    parent: AtomicUsize,
}

/// The region table of one pool: [`LEVELS`] entries per worker.
pub struct Regions {
    entries: Box<[Entry]>,
}

impl Regions {
    /// A table for `workers` workers.
    pub fn new(workers: usize) -> Self {
        Regions {
            entries: (0..workers * LEVELS)
                .map(|_| Entry {
                    key: AtomicUsize::new(0),
                    parent: AtomicUsize::new(0),
                })
                .collect(),
        }
    }

    /// The tag of worker `worker`'s region at `level` (`level < LEVELS`).
    #[inline]
    pub fn tag(worker: usize, level: usize) -> RegionTag {
        debug_assert!(level < LEVELS);
        RegionTag(worker * LEVELS + level + 1)
    }

    /// Opens `tag`'s region with `key` under `parent`. Only the worker that owns the entry calls
    /// this, and only while no job tagged `tag` exists.
    #[inline]
    pub fn open(&self, tag: RegionTag, key: usize, parent: RegionTag) {
        let entry = &self.entries[tag.0 - 1];
        // Relaxed: the jobs tagged with this region are created afterwards on this thread and reach
        // other threads only through a queue's Release/Acquire pair (see the module docs).
        entry.key.store(key, Ordering::Relaxed);
        entry.parent.store(parent.0, Ordering::Relaxed);
    }

    /// The key of region `tag` (0 for the root). Only for a region the caller knows is open, e.g.
    /// its own.
    #[inline]
    pub fn key_of(&self, tag: RegionTag) -> usize {
        match tag.0.checked_sub(1) {
            // Relaxed: the caller's own entry, or one ordered before it like `belongs`' walk.
            Some(i) => self.entries[i].key.load(Ordering::Relaxed),
            None => 0,
        }
    }

    /// True if a job with id `job` and tag `tag` may run in a wait for `want`: it is the awaited job
    /// itself, or its tag's chain meets a region whose key is the awaited key (see the module docs for
    /// why the walk may race with nothing that matters).
    #[inline]
    pub fn belongs(&self, want: WaitFor, job: usize, tag: RegionTag) -> bool {
        match want {
            WaitFor::Anything => true,
            WaitFor::Injected => tag == RegionTag::ROOT,
            WaitFor::Key(key) => job == key || self.chain_meets(tag, key),
        }
    }

    #[inline]
    fn chain_meets(&self, mut tag: RegionTag, key: usize) -> bool {
        for _ in 0..MAX_WALK {
            let Some(entry) = tag.0.checked_sub(1).and_then(|i| self.entries.get(i)) else {
                return false;
            };
            // Relaxed: the entries were written before the job we test was published to us (see
            // `open`); a stale read only happens for a job we then fail to take.
            if entry.key.load(Ordering::Relaxed) == key {
                return true;
            }
            tag = RegionTag(entry.parent.load(Ordering::Relaxed));
        }
        false
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_chain_belongs_to_every_key_above_it_and_to_no_other() {
        let r = Regions::new(2);
        // worker 0: region A (key 10) at level 0; worker 1: region B (key 20) under A at level 0;
        // worker 1: region C (key 30) under B at level 1; worker 0: region D (key 40) at level 1,
        // under the root (unrelated).
        let a = Regions::tag(0, 0);
        let b = Regions::tag(1, 0);
        let c = Regions::tag(1, 1);
        let d = Regions::tag(0, 1);
        r.open(a, 10, RegionTag::ROOT);
        r.open(b, 20, a);
        r.open(c, 30, b);
        r.open(d, 40, RegionTag::ROOT);
        for key in [10, 20, 30] {
            assert!(r.belongs(WaitFor::Key(key), 1, c), "key {key}");
        }
        assert!(!r.belongs(WaitFor::Key(40), 1, c));
        assert!(
            !r.belongs(WaitFor::Key(30), 1, b),
            "a parent is not a child's"
        );
        assert!(
            r.belongs(WaitFor::Key(30), 30, RegionTag::ROOT),
            "the job itself"
        );
        assert!(!r.belongs(WaitFor::Key(10), 1, RegionTag::ROOT));
        assert!(r.belongs(WaitFor::Injected, 1, RegionTag::ROOT));
        assert!(!r.belongs(WaitFor::Injected, 1, a));
        assert!(r.belongs(WaitFor::Anything, 1, d));
    }

    #[test]
    fn garbage_tags_and_cycles_end_the_walk() {
        let r = Regions::new(1);
        let a = Regions::tag(0, 0);
        let b = Regions::tag(0, 1);
        r.open(a, 10, b);
        r.open(b, 20, a);
        assert!(!r.belongs(WaitFor::Key(99), 1, a));
        assert!(!r.belongs(WaitFor::Key(99), 1, RegionTag(usize::MAX)));
    }
}
