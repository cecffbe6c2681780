//! `panic_fuse`: once a user closure panics in one piece, the other pieces stop early instead of
//! running to the end before the panic reaches the caller.
//!
//! Every consumer and producer piece holds a [`Fuse`], which blows (sets a shared flag) when it is
//! dropped during unwinding: a panic anywhere downstream or upstream of the adaptor unwinds through
//! the piece that holds it. Every piece checks the flag before it pulls each item.

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
struct PanicFuseIter<'f, I> {
    base: I,
    fuse: FuseGuard<'f>,
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
        self.base.size_hint()
    }
}

impl<I: DoubleEndedIterator> DoubleEndedIterator for PanicFuseIter<'_, I> {
    fn next_back(&mut self) -> Option<I::Item> {
        if self.fuse.0.blown() {
            None
        } else {
            self.base.next_back()
        }
    }
}

/// The length of the base: exact unless the fuse blew, and then the items never reach a result.
impl<I: ExactSizeIterator> ExactSizeIterator for PanicFuseIter<'_, I> {}
