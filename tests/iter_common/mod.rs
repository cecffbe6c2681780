// Shared helpers for the iter tests: a module of the combined binary (`tests/integration/`) and of
// each iterator test with a binary of its own (`mod iter_common;`); the examples and benches include
// `spin.rs` by path.
#![allow(dead_code)]

pub mod spin;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use forkjoin::{ThreadPool, ThreadPoolBuilder};

/// Lengths that hit the edge cases: empty, one, odd and prime lengths, and lengths around the powers
/// of two where the splitter cuts.
pub const LENGTHS: &[usize] = &[
    0, 1, 2, 3, 5, 7, 31, 63, 64, 65, 127, 128, 129, 1000, 1023, 1024, 1025, 4099, 65_537, 100_003,
];

/// Deterministic pseudo-random numbers (SplitMix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn vec(&mut self, len: usize, modulo: u64) -> Vec<u64> {
        (0..len).map(|_| self.next_u64() % modulo).collect()
    }
}

fn pool4() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| ThreadPoolBuilder::new().num_threads(4).build().unwrap())
}

fn pool1() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| ThreadPoolBuilder::new().num_threads(1).build().unwrap())
}

/// Runs `f` outside any pool (global pool), inside a 4-thread pool (more threads than the machine's 2
/// cores) and inside a 1-thread pool.
pub fn everywhere(f: impl Fn() + Sync + Send) {
    f();
    pool4().install(&f);
    pool1().install(&f);
}

/// An item that records how often it was dropped, for the exactly-once drop checks of owned items.
#[derive(Debug)]
pub struct Tracked {
    pub id: usize,
    drops: Arc<Vec<AtomicUsize>>,
}

impl Tracked {
    /// Item `id`, counting its drops in `drops[id]`.
    pub fn new(id: usize, drops: &Arc<Vec<AtomicUsize>>) -> Self {
        Tracked {
            id,
            drops: Arc::clone(drops),
        }
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.drops[self.id].fetch_add(1, Ordering::Relaxed);
    }
}

/// `n` drop counters, all zero.
pub fn drop_counters(n: usize) -> Arc<Vec<AtomicUsize>> {
    Arc::new((0..n).map(|_| AtomicUsize::new(0)).collect())
}

/// Items `0..n` and their drop counters.
pub fn tracked(n: usize) -> (Vec<Tracked>, Arc<Vec<AtomicUsize>>) {
    let drops = drop_counters(n);
    let items = (0..n).map(|id| Tracked::new(id, &drops)).collect();
    (items, drops)
}

/// Panics unless every counter of `drops` is exactly 1.
pub fn assert_dropped_once(drops: &[AtomicUsize], what: &str) {
    for (id, d) in drops.iter().enumerate() {
        assert_eq!(
            d.load(Ordering::Relaxed),
            1,
            "{what}: item {id} dropped wrong number of times"
        );
    }
}

/// One random input of every length of [`LENGTHS`], values below `modulo`.
pub fn random_inputs(seed: u64, modulo: u64) -> Vec<Vec<u64>> {
    let mut rng = Rng::new(seed);
    LENGTHS.iter().map(|&n| rng.vec(n, modulo)).collect()
}

/// The message of a panic's payload (a `&str` or a `String`), if it has one.
pub fn payload_message(payload: &(dyn std::any::Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}

/// Runs `f`, which must panic with the message `message`.
pub fn assert_panics(f: impl FnOnce(), message: &str) {
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .expect_err("the panic must propagate");
    assert_eq!(payload_message(&*err), Some(message));
}

/// From now on, panics whose message starts with "expected:" are not printed; any other panic is
/// reported as usual.
pub fn quiet_expected_panics() {
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let expected = payload_message(info.payload()).map(|s| s.starts_with("expected:"));
            if expected != Some(true) {
                default(info);
            }
        }));
    });
}

/// The panic message of `f`, which must panic. Panics whose message starts with "expected:" are not
/// printed.
pub fn panic_message(f: impl FnOnce()) -> String {
    quiet_expected_panics();
    let payload =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).expect_err("must panic");
    payload_message(&*payload)
        .unwrap_or("<non-string payload>")
        .to_string()
}

/// The failure positions to try on a length-`n` input: none, the first, a middle and the last.
pub fn failure_positions(n: usize) -> Vec<Option<usize>> {
    let mut at = vec![None];
    if n > 0 {
        at.extend([Some(0), Some(n / 2), Some(n - 1)]);
    }
    at
}
