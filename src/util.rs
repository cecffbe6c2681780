//! Small helpers shared by the layers above: cache-line padding and the victim-selection RNG.

#[allow(unused_imports)]
pub(crate) use crossbeam_utils::CachePadded;
