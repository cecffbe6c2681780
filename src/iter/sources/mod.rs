//! Sources: the parallel iterators that own or borrow the data, made by `into_par_iter`,
//! `par_iter`, `par_drain` and the free functions (`repeat`, `split`, `walk_tree`, ...).
//!
//! An indexed source (ranges, slices, `Vec`, arrays, `Option`, ...) is a
//! [`Producer`](crate::iter::plumbing::Producer) that the bridge splits at positions; the others
//! (`split`, the tree walks, `par_bridge`, string splits) are
//! [`UnindexedProducer`](crate::iter::plumbing::UnindexedProducer)s that split themselves when the
//! bridge asks. `slice/` holds the slice sources (`par_chunks`, `par_windows`, `par_split`, ...).

pub(crate) mod array;
pub(crate) mod drain_full;
pub(crate) mod drain_range;
pub(crate) mod option;
pub(crate) mod os_string;
pub(crate) mod par_bridge;
pub(crate) mod range;
pub(crate) mod repeat;
pub(crate) mod slice;
pub(crate) mod splitter;
pub(crate) mod std_collections;
pub(crate) mod string;
pub(crate) mod vec;
pub(crate) mod walk_tree;
