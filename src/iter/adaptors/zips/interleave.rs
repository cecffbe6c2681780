//! `interleave` and `interleave_shortest` on indexed iterators: the items of two iterators,
//! alternately, starting with the first.
//!
//! `interleave` goes on with the longer iterator once the shorter one is exhausted;
//! `interleave_shortest` stops at that point (it is `interleave` of the right prefixes, as in
//! rayon). A producer position `i` of the interleaving is known to come from the first or the
//! second iterator by arithmetic on the two lengths, so a split cuts both base producers.

use crate::iter::adaptors::skip_take::Take;
use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator returned by [`IndexedParallelIterator::interleave`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Interleave<I, J> {
    i: I,
    j: J,
}

impl<I, J> Interleave<I, J> {
    pub(in crate::iter) fn new(i: I, j: J) -> Self {
        Interleave { i, j }
    }
}

impl<I, J> ParallelIterator for Interleave<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
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

impl<I, J> IndexedParallelIterator for Interleave<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    /// # Panics
    /// If the total length overflows `usize`.
    fn len(&self) -> usize {
        self.i
            .len()
            .checked_add(self.j.len())
            .expect("interleave: the total length overflows usize")
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let i_len = self.i.len();
        let j_len = self.j.len();
        return self.i.with_producer(CallbackI {
            callback,
            j: self.j,
            lens: (i_len, j_len),
        });

        struct CallbackI<CB, J> {
            callback: CB,
            j: J,
            lens: (usize, usize),
        }

        impl<T, CB, J> ProducerCallback<T> for CallbackI<CB, J>
        where
            CB: ProducerCallback<T>,
            J: IndexedParallelIterator<Item = T>,
        {
            type Output = CB::Output;
            fn callback<PI: Producer<Item = T>>(self, i: PI) -> CB::Output {
                self.j.with_producer(CallbackJ {
                    callback: self.callback,
                    i,
                    lens: self.lens,
                })
            }
        }

        struct CallbackJ<CB, PI> {
            callback: CB,
            i: PI,
            lens: (usize, usize),
        }

        impl<T, CB, PI> ProducerCallback<T> for CallbackJ<CB, PI>
        where
            CB: ProducerCallback<T>,
            PI: Producer<Item = T>,
        {
            type Output = CB::Output;
            fn callback<PJ: Producer<Item = T>>(self, j: PJ) -> CB::Output {
                self.callback.callback(InterleaveProducer {
                    i: self.i,
                    j,
                    i_next: true,
                    lens: self.lens,
                })
            }
        }
    }
}

/// Producer of [`Interleave`]: the positions of `i` and `j`, alternately, starting with `i` if
/// `i_next`; the rest of the longer one at the end.
struct InterleaveProducer<PI, PJ> {
    i: PI,
    j: PJ,
    i_next: bool,
    /// The lengths of `i` and `j`.
    lens: (usize, usize),
}

/// How many of the first `n` items of an interleaving come from the side that goes first
/// (`first` items there) and from the other (`second` items).
fn taken(n: usize, first: usize, second: usize) -> (usize, usize) {
    let from_first = n.div_ceil(2).max(n.saturating_sub(second)).min(first);
    (from_first, n - from_first)
}

impl<PI, PJ> Producer for InterleaveProducer<PI, PJ>
where
    PI: Producer,
    PJ: Producer<Item = PI::Item>,
{
    type Item = PI::Item;
    type IntoIter = InterleaveSeq<PI::IntoIter, PJ::IntoIter>;

    fn split_at(self, index: usize) -> (Self, Self) {
        let (i_len, j_len) = self.lens;
        let (from_i, from_j) = if self.i_next {
            taken(index, i_len, j_len)
        } else {
            let (from_j, from_i) = taken(index, j_len, i_len);
            (from_i, from_j)
        };
        let (i_left, i_right) = self.i.split_at(from_i);
        let (j_left, j_right) = self.j.split_at(from_j);
        (
            InterleaveProducer {
                i: i_left,
                j: j_left,
                i_next: self.i_next,
                lens: (from_i, from_j),
            },
            InterleaveProducer {
                i: i_right,
                j: j_right,
                // Once one side is exhausted the flag no longer matters.
                i_next: self.i_next == (index % 2 == 0),
                lens: (i_len - from_i, j_len - from_j),
            },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        InterleaveSeq {
            i: self.i.into_iter().fuse(),
            j: self.j.into_iter().fuse(),
            i_next: self.i_next,
        }
    }

    fn min_len(&self) -> usize {
        self.i.min_len().max(self.j.min_len())
    }

    fn max_len(&self) -> usize {
        self.i.max_len().min(self.j.max_len())
    }
}

/// The sequential iterator of an [`InterleaveProducer`].
struct InterleaveSeq<I, J> {
    i: std::iter::Fuse<I>,
    j: std::iter::Fuse<J>,
    i_next: bool,
}

impl<I, J> Iterator for InterleaveSeq<I, J>
where
    I: Iterator,
    J: Iterator<Item = I::Item>,
{
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        self.i_next = !self.i_next;
        if self.i_next {
            self.j.next().or_else(|| self.i.next())
        } else {
            self.i.next().or_else(|| self.j.next())
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (i_lo, i_hi) = self.i.size_hint();
        let (j_lo, j_hi) = self.j.size_hint();
        let hi = i_hi.zip(j_hi).and_then(|(a, b)| a.checked_add(b));
        (i_lo.saturating_add(j_lo), hi)
    }
}

impl<I, J> DoubleEndedIterator for InterleaveSeq<I, J>
where
    I: DoubleEndedIterator + ExactSizeIterator,
    J: DoubleEndedIterator<Item = I::Item> + ExactSizeIterator,
{
    fn next_back(&mut self) -> Option<I::Item> {
        // The side that goes first also ends the interleaving when it holds more items; the
        // other one ends it when it holds at least as many.
        let (i_len, j_len) = (self.i.len(), self.j.len());
        let i_ends = if self.i_next {
            i_len > j_len
        } else {
            i_len >= j_len
        };
        if i_ends {
            self.i.next_back()
        } else {
            self.j.next_back()
        }
    }
}

impl<I, J> ExactSizeIterator for InterleaveSeq<I, J>
where
    I: ExactSizeIterator,
    J: ExactSizeIterator<Item = I::Item>,
{
}

/// Parallel iterator returned by [`IndexedParallelIterator::interleave_shortest`]: an
/// [`Interleave`] of the prefixes that end where the shorter iterator runs out.
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct InterleaveShortest<I, J> {
    interleave: Interleave<Take<I>, Take<J>>,
}

impl<I, J> InterleaveShortest<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    pub(in crate::iter) fn new(i: I, j: J) -> Self {
        let (i_len, j_len) = (i.len(), j.len());
        // `i` goes first: it yields one more item than `j` when it is the longer one.
        let (i_take, j_take) = if i_len <= j_len {
            (i_len, i_len)
        } else {
            (j_len + 1, j_len)
        };
        InterleaveShortest {
            interleave: Interleave::new(i.take(i_take), j.take(j_take)),
        }
    }
}

impl<I, J> ParallelIterator for InterleaveShortest<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        self.interleave.drive_lazy(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I, J> IndexedParallelIterator for InterleaveShortest<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    fn len(&self) -> usize {
        self.interleave.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        self.interleave.with_producer(callback)
    }
}
