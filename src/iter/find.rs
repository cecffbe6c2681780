//! Short-circuiting consumers: `any` (and `all` through it) and `find_any`.
//!
//! A shared flag is set by the piece that finds a match; every piece stops at its next batch boundary
//! once it sees the flag. Relaxed suffices: the flag is only an early-exit hint, and the result itself
//! travels back through `join`, which synchronises.

use super::plumbing::{Consumer, Reducer};
use crate::sync::{AtomicBool, Ordering};

/// Consumer behind [`ParallelIterator::any`](super::ParallelIterator::any).
#[derive(Debug)]
pub struct AnyConsumer<'f, P> {
    found: &'f AtomicBool,
    predicate: &'f P,
    hit: bool,
}

impl<'f, P> AnyConsumer<'f, P> {
    pub(super) fn new(found: &'f AtomicBool, predicate: &'f P) -> Self {
        AnyConsumer {
            found,
            predicate,
            hit: false,
        }
    }
}

impl<'f, T, P: Fn(T) -> bool + Sync> Consumer<T> for AnyConsumer<'f, P> {
    type Result = bool;
    type Reducer = OrReducer;

    fn consume_iter<I: Iterator<Item = T>>(mut self, mut iter: I) -> Self {
        // `full`, not only `hit`: the only worker of a pool feeds a whole piece in one call, also
        // one that starts after another piece found a match (a range of 2^100 items never ends).
        if !self.full() && iter.any(self.predicate) {
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
pub struct OrReducer;

impl Reducer<bool> for OrReducer {
    fn reduce(self, left: bool, right: bool) -> bool {
        left || right
    }
}

/// Consumer behind [`ParallelIterator::find_any`](super::ParallelIterator::find_any).
#[derive(Debug)]
pub struct FindAnyConsumer<'f, T, P> {
    found: &'f AtomicBool,
    predicate: &'f P,
    item: Option<T>,
}

impl<'f, T, P> FindAnyConsumer<'f, T, P> {
    pub(super) fn new(found: &'f AtomicBool, predicate: &'f P) -> Self {
        FindAnyConsumer {
            found,
            predicate,
            item: None,
        }
    }
}

impl<'f, T: Send, P: Fn(&T) -> bool + Sync> Consumer<T> for FindAnyConsumer<'f, T, P> {
    type Result = Option<T>;
    type Reducer = FirstSomeReducer;

    fn consume_iter<I: Iterator<Item = T>>(mut self, mut iter: I) -> Self {
        // `full`, not only our own item: see `AnyConsumer::consume_iter`.
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
pub struct FirstSomeReducer;

impl<T> Reducer<Option<T>> for FirstSomeReducer {
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        left.or(right)
    }
}
