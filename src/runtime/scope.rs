//! `scope`: spawn any number of jobs that may borrow from the enclosing stack frame.
//!
//! A scope counts its outstanding jobs in a [`CountLatch`] that starts at 1 (the scope body itself).
//! `Scope::spawn` increments it and pushes a heap job (onto the spawning worker's public deque, or into
//! the pool's injector when called from elsewhere); each job decrements it when finished, even if it
//! panicked. A job dropped unrun (a cancelled scope, cancelled work) leaves its decrement to the
//! worker that dropped it, which makes one for all it dropped in a row
//! (`crate::runtime::registry::worker`, `deferred_release.rs`). After the body returns the owner drops its own count and waits on the latch *by working*:
//! it executes the scope's jobs and what they spawn meanwhile, and nothing else (the scope is a
//! region, see `crate::runtime::jobs::region`). So `scope` returns only after every job
//! spawned into it, transitively, has finished — which is what makes the borrows sound. The first panic
//! (of the body or any job) is kept and resumed once everything has finished.

use std::marker::PhantomData;

use crate::platform::sync::{Arc, AtomicBool, AtomicUsize, Mutex, Ordering};
use crate::platform::unwind::{self, Payload};
use crate::runtime::broadcast::BroadcastContext;
use crate::runtime::cancel;
use crate::runtime::jobs::job::{JobRef, ScopeJob, SendPtr};
use crate::runtime::jobs::latch::{CountLatch, Latch, LockLatch};
use crate::runtime::jobs::region::{RegionTag, WaitFor};
use crate::runtime::registry::entry;
use crate::runtime::registry::worker::{self, WorkerThread};
use crate::runtime::registry::Registry;

/// A scope in which jobs borrowing from outside can be spawned; see [`scope`].
///
/// ```
/// let words = ["fork", "join"];
/// let total = std::sync::atomic::AtomicUsize::new(0);
/// forkjoin::scope(|s: &forkjoin::Scope<'_>| {
///     for w in &words {
///         let total = &total;
///         s.spawn(move |_| { total.fetch_add(w.len(), std::sync::atomic::Ordering::Relaxed); });
///     }
/// });
/// assert_eq!(total.into_inner(), 8);
/// ```
pub struct Scope<'scope> {
    registry: Arc<Registry>,
    latch: ScopeLatch,
    /// The region the scope's jobs are created in ([`RegionTag::into_raw`]): the scope's own,
    /// opened by its owner in [`Scope::complete`], or the root for a scope waited for from outside
    /// the pool. Written before the body runs, so before any job exists.
    region: AtomicUsize,
    /// The first panic of the body or a job; a panic replaces a cancellation (see [`Scope::cancel`]
    /// and `crate::runtime::cancel`).
    panic: Mutex<Option<Payload>>,
    /// Set by [`Scope::cancel`]: jobs that have not started are dropped unrun.
    cancelled: AtomicBool,
    /// Set when a job was dropped unrun because the work the scope belongs to was cancelled: the
    /// scope then ends by unwinding with `Cancelled` (its result lacks that job).
    work_cancelled: AtomicBool,
    /// Invariant in `'scope`, so spawned closures cannot shorten or extend it.
    _marker: PhantomData<&'scope mut &'scope ()>,
}

/// Counts a scope's outstanding jobs, 1 for the body: waited for by a worker (by working), or, for
/// an [`in_place_scope`] called outside any pool, by a plain thread (by blocking).
enum ScopeLatch {
    Worker(CountLatch),
    Thread {
        count: AtomicUsize,
        /// Shared through an `Arc`: its setter's wake must not touch the freed scope.
        done: Arc<LockLatch>,
    },
}

impl ScopeLatch {
    fn new(owner: Option<&WorkerThread>) -> Self {
        match owner {
            Some(owner) => ScopeLatch::Worker(CountLatch::new(
                owner.registry().sleep().clone(),
                owner.index(),
            )),
            None => ScopeLatch::Thread {
                count: AtomicUsize::new(1),
                done: Arc::new(LockLatch::new()),
            },
        }
    }

    fn increment(&self) {
        match self {
            ScopeLatch::Worker(latch) => latch.increment(),
            // Relaxed: the increment happens before the job is published, which orders it.
            ScopeLatch::Thread { count, .. } => {
                count.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Waits until the count reaches zero, running only jobs that `want` admits; `owner` is the
    /// worker the latch was made for, if any.
    fn wait(&self, owner: Option<&WorkerThread>, registry: &Registry, want: WaitFor) {
        match (self, owner) {
            (ScopeLatch::Worker(latch), Some(owner)) => owner.wait_for(latch.core(), want),
            (ScopeLatch::Thread { done, .. }, _) => registry.wait_for_injected(done),
            (ScopeLatch::Worker(_), None) => {
                unreachable!("a worker's scope latch without its worker")
            }
        }
    }
}

impl Latch for ScopeLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: `*this` is live until the count reaches zero (the owner waits for that).
        match unsafe { &*this } {
            // SAFETY: as above; the count latch wakes its worker without touching the scope after.
            ScopeLatch::Worker(latch) => unsafe { Latch::set(latch as *const CountLatch) },
            ScopeLatch::Thread { count, done } => {
                // AcqRel: release our job's writes; the last decrementer acquires everyone's.
                if count.fetch_sub(1, Ordering::AcqRel) == 1 {
                    // SAFETY: still live (the owner waits for this latch); `set` clones the Arc
                    // before it releases the owner.
                    unsafe { Latch::set(done as *const Arc<LockLatch>) };
                }
            }
        }
    }
}

/// Creates a scope, runs `op` in it, and returns once `op` and every job spawned in the scope have
/// finished. Runs in the current pool (the global pool from outside any pool).
///
/// If `op` or any spawned job panics, the other jobs still run to completion; then the first panic is
/// resumed.
///
/// ```
/// let mut left = vec![1, 2, 3];
/// let mut right = vec![4, 5, 6];
/// let total = std::sync::atomic::AtomicU32::new(0);
/// forkjoin::scope(|s| {
///     s.spawn(|_| left.iter_mut().for_each(|x| *x *= 10));
///     s.spawn(|_| right.iter_mut().for_each(|x| *x *= 100));
///     s.spawn(|s| {
///         // jobs can spawn more jobs into the same scope
///         s.spawn(|_| { total.fetch_add(1, std::sync::atomic::Ordering::Relaxed); });
///     });
/// });
/// assert_eq!(left, [10, 20, 30]);
/// assert_eq!(right, [400, 500, 600]);
/// assert_eq!(total.into_inner(), 1);
/// ```
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    run_scope(op)
}

/// A kind of scope ([`Scope`], [`ScopeFifo`](crate::ScopeFifo)): a [`Scope`] plus what its kind adds.
pub(crate) trait ScopeKind<'scope> {
    /// A scope whose jobs run in `registry`'s pool, waited for by `owner` (or by blocking, without).
    fn make(registry: Arc<Registry>, owner: Option<&WorkerThread>) -> Self;
    /// The plain scope inside.
    fn base(&self) -> &Scope<'scope>;
}

/// [`scope`] for any kind of scope: in the current pool, on one of its workers.
pub(crate) fn run_scope<'scope, S, OP, R>(op: OP) -> R
where
    S: ScopeKind<'scope>,
    OP: FnOnce(&S) -> R + Send,
    R: Send,
{
    entry::in_current_pool(|owner, _injected| {
        let scope = S::make(owner.registry().clone(), Some(owner));
        scope.base().complete(Some(owner), || op(&scope))
    })
}

/// [`in_place_scope`] for any kind of scope: `op` on the calling thread, jobs in `registry`'s pool.
pub(crate) fn run_in_place<'scope, S, OP, R>(registry: &Arc<Registry>, op: OP) -> R
where
    S: ScopeKind<'scope>,
    OP: FnOnce(&S) -> R,
{
    WorkerThread::with_current_opt(|owner| {
        if owner.is_none() {
            if let Some(adopted) = worker::adopted() {
                // A `use_current_thread` thread waits as its worker (it may be its pool's only one).
                return adopted.run(|_| run_in_place(registry, op));
            }
        }
        let scope = S::make(registry.clone(), owner);
        scope.base().complete(owner, || op(&scope))
    })
}

impl<'scope> ScopeKind<'scope> for Scope<'scope> {
    fn make(registry: Arc<Registry>, owner: Option<&WorkerThread>) -> Self {
        Scope::new(registry, owner)
    }

    fn base(&self) -> &Scope<'scope> {
        self
    }
}

/// Like [`scope`], but `op` runs on the calling thread (so it need not be `Send`, and sees the
/// caller's thread-locals); only the spawned jobs run in the pool: the calling worker's pool, or
/// the global pool from outside any pool, where the caller blocks until the jobs are done.
///
/// ```
/// use std::cell::Cell;
/// let here = Cell::new(0); // not Sync: `scope` could not borrow it in `op`
/// let mut parts = [0; 2];
/// forkjoin::in_place_scope(|s| {
///     here.set(1);
///     for (i, p) in parts.iter_mut().enumerate() {
///         s.spawn(move |_| *p = i + 1);
///     }
/// });
/// assert_eq!((here.get(), parts), (1, [1, 2]));
/// ```
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    entry::with_current_registry(|registry| run_in_place(registry, op))
}

impl<'scope> Scope<'scope> {
    /// A scope whose jobs run in `registry`'s pool, waited for by `owner` (or by blocking, without).
    fn new(registry: Arc<Registry>, owner: Option<&WorkerThread>) -> Self {
        Scope {
            registry,
            latch: ScopeLatch::new(owner),
            region: AtomicUsize::new(RegionTag::ROOT.into_raw()),
            panic: Mutex::new(None),
            cancelled: AtomicBool::new(false),
            work_cancelled: AtomicBool::new(false),
            _marker: PhantomData,
        }
    }

    /// The pool the scope's jobs run in.
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Spawns `body` into the scope; it receives the scope so it can spawn more jobs.
    ///
    /// `body` may borrow anything that outlives the scope. The job runs on some worker of the pool, at
    /// the latest while the scope's owner waits for the scope to end.
    ///
    /// ```
    /// let data = vec![1u64; 1000];
    /// let sums: Vec<std::sync::Mutex<u64>> = (0..4).map(|_| Default::default()).collect();
    /// forkjoin::scope(|s| {
    ///     for (chunk, slot) in data.chunks(250).zip(&sums) {
    ///         s.spawn(move |_| *slot.lock().unwrap() = chunk.iter().sum());
    ///     }
    /// });
    /// assert!(sums.iter().all(|m| *m.lock().unwrap() == 250));
    /// ```
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        if !self.may_spawn() {
            return;
        }
        let this = SendPtr::new(self as *const Scope<'scope>);
        let job = self.counted_job(move || {
            let this = this;
            // SAFETY: the scope outlives its jobs (see `counted_job`).
            body(unsafe { &*this.0 })
        });
        entry::push_or_inject(&self.registry, job);
    }

    /// Spawns `body` on every worker of the scope's pool (see
    /// [`ThreadPool::broadcast`](crate::ThreadPool::broadcast)); the scope waits for all of them.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// let sum = AtomicUsize::new(0);
    /// pool.scope(|s| s.spawn_broadcast(|_, ctx| { sum.fetch_add(ctx.index(), Ordering::Relaxed); }));
    /// assert_eq!(sum.into_inner(), 0 + 1 + 2);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&Scope<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        let this = SendPtr::new(self as *const Scope<'scope>);
        self.broadcast_counted(move || {
            let this = &this;
            // SAFETY: the scope outlives its jobs (see `counted_job`).
            let scope = unsafe { &*this.0 };
            BroadcastContext::with(|ctx| body(scope, ctx))
        });
    }

    /// Delivers one counted job running `share` to every worker of the scope's pool.
    pub(crate) fn broadcast_counted(&self, share: impl Fn() + Send + Sync + 'scope) {
        let share = Arc::new(share);
        // Under the slots lock, as a broadcast delivers (`crate::runtime::broadcast`).
        let slots = self.registry.lock_slots();
        for index in 0..slots.target() {
            let share = share.clone();
            // The closure owns this clone (under loom, clippy takes the facade's `Arc` for a
            // function to pass as `*share`).
            #[cfg_attr(forkjoin_loom, allow(clippy::redundant_closure))]
            let job = self.counted_job(move || share());
            self.registry.push_broadcast(index, job);
        }
    }

    /// A spawn's boundary (see `crate::runtime::cancel`): unwinds the spawner if its work was
    /// cancelled (a body that spawns in a loop stops there); false if the scope was cancelled, so
    /// that the job is not made at all.
    #[inline]
    pub(crate) fn may_spawn(&self) -> bool {
        WorkerThread::with_current(WorkerThread::stop_if_cancelled);
        !self.cancelled.load(Ordering::Acquire)
    }

    /// A job of this scope running `body`: counted in the scope's latch until it has run, its
    /// panic recorded for the owner. The caller pushes or delivers it (once).
    pub(crate) fn counted_job(&self, body: impl FnOnce() + Send + 'scope) -> JobRef {
        self.latch.increment();
        let scope_ptr = SendPtr::new(self as *const Scope<'scope>);
        let job = ScopeJob::new(move || {
            let scope_ptr = scope_ptr;
            // SAFETY: the scope outlives this job: its owner waits for the count latch, which this job
            // decrements only as its very last action.
            let scope = unsafe { &*scope_ptr.0 };
            WorkerThread::with_current_opt(|wt| {
                // A boundary (see `crate::runtime::cancel`): a job of a cancelled scope, or of
                // cancelled work, does not start. Dropped, not unwound (an unwinding costs a
                // microsecond, and a cancelled scope may hold a million jobs): the cancelled work
                // is noted once, and the scope unwinds with it when it ends.
                let work_cancelled = wt.is_some_and(WorkerThread::cancel_requested);
                if !(work_cancelled || scope.cancelled.load(Ordering::Acquire)) {
                    // This job may block: counts held for dropped jobs go first.
                    if let Some(wt) = wt {
                        wt.release_deferred();
                    }
                    if let Err(payload) = unwind::halt_unwinding(body) {
                        scope.record_panic(payload);
                    }
                    // SAFETY: the latch is live (see above); we do not touch the scope after.
                    unsafe { Latch::set(&scope.latch as *const ScopeLatch) };
                    return;
                }
                // Read first: every dropped job writing the flag would move its cache line
                // between all the workers that drop jobs.
                if work_cancelled && !scope.work_cancelled.load(Ordering::Relaxed) {
                    scope.work_cancelled.store(true, Ordering::Relaxed);
                }
                if let Err(payload) = unwind::halt_unwinding(move || drop(body)) {
                    scope.record_panic(payload);
                }
                match (wt, &scope.latch) {
                    // SAFETY: the latch is live (see above), and this job's count is given up:
                    // released with the next ones this worker drops.
                    (Some(wt), ScopeLatch::Worker(latch)) => unsafe { wt.release_later(latch) },
                    // SAFETY: as above.
                    _ => unsafe { Latch::set(&scope.latch as *const ScopeLatch) },
                }
            });
        });
        // Relaxed: written by the owner before the body ran, which created this scope handle's
        // users (see the field).
        let region = RegionTag::from_raw(self.region.load(Ordering::Relaxed));
        // SAFETY: `body` borrows only data outliving the scope, and the scope waits for the job (count
        // latch); the caller has it executed exactly once.
        unsafe { job.into_job_ref() }.tagged(region)
    }

    fn record_panic(&self, payload: Payload) {
        let mut slot = self.panic.lock().unwrap_or_else(|e| e.into_inner());
        let replaces = match &*slot {
            None => true,
            // A panic wins over a cancellation (the panic is resumed, see `crate::cancellable`).
            Some(kept) => cancel::is_cancellation(kept) && !cancel::is_cancellation(&payload),
        };
        if replaces {
            *slot = Some(payload);
        }
    }

    /// Cancels the scope's jobs that have not started: they are dropped without running, and so
    /// is every job spawned into the scope from now on. Jobs already running go on to their end;
    /// the scope returns once they have, with the body's result as usual.
    ///
    /// To stop the running jobs too, at their next `join`, batch or spawn, run the scope under a
    /// [`CancelToken`](crate::CancelToken) with [`cancellable`](crate::cancellable).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// let ran = AtomicUsize::new(0);
    /// pool.scope(|s| {
    ///     for _ in 0..100 {
    ///         // On one worker the scope's jobs start only once the body has returned.
    ///         s.spawn(|_| { ran.fetch_add(1, Ordering::Relaxed); });
    ///     }
    ///     s.cancel();
    /// });
    /// assert_eq!(ran.into_inner(), 0);
    /// ```
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Release);
    }

    /// True once [`cancel`](Self::cancel) was called on this scope.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Acquire)
    }

    /// Runs the body, then waits for all jobs, then resumes the first panic. `owner` is the worker
    /// the scope was made for, if any.
    pub(crate) fn complete<R>(&self, owner: Option<&WorkerThread>, body: impl FnOnce() -> R) -> R {
        // A worker of the scope's pool runs the body in the scope's own region and, while it waits
        // at the end, helps only with the scope's jobs (and what they spawn). A worker of another
        // pool (`ThreadPool::in_place_scope`) cannot run them at all.
        let own = owner.filter(|o| Arc::ptr_eq(o.registry(), &self.registry));
        let region = own.map(|o| o.open_region(self as *const Self as usize, o.region()));
        let want = match (own, owner) {
            (Some(o), _) => {
                // Relaxed: no job of this scope exists yet (see the field).
                self.region.store(o.region().into_raw(), Ordering::Relaxed);
                o.wait_for_region()
            }
            (None, Some(_)) => WaitFor::Injected,
            (None, None) => WaitFor::Anything,
        };
        let result = unwind::halt_unwinding(body);
        let result = match result {
            Ok(v) => Some(v),
            Err(payload) => {
                self.record_panic(payload);
                None
            }
        };
        // SAFETY: the latch is live (it is ours); drops the body's count.
        unsafe { Latch::set(&self.latch as *const ScopeLatch) };
        self.latch.wait(owner, &self.registry, want);
        drop(region);
        let panic = self.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(payload) = panic {
            unwind::resume_unwinding(payload);
        }
        // Relaxed: the jobs' latch decrements (Release) were observed by the wait above. Under
        // `panic = "abort"` the scope returns, and `cancellable` reports the cancellation.
        if cancel::CAN_UNWIND && self.work_cancelled.load(Ordering::Relaxed) {
            cancel::unwind_cancelled();
        }
        result.expect("scope body panicked without recording it")
    }
}

impl std::fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope")
            .field("pool_threads", &self.registry.num_threads())
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use crate::platform::sync::for_tests::{AtomicUsize, Ordering};
    use crate::ThreadPoolBuilder;

    #[test]
    fn nested_spawns_all_finish() {
        let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let count = AtomicUsize::new(0);
        pool.scope(|s| {
            for _ in 0..100 {
                s.spawn(|s| {
                    for _ in 0..10 {
                        s.spawn(|_| {
                            count.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                });
            }
        });
        assert_eq!(count.into_inner(), 1000);
    }

    #[test]
    fn panicking_job_does_not_stop_siblings() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let count = AtomicUsize::new(0);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.scope(|s| {
                for i in 0..50 {
                    let count = &count;
                    s.spawn(move |_| {
                        if i == 10 {
                            panic!("job 10");
                        }
                        count.fetch_add(1, Ordering::Relaxed);
                    });
                }
            })
        }));
        assert_eq!(
            crate::platform::unwind::payload_message(&r.unwrap_err()),
            "job 10"
        );
        assert_eq!(count.into_inner(), 49);
    }

    #[test]
    fn scope_from_outside_any_pool() {
        let mut v = vec![0; 8];
        crate::scope(|s| {
            for (i, x) in v.iter_mut().enumerate() {
                s.spawn(move |_| *x = i);
            }
        });
        assert_eq!(v, (0..8).collect::<Vec<_>>());
    }
}
