//! Records traces of two small runs and draws each as an SVG timeline: the pictures of
//! `docs/tracing.md`.
//!
//! ```sh
//! cargo run --release --example trace_timeline -- [--out docs/img] [--json] [--quick]
//! ```
//!
//! 1. `trace_fib.svg`: fib(36) split with `join` down to a sequential cutoff of n ≤ 20, on 2 threads
//!    (the balanced case: both workers busy to the end).
//! 2. `trace_skewed.svg`: a loop of 5,000 items where item `i` costs ∝ `i`, on 2 threads, run twice:
//!    with forkjoin's adaptive splitting, and with a static split into two fixed halves
//!    (`with_min_len(n / 2)`), on one time axis. The static split leaves the worker with the cheap
//!    half idle for most of the run.
//!
//! Each run uses a pool built with `ThreadPoolBuilder::trace_file`; the example then reads the JSON
//! back with the small parser in `examples/common/trace_json.rs` (no dependency) and draws one lane
//! per worker (spans stacked by nesting depth, colored by kind), the calling thread's `install`, the
//! steals as ticks, and a time axis. Times are relative to the start of the measured `install`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use forkjoin::prelude::*;

#[path = "common/trace_json.rs"]
mod trace_json;
use trace_json::{TraceEvent, TraceFile};

#[path = "../tests/iter_common/spin.rs"]
mod spin;
use spin::spin;

const USAGE: &str = "usage: trace_timeline [--out DIR] [--json] [--quick]
  --out DIR  where to write trace_fib.svg and trace_skewed.svg (default docs/img)
  --json     also keep the traces there (trace_fib.json, trace_skewed_adaptive.json,
             trace_skewed_static.json), to open the same runs in Perfetto
  --quick    small sizes (a smoke test)";

fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib_seq(n - 1) + fib_seq(n - 2)
    }
}

fn fib(n: u64, cutoff: u64) -> u64 {
    if n <= cutoff {
        return fib_seq(n);
    }
    let (a, b) = forkjoin::join(|| fib(n - 1, cutoff), || fib(n - 2, cutoff));
    a + b
}

/// Where and what to write.
pub struct Options {
    /// The directory of the pictures.
    pub out: PathBuf,
    /// Keep the JSON traces next to the pictures.
    pub json: bool,
    /// Small sizes.
    pub quick: bool,
}

/// Runs `work` in a fresh traced pool of 2 workers and returns the parsed trace and the result.
/// The trace goes to `trace_{tag}.json` in the output directory if `--json`, else to a temporary
/// file.
fn traced<R: Send>(
    options: &Options,
    tag: &str,
    work: impl FnOnce() -> R + Send,
) -> Result<(TraceFile, R), String> {
    let path = if options.json {
        options.out.join(format!("trace_{tag}.json"))
    } else {
        std::env::temp_dir().join(format!(
            "forkjoin-timeline-{tag}-{}.json",
            std::process::id()
        ))
    };
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(2)
        .trace_file(&path)
        .build()
        .map_err(|e| format!("cannot build a pool: {e}"))?;
    let result = pool.install(work);
    drop(pool); // joins the workers, then writes the file
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !options.json {
        let _ = std::fs::remove_file(&path);
    }
    let file = TraceFile::parse(&text).map_err(|e| format!("invalid trace: {e}"))?;
    Ok((file, result))
}

/// One run to draw: its trace and the window to show (the caller's `install`), in ns.
struct Run {
    title: String,
    file: TraceFile,
    start: u64,
    end: u64,
}

impl Run {
    fn new(title: String, file: TraceFile) -> Result<Run, String> {
        let install = file
            .events
            .iter()
            .find(|e| e.ph == "X" && e.name == "install")
            .ok_or("no install span in the trace")?;
        let (start, end) = (install.ts_ns, install.end_ns());
        Ok(Run {
            title,
            file,
            start,
            end,
        })
    }
}

/// Fill colors by span name (and the legend's order).
const KINDS: [(&str, &str); 7] = [
    ("install job", "#4e79a7"),
    ("join b", "#59a14f"),
    ("spawned job", "#f28e2b"),
    ("patrol", "#b07aa1"),
    ("idle", "#d9d9d9"),
    ("sleep", "#9c9c9c"),
    ("install", "#76b7b2"),
];

fn color(name: &str) -> &'static str {
    KINDS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("#e15759", |(_, c)| c)
}

const WIDTH: f64 = 960.0;
const LABEL: f64 = 120.0;
const PLOT: f64 = WIDTH - LABEL - 20.0;
const ROW: f64 = 11.0;
const LANE_GAP: f64 = 8.0;
const MAX_DEPTH: usize = 5;

/// Assigns each span of a track its nesting depth (0 = outermost).
fn depths<'a>(track: &[&'a TraceEvent]) -> Vec<(&'a TraceEvent, usize)> {
    let mut spans: Vec<&TraceEvent> = track.iter().copied().filter(|e| e.ph == "X").collect();
    spans.sort_by(|a, b| a.ts_ns.cmp(&b.ts_ns).then(b.dur_ns.cmp(&a.dur_ns)));
    let mut open: Vec<&TraceEvent> = Vec::new();
    let mut out = Vec::new();
    for span in spans {
        while open.last().is_some_and(|top| span.ts_ns >= top.end_ns()) {
            open.pop();
        }
        out.push((span, open.len()));
        open.push(span);
    }
    out
}

/// A "nice" tick step (1, 2 or 5 × 10^k ns) for about `target` ticks over `span` ns.
fn tick_step(span: u64, target: u64) -> u64 {
    let raw = (span / target).max(1);
    let mut step = 1;
    while step * 10 <= raw {
        step *= 10;
    }
    for m in [1, 2, 5, 10] {
        if step * m >= raw {
            return step * m;
        }
    }
    step * 10
}

fn fmt_ms(ns: u64) -> String {
    let ms = ns as f64 / 1e6;
    if ms >= 10.0 || ms == 0.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{ms:.1} ms")
    }
}

/// Draws `runs` one above the other on a common time scale (the longest window).
fn render(heading: &str, runs: &[Run]) -> String {
    let scale_ns = runs
        .iter()
        .map(|r| r.end - r.start)
        .max()
        .unwrap_or(1)
        .max(1);
    let x = |ns: u64| LABEL + PLOT * ns as f64 / scale_ns as f64;
    let mut body = String::new();
    let mut y = 34.0;
    for run in runs {
        let _ = writeln!(
            body,
            r#"<text x="10" y="{:.1}" font-weight="bold">{} — {}</text>"#,
            y + 4.0,
            escape(&run.title),
            fmt_ms(run.end - run.start)
        );
        y += 14.0;
        let pid = *run.file.process_names().keys().next().unwrap_or(&0);
        let names = run.file.thread_names();
        for ((p, tid), name) in names.iter().filter(|((p, _), _)| *p == pid) {
            let track = run.file.track(*p, *tid);
            let spans = depths(&track);
            let rows = spans
                .iter()
                .filter(|(e, _)| e.end_ns() > run.start && e.ts_ns < run.end)
                .map(|(_, d)| d + 1)
                .max()
                .unwrap_or(1)
                .min(MAX_DEPTH);
            let height = rows as f64 * ROW;
            let _ = writeln!(
                body,
                r##"<rect x="{LABEL}" y="{y:.1}" width="{PLOT}" height="{height:.1}" fill="#f7f7f7"/><text x="10" y="{:.1}">{}</text>"##,
                y + height / 2.0 + 4.0,
                escape(name)
            );
            for (e, depth) in &spans {
                if *depth >= MAX_DEPTH || e.end_ns() <= run.start || e.ts_ns >= run.end {
                    continue;
                }
                let b = e.ts_ns.clamp(run.start, run.end) - run.start;
                let f = e.end_ns().clamp(run.start, run.end) - run.start;
                let w = (x(f) - x(b)).max(0.6);
                let from = e
                    .arg_str("from")
                    .map(|s| format!(" from {s}"))
                    .unwrap_or_default();
                let _ = writeln!(
                    body,
                    r#"<rect x="{:.2}" y="{:.1}" width="{w:.2}" height="{:.1}" fill="{}"><title>{}{} ({:.1} µs)</title></rect>"#,
                    x(b),
                    y + *depth as f64 * ROW,
                    ROW - 1.0,
                    color(&e.name),
                    escape(&e.name),
                    escape(&from),
                    e.dur_ns as f64 / 1e3
                );
            }
            // Steals: a red tick on the thief's lane.
            for e in track
                .iter()
                .filter(|e| e.ph == "i" && (e.name == "stolen" || e.name == "heavy steal"))
                .filter(|e| e.ts_ns >= run.start && e.ts_ns <= run.end)
            {
                let _ = writeln!(
                    body,
                    r##"<rect x="{:.2}" y="{:.1}" width="1.2" height="{height:.1}" fill="#e15759"><title>{}</title></rect>"##,
                    x(e.ts_ns - run.start) - 0.6,
                    y,
                    escape(&e.name)
                );
            }
            y += height + 4.0;
        }
        y += LANE_GAP;
    }
    // Time axis.
    let step = tick_step(scale_ns, 8);
    let _ = writeln!(
        body,
        r##"<line x1="{LABEL}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#555"/>"##,
        LABEL + PLOT
    );
    let mut t = 0;
    while t <= scale_ns {
        let _ = writeln!(
            body,
            r##"<line x1="{0:.1}" y1="{y:.1}" x2="{0:.1}" y2="{1:.1}" stroke="#555"/><text x="{0:.1}" y="{2:.1}" text-anchor="middle">{3}</text>"##,
            x(t),
            y + 4.0,
            y + 16.0,
            fmt_ms(t)
        );
        t += step;
    }
    y += 30.0;
    // Legend.
    let mut lx = LABEL;
    for (name, c) in KINDS.iter().chain(&[("steal", "#e15759")]) {
        let _ = writeln!(
            body,
            r#"<rect x="{lx:.1}" y="{:.1}" width="12" height="10" fill="{c}"/><text x="{:.1}" y="{:.1}">{name}</text>"#,
            y - 9.0,
            lx + 16.0,
            y
        );
        lx += 24.0 + 7.0 * name.len() as f64;
    }
    y += 12.0;
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y:.0}" viewBox="0 0 {WIDTH} {y:.0}" font-family="sans-serif" font-size="11">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="18" font-size="13" font-weight="bold">{}</text>
{body}</svg>
"##,
        escape(heading)
    )
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn write_svg(dir: &Path, name: &str, svg: &str) -> Result<(), String> {
    let path = dir.join(name);
    std::fs::write(&path, svg).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

/// Records both runs and writes their SVGs (and with `json`, their traces) into `out`.
pub fn run(options: &Options) -> Result<(), String> {
    let (out, quick) = (options.out.as_path(), options.quick);
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;

    // 1. Balanced: fib with a sequential cutoff.
    let (n, cutoff) = if quick { (24, 12) } else { (36, 20) };
    let (file, value) = traced(options, "fib", || fib(n, cutoff))?;
    if value != fib_seq(n) {
        return Err(format!("fib({n}) = {value}, expected {}", fib_seq(n)));
    }
    let fib_run = Run::new(
        format!("fib({n}), sequential below n <= {cutoff}, 2 workers"),
        file,
    )?;
    write_svg(
        out,
        "trace_fib.svg",
        &render(
            "A balanced run: both workers busy until the end",
            &[fib_run],
        ),
    )?;

    // 2. Skewed: item i costs ∝ i; adaptive splitting against two fixed halves.
    let items: u64 = if quick { 500 } else { 5_000 };
    let cost = |i: u64| i * 2;
    let expected = (0..items).map(|i| spin(cost(i))).fold(0, u64::wrapping_add);
    let (adaptive, a) = traced(options, "skewed_adaptive", || {
        (0..items)
            .into_par_iter()
            .map(|i| spin(cost(i)))
            .reduce(|| 0, u64::wrapping_add)
    })?;
    let (fixed, s) = traced(options, "skewed_static", || {
        (0..items)
            .into_par_iter()
            .with_min_len(items as usize / 2)
            .map(|i| spin(cost(i)))
            .reduce(|| 0, u64::wrapping_add)
    })?;
    if a != expected || s != expected {
        return Err(format!("skewed loop: {a} / {s}, expected {expected}"));
    }
    let runs = [
        Run::new(
            format!("adaptive: (0..{items}).into_par_iter().map(cost ∝ i)"),
            adaptive,
        )?,
        Run::new(
            format!("static: the same with with_min_len({})", items / 2),
            fixed,
        )?,
    ];
    write_svg(
        out,
        "trace_skewed.svg",
        &render(
            "A skewed loop on 2 workers: adaptive splitting against a static split",
            &runs,
        ),
    )?;
    Ok(())
}

fn main() -> ExitCode {
    let mut options = Options {
        out: PathBuf::from("docs/img"),
        json: false,
        quick: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => match args.next() {
                Some(dir) => options.out = PathBuf::from(dir),
                None => {
                    eprintln!("{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "--json" => options.json = true,
            "--quick" => options.quick = true,
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("trace_timeline: {e}");
            ExitCode::FAILURE
        }
    }
}
