//! `collect`: [`FromParallelIterator`] and the two ways of building a `Vec`.
//!
//! * Indexed input (exact length known): the destination's spare capacity is split along with the
//!   input, and every piece writes its items straight into their final slots ([`CollectConsumer`]).
//!   Adjacent finished pieces merge in O(1); no temporary vectors are made.
//! * Otherwise (`filter`, `fold`, ...): each piece pushes into its own `Vec`, and the pieces are
//!   concatenated in order at the end.
//!
//! Panic safety: a [`CollectConsumer`] owns exactly the items it has written and drops them if it is
//! dropped (a panic unwinding through a piece, or a piece whose result is discarded); the destination's
//! length is set only after every slot was written.

use std::marker::PhantomData;
use std::mem::MaybeUninit;

use crate::iter::plumbing::{LazyConsumer, Reducer};
use crate::iter::{
    IndexedParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator,
};
use crate::platform::sync::shared;

/// Building a collection from a parallel iterator (the parallel [`FromIterator`]), used by
/// [`ParallelIterator::collect`].
///
/// ```
/// use forkjoin::prelude::*;
/// let v = Vec::from_par_iter((0..3u8).into_par_iter());
/// assert_eq!(v, [0, 1, 2]);
/// ```
pub trait FromParallelIterator<T: Send> {
    /// Builds `Self` from the items of `par_iter`, in order.
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self;
}

impl<T: Send> FromParallelIterator<T> for Vec<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        let par_iter = par_iter.into_par_iter();
        // Exact capacity when the length is known (`par_extend` alone would round small ones up).
        let mut vec = Vec::with_capacity(par_iter.opt_len().unwrap_or(0));
        vec.par_extend(par_iter);
        vec
    }
}

/// Appends the items of an iterator of unknown length to `target`: every piece collects into its own
/// `Vec`, and the pieces are appended in order.
pub(in crate::iter) fn append_pieces<I: ParallelIterator>(par_iter: I, target: &mut Vec<I::Item>) {
    let pieces = par_iter.drive_lazy(ListVecConsumer { vec: Vec::new() });
    target.reserve(pieces.iter().map(Vec::len).sum());
    for mut piece in pieces {
        target.append(&mut piece);
    }
}

/// Collecting into `()` runs the iterator for its effects, like `for_each(|()| {})`.
///
/// ```
/// use forkjoin::prelude::*;
/// use std::sync::atomic::{AtomicU32, Ordering};
/// let hits = AtomicU32::new(0);
/// let () = (0..10u32).into_par_iter().map(|_| { hits.fetch_add(1, Ordering::Relaxed); }).collect();
/// assert_eq!(hits.into_inner(), 10);
/// ```
impl FromParallelIterator<()> for () {
    fn from_par_iter<I: IntoParallelIterator<Item = ()>>(par_iter: I) -> Self {
        par_iter.into_par_iter().for_each(|()| {});
    }
}

/// `String` and `Box<str>` from characters and string pieces: the pieces are concatenated in order.
macro_rules! collect_string {
    ($($item:ty $(, $a:lifetime)?;)*) => {$(
        /// The items are concatenated in order (each piece of the input builds its own `String`).
        impl$(<$a>)? FromParallelIterator<$item> for String {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(par_iter: I) -> Self {
                let mut s = String::new();
                s.par_extend(par_iter);
                s
            }
        }

        /// The items are concatenated in order, as for `String`.
        impl$(<$a>)? FromParallelIterator<$item> for Box<str> {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(par_iter: I) -> Self {
                String::from_par_iter(par_iter).into_boxed_str()
            }
        }
    )*};
}

collect_string! {
    char;
    &'a char, 'a;
    &'a str, 'a;
    String;
    Box<str>;
    std::borrow::Cow<'a, str>, 'a;
}

/// `Box<[T]>`, `Rc<[T]>` and `Arc<[T]>`: collected into a `Vec`, then converted.
macro_rules! collect_slice {
    ($($ty:ty;)*) => {$(
        /// Collected into a `Vec` (in place for indexed iterators), then converted.
        impl<T: Send> FromParallelIterator<T> for $ty {
            fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
                Vec::from_par_iter(par_iter).into()
            }
        }
    )*};
}

collect_slice! {
    Box<[T]>;
    std::rc::Rc<[T]>;
    shared::Arc<[T]>;
}

/// Any `Cow` whose owned form can be collected: always `Cow::Owned`.
///
/// ```
/// use forkjoin::prelude::*;
/// use std::borrow::Cow;
/// let c: Cow<'_, [u8]> = (1..4u8).into_par_iter().collect();
/// assert_eq!(c, Cow::<[u8]>::Owned(vec![1, 2, 3]));
/// ```
impl<'a, C, T> FromParallelIterator<T> for std::borrow::Cow<'a, C>
where
    C: ToOwned<Owned: FromParallelIterator<T>> + ?Sized,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        std::borrow::Cow::Owned(C::Owned::from_par_iter(par_iter))
    }
}

/// A string type that a parallel iterator builds piece by piece (`String`, `OsString`).
pub(in crate::iter) trait TextBuffer: Default + Send {
    /// Length in bytes.
    fn text_len(&self) -> usize;
    /// Makes room for `additional` more bytes.
    fn reserve_text(&mut self, additional: usize);
    /// Appends `piece`.
    fn append_text(&mut self, piece: &Self);
}

/// `TextBuffer` for the std string types; `$push` appends a piece (`String::push_str`, ...).
macro_rules! text_buffer {
    ($($ty:ty, $push:ident;)*) => {$(
        impl TextBuffer for $ty {
            fn text_len(&self) -> usize {
                self.len()
            }
            fn reserve_text(&mut self, additional: usize) {
                self.reserve(additional);
            }
            fn append_text(&mut self, piece: &Self) {
                self.$push(piece);
            }
        }
    )*};
}

text_buffer! {
    String, push_str;
    std::ffi::OsString, push;
}

/// Folds every piece into its own buffer, then appends the pieces to `target` in order.
pub(in crate::iter) fn append_string_pieces<
    S: TextBuffer,
    T: Send,
    I: IntoParallelIterator<Item = T>,
>(
    target: &mut S,
    par_iter: I,
    push: impl Fn(&mut S, T) + Sync + Send,
) {
    let pieces: Vec<S> = par_iter
        .into_par_iter()
        .fold(S::default, |mut s, x| {
            push(&mut s, x);
            s
        })
        .collect();
    target.reserve_text(pieces.iter().map(S::text_len).sum());
    for piece in &pieces {
        target.append_text(piece);
    }
}

/// Collections built by extending an empty one (see their `ParallelExtend`: per-piece vectors,
/// one reservation, no vector of all the items).
macro_rules! via_extend {
    ($(#[$doc:meta] $ty:ty => [$($bound:tt)*] $item:ty;)*) => {$(
        #[$doc]
        impl<$($bound)*> FromParallelIterator<$item> for $ty {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(par_iter: I) -> Self {
                let mut c = Self::default();
                c.par_extend(par_iter);
                c
            }
        }
    )*};
}

via_extend! {
    /// Items are produced in parallel, then inserted sequentially in order (later keys win).
    std::collections::HashMap<K, V, S> => [K: Eq + std::hash::Hash + Send, V: Send, S: std::hash::BuildHasher + Default] (K, V);
    /// Items are produced in parallel, then inserted sequentially.
    std::collections::HashSet<T, S> => [T: Eq + std::hash::Hash + Send, S: std::hash::BuildHasher + Default] T;
    /// Items are produced in parallel, then inserted sequentially in order (later keys win).
    std::collections::BTreeMap<K, V> => [K: Ord + Send, V: Send] (K, V);
    /// Items are produced in parallel, then inserted sequentially.
    std::collections::BTreeSet<T> => [T: Ord + Send] T;
    /// Every piece builds its own list; the lists are linked in order.
    std::collections::LinkedList<T> => [T: Send] T;
}

/// Collected into a `Vec` (in place for indexed iterators), whose buffer the deque then takes over.
impl<T: Send> FromParallelIterator<T> for std::collections::VecDeque<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into()
    }
}

/// Collected into a `Vec` (in place for indexed iterators), which is then made a heap in place.
impl<T: Ord + Send> FromParallelIterator<T> for std::collections::BinaryHeap<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into()
    }
}

/// Collects an indexed iterator into `target`, which is cleared first.
pub(in crate::iter) fn collect_indexed_into<I: IndexedParallelIterator>(
    par_iter: I,
    target: &mut Vec<I::Item>,
) {
    target.clear();
    let len = par_iter.len();
    target.reserve_exact(len);
    append_with_len(par_iter, len, target);
}

/// Appends the `len` items of `par_iter` (whose `opt_len()` is `Some(len)`) to `target`, writing
/// them straight into its spare capacity. If this panics, `target` keeps exactly its old items.
pub(in crate::iter) fn append_with_len<I: ParallelIterator>(
    par_iter: I,
    len: usize,
    target: &mut Vec<I::Item>,
) {
    target.reserve(len);
    let old_len = target.len();
    let written = {
        let slots = &mut target.spare_capacity_mut()[..len];
        let result = par_iter.drive_lazy(CollectConsumer::new(slots));
        let written = result.initialized;
        if written != len {
            // Dropping `result` drops the items written so far; nothing is leaked.
            drop(result);
            panic!("parallel collect expected {len} items but the iterator produced {written}");
        }
        result.release();
        written
    };
    // SAFETY: the consumer covering the whole `slots` range (the `len` slots right after the old
    // items) reported all of them initialised and gave up its ownership of them (`release`), so the
    // Vec may now own them.
    unsafe { target.set_len(old_len + written) };
}

/// LazyConsumer that writes items, in order, into a run of uninitialised destination slots.
///
/// It is also its own result: after [`complete`](LazyConsumer::complete) it still owns the items it wrote
/// until they are merged into the left neighbour or released to the destination `Vec`.
#[derive(Debug)]
pub(crate) struct CollectConsumer<'a, T> {
    /// First slot of the run.
    start: *mut T,
    /// Number of slots in the run.
    len: usize,
    /// Invariant: slots `[0, initialized)` are initialised and owned by this consumer; the rest are not.
    initialized: usize,
    _slots: PhantomData<&'a mut [MaybeUninit<T>]>,
}

// SAFETY: a CollectConsumer is an exclusive borrow of its slots plus ownership of the `T`s written in
// them, so it may move to another thread exactly when `&mut [T]` and `T` may, i.e. when `T: Send`.
unsafe impl<T: Send> Send for CollectConsumer<'_, T> {}

impl<'a, T> CollectConsumer<'a, T> {
    fn new(slots: &'a mut [MaybeUninit<T>]) -> Self {
        CollectConsumer {
            start: slots.as_mut_ptr().cast(),
            len: slots.len(),
            initialized: 0,
            _slots: PhantomData,
        }
    }

    /// Gives up ownership of the written items (the caller takes it over).
    fn release(self) {
        std::mem::forget(self);
    }
}

impl<T: Send> LazyConsumer<T> for CollectConsumer<'_, T> {
    type Result = Self;
    type Reducer = CollectReducer;

    fn consume_iter<I: Iterator<Item = T>>(mut self, iter: I) -> Self {
        let (start, len) = (self.start, self.len);
        // Internal iteration (`fold`) so chained and mapped sources run as tight loops. The count of
        // written slots travels as the fold's by-value accumulator, so it stays in a register: kept
        // in `self`, every item's write through `start` could alias it, which forces a load and a
        // store of the count per item and stops vectorisation. The tally writes the count back
        // even if a user closure panics midway, so the field invariant (and `Drop`) stay exact.
        iter.fold(Tally::new(&mut self.initialized), |mut tally, item| {
            assert!(
                tally.written < len,
                "parallel collect: the iterator produced more items than its length"
            );
            // SAFETY: `written < len`, so the slot is inside our run, which we borrow exclusively;
            // it is uninitialised by the field invariant, so nothing is overwritten without a drop.
            unsafe { start.add(tally.written).write(item) };
            tally.written += 1;
            tally
        });
        self
    }

    fn split_off(mut self, keep: usize) -> (Self, Self, CollectReducer) {
        let at = self.initialized + keep;
        assert!(
            at <= self.len,
            "parallel collect: split beyond the destination"
        );
        let right = CollectConsumer {
            // SAFETY: `at <= len`, so the pointer stays within (or one past) our run.
            start: unsafe { self.start.add(at) },
            len: self.len - at,
            initialized: 0,
            _slots: PhantomData,
        };
        self.len = at;
        (self, right, CollectReducer)
    }

    fn complete(self) -> Self {
        self
    }
}

impl<T> Drop for CollectConsumer<'_, T> {
    fn drop(&mut self) {
        let written = std::ptr::slice_from_raw_parts_mut(self.start, self.initialized);
        // SAFETY: by the field invariant these slots are initialised and owned only by us, and after
        // this drop nobody can reach them through us.
        unsafe { std::ptr::drop_in_place(written) };
    }
}

/// The running count of a [`CollectConsumer`]'s written slots during one `consume_iter`; stores it
/// back into the consumer when dropped, including while unwinding.
struct Tally<'c> {
    written: usize,
    field: &'c mut usize,
}

impl<'c> Tally<'c> {
    fn new(field: &'c mut usize) -> Self {
        Tally {
            written: *field,
            field,
        }
    }
}

impl Drop for Tally<'_> {
    fn drop(&mut self) {
        *self.field = self.written;
    }
}

/// Merges adjacent [`CollectConsumer`] results.
#[derive(Debug)]
pub(crate) struct CollectReducer;

impl<'a, T> Reducer<CollectConsumer<'a, T>> for CollectReducer {
    fn reduce(
        self,
        mut left: CollectConsumer<'a, T>,
        right: CollectConsumer<'a, T>,
    ) -> CollectConsumer<'a, T> {
        // Merge only if the left run is full and the right one starts where it ends; otherwise keep
        // the left and drop the right (with its items): the final length check then reports the gap.
        if left.initialized == left.len && left.start.wrapping_add(left.len) == right.start {
            left.len += right.len;
            left.initialized += right.initialized;
            right.release();
        }
        left
    }
}

/// LazyConsumer for iterators of unknown length: every piece collects into its own `Vec`.
#[derive(Debug)]
pub(crate) struct ListVecConsumer<T> {
    vec: Vec<T>,
}

impl<T> ListVecConsumer<T> {
    pub(crate) fn new() -> Self {
        ListVecConsumer { vec: Vec::new() }
    }
}

impl<T: Send> LazyConsumer<T> for ListVecConsumer<T> {
    type Result = Vec<Vec<T>>;
    type Reducer = ListReducer;

    fn consume_iter<I: Iterator<Item = T>>(mut self, iter: I) -> Self {
        self.vec.reserve(iter.size_hint().0);
        iter.for_each(|item| self.vec.push(item));
        self
    }
    fn split_off(self, _keep: usize) -> (Self, Self, ListReducer) {
        (self, ListVecConsumer { vec: Vec::new() }, ListReducer)
    }
    fn complete(self) -> Vec<Vec<T>> {
        if self.vec.is_empty() {
            Vec::new()
        } else {
            vec![self.vec]
        }
    }
}

/// Concatenates lists of pieces, left then right. A right piece that fits in the spare capacity
/// of the left list's last one, or is at most an eighth of its length, is moved into it: a piece
/// split off late for an idle worker is often small, and callers of
/// [`collect_vec_list`](crate::iter::ParallelIterator::collect_vec_list) pay per `Vec` (a
/// map's `par_extend` reserves and extends once per piece). Each item is moved at most a few
/// times: only into a vector at least eight times longer, or without reallocating.
#[derive(Debug)]
pub(crate) struct ListReducer;

impl<T> Reducer<Vec<Vec<T>>> for ListReducer {
    fn reduce(self, mut left: Vec<Vec<T>>, right: Vec<Vec<T>>) -> Vec<Vec<T>> {
        for mut piece in right {
            match left.last_mut() {
                Some(last)
                    if piece.len() <= last.capacity() - last.len()
                        || piece.len().saturating_mul(8) <= last.len() =>
                {
                    last.append(&mut piece)
                }
                _ => left.push(piece),
            }
        }
        left
    }
}
