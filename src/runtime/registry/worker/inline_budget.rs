//! The inline-join budget: which `join`s run b as a plain call, without pushing it.
//!
//! In recursive code almost every job b is popped straight back by its owner: only the few oldest
//! jobs ever get stolen. So a push that leaves at least the *offered depth* of older jobs below its
//! own arms a budget of `DEEP_JOIN_PERIOD - 1` inline joins ([`on_push`]); popping back to one of
//! the first offered-depth jobs ([`on_pop`]), or starting a job taken from a queue
//! ([`on_job_start`]), clears it. So the joins above that many pending jobs always push, and below
//! them only every [`DEEP_JOIN_PERIOD`]-th join looks at the pool: it pushes if some worker is
//! idle, and otherwise renews the budget ([`WorkerThread::renew_inline_joins`]).
//!
//! The older jobs are the bigger ones, and they are what idle workers get first (the heartbeat
//! publishes the oldest); a job pushed below them is almost always popped straight back, so its
//! push and pop are pure overhead (chili makes the same trade), and while every worker is busy
//! nobody could take it anyway. Once a worker goes idle, a long run of deep joins offers work
//! within `DEEP_JOIN_PERIOD` joins, and its pushes run the heartbeat check. A worker alone in its
//! pool has a budget that never runs out (it is refilled in [`join`](crate::join())'s slow path).
//!
//! **The offered depth grows with the pool** ([`offered_depth`]): 3 up to 16 workers, 4 up to 64,
//! 5 beyond. Below the offered jobs a worker commits a share of its job to run itself, in order:
//! about 1/2^depth of a balanced subtree, 1/φ^depth of fib's. Those frames are on its call stack,
//! not in a queue, so nobody can take their b's until the worker walks back to them. While every
//! worker is busy that costs nothing; but the share committed under the biggest jobs (the root's,
//! taken first) outlasts the rest of the call on many cores, and the call's tail waits for that one
//! worker to walk its frames (fib(39) at 256 simulated workers: two-thirds of the call). Each more
//! offered job shrinks that share by 2 (φ for fib), at the price of more pushes: the joins above
//! the offered jobs are those with at most that many pending jobs below them, so each level adds a
//! binomial layer of pushing joins (docs/benchmarks.md, "The offered depth").
//!
//! **Latent joins** (pools of more than [`LATENT_FROM`] workers) bound that share further without
//! pushing: a push that arms the budget there arms [`LATENT_LEVELS`] latent joins first
//! ([`take_latent_join`]). A latent join runs a then b as plain calls too, but registers b as a
//! latent fork while a runs (`crate::runtime::jobs::latent`), so that a request for work seen
//! inside a, at the inline joins' every `DEEP_JOIN_PERIOD`-th or a loop's poll, hands the oldest
//! such b to the idle worker as a job (`crate::runtime::join`'s `join_latent`). The latent joins
//! are the first ones after the arming push, in order: in a recursion, the spine of levels on the
//! way down, whose b's are the biggest. Only a user's `join` is latent (and only its polls offer
//! latent work): the iterator layer's splits run inline there, as before, since their loops offer
//! their rests themselves. So the work a worker commits to run itself below its offered jobs is
//! about 1/φ^(depth + latent levels) of its job in fib (1/2^… in a balanced tree), and reachable
//! the moment it is asked for. A b that nobody asked for runs inline on the way back up, under the
//! inline budget: giving it latent levels of its own would make every join within that many
//! levels of the offered jobs latent, a binomial layer (a quarter of a balanced tree's joins at 8
//! levels, which doubled its walk on a busy pool). As it is, a pool pays `LATENT_LEVELS` latent
//! joins per arming push. Smaller pools keep plain inline joins: a latent join costs several
//! times an inline one (it is out of line and builds b's job in its frame), and there the share
//! is small beside the call.
//!
//! A pool built with `ThreadPoolBuilder::siblings_may_wait` never arms the budget: every join
//! pushes b, as in rayon, so a closure that waits for its sibling finds it in a queue.
//!
//! The budget is a thread-local ([`INLINE_JOINS`]), so an inline join reads and writes one word
//! and loads no worker pointer; the latent joins left are another ([`LATENT_JOINS`]), read only by
//! joins that reach the slow path. This file is the only one that touches them.

use std::cell::Cell;

use super::WorkerThread;
use crate::platform::sync::{sim_bug, thread_local};

/// The offered depth of a pool of `pool_size` workers: a `join` nested below this many pending
/// jobs of its worker may run inline (see [`take_inline_join`] and the module doc): 3 up to 16
/// workers, 4 up to 64, 5 beyond.
#[inline]
pub(super) fn offered_depth(pool_size: usize) -> usize {
    MIN_OFFERED_DEPTH + usize::from(pool_size > 16) + usize::from(pool_size > 64)
}

/// Pools of more than this many workers register latent joins below their offered jobs (see the
/// module doc): with a few hundred workers, a share of 1/φ^depth of the root's job outlasts the
/// rest of the call.
const LATENT_FROM: usize = 64;
/// How many levels of joins below the offered jobs are latent in such a pool.
const LATENT_LEVELS: u32 = 8;

/// The smallest [`offered_depth`]: the push and pop paths compare with it first, so that a join
/// above it (a flat loop of joins) reads no pool size.
const MIN_OFFERED_DEPTH: usize = 3;
/// Of the joins nested that deep, every this-many-th one pushes its b if some worker is idle.
const DEEP_JOIN_PERIOD: u32 = 64;
/// The value of a used-up inline-join budget (see [`take_inline_join`]).
const BUDGET_SPENT: u32 = 1;

thread_local! {
    /// This thread's inline-join budget (see [`take_inline_join`]): 0 outside a pool. A
    /// thread-local of its own, not a field of the worker (which lives on the worker's stack): an
    /// inline join then reads no worker pointer, and its store lands away from the stack that deep
    /// recursion keeps writing.
    ///
    /// Values: 0, not armed (push); [`BUDGET_SPENT`], armed and used up (the slow path decides);
    /// above it, inline joins left plus one; `u32::MAX` for a worker alone in its pool.
    static INLINE_JOINS: Cell<u32> = const { Cell::new(0) };
    /// Latent joins left before the next ones run inline ([`take_latent_join`]): 0 unless the
    /// worker's pool has more than [`LATENT_FROM`] workers and it is below its offered jobs.
    /// While it is above 0, [`INLINE_JOINS`] is 0, so a join reaches the slow path that asks.
    static LATENT_JOINS: Cell<u32> = const { Cell::new(0) };
}

/// True if the `join` about to start runs b inline without pushing it (and uses up one inline
/// join of the budget; see the module docs).
#[inline(always)]
pub(crate) fn take_inline_join() -> bool {
    INLINE_JOINS.with(|budget| {
        let n = budget.get();
        if n <= BUDGET_SPENT {
            return false;
        }
        budget.set(n - 1);
        true
    })
}

/// A push left the job at `depth` on the private stack: if at least the [`offered_depth`] of a
/// pool of `pool_size` workers of older jobs are pending below it, the next joins run inline,
/// unless the pool lets siblings wait for each other (`ThreadPoolBuilder::siblings_may_wait`):
/// then every join pushes.
#[inline(always)]
pub(super) fn on_push(depth: usize, pool_size: &Cell<usize>, siblings_may_wait: bool) {
    // The broken variant arms the budget regardless: deep joins run inline again.
    if depth > MIN_OFFERED_DEPTH
        && depth > offered_depth(pool_size.get())
        && (!siblings_may_wait || sim_bug("siblings_inline_joins"))
    {
        // At least the offered depth of older jobs are pending: run the next joins inline, in a
        // large pool after `LATENT_LEVELS` latent ones.
        if pool_size.get() > LATENT_FROM {
            INLINE_JOINS.set(0);
            LATENT_JOINS.set(LATENT_LEVELS);
        } else {
            INLINE_JOINS.set(DEEP_JOIN_PERIOD);
        }
    }
}

/// True if the `join` about to start (which no inline budget covers) is a latent join: one of the
/// first [`LATENT_LEVELS`] joins after a push armed the budget in a large pool, which in a
/// recursion are the levels just below the offered jobs, on the way down. The last of them arms
/// the inline budget. (A split of the iterator layer counts as one but runs inline: its loop
/// offers its rest through a latent fork of its own.)
#[inline(always)]
pub(crate) fn take_latent_join() -> bool {
    LATENT_JOINS.with(|left| {
        let n = left.get();
        if n == 0 {
            return false;
        }
        left.set(n - 1);
        if n == 1 {
            INLINE_JOINS.set(DEEP_JOIN_PERIOD);
        }
        true
    })
}

/// The job at `depth` of the private stack is being popped back: among the first
/// [`offered_depth`] jobs of a pool of `pool_size` workers, the joins from here on push again.
#[inline(always)]
pub(super) fn on_pop(depth: usize, pool_size: &Cell<usize>) {
    if depth <= MIN_OFFERED_DEPTH || depth <= offered_depth(pool_size.get()) {
        // Back among the offered jobs: the joins from here on push again.
        INLINE_JOINS.set(0);
        LATENT_JOINS.set(0);
    }
}

/// A job taken from a queue starts a new subtree: its first joins push. Alone, nothing is ever
/// pushed: keep the budget.
#[inline(always)]
pub(super) fn on_job_start(alone: bool) {
    if !alone {
        INLINE_JOINS.set(0);
    }
    LATENT_JOINS.set(0);
}

/// The worker starts running under a cancellation node: its budget, unbounded alone, lasts
/// `DEEP_JOIN_PERIOD` joins at most, so that its inline joins reach a boundary (see
/// [`WorkerThread::refill_inline_joins_alone`]).
#[inline(always)]
pub(super) fn on_cancellable_start() {
    INLINE_JOINS.set(INLINE_JOINS.get().min(DEEP_JOIN_PERIOD));
}

/// The calling thread becomes a worker: alone, every join runs inline (nobody could take b);
/// otherwise the budget starts empty.
#[inline(always)]
pub(super) fn on_enter(alone: bool) {
    INLINE_JOINS.set(if alone { u32::MAX } else { 0 });
    LATENT_JOINS.set(0);
}

/// The calling thread stops being a worker: the budget of a thread outside a pool is 0.
#[inline(always)]
pub(super) fn on_leave() {
    INLINE_JOINS.set(0);
    LATENT_JOINS.set(0);
}

impl WorkerThread {
    /// Like [`take_inline_join`], for a caller that would `join` only to
    /// offer work (the iterators' up-front split): true if such a join would not offer b, so that
    /// splitting is pointless. Uses up an inline join like a `join` would.
    #[inline(always)]
    pub(crate) fn would_keep_split_private(&self) -> bool {
        take_inline_join() || self.alone.get() || self.renew_inline_joins(false)
    }

    /// The join about to start has used up an armed inline-join budget (deep below the offered
    /// jobs): if no worker of the pool is idle, nobody could take its b, so renew the budget and
    /// run it inline (true); otherwise the join pushes (false), and the push re-arms the budget.
    /// With `offer_latent` (a user's `join`), in a pool of more than [`LATENT_FROM`] workers, an
    /// idle worker gets this worker's oldest latent work instead if it has any, and the budget is
    /// renewed.
    #[inline(always)]
    pub(crate) fn renew_inline_joins(&self, offer_latent: bool) -> bool {
        // Inline: a join above the offered jobs (a flat loop of joins) has no budget at all and
        // pays only this test.
        INLINE_JOINS.get() == BUDGET_SPENT && self.renew_spent_budget(offer_latent)
    }

    /// [`renew_inline_joins`](Self::renew_inline_joins) once the budget is spent.
    #[inline(never)]
    fn renew_spent_budget(&self, offer_latent: bool) -> bool {
        // A boundary of cancellation (see `crate::runtime::cancel`): a recursion of inline joins
        // reaches one every `DEEP_JOIN_PERIOD` joins.
        self.stop_if_cancelled();
        // A worker that goes idle just after this check gets this worker's next offer at most
        // DEEP_JOIN_PERIOD joins later.
        if self.some_worker_idle()
            && !(offer_latent && self.sized_for.get() > LATENT_FROM && self.offer_oldest_work())
        {
            return false;
        }
        INLINE_JOINS.set(DEEP_JOIN_PERIOD);
        true
    }

    /// This worker is alone in its pool (checked by the caller) and used up its inline-join budget:
    /// refill it, so its joins stay plain calls.
    /// Under a cancellation node, only `DEEP_JOIN_PERIOD` joins, so that a recursion of inline
    /// joins reaches a boundary of cancellation (see `crate::runtime::cancel`).
    #[cold]
    pub(crate) fn refill_inline_joins_alone(&self) {
        debug_assert!(self.alone.get());
        // A boundary of cancellation, as in `renew_spent_budget`.
        self.stop_if_cancelled();
        INLINE_JOINS.set(if self.cancel_node().is_null() {
            u32::MAX
        } else {
            DEEP_JOIN_PERIOD
        });
    }
}
