//! What workers run and wait on: type-erased job references, the latches that say a job is done,
//! the owner-private job stack that makes `join` cheap, the latent forks of running loops, the
//! FIFO queue behind `spawn_fifo`, the regions that say which jobs a waiting worker may run, and
//! the caps that say how many threads may run one call's jobs at once.

pub(crate) mod cap;
pub(crate) mod fifo;
pub(crate) mod job;
pub(crate) mod jobstack;
pub(crate) mod latch;
pub(crate) mod latent;
pub(crate) mod region;
pub(crate) mod segmented;
