//! `map_with` and `map_init`: `map` with a mutable state per piece of the input.
//!
//! Both share one consumer, [`MapStateConsumer`]; they differ only in where a piece's state comes from
//! (a [`PieceState`]): `map_with` clones the value it was given, `map_init` calls a function.
//!
//! When driven (`sum`, `collect`, `for_each`, ...), the state lives in the consumer, not in a
//! producer: the bridge cuts a leaf's producer into many batches, so a producer-side state would be
//! made once per batch, while a consumer lives as long as its piece. As in rayon, both adaptors are
//! indexed when their base is; only a caller that asks for the producer itself (`zip`,
//! `enumerate`, `rev`, ... after `map_with`) gets a [`MapStateProducer`], whose states are made
//! once per batch of the bridge (rayon makes one per leaf; either may call `init` any number of
//! times).
//!
//! A piece makes its state lazily, when its first item arrives, so pieces that receive no items cost
//! nothing (`init` is not called at all on an empty input). A split-off piece starts from a fresh state, never from a copy of a state that already saw
//! items: a consumer can be split after it has consumed a prefix.

use std::mem::ManuallyDrop;

use crate::iter::adaptors::debug_impl::debug_skipping_closures;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use crate::platform::sync::thread::{self, ThreadId};

/// Where a piece's state comes from: [`MapWith`] clones a template, [`MapInit`] calls a function.
pub(crate) trait PieceState: Send + Sized {
    /// The state the user's closure mutates.
    type State;
    /// The state of this piece, made on first use. Called once per non-empty batch, not per item.
    fn get(&mut self) -> &mut Self::State;
    /// The source for a piece split off from this one; it must not share state with `self`.
    fn split(&self) -> Self;
}

/// [`PieceState`] of `map_with`: every piece clones the value passed to `map_with`.
///
/// The untouched `template` is kept next to the working copy because `T` need not be `Sync`, so the
/// pieces cannot share one template by reference.
#[derive(Debug)]
pub(crate) struct CloneState<T> {
    template: T,
    state: Option<T>,
}

impl<T: Clone + Send> PieceState for CloneState<T> {
    type State = T;
    fn get(&mut self) -> &mut T {
        let template = &self.template;
        self.state.get_or_insert_with(|| template.clone())
    }
    fn split(&self) -> Self {
        CloneState {
            template: self.template.clone(),
            state: None,
        }
    }
}

/// [`PieceState`] of `map_init`: every piece calls the `init` function once, when its first item
/// arrives.
#[derive(Debug)]
pub(crate) struct InitState<'f, INIT, T> {
    init: &'f INIT,
    state: Option<ThreadBound<T>>,
}

impl<INIT: Fn() -> T + Sync, T> PieceState for InitState<'_, INIT, T> {
    type State = T;
    fn get(&mut self) -> &mut T {
        // The state is made on the thread that runs the piece and stays there in practice (a leaf's
        // batches, and the left half of a split, run on the thread that started the piece). Should
        // the consumer ever have moved anyway, the old state is abandoned and a new one made here.
        if self.state.as_mut().is_none_or(|s| s.get_mut().is_none()) {
            self.state = Some(ThreadBound::new((self.init)()));
        }
        match self.state.as_mut().and_then(ThreadBound::get_mut) {
            Some(state) => state,
            None => unreachable!("a state made on this thread is usable on it"),
        }
    }
    fn split(&self) -> Self {
        InitState {
            init: self.init,
            state: None,
        }
    }
}

/// A value that is used and dropped only on the thread that made it, so it may travel inside a
/// consumer (which must be `Send`) even if `T` is not `Send`: rayon's `map_init` accepts non-`Send`
/// states such as `rand::thread_rng()`.
struct ThreadBound<T> {
    owner: ThreadId,
    /// Invariant: accessed (including dropped) only on the thread `owner`.
    value: ManuallyDrop<T>,
}

// SAFETY: sending a value to another thread is unsound only if it is then used or dropped there;
// `get_mut` and `Drop` refuse to touch `value` on any thread but `owner` (a `ThreadId` is never
// reused), so `value` is only ever moved as plain bytes elsewhere.
unsafe impl<T> Send for ThreadBound<T> {}

impl<T> ThreadBound<T> {
    fn new(value: T) -> Self {
        ThreadBound {
            owner: thread::current().id(),
            value: ManuallyDrop::new(value),
        }
    }

    /// The value, if called on the thread that made it.
    fn get_mut(&mut self) -> Option<&mut T> {
        (thread::current().id() == self.owner).then_some(&mut *self.value)
    }
}

impl<T> Drop for ThreadBound<T> {
    fn drop(&mut self) {
        if thread::current().id() == self.owner {
            // SAFETY: we are on the owner thread, as the field invariant requires, and `value` is
            // never touched again.
            unsafe { ManuallyDrop::drop(&mut self.value) };
        }
        // Elsewhere the value is leaked: dropping it on a foreign thread could be unsound.
    }
}

impl<T> std::fmt::Debug for ThreadBound<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadBound").finish_non_exhaustive()
    }
}

/// LazyConsumer behind [`MapWith`] and [`MapInit`]: maps every item with `map_op(&mut state, item)`.
#[derive(Debug)]
pub(crate) struct MapStateConsumer<'f, C, S, F> {
    base: C,
    source: S,
    map_op: &'f F,
}

impl<T, R, C, S, F> LazyConsumer<T> for MapStateConsumer<'_, C, S, F>
where
    C: LazyConsumer<R>,
    S: PieceState,
    F: Fn(&mut S::State, T) -> R + Sync,
{
    type Result = C::Result;
    type Reducer = C::Reducer;

    fn consume_iter<I: Iterator<Item = T>>(self, iter: I) -> Self {
        let MapStateConsumer {
            base,
            mut source,
            map_op,
        } = self;
        // Peek so that a batch without items (after a `filter`) does not make a state.
        let mut iter = iter.peekable();
        let base = if iter.peek().is_some() {
            let state = source.get();
            base.consume_iter(iter.map(|item| map_op(state, item)))
        } else {
            base
        };
        MapStateConsumer {
            base,
            source,
            map_op,
        }
    }
    fn split_off(self, keep: usize) -> (Self, Self, C::Reducer) {
        // The items are mapped one to one, so positions downstream are the same as here.
        let (left, right, reducer) = self.base.split_off(keep);
        let right = MapStateConsumer {
            base: right,
            source: self.source.split(),
            map_op: self.map_op,
        };
        (MapStateConsumer { base: left, ..self }, right, reducer)
    }
    fn complete(self) -> C::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
    fn prefers_end(&self) -> bool {
        self.base.prefers_end()
    }
    const CAN_PREFER_END: bool = C::CAN_PREFER_END;
}

/// Parallel iterator returned by [`ParallelIterator::map_with`].
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct MapWith<I, T, F> {
    base: I,
    init: T,
    map_op: F,
}

debug_skipping_closures!(MapWith<I, T, F> { base: I, init: T });

impl<I, T, F> MapWith<I, T, F> {
    pub(in crate::iter) fn new(base: I, init: T, map_op: F) -> Self {
        MapWith { base, init, map_op }
    }
}

impl<I, T, F, R> ParallelIterator for MapWith<I, T, F>
where
    I: ParallelIterator,
    T: Send + Clone,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<R>>(self, consumer: C) -> C::Result {
        let source = CloneState {
            template: self.init,
            state: None,
        };
        drive_with_state(self.base, source, &self.map_op, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, T, F, R> IndexedParallelIterator for MapWith<I, T, F>
where
    I: IndexedParallelIterator,
    T: Send + Clone,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let source = CloneState {
            template: self.init,
            state: None,
        };
        with_state_producer(self.base, source, &self.map_op, callback)
    }
}

/// Drives `base` into `consumer` through a [`MapStateConsumer`] whose pieces get their states from
/// `source` (the common part of [`MapWith`] and [`MapInit`]).
fn drive_with_state<I, S, F, R, C>(base: I, source: S, map_op: &F, consumer: C) -> C::Result
where
    I: ParallelIterator,
    S: PieceState,
    F: Fn(&mut S::State, I::Item) -> R + Sync + Send,
    R: Send,
    C: LazyConsumer<R>,
{
    base.drive_lazy(MapStateConsumer {
        base: consumer,
        source,
        map_op,
    })
}

/// Parallel iterator returned by [`ParallelIterator::map_init`].
#[derive(Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct MapInit<I, INIT, F> {
    base: I,
    init: INIT,
    map_op: F,
}

debug_skipping_closures!(MapInit<I, INIT, F> { base: I });

impl<I, INIT, F> MapInit<I, INIT, F> {
    pub(in crate::iter) fn new(base: I, init: INIT, map_op: F) -> Self {
        MapInit { base, init, map_op }
    }
}

impl<I, INIT, T, F, R> ParallelIterator for MapInit<I, INIT, F>
where
    I: ParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<R>>(self, consumer: C) -> C::Result {
        let source = InitState {
            init: &self.init,
            state: None,
        };
        drive_with_state(self.base, source, &self.map_op, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, INIT, T, F, R> IndexedParallelIterator for MapInit<I, INIT, F>
where
    I: IndexedParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let source = InitState {
            init: &self.init,
            state: None,
        };
        with_state_producer(self.base, source, &self.map_op, callback)
    }
}

/// Hands `callback` the producer of `base` mapped through a [`MapStateProducer`] whose pieces get
/// their states from `source` (the common part of the indexed [`MapWith`] and [`MapInit`]).
fn with_state_producer<I, S, F, R, CB>(base: I, source: S, map_op: &F, callback: CB) -> CB::Output
where
    I: IndexedParallelIterator,
    S: PieceState,
    F: Fn(&mut S::State, I::Item) -> R + Sync + Send,
    CB: ProducerCallback<R>,
{
    return base.with_producer(StateCallback {
        callback,
        source,
        map_op,
    });

    struct StateCallback<'f, CB, S, F> {
        callback: CB,
        source: S,
        map_op: &'f F,
    }

    impl<'f, T, R, CB, S, F> ProducerCallback<T> for StateCallback<'f, CB, S, F>
    where
        CB: ProducerCallback<R>,
        S: PieceState,
        F: Fn(&mut S::State, T) -> R + Sync,
    {
        type Output = CB::Output;
        fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
            self.callback.callback(MapStateProducer {
                base,
                source: self.source,
                map_op: self.map_op,
            })
        }
    }
}

/// Producer of an indexed [`MapWith`] or [`MapInit`]: every piece maps its items with a state of
/// its own, made when its first item is mapped.
#[derive(Debug)]
struct MapStateProducer<'f, P, S, F> {
    base: P,
    source: S,
    map_op: &'f F,
}

impl<'f, P, S, F, R> Producer for MapStateProducer<'f, P, S, F>
where
    P: Producer,
    S: PieceState,
    F: Fn(&mut S::State, P::Item) -> R + Sync,
{
    type Item = R;
    type IntoIter = MapStateSeq<'f, P::IntoIter, S, F>;

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let right = MapStateProducer {
            base: right,
            source: self.source.split(),
            map_op: self.map_op,
        };
        (MapStateProducer { base: left, ..self }, right)
    }
    fn into_iter(self) -> Self::IntoIter {
        MapStateSeq {
            iter: self.base.into_iter(),
            source: self.source,
            map_op: self.map_op,
        }
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
}

/// The sequential iterator of a [`MapStateProducer`].
#[derive(Debug)]
struct MapStateSeq<'f, I, S, F> {
    iter: I,
    source: S,
    map_op: &'f F,
}

impl<I, S, F, R> Iterator for MapStateSeq<'_, I, S, F>
where
    I: Iterator,
    S: PieceState,
    F: Fn(&mut S::State, I::Item) -> R,
{
    type Item = R;
    #[inline]
    fn next(&mut self) -> Option<R> {
        let item = self.iter.next()?;
        Some((self.map_op)(self.source.get(), item))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

impl<I, S, F, R> DoubleEndedIterator for MapStateSeq<'_, I, S, F>
where
    I: DoubleEndedIterator,
    S: PieceState,
    F: Fn(&mut S::State, I::Item) -> R,
{
    #[inline]
    fn next_back(&mut self) -> Option<R> {
        let item = self.iter.next_back()?;
        Some((self.map_op)(self.source.get(), item))
    }
}

impl<I, S, F, R> ExactSizeIterator for MapStateSeq<'_, I, S, F>
where
    I: ExactSizeIterator,
    S: PieceState,
    F: Fn(&mut S::State, I::Item) -> R,
{
}
