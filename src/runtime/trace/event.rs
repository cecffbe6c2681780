//! What a trace records: the event types and their packing into a ring slot's four words.
//!
//! A slot holds `[begin, end, meta, job]`: two tick counts (equal for an instant), a packed word
//! `[arg: 32][detail: 8][tag: 8]` (low bits first: tag, then detail, then arg) and a job's identity
//! (its data pointer, 0 if none). Packing keeps the recording side to four plain stores.

/// What a job executed through its `JobRef` is, known from its type (`crate::runtime::jobs::job::Job::KIND`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum JobKind {
    /// A `join`'s second closure, taken from a queue (published and then popped back or stolen, or
    /// heavy-stolen). The iterators' pieces are `join` b's too.
    JoinB = 0,
    /// A `spawn` or `Scope::spawn` job (a boxed heap job).
    Spawned = 1,
    /// An `install` (or a `join`/`scope` called from outside the pool) moved into the pool.
    Install = 2,
    /// Anything else (the unit tests' jobs).
    Other = 3,
}

impl JobKind {
    fn from_bits(bits: u8) -> JobKind {
        match bits {
            0 => JobKind::JoinB,
            1 => JobKind::Spawned,
            2 => JobKind::Install,
            _ => JobKind::Other,
        }
    }

    /// The span's name in the trace file.
    pub(crate) fn name(self) -> &'static str {
        match self {
            JobKind::JoinB => "join b",
            JobKind::Spawned => "spawned job",
            JobKind::Install => "install job",
            JobKind::Other => "job",
        }
    }
}

/// Where a worker took the job it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// Its own public deque (a job it published or spawned itself).
    OwnDeque,
    /// The injector (work from outside the pool).
    Injector,
    /// Another worker's public deque (the index of that worker).
    Stolen(u32),
    /// Another worker's private job stack, by a heavy steal on patrol.
    Patrol(u32),
}

impl Source {
    fn pack(self) -> (u8, u32) {
        match self {
            Source::OwnDeque => (0, 0),
            Source::Injector => (1, 0),
            Source::Stolen(v) => (2, v),
            Source::Patrol(v) => (3, v),
        }
    }

    fn unpack(tag: u8, arg: u32) -> Source {
        match tag {
            0 => Source::OwnDeque,
            1 => Source::Injector,
            2 => Source::Stolen(arg),
            _ => Source::Patrol(arg),
        }
    }
}

/// Why a sleeping worker woke up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WakeReason {
    /// A publisher (or injector) claimed it for new work.
    NewWork,
    /// The latch it waits on was set (its stolen job b finished, its scope ended, the pool
    /// terminates).
    Latch,
    /// Its patrol interval ran out (it then heavy-steals once).
    Timeout,
}

/// One recorded event, unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// Span: a job executed through its `JobRef`.
    Job {
        kind: JobKind,
        source: Source,
        job: u64,
    },
    /// Instant: a job taken from another worker's public deque.
    Stolen { victim: u32, job: u64 },
    /// Instant: a job taken from another worker's private stack (heavy steal, on patrol).
    HeavySteal { victim: u32, job: u64 },
    /// Span: one patrol (a process-wide barrier, then each worker's oldest private job).
    Patrol { found: bool },
    /// Instant: private jobs moved to the public deque.
    Published { jobs: u32 },
    /// Span: from a failed search until work was found or the awaited latch was set.
    Idle,
    /// Span: blocked on the futex.
    Sleep,
    /// Instant: the end of a sleep.
    Woken { reason: WakeReason },
    /// Instant: this worker woke worker `worker` for new work.
    Wake { worker: u32 },
}

const TAG_JOB: u8 = 1;
const TAG_STOLEN: u8 = 2;
const TAG_HEAVY_STEAL: u8 = 3;
const TAG_PATROL: u8 = 4;
const TAG_PUBLISHED: u8 = 5;
const TAG_IDLE: u8 = 6;
const TAG_SLEEP: u8 = 7;
const TAG_WOKEN: u8 = 8;
const TAG_WAKE: u8 = 9;

fn meta(tag: u8, detail: u8, arg: u32) -> u64 {
    tag as u64 | (detail as u64) << 8 | (arg as u64) << 16
}

impl Event {
    /// The slot's `meta` and `job` words.
    pub(crate) fn pack(self) -> (u64, u64) {
        match self {
            Event::Job { kind, source, job } => {
                let (src, arg) = source.pack();
                (meta(TAG_JOB, kind as u8 | src << 4, arg), job)
            }
            Event::Stolen { victim, job } => (meta(TAG_STOLEN, 0, victim), job),
            Event::HeavySteal { victim, job } => (meta(TAG_HEAVY_STEAL, 0, victim), job),
            Event::Patrol { found } => (meta(TAG_PATROL, found as u8, 0), 0),
            Event::Published { jobs } => (meta(TAG_PUBLISHED, 0, jobs), 0),
            Event::Idle => (meta(TAG_IDLE, 0, 0), 0),
            Event::Sleep => (meta(TAG_SLEEP, 0, 0), 0),
            Event::Woken { reason } => (meta(TAG_WOKEN, reason as u8, 0), 0),
            Event::Wake { worker } => (meta(TAG_WAKE, 0, worker), 0),
        }
    }

    /// The event of a slot's `meta` and `job` words; `None` for a word no `pack` produced.
    pub(crate) fn unpack(meta: u64, job: u64) -> Option<Event> {
        let tag = meta as u8;
        let detail = (meta >> 8) as u8;
        let arg = (meta >> 16) as u32;
        Some(match tag {
            TAG_JOB => Event::Job {
                kind: JobKind::from_bits(detail & 0xF),
                source: Source::unpack(detail >> 4, arg),
                job,
            },
            TAG_STOLEN => Event::Stolen { victim: arg, job },
            TAG_HEAVY_STEAL => Event::HeavySteal { victim: arg, job },
            TAG_PATROL => Event::Patrol { found: detail != 0 },
            TAG_PUBLISHED => Event::Published { jobs: arg },
            TAG_IDLE => Event::Idle,
            TAG_SLEEP => Event::Sleep,
            TAG_WOKEN => Event::Woken {
                reason: match detail {
                    0 => WakeReason::NewWork,
                    1 => WakeReason::Latch,
                    _ => WakeReason::Timeout,
                },
            },
            TAG_WAKE => Event::Wake { worker: arg },
            _ => return None,
        })
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;

    #[test]
    fn every_event_survives_packing() {
        let events = [
            Event::Job {
                kind: JobKind::Install,
                source: Source::Injector,
                job: 0xdead_beef,
            },
            Event::Job {
                kind: JobKind::JoinB,
                source: Source::Stolen(65_534),
                job: u64::MAX,
            },
            Event::Job {
                kind: JobKind::Spawned,
                source: Source::Patrol(3),
                job: 8,
            },
            Event::Job {
                kind: JobKind::Other,
                source: Source::OwnDeque,
                job: 0,
            },
            Event::Stolen { victim: 7, job: 99 },
            Event::HeavySteal { victim: 1, job: 2 },
            Event::Patrol { found: true },
            Event::Patrol { found: false },
            Event::Published { jobs: u32::MAX },
            Event::Idle,
            Event::Sleep,
            Event::Woken {
                reason: WakeReason::NewWork,
            },
            Event::Woken {
                reason: WakeReason::Latch,
            },
            Event::Woken {
                reason: WakeReason::Timeout,
            },
            Event::Wake { worker: 12 },
        ];
        for e in events {
            let (meta, job) = e.pack();
            assert_eq!(Event::unpack(meta, job), Some(e));
        }
        assert_eq!(Event::unpack(0, 0), None, "an unwritten slot is no event");
    }
}
