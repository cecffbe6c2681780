//! Unit tests of the private job stack (`super`): push, pop, publication and heavy steals.

use super::*;
use crate::platform::sync::heavy_barrier;
use crate::runtime::jobs::job::{Job, JobRef};

struct Dummy(u32);
impl Job for Dummy {
    unsafe fn execute(_this: *const Self) {}
}

fn job(d: &Dummy) -> JobRef {
    // SAFETY: never executed in these tests.
    unsafe { JobRef::new(d) }
}

/// A full-size stack for single-threaded tests (owner and "thief" on one thread need no barrier).
fn single_threaded_stack() -> JobStackOwner {
    JobStackOwner::with_limit(CAPACITY)
}

#[test]
fn a_stack_whose_light_barrier_is_unsound_refuses_every_push() {
    let s = JobStackOwner::with_limit(0);
    let d = Dummy(0);
    assert!(s.push(job(&d)).is_none());
    assert!(s.take_oldest().is_none());
    let _ = d.0;
}

#[test]
fn a_new_stack_is_usable_exactly_where_the_light_barrier_is_sound() {
    crate::platform::sync::init_asymmetric_barriers();
    let d = Dummy(0);
    let pushed = JobStackOwner::new().push(job(&d)).is_some();
    assert_eq!(pushed, crate::platform::sync::light_barrier_is_sound());
    let _ = d.0;
}

#[test]
fn top_packs_generation_and_index() {
    let t = Top::INITIAL.next().next();
    assert_eq!(t.index(), 2);
    let r = t.rewound();
    assert_eq!(r.index(), 0);
    assert_ne!(r, Top::INITIAL, "a rewind changes the generation");
    assert_eq!(r.next().index(), 1);
    assert_ne!(r.rewound(), r);
}

#[test]
fn owner_push_pop_lifo() {
    let s = single_threaded_stack();
    let (a, b) = (Dummy(1), Dummy(2));
    let pa = s.push(job(&a)).unwrap();
    let pb = s.push(job(&b)).unwrap();
    assert!(!s.pop(pa), "a is not the newest");
    assert!(s.pop(pb));
    assert!(s.pop(pa));
    assert!(s.is_empty());
    assert!(!s.pop(pa));
    assert_eq!(s.thief().popped(), 2);
}

#[test]
fn publication_takes_the_oldest_and_pop_sees_it_gone() {
    let s = single_threaded_stack();
    let (a, b) = (Dummy(1), Dummy(2));
    let pa = s.push(job(&a)).unwrap();
    let pb = s.push(job(&b)).unwrap();
    assert_eq!(s.take_oldest().unwrap().id(), job(&a).id());
    assert!(s.pop(pb));
    assert!(!s.pop(pa), "a was published");
    assert!(s.take_oldest().is_none());
}

#[test]
fn heavy_steal_takes_the_oldest_and_rewinds() {
    let s = single_threaded_stack();
    // The "thief" runs on the same thread here.
    let thief = s.thief();
    let (a, b) = (Dummy(1), Dummy(2));
    let pa = s.push(job(&a)).unwrap();
    let ticket = thief.top_before_barrier();
    let pre_rewind_top = ticket.top;
    heavy_barrier();
    assert_eq!(
        thief.steal_after_barrier(ticket).unwrap().id(),
        job(&a).id()
    );
    assert_eq!(
        s.stack.heavy_thieves.load(Ordering::Relaxed),
        0,
        "ticket uncounted"
    );
    // a stolen: its pop fails and the stack rewinds to reuse slot 0.
    assert!(!s.pop(pa));
    assert!(s.is_empty());
    let pb = s.push(job(&b)).unwrap();
    // A thief holding the pre-rewind top must fail.
    s.stack.heavy_thieves.fetch_add(1, Ordering::Relaxed);
    let stale = StealTicket {
        thief: &thief,
        top: pre_rewind_top,
    };
    heavy_barrier();
    assert!(thief.steal_after_barrier(stale).is_none());
    assert!(s.pop(pb));
}

#[test]
fn the_last_job_is_popped_without_a_cas_unless_a_heavy_steal_is_in_flight() {
    let s = single_threaded_stack();
    let thief = s.thief();
    let a = Dummy(1);
    // Nobody in flight: the pop leaves `top` as it was (no CAS, no rewind).
    let before = s.stack.top.load(Ordering::Relaxed);
    let pa = s.push(job(&a)).unwrap();
    assert!(s.pop(pa));
    assert_eq!(s.stack.top.load(Ordering::Relaxed), before);
    assert!(s.is_empty());
    // A thief in flight (ticket taken, CAS not yet done): the owner settles by CAS and wins; the
    // thief then finds the stack empty.
    let pa = s.push(job(&a)).unwrap();
    let ticket = thief.top_before_barrier();
    heavy_barrier();
    assert!(s.pop(pa));
    assert_ne!(
        s.stack.top.load(Ordering::Relaxed),
        before,
        "settled by CAS and rewound"
    );
    assert!(thief.steal_after_barrier(ticket).is_none());
    // A dropped ticket uncounts its thief too.
    drop(thief.top_before_barrier());
    assert_eq!(s.stack.heavy_thieves.load(Ordering::Relaxed), 0);
    let _ = a.0;
}

#[test]
fn full_stack_refuses() {
    let s = single_threaded_stack();
    let d = Dummy(0);
    for _ in 0..CAPACITY {
        assert!(s.push(job(&d)).is_some());
    }
    assert!(s.push(job(&d)).is_none());
    let _ = d.0;
}

#[test]
fn concurrent_pop_and_steal_take_each_job_once() {
    pop_and_steal_concurrently(active_stack(), false);
}

/// Thieves that pause between steals leave the in-flight count at zero most of the time, so the
/// owner also takes its last job without a CAS while heavy steals start and end around it.
#[test]
fn concurrent_pop_and_intermittent_steals_take_each_job_once() {
    pop_and_steal_concurrently(active_stack(), true);
}

/// The fallback of a system without `membarrier`, run everywhere: the stack refuses every push,
/// so each job goes to the public deque (as `WorkerThread::push_private` does), the owner takes
/// its jobs back from there and heavy steals never find anything.
#[test]
fn concurrent_pops_and_steals_on_a_refusing_stack_take_each_job_once() {
    pop_and_steal_concurrently(JobStackOwner::with_limit(0), false);
}

/// The stack a pool would use on this system: private where the light barrier is sound, refusing
/// every push (the fallback, which the concurrency tests then exercise instead) where it is not.
fn active_stack() -> JobStackOwner {
    crate::platform::sync::init_asymmetric_barriers();
    if !crate::platform::sync::light_barrier_is_sound() {
        // No `membarrier` here (e.g. under valgrind): pools never use private stacks, see above.
        eprintln!(
            "note: the owner's light barrier is not sound on this system: testing the fallback \
             (every push refused, jobs go to the public deque)"
        );
    }
    JobStackOwner::new()
}

/// A job that counts its own executions: the stress test checks each one ran exactly once.
struct Counted {
    runs: AtomicUsize,
}

impl Job for Counted {
    unsafe fn execute(this: *const Self) {
        // SAFETY: the test keeps every `Counted` alive until all threads are joined.
        let this = unsafe { &*this };
        // Relaxed: read after the threads are joined.
        this.runs.fetch_add(1, Ordering::Relaxed);
    }
}

/// Owner rounds of `1..=8` pushes popped back newest first, against three thieves running heavy
/// steals (and stealing from the public deque, where a refused push goes). Every job is a
/// distinct [`Counted`], executed by whoever took it: each must run exactly once. Every
/// `WAIT_PERIOD`-th round the owner waits until a thief has taken a job (heavy steals where the
/// stack is private), so the thieves really race the owner; a deadline fails the test if they
/// never steal.
fn pop_and_steal_concurrently(s: JobStackOwner, thieves_pause: bool) {
    use crate::platform::clock::Instant;
    use crate::platform::sync::for_tests::{thread, AtomicBool};
    use crate::runtime::deque::Worker;
    const ROUNDS: usize = 20_000;
    /// Every this many rounds the owner waits for a steal before it pops.
    const WAIT_PERIOD: usize = 100;
    let private = s.stack.owner.limit != 0;
    // Boxed: each job keeps its address while the vector grows.
    let mut jobs: Vec<Box<Counted>> = Vec::new();
    let public: Worker<JobRef> = Worker::new();
    let done = Arc::new(AtomicBool::new(false));
    // Jobs taken by heavy steals, and from the public deque.
    let heavy_stolen = Arc::new(AtomicUsize::new(0));
    let public_stolen = Arc::new(AtomicUsize::new(0));
    let thieves: Vec<_> = (0..3)
        .map(|_| {
            let (s, public, done) = (s.thief(), public.stealer(), done.clone());
            let (heavy_stolen, public_stolen) = (heavy_stolen.clone(), public_stolen.clone());
            thread::spawn(move || {
                while !done.load(Ordering::Acquire) {
                    let top = s.top_before_barrier();
                    heavy_barrier();
                    if let Some(j) = s.steal_after_barrier(top) {
                        heavy_stolen.fetch_add(1, Ordering::Relaxed);
                        // SAFETY: taken from the stack, so ours alone; the job outlives the threads.
                        unsafe { j.execute() };
                    }
                    if let Some(j) = public.steal().success() {
                        public_stolen.fetch_add(1, Ordering::Relaxed);
                        // SAFETY: as above, taken from the deque.
                        unsafe { j.execute() };
                    }
                    if thieves_pause {
                        thread::yield_now();
                    }
                }
            })
        })
        .collect();
    let stolen = || {
        // Relaxed: a progress count; the final checks read after the joins.
        heavy_stolen.load(Ordering::Relaxed) + public_stolen.load(Ordering::Relaxed)
    };
    let mut owner_popped = 0;
    for round in 0..ROUNDS {
        let first = jobs.len();
        jobs.extend((0..1 + round % 8).map(|_| {
            Box::new(Counted {
                runs: AtomicUsize::new(0),
            })
        }));
        let pushed: Vec<(JobRef, Pushed)> = jobs[first..]
            .iter()
            .map(|c| {
                // SAFETY: `jobs` keeps each box alive until every thread that may execute it is joined.
                let j = unsafe { JobRef::new(&**c) };
                let p = s.push(j).unwrap_or_else(|| {
                    public.push(j);
                    Pushed::NOWHERE
                });
                (j, p)
            })
            .collect();
        if round % WAIT_PERIOD == 0 {
            // Like an `a` that runs until a thief has taken a job: without these waits the
            // owner's rounds can outrun the thieves' barriers, which then find nothing.
            // The watchdog: a deadline per wait, not for the whole test, which on an overloaded
            // machine may take longer than any fixed bound without anything being wrong.
            let before = stolen();
            let deadline = Instant::now() + std::time::Duration::from_secs(60);
            while stolen() == before {
                assert!(
                    Instant::now() < deadline,
                    "no steal in 60 s: {} (heavy) + {} (public) in {round} rounds",
                    heavy_stolen.load(Ordering::Relaxed),
                    public_stolen.load(Ordering::Relaxed)
                );
                thread::yield_now();
            }
        }
        for &(j, p) in pushed.iter().rev() {
            if s.pop(p) {
                owner_popped += 1;
                // SAFETY: popped back, so ours alone.
                unsafe { j.execute() };
            } else if let Some(j) = public.pop() {
                // SAFETY: taken from the deque, so ours alone.
                unsafe { j.execute() };
            }
        }
    }
    let (heavy, from_public) = (
        heavy_stolen.load(Ordering::Relaxed),
        public_stolen.load(Ordering::Relaxed),
    );
    eprintln!("{heavy} heavy steals, {from_public} from the public deque");
    assert!(
        heavy + from_public >= ROUNDS / WAIT_PERIOD,
        "one steal per wait at least"
    );
    done.store(true, Ordering::Release);
    for t in thieves {
        t.join().unwrap();
    }
    // Jobs the thieves left in the public deque (they may stop before it is empty).
    while let Some(j) = public.pop() {
        // SAFETY: as above.
        unsafe { j.execute() };
    }
    for (id, c) in jobs.iter().enumerate() {
        let runs = c.runs.load(Ordering::Relaxed);
        assert_eq!(runs, 1, "job {id} of {} ran {runs} times", jobs.len());
    }
    if private {
        assert_eq!(from_public, 0, "every push went to the private stack");
    } else {
        assert_eq!(owner_popped, 0, "a refusing stack holds nothing to pop");
        assert_eq!(heavy, 0, "nor to steal");
    }
}

#[test]
fn len_counts_the_jobs_left_to_take() {
    let s = single_threaded_stack();
    let d = [Dummy(0), Dummy(1), Dummy(2)];
    assert_eq!(s.len(), 0);
    let pushed: Vec<Pushed> = d.iter().map(|d| s.push(job(d)).unwrap()).collect();
    assert_eq!(s.len(), 3);
    assert!(s.take_oldest().is_some(), "a publication takes the oldest");
    assert_eq!(s.len(), 2);
    assert!(s.pop(pushed[2]), "the newest pops back");
    assert_eq!(s.len(), 1);
    assert!(s.pop(pushed[1]));
    assert_eq!(s.len(), 0);
    assert!(s.is_empty());
    let _ = d.iter().map(|d| d.0).sum::<u32>();
}
