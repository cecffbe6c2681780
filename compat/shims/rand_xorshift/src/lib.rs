//! rand_xorshift 0.4's `XorShiftRng` (Marsaglia's xorshift128), for `compat/rayon-tests.sh` only.

use rand::{RngCore, SeedableRng};

/// Marsaglia's xorshift128 generator, seeded with 16 bytes.
#[derive(Clone, Debug)]
pub struct XorShiftRng {
    x: u32,
    y: u32,
    z: u32,
    w: u32,
}

impl RngCore for XorShiftRng {
    fn next_u32(&mut self) -> u32 {
        let t = self.x ^ (self.x << 11);
        self.x = self.y;
        self.y = self.z;
        self.z = self.w;
        self.w = self.w ^ (self.w >> 19) ^ (t ^ (t >> 8));
        self.w
    }

    fn next_u64(&mut self) -> u64 {
        let lo = u64::from(self.next_u32());
        let hi = u64::from(self.next_u32());
        (hi << 32) | lo
    }
}

impl SeedableRng for XorShiftRng {
    type Seed = [u8; 16];

    fn from_seed(seed: [u8; 16]) -> Self {
        let word = |i: usize| u32::from_le_bytes([seed[i], seed[i + 1], seed[i + 2], seed[i + 3]]);
        let (x, y, z, w) = (word(0), word(4), word(8), word(12));
        if x == 0 && y == 0 && z == 0 && w == 0 {
            // The all-zero state is a fixed point; rand_xorshift replaces it the same way.
            XorShiftRng {
                x: 0x0BAD_5EED,
                y: 0x0BAD_5EED,
                z: 0x0BAD_5EED,
                w: 0x0BAD_5EED,
            }
        } else {
            XorShiftRng { x, y, z, w }
        }
    }
}
