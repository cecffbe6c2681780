//! Stacks: `stack_size` is applied to the workers, deep chains of joins (deeper than the default stack
//! could hold) run on a pool configured with a big stack, and wide trees on small stacks do not
//! overflow from stolen work piling up on waiting workers (rayon issue #854).

use forkjoin::{join, ThreadPool, ThreadPoolBuilder};

const MIB: usize = 1 << 20;

fn pool_with_stack(n: usize, stack: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(n)
        .stack_size(stack)
        .build()
        .expect("pool builds")
}

/// The size of the calling thread's stack as the OS reports it.
#[cfg(target_os = "linux")]
fn current_stack_size() -> usize {
    let mut size = 0usize;
    // SAFETY: `attr` is initialised by pthread_getattr_np before any read and destroyed exactly once;
    // pthread_self() is always a valid handle for the calling thread.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        assert_eq!(libc::pthread_getattr_np(libc::pthread_self(), &mut attr), 0);
        assert_eq!(libc::pthread_attr_getstacksize(&attr, &mut size), 0);
        libc::pthread_attr_destroy(&mut attr);
    }
    size
}

#[cfg(target_os = "linux")]
#[test]
fn stack_size_is_applied_to_every_worker() {
    let p = pool_with_stack(3, 32 * MIB);
    let sizes = std::sync::Mutex::new(Vec::new());
    p.install(|| {
        forkjoin::scope(|s| {
            for _ in 0..300 {
                s.spawn(|_| sizes.lock().unwrap().push(current_stack_size()));
            }
        })
    });
    let sizes = sizes.into_inner().unwrap();
    assert_eq!(sizes.len(), 300);
    assert!(
        sizes.iter().all(|&s| s >= 32 * MIB),
        "worker stacks smaller than configured: {:?}",
        sizes.iter().min()
    );
}

/// A chain of `depth` joins recursing through a: depth `depth` on the worker's own stack.
fn chain_through_a(depth: u32) -> u64 {
    if depth == 0 {
        return 0;
    }
    let (a, b) = join(|| chain_through_a(depth - 1), || 1);
    a + b
}

/// A chain of `depth` joins recursing through b: each level may be stolen by the other worker.
fn chain_through_b(depth: u32) -> u64 {
    if depth == 0 {
        return 0;
    }
    let (a, b) = join(|| 1, || chain_through_b(depth - 1));
    a + b
}

// 100,000 nested joins need far more than the 2 MiB default stack of a spawned thread.
const DEEP: u32 = 100_000;

#[test]
fn deep_chain_through_a_on_a_big_stack() {
    for n in [1, 2] {
        let p = pool_with_stack(n, 512 * MIB);
        assert_eq!(p.install(|| chain_through_a(DEEP)), DEEP as u64);
    }
}

#[test]
fn deep_chain_through_b_on_a_big_stack() {
    for n in [1, 2, 4] {
        let p = pool_with_stack(n, 512 * MIB);
        assert_eq!(p.install(|| chain_through_b(DEEP)), DEEP as u64);
    }
}

fn tree(depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (a, b) = join(|| tree(depth - 1), || tree(depth - 1));
    a + b
}

#[test]
fn wide_trees_on_small_stacks_do_not_overflow() {
    // The sequential recursion is only 18 frames deep; 256 KiB is plenty for it. Workers that steal
    // while waiting must not pile unbounded stolen work onto those stacks.
    let p = pool_with_stack(16, 256 * 1024);
    for _ in 0..10 {
        assert_eq!(p.install(|| tree(18)), 1 << 18);
    }
}
