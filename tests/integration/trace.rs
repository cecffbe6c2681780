//! The trace file (`ThreadPoolBuilder::trace_file`): valid JSON of the shape Perfetto and
//! chrome://tracing import, one track per worker, spans that nest, steals recorded before the
//! stolen job runs, job spans that agree with `stats()`, and rings that report what they dropped.
//! (`tests/trace_env.rs` covers `FORKJOIN_TRACE`, the global pool and the flush at exit.)

use crate::common;
#[path = "../../examples/common/trace_json.rs"]
mod trace_json;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use forkjoin::prelude::*;
use forkjoin::{PoolStats, ThreadPool, ThreadPoolBuilder};
use trace_json::{check_nesting, TraceEvent, TraceFile};

/// A fresh path in the temporary directory, unique to this process and call.
fn temp_trace(tag: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    std::env::temp_dir().join(format!(
        "forkjoin-test-{tag}-{}-{}.json",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Drops `pool` (which writes its trace), reads the file back and removes it.
///
/// The drop writes the file before it returns unless spawned work is still pending: the workload's
/// fire-and-forget spawn sends its message before its job ends, and on a loaded machine the job may
/// still hold the pool when the drop comes. Then the last worker to leave writes the file, which
/// nothing the test holds can wait for; so it looks for the file until it appears (written whole,
/// by a rename), with a watchdog.
fn finish(pool: ThreadPool, path: &PathBuf) -> TraceFile {
    drop(pool);
    let deadline = std::time::Instant::now() + common::TIMEOUT;
    let text = loop {
        match std::fs::read_to_string(path) {
            Ok(text) => break text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the trace file was not written within {:?}",
                    common::TIMEOUT
                );
                std::thread::yield_now();
            }
            Err(e) => panic!("the trace file could not be read: {e}"),
        }
    };
    std::fs::remove_file(path).unwrap();
    TraceFile::parse(&text).unwrap_or_else(|e| panic!("invalid trace: {e}\n{text}"))
}

/// A mix of everything a pool does: joins (some stolen), spawns into a scope, an iterator, a sort,
/// a fire-and-forget spawn, and several installs. Returns a checksum of the results.
fn workload(pool: &ThreadPool) -> u64 {
    let fib = pool.install(|| common::fib(22));
    let mut parts = [0u64; 16];
    pool.scope(|s| {
        for (i, p) in parts.iter_mut().enumerate() {
            s.spawn(move |_| *p = (0..10_000u64).map(|x| x * i as u64 % 7).sum());
        }
    });
    let sum: u64 = pool.install(|| (0..200_000u64).into_par_iter().map(|x| x % 13).sum());
    let mut v: Vec<u32> = (0..50_000u32)
        .rev()
        .map(|x| x.wrapping_mul(2_654_435_761))
        .collect();
    pool.install(|| v.par_sort_unstable());
    let (tx, rx) = mpsc::channel();
    pool.spawn(move || tx.send(17u64).unwrap());
    let spawned = rx.recv_timeout(common::TIMEOUT).unwrap();
    let installs: u64 = (0..5).map(|i| pool.install(|| i * 3)).sum();
    fib + parts.iter().sum::<u64>()
        + sum
        + v.iter().step_by(997).map(|&x| x as u64).sum::<u64>()
        + spawned
        + installs
}

/// The pids of the file and each worker's tid, checking that every worker has exactly one track
/// named "worker i".
fn worker_tracks(file: &TraceFile, pid: u64, workers: usize) -> Vec<u64> {
    let names = file.thread_names();
    (0..workers)
        .map(|i| {
            let name = format!("worker {i}");
            let tids: Vec<u64> = names
                .iter()
                .filter(|((p, _), n)| *p == pid && **n == name)
                .map(|((_, t), _)| *t)
                .collect();
            assert_eq!(tids.len(), 1, "one track named {name:?}: {names:?}");
            tids[0]
        })
        .collect()
}

fn job_spans<'a>(track: &[&'a TraceEvent]) -> Vec<&'a TraceEvent> {
    track
        .iter()
        .copied()
        .filter(|e| e.ph == "X" && e.cat == "job")
        .collect()
}

#[test]
fn a_short_run_writes_a_valid_trace_that_agrees_with_stats() {
    let path = temp_trace("run");
    let threads = 3;
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .trace_file(&path)
        .build()
        .unwrap();
    workload(&pool);
    let stats = pool.stats();
    let file = finish(pool, &path);

    // One process, named after the pool.
    let processes = file.process_names();
    assert_eq!(processes.len(), 1, "{processes:?}");
    let (&pid, name) = processes.iter().next().unwrap();
    assert!(name.contains(&format!("({threads} workers)")), "{name}");
    let tids = worker_tracks(&file, pid, threads);
    // The test thread called `install`: it has a caller track with its install spans.
    let names = file.thread_names();
    let callers: Vec<_> = names
        .iter()
        .filter(|(_, n)| n.starts_with("caller: "))
        .collect();
    assert_eq!(callers.len(), 1, "{names:?}");
    let ((_, caller_tid), _) = callers[0];
    let installs = file
        .track(pid, *caller_tid)
        .iter()
        .filter(|e| e.name == "install" && e.ph == "X")
        .count();
    // fib, scope, sum, sort and 5 installs.
    assert_eq!(installs, 9);
    assert_eq!(names.len(), threads + 1, "no other track: {names:?}");

    // Nothing dropped with the default capacity.
    let summary = &file.other.get("pools").unwrap().as_array().unwrap()[0];
    let dropped: Vec<u64> = summary
        .get("dropped_events")
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(dropped, vec![0; threads]);

    let mut kinds = BTreeMap::new();
    for (i, &tid) in tids.iter().enumerate() {
        let track = file.track(pid, tid);
        check_nesting(&track).unwrap_or_else(|e| panic!("worker {i}: {e}"));
        let jobs = job_spans(&track);
        for job in &jobs {
            *kinds.entry(job.name.clone()).or_insert(0) += 1;
        }
        let w = &stats.workers[i];
        // Every job taken from a queue has its span: those from its own deque, the stolen ones and
        // the injected ones. (Jobs `join` pops back from its private stack run without one.)
        let from = |what: &str| {
            jobs.iter()
                .filter(|e| e.arg_str("from").unwrap().contains(what))
                .count() as u64
        };
        assert_eq!(from("own deque"), w.deque_pops, "worker {i}: {w:?}");
        assert_eq!(from("injector"), w.injector_pops, "worker {i}: {w:?}");
        assert_eq!(
            from("(stolen)") + from("(patrol)"),
            w.steals,
            "worker {i}: {w:?}"
        );
        assert_eq!(
            jobs.len() as u64,
            w.deque_pops + w.steals + w.injector_pops,
            "worker {i}"
        );
        let published: u64 = track
            .iter()
            .filter(|e| e.name == "published")
            .map(|e| e.args.get("jobs").unwrap().as_u64().unwrap())
            .sum();
        assert_eq!(published, w.jobs_published, "worker {i}");
        // `stats` was read before the pool was dropped: a worker may still have gone to sleep
        // (again) after that, while the trace covers the pool's whole life. So the counter is a
        // lower bound of the recorded sleeps here, not an exact count.
        let sleeps = track.iter().filter(|e| e.name == "sleep").count() as u64;
        assert!(
            sleeps >= w.sleeps,
            "worker {i}: {sleeps} sleeps traced, {w:?}"
        );

        // Every stolen job was stolen (instant, same job) before it ran, on the thief's track.
        for job in jobs.iter().filter(|e| e.args.get("victim").is_some()) {
            let id = job.arg_str("job").unwrap();
            let victim = job.args.get("victim").unwrap().as_u64().unwrap();
            assert_ne!(victim, i as u64, "a worker does not steal from itself");
            let steal = track
                .iter()
                .filter(|e| e.ph == "i" && (e.name == "stolen" || e.name == "heavy steal"))
                .filter(|e| e.arg_str("job") == Some(id) && e.ts_ns <= job.ts_ns)
                .filter(|e| e.args.get("victim").unwrap().as_u64() == Some(victim))
                .count();
            assert!(steal >= 1, "worker {i}: no steal recorded before {job:?}");
        }
    }
    // The totals agree with the spans over all workers.
    let total_spans: u64 = tids
        .iter()
        .map(|&tid| job_spans(&file.track(pid, tid)).len() as u64)
        .sum();
    let from_queues: u64 = stats
        .workers
        .iter()
        .map(|w| w.deque_pops + w.steals + w.injector_pops)
        .sum();
    assert_eq!(total_spans, from_queues);
    assert_eq!(
        total_spans,
        stats.jobs_executed
            - (stats.local_pops - stats.workers.iter().map(|w| w.deque_pops).sum::<u64>())
    );
    // The installs ran as injected jobs; the scope's spawns as spawned jobs.
    assert!(
        kinds.get("install job").copied().unwrap_or(0) >= 9,
        "{kinds:?}"
    );
    assert!(
        kinds.get("spawned job").copied().unwrap_or(0) >= 1,
        "{kinds:?}"
    );
}

#[test]
fn stolen_jobs_are_traced_from_their_steal_to_their_end() {
    // A `join` whose `a` waits until b was taken by the other worker: b is stolen for sure.
    let path = temp_trace("steal");
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .trace_file(&path)
        .build()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let (a_runs_on, b_runs_on) = pool.install(|| {
        forkjoin::join(
            move || {
                // Offer b to the idle worker, then wait for it to run b.
                let me = forkjoin::current_thread_index();
                rx.recv_timeout(common::TIMEOUT)
                    .expect("b was never stolen");
                me
            },
            move || {
                tx.send(()).unwrap();
                forkjoin::current_thread_index()
            },
        )
    });
    assert_ne!(a_runs_on, b_runs_on, "b ran on the other worker");
    let stats = pool.stats();
    let thief = b_runs_on.unwrap();
    assert!(stats.workers[thief].steals >= 1, "{stats:?}");
    assert!(
        stats.workers[a_runs_on.unwrap()].stolen_by_others >= 1,
        "{stats:?}"
    );
    let file = finish(pool, &path);
    let pid = *file.process_names().keys().next().unwrap();
    let tids = worker_tracks(&file, pid, 2);
    let track = file.track(pid, tids[thief]);
    let b = job_spans(&track)
        .into_iter()
        .find(|e| e.name == "join b" && e.args.get("victim").is_some())
        .expect("the thief ran a stolen join b");
    let steal = track
        .iter()
        .find(|e| e.ph == "i" && e.arg_str("job") == b.arg_str("job"))
        .expect("its steal is recorded");
    assert!(steal.ts_ns <= b.ts_ns);
    assert!(steal.name == "stolen" || steal.name == "heavy steal");
}

#[test]
fn an_overfull_ring_reports_its_dropped_events() {
    let path = temp_trace("overfull");
    let capacity = 4;
    let pool = ThreadPoolBuilder::new()
        .num_threads(1)
        .trace_file(&path)
        .trace_capacity(capacity)
        .build()
        .unwrap();
    // Each install is one job span on the worker (plus idle spans) and one install span on this
    // thread's track.
    let installs = 20;
    for i in 0..installs {
        assert_eq!(pool.install(|| i), i);
    }
    let file = finish(pool, &path);
    let pid = *file.process_names().keys().next().unwrap();
    let tid = worker_tracks(&file, pid, 1)[0];
    let track = file.track(pid, tid);
    let reported: Vec<&&TraceEvent> = track
        .iter()
        .filter(|e| e.name == "events dropped")
        .collect();
    assert_eq!(reported.len(), 1, "{track:?}");
    let dropped = reported[0].args.get("count").unwrap().as_u64().unwrap();
    assert_eq!(
        track.len() - 1,
        capacity,
        "the ring keeps its last {capacity} events"
    );
    assert!(dropped >= installs as u64 - capacity as u64, "{dropped}");
    let summary = &file.other.get("pools").unwrap().as_array().unwrap()[0];
    let in_summary = summary.get("dropped_events").unwrap().as_array().unwrap()[0]
        .as_u64()
        .unwrap();
    assert_eq!(in_summary, dropped);
    // The caller's track keeps its last 4 installs of 20, and says so.
    assert_eq!(
        summary.get("caller_dropped_events").unwrap().as_u64(),
        Some(installs as u64 - capacity as u64)
    );
    let labels = file
        .events
        .iter()
        .find(|e| e.name == "process_labels")
        .expect("the process is labelled with the overflow");
    assert!(labels.arg_str("labels").unwrap().contains("events dropped"));
}

#[test]
fn tracing_does_not_change_results() {
    let plain = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let path = temp_trace("same");
    let traced = ThreadPoolBuilder::new()
        .num_threads(2)
        .trace_file(&path)
        .trace_capacity(64)
        .build()
        .unwrap();
    for _ in 0..3 {
        assert_eq!(workload(&plain), workload(&traced));
    }
    finish(traced, &path);
}

/// A `use_current_thread` pool writes its trace when its thread drops it (its state was leaked,
/// and the file never written, while the thread stayed a worker for good).
#[test]
fn a_use_current_thread_pool_writes_its_trace_when_dropped() {
    let path = temp_trace("current-thread");
    let file = common::watchdog(
        "traced use_current_thread pool",
        common::TIMEOUT,
        move || {
            let pool = ThreadPoolBuilder::new()
                .num_threads(2)
                .use_current_thread()
                .trace_file(&path)
                .build()
                .unwrap();
            assert_eq!(pool.install(|| common::fib(15)), 610);
            finish(pool, &path)
        },
    );
    let processes = file.process_names();
    assert_eq!(processes.len(), 1, "{processes:?}");
    let name = processes.values().next().unwrap();
    assert!(name.contains("(2 workers)"), "{name}");
}

#[test]
fn trace_capacity_zero_is_an_error() {
    let err = ThreadPoolBuilder::new()
        .trace_capacity(0)
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("trace_capacity(0)"), "{err}");
}

#[test]
fn two_pools_traced_to_one_path_share_the_file() {
    let path = temp_trace("shared");
    let a = ThreadPoolBuilder::new()
        .num_threads(1)
        .trace_file(&path)
        .build()
        .unwrap();
    let b = ThreadPoolBuilder::new()
        .num_threads(2)
        .trace_file(&path)
        .build()
        .unwrap();
    a.install(|| ());
    b.install(|| ());
    drop(a);
    // Written when `a` was dropped, with `b` as far as it got.
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(TraceFile::parse(&text).unwrap().process_names().len(), 2);
    let file = finish(b, &path);
    // Perfetto keys threads by tid alone: no two pools may share one.
    let threads = file.thread_names();
    let tids: std::collections::BTreeSet<u64> = threads.keys().map(|&(_, tid)| tid).collect();
    assert_eq!(tids.len(), threads.len(), "{threads:?}");
    assert_eq!(
        threads.len(),
        1 + 2 + 2,
        "two pools' workers and their caller: {threads:?}"
    );
    let names: Vec<String> = file.process_names().into_values().collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names[0].contains("(1 worker)") && names[1].contains("(2 workers)"),
        "{names:?}"
    );
}

/// Per-worker counters sum to the totals, steals made equal steals suffered, and each worker's
/// jobs are its pops, steals and injector pops.
fn check_sums(stats: &PoolStats) {
    let sum = |f: fn(&forkjoin::WorkerStats) -> u64| stats.workers.iter().map(f).sum::<u64>();
    assert_eq!(sum(|w| w.jobs_executed), stats.jobs_executed);
    assert_eq!(sum(|w| w.local_pops), stats.local_pops);
    assert_eq!(sum(|w| w.steals), stats.steals);
    assert_eq!(sum(|w| w.stolen_by_others), stats.steals);
    assert_eq!(sum(|w| w.injector_pops), stats.injector_pops);
    assert_eq!(sum(|w| w.sleeps), stats.sleeps);
    assert_eq!(sum(|w| w.wakeups), stats.wakeups);
    assert_eq!(sum(|w| w.failed_steals), stats.failed_steals);
    assert_eq!(sum(|w| w.jobs_published), stats.jobs_published);
    for w in &stats.workers {
        assert_eq!(w.jobs_executed, w.local_pops + w.steals + w.injector_pops);
        assert!(w.deque_pops <= w.local_pops);
        assert!(!(w.busy + w.idle).is_zero(), "a started worker has an age");
    }
}

#[test]
fn per_worker_metrics_sum_to_the_totals() {
    for threads in [1, 2, 4] {
        let pool = common::pool(threads);
        workload(&pool);
        let stats = pool.stats();
        assert_eq!(stats.workers.len(), threads);
        check_sums(&stats);
        assert_eq!(stats.injector_pops, 10, "{stats:?}");
    }
}
