//! loom models of cancellation (`crate::runtime::cancel`): a node's `cancel` against a child
//! registering under it (the child is cancelled whatever the interleaving), and a cancelled job b
//! against the owner's pop and a thief's steal, as the runtime's boundaries drop it: b's closure
//! runs at most once, its captures drop exactly once, and the owner always gets a result or the
//! cancellation, woken through the sleep protocol when it waits (a lost wake-up is a loom deadlock).
// The explicit drops mark where each job's borrow of the leaked `Sleep` ends, before `free_sleep`.
#![allow(clippy::drop_non_drop)]

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use super::Reached;
use crate::deque::{Steal, Worker};
use crate::platform::sync::heavy_barrier;
use crate::runtime::cancel::node::Node;
use crate::runtime::jobs::job::{JobRef, StackJob};
use crate::runtime::jobs::jobstack::JobStackOwner;
use crate::runtime::jobs::latch::{CoreLatch, SpinLatch};
use crate::runtime::sleep::{Idled, Sleep};
use crate::Cancelled;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

#[test]
fn cancel_vs_adopt() {
    // One thread cancels the parent while another makes a child of it: the child either is in the
    // list `cancel` takes, or sees the flag under the parent's lock and is born cancelled.
    let reached = Reached::default();
    let r = reached.clone();
    loom::model(move || {
        let parent = Node::new();
        let p2 = parent.clone();
        let canceller = thread::spawn(move || p2.cancel());
        let child = Node::child_of(&[&parent]);
        r.note(if child.is_cancelled() {
            "cancelled when made"
        } else {
            "cancelled later"
        });
        canceller.join().unwrap();
        assert!(parent.is_cancelled());
        assert!(child.is_cancelled(), "a child escaped its parent's cancel");
    });
    reached.require(&["cancelled when made", "cancelled later"]);
}

#[test]
fn cancel_vs_adopt_down_a_chain() {
    // grandparent → parent → child, the last two made while the grandparent is cancelled: the
    // cancel may reach the parent while the child registers under it.
    let reached = Reached::default();
    let r = reached.clone();
    loom::model(move || {
        let grandparent = Node::new();
        let g2 = grandparent.clone();
        let canceller = thread::spawn(move || g2.cancel());
        let parent = Node::child_of(&[&grandparent]);
        let child = Node::child_of(&[&parent]);
        // The cancel is still on its way down when the child is made under a parent it has not
        // reached yet (or has reached, and the child is born cancelled).
        if !parent.is_cancelled() {
            r.note("parent reached after the child registered");
        } else if !child.is_cancelled() {
            r.note("parent cancelled, child not yet");
        }
        canceller.join().unwrap();
        assert!(parent.is_cancelled(), "the parent escaped");
        assert!(child.is_cancelled(), "the grandchild escaped");
    });
    reached.require(&[
        "parent reached after the child registered",
        "parent cancelled, child not yet",
    ]);
}

#[test]
fn two_parents_cancelled_at_once_vs_adopt() {
    // A nested `cancellable`'s node has two parents (its token, and the node it runs under); both
    // are cancelled by two threads while it registers under them. It ends cancelled, and the
    // three threads never wait on each other's locks in a cycle (a loom deadlock).
    loom::model(|| {
        let token = Node::new();
        let outer = Node::new();
        let (t2, o2) = (token.clone(), outer.clone());
        let cancel_token = thread::spawn(move || t2.cancel());
        let cancel_outer = thread::spawn(move || o2.cancel());
        let node = Node::child_of(&[&token, &outer]);
        cancel_token.join().unwrap();
        cancel_outer.join().unwrap();
        assert!(node.is_cancelled());
    });
}

/// Counts its drops: every value a job captures must drop exactly once.
struct Tracked(Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// What a job b counts: runs of its closure's body and drops of its capture.
#[derive(Clone)]
struct Counts {
    runs: Arc<AtomicUsize>,
    drops: Arc<AtomicUsize>,
}

impl Counts {
    fn new() -> Self {
        Counts {
            runs: Arc::new(AtomicUsize::new(0)),
            drops: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// b's closure as `join` builds it: a b taken from a queue first passes the boundary (unwinds
    /// with `Cancelled` if its node is cancelled, dropping its capture unrun), then runs the body.
    fn job_b(&self, node: std::sync::Arc<Node>) -> impl FnOnce(bool) -> u32 + Send {
        let captured = Tracked(self.drops.clone());
        let runs = self.runs.clone();
        move |stolen: bool| {
            if stolen && node.is_cancelled() {
                // `WorkerThread::stop_if_cancelled`.
                resume_unwind(Box::new(Cancelled));
            }
            let _captured = captured;
            runs.fetch_add(1, Ordering::Relaxed);
            7
        }
    }

    /// Checks the owner's outcome against what happened to b: it ran once and returned its value,
    /// or it never ran (cancelled); its capture dropped once either way.
    fn check(&self, outcome: Result<u32, Cancelled>, node: &Node) {
        let runs = self.runs.load(Ordering::Relaxed);
        assert_eq!(
            self.drops.load(Ordering::Relaxed),
            1,
            "b's capture drops once"
        );
        match outcome {
            Ok(v) => assert_eq!((v, runs), (7, 1), "b ran once and its result came back"),
            Err(Cancelled) => {
                assert_eq!(runs, 0, "a cancelled b reported after it ran");
                assert!(node.is_cancelled(), "cancelled without a cancel");
            }
        }
    }
}

/// The owner's view of a b that a thief executed: its result, or the `Cancelled` it unwound with.
///
/// # Safety
/// `job`'s latch must have been observed set, and its result not taken before.
unsafe fn stolen_outcome<F: FnOnce(bool) -> u32>(
    job: &StackJob<SpinLatch<'_>, F, u32>,
) -> Result<u32, Cancelled> {
    // SAFETY: forwarded.
    catch_unwind(AssertUnwindSafe(|| unsafe { job.take_result() })).map_err(|payload| {
        assert!(
            payload.is::<Cancelled>(),
            "b unwound with a foreign payload"
        );
        Cancelled
    })
}

/// The owner's b popped back: run inline, or dropped unrun if its work was cancelled
/// (`join_pushing` and `cancel_popped_b`).
///
/// # Safety
/// `job` was popped back: its `JobRef` is not and will not be executed.
unsafe fn popped_outcome<F: FnOnce(bool) -> u32>(
    job: &StackJob<SpinLatch<'_>, F, u32>,
    node: &Node,
) -> Result<u32, Cancelled> {
    if node.is_cancelled() {
        // SAFETY: forwarded; dropped instead of run, once.
        unsafe { job.drop_unrun() };
        Err(Cancelled)
    } else {
        // SAFETY: forwarded; run once.
        Ok(unsafe { job.run_inline(false) })
    }
}

/// Counts all `n` workers of `sleep` idle, so their sleeps have no patrol timeout: a lost wake-up
/// is then a loom deadlock instead of being hidden by a timeout (which loom fires at once).
fn leak_sleep(n: usize) -> &'static Arc<Sleep> {
    let sleep = Sleep::new(n);
    sleep.idle_workers().fetch_add(n, Ordering::Relaxed);
    Box::leak(Box::new(Arc::new(sleep)))
}

fn free_sleep(sleep: &'static Arc<Sleep>) {
    // SAFETY: produced by `leak_sleep`; no thread uses it any more.
    drop(unsafe { Box::from_raw(sleep as *const Arc<Sleep> as *mut Arc<Sleep>) });
}

/// The owner's wait for a stolen b (no other work to run), as worker `index`.
fn wait(sleep: &Sleep, latch: &SpinLatch<'_>, index: usize) {
    let mut idle = sleep.start_looking(index);
    while !latch.probe() {
        match sleep.no_work_found(&mut idle, || latch.core().try_sleep(), || false) {
            Idled::Waited => {}
            Idled::Aborted | Idled::Slept | Idled::TimedOut => latch.core().wake_up(),
        }
    }
    // The model has no other work to pass on (sleep README rule 12).
    sleep.stop_searching(&mut idle);
}

/// Notes which of the four paths the owner's outcome took.
fn note_outcome(reached: &Reached, popped: bool, outcome: Result<u32, Cancelled>) {
    reached.note(match (popped, outcome.is_ok()) {
        (true, true) => "popped, ran",
        (true, false) => "popped, dropped",
        (false, true) => "stolen, ran",
        (false, false) => "stolen, dropped",
    });
}

const EVERY_OUTCOME: [&str; 4] = [
    "popped, ran",
    "popped, dropped",
    "stolen, ran",
    "stolen, dropped",
];

#[test]
fn cancel_vs_pop_vs_heavy_steal_of_b() {
    // `join`'s b on the owner's private stack: a thief heavy-steals it and passes the boundary, a
    // third thread cancels the work, the owner pops b back (checking the node) or waits for the
    // thief's latch.
    let reached = Reached::default();
    let r = reached.clone();
    loom::model(move || {
        let sleep = leak_sleep(2);
        let node = Node::new();
        let counts = Counts::new();
        let job_b = StackJob::new(counts.job_b(node.clone()), SpinLatch::waking(sleep.slot(0)));
        let stack = JobStackOwner::new();
        // SAFETY: `job_b` outlives the reference: it is popped back or its latch awaited below.
        let pushed = stack.push(unsafe { job_b.as_job_ref() }).unwrap();
        let thieves = stack.thief();
        let thief = thread::spawn(move || {
            let base = thieves.top_before_barrier();
            heavy_barrier();
            if let Some(job) = thieves.steal_after_barrier(base) {
                // SAFETY: taken exactly once from the stack; its owner waits for its latch.
                unsafe { job.execute() };
            }
        });
        let n2 = node.clone();
        let canceller = thread::spawn(move || n2.cancel());
        // ... a runs here ...
        let popped = stack.pop(pushed);
        let outcome = if popped {
            // SAFETY: popped back.
            unsafe { popped_outcome(&job_b, &node) }
        } else {
            wait(sleep, job_b.latch(), 0);
            // SAFETY: the latch is set; the result is taken once.
            unsafe { stolen_outcome(&job_b) }
        };
        thief.join().unwrap();
        canceller.join().unwrap();
        counts.check(outcome, &node);
        note_outcome(&r, popped, outcome);
        drop(job_b);
        free_sleep(sleep);
    });
    reached.require(&EVERY_OUTCOME);
}

#[test]
fn cancel_vs_public_pop_vs_steal_by_a_sleeper() {
    // b published on the owner's public deque and announced; an idle worker, perhaps asleep, is
    // woken for it, steals it and finds its work cancelled by a third thread (or not yet): it drops
    // b or runs it, and sets the latch either way. The owner pops b back from its deque (checking
    // the node) or, finding it gone, waits through the sleep protocol (`finish_published`): a
    // dropped b that did not set its latch, or whose latch did not wake the owner, is a deadlock.
    let reached = Reached::default();
    let r = reached.clone();
    loom::model(move || {
        let sleep = leak_sleep(2);
        let node = Node::new();
        let counts = Counts::new();
        let job_b = StackJob::new(counts.job_b(node.clone()), SpinLatch::waking(sleep.slot(0)));
        let deque: Worker<JobRef> = Worker::new();
        let stealer = deque.stealer();
        // Set by the owner at the end, so that a thief that found nothing leaves its idle loop.
        let done = Arc::new(CoreLatch::new());
        let d2 = done.clone();
        let thief = thread::spawn(move || {
            let mut idle = sleep.start_looking(1);
            while !d2.probe() {
                match stealer.steal() {
                    Steal::Success(job) => {
                        sleep.stop_searching(&mut idle);
                        // SAFETY: taken exactly once from the deque; its owner waits for its
                        // latch.
                        unsafe { job.execute() };
                        return;
                    }
                    Steal::Retry => continue,
                    Steal::Empty => {}
                }
                match sleep.no_work_found(&mut idle, || d2.try_sleep(), || false) {
                    Idled::Waited => {}
                    Idled::Aborted | Idled::Slept | Idled::TimedOut => d2.wake_up(),
                }
            }
            sleep.stop_searching(&mut idle);
        });
        let n2 = node.clone();
        let canceller = thread::spawn(move || n2.cancel());
        // SAFETY: `job_b` outlives the reference: it is popped back or its latch awaited below.
        deque.push(unsafe { job_b.as_job_ref() });
        sleep.new_jobs();
        // ... a runs here ...
        let popped = deque.pop().is_some();
        let outcome = if popped {
            // SAFETY: the deque handed b back to us: nobody else executes it.
            unsafe { popped_outcome(&job_b, &node) }
        } else {
            wait(sleep, job_b.latch(), 0);
            // SAFETY: the latch is set; the result is taken once.
            unsafe { stolen_outcome(&job_b) }
        };
        // Let a thief that found nothing go, the way `SpinLatch::set` wakes a sleeper.
        if done.set_owned_for_tests() {
            sleep.notify_worker_latch_is_set(1);
        }
        thief.join().unwrap();
        canceller.join().unwrap();
        counts.check(outcome, &node);
        note_outcome(&r, popped, outcome);
        drop(job_b);
        free_sleep(sleep);
    });
    reached.require(&EVERY_OUTCOME);
}
