//! The Chase-Lev deque alone under shuttle, with plain integers as items (so a duplicated or lost
//! item is an assertion, never memory corruption): an owner pushing and popping against several
//! thieves, through buffer growth.
#![cfg(forkjoin_shuttle)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use forkjoin::deque::{Steal, Worker};
use sim_tests::{explore, schedules};

fn deque_on(thieves: usize, items: u64, default_schedules: usize) {
    explore(
        "deque",
        thieves + 1,
        schedules(default_schedules),
        move || {
            let owner = Worker::new();
            let taken = Arc::new(Mutex::new(Vec::new()));
            let done = Arc::new(AtomicBool::new(false));
            let handles: Vec<_> = (0..thieves)
                .map(|_| {
                    let (stealer, taken, done) = (owner.stealer(), taken.clone(), done.clone());
                    shuttle::thread::spawn(move || loop {
                        match stealer.steal() {
                            Steal::Success(item) => taken.lock().unwrap().push(item),
                            Steal::Retry => {}
                            Steal::Empty if done.load(Ordering::SeqCst) => break,
                            Steal::Empty => shuttle::thread::yield_now(),
                        }
                    })
                })
                .collect();
            // Push in bursts (growing the buffer), popping back one item of every three.
            for i in 0..items {
                owner.push(i);
                if i % 3 == 2 {
                    if let Some(item) = owner.pop() {
                        taken.lock().unwrap().push(item);
                    }
                }
            }
            while let Some(item) = owner.pop() {
                taken.lock().unwrap().push(item);
            }
            done.store(true, Ordering::SeqCst);
            for h in handles {
                h.join().unwrap();
            }
            let mut taken = std::mem::take(&mut *taken.lock().unwrap());
            taken.sort_unstable();
            assert_eq!(
                taken,
                (0..items).collect::<Vec<_>>(),
                "every item taken exactly once"
            );
        },
    );
}

#[test]
fn deque_2() {
    deque_on(1, 40, 1000);
}

#[test]
fn deque_4() {
    deque_on(3, 40, 1000);
}

#[test]
fn deque_8() {
    deque_on(7, 64, 1000);
}
