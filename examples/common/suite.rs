//! The standard fork-join suite, shared by `examples/suite.rs` (quick side-by-side table) and
//! `benches/suite.rs` (criterion). Every workload exists once per runtime — sequential, forkjoin,
//! rayon, chili, forte — with the same shape, written the way each runtime is meant to be used.
//!
//! - `fib(n)`: a join at every call, no cutoff: pure per-join overhead.
//! - `skynet`: 10^7 leaves, every node forks 10 children, 7 levels deep. forkjoin/rayon use a parallel
//!   iterator over `0..10` per node (many tiny parallel iterators); chili/forte have no iterators and
//!   split `0..10` with a binary join. The answer is the sum of `0..10^7`.
//! - `nqueens(N)`: each column collects its valid placements into a `Vec<[i8; N]>` and sums the
//!   subtrees: a parallel iterator over the `Vec` (forkjoin/rayon), a binary join over its halves
//!   (chili/forte). Irregular tree with a heap allocation per node.
//! - `matmul`: recursive quadrant multiplication of `i32` matrices down to 32x32 leaf kernels, as two
//!   consecutive phases of four independent quadrant products (`scope` + four `spawn`s each;
//!   chili has no scope: a join of two joins). Coarse tasks: measures scaling, not overhead. (forte
//!   1.0.0-alpha.4 shares work only from `join`, so its scope-spawned quadrants never leave the
//!   calling thread.)
//! - `tree_sum`: sum of a binary tree of `Box`ed nodes, a join at every node, walked left-first (the
//!   allocation order) and right-first (against it).
//! - `iter_small` / `iter_sum`: `(0..10).into_par_iter().map(..).sum()` and
//!   `(0..10^8).into_par_iter().sum()` called back to back inside one `install`: the fixed cost of a
//!   parallel iterator call. LLVM folds a range sum into a closed form, so the second is the split
//!   and reduce machinery alone (and the sequential loop is one formula). forkjoin and rayon only.
//! - `tiny_joins`: a flat loop of joins of two trivial closures: the cost of one join when nothing
//!   below it can be shared.
//!
//! Threads: forkjoin and rayon run inside `install` on a pool of `n` workers; chili and forte count the
//! calling thread, so their pools get `n - 1` extra threads (chili's `thread_count`, forte's
//! `resize_to`; forte can only grow, see [`forte_grow`]). chili's and forte's `join` run their *second* closure first when the first is not
//! shared, so their tree walks pass the subtrees swapped to walk the same memory order as the others.
//!
//! Included with `#[path = "..."] mod suite;`; every includer uses a different subset, hence the
//! module-wide `dead_code` allowance.
#![allow(dead_code)]

use std::hint::black_box;

// ---------- pools ----------

pub use workloads::{chili_pool, forkjoin_pool, rayon_pool};

/// forte's pools are statics; the suite uses this one for every thread count.
pub static FORTE: forte::ThreadPool = forte::ThreadPool::new();

/// Sizes [`FORTE`] for `n` threads: the caller (which joins through `FORTE.with_worker`) plus `n - 1`
/// managed workers. Grow only: forte 1.0.0-alpha.4 deadlocks when a populated pool shrinks (the
/// resizing thread joins the heartbeat thread while holding the lock that thread needs to see the halt
/// flag; NthTensor/Forte#37). So callers visit thread counts in ascending order, and from the first
/// `n >= 2` on, forte's heartbeat thread (a wake-up every 100 µs / tenants) runs until the process
/// exits, under every runtime's measurements alike.
///
/// # Panics
///
/// If [`FORTE`] already has more than `n - 1` workers.
pub fn forte_grow(n: usize) {
    let want = n.saturating_sub(1);
    let size = FORTE.resize(|current| current.max(want));
    assert_eq!(
        size, want,
        "forte cannot shrink: visit thread counts in ascending order"
    );
}

// ---------- fib: a join at every call ----------

// The sequential, forkjoin, rayon and chili versions are the ones `benches/join.rs` times too.
#[path = "workloads.rs"]
mod workloads;
pub use workloads::{fib_chili, fib_forkjoin, fib_rayon, fib_seq};

pub fn fib_forte(w: &forte::Worker, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = w.join(|w| fib_forte(w, n - 1), |w| fib_forte(w, n - 2));
    a + b
}

// ---------- skynet: 10 children per node ----------

/// Leaves of the full skynet: 10^7 (7 levels of 10 children).
pub const SKYNET_LEAVES: u64 = 10_000_000;

/// The answer for `leaves` leaves numbered `0..leaves`: their sum.
pub fn skynet_expected(leaves: u64) -> u64 {
    leaves * (leaves - 1) / 2
}

/// Sum of the leaves `base..base + size`; `size` is a power of 10, each node has 10 children of
/// `size / 10` leaves each.
pub fn skynet_seq(base: u64, size: u64) -> u64 {
    if size == 1 {
        return base;
    }
    let offset = size / 10;
    (0..10u64)
        .map(|i| skynet_seq(base + offset * i, offset))
        .sum()
}

pub fn skynet_forkjoin(base: u64, size: u64) -> u64 {
    use forkjoin::prelude::*;
    if size == 1 {
        return base;
    }
    let offset = size / 10;
    (0..10u64)
        .into_par_iter()
        .map(|i| skynet_forkjoin(base + offset * i, offset))
        .sum()
}

pub fn skynet_rayon(base: u64, size: u64) -> u64 {
    use rayon::prelude::*;
    if size == 1 {
        return base;
    }
    let offset = size / 10;
    (0..10u64)
        .into_par_iter()
        .map(|i| skynet_rayon(base + offset * i, offset))
        .sum()
}

pub fn skynet_chili(s: &mut chili::Scope<'_>, base: u64, size: u64) -> u64 {
    if size == 1 {
        return base;
    }
    skynet_children_chili(s, base, size / 10, 0, 10)
}

/// Children `lo..hi` of a chili skynet node, split in halves by join.
fn skynet_children_chili(
    s: &mut chili::Scope<'_>,
    base: u64,
    offset: u64,
    lo: u64,
    hi: u64,
) -> u64 {
    if hi - lo == 1 {
        return skynet_chili(s, base + offset * lo, offset);
    }
    let mid = (lo + hi) / 2;
    let (a, b) = s.join(
        |s| skynet_children_chili(s, base, offset, lo, mid),
        |s| skynet_children_chili(s, base, offset, mid, hi),
    );
    a + b
}

pub fn skynet_forte(w: &forte::Worker, base: u64, size: u64) -> u64 {
    if size == 1 {
        return base;
    }
    skynet_children_forte(w, base, size / 10, 0, 10)
}

/// Children `lo..hi` of a forte skynet node, split in halves by join.
fn skynet_children_forte(w: &forte::Worker, base: u64, offset: u64, lo: u64, hi: u64) -> u64 {
    if hi - lo == 1 {
        return skynet_forte(w, base + offset * lo, offset);
    }
    let mid = (lo + hi) / 2;
    let (a, b) = w.join(
        |w| skynet_children_forte(w, base, offset, lo, mid),
        |w| skynet_children_forte(w, base, offset, mid, hi),
    );
    a + b
}

// ---------- nqueens: a Vec of children per node ----------

/// Number of solutions of the `n`-queens problem, for the sizes the suite uses.
pub fn nqueens_expected(n: usize) -> u64 {
    match n {
        4 => 2,
        6 => 4,
        8 => 92,
        10 => 724,
        12 => 14_200,
        14 => 365_596,
        _ => panic!("no known answer for nqueens({n})"),
    }
}

/// The boards extending `b` (queens in columns `0..x`) with a queen in column `x`, one per row that no
/// earlier queen attacks.
fn nqueens_children<const N: usize>(x: usize, b: &[i8; N]) -> Vec<[i8; N]> {
    let placed = &b[..x];
    (0..N as i8)
        .filter(|&y| {
            placed
                .iter()
                .enumerate()
                .all(|(i, &q)| q != y && (q - y).unsigned_abs() as usize != x - i)
        })
        .map(|y| {
            let mut c = *b;
            c[x] = y;
            c
        })
        .collect()
}

/// Solutions below board `b`, which has queens in columns `0..x`. Start with `(0, [0; N])`.
pub fn nqueens_seq<const N: usize>(x: usize, b: [i8; N]) -> u64 {
    if x == N {
        return 1;
    }
    nqueens_children(x, &b)
        .into_iter()
        .map(|b| nqueens_seq(x + 1, b))
        .sum()
}

pub fn nqueens_forkjoin<const N: usize>(x: usize, b: [i8; N]) -> u64 {
    use forkjoin::prelude::*;
    if x == N {
        return 1;
    }
    nqueens_children(x, &b)
        .into_par_iter()
        .map(|b| nqueens_forkjoin(x + 1, b))
        .sum()
}

pub fn nqueens_rayon<const N: usize>(x: usize, b: [i8; N]) -> u64 {
    use rayon::prelude::*;
    if x == N {
        return 1;
    }
    nqueens_children(x, &b)
        .into_par_iter()
        .map(|b| nqueens_rayon(x + 1, b))
        .sum()
}

pub fn nqueens_chili<const N: usize>(s: &mut chili::Scope<'_>, x: usize, b: [i8; N]) -> u64 {
    if x == N {
        return 1;
    }
    nqueens_slice_chili(s, x + 1, &nqueens_children(x, &b))
}

/// Solutions below each board of `boards` (queens in columns `0..x`), split in halves by join.
fn nqueens_slice_chili<const N: usize>(
    s: &mut chili::Scope<'_>,
    x: usize,
    boards: &[[i8; N]],
) -> u64 {
    match boards {
        [] => 0,
        [b] => nqueens_chili(s, x, *b),
        _ => {
            let (lo, hi) = boards.split_at(boards.len() / 2);
            let (a, b) = s.join(
                |s| nqueens_slice_chili(s, x, lo),
                |s| nqueens_slice_chili(s, x, hi),
            );
            a + b
        }
    }
}

pub fn nqueens_forte<const N: usize>(w: &forte::Worker, x: usize, b: [i8; N]) -> u64 {
    if x == N {
        return 1;
    }
    nqueens_slice_forte(w, x + 1, &nqueens_children(x, &b))
}

/// Solutions below each board of `boards` (queens in columns `0..x`), split in halves by join.
fn nqueens_slice_forte<const N: usize>(w: &forte::Worker, x: usize, boards: &[[i8; N]]) -> u64 {
    match boards {
        [] => 0,
        [b] => nqueens_forte(w, x, *b),
        _ => {
            let (lo, hi) = boards.split_at(boards.len() / 2);
            let (a, b) = w.join(
                |w| nqueens_slice_forte(w, x, lo),
                |w| nqueens_slice_forte(w, x, hi),
            );
            a + b
        }
    }
}

// ---------- matmul: recursive quadrants, two phases of four products ----------
//
// An n x n matrix (n a power of two, at least MM_LEAF) is stored in recursive quadrant order: the
// buffer holds C11, C12, C21, C22 one after the other, each stored the same way, down to MM_LEAF x
// MM_LEAF leaves stored row-major. Every quadrant is then a contiguous quarter of its parent, so
// `split_at_mut` hands out the four disjoint quadrants without `unsafe`, and a leaf kernel reads
// contiguous rows.

/// Side of the leaf blocks, multiplied by the sequential kernel.
pub const MM_LEAF: usize = 32;

/// Index of element `(i, j)` of an `n` x `n` matrix in the recursive quadrant layout.
pub fn mm_index(n: usize, mut i: usize, mut j: usize) -> usize {
    let mut side = n;
    let mut idx = 0;
    while side > MM_LEAF {
        let half = side / 2;
        let quadrant = 2 * usize::from(i >= half) + usize::from(j >= half);
        idx += quadrant * half * half;
        i %= half;
        j %= half;
        side = half;
    }
    idx + i * MM_LEAF + j
}

/// An `n` x `n` matrix in the quadrant layout with small pseudo-random entries in `-8..=8` (products
/// of two stay far from `i32` overflow for any `n` the suite uses).
pub fn mm_matrix(n: usize, seed: u64) -> Vec<i32> {
    assert!(
        n >= MM_LEAF && n.is_power_of_two(),
        "matmul size must be a power of two >= {MM_LEAF}"
    );
    let mut x = seed | 1;
    (0..n * n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 17) as i32 - 8
        })
        .collect()
}

/// Checks `c == a * b` on a sample of `n` entries (one per row, spread over the columns) by direct
/// dot products in row/column coordinates: an independent check of the quadrant recursion.
pub fn mm_spot_check(n: usize, c: &[i32], a: &[i32], b: &[i32]) -> bool {
    (0..n).all(|i| {
        let j = (i * 7 + 3) % n;
        let dot: i32 = (0..n)
            .map(|k| a[mm_index(n, i, k)] * b[mm_index(n, k, j)])
            .sum();
        c[mm_index(n, i, j)] == dot
    })
}

/// `c += a * b` for row-major `MM_LEAF` x `MM_LEAF` blocks.
fn mm_kernel(c: &mut [i32], a: &[i32], b: &[i32]) {
    for (c_row, a_row) in c.chunks_exact_mut(MM_LEAF).zip(a.chunks_exact(MM_LEAF)) {
        for (&a_ik, b_row) in a_row.iter().zip(b.chunks_exact(MM_LEAF)) {
            for (c_ij, &b_kj) in c_row.iter_mut().zip(b_row) {
                *c_ij += a_ik * b_kj;
            }
        }
    }
}

fn quads(m: &[i32]) -> [&[i32]; 4] {
    let q = m.len() / 4;
    let (m1, rest) = m.split_at(q);
    let (m2, rest) = rest.split_at(q);
    let (m3, m4) = rest.split_at(q);
    [m1, m2, m3, m4]
}

fn quads_mut(m: &mut [i32]) -> [&mut [i32]; 4] {
    let q = m.len() / 4;
    let (m1, rest) = m.split_at_mut(q);
    let (m2, rest) = rest.split_at_mut(q);
    let (m3, m4) = rest.split_at_mut(q);
    [m1, m2, m3, m4]
}

/// `c += a * b`, all three in the quadrant layout.
pub fn matmul_seq(c: &mut [i32], a: &[i32], b: &[i32]) {
    if c.len() <= MM_LEAF * MM_LEAF {
        return mm_kernel(c, a, b);
    }
    let [c11, c12, c21, c22] = quads_mut(c);
    let [a11, a12, a21, a22] = quads(a);
    let [b11, b12, b21, b22] = quads(b);
    matmul_seq(c11, a11, b11);
    matmul_seq(c12, a11, b12);
    matmul_seq(c21, a21, b11);
    matmul_seq(c22, a21, b12);
    matmul_seq(c11, a12, b21);
    matmul_seq(c12, a12, b22);
    matmul_seq(c21, a22, b21);
    matmul_seq(c22, a22, b22);
}

pub fn matmul_forkjoin(c: &mut [i32], a: &[i32], b: &[i32]) {
    if c.len() <= MM_LEAF * MM_LEAF {
        return mm_kernel(c, a, b);
    }
    let [c11, c12, c21, c22] = quads_mut(c);
    let [a11, a12, a21, a22] = quads(a);
    let [b11, b12, b21, b22] = quads(b);
    forkjoin::scope(|s| {
        s.spawn(|_| matmul_forkjoin(c11, a11, b11));
        s.spawn(|_| matmul_forkjoin(c12, a11, b12));
        s.spawn(|_| matmul_forkjoin(c21, a21, b11));
        s.spawn(|_| matmul_forkjoin(c22, a21, b12));
    });
    forkjoin::scope(|s| {
        s.spawn(|_| matmul_forkjoin(c11, a12, b21));
        s.spawn(|_| matmul_forkjoin(c12, a12, b22));
        s.spawn(|_| matmul_forkjoin(c21, a22, b21));
        s.spawn(|_| matmul_forkjoin(c22, a22, b22));
    });
}

pub fn matmul_rayon(c: &mut [i32], a: &[i32], b: &[i32]) {
    if c.len() <= MM_LEAF * MM_LEAF {
        return mm_kernel(c, a, b);
    }
    let [c11, c12, c21, c22] = quads_mut(c);
    let [a11, a12, a21, a22] = quads(a);
    let [b11, b12, b21, b22] = quads(b);
    rayon::scope(|s| {
        s.spawn(|_| matmul_rayon(c11, a11, b11));
        s.spawn(|_| matmul_rayon(c12, a11, b12));
        s.spawn(|_| matmul_rayon(c21, a21, b11));
        s.spawn(|_| matmul_rayon(c22, a21, b12));
    });
    rayon::scope(|s| {
        s.spawn(|_| matmul_rayon(c11, a12, b21));
        s.spawn(|_| matmul_rayon(c12, a12, b22));
        s.spawn(|_| matmul_rayon(c21, a22, b21));
        s.spawn(|_| matmul_rayon(c22, a22, b22));
    });
}

/// chili has no scope: each phase is a join of two joins.
pub fn matmul_chili(s: &mut chili::Scope<'_>, c: &mut [i32], a: &[i32], b: &[i32]) {
    if c.len() <= MM_LEAF * MM_LEAF {
        return mm_kernel(c, a, b);
    }
    let [c11, c12, c21, c22] = quads_mut(c);
    let [a11, a12, a21, a22] = quads(a);
    let [b11, b12, b21, b22] = quads(b);
    s.join(
        |s| {
            s.join(
                |s| matmul_chili(s, c11, a11, b11),
                |s| matmul_chili(s, c12, a11, b12),
            )
        },
        |s| {
            s.join(
                |s| matmul_chili(s, c21, a21, b11),
                |s| matmul_chili(s, c22, a21, b12),
            )
        },
    );
    s.join(
        |s| {
            s.join(
                |s| matmul_chili(s, c11, a12, b21),
                |s| matmul_chili(s, c12, a12, b22),
            )
        },
        |s| {
            s.join(
                |s| matmul_chili(s, c21, a22, b21),
                |s| matmul_chili(s, c22, a22, b22),
            )
        },
    );
}

/// forte's scope hands its jobs a `Scope`, not a `Worker`, so the recursion uses the thread's current
/// worker (`forte::scope`): call it inside `FORTE.with_worker`. forte 1.0.0-alpha.4 shares work only
/// from `join` (the heartbeat check lives there), so spawned jobs stay on the spawning thread.
pub fn matmul_forte(c: &mut [i32], a: &[i32], b: &[i32]) {
    if c.len() <= MM_LEAF * MM_LEAF {
        return mm_kernel(c, a, b);
    }
    let [c11, c12, c21, c22] = quads_mut(c);
    let [a11, a12, a21, a22] = quads(a);
    let [b11, b12, b21, b22] = quads(b);
    forte::scope(|s| {
        s.spawn(|_| matmul_forte(c11, a11, b11));
        s.spawn(|_| matmul_forte(c12, a11, b12));
        s.spawn(|_| matmul_forte(c21, a21, b11));
        s.spawn(|_| matmul_forte(c22, a21, b12));
    });
    forte::scope(|s| {
        s.spawn(|_| matmul_forte(c11, a12, b21));
        s.spawn(|_| matmul_forte(c12, a12, b22));
        s.spawn(|_| matmul_forte(c21, a22, b21));
        s.spawn(|_| matmul_forte(c22, a22, b22));
    });
}

// ---------- tree sum: a join at every heap node ----------

pub use workloads::Node;

/// The subtree walked first and the one walked second. The tree is [`Node::tree`] of
/// `examples/common/workloads.rs`: allocated in pre-order (parent, left subtree, right subtree), so a
/// left-first walk visits memory in allocation order.
fn order<const LEFT_FIRST: bool>(n: &Node) -> (Option<&Node>, Option<&Node>) {
    if LEFT_FIRST {
        (n.left.as_deref(), n.right.as_deref())
    } else {
        (n.right.as_deref(), n.left.as_deref())
    }
}

pub fn tree_sum_seq<const LEFT_FIRST: bool>(n: &Node) -> u64 {
    let (first, second) = order::<LEFT_FIRST>(n);
    let a = first.map_or(0, tree_sum_seq::<LEFT_FIRST>);
    let b = second.map_or(0, tree_sum_seq::<LEFT_FIRST>);
    n.val + a + b
}

pub fn tree_sum_forkjoin<const LEFT_FIRST: bool>(n: &Node) -> u64 {
    let (first, second) = order::<LEFT_FIRST>(n);
    let (a, b) = forkjoin::join(
        || first.map_or(0, tree_sum_forkjoin::<LEFT_FIRST>),
        || second.map_or(0, tree_sum_forkjoin::<LEFT_FIRST>),
    );
    n.val + a + b
}

pub fn tree_sum_rayon<const LEFT_FIRST: bool>(n: &Node) -> u64 {
    let (first, second) = order::<LEFT_FIRST>(n);
    let (a, b) = rayon::join(
        || first.map_or(0, tree_sum_rayon::<LEFT_FIRST>),
        || second.map_or(0, tree_sum_rayon::<LEFT_FIRST>),
    );
    n.val + a + b
}

/// chili runs the second closure first (when it does not share the first), so the subtree to walk
/// first goes second.
pub fn tree_sum_chili<const LEFT_FIRST: bool>(s: &mut chili::Scope<'_>, n: &Node) -> u64 {
    let (first, second) = order::<LEFT_FIRST>(n);
    let (b, a) = s.join(
        |s| second.map_or(0, |c| tree_sum_chili::<LEFT_FIRST>(s, c)),
        |s| first.map_or(0, |c| tree_sum_chili::<LEFT_FIRST>(s, c)),
    );
    n.val + a + b
}

/// forte, like chili, runs the second closure first: the subtree to walk first goes second.
pub fn tree_sum_forte<const LEFT_FIRST: bool>(w: &forte::Worker, n: &Node) -> u64 {
    let (first, second) = order::<LEFT_FIRST>(n);
    let (b, a) = w.join(
        |w| second.map_or(0, |c| tree_sum_forte::<LEFT_FIRST>(w, c)),
        |w| first.map_or(0, |c| tree_sum_forte::<LEFT_FIRST>(w, c)),
    );
    n.val + a + b
}

// ---------- parallel iterator calls, back to back ----------

/// What one `iter_small` call returns: `3 * (0 + 1 + ... + 9)`.
pub const ITER_SMALL_EXPECTED: u64 = 135;

/// `calls` calls of the 10-item map+sum; returns the total of their results. Run forkjoin's and
/// rayon's inside `install`, so the loop itself is on a pool thread.
pub fn iter_small_seq(calls: u64) -> u64 {
    let mut total = 0;
    for _ in 0..calls {
        total += (0..10u64).map(|x| black_box(x) * 3).sum::<u64>();
    }
    total
}

pub fn iter_small_forkjoin(calls: u64) -> u64 {
    use forkjoin::prelude::*;
    let mut total = 0;
    for _ in 0..calls {
        total += (0..10u64)
            .into_par_iter()
            .map(|x| black_box(x) * 3)
            .sum::<u64>();
    }
    total
}

pub fn iter_small_rayon(calls: u64) -> u64 {
    use rayon::prelude::*;
    let mut total = 0;
    for _ in 0..calls {
        total += (0..10u64)
            .into_par_iter()
            .map(|x| black_box(x) * 3)
            .sum::<u64>();
    }
    total
}

/// Length of the `iter_sum` range.
pub const ITER_SUM_N: u64 = 100_000_000;

/// `calls` sums of `0..n`; returns the wrapping total of their results (each is `n (n - 1) / 2`).
pub fn iter_sum_seq(calls: u64, n: u64) -> u64 {
    let mut total = 0u64;
    for _ in 0..calls {
        total = total.wrapping_add((0..black_box(n)).sum::<u64>());
    }
    total
}

pub fn iter_sum_forkjoin(calls: u64, n: u64) -> u64 {
    use forkjoin::prelude::*;
    let mut total = 0u64;
    for _ in 0..calls {
        total = total.wrapping_add((0..black_box(n)).into_par_iter().sum::<u64>());
    }
    total
}

pub fn iter_sum_rayon(calls: u64, n: u64) -> u64 {
    use rayon::prelude::*;
    let mut total = 0u64;
    for _ in 0..calls {
        total = total.wrapping_add((0..black_box(n)).into_par_iter().sum::<u64>());
    }
    total
}

// ---------- a flat loop of tiny joins ----------

/// What the `tiny_joins` loops return for `n` joins: each join yields `(i, i)`.
pub fn tiny_joins_expected(n: u64) -> u64 {
    n * (n - 1)
}

pub fn tiny_joins_seq(n: u64) -> u64 {
    let mut total = 0;
    for i in 0..n {
        let (a, b) = (black_box(i), black_box(i));
        total += a + b;
    }
    total
}

/// Run inside `install`.
pub fn tiny_joins_forkjoin(n: u64) -> u64 {
    let mut total = 0;
    for i in 0..n {
        let (a, b) = forkjoin::join(|| black_box(i), || black_box(i));
        total += a + b;
    }
    total
}

/// Run inside `install`.
pub fn tiny_joins_rayon(n: u64) -> u64 {
    let mut total = 0;
    for i in 0..n {
        let (a, b) = rayon::join(|| black_box(i), || black_box(i));
        total += a + b;
    }
    total
}

pub fn tiny_joins_chili(s: &mut chili::Scope<'_>, n: u64) -> u64 {
    let mut total = 0;
    for i in 0..n {
        let (a, b) = s.join(|_| black_box(i), |_| black_box(i));
        total += a + b;
    }
    total
}

pub fn tiny_joins_forte(w: &forte::Worker, n: u64) -> u64 {
    let mut total = 0;
    for i in 0..n {
        let (a, b) = w.join(|_| black_box(i), |_| black_box(i));
        total += a + b;
    }
    total
}
