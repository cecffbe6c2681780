//! `join`: run two closures, potentially in parallel.
//!
//! **Protocol** (on a worker; from outside a pool the whole call is injected into the global pool first):
//!
//! ```text
//!  caller frame                          private stack        public deque        thieves
//!  ───────────────────────────────────   ──────────────       ────────────        ───────
//!  1. job_b = StackJob(b, latch)          push b  ─────┐
//!     (if some worker is idle, our public deque is     │ oldest first ───► push ─► steal (FIFO end)
//!      empty and the sharing heartbeat is due, the     │                           run b, set latch
//!      oldest private job is published)                │
//!  2. ra = a()                             (nested joins push/pop above b)
//!  3. newest == b? pop it, rb = b() inline  ◄───┘            (fast path: no locked instruction)
//!     else b was published:
//!       pop public: b → run inline; other job → execute it and pop again;
//!       empty → b was stolen: wait_until(latch), working meanwhile; rb = result
//!  4. return (ra, rb)
//! ```
//!
//! Why step 3's test is enough: the private stack only ever holds `join` jobs, strictly nested, and
//! publication moves the *oldest* first. If b is still private, every job pushed after it belonged to a
//! nested join of `a` that has popped it again, so b is the newest. If b was published, every older
//! job was published too, and the private stack is empty. Jobs that `scope`/`spawn` inside `a` pushed go to
//! the public deque and may sit above b there; step 3's public loop executes them (they are ours to run
//! anyway) and continues until it meets b or finds the deque empty.
//!
//! **A pool of one thread** runs neither step 1's push nor step 3's pop: nobody could take b, so
//! `join` is `a` then `b`, with a guard that still runs b if `a` panics ([`join_inline`]).
//!
//! **Deep joins run inline.** While its pool's *offered depth* of older jobs of this worker sit on
//! its private stack (three up to 16 workers, four up to 64, five beyond), only one `join` in 64
//! pushes b, and only if some worker idles; the others are `a` then `b` like a pool of one thread
//! ([`worker::take_inline_join`]). Those older jobs are the big ones thieves want;
//! a job pushed below them is nearly always popped straight back, so in recursive code (fib, a tree
//! walk) its push and pop are pure overhead, and skipping them saves most of what a `join` costs.
//! The price is rayon's own caveat: a closure that blocks until its sibling runs may deadlock, unless
//! its `join` is one of the few that push (the patrol of idle workers takes pushed jobs even from a
//! blocked owner), or its pool was built with `siblings_may_wait`, whose joins all push. A split
//! that the iterators make for an idle worker always pushes ([`join_always_pushing`]).
//!
//! **Latent joins.** In a pool of more than 64 workers a user's first joins below the offered
//! jobs are [`join_latent`]s instead: a then b as plain calls, b registered while a runs so that
//! a request for work seen inside a can still make it a job, oldest first
//! (`worker::take_latent_join`).
//!
//! **The path of a call.** [`join`] is [`join_context`], which is [`join_by_depth_rule`] with the
//! pushing path [`OutOfLine`]: it runs the join as [`join_inline`] (the depth rule, or a pool of one
//! thread), as [`join_from_outside`] (the call moves into a pool and comes back to [`join_pushing`]
//! on a worker there), or as [`join_pushing`] on this worker, in its own frame
//! ([`join_pushing_out_of_line`]). `join_pushing` pushes b on the private stack
//! ([`WorkerThread::push_private`]), runs a, and pops b back ([`WorkerThread::pop_private`]), or
//! finds it published or stolen ([`finish_published`]). The iterator layer's joins
//! (`crate::runtime::sharing`) take the same steps with `join_pushing` inlined:
//! [`join_by_depth_rule`] with [`Inlined`], and [`join_always_pushing`] (without the depth rule);
//! [`Boundary`] says whether b is a boundary of cancellation.
//!
//! **Panics.** If `a` panics, a drop guard still brings b to completion (popping and running it, or waiting
//! for the thief), swallowing any panic of b, and then the unwinding of a's panic continues. If only b
//! panics, its panic is resumed after a has finished. The fast path therefore needs no `catch_unwind`.

use std::cell::Cell;
use std::marker::PhantomData;

use crate::platform::unwind;
use crate::runtime::cancel;
use crate::runtime::jobs::job::{ErasedStackJob, JobRef, StackJob};
use crate::runtime::jobs::jobstack::Pushed;
use crate::runtime::jobs::latch::SpinLatch;
use crate::runtime::jobs::latent;
use crate::runtime::registry::entry;
use crate::runtime::registry::worker::{self, WorkerThread};

mod erased;

use erased::{with_halves_erased, ErasedHalf, RunHalf};

/// Context handed to the closures of [`join_context`].
///
/// ```
/// let (a, _b) = forkjoin::join_context(|ctx| ctx.migrated(), |_| ());
/// // `a` always runs on the thread that called `join_context`, unless that thread is outside every
/// // pool (then the whole call moved into the global pool):
/// assert!(a);
/// ```
#[derive(Debug)]
pub struct FnContext {
    migrated: bool,
}

impl FnContext {
    #[inline(always)]
    fn new(migrated: bool) -> Self {
        FnContext { migrated }
    }

    /// True if this closure runs on a different thread than the one that called
    /// [`join_context`] (it was stolen, or the call was moved into a pool from outside).
    ///
    /// ```
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// // With a single worker nothing can be stolen: neither side migrates.
    /// let flags = pool.install(|| forkjoin::join_context(|c| c.migrated(), |c| c.migrated()));
    /// assert_eq!(flags, (false, false));
    /// ```
    #[inline]
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// Runs `oper_a` and `oper_b`, potentially in parallel, and returns both results.
///
/// `oper_b` is offered to idle workers while the calling thread runs `oper_a`; if nobody took it, the
/// caller runs it itself right after. Called from outside any pool, the whole call runs in the global
/// pool and the caller blocks (without spinning) until it is done.
///
/// Panics: both closures always complete (or panic); then the panic of `oper_a` is resumed if it
/// panicked, else that of `oper_b`.
///
/// # Warning about blocking
///
/// As in rayon, the closures are meant to compute, not to wait for each other: if `oper_a` blocks
/// until `oper_b` has run (a channel, a barrier), the call may deadlock. Nested below other pending
/// joins of the same worker, most calls run `oper_b` only after `oper_a` returns, to save the cost of
/// offering it (`docs/architecture.md`, "Why most deep joins push nothing"). On a pool built with
/// [`siblings_may_wait`](crate::ThreadPoolBuilder::siblings_may_wait) every call offers `oper_b`,
/// as rayon's does, so such a wait completes as it does on rayon.
///
/// ```
/// fn sum(v: &[u64]) -> u64 {
///     if v.len() <= 1024 {
///         return v.iter().sum();
///     }
///     let (l, r) = v.split_at(v.len() / 2);
///     let (a, b) = forkjoin::join(|| sum(l), || sum(r));
///     a + b
/// }
/// let v: Vec<u64> = (1..=100_000).collect();
/// assert_eq!(sum(&v), 5_000_050_000);
/// ```
///
/// Both closures may borrow from the caller, but not mutably alias:
///
/// ```compile_fail
/// let mut x = 0;
/// forkjoin::join(|| x += 1, || x += 1);
/// ```
#[inline]
pub fn join<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_context(|_| oper_a(), |_| oper_b())
}

/// Like [`join`], but each closure learns through [`FnContext::migrated`] whether it runs on another
/// thread than the caller — e.g. to split work further only when it was stolen.
///
/// ```
/// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let (a, b) = pool.install(|| forkjoin::join_context(|c| c.migrated(), |_| 7));
/// assert!(!a);
/// assert_eq!(b, 7);
/// ```
#[inline]
pub fn join_context<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_by_depth_rule(OutOfLine, oper_a, oper_b)
}

/// What a join's b is to cancellation: the type parameter of [`join_pushing`].
pub(crate) trait Boundary {
    /// b is a boundary of cancellation: taken from a queue it starts only if its work is not
    /// cancelled, popped back it is dropped and the join unwinds.
    const AT_B: bool;
}

/// b is a boundary of cancellation (`join`, `scope`, the iterators' plain splits).
pub(crate) struct BStops;

impl Boundary for BStops {
    const AT_B: bool = true;
}

/// b is a piece of a parallel loop whose leaves stop by themselves when their work is cancelled
/// (they poll before each batch and return what they have; the loop's call then unwinds once, see
/// `crate::runtime::sharing::join_pieces_for_split`): a stolen or popped-back piece runs, finds the
/// cancellation at its first poll and returns, and no unwinding crosses the join.
pub(crate) struct BRunsOn;

impl Boundary for BRunsOn {
    const AT_B: bool = false;
}

/// How a join under the depth rule reaches [`join_pushing`] when it pushes.
pub(crate) trait PushingPath {
    /// What b is to cancellation on this path.
    type B: Boundary;
    /// Whether this path's joins may be latent ([`join_latent`]): a user's `join`, not the
    /// iterator layer's splits, whose loops offer their rests through latent forks of their own.
    const LATENT: bool;

    /// Runs [`join_pushing`] on `wt`.
    ///
    /// # Safety
    /// `wt` must be the current thread's worker.
    unsafe fn push<A, B, RA, RB>(wt: &WorkerThread, oper_a: A, oper_b: B) -> (RA, RB)
    where
        A: FnOnce(FnContext) -> RA + Send,
        B: FnOnce(FnContext) -> RB + Send,
        RA: Send,
        RB: Send;
}

/// The pushing path out of line, in a frame of its own: user code's joins, most of which run
/// inline in deep recursion; without the pushing path's frame (job b, latch, guard) the caller's
/// own frame stays small. b is a boundary.
pub(crate) struct OutOfLine;

impl PushingPath for OutOfLine {
    type B = BStops;
    const LATENT: bool = true;

    #[inline(always)]
    unsafe fn push<A, B, RA, RB>(wt: &WorkerThread, oper_a: A, oper_b: B) -> (RA, RB)
    where
        A: FnOnce(FnContext) -> RA + Send,
        B: FnOnce(FnContext) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        // SAFETY: forwarded.
        unsafe { join_pushing_out_of_line(wt, oper_a, oper_b) }
    }
}

/// The pushing path inlined into the caller, b being `K` to cancellation: the iterator layer's
/// splits (out of line there, it changed the inlining of the leaves, which made them slower).
pub(crate) struct Inlined<K: Boundary>(PhantomData<K>);

impl<K: Boundary> Inlined<K> {
    pub(crate) const PATH: Self = Inlined(PhantomData);
}

impl<K: Boundary> PushingPath for Inlined<K> {
    type B = K;
    const LATENT: bool = false;

    #[inline(always)]
    unsafe fn push<A, B, RA, RB>(wt: &WorkerThread, oper_a: A, oper_b: B) -> (RA, RB)
    where
        A: FnOnce(FnContext) -> RA + Send,
        B: FnOnce(FnContext) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        // SAFETY: forwarded.
        unsafe { join_pushing::<K, _, _, _, _>(wt, oper_a, oper_b) }
    }
}

/// A join under the depth rule, reaching the pushing path through `P` ([`OutOfLine`] for
/// [`join_context`], [`Inlined`] for the iterator layer's splits, `crate::runtime::sharing`).
///
/// `a` then `b` run inline ([`join_inline`]) while [`worker::take_inline_join`] grants it (tested
/// first: an inline join reads no worker pointer), on the only worker of a pool, or when the budget
/// is spent and nobody idles ([`WorkerThread::renew_inline_joins`]). A call from outside every pool
/// moves into one ([`join_from_outside`]). Otherwise b is pushed ([`join_pushing`]).
#[inline(always)]
pub(crate) fn join_by_depth_rule<P, A, B, RA, RB>(_path: P, oper_a: A, oper_b: B) -> (RA, RB)
where
    P: PushingPath,
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    // One call site per path, so each closure is compiled into one inline join and one pushing
    // join (not one per reason to run inline).
    let pushing = if worker::take_inline_join() {
        // Outside a pool the budget is always 0, so this runs inline only on a worker.
        None
    } else {
        let Some(wt) = current_worker() else {
            return join_from_outside(oper_a, oper_b);
        };
        if wt.is_alone() {
            wt.refill_inline_joins_alone();
            None
        } else if wt.renew_inline_joins(P::LATENT) {
            None
        } else if worker::take_latent_join() {
            if P::LATENT {
                // SAFETY: `wt` is the calling thread's worker.
                return unsafe { join_latent::<P::B, _, _, _, _>(wt, oper_a, oper_b) };
            }
            None
        } else {
            Some(wt)
        }
    };
    match pushing {
        None => join_inline(oper_a, oper_b),
        // SAFETY: `wt` is the calling thread's worker.
        Some(wt) => unsafe { P::push(wt, oper_a, oper_b) },
    }
}

/// [`join_by_depth_rule`] with the halves called through `dyn`, for splits that are few per call
/// (the deterministic tree's up-front joins, about one per worker): the protocol is compiled once,
/// not once per pair of closures, at the cost of an indirect call per half.
#[inline(always)]
pub(crate) fn join_by_depth_rule_erased<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    with_halves_erased(oper_a, oper_b, join_by_depth_rule_dyn)
}

/// [`join_by_depth_rule_erased`] without the halves' types.
#[inline(never)]
fn join_by_depth_rule_dyn(oper_a: &mut ErasedHalf<'_>, oper_b: &mut ErasedHalf<'_>) {
    join_by_depth_rule(
        Inlined::<BStops>::PATH,
        |ctx| oper_a.run(ctx),
        |ctx| oper_b.run(ctx),
    );
}

/// A join that pushes b whenever another worker could take it, for a split made because a worker
/// is idle (`crate::runtime::sharing::join_for_idle_worker`), where the depth rule would keep b
/// private. Inline only on the only worker of a pool; moved into a pool from outside one;
/// otherwise [`join_pushing`], b being `K` to cancellation.
///
/// The halves are called through `dyn` ([`join_always_pushing_erased`]): these splits are few (one
/// per idle worker or demanded piece), an indirect call is nothing beside their hand-off, and the
/// protocol is compiled once per `K` instead of once per pair of closures.
#[inline(always)]
pub(crate) fn join_always_pushing<K, A, B, RA, RB>(_b: K, oper_a: A, oper_b: B) -> (RA, RB)
where
    K: Boundary,
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    with_halves_erased(oper_a, oper_b, join_always_pushing_erased::<K>)
}

/// [`join_always_pushing`] without the halves' types.
#[inline(never)]
fn join_always_pushing_erased<K: Boundary>(
    oper_a: &mut ErasedHalf<'_>,
    oper_b: &mut ErasedHalf<'_>,
) {
    let Some(wt) = current_worker() else {
        return join_erased_from_outside(oper_a, oper_b);
    };
    let (oper_a, oper_b) = (|ctx| oper_a.run(ctx), |ctx| oper_b.run(ctx));
    if wt.is_alone() {
        wt.refill_inline_joins_alone();
        join_inline(oper_a, oper_b);
        return;
    }
    // SAFETY: `wt` is the calling thread's worker.
    unsafe { join_pushing::<K, _, _, _, _>(wt, oper_a, oper_b) };
}

/// The calling thread's worker, or `None` if it runs none now (outside every pool). `'w`: the
/// caller's join, which the worker outlives.
#[inline(always)]
fn current_worker<'w>() -> Option<&'w WorkerThread> {
    // SAFETY: a non-null current worker lives on this thread's stack for as long as the thread
    // runs jobs, which outlasts the join that asks.
    unsafe { WorkerThread::current().as_ref() }
}

/// The pushing path of [`join_context`], out of line (see [`OutOfLine`]).
///
/// # Safety
/// `wt` must be the current thread's worker.
#[inline(never)]
unsafe fn join_pushing_out_of_line<A, B, RA, RB>(
    wt: &WorkerThread,
    oper_a: A,
    oper_b: B,
) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    // SAFETY: forwarded.
    unsafe { join_pushing::<BStops, _, _, _, _>(wt, oper_a, oper_b) }
}

/// An inline join: `a` then `b` as plain calls, b pushed nowhere. On the only worker of a pool
/// (nobody could steal b), and for the deep joins the depth rule keeps private.
///
/// Same panic contract as the general protocol: if `a` unwinds, b still runs (its own panic is
/// dropped), then a's panic continues.
#[inline(always)]
fn join_inline<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA,
    B: FnOnce(FnContext) -> RB,
{
    /// Runs b if `a` unwinds. Its `drop` is inlined and hands b by value to a cold function, so the
    /// guard is never built in memory: b's captures stay in registers across the call of `a`.
    struct RunOnUnwind<B: FnOnce(FnContext) -> RB, RB>(Option<B>);
    impl<B: FnOnce(FnContext) -> RB, RB> Drop for RunOnUnwind<B, RB> {
        #[inline(always)]
        fn drop(&mut self) {
            if let Some(b) = self.0.take() {
                run_b_while_a_unwinds(b);
            }
        }
    }
    /// Hands b to [`run_erased_b_while_a_unwinds`] as a call through `dyn`, so that cold path is
    /// compiled once.
    #[inline(always)]
    fn run_b_while_a_unwinds<B: FnOnce(FnContext) -> RB, RB>(b: B) {
        run_erased_b_while_a_unwinds(&mut DropResult(Some(b)));
    }
    /// b whose result is dropped as soon as it returns, inside the catch of the unwinding a.
    struct DropResult<B>(Option<B>);
    impl<B: FnOnce(FnContext) -> RB, RB> RunHalf for DropResult<B> {
        #[inline]
        fn run(&mut self, ctx: FnContext) {
            drop(self.0.take().expect("b runs once")(ctx));
        }
    }
    #[cold]
    #[inline(never)]
    fn run_erased_b_while_a_unwinds(b: &mut dyn RunHalf) {
        // Cancelled work does not start b (see `crate::runtime::cancel`); b is dropped unrun.
        if WorkerThread::with_current(WorkerThread::cancel_requested) != Some(true) {
            let _ = unwind::halt_unwinding(|| b.run(FnContext::new(false)));
        }
    }
    let mut guard = RunOnUnwind(Some(oper_b));
    let result_a = oper_a(FnContext::new(false));
    let oper_b = guard.0.take().unwrap_or_else(|| unreachable!());
    std::mem::forget(guard);
    (result_a, oper_b(FnContext::new(false)))
}

/// A join on a thread that runs no worker now: the whole call moves into the current pool and runs
/// there as [`join_pushing`], while this thread waits.
#[inline]
fn join_from_outside<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    // Each half becomes a call through `dyn`, so the join below is compiled once, not once per pair
    // of closures: this path costs one injection, and the indirect calls are nothing beside it.
    with_halves_erased(oper_a, oper_b, join_erased_from_outside)
}

/// [`join_from_outside`] without the halves' types.
#[cold]
#[inline(never)]
fn join_erased_from_outside(oper_a: &mut ErasedHalf<'_>, oper_b: &mut ErasedHalf<'_>) {
    // The current pool: the global one, or a `use_current_thread` worker's, whose thread then
    // runs this join as that worker.
    entry::in_current_pool_from_outside(|wt, injected| {
        // Injected, both halves run on another thread than the caller's: migrated.
        let oper_a = move |ctx: FnContext| oper_a.run(FnContext::new(injected || ctx.migrated));
        let oper_b = move |ctx: FnContext| oper_b.run(FnContext::new(injected || ctx.migrated));
        // SAFETY: `wt` is the current worker (in_worker runs us on it).
        unsafe { join_pushing::<BStops, _, _, _, _>(wt, oper_a, oper_b) };
    });
}

/// Brings b to completion if `a` unwinds (see the module docs).
///
/// Its `drop` is inlined into the landing pad and passes both fields by value to a cold function, so
/// the guard is never built in memory: arming it costs no store on the fast path.
struct JoinGuard<'r, F, R>
where
    F: FnOnce(bool) -> R,
{
    job_b: *const StackJob<SpinLatch<'r>, F, R>,
    pushed: Pushed,
}

impl<F, R> Drop for JoinGuard<'_, F, R>
where
    F: FnOnce(bool) -> R,
{
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: `job_b` lives in the join frame below us, which is still alive during unwinding;
        // its erased reference is executed at most once (below), and only if b was popped back.
        finish_b_while_a_unwinds(unsafe { (*self.job_b).erased() }, self.pushed);
    }
}

/// Only reached while `a` unwinds (the guard is forgotten otherwise), on the thread that pushed b.
/// Type-erased, as every cold path of the join: compiled once, not once per pair of closures.
#[cold]
#[inline(never)]
fn finish_b_while_a_unwinds(job_b: ErasedStackJob<'_, SpinLatch<'_>>, pushed: Pushed) {
    unwind::unwinding_passes_here();
    // That thread is a worker, which outlives the join frame.
    WorkerThread::with_current(|wt| {
        if wt.pop_private(pushed) {
            // SAFETY: we popped b back, so its JobRef will never be executed.
            unsafe { run_kept_b_while_a_unwinds(wt, &job_b) };
        } else {
            finish_shared_b_while_a_unwinds(wt, &job_b);
        }
    })
    .expect("b is finished on the worker that pushed it");
}

/// While `a` unwinds: b never left this worker; it runs here (its panic dropped: a's wins),
/// unless its work was cancelled.
///
/// # Safety
/// b's `JobRef` was never executed and never will be (popped back, or never shared).
unsafe fn run_kept_b_while_a_unwinds(wt: &WorkerThread, job_b: &ErasedStackJob<'_, SpinLatch<'_>>) {
    if wt.cancel_requested() {
        // Cancelled work does not start b (see `crate::runtime::cancel`).
        // SAFETY: per the contract nobody else runs b; dropped once.
        unsafe { job_b.drop_unrun() };
        return;
    }
    // b's panic, if any, is dropped: a's panic wins.
    // SAFETY: per the contract no other reference is executed; run once, and its result (set
    // before the latch) taken once.
    drop(unsafe {
        job_b.run();
        job_b.take_panic()
    });
}

/// While `a` unwinds: b is on the public deque or was stolen. Pop it back or wait for the thief.
/// Its result is dropped, and its panic too, unless a unwinds with a cancellation: then the panic
/// wins (kept for the `cancellable` call). a's spawns stay where they are (no mark). A panic of b
/// reaches us as a value, not raised and caught: each unwinding costs a microsecond or more, and a
/// cancelled chain of stolen b's pays it at every link.
fn finish_shared_b_while_a_unwinds(wt: &WorkerThread, job_b: &ErasedStackJob<'_, SpinLatch<'_>>) {
    let finished = unwind::halt_unwinding(|| finish_published_erased(wt, job_b, u64::MAX, true));
    let panic = match finished {
        // SAFETY: b ran and its latch is set; its result is taken once.
        Ok(Finished::Ran) => unsafe { job_b.take_panic() },
        Ok(Finished::Dropped) => Some(cancel::payload()),
        Err(payload) => Some(payload),
    };
    if let Some(payload) = panic {
        wt.keep_panic_if_cancelled(payload);
    }
}

/// A latent join (`worker::take_latent_join`: one of the first joins below the offered jobs, in a
/// pool of more than 64 workers): `a` then `b` as plain calls, as an inline join, but
/// with b registered as a latent fork while `a` runs (`crate::runtime::jobs::latent`). A request
/// for work that this worker answers from inside `a` may offer b, oldest fork first: b then goes
/// to the public deque as a job, and this frame finishes it as a published b. So the work a worker
/// commits to run itself, privately, is bounded by the latent levels too, not only by the offered
/// jobs (docs/benchmarks.md, "Latent joins"). Out of line: a few joins in a hundred take it.
///
/// # Safety
/// `wt` must be the current thread's worker.
#[inline(never)]
unsafe fn join_latent<K: Boundary, A, B, RA, RB>(
    wt: &WorkerThread,
    oper_a: A,
    oper_b: B,
) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job_b = job_for_b::<K, _, _>(wt, oper_b);
    let region = wt.region();
    let spawn_mark = wt.spawn_count();
    let offered = Cell::new(false);
    let offer = || {
        if offered.get() {
            return false;
        }
        offered.set(true);
        // b carries the join's region, captured when it began: the worker may offer it from
        // inside a scope in a, whose wait must not run it.
        // SAFETY: `job_b` stays in this frame until its latch is set or its reference comes back
        // from the deque (the end of this function, or `LatentGuard`, finish it); A, B, RA, RB
        // are Send.
        let job_b_ref = unsafe { job_b.as_job_ref() }.tagged(region);
        wt.push_offered(job_b_ref);
        true
    };
    let guard = LatentGuard {
        job_b: &job_b,
        offered: &offered,
    };
    let result_a =
        latent::with_latent_fork(&offer, wt.private_mark(), || oper_a(FnContext::new(false)));
    std::mem::forget(guard);
    if !offered.get() {
        // SAFETY: b was never offered, so its JobRef was never shared; run once.
        let result_b = unsafe { run_kept_b::<K, _, _>(wt, &job_b) };
        return (result_a, result_b);
    }
    let result_b = finish_published(wt, &job_b, spawn_mark, K::AT_B);
    (result_a, result_b)
}

/// Brings a latent join's b to completion if `a` unwinds: runs it if it was never offered, else
/// finishes it as a published b.
struct LatentGuard<'j, 'r, F, R>
where
    F: FnOnce(bool) -> R,
{
    job_b: &'j StackJob<SpinLatch<'r>, F, R>,
    offered: &'j Cell<bool>,
}

impl<F, R> Drop for LatentGuard<'_, '_, F, R>
where
    F: FnOnce(bool) -> R,
{
    fn drop(&mut self) {
        // SAFETY: `job_b` lives in the join frame below us, still alive during unwinding; its
        // erased reference is executed at most once, and only if b was never offered.
        let job_b = unsafe { self.job_b.erased() };
        finish_latent_b_while_a_unwinds(job_b, self.offered.get());
    }
}

/// [`LatentGuard`]'s cold path, type-erased.
#[cold]
#[inline(never)]
fn finish_latent_b_while_a_unwinds(job_b: ErasedStackJob<'_, SpinLatch<'_>>, offered: bool) {
    unwind::unwinding_passes_here();
    WorkerThread::with_current(|wt| {
        if offered {
            finish_shared_b_while_a_unwinds(wt, &job_b);
        } else {
            // SAFETY: b was never offered, so its JobRef was never shared.
            unsafe { run_kept_b_while_a_unwinds(wt, &job_b) };
        }
    })
    .expect("b is finished on the worker that registered it");
}

/// The join protocol on worker `wt`, b being `K` to cancellation ([`BStops`]: a stolen b does not
/// start, a popped-back b is dropped, and the join unwinds; [`BRunsOn`]: the pieces of a loop whose
/// leaves stop by themselves).
///
/// Inlined into its callers (see [`OutOfLine`] for where it is kept out of line).
///
/// # Safety
/// `wt` must be the current thread's worker.
#[inline(always)]
unsafe fn join_pushing<K: Boundary, A, B, RA, RB>(
    wt: &WorkerThread,
    oper_a: A,
    oper_b: B,
) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job_b = job_for_b::<K, _, _>(wt, oper_b);
    // SAFETY: `job_b` stays in this frame until it is popped back or its latch is set (steps 3 and the
    // guard guarantee one of the two before we return or unwind past it); A, B, RA, RB are Send.
    let job_b_ref: JobRef = unsafe { job_b.as_job_ref() }.tagged(wt.region());
    let spawn_mark = wt.spawn_count();
    let pushed = wt.push_private(job_b_ref);

    let guard = JoinGuard {
        job_b: &job_b,
        pushed,
    };
    let result_a = oper_a(FnContext::new(false));
    std::mem::forget(guard);

    if wt.pop_private(pushed) {
        // SAFETY: we popped b back, so its JobRef will never be executed; run once.
        let result_b = unsafe { run_kept_b::<K, _, _>(wt, &job_b) };
        return (result_a, result_b);
    }
    let result_b = finish_published(wt, &job_b, spawn_mark, K::AT_B);
    (result_a, result_b)
}

/// Job b of a join on worker `wt` (pushed, or registered by a latent join), b being `K` to
/// cancellation: its closure learns whether it migrated, and taken from a queue it starts only if
/// its work is not cancelled.
#[inline(always)]
fn job_for_b<'w, K: Boundary, B, RB>(
    wt: &'w WorkerThread,
    oper_b: B,
) -> StackJob<SpinLatch<'w>, impl FnOnce(bool) -> RB, RB>
where
    B: FnOnce(FnContext) -> RB + Send,
{
    let origin: *const WorkerThread = wt;
    // `from_queue` is true when b runs through its JobRef; that is a migration only on another
    // thread (the owner may also pop b from its public deque while waiting in an outer frame).
    StackJob::new(
        move |from_queue: bool| {
            if K::AT_B && from_queue {
                // A boundary: b taken from a queue starts only if its work is not cancelled (the
                // worker runs under the node of b's region, see `crate::runtime::cancel`).
                WorkerThread::with_current(WorkerThread::stop_if_cancelled);
            }
            oper_b(FnContext::new(
                from_queue && WorkerThread::current() != origin,
            ))
        },
        SpinLatch::waking(wt.sleep_slot()),
    )
}

/// Runs a b that stayed with this worker after a returned (popped back, or never offered), b
/// being `K` to cancellation: a boundary first ([`cancel_popped_b`]).
///
/// # Safety
/// b's `JobRef` was never executed and never will be; this runs it once.
#[inline(always)]
unsafe fn run_kept_b<K: Boundary, F, R>(
    wt: &WorkerThread,
    job_b: &StackJob<SpinLatch<'_>, F, R>,
) -> R
where
    F: FnOnce(bool) -> R,
{
    if K::AT_B && wt.cancel_requested() {
        cancel_popped_b(job_b);
    }
    // SAFETY: per the contract, nobody else runs b.
    unsafe { job_b.run_inline(false) }
}

/// The boundary before a popped-back b runs inline, when its work was cancelled: drops b unrun and
/// unwinds with `Cancelled` (a's result is dropped by the unwinding). Under `panic = "abort"`, b
/// runs instead (see `crate::runtime::cancel`).
#[cold]
#[inline(never)]
fn cancel_popped_b<F, R>(job_b: &StackJob<SpinLatch<'_>, F, R>)
where
    F: FnOnce(bool) -> R,
{
    if cancel::CAN_UNWIND {
        // SAFETY: the caller popped b back, so its JobRef will never be executed; dropped once,
        // instead of running it.
        unsafe { job_b.drop_unrun() };
        cancel::unwind_cancelled();
    }
}

/// Step 3's slow path: b is on the public deque or was stolen ([`finish_published_erased`]);
/// returns b's result or raises its panic.
#[cold]
#[inline(never)]
fn finish_published<F, R>(
    wt: &WorkerThread,
    job_b: &StackJob<SpinLatch<'_>, F, R>,
    spawn_mark: u64,
    b_stops: bool,
) -> R
where
    F: FnOnce(bool) -> R,
{
    // SAFETY: b's other reference is on the public deque or was stolen; the erased one runs only
    // if the deque hands the other back to us.
    let erased = unsafe { job_b.erased() };
    match finish_published_erased(wt, &erased, spawn_mark, b_stops) {
        // SAFETY: b ran (here or on the thief) and its latch is set; its result is taken once.
        Finished::Ran => unsafe { job_b.take_result() },
        Finished::Dropped => unwind::resume_unwinding(cancel::payload()),
    }
}

/// How [`finish_published_erased`] ended.
enum Finished {
    /// b ran (popped back here, or on its thief): its result is in its slot.
    Ran,
    /// b was popped back in cancelled work and dropped unrun (only if `b_stops`).
    Dropped,
}

/// [`finish_published`] without b's types. `spawn_mark`: the worker's
/// [`spawn_count`](WorkerThread::spawn_count) when the join began.
///
/// A job that `a` spawned and that still sits on our deque runs here, before we wait: b may wait
/// for it (`join(|| spawn(send), || recv())`), and while b blocks on another worker nobody else
/// may be free to run it. It may run here without breaking the waits' lock rule: any lock this
/// thread holds now it also held when `a` spawned the job, and the sequential program (where a
/// spawn runs at once) ran the job there.
#[cold]
#[inline(never)]
fn finish_published_erased(
    wt: &WorkerThread,
    job_b: &ErasedStackJob<'_, SpinLatch<'_>>,
    spawn_mark: u64,
    b_stops: bool,
) -> Finished {
    let job_b_id = job_b.id();
    loop {
        if job_b.latch().probe() {
            break;
        }
        match wt.pop_public() {
            Some(job) if job.id() == job_b_id => {
                wt.publication_came_back();
                wt.release_deferred();
                if cancel::CAN_UNWIND && b_stops && wt.cancel_requested() {
                    // SAFETY: the deque handed b's JobRef to us, so it will never be executed;
                    // dropped once, instead of running it.
                    unsafe { job_b.drop_unrun() };
                    return Finished::Dropped;
                }
                // SAFETY: the deque handed b's JobRef to us, so nobody else executes it; run once.
                wt.run_popped_b(job_b_id, || unsafe { job.execute() });
                return Finished::Ran;
            }
            // Pushed by `a` after b: ours to run if it belongs to b's wait (see below), else moved
            // out of the way.
            Some(job) if wt.spawned_since(spawn_mark, job.id()) => wt.execute(job),
            Some(job) => wt.run_own_if_belongs(job, wt.wait_for_job(job_b_id as usize)),
            None => {
                wt.publication_taken();
                // b was stolen: help only with b's own subtree (regions), so that a lock held
                // around this `join` is never taken again by unrelated work on this thread.
                wt.wait_for(job_b.latch().core(), wt.wait_for_job(job_b_id as usize));
                break;
            }
        }
    }
    // Counts held for scope jobs dropped in the loop above (see `WorkerThread::release_later`).
    wt.release_deferred();
    Finished::Ran
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests;
