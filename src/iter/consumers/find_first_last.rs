//! `find_first` and `find_last` (and through them `find_map_first/last`, `position_first/last`
//! and the lexicographic comparisons): searches that return the match at the lowest (highest)
//! position, and stop every piece that can no longer hold a better one.
//!
//! A consumer does not know its positions (after `filter` or `flat_map` nobody does), so, as in
//! rayon, every consumer owns an imaginary interval `lo..hi` of `usize` "places", and a split
//! gives the left consumer the lower half and the right one the upper half: places grow with
//! positions. A consumer that finds a match publishes its *boundary* in a shared word, keeping
//! the best one: for `find_first` its `lo` (the smallest wins, `fetch_min`), for `find_last` its
//! `hi` (the largest wins, `fetch_max`). A consumer is full, and the bridge stops feeding it, once
//! the published boundary is *strictly* better than its own: some piece on its left (right) holds
//! a match, and nothing it could find would be preferred. A piece on the other side of a match
//! never stops because of it, so the answer is exact; the reducer keeps the left (right) result.
//!
//! One detail that rayon's version does not need, because its consumers are split only before
//! they consume anything while ours are split in the middle of a run: a `find_last` consumer that
//! holds a match keeps scanning for a later one, and it may be split while it does. Its left half
//! keeps the match and the rest of its items, but the boundary it published, its old `hi`, is above
//! the left half's new `hi`: the half would stop at once on its own claim and lose a later match.
//! So the split lowers the published boundary to the new `hi` (a compare-exchange from the old
//! `hi`). That is safe: the pieces that stopped on the old claim lie left of the whole consumer,
//! and still left of its match. If the exchange fails, a piece right of the whole consumer has
//! published a better boundary since, and both halves may stop. (A `find_first` consumer that
//! holds a match is full: it is never split.)
//!
//! Halving `usize` places gives 64 levels of splits. Deeper pieces share their places, which only
//! costs early exit between them, never exactness; the extreme paths (the leftmost for
//! `find_first`, the rightmost for `find_last`) keep distinct boundaries at any depth. The shared
//! word is read and written with relaxed ordering: it is only a hint to stop, and the results
//! travel back through `join`, which synchronises.

use crate::iter::plumbing::{LazyConsumer, Reducer};
use crate::iter::ParallelIterator;
use crate::platform::sync::{AtomicUsize, Ordering};

/// Which end of the input a search prefers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::iter) enum Direction {
    /// The match at the lowest position (`find_first`).
    First,
    /// The match at the highest position (`find_last`).
    Last,
}

impl Direction {
    /// True if boundary `a` is strictly better than `b`.
    #[inline]
    fn better(self, a: usize, b: usize) -> bool {
        match self {
            Direction::First => a < b,
            Direction::Last => a > b,
        }
    }
}

/// The item at the lowest (`First`) or highest (`Last`) position for which `predicate` holds.
pub(in crate::iter) fn find<I, P>(iter: I, predicate: P, direction: Direction) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    // Worse than every boundary: nothing is published yet.
    let best = AtomicUsize::new(match direction {
        Direction::First => usize::MAX,
        Direction::Last => 0,
    });
    iter.drive_lazy(FindConsumer {
        predicate: &predicate,
        best: &best,
        direction,
        lo: 0,
        hi: usize::MAX,
        item: None,
    })
}

/// The consumer of [`find`]; see the module doc.
struct FindConsumer<'f, T, P> {
    predicate: &'f P,
    best: &'f AtomicUsize,
    direction: Direction,
    /// This consumer's places, `lo..hi`.
    lo: usize,
    hi: usize,
    item: Option<T>,
}

impl<T, P> FindConsumer<'_, T, P> {
    /// What this consumer publishes when it finds a match, and compares with what others
    /// published: `lo` for `First`, `hi` for `Last`.
    #[inline]
    fn boundary(&self) -> usize {
        match self.direction {
            Direction::First => self.lo,
            Direction::Last => self.hi,
        }
    }
}

impl<T: Send, P: Fn(&T) -> bool + Sync> LazyConsumer<T> for FindConsumer<'_, T, P> {
    type Result = Option<T>;
    type Reducer = FindReducer;

    fn consume_iter<I: Iterator<Item = T>>(mut self, mut iter: I) -> Self {
        if self.full() {
            // A better match was published (or this piece has one): the batch cannot matter.
            // The bridge checks between batches, but a piece folded in one go (the only worker
            // of a pool) would otherwise scan all of it.
            return self;
        }
        let predicate = self.predicate;
        let found = match self.direction {
            Direction::First if self.item.is_some() => None,
            Direction::First => iter.find(|x| predicate(x)),
            Direction::Last => iter.filter(|x| predicate(x)).last(),
        };
        if found.is_some() {
            self.item = found;
            match self.direction {
                Direction::First => self.best.fetch_min(self.lo, Ordering::Relaxed),
                Direction::Last => self.best.fetch_max(self.hi, Ordering::Relaxed),
            };
        }
        self
    }

    fn split_off(self, _keep: usize) -> (Self, Self, FindReducer) {
        let mid = self.lo + (self.hi - self.lo) / 2;
        if self.direction == Direction::Last && self.item.is_some() && mid != self.hi {
            // Move this consumer's claim down to its left half, which holds the match (see the
            // module doc). Failure means a better boundary was published: nothing to move.
            let _ = self
                .best
                .compare_exchange(self.hi, mid, Ordering::Relaxed, Ordering::Relaxed);
        }
        let right = FindConsumer {
            lo: mid,
            item: None,
            ..self
        };
        let left = FindConsumer { hi: mid, ..self };
        let reducer = FindReducer(self.direction);
        (left, right, reducer)
    }

    fn complete(self) -> Option<T> {
        self.item
    }

    fn prefers_end(&self) -> bool {
        self.direction == Direction::Last
    }
    const CAN_PREFER_END: bool = true;

    fn full(&self) -> bool {
        (self.direction == Direction::First && self.item.is_some())
            || self
                .direction
                .better(self.best.load(Ordering::Relaxed), self.boundary())
    }
}

/// Keeps the left result for `First`, the right one for `Last`, if there is one.
struct FindReducer(Direction);

impl<T> Reducer<Option<T>> for FindReducer {
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        match self.0 {
            Direction::First => left.or(right),
            Direction::Last => right.or(left),
        }
    }
}
