//! The consumer shared by the adaptors that only rewrite the stream of items (`map`, `filter`,
//! `filter_map`): it applies an [`ItemOp`] to every sequential run it is fed and passes the result on.

use crate::iter::plumbing::user_op::inlinable_op;
use crate::iter::plumbing::LazyConsumer;

/// An operation on a sequential run of items, applied by an [`OpConsumer`] before the items go on.
///
/// Implementors hold only a reference to the user's closure, so they are `Copy` and every split half
/// of the consumer shares the same closure.
pub(crate) trait ItemOp<T>: Copy + Send {
    /// The items after the operation.
    type Out;
    /// Applies the operation to one run of items, in order.
    fn apply<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = Self::Out>;
    /// True once the operation will pass no more items on (`take_any` after its last item), so
    /// every piece can stop pulling items.
    fn stopped(self) -> bool {
        false
    }
}

/// LazyConsumer that applies `op` to the items before passing them on to `base`
/// (the consumers of `map`, `filter`, `filter_map`, `flat_map_iter` and `flatten_iter`).
#[derive(Debug)]
pub(crate) struct OpConsumer<C, O> {
    base: C,
    op: O,
}

impl<C, O> OpConsumer<C, O> {
    pub(in crate::iter) fn new(base: C, op: O) -> Self {
        OpConsumer { base, op }
    }
}

impl<T, C, O> LazyConsumer<T> for OpConsumer<C, O>
where
    O: ItemOp<T>,
    C: LazyConsumer<O::Out>,
{
    type Result = C::Result;
    type Reducer = C::Reducer;

    fn consume_iter<I: Iterator<Item = T>>(self, iter: I) -> Self {
        Self::new(self.base.consume_iter(self.op.apply(iter)), self.op)
    }
    fn split_off(self, keep: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_off(keep);
        (Self::new(left, self.op), Self::new(right, self.op), reducer)
    }
    fn complete(self) -> C::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.op.stopped() || self.base.full()
    }
    fn prefers_end(&self) -> bool {
        self.base.prefers_end()
    }
    const CAN_PREFER_END: bool = C::CAN_PREFER_END;
}

/// Declares an [`ItemOp`] wrapper around `&'f F` (by hand `Copy`: a derive would demand `F: Copy`).
macro_rules! item_op {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub(crate) struct $name<'f, F>(pub(in crate::iter) &'f F);

        impl<F> Clone for $name<'_, F> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<F> Copy for $name<'_, F> {}
    };
}

item_op!(
    /// The [`ItemOp`] of `map`: applies the function to every item.
    MapOp
);
item_op!(
    /// The [`ItemOp`] of `filter`: keeps the items the predicate accepts.
    FilterOp
);
item_op!(
    /// The [`ItemOp`] of `filter_map`: keeps the `Some` values the function returns.
    FilterMapOp
);
item_op!(
    /// The [`ItemOp`] of `flat_map_iter`: replaces every item by the items of the iterator it maps to.
    FlatMapIterOp
);

// The user's closure goes to std through `inlinable_op`, so that it can be inlined into the loop.

impl<T, R, F: Fn(T) -> R + Sync> ItemOp<T> for MapOp<'_, F> {
    type Out = R;
    fn apply<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = R> {
        iter.map(inlinable_op(self.0))
    }
}

impl<T, F: Fn(&T) -> bool + Sync> ItemOp<T> for FilterOp<'_, F> {
    type Out = T;
    fn apply<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = T> {
        let filter_op = self.0;
        iter.filter(move |x| filter_op(x))
    }
}

impl<T, R, F: Fn(T) -> Option<R> + Sync> ItemOp<T> for FilterMapOp<'_, F> {
    type Out = R;
    fn apply<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = R> {
        iter.filter_map(inlinable_op(self.0))
    }
}

impl<T, SI: IntoIterator, F: Fn(T) -> SI + Sync> ItemOp<T> for FlatMapIterOp<'_, F> {
    type Out = SI::Item;
    fn apply<I: Iterator<Item = T>>(self, iter: I) -> impl Iterator<Item = SI::Item> {
        iter.flat_map(inlinable_op(self.0))
    }
}
