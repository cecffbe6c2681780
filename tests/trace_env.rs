//! `FORKJOIN_TRACE`: pools built while it is set trace to that file, the global pool included, and
//! the file is complete after the process exits (the exit hook writes the global pool, which is
//! never dropped). Each case runs this test binary again as a child process with the variables
//! set, so no other test sees them.

#[path = "../examples/common/trace_json.rs"]
mod trace_json;

use std::path::{Path, PathBuf};
use std::process::Command;

use forkjoin::prelude::*;
use trace_json::TraceFile;

/// Runs the ignored test `name` of this binary in a child process with `env` set; true if it passed.
fn run_child(name: &str, env: &[(&str, &Path)]) -> bool {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", name, "--ignored", "--test-threads=1"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    if !out.status.success() {
        eprintln!(
            "child {name} failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out.status.success()
}

fn temp_trace(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("forkjoin-env-{tag}-{}.json", std::process::id()))
}

/// The outside calls into the global pool in the child, as install spans on its caller track.
fn global_installs(file: &TraceFile) -> usize {
    let pid = file
        .process_names()
        .into_iter()
        .find(|(_, n)| n.starts_with("forkjoin global pool"))
        .expect("the global pool is in the file")
        .0;
    file.events
        .iter()
        .filter(|e| e.pid == pid && e.name == "install" && e.ph == "X")
        .count()
}

#[test]
fn the_global_pool_and_built_pools_trace_to_forkjoin_trace() {
    let path = temp_trace("global");
    let capacity = PathBuf::from("1000");
    let threads = PathBuf::from("2");
    assert!(run_child(
        "child_traces_through_the_environment",
        &[
            ("FORKJOIN_TRACE", &path),
            ("FORKJOIN_TRACE_CAPACITY", &capacity),
            ("FORKJOIN_NUM_THREADS", &threads),
        ],
    ));
    let text = std::fs::read_to_string(&path).expect("written at exit");
    std::fs::remove_file(&path).unwrap();
    let file = TraceFile::parse(&text).unwrap();
    let names: Vec<String> = file.process_names().into_values().collect();
    assert_eq!(
        names,
        [
            "forkjoin global pool (2 workers)",
            "forkjoin pool 2 (1 worker)"
        ],
        "{names:?}"
    );
    // Three calls from outside went into the global pool; the last two after the child's
    // explicit flush, so only the exit hook can have written them.
    let installs = global_installs(&file);
    assert_eq!(installs, 3);
    let capacities: Vec<u64> = file
        .other
        .get("pools")
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.get("ring_capacity").unwrap().as_u64().unwrap())
        .collect();
    assert_eq!(capacities, [1000, 1000]);
}

#[test]
#[ignore = "run by the_global_pool_and_built_pools_trace_to_forkjoin_trace in a child process"]
fn child_traces_through_the_environment() {
    let path = PathBuf::from(std::env::var_os("FORKJOIN_TRACE").expect("run by the parent test"));
    // The global pool starts here, tracing.
    assert_eq!(forkjoin::join(|| 1, || 2), (1, 2));
    // So does a pool built while the variable is set; dropping it writes the file, with the global
    // pool as far as it got.
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    assert_eq!(pool.install(|| 5), 5);
    drop(pool);
    let file = TraceFile::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(file.process_names().len(), 2);
    assert_eq!(global_installs(&file), 1);
    forkjoin::flush_trace().unwrap();
    // More work after the flush: the exit hook must write it.
    let sum: u64 = (0..1000u64).into_par_iter().sum();
    assert_eq!(sum, 499_500);
    assert_eq!(forkjoin::join(|| 3, || 4), (3, 4));
}

#[test]
fn an_invalid_forkjoin_trace_capacity_fails_build() {
    let path = temp_trace("invalid");
    let bad = PathBuf::from("lots");
    assert!(run_child(
        "child_with_an_invalid_capacity",
        &[("FORKJOIN_TRACE", &path), ("FORKJOIN_TRACE_CAPACITY", &bad)],
    ));
    let _ = std::fs::remove_file(&path);
}

#[test]
#[ignore = "run by an_invalid_forkjoin_trace_capacity_fails_build in a child process"]
fn child_with_an_invalid_capacity() {
    assert!(
        std::env::var_os("FORKJOIN_TRACE").is_some(),
        "run by the parent test"
    );
    let err = forkjoin::ThreadPoolBuilder::new().build().unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("FORKJOIN_TRACE_CAPACITY") && msg.contains("\"lots\""),
        "{msg}"
    );
    // An explicit capacity wins over the variable.
    let pool = forkjoin::ThreadPoolBuilder::new()
        .trace_capacity(8)
        .build()
        .unwrap();
    drop(pool);
}
