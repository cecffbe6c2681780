//! loom models of the sleep protocol: new work published while a worker goes idle → sleepy → asleep.
//! The work is a Relaxed flag (so only the protocol's own fences can make it visible); a lost wake-up
//! is a loom deadlock (the worker blocks forever on its futex stand-in).

use crate::runtime::jobs::latch::CoreLatch;
use crate::runtime::sleep::{Idled, Sleep, SleepMode};
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

/// Counts all `n` workers of `sleep` idle, so their sleeps have no patrol timeout: a lost wake-up
/// is then a loom deadlock instead of being hidden by a timeout (which loom fires at once).
fn all_idle(sleep: Sleep) -> Sleep {
    let n = sleep.num_threads();
    sleep.idle_workers().fetch_add(n, Ordering::Relaxed);
    sleep
}

/// An idle worker's loop: search (the flag), else go through the idle rounds; returns once it found
/// the work.
fn worker(sleep: &Sleep, index: usize, work: &AtomicBool) {
    let never_set = CoreLatch::new();
    let mut idle = sleep.start_looking(index);
    loop {
        // Relaxed: the sleep protocol's fences must order this against the publisher.
        if work.swap(false, Ordering::Relaxed) {
            // Nothing else to pass on (rule 12).
            sleep.stop_searching(&mut idle);
            return;
        }
        match sleep.no_work_found(&mut idle, || never_set.try_sleep(), || false) {
            Idled::Waited => {}
            Idled::Aborted | Idled::Slept | Idled::TimedOut => never_set.wake_up(),
        }
    }
}

#[test]
fn new_work_vs_falling_asleep() {
    loom::model(|| {
        let sleep = Arc::new(all_idle(Sleep::new(1)));
        let work = Arc::new(AtomicBool::new(false));
        let (s2, w2) = (sleep.clone(), work.clone());
        let publisher = thread::spawn(move || {
            // Relaxed: `new_jobs`' fence is what must make this visible to a sleepy worker. An RMW rather
            // than a store: loom's vector-clock modification order would otherwise let the worker's
            // later swaps read around this write, which real hardware cannot do.
            w2.swap(true, Ordering::Relaxed);
            s2.new_jobs();
        });
        worker(&sleep, 0, &work);
        publisher.join().unwrap();
    });
}

#[test]
fn two_jobs_two_idle_workers() {
    // Two idle workers, two jobs published one after the other: each worker must end up with one job.
    // A worker left asleep with a job still queued shows up as a loom deadlock.
    loom::model(|| {
        let sleep = Arc::new(all_idle(Sleep::new(2)));
        let jobs = Arc::new(AtomicUsize::new(0));
        let (s2, j2) = (sleep.clone(), jobs.clone());
        let publisher = thread::spawn(move || {
            for _ in 0..2 {
                // Relaxed RMW: only the protocol's fences order it (see above).
                j2.fetch_add(1, Ordering::Relaxed);
                s2.new_jobs();
            }
        });
        let (s3, j3) = (sleep.clone(), jobs.clone());
        let other = thread::spawn(move || take_one(&s3, 1, &j3));
        take_one(&sleep, 0, &jobs);
        publisher.join().unwrap();
        other.join().unwrap();
        assert_eq!(jobs.load(Ordering::Relaxed), 0);
    });
}

/// Like `worker`, but takes one unit from a job counter.
fn take_one(sleep: &Sleep, index: usize, jobs: &AtomicUsize) {
    let never_set = CoreLatch::new();
    let mut idle = sleep.start_looking(index);
    loop {
        let took = jobs
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok();
        if took {
            // Back with a job after idling: announce what is left (rules 6 and 12), as the
            // pool's workers do; a publication that counted on us as a searcher woke nobody.
            // Relaxed: after `stop_searching`'s fence.
            sleep.stop_searching(&mut idle);
            if idle.has_idled() && jobs.load(Ordering::Relaxed) != 0 {
                sleep.announce_visible_work(index);
            }
            return;
        }
        match sleep.no_work_found(&mut idle, || never_set.try_sleep(), || false) {
            Idled::Waited => {}
            Idled::Aborted | Idled::Slept | Idled::TimedOut => never_set.wake_up(),
        }
    }
}

#[test]
fn publication_wake_skips_a_guarded_sleeper() {
    // Worker 0 is past its stack guard (cannot steal) and may be asleep; worker 1 can steal. One job
    // is published: the wake must reach worker 1 (a wake spent on worker 0 would leave worker 1 asleep
    // forever: a loom deadlock). Worker 0 leaves when its latch is set at the end.
    loom::model(|| {
        let sleep: &'static Arc<Sleep> = Box::leak(Box::new(Arc::new(all_idle(Sleep::new(2)))));
        let jobs = Arc::new(AtomicUsize::new(0));
        let latch0 = Arc::new(CoreLatch::new());
        let (l0, s0) = (latch0.clone(), sleep);
        let guarded = thread::spawn(move || {
            let mut idle = s0.start_looking_as(0, SleepMode::Guarded);
            while !l0.probe() {
                match s0.no_work_found(&mut idle, || l0.try_sleep(), || false) {
                    Idled::Waited => {}
                    Idled::Aborted | Idled::Slept | Idled::TimedOut => l0.wake_up(),
                }
            }
        });
        let (s1, j1) = (sleep, jobs.clone());
        let stealer = thread::spawn(move || take_one(s1, 1, &j1));
        // Relaxed RMW: only the protocol's fences order it (see `new_work_vs_falling_asleep`).
        jobs.fetch_add(1, Ordering::Relaxed);
        sleep.new_jobs();
        stealer.join().unwrap();
        // Set worker 0's latch and wake it the way `SpinLatch::set` does.
        if latch0.set_owned_for_tests() {
            sleep.notify_worker_latch_is_set(0);
        }
        guarded.join().unwrap();
        // SAFETY: leaked above; no thread uses it any more.
        drop(unsafe { Box::from_raw(sleep as *const Arc<Sleep> as *mut Arc<Sleep>) });
    });
}

#[test]
fn leaving_the_idle_count_vs_an_untimed_sleep() {
    // Both workers idle. Worker 1 leaves the idle count (it found a job) and pushes a job, which it
    // publishes at once only if `leave_idle` saw a worker asleep without a patrol timeout; otherwise
    // the job stays private, where only a patrol finds it. Worker 0 goes to sleep, untimed only if it
    // still sees both workers idle. Either worker 1 sees the untimed sleeper and publishes (waking
    // it), or worker 0 sleeps with a patrol timeout (loom fires it at once) and takes the private job
    // on patrol. A job left private while worker 0 sleeps untimed is a loom deadlock.
    loom::model(|| {
        let sleep = Arc::new(all_idle(Sleep::new(2)));
        let public = Arc::new(AtomicBool::new(false));
        let private = Arc::new(AtomicBool::new(false));
        let (s1, public1, private1) = (sleep.clone(), public.clone(), private.clone());
        let leaver = thread::spawn(move || {
            if s1.leave_idle() {
                // Relaxed: `new_jobs`' fence publishes it (an RMW, see `new_work_vs_falling_asleep`).
                public1.swap(true, Ordering::Relaxed);
                s1.new_jobs();
            } else {
                // Relaxed: a patrol's heavy steal finds it (modelled by the RMW below).
                private1.swap(true, Ordering::Relaxed);
            }
        });
        let never_set = CoreLatch::new();
        let mut idle = sleep.start_looking(0);
        loop {
            // Relaxed: the protocol's fences (or the patrol) must make the job visible. There is
            // one job: nothing to pass on once it is taken.
            if public.swap(false, Ordering::Relaxed) {
                sleep.stop_searching(&mut idle);
                break;
            }
            if idle.take_patrol_due() && private.swap(false, Ordering::Relaxed) {
                sleep.stop_searching(&mut idle);
                break;
            }
            match sleep.no_work_found(&mut idle, || never_set.try_sleep(), || false) {
                Idled::Waited => {}
                Idled::Aborted | Idled::Slept => never_set.wake_up(),
                Idled::TimedOut => {
                    never_set.wake_up();
                    // The timeout fired at once (loom has no time): let the leaver run, or the
                    // model would spin through patrols without it.
                    thread::yield_now();
                }
            }
        }
        leaver.join().unwrap();
    });
}

#[test]
fn a_wake_refused_by_a_waiting_worker_reaches_an_idle_one() {
    // Worker 0 waits for a job of its own (it sleeps as `Waiting`) and refuses the one published;
    // worker 1 is idle and takes anything. The publication's wake may reach worker 0 first (when
    // worker 1 is not asleep yet it is the only sleeper); worker 0 must then pass it to an idle
    // sleeper (rule 7). A wake that stopped at worker 0 leaves worker 1 asleep with the job
    // queued: a loom deadlock. Worker 0 leaves when its latch is set at the end.
    loom::model(|| {
        let sleep: &'static Arc<Sleep> = Box::leak(Box::new(Arc::new(all_idle(Sleep::new(2)))));
        let jobs = Arc::new(AtomicUsize::new(0));
        let latch0 = Arc::new(CoreLatch::new());
        let (l0, s0) = (latch0.clone(), sleep);
        let waiting = thread::spawn(move || {
            let mut idle = s0.start_looking_as(0, SleepMode::Waiting);
            while !l0.probe() {
                // A search here finds only the job it refuses.
                if idle.take_woken_for_work() {
                    s0.pass_wake_to_idle();
                }
                match s0.no_work_found(&mut idle, || l0.try_sleep(), || false) {
                    Idled::Waited => {}
                    Idled::Aborted | Idled::Slept | Idled::TimedOut => l0.wake_up(),
                }
            }
        });
        let (s1, j1) = (sleep, jobs.clone());
        let idle_worker = thread::spawn(move || take_one(s1, 1, &j1));
        // Relaxed RMW: only the protocol's fences order it (see `new_work_vs_falling_asleep`).
        jobs.fetch_add(1, Ordering::Relaxed);
        sleep.new_jobs();
        idle_worker.join().unwrap();
        if latch0.set_owned_for_tests() {
            sleep.notify_worker_latch_is_set(0);
        }
        waiting.join().unwrap();
        // SAFETY: leaked above; no thread uses it any more.
        drop(unsafe { Box::from_raw(sleep as *const Arc<Sleep> as *mut Arc<Sleep>) });
    });
}

#[test]
fn two_publications_reach_a_sleeper_in_the_maps_second_word() {
    // One idle worker, listed in the second word of the sleeper map (worker 65 of 66), and two
    // publishers that announce one job each, so two wakers race for the one sleeper: it must take
    // both jobs. A wake that misses the listed sleeper (a map word read before its bit was set
    // although the count was read after, or a word not read) leaves it asleep with a job queued:
    // a loom deadlock.
    loom::model(|| {
        let sleep = Arc::new(all_idle(Sleep::new(66)));
        let jobs = Arc::new(AtomicUsize::new(0));
        let publishers: Vec<_> = (0..2)
            .map(|_| {
                let (s, j) = (sleep.clone(), jobs.clone());
                thread::spawn(move || {
                    // Relaxed RMW: only the protocol's fences order it (see
                    // `new_work_vs_falling_asleep`).
                    j.fetch_add(1, Ordering::Relaxed);
                    s.new_jobs();
                })
            })
            .collect();
        take_one(&sleep, 65, &jobs);
        take_one(&sleep, 65, &jobs);
        for publisher in publishers {
            publisher.join().unwrap();
        }
    });
}

/// An idle flag after every update in flight is done: set exactly while the idle count is at
/// least `at` (`Sleep::enter_idle`, `Sleep::leave_idle`, `idle_flags`). `flag` picks the flag
/// (`at` 1: the idle flag, 2: the second idle flag) and `leave` is the way out of the count
/// under test.
fn idle_flag_model(at: usize, flag: fn(&Sleep) -> &AtomicBool, leave: fn(&Sleep)) {
    loom::model(move || {
        let sleep = Arc::new(Sleep::new(at + 2));
        // Worker 0 (and `at - 1` others that stay) idle; worker 0 leaves while worker 1 enters
        // (the count goes at → at - 1 → at or at → at + 1 → at), and worker 2 enters and leaves
        // meanwhile.
        for _ in 0..at {
            sleep.enter_idle();
        }
        let s0 = sleep.clone();
        let leaver = thread::spawn(move || leave(&s0));
        let s2 = sleep.clone();
        let passer = thread::spawn(move || {
            s2.enter_idle();
            leave(&s2);
        });
        sleep.enter_idle();
        leaver.join().unwrap();
        passer.join().unwrap();
        assert_eq!(sleep.idle_workers().load(Ordering::SeqCst), at);
        assert!(
            flag(&sleep).load(Ordering::SeqCst),
            "{at} workers idle but the idle flag is clear"
        );
    });
}

#[test]
fn the_idle_flag_follows_the_count() {
    idle_flag_model(1, Sleep::some_idle, |sleep| {
        sleep.leave_idle();
    });
}

#[test]
fn the_second_idle_flag_follows_the_count() {
    idle_flag_model(2, Sleep::several_idle, |sleep| {
        sleep.leave_idle();
    });
}

/// The broken variant: a leave that clears the flag with threshold `AT` (1: the idle flag, 2:
/// the second one) without reading the count again loses an enter whose set came first.
fn leave_without_re_read<const AT: usize>(sleep: &Sleep) {
    if sleep.idle_workers().fetch_sub(1, Ordering::SeqCst) == AT {
        let flag = if AT == 1 {
            sleep.some_idle()
        } else {
            sleep.several_idle()
        };
        flag.store(false, Ordering::SeqCst);
    }
}

#[test]
#[should_panic(expected = "the idle flag is clear")]
fn the_idle_flag_without_the_leaves_re_read_goes_stale() {
    idle_flag_model(1, Sleep::some_idle, leave_without_re_read::<1>);
}

#[test]
#[should_panic(expected = "the idle flag is clear")]
fn the_second_idle_flag_without_the_leaves_re_read_goes_stale() {
    idle_flag_model(2, Sleep::several_idle, leave_without_re_read::<2>);
}

/// An idle worker (`SleepMode::Idle`) that takes one unit of `jobs` or leaves when `latch` is
/// set; true if it took one. Either way, with `pass_on` it leaves the searchers as the pool's
/// workers do (rule 12): work still visible is announced again.
fn take_one_or_leave(
    sleep: &Sleep,
    index: usize,
    jobs: &AtomicUsize,
    latch: &CoreLatch,
    pass_on: bool,
) -> bool {
    let mut idle = sleep.start_looking(index);
    let took = loop {
        if jobs
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
        {
            break true;
        }
        if latch.probe() {
            break false;
        }
        match sleep.no_work_found(&mut idle, || latch.try_sleep(), || false) {
            Idled::Waited => {}
            Idled::Aborted | Idled::Slept | Idled::TimedOut => latch.wake_up(),
        }
    };
    // As the pool's workers: back with a job after idling, or through the latch while counted
    // (`WorkerThread::stop_searching_and_pass_on`). Relaxed: after `stop_searching`'s fence.
    // Without `pass_on` it only uncounts.
    let was_searching = sleep.stop_searching(&mut idle);
    let owes = if took {
        idle.has_idled()
    } else {
        was_searching
    };
    if owes && pass_on && jobs.load(Ordering::Relaxed) != 0 {
        sleep.announce_visible_work(index);
    }
    took
}

/// Two idle workers; one job is published while worker 0 may be searching, which lets the
/// publication wake nobody, and then worker 0's latch is set, so it may leave without the job.
/// Worker 1 must get the job then: worker 0 announces it again as it leaves the searchers. A job
/// left while worker 1 sleeps is a loom deadlock.
///
/// Without the pass-on (`take_one_or_leave`'s `pass_on` false) loom finds the deadlock; a
/// deadlocked loom model aborts the test process, so that variant is no test here (the
/// simulation's broken variant `searcher_uncounted_late` is the self-check, `scripts/sim-bugs.sh`).
fn searcher_leaves_through_its_latch(pass_on: bool) {
    loom::model(move || {
        let sleep: &'static Arc<Sleep> = Box::leak(Box::new(Arc::new(all_idle(Sleep::new(2)))));
        let jobs = Arc::new(AtomicUsize::new(0));
        let latches: Vec<Arc<CoreLatch>> = (0..2).map(|_| Arc::new(CoreLatch::new())).collect();
        let workers: Vec<_> = (0..2)
            .map(|index| {
                let (j, l) = (jobs.clone(), latches[index].clone());
                thread::spawn(move || take_one_or_leave(sleep, index, &j, &l, pass_on))
            })
            .collect();
        // Relaxed RMW: only the protocol's fences order it (see `new_work_vs_falling_asleep`).
        jobs.fetch_add(1, Ordering::Relaxed);
        sleep.new_jobs();
        if latches[0].set_owned_for_tests() {
            sleep.notify_worker_latch_is_set(0);
        }
        let mut workers = workers.into_iter();
        let first_took = workers.next().unwrap().join().unwrap();
        if first_took && latches[1].set_owned_for_tests() {
            sleep.notify_worker_latch_is_set(1);
        }
        let second_took = workers.next().unwrap().join().unwrap();
        assert!(first_took != second_took, "the job ran twice or never");
        // SAFETY: leaked above; no thread uses it any more.
        drop(unsafe { Box::from_raw(sleep as *const Arc<Sleep> as *mut Arc<Sleep>) });
    });
}

#[test]
fn a_searcher_that_leaves_through_its_latch_passes_the_job_on() {
    searcher_leaves_through_its_latch(true);
}
