//! The adaptors that walk several indexed iterators in step: `zip`, `zip_eq`, `interleave`,
//! `interleave_shortest`, and the tuples' `MultiZip`.

pub(crate) mod interleave;
pub(crate) mod multizip;
pub(crate) mod zip;
pub(crate) mod zip_eq;
