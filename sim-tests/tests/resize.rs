//! Resizing real pools under shuttle (`ThreadPool::set_num_threads`, `registry/slots.rs`), at 2 to
//! 64 virtual workers: while a join tree and spawns run, another thread shrinks the pool to a drawn
//! size and grows it back, then shrinks it twice more. Every result is right, every spawn runs
//! once (a job lost with a leaving worker deadlocks, which shuttle reports), the threads running
//! settle at the final size, and at the end every thread that started also exited, once.
#![cfg(forkjoin_shuttle)]

use std::sync::Arc;

use sim_tests::{draw, explore, schedules, Counter, WORKER_STACK};

fn tree(depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (a, b) = forkjoin::join(|| tree(depth - 1), || tree(depth - 1));
    a + b
}

fn resize_while_running(workers: usize, depth: u32, spawns: usize, default_schedules: usize) {
    explore("resize", workers, schedules(default_schedules), move || {
        let starts = Arc::new(Counter::default());
        let exits = Arc::new(Counter::default());
        let (s, e) = (starts.clone(), exits.clone());
        let pool = Arc::new(
            forkjoin::ThreadPoolBuilder::new()
                .num_threads(workers)
                .resizable_up_to(workers)
                .stack_size(WORKER_STACK)
                .start_handler(move |_| s.bump())
                .exit_handler(move |_| e.bump())
                .build()
                .expect("pool"),
        );
        let sizes = [
            1 + draw(workers as u64 - 1) as usize,
            workers,
            1 + draw(workers as u64 - 1) as usize,
            1 + draw(workers as u64 - 1) as usize,
        ];
        let resizer = {
            let pool = pool.clone();
            shuttle::thread::spawn(move || {
                for n in sizes {
                    pool.set_num_threads(n).expect("resize");
                    assert_eq!(pool.current_num_threads(), n);
                }
            })
        };
        let ran = Arc::new(Counter::default());
        let sum = pool.install(|| {
            for _ in 0..spawns {
                let ran = ran.clone();
                forkjoin::spawn(move || ran.bump());
            }
            tree(depth)
        });
        assert_eq!(sum, 1 << depth);
        resizer.join().unwrap();
        // The threads follow the size: those past it leave once idle, and a slot a grow wanted
        // back has a thread (else this waits for good, and the step bound fails it).
        let n = pool.current_num_threads();
        while starts.get() - exits.get() != n {
            shuttle::thread::yield_now();
        }
        ran.wait_for(spawns);
        assert_eq!(ran.get(), spawns, "every spawn runs once");
        // A broadcast reaches exactly the pool's size.
        assert_eq!(pool.broadcast(|ctx| ctx.index()).len(), n);
        let pool = Arc::into_inner(pool).expect("the resizer let go of the pool");
        drop(pool);
        // Every thread that started (the first ones, and those the grows started) exits once.
        let started = starts.get();
        while exits.get() < started {
            shuttle::thread::yield_now();
        }
        assert_eq!(exits.get(), starts.get(), "every thread exits once");
    });
}

#[test]
fn resize_2() {
    resize_while_running(2, 5, 4, 1000);
}

#[test]
fn resize_8() {
    resize_while_running(8, 6, 6, 500);
}

#[test]
fn resize_64() {
    resize_while_running(64, 7, 8, 300);
}
