//! The worker's side of caps (`crate::runtime::jobs::cap`, which states the protocol): the cap it
//! runs under, the places it reserves before it starts a job of a cap it is not inside, and the
//! places it gives back when the job's region closes.

use super::WorkerThread;
use crate::platform::sync::{sim_bug, Arc};
use crate::runtime::jobs::cap::{CapId, Parked};
use crate::runtime::jobs::job::JobRef;
use crate::runtime::jobs::region::{Own, RegionTag};
use crate::runtime::registry::Registry;

impl WorkerThread {
    /// True if this worker may try to take a job tagged `tag`: no cap of the pool is live, or the
    /// job's cap has room for this worker. Read before the take, from a word that may be stale: a
    /// filter (see [`admit`](Self::admit)).
    #[inline]
    pub(crate) fn cap_may_take(&self, tag: RegionTag) -> bool {
        let registry = &*self.registry;
        !registry.caps().any_live()
            || registry
                .caps()
                .has_room(registry.regions().cap_of(tag), self.cap.get())
    }

    /// Reserves the places `job`, just taken from a queue, needs in its cap, and returns it; `None`
    /// if a cap had no room (another thread took the last place since the filter looked, or the
    /// worker popped its own job after leaving the cap), and then the job is handed to the
    /// injector, where a thread inside its cap finds it.
    #[inline]
    pub(super) fn admit(&self, job: JobRef) -> Option<JobRef> {
        let registry = &*self.registry;
        let cap = registry.regions().cap_of(job.tag());
        // The simulation's self-check (scripts/sim-bugs.sh): every job starts, room or not.
        if cap.is_none() || sim_bug("cap_ignored") {
            return Some(job);
        }
        match registry.caps().reserve(cap, self.cap.get()) {
            Ok(()) => {
                // Held until the job's region gave the places back (`leave_cap`): the call may
                // return, its cap end, as soon as the job sets its latch.
                registry.caps().hold(cap);
                Some(job)
            }
            Err(_) => {
                registry.inject(job);
                None
            }
        }
    }

    /// Runs `f` in a region of its own under `cap`, which this worker has entered (its places are
    /// reserved, or it started the cap) and the caller holds: gives them back when `f` returns or
    /// unwinds.
    pub(crate) fn run_in_cap<R>(&self, cap: CapId, f: impl FnOnce() -> R) -> R {
        // The region's own hold, which `leave_cap` drops (as for a job's region, `admit`).
        self.registry.caps().hold(cap);
        let key = 0u8;
        let own = Own {
            cancel: None,
            cap: Some(cap),
        };
        let _region = self.open_region_under(&key as *const u8 as usize, self.region.get(), own);
        f()
    }

    /// Enters `cap` to start a spawned job under it: reserves its places, or with `token` (a
    /// parked job started by a pump, holding a place in every cap of its chain) gives back those
    /// of caps this worker is inside already. `Err` names a cap without room: park the job there.
    pub(crate) fn enter_cap_for_spawn(&self, cap: CapId, token: bool) -> Result<(), CapId> {
        let caps = self.registry.caps();
        let inside = self.cap.get();
        if !token {
            return caps.reserve(cap, inside);
        }
        let common = caps.common(cap, inside);
        if !common.is_none() {
            caps.give_back(common, CapId::NONE, &mut |job| {
                self.registry.inject_parked(job)
            });
        }
        Ok(())
    }

    /// Gives back the places this worker took for a region under `cap` opened under `outer`
    /// (see `RegionGuard`), then the region's hold on `cap`.
    #[cold]
    pub(super) fn leave_cap(&self, cap: CapId, outer: CapId) {
        let registry = &*self.registry;
        let caps = registry.caps();
        caps.give_back(cap, outer, &mut |job: Parked| registry.inject_parked(job));
        caps.unhold(cap);
    }
}

/// A reference to a live cap, dropped after every place taken under it was given back: for the
/// call that started the cap, and for each spawn made under it (which may outlive the call).
pub(crate) struct CapHold {
    registry: Arc<Registry>,
    id: CapId,
}

impl CapHold {
    /// The cap held.
    pub(crate) fn id(&self) -> CapId {
        self.id
    }
}

impl Drop for CapHold {
    fn drop(&mut self) {
        self.registry.caps().unhold(self.id);
    }
}

impl WorkerThread {
    /// Starts a cap of `limit` threads inside the one this worker runs under, with this worker
    /// inside it; run the work with [`run_in_cap`](Self::run_in_cap), and drop the hold after.
    pub(crate) fn start_cap(&self, limit: usize) -> CapHold {
        CapHold {
            registry: self.registry.clone(),
            id: self.registry.caps().start(limit, self.cap.get()),
        }
    }

    /// A hold on the cap this worker runs under, for a spawn into `registry` made now (none if it
    /// runs under none, or the spawn goes to another pool: a cap is its pool's).
    pub(crate) fn hold_cap_for(&self, registry: &Registry) -> Option<CapHold> {
        let id = self.cap.get();
        if id.is_none() || !std::ptr::eq(&*self.registry, registry) {
            return None;
        }
        self.registry.caps().hold(id);
        Some(CapHold {
            registry: self.registry.clone(),
            id,
        })
    }
}
