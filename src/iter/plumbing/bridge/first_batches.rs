//! A fresh leaf's two untimed batches in one fold: the first item, a poll, then up to
//! [`TIMED_FROM`](super::pace::TIMED_FROM) − 1 more items, handed to the consumer as one iterator
//! (rule 3 of the [bridge's module doc](super)).
//!
//! Why: a small nested call in a busy pool (skynet's ten-item calls, nqueens' boards) runs exactly
//! these two batches, and as two turns of the leaf's loop each paid for a split, a consumer call,
//! the loop's checks and an out-of-line fold of a single item: 327 instructions a ten-item call
//! against the 123 of a pool's only worker, which folds it whole (callgrind, `suite --busy --rows
//! iter-small`). Here the poll between the batches runs inside the consumer's fold, the first item
//! goes through the consumer's closure directly, and a poll that answers "stop" hands the rest back
//! to the leaf's loop untouched, in the state the loop's first batch would have left it.

use crate::iter::plumbing::piece::Piece;

/// The iterator [`run_leaf`](super::indexed::run_leaf) hands its consumer for a fresh leaf: the
/// items of `first`, then, unless `stop` says so after them, the next `second` positions of the
/// piece in `rest`, whose remainder is left there (so what the second batch took is what `rest`
/// lost).
pub(super) struct FirstBatches<'r, P: Piece, S: FnMut() -> bool> {
    /// The batch being iterated: the first one, then the second.
    current: P::IntoIter,
    /// What follows the first batch; after the switch, what follows the second.
    rest: &'r mut Option<P>,
    /// Positions the second batch takes (fewer if the rest is shorter).
    second: usize,
    /// Asked once, after the first batch: true hands the rest back to the leaf's loop.
    stop: S,
    /// The first batch is done and `stop` was asked.
    switched: bool,
}

impl<'r, P: Piece, S: FnMut() -> bool> FirstBatches<'r, P, S> {
    /// `first` is the first batch, `rest` (`Some`) the rest of the piece.
    #[inline]
    pub(super) fn new(first: P, rest: &'r mut Option<P>, second: usize, stop: S) -> Self {
        FirstBatches {
            current: first.into_iter(),
            rest,
            second,
            stop,
            switched: false,
        }
    }

    /// Between the batches: asks `stop` and, unless it says so, takes the second batch off the
    /// rest. Called once, when the first batch is exhausted.
    #[inline]
    fn switch(&mut self) -> Option<P::IntoIter> {
        self.switched = true;
        if (self.stop)() {
            return None;
        }
        let rest = self.rest.take()?;
        let n = self.second.min(rest.len());
        let (batch, tail) = rest.split_at(n);
        *self.rest = Some(tail);
        Some(batch.into_iter())
    }
}

impl<P: Piece, S: FnMut() -> bool> Iterator for FirstBatches<'_, P, S> {
    type Item = P::Item;

    #[inline]
    fn next(&mut self) -> Option<P::Item> {
        loop {
            if let Some(item) = self.current.next() {
                return Some(item);
            }
            if self.switched {
                return None;
            }
            self.current = self.switch()?;
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        // The second batch may not come (`stop`), and a piece's positions need not be items.
        (self.current.size_hint().0, None)
    }

    #[inline]
    fn fold<B, F: FnMut(B, P::Item) -> B>(mut self, init: B, mut f: F) -> B {
        let mut acc = init;
        for item in self.current.by_ref() {
            acc = f(acc, item);
        }
        if self.switched {
            return acc;
        }
        match self.switch() {
            Some(batch) => batch.fold(acc, f),
            None => acc,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::ops::Range;

    /// A piece of consecutive numbers.
    struct Span(Range<usize>);

    impl Piece for Span {
        type Item = usize;
        type IntoIter = Range<usize>;
        fn len(&self) -> usize {
            self.0.len()
        }
        fn split_at(self, index: usize) -> (Self, Self) {
            let mid = self.0.start + index;
            (Span(self.0.start..mid), Span(mid..self.0.end))
        }
        fn into_iter(self) -> Range<usize> {
            self.0
        }
    }

    /// Runs `FirstBatches` over 0..`len` (first batch: item 0, second: up to `second` items)
    /// through `fold` or through `next`; returns the items seen, the rest left and the second
    /// batch's length, and checks that `stop` was asked exactly once.
    fn run(
        len: usize,
        second: usize,
        stop: bool,
        by_next: bool,
    ) -> (Vec<usize>, Range<usize>, usize) {
        let (first, rest) = Span(0..len).split_at(1);
        let mut rest = Some(rest);
        let asked = Cell::new(0);
        let iter = FirstBatches::new(first, &mut rest, second, || {
            asked.set(asked.get() + 1);
            stop
        });
        let seen: Vec<usize> = if by_next {
            let mut iter = iter;
            std::iter::from_fn(|| iter.next()).collect()
        } else {
            iter.fold(Vec::new(), |mut seen, x| {
                seen.push(x);
                seen
            })
        };
        assert_eq!(asked.get(), 1, "stop is asked once, between the batches");
        let rest = rest.expect("the rest is handed back").0;
        let taken = len - 1 - rest.len();
        (seen, rest, taken)
    }

    #[test]
    fn without_a_stop_the_second_batch_follows_the_first_and_its_rest_is_left() {
        for by_next in [false, true] {
            assert_eq!(run(40, 15, false, by_next), ((0..16).collect(), 16..40, 15));
            // A ten-item call: all of it, nothing left.
            assert_eq!(run(10, 15, false, by_next), ((0..10).collect(), 10..10, 9));
        }
    }

    #[test]
    fn a_stop_after_the_first_batch_hands_back_everything_after_it() {
        for by_next in [false, true] {
            assert_eq!(run(10, 15, true, by_next), (vec![0], 1..10, 0));
        }
    }
}
