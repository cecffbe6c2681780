//! Fire-and-forget `spawn` (global pool) and `ThreadPool::spawn`: every job runs, on a worker.

use std::sync::mpsc;

use forkjoin::ThreadPoolBuilder;

use crate::common;
use common::TIMEOUT;

/// Receives exactly `n` ids, each in `0..n` and each once.
fn expect_all(rx: &mpsc::Receiver<usize>, n: usize) {
    let mut seen = vec![false; n];
    for k in 0..n {
        let id = rx
            .recv_timeout(TIMEOUT)
            .unwrap_or_else(|e| panic!("only {k} of {n} spawned jobs ran: {e}"));
        assert!(!seen[id], "job {id} ran twice");
        seen[id] = true;
    }
}

#[test]
fn spawn_10k_jobs_in_the_global_pool() {
    let (tx, rx) = mpsc::channel();
    for i in 0..10_000 {
        let tx = tx.clone();
        forkjoin::spawn(move || tx.send(i).expect("receiver alive"));
    }
    expect_all(&rx, 10_000);
}

#[test]
fn spawn_10k_jobs_in_a_pool() {
    let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let (tx, rx) = mpsc::channel();
    for i in 0..10_000 {
        let tx = tx.clone();
        pool.spawn(move || tx.send(i).expect("receiver alive"));
    }
    expect_all(&rx, 10_000);
}

#[test]
fn spawned_jobs_run_on_workers() {
    let (tx, rx) = mpsc::channel();
    for _ in 0..100 {
        let tx = tx.clone();
        forkjoin::spawn(move || tx.send(forkjoin::current_thread_index()).unwrap());
    }
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for _ in 0..100 {
        let tx = tx.clone();
        pool.spawn(move || tx.send(forkjoin::current_thread_index()).unwrap());
    }
    for _ in 0..200 {
        let idx = rx.recv_timeout(TIMEOUT).expect("job ran");
        assert!(idx.is_some(), "spawned work runs on a pool worker");
    }
}

#[test]
fn spawn_inside_a_pool_targets_that_pool() {
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let (tx, rx) = mpsc::channel();
    pool.install(|| {
        for _ in 0..100 {
            let tx = tx.clone();
            forkjoin::spawn(move || {
                tx.send(forkjoin::current_num_threads()).unwrap();
            });
        }
    });
    for _ in 0..100 {
        assert_eq!(rx.recv_timeout(TIMEOUT).expect("job ran"), 2);
    }
}

#[test]
fn chains_and_trees_of_spawns_all_run() {
    // Each job spawns the next: 1,000 links; then a binary tree of 2^12 - 1 spawns.
    fn chain(left: usize, tx: mpsc::Sender<usize>) {
        if left == 0 {
            tx.send(usize::MAX).unwrap();
        } else {
            forkjoin::spawn(move || chain(left - 1, tx));
        }
    }
    fn tree(depth: u32, id: usize, tx: mpsc::Sender<usize>) {
        tx.send(id).unwrap();
        if depth > 1 {
            let tx2 = tx.clone();
            forkjoin::spawn(move || tree(depth - 1, 2 * id + 1, tx2));
            forkjoin::spawn(move || tree(depth - 1, 2 * id + 2, tx));
        }
    }
    let (tx, rx) = mpsc::channel();
    chain(1_000, tx);
    assert_eq!(rx.recv_timeout(TIMEOUT), Ok(usize::MAX));

    let (tx, rx) = mpsc::channel();
    tree(12, 0, tx);
    expect_all(&rx, (1 << 12) - 1);
}
