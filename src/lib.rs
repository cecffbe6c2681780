//! forkjoin: a fork-join parallelism runtime built on hand-written Chase-Lev work-stealing deques.
//!
//! ```
//! fn fib(n: u64) -> u64 {
//!     if n < 2 {
//!         return n;
//!     }
//!     let (a, b) = forkjoin::join(|| fib(n - 1), || fib(n - 2));
//!     a + b
//! }
//! assert_eq!(fib(20), 6765);
//! ```
//!
//! Layers, each importing only from those below it (`tests/layers.rs` checks it):
//! `platform` (the sync facade, clock, unwinding, affinity) → `runtime` (the scheduler and the
//! public runtime API; its internals are private to it) → `iter` and `sort` (which reach the
//! scheduler only through `runtime::sharing` and the public API). `docs/architecture.md` has the map.
#![deny(missing_docs, missing_debug_implementations, unreachable_pub)]

mod platform;
mod runtime;

pub use runtime::deque;

#[cfg(all(test, not(forkjoin_loom)))]
mod test_support;

pub mod iter;
pub mod prelude;
mod sort;

// rayon's module paths, so that `use rayon::slice::ParallelSliceMut;`-style imports port by renaming
// the crate: each re-exports, under rayon's names, the items of `iter` that exist.

pub mod range {
    //! Parallel iterators over half-open ranges (`(a..b).into_par_iter()`), as in rayon's `range`.
    //!
    //! ```
    //! use forkjoin::prelude::*;
    //! let it: forkjoin::range::Iter<u64> = (0..10u64).into_par_iter();
    //! assert_eq!(it.sum::<u64>(), 45);
    //! ```
    pub use crate::iter::sources::range::RangeIter as Iter;
}

pub mod range_inclusive {
    //! Parallel iterators over inclusive ranges (`(a..=b).into_par_iter()`), as in rayon's
    //! `range_inclusive`. forkjoin uses one type for both kinds of range, so this `Iter` is
    //! [`range::Iter`](crate::range::Iter).
    //!
    //! ```
    //! use forkjoin::prelude::*;
    //! let it: forkjoin::range_inclusive::Iter<char> = ('a'..='c').into_par_iter();
    //! assert_eq!(it.collect::<String>(), "abc");
    //! ```
    pub use crate::iter::sources::range::RangeIter as Iter;
}

pub mod slice {
    //! Parallel iterators over slices and the slice extension traits, as in rayon's `slice`.
    //!
    //! ```
    //! use forkjoin::iter::ParallelIterator;
    //! use forkjoin::slice::ParallelSliceMut;
    //! let mut v = vec![1, 2, 3, 4, 5];
    //! v.par_chunks_mut(2).for_each(|c| c.reverse());
    //! assert_eq!(v, [2, 1, 4, 3, 5]);
    //! ```
    pub use crate::iter::sources::slice::array_windows::ArrayWindows;
    pub use crate::iter::sources::slice::chunk_by::{ChunkBy, ChunkByMut};
    pub use crate::iter::sources::slice::chunk_variants::{
        ChunksExact, ChunksExactMut, RChunks, RChunksExact, RChunksExactMut, RChunksMut, Windows,
    };
    pub use crate::iter::sources::slice::chunks::{Chunks, ChunksMut};
    pub use crate::iter::sources::slice::split::{
        Split, SplitInclusive, SplitInclusiveMut, SplitMut,
    };
    pub use crate::iter::sources::slice::{
        ParallelSlice, ParallelSliceMut, SliceIter as Iter, SliceIterMut as IterMut,
    };
}

pub mod array {
    //! The owning parallel iterator over an array (`[T; N]::into_par_iter()`), as in rayon's `array`.
    //!
    //! ```
    //! use forkjoin::prelude::*;
    //! let it: forkjoin::array::IntoIter<u8, 3> = [1, 2, 3].into_par_iter();
    //! assert_eq!(it.sum::<u8>(), 6);
    //! ```
    pub use crate::iter::sources::array::ArrayIntoIter as IntoIter;
}

pub mod option {
    //! Parallel iterators over the value of an `Option`, as in rayon's `option`. forkjoin uses one
    //! type for all of them (and for `result`'s, [`iter::Once`](crate::iter::Once) and
    //! [`iter::Empty`](crate::iter::Empty)).
    //!
    //! ```
    //! use forkjoin::prelude::*;
    //! let it: forkjoin::option::Iter<'_, i32> = Some(3).par_iter();
    //! assert_eq!(it.copied().sum::<i32>(), 3);
    //! ```

    /// `Option<T>::into_par_iter()`.
    pub type IntoIter<T> = crate::iter::sources::option::OptionIter<T>;
    /// `Option<T>::par_iter()`.
    pub type Iter<'a, T> = crate::iter::sources::option::OptionIter<&'a T>;
    /// `Option<T>::par_iter_mut()`.
    pub type IterMut<'a, T> = crate::iter::sources::option::OptionIter<&'a mut T>;
}

pub mod result {
    //! Parallel iterators over the `Ok` value of a `Result`, as in rayon's `result`. forkjoin uses one
    //! type for all of them, the type of [`option::IntoIter`](crate::option::IntoIter).
    //!
    //! ```
    //! use forkjoin::prelude::*;
    //! let r: Result<u8, String> = Ok(2);
    //! let it: forkjoin::result::IntoIter<u8> = r.into_par_iter();
    //! assert_eq!(it.collect::<Vec<_>>(), [2]);
    //! ```

    /// `Result<T, E>::into_par_iter()`.
    pub type IntoIter<T> = crate::iter::sources::option::OptionIter<T>;
    /// `Result<T, E>::par_iter()`.
    pub type Iter<'a, T> = crate::iter::sources::option::OptionIter<&'a T>;
    /// `Result<T, E>::par_iter_mut()`.
    pub type IterMut<'a, T> = crate::iter::sources::option::OptionIter<&'a mut T>;
}

pub mod collections;

pub mod str {
    //! Parallel iterators over string slices and the [`ParallelString`] extension trait, as in
    //! rayon's `str`.
    //!
    //! ```
    //! use forkjoin::iter::ParallelIterator;
    //! use forkjoin::str::ParallelString;
    //! let words: Vec<&str> = "fork, join, steal".par_split(',').map(str::trim).collect();
    //! assert_eq!(words, ["fork", "join", "steal"]);
    //! ```
    pub use crate::iter::sources::string::{
        Bytes, CharIndices, Chars, EncodeUtf16, Lines, MatchIndices, Matches, ParallelString,
        Split, SplitAsciiWhitespace, SplitInclusive, SplitTerminator, SplitWhitespace,
    };
}

pub mod vec {
    //! The owning parallel iterator over a `Vec` (`vec.into_par_iter()`), as in rayon's `vec`.
    //!
    //! ```
    //! use forkjoin::prelude::*;
    //! let it: forkjoin::vec::IntoIter<String> = vec!["a".to_string()].into_par_iter();
    //! assert_eq!(it.collect::<Vec<_>>(), ["a"]);
    //! ```
    pub use crate::iter::sources::drain_range::VecDrain as Drain;
    pub use crate::iter::sources::vec::VecIntoIter as IntoIter;
}

pub mod string {
    //! The parallel iterator of `String::par_drain`, as in rayon's `string`.
    //!
    //! ```
    //! use forkjoin::prelude::*;
    //! let mut s = String::from("abc");
    //! let it: forkjoin::string::Drain<'_> = s.par_drain(1..);
    //! assert_eq!(it.collect::<String>(), "bc");
    //! assert_eq!(s, "a");
    //! ```
    pub use crate::iter::sources::drain_range::StringDrain as Drain;
}

pub use runtime::broadcast::{broadcast, spawn_broadcast, BroadcastContext};
pub use runtime::builder::ThreadPoolBuilder;
pub use runtime::cancel::token::CancelToken;
pub use runtime::cancel::Cancelled;
pub use runtime::cancellable::cancellable;
#[allow(deprecated)]
pub use runtime::configuration::{initialize, Configuration};
pub use runtime::error::ThreadPoolBuildError;
pub use runtime::future::block_on::block_on;
pub use runtime::future::spawn_future::{spawn_future, JobFuture};
pub use runtime::join::{join, join_context, FnContext};
pub use runtime::max_threads::with_max_threads;
pub use runtime::scope::{in_place_scope, scope, Scope};
pub use runtime::scope_fifo::{in_place_scope_fifo, scope_fifo, ScopeFifo};
pub use runtime::spawn::{spawn, spawn_fifo};
pub use runtime::stats::{PoolStats, WorkerStats};
pub use runtime::thread_pool::{
    current_num_threads, current_thread_index, flush_trace, max_num_threads, set_num_threads,
    ThreadPool,
};
pub use runtime::yield_now::{current_thread_has_pending_tasks, yield_local, yield_now, Yield};
pub use runtime::ThreadBuilder;
pub use runtime::{HandlerPanic, WorkerHandler};

// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

// So is the example of docs/tracing.md.
#[cfg(doctest)]
#[doc = include_str!("../docs/tracing.md")]
struct TracingDoctests;

/// The simulation's virtual-time mode (`sim-tests`, `scripts/predict.sh`): not public API.
#[cfg(forkjoin_shuttle)]
#[doc(hidden)]
pub use platform::sync::sim_time as __sim;
