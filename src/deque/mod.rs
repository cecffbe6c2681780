//! STUB (to be replaced by the Chase-Lev implementation): a mutex-protected deque with the final API,
//! so the layers above can be built against it.
#![allow(missing_docs)]

use std::collections::VecDeque;
use std::fmt;
use std::marker::PhantomData;

use crate::sync::{Arc, Mutex};

/// The owner's end of a work-stealing deque.
pub struct Worker<T> {
    inner: Arc<Mutex<VecDeque<T>>>,
    _not_sync: PhantomData<std::cell::Cell<()>>,
}

/// A thief's handle on a [`Worker`]'s deque.
pub struct Stealer<T> {
    inner: Arc<Mutex<VecDeque<T>>>,
}

/// The outcome of a steal attempt.
#[derive(Debug, PartialEq, Eq)]
pub enum Steal<T> {
    Empty,
    Success(T),
    Retry,
}

impl<T> Steal<T> {
    pub fn success(self) -> Option<T> {
        match self {
            Steal::Success(v) => Some(v),
            _ => None,
        }
    }
    pub fn is_empty(&self) -> bool {
        matches!(self, Steal::Empty)
    }
    pub fn is_retry(&self) -> bool {
        matches!(self, Steal::Retry)
    }
}

impl<T> Default for Worker<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Worker<T> {
    pub fn new() -> Self {
        Worker {
            inner: Arc::new(Mutex::new(VecDeque::new())),
            _not_sync: PhantomData,
        }
    }
    pub fn push(&self, value: T) {
        self.inner.lock().unwrap().push_back(value);
    }
    pub fn pop(&self) -> Option<T> {
        self.inner.lock().unwrap().pop_back()
    }
    pub fn stealer(&self) -> Stealer<T> {
        Stealer {
            inner: self.inner.clone(),
        }
    }
    pub fn len(&self) -> usize {
        self.inner.lock().unwrap().len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Stealer<T> {
    pub fn steal(&self) -> Steal<T> {
        match self.inner.lock().unwrap().pop_front() {
            Some(v) => Steal::Success(v),
            None => Steal::Empty,
        }
    }
    pub fn len(&self) -> usize {
        self.inner.lock().unwrap().len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Clone for Stealer<T> {
    fn clone(&self) -> Self {
        Stealer {
            inner: self.inner.clone(),
        }
    }
}

impl<T> fmt::Debug for Worker<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Worker { .. }")
    }
}

impl<T> fmt::Debug for Stealer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Stealer { .. }")
    }
}
