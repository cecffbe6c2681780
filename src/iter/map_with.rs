//! `map_with` and `map_init`: `map` with a mutable state per piece of the input.
//!
//! Both share one consumer, [`MapStateConsumer`]; they differ only in where a piece's state comes from
//! (a [`PieceState`]): `map_with` clones the value it was given, `map_init` calls a function.
//!
//! The state lives in the consumer, not in a producer: the bridge cuts a leaf's producer into many
//! batches, so a producer-side state would be made once per batch, while a consumer lives as long as
//! its piece. The price is that these adaptors are not indexed (rayon's are); `collect` into a `Vec`
//! still writes in place, because the exact length is passed on.
//!
//! A piece makes its state lazily, when its first item arrives, so pieces that receive no items cost
//! nothing (`init` is not called at all on an empty input). A split-off piece starts from a fresh state, never from a copy of a state that already saw
//! items: a consumer can be split after it has consumed a prefix.

use std::mem::ManuallyDrop;

use super::debug_impl::debug_skipping_closures;
use super::plumbing::Consumer;
use super::ParallelIterator;
use crate::sync::thread::{self, ThreadId};

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

/// Consumer behind [`MapWith`] and [`MapInit`]: maps every item with `map_op(&mut state, item)`.
#[derive(Debug)]
pub(crate) struct MapStateConsumer<'f, C, S, F> {
    base: C,
    source: S,
    map_op: &'f F,
}

impl<T, R, C, S, F> Consumer<T> for MapStateConsumer<'_, C, S, F>
where
    C: Consumer<R>,
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
    pub(super) fn new(base: I, init: T, map_op: F) -> Self {
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

    fn drive_unindexed<C: Consumer<R>>(self, consumer: C) -> C::Result {
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

/// Drives `base` into `consumer` through a [`MapStateConsumer`] whose pieces get their states from
/// `source` (the common part of [`MapWith`] and [`MapInit`]).
fn drive_with_state<I, S, F, R, C>(base: I, source: S, map_op: &F, consumer: C) -> C::Result
where
    I: ParallelIterator,
    S: PieceState,
    F: Fn(&mut S::State, I::Item) -> R + Sync + Send,
    R: Send,
    C: Consumer<R>,
{
    base.drive_unindexed(MapStateConsumer {
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
    pub(super) fn new(base: I, init: INIT, map_op: F) -> Self {
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

    fn drive_unindexed<C: Consumer<R>>(self, consumer: C) -> C::Result {
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
