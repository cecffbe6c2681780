//! The owner-private job stack that sits above each worker's public Chase-Lev deque.
//!
//! `join` pushes its job b here and, in the common case, pops it straight back. The owner's two
//! operations use only Relaxed/Release stores and loads and a **compiler** fence — no locked instruction,
//! no hardware fence — because the rare thief pays for both sides with a process-wide barrier
//! ([`heavy_barrier`](crate::sync::heavy_barrier), Linux `membarrier`): the asymmetric-fence variant of the Chase-Lev deque.
//!
//! Jobs leave the stack from the bottom (oldest first) in two ways:
//! * **publication** by the owner ([`JobStack::take_oldest`], when it sees the pool's idle-worker count
//!   non-zero on a push) moves them to the public deque, where thieves steal them cheaply;
//! * a **heavy steal** ([`JobStack::steal_after_barrier`]) by a thief that is about to sleep and found
//!   nothing else. This is what makes a job reachable when its owner is blocked in user code (e.g. `a`
//!   waits on a channel that only b feeds) and will never look at its flag again.
//!
//! **Indices.** `top` (owner-written) is one past the newest job; `base` (CAS'd by thieves and by the
//! owner when it races them) is the oldest job not yet taken. `slots[base..top]` are the live jobs. Slot
//! positions are not reused while jobs below them were taken: when the stack becomes empty the owner
//! rewinds both to 0, bumping a generation in the upper bits of `base` so a thief's stale CAS fails (no
//! ABA). A full stack makes [`JobStack::push`] fail and the caller publishes the job directly.
//!
//! **Orderings** (the Chase-Lev argument with the owner's fence made asymmetric):
//!
//! | owner                                   | thief                                          |
//! | --------------------------------------- | ---------------------------------------------- |
//! | pop: store `top = t-1`; light barrier;  | load `base = b`; heavy barrier; load `top`;    |
//! | load `base`: `< t-1` → mine, no CAS;    | `b < top` → read slot b; CAS `base b → b+1`    |
//! | `== t-1` → CAS race for the last one     | (fails if the owner or another thief won)      |
//! | push: write slot; store `top` (Release); | idle: increment idle count; heavy barrier;     |
//! | light barrier; load idle count          | load `top` (so: steal it, or the owner sees    |
//! |                                         | the count on its next push — never neither)    |
//!
//! The heavy barrier runs a full fence on every thread of the process, so each owner operation is
//! either entirely before it (its stores are visible to the thief's later loads) or its later loads see
//! what the thief did before it — the two cases the SeqCst-fence proof of Chase-Lev needs.

use crate::job::JobRef;
use crate::sync::{asymmetric_barriers_enabled, light_barrier, AtomicU64, AtomicUsize, Ordering};
use crate::util::CachePadded;

/// Slots per worker; deeper nesting goes straight to the public deque.
#[cfg(not(forkjoin_loom))]
const CAPACITY: usize = 1024;
#[cfg(forkjoin_loom)]
const CAPACITY: usize = 4;

/// `base` = `[generation: 52 bits][index: 12 bits]`: the index never exceeds `CAPACITY` (≤ 4095), and
/// 2^52 generations cannot wrap while a thief sits between its load of `base` and its CAS.
const INDEX_MASK: u64 = 0xFFF;
const GENERATION_ONE: u64 = 1 << 12;
const _: () = assert!(CAPACITY < INDEX_MASK as usize);

/// One job reference, stored as two words that a thief may read while the owner writes others.
struct Slot {
    data: AtomicUsize,
    execute: AtomicUsize,
}

/// The owner's cache line: what push and pop read and write.
struct OwnerLine {
    /// One past the newest job. Written only by the owner.
    top: AtomicUsize,
    /// Copy of [`asymmetric_barriers_enabled`] (fixed before any stack exists), kept next to `top` so
    /// the owner's barrier choice costs no extra cache line.
    asymmetric: bool,
}

/// The owner-private job stack of one worker (see the module docs).
pub struct JobStack {
    owner: CachePadded<OwnerLine>,
    /// `[generation: 52][index of the oldest live job: 12]`.
    base: CachePadded<AtomicU64>,
    slots: Box<[Slot; CAPACITY]>,
}

impl JobStack {
    /// An empty stack.
    pub fn new() -> Self {
        let slots: Box<[Slot]> = (0..CAPACITY)
            .map(|_| Slot {
                data: AtomicUsize::new(0),
                execute: AtomicUsize::new(0),
            })
            .collect();
        JobStack {
            owner: CachePadded::new(OwnerLine {
                top: AtomicUsize::new(0),
                asymmetric: asymmetric_barriers_enabled(),
            }),
            base: CachePadded::new(AtomicU64::new(0)),
            slots: slots.try_into().unwrap_or_else(|_| unreachable!()),
        }
    }

    /// Owner: pushes `job`; false if the stack is full.
    ///
    /// Ends with the owner's light barrier, so the idle-worker count loaded right after is ordered after
    /// the push (see the module docs).
    ///
    /// # Safety
    /// Only the owning worker may call the owner operations (`push`, `pop_if`, `take_oldest`).
    #[inline(always)]
    pub unsafe fn push(&self, job: JobRef) -> bool {
        // Relaxed: only the owner writes `top`.
        let t = self.owner.top.load(Ordering::Relaxed);
        if t >= CAPACITY {
            return false;
        }
        let (data, execute) = job.into_raw();
        let slot = &self.slots[t];
        // Relaxed: published by the Release store of `top` below.
        slot.data.store(data, Ordering::Relaxed);
        slot.execute.store(execute, Ordering::Relaxed);
        // Release: pairs with the thief's Acquire load of `top`, making the slot's words visible.
        self.owner.top.store(t + 1, Ordering::Release);
        light_barrier(self.owner.asymmetric);
        true
    }

    /// Owner: pops the newest job if it is `id` and nobody took it. False if the newest job is another
    /// one (then `id` was never pushed here) or `id` was taken (published or stolen) — in which case
    /// every older job was taken too and the stack is empty.
    ///
    /// # Safety
    /// Owner only (see [`JobStack::push`]).
    #[inline(always)]
    pub unsafe fn pop_if(&self, id: *const ()) -> bool {
        // Relaxed: only the owner writes `top` and the slots.
        let t = self.owner.top.load(Ordering::Relaxed);
        if t == 0 {
            return false;
        }
        let idx = t - 1;
        // SAFETY: `top <= CAPACITY` always (push stops at CAPACITY), so `idx < CAPACITY`.
        let slot = unsafe { self.slots.get_unchecked(idx) };
        if slot.data.load(Ordering::Relaxed) != id as usize {
            return false;
        }
        // Relaxed: the light barrier orders this store before the load of `base` (against the thief's
        // heavy barrier).
        self.owner.top.store(idx, Ordering::Relaxed);
        light_barrier(self.owner.asymmetric);
        // Acquire: pairs with a thief's CAS of `base`.
        let base = self.base.load(Ordering::Acquire);
        let b = (base & INDEX_MASK) as usize;
        if b < idx {
            return true;
        }
        // SAFETY: owner only, forwarded.
        unsafe { self.pop_contended(base, idx) }
    }

    /// The last job, or an already-taken one: settle the race with the thieves by CAS.
    ///
    /// # Safety
    /// Owner only.
    #[cold]
    #[inline(never)]
    unsafe fn pop_contended(&self, base: u64, idx: usize) -> bool {
        let b = (base & INDEX_MASK) as usize;
        let won = b == idx
            && self
                .base
                // SeqCst: arbitrates the last job against a thief's CAS (Chase-Lev).
                .compare_exchange(base, base + 1, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok();
        // Whoever took it, the stack is now empty (base == idx + 1): rewind.
        // SAFETY: owner only.
        unsafe { self.rewind() };
        won
    }

    /// Owner: the stack is empty (every job taken): move both indices back to 0 under a new generation.
    ///
    /// # Safety
    /// Owner only, and only when no live job remains (`base == top` or `base == top + 1` after a pop).
    unsafe fn rewind(&self) {
        // Relaxed store: a thief that still sees the old `top` also sees base ≥ top (empty); one that sees
        // the new generation acquires this store through the CAS below.
        self.owner.top.store(0, Ordering::Relaxed);
        // Acquire: to see the latest base (a thief may have just moved it).
        let current = self.base.load(Ordering::Acquire);
        let next = (current & !INDEX_MASK).wrapping_add(GENERATION_ONE);
        // Release (in the SeqCst store): a thief that loads the new base sees top == 0 or later pushes.
        self.base.store(next, Ordering::SeqCst);
    }

    /// Owner: takes the oldest job off the stack (for publication); `None` if empty.
    ///
    /// # Safety
    /// Owner only.
    pub unsafe fn take_oldest(&self) -> Option<JobRef> {
        loop {
            // Acquire: pairs with thieves' CAS of `base`.
            let base = self.base.load(Ordering::Acquire);
            let b = (base & INDEX_MASK) as usize;
            // Relaxed: own field.
            let t = self.owner.top.load(Ordering::Relaxed);
            if b >= t {
                if t != 0 {
                    // SAFETY: owner only; empty.
                    unsafe { self.rewind() };
                }
                return None;
            }
            // SAFETY: slot b < top was written by us before; thieves never write slots.
            let job = unsafe { self.read_slot(b) };
            // SeqCst: arbitrates against thieves taking the same job.
            if self
                .base
                .compare_exchange(base, base + 1, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok()
            {
                if b + 1 == t {
                    // SAFETY: owner only; we took the last job.
                    unsafe { self.rewind() };
                }
                return Some(job);
            }
        }
    }

    /// # Safety
    /// Slot `i` must hold a job written by the owner and published through `top`.
    unsafe fn read_slot(&self, i: usize) -> JobRef {
        let slot = &self.slots[i];
        // Relaxed: ordered by the Acquire load of `top`/`base` that revealed the slot.
        let data = slot.data.load(Ordering::Relaxed);
        let execute = slot.execute.load(Ordering::Relaxed);
        // SAFETY: the two words were produced by `JobRef::into_raw` in `push`.
        unsafe { JobRef::from_raw(data, execute) }
    }

    /// Thief, first half of a heavy steal: the `base` to pass to
    /// [`steal_after_barrier`](Self::steal_after_barrier) once the caller has run `heavy_barrier()`.
    #[inline]
    pub fn base_before_barrier(&self) -> u64 {
        // Acquire: pairs with the owner's rewind store and other thieves' CAS.
        self.base.load(Ordering::Acquire)
    }

    /// Thief, second half: tries to take the oldest job. `None` if empty or if the race was lost.
    ///
    /// The caller must have executed [`crate::sync::heavy_barrier`] after reading `base`.
    pub fn steal_after_barrier(&self, base: u64) -> Option<JobRef> {
        let b = (base & INDEX_MASK) as usize;
        // Acquire: pairs with the owner's Release store in `push`, making slot `b` readable.
        let t = self.owner.top.load(Ordering::Acquire);
        if b >= t {
            return None;
        }
        // SAFETY: b < top observed after the barrier: slot b was written and published by the owner. If
        // the slot has since been reused, `base` changed and the CAS below fails, discarding the read.
        let job = unsafe { self.read_slot(b) };
        // SeqCst: arbitrates against the owner's pop of the last job and other thieves (Chase-Lev).
        self.base
            .compare_exchange(base, base + 1, Ordering::SeqCst, Ordering::Relaxed)
            .ok()
            .map(|_| job)
    }

    /// True if the stack holds no job (owner's view).
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        let b = (self.base.load(Ordering::Acquire) & INDEX_MASK) as usize;
        b >= self.owner.top.load(Ordering::Relaxed)
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;
    use crate::job::{Job, JobRef};
    use crate::sync::heavy_barrier;

    struct Dummy(u32);
    impl Job for Dummy {
        unsafe fn execute(_this: *const Self) {}
    }

    fn job(d: &Dummy) -> JobRef {
        // SAFETY: never executed in these tests.
        unsafe { JobRef::new(d) }
    }

    #[test]
    fn owner_push_pop_lifo() {
        let s = JobStack::new();
        let (a, b) = (Dummy(1), Dummy(2));
        // SAFETY: this thread is the only owner.
        unsafe {
            assert!(s.push(job(&a)));
            assert!(s.push(job(&b)));
            assert!(!s.pop_if(job(&a).id()), "a is not on top");
            assert!(s.pop_if(job(&b).id()));
            assert!(s.pop_if(job(&a).id()));
            assert!(s.is_empty());
            assert!(!s.pop_if(job(&a).id()));
        }
    }

    #[test]
    fn publication_takes_the_oldest_and_pop_sees_it_gone() {
        let s = JobStack::new();
        let (a, b) = (Dummy(1), Dummy(2));
        // SAFETY: single owner.
        unsafe {
            s.push(job(&a));
            s.push(job(&b));
            assert_eq!(s.take_oldest().unwrap().id(), job(&a).id());
            assert!(s.pop_if(job(&b).id()));
            assert!(!s.pop_if(job(&a).id()), "a was published");
            assert!(s.take_oldest().is_none());
        }
    }

    #[test]
    fn heavy_steal_takes_the_oldest_and_rewinds() {
        let s = JobStack::new();
        let (a, b) = (Dummy(1), Dummy(2));
        // SAFETY: single owner; the "thief" runs on the same thread here.
        unsafe {
            s.push(job(&a));
            let base = s.base_before_barrier();
            heavy_barrier();
            assert_eq!(s.steal_after_barrier(base).unwrap().id(), job(&a).id());
            // a stolen: its pop fails and the stack rewinds to reuse slot 0.
            assert!(!s.pop_if(job(&a).id()));
            assert!(s.is_empty());
            s.push(job(&b));
            let stale = base; // a thief holding the pre-rewind base must fail
            heavy_barrier();
            assert!(s.steal_after_barrier(stale).is_none());
            assert!(s.pop_if(job(&b).id()));
        }
    }

    #[test]
    fn full_stack_refuses() {
        let s = JobStack::new();
        let d = Dummy(0);
        // SAFETY: single owner.
        unsafe {
            for _ in 0..CAPACITY {
                assert!(s.push(job(&d)));
            }
            assert!(!s.push(job(&d)));
        }
        let _ = d.0;
    }

    #[test]
    fn concurrent_pop_and_steal_take_each_job_once() {
        use std::sync::atomic::AtomicBool;
        use std::sync::Arc;
        crate::sync::init_asymmetric_barriers();
        let s = Arc::new(JobStack::new());
        let done = Arc::new(AtomicBool::new(false));
        let dummies: Vec<Dummy> = (0..64).map(Dummy).collect();
        let ids: Vec<usize> = dummies.iter().map(|d| job(d).id() as usize).collect();
        let thieves: Vec<_> = (0..3)
            .map(|_| {
                let (s, done) = (s.clone(), done.clone());
                std::thread::spawn(move || {
                    let mut got = Vec::new();
                    while !done.load(Ordering::Acquire) {
                        let base = s.base_before_barrier();
                        heavy_barrier();
                        if let Some(j) = s.steal_after_barrier(base) {
                            got.push(j.id() as usize);
                        }
                    }
                    got
                })
            })
            .collect();
        let mut owner_got = Vec::new();
        for round in 0..20_000 {
            let n = 1 + round % 8;
            for d in &dummies[..n] {
                // SAFETY: this thread is the only owner.
                assert!(unsafe { s.push(job(d)) });
            }
            for d in dummies[..n].iter().rev() {
                // SAFETY: as above.
                if unsafe { s.pop_if(job(d).id()) } {
                    owner_got.push(job(d).id() as usize);
                }
            }
        }
        done.store(true, Ordering::Release);
        let mut stolen: Vec<usize> = Vec::new();
        for t in thieves {
            stolen.extend(t.join().unwrap());
        }
        let total = owner_got.len() + stolen.len();
        let pushed: usize = (0..20_000).map(|r| 1 + r % 8).sum();
        assert_eq!(total, pushed, "every pushed job taken exactly once");
        assert!(stolen.iter().all(|id| ids.contains(id)));
    }
}
