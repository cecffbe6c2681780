//! FIFO spawning (`spawn_fifo`, `ScopeFifo::spawn_fifo`) on top of LIFO deques.
//!
//! A worker's deque hands its own jobs back newest first. To run a thread's `spawn_fifo` jobs
//! oldest first, the job itself goes to the back of a [`JobFifo`] (one per worker: the registry's
//! for `spawn_fifo`, the scope's own for a FIFO scope), and the deque gets a *trampoline* that,
//! whenever and by whomever it is run, pops the front of that queue and runs it. So the n-th
//! trampoline to run runs the n-th job queued: the owner pops its trampolines newest first but
//! still runs the jobs oldest first, and a thief that steals a trampoline takes the oldest job too.
//!
//! Every queued job has exactly one trampoline and jobs leave the queue only through trampolines,
//! so a trampoline always finds a job, and once every job has run no trampoline is left to touch
//! the queue: the queue only has to outlive its jobs (a scope waits for them; the registry outlives
//! the workers that run them).

use std::collections::VecDeque;

use crate::platform::sync::Mutex;
use crate::runtime::jobs::job::{HeapJob, JobRef, SendPtr};

/// The queue behind one worker's FIFO jobs (see the module docs).
pub(crate) struct JobFifo {
    queue: Mutex<VecDeque<JobRef>>,
}

impl JobFifo {
    pub(crate) fn new() -> Self {
        JobFifo {
            queue: Mutex::new(VecDeque::new()),
        }
    }

    /// Queues `job` and returns the trampoline to push on the worker's deque in its place.
    ///
    /// # Safety
    /// `self` must outlive the execution of `job`, and the trampoline must be executed exactly once
    /// (pushed on a deque of the pool that runs it).
    pub(crate) unsafe fn push(&self, job: JobRef) -> JobRef {
        self.queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(job);
        let fifo = SendPtr::new(self as *const JobFifo);
        let trampoline = HeapJob::new(move || {
            let fifo = fifo;
            // SAFETY: the queue outlives its jobs (caller contract), and this trampoline runs before
            // the job it pops.
            let fifo = unsafe { &*fifo.0 };
            let job = fifo
                .queue
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .pop_front()
                .expect("one queued job per trampoline");
            // SAFETY: each queued JobRef is popped, and so executed, exactly once.
            unsafe { job.execute() };
        });
        // SAFETY: the trampoline borrows only the queue, which outlives it (see above); run once.
        unsafe { trampoline.into_job_ref() }
    }
}
