//! loom models of the Chase-Lev deque (minimum capacity 2 under loom, so growth, shrinking and
//! wrap-around are reached in a few operations). Every model asserts exactly-once delivery: the
//! items taken by all threads plus those drained at the end are exactly the items pushed.
#![cfg(forkjoin_loom)]

use forkjoin::__loom::{Collector, Reclaimer};
use forkjoin::deque::{Steal, Stealer, Worker};
use loom::thread;

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

#[test]
fn owner_pop_vs_thief_on_last_item() {
    loom::model(|| {
        let w = Worker::new();
        w.push(0);
        let thief = spawn_thief(w.stealer(), 1);
        let mut got: Vec<usize> = w.pop().into_iter().collect();
        got.extend(thief.join().unwrap());
        assert_eq!(got.len(), 1, "the last item must go to exactly one side");
        assert_exactly_once(&w, got, 1);
    });
}

#[test]
fn two_thieves_vs_owner() {
    loom::model(|| {
        let w = Worker::new();
        w.push(0);
        w.push(1);
        let a = spawn_thief(w.stealer(), 1);
        let b = spawn_thief(w.stealer(), 1);
        let mut got: Vec<usize> = w.pop().into_iter().collect();
        got.extend(a.join().unwrap());
        got.extend(b.join().unwrap());
        assert_exactly_once(&w, got, 2);
    });
}

#[test]
fn thief_sees_items_pushed_after_it_started() {
    loom::model(|| {
        let w = Worker::new();
        let thief = spawn_thief(w.stealer(), 2);
        w.push(0);
        w.push(1);
        w.push(2); // grows while the thief may be reading
        let mut got: Vec<usize> = w.pop().into_iter().collect();
        got.extend(thief.join().unwrap());
        assert_exactly_once(&w, got, 3);
    });
}

#[test]
fn two_thieves_see_items_pushed_after_they_started() {
    loom::model(|| {
        let w = Worker::new();
        let a = spawn_thief(w.stealer(), 2);
        let b = spawn_thief(w.stealer(), 1);
        w.push(0);
        w.push(1);
        w.push(2);
        let mut got: Vec<usize> = a.join().unwrap();
        got.extend(b.join().unwrap());
        assert_exactly_once(&w, got, 3);
    });
}

#[test]
fn push_grows_while_thief_steals() {
    loom::model(|| {
        let w = Worker::new();
        w.push(0);
        w.push(1); // full at capacity 2
        let thief = spawn_thief(w.stealer(), 2);
        w.push(2); // grows to 4 unless the thief already freed a slot (then wraps around)
        w.push(3);
        let mut got: Vec<usize> = w.pop().into_iter().collect();
        got.extend(thief.join().unwrap());
        assert_exactly_once(&w, got, 4);
    });
}

#[test]
fn pop_shrinks_while_thief_steals() {
    loom::model(|| {
        let w = Worker::new();
        for i in 0..3 {
            w.push(i); // capacity 4
        }
        let thief = spawn_thief(w.stealer(), 1);
        // The second pop leaves at most one item in four slots: shrinks back to 2.
        let mut got: Vec<usize> = w.pop().into_iter().collect();
        got.extend(w.pop());
        got.extend(thief.join().unwrap());
        assert_exactly_once(&w, got, 3);
    });
}

#[test]
fn wrap_around_reuses_slots_after_steals() {
    loom::model(|| {
        let w = Worker::new();
        w.push(0);
        w.push(1);
        let thief = spawn_thief(w.stealer(), 1);
        let mut got: Vec<usize> = w.pop().into_iter().collect(); // takes 1 (or races for 0)
        w.push(2); // may land in the slot the thief is reading
        w.push(3);
        got.extend(thief.join().unwrap());
        assert_exactly_once(&w, got, 4);
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
        w.push(0);
        w.push(1);
        let thief = spawn_thief(w.stealer(), 1);
        w.push(2); // grows: the old buffer is retired to the model's own collector
        let mut got: Vec<usize> = w.pop().into_iter().collect();
        got.extend(thief.join().unwrap());
        assert_exactly_once(&w, got, 3);
    });
}

#[test]
fn two_thieves_while_owner_grows_and_pops() {
    loom::model(|| {
        let w = Worker::new();
        w.push(0);
        w.push(1);
        let a = spawn_thief(w.stealer(), 1);
        let b = spawn_thief(w.stealer(), 1);
        w.push(2);
        w.push(3);
        let mut got: Vec<usize> = w.pop().into_iter().collect();
        got.extend(w.pop());
        got.extend(a.join().unwrap());
        got.extend(b.join().unwrap());
        assert_exactly_once(&w, got, 4);
    });
}

#[test]
fn epoch_collector_reclaims_shrunk_buffer() {
    loom::model(|| {
        let w = Worker::with_reclaimer(Reclaimer::epoch(Collector::new()));
        for i in 0..3 {
            w.push(i); // capacity 4 (the 2-slot buffer is retired on the way)
        }
        let thief = spawn_thief(w.stealer(), 1);
        let mut got: Vec<usize> = w.pop().into_iter().collect();
        got.extend(w.pop()); // shrinks back to 2 slots
        got.extend(thief.join().unwrap());
        assert_exactly_once(&w, got, 3);
    });
}
