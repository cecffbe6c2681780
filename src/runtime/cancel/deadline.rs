//! The deadline timer: one thread for the whole process, started by the first token with a
//! deadline, that cancels each such token when its deadline passes.
//!
//! Checking a token stays one load because nobody compares clocks at the boundaries: the timer
//! sets the flag. It keeps the pending deadlines in a heap and sleeps on a condition variable until
//! the earliest one, or until a new token brings an earlier one. It holds the tokens weakly: a
//! token dropped before its deadline is skipped, and its entry leaves the heap at the deadline or
//! when the heap is pruned (whenever it doubles).

use std::cmp::{Ordering as CmpOrdering, Reverse};
use std::collections::BinaryHeap;
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use super::node::Node;

/// A pending deadline, ordered by time (then by arrival, so equal deadlines keep their order).
struct Pending {
    at: Instant,
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

#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Reverse<Pending>>,
    seq: u64,
    prune_at: usize,
}

struct Timer {
    queue: Mutex<Queue>,
    changed: Condvar,
}

static TIMER: OnceLock<Timer> = OnceLock::new();

/// The longest the timer thread sleeps at once (see [`run`]).
const LONGEST_WAIT: Duration = Duration::from_secs(24 * 60 * 60);

/// Cancels `node` at `deadline`: now if it has passed, else from the timer thread.
pub(super) fn cancel_at(deadline: Instant, node: &Arc<Node>) {
    if deadline <= Instant::now() {
        node.cancel();
        return;
    }
    let timer = timer();
    let mut queue = timer.queue.lock().unwrap_or_else(|e| e.into_inner());
    if queue.heap.len() >= queue.prune_at.max(64) {
        let live: Vec<_> = std::mem::take(&mut queue.heap)
            .into_iter()
            .filter(|Reverse(p)| p.node.strong_count() > 0)
            .collect();
        queue.heap = live.into();
        queue.prune_at = queue.heap.len() * 2;
    }
    let earliest = queue.heap.peek().is_none_or(|Reverse(p)| deadline < p.at);
    queue.seq += 1;
    let seq = queue.seq;
    queue.heap.push(Reverse(Pending {
        at: deadline,
        seq,
        node: Arc::downgrade(node),
    }));
    drop(queue);
    if earliest {
        timer.changed.notify_one();
    }
}

/// The timer, its thread started on first use, and again in a child made by `fork()` (which
/// copies the queue but not the thread; the parent's pending deadlines then fire in the child
/// too). A process that cannot start one more thread cannot honour deadlines: that is reported as
/// a panic of the call that asked for one.
fn timer() -> &'static Timer {
    /// The fork generation (`crate::platform::fork`) the timer thread was started in, if any.
    static STARTED_IN: Mutex<Option<u64>> = Mutex::new(None);
    let timer = TIMER.get_or_init(|| Timer {
        queue: Mutex::new(Queue::default()),
        changed: Condvar::new(),
    });
    crate::platform::fork::watch();
    let mut started_in = STARTED_IN.lock().unwrap_or_else(|e| e.into_inner());
    let generation = crate::platform::fork::generation();
    if *started_in != Some(generation) {
        std::thread::Builder::new()
            .name("forkjoin-deadline".into())
            .spawn(move || run(timer))
            .unwrap_or_else(|e| panic!("forkjoin: cannot start the deadline timer thread: {e}"));
        *started_in = Some(generation);
    }
    timer
}

/// The timer thread: cancels what is due, then sleeps until the earliest deadline.
fn run(timer: &'static Timer) {
    let mut queue = timer.queue.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let now = Instant::now();
        let mut due = Vec::new();
        while let Some(Reverse(p)) = queue.heap.peek() {
            if p.at > now {
                break;
            }
            let Some(Reverse(p)) = queue.heap.pop() else {
                break;
            };
            due.push(p.node);
        }
        if !due.is_empty() {
            // Cancel outside the lock: `cancel` takes the nodes' own locks, and a new deadline
            // need not wait for it.
            drop(queue);
            for node in due.iter().filter_map(Weak::upgrade) {
                node.cancel();
            }
            queue = timer.queue.lock().unwrap_or_else(|e| e.into_inner());
            continue;
        }
        queue = match queue.heap.peek() {
            Some(Reverse(p)) => {
                // At most a day at a time: a deadline far in the future (the latest `Instant`
                // there is) need not survive the conversion to the platform's absolute timeout,
                // which may overflow. Waking once a day for it costs nothing; the loop re-checks.
                let wait = p.at.saturating_duration_since(now).min(LONGEST_WAIT);
                timer
                    .changed
                    .wait_timeout(queue, wait)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
            None => timer.changed.wait(queue).unwrap_or_else(|e| e.into_inner()),
        };
    }
}
