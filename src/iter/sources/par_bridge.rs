//! `par_bridge`: a parallel iterator over the items of any sequential `Iterator + Send`.
//!
//! The iterator sits behind a mutex; the work is split into one piece per pool thread up front,
//! and each piece pulls items one at a time under the lock until the iterator runs out. Items
//! therefore arrive in no particular order, and an expensive `next` serialises the pieces:
//! par_bridge pays off when the work done per item dwarfs `next`.
//!
//! **Every piece is offered at once.** A piece runs until the iterator is exhausted, so it never
//! reaches a batch boundary at which a leaf of the adaptive bridge would answer an idle worker
//! (and an iterator fed by the pieces' own work, a directory walk's queue, is never exhausted by
//! one of them alone). So the pieces are not left to that policy: each split is a join that
//! publishes its other half at once ([`sharing::join_for_idle_worker`]), as rayon's bridge pushes
//! every split to its deque, and a piece feeds its consumer in batches of [`PULL_BATCH`] items so
//! that a search stops soon after another piece found its match.
//!
//! **Re-entry.** `next` may itself use the pool (a `join` inside the iterator): a worker waiting
//! there may steal another piece of the same bridge and would block on the lock it holds. So a
//! worker folds at most one piece of a bridge: a piece that starts on a worker that already started
//! one yields nothing (the first piece on that worker pulls until the end anyway), as in rayon.

use crate::iter::parallel_iterator::ParallelIterator;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, Reducer};
// The facade's: std's outside the models; under shuttle its lock is a scheduling point, so a
// piece blocked on it lets the holder run.
use crate::platform::sync::{AtomicBool, Mutex, Ordering};
use crate::runtime::sharing;

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

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let pieces = crate::current_num_threads().max(1);
        let shared = Shared {
            iter: Mutex::new(self.iter.fuse()),
            started: (0..pieces).map(|_| AtomicBool::new(false)).collect(),
        };
        run_pieces(&shared, pieces, consumer)
    }
}

/// How many items a piece feeds its consumer between two checks of [`LazyConsumer::full`].
const PULL_BATCH: usize = 64;

/// What every piece of one drive shares.
struct Shared<I> {
    iter: Mutex<std::iter::Fuse<I>>,
    /// Per worker index (modulo their count): the worker started folding a piece.
    started: Box<[AtomicBool]>,
}

/// Runs `pieces` pieces of the bridge into `consumer`: halves offered to idle workers at once, down
/// to single pieces that pull items until the iterator runs out.
fn run_pieces<I, C>(shared: &Shared<I>, pieces: usize, consumer: C) -> C::Result
where
    I: Iterator<Item: Send> + Send,
    C: LazyConsumer<I::Item>,
{
    if pieces > 1 {
        let left = pieces / 2;
        // Unindexed: the consumer's halves take whatever items they are given.
        let (left_c, right_c, reducer) = consumer.split_off(0);
        let (l, r) = sharing::join_for_idle_worker(
            move || run_pieces(shared, left, left_c),
            move || run_pieces(shared, pieces - left, right_c),
        );
        return reducer.reduce(l, r);
    }
    let mut pull = Pull::new(shared);
    let mut consumer = consumer;
    while pull.shared.is_some() && !consumer.full() {
        consumer = consumer.consume_iter(pull.by_ref().take(PULL_BATCH));
    }
    consumer.complete()
}

/// The items one piece pulls from the shared iterator, one lock at a time.
struct Pull<'a, I> {
    /// `None` for a piece that yields nothing (more).
    shared: Option<&'a Shared<I>>,
}

impl<'a, I> Pull<'a, I> {
    fn new(shared: &'a Shared<I>) -> Self {
        // A worker folds one piece at most (see the module docs); outside a pool there is no
        // stealing, so no re-entry.
        let first_here = match crate::current_thread_index() {
            Some(i) => {
                let started = &shared.started[i % shared.started.len()];
                // Relaxed: only the worker itself reads and writes its own flag.
                !started.swap(true, Ordering::Relaxed)
            }
            None => true,
        };
        Pull {
            shared: first_here.then_some(shared),
        }
    }
}

impl<I: Iterator> Iterator for Pull<'_, I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        let shared = self.shared?;
        // A panic in another piece's `next` poisons the lock; that panic is propagated by the
        // join that ran it, so this piece just stops.
        let item = shared.iter.lock().ok().and_then(|mut iter| iter.next());
        if item.is_none() {
            self.shared = None;
        }
        item
    }
}
