//! No thread leak: after 100 build/use/drop cycles the process is back to its thread count.
//!
//! Its own test binary (one test) because it counts every thread of the process.
#![cfg(target_os = "linux")]

use std::time::{Duration, Instant};

use forkjoin::ThreadPoolBuilder;

mod common;
use common::fib;

fn threads_in_process() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task is readable")
        .count()
}

#[test]
fn threads_return_to_the_count_before_after_100_build_drop_cycles() {
    let before = threads_in_process();
    for cycle in 0..100 {
        let n = 1 + cycle % 8;
        // The pool is dropped at the end of each iteration.
        let pool = ThreadPoolBuilder::new().num_threads(n).build().unwrap();
        assert_eq!(pool.install(|| fib(12)), 144);
        if cycle % 2 == 0 {
            // Half the pools are dropped while a spawned job may still be queued.
            pool.install(|| forkjoin::spawn(|| assert_eq!(fib(10), 55)));
        }
    }
    // Worker threads exit asynchronously after the drop: poll the count (bounded), not a fixed sleep.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let now = threads_in_process();
        if now <= before {
            assert_eq!(now, before);
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{} threads leaked after 100 build/drop cycles ({before} before, {now} now)",
            now - before
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}
