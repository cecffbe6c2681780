//! A one-shot channel from a job to the future that awaits it: one value, one receiver, and the
//! waker of the receiver's latest poll.
//!
//! [`channel`] makes a [`Sender`] (moved into the job) and a [`Receiver`] (inside the
//! [`JobFuture`](crate::JobFuture)). Both hold an `Arc` of the shared [`Shared`] state: a word of
//! three flags ([`State`]) and two cells, `value` and `waker`. No lock: the flags say who may touch
//! which cell, and every change of ownership is one read-modify-write of the word, so the
//! sender's and the receiver's steps fall into one total order (the word's modification order).
//!
//! **The flags.**
//!
//! | flag | set by | meaning |
//! | --- | --- | --- |
//! | `WAKER` | the receiver, after writing `waker` | `waker` holds the waker of the receiver's latest poll; while set, the receiver does not write the cell, and the sender may read it |
//! | `SENT` | the sender, after writing `value` | `value` holds the value; final (the sender is done) |
//! | `CLOSED` | the receiver, when dropped | nobody will poll again: the sender wakes nobody; final |
//!
//! **Who touches which cell.**
//!
//! * `value`: the sender writes it once, before the read-modify-write that sets `SENT`; the receiver
//!   takes it after it observed `SENT` (with acquire). Never both at once. If nobody takes it, it is
//!   dropped with the shared state, by whichever side drops the last `Arc`.
//! * `waker`: while `WAKER` is clear, only the receiver touches it. The sender reads it (to wake it, by
//!   reference) only if the very read-modify-write that set `SENT` found `WAKER` set and `CLOSED`
//!   clear. The receiver writes it only after a read-modify-write of its own that cleared `WAKER` and
//!   found `SENT` still clear: then the sender's later read-modify-write finds `WAKER` clear and
//!   leaves the cell alone. If the clearing one finds `SENT` set, the sender may be reading the
//!   cell right now: the receiver takes the value and never touches the cell again. Two readers at
//!   once (the receiver's `will_wake` check and the sender's wake) are fine: `Waker` is `Sync`.
//!
//! **Receiver, one poll** (`&mut self`: one poll at a time):
//! 1. Load the word. `SENT`: take the value, ready.
//! 2. `WAKER` set and the stored waker would wake the same task as this poll's: pending (the sender
//!    will wake that one). `WAKER` set, another task: clear `WAKER`; if that finds `SENT`, take the
//!    value, ready.
//! 3. Store a clone of this poll's waker, then set `WAKER`; if that finds `SENT`, take the value,
//!    ready (the sender saw no waker and woke nobody). Else pending.
//!
//! **Sender:** write the value, set `SENT`; if that found `WAKER` set and `CLOSED` clear, wake the
//! stored waker (by reference; it is dropped with the shared state).
//!
//! **No lost wake-up.** The sender's `SENT` and the receiver's last `WAKER` are both set by
//! read-modify-writes of one word. If `SENT` comes first, the receiver's read-modify-write returns
//! it, and the poll is ready without a wake-up. If `WAKER` comes first, the sender's returns it
//! and wakes the waker that the receiver stored before setting `WAKER` (release, paired with the
//! sender's acquire): the one of the latest poll, since every poll that stores a new waker first
//! clears `WAKER`, and a send that slips in between is seen by that poll itself in step 2 or 3. So
//! every poll that returns pending is followed by a wake of its waker, or of one that
//! [`will_wake`](std::task::Waker::will_wake) the same task, once the value is there: exactly one
//! wake, by the sender, never before the value is readable.
//!
//! `loom-tests/models/future.rs` checks these claims under every interleaving (with at most two
//! preemptions): the value is read, a receiver that waits after a pending poll is woken (a lost
//! wake-up is a loom deadlock), a re-registered waker replaces the old one, and a receiver
//! dropped at any point leaks neither the value nor the waker.

use std::fmt;
use std::task::{Poll, Waker};

use crate::platform::sync::{Arc, AtomicUsize, Ordering, UnsafeCell};

/// A value of the channel's state word: a set of the flags `WAKER`, `SENT`, `CLOSED`.
#[derive(Clone, Copy, PartialEq, Eq)]
struct State(usize);

impl State {
    /// `waker` holds the latest poll's waker, for the sender to wake.
    const WAKER: State = State(0b001);
    /// `value` holds the value. Final.
    const SENT: State = State(0b010);
    /// The receiver is gone: nobody to wake. Final.
    const CLOSED: State = State(0b100);

    #[inline]
    fn has(self, flag: State) -> bool {
        self.0 & flag.0 != 0
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = [
            (State::WAKER, "WAKER"),
            (State::SENT, "SENT"),
            (State::CLOSED, "CLOSED"),
        ];
        let mut set = f.debug_set();
        for (flag, name) in names {
            if self.has(flag) {
                set.entry(&format_args!("{name}"));
            }
        }
        set.finish()
    }
}

/// The state word, holding a [`State`]. Adds no ordering of its own: the caller passes it.
struct AtomicState(AtomicUsize);

impl AtomicState {
    fn new() -> Self {
        AtomicState(AtomicUsize::new(0))
    }

    #[inline]
    fn load(&self, order: Ordering) -> State {
        State(self.0.load(order))
    }

    /// Sets `flag`; returns the previous state.
    #[inline]
    fn set(&self, flag: State, order: Ordering) -> State {
        State(self.0.fetch_or(flag.0, order))
    }

    /// Clears `flag`; returns the previous state.
    #[inline]
    fn clear(&self, flag: State, order: Ordering) -> State {
        State(self.0.fetch_and(!flag.0, order))
    }
}

/// What the sender and the receiver share (see the module docs for who may touch which cell when).
struct Shared<T> {
    state: AtomicState,
    /// Written by the sender before it sets `SENT`; taken by the receiver after it observed `SENT`.
    value: UnsafeCell<Option<T>>,
    /// The receiver's latest waker. Written by the receiver only while `WAKER` is clear; read by
    /// the sender only if its `SENT` found `WAKER` set and `CLOSED` clear.
    waker: UnsafeCell<Option<Waker>>,
}

// SAFETY: the cells are accessed by one side at a time or read-only by both (the module docs give
// the rules and the orderings that publish each write). A `T` only moves from the sender to the
// receiver, never shared, so `T: Send` suffices; `Waker` is `Send + Sync`.
unsafe impl<T: Send> Sync for Shared<T> {}
// SAFETY: as above: the shared state owns a `T` (sent across threads by value) and a `Waker`.
unsafe impl<T: Send> Send for Shared<T> {}

/// A channel for one value: the [`Sender`] goes to the job, the [`Receiver`] to the future.
pub(crate) fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        state: AtomicState::new(),
        value: UnsafeCell::new(None),
        waker: UnsafeCell::new(None),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared },
    )
}

/// The sending half: [`send`](Self::send) consumes it.
pub(crate) struct Sender<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Sender<T> {
    /// Stores `value` and wakes the receiver's latest waker, if it registered one and still
    /// exists. A panic of that waker's `wake_by_ref` (user code) unwinds out of this call; the
    /// value is stored by then.
    pub(crate) fn send(self, value: T) {
        let shared = &*self.shared;
        // SAFETY: `SENT` is clear (only this sender, consumed here, sets it), so the receiver does
        // not touch `value` (module docs) until the `set` below publishes this write.
        shared.value.with_mut(|v| unsafe { *v = Some(value) });
        // AcqRel. Release: publishes the value to the receiver's Acquire `load` or `clear`/`set`
        // that finds `SENT`. Acquire: pairs with the receiver's AcqRel `set(WAKER)`, so the waker
        // it stored before that is visible to the read below.
        let prev = shared.state.set(State::SENT, Ordering::AcqRel);
        if prev.has(State::WAKER) && !prev.has(State::CLOSED) {
            shared.waker.with(|w| {
                // SAFETY: our `set` found `WAKER` set and `CLOSED` clear, so the receiver will not
                // write the cell again (it writes only after a `clear(WAKER)` that finds `SENT`
                // clear, and our `SENT` is now set); it may read it concurrently, which `Sync`
                // allows. The cell lives as long as our `Arc`.
                let waker = unsafe { &*w };
                if let Some(waker) = waker {
                    waker.wake_by_ref();
                }
            });
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("state", &self.shared.state.load(Ordering::Relaxed))
            .finish()
    }
}

/// The receiving half, polled by one task at a time (`&mut self`).
pub(crate) struct Receiver<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Receiver<T> {
    /// The value if it was sent; else registers `waker` (replacing the waker of an earlier poll
    /// unless it [`will_wake`](Waker::will_wake) the same task) and returns pending.
    ///
    /// # Panics
    /// If called again after it returned the value.
    pub(crate) fn poll_recv(&mut self, waker: &Waker) -> Poll<T> {
        let shared = &*self.shared;
        // Acquire: pairs with the sender's AcqRel `set(SENT)`, publishing the value.
        let state = shared.state.load(Ordering::Acquire);
        if state.has(State::SENT) {
            return Poll::Ready(self.take_value());
        }
        if state.has(State::WAKER) {
            let same = shared.waker.with(|w| {
                // SAFETY: `WAKER` is set, so the sender at most reads the cell (shared reads are
                // fine), and only this receiver (`&mut self`) would write it.
                let old = unsafe { &*w };
                old.as_ref().is_some_and(|old| old.will_wake(waker))
            });
            if same {
                return Poll::Pending;
            }
            // Acquire: if this finds `SENT`, pairs with the sender's AcqRel `set(SENT)`, so the
            // value is visible. (The waker we are about to overwrite was written by this thread.)
            let prev = shared.state.clear(State::WAKER, Ordering::Acquire);
            if prev.has(State::SENT) {
                // The sender may be reading the cell now: leave it (dropped with the state).
                return Poll::Ready(self.take_value());
            }
        }
        // Clone first: a panicking clone (user code) leaves the cell and the word as they were.
        let new = waker.clone();
        // SAFETY: `WAKER` is clear in the word (we saw it clear, or cleared it and found `SENT`
        // still clear), and only this receiver sets it: a `set(SENT)` that comes before our
        // `set(WAKER)` below finds it clear and does not read the cell. We own the cell until
        // that `set`.
        let old = shared.waker.with_mut(|w| unsafe { (*w).replace(new) });
        // Dropped outside the cell access: the old waker's drop is user code.
        drop(old);
        // AcqRel. Release: publishes the waker just stored to the sender's AcqRel `set(SENT)`,
        // which reads it if it finds `WAKER`. Acquire: if this finds `SENT`, pairs with that same
        // `set(SENT)`, publishing the value.
        let prev = shared.state.set(State::WAKER, Ordering::AcqRel);
        if prev.has(State::SENT) {
            // The sender found `WAKER` clear and woke nobody: we return the value ourselves.
            return Poll::Ready(self.take_value());
        }
        Poll::Pending
    }

    /// Takes the value after `SENT` was observed with acquire.
    fn take_value(&mut self) -> T {
        // SAFETY: the caller observed `SENT` with an acquire operation that pairs with the
        // sender's release: the value is written and the sender never touches it again; only this
        // receiver (`&mut self`) takes it.
        let value = self.shared.value.with_mut(|v| unsafe { (*v).take() });
        value.expect("the value of a oneshot channel was received twice")
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let shared = &*self.shared;
        // Relaxed: the sender, finding `CLOSED`, touches nothing this receiver wrote; the value
        // and the waker left in the cells are dropped with the shared state, which the `Arc`
        // synchronises.
        let prev = shared.state.set(State::CLOSED, Ordering::Relaxed);
        if prev.has(State::WAKER) && !prev.has(State::SENT) {
            // Drop the waker now, not when the job has run: it may keep a whole task alive.
            // SAFETY: `SENT` was clear when `CLOSED` was set, so the sender's `set(SENT)` comes
            // later in the word's order, finds `CLOSED` and does not read the cell; the waker was
            // written by this receiver, whose earlier accesses happen before its drop.
            let old = shared.waker.with_mut(|w| unsafe { (*w).take() });
            drop(old);
        }
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("state", &self.shared.state.load(Ordering::Relaxed))
            .finish()
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;
    use crate::platform::sync::for_tests;
    use std::task::Wake;

    /// Counts its wakes.
    #[derive(Default)]
    struct Count(for_tests::AtomicUsize);

    impl Wake for Count {
        fn wake(self: for_tests::Arc<Self>) {
            self.wake_by_ref();
        }
        fn wake_by_ref(self: &for_tests::Arc<Self>) {
            self.0.fetch_add(1, for_tests::Ordering::SeqCst);
        }
    }

    fn counting() -> (for_tests::Arc<Count>, Waker) {
        let count = for_tests::Arc::new(Count::default());
        (count.clone(), Waker::from(count))
    }

    fn wakes(count: &Count) -> usize {
        count.0.load(for_tests::Ordering::SeqCst)
    }

    #[test]
    fn send_before_poll_is_ready_without_a_wake() {
        let (tx, mut rx) = channel();
        tx.send(5);
        let (count, waker) = counting();
        assert_eq!(rx.poll_recv(&waker), Poll::Ready(5));
        assert_eq!(wakes(&count), 0);
    }

    #[test]
    fn the_latest_waker_is_woken_once() {
        let (tx, mut rx) = channel();
        let (a, waker_a) = counting();
        let (b, waker_b) = counting();
        assert_eq!(rx.poll_recv(&waker_a), Poll::Pending);
        assert_eq!(rx.poll_recv(&waker_a), Poll::Pending, "same waker: kept");
        assert_eq!(rx.poll_recv(&waker_b), Poll::Pending, "new waker: replaced");
        assert_eq!((wakes(&a), wakes(&b)), (0, 0));
        tx.send("v");
        assert_eq!((wakes(&a), wakes(&b)), (0, 1));
        assert_eq!(rx.poll_recv(&waker_b), Poll::Ready("v"));
        assert_eq!((wakes(&a), wakes(&b)), (0, 1));
    }

    #[test]
    fn a_dropped_receiver_drops_its_waker_at_once_and_is_not_woken() {
        let (tx, mut rx) = channel::<u8>();
        let (count, waker) = counting();
        assert_eq!(rx.poll_recv(&waker), Poll::Pending);
        drop(waker);
        assert_eq!(for_tests::Arc::strong_count(&count), 2);
        drop(rx);
        assert_eq!(for_tests::Arc::strong_count(&count), 1, "waker dropped");
        tx.send(1);
        assert_eq!(wakes(&count), 0);
    }

    #[test]
    fn state_debug_names_the_flags() {
        assert_eq!(
            format!("{:?}", State(State::WAKER.0 | State::SENT.0)),
            "{WAKER, SENT}"
        );
        let (tx, _rx) = channel::<()>();
        assert_eq!(format!("{tx:?}"), "Sender { state: {} }");
    }
}
