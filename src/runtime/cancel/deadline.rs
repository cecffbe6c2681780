//! The deadline timer: one thread for the process while deadlines are pending, started by the
//! first token with a deadline, that cancels each such token when its deadline passes.
//!
//! Checking a token stays one load because nobody compares clocks at the boundaries: the timer
//! sets the flag. It keeps the pending deadlines in a heap and sleeps on a futex word until the
//! earliest one, or until a new token brings an earlier one (which bumps the word and wakes it).
//! It holds the tokens weakly: a token dropped before its deadline is skipped, and its entry leaves
//! the heap at the deadline or when the heap is pruned (whenever it doubles). With nothing pending
//! for [`IDLE_EXIT`] the thread ends, and the next deadline starts another.
//!
//! Everything goes through the platform's facade (its lock, futex, thread and clock), so the
//! simulation runs the real timer on its virtual clock: `sim-tests/tests/deadline.rs` races a
//! deadline against an explicit cancel and a dropped token. Not under loom (no clock there).
//!
//! **Why no deadline is missed.** A new deadline is pushed under the queue lock; if it is the
//! earliest, the pusher bumps the word after unlocking and wakes the timer. The timer reads the
//! word under the same lock, before it computes how long to sleep, and sleeps only while the word
//! still holds that value: a push after its read changed the word, so the wait returns at once, and
//! a push before its read is in the heap it looks at. Starting the thread is decided under the lock
//! too: the timer clears `running` under it only with the heap empty.

use std::cmp::{Ordering as CmpOrdering, Reverse};
use std::collections::BinaryHeap;
use std::time::Duration;

use super::node::Node;
use crate::platform::clock::{self, Instant};
use crate::platform::sync::shared::{Arc, Weak};
use crate::platform::sync::{process_static, sim_bug, thread, Futex, Mutex, MutexGuard, Ordering};

/// A pending deadline (time since the clock's start), ordered by time, then by arrival, so equal
/// deadlines keep their order.
struct Pending {
    at: Duration,
    seq: u64,
    node: Weak<Node>,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    fn cmp(&self, other: &Self) -> CmpOrdering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

struct Queue {
    heap: BinaryHeap<Reverse<Pending>>,
    seq: u64,
    prune_at: usize,
    /// A timer thread runs (in fork generation `generation`: a child made by `fork()` has none).
    running: bool,
    generation: u64,
}

process_static! {
    static QUEUE: Mutex<Queue> = Mutex::new(Queue {
        heap: BinaryHeap::new(),
        seq: 0,
        prune_at: 0,
        running: false,
        generation: 0,
    });
}

// Bumped (and woken) when a deadline earlier than every pending one arrives.
process_static! {
    static CHANGED: Futex = Futex::new(0);
}

/// The longest the timer thread sleeps at once: a deadline far in the future (the latest
/// `Instant` there is) need not survive the conversion to the platform's timeout, which may
/// overflow. Waking once a day for it costs nothing; the loop re-checks.
const LONGEST_WAIT: Duration = Duration::from_secs(24 * 60 * 60);

/// How long the timer thread waits with nothing pending before it ends (in the simulation a
/// tenth of a virtual millisecond, so that schedules reach both a timer that is still there and
/// one that ended and must be started again).
const IDLE_EXIT: Duration = if cfg!(forkjoin_shuttle) {
    Duration::from_micros(100)
} else {
    Duration::from_secs(1)
};

fn queue() -> MutexGuard<'static, Queue> {
    QUEUE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Cancels `node` at `deadline`: now if it has passed, else from the timer thread. A process that
/// cannot start one more thread cannot honour deadlines: that is reported as a panic of the call
/// that asked for one.
pub(super) fn cancel_at(deadline: Instant, node: &Arc<Node>) {
    let remaining = clock::until(deadline);
    if remaining.is_zero() {
        node.cancel();
        return;
    }
    let at = clock::since_start().saturating_add(remaining);
    crate::platform::fork::watch();
    let mut queue = queue();
    let generation = crate::platform::fork::generation();
    if queue.generation != generation {
        // A forked child: the queue was copied, the thread was not (the parent's pending
        // deadlines then fire in the child too).
        queue.running = false;
        queue.generation = generation;
    }
    if queue.heap.len() >= queue.prune_at.max(64) {
        let live: Vec<_> = std::mem::take(&mut queue.heap)
            .into_iter()
            .filter(|Reverse(p)| p.node.strong_count() > 0)
            .collect();
        queue.heap = live.into();
        queue.prune_at = queue.heap.len() * 2;
    }
    let earliest = queue.heap.peek().is_none_or(|Reverse(p)| at < p.at);
    queue.seq += 1;
    let seq = queue.seq;
    queue.heap.push(Reverse(Pending {
        at,
        seq,
        node: Arc::downgrade(node),
    }));
    if !queue.running {
        thread::Builder::new()
            .name("forkjoin-deadline".into())
            .stack_size(64 << 10)
            .spawn(run)
            .unwrap_or_else(|e| panic!("forkjoin: cannot start the deadline timer thread: {e}"));
        queue.running = true;
    }
    drop(queue);
    if earliest {
        // Release: pairs with the timer's Acquire read under the lock (see the module docs).
        CHANGED.word().fetch_add(1, Ordering::Release);
        CHANGED.wake(1);
    }
}

/// The timer thread: cancels what is due, then sleeps until the earliest deadline; ends after
/// [`IDLE_EXIT`] with nothing pending.
fn run() {
    let mut idle_since = None;
    loop {
        let mut queue = queue();
        let now = clock::since_start();
        let mut due = Vec::new();
        while queue.heap.peek().is_some_and(|Reverse(p)| p.at <= now) {
            if let Some(Reverse(p)) = queue.heap.pop() {
                due.push(p.node);
            }
        }
        if !due.is_empty() {
            // Cancel outside the lock: `cancel` takes the nodes' own locks, and a new deadline
            // need not wait for it.
            drop(queue);
            for node in due.iter().filter_map(Weak::upgrade) {
                node.cancel();
            }
            idle_since = None;
            continue;
        }
        let wait = match queue.heap.peek() {
            Some(Reverse(p)) => {
                idle_since = None;
                (p.at - now).min(LONGEST_WAIT)
            }
            None => {
                let since = *idle_since.get_or_insert(now);
                if now.saturating_sub(since) >= IDLE_EXIT {
                    // The simulation's self-check (scripts/sim-bugs.sh) leaves `running` set:
                    // the next deadline then starts no thread and never fires.
                    if !sim_bug("deadline_keeps_running") {
                        queue.running = false;
                    }
                    return;
                }
                IDLE_EXIT
            }
        };
        // Acquire, under the lock: pairs with a pusher's Release bump (see the module docs).
        let word = CHANGED.word().load(Ordering::Acquire);
        drop(queue);
        CHANGED.wait_timeout(word, wait);
    }
}
