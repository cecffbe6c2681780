//! `par_drain`: the [`ParallelDrainRange`] sources, which move a range of items out of a `Vec`,
//! a `VecDeque` or a `String` and leave the collection without them, as rayon's.
//!
//! `Vec` (ownership protocol): the vector's length is cut to the start of the range first, so the
//! items of the range belong to the [`DrainProducer`] pieces (which move
//! them out or drop them, exactly once) and the items after the range are out of the vector's
//! reach until [`VecDrain`]'s `Drop` moves them down to the start of the range and sets the
//! length again, also when a closure panicked. A `VecDrain` dropped without being iterated
//! removes the range with std's `Vec::drain`.
//!
//! `VecDeque`: the deque's buffer becomes a `Vec` in place (std's conversion, which moves the
//! items to the start of the buffer if they wrap around), is drained as above, and goes back to
//! the deque when the [`VecDequeDrain`] is dropped.

use std::collections::VecDeque;
use std::ops::{Bound, Range, RangeBounds};

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, ProducerCallback};
use crate::iter::sources::vec::DrainProducer;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// `par_drain(range)`: removes a range of items from a collection and iterates over them in
/// parallel, by value, as rayon's `ParallelDrainRange`. The collection loses the range even if
/// the iterator is dropped unused (like std's `drain`); a range out of bounds panics with std's
/// message.
///
/// ```
/// use forkjoin::prelude::*;
/// let mut v: Vec<u32> = (0..10).collect();
/// let drained: Vec<u32> = v.par_drain(2..5).map(|x| x * 10).collect();
/// assert_eq!(drained, [20, 30, 40]);
/// assert_eq!(v, [0, 1, 5, 6, 7, 8, 9]);
///
/// let mut s = String::from("fork-join");
/// let upper: String = s.par_drain(..4).map(|c| c.to_ascii_uppercase()).collect();
/// assert_eq!((upper.as_str(), s.as_str()), ("FORK", "-join"));
/// ```
pub trait ParallelDrainRange<Idx = usize> {
    /// The parallel iterator over the drained items.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The drained items.
    type Item: Send;

    /// Removes `range` from the collection and iterates over its items in parallel.
    fn par_drain<R: RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

/// `range` as `start..end` within `0..len`, with std's panic messages.
fn bounded(range: impl RangeBounds<usize>, len: usize) -> Range<usize> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s
            .checked_add(1)
            .expect("attempted to index slice from after maximum usize"),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e
            .checked_add(1)
            .expect("attempted to index slice up to maximum usize"),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    assert!(
        start <= end,
        "slice index starts at {start} but ends at {end}"
    );
    assert!(
        end <= len,
        "range end index {end} out of range for slice of length {len}"
    );
    start..end
}

impl<'a, T: Send> ParallelDrainRange<usize> for &'a mut Vec<T> {
    type Iter = VecDrain<'a, T>;
    type Item = T;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> VecDrain<'a, T> {
        let orig_len = self.len();
        VecDrain {
            range: bounded(range, orig_len),
            orig_len,
            vec: self,
        }
    }
}

/// Parallel iterator over a range of items moved out of a `Vec`
/// ([`ParallelDrainRange::par_drain`]); indexed.
#[derive(Debug)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed (the range is removed anyway)"]
pub struct VecDrain<'a, T: Send> {
    vec: &'a mut Vec<T>,
    range: Range<usize>,
    /// The vector's length before; its length differs once the items were handed out.
    orig_len: usize,
}

impl<T: Send> ParallelIterator for VecDrain<'_, T> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.range.len())
    }
}

impl<T: Send> IndexedParallelIterator for VecDrain<'_, T> {
    fn len(&self) -> usize {
        self.range.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let Range { start, end } = self.range;
        // SAFETY: `start <= orig_len <= capacity`. From here on the vector reaches only its first
        // `start` items: the range's items move to the producer (see the module doc), and the
        // tail is restored by our `Drop`, which runs after the producer is gone, on return or
        // unwind.
        unsafe { self.vec.set_len(start) };
        let slots = &mut self.vec.spare_capacity_mut()[..end - start];
        callback.callback(DrainProducer::new(slots))
    }
}

impl<T: Send> Drop for VecDrain<'_, T> {
    fn drop(&mut self) {
        let Range { start, end } = self.range;
        if self.vec.len() == self.orig_len {
            // Never handed out (or an empty range at the end): std removes the range.
            self.vec.drain(start..end);
        } else {
            // The producer moved out or dropped every item of the range.
            let tail = self.orig_len - end;
            let base = self.vec.as_mut_ptr();
            // SAFETY: both runs lie within the allocation (`end + tail = orig_len <=
            // capacity`); `end..orig_len` holds the `tail` initialised items nobody else
            // reaches (the length is `start`), and `ptr::copy` allows the runs to overlap. After
            // the move `start..start + tail` holds them, so the new length covers only
            // initialised items.
            unsafe {
                std::ptr::copy(base.add(end), base.add(start), tail);
                self.vec.set_len(start + tail);
            }
        }
    }
}

impl<'a, T: Send> ParallelDrainRange<usize> for &'a mut VecDeque<T> {
    type Iter = VecDequeDrain<'a, T>;
    type Item = T;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> VecDequeDrain<'a, T> {
        let range = bounded(range, self.len());
        // In place: no allocation (the items move to the start of the buffer if they wrap).
        let vec = Vec::from(std::mem::take(self));
        VecDequeDrain {
            deque: self,
            vec,
            range: Some(range),
        }
    }
}

/// Parallel iterator over a range of items moved out of a `VecDeque`
/// ([`ParallelDrainRange::par_drain`]); indexed. The deque's buffer is viewed as a `Vec` (in
/// place, as rayon does) and drained like one; the deque gets it back, without the range, when
/// this is dropped, also after a panic.
#[derive(Debug)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed (the range is removed anyway)"]
pub struct VecDequeDrain<'a, T: Send> {
    /// Empty until `Drop` gives the buffer back.
    deque: &'a mut VecDeque<T>,
    /// The deque's items, in order.
    vec: Vec<T>,
    /// The range still to remove; `None` once it was handed out.
    range: Option<Range<usize>>,
}

impl<T: Send> ParallelIterator for VecDequeDrain<'_, T> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_lazy(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<T: Send> IndexedParallelIterator for VecDequeDrain<'_, T> {
    fn len(&self) -> usize {
        self.range.as_ref().map_or(0, Range::len)
    }

    fn with_producer<CB: ProducerCallback<T>>(mut self, callback: CB) -> CB::Output {
        let range = self.range.take().unwrap_or(0..0);
        let orig_len = self.vec.len();
        VecDrain {
            vec: &mut self.vec,
            range,
            orig_len,
        }
        .with_producer(callback)
        // The `VecDrain` closed the gap; `self`'s `Drop` returns the buffer to the deque.
    }
}

impl<T: Send> Drop for VecDequeDrain<'_, T> {
    fn drop(&mut self) {
        let mut vec = std::mem::take(&mut self.vec);
        if let Some(range) = self.range.take() {
            // Never handed out: std removes the range.
            vec.drain(range);
        }
        *self.deque = VecDeque::from(vec);
    }
}

impl<'a> ParallelDrainRange<usize> for &'a mut String {
    type Iter = StringDrain<'a>;
    type Item = char;

    /// # Panics
    /// Also if a bound of `range` is not on a character boundary, like `String::drain`.
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> StringDrain<'a> {
        let range = bounded(range, self.len());
        assert!(
            self.is_char_boundary(range.start) && self.is_char_boundary(range.end),
            "byte range {range:?} is not on char boundaries"
        );
        StringDrain {
            string: self,
            range,
        }
    }
}

/// Parallel iterator over the characters of a range moved out of a `String`
/// ([`ParallelDrainRange::par_drain`]); the range is removed when it is dropped.
#[derive(Debug)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed (the range is removed anyway)"]
pub struct StringDrain<'a> {
    string: &'a mut String,
    range: Range<usize>,
}

impl ParallelIterator for StringDrain<'_> {
    type Item = char;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<char>>(self, consumer: C) -> C::Result {
        use crate::str::ParallelString;
        self.string[self.range.clone()]
            .par_chars()
            .drive_lazy(consumer)
    }
}

impl Drop for StringDrain<'_> {
    fn drop(&mut self) {
        self.string.drain(self.range.clone());
    }
}
