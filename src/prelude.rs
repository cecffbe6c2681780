//! `use forkjoin::prelude::*;` brings the parallel-iterator and parallel-sort traits into scope.
//!
//! ```
//! use forkjoin::prelude::*;
//! let mut v = vec![3, 1, 2];
//! assert_eq!(v.par_iter().map(|x| x * 2).sum::<i32>(), 12);
//! v.par_sort();
//! assert_eq!(v, [1, 2, 3]);
//! ```

pub use crate::iter::{
    FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelExtend, ParallelIterator, ParallelSlice, ParallelSliceMut,
};
pub use crate::sort::ParallelSortMut;
