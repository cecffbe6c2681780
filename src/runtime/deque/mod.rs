//! A Chase-Lev work-stealing deque with growable, shrinking, epoch-reclaimed buffers.
//!
//! One owner ([`Worker`]) pushes and pops items at the *bottom* (LIFO); any number of thieves
//! ([`Stealer`]) take the oldest item from the *top* (FIFO). The algorithm is Chase and Lev,
//! "Dynamic Circular Work-Stealing Deque" (SPAA 2005), with the memory orderings of Lê, Pop, Cohen
//! and Zappa Nardelli, "Correct and Efficient Work-Stealing for Weak Memory Models" (PPoPP 2013).
//!
//! ```
//! use forkjoin::deque::{Steal, Worker};
//!
//! let w = Worker::new();
//! let s = w.stealer();
//! for i in 0..4 {
//!     w.push(i);
//! }
//! assert_eq!(w.pop(), Some(3)); // the owner takes the newest
//! assert_eq!(s.steal(), Steal::Success(0)); // a thief takes the oldest
//! ```
//!
//! # Algorithm
//!
//! Two wrapping `isize` positions, `top <= bottom`, delimit the items; position `i` lives in slot
//! `i & (cap - 1)` of a power-of-two ring buffer. Only the owner writes `bottom` and the buffer
//! pointer; `top` only ever grows, always by a CAS.
//!
//! * `push(x)`: write `x` at `bottom`, then publish `bottom + 1`. If the ring is full, first grow.
//! * `pop()`: announce `bottom - 1` *before* looking at `top`. If more than one item remains, the
//!   item at the new `bottom` is the owner's. If exactly one remains, owner and thieves race for it
//!   with the same CAS on `top`, and the owner then restores `bottom` to `top`.
//! * `steal()`: a fence-free pre-check returns `Empty` cheaply. Otherwise pin, read `top`, fence,
//!   read `bottom`; if non-empty, copy the slot at `top` into a `MaybeUninit`, re-check the buffer
//!   pointer and CAS `top` to `top + 1`. Only a thief whose CAS succeeds (and whose buffer was still
//!   current) turns its copy into an item; losers discard the bits and report `Retry`.
//!
//! # Orderings
//!
//! | where | operation | pairs with | why |
//! | --- | --- | --- | --- |
//! | `push` | `fence(Release)` before the `bottom` store | `steal`: `Acquire` load of `bottom` | a thief that sees the new `bottom` sees the slot (and any resized buffer) |
//! | `push` (full) | `Acquire` load of `top` | `steal`: the winning CAS on `top` | a slot is overwritten only after its last winning read |
//! | `pop` | `fence(SeqCst)` between the `bottom` store and the `top` load | `steal`: `fence(SeqCst)` between its `top` and `bottom` loads | owner and thief cannot both miss each other: one of them sees the other's move |
//! | `pop` | `Acquire` load of `top` | `steal`: the winning CAS | keeps the owner's cached `top` safe for slot reuse |
//! | `pop`, last item | CAS `top` (`SeqCst`) | `steal`: CAS `top` | exactly one of owner/thief wins the last item |
//! | `steal` pre-check | `Acquire` loads of `top` and `bottom` | as below | only decides `Empty`, which takes nothing |
//! | `steal` | `Acquire` load of `top` | the previous winner's CAS | starts from the latest item taken |
//! | `steal` | `fence(SeqCst)` between the loads of `top` and `bottom` | `pop`'s `fence(SeqCst)` | see `pop` |
//! | `steal` | `Acquire` load of `bottom` | `push`'s `fence(Release)` | see `push` |
//! | `steal` | `Acquire` load of the buffer pointer | `resize`: `Release` store of the buffer pointer | the copied slots are visible |
//! | `steal` | CAS `top` (`SeqCst`, Release half used) | `push`/`pop`: `Acquire` loads of `top` | the thief's slot read happens before the owner reuses the slot |
//!
//! The fences are explicit: loom models a `SeqCst` fence faithfully but treats `SeqCst`
//! read-modify-writes as `AcqRel`, and epoch pinning is not relied on for ordering.
//!
//! # Why the last item is taken exactly once
//!
//! `pop` stores `bottom = b`, fences, loads `top = t`; `steal` loads `top = t`, fences, loads
//! `bottom`. The two `SeqCst` fences are totally ordered. If the owner's fence comes first, the thief
//! reads `bottom <= b` and either sees the deque empty or tries position `t < b`. If the thief's fence
//! comes first, the owner's load of `top` sees the thief's view or later, so if the thief may still
//! take position `t`, the owner finds `t == b` (the last item) and competes through the CAS on `top`.
//! With more than one item (`t < b`) the owner's position `b` is out of every thief's reach, because
//! a thief only ever takes the current `top`. A CAS on `top` can succeed once per position.
//!
//! # Resize protocol
//!
//! Only the owner resizes: it grows (doubles) in `push` when `bottom - top == cap`, and shrinks
//! (halves, never under the minimum capacity) in `pop` when at most a quarter of the slots are used.
//! It copies positions `top..bottom` into a new buffer, publishes it with a `Release` store, and
//! *retires* the old one through crossbeam-epoch: a thief pins before loading the buffer pointer, so
//! a buffer is freed only after every thief that could have loaded it has finished. A buffer's memory
//! holds item bits only; whoever wins a position owns its item, whichever buffer copy it was read from.
//!
//! A thief reads the slot into a `MaybeUninit`, re-checks that the buffer pointer is unchanged, and
//! only then CASes `top`. Without the re-check an implementation can read a replaced buffer and hand
//! out an item twice while losing another (crossbeam-deque's CVE-2021-32810). Here the ordering
//! argument already rules that out for a LIFO owner (every buffer current while `top == t` holds
//! position `t`'s item, and `bottom`'s Acquire makes the thief load such a buffer); the re-check makes
//! that a checked fact instead of a proof obligation, at the price of one load of a read-mostly line.
//!
//! # Races that are part of the design
//!
//! A losing thief may read a slot while the owner overwrites it (the owner may reuse a slot as soon
//! as `top` has passed it). The copy is never interpreted: it stays `MaybeUninit` and is dropped as
//! bits. The winner's read never races with a write, because the owner reuses a slot only after an
//! `Acquire` load of `top` that saw the winner's CAS. Under loom each slot is a `Relaxed` atomic, as
//! in Lê et al., so the models check this reasoning (see `buffer.rs`).
//!
//! # Memory
//!
//! The buffer starts at 64 slots (2 under loom, so models reach growth, shrinking and wrap-around).
//! `Drop` drops the remaining items exactly once; retired buffers are freed by the epoch collector.

mod buffer;
mod inner;
mod reclaim;
mod stealer;
mod worker;

pub use stealer::{Steal, Stealer};
pub use worker::Worker;

/// The loom models pick a deque's reclaimer (see `reclaim.rs`).
#[cfg(all(test, forkjoin_loom))]
pub(crate) use reclaim::Reclaimer;
