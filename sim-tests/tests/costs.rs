//! The simulator's machine costs read from calibration files (`docs/data/costs-*.txt`, what
//! `examples/calibrate.rs --out` writes; `scripts/predict.sh --costs`).
#![cfg(forkjoin_shuttle)]

use forkjoin::__sim::Costs;

const VM: &str = include_str!("../../docs/data/costs-2core-vm.txt");
const HOST_16: &str = include_str!("../../docs/data/costs-16core.txt");

/// The development VM's file is what the simulator charges by default.
#[test]
fn the_vm_file_is_the_default() {
    assert_eq!(Costs::from_calibration(VM), Ok((Costs::MEASURED, vec![])));
}

#[test]
fn the_16_core_file_is_read_row_by_row() {
    let (c, defaulted) = Costs::from_calibration(HOST_16).unwrap();
    // Calibrated before the clock's row existed: the VM's figure, and said.
    assert_eq!(defaulted, ["clock read (ticks)"]);
    assert_eq!(c.clock_read, Costs::MEASURED.clock_read);
    assert_eq!(
        (c.rmw_hit, c.transfer, c.wake_latency, c.futex_wake),
        (9_700, 84_700, 6_310_400, 1_499_900)
    );
    // No row of its own: charged as a yield.
    assert_eq!(c.futex_wait, c.yield_now);
    // "unwind per frame", not the rows below it that start alike.
    assert_eq!(c.unwind_per_frame, 1_098_100);
}

#[test]
fn a_missing_or_bad_row_is_an_error_naming_it() {
    let missing = VM.replace("calibrate: sched_yield", "calibrate: sched_yeld");
    let e = Costs::from_calibration(&missing).unwrap_err();
    assert!(e.contains("no row `calibrate: sched_yield"), "{e}");
    let bad = VM.replace("24.9 ns", "fast ns");
    let e = Costs::from_calibration(&bad).unwrap_err();
    assert!(
        e.contains("spin_loop hint") && e.contains("not a number"),
        "{e}"
    );
    let negative = VM.replace("24.9 ns", "-1 ns");
    let e = Costs::from_calibration(&negative).unwrap_err();
    assert!(e.contains("not a cost"), "{e}");
    let e = Costs::from_calibration("").unwrap_err();
    assert!(e.contains("no row"), "{e}");
}
