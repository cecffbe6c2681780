//! `intersperse`: a clone of a separator between every two neighbouring items.
//!
//! Driven by a consumer, the separators go in front of every item but the first. A piece split off
//! behind items (any piece, over an indexed base) starts with one; where the left part may still
//! pass nothing (a `filter` before `intersperse`), the separator between the parts is added by the
//! reducer, only if both passed items (see `IntersperseConsumer`). As a producer (indexed),
//! output position `2k` is base item `k` and odd positions are separators, so a producer piece is
//! a run of base items plus a flag for each end saying whether it starts or ends with a separator.

use std::iter::once;

use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback, Reducer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`ParallelIterator::intersperse`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Intersperse<I: ParallelIterator> {
    base: I,
    item: I::Item,
}

impl<I: ParallelIterator> Intersperse<I> {
    pub(in crate::iter) fn new(base: I, item: I::Item) -> Self {
        Intersperse { base, item }
    }
}

/// Output length for `len` base items: `2 len - 1` (none for none).
fn interspersed_len(len: usize) -> Option<usize> {
    match len {
        0 => Some(0),
        len => len.checked_mul(2).map(|n| n - 1),
    }
}

impl<I> ParallelIterator for Intersperse<I>
where
    I: ParallelIterator<Item: Clone>,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let exact = self.base.opt_len().is_some();
        let consumer = IntersperseConsumer::new(consumer, self.item, false, exact);
        self.base.drive_lazy(consumer).0
    }

    fn opt_len(&self) -> Option<usize> {
        interspersed_len(self.base.opt_len()?)
    }
}

impl<I> IndexedParallelIterator for Intersperse<I>
where
    I: IndexedParallelIterator<Item: Clone>,
{
    fn len(&self) -> usize {
        interspersed_len(self.base.len()).expect("intersperse: length overflows usize")
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let len = self.len();
        return self.base.with_producer(Callback {
            callback,
            item: self.item,
            len,
        });

        struct Callback<CB, T> {
            callback: CB,
            item: T,
            len: usize,
        }

        impl<T: Clone + Send, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB, T> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(IntersperseProducer {
                    base,
                    item: self.item,
                    len: self.len,
                    sep_first: false,
                })
            }
        }
    }
}

/// LazyConsumer of [`Intersperse`] driven by the base's items: puts a separator before every item
/// but the very first. Its result also tells whether the piece passed any item on.
///
/// Where a piece splits off its right part before it has passed any item, and the base is not
/// indexed (a `filter` may leave the left part empty), whether the right part's first item needs a
/// separator is known only once both parts are done. The downstream consumer is then split in
/// three: the middle one receives the separator in the reducer, only if both parts passed items.
struct IntersperseConsumer<C, T> {
    base: C,
    item: T,
    /// A separator is due before the next item (an item went before it, here or to the left).
    sep_first: bool,
    /// This piece passed an item on.
    passed: bool,
    /// Every base position is one item (an indexed base), so `keep` positions hold `keep` items.
    exact: bool,
}

impl<C, T> IntersperseConsumer<C, T> {
    fn new(base: C, item: T, sep_first: bool, exact: bool) -> Self {
        IntersperseConsumer {
            base,
            item,
            sep_first,
            passed: false,
            exact,
        }
    }
}

impl<T: Clone + Send, C: LazyConsumer<T>> LazyConsumer<T> for IntersperseConsumer<C, T> {
    type Result = (C::Result, bool);
    type Reducer = IntersperseReducer<C, T>;

    fn consume_iter<I: Iterator<Item = T>>(mut self, iter: I) -> Self {
        let item = &self.item;
        let (mut sep_first, mut passed) = (self.sep_first, false);
        self.base = self.base.consume_iter(iter.flat_map(|x| {
            let sep = sep_first.then(|| item.clone());
            sep_first = true;
            passed = true;
            sep.into_iter().chain(once(x))
        }));
        self.sep_first = sep_first;
        self.passed |= passed;
        self
    }

    fn split_off(self, keep: usize) -> (Self, Self, Self::Reducer) {
        let item = self.item.clone();
        if !self.sep_first && !self.exact {
            let (left, rest, outer) = self.base.split_off(keep);
            let (middle, right, inner) = rest.split_off(1);
            let right = IntersperseConsumer::new(right, item, false, false);
            let left = IntersperseConsumer { base: left, ..self };
            let reducer = IntersperseReducer {
                outer,
                middle: Some((middle, right.item.clone(), inner)),
            };
            return (left, right, reducer);
        }
        // `keep` base items become `2 keep` outputs with a leading separator, one fewer without.
        let out_keep = match keep {
            0 => 0,
            keep => keep.saturating_mul(2) - usize::from(!self.sep_first),
        };
        let (left, right, outer) = self.base.split_off(out_keep);
        let right_sep = self.sep_first || keep > 0;
        let right = IntersperseConsumer::new(right, item, right_sep, self.exact);
        let left = IntersperseConsumer { base: left, ..self };
        let reducer = IntersperseReducer {
            outer,
            middle: None,
        };
        (left, right, reducer)
    }

    fn complete(self) -> (C::Result, bool) {
        (self.base.complete(), self.passed)
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

/// Reducer of [`IntersperseConsumer`]: joins the results and, after an uncertain split, puts the
/// separator between two parts that both passed items on.
struct IntersperseReducer<C: LazyConsumer<T>, T> {
    outer: C::Reducer,
    /// The middle consumer of an uncertain split, the separator, and the reducer of middle and right.
    middle: Option<(C, T, C::Reducer)>,
}

impl<T, C: LazyConsumer<T>> Reducer<(C::Result, bool)> for IntersperseReducer<C, T> {
    fn reduce(
        self,
        (left, left_passed): (C::Result, bool),
        (right, right_passed): (C::Result, bool),
    ) -> (C::Result, bool) {
        let right = match self.middle {
            None => right,
            Some((middle, sep, inner)) => {
                let sep = (left_passed && right_passed).then_some(sep);
                let middle = middle.consume_iter(sep.into_iter()).complete();
                inner.reduce(middle, right)
            }
        };
        (self.outer.reduce(left, right), left_passed || right_passed)
    }
}

/// Producer of indexed [`Intersperse`]: `len` output positions over the base piece, starting with a
/// separator if `sep_first`.
struct IntersperseProducer<P: Producer> {
    base: P,
    item: P::Item,
    len: usize,
    sep_first: bool,
}

impl<P> Producer for IntersperseProducer<P>
where
    P: Producer<Item: Clone + Send>,
{
    type Item = P::Item;
    type IntoIter = IntersperseIter<P::IntoIter>;

    fn split_at(self, index: usize) -> (Self, Self) {
        // Base items sit at the even positions (odd ones after a leading separator).
        let base_index = if self.sep_first {
            index / 2
        } else {
            index.div_ceil(2)
        };
        let (left, right) = self.base.split_at(base_index);
        let right = IntersperseProducer {
            base: right,
            item: self.item.clone(),
            len: self.len - index,
            // An odd cut flips which parity holds the separators.
            sep_first: (index % 2 == 1) != self.sep_first,
        };
        let left = IntersperseProducer {
            base: left,
            len: index,
            ..self
        };
        (left, right)
    }

    fn into_iter(self) -> Self::IntoIter {
        let sep_first = self.len > 0 && self.sep_first;
        // Separators and items alternate, so the parity of the length and of the first position
        // tell whether the last position is a separator (a lone separator counts as the first).
        let sep_last = self.len > 1 && (self.len % 2 == 0) != self.sep_first;
        IntersperseIter {
            base: self.base.into_iter(),
            item: self.item,
            sep_first,
            sep_last,
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
}

/// Sequential iterator of an [`IntersperseProducer`] piece, from both ends.
struct IntersperseIter<I: Iterator> {
    base: I,
    item: I::Item,
    /// A separator is due before the next item from the front.
    sep_first: bool,
    /// A separator is due after the next item from the back.
    sep_last: bool,
}

impl<I> Iterator for IntersperseIter<I>
where
    I: ExactSizeIterator<Item: Clone>,
{
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        if std::mem::take(&mut self.sep_first) {
            return Some(self.item.clone());
        }
        match self.base.next() {
            Some(x) => {
                self.sep_first = self.base.len() > 0;
                Some(x)
            }
            None => std::mem::take(&mut self.sep_last).then(|| self.item.clone()),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.len();
        (len, Some(len))
    }
}

impl<I> DoubleEndedIterator for IntersperseIter<I>
where
    I: DoubleEndedIterator + ExactSizeIterator<Item: Clone>,
{
    fn next_back(&mut self) -> Option<I::Item> {
        if std::mem::take(&mut self.sep_last) {
            return Some(self.item.clone());
        }
        match self.base.next_back() {
            Some(x) => {
                self.sep_last = self.base.len() > 0;
                Some(x)
            }
            None => std::mem::take(&mut self.sep_first).then(|| self.item.clone()),
        }
    }
}

impl<I> ExactSizeIterator for IntersperseIter<I>
where
    I: ExactSizeIterator<Item: Clone>,
{
    fn len(&self) -> usize {
        let items = self.base.len();
        items + items.saturating_sub(1) + usize::from(self.sep_first) + usize::from(self.sep_last)
    }
}
