//! What each synchronising operation costs on the virtual clock of the timing mode
//! (`super::vtime`), in picoseconds (a hit on an owned line costs less than a nanosecond, and a
//! join on the owner's fast path is a handful of those).
//!
//! Measured on the 2-core development VM with `examples/calibrate.rs` (medians of seven runs, real
//! threads and `std` atomics; method and numbers in `docs/testing.md`, "Predicted scaling"). Each
//! charge is the measured time of the operation in a tight loop, so it covers the operation and
//! its loop, not the plain code around it in the runtime (see `super::vtime`, "Not modelled").
//!
//! Another machine's costs come from its calibration file (what `examples/calibrate.rs --out FILE`
//! writes, `docs/data/costs-*.txt`) through [`Costs::from_calibration`]; `scripts/predict.sh
//! --costs FILE` charges them instead of these.

/// Picoseconds charged per operation kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Costs {
    /// A load of a line this core holds (last written by this thread, or read since): 0.4 ns measured.
    pub load_hit: u64,
    /// A store to a line this core owns: 0.2 ns measured.
    pub store_hit: u64,
    /// A read-modify-write (swap, CAS, fetch_*) on a line this core owns: 4.9 ns measured.
    pub rmw_hit: u64,
    /// Moving a line from another core: a load that misses, or the ownership a store or RMW needs.
    /// Half a ping-pong round trip between two cores: 100 ns measured (it includes the RMW).
    pub transfer: u64,
    /// `fence(SeqCst)` after a store: 5.9 ns measured.
    pub fence: u64,
    /// One `spin_loop` hint (`pause`): 24.9 ns measured.
    pub spin: u64,
    /// `sched_yield` with no other thread to run: 394 ns measured.
    pub yield_now: u64,
    /// `membarrier(PRIVATE_EXPEDITED)` for its caller, with another thread running: 727 ns measured.
    pub membarrier: u64,
    /// What a `membarrier` costs each other running thread of the process (the interrupt): 358 ns
    /// measured.
    pub membarrier_victim: u64,
    /// `FUTEX_WAKE` for the waker: 1,678 ns measured (a sleeper there to wake).
    pub futex_wake: u64,
    /// From a `FUTEX_WAKE` until the woken thread runs: 1,891 ns measured (half a round trip of two
    /// threads that take turns waking each other).
    pub wake_latency: u64,
    /// Entering `FUTEX_WAIT` (the system call before the thread sleeps): not measured separately;
    /// taken as a yield's system call.
    pub futex_wait: u64,
    /// Raising an unwinding (`resume_unwind` of a boxed payload, caught at once): 1,567 ns
    /// measured.
    pub unwind_raise: u64,
    /// Unwinding, per frame between the raise and the catch (see `super::vtime`, "Unwinding"):
    /// 407.5 ns measured, 46 nested frames of 48 bytes with a destructor each (18.75 µs more than a
    /// raise caught at once). Neither a frame's size nor being a `join`'s frame makes a difference
    /// that the measurement can tell from noise; a frame without a destructor costs about a third.
    pub unwind_per_frame: u64,
    /// Reading the runtime's clock (`platform::clock::ticks`, the time-stamp counter on x86-64):
    /// 19.6 ns measured (a VM's `rdtsc`; bare metal takes a third of that).
    pub clock_read: u64,
}

impl Costs {
    /// The calibrated costs of the development VM (see the module docs;
    /// `docs/data/costs-2core-vm.txt`).
    pub const MEASURED: Costs = Costs {
        load_hit: 400,
        store_hit: 200,
        rmw_hit: 4_900,
        transfer: 100_000,
        fence: 5_900,
        spin: 24_900,
        yield_now: 394_000,
        membarrier: 727_000,
        membarrier_victim: 358_000,
        futex_wake: 1_678_000,
        wake_latency: 1_891_000,
        futex_wait: 394_000,
        unwind_raise: 1_567_000,
        unwind_per_frame: 407_500,
        clock_read: 19_600,
    };
}

/// Where a calibration row goes in [`Costs`].
type Field = fn(&mut Costs) -> &mut u64;

/// The calibration rows each cost is read from (`examples/calibrate.rs` prints them as
/// `calibrate: ROW  VALUE ns`). `futex_wait` has no row of its own: it is charged as a yield.
const ROWS: [(&str, Field); 15] = [
    ("load (own line)", |c| &mut c.load_hit),
    ("store (own line)", |c| &mut c.store_hit),
    ("rmw (own line)", |c| &mut c.rmw_hit),
    ("line transfer (ping-pong)", |c| &mut c.transfer),
    ("fence SeqCst (+ store)", |c| &mut c.fence),
    ("spin_loop hint", |c| &mut c.spin),
    ("sched_yield", |c| &mut c.yield_now),
    ("sched_yield", |c| &mut c.futex_wait),
    ("membarrier (caller)", |c| &mut c.membarrier),
    ("membarrier (other thread)", |c| &mut c.membarrier_victim),
    ("futex wake call (waker)", |c| &mut c.futex_wake),
    ("futex wake-to-run", |c| &mut c.wake_latency),
    ("unwind raise (caught at once)", |c| &mut c.unwind_raise),
    ("unwind per frame", |c| &mut c.unwind_per_frame),
    ("clock read (ticks)", |c| &mut c.clock_read),
];

/// Rows that calibration files written before the row existed lack: such a file charges the
/// development VM's figure for them ([`Costs::from_calibration`] names them).
const ADDED_LATER: [&str; 1] = ["clock read (ticks)"];

impl Costs {
    /// A machine's costs from its calibration file: the lines `calibrate: ROW  VALUE ns` that
    /// `examples/calibrate.rs` prints, one per measured operation (other lines are ignored).
    /// Every row the model charges must be there, with a finite, non-negative value, except the
    /// rows added to the calibration later, which take the development VM's figure: their names
    /// come back beside the costs, for the caller to say so.
    pub fn from_calibration(text: &str) -> Result<(Costs, Vec<&'static str>), String> {
        // `Ok(None)`: the file has no such row.
        let value = |row: &str| -> Result<Option<u64>, String> {
            // The row's name, then spaces: "rmw (own line)" is not "rmw (2 cores hammering)".
            let Some(rest) = text
                .lines()
                .filter_map(|l| l.trim().strip_prefix("calibrate:"))
                .find_map(|l| {
                    l.trim_start()
                        .strip_prefix(row)
                        .filter(|r| r.starts_with(' '))
                })
            else {
                return Ok(None);
            };
            let number = rest.trim().strip_suffix("ns").unwrap_or(rest).trim();
            let ns: f64 = number
                .parse()
                .map_err(|_| format!("row `{row}`: {number:?} is not a number of ns"))?;
            if !ns.is_finite() || ns < 0.0 {
                return Err(format!("row `{row}`: {ns} ns is not a cost"));
            }
            Ok(Some((ns * 1000.0).round() as u64))
        };
        let mut costs = Costs::MEASURED;
        let mut defaulted = Vec::new();
        for (row, field) in ROWS {
            match value(row)? {
                Some(ps) => *field(&mut costs) = ps,
                None if ADDED_LATER.contains(&row) => defaulted.push(row),
                None => return Err(format!("no row `calibrate: {row}  VALUE ns`")),
            }
        }
        Ok((costs, defaulted))
    }
}
