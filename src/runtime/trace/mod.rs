//! Trace export: what each worker did and when, written as Chrome trace-event JSON for Perfetto and
//! chrome://tracing.
//!
//! **Switching it on.** A pool traces when it is built with `ThreadPoolBuilder::trace_file(path)` or,
//! failing that, when `FORKJOIN_TRACE=path` is set at build time (the global pool included). Each
//! worker then owns a ring ([`ring`]) of the last `capacity` events (`trace_capacity(n)` or
//! `FORKJOIN_TRACE_CAPACITY`, default [`DEFAULT_CAPACITY`]), which only it writes; outside threads
//! record their `install` spans in a small shared log (they already take the injector's lock on
//! that path). A pool that does not trace has no ring: every event site in the scheduler is one
//! test of an `Option` the worker already holds, and none is on the `join` fast path.
//!
//! **Writing.** Pools traced to the same path share one file, one process (`pid`) per pool. The file
//! is (re)written whole, with every pool recorded for that path so far, when such a pool is dropped
//! (once its threads have exited), by [`crate::flush_trace`], and at process exit (an `atexit` hook on
//! Unix, registered with the first traced pool): that is how the global pool, which is never
//! dropped, gets written. Live pools are read with a seqlock snapshot of their rings, so a flush
//! never stops a worker.
//!
//! **Clock.** Events are stamped with [`crate::platform::clock::ticks`] (the time-stamp counter on
//! x86-64, cheaper to read than `Instant::now`) and converted to nanoseconds only when the
//! file is written, with the clock's calibration. Each worker's readings go through its ring writer,
//! which never lets them decrease, so its spans nest even if the thread moves to a core whose
//! counter lags. Time 0 is the start of the process's first traced pool.
//!
//! The format, every event and how to open a file are in `docs/tracing.md`.

mod event;
mod json;
mod ring;

use std::collections::VecDeque;
use std::io;
use std::path::{Path, PathBuf};

pub(crate) use self::event::{Event, JobKind, Source, WakeReason};
use self::json::{CallerSnapshot, PoolSnapshot};
use self::ring::Ring;
pub(crate) use self::ring::RingWriter;
use crate::platform::sync::{shared, Arc, AtomicBool, Mutex, Ordering};

/// The environment variable naming the trace file of pools built without `trace_file`.
pub(crate) const TRACE_ENV: &str = "FORKJOIN_TRACE";
/// The environment variable setting each ring's capacity (events kept per worker).
pub(crate) const CAPACITY_ENV: &str = "FORKJOIN_TRACE_CAPACITY";
/// Events each worker keeps by default (32 bytes each: 2 MiB per worker).
pub(crate) const DEFAULT_CAPACITY: usize = 1 << 16;

/// How a pool traces (the builder's options and the environment, resolved).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TraceConfig {
    /// The file to write.
    pub(crate) path: PathBuf,
    /// Events kept per worker (and per outside caller), at least 1.
    pub(crate) capacity: usize,
    /// The global pool (named so in the file).
    pub(crate) global: bool,
}

/// `FORKJOIN_TRACE`, if set and not empty.
pub(crate) fn path_from_env() -> Option<PathBuf> {
    std::env::var_os(TRACE_ENV)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

/// `FORKJOIN_TRACE_CAPACITY`: `Ok(None)` if unset, `Err(raw value)` if not a positive integer.
pub(crate) fn capacity_from_env() -> Result<Option<usize>, String> {
    match std::env::var_os(CAPACITY_ENV) {
        None => Ok(None),
        Some(raw) => {
            let text = raw.to_string_lossy();
            match text.trim().parse::<usize>() {
                Ok(n) if n > 0 => Ok(Some(n)),
                _ => Err(text.into_owned()),
            }
        }
    }
}

/// Everything one pool records: one ring per worker, the outside callers' spans.
pub(crate) struct PoolTrace {
    /// The pool's `pid` in the file: 1 for the process's first traced pool, and so on.
    pid: u32,
    name: String,
    path: PathBuf,
    capacity: usize,
    rings: Box<[Arc<Ring>]>,
    callers: Mutex<Vec<CallerTrack>>,
    /// [`finish`](Self::finish) ran: the file holds the pool's final events.
    finished: AtomicBool,
}

/// The `install` spans of one outside thread.
struct CallerTrack {
    thread: shared::ThreadId,
    name: String,
    /// `(begin, end)` ticks; at most `capacity`, the oldest dropped first.
    spans: VecDeque<(u64, u64)>,
    dropped: u64,
}

impl PoolTrace {
    /// Starts recording for a pool of `num_threads` workers: registers it for its file (and the
    /// process-exit flush) and returns each worker's ring writer, in index order.
    pub(crate) fn start(
        config: &TraceConfig,
        num_threads: usize,
    ) -> (Arc<PoolTrace>, Vec<RingWriter>) {
        let capacity = config.capacity.max(1);
        let (rings, writers): (Vec<_>, Vec<_>) =
            (0..num_threads).map(|_| Ring::new(capacity)).unzip();
        let mut sinks = lock_sinks();
        sinks
            .origin
            .get_or_insert_with(crate::platform::clock::ticks);
        sinks.next_pid += 1;
        let pid = sinks.next_pid;
        let workers = if num_threads == 1 {
            "worker"
        } else {
            "workers"
        };
        let name = if config.global {
            format!("forkjoin global pool ({num_threads} {workers})")
        } else {
            format!("forkjoin pool {pid} ({num_threads} {workers})")
        };
        let trace = Arc::new(PoolTrace {
            pid,
            name,
            path: config.path.clone(),
            capacity,
            rings: rings.into_boxed_slice(),
            callers: Mutex::new(Vec::new()),
            finished: AtomicBool::new(false),
        });
        sinks.file(&config.path).live.push(trace.clone());
        if !sinks.exit_hook {
            sinks.exit_hook = true;
            register_exit_hook();
        }
        (trace, writers)
    }

    /// Records an `install` from a thread outside the pool, from `begin` to `end` ticks.
    pub(crate) fn record_install(&self, begin: u64, end: u64) {
        let (thread, name) = crate::platform::sync::current_thread_identity();
        let mut callers = self.callers.lock().unwrap_or_else(|e| e.into_inner());
        let index = match callers.iter().position(|c| c.thread == thread) {
            Some(i) => i,
            None => {
                let name = match name {
                    Some(n) => format!("caller: {n}"),
                    None => format!("caller: thread {}", callers.len() + 1),
                };
                callers.push(CallerTrack {
                    thread,
                    name,
                    spans: VecDeque::new(),
                    dropped: 0,
                });
                callers.len() - 1
            }
        };
        let track = &mut callers[index];
        if track.spans.len() == self.capacity {
            track.spans.pop_front();
            track.dropped += 1;
        }
        track.spans.push_back((begin, end));
    }

    /// Reads everything recorded so far (the pool may still run).
    fn snapshot(&self) -> PoolSnapshot {
        let callers = self.callers.lock().unwrap_or_else(|e| e.into_inner());
        PoolSnapshot {
            pid: self.pid,
            name: self.name.clone(),
            capacity: self.capacity,
            workers: self.rings.iter().map(|r| r.snapshot()).collect(),
            callers: callers
                .iter()
                .map(|c| CallerSnapshot {
                    name: c.name.clone(),
                    spans: c.spans.iter().copied().collect(),
                    dropped: c.dropped,
                })
                .collect(),
        }
    }

    /// The pool is gone (its threads have exited): keeps its events for its file and rewrites the
    /// file. An I/O error is reported on stderr (this runs in a `Drop`).
    /// Once only: by the pool's handle once it joined the threads, or else when the registry is
    /// dropped (whoever drops the last reference, the stall monitor's tick included).
    pub(crate) fn finish(&self) {
        // Relaxed: both callers run after the threads exited; the swap only makes it once.
        if self.finished.swap(true, Ordering::Relaxed) {
            return;
        }
        let mut sinks = lock_sinks();
        let origin = sinks.origin.unwrap_or(0);
        let rendered = Rendered::of(&self.snapshot(), origin);
        let file = sinks.file(&self.path);
        file.live.retain(|p| !std::ptr::eq(&**p, self));
        file.finished.push(rendered);
        if let Err(err) = file.write(origin) {
            crate::platform::unwind::report(format_args!(
                "could not write the trace file {}: {err}",
                self.path.display()
            ));
        }
    }
}

/// Every trace file of the process and the pools recorded for it.
struct Sinks {
    /// Tick count of time 0 in every file: when the first traced pool started.
    origin: Option<u64>,
    /// The last `pid` handed out.
    next_pid: u32,
    files: Vec<SinkFile>,
    /// The process-exit flush is registered.
    exit_hook: bool,
}

/// One trace file: the pools already dropped (rendered) and those still running.
struct SinkFile {
    path: PathBuf,
    /// The dropped pools, in drop order.
    finished: Vec<Rendered>,
    live: Vec<Arc<PoolTrace>>,
}

/// One pool's part of a file.
struct Rendered {
    pid: u32,
    /// Its trace events (see [`json::write_pool`]).
    events: String,
    /// Its `otherData` entry (see [`json::write_pool_summary`]).
    summary: String,
}

impl Rendered {
    fn of(snapshot: &PoolSnapshot, origin: u64) -> Rendered {
        let mut events = String::new();
        json::write_pool(&mut events, snapshot, origin);
        let mut summary = String::new();
        json::write_pool_summary(&mut summary, snapshot);
        Rendered {
            pid: snapshot.pid,
            events,
            summary,
        }
    }
}

impl Sinks {
    /// The sink of `path`, created on first use.
    fn file(&mut self, path: &Path) -> &mut SinkFile {
        let index = match self.files.iter().position(|f| f.path == path) {
            Some(i) => i,
            None => {
                self.files.push(SinkFile {
                    path: path.to_path_buf(),
                    finished: Vec::new(),
                    live: Vec::new(),
                });
                self.files.len() - 1
            }
        };
        &mut self.files[index]
    }
}

impl SinkFile {
    /// Writes the whole file: the dropped pools, then a snapshot of the live ones, by `pid`.
    fn write(&self, origin: u64) -> io::Result<()> {
        let live: Vec<Rendered> = self
            .live
            .iter()
            .map(|trace| Rendered::of(&trace.snapshot(), origin))
            .collect();
        let mut pools: Vec<&Rendered> = self.finished.iter().chain(&live).collect();
        pools.sort_by_key(|p| p.pid);
        let events: String = pools.iter().map(|p| p.events.as_str()).collect();
        let summaries: Vec<&str> = pools.iter().map(|p| p.summary.as_str()).collect();
        // Written beside it and renamed into place: a reader (a viewer, a test waiting for the
        // file) sees the old file or the whole new one, never half of it.
        let mut partial = self.path.clone().into_os_string();
        partial.push(".partial");
        std::fs::write(&partial, json::file(&events, &summaries))?;
        std::fs::rename(&partial, &self.path)
    }
}

// std's mutex in every build: it lives in a static, which loom's types cannot (and the trace is
// never model-checked).
static SINKS: shared::Mutex<Sinks> = shared::Mutex::new(Sinks {
    origin: None,
    next_pid: 0,
    files: Vec::new(),
    exit_hook: false,
});

fn lock_sinks() -> shared::MutexGuard<'static, Sinks> {
    SINKS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes every trace file now, with what each traced pool has recorded so far; see the crate
/// docs of [`crate::flush_trace`].
pub(crate) fn flush_all() -> io::Result<()> {
    let sinks = lock_sinks();
    let origin = sinks.origin.unwrap_or(0);
    let mut result = Ok(());
    // A file whose pools have all finished was written by the last one's `finish`; rewriting it
    // at exit would fail if the user has moved it or removed its folder since.
    for file in sinks.files.iter().filter(|f| !f.live.is_empty()) {
        if let Err(err) = file.write(origin) {
            if result.is_ok() {
                result = Err(io::Error::new(
                    err.kind(),
                    format!(
                        "could not write the trace file {}: {err}",
                        file.path.display()
                    ),
                ));
            }
        }
    }
    result
}

/// Registers [`flush_at_exit`] with the C runtime, once per process.
fn register_exit_hook() {
    #[cfg(all(unix, not(forkjoin_loom)))]
    {
        // SAFETY: `atexit` only stores the function pointer; `flush_at_exit` is a plain `extern "C"`
        // function that never unwinds (it catches panics) and lives for the whole process.
        let registered = unsafe { libc::atexit(flush_at_exit) } == 0;
        if !registered {
            crate::platform::unwind::report(format_args!(
                "could not register the trace flush at exit; call forkjoin::flush_trace()"
            ));
        }
    }
}

/// The process is exiting: write every trace file (the global pool is never dropped).
#[cfg(all(unix, not(forkjoin_loom)))]
extern "C" fn flush_at_exit() {
    let result = std::panic::catch_unwind(flush_all);
    match result {
        Ok(Ok(())) => {}
        Ok(Err(err)) => crate::platform::unwind::report(format_args!("{err}")),
        Err(_) => {
            crate::platform::unwind::report(format_args!("writing the trace at exit panicked"))
        }
    }
}
