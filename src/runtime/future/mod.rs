//! Futures: [`spawn_future`](crate::spawn_future) hands a job to the pool and returns a
//! [`JobFuture`](crate::JobFuture) of its result; [`block_on`](crate::block_on) runs any future to
//! completion on the calling thread.
//!
//! ```text
//! future/
//!   oneshot.rs        the job → future channel: one value, the latest waker, lock-free
//!   spawn_future.rs   spawn_future, ThreadPool::spawn_future's body, JobFuture
//!   block_on.rs       block_on: park a plain thread; keep a worker at work (WakeLatch)
//! ```
//!
//! **A job's result, as a future.** `spawn_future(f)` spawns an ordinary heap job (like
//! [`spawn`](crate::spawn)) that runs `f` (catching a panic) and sends the outcome through a
//! [`oneshot`] channel; the `JobFuture` holds the receiving half. The channel is one atomic word
//! of three flags (`WAKER`, `SENT`, `CLOSED`) and two cells (the value, the latest waker): the
//! sender's `SENT` and the receiver's `WAKER` are set by read-modify-writes of that word, so
//! whichever comes second sees the other, and either the poll finds the value or the sender
//! finds the waker. `oneshot.rs` gives the states, who may touch which cell, and why no wake-up
//! is lost; `loom-tests/models/future.rs` checks it.
//!
//! **Waiting for a future.** `block_on` polls on the calling thread. A plain thread parks between
//! polls, and its waker unparks it. A worker must not block its pool, so it waits the way `join`
//! waits for a stolen job: each pending poll gets a fresh [`WakeLatch`](block_on::WakeLatch) (a
//! `CoreLatch` plus the worker's sleep slot), whose waker sets it, and the worker runs
//! `WorkerThread::wait_until` on it, executing pool jobs until it is set and sleeping through the
//! pool's idle protocol when there are none. The waker then wakes the worker with
//! `Sleep::notify_worker_latch_is_set`, like any latch set from another pool.

pub(crate) mod block_on;
pub(crate) mod oneshot;
pub(crate) mod spawn_future;
