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
//! input is split is explained in the `bridge` module and in `docs/iterators.md`: a few pieces up front,
//! then each piece splits lazily, only when an idle worker asks for work — so no `with_min_len` tuning is
//! needed either for cheap uniform loops or for skewed ones. A panic in a user closure propagates to the
//! caller once every running piece has stopped; owned items are dropped exactly once.
//!
//! [`IndexedParallelIterator`]s know their length and have positions; `filter`, `filter_map`,
//! `fold`, `flat_map`, `flatten`, `flat_map_iter`, `flatten_iter`, `while_some`, the string
//! sources, and (unlike rayon) `map_with` and `map_init` lose that, so `zip` and `enumerate` are
//! not available after them (checked by the type system):
//!
//! ```compile_fail
//! use forkjoin::prelude::*;
//! let _ = (0..10u32).into_par_iter().filter(|x| x % 2 == 0).enumerate();
//! ```

mod bridge;
pub mod plumbing;

mod indexed;
mod into;
mod parallel_iterator;

mod array;
mod array_windows;
mod chunk_by;
mod chunks;
mod collections;
mod option;
mod range;
mod repeat;
mod slice;
mod slice_chunks;
pub(crate) mod strings;
mod vec;

mod chain;
mod chunks_adaptor;
mod enumerate;
mod filter;
mod filter_map;
mod flat_map;
mod flat_map_iter;
mod fold;
mod fold_chunks;
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
mod drain;
mod drain_full;
mod extend;
mod find;
mod find_first_last;
mod for_each;
mod reduce;
mod sum;
mod try_fold;
mod try_op;
mod unzip;

pub use array::ArrayIntoIter;
pub use array_windows::ArrayWindows;
pub use chain::Chain;
pub use chunk_by::{ChunkBy, ChunkByMut};
/// The slice chunks of `par_chunks` (`forkjoin::slice::Chunks`, as in rayon; `iter::Chunks` is
/// the adaptor of [`IndexedParallelIterator::chunks`]).
pub use chunks::Chunks as SliceChunks;
pub use chunks::{ChunksMut, ChunksMutProducer, ChunksProducer};
pub use chunks_adaptor::Chunks;
pub use collect::{
    CollectConsumer, CollectReducer, FromParallelIterator, ListReducer, ListVecConsumer,
};
pub use drain::{ParallelDrainRange, StringDrain, VecDrain};
pub use drain_full::{HashDrain, HeapDrain, ParallelDrainFull};
pub use enumerate::{Enumerate, EnumerateProducer};
pub use extend::ParallelExtend;
pub use filter::{Filter, FilterConsumer};
pub use filter_map::{FilterMap, FilterMapConsumer};
pub use find::{AnyConsumer, FindAnyConsumer, FirstSomeReducer, OrReducer};
pub use flat_map::{FlatMap, Flatten};
pub use flat_map_iter::{
    FlatMapIter, FlatMapIterConsumer, FlattenIter, FlattenIterConsumer, FlattenIterOp,
};
pub use fold::{Fold, FoldConsumer};
pub use fold_chunks::{FoldChunks, FoldChunksWith};
pub use for_each::ForEachConsumer;
pub use from_ref::{
    Cloned, ClonedConsumer, ClonedProducer, Copied, CopiedConsumer, CopiedProducer,
};
pub use indexed::IndexedParallelIterator;
pub use inspect::{Inspect, Update};
pub use interleave::{Interleave, InterleaveShortest};
pub use intersperse::Intersperse;
pub use into::{IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator};
pub use len_bounds::{BoundedProducer, MaxLen, MinLen};
pub use map::{Map, MapConsumer, MapProducer};
pub use map_with::{CloneState, InitState, MapInit, MapStateConsumer, MapWith, PieceState};
pub use multizip::MultiZip;
pub use option::{empty, once, Empty, Once, OptionIter};
pub use panic_fuse::PanicFuse;
pub use parallel_iterator::ParallelIterator;
pub use positions::Positions;
pub use range::{RangeInteger, RangeIter, RangeProducer, RangeSeq};
pub use reduce::{ReduceConsumer, ReduceReducer};
pub use repeat::{repeat, repeat_n, Repeat, RepeatN, RepeatNIter};
pub use rev::Rev;
pub use skip_any::{SkipAny, SkipAnyWhile};
pub use skip_take::{Skip, Take};
pub use slice::{
    ParallelSlice, ParallelSliceMut, SliceIter, SliceIterMut, SliceMutProducer, SliceProducer,
};
pub use slice_chunks::{
    ChunkKind, ChunksExact, ChunksExactKind, ChunksExactMut, ChunksIter, RChunks, RChunksExact,
    RChunksExactKind, RChunksExactMut, RChunksKind, RChunksMut, Windows,
};
pub use step_by::StepBy;
pub use sum::{ProductConsumer, ProductReducer, SumConsumer, SumReducer};
pub use take_any::{TakeAny, TakeAnyWhile};
pub use try_fold::{TryFold, TryFoldWith};
pub use try_op::Try;
pub use vec::{DrainProducer, SliceDrain, VecIntoIter};
pub use while_some::{WhileSome, WhileSomeConsumer};
pub use zip::{Zip, ZipProducer};
pub use zip_eq::ZipEq;
