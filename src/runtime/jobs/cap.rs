//! Caps: at most `k` of a pool's threads run the work of one call at any moment
//! ([`with_max_threads`](crate::with_max_threads)).
//!
//! **What is counted.** A cap is a slot of its pool's [`Caps`] table: a limit, and how many threads
//! are *inside* it. The calling worker enters when the call starts and leaves when it returns.
//! Every job made under the call carries the cap in its region (`super::region`: an entry holds
//! the cap as it holds the cancellation node, and a region opened for a job copies it), and each
//! worker keeps the cap it runs under, restored when the region closes. A worker that takes a job
//! from a queue is already inside the job's cap if the cap is on its own chain (it runs part of
//! the call: a wait by working takes the call's jobs). Otherwise it must *reserve* a place in the
//! cap, and in each enclosing cap it is not inside, before the job starts, and it gives them back
//! when the job's region closes. A reservation raises `running` by a compare-and-swap that
//! succeeds only below `limit`, so the threads inside a cap never outnumber its limit. A thread
//! inside an inner cap is inside the outer one: nested caps take the smaller limit.
//!
//! **Refusing a job.** A thief reads the cap from the job's tag before its CAS, as it tests the
//! region, and leaves a job whose cap has no room where it is ([`Caps::has_room`]). That read may
//! be stale, so it only filters: the reservation is made after the job is taken, and a job taken
//! just after another thread took the last place goes to the injector. Nothing is stranded: a job
//! a cap refuses is one that a thread inside the cap waits for (a join's b its creator, a scope's
//! job the scope's owner), and such a waiter is inside and needs no place.
//!
//! **Spawns.** Nobody waits for a `spawn` made under a cap, which may even start after the call
//! returned. It holds its cap's slot (a reference count), and a thread that starts it without room
//! *parks* it in the slot instead ([`Caps::park`]). Whoever gives a place back afterwards *pumps*
//! the slot: reserves the places the oldest parked job needs and hands it on holding them
//! (`inject`), and the thread that runs it keeps them for the job's length. Parking and giving
//! back are each a write, a SeqCst fence and a read (the parked count; `running`), so at least one
//! side sees the other: a parker that finds no room leaves the job to a holder whose give-back
//! comes later and sees it. `loom-tests/models/cap.rs` checks the limit and this hand-off.
//!
//! **Slots.** A slot's memory lives as long as the pool (a [`Segmented`] table), so a thief that
//! reads a cap from a stale tag reads some slot, never freed memory, as a stale region walk does;
//! the answer only decides whether it tries the CAS. A slot is reused once nothing holds it: its
//! call, its spawns, the region of each job a worker took under it (a job sets its latch before
//! its region gives the places back, so the call may return first), and the caps started inside
//! it (each holds its parent, so a held cap's chain is the one its places were reserved in).
//!
//! **Cost.** Nothing on the join and leaf paths. A region's open copies one more word; a job taken
//! from a queue costs one load of its tag's entry (which the region's open reads next); a thief
//! filters by cap only while some cap of its pool is live (one load of a word written when a cap
//! starts or ends).

use std::collections::VecDeque;

use super::segmented::Segmented;
use crate::platform::sync::{fence, sim_bug, AtomicUsize, Mutex, Ordering};

/// A cap, as one word: its slot's index + 1; [`CapId::NONE`] (0) for no cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct CapId(usize);

impl CapId {
    /// No cap.
    pub(crate) const NONE: CapId = CapId(0);

    /// The cap as one word, for a region entry.
    #[inline(always)]
    pub(crate) fn into_raw(self) -> usize {
        self.0
    }

    /// Rebuilds a cap from [`into_raw`](Self::into_raw)'s word (any word is a valid id: one that
    /// names no allocated slot names no cap).
    #[inline(always)]
    pub(crate) fn from_raw(raw: usize) -> CapId {
        CapId(raw)
    }

    /// True for [`CapId::NONE`].
    #[inline(always)]
    pub(crate) fn is_none(self) -> bool {
        self.0 == 0
    }
}

/// A job a cap could not start, to run once it can: run, it holds places in every cap of its chain
/// (reserved from outside all of them).
pub(crate) type Parked = Box<dyn FnOnce() + Send>;

/// One cap.
struct Slot {
    /// At most this many threads inside.
    limit: AtomicUsize,
    /// Threads inside, plus places reserved for parked jobs on their way to a thread.
    running: AtomicUsize,
    /// The enclosing cap's id, 0 for none.
    parent: AtomicUsize,
    /// 1 + the parent's depth.
    depth: AtomicUsize,
    /// The call (until it returns) and its spawns not yet run: the slot is free at 0.
    refs: AtomicUsize,
    /// Jobs waiting for room, each with the cap it runs under (this one or one inside it).
    parked: Mutex<VecDeque<(CapId, Parked)>>,
    /// `parked`'s length, readable without the lock.
    parked_len: AtomicUsize,
}

impl Default for Slot {
    fn default() -> Self {
        Slot {
            limit: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            parent: AtomicUsize::new(0),
            depth: AtomicUsize::new(0),
            refs: AtomicUsize::new(0),
            parked: Mutex::new(VecDeque::new()),
            parked_len: AtomicUsize::new(0),
        }
    }
}

/// Which slots are free, and how many were ever used.
struct Alloc {
    free: Vec<usize>,
    used: usize,
}

/// The caps of one pool.
pub(crate) struct Caps {
    slots: Segmented<Slot>,
    alloc: Mutex<Alloc>,
    /// Slots in use: while 0, no job of the pool runs under a cap.
    live: AtomicUsize,
}

impl Default for Caps {
    fn default() -> Self {
        Caps::new()
    }
}

impl Caps {
    /// An empty table.
    pub(crate) fn new() -> Self {
        Caps {
            slots: Segmented::new(8, false),
            alloc: Mutex::new(Alloc {
                free: Vec::new(),
                used: 0,
            }),
            live: AtomicUsize::new(0),
        }
    }

    /// True if some cap of the pool is in use. Relaxed: a thief uses it only to decide whether to
    /// filter before it takes a job; the reservation after the take does not depend on it.
    #[inline]
    pub(crate) fn any_live(&self) -> bool {
        self.live.load(Ordering::Relaxed) != 0
    }

    #[inline]
    fn slot(&self, cap: CapId) -> Option<&Slot> {
        self.slots.get(cap.0.checked_sub(1)?)
    }

    /// The slot of a cap the caller knows is live.
    #[inline]
    fn live_slot(&self, cap: CapId) -> &Slot {
        self.slot(cap).expect("a live cap has a slot")
    }

    /// Starts a cap of `limit` threads inside `parent` (or none), with the calling thread inside
    /// it and one reference, the call's. The cap holds its parent until its slot is free, so a
    /// held cap's whole chain stays as it was made.
    pub(crate) fn start(&self, limit: usize, parent: CapId) -> CapId {
        debug_assert!(limit > 0);
        if !parent.is_none() {
            self.hold(parent);
        }
        let depth = self
            .slot(parent)
            .map_or(0, |p| p.depth.load(Ordering::Relaxed));
        let mut alloc = self.alloc.lock().unwrap_or_else(|e| e.into_inner());
        let index = alloc.free.pop().unwrap_or_else(|| {
            alloc.used += 1;
            alloc.used - 1
        });
        // Grown under the lock: the table's one writer.
        let slot = self.slots.get_or_grow(index);
        drop(alloc);
        // Relaxed: the cap reaches other threads only in jobs made afterwards, through a queue's
        // Release/Acquire; a stale filter that reads these early only decides whether to try.
        slot.limit.store(limit, Ordering::Relaxed);
        slot.parent.store(parent.0, Ordering::Relaxed);
        slot.depth.store(depth + 1, Ordering::Relaxed);
        slot.refs.store(1, Ordering::Relaxed);
        // The caller is inside. An RMW, not a store: a give-back of the slot's last cap may still
        // be on its way (it only lowers the count, after this the pump finds nothing parked).
        slot.running.fetch_add(1, Ordering::SeqCst);
        self.live.fetch_add(1, Ordering::Relaxed);
        CapId(index + 1)
    }

    /// One more reference to `cap` (a spawn made under it), which must be live.
    pub(crate) fn hold(&self, cap: CapId) {
        self.live_slot(cap).refs.fetch_add(1, Ordering::Relaxed);
    }

    /// Drops a reference to `cap`; the last frees its slot, which drops its reference to its
    /// parent.
    pub(crate) fn unhold(&self, cap: CapId) {
        let mut cap = cap;
        while !cap.is_none() {
            let slot = self.live_slot(cap);
            // AcqRel: every use of the slot by a reference's holder happens before its reuse.
            if slot.refs.fetch_sub(1, Ordering::AcqRel) != 1 {
                return;
            }
            debug_assert_eq!(slot.parked_len.load(Ordering::Relaxed), 0);
            let parent = CapId(slot.parent.load(Ordering::Relaxed));
            self.live.fetch_sub(1, Ordering::Relaxed);
            self.alloc
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .free
                .push(cap.0 - 1);
            cap = parent;
        }
    }

    /// The slots of `cap`'s chain (it and the caps enclosing it) that are not on `inside`'s chain,
    /// innermost first, passed to `f` with their ids until it returns false. `Ok` holds the innermost cap the two
    /// chains share ([`CapId::NONE`] if none); `Err` the cap where `f` stopped. A chain read from
    /// a stale word may be garbage: a walk stops with `Err` where depths do not fall by one per
    /// step, and a word that names no slot is no cap.
    #[inline]
    fn walk_outside(
        &self,
        cap: CapId,
        inside: CapId,
        mut f: impl FnMut(CapId, &Slot) -> bool,
    ) -> Result<CapId, CapId> {
        let depth_of = |c: CapId| self.slot(c).map_or(0, |s| s.depth.load(Ordering::Relaxed));
        let parent_of =
            |c: CapId| CapId(self.slot(c).map_or(0, |s| s.parent.load(Ordering::Relaxed)));
        let (mut a, mut b) = (cap, inside);
        let (mut da, mut db) = (depth_of(a), depth_of(b));
        while db > da {
            b = parent_of(b);
            db -= 1;
        }
        while a != b && da > 0 {
            let Some(slot) = self.slot(a) else {
                return Err(a);
            };
            if !f(a, slot) {
                return Err(a);
            }
            a = parent_of(a);
            if depth_of(a) + 1 != da {
                // Not a real chain: a stale word.
                return Err(a);
            }
            da -= 1;
            if db > da {
                b = parent_of(b);
                db -= 1;
            }
        }
        Ok(if da == 0 { CapId::NONE } else { a })
    }

    /// The innermost cap on both `a`'s and `b`'s chains ([`CapId::NONE`] if none).
    pub(crate) fn common(&self, a: CapId, b: CapId) -> CapId {
        self.walk_outside(a, b, |_, _| true).unwrap_or(CapId::NONE)
    }

    /// True if a thread under `inside` could reserve the places a job under `cap` needs now: a
    /// filter, read from a word that may be stale.
    #[inline]
    pub(crate) fn has_room(&self, cap: CapId, inside: CapId) -> bool {
        self.walk_outside(cap, inside, |_, slot| {
            slot.running.load(Ordering::Relaxed) < slot.limit.load(Ordering::Relaxed)
        })
        .is_ok()
    }

    /// Reserves a place in every cap of `cap`'s chain that is not on `inside`'s chain, for a thread
    /// under `inside` that is about to run a job under `cap` (`cap` must be live); all or none.
    /// `Err` names a cap that had no room.
    pub(crate) fn reserve(&self, cap: CapId, inside: CapId) -> Result<(), CapId> {
        let mut reserved = 0;
        let result = self.walk_outside(cap, inside, |_, slot| {
            let limit = slot.limit.load(Ordering::Relaxed);
            // SeqCst: a parker's read of `running` and this RMW are ordered with its fence (see
            // the module doc).
            let ok = slot
                .running
                .fetch_update(Ordering::SeqCst, Ordering::Relaxed, |n| {
                    (n < limit).then_some(n + 1)
                })
                .is_ok();
            reserved += ok as usize;
            ok
        });
        if result.is_err() {
            // Undo the places taken before the cap that had none.
            let mut left = reserved;
            let _ = self.walk_outside(cap, inside, |_, slot| {
                if left == 0 {
                    return false;
                }
                slot.running.fetch_sub(1, Ordering::SeqCst);
                left -= 1;
                true
            });
        }
        result.map(drop)
    }

    /// Gives back what [`reserve`](Self::reserve)`(cap, inside)` took, and hands parked jobs the
    /// room that frees (see [`pump`](Self::pump)).
    pub(crate) fn give_back(&self, cap: CapId, inside: CapId, inject: &mut dyn FnMut(Parked)) {
        let _ = self.walk_outside(cap, inside, |_, slot| {
            // SeqCst RMW, then a SeqCst fence before the parked count is read: pairs with `park`.
            slot.running.fetch_sub(1, Ordering::SeqCst);
            true
        });
        fence(Ordering::SeqCst);
        // The simulation's self-check (scripts/sim-bugs.sh): a give-back that hands nothing on
        // leaves a parked spawn for good.
        if sim_bug("cap_no_pump") {
            return;
        }
        // The same caps again (the chain does not change while its holders live).
        let _ = self.walk_outside(cap, inside, |id, slot| {
            if slot.parked_len.load(Ordering::SeqCst) != 0 {
                self.pump(id, inject);
            }
            true
        });
    }

    /// Parks `job`, a job under `cap` that found no room in `at` (a cap of `cap`'s chain), until a
    /// give-back of `at` lets it start; pumps at once if room appeared meanwhile.
    pub(crate) fn park(&self, at: CapId, cap: CapId, job: Parked, inject: &mut dyn FnMut(Parked)) {
        self.push_parked(at, cap, job);
        // SeqCst fence between the parked count's write and the read of `running` in `pump`'s
        // reservation: pairs with `give_back`.
        fence(Ordering::SeqCst);
        self.pump(at, inject);
    }

    fn push_parked(&self, at: CapId, cap: CapId, job: Parked) {
        let slot = self.live_slot(at);
        let mut parked = slot.parked.lock().unwrap_or_else(|e| e.into_inner());
        parked.push_back((cap, job));
        slot.parked_len.fetch_add(1, Ordering::SeqCst);
    }

    /// Starts the jobs parked at `at` while there is room: reserves a job's places from outside
    /// every cap (the thread that will run it is not known) and passes it to `inject`; a job whose
    /// chain has no room in another cap is parked there instead.
    fn pump(&self, at: CapId, inject: &mut dyn FnMut(Parked)) {
        let mut todo = vec![at];
        while let Some(at) = todo.pop() {
            let slot = self.live_slot(at);
            loop {
                let popped = {
                    let mut parked = slot.parked.lock().unwrap_or_else(|e| e.into_inner());
                    let popped = parked.pop_front();
                    if popped.is_some() {
                        slot.parked_len.fetch_sub(1, Ordering::SeqCst);
                    }
                    popped
                };
                let Some((cap, job)) = popped else { break };
                match self.reserve(cap, CapId::NONE) {
                    Ok(()) => inject(job),
                    Err(full) => {
                        self.push_parked(full, cap, job);
                        fence(Ordering::SeqCst);
                        // Room may have appeared in `full` before it saw the job: look again.
                        let room = self.has_room(full, CapId::NONE);
                        if full == at {
                            if !room {
                                break;
                            }
                        } else if room && !todo.contains(&full) {
                            todo.push(full);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;
    use crate::platform::sync::for_tests;

    impl Caps {
        /// True if `inside`'s chain holds `cap` (a thread under `inside` is inside `cap`).
        fn contains(&self, inside: CapId, cap: CapId) -> bool {
            self.walk_outside(cap, inside, |_, _| false).is_ok()
        }
    }

    #[test]
    fn a_cap_admits_up_to_its_limit_and_nests_take_the_smaller() {
        let caps = Caps::new();
        let outer = caps.start(2, CapId::NONE);
        let inner = caps.start(3, outer);
        // The starter of each is inside: outer has 1 running, inner 1 (and its starter is inside
        // outer already).
        assert!(caps.contains(inner, outer));
        assert!(!caps.contains(outer, inner));
        assert!(caps.has_room(inner, CapId::NONE));
        assert_eq!(caps.reserve(inner, CapId::NONE), Ok(()));
        // outer is full now (2), inner has 2 of 3: the outer limit refuses.
        assert!(!caps.has_room(inner, CapId::NONE));
        assert_eq!(caps.reserve(inner, CapId::NONE), Err(outer));
        // A thread inside outer needs only a place in inner.
        assert_eq!(caps.reserve(inner, outer), Ok(()));
        assert_eq!(caps.reserve(inner, outer), Err(inner));
        // A thread inside inner needs nothing.
        assert_eq!(caps.reserve(inner, inner), Ok(()));
        let mut injected = 0;
        caps.give_back(inner, outer, &mut |_| injected += 1);
        caps.give_back(inner, CapId::NONE, &mut |_| injected += 1);
        assert_eq!(caps.reserve(inner, CapId::NONE), Ok(()));
        assert_eq!(injected, 0);
    }

    #[test]
    fn a_parked_job_starts_when_a_place_is_given_back() {
        let caps = Caps::new();
        let cap = caps.start(1, CapId::NONE);
        caps.hold(cap);
        let mut injected: Vec<Parked> = Vec::new();
        let ran = for_tests::Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        let job: Parked = Box::new(move || {
            r.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(caps.reserve(cap, CapId::NONE), Err(cap));
        caps.park(cap, cap, job, &mut |j| injected.push(j));
        assert!(injected.is_empty(), "no room: parked");
        // The call's thread leaves: its place goes to the parked job.
        caps.give_back(cap, CapId::NONE, &mut |j| injected.push(j));
        assert_eq!(injected.len(), 1);
        assert!(
            !caps.has_room(cap, CapId::NONE),
            "the parked job holds the place"
        );
        injected.pop().unwrap()();
        assert_eq!(ran.load(Ordering::Relaxed), 1);
        caps.give_back(cap, CapId::NONE, &mut |_| unreachable!());
        caps.unhold(cap);
        caps.unhold(cap);
        assert!(!caps.any_live());
        // The slot is reused.
        assert_eq!(caps.start(1, CapId::NONE), cap);
    }

    #[test]
    fn a_held_cap_keeps_its_slot_and_its_chain_until_the_last_hold() {
        // A thief's job under `inner` ends after the call that started it returned: the thief's
        // hold keeps `inner` and `outer` from reuse until it gave its place back.
        let caps = Caps::new();
        let outer = caps.start(2, CapId::NONE);
        let inner = caps.start(2, outer);
        assert_eq!(caps.reserve(inner, CapId::NONE), Ok(()));
        caps.hold(inner);
        // Both calls return.
        caps.give_back(inner, outer, &mut |_| unreachable!());
        caps.unhold(inner);
        caps.give_back(outer, CapId::NONE, &mut |_| unreachable!());
        caps.unhold(outer);
        assert!(caps.any_live(), "the thief holds both");
        let other = caps.start(1, CapId::NONE);
        assert!(other != inner && other != outer, "a held slot was reused");
        // The thief leaves: both places go back, then both slots.
        caps.give_back(inner, CapId::NONE, &mut |_| unreachable!());
        caps.unhold(inner);
        caps.give_back(other, CapId::NONE, &mut |_| unreachable!());
        caps.unhold(other);
        assert!(!caps.any_live());
        assert!(caps.has_room(caps.start(2, CapId::NONE), CapId::NONE));
    }

    #[test]
    fn garbage_ids_name_no_cap() {
        let caps = Caps::new();
        let cap = caps.start(1, CapId::NONE);
        for raw in [usize::MAX, 1 << 40, 12345] {
            // As no cap: room, and every thread is inside it.
            assert!(caps.has_room(CapId(raw), CapId::NONE), "{raw:#x}");
            assert!(caps.contains(cap, CapId(raw)), "{raw:#x}");
            assert_eq!(caps.common(cap, CapId(raw)), CapId::NONE);
        }
        let inner = caps.start(1, cap);
        assert_eq!(caps.common(inner, cap), cap);
        assert_eq!(caps.common(cap, inner), cap);
        assert_eq!(caps.common(inner, inner), inner);
    }
}
