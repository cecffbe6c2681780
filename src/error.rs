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
    InvalidEnv { var: &'static str, value: String },
    TooManyThreads { requested: usize, max: usize },
    Io(io::Error),
}

impl ThreadPoolBuildError {
    pub(crate) fn global_already_initialized() -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::GlobalPoolAlreadyInitialized,
        }
    }

    pub(crate) fn invalid_env(var: &'static str, value: String) -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::InvalidEnv { var, value },
        }
    }

    pub(crate) fn too_many_threads(requested: usize, max: usize) -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::TooManyThreads { requested, max },
        }
    }

    pub(crate) fn io(err: io::Error) -> Self {
        ThreadPoolBuildError {
            kind: ErrorKind::Io(err),
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
            ErrorKind::InvalidEnv { var, value } => write!(
                f,
                "invalid value {value:?} for environment variable {var}: expected a positive integer \
                 thread count"
            ),
            ErrorKind::TooManyThreads { requested, max } => write!(
                f,
                "requested {requested} threads, but a pool supports at most {max}"
            ),
            ErrorKind::Io(e) => write!(f, "could not spawn a worker thread: {e}"),
        }
    }
}

impl Error for ThreadPoolBuildError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match &self.kind {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_problem() {
        let e = ThreadPoolBuildError::invalid_env("FORKJOIN_NUM_THREADS", "abc".into());
        let s = e.to_string();
        assert!(
            s.contains("FORKJOIN_NUM_THREADS") && s.contains("\"abc\""),
            "{s}"
        );
        assert!(ThreadPoolBuildError::too_many_threads(70000, 65535)
            .to_string()
            .contains("70000"));
        let io = ThreadPoolBuildError::io(io::Error::other("nope"));
        assert!(io.source().is_some());
        assert!(io.to_string().contains("nope"));
    }
}
