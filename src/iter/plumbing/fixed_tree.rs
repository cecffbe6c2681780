//! The deterministic driver: a piece reduced over a fixed tree of blocks, whatever the pool.
//!
//! A [`deterministic`](crate::iter::IndexedParallelIterator::deterministic) iterator hands its
//! producer on inside [`with_fixed_tree`], which asks the first bridge that receives a producer on
//! this thread, whatever adaptors wrapped the producer on the way, to reduce over blocks of `B`
//! positions ([`take_fixed_tree`]): the bridge then hands the producer here instead of to the
//! adaptive policy. No adaptor has anything to forward, so a user's producer adaptor after
//! `deterministic()` keeps the guarantee. The positions `[0, len)` fall into
//! `n = ceil(len / B)` blocks `[k·B, min((k+1)·B, len))`, and the result is that of the tree
//!
//! ```text
//! value(range of n blocks) = fold of the range's items, in order, into a fresh consumer   if n <= 1
//!                          = reduce(value(first n/2 blocks), value(the other n - n/2))    otherwise
//! ```
//!
//! (`n / 2` rounds down, so only the last block of the whole input may be short.) The consumer is
//! split exactly at the tree's nodes (`split_off` at the node's midpoint) and each block is folded
//! in one `consume_iter` call, so every partial result, and the order in which the reducers combine
//! them, depends on `len` and `B` alone.
//!
//! Where a node runs is free, and that is where the parallelism comes in:
//!
//! * alone in the pool (`StartAs::Whole`), the tree is a plain recursion: no joins, no polls;
//! * otherwise the top nodes are joins up front (about `current_num_threads()` pieces, as the
//!   adaptive bridge makes), and a piece a thief stole starts such a round again (its pending right
//!   halves are what the next thief takes);
//! * below them every node polls [`some_worker_idle`](sharing::some_worker_idle): while nobody
//!   asks it runs its halves one after the other; when a worker asks and the right half holds at
//!   least [`MIN_OFFER_BLOCKS`] blocks, it joins and offers the right half
//!   ([`join_for_idle_worker`](sharing::join_for_idle_worker), which also publishes this worker's
//!   oldest pending half, the largest). A join computes the same `reduce(left, right)` as the
//!   recursion, so stealing moves work, never the grouping.
//!
//! `with_min_len` and `with_max_len` do not apply here: the block length decides every cut.

use std::cell::Cell;

use crate::iter::plumbing::piece::{fold_whole, Piece};
use crate::iter::plumbing::{LazyConsumer, Reducer};
use crate::platform::sync::thread_local;
use crate::runtime::sharing::{self, StartAs};

/// The smallest right half a node offers to an idle worker: one block of the cheapest items (a
/// few hundred nanoseconds each) is less work than its hand-off (3–4 µs on 2 threads).
const MIN_OFFER_BLOCKS: usize = 2;

thread_local! {
    /// The block length the next producer bridged on this thread is reduced over, 0 for the
    /// adaptive policy (see [`with_fixed_tree`]).
    static FIXED_TREE_BLOCK: Cell<usize> = const { Cell::new(0) };
}

/// Runs `f` (which hands a producer on to its bridge) with the request that the first producer
/// bridged on this thread meanwhile be reduced over the fixed tree of blocks of `block` positions.
/// The request ends with `f`, also when it unwinds, so it never reaches an unrelated call.
pub(crate) fn with_fixed_tree<R>(block: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            FIXED_TREE_BLOCK.set(self.0);
        }
    }
    let _restore = Restore(FIXED_TREE_BLOCK.get());
    FIXED_TREE_BLOCK.set(block);
    f()
}

/// The block length a [`with_fixed_tree`] around this call asked for, 0 for none; taken, so the
/// parallel calls that the bridged items make run adaptively.
#[inline]
pub(crate) fn take_fixed_tree() -> usize {
    let block = FIXED_TREE_BLOCK.get();
    if block != 0 {
        FIXED_TREE_BLOCK.set(0);
    }
    block
}

/// Reduces `piece` into `consumer` over the fixed tree of blocks of `block` positions (see the
/// module doc).
pub(crate) fn bridge_fixed<P, C>(piece: P, consumer: C, block: usize) -> C::Result
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    if piece.len() <= block {
        return fold_whole(piece, consumer);
    }
    match sharing::start_as() {
        StartAs::Whole => sequential(piece, consumer, block),
        StartAs::OneLeaf => node(piece, consumer, block, 0),
        StartAs::SplitUpFront => node(piece, consumer, block, crate::current_num_threads()),
    }
}

/// Where the node of a piece of `len` positions is cut: after the first half of its blocks.
#[inline]
fn midpoint(len: usize, block: usize) -> usize {
    len.div_ceil(block) / 2 * block
}

/// The tree below a node, on the calling thread, with no joins and no polls (nobody can ask).
fn sequential<P, C>(piece: P, consumer: C, block: usize) -> C::Result
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    let len = piece.len();
    if len <= block || consumer.full() {
        return fold_whole(piece, consumer);
    }
    let mid = midpoint(len, block);
    let (left_p, right_p) = piece.split_at(mid);
    let (left_c, right_c, reducer) = consumer.split_off(mid);
    let left = sequential(left_p, left_c, block);
    let right = sequential(right_p, right_c, block);
    reducer.reduce(left, right)
}

/// The tree below a node: joined while `splits > 1` (up front), else joined only when an idle
/// worker asks (see the module doc).
fn node<P, C>(piece: P, consumer: C, block: usize, splits: usize) -> C::Result
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    let len = piece.len();
    if len <= block || consumer.full() {
        return fold_whole(piece, consumer);
    }
    let mid = midpoint(len, block);
    let right_blocks = (len - mid).div_ceil(block);
    let (left_p, right_p) = piece.split_at(mid);
    let (left_c, right_c, reducer) = consumer.split_off(mid);
    let (left, right) = if splits > 1 {
        let home = crate::current_thread_index();
        let below = splits / 2;
        sharing::join_for_split(
            move || node(left_p, left_c, block, below),
            move || {
                node(
                    right_p,
                    right_c,
                    block,
                    again_if_stolen(home, splits - below),
                )
            },
        )
    } else if right_blocks >= MIN_OFFER_BLOCKS && sharing::some_worker_idle() {
        let home = crate::current_thread_index();
        sharing::join_for_idle_worker(
            move || node(left_p, left_c, block, 0),
            move || node(right_p, right_c, block, again_if_stolen(home, 0)),
        )
    } else {
        if right_blocks < MIN_OFFER_BLOCKS && sharing::some_worker_idle() {
            // Too small to offer, but older halves of this tree may wait on this worker's
            // private job stack: publish the oldest.
            sharing::publish_on_heartbeat();
        }
        let left = node(left_p, left_c, block, 0);
        let right = node(right_p, right_c, block, 0);
        (left, right)
    };
    reducer.reduce(left, right)
}

/// The up-front splits of a right half: `splits` if it runs where it was made, a new round for
/// the pool if a thief took it (the others may soon be idle too, and a thief's pending halves are
/// what they will take).
#[inline]
fn again_if_stolen(home: Option<usize>, splits: usize) -> usize {
    if crate::current_thread_index() != home {
        crate::current_num_threads()
    } else {
        splits
    }
}
