//! [`HandlerPanic`]: what a pool's panic handler receives when a worker's start or exit handler
//! panics, so that it is not mistaken for the panic of a spawned job.

use std::any::Any;
use std::fmt;

use crate::platform::unwind;

/// Which of a worker's own handlers panicked (see [`HandlerPanic`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WorkerHandler {
    /// [`ThreadPoolBuilder::start_handler`](crate::ThreadPoolBuilder::start_handler).
    Start,
    /// [`ThreadPoolBuilder::exit_handler`](crate::ThreadPoolBuilder::exit_handler).
    Exit,
}

impl fmt::Display for WorkerHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WorkerHandler::Start => "start handler",
            WorkerHandler::Exit => "exit handler",
        })
    }
}

/// The panic of a worker's start or exit handler.
///
/// The pool survives it (the worker goes on to run jobs, or to exit): the pool's
/// [`panic_handler`](crate::ThreadPoolBuilder::panic_handler) receives a `HandlerPanic` as its
/// payload, which it can tell from a spawned job's own payload by downcasting. Without a panic
/// handler its `Display` is printed on stderr: "forkjoin: the start handler of worker 1 panicked:
/// ...". (rayon aborts the process instead.)
///
/// ```
/// use forkjoin::{HandlerPanic, WorkerHandler};
/// use std::sync::{mpsc, Mutex};
///
/// let (tx, rx) = mpsc::channel();
/// let tx = Mutex::new(tx);
/// let pool = forkjoin::ThreadPoolBuilder::new()
///     .num_threads(1)
///     .start_handler(|_| panic!("no config file"))
///     .panic_handler(move |payload| {
///         if let Some(p) = payload.downcast_ref::<HandlerPanic>() {
///             tx.lock().unwrap().send((p.handler(), p.to_string())).unwrap();
///         }
///     })
///     .build()
///     .unwrap();
/// let (handler, message) = rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap();
/// assert_eq!(handler, WorkerHandler::Start);
/// assert_eq!(message, "the start handler of worker 0 panicked: no config file");
/// assert_eq!(pool.install(|| 1 + 1), 2); // the worker keeps running
/// ```
pub struct HandlerPanic {
    handler: WorkerHandler,
    worker: usize,
    payload: Box<dyn Any + Send>,
}

impl HandlerPanic {
    pub(crate) fn new(handler: WorkerHandler, worker: usize, payload: Box<dyn Any + Send>) -> Self {
        HandlerPanic {
            handler,
            worker,
            payload,
        }
    }

    /// The handler that panicked.
    pub fn handler(&self) -> WorkerHandler {
        self.handler
    }

    /// The index of the worker whose handler panicked (the index the handler was called with).
    pub fn worker_index(&self) -> usize {
        self.worker
    }

    /// The handler's own panic payload (a `&'static str` or a `String` for `panic!` messages).
    pub fn payload(&self) -> &(dyn Any + Send) {
        &*self.payload
    }

    /// The handler's own panic payload, for `std::panic::resume_unwind` or a downcast by value.
    pub fn into_payload(self) -> Box<dyn Any + Send> {
        self.payload
    }
}

impl fmt::Display for HandlerPanic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the {} of worker {} panicked: {}",
            self.handler,
            self.worker,
            unwind::payload_message(&self.payload)
        )
    }
}

impl fmt::Debug for HandlerPanic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HandlerPanic")
            .field("handler", &self.handler)
            .field("worker", &self.worker)
            .field("message", &unwind::payload_message(&self.payload))
            .finish()
    }
}
