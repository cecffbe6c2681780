//! The force loop of rayon-demo's nbody (`rayon-demo/src/nbody/nbody.rs`, `next_velocity_par`) as a
//! fold over bodies: one large closure, so the benchmark sees whether the fold's loop inlines it
//! (docs/iterators.md, "Overhead on uniform loops"). Shared by `benches/iter.rs`; included with
//! `#[path = "..."] #[macro_use] mod nbody;`.

use std::f64::consts::PI;
use std::ops::{Add, AddAssign, Div, Mul, Sub, SubAssign};

/// A 3-vector: the subset of cgmath's `Vector3<f64>` the force loop uses.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct V3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl Add for V3 {
    type Output = V3;
    fn add(self, o: V3) -> V3 {
        V3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}
impl Sub for V3 {
    type Output = V3;
    fn sub(self, o: V3) -> V3 {
        V3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}
impl Mul<f64> for V3 {
    type Output = V3;
    fn mul(self, k: f64) -> V3 {
        V3 {
            x: self.x * k,
            y: self.y * k,
            z: self.z * k,
        }
    }
}
impl Div<f64> for V3 {
    type Output = V3;
    fn div(self, k: f64) -> V3 {
        V3 {
            x: self.x / k,
            y: self.y / k,
            z: self.z / k,
        }
    }
}
impl AddAssign for V3 {
    fn add_assign(&mut self, o: V3) {
        *self = *self + o;
    }
}
impl SubAssign for V3 {
    fn sub_assign(&mut self, o: V3) {
        *self = *self - o;
    }
}
impl V3 {
    pub fn magnitude2(self) -> f64 {
        self.x * self.x + self.y * self.y + self.z * self.z
    }
    pub fn magnitude(self) -> f64 {
        self.magnitude2().sqrt()
    }
}

#[derive(Copy, Clone, Debug)]
pub struct Body {
    pub position: V3,
    pub velocity: V3,
    pub velocity2: V3,
}

/// The fold's accumulator: the two velocity differences.
pub type Acc = (V3, V3);

/// Adds two accumulators (the `reduce` after the `fold`).
pub fn add(a: Acc, b: Acc) -> Acc {
    (a.0 + b.0, a.1 + b.1)
}

/// One number from an accumulator, to check a result against the sequential loop's.
pub fn checksum(a: Acc) -> f64 {
    a.0.x + a.0.y + a.0.z + a.1.x + a.1.y + a.1.z
}

/// `n` bodies spread over a ball of radius 10,000 as rayon-demo spreads them (deterministic).
pub fn bodies(n: usize) -> Vec<Body> {
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut unit = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| {
            let (r, theta, phi) = (unit() * 10_000.0, unit() * PI, unit() * 2.0 * PI);
            Body {
                position: V3 {
                    x: r * theta.sin() * phi.cos(),
                    y: r * theta.sin() * phi.sin(),
                    z: r * theta.cos(),
                },
                velocity: V3 {
                    x: (unit() - 0.5) * 8.0,
                    y: (unit() - 0.5) * 8.0,
                    z: unit() * 8.0 + 10.0,
                },
                velocity2: V3 {
                    x: (unit() - 0.5) * 8.0,
                    y: (unit() - 0.5) * 8.0,
                    z: unit() * 8.0,
                },
            }
        })
        .collect()
}

/// The fold closure of `next_velocity_par` for the body `$prev`, written out where it is used (a
/// macro, not a function the closure calls: the closure itself must be large, as in rayon-demo).
macro_rules! nbody_force {
    ($prev:expr) => {
        |(mut diff, mut diff2): nbody::Acc, body: &nbody::Body| {
            let prev: &nbody::Body = $prev;
            let (zone_sqrd, repel, align, attract) = (3.0 * 400.0 * 400.0, 100.0, 300.0, 100.0);
            let r = body.position - prev.position;
            let are_same = r == nbody::V3::default();
            let dist_sqrd = r.magnitude2();
            if dist_sqrd < zone_sqrd && !are_same {
                let length = dist_sqrd.sqrt();
                let percent = dist_sqrd / zone_sqrd;
                if dist_sqrd < repel {
                    let f = (repel / percent - 1.0) * 0.025;
                    let normal = (r / length) * f;
                    diff += normal;
                    diff2 += normal;
                } else if dist_sqrd < align {
                    let adjusted_percent = (percent - repel) / (align - repel);
                    let q = (0.5 - (adjusted_percent * std::f64::consts::PI * 2.0).cos() * 0.5
                        + 0.5)
                        * 100.9;
                    diff += (body.velocity2 / body.velocity2.magnitude()) * q;
                    diff2 += (prev.velocity / prev.velocity.magnitude()) * q;
                }
                if dist_sqrd > attract {
                    let adjusted_percent2 = (percent - attract) / (1.0 - attract);
                    let c = (1.0
                        - ((adjusted_percent2 * std::f64::consts::PI * 2.0).cos() * 0.5 + 0.5))
                        * 100.9;
                    let d = (r / length) * c;
                    diff += d;
                    diff2 -= d;
                }
            }
            (diff, diff2)
        }
    };
}
