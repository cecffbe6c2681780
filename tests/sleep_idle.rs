//! An idle pool uses (next to) no CPU: after a workload, the process's user+system time over a second
//! of idleness stays near zero. A resource check, not a speed threshold.
//!
//! Its own test binary (one test) because it measures the whole process's CPU time.
#![cfg(target_os = "linux")]

use std::time::{Duration, Instant};

use forkjoin::ThreadPoolBuilder;

mod common;
use common::fib;

/// utime + stime of the whole process, in clock ticks (fields 14 and 15 of /proc/self/stat).
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat is readable");
    // The command name (field 2) may contain spaces: parse after its closing parenthesis.
    let rest = &stat[stat.rfind(')').expect("well-formed stat") + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // rest starts at field 3, so field k is fields[k - 3].
    let utime: u64 = fields[14 - 3].parse().unwrap();
    let stime: u64 = fields[15 - 3].parse().unwrap();
    utime + stime
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no memory-safety preconditions; it only reads a configuration value.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

#[test]
fn idle_pools_use_next_to_no_cpu() {
    // Oversubscribed pools plus the global pool, all made busy first.
    let pools: Vec<_> = [2, 8]
        .iter()
        .map(|&n| ThreadPoolBuilder::new().num_threads(n).build().unwrap())
        .collect();
    for p in &pools {
        for _ in 0..20 {
            assert_eq!(p.install(|| fib(22)), 17711);
        }
    }
    assert_eq!(fib(22), 17711);
    forkjoin::spawn(|| assert_eq!(fib(15), 610));

    // Up to three one-second windows; the pools must be quiet in at least one of them (a noisy
    // machine can only add time to a window, a spinning pool burns CPU in all of them).
    let tps = ticks_per_second();
    let mut used = Vec::new();
    for _ in 0..3 {
        let (t0, c0) = (Instant::now(), cpu_ticks());
        std::thread::sleep(Duration::from_secs(1)); // the measured idle period, not synchronisation
        let cpu = (cpu_ticks() - c0) as f64 / tps;
        let wall = t0.elapsed().as_secs_f64();
        let share = cpu / wall;
        used.push(share);
        // 10 idle workers spinning would use ~2 cores here; sleeping ones use ~0.
        if share < 0.05 {
            break;
        }
    }
    let best = used.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(
        best < 0.05,
        "idle pools used {:.0}% of a core over a second of idleness (windows: {used:?})",
        best * 100.0
    );
    drop(pools);
}
