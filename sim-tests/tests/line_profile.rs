//! The timing mode's line profile (`forkjoin::__sim::line_profile`, `PREDICT_LINES` of
//! `scripts/predict.sh`): the runtime's shared lines show under their names, and what a busy
//! worker pays is told apart from what an idle one pays.
#![cfg(forkjoin_shuttle)]

use forkjoin::__sim::{line_profile, profile_lines, work, LineCharge};
use sim_tests::after_idle_in_virtual_time;

/// A tree of `2^depth` leaves of 2 virtual µs each.
fn tree(depth: u32) {
    if depth == 0 {
        work(2_000);
    } else {
        forkjoin::join(|| tree(depth - 1), || tree(depth - 1));
    }
}

fn row<'a>(rows: &'a [LineCharge], label: &str) -> &'a LineCharge {
    rows.iter()
        .find(|r| r.label == label)
        .unwrap_or_else(|| panic!("no row {label:?} in {rows:#?}"))
}

#[test]
fn a_tree_on_8_workers_charges_the_named_lines() {
    profile_lines(true);
    let (rows, elapsed_ns) = after_idle_in_virtual_time(0, 8, |pool| {
        let start = forkjoin::__sim::now_ns().unwrap();
        pool.install(|| tree(10));
        (line_profile(), forkjoin::__sim::now_ns().unwrap() - start)
    });
    // The steals of the tree moved jobs and announced them: each of these lines was used.
    for label in [
        "sleep counters (JEC, sleepers)",
        "sleep slots",
        "idle count",
        "work map",
        "public deques: top",
        "public deques: bottom",
        "private stacks: top",
        "other (jobs, latches, results)",
    ] {
        let r = row(&rows, label);
        assert!(r.busy.accesses + r.idle.accesses > 0, "{r:?}");
        assert!(r.busy.transfers <= r.busy.accesses, "{r:?}");
        assert!(r.busy.load_ps <= r.busy.ps, "{r:?}");
    }
    // Idle workers search: they read the work map; a stolen job's lines move to its thief, which
    // runs it busy.
    assert!(row(&rows, "work map").idle.accesses > 0);
    assert!(row(&rows, "other (jobs, latches, results)").busy.transfers > 0);
    // Rows are one per label, most charged to busy threads first.
    let mut labels: Vec<&str> = rows.iter().map(|r| r.label).collect();
    labels.sort();
    labels.dedup();
    assert_eq!(labels.len(), rows.len());
    assert!(rows.windows(2).all(|w| w[0].busy.ps >= w[1].busy.ps));
    // Nobody pays more than it had time for: 8 workers and the caller over the run and before it
    // (the pool's start and its first millisecond count too).
    let charged_ps: u64 = rows.iter().map(|r| r.busy.ps + r.idle.ps).sum();
    assert!(
        charged_ps < 9 * (elapsed_ns + 2_000_000) * 1000,
        "{charged_ps}"
    );
}
