//! The scheduler of the timing mode: a discrete-event simulation on shuttle's `Scheduler` trait.
//!
//! At every scheduling point it runs the runnable virtual thread with the smallest virtual clock
//! (`super::vtime`); ties go to the lowest task id, or, with a nonzero seed, to an order the seed
//! picks, which is how `scripts/predict.sh` shows the spread of a prediction. It runs one
//! execution, installs the time model for it, and removes the model when dropped, so the
//! correctness tests' schedulers never see a clock of this mode.
use shuttle::scheduler::{Schedule, Scheduler, Task, TaskId};

use super::costs::Costs;
use super::vtime;

/// shuttle's scheduler for the virtual-time simulation (see the module docs). Hand it to
/// `shuttle::Runner::new`; it runs one execution.
#[derive(Debug)]
pub struct VirtualTimeScheduler {
    seed: u64,
    costs: Costs,
    started: bool,
    /// shuttle's randomness for the execution (xorshift64*), seeded from `seed`.
    random: u64,
}

impl VirtualTimeScheduler {
    /// A scheduler whose ties (equal clocks) go to the lowest task id (`seed == 0`) or to an order
    /// derived from `seed`.
    pub fn new(seed: u64) -> Self {
        Self::with_costs(seed, Costs::MEASURED)
    }

    /// The same, charging another machine's `costs` ([`Costs::from_calibration`]) instead of the
    /// development VM's.
    pub fn with_costs(seed: u64, costs: Costs) -> Self {
        VirtualTimeScheduler {
            seed,
            costs,
            started: false,
            random: seed | 1,
        }
    }
}

impl Scheduler for VirtualTimeScheduler {
    fn new_execution(&mut self) -> Option<Schedule> {
        if std::mem::replace(&mut self.started, true) {
            return None;
        }
        vtime::install(self.costs, self.seed);
        Some(Schedule::new(self.seed))
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        _current: Option<TaskId>,
        _is_yielding: bool,
    ) -> Option<TaskId> {
        // Yielding needs no special case: a yield charges its cost, so the yielder's clock moved on.
        let chosen = vtime::pick(runnable.iter().map(|t| usize::from(t.id())));
        Some(TaskId::from(chosen))
    }

    fn next_u64(&mut self) -> u64 {
        self.random ^= self.random >> 12;
        self.random ^= self.random << 25;
        self.random ^= self.random >> 27;
        self.random.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

impl Drop for VirtualTimeScheduler {
    fn drop(&mut self) {
        if self.started {
            vtime::uninstall();
        }
    }
}
