//! Consumers: the calls that end a chain and run it (`for_each`, `sum`, `reduce`, `collect`,
//! `find_*`, `unzip`, `try_*`, ...).
//!
//! Each builds a consumer (a folder per piece and a reducer that joins the pieces' results) and
//! hands it to the chain's `drive`; `collect`/`extend` write into the target collection,
//! `try_op` holds the sealed `Try` trait and the stop-at-first-failure flag.

pub(crate) mod collect;
pub(crate) mod extend;
pub(crate) mod find;
pub(crate) mod find_first_last;
pub(crate) mod for_each;
pub(crate) mod reduce;
pub(crate) mod sum;
pub(crate) mod try_op;
pub(crate) mod unzip;
