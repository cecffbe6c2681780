//! One worker's event ring: written by that worker only, readable at any time by anyone.
//!
//! **Writing** ([`RingWriter::push`]) is four Relaxed stores into the next slot, framed by two
//! stores of counters that only the writer touches: `claimed` (the slot's event number + 1, before
//! the data) and `written` (after it). The ring overwrites its oldest event when full, so it keeps
//! the most recent `capacity` events; the events it overwrote are counted as dropped. No
//! read-modify-write and no shared cache line: a worker's ring and counters are its own.
//!
//! **Reading** ([`Ring::snapshot`]) is a seqlock read, so a pool can be flushed while it runs (the
//! global pool at process exit): load `written` (Acquire), copy the slots of the last `capacity`
//! events below it, then (after an Acquire fence) load `claimed`. An event whose slot the writer
//! may have started to overwrite meanwhile has a number below `claimed - capacity`; those are
//! discarded. Every slot word is an atomic, so a torn read is never undefined behaviour, only
//! discarded.
//!
//! | writer                                       | reader                                        |
//! | -------------------------------------------- | --------------------------------------------- |
//! | store `claimed = j + 1`; fence(Release)      | load `written = h` (Acquire)                  |
//! | store slot `j % capacity` (Relaxed)          | load slots of events `h - capacity .. h`      |
//! | store `written = j + 1` (Release)            | fence(Acquire); load `claimed = c`            |
//! |                                              | keep events `>= c - capacity`                 |

use std::cell::Cell;
use std::marker::PhantomData;

use super::event::Event;
use crate::platform::sync::{fence, Arc, AtomicU64, Ordering};

/// One recorded event: `[begin, end, meta, job]` (see `event.rs`).
type EventSlot = [AtomicU64; 4];

/// The shared half of a worker's ring (see the module docs).
pub(crate) struct Ring {
    slots: Box<[EventSlot]>,
    /// One past the number of the event being written (or last written).
    claimed: AtomicU64,
    /// Events completely written so far.
    written: AtomicU64,
}

/// An event read back from a ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Recorded {
    /// Ticks at the start (for an instant: its time).
    pub(crate) begin: u64,
    /// Ticks at the end (equal to `begin` for an instant).
    pub(crate) end: u64,
    pub(crate) event: Event,
}

/// What [`Ring::snapshot`] read: the events still in the ring, oldest first, and how many older
/// ones were overwritten.
#[derive(Debug, Default)]
pub(crate) struct Snapshot {
    pub(crate) events: Vec<Recorded>,
    pub(crate) dropped: u64,
}

impl Ring {
    /// A ring keeping the last `capacity` (at least 1) events, and its only writer.
    pub(crate) fn new(capacity: usize) -> (Arc<Ring>, RingWriter) {
        let capacity = capacity.max(1);
        let ring = Arc::new(Ring {
            slots: (0..capacity)
                .map(|_| std::array::from_fn(|_| AtomicU64::new(0)))
                .collect(),
            claimed: AtomicU64::new(0),
            written: AtomicU64::new(0),
        });
        let writer = RingWriter {
            ring: ring.clone(),
            next_slot: Cell::new(0),
            count: Cell::new(0),
            last: Cell::new(0),
            _not_sync: PhantomData,
        };
        (ring, writer)
    }

    /// The events it holds now (see the module docs); callable from any thread at any time.
    pub(crate) fn snapshot(&self) -> Snapshot {
        let capacity = self.slots.len() as u64;
        // Acquire: pairs with the writer's Release store of `written`: the slots of events below it
        // are written.
        let written = self.written.load(Ordering::Acquire);
        let first = written.saturating_sub(capacity);
        let mut raw = Vec::with_capacity((written - first) as usize);
        for number in first..written {
            let slot = &self.slots[(number % capacity) as usize];
            // Relaxed: validated below by the load of `claimed`.
            raw.push(slot.each_ref().map(|word| word.load(Ordering::Relaxed)));
        }
        // Acquire fence: pairs with the writer's Release fence after its store of `claimed`. If we
        // read any word of a slot the writer was overwriting, we now see that overwrite's claim.
        fence(Ordering::Acquire);
        // Relaxed: ordered by the fence above.
        let claimed = self.claimed.load(Ordering::Relaxed);
        let valid_from = first.max(claimed.saturating_sub(capacity));
        let skip = (valid_from - first) as usize;
        let events = raw
            .into_iter()
            .skip(skip)
            .filter_map(|[begin, end, meta, job]| {
                Some(Recorded {
                    begin,
                    end,
                    event: Event::unpack(meta, job)?,
                })
            })
            .collect();
        Snapshot {
            events,
            dropped: valid_from,
        }
    }
}

/// The writing half of a worker's ring: its worker keeps it for its whole life. `Send` but `!Sync`,
/// so only one thread writes at a time.
pub(crate) struct RingWriter {
    ring: Arc<Ring>,
    /// The slot the next event goes to.
    next_slot: Cell<usize>,
    /// Events pushed so far (the next event's number).
    count: Cell<u64>,
    /// The latest tick count handed out by [`now`](Self::now) or [`clamp`](Self::clamp).
    last: Cell<u64>,
    _not_sync: PhantomData<Cell<()>>,
}

impl RingWriter {
    /// The current tick count, never below one this writer saw before: a thread that moves to
    /// another core whose time-stamp counter lags behind still records spans that nest.
    #[inline]
    pub(crate) fn now(&self) -> u64 {
        self.clamp(crate::platform::clock::ticks())
    }

    /// `ticks`, raised to the latest tick count this writer saw, which it becomes.
    #[inline]
    pub(crate) fn clamp(&self, ticks: u64) -> u64 {
        let t = ticks.max(self.last.get());
        self.last.set(t);
        t
    }

    /// Records an event from `begin` to `end` (ticks; equal for an instant).
    pub(crate) fn push(&self, begin: u64, end: u64, event: Event) {
        let ring = &*self.ring;
        let number = self.count.get();
        let (meta, job) = event.pack();
        // Relaxed store + Release fence: a reader that sees any word of this slot's new contents also
        // sees this claim (it pairs with the reader's Acquire fence).
        ring.claimed.store(number + 1, Ordering::Relaxed);
        fence(Ordering::Release);
        let slot = &ring.slots[self.next_slot.get()];
        for (word, value) in slot.iter().zip([begin, end, meta, job]) {
            // Relaxed: published by the Release store of `written` below.
            word.store(value, Ordering::Relaxed);
        }
        // Release: pairs with the reader's Acquire load; the slot's words are visible with it.
        ring.written.store(number + 1, Ordering::Release);
        self.count.set(number + 1);
        let next = self.next_slot.get() + 1;
        self.next_slot
            .set(if next == ring.slots.len() { 0 } else { next });
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;
    use crate::platform::sync::for_tests::thread;

    fn published(n: u32) -> Event {
        Event::Published { jobs: n }
    }

    #[test]
    fn keeps_everything_until_full() {
        let (ring, writer) = Ring::new(4);
        for i in 0..3 {
            writer.push(i, i + 1, published(i as u32));
        }
        let snap = ring.snapshot();
        assert_eq!(snap.dropped, 0);
        let jobs: Vec<_> = snap.events.iter().map(|r| r.event).collect();
        assert_eq!(jobs, [published(0), published(1), published(2)]);
        assert_eq!((snap.events[2].begin, snap.events[2].end), (2, 3));
    }

    #[test]
    fn an_overfull_ring_keeps_the_newest_and_counts_the_rest() {
        let (ring, writer) = Ring::new(3);
        for i in 0..10 {
            writer.push(i, i, published(i as u32));
        }
        let snap = ring.snapshot();
        assert_eq!(snap.dropped, 7);
        let jobs: Vec<_> = snap.events.iter().map(|r| r.event).collect();
        assert_eq!(jobs, [published(7), published(8), published(9)]);
    }

    #[test]
    fn a_reader_beside_the_writer_sees_whole_events_in_order() {
        let (ring, writer) = Ring::new(64);
        let reader = thread::spawn(move || {
            let mut seen = 0u64;
            for _ in 0..2000 {
                let snap = ring.snapshot();
                // Events are numbered by their payload: the kept ones are consecutive and end
                // at the newest.
                for (i, r) in snap.events.iter().enumerate() {
                    let Event::Published { jobs } = r.event else {
                        panic!("unexpected {r:?}")
                    };
                    assert_eq!(jobs as u64, snap.dropped + i as u64);
                    assert_eq!((r.begin, r.end), (jobs as u64, jobs as u64 * 2));
                }
                seen = seen.max(snap.dropped + snap.events.len() as u64);
            }
            seen
        });
        for i in 0..200_000u64 {
            writer.push(i, i * 2, published(i as u32));
        }
        assert!(reader.join().unwrap() <= 200_000);
    }

    #[test]
    fn clamped_ticks_never_go_back() {
        let (_ring, writer) = Ring::new(1);
        assert_eq!(writer.clamp(10), 10);
        assert_eq!(writer.clamp(5), 10);
        assert!(writer.now() >= 10);
    }
}
