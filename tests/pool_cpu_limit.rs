//! The default pool size follows the CPUs the process may use: under an affinity mask of one CPU
//! (what `taskset -c 0` does) the default pool and the global pool have 1 thread; a pool built
//! from a thread pinned to one CPU still gets the process's whole mask. The cases run in child
//! processes (this binary re-executed on one ignored probe test), whose mask is set between
//! `fork` and `exec`, so no other test sees it. A pool built with `follow_cpu_limit` follows the
//! process's mask from 2 CPUs to 1 and back, and so does a `fork()`ed child's global pool when
//! its parent's followed. Linux only (the masks are Linux's).
#![cfg(target_os = "linux")]

use std::os::unix::process::CommandExt;
use std::time::{Duration, Instant};

use forkjoin::prelude::*;

mod common;

/// Set only in the child processes: the probes do nothing in a normal `--ignored` run.
const PROBE: &str = "FORKJOIN_TEST_CPU_PROBE";

/// The CPUs this process may run on.
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: all-zero is the empty set; the size passed is the set's; pid 0 is this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        assert_eq!(
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
            0
        );
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// Runs probe `name` in a child whose CPU mask is `cpus` (or inherited), with the thread-count
/// variables unset; fails if the probe failed.
fn run_probe(name: &str, cpus: Option<Vec<usize>>) {
    let mut cmd = common::probe_command(name, PROBE);
    cmd.env_remove("FORKJOIN_NUM_THREADS")
        .env_remove("RAYON_NUM_THREADS");
    if let Some(cpus) = cpus {
        // SAFETY: the closure runs in the child between fork and exec, and only calls
        // `sched_setaffinity` (async-signal-safe) on a set built before the fork.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for cpu in cpus {
                libc::CPU_SET(cpu, &mut set);
            }
            cmd.pre_exec(move || {
                if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    common::run_probe_command(cmd, name);
}

fn probing() -> bool {
    std::env::var_os(PROBE).is_some()
}

#[test]
fn under_a_mask_of_one_cpu_the_default_pools_have_one_thread() {
    let first = allowed_cpus()[0];
    run_probe("probe_one_cpu", Some(vec![first]));
}

#[test]
#[ignore = "run by under_a_mask_of_one_cpu_the_default_pools_have_one_thread"]
fn probe_one_cpu() {
    if !probing() {
        return;
    }
    assert_eq!(allowed_cpus().len(), 1);
    let pool = forkjoin::ThreadPoolBuilder::new().build().unwrap();
    assert_eq!(pool.current_num_threads(), 1);
    assert_eq!(forkjoin::current_num_threads(), 1, "the global pool");
}

#[test]
fn a_pool_built_on_a_pinned_thread_gets_the_process_mask() {
    run_probe("probe_pinned_builder", None);
}

#[test]
#[ignore = "run by a_pool_built_on_a_pinned_thread_gets_the_process_mask"]
fn probe_pinned_builder() {
    if !probing() {
        return;
    }
    // The default pool built here, on a thread with the process's mask.
    let wide = forkjoin::ThreadPoolBuilder::new()
        .build()
        .unwrap()
        .current_num_threads();
    let first = allowed_cpus()[0];
    let pinned = std::thread::spawn(move || {
        // SAFETY: all-zero is the empty set; `first` is below CPU_SETSIZE (it came from a set);
        // the size passed is the set's; pid 0 is this thread.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(first, &mut set);
            assert_eq!(
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set),
                0
            );
        }
        assert_eq!(allowed_cpus(), [first], "this thread is pinned");
        forkjoin::ThreadPoolBuilder::new()
            .build()
            .unwrap()
            .current_num_threads()
    })
    .join()
    .unwrap();
    // std's `available_parallelism` would answer 1 on the pinned thread.
    assert_eq!(pinned, wide, "a pinned builder shrank the default pool");
}

/// Sets the affinity mask of the process's main thread (what `taskset -p` changes, and what the
/// pool reads as the process's) to `cpus`.
fn set_process_mask(cpus: &[usize]) {
    // SAFETY: all-zero is the empty set; every CPU is below CPU_SETSIZE (each came from a set);
    // the size passed is the set's; `getpid` names the main thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &cpu in cpus {
            libc::CPU_SET(cpu, &mut set);
        }
        assert_eq!(
            libc::sched_setaffinity(libc::getpid(), std::mem::size_of::<libc::cpu_set_t>(), &set),
            0
        );
    }
}

/// Runs the probe `name` on the first two allowed CPUs; skipped where the process may use one.
fn run_probe_on_two_cpus(name: &str) {
    let cpus = allowed_cpus();
    if cpus.len() < 2 {
        eprintln!("skipped: the process may use {} CPU", cpus.len());
        return;
    }
    run_probe(name, Some(cpus[..2].to_vec()));
}

#[test]
fn a_following_pool_follows_an_affinity_change() {
    run_probe_on_two_cpus("probe_follow");
}

#[test]
#[ignore = "run by a_following_pool_follows_an_affinity_change"]
fn probe_follow() {
    if !probing() {
        return;
    }
    let cpus = allowed_cpus();
    assert_eq!(cpus.len(), 2);
    common::watchdog("follow the CPU limit", Duration::from_secs(60), move || {
        let pool = forkjoin::ThreadPoolBuilder::new()
            .follow_cpu_limit(true)
            .build()
            .unwrap();
        assert_eq!(pool.current_num_threads(), 2);
        // Each change is seen within the follower's period (about a second); the watchdog is
        // the test's bound, the time taken is printed for the report.
        for mask in [&cpus[..1], &cpus[..]] {
            set_process_mask(mask);
            let start = Instant::now();
            while pool.current_num_threads() != mask.len() {
                std::thread::sleep(Duration::from_millis(10));
            }
            eprintln!("followed {} CPUs after {:?}", mask.len(), start.elapsed());
            let sum: u64 = pool.install(|| (0..1_000u64).into_par_iter().sum());
            assert_eq!(sum, 499_500);
        }
        // A size set by hand stands until the limit changes again.
        pool.set_num_threads(1).unwrap();
        std::thread::sleep(Duration::from_millis(1_500));
        assert_eq!(pool.current_num_threads(), 1);
    });
}

#[test]
fn a_forked_childs_global_pool_follows_as_its_parents_did() {
    run_probe_on_two_cpus("probe_fork_follow");
}

#[test]
#[ignore = "run by a_forked_childs_global_pool_follows_as_its_parents_did"]
fn probe_fork_follow() {
    if !probing() {
        return;
    }
    let cpus = allowed_cpus();
    assert_eq!(cpus.len(), 2);
    forkjoin::ThreadPoolBuilder::new()
        .follow_cpu_limit(true)
        .build_global()
        .unwrap();
    let sum = || -> u64 { (0..1_000u64).into_par_iter().sum() };
    assert_eq!(sum(), 499_500);
    // SAFETY: fork has no preconditions. The child runs the check and `_exit`s, never returning
    // into the test harness (whose other threads it does not have).
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork: {}", std::io::Error::last_os_error());
    if pid == 0 {
        // The child's watchdog: a hang ends it by SIGALRM, which the parent reports.
        // SAFETY: `alarm` has no preconditions.
        unsafe { libc::alarm(60) };
        // The first call starts the child's own global pool, like the parent's; it follows the
        // child's CPU limit (the follower's period is about a second).
        let ok = sum() == 499_500 && forkjoin::current_num_threads() == 2 && {
            set_process_mask(&cpus[..1]);
            while forkjoin::current_num_threads() != 1 {
                std::thread::sleep(Duration::from_millis(10));
            }
            sum() == 499_500
        };
        // SAFETY: `_exit` has no preconditions; it skips the parent's exit handlers and buffers.
        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
    }
    let mut status = 0;
    // SAFETY: `pid` is our child; `status` is a valid place for its status.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the child's global pool did not follow its CPU limit (status {status:#x}; SIGALRM is {})",
        libc::SIGALRM
    );
}
