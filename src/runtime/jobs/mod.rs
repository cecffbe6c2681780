//! What workers run and wait on: type-erased job references, the latches that say a job is done,
//! the owner-private job stack that makes `join` cheap, the latent forks of running loops, the
//! FIFO queue behind `spawn_fifo`, and the regions that say which jobs a waiting worker may run.

pub(crate) mod fifo;
pub(crate) mod job;
pub(crate) mod jobstack;
pub(crate) mod latch;
pub(crate) mod latent;
pub(crate) mod region;
