//! STUB: a pool that runs everything on the calling thread; replaced by the runtime.
#![allow(missing_docs)]

use crate::ThreadPoolBuildError;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    pub jobs_executed: u64,
    pub local_pops: u64,
    pub steals: u64,
    pub injector_pops: u64,
    pub sleeps: u64,
    pub wakeups: u64,
}

#[derive(Default)]
pub struct ThreadPoolBuilder {
    num_threads: usize,
}

impl ThreadPoolBuilder {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn num_threads(mut self, n: usize) -> Self {
        self.num_threads = n;
        self
    }
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        Ok(ThreadPool {
            num_threads: self.num_threads.max(1),
        })
    }
}

pub struct ThreadPool {
    num_threads: usize,
}

impl ThreadPool {
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        op()
    }
    pub fn current_num_threads(&self) -> usize {
        self.num_threads
    }
    pub fn stats(&self) -> PoolStats {
        PoolStats::default()
    }
}

pub fn current_num_threads() -> usize {
    1
}

pub fn current_thread_index() -> Option<usize> {
    None
}
