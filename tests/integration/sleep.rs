//! Sleep/wake: no lost wake-up. Work submitted from outside at random moments — often exactly while
//! workers are going to sleep — must always be picked up. Each submission is awaited with a generous
//! timeout, so a lost wake-up fails the test instead of hanging it.

use std::sync::mpsc;
use std::time::Duration;

use forkjoin::{join, ThreadPool};

use crate::common;
use common::{pool, TIMEOUT};

/// Marsaglia xorshift: deterministic burst sizes and pauses.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A short busy pause of a random length: spreads submissions over the workers' spin → yield → sleep
/// transition without using sleeps.
fn busy_pause(rng: &mut XorShift) {
    let spins = rng.next() % 20_000;
    for _ in 0..spins {
        std::hint::spin_loop();
    }
}

#[test]
fn ten_thousand_bursty_spawns_are_all_picked_up() {
    for n in [1, 3] {
        let p = pool(n);
        let mut rng = XorShift(0x2545_F491_4F6C_DD1D + n as u64);
        let (tx, rx) = mpsc::channel();
        let mut submitted = 0usize;
        while submitted < 10_000 {
            let burst = (1 + rng.next() % 8) as usize;
            for _ in 0..burst {
                let tx = tx.clone();
                p.spawn(move || tx.send(()).unwrap());
            }
            for k in 0..burst {
                rx.recv_timeout(TIMEOUT).unwrap_or_else(|e| {
                    panic!("{n} threads: job {k} of a burst after {submitted} jobs never ran: {e}")
                });
            }
            submitted += burst;
            busy_pause(&mut rng);
        }
    }
}

#[test]
fn ten_thousand_installs_from_concurrent_plain_threads() {
    // 4 outside threads × 2,500 round trips into a 2-thread pool: the waiting callers must be woken
    // (latch) and the workers must be woken (new work) every single time.
    let p: &'static ThreadPool = Box::leak(Box::new(pool(2)));
    let (tx, rx) = mpsc::channel();
    for t in 0..4u64 {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut rng = XorShift(0x9E37_79B9_7F4A_7C15 + t);
            for i in 0..2_500u64 {
                let r = p.install(|| {
                    if i % 16 == 0 {
                        join(|| i, || 1).0 + 1
                    } else {
                        i + 1
                    }
                });
                assert_eq!(r, i + 1);
                busy_pause(&mut rng);
            }
            tx.send(t).unwrap();
        });
    }
    for _ in 0..4 {
        rx.recv_timeout(TIMEOUT)
            .expect("an installing thread finished its 2,500 round trips (lost wake-up?)");
    }
}

#[test]
fn wakeups_after_the_pool_went_fully_idle() {
    // Each round waits until the single job of the previous round finished, so the pool is often
    // entirely asleep when the next job arrives; the job itself forks so a second sleeper is needed.
    let p = pool(4);
    let (tx, rx) = mpsc::channel();
    for round in 0..2_000u64 {
        let tx = tx.clone();
        p.spawn(move || {
            let (a, b) = join(|| round, || round * 2);
            tx.send(a + b).unwrap();
        });
        assert_eq!(
            rx.recv_timeout(TIMEOUT),
            Ok(round * 3),
            "round {round}: the spawned job never completed"
        );
    }
}

/// CPU time consumed so far by the calling thread.
#[cfg(target_os = "linux")]
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID needs no other setup.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The length of the blocked periods measured below (a workload property, not synchronisation).
const BLOCKED: Duration = Duration::from_millis(1000);
/// A waiter that sleeps uses a few ms of CPU in that time; one that spins uses ~all of it.
const MAX_WAIT_CPU: Duration = Duration::from_millis(250);

#[cfg(target_os = "linux")]
#[test]
fn an_outside_caller_blocks_without_spinning() {
    let p = pool(2);
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (started_tx, started_rx) = mpsc::channel::<()>();
    let caller = std::thread::spawn(move || {
        let before = thread_cpu_time();
        p.install(move || {
            started_tx.send(()).unwrap();
            go_rx.recv_timeout(TIMEOUT).expect("released");
        });
        thread_cpu_time() - before
    });
    started_rx.recv_timeout(TIMEOUT).expect("op started");
    std::thread::sleep(BLOCKED); // the caller waits this long inside install
    go_tx.send(()).unwrap();
    let cpu = caller.join().unwrap();
    assert!(
        cpu < MAX_WAIT_CPU,
        "the thread blocked in install used {cpu:?} of CPU while waiting {BLOCKED:?}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_worker_waiting_for_a_blocked_stolen_b_sleeps() {
    let p = pool(2);
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (b_started_tx, b_started_rx) = mpsc::channel::<()>();
    let (waiting_tx, waiting_rx) = mpsc::channel::<()>();
    let worker = std::thread::spawn(move || {
        p.install(move || {
            let (a_cpu, ()) = join(
                move || {
                    // a returns only once b runs on the other worker; then this worker must wait.
                    b_started_rx.recv_timeout(TIMEOUT).expect("b stolen");
                    waiting_tx.send(()).unwrap();
                    thread_cpu_time()
                },
                move || {
                    b_started_tx.send(()).unwrap();
                    go_rx.recv_timeout(TIMEOUT).expect("released");
                },
            );
            thread_cpu_time() - a_cpu
        })
    });
    waiting_rx.recv_timeout(TIMEOUT).expect("a finished");
    std::thread::sleep(BLOCKED); // the worker that ran a waits this long for b
    go_tx.send(()).unwrap();
    let cpu = worker.join().unwrap();
    assert!(
        cpu < MAX_WAIT_CPU,
        "the worker waiting for the stolen b used {cpu:?} of CPU while waiting {BLOCKED:?}"
    );
}
