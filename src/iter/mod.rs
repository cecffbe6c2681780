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

mod indexed;
mod into;
mod parallel_iterator;
pub mod plumbing;

pub(crate) mod adaptors;
pub(crate) mod consumers;
pub(crate) mod sources;

// rayon's `iter` items (and the sealed `Try`). The sources' types are public under rayon's module
// paths (`forkjoin::slice::Iter`, ...; see `lib.rs`); producers, consumers and other helpers stay
// inside the crate.
pub use self::adaptors::blocks::{ExponentialBlocks, UniformBlocks};
pub use self::adaptors::chain::Chain;
pub use self::adaptors::chunks_vec::Chunks;
pub use self::adaptors::deterministic::{Deterministic, DETERMINISTIC_BLOCK_LEN};
pub use self::adaptors::enumerate::Enumerate;
pub use self::adaptors::flat_map::{FlatMap, Flatten};
pub use self::adaptors::flat_map_iter::{FlatMapIter, FlattenIter};
pub use self::adaptors::folds::fold::Fold;
pub use self::adaptors::folds::fold_chunks::{FoldChunks, FoldChunksWith};
pub use self::adaptors::folds::fold_with::FoldWith;
pub use self::adaptors::folds::try_fold::{TryFold, TryFoldWith};
pub use self::adaptors::intersperse::Intersperse;
pub use self::adaptors::item_wise::filter::Filter;
pub use self::adaptors::item_wise::filter_map::FilterMap;
pub use self::adaptors::item_wise::from_ref::{Cloned, Copied};
pub use self::adaptors::item_wise::inspect::{Inspect, Update};
pub use self::adaptors::item_wise::map::Map;
pub use self::adaptors::item_wise::map_with::{MapInit, MapWith};
pub use self::adaptors::item_wise::positions::Positions;
pub use self::adaptors::len_bounds::{MaxLen, MinLen};
pub use self::adaptors::panic_fuse::PanicFuse;
pub use self::adaptors::rev::Rev;
pub use self::adaptors::skip_any::{SkipAny, SkipAnyWhile};
pub use self::adaptors::skip_take::{Skip, Take};
pub use self::adaptors::step_by::StepBy;
pub use self::adaptors::take_any::{TakeAny, TakeAnyWhile};
pub use self::adaptors::while_some::WhileSome;
pub use self::adaptors::zips::interleave::{Interleave, InterleaveShortest};
pub use self::adaptors::zips::multizip::MultiZip;
pub use self::adaptors::zips::zip::Zip;
pub use self::adaptors::zips::zip_eq::ZipEq;
pub use self::consumers::collect::FromParallelIterator;
pub use self::consumers::extend::ParallelExtend;
pub use self::indexed::IndexedParallelIterator;
pub use self::into::{IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator};
pub use self::parallel_iterator::ParallelIterator;
pub use self::sources::drain_full::ParallelDrainFull;
pub use self::sources::drain_range::ParallelDrainRange;
pub use self::sources::option::{empty, once, Empty, Once};
pub use self::sources::par_bridge::{IterBridge, ParallelBridge};
pub use self::sources::repeat::{repeat, repeat_n, Repeat, RepeatN};
pub use self::sources::splitter::{split, Split};
pub use self::sources::walk_tree::{
    walk_tree, walk_tree_postfix, walk_tree_prefix, WalkTree, WalkTreePostfix, WalkTreePrefix,
};
pub use ::either::Either;
