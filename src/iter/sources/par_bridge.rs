//! `par_bridge`: a parallel iterator over the items of any sequential `Iterator + Send`.
//!
//! The iterator sits behind a mutex; the bridge splits the work into one piece per pool thread up
//! front (positions are pieces, not items), and each piece pulls items one at a time under the lock
//! until the iterator runs out. Items therefore arrive in no particular order, and an expensive
//! `next` serialises the pieces: par_bridge pays off when the work done per item dwarfs `next`.
//!
//! **Re-entry.** `next` may itself use the pool (a `join` inside the iterator): a worker waiting
//! there may steal another piece of the same bridge and would block on the lock it holds. So a
//! worker folds at most one piece of a bridge: a piece that starts on a worker that already started
//! one yields nothing (the first piece on that worker pulls until the end anyway), as in rayon.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::iter::parallel_iterator::ParallelIterator;
use crate::iter::plumbing::bridge::{bridge_pieces, Piece};
use crate::iter::plumbing::LazyConsumer;

/// Turns a sequential iterator into a parallel one: `iter.par_bridge()`.
///
/// ```
/// use forkjoin::iter::ParallelBridge;
/// use forkjoin::prelude::*;
/// let (tx, rx) = std::sync::mpsc::channel();
/// std::thread::spawn(move || (0..100).for_each(|i| tx.send(i).unwrap()));
/// let mut squares: Vec<u64> = rx.into_iter().par_bridge().map(|i| i * i).collect();
/// squares.sort();
/// assert_eq!(squares, (0..100).map(|i| i * i).collect::<Vec<_>>());
/// ```
pub trait ParallelBridge: Sized {
    /// A parallel iterator over the items of `self`, in no particular order.
    fn par_bridge(self) -> IterBridge<Self>;
}

impl<T> ParallelBridge for T
where
    T: Iterator<Item: Send> + Send,
{
    fn par_bridge(self) -> IterBridge<Self> {
        IterBridge { iter: self }
    }
}

/// Parallel iterator returned by [`ParallelBridge::par_bridge`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct IterBridge<I> {
    iter: I,
}

impl<I> ParallelIterator for IterBridge<I>
where
    I: Iterator<Item: Send> + Send,
{
    type Item = I::Item;

    fn drive_lazy<C: LazyConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let pieces = crate::current_num_threads().max(1);
        let shared = Shared {
            iter: Mutex::new(self.iter.fuse()),
            started: (0..pieces).map(|_| AtomicBool::new(false)).collect(),
        };
        bridge_pieces(
            BridgeProducer {
                shared: &shared,
                pieces,
            },
            consumer,
        )
    }
}

/// What every piece of one drive shares.
struct Shared<I> {
    iter: Mutex<std::iter::Fuse<I>>,
    /// Per worker index (modulo their count): the worker started folding a piece.
    started: Box<[AtomicBool]>,
}

/// A run of pieces of the bridge; each position is a piece, which pulls items until the end.
struct BridgeProducer<'a, I> {
    shared: &'a Shared<I>,
    pieces: usize,
}

impl<'a, I: Iterator<Item: Send> + Send> Piece for BridgeProducer<'a, I> {
    type Item = I::Item;
    type IntoIter = Pull<'a, I>;

    fn len(&self) -> usize {
        self.pieces
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let right = BridgeProducer {
            shared: self.shared,
            pieces: self.pieces - index,
        };
        let left = BridgeProducer {
            shared: self.shared,
            pieces: index,
        };
        (left, right)
    }

    fn into_iter(self) -> Pull<'a, I> {
        // A worker folds one piece at most (see the module docs); outside a pool there is no
        // stealing, so no re-entry.
        let first_here = match crate::current_thread_index() {
            Some(i) => {
                let started = &self.shared.started[i % self.shared.started.len()];
                // Relaxed: only the worker itself reads and writes its own flag.
                !started.swap(true, Ordering::Relaxed)
            }
            None => true,
        };
        Pull {
            shared: (self.pieces > 0 && first_here).then_some(self.shared),
        }
    }
}

/// The items one piece pulls from the shared iterator, one lock at a time.
struct Pull<'a, I> {
    /// `None` for a piece that yields nothing.
    shared: Option<&'a Shared<I>>,
}

impl<I: Iterator> Iterator for Pull<'_, I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        let shared = self.shared?;
        // A panic in another piece's `next` poisons the lock; that panic is propagated by the
        // join that ran it, so this piece just stops.
        let item = shared.iter.lock().ok()?.next();
        if item.is_none() {
            self.shared = None;
        }
        item
    }
}
