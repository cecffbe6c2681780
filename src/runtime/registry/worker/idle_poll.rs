//! Is some worker idle? The question long sequential loops (the iterators' leaves, through
//! `crate::runtime::sharing`) ask between batches, so that they split only when a thief waits.
//!
//! The answer is a Relaxed load of the pool's padded idle flag, which is written only when the idle
//! count leaves or reaches zero: cheap enough to poll every few items, and only a hint (a job that
//! stays private is still reachable by a heavy steal). Around it: a per-loop back-off for the
//! polls that find an idle worker they cannot feed ([`back_off_idle_polls`]), whether this worker's
//! own last offer still waits for its taker ([`offer_waiting`]), and how many idle workers are
//! awake ([`WorkerThread::searching_workers`]).

use std::cell::Cell;

use super::WorkerThread;
use crate::platform::sync::{thread_local, Ordering};

thread_local! {
    /// Polls of [`some_worker_idle_in`] left to answer "no" without looking (see
    /// [`back_off_idle_polls`]).
    static BACKOFF_POLLS_LEFT: Cell<u32> = const { Cell::new(0) };
    /// The loop mark of the loop that backed off last: loops started before it are not muted.
    static BACKOFF_FROM_LOOP: Cell<u32> = const { Cell::new(0) };
    /// Polls the next [`back_off_idle_polls`] mutes: doubles at each back-off, back to
    /// [`IDLE_POLL_BACKOFF`] once a loop finds something to give ([`end_idle_poll_back_off`]).
    static BACKOFF_NEXT: Cell<u32> = const { Cell::new(IDLE_POLL_BACKOFF) };
}

/// Polls that the first [`back_off_idle_polls`] answers "no idle worker" without looking.
const IDLE_POLL_BACKOFF: u32 = 16;

/// The most polls one back-off mutes.
const IDLE_POLL_BACKOFF_MAX: u32 = 256;

/// True when the calling thread is a pool worker and some worker of its pool is idle (looking for work
/// or asleep, and able to steal).
///
/// Long sequential loops (the parallel iterators' leaves) poll this to split lazily, only when a thief
/// is waiting. A relaxed load of a padded counter that is written only when workers go idle or find
/// work: cheap enough to poll every few items.
#[inline]
pub(crate) fn some_worker_idle() -> bool {
    WorkerThread::with_current(WorkerThread::some_worker_idle).unwrap_or(false)
}

/// [`some_worker_idle`] for a loop that took `loop_mark` when it started (`latent::loop_started`):
/// false for the next [`IDLE_POLL_BACKOFF`] such polls after [`back_off_idle_polls`] by this loop or
/// one started before it on this thread, unless the caller started earlier (an enclosing loop,
/// which may hold more to give).
#[inline]
pub(crate) fn some_worker_idle_in(loop_mark: u32) -> bool {
    if !some_worker_idle() {
        // A busy pool's polls stop here.
        return false;
    }
    let backoff = BACKOFF_POLLS_LEFT.get();
    // Wrapping: the marks of loops running at once are close together.
    if backoff > 0 && loop_mark.wrapping_sub(BACKOFF_FROM_LOOP.get()) < 1 << 31 {
        BACKOFF_POLLS_LEFT.set(backoff - 1);
        return false;
    }
    true
}

/// The calling thread's loop (which took `loop_mark`, `None` in a pool that does not count loops)
/// found an idle worker it could not feed (what it holds is not worth a hand-off, or its last
/// offer still waits): [`some_worker_idle_in`] says no to it and to the loops started after it
/// for the next [`IDLE_POLL_BACKOFF`] polls. With
/// many idle workers one is idle at almost every poll, and each poll it cannot answer reads
/// lines that thieves and idle workers keep writing (the idle count, this worker's deque and job
/// stack): on many cores such polls can take most of the time (`docs/benchmarks.md`). Loops
/// around it still look: they may hold more.
///
/// Only while several workers idle, or while the only idle worker sleeps: one awake idle worker
/// hammers no line, and a muted poll may be the one that could feed it; a sleeping one would need
/// a wake for whatever it is offered, and a rest not worth a hand-off is not worth a wake either
/// (on 2 threads, where the other worker sleeps between back-to-back small calls, each poll would
/// otherwise read the clock twice and look for older work: `docs/benchmarks.md`, "Free items and
/// the closed-form call").
///
/// Each further back-off mutes twice as many polls, up to [`IDLE_POLL_BACKOFF_MAX`], until a poll
/// of the thread feeds an idle worker ([`end_idle_poll_back_off`]): a stream of small calls that cannot
/// feed anyone (skynet's ten-item leaves at 64 cores) otherwise reads the clock twice every 17
/// calls to find that out again. Only where loops are counted: there the loops around a muted
/// one keep looking. Without marks (pools of 2) a mute covers every loop of the thread, the
/// outer ones that could feed the sleeper too, and a long one would leave it asleep until its
/// patrol (docs/benchmarks.md, "Idle polls at many cores").
///
/// Returns whether the loop's polls are muted now.
#[inline]
pub(crate) fn back_off_idle_polls(loop_mark: Option<u32>) -> bool {
    let mute = WorkerThread::with_current(|wt| {
        // A pool whose siblings may wait for each other hands the sleeper every rest it can:
        // the item that polls next may block until a sibling still in this rest runs. The flags,
        // not the count: the count's line changes at every steal. (One idle worker, then the
        // count: it changes rarely while only one idles.) Nobody idle any more: nothing to mute
        // for, and the next idle worker may be fed by the next poll.
        !wt.siblings_may_wait()
            && (wt.several_workers_idle() || (wt.some_worker_idle() && wt.searching_workers() == 0))
    });
    if mute == Some(true) {
        let mark = loop_mark.unwrap_or(0);
        // Escalate only for a loop the last back-off covered (started at or after its loop): a
        // loop around that one is a different request, which starts short again.
        let covered = mark.wrapping_sub(BACKOFF_FROM_LOOP.get()) < 1 << 31;
        let polls = if covered {
            BACKOFF_NEXT.get()
        } else {
            IDLE_POLL_BACKOFF
        };
        BACKOFF_POLLS_LEFT.set(polls);
        if loop_mark.is_some() {
            BACKOFF_NEXT.set((polls * 2).min(IDLE_POLL_BACKOFF_MAX));
        }
        BACKOFF_FROM_LOOP.set(mark);
    }
    mute == Some(true)
}

/// True while [`back_off_idle_polls`] mutes some of the calling thread's polls.
#[inline]
pub(crate) fn idle_polls_muted() -> bool {
    BACKOFF_POLLS_LEFT.get() > 0
}

/// Ends the calling thread's back-off (see [`back_off_idle_polls`]), and the next one mutes
/// [`IDLE_POLL_BACKOFF`] polls again, not more: a loop found that what it holds became worth a
/// hand-off (expensive items behind cheap ones), so its next poll looks; or a poll fed an idle
/// worker (an offer, a split, older work), and a split's halves start as new loops, which the
/// back-off would cover.
#[inline]
pub(crate) fn end_idle_poll_back_off() {
    BACKOFF_POLLS_LEFT.set(0);
    BACKOFF_NEXT.set(IDLE_POLL_BACKOFF);
}

/// True when the calling thread is a pool worker whose public deque still holds a job no thief has
/// taken yet, and either at most one worker idles (that job is already there for it) or a
/// private job of this worker is already next in line: a split made now would stay private (a
/// publication goes only into an empty deque) and come back to this worker. With several idle
/// workers one private half pays, as the next job published once the waiting one is taken; more
/// do not: a leaf that split on every poll while the idle workers slept would cut its range into
/// pieces of a few items.
#[inline]
pub(crate) fn offer_waiting() -> bool {
    WorkerThread::with_current(|wt| {
        // Owner operations (its own deque's length, its own private stack): `wt` is this thread's.
        // The second idle flag last: a shared line.
        !wt.deque.is_empty() && (!wt.jobs.is_empty() || !wt.several_workers_idle())
    })
    .unwrap_or(false)
}

impl WorkerThread {
    /// True if some worker of this pool is idle (searching for work or asleep): a job offered now
    /// has a taker.
    ///
    /// Relaxed: only a hint (see [`Sleep::enter_idle`](crate::runtime::sleep::Sleep::enter_idle)); a job
    /// that stays private is still reachable by a heavy steal, and a worker that goes idle just after
    /// this load is seen by the owner's next check.
    #[inline(always)]
    pub(crate) fn some_worker_idle(&self) -> bool {
        // SAFETY: valid while `self` is (the field's invariant).
        unsafe { (*self.some_idle).load(Ordering::Relaxed) }
    }

    /// True if two or more workers of this pool are idle (the second idle flag): an offer already
    /// waiting has a taker, and so would one more.
    ///
    /// Relaxed: a hint, as [`some_worker_idle`](Self::some_worker_idle).
    #[inline(always)]
    pub(crate) fn several_workers_idle(&self) -> bool {
        // SAFETY: valid while `self` is (the field's invariant).
        unsafe { (*self.several_idle).load(Ordering::Relaxed) }
    }

    /// How many idle workers of this pool are awake, not asleep: 0 while nobody idles (see
    /// [`Sleep::searching_workers`](crate::runtime::sleep::Sleep::searching_workers), a hint).
    #[inline]
    pub(crate) fn searching_workers(&self) -> usize {
        if self.some_worker_idle() {
            self.registry.sleep().searching_workers()
        } else {
            0
        }
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;
    use crate::platform::clock::Instant;
    use std::time::Duration;

    #[test]
    fn some_worker_idle_sees_the_other_worker_idle() {
        assert!(!some_worker_idle(), "outside a pool no worker idles");
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let seen = pool.install(|| {
            // The other worker has nothing to do: it joins the idle count and stays there.
            let deadline = Instant::now() + Duration::from_secs(60);
            while !some_worker_idle() {
                assert!(Instant::now() < deadline, "idle worker never counted");
                std::hint::spin_loop();
            }
            true
        });
        assert!(seen);
    }

    #[test]
    fn a_busy_one_thread_pool_has_no_idle_worker() {
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        assert!(!pool.install(some_worker_idle));
    }
}
