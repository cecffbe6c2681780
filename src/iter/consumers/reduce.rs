//! `reduce(identity, op)`: an ordered reduction (also behind `min`, `max`, `min_by_key`, `max_by_key`).

use crate::iter::plumbing::user_op::inlinable_op2;
use crate::iter::plumbing::{LazyConsumer, Reducer};

/// LazyConsumer behind [`ParallelIterator::reduce`](crate::iter::ParallelIterator::reduce): folds its items into
/// `acc` with `op`; split halves start from `identity()` and are combined left-then-right.
#[derive(Debug)]
pub(crate) struct ReduceConsumer<'f, T, ID, OP> {
    acc: T,
    identity: &'f ID,
    op: &'f OP,
}

impl<'f, T, ID: Fn() -> T, OP> ReduceConsumer<'f, T, ID, OP> {
    pub(in crate::iter) fn new(identity: &'f ID, op: &'f OP) -> Self {
        ReduceConsumer {
            acc: identity(),
            identity,
            op,
        }
    }
}

impl<'f, T, ID, OP> LazyConsumer<T> for ReduceConsumer<'f, T, ID, OP>
where
    T: Send,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
{
    type Result = T;
    type Reducer = ReduceReducer<'f, OP>;

    fn consume_iter<I: Iterator<Item = T>>(self, iter: I) -> Self {
        ReduceConsumer {
            // `inlinable_op2`: so that `op` can be inlined into this loop.
            acc: iter.fold(self.acc, inlinable_op2(self.op)),
            ..self
        }
    }
    fn split_off(self, _keep: usize) -> (Self, Self, ReduceReducer<'f, OP>) {
        let right = ReduceConsumer::new(self.identity, self.op);
        let reducer = ReduceReducer { op: self.op };
        (self, right, reducer)
    }
    fn complete(self) -> T {
        self.acc
    }
}

/// Combines two partial reductions with the user's operation.
#[derive(Debug)]
pub(crate) struct ReduceReducer<'f, OP> {
    op: &'f OP,
}

impl<T, OP: Fn(T, T) -> T> Reducer<T> for ReduceReducer<'_, OP> {
    fn reduce(self, left: T, right: T) -> T {
        (self.op)(left, right)
    }
}
