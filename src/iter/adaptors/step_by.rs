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
    type IntoIter = std::iter::StepBy<P::IntoIter>;

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
        self.base.into_iter().step_by(self.step)
    }
    fn min_len(&self) -> usize {
        self.base.min_len().div_ceil(self.step)
    }
    fn max_len(&self) -> usize {
        (self.base.max_len() / self.step).max(1)
    }
}
