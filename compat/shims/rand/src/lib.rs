//! The subset of rand 0.9's API that rayon's and rayon-core's test files call, with the same paths
//! and signatures: `Rng::{sample, sample_iter, random_range}`, `SeedableRng`, `rng()`,
//! `distr::{Distribution, StandardUniform, Uniform}`. Only for `compat/rayon-tests.sh`: the tests use
//! random numbers as inputs and compare against sequential code, so any decent generator will do
//! (the sequences differ from rand's).

use std::ops::{Range, RangeInclusive};

/// A source of random bits.
pub trait RngCore {
    /// The next 64 random bits.
    fn next_u64(&mut self) -> u64;

    /// The next 32 random bits.
    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
}

impl<R: RngCore + ?Sized> RngCore for &mut R {
    fn next_u64(&mut self) -> u64 {
        (**self).next_u64()
    }
}

/// Generators that can be built from a seed.
pub trait SeedableRng: Sized {
    /// The seed: a byte array.
    type Seed: Default + AsMut<[u8]>;
    /// A generator from `seed`.
    fn from_seed(seed: Self::Seed) -> Self;
}

/// The user-facing methods, for every [`RngCore`].
pub trait Rng: RngCore {
    /// One value of `distr`.
    fn sample<T, D: distr::Distribution<T>>(&mut self, distr: D) -> T {
        distr.sample(self)
    }

    /// An endless iterator over values of `distr`.
    fn sample_iter<T, D>(self, distr: D) -> distr::Iter<D, Self, T>
    where
        D: distr::Distribution<T>,
        Self: Sized,
    {
        distr::Iter {
            distr,
            rng: self,
            marker: std::marker::PhantomData,
        }
    }

    /// A value uniformly distributed in `range` (which must not be empty).
    fn random_range<T, R: distr::SampleRange<T>>(&mut self, range: R) -> T {
        range.sample_single(self)
    }
}

impl<R: RngCore + ?Sized> Rng for R {}

/// A generator seeded from the clock and a per-call counter (rand's `ThreadRng` stand-in).
pub struct ThreadRng(u64);

impl RngCore for ThreadRng {
    fn next_u64(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A new generator with a fresh seed.
pub fn rng() -> ThreadRng {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    ThreadRng(
        nanos
            ^ COUNTER
                .fetch_add(1, Ordering::Relaxed)
                .wrapping_mul(0x2545_F491_4F6C_DD1D),
    )
}

/// Distributions.
pub mod distr {
    use super::*;

    /// Types that produce values of `T` from random bits.
    pub trait Distribution<T> {
        /// One value.
        fn sample<R: RngCore + ?Sized>(&self, rng: &mut R) -> T;
    }

    impl<T, D: Distribution<T> + ?Sized> Distribution<T> for &D {
        fn sample<R: RngCore + ?Sized>(&self, rng: &mut R) -> T {
            (**self).sample(rng)
        }
    }

    /// The iterator of [`Rng::sample_iter`].
    pub struct Iter<D, R, T> {
        pub(crate) distr: D,
        pub(crate) rng: R,
        pub(crate) marker: std::marker::PhantomData<fn() -> T>,
    }

    impl<D: Distribution<T>, R: RngCore, T> Iterator for Iter<D, R, T> {
        type Item = T;
        fn next(&mut self) -> Option<T> {
            Some(self.distr.sample(&mut self.rng))
        }
    }

    /// Every value of the type equally likely (`char`: every scalar value).
    #[derive(Clone, Copy, Debug, Default)]
    pub struct StandardUniform;

    macro_rules! standard_int {
        ($($t:ty),*) => {$(
            impl Distribution<$t> for StandardUniform {
                fn sample<R: RngCore + ?Sized>(&self, rng: &mut R) -> $t {
                    rng.next_u64() as $t
                }
            }
        )*};
    }
    standard_int!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

    impl Distribution<bool> for StandardUniform {
        fn sample<R: RngCore + ?Sized>(&self, rng: &mut R) -> bool {
            rng.next_u32() & 1 == 1
        }
    }

    impl Distribution<char> for StandardUniform {
        fn sample<R: RngCore + ?Sized>(&self, rng: &mut R) -> char {
            // Uniform over the scalar values: skip the surrogate gap.
            const GAP: u32 = 0xE000 - 0xD800;
            let n = uniform_u64(rng, 0, u64::from(char::MAX as u32 - GAP)) as u32;
            let n = if n >= 0xD800 { n + GAP } else { n };
            char::from_u32(n).expect("a scalar value")
        }
    }

    /// A uniform value in `low..=high`.
    fn uniform_u64<R: RngCore + ?Sized>(rng: &mut R, low: u64, high: u64) -> u64 {
        let span = high.wrapping_sub(low).wrapping_add(1);
        if span == 0 {
            return rng.next_u64();
        }
        // Rejection sampling: no modulo bias.
        let zone = u64::MAX - (u64::MAX - span + 1) % span;
        loop {
            let x = rng.next_u64();
            if x <= zone {
                return low.wrapping_add(x % span);
            }
        }
    }

    /// Integer types with uniform sampling in a range.
    pub trait SampleUniform: Copy + PartialOrd {
        /// A uniform value in `low..=high`.
        fn sample_inclusive<R: RngCore + ?Sized>(rng: &mut R, low: Self, high: Self) -> Self;
        /// The predecessor (for half-open ranges).
        fn pred(self) -> Self;
    }

    macro_rules! uniform_int {
        ($($t:ty => $u:ty),*) => {$(
            impl SampleUniform for $t {
                fn sample_inclusive<R: RngCore + ?Sized>(rng: &mut R, low: $t, high: $t) -> $t {
                    // Offsets from `low` as unsigned values, in the type's own width.
                    let span = (high as $u).wrapping_sub(low as $u) as u64;
                    (low as $u).wrapping_add(uniform_u64(rng, 0, span) as $u) as $t
                }
                fn pred(self) -> $t {
                    self - 1
                }
            }
        )*};
    }
    uniform_int!(u8 => u8, u16 => u16, u32 => u32, u64 => u64, usize => usize,
                 i8 => u8, i16 => u16, i32 => u32, i64 => u64, isize => usize);

    /// Ranges that [`Rng::random_range`] accepts.
    pub trait SampleRange<T> {
        /// One uniform value of the range.
        fn sample_single<R: RngCore + ?Sized>(self, rng: &mut R) -> T;
    }

    impl<T: SampleUniform> SampleRange<T> for Range<T> {
        fn sample_single<R: RngCore + ?Sized>(self, rng: &mut R) -> T {
            assert!(self.start < self.end, "empty range");
            T::sample_inclusive(rng, self.start, self.end.pred())
        }
    }

    impl<T: SampleUniform> SampleRange<T> for RangeInclusive<T> {
        fn sample_single<R: RngCore + ?Sized>(self, rng: &mut R) -> T {
            assert!(self.start() <= self.end(), "empty range");
            T::sample_inclusive(rng, *self.start(), *self.end())
        }
    }

    /// The error of [`Uniform::new`] for an empty range.
    #[derive(Clone, Copy, Debug)]
    pub struct Error;

    /// Uniform values in `low..high`.
    #[derive(Clone, Copy, Debug)]
    pub struct Uniform<T> {
        low: T,
        high_inclusive: T,
    }

    impl<T: SampleUniform> Uniform<T> {
        /// Uniform values in `low..high`; an error if that is empty.
        pub fn new(low: T, high: T) -> Result<Self, Error> {
            if low < high {
                Ok(Uniform {
                    low,
                    high_inclusive: high.pred(),
                })
            } else {
                Err(Error)
            }
        }

        /// Uniform values in `low..=high`; an error if that is empty.
        pub fn new_inclusive(low: T, high: T) -> Result<Self, Error> {
            if low <= high {
                Ok(Uniform {
                    low,
                    high_inclusive: high,
                })
            } else {
                Err(Error)
            }
        }
    }

    impl<T: SampleUniform> Distribution<T> for Uniform<T> {
        fn sample<R: RngCore + ?Sized>(&self, rng: &mut R) -> T {
            T::sample_inclusive(rng, self.low, self.high_inclusive)
        }
    }
}
