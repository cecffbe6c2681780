//! `while_some`: yields the `Some` values and stops everything at the first `None`; also the
//! short-circuit behind `try_for_each` and collecting into `Result` or `Option`.
//!
//! A shared flag is set by the piece that meets a `None`; every piece checks it before it pulls its
//! next item, so no user closure upstream runs for an item pulled after the flag was seen. Relaxed
//! suffices: the flag is only an early-exit hint; results travel back through `join`, which
//! synchronises.

use crate::iter::plumbing::LazyConsumer;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::ParallelIterator;
use crate::platform::sync::{AtomicBool, Ordering};

/// Parallel iterator returned by [`ParallelIterator::while_some`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct WhileSome<I> {
    base: I,
}

impl<I> WhileSome<I> {
    pub(in crate::iter) fn new(base: I) -> Self {
        WhileSome { base }
    }
}

impl<I, T> ParallelIterator for WhileSome<I>
where
    I: ParallelIterator<Item = Option<T>>,
    T: Send,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<T>>(self, consumer: C) -> C::Result {
        let stop = AtomicBool::new(false);
        self.base.drive_lazy(WhileSomeConsumer {
            base: consumer,
            stop: &stop,
        })
    }
}

/// LazyConsumer behind [`WhileSome`]: passes the `Some` values on until any piece meets a `None`.
#[derive(Debug)]
pub(crate) struct WhileSomeConsumer<'f, C> {
    base: C,
    stop: &'f AtomicBool,
}

impl<T, C: LazyConsumer<T>> LazyConsumer<Option<T>> for WhileSomeConsumer<'_, C> {
    type Result = C::Result;
    type Reducer = C::Reducer;

    fn consume_iter<I: Iterator<Item = Option<T>>>(self, mut iter: I) -> Self {
        let stop = self.stop;
        // Check the flag before pulling an item, not after: pulling runs the closures upstream.
        let base = self.base.consume_iter(std::iter::from_fn(|| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let item = iter.next()?;
            if item.is_none() {
                stop.store(true, Ordering::Relaxed);
            }
            item
        }));
        WhileSomeConsumer { base, stop }
    }
    fn split_off(self, keep: usize) -> (Self, Self, C::Reducer) {
        // Unindexed result: `keep` means nothing downstream, as for `filter`.
        let (left, right, reducer) = self.base.split_off(keep);
        let stop = self.stop;
        (
            WhileSomeConsumer { base: left, stop },
            WhileSomeConsumer { base: right, stop },
            reducer,
        )
    }
    fn complete(self) -> C::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.base.full()
    }
}
