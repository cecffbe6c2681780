//! Waiting by working: a worker that waits for a latch (a stolen b, a scope, an `install`, its
//! pool's termination in the main loop) runs other jobs meanwhile, and idles through the sleep
//! module when it finds none; `yield_now` runs one job the same way. The stack guard bounds what
//! such a wait may run.
//!
//! **The wait loop** ([`WorkerThread::wait_until_cold`]). Before it waits, the worker publishes all
//! its private jobs (nothing of it may stay hidden while it sleeps). Then, until the latch is set:
//! search ([`WorkerThread::find_work`], `search.rs`, which stops probing other workers' deques
//! once the latch is set); on a patrol timeout, heavy-steal; found a job:
//! leave the idle count, wake one more sleeper if more work is visible (sleep README rule 6), run
//! it; found nothing: join the idle count (unless guarded) and let the sleep module spin, yield or
//! put the worker to sleep. A wake for new work that this worker cannot use is passed on (rule 7).
//! Leaving the idle count may make the next push publish at once (rule 8).
//!
//! **A wait inside cancelled work** stays awake for its first [`CANCELLED_WAIT`]`.rounds` idle
//! rounds: it spins briefly on its latch and then yields, where another wait would idle towards
//! sleep, and it steals nothing and is not counted idle. What it waits for is being unwound, and
//! a chain of stolen b's unwinds link by link: each link would otherwise pay a wake-up (2 µs on the
//! development VM, 7–18 µs on a 16-core host) after the one below it, and a cancelled job stolen
//! now, which its owner would have dropped on its way past, adds a link. It still pops its own
//! deque and the injector. After those rounds it waits as any wait does, so a thief blocked in
//! user code delays it without stranding work.
//!
//! **Stack guard.** A worker that waits for a stolen job executes other jobs on top of its
//! current stack; unbounded, the frames pile up where the sequential program would never have gone. Each
//! worker records its stack's base and size at start; while more than half of it is in use, a waiting
//! worker only pops its *own* deque (jobs its own frames pushed, which the sequential program would also
//! have run at this depth) and the injector (which may hold the very job it waits for), never steals,
//! is not counted idle, and sleeps in a state that wakes for publications skip (only its latch or
//! injected work wake it).

use super::WorkerThread;
use crate::runtime::jobs::job::JobRef;
use crate::runtime::jobs::latch::CoreLatch;
use crate::runtime::jobs::region::WaitFor;
use crate::runtime::registry::bump;
use crate::runtime::sleep::{IdleState, Idled, SleepMode};
use crate::runtime::trace::{Event, RingWriter, Source, WakeReason};

/// An address near the current top of the stack.
#[inline(always)]
pub(super) fn approx_stack_pointer() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// How a wait inside cancelled work stays awake (see the module doc).
#[derive(Clone, Copy)]
struct CancelledWait {
    /// Idle rounds it stays awake: about a millisecond on a busy machine, then it waits as any
    /// wait does.
    rounds: u32,
    /// Probes of the latch per round before it yields: about a microsecond, what the link below
    /// it takes to finish once its own wait ends.
    spins: u32,
}

#[cfg(not(any(forkjoin_loom, forkjoin_shuttle)))]
const CANCELLED_WAIT: CancelledWait = CancelledWait {
    rounds: 1024,
    spins: 32,
};
// The correctness simulations pay a scheduling point per round and per spin; loom none at all.
#[cfg(forkjoin_shuttle)]
const CANCELLED_WAIT: CancelledWait = CancelledWait {
    rounds: 8,
    spins: 1,
};
#[cfg(forkjoin_loom)]
const CANCELLED_WAIT: CancelledWait = CancelledWait {
    rounds: 0,
    spins: 0,
};

/// [`CANCELLED_WAIT`] in force (the simulation's timing mode idles as production does).
#[inline]
fn cancelled_wait() -> CancelledWait {
    #[cfg(forkjoin_shuttle)]
    if crate::platform::sync::timing_mode() {
        return CancelledWait {
            rounds: 1024,
            spins: 32,
        };
    }
    CANCELLED_WAIT
}

/// What the wait loop of [`WorkerThread::wait_until_cold`] carries from one search to the next,
/// besides the sleep module's [`IdleState`].
struct Waiting {
    /// In the pool's idle count (only workers that can steal are counted).
    counted: bool,
    /// Idle rounds stayed awake because the work around the wait was cancelled.
    cancelled_rounds: u32,
    /// A waker claimed us for new work and we have not searched since.
    owe_wake: bool,
    /// Ticks when our current idle period began (our first failed search), while idle.
    idle_since: Option<u64>,
}

impl WorkerThread {
    /// True while enough stack remains to run stolen work (see the module docs).
    #[inline]
    pub(super) fn may_steal(&self) -> bool {
        approx_stack_pointer() > self.stack_limit
    }

    /// Waits until `latch` is set, executing any other jobs meanwhile (an idle worker's loop).
    #[inline]
    pub(crate) fn wait_until(&self, latch: &CoreLatch) {
        self.wait_for(latch, WaitFor::Anything);
    }

    /// The main loop's wait, right after the worker started: runs jobs until `terminate` is set.
    ///
    /// Its first idle period skips the spinning and yielding rounds and goes to sleep at once: a
    /// worker that just started has found no work, and until `build` returns nobody but a start
    /// handler can give it any, which the sleep protocol's wake-ups deliver. Spinning then only takes
    /// the CPU from the workers that have yet to start, and `build` waits for the last of them (on
    /// a machine with few cores, for the spinner's time slice to end).
    pub(crate) fn run_until_terminated(&self, terminate: &CoreLatch) {
        if !terminate.probe() {
            self.wait_until_cold(terminate, WaitFor::Anything, true);
        }
    }

    /// Waits until `latch` is set, executing meanwhile only jobs that belong to what it waits for
    /// (`want`, see `crate::runtime::jobs::region`).
    #[inline]
    pub(crate) fn wait_for(&self, latch: &CoreLatch, want: WaitFor) {
        if !latch.probe() {
            self.wait_until_cold(latch, want, false);
        }
    }

    /// Runs `job`, taken from this worker's own public deque while it waits for `want`, if it
    /// belongs there; otherwise moves it to the injector for the worker it belongs to (or an idle
    /// one).
    pub(crate) fn run_own_if_belongs(&self, job: JobRef, want: WaitFor) {
        if self.registry.belongs(want, &job) {
            self.execute(job);
        } else {
            self.registry.inject(job);
        }
    }

    /// Runs one job, if one is available, for `yield_local` (`local`: only this worker's own jobs)
    /// and `yield_now` (then anything a search finds). True if it ran one.
    ///
    /// Own jobs are its public deque's newest, else its oldest private job (moved to the deque and
    /// popped back, as a waiting worker would after publishing), else its broadcast share.
    pub(crate) fn run_one(&self, local: bool) -> bool {
        let own = || {
            self.pop_public()
                .or_else(|| (self.publish(1) > 0).then(|| self.pop_public()).flatten())
                .and_then(|job| self.admit(job))
                .map(|job| (job, Source::OwnDeque))
                .or_else(|| {
                    let job = self.registry.pop_broadcast(self.index)?;
                    Some((job, Source::Injector))
                })
        };
        let found = if local {
            own()
        } else {
            own().or_else(|| self.find_work(!self.may_steal(), WaitFor::Anything, None))
        };
        match found {
            Some((job, source)) => {
                self.execute_from(job, source);
                self.release_deferred();
                true
            }
            None => false,
        }
    }

    #[cold]
    #[inline(never)]
    /// The wait of [`wait_for`](Self::wait_for); with `sleep_at_once`, its first idle period skips
    /// the spinning and yielding rounds ([`run_until_terminated`](Self::run_until_terminated)).
    fn wait_until_cold(&self, latch: &CoreLatch, want: WaitFor, sleep_at_once: bool) {
        self.publish_all_private();
        let registry = &*self.registry;
        let sleep = registry.sleep();
        // The frame depth does not change while we wait: decide the stack guard once. A wait for
        // another pool steals nothing here either.
        let guarded = !self.may_steal() || want == WaitFor::Injected;
        let mode = match want {
            _ if guarded => SleepMode::Guarded,
            WaitFor::Anything => SleepMode::Idle,
            _ => SleepMode::Waiting,
        };
        let mut idle = sleep.start_looking_as(self.index, mode);
        if sleep_at_once {
            idle.skip_spinning();
        }
        let mut waiting = Waiting {
            counted: false,
            cancelled_rounds: 0,
            owe_wake: false,
            idle_since: None,
        };
        let cancelled_wait = cancelled_wait();
        while !latch.probe() {
            // What we wait for is being unwound: stay awake for it, steal nothing, and do not
            // count as idle (see the module doc).
            let stay_awake =
                waiting.cancelled_rounds < cancelled_wait.rounds && self.cancel_requested();
            let own_only = guarded || stay_awake;
            if stay_awake {
                // We steal nothing now: pass on what a publication left to us as a searcher.
                self.stop_searching_and_pass_on(&mut idle);
            }
            let found = match self.find_work(own_only, want, Some(latch)) {
                Some(found) => Some(found),
                // The search ended at our latch: leave.
                None if latch.probe() => break,
                None if !own_only && idle.take_patrol_due() => {
                    // A timed sleep ran out and claimed the pool's next patrol: look for jobs
                    // hidden on other workers' private stacks, whose owners may be blocked in user
                    // code.
                    self.steal_private(want)
                }
                None => None,
            };
            if let Some((job, source)) = found {
                // A searcher has idled (its rounds began after a failed search): the check
                // below is its duty to pass on too (rule 12).
                sleep.stop_searching(&mut idle);
                if waiting.counted {
                    self.leave_idle_count();
                    waiting.counted = false;
                }
                if let Some(since) = waiting.idle_since.take() {
                    self.end_idle(since);
                }
                if (idle.has_idled() || waiting.owe_wake) && self.more_work_visible() {
                    // Back to work after idling, and more is there to take: if others sleep and
                    // nobody searches, wake one to look for it, so parallelism spreads one thread
                    // at a time (rule 6). A publication that saw us searching woke nobody: this
                    // is its wake (rule 12).
                    let woken = sleep.announce_visible_work(self.index);
                    self.trace_wake(woken);
                }
                waiting.owe_wake = false;
                self.execute_from(job, source);
                idle = sleep.start_looking_as(self.index, mode);
                continue;
            }
            if waiting.owe_wake && want != WaitFor::Anything {
                // Woken for work that was not ours to take: an idle sleeper may take it (rule 7).
                let woken = sleep.pass_wake_to_idle();
                self.trace_wake(woken);
            }
            // We searched: whatever we were woken for is taken, or passed on.
            waiting.owe_wake = false;
            if waiting.idle_since.is_none() {
                waiting.idle_since = Some(self.begin_idle());
            }
            if !own_only && !waiting.counted {
                sleep.enter_idle();
                waiting.counted = true;
            }
            // Nothing left to drop: release what we hold before idling (the latch we wait for
            // may be the one they count in).
            self.release_deferred_before_search();
            if stay_awake {
                waiting.cancelled_rounds += 1;
                let mut spins = 0;
                while spins < cancelled_wait.spins && !latch.probe() {
                    crate::platform::sync::spin_loop();
                    spins += 1;
                }
                if spins == cancelled_wait.spins {
                    crate::platform::sync::yield_now();
                }
                continue;
            }
            let outcome = sleep.no_work_found(
                &mut idle,
                || latch.try_sleep(),
                || registry.has_injected_jobs(want) || registry.has_broadcasts(self.index),
            );
            let woken_for_work = idle.take_woken_for_work();
            waiting.owe_wake |= woken_for_work;
            match outcome {
                Idled::Waited => {}
                Idled::Aborted => latch.wake_up(),
                Idled::Slept | Idled::TimedOut => {
                    bump(&self.stats().sleeps);
                    latch.wake_up();
                    if let Some(trace) = &self.trace {
                        trace_sleep(trace, &idle, outcome, woken_for_work);
                    }
                }
            }
        }
        self.release_deferred();
        // Leaving through our latch: pass on what a publication left to us as a searcher.
        self.stop_searching_and_pass_on(&mut idle);
        if let Some(since) = waiting.idle_since {
            self.end_idle(since);
        }
        if waiting.counted {
            self.leave_idle_count();
        }
        if waiting.owe_wake {
            // Woken for new work but leaving without looking (our latch is set): pass the wake on.
            let woken = sleep.wake_one_if_sleeping();
            self.trace_wake(woken);
        }
    }

    /// True if jobs may wait besides the one this worker just found: another worker's deque is
    /// marked in the work map, its own deque holds jobs, or the injector does (sleep README rules
    /// 6 and 12; jobs published later announce themselves, rule 1).
    fn more_work_visible(&self) -> bool {
        let registry = &*self.registry;
        registry.work_map().others_marked(self.index)
            || !self.deque.is_empty()
            || registry.has_injected_jobs(WaitFor::Anything)
    }

    /// Leaves the searchers (sleep README rule 12) without a job: if this worker was one and work
    /// is visible, announces it, since a publication may have woken nobody because it counted us.
    fn stop_searching_and_pass_on(&self, idle: &mut IdleState) {
        let sleep = self.registry.sleep();
        if sleep.stop_searching(idle) && self.more_work_visible() {
            let woken = sleep.announce_visible_work(self.index);
            self.trace_wake(woken);
        }
    }

    /// An idle period begins (a search failed): returns its start, in ticks, for [`end_idle`](Self::end_idle).
    fn begin_idle(&self) -> u64 {
        let now = crate::platform::clock::ticks();
        let now = match &self.trace {
            Some(trace) => trace.clamp(now),
            None => now,
        };
        self.stats().enter_idle(now);
        crate::platform::sync::sim_idle(true);
        now
    }

    /// The idle period that began at `since` ends (work found, or the awaited latch set).
    fn end_idle(&self, since: u64) {
        crate::platform::sync::sim_idle(false);
        let now = crate::platform::clock::ticks();
        match &self.trace {
            Some(trace) => {
                let now = trace.clamp(now);
                self.stats().leave_idle(since, now);
                trace.push(since, now, Event::Idle);
            }
            None => self.stats().leave_idle(since, now),
        }
    }

    /// Leaves the pool's idle count, for a job found or because our latch was set. If some worker
    /// sleeps with no patrol timeout (it saw every worker idle, sleep README rule 9, perhaps us),
    /// our next publication is due at once: nobody would come to heavy-steal a job we keep private
    /// (a worker that left through its latch without this hung a blocked `a` whose b stayed
    /// private). Otherwise the sharing heartbeat keeps its rhythm (see `Sleep::leave_idle`).
    fn leave_idle_count(&self) {
        if self.registry.sleep().leave_idle() {
            self.make_publish_due();
        }
    }
}

/// Records a sleep that just ended: its span and the wake-up, with why it ended.
#[cold]
fn trace_sleep(trace: &RingWriter, idle: &IdleState, outcome: Idled, woken_for_work: bool) {
    let (asleep, awake) = idle.last_sleep();
    let (asleep, awake) = (trace.clamp(asleep), trace.clamp(awake));
    trace.push(asleep, awake, Event::Sleep);
    let reason = match outcome {
        Idled::TimedOut => WakeReason::Timeout,
        _ if woken_for_work => WakeReason::NewWork,
        _ => WakeReason::Latch,
    };
    trace.push(awake, awake, Event::Woken { reason });
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;

    #[test]
    fn workers_record_a_stack_limit_below_their_base() {
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(1)
            .stack_size(1 << 20)
            .build()
            .unwrap();
        pool.install(|| {
            WorkerThread::with_current(|wt| {
                assert!(wt.stack_limit < approx_stack_pointer());
                assert!(wt.may_steal(), "shallow frames may steal");
            })
            .expect("install runs on a worker");
        });
    }
}
