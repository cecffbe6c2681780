//! Telling a child process made by `fork()` from the process that started the pools.
//!
//! `fork()` copies the calling thread only: in the child, every pool started before the fork has
//! its state (queues, sleep slots, thread handles) but none of its threads, so work injected into
//! it would wait forever. The child counts itself here: a handler registered with
//! `pthread_atfork` (once, when the first pool or timer starts) bumps a counter in the child, and
//! whatever started threads records the count it started them under. A mismatch means "my threads
//! were left behind in the parent". Reading the counter is one relaxed load; the handler is one
//! atomic add, which is async-signal-safe, as a handler that runs in the child of a multithreaded
//! process must be.
//!
//! Not modelled under loom or shuttle (a fork is outside their world): std's atomic is used on
//! purpose, and the counter stays 0 there.

use std::sync::atomic::{AtomicU64, Ordering};

/// How many forks separate this process from the one that first called [`watch`].
static FORKS: AtomicU64 = AtomicU64::new(0);

/// Starts counting forks (idempotent). Call it before recording a [`generation`].
pub(crate) fn watch() {
    #[cfg(all(unix, not(any(forkjoin_loom, forkjoin_shuttle))))]
    {
        static WATCHING: std::sync::Once = std::sync::Once::new();
        WATCHING.call_once(|| {
            extern "C" fn in_child() {
                // Relaxed: the child has a single thread when this runs; later reads are on it or
                // on threads it starts (thread creation orders them).
                FORKS.fetch_add(1, Ordering::Relaxed);
            }
            // SAFETY: `in_child` is a plain function with no preconditions that stays valid for
            // the life of the process, and does only an atomic add (async-signal-safe).
            let rc = unsafe { libc::pthread_atfork(None, None, Some(in_child)) };
            // Without the handler a forked child hangs as it did before; nothing else breaks.
            debug_assert_eq!(rc, 0, "pthread_atfork failed");
        });
    }
}

/// The fork generation of this process: 0 in the process that first called [`watch`], one more in
/// each child made by `fork()` since.
#[inline]
pub(crate) fn generation() -> u64 {
    // Relaxed: see `in_child` in `watch`.
    FORKS.load(Ordering::Relaxed)
}
