//! A calibrated busy loop shared by the iterator tests, the `par_iter` example and the iterator bench
//! (they include this file with `#[path = "..."] mod spin;`): it must cost the same everywhere.

/// `rounds` rounds of a dependent xorshift: about 1 ns each, impossible to vectorise or skip.
#[inline(never)]
pub fn spin(rounds: u64) -> u64 {
    let mut x = rounds | 1;
    for _ in 0..rounds {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    std::hint::black_box(x)
}
