//! Concurrent deque stress: more threads than cores, every item a unique id counted individually.
//!
//! `FORKJOIN_STRESS_DIV=N` divides the iteration counts (used to run these under valgrind).

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;

use forkjoin::deque::{Steal, Stealer, Worker};

/// Generous bound for a whole test: hitting it means a hang, reported as a failure.
const TIMEOUT: Duration = Duration::from_secs(120);

fn scaled(n: usize) -> usize {
    let div = std::env::var("FORKJOIN_STRESS_DIV")
        .ok()
        .map(|v| {
            v.parse::<usize>()
                .expect("FORKJOIN_STRESS_DIV must be a positive integer")
        })
        .unwrap_or(1)
        .max(1);
    (n / div).max(1)
}

/// One flag per id; `take` panics on a second delivery, `assert_all_once` on a missing one.
struct Ledger(Vec<AtomicU8>);

impl Ledger {
    fn new(n: usize) -> Self {
        Ledger((0..n).map(|_| AtomicU8::new(0)).collect())
    }
    fn take(&self, id: usize) {
        let prev = self.0[id].fetch_add(1, Ordering::Relaxed);
        assert_eq!(prev, 0, "item {id} delivered twice");
    }
    fn assert_all_once(&self) {
        for (id, c) in self.0.iter().enumerate() {
            assert_eq!(
                c.load(Ordering::Relaxed),
                1,
                "item {id} delivered {} times",
                c.load(Ordering::Relaxed)
            );
        }
    }
}

/// Runs `f` on `n` threads and waits for all of them, failing (not hanging) after `TIMEOUT`.
fn run_threads<F>(n: usize, f: F)
where
    F: Fn(usize) + Send + Sync + 'static,
{
    let f = Arc::new(f);
    let (tx, rx) = mpsc::channel();
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let (f, tx) = (Arc::clone(&f), tx.clone());
            thread::spawn(move || {
                f(i);
                tx.send(()).unwrap();
            })
        })
        .collect();
    for _ in 0..n {
        if rx.recv_timeout(TIMEOUT).is_err() {
            // A thread panicked (its sender dropped without sending) or hung.
            for h in handles {
                if h.is_finished() {
                    if let Err(e) = h.join() {
                        std::panic::resume_unwind(e);
                    }
                }
            }
            panic!("stress threads did not finish within {TIMEOUT:?}");
        }
    }
    for h in handles {
        h.join().unwrap();
    }
}

/// Waits until `ready()`: spins briefly before each `sched_yield`, so that a partner running on the
/// other core is met without yielding. With other processes runnable, a yield gives up a whole
/// time slice: 100,000 lockstep rounds of pure yields outlasted the watchdog on a loaded 2-core
/// machine (0.4 s when it is idle).
fn wait_until(ready: impl Fn() -> bool) {
    while !ready() {
        for _ in 0..256 {
            if ready() {
                return;
            }
            std::hint::spin_loop();
        }
        thread::yield_now();
    }
}

/// Thieves steal until `done` is set and the deque is empty; every id goes to the ledger.
fn thief_loop(s: &Stealer<usize>, done: &AtomicBool, ledger: &Ledger) -> usize {
    let mut got = 0;
    loop {
        match s.steal() {
            Steal::Success(id) => {
                ledger.take(id);
                got += 1;
            }
            Steal::Retry => {}
            Steal::Empty => {
                // Acquire: pairs with the owner's Release store after its final pops.
                if done.load(Ordering::Acquire) && s.is_empty() {
                    return got;
                }
                thread::yield_now();
            }
        }
    }
}

/// One owner mixing pushes and pops, four thieves (five threads on two cores).
#[test]
fn owner_mixes_push_pop_while_thieves_steal() {
    let n = scaled(400_000);
    let thieves = 4;
    let ledger = Arc::new(Ledger::new(n));
    let done = Arc::new(AtomicBool::new(false));
    let w = Worker::new();
    let s = w.stealer();
    let stolen = Arc::new(AtomicUsize::new(0));
    let owner = {
        let (ledger, done) = (Arc::clone(&ledger), Arc::clone(&done));
        move || {
            let mut rng = 0x2545_f491_4f6c_dd1du64;
            let mut next = 0;
            while next < n {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let pushes = 1 + (rng % 5) as usize;
                for _ in 0..pushes.min(n - next) {
                    w.push(next);
                    next += 1;
                }
                for _ in 0..(rng >> 8) % 4 {
                    if let Some(id) = w.pop() {
                        ledger.take(id);
                    }
                }
            }
            while let Some(id) = w.pop() {
                ledger.take(id);
            }
            // Release: pairs with the thieves' Acquire load; the deque is empty for good now.
            done.store(true, Ordering::Release);
        }
    };
    let owner = std::sync::Mutex::new(Some(owner));
    let (ledger2, stolen2) = (Arc::clone(&ledger), Arc::clone(&stolen));
    run_threads(thieves + 1, move |i| {
        if i == 0 {
            (owner.lock().unwrap().take().unwrap())();
        } else {
            let got = thief_loop(&s, &done, &ledger2);
            stolen2.fetch_add(got, Ordering::Relaxed);
        }
    });
    ledger.assert_all_once();
    // On a loaded 2-core box thieves may steal little; the ledger above is the real check.
    eprintln!(
        "stolen by thieves: {} of {n}",
        stolen.load(Ordering::Relaxed)
    );
}

/// The owner pops the only item while two thieves steal it, round after round: exactly one wins.
#[test]
fn last_item_race_repeated() {
    let rounds = scaled(100_000);
    let thieves = 2;
    let w = Worker::new();
    let s = w.stealer();
    let round = Arc::new(AtomicUsize::new(0));
    let acks = Arc::new(AtomicUsize::new(0));
    let winners: Arc<Vec<AtomicU8>> = Arc::new((0..rounds).map(|_| AtomicU8::new(0)).collect());
    let owner = {
        let (round, acks, winners) = (Arc::clone(&round), Arc::clone(&acks), Arc::clone(&winners));
        move || {
            for r in 0..rounds {
                w.push(r);
                // Release: pairs with the thieves' Acquire load of `round`; the race starts now.
                round.store(r + 1, Ordering::Release);
                if let Some(id) = w.pop() {
                    assert_eq!(id, r);
                    winners[r].fetch_add(1, Ordering::Relaxed);
                }
                // Acquire: pairs with the thieves' Release increments: they are done with round r.
                wait_until(|| acks.load(Ordering::Acquire) >= thieves * (r + 1));
                assert!(w.is_empty(), "round {r}: item left behind");
            }
        }
    };
    let owner = std::sync::Mutex::new(Some(owner));
    let (round2, acks2, winners2) = (Arc::clone(&round), Arc::clone(&acks), Arc::clone(&winners));
    run_threads(thieves + 1, move |i| {
        if i == 0 {
            (owner.lock().unwrap().take().unwrap())();
            return;
        }
        for r in 0..rounds {
            wait_until(|| round2.load(Ordering::Acquire) > r);
            loop {
                match s.steal() {
                    Steal::Success(id) => {
                        assert_eq!(id, r, "stole an item from another round");
                        winners2[r].fetch_add(1, Ordering::Relaxed);
                        break;
                    }
                    Steal::Empty => break,
                    Steal::Retry => {}
                }
            }
            // Release: pairs with the owner's Acquire wait; our steal of round r is finished.
            acks2.fetch_add(1, Ordering::Release);
        }
    });
    for (r, c) in winners.iter().enumerate() {
        assert_eq!(
            c.load(Ordering::Relaxed),
            1,
            "round {r}: item taken {} times",
            c.load(Ordering::Relaxed)
        );
    }
}

/// Bursts of up to a million items make the buffer grow to 2^20 slots and shrink back while three
/// thieves steal throughout.
#[test]
fn resize_under_concurrent_steals() {
    let total = scaled(1 << 20);
    let thieves = 3;
    let ledger = Arc::new(Ledger::new(total * 2));
    let done = Arc::new(AtomicBool::new(false));
    let w = Worker::new();
    let s = w.stealer();
    let owner = {
        let (ledger, done) = (Arc::clone(&ledger), Arc::clone(&done));
        move || {
            let mut next = 0;
            // Burst 1: push everything, then pop half of what is left (shrinks repeatedly).
            // Burst 2: many small grow/shrink cycles.
            while next < total {
                w.push(next);
                next += 1;
            }
            for _ in 0..w.len() / 2 {
                if let Some(id) = w.pop() {
                    ledger.take(id);
                }
            }
            let mut burst = 64;
            while next < total * 2 {
                for _ in 0..burst.min(total * 2 - next) {
                    w.push(next);
                    next += 1;
                }
                while let Some(id) = w.pop() {
                    ledger.take(id);
                }
                burst = if burst >= 8192 { 64 } else { burst * 2 };
            }
            while let Some(id) = w.pop() {
                ledger.take(id);
            }
            // Release: pairs with the thieves' Acquire load of `done`.
            done.store(true, Ordering::Release);
        }
    };
    let owner = std::sync::Mutex::new(Some(owner));
    let ledger2 = Arc::clone(&ledger);
    run_threads(thieves + 1, move |i| {
        if i == 0 {
            (owner.lock().unwrap().take().unwrap())();
        } else {
            thief_loop(&s, &done, &ledger2);
        }
    });
    ledger.assert_all_once();
}

/// Items with heap payloads: a double delivery would double free, a lost one would leak (valgrind).
#[test]
fn boxed_items_under_contention() {
    let n = scaled(100_000);
    let w = Worker::new();
    let s = w.stealer();
    let ledger = Arc::new(Ledger::new(n));
    let done = Arc::new(AtomicBool::new(false));
    let owner = {
        let (ledger, done) = (Arc::clone(&ledger), Arc::clone(&done));
        move || {
            for id in 0..n {
                w.push(Box::new(id));
                if id % 3 == 0 {
                    if let Some(b) = w.pop() {
                        ledger.take(*b);
                    }
                }
            }
            while let Some(b) = w.pop() {
                ledger.take(*b);
            }
            // Release: pairs with the thieves' Acquire load of `done`.
            done.store(true, Ordering::Release);
        }
    };
    let owner = std::sync::Mutex::new(Some(owner));
    let ledger2 = Arc::clone(&ledger);
    run_threads(4, move |i| {
        if i == 0 {
            (owner.lock().unwrap().take().unwrap())();
            return;
        }
        loop {
            match s.steal() {
                Steal::Success(b) => ledger2.take(*b),
                Steal::Retry => {}
                Steal::Empty => {
                    // Acquire: pairs with the owner's Release store of `done`.
                    if done.load(Ordering::Acquire) && s.is_empty() {
                        return;
                    }
                    thread::yield_now();
                }
            }
        }
    });
    ledger.assert_all_once();
}
