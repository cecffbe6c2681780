//! Adaptors: parallel iterators made from other parallel iterators (`map`, `zip`, `fold`, ...).
//!
//! Each wraps its base and, when driven, wraps the consumer (or, for an indexed adaptor, the
//! producer) it is handed, so that the whole chain still runs as one split-and-fold over the
//! source. `item_wise/` rewrites, keeps or drops each item on its own; `folds/` fold the items of
//! a piece into one value; `zips/` walk two or more indexed iterators in step.

pub(crate) mod blocks;
pub(crate) mod chain;
pub(crate) mod chunks_vec;
pub(crate) mod debug_impl;
pub(crate) mod deterministic;
pub(crate) mod either;
pub(crate) mod enumerate;
pub(crate) mod flat_map;
pub(crate) mod flat_map_iter;
pub(crate) mod folds;
pub(crate) mod intersperse;
pub(crate) mod item_wise;
pub(crate) mod len_bounds;
pub(crate) mod panic_fuse;
pub(crate) mod rev;
pub(crate) mod skip_any;
pub(crate) mod skip_take;
pub(crate) mod step_by;
pub(crate) mod take_any;
pub(crate) mod while_some;
pub(crate) mod zips;
