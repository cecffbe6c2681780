//! `use forkjoin::prelude::*;` brings the parallel-iterator and parallel-sort traits into scope.
pub use crate::sort::ParallelSortMut;
