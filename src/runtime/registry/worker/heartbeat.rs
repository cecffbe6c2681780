//! The sharing heartbeat: when an owner moves its oldest private job to its public deque.
//!
//! A worker that runs out of work joins the pool's *idle count* (and stays in it while it searches,
//! spins, yields and sleeps, until it finds a job). An owner reads the *idle flag*, set while the
//! count is non-zero (a Relaxed load of a line written only when the count leaves or reaches zero),
//! on each push and, while it is set, publishes its **oldest** private job (the biggest subtree) on
//! a *sharing heartbeat*: at most once per [`PUBLISH_INTERVAL`] (a quarter of it at a call's tail,
//! below), and at once on its first push after it left the idle count itself while some worker
//! sleeps without a patrol timeout (sleep README rule 8: that sleeper would not come to heavy-steal
//! it, [`WorkerThread::make_publish_due`]). Publishing on every push while someone idles would turn
//! a loop of tiny joins into a stream of hand-offs that each cost more than the job. An idle worker
//! that sleeps while another is busy wakes on a patrol timeout and *heavy-steals* the oldest
//! private job of every worker (see `crate::runtime::jobs::jobstack` and
//! [`WorkerThread::heavy_steal`]), so a job whose owner is blocked in user code still runs.
//!
//! A publication moves the job to the public deque and announces it (the work map and the sleep
//! module, sleep README rule 1), only into an empty public deque: while an earlier publication
//! still waits for a thief, publishing more would only cost fences until one comes. The clock
//! behind the heartbeat is read sparingly ([`PublishClock`]).
//!
//! **Publications that come back stretch the heartbeat.** Announcing a job wakes a sleeper, a
//! futex call that costs the owner microseconds. When the owner pops its own published job back
//! (no thief came before it finished `a`: a loop of joins smaller than a sleeper's wake-up), that
//! call was wasted, and the next heartbeat would waste another. Each such publication (one that
//! woke a sleeper: awake searchers cost nothing to tell) doubles the interval, up to 16 ×
//! [`PUBLISH_INTERVAL`]; a job of this worker that a thief took restores it, and so does a
//! publication that must happen at once ([`WorkerThread::make_publish_due`]). A stretched
//! heartbeat costs no liveness: patrols reach private jobs whatever the heartbeat does.
//!
//! **The tail of a call beats four times as fast.** Near the end of a call on many cores, most
//! workers idle while a few owners hold the rest of the work privately, and one publication per
//! owner per interval leaves the idle ones waiting. So while more than half of the pool idles, an
//! owner that holds two or more private jobs (more than the b of the join it is in) publishes at a
//! quarter of the interval ([`TAIL_SPEEDUP`]). That pace needs the searchers of sleep README rule
//! 12: while every publication woke a sleeper, which often found the job already taken, the
//! wake-ups queued on the sleep counters' line at 256 workers and four times as fast lost there
//! (docs/benchmarks.md, "Searchers instead of wakes"). An owner with one private job, a loop of
//! small joins, gains nothing from more.

use std::cell::Cell;
use std::time::Duration;

use super::WorkerThread;
use crate::runtime::registry::bump;
use crate::runtime::trace::Event;

/// The sharing heartbeat: an owner publishes on a push at most once per this interval while some
/// worker is idle, a quarter of it at a call's tail ([`TAIL_SPEEDUP`]; see
/// [`WorkerThread::publish_on_heartbeat`]).
pub(super) const PUBLISH_INTERVAL: Duration = Duration::from_micros(100);

/// The tail of a call: while more than half of the pool idles, an owner holding two or more
/// private jobs publishes on a heartbeat `2^TAIL_SPEEDUP` times as fast (see the module doc).
pub(super) const TAIL_SPEEDUP: u32 = 2;

/// How often the heartbeat's interval may double while its publications come back unstolen
/// (see [`WorkerThread::publication_came_back`]): 16 × [`PUBLISH_INTERVAL`] at most.
pub(super) const MAX_PUBLISH_BACKOFF: u32 = 4;

/// Before a long sequential step with no `join` in it (a leaf sort, a partition, an unsplittable
/// piece of a loop): if the calling thread is a worker and some worker of its pool is idle,
/// publish this worker's oldest private job on the sharing heartbeat, as a push would (see
/// [`WorkerThread::publish_on_heartbeat`]). Does nothing outside a pool or when nobody is idle.
#[inline]
pub(crate) fn publish_on_heartbeat() {
    // Owner operations: the current worker is this thread's.
    WorkerThread::with_current(|wt| {
        if wt.some_worker_idle() {
            wt.publish_on_heartbeat();
        }
    });
}

/// For a piece just split off for an idle worker: if the calling thread is a worker and some
/// worker of its pool is idle, publish this worker's oldest private job at once, not on the
/// heartbeat (see [`WorkerThread::publish_now`]). Does nothing outside a pool or when nobody is
/// idle.
#[inline]
pub(crate) fn publish_now() {
    // Owner operations: the current worker is this thread's.
    WorkerThread::with_current(|wt| {
        if wt.some_worker_idle() {
            wt.publish_now();
        }
    });
}

/// For a split the caller demanded (`with_max_len`): publish every private job of the calling
/// worker at once, the split's b included, whether or not a worker is idle now. The caller asked for
/// pieces this small, typically for items that wait for each other; a piece left private while its
/// owner blocks in another item is out of reach of a sleeper that sleeps without a patrol timeout
/// (it slept while every worker was idle), which found it only after a second.
#[inline]
pub(crate) fn publish_all_now() {
    // Owner operations: the current worker is this thread's.
    WorkerThread::with_current(WorkerThread::publish_all_private);
}

/// When the sharing heartbeat reads the clock: every call at first, and, while reads keep finding the
/// heartbeat not due and come more than 16 times per interval, only every `stride`-th call, the
/// stride doubling up to 256. A read that comes late (a gap of an interval / 16 or more) resets the
/// stride, so the time between reads stays below about an eighth of the interval: publication is at
/// most that late. After [`WorkerThread::make_publish_due`] the next call reads (that publication
/// must not wait, sleep README rule 8).
pub(super) struct PublishClock {
    /// Calls left to skip before the next read.
    skips: Cell<u32>,
    /// Calls skipped between reads now.
    stride: Cell<u32>,
    /// Ticks at the last read.
    last_read: Cell<u64>,
}

impl PublishClock {
    const MAX_STRIDE: u32 = 256;

    pub(super) fn new() -> Self {
        PublishClock {
            skips: Cell::new(0),
            stride: Cell::new(0),
            last_read: Cell::new(0),
        }
    }

    /// The clock, or `None` if this call skips its read.
    #[inline]
    fn read(&self) -> Option<u64> {
        if self.skip() {
            return None;
        }
        Some(crate::platform::clock::ticks())
    }

    /// True if this call skips its read (and counts it).
    #[inline(always)]
    pub(super) fn skip(&self) -> bool {
        let skips = self.skips.get();
        if skips > 0 {
            self.skips.set(skips - 1);
            return true;
        }
        false
    }

    /// The read at `now` found the heartbeat not due: adapt the stride to the call rate.
    fn not_due(&self, now: u64, interval: u64) {
        let gap = now.wrapping_sub(self.last_read.get());
        self.last_read.set(now);
        let stride = if gap < interval / 16 {
            (self.stride.get() * 2).clamp(1, Self::MAX_STRIDE)
        } else {
            0
        };
        self.stride.set(stride);
        self.skips.set(stride);
    }

    /// The next call reads the clock, and the stride starts over.
    fn read_next_time(&self) {
        self.skips.set(0);
        self.stride.set(0);
    }
}

impl WorkerThread {
    /// Some worker is idle (seen on a push): publish the oldest private job on the sharing heartbeat.
    ///
    /// Publishing on every push while a worker idles turns a loop of tiny joins into a stream of
    /// hand-offs, each costing more than the job (and keeping the idle worker from ever sleeping).
    /// So an owner publishes at most once per [`PUBLISH_INTERVAL`] (a quarter of it at a call's tail,
    /// [`TAIL_SPEEDUP`]): the oldest private job, the root
    /// of the largest pending subtree, exactly what an idle worker should take. The first push after
    /// this worker itself left the idle count while a worker sleeps without a patrol timeout
    /// publishes at once (see `leave_idle_count`). A job that stays private
    /// is not lost: idle workers that sleep while another worker is busy wake up to patrol, taking
    /// the oldest private job of every worker with a heavy steal (`crate::runtime::sleep`, `crate::runtime::jobs::jobstack`).
    #[cold]
    #[inline(never)]
    pub(super) fn publish_on_heartbeat(&self) {
        // Nothing to publish, or (in `publish_due`) an earlier publication still waits for a thief:
        // no clock read (a leaf polling for an idle worker calls this once per batch).
        if self.jobs.is_empty() {
            return;
        }
        let Some(now) = self.publish_due() else {
            return;
        };
        // A call that publishes nothing (an earlier publication still waits in the deque, or no
        // private job) leaves the heartbeat due: the first publication after idling must happen.
        if self.publish_now() {
            self.last_publish.set(now);
        }
    }

    /// True if a job pushed now would be published at once (see [`publish_due`](Self::publish_due)):
    /// only then can a split made to offer work reach a *sleeping* worker (the publication wakes
    /// it) before this worker pops the job back. Otherwise the job stays private until this
    /// worker's next publication, which a leaf that splits on request makes at once anyway.
    #[inline(never)]
    pub(crate) fn push_would_publish(&self) -> bool {
        self.publish_due().is_some()
    }

    /// The clock, if a publication now is on time: this worker's public deque is empty (thieves
    /// took the last one) and the sharing heartbeat is due. A read the [`PublishClock`] skips counts as
    /// not due.
    #[inline]
    fn publish_due(&self) -> Option<u64> {
        if !self.deque.is_empty() {
            return None;
        }
        // A clock read costs ~10 ns, as much as a whole join: while calls come much faster than the
        // heartbeat, skip reads (see `PublishClock`).
        let now = self.publish_clock.read()?;
        let interval = self.due_interval();
        if now.wrapping_sub(self.last_publish.get()) < interval {
            self.publish_clock.not_due(now, interval);
            return None;
        }
        Some(now)
    }

    /// The heartbeat's interval now, in ticks: [`PUBLISH_INTERVAL`], doubled for each publication
    /// that came back unstolen since the last steal (see
    /// [`publication_came_back`](Self::publication_came_back)).
    #[inline]
    fn heartbeat_interval(&self) -> u64 {
        self.publish_interval << self.publish_backoff.get()
    }

    /// The interval a publication now waits for: [`heartbeat_interval`](Self::heartbeat_interval),
    /// divided by `2^TAIL_SPEEDUP` while this owner holds two or more private jobs and more than
    /// half of the pool idles (the tail of a call, see the module doc). Read only when the clock
    /// is (the idle count's line changes at every steal).
    #[inline]
    fn due_interval(&self) -> u64 {
        let interval = self.heartbeat_interval();
        if self.jobs.len() >= 2 && self.registry.sleep().mostly_idle() {
            interval >> TAIL_SPEEDUP
        } else {
            interval
        }
    }

    /// This worker popped back a job it had published: no thief came for it in time. If that
    /// publication woke a sleeper, its wake-up was wasted: doubles the heartbeat's interval (up to
    /// [`MAX_PUBLISH_BACKOFF`] doublings).
    pub(crate) fn publication_came_back(&self) {
        // Only a publication that woke a sleeper paid for the wake-up. One that only awake
        // searchers saw (as with more workers than CPUs, whose idle workers spin and yield for
        // their turn) cost little, and stretching the heartbeat would cost them their work.
        if !self.publication_woke.get() {
            return;
        }
        let backoff = self.publish_backoff.get();
        if backoff < MAX_PUBLISH_BACKOFF {
            self.publish_backoff.set(backoff + 1);
        }
    }

    /// A job of this worker was stolen: thieves answer, the heartbeat is back to its interval.
    #[inline]
    pub(crate) fn publication_taken(&self) {
        self.publish_backoff.set(0);
    }

    /// Makes the sharing heartbeat due at this worker's next check, which reads the clock.
    pub(super) fn make_publish_due(&self) {
        self.publish_backoff.set(0);
        self.last_publish
            .set(self.last_publish.get().wrapping_sub(self.publish_interval));
        self.publish_clock.read_next_time();
    }

    /// Publishes the oldest private job, unless an earlier publication is still waiting in our public
    /// deque (then thieves have something to take; publishing more would only cost fences until they
    /// do). True if it published (and announced) one.
    pub(crate) fn publish_now(&self) -> bool {
        if self.deque.is_empty() && self.publish(1) > 0 {
            self.publication_woke.set(self.announce_public());
            return true;
        }
        false
    }

    /// Moves up to `max` of the oldest private jobs to the public deque; returns how many moved.
    pub(super) fn publish(&self, max: usize) -> usize {
        let mut n = 0;
        while n < max {
            match self.jobs.take_oldest() {
                Some(job) => {
                    self.deque.push(job);
                    bump(&self.stats().published);
                    n += 1;
                }
                None => break,
            }
        }
        if n > 0 {
            if let Some(trace) = &self.trace {
                let now = trace.now();
                trace.push(now, now, Event::Published { jobs: n as u32 });
            }
        }
        n
    }

    /// Makes every private job stealable (before this worker waits and runs other work).
    pub(super) fn publish_all_private(&self) {
        if self.publish(usize::MAX) > 0 {
            self.announce_public();
        }
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_push_would_publish_only_into_an_empty_deque_with_the_heartbeat_due() {
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        // Keep the other worker in user code, so nobody steals what this test publishes.
        let release_tx = crate::test_support::block_one_worker(&pool);
        pool.install(|| {
            WorkerThread::with_current(|wt| {
                wt.make_publish_due();
                assert!(wt.deque.is_empty());
                assert!(wt.push_would_publish(), "empty deque, heartbeat due");
            })
            .expect("install runs on a worker");
            crate::join(
                || {
                    // a runs on the same worker (it is never stolen).
                    WorkerThread::with_current(|wt| {
                        // b sits on the private stack; publish it as a due heartbeat would.
                        assert!(wt.publish_now());
                        assert!(
                            !wt.push_would_publish(),
                            "an earlier publication still waits for a thief"
                        );
                    })
                    .expect("a runs on a worker");
                },
                || {},
            );
        });
        release_tx.send(()).unwrap();
    }

    #[test]
    fn publications_that_come_back_stretch_the_heartbeat_up_to_sixteen_fold() {
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| {
            WorkerThread::with_current(|wt| {
                let base = wt.heartbeat_interval();
                assert_eq!(base, wt.publish_interval);
                wt.publication_came_back();
                assert_eq!(wt.heartbeat_interval(), base, "no sleeper was woken for it");
                wt.publication_woke.set(true);
                for came_back in 1..=6 {
                    wt.publication_came_back();
                    let doublings = came_back.min(MAX_PUBLISH_BACKOFF);
                    assert_eq!(wt.heartbeat_interval(), base << doublings);
                }
                wt.publication_taken();
                assert_eq!(wt.heartbeat_interval(), base, "a steal restores it");
                wt.publication_came_back();
                wt.make_publish_due();
                assert_eq!(
                    wt.heartbeat_interval(),
                    base,
                    "so does a publication that must happen at once (rule 8)"
                );
            })
            .expect("install runs on a worker");
        });
    }
}
