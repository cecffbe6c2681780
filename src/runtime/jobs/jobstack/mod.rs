//! The owner-private job stack that sits above each worker's public Chase-Lev deque.
//!
//! `join` pushes its job b here and, in the common case, pops it straight back. The owner's push
//! and pop use plain (Relaxed/Release) stores, Relaxed/Acquire loads and the *light barrier*
//! ([`light_barrier`]); the rare thief pays for both sides with the *heavy barrier*
//! ([`heavy_barrier`](crate::platform::sync::heavy_barrier)): the asymmetric-fence variant of the
//! Chase-Lev deque. On Linux, once the process registered for `membarrier(PRIVATE_EXPEDITED)`, the
//! light barrier is a compiler fence and the heavy one a `membarrier` call, which runs a full fence
//! on every running thread of the process: the owner's common case has no locked instruction and no
//! hardware fence. Elsewhere (other systems, loom, shuttle) both barriers are `fence(SeqCst)`,
//! which is plain Chase-Lev. Where the registration fails (old kernels, valgrind) the light barrier
//! would be unsound, so every stack refuses every push ([`light_barrier_is_sound`]) and `join` uses
//! the public deque. Read-modify-writes remain where jobs are contended: the owner's pop of the
//! last job while a heavy steal is in flight and its [`JobStackOwner::take_oldest`] CAS `top`
//! (SeqCst), as does every thief.
//!
//! Jobs leave the stack at the thieves' end, `top` (oldest first), in two ways:
//! * **publication** by the owner ([`JobStackOwner::take_oldest`], on its sharing heartbeat while the
//!   pool's idle-worker count is non-zero) moves them to the public deque, where thieves steal them
//!   cheaply;
//! * a **heavy steal** ([`JobStackThief::steal_after_barrier_if`]) by an idle worker on *patrol*: it slept
//!   while another worker was busy and its patrol timeout ran out (see `crate::runtime::sleep`). This is what
//!   makes a job reachable when its owner is blocked in user code (e.g. `a` waits on a channel that
//!   only b feeds) and will never push, and so never publish, again.
//!
//! **Owner and thieves are types.** [`JobStackOwner::new`] creates a stack together with its only owner
//! handle; [`JobStackOwner::thief`] hands out any number of [`JobStackThief`] handles (like the deque's
//! `Worker` / `Stealer`). Both share the stack through an `Arc`. The owner handle is not `Clone` and is
//! `Send` but `!Sync`, so the owner operations (`push`, `pop`, `take_oldest`) run on one thread at a
//! time, which is all they need: they are safe methods of the handle. In the pool, the registry creates
//! one owner per worker at construction, keeps a thief in the worker's `ThreadInfo`, and moves the owner
//! into that worker's thread, which keeps it in its `WorkerThread` for its whole life.
//!
//! **Indices**, named as in Chase-Lev and the public deque ([`crate::runtime::deque`]): `bottom`
//! (owner-written) is one past the newest job, the owner's end; `top` (CAS'd by thieves and by the
//! owner when it races them) is the oldest job not yet taken, the thieves' end. `slots[top..bottom]`
//! are the live jobs. The positions of taken jobs are not reused until the stack runs empty: then the
//! owner rewinds both to 0, bumping a generation in the upper bits of `top` ([`Top`]) so a thief's
//! stale CAS fails (no ABA). A full stack makes [`JobStackOwner::push`] fail and the caller publishes
//! the job directly.
//!
//! **Orderings** (the Chase-Lev argument with the owner's fence made asymmetric):
//!
//! | owner                                       | thief                                              |
//! | ------------------------------------------- | -------------------------------------------------- |
//! |                                             | count itself in `heavy_thieves` (RMW);             |
//! | pop: store `bottom = b-1`; light barrier;   | load `top = t`; heavy barrier; load `bottom`;      |
//! | load `top`: `< b-1` → mine, no CAS;         | `t < bottom` → read slot t; CAS `top t → t+1`      |
//! | `== b-1`: `heavy_thieves == 0` (Acquire)    | (fails if the owner or another thief won);         |
//! | and `top` reloaded still `b-1` → mine, no   | uncount itself (Release)                           |
//! | CAS; else CAS race for the last one         |                                                    |
//! | push: write slot; store `bottom` (Release); | (the Acquire load of `bottom` above sees the slot) |
//! | light barrier; load idle count (a hint)     |                                                    |
//!
//! The heavy barrier runs a full fence on every thread of the process, so each owner operation is
//! either entirely before it (its stores are visible to the thief's later loads) or its later loads see
//! what the thief did before it — the two cases the SeqCst-fence proof of Chase-Lev needs. The count of
//! heavy steals in flight rides on the same argument: a thief counted before its barrier either sees
//! the owner's pop in `bottom` (and takes nothing) or is seen by the owner, who then uses the CAS; a thief
//! that already uncounted itself did so after its CAS, which the owner's Acquire load makes visible.
//! So the common case of the last job — a `join` at depth 0, with no patrol under way — costs no
//! locked instruction.

use std::cell::Cell;
use std::marker::PhantomData;
use std::num::NonZeroUsize;

use crate::platform::sync::{
    light_barrier, light_barrier_is_sound, Arc, AtomicU64, AtomicUsize, Ordering,
};
use crate::runtime::jobs::job::JobRef;
use crossbeam_utils::CachePadded;

/// Slots per worker; deeper nesting goes straight to the public deque.
#[cfg(not(forkjoin_loom))]
const CAPACITY: usize = 1024;
#[cfg(forkjoin_loom)]
const CAPACITY: usize = 4;

/// A value of the `top` word: `[generation: 48 bits][index: 16 bits]`. The index (of the oldest job not
/// yet taken) never exceeds `CAPACITY` (< 2^16; a 16-bit field is read with one zero-extending move on
/// the pop path), and 2^48 generations cannot wrap while a thief sits
/// between its load of `top` and its CAS.
///
/// A thief carries one from [`JobStackThief::top_before_barrier`] to
/// [`JobStackThief::steal_after_barrier_if`]; its CAS succeeds only if the word still holds this value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Top(u64);

impl Top {
    const INDEX_BITS: u32 = 16;
    const INDEX_MASK: u64 = (1 << Self::INDEX_BITS) - 1;
    const GENERATION_ONE: u64 = 1 << Self::INDEX_BITS;

    /// Generation 0, index 0: a new, empty stack.
    const INITIAL: Top = Top(0);

    /// The index of the oldest job not yet taken.
    #[inline(always)]
    fn index(self) -> usize {
        // The same as masking with INDEX_MASK, as a single zero-extending move.
        self.0 as u16 as usize
    }

    /// How many times the stack was rewound (ran empty) before this value.
    #[inline]
    fn generation(self) -> u64 {
        self.0 >> Self::INDEX_BITS
    }

    /// The CAS target that takes the job at [`index`](Self::index): index + 1, same generation.
    #[inline(always)]
    fn next(self) -> Top {
        debug_assert!(self.index() < CAPACITY);
        Top(self.0 + 1)
    }

    /// The empty stack's rewound value: index 0 under the next generation.
    #[inline]
    fn rewound(self) -> Top {
        Top((self.0 & !Self::INDEX_MASK).wrapping_add(Self::GENERATION_ONE))
    }
}

const _: () = assert!(CAPACITY < Top::INDEX_MASK as usize && Top::INDEX_MASK == u16::MAX as u64);

/// The `top` word, holding a [`Top`]. Adds no ordering of its own: the caller passes it.
struct AtomicTop(AtomicU64);

impl AtomicTop {
    #[inline(always)]
    fn load(&self, order: Ordering) -> Top {
        Top(self.0.load(order))
    }

    #[inline]
    fn store(&self, top: Top, order: Ordering) {
        self.0.store(top.0, order);
    }

    /// True if the word held `current` and now holds `new`.
    #[inline]
    fn compare_exchange(
        &self,
        current: Top,
        new: Top,
        success: Ordering,
        failure: Ordering,
    ) -> bool {
        self.0
            .compare_exchange(current.0, new.0, success, failure)
            .is_ok()
    }
}

/// One job reference's slot: three words that a thief may read while the owner writes others.
struct JobSlot {
    data: AtomicUsize,
    execute: AtomicUsize,
    tag: AtomicUsize,
}

/// The owner's cache line: what push and pop read and write.
struct OwnerLine {
    /// One past the newest job. Written only by the owner.
    bottom: AtomicUsize,
    /// Jobs the owner popped back (statistics). Written only by the owner, with a load and a store:
    /// no read-modify-write, and no extra cache line on the pop path.
    popped: AtomicU64,
    /// Pushes are refused from this index on: `CAPACITY`, or 0 where the owner's light barrier would
    /// be unsound ([`light_barrier_is_sound`], fixed before any stack exists). Then every job goes to
    /// the public deque and the owner never runs a light barrier, so push and pop test no flag.
    limit: usize,
}

/// The state of one job stack, shared by its owner and thief handles (see the module docs).
///
/// The slots live in the same allocation: a push or pop computes a slot's address from the stack's,
/// without first loading a pointer to a separate array.
struct JobStack {
    owner: CachePadded<OwnerLine>,
    /// [`Top`]: `[generation: 48][index of the oldest live job: 16]`.
    top: CachePadded<AtomicTop>,
    /// Heavy steals in flight on this stack: a thief counts itself before it loads `top` and uncounts
    /// itself after its CAS ([`StealTicket`]). While it is zero the owner takes its last job without a
    /// CAS (see [`JobStackOwner::pop`]).
    heavy_thieves: CachePadded<AtomicUsize>,
    slots: [JobSlot; CAPACITY],
}

/// Where [`JobStackOwner::push`] put a job: the witness that [`JobStackOwner::pop`] takes back.
///
/// Holds the value of `bottom` right after the push (the job's index + 1), which is never zero, so an
/// `Option<Pushed>` is one word.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pushed(NonZeroUsize);

impl Pushed {
    /// Jobs on the stack right after the push, this one included (what `bottom` became).
    #[inline(always)]
    pub(crate) fn depth(self) -> usize {
        self.0.get()
    }

    /// A witness of no job on this stack (the job went elsewhere, e.g. the stack was full): `bottom`
    /// never takes this value, so [`JobStackOwner::pop`] of it is always false — the same answer as
    /// for a job that was taken, without a separate "was it pushed" test on the pop path.
    pub(crate) const NOWHERE: Pushed = Pushed(NonZeroUsize::MAX);
}

impl JobStack {
    /// # Safety
    /// Slot `i` must hold a job written by the owner and published through `bottom`.
    unsafe fn read_slot(&self, i: usize) -> JobRef {
        let slot = &self.slots[i];
        // Relaxed: ordered by the Acquire load of `bottom`/`top` that revealed the slot.
        let data = slot.data.load(Ordering::Relaxed);
        let execute = slot.execute.load(Ordering::Relaxed);
        let tag = slot.tag.load(Ordering::Relaxed);
        // SAFETY: the three words were produced by `JobRef::into_raw` in `push`.
        unsafe { JobRef::from_raw(data, execute, tag) }
    }
}

/// The owner's handle of a job stack: push, pop and publish. One per stack, `Send` but `!Sync`.
pub(crate) struct JobStackOwner {
    stack: Arc<JobStack>,
    /// `!Sync`: the owner operations assume a single calling thread (they write `bottom` and the slots
    /// with plain stores). `Send`: the registry creates the handle and moves it into the worker thread.
    _not_sync: PhantomData<Cell<()>>,
}

/// A thief's handle of a job stack: heavy steals of the oldest job. Cloneable and shared.
#[derive(Clone)]
pub(crate) struct JobStackThief {
    stack: Arc<JobStack>,
}

impl JobStackOwner {
    /// A new, empty stack and its only owner handle (get thief handles with [`thief`](Self::thief)).
    ///
    /// Call [`init_asymmetric_barriers`](crate::platform::sync::init_asymmetric_barriers) first: where the
    /// owner's light barrier is not sound, the stack refuses every push.
    pub(crate) fn new() -> Self {
        Self::with_limit(if light_barrier_is_sound() {
            CAPACITY
        } else {
            0
        })
    }

    /// A stack that refuses pushes from index `limit` (≤ `CAPACITY`) on.
    fn with_limit(limit: usize) -> Self {
        debug_assert!(limit <= CAPACITY);
        let stack = JobStack {
            owner: CachePadded::new(OwnerLine {
                bottom: AtomicUsize::new(0),
                popped: AtomicU64::new(0),
                limit,
            }),
            top: CachePadded::new(AtomicTop(AtomicU64::new(Top::INITIAL.0))),
            heavy_thieves: CachePadded::new(AtomicUsize::new(0)),
            slots: std::array::from_fn(|_| JobSlot {
                data: AtomicUsize::new(0),
                execute: AtomicUsize::new(0),
                tag: AtomicUsize::new(0),
            }),
        };
        JobStackOwner {
            stack: Arc::new(stack),
            _not_sync: PhantomData,
        }
    }

    /// A thief handle of this stack.
    pub(crate) fn thief(&self) -> JobStackThief {
        JobStackThief {
            stack: self.stack.clone(),
        }
    }

    /// True if no job is left to take (every pushed job was popped back or taken).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many jobs are left to take (owner only).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        let stack = &*self.stack;
        // Relaxed: only the owner writes `bottom`; a thief's concurrent take only makes the answer
        // stale high, which `take_oldest` then finds out.
        let top = stack.top.load(Ordering::Relaxed).index();
        stack
            .owner
            .bottom
            .load(Ordering::Relaxed)
            .saturating_sub(top)
    }

    /// Pushes `job`; `None` if the stack is full.
    ///
    /// Ends with the owner's light barrier (the idle-worker count loaded right after is then ordered
    /// after the push; today that load is only a hint).
    #[inline(always)]
    pub(crate) fn push(&self, job: JobRef) -> Option<Pushed> {
        let stack = &*self.stack;
        // Relaxed: only the owner writes `bottom`.
        let b = stack.owner.bottom.load(Ordering::Relaxed);
        if b >= stack.owner.limit {
            return None;
        }
        let (data, execute, tag) = job.into_raw();
        // SAFETY: `b < limit <= CAPACITY`, checked above.
        let slot = unsafe { stack.slots.get_unchecked(b) };
        // Relaxed: published by the Release store of `bottom` below.
        slot.data.store(data, Ordering::Relaxed);
        slot.execute.store(execute, Ordering::Relaxed);
        slot.tag.store(tag, Ordering::Relaxed);
        // Release: pairs with the thief's Acquire load of `bottom`, making the slot's words visible.
        stack.owner.bottom.store(b + 1, Ordering::Release);
        light_barrier();
        NonZeroUsize::new(b + 1).map(Pushed)
    }

    /// Pops the job that `pushed` witnesses if nobody took it; false if it was taken (published or
    /// stolen), in which case every older job was taken too.
    ///
    /// Only `bottom` is compared, never the slot: jobs pushed since are strictly nested (each nested
    /// `join` pops its own job or sees it taken before it returns), so `bottom` is back where the push
    /// left it unless the job was taken. A taken job either emptied the stack, whose rewind moved
    /// `bottom` to 0 (and nested pushes since return it there), or it still sits below `bottom`, and
    /// `top` shows it taken.
    #[inline(always)]
    pub(crate) fn pop(&self, pushed: Pushed) -> bool {
        let stack = &*self.stack;
        let idx = pushed.0.get() - 1;
        // Relaxed: only the owner writes `bottom`.
        if stack.owner.bottom.load(Ordering::Relaxed) != pushed.0.get() {
            return false;
        }
        // Relaxed: the light barrier orders this store before the load of `top` (against the thief's
        // heavy barrier).
        stack.owner.bottom.store(idx, Ordering::Relaxed);
        light_barrier();
        // Acquire: pairs with a thief's CAS of `top`.
        let top = stack.top.load(Ordering::Acquire);
        if top.index() < idx {
            self.count_pop();
            return true;
        }
        // The last job with no heavy steal in flight (see `pop_contended`): every join of a flat
        // loop pops its b here.
        // Acquire: pairs with the Release decrement of a thief that finished its steal.
        if top.index() == idx && stack.heavy_thieves.load(Ordering::Acquire) == 0 {
            // Acquire: pairs with that thief's CAS of `top`.
            if stack.top.load(Ordering::Acquire) == top {
                self.count_pop();
                return true;
            }
        }
        self.pop_contended(top, idx)
    }

    /// The last job, or an already-taken one.
    ///
    /// The last job needs Chase-Lev's CAS only while a heavy steal is in flight. A thief counts itself
    /// in `heavy_thieves` before its heavy barrier, so after our light barrier either its later load
    /// of `bottom` sees our pop (it will not take the job), or we see its count here. A thief that
    /// finished before our load is seen through the Acquire on the count: its CAS, if any, shows in
    /// the reload of `top`. With nobody counted the job is ours, and the stack is simply empty
    /// (`top == bottom`), with no rewind: a loop of joins at depth 0 pays no locked instruction.
    #[cold]
    #[inline(never)]
    fn pop_contended(&self, top: Top, idx: usize) -> bool {
        let stack = &*self.stack;
        let mut top = top;
        if top.index() == idx {
            // Acquire: pairs with the Release decrement of a thief that finished its steal.
            if stack.heavy_thieves.load(Ordering::Acquire) == 0 {
                // Acquire: pairs with that thief's CAS of `top`.
                top = stack.top.load(Ordering::Acquire);
                if top.index() == idx {
                    self.count_pop();
                    return true;
                }
            }
        }
        let won = top.index() == idx
            && stack.top.compare_exchange(
                top,
                top.next(),
                // SeqCst: arbitrates the last job against a thief's CAS (Chase-Lev).
                Ordering::SeqCst,
                Ordering::Relaxed,
            );
        // Whoever took it, the stack is now empty (top == idx + 1): rewind.
        self.rewind();
        if won {
            self.count_pop();
        }
        won
    }

    #[inline(always)]
    fn count_pop(&self) {
        // Relaxed load + store: only the owner writes the counter.
        let popped = &self.stack.owner.popped;
        popped.store(popped.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }

    /// The stack is empty (every job taken): move both indices back to 0 under a new generation.
    ///
    /// Call only when no live job remains (`top == bottom` or `top == bottom + 1` after a pop); a live job
    /// would otherwise be lost (never run, its waiter never woken).
    fn rewind(&self) {
        let stack = &*self.stack;
        // Relaxed store: a thief that still sees the old `bottom` also sees top ≥ bottom (empty); one that sees
        // the new generation (its Acquire load of `top`) also sees this store, which the Release store
        // of `top` below publishes.
        stack.owner.bottom.store(0, Ordering::Relaxed);
        // Acquire: to see the latest top (a thief may have just moved it). No thief can move it
        // between this load and the store below: the stack is empty, so a thief's CAS needs a `top`
        // it loaded before the last job was taken, and that value is gone.
        let current = stack.top.load(Ordering::Acquire);
        // Release: a thief that loads the new top sees bottom == 0 or later pushes. A plain store on
        // x86 (a SeqCst store would be an `xchg`, paid by every `join` at depth 0).
        stack.top.store(current.rewound(), Ordering::Release);
    }

    /// Takes the oldest job off the stack (for publication); `None` if empty.
    pub(crate) fn take_oldest(&self) -> Option<JobRef> {
        let stack = &*self.stack;
        loop {
            // Acquire: pairs with thieves' CAS of `top`.
            let top = stack.top.load(Ordering::Acquire);
            let t = top.index();
            // Relaxed: own field.
            let b = stack.owner.bottom.load(Ordering::Relaxed);
            if t >= b {
                if b != 0 {
                    // Empty.
                    self.rewind();
                }
                return None;
            }
            // SAFETY: slot t < bottom was written by us before; thieves never write slots.
            let job = unsafe { stack.read_slot(t) };
            // SeqCst: arbitrates against thieves taking the same job.
            if stack
                .top
                .compare_exchange(top, top.next(), Ordering::SeqCst, Ordering::Relaxed)
            {
                if t + 1 == b {
                    // We took the last job.
                    self.rewind();
                }
                return Some(job);
            }
        }
    }
}

impl JobStackOwner {
    /// Where the stack stands now, so that a later [`holds_older_than`](Self::holds_older_than)
    /// can tell whether a job pushed before this moment is still here.
    #[inline]
    pub(crate) fn mark(&self) -> StackMark {
        let stack = &*self.stack;
        StackMark {
            // Relaxed: a hint (see `holds_older_than`).
            top: stack.top.load(Ordering::Relaxed),
            // Relaxed: only the owner writes `bottom`.
            bottom: stack.owner.bottom.load(Ordering::Relaxed),
        }
    }

    /// True if a job pushed before `mark` was taken is still on the stack (not popped, published
    /// or stolen). The stack is strictly nested, so such a job is older than every job pushed
    /// since. A hint: a concurrent heavy steal may take it right after.
    #[inline]
    pub(crate) fn holds_older_than(&self, mark: StackMark) -> bool {
        // Relaxed: a hint; a rewind (the stack ran empty, so every older job was taken) starts a
        // new generation, and jobs pushed after it are all newer than the mark.
        let top = self.stack.top.load(Ordering::Relaxed);
        top.generation() == mark.top.generation() && top.index() < mark.bottom
    }
}

/// A moment in a private stack's life, from [`JobStackOwner::mark`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct StackMark {
    top: Top,
    bottom: usize,
}

impl Default for JobStackOwner {
    fn default() -> Self {
        Self::new()
    }
}

impl JobStackThief {
    /// Names the stack's shared lines for the simulation's line profile (`sync::sim_label`).
    pub(crate) fn label_lines(&self) {
        let stack = &*self.stack;
        crate::platform::sync::sim_label(&*stack.owner, "private stacks: bottom");
        crate::platform::sync::sim_label(&*stack.top, "private stacks: top");
        crate::platform::sync::sim_label(&*stack.heavy_thieves, "private stacks: heavy thieves");
        crate::platform::sync::sim_label(&stack.slots, "private stacks: slots");
    }

    /// Jobs the owner has popped back so far (statistics; a snapshot).
    pub(crate) fn popped(&self) -> u64 {
        // Relaxed: a statistic.
        self.stack.owner.popped.load(Ordering::Relaxed)
    }

    /// First half of a heavy steal: counts this thief in the stack's heavy steals in flight and reads
    /// `top`. Pass the ticket to [`steal_after_barrier_if`](Self::steal_after_barrier_if) once the caller
    /// has run `heavy_barrier()`; dropping it instead also uncounts the thief.
    #[inline]
    pub(crate) fn top_before_barrier(&self) -> StealTicket<'_> {
        // SeqCst RMW: before the heavy barrier, which orders it against the owner's light barrier
        // (see `JobStackOwner::pop_contended`).
        self.stack.heavy_thieves.fetch_add(1, Ordering::SeqCst);
        StealTicket {
            thief: self,
            // Acquire: pairs with the owner's rewind store and other thieves' CAS.
            top: self.stack.top.load(Ordering::Acquire),
        }
    }

    /// Second half: tries to take the oldest job. `None` if empty or if the race was lost.
    ///
    /// The caller must have executed [`crate::platform::sync::heavy_barrier`] after taking the ticket.
    /// (The pool steals through [`steal_after_barrier_if`](Self::steal_after_barrier_if).)
    #[cfg(test)] // the unit tests and the loom models
    pub(crate) fn steal_after_barrier(&self, ticket: StealTicket<'_>) -> Option<JobRef> {
        self.steal_after_barrier_if(ticket, |_| true)
    }

    /// `steal_after_barrier`, taking the oldest job only if `accept`
    /// says yes to it. `accept` sees the job as read before the CAS: if the CAS then fails, its
    /// answer is discarded with the job (see `crate::runtime::jobs::region`).
    pub(crate) fn steal_after_barrier_if(
        &self,
        ticket: StealTicket<'_>,
        accept: impl FnOnce(&JobRef) -> bool,
    ) -> Option<JobRef> {
        debug_assert!(
            std::ptr::eq(ticket.thief, self),
            "a ticket of another stack"
        );
        let stack = &*self.stack;
        let top = ticket.top;
        let t = top.index();
        // Acquire: pairs with the owner's Release store in `push`, making slot `t` readable.
        let b = stack.owner.bottom.load(Ordering::Acquire);
        if t >= b {
            return None;
        }
        // SAFETY: t < bottom observed after the barrier: slot t was written and published by the owner. If
        // the slot has since been reused, `top` changed and the CAS below fails, discarding the read.
        let job = unsafe { stack.read_slot(t) };
        if !accept(&job) {
            return None;
        }
        // SeqCst: arbitrates against the owner's pop of the last job and other thieves (Chase-Lev).
        stack
            .top
            .compare_exchange(top, top.next(), Ordering::SeqCst, Ordering::Relaxed)
            .then_some(job)
        // `ticket` drops here, after the CAS: the thief is uncounted.
    }
}

/// A heavy steal in flight on one stack, from [`JobStackThief::top_before_barrier`] to the end of
/// [`JobStackThief::steal_after_barrier_if`] (or until dropped): holds the `top` the thief read, and
/// keeps the thief counted in the stack's heavy steals, so the owner settles its last job by CAS.
pub(crate) struct StealTicket<'a> {
    thief: &'a JobStackThief,
    top: Top,
}

impl Drop for StealTicket<'_> {
    fn drop(&mut self) {
        // Release: pairs with the owner's Acquire load of the count; our CAS, if any, comes before.
        self.thief
            .stack
            .heavy_thieves
            .fetch_sub(1, Ordering::Release);
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests;
