//! [`spawn_future`]: a `spawn` whose result comes back as a [`JobFuture`].

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::platform::sync::{shared, Arc};
use crate::platform::unwind::{self, Payload};
use crate::runtime::cancel::node::Node;
use crate::runtime::cancel::Cancelled;
use crate::runtime::future::oneshot::{self, Receiver};
use crate::runtime::registry::entry;
use crate::runtime::registry::worker::WorkerThread;
use crate::runtime::registry::Registry;

/// Runs `func` on the current pool (the global pool from outside any pool), like
/// [`spawn`](crate::spawn), and returns a future of its result.
///
/// The job starts at once, whether or not the future is ever polled: awaiting it only collects the
/// result. The returned [`JobFuture`] needs no async runtime (any executor, or
/// [`block_on`](crate::block_on), can await it) and wakes its task when the result is ready.
///
/// A panic in `func` is caught on the pool and raised again where the future is awaited (the
/// worker and the pool carry on). **Dropping the future cancels the job**: if it has not started
/// it never runs, and if it runs it stops at its next boundary (see
/// [`cancellable`](crate::cancellable)). Made under a [`CancelToken`](crate::CancelToken)'s
/// work, the job is cancelled with that work too.
///
/// ```
/// let future = forkjoin::spawn_future(|| (1..=10).product::<u64>());
/// assert_eq!(forkjoin::block_on(future), 3_628_800);
/// ```
///
/// From an async runtime (here a minimal one; any executor works the same way):
///
/// ```
/// async fn sum_of_squares(n: u64) -> u64 {
///     let squares = forkjoin::spawn_future(move || {
///         use forkjoin::prelude::*;
///         (0..n).into_par_iter().map(|i| i * i).sum::<u64>()
///     });
///     squares.await
/// }
/// assert_eq!(forkjoin::block_on(sum_of_squares(4)), 14);
/// ```
pub fn spawn_future<F, R>(func: F) -> JobFuture<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    entry::with_current_registry(|registry| spawn_future_in(registry, func))
}

/// [`spawn_future`] into `registry`'s pool ([`ThreadPool::spawn_future`](crate::ThreadPool::spawn_future)).
pub(crate) fn spawn_future_in<F, R>(registry: &Arc<Registry>, func: F) -> JobFuture<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let (sender, receiver) = oneshot::channel();
    // The job's own node, which dropping the future cancels; made under a node (a `cancellable`'s
    // work), cancelled with it too.
    let outer = WorkerThread::with_current(WorkerThread::cancel_node_shared).flatten();
    let node = match &outer {
        Some(outer) => Node::child_of(&[outer]),
        None => Node::new(),
    };
    let job_node = node.clone();
    // A plain `spawn` job: it keeps the pool alive until it has run. `func`'s panic is caught here
    // and sent to the future; what could still unwind (a waker's `wake_by_ref`, user code) goes to
    // the pool's panic handler, like a panic of any spawned job. Not started when its future was
    // dropped, it does not run.
    let reply = Reply(Some(sender));
    entry::spawn(registry, move || {
        let reply = reply;
        if job_node.is_cancelled() {
            // `reply` answers `Cancelled` as it drops.
            drop(func);
            return;
        }
        let result = WorkerThread::with_current(|wt| wt.run_under(&job_node, func))
            .expect("spawned jobs run on a worker");
        reply.send(result);
    });
    JobFuture {
        receiver: Some(receiver),
        node,
    }
}

/// The sending half of a job's channel: answers the `Cancelled` payload if the job is dropped
/// unrun (its future dropped, or the work it was made in cancelled before it started), so that an
/// awaited future always resolves.
struct Reply<R>(Option<oneshot::Sender<Result<R, Payload>>>);

impl<R> Reply<R> {
    fn send(mut self, result: Result<R, Payload>) {
        if let Some(sender) = self.0.take() {
            sender.send(result);
        }
    }
}

impl<R> Drop for Reply<R> {
    fn drop(&mut self) {
        if let Some(sender) = self.0.take() {
            sender.send(Err(Box::new(Cancelled)));
        }
    }
}

/// The future of a job started by [`spawn_future`] or [`ThreadPool::spawn_future`](crate::ThreadPool::spawn_future):
/// resolves to the job's result.
///
/// `Send` (if `R` is), `Unpin`, and tied to no async runtime: it is woken by the pool thread that
/// finishes the job. The waker of its latest poll is the one woken, once, when the result is
/// ready (or the one of an earlier poll that [`will_wake`](std::task::Waker::will_wake) the same
/// task).
///
/// **Panics.** Polling it raises the job's panic, if the job panicked, with the job's payload (it
/// resumes unwinding, as [`join`](crate::join()) does; an async runtime that catches task panics,
/// such as tokio, reports it as that task's panic). Polling it again after it returned its result
/// panics.
///
/// **Dropping it** before the job is done cancels the job: a job that has not started is dropped
/// unrun, and a running one stops at its next boundary (see [`cancellable`](crate::cancellable));
/// its result, if it still finishes, is dropped on the pool thread that ran it. Nothing leaks. A
/// job cancelled with the work it was made in (under a [`CancelToken`](crate::CancelToken)) makes
/// its future raise the [`Cancelled`] payload, as a panic, where it is awaited.
///
/// ```
/// use std::future::Future;
/// use std::task::{Context, Poll, Waker};
///
/// let pool = forkjoin::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let mut future: forkjoin::JobFuture<&str> = pool.spawn_future(|| "done");
/// // Poll it by hand (a no-op waker: we only look once the job has surely run).
/// pool.install(|| {}); // the pool's one worker ran the job before this injected one
/// let mut cx = Context::from_waker(Waker::noop());
/// assert_eq!(std::pin::Pin::new(&mut future).poll(&mut cx), Poll::Ready("done"));
/// ```
#[must_use = "dropping the future cancels its job"]
pub struct JobFuture<R> {
    /// `None` once the result was returned.
    receiver: Option<Receiver<Result<R, Payload>>>,
    /// The job's cancellation node: cancelled when the future is dropped.
    node: shared::Arc<Node>,
}

impl<R> Drop for JobFuture<R> {
    fn drop(&mut self) {
        // After the result came back this stops nothing (the job is done).
        self.node.cancel();
    }
}

impl<R> Future for JobFuture<R> {
    type Output = R;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<R> {
        let receiver = self
            .receiver
            .as_mut()
            .expect("JobFuture polled after it returned its result");
        let Poll::Ready(result) = receiver.poll_recv(cx.waker()) else {
            return Poll::Pending;
        };
        self.receiver = None;
        match result {
            Ok(value) => Poll::Ready(value),
            Err(payload) => unwind::resume_unwinding(payload),
        }
    }
}

impl<R> fmt::Debug for JobFuture<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JobFuture")
            .field("receiver", &self.receiver)
            .finish()
    }
}
