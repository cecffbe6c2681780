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

/// The parallel sorts used to live in a trait of this name; they are methods of
/// [`ParallelSliceMut`] now, as in rayon. The old name stays for
/// existing imports.
pub use crate::iter::{
    FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull, ParallelDrainRange,
    ParallelExtend, ParallelIterator,
};
pub use crate::slice::ParallelSliceMut as ParallelSortMut;
pub use crate::slice::{ParallelSlice, ParallelSliceMut};
pub use crate::str::ParallelString;
