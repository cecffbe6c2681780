//! `use forkjoin::prelude::*;` brings the parallel-iterator and parallel-sort traits into scope.
