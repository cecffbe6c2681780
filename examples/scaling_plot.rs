//! Draws the scaling picture from the medians that `examples/suite.rs --csv` writes: speedup over the
//! sequential loop (its median at the same thread count) against the pool size, one line per runtime,
//! one panel per workload. Plain SVG, no dependencies.
//!
//! ```sh
//! cargo run --release --example suite -- --threads 1,2,4,8,16 --csv scaling.csv
//! cargo run --release --example scaling_plot -- scaling.csv docs/img/scaling.svg "16-core x86-64"
//! ```
//!
//! Only the time rows (`unit` = `ms`) are drawn: the per-call rows measure overhead, not speedup.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;

/// Runtimes in legend order, with their line colours.
const RUNTIMES: [(&str, &str); 4] = [
    ("forkjoin", "#d62728"),
    ("rayon", "#1f77b4"),
    ("chili", "#2ca02c"),
    ("forte", "#9467bd"),
];

const PANEL_W: f64 = 300.0;
const PANEL_H: f64 = 240.0;
const MARGIN: f64 = 44.0;
const COLUMNS: usize = 3;

/// `speedup[workload][runtime]`: (threads, seq median / runtime median), in CSV order.
pub type Series = BTreeMap<String, BTreeMap<String, Vec<(f64, f64)>>>;

/// One CSV line: `key,workload,unit,threads,runtime,median,rounds,cpus`.
struct Line<'a> {
    workload: &'a str,
    unit: &'a str,
    threads: f64,
    runtime: &'a str,
    median: f64,
}

fn parse_line(line: &str) -> Result<Line<'_>, String> {
    let f: Vec<&str> = line.split(',').collect();
    let number = |i: usize| -> Result<f64, String> {
        f.get(i)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("field {} of `{line}` is not a number", i + 1))
    };
    if f.len() != 8 {
        return Err(format!("`{line}` does not have 8 fields"));
    }
    Ok(Line {
        workload: f[1],
        unit: f[2],
        threads: number(3)?,
        runtime: f[4],
        median: number(5)?,
    })
}

pub fn speedups(csv: &str) -> Result<(Series, f64), String> {
    let lines: Vec<Line<'_>> = csv
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(parse_line)
        .collect::<Result<_, _>>()?;
    let seq: BTreeMap<(&str, u64), f64> = lines
        .iter()
        .filter(|l| l.runtime == "seq")
        .map(|l| ((l.workload, l.threads as u64), l.median))
        .collect();
    let mut series = Series::new();
    let mut max_threads: f64 = 1.0;
    for l in lines
        .iter()
        .filter(|l| l.unit == "ms" && l.runtime != "seq")
    {
        let Some(s) = seq.get(&(l.workload, l.threads as u64)) else {
            return Err(format!(
                "no sequential median for {} at {}",
                l.workload, l.threads
            ));
        };
        max_threads = max_threads.max(l.threads);
        series
            .entry(l.workload.to_owned())
            .or_default()
            .entry(l.runtime.to_owned())
            .or_default()
            .push((l.threads, s / l.median));
    }
    if series.is_empty() {
        return Err("no `ms` rows with a sequential median".into());
    }
    Ok((series, max_threads))
}

pub fn svg(series: &Series, max_threads: f64, title: &str) -> String {
    let panels = series.len();
    let rows = panels.div_ceil(COLUMNS);
    let width = COLUMNS as f64 * (PANEL_W + MARGIN) + MARGIN;
    let height = rows as f64 * (PANEL_H + MARGIN) + 2.0 * MARGIN;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        out,
        r#"<rect width="100%" height="100%" fill="white"/><text x="{}" y="20" font-size="14" text-anchor="middle">{}</text>"#,
        width / 2.0,
        escape(title)
    );
    for (i, (name, runtimes)) in series.iter().enumerate() {
        let x0 = MARGIN + (i % COLUMNS) as f64 * (PANEL_W + MARGIN);
        let y0 = 1.5 * MARGIN + (i / COLUMNS) as f64 * (PANEL_H + MARGIN);
        panel(&mut out, x0, y0, name, runtimes, max_threads);
    }
    // Legend, under the title.
    for (k, (runtime, colour)) in RUNTIMES.iter().enumerate() {
        let x = MARGIN + k as f64 * 90.0;
        let _ = writeln!(
            out,
            r#"<line x1="{x}" y1="34" x2="{}" y2="34" stroke="{colour}" stroke-width="2"/><text x="{}" y="38">{runtime}</text>"#,
            x + 20.0,
            x + 24.0
        );
    }
    let _ = writeln!(
        out,
        r##"<text x="{}" y="38" fill="#777">dashed: ideal (speedup = threads)</text>"##,
        MARGIN + 4.0 * 90.0
    );
    out.push_str("</svg>\n");
    out
}

/// One workload: axes from 1 to `max_threads` (x) and 0 to the larger of `max_threads` and the best
/// speedup (y), the ideal diagonal dashed.
fn panel(
    out: &mut String,
    x0: f64,
    y0: f64,
    name: &str,
    runtimes: &BTreeMap<String, Vec<(f64, f64)>>,
    max_threads: f64,
) {
    let best = runtimes
        .values()
        .flatten()
        .map(|&(_, s)| s)
        .fold(max_threads, f64::max);
    let x_of = |t: f64| x0 + (t - 1.0) / (max_threads - 1.0).max(1.0) * PANEL_W;
    let y_of = |s: f64| y0 + PANEL_H - s / best * PANEL_H;
    let _ = writeln!(
        out,
        r##"<rect x="{x0}" y="{y0}" width="{PANEL_W}" height="{PANEL_H}" fill="none" stroke="#999"/><text x="{}" y="{}" text-anchor="middle" font-size="12">{}</text>"##,
        x0 + PANEL_W / 2.0,
        y0 - 4.0,
        escape(name)
    );
    let _ = writeln!(
        out,
        r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#bbb" stroke-dasharray="4 3"/>"##,
        x_of(1.0),
        y_of(1.0),
        x_of(max_threads),
        y_of(max_threads)
    );
    // Ticks: the thread counts measured (x), and a handful of speedups (y).
    let mut ticks: Vec<f64> = runtimes.values().flatten().map(|&(t, _)| t).collect();
    ticks.sort_by(f64::total_cmp);
    ticks.dedup();
    for t in ticks {
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" text-anchor="middle">{t}</text>"#,
            x_of(t),
            y0 + PANEL_H + 13.0
        );
    }
    let step = nice_step(best / 5.0);
    let mut s = 0.0;
    while s <= best {
        let _ = writeln!(
            out,
            r##"<text x="{}" y="{}" text-anchor="end">{s}</text><line x1="{x0}" y1="{y}" x2="{}" y2="{y}" stroke="#eee"/>"##,
            x0 - 3.0,
            y_of(s) + 4.0,
            x0 + PANEL_W,
            y = y_of(s),
        );
        s += step;
    }
    for (runtime, colour) in RUNTIMES {
        let Some(points) = runtimes.get(runtime) else {
            continue;
        };
        let path: Vec<String> = points
            .iter()
            .map(|&(t, s)| format!("{:.1},{:.1}", x_of(t), y_of(s)))
            .collect();
        let _ = writeln!(
            out,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
            path.join(" ")
        );
    }
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let base = 10f64.powf(raw.max(1e-9).log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * base)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * base)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output, rest @ ..] = &args[..] else {
        eprintln!("usage: scaling_plot MEDIANS.csv OUT.svg [TITLE]");
        return ExitCode::from(2);
    };
    let title = rest
        .first()
        .map_or("speedup over sequential", String::as_str);
    let csv = match std::fs::read_to_string(input) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: cannot read {input}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (series, max_threads) = match speedups(&csv) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {input}: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = std::fs::write(output, svg(&series, max_threads, title)) {
        eprintln!("error: cannot write {output}: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
