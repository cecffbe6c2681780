//! loom models of the Chase-Lev deque (minimum capacity 2 under loom, so growth, shrinking and
//! wrap-around are reached in a few operations). Every model asserts exactly-once delivery: the
//! items taken by all threads plus those drained at the end are exactly the items pushed.

use crate::deque::{Reclaimer, Steal, Stealer, Worker};
use crossbeam_epoch::Collector;
use loom::thread;
use std::ops::Range;

/// Steals until success or an empty deque (`Retry` means another thread won; the state changed).
fn steal_one(s: &Stealer<usize>) -> Option<usize> {
    loop {
        match s.steal() {
            Steal::Success(v) => return Some(v),
            Steal::Empty => return None,
            Steal::Retry => thread::yield_now(),
        }
    }
}

/// Pops everything left and checks the union of all deliveries is `0..n`, each exactly once.
fn assert_exactly_once(w: &Worker<usize>, mut got: Vec<usize>, n: usize) {
    while let Some(v) = w.pop() {
        got.push(v);
    }
    got.sort_unstable();
    assert_eq!(
        got,
        (0..n).collect::<Vec<_>>(),
        "items lost or delivered twice"
    );
}

fn spawn_thief(s: Stealer<usize>, attempts: usize) -> thread::JoinHandle<Vec<usize>> {
    thread::spawn(move || (0..attempts).filter_map(|_| steal_one(&s)).collect())
}

/// Pushes `items` in order (growing the buffer as needed).
fn push_all(w: &Worker<usize>, items: Range<usize>) {
    for i in items {
        w.push(i);
    }
}

/// A worker (default reclaimer) holding `0..n`.
fn worker_with(n: usize) -> Worker<usize> {
    let w = Worker::new();
    push_all(&w, 0..n);
    w
}

/// The owner pops `times` times (each pop runs, even after one comes back empty); returns what it got.
fn pop_times(w: &Worker<usize>, times: usize) -> Vec<usize> {
    (0..times).filter_map(|_| w.pop()).collect()
}

/// Joins `thieves` in order, adds their loot to `got`, then checks exactly-once delivery of `0..n`.
fn join_and_check<const K: usize>(
    w: &Worker<usize>,
    mut got: Vec<usize>,
    thieves: [thread::JoinHandle<Vec<usize>>; K],
    n: usize,
) {
    for t in thieves {
        got.extend(t.join().unwrap());
    }
    assert_exactly_once(w, got, n);
}

#[test]
fn owner_pop_vs_thief_on_last_item() {
    loom::model(|| {
        let w = worker_with(1);
        let thief = spawn_thief(w.stealer(), 1);
        let mut got = pop_times(&w, 1);
        got.extend(thief.join().unwrap());
        assert_eq!(got.len(), 1, "the last item must go to exactly one side");
        assert_exactly_once(&w, got, 1);
    });
}

#[test]
fn two_thieves_vs_owner() {
    loom::model(|| {
        let w = worker_with(2);
        let a = spawn_thief(w.stealer(), 1);
        let b = spawn_thief(w.stealer(), 1);
        let got = pop_times(&w, 1);
        join_and_check(&w, got, [a, b], 2);
    });
}

#[test]
fn thief_sees_items_pushed_after_it_started() {
    loom::model(|| {
        let w = Worker::new();
        let thief = spawn_thief(w.stealer(), 2);
        push_all(&w, 0..3); // the third push grows while the thief may be reading
        let got = pop_times(&w, 1);
        join_and_check(&w, got, [thief], 3);
    });
}

#[test]
fn two_thieves_see_items_pushed_after_they_started() {
    loom::model(|| {
        let w = Worker::new();
        let a = spawn_thief(w.stealer(), 2);
        let b = spawn_thief(w.stealer(), 1);
        push_all(&w, 0..3);
        join_and_check(&w, Vec::new(), [a, b], 3);
    });
}

#[test]
fn push_grows_while_thief_steals() {
    loom::model(|| {
        let w = worker_with(2); // full at capacity 2
        let thief = spawn_thief(w.stealer(), 2);
        push_all(&w, 2..4); // grows to 4 unless the thief already freed a slot (then wraps around)
        let got = pop_times(&w, 1);
        join_and_check(&w, got, [thief], 4);
    });
}

#[test]
fn pop_shrinks_while_thief_steals() {
    loom::model(|| {
        let w = worker_with(3); // capacity 4
        let thief = spawn_thief(w.stealer(), 1);
        // The second pop leaves at most one item in four slots: shrinks back to 2.
        let got = pop_times(&w, 2);
        join_and_check(&w, got, [thief], 3);
    });
}

#[test]
fn wrap_around_reuses_slots_after_steals() {
    loom::model(|| {
        let w = worker_with(2);
        let thief = spawn_thief(w.stealer(), 1);
        let got = pop_times(&w, 1); // takes 1 (or races for 0)
        push_all(&w, 2..4); // the first may land in the slot the thief is reading
        join_and_check(&w, got, [thief], 4);
    });
}

#[test]
fn drop_with_remaining_items_drops_each_once() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    loom::model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let w = Worker::new();
        for _ in 0..3 {
            w.push(Counted(Arc::clone(&drops)));
        }
        let s = w.stealer();
        let thief = thread::spawn(move || {
            // The stealer outlives the worker here: the items must survive until it is gone too.
            let stolen = s.steal().success().is_some();
            drop(s);
            stolen
        });
        drop(w.pop());
        drop(w);
        thief.join().unwrap();
        assert_eq!(
            drops.load(Ordering::Relaxed),
            3,
            "every item dropped exactly once"
        );
    });
}

#[test]
fn epoch_collector_reclaims_grown_buffer() {
    loom::model(|| {
        let w = Worker::with_reclaimer(Reclaimer::epoch(Collector::new()));
        push_all(&w, 0..2);
        let thief = spawn_thief(w.stealer(), 1);
        w.push(2); // grows: the old buffer is retired to the model's own collector
        let got = pop_times(&w, 1);
        join_and_check(&w, got, [thief], 3);
    });
}

#[test]
fn two_thieves_while_owner_grows_and_pops() {
    loom::model(|| {
        let w = worker_with(2);
        let a = spawn_thief(w.stealer(), 1);
        let b = spawn_thief(w.stealer(), 1);
        push_all(&w, 2..4);
        let got = pop_times(&w, 2);
        join_and_check(&w, got, [a, b], 4);
    });
}

#[test]
fn epoch_collector_reclaims_shrunk_buffer() {
    loom::model(|| {
        let w = Worker::with_reclaimer(Reclaimer::epoch(Collector::new()));
        push_all(&w, 0..3); // capacity 4 (the 2-slot buffer is retired on the way)
        let thief = spawn_thief(w.stealer(), 1);
        let got = pop_times(&w, 2); // the second pop shrinks back to 2 slots
        join_and_check(&w, got, [thief], 3);
    });
}
