//! `use forkjoin::prelude::*;` brings the parallel-iterator and slice traits (with the parallel sorts)
//! into scope, as rayon's prelude does.
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
    IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull, ParallelDrainRange,
    ParallelExtend, ParallelIterator,
};
/// Another name of [`ParallelSliceMut`], whose methods include the parallel sorts (the name
/// forkjoin's sorts were first imported by).
pub use crate::slice::ParallelSliceMut as ParallelSortMut;
pub use crate::slice::{ParallelSlice, ParallelSliceMut};
pub use crate::str::ParallelString;
