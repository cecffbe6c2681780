//! The Chrome trace-event JSON writer (no serde: a handful of object shapes, written by hand).
//!
//! A file is `{"traceEvents":[...],"otherData":{...}}`. Each pool is one process (`pid`), each
//! worker and each outside caller one thread (`tid`) with a `thread_name` metadata event; spans are
//! complete events (`"ph":"X"`, `ts` + `dur`), instants `"ph":"i"` with thread scope. Times are
//! microseconds since the process's first traced pool started, at nanosecond resolution (see
//! [`write_us`]). `docs/tracing.md` lists every event.
//!
//! What the importers need, checked against Perfetto's JSON tokenizer: no `displayTimeUnit` (Perfetto
//! reads `ts` in that unit rather than in microseconds); `ts` before any array in an event (there is
//! none); only the escapes `\"`, `\\` and `\n`-style in event names (`\u` appears at most inside
//! `args`, in a caller thread's name); and spans that nest on each track.

use std::fmt::Write as _;

use super::event::{Event, Source, WakeReason};
use super::ring::{Recorded, Snapshot};

/// Everything one pool recorded, read back for writing.
pub(crate) struct PoolSnapshot {
    /// The `pid` of the pool's process in the file.
    pub(crate) pid: u32,
    /// The process name ("forkjoin pool 2 (4 workers)").
    pub(crate) name: String,
    /// Events each ring keeps.
    pub(crate) capacity: usize,
    /// One per worker, in index order.
    pub(crate) workers: Vec<Snapshot>,
    /// One per outside thread that called into the pool.
    pub(crate) callers: Vec<CallerSnapshot>,
}

/// The `install` spans of one thread outside the pool.
pub(crate) struct CallerSnapshot {
    pub(crate) name: String,
    /// `(begin, end)` ticks, oldest first.
    pub(crate) spans: Vec<(u64, u64)>,
    pub(crate) dropped: u64,
}

/// Appends `s` to `out` as a JSON string literal (quotes included).
pub(crate) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Writes a nanosecond count as microseconds, plus a quarter of a nanosecond: `1234.56725` for
/// 1,234,567 ns. An importer that multiplies by 1000 and truncates (Perfetto does) and one that
/// rounds both get the exact nanosecond back; without the quarter, `x.xx5` can come back a
/// nanosecond short after the float multiplication, and a span that ends where its parent ends
/// could then seem to overlap it.
fn write_us(out: &mut String, ns: u64) {
    let _ = write!(out, "{}.{:03}25", ns / 1000, ns % 1000);
}

/// Converts ticks to nanoseconds since `origin`.
fn ns_since(origin: u64, ticks: u64) -> u64 {
    crate::platform::clock::ticks_to_ns(ticks.saturating_sub(origin))
}

/// Starts an event object: `{"name":..,"cat":..,"ph":..,"pid":..,"tid":..`.
fn open(out: &mut String, name: &str, cat: &str, ph: &str, pid: u32, tid: u32) {
    out.push_str("{\"name\":");
    write_string(out, name);
    out.push_str(",\"cat\":");
    write_string(out, cat);
    let _ = write!(out, ",\"ph\":\"{ph}\",\"pid\":{pid},\"tid\":{tid}");
}

/// A metadata event (`"ph":"M"`) whose `args` hold one `key`, a string or a number (`raw`).
fn metadata(out: &mut String, name: &str, pid: u32, tid: u32, key: &str, value: MetaValue<'_>) {
    out.push_str("{\"name\":");
    write_string(out, name);
    let _ = write!(out, ",\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\"args\":{{");
    write_string(out, key);
    out.push(':');
    match value {
        MetaValue::Text(s) => write_string(out, s),
        MetaValue::Number(n) => {
            let _ = write!(out, "{n}");
        }
    }
    out.push_str("}},\n");
}

enum MetaValue<'a> {
    Text(&'a str),
    Number(u64),
}

/// Where a job came from, in words.
fn source_text(source: Source) -> String {
    match source {
        Source::OwnDeque => "own deque".to_string(),
        Source::Injector => "injector".to_string(),
        Source::Stolen(v) => format!("worker {v} (stolen)"),
        Source::Patrol(v) => format!("worker {v} (patrol)"),
    }
}

/// An event's name, category and `args` object (without braces).
fn describe(event: Event) -> (&'static str, &'static str, String) {
    let job_id = |job: u64| format!("\"job\":\"{job:#x}\"");
    match event {
        Event::Job { kind, source, job } => {
            let mut args = String::from("\"from\":");
            write_string(&mut args, &source_text(source));
            if let Source::Stolen(v) | Source::Patrol(v) = source {
                let _ = write!(args, ",\"victim\":{v}");
            }
            let _ = write!(args, ",{}", job_id(job));
            (kind.name(), "job", args)
        }
        Event::Stolen { victim, job } => (
            "stolen",
            "steal",
            format!("\"victim\":{victim},{}", job_id(job)),
        ),
        Event::HeavySteal { victim, job } => (
            "heavy steal",
            "steal",
            format!("\"victim\":{victim},{}", job_id(job)),
        ),
        Event::Patrol { found } => ("patrol", "steal", format!("\"found\":{found}")),
        Event::Published { jobs } => ("published", "share", format!("\"jobs\":{jobs}")),
        Event::Idle => ("idle", "idle", String::new()),
        Event::Sleep => ("sleep", "idle", String::new()),
        Event::Woken { reason } => {
            let why = match reason {
                WakeReason::NewWork => "new work",
                WakeReason::Latch => "latch set",
                WakeReason::Timeout => "patrol timeout",
            };
            ("woken", "wake", format!("\"reason\":\"{why}\""))
        }
        Event::Wake { worker } => ("wake", "wake", format!("\"worker\":{worker}")),
    }
}

/// True for the events recorded as spans (the others are instants).
fn is_span(event: Event) -> bool {
    matches!(
        event,
        Event::Job { .. } | Event::Patrol { .. } | Event::Idle | Event::Sleep
    )
}

/// Orders one track's events for the importers: by start time, an enclosing span before what it
/// encloses (longer first; for equal times the later-recorded one, since spans are recorded when
/// they end).
fn sorted(events: &[Recorded]) -> Vec<&Recorded> {
    let mut order: Vec<(usize, &Recorded)> = events.iter().enumerate().collect();
    order.sort_by(|(ia, a), (ib, b)| {
        a.begin
            .cmp(&b.begin)
            .then(b.end.cmp(&a.end))
            .then(ib.cmp(ia))
    });
    order.into_iter().map(|(_, r)| r).collect()
}

/// Appends the pool's events (each followed by `,\n`) to `out`. `origin`: tick count of time 0.
pub(crate) fn write_pool(out: &mut String, pool: &PoolSnapshot, origin: u64) {
    let pid = pool.pid;
    metadata(
        out,
        "process_name",
        pid,
        0,
        "name",
        MetaValue::Text(&pool.name),
    );
    metadata(
        out,
        "process_sort_index",
        pid,
        0,
        "sort_index",
        MetaValue::Number(pid as u64),
    );
    let dropped: u64 = pool.workers.iter().map(|w| w.dropped).sum::<u64>()
        + pool.callers.iter().map(|c| c.dropped).sum::<u64>();
    if dropped > 0 {
        let label = format!("ring overflow: {dropped} events dropped");
        metadata(
            out,
            "process_labels",
            pid,
            0,
            "labels",
            MetaValue::Text(&label),
        );
    }
    let first_tid = first_tid(pid);
    for (index, worker) in pool.workers.iter().enumerate() {
        let tid = first_tid.wrapping_add(index as u32);
        let name = format!("worker {index}");
        metadata(out, "thread_name", pid, tid, "name", MetaValue::Text(&name));
        metadata(
            out,
            "thread_sort_index",
            pid,
            tid,
            "sort_index",
            MetaValue::Number(index as u64),
        );
        write_dropped(out, pid, tid, worker.dropped, worker.events.first(), origin);
        for r in sorted(&worker.events) {
            let (name, cat, args) = describe(r.event);
            let begin = ns_since(origin, r.begin);
            if is_span(r.event) {
                open(out, name, cat, "X", pid, tid);
                out.push_str(",\"ts\":");
                write_us(out, begin);
                out.push_str(",\"dur\":");
                write_us(out, ns_since(origin, r.end) - begin);
            } else {
                open(out, name, cat, "i", pid, tid);
                out.push_str(",\"s\":\"t\",\"ts\":");
                write_us(out, begin);
            }
            let _ = writeln!(out, ",\"args\":{{{args}}}}},");
        }
    }
    let first_caller_tid = first_tid.wrapping_add(pool.workers.len() as u32);
    for (k, caller) in pool.callers.iter().enumerate() {
        let tid = first_caller_tid.wrapping_add(k as u32);
        metadata(
            out,
            "thread_name",
            pid,
            tid,
            "name",
            MetaValue::Text(&caller.name),
        );
        metadata(
            out,
            "thread_sort_index",
            pid,
            tid,
            "sort_index",
            MetaValue::Number(tid as u64),
        );
        if caller.dropped > 0 {
            let first = caller.spans.first().map_or(0, |s| s.0);
            open(out, "events dropped", "trace", "i", pid, tid);
            out.push_str(",\"s\":\"t\",\"ts\":");
            write_us(out, ns_since(origin, first));
            let _ = writeln!(out, ",\"args\":{{\"count\":{}}}}},", caller.dropped);
        }
        let mut spans = caller.spans.clone();
        spans.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        for (b, e) in spans {
            let begin = ns_since(origin, b);
            open(out, "install", "install", "X", pid, tid);
            out.push_str(",\"ts\":");
            write_us(out, begin);
            out.push_str(",\"dur\":");
            write_us(out, ns_since(origin, e.max(b)) - begin);
            out.push_str(",\"args\":{}},\n");
        }
    }
}

/// The `tid` of worker 0 of pool `pid`; its other workers and then its callers follow.
///
/// Unique across the file: Perfetto keys threads by `tid` alone (a `tid` seen again under another
/// `pid` counts as a new thread, and `thread_name` applies to the `tid`), so two pools may not share
/// one. A pool spans 2^17 tids (at most 65,535 workers, then its callers); 0 is never used. (Past
/// 32,767 traced pools in one process the numbers wrap around.)
fn first_tid(pid: u32) -> u32 {
    (pid << 17) | 1
}

/// The instant that reports a worker's dropped events, at its first kept event.
fn write_dropped(
    out: &mut String,
    pid: u32,
    tid: u32,
    dropped: u64,
    first: Option<&Recorded>,
    origin: u64,
) {
    if dropped == 0 {
        return;
    }
    // The earliest start among the kept events (spans are recorded when they end).
    let at = first.map_or(0, |r| r.begin);
    open(out, "events dropped", "trace", "i", pid, tid);
    out.push_str(",\"s\":\"t\",\"ts\":");
    write_us(out, ns_since(origin, at));
    let _ = writeln!(out, ",\"args\":{{\"count\":{dropped}}}}},");
}

/// The `otherData` entry of one pool: `{"pid":..,"name":..,"workers":..,"ring_capacity":..,
/// "dropped_events":[per worker],"caller_dropped_events":..}`.
pub(crate) fn write_pool_summary(out: &mut String, pool: &PoolSnapshot) {
    let _ = write!(out, "{{\"pid\":{},\"name\":", pool.pid);
    write_string(out, &pool.name);
    let _ = write!(
        out,
        ",\"workers\":{},\"ring_capacity\":{},\"dropped_events\":[",
        pool.workers.len(),
        pool.capacity
    );
    for (i, w) in pool.workers.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{}", w.dropped);
    }
    let caller_dropped: u64 = pool.callers.iter().map(|c| c.dropped).sum();
    let _ = write!(out, "],\"caller_dropped_events\":{caller_dropped}}}");
}

/// A whole file: the pools' events (from [`write_pool`]) and summaries (from
/// [`write_pool_summary`]).
pub(crate) fn file(events: &str, summaries: &[&str]) -> String {
    let mut out = String::with_capacity(events.len() + 512);
    out.push_str("{\"traceEvents\":[\n");
    // Every event ends with ",\n"; JSON allows no trailing comma.
    out.push_str(events.strip_suffix(",\n").unwrap_or(events));
    out.push_str("\n],\n\"otherData\":{\"producer\":");
    write_string(&mut out, concat!("forkjoin ", env!("CARGO_PKG_VERSION")));
    out.push_str(",\"clock\":");
    write_string(&mut out, crate::platform::clock::DESCRIPTION);
    out.push_str(",\"pools\":[");
    out.push_str(&summaries.join(","));
    out.push_str("]}}\n");
    out
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped() {
        let mut out = String::new();
        write_string(&mut out, "a\"b\\c\nd\u{1}é\t");
        assert_eq!(out, r#""a\"b\\c\nd\u0001é\t""#);
    }

    #[test]
    fn microseconds_keep_nanoseconds_exactly() {
        let mut out = String::new();
        write_us(&mut out, 1_234_567);
        out.push(' ');
        write_us(&mut out, 5);
        assert_eq!(out, "1234.56725 0.00525");
        // Truncating or rounding the float product gives the nanoseconds back, far out too.
        for ns in [
            0u64,
            1,
            999,
            1_234_567,
            290,
            4_503_599_627_370,
            86_400_000_000_000,
        ] {
            let mut text = String::new();
            write_us(&mut text, ns);
            let us: f64 = text.parse().unwrap();
            assert_eq!((us * 1000.0) as u64, ns, "{text}");
            assert_eq!((us * 1000.0).round() as u64, ns, "{text}");
        }
    }

    #[test]
    fn an_empty_file_is_valid_shape() {
        let f = file("", &[]);
        assert!(f.starts_with("{\"traceEvents\":[\n\n],"), "{f}");
        assert!(f.trim_end().ends_with("\"pools\":[]}}"), "{f}");
    }

    #[test]
    fn enclosing_spans_come_first() {
        let span = |begin, end, n| Recorded {
            begin,
            end,
            event: Event::Published { jobs: n },
        };
        // Recorded as they end: the inner one first; equal times keep that rule.
        let events = [span(5, 6, 0), span(5, 9, 1), span(5, 9, 2), span(1, 2, 3)];
        let order: Vec<_> = sorted(&events)
            .iter()
            .map(|r| match r.event {
                Event::Published { jobs } => jobs,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(order, [3, 2, 1, 0]);
    }
}
