//! The adaptors that treat each item on its own: `map`, `map_with`/`map_init`, `filter`,
//! `filter_map`, `inspect`/`update`, `copied`/`cloned`, `positions`. The first five share one
//! consumer (`op_consumer`), which applies an item operation to every sequential run.

pub(crate) mod filter;
pub(crate) mod filter_map;
pub(crate) mod from_ref;
pub(crate) mod inspect;
pub(crate) mod map;
pub(crate) mod map_with;
pub(crate) mod op_consumer;
pub(crate) mod positions;
