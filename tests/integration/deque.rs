//! Single-threaded deque behaviour: order, a randomized model test against `VecDeque`, drop counts,
//! and the `Send`/`Sync` contract.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use forkjoin::deque::{Steal, Stealer, Worker};

/// A small deterministic RNG (xorshift64*), so failures reproduce from the printed seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn owner_pops_lifo() {
    let w = Worker::new();
    for i in 0..1000 {
        w.push(i);
    }
    for i in (0..1000).rev() {
        assert_eq!(w.pop(), Some(i));
    }
    assert_eq!(w.pop(), None);
    assert!(w.is_empty());
}

#[test]
fn thieves_steal_fifo() {
    let w = Worker::new();
    let s = w.stealer();
    for i in 0..1000 {
        w.push(i);
    }
    assert_eq!(s.len(), 1000);
    for i in 0..1000 {
        assert_eq!(s.steal(), Steal::Success(i));
    }
    assert_eq!(s.steal(), Steal::Empty);
    assert!(s.is_empty());
}

#[test]
fn both_ends_meet_in_the_middle() {
    let w = Worker::new();
    let s = w.stealer();
    for i in 0..100 {
        w.push(i);
    }
    for i in 0..50 {
        assert_eq!(s.steal().success(), Some(i));
        assert_eq!(w.pop(), Some(99 - i));
    }
    assert_eq!(w.pop(), None);
    assert!(s.steal().is_empty());
    // Still usable after being emptied from both ends.
    w.push(7);
    assert_eq!(w.len(), 1);
    assert_eq!(s.steal().success(), Some(7));
}

#[test]
fn steal_helpers() {
    assert_eq!(Steal::Success(5).success(), Some(5));
    assert_eq!(Steal::<i32>::Empty.success(), None);
    assert_eq!(Steal::<i32>::Retry.success(), None);
    assert!(Steal::<i32>::Empty.is_empty() && !Steal::<i32>::Empty.is_retry());
    assert!(Steal::<i32>::Retry.is_retry() && !Steal::<i32>::Retry.is_empty());
    assert!(!Steal::Success(1).is_empty() && !Steal::Success(1).is_retry());
}

/// Random pushes, pops and steals checked step by step against `VecDeque`, in phases that push the
/// length up into the thousands and back to zero, so the buffer grows and shrinks many times.
#[test]
fn matches_vecdeque_model_across_resizes() {
    for seed in [1u64, 0x9e37_79b9_7f4a_7c15, 42, 7777] {
        let mut rng = Rng(seed);
        let w = Worker::new();
        let s = w.stealer();
        let mut model = VecDeque::new();
        let mut next = 0u64;
        let (mut max_len, mut drained) = (0, 0);
        for phase in 0..40 {
            let target = if phase % 2 == 0 {
                64 << rng.below(7)
            } else {
                0
            };
            let mut steps = 0;
            while (phase % 2 == 0 && model.len() < target) || (phase % 2 == 1 && !model.is_empty())
            {
                steps += 1;
                assert!(
                    steps < 1_000_000,
                    "seed {seed}: phase {phase} did not converge"
                );
                let growing = phase % 2 == 0;
                let r = rng.below(100);
                if (growing && r < 65) || (!growing && r < 35) {
                    w.push(next);
                    model.push_back(next);
                    next += 1;
                } else if r % 2 == 0 {
                    assert_eq!(w.pop(), model.pop_back(), "seed {seed}: pop mismatch");
                } else {
                    let expected = model.pop_front();
                    match s.steal() {
                        Steal::Success(v) => assert_eq!(Some(v), expected, "seed {seed}: steal"),
                        Steal::Empty => assert_eq!(expected, None, "seed {seed}: steal empty"),
                        Steal::Retry => panic!("seed {seed}: Retry without contention"),
                    }
                }
                assert_eq!(w.len(), model.len(), "seed {seed}: len");
                assert_eq!(s.len(), model.len(), "seed {seed}: stealer len");
            }
            max_len = max_len.max(model.len());
            if phase % 2 == 1 {
                drained += 1;
            }
        }
        assert!(
            max_len >= 1024 && drained == 20,
            "seed {seed}: too few resizes"
        );
        assert_eq!(w.pop(), None);
    }
}

static ZST_DROPS: AtomicUsize = AtomicUsize::new(0);

struct Zst;
impl Drop for Zst {
    fn drop(&mut self) {
        ZST_DROPS.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn zero_sized_items_drop_exactly_once() {
    let w = Worker::new();
    let s = w.stealer();
    for _ in 0..1000 {
        w.push(Zst);
    }
    for _ in 0..100 {
        drop(w.pop().expect("item"));
        drop(s.steal().success().expect("item"));
    }
    assert_eq!(ZST_DROPS.load(Ordering::Relaxed), 200);
    assert_eq!(w.len(), 800);
    drop(w);
    assert_eq!(
        ZST_DROPS.load(Ordering::Relaxed),
        200,
        "a live Stealer keeps the items"
    );
    drop(s);
    assert_eq!(ZST_DROPS.load(Ordering::Relaxed), 1000);
}

/// Records every id dropped, so a double drop or a leak names the item.
static DROPPED_IDS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

struct Big {
    id: u32,
    payload: [u8; 4096],
}

impl Drop for Big {
    fn drop(&mut self) {
        assert!(
            self.payload.iter().all(|&b| b == self.id as u8),
            "corrupted item {}",
            self.id
        );
        DROPPED_IDS.lock().unwrap().push(self.id);
    }
}

#[test]
fn large_items_drop_exactly_once() {
    let n = 700u32; // grows past 512 slots, then shrinks as it drains
    let w = Worker::new();
    let s = w.stealer();
    for id in 0..n {
        w.push(Big {
            id,
            payload: [id as u8; 4096],
        });
    }
    let mut taken = 0;
    for _ in 0..300 {
        drop(w.pop().expect("item"));
        drop(s.steal().success().expect("item"));
        taken += 2;
    }
    drop(s);
    assert_eq!(DROPPED_IDS.lock().unwrap().len(), taken);
    drop(w);
    let mut ids = std::mem::take(&mut *DROPPED_IDS.lock().unwrap());
    ids.sort_unstable();
    assert_eq!(ids, (0..n).collect::<Vec<_>>());
}

static ALIGNED_DROPS: AtomicUsize = AtomicUsize::new(0);

#[repr(align(256))]
struct OverAligned(u64);

impl Drop for OverAligned {
    fn drop(&mut self) {
        assert_eq!(self as *mut Self as usize % 256, 0, "misaligned item");
        ALIGNED_DROPS.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn over_aligned_items_stay_aligned_and_drop_once() {
    let w = Worker::new();
    let s = w.stealer();
    let mut sum = 0;
    for i in 0..500 {
        w.push(OverAligned(i));
    }
    for _ in 0..200 {
        sum += w.pop().expect("item").0;
        sum += s.steal().success().expect("item").0;
    }
    // Pops took 499 down to 300, steals took 0 up to 199.
    assert_eq!(sum, (300..500).chain(0..200).sum::<u64>());
    assert_eq!(ALIGNED_DROPS.load(Ordering::Relaxed), 400);
    drop((w, s));
    assert_eq!(ALIGNED_DROPS.load(Ordering::Relaxed), 500);
}

#[test]
fn send_sync_contract() {
    fn assert_send<T: Send>() {}
    fn assert_sync<T: Sync>() {}
    fn assert_clone<T: Clone>() {}
    assert_send::<Worker<Vec<u8>>>();
    assert_send::<Stealer<Vec<u8>>>();
    assert_sync::<Stealer<Vec<u8>>>();
    assert_clone::<Stealer<Vec<u8>>>();
    // `Worker: !Sync` and `!Clone` are compile_fail doctests on `Worker`.
}
