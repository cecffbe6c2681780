//! Where the timing mode's charges for shared memory went: per labelled cache line, split between
//! workers with a job and idle ones (`sim_time::line_profile`, printed by `PREDICT_LINES`).
//!
//! **Why.** A prediction says how long a run takes, not what the busy workers paid for. At many
//! cores the answer is usually a few pool-wide lines that everybody reads and somebody keeps
//! writing (a count, a bitmap word, a sleeper's slot): each write turns the other threads' next
//! read into a transfer, and writes to one line queue behind each other (`vtime`, "Contention").
//! Summing the charges per line, and naming the runtime's lines, turns that into a table.
//!
//! **Labels.** The runtime names its shared lines once they have their final address
//! (`sync::sim_label`, called by the registry after it is built); every line of the named range
//! counts under that name, so a pool's 256 sleep slots are one row. Lines nobody named (jobs' plain
//! memory, latches, results) are one row too. **Busy or idle** is the charged thread's state when
//! it paid: the runtime marks a worker idle from the start of an idle period (no job to run, or
//! waiting for a latch) to its end (`sync::sim_idle`); any other thread counts as busy. What busy
//! workers pay delays the work; what idle ones pay delays only their next steal.
//!
//! Off unless a prediction asks for it (`sim_time::profile_lines`): the bookkeeping is a hash map
//! update per charged operation.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether executions started from now on keep a profile (`sim_time::profile_lines`).
static PROFILE_LINES: AtomicBool = AtomicBool::new(false);

/// Turns the profile on or off for executions started from now on.
pub(crate) fn set_enabled(on: bool) {
    // Relaxed: read when an execution starts, on the thread that set it.
    PROFILE_LINES.store(on, Ordering::Relaxed);
}

/// True if executions started now keep a profile.
pub(crate) fn enabled() -> bool {
    // Relaxed: as in `set_enabled`.
    PROFILE_LINES.load(Ordering::Relaxed)
}

/// The row of lines nobody named.
const UNLABELLED: &str = "other (jobs, latches, results)";

/// What one line cost the threads of one state (busy or idle).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Charged {
    /// Charged operations (atomic operations and plain accesses of a job's lines).
    pub accesses: u64,
    /// Of those, the ones that moved the line from another thread.
    pub transfers: u64,
    /// Their cost in picoseconds, queueing behind other transfers included.
    pub ps: u64,
    /// Of that cost, what loads paid (the rest: stores and read-modify-writes).
    pub load_ps: u64,
}

impl Charged {
    fn add(&mut self, other: &Charged) {
        self.accesses += other.accesses;
        self.transfers += other.transfers;
        self.ps += other.ps;
        self.load_ps += other.load_ps;
    }
}

/// One row of the profile: every line under one label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineCharge {
    /// The runtime's name for these lines (`UNLABELLED` for the rest).
    pub label: &'static str,
    /// How many distinct lines the row sums.
    pub lines: usize,
    /// What workers running a job (and non-worker threads) paid.
    pub busy: Charged,
    /// What idle workers paid.
    pub idle: Charged,
}

/// The profile of one execution.
#[derive(Default)]
pub(crate) struct LineProfile {
    /// Line (address / 64) → its label.
    labels: HashMap<usize, &'static str>,
    /// Line → what it cost busy (`[0]`) and idle (`[1]`) threads.
    lines: HashMap<usize, [Charged; 2]>,
}

impl LineProfile {
    /// Names the lines of `bytes` bytes at `addr` (a later label of a line replaces an earlier one).
    pub(crate) fn label(&mut self, addr: usize, bytes: usize, label: &'static str) {
        let first = addr >> 6;
        let end = (addr + bytes.max(1) - 1) >> 6;
        for line in first..=end {
            self.labels.insert(line, label);
        }
    }

    /// Records one charged operation on `line`.
    pub(crate) fn record(&mut self, line: usize, idle: bool, load: bool, transfer: bool, ps: u64) {
        let charged = &mut self.lines.entry(line).or_default()[usize::from(idle)];
        charged.accesses += 1;
        charged.transfers += u64::from(transfer);
        charged.ps += ps;
        if load {
            charged.load_ps += ps;
        }
    }

    /// The rows, most charged to busy threads first.
    pub(crate) fn rows(&self) -> Vec<LineCharge> {
        let mut rows: HashMap<&'static str, LineCharge> = HashMap::new();
        for (line, [busy, idle]) in &self.lines {
            let label = self.labels.get(line).copied().unwrap_or(UNLABELLED);
            let row = rows.entry(label).or_insert(LineCharge {
                label,
                lines: 0,
                busy: Charged::default(),
                idle: Charged::default(),
            });
            row.lines += 1;
            row.busy.add(busy);
            row.idle.add(idle);
        }
        let mut rows: Vec<LineCharge> = rows.into_values().collect();
        rows.sort_by(|a, b| (b.busy.ps, b.idle.ps, a.label).cmp(&(a.busy.ps, a.idle.ps, b.label)));
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_sum_the_lines_of_a_label_and_split_busy_from_idle() {
        let mut p = LineProfile::default();
        // Two 64-byte lines under one label, one unlabelled line.
        p.label(0x1000, 128, "slots");
        p.record(0x1000 >> 6, false, true, true, 50);
        p.record(0x1040 >> 6, true, false, true, 70);
        p.record(0x1040 >> 6, false, false, false, 5);
        p.record(0x2000 >> 6, false, true, false, 1);
        let rows = p.rows();
        assert_eq!(rows.len(), 2);
        let slots = &rows[0];
        assert_eq!((slots.label, slots.lines), ("slots", 2));
        assert_eq!(
            slots.busy,
            Charged {
                accesses: 2,
                transfers: 1,
                ps: 55,
                load_ps: 50
            }
        );
        assert_eq!(
            slots.idle,
            Charged {
                accesses: 1,
                transfers: 1,
                ps: 70,
                load_ps: 0
            }
        );
        assert_eq!((rows[1].label, rows[1].busy.ps), (UNLABELLED, 1));
    }
}
