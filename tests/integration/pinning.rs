//! `ThreadPoolBuilder::pin_threads`: each worker reads its own `Cpus_allowed_list` from
//! `/proc/thread-self/status`, from its start handler (which `build` waits for) and from inside jobs
//! (spawned jobs that meet at a rendezvous, so every worker runs exactly one), and checks it is the
//! single CPU it should be pinned to, or the whole set with pinning off.
#![cfg(target_os = "linux")]

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex};

use forkjoin::ThreadPoolBuilder;

use crate::common;
use common::{fib, TIMEOUT};

/// Parses a kernel CPU list such as `0-3,8,10-11`.
fn parse_cpu_list(list: &str) -> Vec<usize> {
    let mut cpus = Vec::new();
    for part in list.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().unwrap()..=b.parse().unwrap()),
            None => cpus.push(part.parse().unwrap()),
        }
    }
    cpus
}

/// The `Cpus_allowed_list` of a `/proc/.../status` file.
fn cpus_in(path: &str) -> Vec<usize> {
    let status = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap_or_else(|| panic!("no Cpus_allowed_list in {path}"));
    parse_cpu_list(list)
}

/// The CPUs the process may run on (its main thread's set, as the builder reads it).
fn process_cpus() -> Vec<usize> {
    let cpus = cpus_in("/proc/self/status");
    assert!(!cpus.is_empty());
    cpus
}

/// The calling thread's CPUs.
fn my_cpus() -> Vec<usize> {
    cpus_in("/proc/thread-self/status")
}

type Seen = Arc<Mutex<BTreeMap<usize, Vec<usize>>>>;

/// Builds a pool of `n` workers whose start handlers record each worker's CPUs; `build` returns only
/// after every start handler has, so the map is complete.
fn build_and_record(n: usize, pin: bool) -> (forkjoin::ThreadPool, BTreeMap<usize, Vec<usize>>) {
    let seen: Seen = Arc::default();
    let s = seen.clone();
    let pool = ThreadPoolBuilder::new()
        .num_threads(n)
        .pin_threads(pin)
        .start_handler(move |i| {
            s.lock().unwrap().insert(i, my_cpus());
        })
        .build()
        .expect("pool builds");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen.len(),
        n,
        "every start handler ran before build returned"
    );
    (pool, seen)
}

/// Runs one job on every worker of `pool` at once and returns what each saw: `n` spawned jobs each
/// wait until all `n` have arrived, so no worker can run two of them. A bounded wait: a worker that
/// never comes fails the test instead of hanging it.
fn record_from_jobs(pool: &forkjoin::ThreadPool) -> BTreeMap<usize, Vec<usize>> {
    let n = pool.current_num_threads();
    let arrived = (Mutex::new(0usize), Condvar::new());
    let seen = Mutex::new(BTreeMap::new());
    pool.scope(|s| {
        for _ in 0..n {
            s.spawn(|_| {
                let index = forkjoin::current_thread_index().expect("a job runs on a worker");
                seen.lock().unwrap().insert(index, my_cpus());
                let (count, cv) = &arrived;
                let mut count = count.lock().unwrap();
                *count += 1;
                cv.notify_all();
                let (count, timeout) = cv.wait_timeout_while(count, TIMEOUT, |c| *c < n).unwrap();
                assert!(
                    !timeout.timed_out(),
                    "only {} of {n} workers ran a job",
                    *count
                );
            });
        }
    });
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.len(), n, "each worker ran exactly one of the jobs");
    seen
}

fn expected_pinned(cpus: &[usize], n: usize) -> BTreeMap<usize, Vec<usize>> {
    (0..n).map(|i| (i, vec![cpus[i % cpus.len()]])).collect()
}

#[test]
fn each_worker_is_pinned_to_its_own_cpu() {
    let cpus = process_cpus();
    let n = cpus.len();
    let (pool, at_start) = build_and_record(n, true);
    assert_eq!(at_start, expected_pinned(&cpus, n));
    assert_eq!(record_from_jobs(&pool), expected_pinned(&cpus, n));
    // Pinned workers still compute.
    assert_eq!(pool.install(|| fib(20)), 6765);
}

#[test]
fn more_workers_than_cpus_wrap_around() {
    let cpus = process_cpus();
    let n = cpus.len() + 2;
    let (pool, at_start) = build_and_record(n, true);
    let expected = expected_pinned(&cpus, n);
    assert_eq!(at_start, expected);
    assert_eq!(
        at_start[&cpus.len()],
        [cpus[0]],
        "worker len wraps to the first CPU"
    );
    assert_eq!(record_from_jobs(&pool), expected);
    assert_eq!(pool.install(|| fib(20)), 6765);
}

#[test]
fn pinning_off_leaves_every_worker_the_full_set() {
    let cpus = process_cpus();
    let n = cpus.len().max(2);
    let all: BTreeMap<usize, Vec<usize>> = (0..n).map(|i| (i, cpus.clone())).collect();
    let (pool, at_start) = build_and_record(n, false);
    assert_eq!(at_start, all);
    assert_eq!(record_from_jobs(&pool), all);
    // The default is off.
    let pool = ThreadPoolBuilder::new().num_threads(n).build().unwrap();
    assert_eq!(pool.install(my_cpus), cpus);
}

#[test]
fn the_thread_that_builds_a_pinned_pool_keeps_its_set() {
    let before = my_cpus();
    let (_pool, _) = build_and_record(2, true);
    assert_eq!(my_cpus(), before);
}
