//! Workloads and pools shared by `benches/{join,iter,sort}.rs`, `examples/join_overhead.rs` and
//! `examples/quicksort.rs`, so the criterion numbers and the docs tables time exactly the same code.
//! Each workload exists once per runtime (sequential, forkjoin, rayon, chili) with an identical shape.
//!
//! Included with `#[path = "..."] mod workloads;` (a subfolder without `main.rs` is not auto-discovered
//! as an example). Every includer uses a different subset, hence the module-wide `dead_code` allowance.
#![allow(dead_code)]

use std::num::NonZeroUsize;

// ---------- fib: a join at every level ----------

pub fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

pub fn fib_forkjoin(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = forkjoin::join(|| fib_forkjoin(n - 1), || fib_forkjoin(n - 2));
    a + b
}

pub fn fib_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

pub fn fib_chili(s: &mut chili::Scope<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = s.join(|s| fib_chili(s, n - 1), |s| fib_chili(s, n - 2));
    a + b
}

// ---------- tree sum: a join at every heap node (chili's benchmark) ----------

pub struct Node {
    pub val: u64,
    pub left: Option<Box<Node>>,
    pub right: Option<Box<Node>>,
}

impl Node {
    /// A full tree of `layers` levels, allocated in pre-order (parent, left subtree, right subtree),
    /// so the left-first traversal every contender does below walks memory in address order.
    pub fn tree(layers: u32) -> Box<Node> {
        let mut node = Box::new(Node {
            val: 1,
            left: None,
            right: None,
        });
        if layers > 1 {
            node.left = Some(Node::tree(layers - 1));
            node.right = Some(Node::tree(layers - 1));
        }
        node
    }
}

pub fn sum_seq(n: &Node) -> u64 {
    n.val + n.left.as_deref().map_or(0, sum_seq) + n.right.as_deref().map_or(0, sum_seq)
}

pub fn sum_forkjoin(n: &Node) -> u64 {
    let (l, r) = forkjoin::join(
        || n.left.as_deref().map_or(0, sum_forkjoin),
        || n.right.as_deref().map_or(0, sum_forkjoin),
    );
    n.val + l + r
}

pub fn sum_rayon(n: &Node) -> u64 {
    let (l, r) = rayon::join(
        || n.left.as_deref().map_or(0, sum_rayon),
        || n.right.as_deref().map_or(0, sum_rayon),
    );
    n.val + l + r
}

/// chili's join runs its second closure first when it does not share the work (its common path), so
/// the subtrees are passed swapped: chili then walks left-first like the others. Same memory order for
/// every contender; otherwise the traversal order, not the join, dominates the difference.
pub fn sum_chili(s: &mut chili::Scope<'_>, n: &Node) -> u64 {
    let (r, l) = s.join(
        |s| n.right.as_deref().map_or(0, |c| sum_chili(s, c)),
        |s| n.left.as_deref().map_or(0, |c| sum_chili(s, c)),
    );
    n.val + l + r
}

// ---------- quicksort: join on the partitions ----------

/// Partitions shorter than this are sorted sequentially by the parallel quicksorts below.
pub const QS_CUTOFF: usize = 2048;

/// Marsaglia's xorshift64: small, seeded, good enough for test data. `seed` must be non-zero.
pub fn random_data(len: usize, mut seed: u64) -> Vec<u32> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 32) as u32
        })
        .collect()
}

fn insertion_sort(v: &mut [u32]) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// Hoare partition around the median of three; returns `mid` with `v[..mid] <= pivot <= v[mid..]`,
/// both sides non-empty (needs `v.len() >= 2`). Equal keys split evenly, so duplicates do not degrade it.
pub fn partition(v: &mut [u32]) -> usize {
    let len = v.len();
    let (a, b, c) = (v[0], v[len / 2], v[len - 1]);
    let pivot = a.max(b).min(a.min(b).max(c));
    let (mut i, mut j) = (0usize, len - 1);
    loop {
        while v[i] < pivot {
            i += 1;
        }
        while v[j] > pivot {
            j -= 1;
        }
        if i >= j {
            return j + 1;
        }
        v.swap(i, j);
        i += 1;
        j -= 1;
    }
}

/// Sequential quicksort; insertion sort at 16 elements or fewer.
pub fn qs_seq(v: &mut [u32]) {
    if v.len() <= 16 {
        insertion_sort(v);
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    qs_seq(lo);
    qs_seq(hi);
}

pub fn qs_forkjoin(v: &mut [u32]) {
    if v.len() < QS_CUTOFF {
        return qs_seq(v);
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    forkjoin::join(|| qs_forkjoin(lo), || qs_forkjoin(hi));
}

pub fn qs_rayon(v: &mut [u32]) {
    if v.len() < QS_CUTOFF {
        return qs_seq(v);
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    rayon::join(|| qs_rayon(lo), || qs_rayon(hi));
}

pub fn qs_chili(s: &mut chili::Scope<'_>, v: &mut [u32]) {
    if v.len() < QS_CUTOFF {
        return qs_seq(v);
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    s.join(|s| qs_chili(s, lo), |s| qs_chili(s, hi));
}

// ---------- dedicated pools of `n` threads ----------

pub fn forkjoin_pool(n: usize) -> forkjoin::ThreadPool {
    forkjoin::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("forkjoin pool")
}

pub fn rayon_pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("rayon pool")
}

/// A forkjoin and a rayon pool of 1 and of 2 threads, for the benches that compare the two
/// (`benches/iter.rs`, `benches/sort.rs`).
pub fn forkjoin_and_rayon_pools() -> Vec<(usize, forkjoin::ThreadPool, rayon::ThreadPool)> {
    [1, 2]
        .into_iter()
        .map(|t| (t, forkjoin_pool(t), rayon_pool(t)))
        .collect()
}

/// chili counts the calling thread: `thread_count` n = caller + (n - 1) workers.
pub fn chili_pool(n: usize) -> chili::ThreadPool {
    chili::ThreadPool::with_config(chili::Config {
        thread_count: NonZeroUsize::new(n),
        ..Default::default()
    })
}
