//! The error type of pool construction.

use std::error::Error;
use std::fmt;
use std::io;

/// Why a [`ThreadPoolBuilder`](crate::ThreadPoolBuilder) could not build a pool.
///
/// Opaque on purpose (variants may be added); its `Display` says what went wrong (for a second
/// `build_global`, in rayon's words: "The global thread pool has already been initialized.").
///
/// ```
/// let first = forkjoin::ThreadPoolBuilder::new().num_threads(2).build_global();
/// let second = forkjoin::ThreadPoolBuilder::new().num_threads(2).build_global();
/// // Whatever happened first (another test may have started the global pool), the second call fails.
/// let err = second.unwrap_err();
/// assert!(err.to_string().contains("already"));
/// # let _ = first;
/// ```
#[derive(Debug)]
pub struct ThreadPoolBuildError {
    kind: ErrorKind,
}

#[derive(Debug)]
enum ErrorKind {
    GlobalPoolAlreadyInitialized,
    InvalidEnv {
        var: &'static str,
        value: String,
        /// What the variable holds, e.g. "a positive integer thread count".
        expected: &'static str,
    },
    /// `trace_capacity(0)`.
    ZeroTraceCapacity,
    TooManyThreads {
        requested: usize,
        max: usize,
        /// The environment variable the count came from, if it did.
        var: Option<&'static str>,
    },
    /// Worker `worker` of `threads` could not be spawned; `started` threads had been and were
    /// stopped.
    Spawn {
        worker: usize,
        threads: usize,
        started: usize,
        err: io::Error,
    },
    /// `pin_threads(true)` on a platform without thread affinity.
    PinUnsupported,
    /// `pin_threads(true)`, but the process's allowed CPU set could not be read.
    AffinityQuery(io::Error),
    /// `pin_threads(true)`, but the process's allowed CPU set is empty.
    NoAllowedCpus,
    /// `use_current_thread()`, but the building thread already is a worker of a pool.
    CurrentThreadInPool,
    /// `thread_name` gave worker `index` a name with a NUL byte.
    NulInThreadName {
        index: usize,
        name: String,
    },
    /// `set_num_threads(0)`.
    ResizeToZero,
    /// `set_num_threads` on a pool whose threads a `spawn_handler` starts.
    NotResizable,
    /// `set_num_threads(requested)` past the pool's capacity.
    BeyondCapacity {
        requested: usize,
        capacity: usize,
    },
    /// A resize to `requested` could not spawn worker `worker`; the pool has `worker` threads.
    Grow {
        worker: usize,
        requested: usize,
        err: io::Error,
    },
    /// `pin_threads(true)`, but a worker could not pin itself.
    Pin {
        worker: usize,
        cpu: usize,
        err: io::Error,
    },
}

impl ThreadPoolBuildError {
    pub(crate) fn global_already_initialized() -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::GlobalPoolAlreadyInitialized,
        }
    }

    /// `var` holds `value`, which is not `expected` (e.g. "a positive integer thread count").
    pub(crate) fn invalid_env(var: &'static str, value: String, expected: &'static str) -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::InvalidEnv {
                var,
                value,
                expected,
            },
        }
    }

    pub(crate) fn zero_trace_capacity() -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::ZeroTraceCapacity,
        }
    }

    pub(crate) fn too_many_threads(requested: usize, max: usize) -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::TooManyThreads {
                requested,
                max,
                var: None,
            },
        }
    }

    /// Environment variable `var` asks for `requested` threads, more than `max`.
    pub(crate) fn too_many_threads_in_env(var: &'static str, requested: usize, max: usize) -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::TooManyThreads {
                requested,
                max,
                var: Some(var),
            },
        }
    }

    pub(crate) fn pin_unsupported() -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::PinUnsupported,
        }
    }

    pub(crate) fn affinity_query(err: io::Error) -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::AffinityQuery(err),
        }
    }

    pub(crate) fn no_allowed_cpus() -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::NoAllowedCpus,
        }
    }

    /// Worker `worker` of `threads` could not be spawned (or the spawn handler failed), after
    /// `started` others were.
    pub(crate) fn spawn_failed(
        worker: usize,
        threads: usize,
        started: usize,
        err: io::Error,
    ) -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::Spawn {
                worker,
                threads,
                started,
                err,
            },
        }
    }

    /// Worker `worker` could not be pinned to CPU `cpu`.
    pub(crate) fn pin_failed(worker: usize, cpu: usize, err: io::Error) -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::Pin { worker, cpu, err },
        }
    }

    /// `thread_name` named worker `index` `name`, which holds a NUL byte.
    pub(crate) fn nul_in_thread_name(index: usize, name: String) -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::NulInThreadName { index, name },
        }
    }

    /// `set_num_threads(0)`.
    pub(crate) fn resize_to_zero() -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::ResizeToZero,
        }
    }

    /// `set_num_threads` on a pool whose threads are a spawn handler's.
    pub(crate) fn not_resizable() -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::NotResizable,
        }
    }

    /// `set_num_threads(requested)` on a pool with room for `capacity` threads.
    pub(crate) fn beyond_capacity(requested: usize, capacity: usize) -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::BeyondCapacity {
                requested,
                capacity,
            },
        }
    }

    /// Growing to `requested` threads stopped at worker `worker`, which could not be spawned.
    pub(crate) fn grow_failed(worker: usize, requested: usize, err: io::Error) -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::Grow {
                worker,
                requested,
                err,
            },
        }
    }

    /// `use_current_thread` on a thread that already is a worker.
    pub(crate) fn current_thread_in_pool() -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::CurrentThreadInPool,
        }
    }
}

impl fmt::Display for ThreadPoolBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            // rayon's text, word for word: code ported from rayon may compare it.
            ErrorKind::GlobalPoolAlreadyInitialized => {
                f.write_str("The global thread pool has already been initialized.")
            }
            ErrorKind::InvalidEnv {
                var,
                value,
                expected,
            } => write!(
                f,
                "invalid value {value:?} for environment variable {var}: expected {expected}"
            ),
            ErrorKind::ZeroTraceCapacity => {
                f.write_str("trace_capacity(0): each worker must keep at least one trace event")
            }
            ErrorKind::TooManyThreads {
                requested,
                max,
                var: None,
            } => write!(
                f,
                "requested {requested} threads, but a pool supports at most {max}"
            ),
            ErrorKind::TooManyThreads {
                requested,
                max,
                var: Some(var),
            } => write!(
                f,
                "environment variable {var} requests {requested} threads, but a pool supports \
                 at most {max}"
            ),
            ErrorKind::Spawn {
                worker,
                threads,
                started,
                err,
            } => write!(
                f,
                "could not spawn worker thread {worker} of {threads} ({started} had started and \
                 were stopped): {err}"
            ),
            ErrorKind::PinUnsupported => f.write_str(
                "pin_threads(true): pinning worker threads to CPUs is supported on Linux only",
            ),
            ErrorKind::AffinityQuery(e) => write!(
                f,
                "pin_threads(true): could not read the CPUs the process may run on \
                 (sched_getaffinity): {e}"
            ),
            ErrorKind::NoAllowedCpus => f.write_str(
                "pin_threads(true): the process may run on no CPU (its affinity set is empty)",
            ),
            ErrorKind::CurrentThreadInPool => f.write_str(
                "use_current_thread(): the current thread is already a worker of a thread pool",
            ),
            ErrorKind::NulInThreadName { index, name } => write!(
                f,
                "thread_name(): the name {name:?} of worker {index} contains a NUL byte, \
                 which a thread name may not"
            ),
            ErrorKind::ResizeToZero => {
                f.write_str("set_num_threads(0): a pool needs at least one thread")
            }
            ErrorKind::NotResizable => f.write_str(
                "this pool's threads are started by its spawn_handler, so it cannot be resized \
                 (set_num_threads, follow_cpu_limit)",
            ),
            ErrorKind::BeyondCapacity {
                requested,
                capacity,
            } => write!(
                f,
                "set_num_threads({requested}): this pool has room for at most {capacity} threads \
                 (ThreadPoolBuilder::resizable_up_to sets it)"
            ),
            ErrorKind::Grow {
                worker,
                requested,
                err,
            } => write!(
                f,
                "set_num_threads({requested}): could not spawn worker thread {worker}, so the pool \
                 has {worker} threads: {err}"
            ),
            ErrorKind::Pin { worker, cpu, err } => write!(
                f,
                "pin_threads(true): worker {worker} could not pin itself to CPU {cpu} \
                 (sched_setaffinity): {err}"
            ),
        }
    }
}

impl Error for ThreadPoolBuildError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match &self.kind {
            ErrorKind::Spawn { err: e, .. }
            | ErrorKind::AffinityQuery(e)
            | ErrorKind::Grow { err: e, .. }
            | ErrorKind::Pin { err: e, .. } => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_problem() {
        let e = ThreadPoolBuildError::invalid_env(
            "FORKJOIN_NUM_THREADS",
            "abc".into(),
            "a positive integer thread count",
        );
        let s = e.to_string();
        assert!(
            s.contains("FORKJOIN_NUM_THREADS")
                && s.contains("\"abc\"")
                && s.contains("thread count"),
            "{s}"
        );
        assert!(ThreadPoolBuildError::zero_trace_capacity()
            .to_string()
            .contains("trace_capacity(0)"));
        assert!(ThreadPoolBuildError::too_many_threads(70000, 65535)
            .to_string()
            .contains("70000"));
        let io = ThreadPoolBuildError::spawn_failed(5, 8, 4, io::Error::other("nope"));
        assert!(io.source().is_some());
        let s = io.to_string();
        assert!(
            s.contains("nope") && s.contains("worker thread 5 of 8") && s.contains("4 had started"),
            "{s}"
        );
        let pin = ThreadPoolBuildError::pin_failed(3, 7, io::Error::other("refused"));
        let s = pin.to_string();
        assert!(
            s.contains("worker 3") && s.contains("CPU 7") && s.contains("refused"),
            "{s}"
        );
        assert!(pin.source().is_some());
        assert!(ThreadPoolBuildError::no_allowed_cpus()
            .to_string()
            .contains("no CPU"));
        assert!(ThreadPoolBuildError::pin_unsupported()
            .to_string()
            .contains("Linux only"));
        let query = ThreadPoolBuildError::affinity_query(io::Error::other("denied"));
        assert!(query.to_string().contains("denied") && query.source().is_some());
        let s = ThreadPoolBuildError::nul_in_thread_name(2, "w\0x".into()).to_string();
        assert!(
            s.contains("worker 2") && s.contains("NUL") && s.contains(r#""w\0x""#),
            "{s}"
        );
    }
}
