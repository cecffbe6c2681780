//! What workers run and wait on: type-erased job references, the latches that say a job is done,
//! the owner-private job stack that makes `join` cheap, and the FIFO queue behind `spawn_fifo`.

pub(crate) mod fifo;
pub(crate) mod job;
pub(crate) mod jobstack;
pub(crate) mod latch;
