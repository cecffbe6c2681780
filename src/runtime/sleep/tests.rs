//! Unit tests of the sleep protocol on real threads: wakes, aborts, the searching count.

use super::*;
use crate::platform::clock::Instant;
use crate::platform::sync::for_tests::{mpsc, thread, Arc, AtomicBool};
use std::time::Duration;

/// Drives one "worker" through the idle rounds until it sleeps or aborts.
fn idle_until_done(sleep: &Sleep, index: usize, has_work: &AtomicBool) -> Idled {
    let mut idle = sleep.start_looking(index);
    loop {
        if has_work.load(Ordering::SeqCst) {
            return Idled::Aborted;
        }
        match sleep.no_work_found(&mut idle, || true, || false) {
            Idled::Waited => continue,
            other => return other,
        }
    }
}

/// Polls `done` (yielding) until it holds; fails the test after 60 s instead of hanging.
fn wait_for(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        thread::yield_now();
    }
}

#[test]
fn new_jobs_wakes_a_sleeper() {
    let sleep = Arc::new(Sleep::new(1));
    // The pool's only worker counted idle: its sleep has no patrol timeout (nobody is busy), so
    // only a wake ends it.
    sleep.idle_workers().fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = mpsc::channel();
    let s2 = sleep.clone();
    let (tid_tx, tid_rx) = mpsc::channel();
    let t = thread::spawn(move || {
        #[cfg(target_os = "linux")]
        // SAFETY: a plain syscall without arguments.
        tid_tx.send(unsafe { libc::gettid() }).unwrap();
        #[cfg(not(target_os = "linux"))]
        drop(tid_tx);
        let mut idle = s2.start_looking(0);
        let r = loop {
            match s2.no_work_found(&mut idle, || true, || false) {
                Idled::Waited => continue,
                other => break other,
            }
        };
        tx.send((r, idle.take_woken_for_work())).unwrap();
    });
    // Wait until the sleeper is counted asleep (its fall-asleep CAS is done): from then on only
    // a wake lets it return, and `new_jobs` must find it.
    wait_for("the worker never fell asleep", || sleep.num_sleeping() == 1);
    // On Linux, also until it blocks on its futex (state S: nothing else blocks once it is
    // counted), so the wake must really go through the futex.
    if let Ok(tid) = tid_rx.recv() {
        let stat = format!("/proc/self/task/{tid}/stat");
        if std::fs::metadata(&stat).is_ok() {
            wait_for("the worker never blocked", || {
                std::fs::read_to_string(&stat)
                    .ok()
                    .and_then(|s| s.rsplit(") ").next().map(|r| r.starts_with('S')))
                    .unwrap_or(false)
            });
        } else {
            eprintln!("note: no {stat}: the wake may find the worker not yet blocked");
        }
    }
    assert_eq!(sleep.wakeups_of(0), 0, "woken before any job was announced");
    assert_eq!(sleep.new_jobs(), Some(0), "new_jobs woke nobody");
    let (r, woken_for_work) = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("lost wake-up: the sleeper never returned");
    assert_eq!(r, Idled::Slept);
    assert!(
        woken_for_work,
        "the sleeper does not know it was woken for work"
    );
    assert_eq!(sleep.wakeups_of(0), 1);
    t.join().unwrap();
    assert_eq!(sleep.num_sleeping(), 0);
}

/// Whatever phase the sleeper is in when the work shows up (spinning, sleepy, falling asleep,
/// asleep), publishing then announcing brings it back.
#[test]
fn new_jobs_in_any_phase_brings_the_idler_back() {
    let sleep = Arc::new(Sleep::new(1));
    sleep.idle_workers().fetch_add(1, Ordering::Relaxed);
    let work = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let (s2, w2) = (sleep.clone(), work.clone());
    let t = thread::spawn(move || {
        let r = idle_until_done(&s2, 0, &w2);
        tx.send(r).unwrap();
    });
    work.store(true, Ordering::SeqCst);
    sleep.new_jobs();
    let r = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("lost wake-up");
    assert!(r == Idled::Slept || r == Idled::Aborted, "{r:?}");
    t.join().unwrap();
    assert_eq!(sleep.num_sleeping(), 0);
}

#[test]
fn an_idle_worker_counts_as_searching_only_while_awake() {
    let sleep = Sleep::new(3);
    // Counts a sleeper the way the fall-asleep step does (without blocking a thread).
    let add_sleeper = || loop {
        let c = sleep.counters.load(Ordering::SeqCst);
        let more = c.with_one_more_sleeper();
        if sleep
            .counters
            .compare_exchange_weak(c, more, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            break;
        }
    };
    assert_eq!(sleep.searching_workers(), 0, "nobody idle");
    sleep.idle_workers().fetch_add(2, Ordering::Relaxed);
    assert_eq!(sleep.searching_workers(), 2, "two idle, none asleep");
    add_sleeper();
    assert_eq!(sleep.searching_workers(), 1, "two idle, one of them awake");
    add_sleeper();
    assert_eq!(sleep.searching_workers(), 0, "both idle ones asleep");
    sleep.counters.remove_sleeper(Ordering::SeqCst);
    assert_eq!(sleep.searching_workers(), 1, "one woke up");
    // A sleeper past its stack guard is counted asleep but not idle: it hides an awake one
    // (documented: a hint).
    sleep.idle_workers().fetch_sub(1, Ordering::Relaxed);
    assert_eq!(sleep.searching_workers(), 0);
}

#[test]
fn announce_then_new_jobs_aborts_the_fall_asleep() {
    let sleep = Sleep::new(1);
    let mut idle = sleep.start_looking(0);
    while idle.rounds <= ROUNDS_UNTIL_SLEEPY {
        assert_eq!(
            sleep.no_work_found(&mut idle, || true, || false),
            Idled::Waited
        );
    }
    sleep.new_jobs(); // JEC moves on: the sleep attempt must not block
    assert_eq!(
        sleep.no_work_found(&mut idle, || true, || false),
        Idled::Aborted
    );
    assert_eq!(sleep.num_sleeping(), 0);
}

#[test]
fn latch_refusal_and_injected_jobs_prevent_sleep() {
    let sleep = Sleep::new(1);
    for (latch_ok, injected) in [(false, false), (true, true)] {
        let mut idle = sleep.start_looking(0);
        while idle.rounds <= ROUNDS_UNTIL_SLEEPY {
            sleep.no_work_found(&mut idle, || true, || false);
        }
        assert_eq!(
            sleep.no_work_found(&mut idle, || latch_ok, || injected),
            Idled::Aborted
        );
        assert_eq!(sleep.num_sleeping(), 0);
    }
}

#[test]
fn targeted_wake_reaches_the_sleeper() {
    let sleep = Arc::new(Sleep::new(2));
    let (tx, rx) = mpsc::channel();
    let s2 = sleep.clone();
    let t = thread::spawn(move || {
        let never = AtomicBool::new(false);
        loop {
            if idle_until_done(&s2, 1, &never) == Idled::Slept {
                tx.send(()).unwrap();
                return;
            }
        }
    });
    // Keep poking until the thread has really slept and been woken by the targeted call (the poll
    // interval is not a synchronisation assumption: any interleaving ends with a received message).
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        sleep.notify_worker_latch_is_set(1);
        if rx.recv_timeout(Duration::from_millis(10)).is_ok() {
            break;
        }
        assert!(Instant::now() < deadline, "sleeper never woken");
    }
    t.join().unwrap();
}

#[test]
fn mostly_idle_means_more_than_half_of_the_pool() {
    let sleep = Sleep::new(4);
    assert!(!sleep.mostly_idle());
    sleep.idle_workers().fetch_add(2, Ordering::Relaxed);
    assert!(!sleep.mostly_idle(), "two of four is half, not more");
    sleep.idle_workers().fetch_add(1, Ordering::Relaxed);
    assert!(sleep.mostly_idle());
}

#[test]
fn the_idle_flags_follow_the_count_up_and_down() {
    let sleep = Sleep::new(4);
    let flags = |s: &Sleep| {
        (
            s.some_idle().load(Ordering::Relaxed),
            s.several_idle().load(Ordering::Relaxed),
        )
    };
    assert_eq!(flags(&sleep), (false, false));
    let expected = [(true, false), (true, true), (true, true)];
    for want in expected {
        sleep.enter_idle();
        assert_eq!(flags(&sleep), want);
    }
    for want in [(true, true), (true, false), (false, false)] {
        sleep.leave_idle();
        assert_eq!(flags(&sleep), want);
    }
}
