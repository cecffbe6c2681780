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
use crate::runtime::jobs::job::{ErasedStackJob, JobResult, StackJob};
use crate::runtime::jobs::latch::SpinLatch;
use crate::runtime::jobs::region::RegionTag;
use crate::runtime::registry::worker::WorkerThread;

/// The closure every offered job runs: a piece of the loop's rest. Boxed, so that an [`Offers`]
/// and the loop that drives it are compiled once per result type, not once per loop (a second
/// allocation beside the job's own box, made at most once per request for work, next to items
/// that cost microseconds each).
pub(crate) type OfferedJob<'a, R> = Box<dyn FnOnce(bool) -> R + Send + 'a>;

/// One offered job, signalling the loop's worker when it ran elsewhere.
type Offered<'w, 'a, R> = StackJob<SpinLatch<'w>, OfferedJob<'a, R>, R>;

/// The jobs one loop offered so far (see the module docs), each returning an `R`; `'a` is what
/// they borrow.
pub(crate) struct Offers<'w, 'a, R> {
    /// The loop's worker; `None` outside a pool, where nothing is offered.
    worker: Option<&'w WorkerThread>,
    /// The region the loop runs in: its offered jobs' tag.
    region: RegionTag,
    /// Boxed so that a job stays put while its reference sits in a deque.
    jobs: RefCell<Vec<Box<Offered<'w, 'a, R>>>>,
}

impl<'a, R: Send> Offers<'_, 'a, R> {
    /// Offers `job` to idle workers: pushes it onto this worker's public deque and announces it.
    /// Its result is the next of [`with_offers`]' results. False outside a pool (then `job` is
    /// dropped unrun).
    pub(crate) fn offer(&self, job: OfferedJob<'a, R>) -> bool {
        let Some(worker) = self.worker else {
            return false;
        };
        let job = Box::new(StackJob::new(job, SpinLatch::waking(worker.sleep_slot())));
        // SAFETY: the box is kept in `jobs` and not dropped before `finish` popped the reference
        // back or saw the job's latch set; the closure and R are Send.
        let job_ref = unsafe { job.as_job_ref() }.tagged(self.region);
        self.jobs.borrow_mut().push(job);
        worker.push_offered(job_ref);
        true
    }

    /// Brings every offered job to completion: first those still on top of this worker's deque
    /// (run here, newest first), then the stolen ones (waited for). Their results in offer
    /// order, or the first panic among them.
    fn finish(self) -> Result<Vec<R>, Payload> {
        let jobs = self.jobs.into_inner();
        let Some(worker) = self.worker else {
            return Ok(Vec::new());
        };
        // SAFETY: an erased job runs only if `finish_erased` popped its reference back from the
        // deque, and then no other reference to it is executed.
        let erased: Vec<_> = jobs.iter().map(|job| unsafe { job.erased() }).collect();
        finish_erased(worker, &erased);
        let mut results = Vec::with_capacity(jobs.len());
        let mut panic = None;
        for job in &jobs {
            // SAFETY: every latch is set (`finish_erased`), so each job ran and its executing
            // thread is done with it; each result is taken once.
            match unsafe { job.take_job_result() } {
                JobResult::Ok(result) => results.push(result),
                JobResult::Panic(payload) => {
                    panic.get_or_insert(payload);
                }
            }
        }
        panic.map_or(Ok(results), Err)
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
        worker.wait_for(job.latch().core(), worker.wait_for_job(job.id() as usize));
    }
}

/// Runs `body` with an [`Offers`] through which it may offer jobs, then finishes them all (see
/// the module docs); returns the offered jobs' results in offer order. A panic of `body`, else
/// the first panic of an offered job, resumes after every job finished. `body` is called through
/// `dyn`: this is compiled once per result type (and kept out of line, where the compiler would
/// copy it into each loop).
#[inline(never)]
pub(crate) fn with_offers<'a, R: Send>(body: &mut dyn FnMut(&Offers<'_, 'a, R>)) -> Vec<R> {
    WorkerThread::with_current_opt(|worker| {
        let offers = Offers {
            worker,
            region: worker.map_or(RegionTag::ROOT, WorkerThread::region),
            jobs: RefCell::new(Vec::new()),
        };
        let ran = unwind::halt_unwinding(|| body(&offers));
        match (ran, offers.finish()) {
            (Err(payload), _) | (Ok(()), Err(payload)) => unwind::resume_unwinding(payload),
            (Ok(()), Ok(results)) => results,
        }
    })
}
