//! Parallel iterators (to be built).
