//! A pool keeps working after 10,000 cancelled regions, with no thread and no memory growth: the
//! nodes of finished regions are freed, and their entries in the token's list of children are
//! pruned. Counts live heap bytes with a counting global allocator (its own test binary, so no
//! other test's allocations mix in) and the process's threads from `/proc/self/task`.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use forkjoin::prelude::*;
use forkjoin::{join, CancelToken, Cancelled};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts the bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, |d| d.count())
}

/// One cancelled region of each kind under `token`'s child: a join tree, a loop and a scope, each
/// cancelled from inside; then a region that finishes.
fn regions(pool: &forkjoin::ThreadPool, parent: &CancelToken) {
    let token = parent.child();
    let r = pool.cancellable(&token, || {
        join(|| token.cancel(), || common::fib(12));
        common::fib(12)
    });
    assert_eq!(r, Err(Cancelled));
    let token = parent.child();
    let r = pool.cancellable(&token, || {
        (0..1_000u32).into_par_iter().for_each(|i| {
            if i == 10 {
                token.cancel();
            }
        })
    });
    assert!(r == Err(Cancelled) || r == Ok(()));
    let r = pool.cancellable(parent, || {
        forkjoin::scope(|s| {
            for _ in 0..4 {
                s.spawn(|_| {
                    std::hint::black_box(common::fib(8));
                });
            }
        })
    });
    assert_eq!(r, Ok(()));
}

#[test]
fn ten_thousand_cancelled_regions_leave_no_threads_and_no_memory_behind() {
    common::watchdog(
        "10,000 regions",
        std::time::Duration::from_secs(300),
        || {
            for size in [1, 2, 8] {
                let pool = common::pool(size);
                let parent = CancelToken::new();
                // Warm up: the pool's queues, region segments and the deadline-free paths allocate
                // what they keep.
                for _ in 0..500 {
                    regions(&pool, &parent);
                }
                let (threads_before, live_before) = (threads(), LIVE.load(Ordering::SeqCst));
                for _ in 0..10_000 {
                    regions(&pool, &parent);
                }
                let (threads_after, live_after) = (threads(), LIVE.load(Ordering::SeqCst));
                assert_eq!(threads_after, threads_before, "threads on a pool of {size}");
                // Dead children are pruned when the parent's list doubles: at most twice the peak
                // list, a few KiB, may remain.
                let growth = live_after - live_before;
                assert!(
                    growth < 64 * 1024,
                    "pool of {size}: {growth} more live bytes after 10,000 cancelled regions"
                );
                // The pool still works.
                assert_eq!(pool.install(|| common::fib(20)), 6765);
            }
        },
    );
}
