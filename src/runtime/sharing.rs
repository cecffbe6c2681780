//! Work sharing for the iterator and sort layers: whether some worker asks for work, how a
//! parallel call starts and splits, and the joins and offers that hand work to an idle worker.
//! It is the only door through which `iter/` and `sort/` reach the scheduler (`tests/layers.rs`
//! checks it).
//!
//! rayon's iterators see the core through `join_context` and `current_num_threads`; ours also split
//! lazily, so they need a few more facts and actions, each a load or two on the calling thread:
//!
//! * [`some_worker_idle`]: some worker of this pool is idle, so splitting now pays, unless
//!   [`offer_waiting`]: an earlier offer of ours still waits for it; [`some_worker_idle_in`]: the
//!   same for a loop, muted for a few polls after [`back_off_idle_polls`] (a request it could not
//!   answer), which [`idle_polls_muted`] tells and [`end_idle_poll_back_off`] ends;
//! * [`publish_on_heartbeat`]: before a long step that pushes no job, publish one pending job on the
//!   runtime's sharing heartbeat; [`join_for_idle_worker`]: split for an idle worker, offering b at
//!   once; [`join_for_split`]: an up-front split; [`join_pieces_for_idle_worker`] and
//!   [`join_pieces_for_split`]: the same for the pieces of a loop whose leaves stop by themselves
//!   when their work is cancelled ([`StopCheck::stopped`], [`stopped`]), and whose call unwinds
//!   once at its end ([`stopped_at_end`]);
//! * [`nobody_can_ask`]: the caller is the only worker of its pool, so no split can ever be asked
//!   for and a whole piece may run as one sequential fold;
//! * [`start_as`]: how a parallel iterator call starts: one sequential fold (alone in the pool),
//!   one leaf (a join made now would not offer its b: nobody idle to take it, or deep below other
//!   pending jobs), or a split up front.
//!
//! * [`leaf_start`]: how a loop's sequential part starts (alone, plain, or counted in pools of 3
//!   or more) and its [`StopCheck`]; [`loop_started`] / [`loops_started_since`]: whether a loop's items run nested loops;
//!   [`with_latent_fork`]: run one item with the loop's rest registered, so that a poll inside
//!   answers a request with it ([`offer_older_work`]: the oldest pending work of this worker);
//!   [`with_offers`]: the jobs a loop split off its rest that way, finished before it returns.
//!
//! The facts are hints: answering wrongly costs speed, never correctness (a job that stays
//! private is still reachable by a heavy steal, see `crate::runtime::jobs::jobstack`).

use crate::runtime::cancel::{self, node::Node};
use crate::runtime::jobs::latent;
use crate::runtime::join::{
    join_always_pushing, join_by_depth_rule, join_by_depth_rule_erased, BRunsOn, BStops, Inlined,
};
pub(crate) use crate::runtime::offers::{with_offers, Offers};
use crate::runtime::registry::worker::WorkerThread;
pub(crate) use crate::runtime::registry::worker::{
    back_off_idle_polls, end_idle_poll_back_off, idle_polls_muted, offer_waiting,
    publish_on_heartbeat, some_worker_idle, some_worker_idle_in,
};

/// [`join`](crate::join) for the deterministic tree's up-front splits: the depth rule, with the
/// halves called through `dyn` (a few such splits per call, so the join is compiled once).
#[inline]
pub(crate) fn join_for_split<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_by_depth_rule_erased(|_| oper_a(), |_| oper_b())
}

/// [`join_for_split`] for the pieces of a parallel loop whose leaves stop by themselves when their
/// work is cancelled (they poll before each batch and return what they have; the loop's call then
/// unwinds once, [`stopped_at_end`]): b is no boundary of cancellation ([`BRunsOn`]).
#[inline]
pub(crate) fn join_pieces_for_split<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_by_depth_rule(Inlined::<BRunsOn>::PATH, |_| oper_a(), |_| oper_b())
}

/// A `join` that splits work *for* an idle worker: b is always pushed, however deep, where the
/// depth rule would keep it private ([`join_always_pushing`]), and `a` first publishes this
/// worker's oldest private job at once, not on the heartbeat (the split already judged the work
/// worth a hand-off).
#[inline]
pub(crate) fn join_for_idle_worker<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_always_pushing(
        BStops,
        move |_| {
            crate::runtime::registry::worker::publish_now();
            oper_a()
        },
        |_| oper_b(),
    )
}

/// [`join_for_idle_worker`] for the pieces of a loop whose leaves stop by themselves when their
/// work is cancelled (see [`join_pieces_for_split`]): b is no boundary of cancellation.
#[inline]
pub(crate) fn join_pieces_for_idle_worker<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_always_pushing(
        BRunsOn,
        move |_| {
            crate::runtime::registry::worker::publish_now();
            oper_a()
        },
        |_| oper_b(),
    )
}

/// A split of a loop's pieces that `with_max_len` demands: b is always pushed, as for an idle
/// worker, and `a` first publishes every private job of this worker, b included, and announces
/// them, whether or not a worker is idle now (see `crate::runtime::registry::worker::publish_all_now`).
/// b is no boundary of cancellation, as in [`join_pieces_for_split`].
#[inline]
pub(crate) fn join_pieces_demanded<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_always_pushing(
        BRunsOn,
        move |_| {
            // The simulation's self-check (scripts/sim-bugs.sh) publishes as for an idle worker
            // only: a piece stays private while its owner blocks at the items' barrier.
            if crate::platform::sync::sim_bug("demanded_split_private") {
                crate::runtime::registry::worker::publish_now();
            } else {
                crate::runtime::registry::worker::publish_all_now();
            }
            oper_a()
        },
        |_| oper_b(),
    )
}

/// How a parallel iterator call starts, from [`start_as`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum StartAs {
    /// The calling worker is alone in its pool: nobody can ever ask for a split, so a piece may run
    /// as one sequential fold, with no batches and no polls.
    Whole,
    /// A join made now only to offer work would not offer it: no worker of the pool is idle
    /// (nobody could take it; the leaf splits later if one asks), several older jobs of this
    /// worker are pending and this join would be one of the deep joins that run inline (see
    /// `crate::join`), or its job would stay private and few are looking for it (the sharing
    /// heartbeat is not due, or an earlier publication still waits for a thief, and fewer than two
    /// idle workers are awake or this worker already holds an older private job to give them). One
    /// leaf, which still splits on request, and publishes the half it offers at once.
    OneLeaf,
    /// Split up front, so that every worker has a piece at once (also outside a pool, where the
    /// split's `join` moves the call into the global pool).
    SplitUpFront,
}

/// How a parallel iterator call should start (see [`StartAs`]). One thread-local read and a load
/// of the pool's idle count; while some worker idles, counts as a join for the depth rule and
/// asks the sharing heartbeat (a clock read, skipped while calls come fast) and the sleep counters.
///
/// While several idle workers are awake and this worker has no private job to give them, a nested
/// call splits up front although its half stays private for now: the half is then the oldest job
/// this worker holds, which the next request (a leaf's [`publish_on_heartbeat`]) or heartbeat
/// publishes. Without it, only the innermost leaf that polls answers a request, and with many
/// workers asking at once the work breaks up into the smallest pieces worth a hand-off, each one a
/// steal. One asker is served well enough by the innermost leaf, and splitting every call for it
/// would make small calls pay for a split nobody takes.
///
/// Checking for an idle worker before splitting is what makes nested calls cheap on a busy pool:
/// without it a nested call splits up front (a push, a pop, two leaves of batches instead of one)
/// though every worker is busy and nobody can take the half. Checking the heartbeat does the same
/// for a loop of calls while the other workers sleep: their split's job would stay private and
/// come back, and each call would pay for two leaves. And answering `Whole` in the same read spares
/// a 1-thread pool's nested calls the leaf machinery.
///
/// In a pool built with `ThreadPoolBuilder::siblings_may_wait` every call of a pool of 2 or more
/// splits up front, as rayon's do, whatever the other workers are doing: a leaf runs its items one
/// after another, and an item that waits for another item must not hold that one in its rest.
#[inline]
pub(crate) fn start_as() -> StartAs {
    WorkerThread::with_current(|wt| {
        if wt.runs_whole() {
            StartAs::Whole
        } else if wt.is_alone() {
            StartAs::OneLeaf
        } else if wt.siblings_may_wait() {
            // Pieces that rayon would make, pushed, so that items waiting for each other are
            // in other workers' reach (`ThreadPoolBuilder::siblings_may_wait`).
            StartAs::SplitUpFront
        } else if !wt.some_worker_idle()
            || wt.would_keep_split_private()
            || !(wt.push_would_publish()
                || (!wt.has_private_jobs()
                    && wt.several_workers_idle()
                    && wt.searching_workers() >= 2))
        {
            StartAs::OneLeaf
        } else {
            StartAs::SplitUpFront
        }
    })
    .unwrap_or(StartAs::SplitUpFront)
}

/// The number of workers in the calling thread's pool (the global pool's outside one).
#[cold]
#[inline(never)]
pub(crate) fn pool_size() -> usize {
    crate::current_num_threads()
}

/// True when the calling thread is the only worker of its pool, so nobody can ever ask it for
/// work, and it runs under no cancellation node (whose boundaries are between batches): a piece may
/// run as one sequential fold.
#[inline]
pub(crate) fn nobody_can_ask() -> bool {
    WorkerThread::with_current(WorkerThread::runs_whole).unwrap_or(false)
}

/// How a loop's sequential part starts, from [`leaf_start`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum LeafStart {
    /// The only worker of its pool: nobody can ever ask (see [`nobody_can_ask`]).
    Alone,
    /// A pool of 2 (or outside a pool): the loop may split on request, but offers no rest from
    /// inside its items, and is not counted.
    Plain,
    /// A pool of 3 or more: the loop is counted ([`loop_started`]); the mark to pass to
    /// [`loops_started_since`].
    Counted(u32),
}

/// How a loop's sequential part starts (see [`LeafStart`]), and its boundary of cancellation: one
/// thread-local read, and a thread-local increment in pools of 3 or more. With one other worker
/// the innermost loop's answer reaches the only asker as soon, so a pool of 2 spares every loop the
/// counting and checking, which a small call would feel. Alone under a cancellation node, a loop
/// runs as `Plain`, in batches, so that it has boundaries.
#[inline]
pub(crate) fn leaf_start() -> (LeafStart, StopCheck) {
    WorkerThread::with_current(|wt| {
        let start = if wt.runs_whole() {
            LeafStart::Alone
        } else if wt.offers_rest() {
            LeafStart::Counted(loop_started())
        } else {
            LeafStart::Plain
        };
        (start, StopCheck(wt.cancel_node()))
    })
    .unwrap_or((LeafStart::Plain, StopCheck(std::ptr::null())))
}

/// A loop's boundary of cancellation (see `crate::runtime::cancel`): the cancellation node it
/// runs under, read once by [`leaf_start`], polled before each batch (a register test while
/// there is none).
#[derive(Clone, Copy)]
pub(crate) struct StopCheck(*const Node);

impl StopCheck {
    /// True if the loop runs under a cancellation node: it must keep its boundaries (no fold of
    /// its whole rest in one go).
    #[inline(always)]
    pub(crate) fn is_armed(self) -> bool {
        !self.0.is_null()
    }

    /// True if the loop's work was cancelled (and unwinding is possible): the leaf returns what
    /// it has, and the loop's call unwinds once it has every piece back ([`stopped_at_end`]).
    #[inline(always)]
    pub(crate) fn stopped(self) -> bool {
        // SAFETY: the node outlives the region the loop runs in (`WorkerThread`'s `cancel`
        // invariant), and the loop ends before its region closes.
        cancel::CAN_UNWIND && !self.0.is_null() && unsafe { (*self.0).is_cancelled() }
    }
}

/// [`StopCheck::stopped`] for a loop that did not read [`leaf_start`]: one thread-local read.
#[inline]
pub(crate) fn stopped() -> bool {
    cancel::CAN_UNWIND && WorkerThread::with_current(WorkerThread::cancel_requested) == Some(true)
}

/// The end of a parallel loop's call whose leaves stop by themselves: unwinds with `Cancelled`
/// if its work was cancelled, dropping the partial result its stopped leaves returned (a
/// cancelled `collect` never yields a partial collection). The loop's pieces are joined with
/// [`join_pieces_for_split`] and [`join_pieces_for_idle_worker`], which are no boundaries, so
/// cancelling a loop costs this one unwinding, on the thread that called it, and none on the
/// workers that ran its pieces.
#[inline]
pub(crate) fn stopped_at_end<R>(result: R) -> R {
    if stopped() {
        drop(result);
        cancel::unwind_cancelled();
    }
    result
}

/// Counts a parallel loop starting its sequential part on this thread; the count to pass to
/// [`loops_started_since`]. A thread-local increment.
#[inline]
pub(crate) fn loop_started() -> u32 {
    latent::loop_started()
}

/// How many loops started on this thread since `mark` (from [`loop_started`]): inside the items
/// of the loop that took the mark, what its items ran besides plain work.
#[inline]
pub(crate) fn loops_started_since(mark: u32) -> u32 {
    latent::loops_started().wrapping_sub(mark)
}

/// Runs `body`, one item of a loop, with `offer` registered as the loop's latent fork: a request
/// for work seen inside may call it to split off part of the loop's rest (see
/// [`offer_older_work`]). Outside a pool, just `body`.
#[inline]
pub(crate) fn with_latent_fork<T>(offer: &dyn Fn() -> bool, body: impl FnOnce() -> T) -> T {
    match WorkerThread::with_current(WorkerThread::private_mark) {
        Some(mark) => latent::with_latent_fork(offer, mark, body),
        None => body(),
    }
}

/// Answers a request for work with work older than the caller's own: outermost first, a private
/// join job older than a loop's latent fork (published), else part of that loop's rest. False if
/// no loop around the caller has registered its rest, or none had any left.
#[inline]
pub(crate) fn offer_older_work() -> bool {
    // Forks are registered only on a worker.
    latent::any() && WorkerThread::with_current(WorkerThread::offer_oldest_work).unwrap_or(false)
}
