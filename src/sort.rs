//! Parallel sorts (to be built).
