//! The deadline timer (`src/runtime/cancel/deadline.rs`) on shuttle's virtual clock, with real
//! pools of 2 and 8 virtual workers: a deadline stops endless work; a deadline races an explicit
//! `cancel` from another thread (the call returns `Err(Cancelled)` either way, once); a token
//! dropped before its deadline is skipped while a later one still fires; and the timer thread ends
//! once nothing is pending (else the execution would never finish).
#![cfg(forkjoin_shuttle)]

use std::time::Duration;

use forkjoin::prelude::*;
use forkjoin::{cancellable, CancelToken, Cancelled};
use sim_tests::{draw, drop_and_check_joined, explore_fair, pool, schedules, Counter};

/// Items the endless work may visit before the test calls its deadline lost: far more than any
/// schedule visits before a deadline of at most 250 virtual microseconds (a step is one) fires.
const LOST: usize = 200_000;

/// Work that never ends on its own: only a cancellation stops it. Each item is a scheduling point
/// (shuttle's atomic), so virtual time passes with the work; past [`LOST`] items the deadline
/// counts as lost and the test fails.
fn endless() -> usize {
    let items = shuttle::sync::atomic::AtomicUsize::new(0);
    (0..u64::MAX)
        .into_par_iter()
        .filter(|i| {
            let seen = items.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            assert!(
                seen < LOST,
                "no cancellation after {LOST} items: a deadline was lost"
            );
            i.is_power_of_two()
        })
        .count()
}

fn deadline_against_cancel(workers: usize, default_schedules: usize) {
    // Fair schedules only: the timer thread must run now and then while the workers spin.
    explore_fair(
        "deadline-vs-cancel",
        workers,
        schedules(default_schedules),
        move || {
            let exits = std::sync::Arc::new(Counter::default());
            let pool = pool(workers, &exits);
            // A deadline a drawn number of virtual microseconds away, and maybe an explicit cancel
            // from another thread at a drawn moment: whichever comes first stops the work.
            let token = CancelToken::with_timeout(Duration::from_micros(50 + 50 * draw(4)));
            let canceller = (draw(2) == 0).then(|| {
                let token = token.clone();
                let steps = draw(200) as usize;
                shuttle::thread::spawn(move || {
                    for _ in 0..steps {
                        shuttle::thread::yield_now();
                    }
                    token.cancel();
                })
            });
            // A token dropped before its deadline: the timer skips it.
            drop(CancelToken::with_timeout(Duration::from_micros(20)));
            assert_eq!(
                pool.install(|| cancellable(&token, endless)),
                Err(Cancelled)
            );
            assert!(token.is_cancelled());
            if let Some(canceller) = canceller {
                canceller.join().unwrap();
            }
            // A deadline set after the first ones fired still fires (the timer may have ended
            // and a new one started).
            let later = CancelToken::with_timeout(Duration::from_micros(30));
            assert_eq!(
                pool.install(|| cancellable(&later, endless)),
                Err(Cancelled)
            );
            drop_and_check_joined(pool, &exits);
        },
    );
}

#[test]
fn deadline_vs_cancel_2() {
    deadline_against_cancel(2, 1000);
}

#[test]
fn deadline_vs_cancel_8() {
    deadline_against_cancel(8, 500);
}
