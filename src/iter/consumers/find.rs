//! Short-circuiting consumers: `any` (and `all` through it) and `find_any`.
//!
//! A shared flag is set by the piece that finds a match; every piece stops at its next batch boundary
//! once it sees the flag. Relaxed suffices: the flag is only an early-exit hint, and the result itself
//! travels back through `join`, which synchronises.

use crate::iter::plumbing::user_op::inlinable_op;
use crate::iter::plumbing::{LazyConsumer, Reducer};
use crate::platform::sync::{AtomicBool, Ordering};

/// LazyConsumer behind [`ParallelIterator::any`](crate::iter::ParallelIterator::any).
#[derive(Debug)]
pub(crate) struct AnyConsumer<'f, P> {
    found: &'f AtomicBool,
    predicate: &'f P,
    hit: bool,
}

impl<'f, P> AnyConsumer<'f, P> {
    pub(in crate::iter) fn new(found: &'f AtomicBool, predicate: &'f P) -> Self {
        AnyConsumer {
            found,
            predicate,
            hit: false,
        }
    }
}

impl<'f, T, P: Fn(T) -> bool + Sync> LazyConsumer<T> for AnyConsumer<'f, P> {
    type Result = bool;
    type Reducer = OrReducer;

    fn consume_iter<I: Iterator<Item = T>>(mut self, mut iter: I) -> Self {
        // `full` also when another piece hit: a piece folded in one go (the only worker of a
        // pool) must not scan on after that.
        // `inlinable_op`: so that the predicate can be inlined into this loop.
        if !self.full() && iter.any(inlinable_op(self.predicate)) {
            self.hit = true;
            self.found.store(true, Ordering::Relaxed);
        }
        self
    }
    fn split_off(self, _keep: usize) -> (Self, Self, OrReducer) {
        let right = AnyConsumer::new(self.found, self.predicate);
        (self, right, OrReducer)
    }
    fn complete(self) -> bool {
        self.hit
    }
    fn full(&self) -> bool {
        self.hit || self.found.load(Ordering::Relaxed)
    }
}

/// Combines `any` results.
#[derive(Debug)]
pub(crate) struct OrReducer;

impl Reducer<bool> for OrReducer {
    fn reduce(self, left: bool, right: bool) -> bool {
        left || right
    }
}

/// LazyConsumer behind [`ParallelIterator::find_any`](crate::iter::ParallelIterator::find_any).
#[derive(Debug)]
pub(crate) struct FindAnyConsumer<'f, T, P> {
    found: &'f AtomicBool,
    predicate: &'f P,
    item: Option<T>,
}

impl<'f, T, P> FindAnyConsumer<'f, T, P> {
    pub(in crate::iter) fn new(found: &'f AtomicBool, predicate: &'f P) -> Self {
        FindAnyConsumer {
            found,
            predicate,
            item: None,
        }
    }
}

impl<'f, T: Send, P: Fn(&T) -> bool + Sync> LazyConsumer<T> for FindAnyConsumer<'f, T, P> {
    type Result = Option<T>;
    type Reducer = FirstSomeReducer;

    fn consume_iter<I: Iterator<Item = T>>(mut self, mut iter: I) -> Self {
        // Not after another piece found one (see `AnyConsumer::consume_iter`).
        if !self.full() {
            let predicate = self.predicate;
            self.item = iter.find(|x| predicate(x));
            if self.item.is_some() {
                self.found.store(true, Ordering::Relaxed);
            }
        }
        self
    }
    fn split_off(self, _keep: usize) -> (Self, Self, FirstSomeReducer) {
        let right = FindAnyConsumer::new(self.found, self.predicate);
        (self, right, FirstSomeReducer)
    }
    fn complete(self) -> Option<T> {
        self.item
    }
    fn full(&self) -> bool {
        self.item.is_some() || self.found.load(Ordering::Relaxed)
    }
}

/// Keeps the left result if there is one.
#[derive(Debug)]
pub(crate) struct FirstSomeReducer;

impl<T> Reducer<Option<T>> for FirstSomeReducer {
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        left.or(right)
    }
}
