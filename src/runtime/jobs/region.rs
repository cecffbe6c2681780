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
//! ([`Regions`], entries per worker indexed by the worker's nesting level, see "Any depth"),
//! holding its key and its parent tag (the job's own tag, or the scope creator's region). So the
//! tags form a tree that mirrors the tree of jobs, coarsened to one node per job that changed
//! hands.
//!
//! **The test.** A wait for key `k` accepts a job if walking up from the job's tag meets a region
//! whose key is `k` (or the job itself is `k`, a b not yet taken) — [`Regions::belongs`]. The
//! waiter knows the depth its region has in the tree (its own region's for a scope, one more for a
//! job it created), so the walk stops there: a job of another branch costs the entries between its
//! region and that depth, not its whole chain up to the root.
//!
//! **Why reading the table is safe without locks.** A region's entry is written by its owner before
//! any job tagged with it exists (the job is created later, on that thread, and reaches other
//! threads through a queue's Release/Acquire), and it is rewritten only after the region closed,
//! which happens only after every job created in it has run (a job's creator waits for it; `scope`
//! jobs are tagged with the scope's region, which closes after all of them). A thief tests the tag
//! it read from a slot *before* its CAS; if the CAS succeeds the job was still in the queue, so
//! every region on its chain was open the whole time and the walk read their true entries. If the
//! CAS fails the walk may have read reused entries, but the answer is discarded with the job. The
//! entries are atomics in memory the pool owns until it is dropped, so such a stale walk reads
//! garbage, never freed memory, and any word decodes to an entry or to none.
//!
//! **Any depth.** Each worker's entries are indexed by its nesting level of open regions, in
//! segments that double in size (64, 128, 256, ... entries), allocated by the owner the first time
//! it nests that deep and kept until the pool drops. So every region has its own entry however deep
//! the nesting, and a wait accepts exactly what belongs to it. Each entry records its depth in the
//! tree of regions (its parent's plus one); a real chain's depths fall by one per step, so a walk
//! stops as soon as they do not — a stale walk through rewritten entries cannot cycle.
//!
//! **Cancellation.** An entry also holds the address of the cancellation node its jobs run under
//! (`crate::runtime::cancel`): a region opened for a job copies its parent's, as it copies the
//! depth, and a `cancellable` call opens one with its own. The worker opening a region for a job
//! reads the parent's entry after it took the job, while the job's region is open, so the address
//! it copies is the one the job was created under, and that node outlives the job (its
//! `cancellable` call waits for every job made under it).
//!
//! **Caps.** An entry holds, the same way, the cap its jobs run under (`super::cap`), which a
//! thief reads from the tag before it takes a job ([`Regions::cap_of`]).

use super::cap::CapId;
use super::segmented::Segmented;
use crate::platform::sync::{AtomicUsize, Ordering};

/// Entries in a worker's first segment; segment `s` holds `FIRST_SEGMENT << s`.
const FIRST_SEGMENT: usize = 64;

/// The region a job was created in: `0` for none ([`RegionTag::ROOT`]), else 1 + its worker's
/// index + its level shifted past the worker bits (see [`Regions::tag`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct RegionTag(usize);

impl RegionTag {
    /// Created outside every region: nobody waits for it inside the pool.
    pub(crate) const ROOT: RegionTag = RegionTag(0);

    /// The tag as one word, for a queue slot.
    #[inline(always)]
    pub(crate) fn into_raw(self) -> usize {
        self.0
    }

    /// Rebuilds a tag from [`into_raw`](Self::into_raw)'s word (any word is a valid tag: one that
    /// names no allocated entry names no region).
    #[inline(always)]
    pub(crate) fn from_raw(raw: usize) -> RegionTag {
        RegionTag(raw)
    }
}

/// What a waiting worker may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitFor {
    /// Anything: an idle worker, `yield_now`, `block_on`.
    Anything,
    /// The job with this key and the jobs of its region's subtree (a `join`'s stolen b, a scope),
    /// whose region is at `depth` in the tree of regions (see [`Regions::depth_of`]).
    Key { key: usize, depth: usize },
    /// Only jobs injected from outside the pool with no region: a worker waiting for another pool,
    /// whose job may call back into this pool.
    Injected,
}

/// What a region opens with of its own instead of its parent's.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Own {
    /// The address of a cancellation node (`cancellable`, a spawn made under a node).
    pub cancel: Option<usize>,
    /// A cap (`with_max_threads`, a spawn made under a cap).
    pub cap: Option<CapId>,
}

/// One region: its key, its parent's tag, its depth and its cancellation node. Written only by the
/// owning worker.
struct Entry {
    key: AtomicUsize,
    parent: AtomicUsize,
    /// 1 + the parent's depth (the root's is 0).
    depth: AtomicUsize,
    /// The address of the cancellation node the region's jobs run under (see
    /// `crate::runtime::cancel`), 0 for none: the parent's, unless the region was opened with its
    /// own.
    cancel: AtomicUsize,
    /// The cap the region's jobs run under (a [`CapId`] word, see `super::cap`), 0 for none: the
    /// parent's, unless the region was opened with its own.
    cap: AtomicUsize,
}

impl Default for Entry {
    fn default() -> Self {
        Entry {
            key: AtomicUsize::new(0),
            parent: AtomicUsize::new(0),
            depth: AtomicUsize::new(0),
            cancel: AtomicUsize::new(0),
            cap: AtomicUsize::new(0),
        }
    }
}

/// The region table of one pool: a grow-only table of entries per worker, indexed by level.
pub(crate) struct Regions {
    workers: Box<[Segmented<Entry>]>,
    /// Bits of a tag (after the `+ 1`) that hold the worker index.
    worker_bits: u32,
}

impl Regions {
    /// A table for `workers` workers, each with its first segment allocated.
    pub(crate) fn new(workers: usize) -> Self {
        let workers = workers.max(1);
        Regions {
            workers: (0..workers)
                .map(|_| Segmented::new(FIRST_SEGMENT, true))
                .collect(),
            worker_bits: workers.next_power_of_two().trailing_zeros(),
        }
    }

    /// The tag of worker `worker`'s region at nesting `level` (any level).
    #[inline]
    pub(crate) fn tag(&self, worker: usize, level: usize) -> RegionTag {
        debug_assert!(worker < self.workers.len());
        let raw = level
            .checked_shl(self.worker_bits)
            .filter(|i| i >> self.worker_bits == level)
            .and_then(|i| (i | worker).checked_add(1))
            .expect("region nesting deeper than a tag can name");
        RegionTag(raw)
    }

    /// The worker and level `tag` names, if the word names one.
    #[inline]
    fn locate(&self, tag: RegionTag) -> Option<(&Segmented<Entry>, usize)> {
        let index = tag.0.checked_sub(1)?;
        let worker = index & ((1 << self.worker_bits) - 1);
        Some((self.workers.get(worker)?, index >> self.worker_bits))
    }

    /// The entry `tag` names, if its segment exists (any word decodes to one entry or none).
    #[inline]
    fn entry(&self, tag: RegionTag) -> Option<&Entry> {
        let (table, level) = self.locate(tag)?;
        table.get(level)
    }

    /// Opens `tag`'s region with `key` under `parent`, its jobs under the parent's cancellation
    /// node and cap, or `own`'s where it has one; returns the node's address (0 for none) and the
    /// cap. Only the worker that owns the entry calls this, and only while no job tagged `tag`
    /// exists.
    #[inline]
    pub(crate) fn open(
        &self,
        tag: RegionTag,
        key: usize,
        parent: RegionTag,
        own: Own,
    ) -> (usize, CapId) {
        let (table, level) = self.locate(tag).expect("a tag made by `tag`");
        let entry = table.get_or_grow(level);
        // The parent is this worker's enclosing region or the tag of a job it is about to run: open.
        let (depth, cancel, cap) = self.entry(parent).map_or((0, 0, 0), |p| {
            (
                p.depth.load(Ordering::Relaxed),
                p.cancel.load(Ordering::Relaxed),
                p.cap.load(Ordering::Relaxed),
            )
        });
        let cancel = own.cancel.unwrap_or(cancel);
        let cap = own.cap.map_or(cap, CapId::into_raw);
        // Relaxed: the jobs tagged with this region are created afterwards on this thread and reach
        // other threads only through a queue's Release/Acquire pair (see the module docs).
        entry.key.store(key, Ordering::Relaxed);
        entry.parent.store(parent.0, Ordering::Relaxed);
        entry.depth.store(depth + 1, Ordering::Relaxed);
        entry.cancel.store(cancel, Ordering::Relaxed);
        entry.cap.store(cap, Ordering::Relaxed);
        (cancel, CapId::from_raw(cap))
    }

    /// The cap that jobs tagged `tag` run under. Read before the job is taken, the answer may come
    /// from a rewritten entry (a stale walk, as in `belongs`); it is a word that names a slot of
    /// the cap table or none, and is true once the job is taken.
    #[inline]
    pub(crate) fn cap_of(&self, tag: RegionTag) -> CapId {
        // Relaxed: as `belongs`' walk.
        CapId::from_raw(self.entry(tag).map_or(0, |e| e.cap.load(Ordering::Relaxed)))
    }

    /// The key of region `tag` (0 for the root). Only for a region the caller knows is open, e.g.
    /// its own.
    #[inline]
    pub(crate) fn key_of(&self, tag: RegionTag) -> usize {
        // Relaxed: the caller's own entry, or one ordered before it like `belongs`' walk.
        self.entry(tag).map_or(0, |e| e.key.load(Ordering::Relaxed))
    }

    /// The depth of region `tag` in the tree of regions: 0 for the root, 1 + its parent's for a
    /// region (see [`WaitFor::Key`]). Only for a region the caller knows is open, e.g. its own.
    #[inline]
    pub(crate) fn depth_of(&self, tag: RegionTag) -> usize {
        // Relaxed: as `key_of`.
        self.entry(tag)
            .map_or(0, |e| e.depth.load(Ordering::Relaxed))
    }

    /// True if a job with id `job` and tag `tag` may run in a wait for `want`: it is the awaited job
    /// itself, or its tag's chain meets a region whose key is the awaited key (see the module docs for
    /// why the walk may race with nothing that matters).
    #[inline]
    pub(crate) fn belongs(&self, want: WaitFor, job: usize, tag: RegionTag) -> bool {
        match want {
            WaitFor::Anything => true,
            WaitFor::Injected => tag == RegionTag::ROOT,
            WaitFor::Key { key, depth } => job == key || self.chain_meets(tag, key, depth),
        }
    }

    /// Walks up from `tag` to the depth of the awaited region (`depth`) and compares its key there:
    /// a real chain's depths fall by one per step, so the region with `key`, at `depth`, is met
    /// there or not at all. A job of another branch is turned down after the few entries between
    /// it and that depth, not after its whole chain up to the root: at 256 workers a wait probes
    /// every marked deque, and each entry of a walk is a line its owner keeps rewriting
    /// (docs/benchmarks.md, "Waits at many workers"). A `depth` that is not the key's (none of the
    /// callers') would only turn down jobs that belong, never let in one that does not: a region
    /// is named by its key, the address of something live.
    #[inline]
    fn chain_meets(&self, mut tag: RegionTag, key: usize, depth: usize) -> bool {
        let mut below = usize::MAX;
        while let Some(entry) = self.entry(tag) {
            // Relaxed: the entries were written before the job we test was published to us (see
            // `open`); a stale read only happens for a job we then fail to take.
            let at = entry.depth.load(Ordering::Relaxed);
            if at >= below {
                // Not a real chain (entries rewritten under a stale walk): the CAS will fail.
                return false;
            }
            if at <= depth {
                return at == depth && entry.key.load(Ordering::Relaxed) == key;
            }
            below = at;
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
        let a = r.tag(0, 0);
        let b = r.tag(1, 0);
        let c = r.tag(1, 1);
        let d = r.tag(0, 1);
        r.open(a, 10, RegionTag::ROOT, Own::default());
        r.open(b, 20, a, Own::default());
        r.open(c, 30, b, Own::default());
        r.open(d, 40, RegionTag::ROOT, Own::default());
        let key = |key, depth| WaitFor::Key { key, depth };
        let depths = [a, b, c, d, RegionTag::ROOT].map(|t| r.depth_of(t));
        assert_eq!(depths, [1, 2, 3, 1, 0]);
        for (k, depth) in [(10, 1), (20, 2), (30, 3)] {
            assert!(r.belongs(key(k, depth), 1, c), "key {k}");
        }
        assert!(!r.belongs(key(40, 1), 1, c));
        assert!(!r.belongs(key(30, 3), 1, b), "a parent is not a child's");
        assert!(r.belongs(key(30, 3), 30, RegionTag::ROOT), "the job itself");
        assert!(!r.belongs(key(10, 1), 1, RegionTag::ROOT));
        // A depth that is not the key's turns down what belongs, and lets in nothing else.
        assert!(!r.belongs(key(10, 2), 1, c));
        assert!(!r.belongs(key(40, 2), 1, c));
        assert!(r.belongs(WaitFor::Injected, 1, RegionTag::ROOT));
        assert!(!r.belongs(WaitFor::Injected, 1, a));
        assert!(r.belongs(WaitFor::Anything, 1, d));
    }

    #[test]
    fn garbage_tags_and_cycles_end_the_walk() {
        let r = Regions::new(1);
        let a = r.tag(0, 0);
        let b = r.tag(0, 1);
        // A stale walk can read a cycle through rewritten entries: depth stops it.
        r.open(a, 10, RegionTag::ROOT, Own::default());
        r.open(b, 20, a, Own::default());
        r.open(a, 10, b, Own::default());
        let want = WaitFor::Key { key: 99, depth: 0 };
        assert!(!r.belongs(want, 1, a));
        for raw in [usize::MAX, usize::MAX - 1, 1 << 40, 12345] {
            assert!(!r.belongs(want, 1, RegionTag(raw)), "{raw:#x}");
            assert_eq!(r.key_of(RegionTag(raw)), 0, "{raw:#x}");
        }
    }

    #[test]
    fn every_level_has_its_own_entry_at_any_depth() {
        // Two workers alternate nesting 3,000 regions (across many segments); a job at the bottom
        // belongs to every region above it, and a region's entry is not shared with any other.
        let r = Regions::new(3);
        let mut chain = vec![RegionTag::ROOT];
        for level in 0..3_000 {
            let tag = r.tag(level % 2, level / 2);
            r.open(tag, 1_000 + level, *chain.last().unwrap(), Own::default());
            chain.push(tag);
        }
        let bottom = *chain.last().unwrap();
        let key = |level: usize| WaitFor::Key {
            key: 1_000 + level,
            depth: level + 1,
        };
        for level in [0, 63, 64, 127, 128, 1_000, 2_999] {
            assert!(r.belongs(key(level), 1, bottom), "level {level}");
            assert_eq!(r.key_of(chain[level + 1]), 1_000 + level);
            assert_eq!(r.depth_of(chain[level + 1]), level + 1);
        }
        // A job in the middle belongs to the regions above it, not to those below.
        assert!(!r.belongs(key(2_000), 1, chain[1_500]));
        assert!(r.belongs(key(1_000), 1, chain[1_500]));
        // The third worker never nested: its deep tags name no region.
        assert_eq!(r.key_of(r.tag(2, 500)), 0);
    }
}
