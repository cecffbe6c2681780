//! `panic_fuse`: once a user closure panics in one piece, the other pieces stop early instead of
//! running to the end before the panic reaches the caller.
//!
//! Every consumer and producer piece holds a [`Fuse`], which blows (sets a shared flag) when it is
//! dropped during unwinding: a panic anywhere downstream or upstream of the adaptor unwinds through
//! the piece that holds it. Every piece checks the flag before it pulls each item.

use std::cell::Cell;

use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use crate::platform::sync::{thread, AtomicBool, Ordering};

/// Parallel iterator returned by [`ParallelIterator::panic_fuse`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct PanicFuse<I> {
    base: I,
}

impl<I> PanicFuse<I> {
    pub(in crate::iter) fn new(base: I) -> Self {
        PanicFuse { base }
    }
}

/// A handle on the shared flag that sets it if dropped while its thread unwinds. Relaxed suffices:
/// the flag only stops work early; the panic itself travels back through `join`.
#[derive(Clone, Copy)]
struct Fuse<'f>(&'f AtomicBool);

impl<'f> Fuse<'f> {
    fn blown(self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// `iter` until the fuse blows.
    fn guard<I: Iterator>(self, mut iter: I) -> impl Iterator<Item = I::Item> + use<'f, I> {
        std::iter::from_fn(move || if self.blown() { None } else { iter.next() })
    }
}

/// Blows the fuse if dropped during a panic. Not `Copy`, so every piece owns (and drops) its own.
struct FuseGuard<'f>(Fuse<'f>);

impl FuseGuard<'_> {
    /// Another guard on the same fuse, for a split-off piece.
    fn twin(&self) -> Self {
        FuseGuard(self.0)
    }
}

impl Drop for FuseGuard<'_> {
    fn drop(&mut self) {
        if thread::panicking() {
            self.0 .0.store(true, Ordering::Relaxed);
        }
    }
}

impl<I: ParallelIterator> ParallelIterator for PanicFuse<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let blown = AtomicBool::new(false);
        self.base.drive_lazy(PanicFuseConsumer {
            base: consumer,
            fuse: FuseGuard(Fuse(&blown)),
        })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for PanicFuse<I> {
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        return self.base.with_producer(Callback { callback });

        struct Callback<CB> {
            callback: CB,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                let blown = AtomicBool::new(false);
                self.callback.callback(PanicFuseProducer {
                    base,
                    fuse: FuseGuard(Fuse(&blown)),
                })
            }
        }
    }
}

/// LazyConsumer of [`PanicFuse`].
struct PanicFuseConsumer<'f, C> {
    base: C,
    fuse: FuseGuard<'f>,
}

impl<T, C: LazyConsumer<T>> LazyConsumer<T> for PanicFuseConsumer<'_, C> {
    type Result = C::Result;
    type Reducer = C::Reducer;

    fn consume_iter<I: Iterator<Item = T>>(self, iter: I) -> Self {
        // `self.fuse` lives in this frame while the items run: a panic unwinding out of
        // `consume_iter` drops it and blows it.
        let base = self.base.consume_iter(self.fuse.0.guard(iter));
        PanicFuseConsumer {
            base,
            fuse: self.fuse,
        }
    }

    fn split_off(self, keep: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_off(keep);
        let fuse = self.fuse.twin();
        let left = PanicFuseConsumer { base: left, ..self };
        (left, PanicFuseConsumer { base: right, fuse }, reducer)
    }

    fn complete(self) -> C::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.fuse.0.blown() || self.base.full()
    }
}

/// Producer of indexed [`PanicFuse`]: its pieces' iterators end early once the fuse blows (a
/// piece yields fewer items than its length only when a panic is on its way to the caller).
struct PanicFuseProducer<'f, P> {
    base: P,
    fuse: FuseGuard<'f>,
}

impl<'f, P: Producer> Producer for PanicFuseProducer<'f, P> {
    type Item = P::Item;
    type IntoIter = PanicFuseIter<'f, P::IntoIter>;

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let fuse = self.fuse.twin();
        let left = PanicFuseProducer { base: left, ..self };
        (left, PanicFuseProducer { base: right, fuse })
    }

    fn into_iter(self) -> Self::IntoIter {
        PanicFuseIter {
            base: self.base.into_iter(),
            fuse: self.fuse,
            promised: Cell::new(0),
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
}

/// Sequential iterator of a [`PanicFuseProducer`] piece; blows the fuse if dropped while unwinding
/// (a closure downstream panicked on one of its items).
///
/// It stops early once the fuse blew, yet it is an `ExactSizeIterator`, and std's adaptors that
/// read the length before they pull from the back (`Zip::next_back`, `Enumerate::next_back`,
/// `StepBy`) rely on getting that many items: a zip whose other side still yields would reach
/// `unreachable!()`. So the length it reports is a promise: the items a `len()` (or `size_hint`)
/// counted come from the back even if the fuse blows before they are pulled, until the length is
/// asked again; once the fuse blew, the length is 0. Pulled from the back without asking the
/// length first (`rev`), or from the front, it stops at once.
struct PanicFuseIter<'f, I> {
    base: I,
    fuse: FuseGuard<'f>,
    /// Items the last reported length promised from the back, not yet pulled from there (a pull
    /// from the front leaves it: the base then just ends sooner).
    promised: Cell<usize>,
}

impl<I: Iterator> Iterator for PanicFuseIter<'_, I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        if self.fuse.0.blown() {
            None
        } else {
            self.base.next()
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.fuse.0.blown() {
            // Nothing more: a promise made before the fuse blew ends with this answer.
            self.promised.set(0);
            return (0, Some(0));
        }
        let hint = self.base.size_hint();
        self.promised.set(hint.0);
        hint
    }
}

impl<I: DoubleEndedIterator> DoubleEndedIterator for PanicFuseIter<'_, I> {
    fn next_back(&mut self) -> Option<I::Item> {
        let promised = self.promised.get();
        if promised > 0 {
            self.promised.set(promised - 1);
            return self.base.next_back();
        }
        if self.fuse.0.blown() {
            None
        } else {
            self.base.next_back()
        }
    }
}

/// The length of the base, as promised above: exact unless the fuse blew, and then the items never
/// reach a result.
impl<I: ExactSizeIterator> ExactSizeIterator for PanicFuseIter<'_, I> {}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::{Fuse, FuseGuard, PanicFuseIter};
    use crate::platform::sync::{AtomicBool, Ordering};
    use std::cell::Cell;

    fn piece(blown: &AtomicBool, len: u32) -> PanicFuseIter<'_, std::ops::Range<u32>> {
        PanicFuseIter {
            base: 0..len,
            fuse: FuseGuard(Fuse(blown)),
            promised: Cell::new(0),
        }
    }

    /// A blown fuse reports length 0, so std's `Zip::next_back` trims the other side and ends
    /// instead of reaching `unreachable!()` (the other side longer or as long).
    #[test]
    fn a_zip_from_the_back_ends_once_the_fuse_blew() {
        for other in [10, 12] {
            let blown = AtomicBool::new(false);
            let mut zip = piece(&blown, 10).zip(0..other);
            assert_eq!(zip.next_back(), Some((9, 9)));
            blown.store(true, Ordering::Relaxed);
            assert_eq!(zip.next_back(), None);
            assert_eq!(zip.next(), None);
        }
        let blown = AtomicBool::new(false);
        let mut zip = (0..12u32).zip(piece(&blown, 10));
        blown.store(true, Ordering::Relaxed);
        assert_eq!(zip.next_back(), None);
    }

    /// The items a length counted come from the back even if the fuse blows right after it was
    /// read (as between `Zip::next_back`'s `len()` and its pulls); then the fuse stops it.
    #[test]
    fn a_reported_length_is_kept_from_the_back() {
        let blown = AtomicBool::new(false);
        let mut it = piece(&blown, 4);
        assert_eq!(it.len(), 4);
        blown.store(true, Ordering::Relaxed);
        assert_eq!(it.next(), None, "from the front it stops at once");
        assert_eq!(it.next_back(), Some(3));
        assert_eq!(it.nth_back(1), Some(1));
        assert_eq!(it.next_back(), Some(0));
        assert_eq!(it.next_back(), None);
        assert_eq!(it.len(), 0);
    }

    /// Pulled from the back without asking the length (`rev`), a blown fuse stops at once.
    #[test]
    fn rev_stops_at_once() {
        let blown = AtomicBool::new(false);
        let mut it = piece(&blown, 5).rev();
        assert_eq!(it.next(), Some(4));
        blown.store(true, Ordering::Relaxed);
        assert_eq!(it.next(), None);
    }
}
