//! loom models of caps (`crate::runtime::jobs::cap`): concurrent reservations never put more
//! threads inside a cap than its limit, and a spawn parked for want of room is never stranded: a
//! parker and a thread giving its place back race, and exactly one of them hands the job on.

use super::Reached;
use crate::runtime::jobs::cap::{CapId, Caps, Parked};
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

#[test]
fn reservations_never_exceed_the_limit() {
    // A cap of 2 whose starter is inside; two thieves reserve at once, run, and give back. At most
    // one of them is inside with the starter at any moment.
    let reached = Reached::default();
    let r = reached.clone();
    loom::model(move || {
        let caps = Arc::new(Caps::new());
        let cap = caps.start(2, CapId::NONE);
        let inside = Arc::new(AtomicUsize::new(1));
        let thieves: Vec<_> = (0..2)
            .map(|_| {
                let (caps, inside, r) = (caps.clone(), inside.clone(), r.clone());
                thread::spawn(move || {
                    if caps.reserve(cap, CapId::NONE).is_ok() {
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        assert!(now <= 2, "{now} threads inside a cap of 2");
                        inside.fetch_sub(1, Ordering::SeqCst);
                        caps.give_back(cap, CapId::NONE, &mut |_| unreachable!("nothing parked"));
                        r.note("admitted");
                    } else {
                        r.note("refused");
                    }
                })
            })
            .collect();
        for t in thieves {
            t.join().unwrap();
        }
        // The starter leaves; the cap is empty and reusable.
        caps.give_back(cap, CapId::NONE, &mut |_| unreachable!("nothing parked"));
        caps.unhold(cap);
        assert!(!caps.any_live());
    });
    reached.require(&["admitted", "refused"]);
}

#[test]
fn a_parked_spawn_is_never_stranded() {
    // A cap of 1 held by its starter. A spawn made under it starts on another thread, finds no
    // room and parks, while the starter gives its place back: whichever comes second hands the
    // job on (a lost hand-off leaves it parked, and the assertion fails).
    let reached = Reached::default();
    let r = reached.clone();
    loom::model(move || {
        let caps = Arc::new(Caps::new());
        let cap = caps.start(1, CapId::NONE);
        caps.hold(cap); // the spawn's hold
        let injected = Arc::new(AtomicUsize::new(0));
        let parked = Arc::new(AtomicUsize::new(0));
        let spawner = {
            let (caps, injected, r) = (caps.clone(), injected.clone(), r.clone());
            let parked = parked.clone();
            thread::spawn(move || match caps.reserve(cap, CapId::NONE) {
                Ok(()) => {
                    r.note("started at once");
                    caps.give_back(cap, CapId::NONE, &mut |_| unreachable!("nothing parked"));
                }
                Err(full) => {
                    parked.store(1, Ordering::SeqCst);
                    let job: Parked = Box::new(|| {});
                    caps.park(full, cap, job, &mut |_| {
                        injected.fetch_add(1, Ordering::SeqCst);
                        r.note("the parker handed it on");
                    });
                }
            })
        };
        let handed = {
            let injected = injected.clone();
            let r = r.clone();
            move |_: Parked| {
                injected.fetch_add(1, Ordering::SeqCst);
                r.note("the give-back handed it on");
            }
        };
        let mut handed = handed;
        caps.give_back(cap, CapId::NONE, &mut handed);
        spawner.join().unwrap();
        let n = injected.load(Ordering::SeqCst);
        if n == 1 {
            // The job runs holding the place, then gives it back.
            caps.give_back(cap, CapId::NONE, &mut |_| unreachable!("nothing parked"));
        } else {
            assert_eq!(n, 0, "a parked job handed on twice");
            assert_eq!(parked.load(Ordering::SeqCst), 0, "a parked job stranded");
        }
        caps.unhold(cap);
        caps.unhold(cap);
        assert!(!caps.any_live(), "a place or a job left in the cap");
    });
    reached.require(&[
        "started at once",
        "the parker handed it on",
        "the give-back handed it on",
    ]);
}
