//! `for_each`: calls a function on every item.

use crate::iter::plumbing::user_op::inlinable_op;
use crate::iter::plumbing::{LazyConsumer, Reducer};

/// LazyConsumer behind [`ParallelIterator::for_each`](crate::iter::ParallelIterator::for_each).
#[derive(Debug)]
pub(crate) struct ForEachConsumer<'f, F> {
    pub(in crate::iter) op: &'f F,
}

impl<'f, T, F: Fn(T) + Sync> LazyConsumer<T> for ForEachConsumer<'f, F> {
    type Result = ();
    type Reducer = NoopReducer;

    fn consume_iter<I: Iterator<Item = T>>(self, iter: I) -> Self {
        // `inlinable_op`: so that `op` can be inlined into this loop.
        iter.for_each(inlinable_op(self.op));
        self
    }
    fn split_off(self, _keep: usize) -> (Self, Self, NoopReducer) {
        (ForEachConsumer { op: self.op }, self, NoopReducer)
    }
    fn complete(self) {}
}

/// A reducer for results that need no combining (`for_each`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NoopReducer;

impl Reducer<()> for NoopReducer {
    #[inline]
    fn reduce(self, _left: (), _right: ()) {}
}
