//! Benchmark stub (to be written).
fn main() {}
