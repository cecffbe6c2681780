#![cfg(forkjoin_shuttle)]
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use sim_tests::*;
#[test]
fn dbg() {
    for workers in [2usize, 8, 64] {
    shuttle::Runner::new(shuttle::scheduler::RandomScheduler::new_from_seed(1, 3), config()).run(move || {
        let exits = Arc::new(AtomicUsize::new(0));
        let p = pool(workers, &exits);
        let s0 = shuttle::current::context_switches();
        let calls = AtomicUsize::new(0);
        let got = p.install(|| fib(10, &calls));
        let s1 = shuttle::current::context_switches();
        let st = p.stats();
        eprintln!("w={workers} fib={got} steps_build={s0} steps_run={} jobs={} steals={} failed={} pub={} heavy={} sleeps={} wake={}", s1-s0, st.jobs_executed, st.steals, st.failed_steals, st.jobs_published, st.heavy_steals, st.sleeps, st.wakeups);
        drop_and_check_joined(p, &exits);
        eprintln!("total steps {}", shuttle::current::context_switches());
    });
    }
}
