//! loom model of a resize's race (`crate::runtime::registry::slots`): a worker told to leave
//! drains its public deque into the injector while a thief steals from that deque, and a resizer
//! grows the pool back while the worker decides or vacates. The job is taken exactly once (by the
//! thief, or through the injector), and the slot ends with exactly one thread if the final size
//! includes it, none otherwise: never two, never a slot below the size left empty.

use super::Reached;
use crate::deque::{Steal, Worker};
use crate::runtime::registry::slots::{Decision, Slots};
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{Arc, Mutex};
use loom::thread;

/// Slot 1's queues, in the model: its deque (the private stack is empty at the main loop).
type Queues = Worker<usize>;

#[test]
fn a_leaving_worker_races_a_thief_and_a_regrow() {
    let reached = Reached::default();
    let r = reached.clone();
    loom::model(move || {
        // A pool of 2, shrunk to 1: slot 1's thread has a job in its deque and its latch set.
        let deque = Worker::new();
        deque.push(7);
        let stealer = deque.stealer();
        let slots: Arc<Mutex<Slots<Queues, ()>>> = Arc::new(Mutex::new(Slots::new(2, Vec::new())));
        let stop = slots
            .lock()
            .unwrap()
            .resize(1, |_, q| Err::<(), _>((q, ())))
            .0;
        assert_eq!(stop, vec![1]);
        let injector = Arc::new(Mutex::new(Vec::new()));
        // Threads running slot 1 (its first thread counts), and jobs taken.
        let threads = Arc::new(AtomicUsize::new(1));
        let taken = Arc::new(AtomicUsize::new(0));

        let worker = {
            let (slots, injector, threads, r) =
                (slots.clone(), injector.clone(), threads.clone(), r.clone());
            thread::spawn(move || {
                loop {
                    let drained = deque.is_empty();
                    let decision = slots.lock().unwrap().decide(1, drained, || ());
                    match decision {
                        Decision::Stay => {
                            r.note("stayed");
                            return;
                        }
                        Decision::Drain => {
                            while let Some(job) = deque.pop() {
                                injector.lock().unwrap().push(job);
                            }
                        }
                        Decision::Leave => {
                            // The exit handler runs here, outside the lock.
                            let kept = slots.lock().unwrap().vacate(1, deque, || ());
                            if kept.is_some() {
                                r.note("restarted");
                            } else {
                                threads.fetch_sub(1, Ordering::SeqCst);
                                r.note("left");
                            }
                            return;
                        }
                    }
                }
            })
        };
        let thief = {
            let (taken, r) = (taken.clone(), r.clone());
            thread::spawn(move || loop {
                match stealer.steal() {
                    Steal::Success(_) => {
                        taken.fetch_add(1, Ordering::SeqCst);
                        r.note("stolen");
                        return;
                    }
                    Steal::Empty => return,
                    Steal::Retry => thread::yield_now(),
                }
            })
        };
        // The resizer grows back to 2: a vacant slot gets a new thread (its start is counted).
        {
            let threads = threads.clone();
            let mut slots = slots.lock().unwrap();
            let (stop, failed) = slots.resize(2, |_, _queues| {
                threads.fetch_add(1, Ordering::SeqCst);
                r.note("started");
                Ok::<(), (Queues, ())>(())
            });
            assert!(stop.is_empty() && failed.is_none());
        }
        worker.join().unwrap();
        thief.join().unwrap();
        let from_injector = injector.lock().unwrap().len();
        assert_eq!(
            taken.load(Ordering::SeqCst) + from_injector,
            1,
            "the job was lost or taken twice"
        );
        assert_eq!(
            threads.load(Ordering::SeqCst),
            1,
            "slot 1 is in the pool of 2: exactly one thread runs it"
        );
    });
    reached.require(&["stayed", "restarted", "left", "started", "stolen"]);
}
