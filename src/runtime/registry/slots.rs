//! Which thread runs which worker slot: the state a resize (`ThreadPool::set_num_threads`)
//! changes, and the rules that keep one thread per slot and no job left behind.
//!
//! **Slots.** A pool is built with room for `capacity` workers (`ThreadPoolBuilder::resizable_up_to`,
//! by default its size or the machine's CPUs, whichever is more): every per-worker structure (deque,
//! private stack, sleep slot, region entries, broadcast inbox, terminate latch) exists for each
//! slot from the start, so a resize allocates nothing the workers read, and every index a thief or
//! a waker holds stays valid. The *target* is the pool's size (`current_num_threads`). Each slot
//! is in one of three states:
//!
//! ```text
//!            grow (a thread is started with the queues)
//!   Vacant ─────────────────────────────────────────────▶ Running ◀──┐ stay (regrown before it
//!     ▲                                                     │        │  decided: latch reset)
//!     │ vacate (queues put back)                             │ decide, index ≥ target
//!     │                                                      ▼        │
//!     └──────────────────────────────────────────────── Leaving ──────┘ vacate with `restart`
//!                                                                      (regrown while leaving)
//! ```
//!
//! All transitions happen under the registry's one slots lock, which no user code ever runs
//! under. **Invariant**: every slot below the target is `Running` or `Leaving { restart: true }`;
//! every `Running` slot at or past the target has its terminate latch set, so its thread comes back
//! to it as soon as its current job returns.
//!
//! **Shrink.** The target drops; the latch of every `Running` slot at or past it is set (waking
//! it if it sleeps). Its thread finishes the job it runs (nothing preempts user code), returns to
//! its main loop, and there *decides* under the lock: below the target again (a grow came first)
//! it resets its latch and stays; otherwise it must first have no broadcast share waiting and an
//! empty public deque (else it *drains*: runs its shares, gives its deque's jobs to the injector,
//! and decides again), and then it is `Leaving`. Its private stack is empty at the main loop: every
//! `join` it made has returned. It runs its exit handler outside the lock and *vacates*: its
//! queues go back into the slot, and the thread ends.
//!
//! **Why nothing is lost or run twice.** A job is only ever in a queue or being run. A leaving
//! worker gives its deque's jobs to the injector with the deque's own pops (which race with thieves
//! exactly as any owner's pops do: one of them gets each job), and decides only once, under the
//! lock, its deque is empty and no share waits. Broadcasts deliver their shares under the same
//! lock, to the slots below the target, so a share is never delivered to a slot whose thread has
//! decided to leave; and a thread decides to leave only after its last share ran. Spawned jobs go
//! to the deque or the injector, which the drain covers.
//!
//! **Grow.** The target rises; each `Vacant` slot below it gets a new thread with its queues
//! (spawned under the lock; a spawn that fails leaves the slot `Vacant` and the target just below
//! it); a `Running` slot (its thread has not decided yet) needs nothing; a `Leaving` one is marked
//! `restart`, and its thread, on vacating, keeps the slot instead: runs its start handler again and
//! goes back to its main loop. So a slot never has two threads.
//!
//! **Termination** sets `terminated` under the lock and every latch: a thread that decides then
//! leaves, and one that vacates never restarts.
//!
//! The ended threads' handles are joined outside the lock, by the next resize or when the pool is
//! dropped (an ended thread's stack is freed only when it is joined).
//!
//! `loom-tests/models/resize.rs` checks this state machine with a worker, a resizer and a
//! terminator racing; `sim-tests/tests/resize.rs` resizes the real pool at 64 workers while it runs.

use crate::platform::sync::sim_bug;

/// What a worker slot holds (see the module docs).
#[derive(Debug)]
enum SlotState<Q> {
    /// A thread runs it (or is starting to): it owns the slot's queues.
    Running,
    /// Its thread decided to leave and has yet to put the queues back; `restart`: a grow wants the
    /// slot again, so the thread keeps it instead.
    Leaving { restart: bool },
    /// No thread: the queues wait here for the next grow.
    Vacant(Q),
}

/// A running worker's decision at its main loop once its terminate latch is set.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Below the target again: the latch was reset; keep running.
    Stay,
    /// A broadcast share waits or the deque holds jobs: run them or give them away, then decide
    /// again.
    Drain,
    /// Leave: run the exit handler, then [`Slots::vacate`].
    Leave,
}

/// The slots of one pool, behind the registry's slots lock: `Q` is a slot's queues, `H` a thread's
/// join handle (generic, so that the loom model can use stand-ins).
#[derive(Debug)]
pub(crate) struct Slots<Q, H> {
    target: usize,
    terminated: bool,
    states: Vec<SlotState<Q>>,
    /// The handle of the last thread started for each slot, if we started it.
    handles: Vec<Option<H>>,
    /// Handles of threads that ended or are ending, to be joined outside the lock.
    retired: Vec<H>,
}

impl<Q, H> Slots<Q, H> {
    /// `running` slots with threads (being started), then one `Vacant` slot per entry of `vacant`.
    pub(crate) fn new(running: usize, vacant: Vec<Q>) -> Self {
        let states: Vec<SlotState<Q>> = (0..running)
            .map(|_| SlotState::Running)
            .chain(vacant.into_iter().map(SlotState::Vacant))
            .collect();
        Slots {
            target: running,
            terminated: false,
            handles: states.iter().map(|_| None).collect(),
            states,
            retired: Vec::new(),
        }
    }

    /// The pool's size.
    pub(crate) fn target(&self) -> usize {
        self.target
    }

    /// How many slots there are.
    pub(crate) fn capacity(&self) -> usize {
        self.states.len()
    }

    /// True once the pool terminated.
    pub(crate) fn terminated(&self) -> bool {
        self.terminated
    }

    /// Keeps the handle of the thread just started for slot `index`.
    pub(crate) fn started(&mut self, index: usize, handle: H) {
        if let Some(old) = self.handles[index].replace(handle) {
            self.retired.push(old);
        }
    }

    /// Sets the target to `n` (at least 1, at most the capacity), calling `start` under the lock for
    /// each vacant slot below it (it returns the queues back if the thread could not be started).
    /// Returns the `Running` slots at or past the new target, whose latches the caller must set, and
    /// the first failed start, if any (the target is then that slot's index).
    pub(crate) fn resize<E>(
        &mut self,
        n: usize,
        mut start: impl FnMut(usize, Q) -> Result<H, (Q, E)>,
    ) -> (Vec<usize>, Option<(usize, E)>) {
        debug_assert!((1..=self.capacity()).contains(&n));
        let mut failed = None;
        if !self.terminated {
            let old = self.target;
            self.target = n;
            for index in old..n {
                match &mut self.states[index] {
                    SlotState::Running => {}
                    SlotState::Leaving { restart } => *restart = true,
                    SlotState::Vacant(_) => {
                        let SlotState::Vacant(queues) =
                            std::mem::replace(&mut self.states[index], SlotState::Running)
                        else {
                            unreachable!("matched above")
                        };
                        match start(index, queues) {
                            Ok(handle) => self.started(index, handle),
                            Err((queues, err)) => {
                                self.states[index] = SlotState::Vacant(queues);
                                self.target = index;
                                failed = Some((index, err));
                                break;
                            }
                        }
                    }
                }
            }
        }
        let mut stop = Vec::new();
        for index in self.target..self.capacity() {
            match &mut self.states[index] {
                SlotState::Running => stop.push(index),
                SlotState::Leaving { restart } => *restart = false,
                SlotState::Vacant(_) => {}
            }
        }
        (stop, failed)
    }

    /// Slot `index`'s thread is at its main loop with its latch set: leave, stay or drain first.
    /// `drained`: no broadcast share waits for it and its public deque is empty. `reset_latch` is
    /// called (under the lock) when it stays.
    pub(crate) fn decide(
        &mut self,
        index: usize,
        drained: bool,
        reset_latch: impl FnOnce(),
    ) -> Decision {
        debug_assert!(matches!(self.states[index], SlotState::Running));
        if !self.terminated && index < self.target {
            reset_latch();
            Decision::Stay
        } else if !drained {
            Decision::Drain
        } else {
            self.states[index] = SlotState::Leaving { restart: false };
            Decision::Leave
        }
    }

    /// Slot `index`'s leaving thread puts its queues back. `Some(queues)` if a grow wants the slot
    /// again meanwhile: the thread keeps them and runs on (`reset_latch` is called under the lock);
    /// `None`: the slot is `Vacant` and the thread ends.
    pub(crate) fn vacate(
        &mut self,
        index: usize,
        queues: Q,
        reset_latch: impl FnOnce(),
    ) -> Option<Q> {
        let SlotState::Leaving { restart } = self.states[index] else {
            unreachable!("only a leaving thread vacates")
        };
        // The simulation's self-check (scripts/sim-bugs.sh) forgets the restart: the slot is then
        // vacant below the target, and the pool one thread short for good.
        if restart && !self.terminated && !sim_bug("resize_restart_lost") {
            debug_assert!(index < self.target);
            self.states[index] = SlotState::Running;
            reset_latch();
            Some(queues)
        } else {
            self.states[index] = SlotState::Vacant(queues);
            None
        }
    }

    /// The pool terminates: no thread stays or restarts from now on (the caller sets every latch).
    pub(crate) fn terminate(&mut self) {
        self.terminated = true;
    }

    /// The handles of threads that ended or are ending, to join outside the lock.
    pub(crate) fn take_retired(&mut self) -> Vec<H> {
        std::mem::take(&mut self.retired)
    }

    /// Every handle, to join outside the lock once the pool terminated.
    pub(crate) fn take_all_handles(&mut self) -> Vec<H> {
        let mut all = self.take_retired();
        all.extend(self.handles.iter_mut().filter_map(Option::take));
        all
    }

    /// True if slot `index` is vacant (for the tests, which do not run under loom or shuttle).
    #[cfg(all(test, not(any(forkjoin_loom, forkjoin_shuttle))))]
    pub(crate) fn is_vacant(&self, index: usize) -> bool {
        matches!(self.states[index], SlotState::Vacant(_))
    }
}

#[cfg(all(test, not(any(forkjoin_loom, forkjoin_shuttle))))]
mod tests {
    use super::*;

    type Table = Slots<&'static str, u32>;

    fn no_start(_: usize, q: &'static str) -> Result<u32, (&'static str, ())> {
        panic!("nothing to start ({q})")
    }

    #[test]
    fn shrink_then_grow_before_deciding_keeps_the_thread() {
        let mut t = Table::new(4, vec!["q4"]);
        let (stop, failed) = t.resize(2, no_start);
        assert_eq!((stop, failed), (vec![2, 3], None));
        t.resize(4, no_start);
        let mut reset = 0;
        assert_eq!(t.decide(3, true, || reset += 1), Decision::Stay);
        assert_eq!(reset, 1);
    }

    #[test]
    fn a_leaving_thread_restarts_when_regrown() {
        let mut t = Table::new(2, vec![]);
        t.resize(1, no_start);
        assert_eq!(t.decide(1, false, || ()), Decision::Drain);
        assert_eq!(t.decide(1, true, || ()), Decision::Leave);
        // A grow while it runs its exit handler: it keeps the slot.
        let (stop, _) = t.resize(2, no_start);
        assert!(stop.is_empty());
        assert_eq!(t.vacate(1, "q1", || ()), Some("q1"));
        // A second shrink: it leaves for good this time.
        assert_eq!(t.resize(1, no_start).0, vec![1]);
        assert_eq!(t.decide(1, true, || ()), Decision::Leave);
        assert_eq!(t.vacate(1, "q1", || ()), None);
        assert!(t.is_vacant(1));
    }

    #[test]
    fn a_grow_starts_vacant_slots_and_stops_at_a_failed_spawn() {
        let mut t = Table::new(1, vec!["q1", "q2", "q3"]);
        let mut started = Vec::new();
        let (stop, failed) = t.resize(4, |i, q| {
            if i == 3 {
                Err((q, "no thread"))
            } else {
                started.push(i);
                Ok(i as u32)
            }
        });
        assert_eq!(started, vec![1, 2]);
        assert_eq!(failed, Some((3, "no thread")));
        assert!(stop.is_empty());
        assert_eq!(t.target(), 3);
        assert!(t.is_vacant(3));
        // Starting slot 1 again retires its first handle.
        t.resize(1, no_start);
        assert_eq!(t.decide(1, true, || ()), Decision::Leave);
        assert_eq!(t.vacate(1, "q1", || ()), None);
        t.resize(2, |_, _| Ok::<u32, (&str, ())>(11));
        assert_eq!(t.take_retired(), vec![1]);
        let mut all = t.take_all_handles();
        all.sort();
        assert_eq!(all, vec![2, 11]);
    }

    #[test]
    fn termination_makes_every_thread_leave() {
        let mut t = Table::new(2, vec![]);
        t.terminate();
        assert_eq!(t.decide(0, true, || panic!("no reset")), Decision::Leave);
        assert_eq!(t.vacate(0, "q0", || panic!("no reset")), None);
        // A resize after termination starts nothing and changes nothing.
        assert!(t.resize(1, no_start).0.is_empty());
        assert_eq!(t.target(), 2);
    }
}
