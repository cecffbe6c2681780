//! Jobs a running loop split off its rest for idle workers, through its latent fork
//! (`crate::runtime::jobs::latent`): each is finished by the loop that offered it, as a `join`
//! finishes its job b.
//!
//! An offered job lives in a box the loop's [`Offers`] keeps, goes onto the public deque of the
//! loop's worker at once (announced like a publication, so a sleeper wakes), and carries the
//! region the loop runs in, so a worker waiting for something around the loop may take it. When
//! the loop is done with its own part, [`with_offers`] pops back the offered jobs nobody took
//! (newest first, while they sit on top of the deque) and runs them inline, then waits for the
//! stolen ones, helping meanwhile only with each one's own subtree, as a join whose b was stolen.
//! It finishes every job before it returns or unwinds, so an offered job may borrow what the
//! loop borrows.

use std::cell::RefCell;

use crate::platform::unwind::{self, Payload};
use crate::runtime::jobs::job::{ErasedStackJob, StackJob};
use crate::runtime::jobs::latch::SpinLatch;
use crate::runtime::jobs::region::{RegionTag, WaitFor};
use crate::runtime::registry::worker::WorkerThread;

/// The jobs one loop offered so far (see the module docs). `F` is the closure every one of them
/// runs: a loop offers pieces of its own rest, all run by the same code.
pub(crate) struct Offers<'w, F, R> {
    /// The loop's worker; `None` outside a pool, where nothing is offered.
    worker: Option<&'w WorkerThread>,
    /// The region the loop runs in: its offered jobs' tag.
    region: RegionTag,
    /// Boxed so that a job stays put while its reference sits in a deque.
    jobs: RefCell<Vec<Box<StackJob<SpinLatch<'w>, F, R>>>>,
}

impl<F, R> Offers<'_, F, R>
where
    F: FnOnce(bool) -> R + Send,
    R: Send,
{
    /// Offers `job` to idle workers: pushes it onto this worker's public deque and announces it.
    /// Its index among this loop's offers (the order of [`with_offers`]' results), or `None`
    /// outside a pool (then `job` is dropped unrun).
    pub(crate) fn offer(&self, job: F) -> Option<usize> {
        let worker = self.worker?;
        let job = Box::new(StackJob::new(job, SpinLatch::waking(worker.sleep_slot())));
        // SAFETY: the box is kept in `jobs` and not dropped before `finish` popped the reference
        // back or saw the job's latch set; F and R are Send.
        let job_ref = unsafe { job.as_job_ref() }.tagged(self.region);
        let mut jobs = self.jobs.borrow_mut();
        jobs.push(job);
        worker.push_offered(job_ref);
        Some(jobs.len() - 1)
    }

    /// Brings every offered job to completion: first those still on top of this worker's deque
    /// (run here, newest first), then the stolen ones (waited for). Each job's result, or its
    /// panic, in offer order.
    fn finish(self) -> Vec<Result<R, Payload>> {
        let jobs = self.jobs.into_inner();
        let Some(worker) = self.worker else {
            return Vec::new();
        };
        // SAFETY: an erased job runs only if `finish_erased` popped its reference back from the
        // deque, and then no other reference to it is executed.
        let erased: Vec<_> = jobs.iter().map(|job| unsafe { job.erased() }).collect();
        finish_erased(worker, &erased);
        jobs.iter()
            // SAFETY: every latch is set (`finish_erased`), so each job ran and its executing
            // thread is done with it; each result is taken once.
            .map(|job| unwind::halt_unwinding(|| unsafe { job.take_result() }))
            .collect()
    }
}

/// [`Offers::finish`] without the jobs' types (compiled once): runs the jobs still on top of
/// `worker`'s deque, then waits for the stolen ones; every latch is set when it returns.
fn finish_erased(worker: &WorkerThread, jobs: &[ErasedStackJob<'_, SpinLatch<'_>>]) {
    let mut left = jobs.len();
    while left > 0 {
        let Some(job) = worker.pop_public() else {
            break;
        };
        let Some(i) = jobs.iter().position(|offered| offered.id() == job.id()) else {
            // Not ours (pushed by code inside the loop and left there): back where it was.
            // The waits below move it out of the way if it is still in it.
            worker.push_public(job);
            break;
        };
        // SAFETY: the deque handed this job's reference back to us, so nobody else runs it; it
        // runs once (its result or panic goes to its slot, then its latch is set).
        unsafe { jobs[i].run() };
        left -= 1;
    }
    for job in jobs.iter().rev() {
        // Stolen, unless it ran above (then its latch is set and this returns at once): help only
        // with its own subtree while it runs (a lock held around the loop is never taken again by
        // unrelated work on this thread).
        worker.wait_for(job.latch().core(), WaitFor::Key(job.id() as usize));
    }
}

/// Runs `body` with an [`Offers`] through which it may offer jobs, then finishes them all (see
/// the module docs); returns `body`'s result and the offered jobs' results in offer order. A
/// panic of `body`, else the first panic of an offered job, resumes after every job finished.
pub(crate) fn with_offers<F, R, T>(body: impl FnOnce(&Offers<'_, F, R>) -> T) -> (T, Vec<R>)
where
    F: FnOnce(bool) -> R + Send,
    R: Send,
{
    WorkerThread::with_current_opt(|worker| {
        let offers = Offers {
            worker,
            region: worker.map_or(RegionTag::ROOT, WorkerThread::region),
            jobs: RefCell::new(Vec::new()),
        };
        let result = unwind::halt_unwinding(|| body(&offers));
        let mut offered = Vec::new();
        let mut panic = None;
        for r in offers.finish() {
            match r {
                Ok(r) => offered.push(r),
                Err(payload) => {
                    panic.get_or_insert(payload);
                }
            }
        }
        match (result, panic) {
            (Err(payload), _) | (Ok(_), Some(payload)) => unwind::resume_unwinding(payload),
            (Ok(result), None) => (result, offered),
        }
    })
}
