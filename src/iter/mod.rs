//! Parallel iterators over ranges, slices, vectors and the other std collections, built on
//! [`join`](fn@crate::join).
//!
//! The API mirrors rayon's: bring the traits into scope with `use forkjoin::prelude::*;`, then call
//! `into_par_iter()`, `par_iter()`, `par_iter_mut()`, `par_drain(range)`, a slice's
//! `par_chunks(n)`, `par_chunks_exact(n)`, `par_rchunks(n)`, `par_rchunks_exact(n)`,
//! `par_windows(n)` (and their `_mut` forms), a string's `par_chars()`, `par_split(p)`,
//! `par_lines()` and the other [`ParallelString`](crate::str::ParallelString) methods (or start
//! from [`once`], [`empty`], [`repeat()`], [`repeat_n`]) and chain adaptors (`map`, `map_with`,
//! `map_init`, `inspect`, `update`, `filter`, `filter_map`, `flat_map`, `flatten`,
//! `flat_map_iter`, `flatten_iter`, `while_some`, `chain`, `copied`, `cloned`; on indexed
//! iterators also `enumerate`, `zip`, `zip_eq`, `skip`, `take`, `rev`, `step_by`, `chunks`,
//! `interleave`, `interleave_shortest`, `positions`, `with_min_len`, `with_max_len`) into a
//! consumer (`for_each`, `for_each_with`, `for_each_init`, `try_for_each`, `sum`, `product`,
//! `reduce`, `reduce_with`, `fold`, `min`, `max`, `min_by`, `max_by`, `min_by_key`, `max_by_key`,
//! `count`, `any`, `all`, `find_any`, `find_first`, `find_last`, `find_map_any`,
//! `find_map_first`, `find_map_last`, `position_any`, `position_first`, `position_last`, `unzip`,
//! `partition`, the lexicographic comparisons `cmp`, `partial_cmp`, `eq`, `ne`, `lt`, `le`, `gt`,
//! `ge`, `collect` into any std collection, `String`, `Box<str>`, `Box<[T]>`, `Rc<[T]>`,
//! `Arc<[T]>`, `Cow`, `()`, a pair of collections, or a `Result` or `Option` of any of these), or
//! append to any std collection or `String` with `par_extend`. What rayon has and forkjoin still
//! lacks is listed in `docs/rayon-compatibility.md`.
//!
//! ```
//! use forkjoin::prelude::*;
//! let v: Vec<u64> = (0..1000).collect();
//! let sum_of_odd_squares: u64 = v.par_iter().filter(|&&x| x % 2 == 1).map(|&x| x * x).sum();
//! assert_eq!(sum_of_odd_squares, v.iter().filter(|&&x| x % 2 == 1).map(|&x| x * x).sum());
//! ```
//!
//! Work runs in the pool of the calling thread (`pool.install(|| ...)`) or in the global pool. How the
//! input is split is explained in the `bridge` module and in `docs/iterators.md`: a few pieces up front
//! (when some worker is idle to take them), then each piece splits lazily, only when an idle worker asks
//! for work — so no `with_min_len` tuning is
//! needed either for cheap uniform loops or for skewed ones. A panic in a user closure propagates to the
//! caller once every running piece has stopped; owned items are dropped exactly once.
//!
//! [`IndexedParallelIterator`]s know their length and have positions; `filter`, `filter_map`,
//! `fold`, `flat_map`, `flatten`, `flat_map_iter`, `flatten_iter`, `while_some`, the string
//! sources lose that, so `zip` and `enumerate` are
//! not available after them (checked by the type system):
//!
//! ```compile_fail
//! use forkjoin::prelude::*;
//! let _ = (0..10u32).into_par_iter().filter(|x| x % 2 == 0).enumerate();
//! ```

#![warn(unreachable_pub)]

mod bridge;
mod consumer_adapters;
mod debug_impl;
pub mod plumbing;

mod indexed;
mod into;
mod parallel_iterator;

pub(crate) mod array;
pub(crate) mod array_windows;
pub(crate) mod chunk_by;
pub(crate) mod chunks;
mod collections;
pub(crate) mod option;
mod os_string;
mod par_bridge;
pub(crate) mod range;
mod repeat;
pub(crate) mod slice;
pub(crate) mod slice_chunks;
pub(crate) mod slice_split;
mod split;
pub(crate) mod strings;
mod unindexed;
pub(crate) mod vec;
mod walk_tree;

mod blocks;
mod chain;
mod chunks_adaptor;
mod either_par;
mod enumerate;
mod filter;
mod filter_map;
mod flat_map;
mod flat_map_iter;
mod fold;
mod fold_chunks;
mod fold_with;
mod from_ref;
mod inspect;
mod interleave;
mod intersperse;
mod len_bounds;
mod map;
mod map_with;
mod multizip;
mod op_consumer;
mod panic_fuse;
mod positions;
mod rev;
mod skip_any;
mod skip_take;
mod step_by;
mod take_any;
mod while_some;
mod zip;
mod zip_eq;

mod collect;
pub(crate) mod drain;
pub(crate) mod drain_full;
mod extend;
mod find;
mod find_first_last;
mod for_each;
mod reduce;
mod sum;
mod try_fold;
mod try_op;
mod unzip;

// rayon's `iter` items (and the sealed `Try`). The sources' types are public under rayon's module
// paths (`forkjoin::slice::Iter`, ...; see `lib.rs`); producers, consumers and other helpers stay
// inside the crate.
pub use ::either::Either;
pub use blocks::{ExponentialBlocks, UniformBlocks};
pub use chain::Chain;
pub use chunks_adaptor::Chunks;
pub use collect::FromParallelIterator;
pub use drain::ParallelDrainRange;
pub use drain_full::ParallelDrainFull;
pub use enumerate::Enumerate;
pub use extend::ParallelExtend;
pub use filter::Filter;
pub use filter_map::FilterMap;
pub use flat_map::{FlatMap, Flatten};
pub use flat_map_iter::{FlatMapIter, FlattenIter};
pub use fold::Fold;
pub use fold_chunks::{FoldChunks, FoldChunksWith};
pub use fold_with::FoldWith;
pub use from_ref::{Cloned, Copied};
pub use indexed::IndexedParallelIterator;
pub use inspect::{Inspect, Update};
pub use interleave::{Interleave, InterleaveShortest};
pub use intersperse::Intersperse;
pub use into::{IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator};
pub use len_bounds::{MaxLen, MinLen};
pub use map::Map;
pub use map_with::{MapInit, MapWith};
pub use multizip::MultiZip;
pub use option::{empty, once, Empty, Once};
pub use panic_fuse::PanicFuse;
pub use par_bridge::{IterBridge, ParallelBridge};
pub use parallel_iterator::ParallelIterator;
pub use positions::Positions;
pub use repeat::{repeat, repeat_n, Repeat, RepeatN};
pub use rev::Rev;
pub use skip_any::{SkipAny, SkipAnyWhile};
pub use skip_take::{Skip, Take};
pub use split::{split, Split};
pub use step_by::StepBy;
pub use take_any::{TakeAny, TakeAnyWhile};
pub use try_fold::{TryFold, TryFoldWith};
pub use try_op::Try;
pub use walk_tree::{
    walk_tree, walk_tree_postfix, walk_tree_prefix, WalkTree, WalkTreePostfix, WalkTreePrefix,
};
pub use while_some::WhileSome;
pub use zip::Zip;
pub use zip_eq::ZipEq;
