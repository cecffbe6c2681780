//! `unzip`, `partition`, `partition_map` and collecting or extending into pairs of collections.
//!
//! Both destinations are fed while the input splits, as in rayon: each destination's
//! [`ParallelExtend`] is handed a stand-in iterator ([`UnzipA`], then [`UnzipB`]) whose only job is
//! to capture the consumer that `par_extend` drives it with. With both consumers in hand, the input
//! is driven once with an [`UnzipConsumer`] holding the pair; every piece of the input splits both
//! consumers at the same positions and folds its items into both sides. No vector of all the items
//! is made: within a batch, a piece takes up to [`chunk_len`] items at a time. For `unzip` the left
//! consumer folds their left halves straight from the input while their right halves are parked
//! in a small buffer ([`Parker`]), which the right consumer then takes; otherwise the items are
//! sorted into two small buffers, one per side, and each buffer goes to its consumer.
//!
//! For `unzip` every item feeds both sides, so an indexed input keeps its length on both sides
//! (a `Vec` destination is then written in place); `partition` and `partition_map` send each item
//! to one side only, so their sides have no known length.

use std::mem::ManuallyDrop;

use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Reducer};
use crate::iter::{
    Either, FromParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator,
};

/// The most items a piece sorts into its two buffers before it hands them on: 256, or fewer if
/// their halves would take more than 32 KiB.
const fn chunk_len<A, B>() -> usize {
    let size = std::mem::size_of::<A>() + std::mem::size_of::<B>();
    if size == 0 {
        256
    } else if 32 * 1024 / size < 16 {
        16
    } else if 32 * 1024 / size > 256 {
        256
    } else {
        32 * 1024 / size
    }
}

/// Where one item of the input goes.
#[derive(Debug)]
pub(in crate::iter) enum Sides<A, B> {
    /// To both sides (`unzip`).
    Both(A, B),
    /// To the left side only.
    Left(A),
    /// To the right side only.
    Right(B),
}

/// How the items of the input are split between the two sides.
pub(in crate::iter) trait UnzipOp<T>: Sync + Send {
    /// The items of the left side.
    type Left: Send;
    /// The items of the right side.
    type Right: Send;
    /// True if every item feeds both sides, so each side has the input's length.
    const BOTH: bool;
    /// Where `item` goes.
    fn split(&self, item: T) -> Sides<Self::Left, Self::Right>;
}

/// `unzip`: a pair feeds both sides.
#[derive(Debug)]
struct Unzip;

impl<A: Send, B: Send> UnzipOp<(A, B)> for Unzip {
    type Left = A;
    type Right = B;
    const BOTH: bool = true;
    #[inline]
    fn split(&self, (a, b): (A, B)) -> Sides<A, B> {
        Sides::Both(a, b)
    }
}

/// `partition`: the items for which the predicate holds go left.
struct Partition<P>(P);

impl<P> std::fmt::Debug for Partition<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Partition")
    }
}

impl<T: Send, P: Fn(&T) -> bool + Sync + Send> UnzipOp<T> for Partition<P> {
    type Left = T;
    type Right = T;
    const BOTH: bool = false;
    #[inline]
    fn split(&self, item: T) -> Sides<T, T> {
        if (self.0)(&item) {
            Sides::Left(item)
        } else {
            Sides::Right(item)
        }
    }
}

/// `partition_map` (and collecting `Either`s): the side of the `Either`.
#[derive(Debug)]
struct SplitEither;

impl<L: Send, R: Send> UnzipOp<Either<L, R>> for SplitEither {
    type Left = L;
    type Right = R;
    const BOTH: bool = false;
    #[inline]
    fn split(&self, item: Either<L, R>) -> Sides<L, R> {
        match item {
            Either::Left(l) => Sides::Left(l),
            Either::Right(r) => Sides::Right(r),
        }
    }
}

/// Appends the left and right halves of the pairs of `par_iter` to `left` and `right`, in order.
pub(in crate::iter) fn unzip_into<I, A, B, FromA, FromB>(
    par_iter: I,
    left: &mut FromA,
    right: &mut FromB,
) where
    I: ParallelIterator<Item = (A, B)>,
    A: Send,
    B: Send,
    FromA: Send + ParallelExtend<A>,
    FromB: Send + ParallelExtend<B>,
{
    execute(par_iter, &Unzip, left, right);
}

/// Appends the items of `par_iter` for which `predicate` holds to `yes`, the others to `no`.
pub(in crate::iter) fn partition_into<I, P, A, B>(
    par_iter: I,
    predicate: P,
    yes: &mut A,
    no: &mut B,
) where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
    A: Send + ParallelExtend<I::Item>,
    B: Send + ParallelExtend<I::Item>,
{
    execute(par_iter, &Partition(predicate), yes, no);
}

/// Appends the `Left` values of `par_iter` to `left` and the `Right` values to `right`, in order.
pub(in crate::iter) fn split_eithers_into<I, L, R, A, B>(par_iter: I, left: &mut A, right: &mut B)
where
    I: ParallelIterator<Item = Either<L, R>>,
    L: Send,
    R: Send,
    A: Send + ParallelExtend<L>,
    B: Send + ParallelExtend<R>,
{
    execute(par_iter, &SplitEither, left, right);
}

/// Feeds the two sides of `base`'s items (split by `op`) to `left` and `right`.
fn execute<I, OP, FromA, FromB>(base: I, op: &OP, left: &mut FromA, right: &mut FromB)
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    FromA: Send + ParallelExtend<OP::Left>,
    FromB: Send + ParallelExtend<OP::Right>,
{
    left.par_extend(UnzipA { base, op, right });
}

/// The left side's stand-in iterator: `left.par_extend` drives it with the left consumer, which it
/// passes on to `right.par_extend` inside an [`UnzipB`].
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
struct UnzipA<'r, 'o, I, OP, FromB> {
    base: I,
    op: &'o OP,
    right: &'r mut FromB,
}

impl<I, OP, FromB> std::fmt::Debug for UnzipA<'_, '_, I, OP, FromB> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UnzipA")
    }
}

impl<I, OP, FromB> ParallelIterator for UnzipA<'_, '_, I, OP, FromB>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    FromB: Send + ParallelExtend<OP::Right>,
{
    type Item = OP::Left;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<OP::Left>>(self, left: C) -> C::Result {
        let mut left_result = None;
        self.right.par_extend(UnzipB {
            base: self.base,
            op: self.op,
            left,
            left_result: &mut left_result,
        });
        left_result.expect("the right side's `par_extend` did not drive its iterator")
    }

    fn opt_len(&self) -> Option<usize> {
        if OP::BOTH {
            self.base.opt_len()
        } else {
            None
        }
    }
}

/// The right side's stand-in iterator: `right.par_extend` drives it with the right consumer; it then
/// drives the input with both consumers and keeps the left result for [`UnzipA`].
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
struct UnzipB<'r, 'o, I, OP, CA>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    CA: LazyConsumer<OP::Left>,
{
    base: I,
    op: &'o OP,
    left: CA,
    left_result: &'r mut Option<CA::Result>,
}

impl<I, OP, CA> std::fmt::Debug for UnzipB<'_, '_, I, OP, CA>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    CA: LazyConsumer<OP::Left>,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UnzipB")
    }
}

impl<I, OP, CA> ParallelIterator for UnzipB<'_, '_, I, OP, CA>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    CA: LazyConsumer<OP::Left>,
{
    type Item = OP::Right;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<OP::Right>>(self, right: C) -> C::Result {
        let (left, right) = self.base.drive_lazy(UnzipConsumer {
            op: self.op,
            left: self.left,
            right,
            lefts: Vec::new(),
            rights: Vec::new(),
        });
        *self.left_result = Some(left);
        right
    }

    fn opt_len(&self) -> Option<usize> {
        if OP::BOTH {
            self.base.opt_len()
        } else {
            None
        }
    }
}

/// Moves up to `chunk` items of `iter` to the side(s) `op` picks, in order, appending them to the
/// empty `lefts` and `rights`; returns true if `iter` ran out. A loop of its own, apart from the
/// consumers, that writes through raw pointers with the counts in locals, so that the iterator's
/// state and the counts stay in registers.
#[inline]
fn sort_chunk<T, OP: UnzipOp<T>, I: Iterator<Item = T>>(
    op: &OP,
    iter: &mut I,
    lefts: &mut Vec<OP::Left>,
    rights: &mut Vec<OP::Right>,
    chunk: usize,
) -> bool {
    debug_assert!(lefts.is_empty() && rights.is_empty());
    let want = iter.size_hint().1.unwrap_or(chunk).clamp(1, chunk);
    lefts.reserve(want);
    rights.reserve(want);
    let room = want.min(lefts.capacity()).min(rights.capacity());
    let (pa, pb) = (lefts.as_mut_ptr(), rights.as_mut_ptr());
    let mut lefts = Filled { vec: lefts, len: 0 };
    let mut rights = Filled {
        vec: rights,
        len: 0,
    };
    let mut taken = 0;
    while taken < room {
        let Some(item) = iter.next() else {
            return true;
        };
        taken += 1;
        // Each buffer has room for `room` items and gets at most one per item taken, so
        // `len < room <= capacity` before each write below; the slot is past the vector's length,
        // so nothing is overwritten. `Filled` makes the written items the vector's (sets its
        // length) when it is dropped, also if `split` or `next` panics, so every item written is
        // dropped exactly once.
        match op.split(item) {
            // SAFETY: `lefts.len` and `rights.len` are below `room`, within capacity (see above).
            Sides::Both(a, b) => unsafe {
                pa.add(lefts.len).write(a);
                lefts.len += 1;
                pb.add(rights.len).write(b);
                rights.len += 1;
            },
            // SAFETY: `lefts.len < room`, within capacity (see above).
            Sides::Left(a) => unsafe {
                pa.add(lefts.len).write(a);
                lefts.len += 1;
            },
            // SAFETY: `rights.len < room`, within capacity (see above).
            Sides::Right(b) => unsafe {
                pb.add(rights.len).write(b);
                rights.len += 1;
            },
        }
    }
    false
}

/// An empty vector being written past its length: `len` items written so far, which become the
/// vector's when this is dropped.
struct Filled<'v, X> {
    vec: &'v mut Vec<X>,
    len: usize,
}

impl<X> Drop for Filled<'_, X> {
    fn drop(&mut self) {
        // SAFETY: the writer initialised exactly the first `len` slots (within the capacity) of
        // the empty vector, and nothing else owns them.
        unsafe { self.vec.set_len(self.len) };
    }
}

/// What a [`Parker`] hands back when it is dropped.
struct Back<I> {
    /// The input, between two chunks.
    iter: Option<I>,
    /// How many items the last chunk took.
    taken: usize,
    /// True once the input ran out.
    exhausted: bool,
}

/// For `unzip`: the iterator a piece's left consumer folds. It yields the left halves of up to
/// `room` items of the input, which it owns meanwhile (so that the input's state stays in
/// registers), and writes their right halves past the end of the empty `rights`; when dropped, it
/// makes those the vector's items and hands the input back.
struct Parker<'h, T, OP: UnzipOp<T>, I> {
    op: &'h OP,
    /// Invariant: initialised until `Drop` moves it to `back`.
    iter: ManuallyDrop<I>,
    room: usize,
    taken: usize,
    /// Start of `rights`' buffer, with room for `room` items.
    pb: *mut OP::Right,
    parked: usize,
    exhausted: bool,
    rights: &'h mut Vec<OP::Right>,
    back: &'h mut Back<I>,
}

impl<T, OP: UnzipOp<T>, I: Iterator<Item = T>> Iterator for Parker<'_, T, OP, I> {
    type Item = OP::Left;

    #[inline]
    fn next(&mut self) -> Option<OP::Left> {
        loop {
            if self.taken == self.room {
                return None;
            }
            let Some(item) = self.iter.next() else {
                self.exhausted = true;
                return None;
            };
            self.taken += 1;
            match self.op.split(item) {
                Sides::Both(a, b) => {
                    // SAFETY: `parked <= taken - 1 < room <= rights.capacity()`, and the slot is
                    // past `rights`' length (0), so nothing is overwritten; `Drop` makes the
                    // `parked` written items the vector's, so each is dropped exactly once.
                    unsafe { self.pb.add(self.parked).write(b) };
                    self.parked += 1;
                    return Some(a);
                }
                Sides::Left(a) => return Some(a),
                Sides::Right(b) => {
                    // SAFETY: as above.
                    unsafe { self.pb.add(self.parked).write(b) };
                    self.parked += 1;
                }
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (lo, hi) = self.iter.size_hint();
        let left = self.room - self.taken;
        let lo = if OP::BOTH { lo.min(left) } else { 0 };
        (lo, Some(hi.map_or(left, |hi| hi.min(left))))
    }
}

impl<T, OP: UnzipOp<T>, I> Drop for Parker<'_, T, OP, I> {
    fn drop(&mut self) {
        // SAFETY: `rights` was empty and its first `parked` slots (within its capacity) were
        // written by `next`; nothing else owns those items.
        unsafe { self.rights.set_len(self.parked) };
        // SAFETY: `iter` is initialised (field invariant) and never used again.
        self.back.iter = Some(unsafe { ManuallyDrop::take(&mut self.iter) });
        self.back.taken = self.taken;
        self.back.exhausted = self.exhausted;
    }
}

/// The pair of consumers the input is driven with: every split splits both at the same position,
/// every item goes to the side(s) `op` picks.
struct UnzipConsumer<'o, OP, CA, CB, A, B> {
    op: &'o OP,
    left: CA,
    right: CB,
    /// Left and right halves of a chunk on their way to the consumers (empty between chunks; kept
    /// for their allocations).
    lefts: Vec<A>,
    rights: Vec<B>,
}

impl<OP, CA, CB, A, B> std::fmt::Debug for UnzipConsumer<'_, OP, CA, CB, A, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UnzipConsumer")
    }
}

/// `consume_iter` for `unzip`: the left consumer folds each chunk's left halves straight from
/// the input (through a [`Parker`]), the right consumer then takes the parked right halves.
fn consume_pairs<'o, T, OP, CA, CB, I>(
    mut this: UnzipConsumer<'o, OP, CA, CB, OP::Left, OP::Right>,
    iter: I,
    chunk: usize,
) -> UnzipConsumer<'o, OP, CA, CB, OP::Left, OP::Right>
where
    OP: UnzipOp<T>,
    CA: LazyConsumer<OP::Left>,
    CB: LazyConsumer<OP::Right>,
    I: Iterator<Item = T>,
{
    let mut back = Back {
        iter: Some(iter),
        taken: 0,
        exhausted: false,
    };
    loop {
        let Some(iter) = back.iter.take() else {
            // The left consumer kept the chunk's iterator (leaked it): nothing more to feed.
            return this;
        };
        let want = iter.size_hint().1.unwrap_or(chunk).clamp(1, chunk);
        debug_assert!(this.rights.is_empty());
        this.rights.reserve(want);
        let parker = Parker {
            op: this.op,
            iter: ManuallyDrop::new(iter),
            room: want.min(this.rights.capacity()),
            taken: 0,
            pb: this.rights.as_mut_ptr(),
            parked: 0,
            exhausted: false,
            rights: &mut this.rights,
            back: &mut back,
        };
        this.left = this.left.consume_iter(parker);
        if back.taken == 0 && !back.exhausted {
            // The left consumer took nothing: sort a chunk through the buffers instead.
            let Some(iter) = back.iter.as_mut() else {
                return this;
            };
            back.exhausted = sort_chunk(this.op, iter, &mut this.lefts, &mut this.rights, chunk);
            this.left = this.left.consume_iter(this.lefts.drain(..));
        }
        this.right = this.right.consume_iter(this.rights.drain(..));
        if back.exhausted || this.full() {
            return this;
        }
    }
}

impl<'o, T, OP, CA, CB> LazyConsumer<T> for UnzipConsumer<'o, OP, CA, CB, OP::Left, OP::Right>
where
    OP: UnzipOp<T>,
    CA: LazyConsumer<OP::Left>,
    CB: LazyConsumer<OP::Right>,
{
    type Result = (CA::Result, CB::Result);
    type Reducer = UnzipReducer<CA::Reducer, CB::Reducer>;

    fn consume_iter<I: Iterator<Item = T>>(mut self, iter: I) -> Self {
        let chunk = chunk_len::<OP::Left, OP::Right>();
        if OP::BOTH {
            return consume_pairs(self, iter.fuse(), chunk);
        }
        let mut iter = iter.fuse();
        loop {
            // Up to `chunk` items sorted into the two buffers, then each buffer to its consumer.
            let exhausted =
                sort_chunk(self.op, &mut iter, &mut self.lefts, &mut self.rights, chunk);
            self.left = self.left.consume_iter(self.lefts.drain(..));
            self.right = self.right.consume_iter(self.rights.drain(..));
            if exhausted || self.full() {
                return self;
            }
        }
    }

    fn split_off(self, keep: usize) -> (Self, Self, Self::Reducer) {
        let (left_a, right_a, reducer_a) = self.left.split_off(keep);
        let (left_b, right_b, reducer_b) = self.right.split_off(keep);
        (
            UnzipConsumer {
                op: self.op,
                left: left_a,
                right: left_b,
                lefts: self.lefts,
                rights: self.rights,
            },
            UnzipConsumer {
                op: self.op,
                left: right_a,
                right: right_b,
                lefts: Vec::new(),
                rights: Vec::new(),
            },
            UnzipReducer(reducer_a, reducer_b),
        )
    }

    fn complete(self) -> Self::Result {
        (self.left.complete(), self.right.complete())
    }

    fn full(&self) -> bool {
        self.left.full() && self.right.full()
    }

    fn prefers_end(&self) -> bool {
        self.left.prefers_end() && self.right.prefers_end()
    }
    const CAN_PREFER_END: bool = CA::CAN_PREFER_END && CB::CAN_PREFER_END;
}

/// Reduces both sides' results.
#[derive(Debug)]
struct UnzipReducer<RA, RB>(RA, RB);

impl<A, B, RA: Reducer<A>, RB: Reducer<B>> Reducer<(A, B)> for UnzipReducer<RA, RB> {
    fn reduce(self, left: (A, B), right: (A, B)) -> (A, B) {
        (
            self.0.reduce(left.0, right.0),
            self.1.reduce(left.1, right.1),
        )
    }
}

/// A destination that is built by `FromParallelIterator` from the one iterator it is extended
/// with (rayon's trick for collecting `Either`s into two `FromParallelIterator` collections).
struct Collector<C> {
    result: Option<C>,
}

impl<C> Default for Collector<C> {
    fn default() -> Self {
        Collector { result: None }
    }
}

impl<T: Send, C: FromParallelIterator<T>> ParallelExtend<T> for Collector<C> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        debug_assert!(self.result.is_none());
        self.result = Some(C::from_par_iter(par_iter));
    }
}

/// Collects the `Left` values of `par_iter` into an `A` and the `Right` values into a `B`.
pub(in crate::iter) fn collect_eithers<I, L, R, A, B>(par_iter: I) -> (A, B)
where
    I: ParallelIterator<Item = Either<L, R>>,
    L: Send,
    R: Send,
    A: Send + FromParallelIterator<L>,
    B: Send + FromParallelIterator<R>,
{
    let (mut a, mut b) = (Collector::<A>::default(), Collector::<B>::default());
    split_eithers_into(par_iter, &mut a, &mut b);
    (
        a.result.expect("the left side was collected"),
        b.result.expect("the right side was collected"),
    )
}

/// Collects pairs into a pair of collections, as [`ParallelIterator::unzip`] does.
///
/// ```
/// use forkjoin::prelude::*;
/// let (evens, odds): (Vec<u32>, Vec<u32>) = (0..4u32).into_par_iter().map(|x| (2 * x, 2 * x + 1)).collect();
/// assert_eq!((evens, odds), (vec![0, 2, 4, 6], vec![1, 3, 5, 7]));
/// ```
impl<A, B, FromA, FromB> FromParallelIterator<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Default + Send + ParallelExtend<A>,
    FromB: Default + Send + ParallelExtend<B>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = (A, B)>>(par_iter: I) -> Self {
        let mut pair = (FromA::default(), FromB::default());
        unzip_into(par_iter.into_par_iter(), &mut pair.0, &mut pair.1);
        pair
    }
}

/// Appends the halves of every pair to the two collections, in order.
///
/// ```
/// use forkjoin::prelude::*;
/// let mut pair = (vec![0u8], String::from(">"));
/// pair.par_extend(vec![(1u8, 'a'), (2, 'b')]);
/// assert_eq!(pair, (vec![0, 1, 2], String::from(">ab")));
/// ```
impl<A, B, FromA, FromB> ParallelExtend<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Send + ParallelExtend<A>,
    FromB: Send + ParallelExtend<B>,
{
    fn par_extend<I: IntoParallelIterator<Item = (A, B)>>(&mut self, par_iter: I) {
        unzip_into(par_iter.into_par_iter(), &mut self.0, &mut self.1);
    }
}
