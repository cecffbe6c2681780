//! `step_by` on indexed iterators: every `step`-th item, starting with the first.

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`IndexedParallelIterator::step_by`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct StepBy<I> {
    base: I,
    step: usize,
}

impl<I> StepBy<I> {
    pub(in crate::iter) fn new(base: I, step: usize) -> Self {
        assert!(step != 0, "step_by: the step must be non-zero");
        StepBy { base, step }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for StepBy<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for StepBy<I> {
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.step)
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let len = self.base.len();
        return self.base.with_producer(Callback {
            callback,
            step: self.step,
            len,
        });

        struct Callback<CB> {
            callback: CB,
            step: usize,
            len: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(StepByProducer {
                    base,
                    step: self.step,
                    len: self.len,
                })
            }
        }
    }
}

/// Producer of [`StepBy`]: position `i` is the base's position `i · step`.
struct StepByProducer<P> {
    base: P,
    step: usize,
    /// The base's length.
    len: usize,
}

impl<P: Producer> Producer for StepByProducer<P> {
    type Item = P::Item;
    type IntoIter = StepBySeq<P>;

    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.step).min(self.len);
        let (left, right) = self.base.split_at(at);
        let step = self.step;
        (
            StepByProducer {
                base: left,
                step,
                len: at,
            },
            StepByProducer {
                base: right,
                step,
                len: self.len - at,
            },
        )
    }
    fn into_iter(self) -> Self::IntoIter {
        if self.step <= WALK_MAX_STEP || self.len <= WALK_MAX_LEN {
            StepBySeq::Walk(self.base.into_iter().step_by(self.step))
        } else {
            StepBySeq::Cut {
                base: Some(self.base),
                step: self.step,
                len: self.len,
            }
        }
    }
    fn min_len(&self) -> usize {
        self.base.min_len().div_ceil(self.step)
    }
    fn max_len(&self) -> usize {
        (self.base.max_len() / self.step).max(1)
    }
}

/// Up to this step a leaf walks the base's own iterator (std's `StepBy`, which skips with `nth`);
/// beyond it, it cuts the base producer at every item it yields instead.
///
/// Walking is the fast path for small steps (one cut per item costs more than a few `next`s), but
/// many producers' iterators skip with `nth` one item at a time (`map`, `zip`, `enumerate`, `chain`,
/// owned `Vec`s): a leaf of `(0..usize::MAX).into_par_iter().map(f).step_by(1 << 60)` would never
/// end. Cutting costs one `split_at` per item yielded, whatever the step and the producer, and the
/// skipped positions are dropped unread (as `skip` drops them), so a leaf costs what it yields.
const WALK_MAX_STEP: usize = 16;

/// A leaf over at most this many base positions walks whatever the step: walking costs at most
/// this many `next`s, and it clones a `repeat_n` item once per item yielded, as rayon's (a cut
/// clones it once more for every skipped piece).
const WALK_MAX_LEN: usize = 1 << 12;

/// Sequential iterator of a [`StepByProducer`].
pub(crate) enum StepBySeq<P: Producer> {
    /// A small step: std's `StepBy` over the base's iterator.
    Walk(std::iter::StepBy<P::IntoIter>),
    /// A large step: the items are the base's positions `0, step, 2·step, … < len`.
    Cut {
        /// The positions not yet passed; `None` once `len` is 0 (or while a cut is in progress).
        base: Option<P>,
        step: usize,
        /// The number of positions in `base`.
        len: usize,
    },
}

/// The first item of `piece` (which has at least one position); the rest is dropped unread.
fn first<P: Producer>(piece: P) -> Option<P::Item> {
    piece.into_iter().next()
}

impl<P: Producer> Iterator for StepBySeq<P> {
    type Item = P::Item;

    #[inline]
    fn next(&mut self) -> Option<P::Item> {
        match self {
            StepBySeq::Walk(iter) => iter.next(),
            StepBySeq::Cut { base, step, len } => {
                if *len == 0 {
                    return None;
                }
                let head_len = (*step).min(*len);
                let (head, rest) = base.take()?.split_at(head_len);
                *len -= head_len;
                if *len > 0 {
                    *base = Some(rest);
                }
                first(head)
            }
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            StepBySeq::Walk(iter) => iter.size_hint(),
            StepBySeq::Cut { step, len, .. } => {
                let n = len.div_ceil(*step);
                (n, Some(n))
            }
        }
    }

    fn fold<B, F: FnMut(B, P::Item) -> B>(self, init: B, mut f: F) -> B {
        match self {
            // std's own `fold`, specialised for ranges.
            StepBySeq::Walk(iter) => iter.fold(init, f),
            cut => {
                let mut acc = init;
                for x in cut {
                    acc = f(acc, x);
                }
                acc
            }
        }
    }
}

impl<P: Producer> DoubleEndedIterator for StepBySeq<P> {
    #[inline]
    fn next_back(&mut self) -> Option<P::Item> {
        match self {
            StepBySeq::Walk(iter) => iter.next_back(),
            StepBySeq::Cut { base, step, len } => {
                if *len == 0 {
                    return None;
                }
                // The last item is at the last multiple of `step` below `len`.
                let at = (*len - 1) / *step * *step;
                let (front, last) = base.take()?.split_at(at);
                *len = at;
                if at > 0 {
                    *base = Some(front);
                }
                first(last)
            }
        }
    }
}

impl<P: Producer> ExactSizeIterator for StepBySeq<P> {}
