//! The README's demo runs in the test path: `examples/fib.rs` is included as a module (the file
//! itself, not a copy) and its `run` is called with `--quick` sizes, as `cargo run --example fib --
//! --quick` would; no child process, no second cargo invocation. `examples/trace_timeline.rs`
//! (the pictures of `docs/tracing.md`) runs the same way.

#[path = "../../examples/fib.rs"]
#[allow(dead_code)] // the example's `main` is not called here
mod fib_demo;

#[path = "../../examples/trace_timeline.rs"]
#[allow(dead_code)] // the example's `main` is not called here
mod trace_timeline;

fn args(list: &[&str]) -> Result<Option<fib_demo::Args>, String> {
    fib_demo::parse_args(list.iter().map(|s| s.to_string()))
}

#[test]
fn the_fib_demo_runs_checks_its_results_and_prints_both_tables() {
    let args = args(&["--quick", "--threads", "2"]).unwrap().unwrap();
    let mut out = Vec::new();
    fib_demo::run(&args, &mut out).expect("every result matches the sequential one");
    let text = String::from_utf8(out).unwrap();
    for needle in [
        "1) What you get: fib(24), subproblems of n <= 12",
        "2) What a join costs: fib(16) with a join at every call",
        "speedup",
        "ns/join",
        "every run matched the sequential result",
        "FORKJOIN_TRACE=trace.json",
    ] {
        assert!(text.contains(needle), "missing `{needle}` in:\n{text}");
    }
    // Table 1: sequential, 1 and 2 threads; table 2: sequential, then forkjoin and rayon on 1 and 2.
    let rows = |first: &str, second: &str| {
        text.lines()
            .filter(|l| {
                let mut words = l.split_whitespace();
                words.next() == Some(first) && (second.is_empty() || words.next() == Some(second))
            })
            .count()
    };
    assert_eq!(rows("sequential", ""), 2, "{text}");
    for threads in ["1", "2"] {
        assert_eq!(rows(threads, "forkjoin"), 1, "{text}");
        assert_eq!(rows(threads, "rayon"), 1, "{text}");
        assert_eq!(rows(threads, ""), 3, "{text}");
    }
    assert!(!text.contains("WRONG"), "{text}");
    assert!(text.trim_end().ends_with("(see docs/tracing.md)"), "{text}");
}

#[test]
fn the_demo_runs_on_one_thread_and_with_pinned_workers() {
    for extra in [&["--threads", "1"][..], &["--pin"][..]] {
        let mut list = vec!["--quick", "--join-n", "10"];
        list.extend_from_slice(extra);
        let args = args(&list).unwrap().unwrap();
        let mut out = Vec::new();
        let r = fib_demo::run(&args, &mut out);
        if cfg!(not(target_os = "linux")) && args.pin {
            assert!(r.unwrap_err().contains("Linux only"));
            continue;
        }
        r.unwrap();
    }
}

#[test]
fn defaults_and_quick_sizes() {
    let a = args(&[]).unwrap().unwrap();
    assert_eq!(
        (a.n, a.cutoff, a.runs, a.join_n, a.pin),
        (40, 20, 5, 32, false)
    );
    assert!(a.threads >= 1);
    let q = args(&["--quick", "30"]).unwrap().unwrap();
    assert_eq!((q.n, q.cutoff, q.runs, q.join_n), (30, 12, 1, 16));
    assert_eq!(
        args(&["6"]).unwrap().unwrap().cutoff,
        5,
        "the cutoff stays below n"
    );
    assert_eq!(args(&["--help"]).unwrap(), None);
}

#[test]
fn bad_arguments_are_clear_errors() {
    for (list, expected) in [
        (&["abc"][..], "n: `abc` is not a non-negative integer"),
        (&["1"][..], "n must be in 2..=50, got 1"),
        (&["30", "31"][..], "unexpected argument `31`"),
        (&["--cutoff"][..], "--cutoff needs a value"),
        (
            &["--cutoff", "-3"][..],
            "--cutoff: `-3` is not a non-negative integer",
        ),
        (
            &["30", "--cutoff", "31"][..],
            "--cutoff must be in 1..=30, got 31",
        ),
        (
            &["--threads", "0"][..],
            "--threads must be in 1..=1024, got 0",
        ),
        (&["--runs", "0"][..], "--runs must be in 1..=100, got 0"),
        (
            &["--join-n", "41"][..],
            "--join-n must be in 2..=40, got 41",
        ),
        (&["--fast"][..], "unknown option `--fast`"),
    ] {
        assert_eq!(args(list).unwrap_err(), expected, "{list:?}");
    }
}

#[test]
fn the_timeline_example_draws_both_pictures() {
    let dir = std::env::temp_dir().join(format!("forkjoin-timeline-test-{}", std::process::id()));
    let options = trace_timeline::Options {
        out: dir.clone(),
        json: true,
        quick: true,
    };
    trace_timeline::run(&options).expect("both runs traced and drawn");
    for name in [
        "trace_fib.json",
        "trace_skewed_adaptive.json",
        "trace_skewed_static.json",
    ] {
        let json = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(json.starts_with("{\"traceEvents\":["), "{name} kept");
    }
    for name in ["trace_fib.svg", "trace_skewed.svg"] {
        let svg = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(
            svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"),
            "{name}"
        );
        for lane in ["worker 0", "worker 1", "caller: "] {
            assert!(svg.contains(lane), "{name} has no lane {lane:?}");
        }
    }
    let skewed = std::fs::read_to_string(dir.join("trace_skewed.svg")).unwrap();
    assert!(skewed.contains("adaptive") && skewed.contains("with_min_len(250)"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[path = "../../examples/scaling_plot.rs"]
#[allow(dead_code)] // the example's `main` is not called here
mod scaling_plot;

#[test]
fn the_scaling_plot_divides_by_the_sequential_median_of_the_same_thread_count() {
    let csv = "key,workload,unit,threads,runtime,median,rounds,cpus
fib,fib(36),ms,1,seq,40,7,16
fib,fib(36),ms,1,forkjoin,80,7,16
fib,fib(36),ms,4,seq,44,7,16
fib,fib(36),ms,4,forkjoin,11,7,16
fib,fib(36),ms,4,rayon,22,7,16
joins,flat loop of tiny joins,ns/join,4,forkjoin,9.5,7,16
";
    let (series, max_threads) = scaling_plot::speedups(csv).unwrap();
    assert_eq!(max_threads, 4.0);
    // Only `ms` rows are drawn: the per-call row is left out.
    assert_eq!(series.keys().collect::<Vec<_>>(), ["fib(36)"]);
    assert_eq!(series["fib(36)"]["forkjoin"], [(1.0, 0.5), (4.0, 4.0)]);
    assert_eq!(series["fib(36)"]["rayon"], [(4.0, 2.0)]);
    let svg = scaling_plot::svg(&series, max_threads, "a <title> & more");
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("a &lt;title&gt; &amp; more"), "{svg}");
    assert_eq!(svg.matches("<polyline").count(), 2, "{svg}");
}

#[test]
fn the_scaling_plot_rejects_a_row_without_its_sequential_median_or_with_bad_fields() {
    let header = "key,workload,unit,threads,runtime,median,rounds,cpus\n";
    let no_seq = format!("{header}fib,fib(36),ms,2,forkjoin,20,7,16\n");
    let e = scaling_plot::speedups(&no_seq).unwrap_err();
    assert!(e.contains("no sequential median"), "{e}");
    let bad = format!("{header}fib,fib(36),ms,two,forkjoin,20,7,16\n");
    let e = scaling_plot::speedups(&bad).unwrap_err();
    assert!(e.contains("not a number"), "{e}");
    let short = format!("{header}fib,fib(36),ms,2\n");
    assert!(scaling_plot::speedups(&short).is_err());
    assert!(scaling_plot::speedups(header).is_err(), "nothing to draw");
}

#[path = "../../examples/cancel_server.rs"]
#[allow(dead_code)] // the example's `main` is not called here
mod cancel_server;

#[test]
fn the_cancel_server_stops_timed_out_work_and_the_detached_work_runs_on() {
    use cancel_server::{Answer, Timeout};
    let mut out = Vec::new();
    let rows = cancel_server::run(true, 2, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(rows.len(), 4, "{text}");
    assert_eq!(rows[0].outcome, Ok(Answer { primes: 9_592 }), "{text}");
    for row in &rows[1..] {
        assert_eq!(row.outcome, Err(Timeout), "{text}");
    }
    // The work takes some 15 times its budget: cut off by a dropped future or a deadline, it
    // stops part way; detached, it runs to the end although nobody waits for it.
    assert!(rows[1].done < 1.0 && rows[2].done < 1.0, "{text}");
    assert_eq!(rows[3].done, 1.0, "{text}");
    assert!(text.contains("busy after"), "{text}");
}
