//! The names the simulation's line profile gives a pool's shared cache lines
//! (`src/platform/sync/sim/line_profile.rs`, `PREDICT_LINES` of `scripts/predict.sh`).
//!
//! Named once the registry has its final address (the sleep state, the work map, and each worker's
//! statistics, public deque and private stack); every other line a run charges counts as "other".
//! Nothing happens outside the simulation's timing mode (`sync::sim_label` is empty there).

use super::Registry;
use crate::platform::sync::sim_label;

impl Registry {
    /// Names the pool's shared lines for the simulation's line profile.
    pub(super) fn label_lines(&self) {
        self.sleep.label_lines();
        self.work_map.label_lines();
        for info in self.thread_infos.iter() {
            sim_label(&*info.stats, "worker statistics");
            info.stealer.label_lines();
            info.jobs.label_lines();
        }
    }
}
