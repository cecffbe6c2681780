//! `scope`: spawn any number of jobs that may borrow from the enclosing stack frame.
//!
//! A scope counts its outstanding jobs in a [`CountLatch`] that starts at 1 (the scope body itself).
//! `Scope::spawn` increments it and pushes a heap job (onto the spawning worker's public deque, or into
//! the pool's injector when called from elsewhere); each job decrements it when finished, even if it
//! panicked. After the body returns the owner drops its own count and waits on the latch *by working*
//! (it executes other jobs, typically the scope's own, meanwhile). So `scope` returns only after every job
//! spawned into it, transitively, has finished — which is what makes the borrows sound. The first panic
//! (of the body or any job) is kept and resumed once everything has finished.

use std::marker::PhantomData;

use crate::entry;
use crate::job::{HeapJob, SendPtr};
use crate::latch::{CountLatch, Latch};
use crate::registry::Registry;
use crate::sync::{Arc, Mutex};
use crate::unwind::{self, Payload};
use crate::worker::WorkerThread;

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
    latch: CountLatch,
    panic: Mutex<Option<Payload>>,
    /// Invariant in `'scope`, so spawned closures cannot shorten or extend it.
    _marker: PhantomData<&'scope mut &'scope ()>,
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
    let wt = WorkerThread::current();
    let registry: &Registry = if wt.is_null() {
        entry::global_registry()
    } else {
        // SAFETY: a non-null current worker is valid while this thread runs.
        unsafe { (*wt).registry() }
    };
    entry::in_worker(registry, |owner, _injected| {
        let scope = Scope::new(owner);
        scope.complete(owner, || op(&scope))
    })
}

impl<'scope> Scope<'scope> {
    fn new(owner: &WorkerThread) -> Self {
        Scope {
            registry: owner.registry().clone(),
            latch: CountLatch::new(owner.registry().sleep().clone(), owner.index()),
            panic: Mutex::new(None),
            _marker: PhantomData,
        }
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
        self.latch.increment();
        let scope_ptr = SendPtr::new(self as *const Scope<'scope>);
        let job = HeapJob::new(move || {
            let scope_ptr = scope_ptr;
            // SAFETY: the scope outlives this job: its owner waits for the count latch, which this job
            // decrements only as its very last action.
            let scope = unsafe { &*scope_ptr.0 };
            if let Err(payload) = unwind::halt_unwinding(|| body(scope)) {
                scope.record_panic(payload);
            }
            // SAFETY: the latch is live (see above); we do not touch the scope after this call.
            unsafe { Latch::set(&scope.latch as *const CountLatch) };
        });
        // SAFETY: `body` borrows only data outliving the scope, and the scope waits for the job (count
        // latch); the job is executed exactly once by whichever worker takes it.
        let job_ref = unsafe { job.into_job_ref() };
        entry::push_or_inject(&self.registry, job_ref);
    }

    fn record_panic(&self, payload: Payload) {
        let mut slot = self.panic.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(payload);
        }
    }

    /// Runs the body, then waits for all jobs, then resumes the first panic.
    fn complete<R>(&self, owner: &WorkerThread, body: impl FnOnce() -> R) -> R {
        let result = unwind::halt_unwinding(body);
        let result = match result {
            Ok(v) => Some(v),
            Err(payload) => {
                self.record_panic(payload);
                None
            }
        };
        // SAFETY: the latch is live (it is ours); drops the body's count.
        unsafe { Latch::set(&self.latch as *const CountLatch) };
        owner.wait_until(self.latch.core());
        let panic = self.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(payload) = panic {
            unwind::resume_unwinding(payload);
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
    use crate::ThreadPoolBuilder;
    use std::sync::atomic::{AtomicUsize, Ordering};

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
        assert_eq!(crate::unwind::payload_message(&r.unwrap_err()), "job 10");
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
