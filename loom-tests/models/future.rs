//! loom models of the futures protocol: the job → `JobFuture` oneshot channel (a send against a
//! poll, a re-registered waker, a dropped receiver) and `block_on`'s wait on a worker (a waker
//! setting a `WakeLatch` against the worker falling asleep on it).
//!
//! The receiver's waker unparks its thread, and the receiver parks after a pending poll: a lost
//! wake-up is a loom deadlock. A value read without the pairing acquire is a loom data race on
//! the cell.

use std::task::{Poll, Wake, Waker};

use crate::runtime::future::block_on::WakeLatch;
use crate::runtime::future::oneshot::channel;
use crate::runtime::sleep::{Idled, Sleep};
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

/// Wakes (unparks) one loom thread, if it has one, and counts its wakes.
struct Unpark {
    thread: Option<thread::Thread>,
    wakes: AtomicUsize,
}

impl Wake for Unpark {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        // Relaxed: a count read after the threads are joined.
        self.wakes.fetch_add(1, Ordering::Relaxed);
        if let Some(thread) = &self.thread {
            thread.unpark();
        }
    }
}

/// A waker for the calling thread, and its count of wakes.
fn unpark_me() -> (std::sync::Arc<Unpark>, Waker) {
    let unpark = std::sync::Arc::new(Unpark {
        thread: Some(thread::current()),
        wakes: AtomicUsize::new(0),
    });
    (unpark.clone(), Waker::from(unpark))
}

/// Counts drops of its values.
struct DropCount(Arc<AtomicUsize>);

impl Drop for DropCount {
    fn drop(&mut self) {
        // Relaxed: read after the threads are joined.
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn send_vs_poll_then_park() {
    loom::model(|| {
        let (tx, mut rx) = channel::<Box<u32>>();
        let sender = thread::spawn(move || tx.send(Box::new(42)));
        let (unpark, waker) = unpark_me();
        let value = loop {
            match rx.poll_recv(&waker) {
                Poll::Ready(v) => break v,
                // A lost wake-up parks this thread forever: loom reports the deadlock.
                Poll::Pending => thread::park(),
            }
        };
        assert_eq!(*value, 42);
        sender.join().unwrap();
        assert!(unpark.wakes.load(Ordering::Relaxed) <= 1, "woken twice");
    });
}

#[test]
fn send_vs_reregistering_a_new_waker() {
    loom::model(|| {
        let (tx, mut rx) = channel::<u32>();
        let sender = thread::spawn(move || tx.send(7));
        // A first poll with a waker that wakes nobody (were it woken instead of the second, this
        // thread would park forever)...
        let (first, first_waker) = {
            let unpark = std::sync::Arc::new(Unpark {
                thread: None,
                wakes: AtomicUsize::new(0),
            });
            (unpark.clone(), Waker::from(unpark))
        };
        let mut got = None;
        if let Poll::Ready(v) = rx.poll_recv(&first_waker) {
            got = Some(v);
        }
        // ...then polls with another, which unparks this thread: it must be the one woken if this
        // poll is pending.
        let (second, second_waker) = unpark_me();
        let value = match got {
            Some(v) => v,
            None => loop {
                match rx.poll_recv(&second_waker) {
                    Poll::Ready(v) => break v,
                    Poll::Pending => thread::park(),
                }
            },
        };
        assert_eq!(value, 7);
        sender.join().unwrap();
        let (a, b) = (
            first.wakes.load(Ordering::Relaxed),
            second.wakes.load(Ordering::Relaxed),
        );
        assert!(a + b <= 1, "one send, one wake at most");
    });
}

#[test]
fn receiver_dropped_vs_send() {
    loom::model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, mut rx) = channel::<DropCount>();
        let value = DropCount(drops.clone());
        let sender = thread::spawn(move || tx.send(value));
        let (unpark, waker) = unpark_me();
        let polled = rx.poll_recv(&waker);
        drop(waker);
        drop(polled);
        drop(rx);
        sender.join().unwrap();
        assert_eq!(
            drops.load(Ordering::Relaxed),
            1,
            "the value is dropped once"
        );
        assert_eq!(
            std::sync::Arc::strong_count(&unpark),
            1,
            "the waker is dropped with the receiver or the channel"
        );
        // loom fails the model if the channel's `Arc` leaked.
    });
}

/// `block_on` on a worker with no other work: poll with a fresh `WakeLatch`'s waker, and while
/// pending wait on the latch through the sleep protocol (the waiting side of `wait_until`).
#[test]
fn block_on_worker_vs_send() {
    loom::model(|| {
        let sleep = Arc::new(Sleep::new(1));
        // All workers idle: a sleep has no patrol timeout, so a lost wake-up is a deadlock.
        sleep.idle_workers().fetch_add(1, Ordering::Relaxed);
        let (tx, mut rx) = channel::<u32>();
        let sender = thread::spawn(move || tx.send(5));
        let value = loop {
            let latch = std::sync::Arc::new(WakeLatch::new(sleep.clone(), 0));
            let waker = Waker::from(latch.clone());
            if let Poll::Ready(v) = rx.poll_recv(&waker) {
                break v;
            }
            let mut idle = sleep.start_looking(0);
            while !latch.core().probe() {
                match sleep.no_work_found(&mut idle, || latch.core().try_sleep(), || false) {
                    Idled::Waited => {}
                    Idled::Aborted | Idled::Slept | Idled::TimedOut => latch.core().wake_up(),
                }
            }
            sleep.stop_searching(&mut idle);
        };
        assert_eq!(value, 5);
        sender.join().unwrap();
    });
}
