//! Panics: in join's a, b, both (a's wins), a stolen b; in scope jobs (siblings still run); in spawned
//! work with and without a panic handler; in install. The pool stays usable after each.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex, Once};
use std::time::Instant;

use forkjoin::{join, scope, ThreadPool, ThreadPoolBuilder};

use crate::common;
use common::{fib, pool, TIMEOUT};

/// The expected panics of this file would flood the output: silence the default hook for payloads
/// starting with "expected:", keep everything else.
fn quiet_expected_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let msg = message(info.payload());
            if !msg.starts_with("expected:") {
                default(info);
            }
        }));
    });
}

fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string payload>".to_owned()
    }
}

fn assert_usable(p: &ThreadPool) {
    assert_eq!(p.install(|| fib(20)), 6765);
    let count = AtomicUsize::new(0);
    p.install(|| {
        scope(|s| {
            for _ in 0..100 {
                s.spawn(|_| {
                    count.fetch_add(1, Ordering::Relaxed);
                });
            }
        })
    });
    assert_eq!(count.load(Ordering::Relaxed), 100);
}

/// Runs `f` in `p`, expecting it to panic; returns the panic message.
fn panic_message(p: &ThreadPool, f: impl FnOnce() + Send) -> String {
    let err = catch_unwind(AssertUnwindSafe(|| p.install(f))).expect_err("must panic");
    message(&*err)
}

#[test]
fn panic_in_a_waits_for_b_then_propagates() {
    quiet_expected_panics();
    for n in [1, 2] {
        let p = pool(n);
        let b_ran = AtomicBool::new(false);
        let msg = panic_message(&p, || {
            join(
                || panic!("expected: a"),
                || b_ran.store(true, Ordering::Relaxed),
            );
        });
        assert_eq!(msg, "expected: a");
        assert!(
            b_ran.load(Ordering::Relaxed),
            "join waits for b even if a panics"
        );
        assert_usable(&p);
    }
}

#[test]
fn panic_in_b_propagates_after_a() {
    quiet_expected_panics();
    for n in [1, 2] {
        let p = pool(n);
        let a_done = AtomicBool::new(false);
        let msg = panic_message(&p, || {
            join(
                || {
                    fib(10);
                    a_done.store(true, Ordering::Relaxed)
                },
                || panic!("expected: b"),
            );
        });
        assert_eq!(msg, "expected: b");
        assert!(a_done.load(Ordering::Relaxed));
        assert_usable(&p);
    }
}

#[test]
fn panic_in_both_resumes_a_s_panic() {
    quiet_expected_panics();
    for n in [1, 2] {
        let p = pool(n);
        for _ in 0..20 {
            let msg = panic_message(&p, || {
                join(|| panic!("expected: a"), || panic!("expected: b"));
            });
            assert_eq!(msg, "expected: a", "a's panic wins");
        }
        assert_usable(&p);
    }
}

#[test]
fn panic_in_a_stolen_b_reaches_the_caller() {
    quiet_expected_panics();
    let p = pool(2);
    for round in 0..10 {
        let b_started = AtomicBool::new(false);
        let caller = Mutex::new(None);
        let thief = Mutex::new(None);
        let msg = panic_message(&p, || {
            *caller.lock().unwrap() = forkjoin::current_thread_index();
            join(
                || {
                    // a cannot finish before b started: b is certainly stolen.
                    let deadline = Instant::now() + TIMEOUT;
                    // Acquire pairs with b's Release store.
                    while !b_started.load(Ordering::Acquire) {
                        assert!(Instant::now() < deadline, "b never stolen");
                        join(|| (), || ());
                        std::thread::yield_now();
                    }
                },
                || {
                    *thief.lock().unwrap() = forkjoin::current_thread_index();
                    // Release pairs with a's Acquire load.
                    b_started.store(true, Ordering::Release);
                    panic!("expected: stolen b")
                },
            );
        });
        assert_eq!(msg, "expected: stolen b", "round {round}");
        let (caller, thief) = (caller.into_inner().unwrap(), thief.into_inner().unwrap());
        assert!(caller.is_some() && thief.is_some());
        assert_ne!(caller, thief, "round {round}: b ran on the other worker");
    }
    assert_usable(&p);
}

#[test]
fn panic_in_scope_jobs_lets_siblings_run_then_propagates() {
    quiet_expected_panics();
    for n in [1, 3] {
        let p = pool(n);
        let ran = AtomicUsize::new(0);
        let msg = panic_message(&p, || {
            scope(|s| {
                for i in 0..1_000 {
                    let ran = &ran;
                    s.spawn(move |s| {
                        if i == 500 {
                            panic!("expected: scope job");
                        }
                        // Nested spawns of siblings still run too.
                        if i % 100 == 0 {
                            s.spawn(move |_| {
                                ran.fetch_add(1, Ordering::Relaxed);
                            });
                        }
                        ran.fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
        });
        assert_eq!(msg, "expected: scope job");
        // 999 siblings plus the nested spawns of i = 0, 100, ..., 900 except the panicking 500.
        assert_eq!(ran.load(Ordering::Relaxed), 999 + 9, "{n} threads");
        assert_usable(&p);
    }
}

#[test]
fn panic_in_the_scope_body_still_waits_for_its_jobs() {
    quiet_expected_panics();
    let p = pool(2);
    let ran = AtomicUsize::new(0);
    let msg = panic_message(&p, || {
        scope(|s| {
            for _ in 0..100 {
                s.spawn(|_| {
                    ran.fetch_add(1, Ordering::Relaxed);
                });
            }
            panic!("expected: scope body");
        });
    });
    assert_eq!(msg, "expected: scope body");
    assert_eq!(ran.load(Ordering::Relaxed), 100);
    assert_usable(&p);
}

#[test]
fn panic_in_spawn_goes_to_the_handler() {
    quiet_expected_panics();
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let p = ThreadPoolBuilder::new()
        .num_threads(1)
        .panic_handler(move |payload| tx.lock().unwrap().send(message(&*payload)).unwrap())
        .build()
        .unwrap();
    for i in 0..10 {
        p.spawn(move || panic!("expected: spawned {i}"));
    }
    let mut got: Vec<String> = (0..10)
        .map(|_| rx.recv_timeout(TIMEOUT).expect("handler called"))
        .collect();
    got.sort();
    let mut expected: Vec<String> = (0..10).map(|i| format!("expected: spawned {i}")).collect();
    expected.sort();
    assert_eq!(got, expected);
    // The single worker survived all ten panics.
    let (done_tx, done_rx) = mpsc::channel();
    p.spawn(move || done_tx.send(forkjoin::current_thread_index()).unwrap());
    assert_eq!(done_rx.recv_timeout(TIMEOUT), Ok(Some(0)));
    assert_usable(&p);
}

#[test]
fn panic_in_spawn_without_handler_keeps_the_worker_running() {
    quiet_expected_panics();
    let p = pool(1);
    for _ in 0..10 {
        p.spawn(|| panic!("expected: unhandled spawn"));
    }
    // Queued after the panicking jobs on the only worker: runs only if the worker survived them.
    let (tx, rx) = mpsc::channel();
    p.spawn(move || tx.send(forkjoin::current_thread_index()).unwrap());
    assert_eq!(rx.recv_timeout(TIMEOUT), Ok(Some(0)));
    assert_usable(&p);
    // Same in the global pool.
    forkjoin::spawn(|| panic!("expected: unhandled global spawn"));
    let (tx, rx) = mpsc::channel();
    forkjoin::spawn(move || tx.send(()).unwrap());
    assert_eq!(rx.recv_timeout(TIMEOUT), Ok(()));
}

#[test]
fn panic_in_install_propagates_to_the_caller() {
    quiet_expected_panics();
    let p = pool(2);
    for _ in 0..10 {
        assert_eq!(
            panic_message(&p, || panic!("expected: install")),
            "expected: install"
        );
    }
    // And with a non-string payload.
    let err = catch_unwind(AssertUnwindSafe(|| {
        p.install(|| std::panic::panic_any(42u32))
    }))
    .expect_err("must panic");
    assert_eq!(err.downcast_ref::<u32>(), Some(&42));
    assert_usable(&p);
}

#[test]
fn panic_in_join_from_outside_any_pool() {
    quiet_expected_panics();
    let err = catch_unwind(|| join(|| 1, || -> u32 { panic!("expected: outside") }))
        .expect_err("must panic");
    assert_eq!(message(&*err), "expected: outside");
    assert_eq!(fib(15), 610, "the global pool is still usable");
}

/// What the panic handler saw: a worker handler's panic (which handler, which worker, its message),
/// or a spawned job's (its message).
#[derive(Debug, PartialEq)]
enum Seen {
    Handler(forkjoin::WorkerHandler, usize, String, String),
    Job(String),
}

#[test]
fn panic_in_start_or_exit_handler_names_the_handler() {
    use forkjoin::{HandlerPanic, WorkerHandler};
    quiet_expected_panics();
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let p = ThreadPoolBuilder::new()
        .num_threads(2)
        .start_handler(|i| panic!("expected: start {i}"))
        .exit_handler(|i| panic!("expected: exit {i}"))
        .panic_handler(move |payload| {
            let seen = match payload.downcast::<HandlerPanic>() {
                Ok(p) => Seen::Handler(
                    p.handler(),
                    p.worker_index(),
                    p.to_string(),
                    message(&*p.into_payload()),
                ),
                Err(payload) => Seen::Job(message(&*payload)),
            };
            tx.lock().unwrap().send(seen).unwrap();
        })
        .build()
        .unwrap();
    // `build` returned after both start handlers ran: both panics were delivered by then.
    let mut started: Vec<Seen> = rx.try_iter().collect();
    started.sort_by_key(|s| format!("{s:?}"));
    let handler_panic = |handler, i: usize| {
        let what = if handler == WorkerHandler::Start {
            "start"
        } else {
            "exit"
        };
        Seen::Handler(
            handler,
            i,
            format!("the {what} handler of worker {i} panicked: expected: {what} {i}"),
            format!("expected: {what} {i}"),
        )
    };
    assert_eq!(
        started,
        [0, 1].map(|i| handler_panic(WorkerHandler::Start, i))
    );
    // The workers survived their start handlers, and a job's panic still arrives as itself.
    assert_usable(&p);
    p.spawn(|| panic!("expected: job"));
    assert_eq!(
        rx.recv_timeout(TIMEOUT).unwrap(),
        Seen::Job("expected: job".into())
    );
    // The workers exit once the pool is dropped and the spawned job has finished (which it may
    // not have yet: its panic is reported before it counts itself done), each running its exit
    // handler.
    drop(p);
    let mut exited: Vec<Seen> = (0..2).map(|_| rx.recv_timeout(TIMEOUT).unwrap()).collect();
    exited.sort_by_key(|s| format!("{s:?}"));
    assert_eq!(
        exited,
        [0, 1].map(|i| handler_panic(WorkerHandler::Exit, i))
    );
}

/// Set in the child process of the test below.
const HANDLER_PANIC_CHILD: &str = "FORKJOIN_TEST_HANDLER_PANIC_CHILD";

#[test]
fn panic_in_start_or_exit_handler_without_panic_handler_is_printed_by_name() {
    if std::env::var_os(HANDLER_PANIC_CHILD).is_some() {
        // The child: panicking handlers and no panic handler; the runtime prints them.
        std::panic::set_hook(Box::new(|_| {}));
        let p = ThreadPoolBuilder::new()
            .num_threads(1)
            .start_handler(|_| panic!("no config"))
            .exit_handler(|_| panic!("no goodbye"))
            .build()
            .unwrap();
        assert_eq!(p.install(|| 2 + 2), 4);
        drop(p);
        return;
    }
    let stderr = common::watchdog("handler panic child", TIMEOUT, || {
        let name = common::test_name(
            module_path!(),
            "panic_in_start_or_exit_handler_without_panic_handler_is_printed_by_name",
        );
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", &name, "--test-threads=1", "--nocapture"])
            .env(HANDLER_PANIC_CHILD, "1")
            .output()
            .expect("run the child test");
        assert!(out.status.success(), "child failed: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("1 passed"),
            "the child ran its one test: {out:?}"
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    });
    assert!(
        stderr.contains(
            "forkjoin: the start handler of worker 0 panicked: no config; the worker starts anyway"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "forkjoin: the exit handler of worker 0 panicked: no goodbye; the worker exits anyway"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("spawned job"), "{stderr}");
}
