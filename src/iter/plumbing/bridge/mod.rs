//! The splitting policy: a few pieces up front, then lazy splitting on demand.
//!
//! 1. **Up front**, if some worker of the pool is idle, the input is cut into about
//!    `current_num_threads()` equal pieces with `join` (more if `with_max_len` demands smaller
//!    pieces), so every thread has work from the start without waiting for a steal to propagate.
//!    While every worker is busy (the nested calls of a parallel recursion) nobody could take a
//!    piece, and while the idle ones sleep and this worker's sharing heartbeat is not due the
//!    piece would stay private (only a publication wakes a sleeper): then the call starts as one
//!    leaf ([`start_as`](crate::runtime::sharing::start_as)).
//! 2. **Each piece runs sequentially in batches.** Between batches the leaf polls
//!    [`some_worker_idle`](crate::runtime::sharing::some_worker_idle), a relaxed load of a count an idle
//!    worker raises when it finds nothing to steal. Only then, and unless an earlier offer of this
//!    worker still waits in its deque for the only idle worker
//!    ([`offer_waiting`](crate::runtime::sharing::offer_waiting): the request is answered already),
//!    does the leaf split its *remaining* positions in half with `join`, keep the left half and
//!    offer the right one. A uniform loop therefore pays for about `threads` joins in total, while a
//!    skewed loop keeps splitting exactly where the work is left. The only worker of a pool cannot be asked, so it folds its whole piece
//!    in one go ([`nobody_can_ask`](crate::runtime::sharing::nobody_can_ask)).
//! 3. **Batch sizes adapt to item cost.** The first two batches are not timed: one item, then up
//!    to [`TIMED_FROM`](pace::TIMED_FROM) − 1 (a small call of ten items runs two batches and reads
//!    no clock at all). While nobody asks they run as one fold, the poll between them inside it
//!    ([`first_batches`]): a small nested call in a busy pool pays for one consumer call. From
//!    [`TIMED_FROM`](pace::TIMED_FROM) items on, or as soon as an idle worker asks (unless that request mutes the
//!    leaf's polls: no later poll would use the rate), every batch is timed: the size
//!    grows while a batch takes less than [`BATCH_TARGET`](pace::BATCH_TARGET) and halves when one takes much longer.
//!    Cheap items run in long vectorisable batches (polling cost is amortised); expensive items
//!    are polled often, so a request is answered within about one batch time whatever the item
//!    cost.
//! 4. **Only a remainder worth a hand-off is split** ([`worth_sharing`](pace::worth_sharing)): at the last timed batch's
//!    rate it must take at least [`MIN_SHARED_WORK`](pace::MIN_SHARED_WORK) × log2(threads) (many idle workers ask all the
//!    time, and the innermost leaf answers first). And a timed batch never takes more than half of
//!    what is left, so a batch sized on cheap items that runs into expensive ones leaves a boundary
//!    behind it at which the rest can still be shared. Except in a piece whose items turned out to
//!    be free ([`FREE_BATCH`](pace::FREE_BATCH)): it folds its rest in one go, whether the idle workers
//!    sleep or search (a loop that the compiler split at a bound, free items before it and
//!    expensive ones after, then runs its expensive rest on this worker).
//! 5. **A leaf too short to split still answers.** Older pieces of the loop may sit on this worker's
//!    private job stack, which the runtime publishes on its own only during a `join` push;
//!    [`publish_on_heartbeat`](crate::runtime::sharing::publish_on_heartbeat) publishes the oldest
//!    one now.
//!    A leaf that can answer nothing stops looking for a few polls
//!    ([`back_off_idle_polls`](crate::runtime::sharing::back_off_idle_polls)).
//! 6. **Older work first.** A loop around the leaf may hold more: before splitting its own rest, a
//!    leaf asks [`offer_older_work`](crate::runtime::sharing::offer_older_work). A leaf whose first
//!    item started [`OFFER_LOOPS_PER_ITEM`](indexed::OFFER_LOOPS_PER_ITEM) nested loops ([`items_hold_loops`](indexed::items_hold_loops)) goes on in
//!    [`run_leaf_offering`](indexed::run_leaf_offering): one item at a time, its rest registered as a latent fork that a poll
//!    inside an item can split for an idle worker. So the outermost rest, the largest piece, goes
//!    first, instead of the innermost loop's crumbs.
//!
//! **Unindexed producers** (`split`, the tree walks, the slice splits, a user's
//! [`UnindexedProducer`]) have no positions: they are cut in two where they choose, or not at all.
//! [`bridge_unindexed_lazy`] drives them with the same phases: up front it cuts while the pool wants
//! more pieces (about `log2(threads) + 1` levels deep), and a piece that another thread stole starts
//! such a round again, as in rayon; each piece then runs as a leaf in batches sized by the same
//! [`Pace`](pace::Pace), and an idle worker's request splits what is left of the piece before its first batch
//! and, once a batch was timed, after each batch (see [`run_unindexed_leaf`](unindexed::run_unindexed_leaf)). A
//! producer written for rayon folds its piece whole in one batch, so it is asked only before it
//! starts; forkjoin's own sources fold `batch` items at a time and can be split between two
//! batches. There is no remainder length to estimate, so a request is answered whenever the
//! producer agrees to split, up to [`MAX_UNINDEXED_DEPTH`](unindexed::MAX_UNINDEXED_DEPTH) cuts deep (a producer may cut off a
//! little at a time, and every cut nests a join on a thread's stack).
//!
//! **Deterministic producers** (a producer handed on by
//! [`deterministic`](crate::iter::IndexedParallelIterator::deterministic), which asked for a fixed
//! tree, see [`fixed_tree::with_fixed_tree`]) skip all of this: they are reduced over a fixed tree
//! of blocks that depends only on their length ([`fixed_tree`]).
//!
//! `with_min_len(m)` forbids pieces smaller than `m` (a split needs `2m` positions); `with_max_len(m)`
//! forces the up-front phase to split until every piece is at most `m` positions long.
//!
//! See `docs/iterators.md` for the measurements behind these choices.

//!
//! The files: this one holds the entry points (rayon's `bridge`, `bridge_producer_consumer` and
//! `bridge_unindexed`, and forkjoin's lazy forms of them); [`indexed`] drives a piece with
//! positions (rules 1–6); [`first_batches`] runs a fresh leaf's two untimed batches as one fold;
//! [`unindexed`] drives an unindexed producer; [`pace`] sizes and times a leaf's batches and
//! decides whether a remainder is worth a hand-off.

mod first_batches;
mod indexed;
mod pace;
mod unindexed;

pub(crate) use crate::iter::plumbing::bridge::indexed::bridge_pieces;
pub(crate) use crate::iter::plumbing::bridge::unindexed::bridge_unindexed_lazy;
use crate::iter::plumbing::fixed_tree;
pub(crate) use crate::iter::plumbing::piece::Piece;
use crate::iter::plumbing::{
    Consumer, LazyConsumer, LazyDrive, Producer, ProducerCallback, UnindexedConsumer,
    UnindexedProducer,
};
use crate::iter::IndexedParallelIterator;

/// A [`Producer`] with its length, which the producer itself does not know (rayon's protocol).
struct Counted<P> {
    producer: P,
    len: usize,
}

impl<P: Producer> Piece for Counted<P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.producer.split_at(index);
        (
            Counted {
                producer: left,
                len: index,
            },
            Counted {
                producer: right,
                len: self.len - index,
            },
        )
    }
    #[inline]
    fn into_iter(self) -> P::IntoIter {
        self.producer.into_iter()
    }
    #[inline]
    fn min_len(&self) -> usize {
        self.producer.min_len()
    }
    #[inline]
    fn max_len(&self) -> usize {
        self.producer.max_len()
    }
}

/// Runs the `len` positions of `producer` into `consumer` in parallel, with forkjoin's splitting
/// policy (see the module doc of `forkjoin::iter::plumbing`): rayon's `bridge_producer_consumer`.
#[inline]
pub fn bridge_producer_consumer<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    consumer.lazy_drive(BridgeProducer { len, producer })
}

/// Runs an indexed iterator into `consumer` through its producer: rayon's `bridge`, what an
/// indexed iterator's `drive_unindexed` and `drive` usually are.
#[inline]
pub fn bridge<I, C>(par_iter: I, consumer: C) -> C::Result
where
    I: IndexedParallelIterator,
    C: Consumer<I::Item>,
{
    consumer.lazy_drive(BridgeIter(par_iter))
}

/// Runs an [`UnindexedProducer`] into `consumer`: rayon's `bridge_unindexed`.
///
/// Such a producer can only be cut in two where it chooses, and a producer written for rayon is
/// folded whole: it is cut up front about `log2(threads) + 1` levels deep, again in a piece another
/// thread stole, and again in a piece about to be folded while an idle worker asks (see
/// "Unindexed producers" in the module doc of `forkjoin::iter::plumbing`'s bridge).
pub fn bridge_unindexed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    consumer.lazy_drive_unindexed(BridgeUnindexed(producer))
}

/// [`bridge_producer_consumer`]'s work, for whichever consumer protocol the consumer runs.
struct BridgeProducer<P> {
    len: usize,
    producer: P,
}

impl<P: Producer> LazyDrive<P::Item> for BridgeProducer<P> {
    #[inline]
    fn drive<C: LazyConsumer<P::Item>>(self, consumer: C) -> C::Result {
        bridge_producer_lazy(self.len, self.producer, consumer)
    }
}

/// [`bridge`]'s work, for whichever consumer protocol the consumer runs.
struct BridgeIter<I>(I);

impl<I: IndexedParallelIterator> LazyDrive<I::Item> for BridgeIter<I> {
    #[inline]
    fn drive<C: LazyConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge_lazy(self.0, consumer)
    }
}

/// [`bridge_unindexed`]'s work, for whichever consumer protocol the consumer runs.
struct BridgeUnindexed<P>(P);

impl<P: UnindexedProducer> LazyDrive<P::Item> for BridgeUnindexed<P> {
    fn drive<C: LazyConsumer<P::Item>>(self, consumer: C) -> C::Result {
        bridge_unindexed_lazy(self.0, consumer)
    }
}

/// [`bridge_producer_consumer`] for forkjoin's own consumers.
#[inline]
pub(crate) fn bridge_producer_lazy<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: LazyConsumer<P::Item>,
{
    let piece = Counted { producer, len };
    match fixed_tree::take_fixed_tree() {
        0 => bridge_pieces(piece, consumer),
        // A deterministic iterator: the fixed tree, whatever the pool (see `fixed_tree`).
        block => fixed_tree::bridge_fixed(piece, consumer, block),
    }
}

/// [`bridge`] for forkjoin's own consumers.
#[inline]
pub(crate) fn bridge_lazy<I, C>(par_iter: I, consumer: C) -> C::Result
where
    I: IndexedParallelIterator,
    C: LazyConsumer<I::Item>,
{
    let len = par_iter.len();
    par_iter.with_producer(BridgeCallback { len, consumer })
}

/// A [`ProducerCallback`] that bridges the producer it receives (of `len` positions) into a
/// consumer.
struct BridgeCallback<C> {
    len: usize,
    consumer: C,
}

impl<T, C: LazyConsumer<T>> ProducerCallback<T> for BridgeCallback<C> {
    type Output = C::Result;
    fn callback<P: Producer<Item = T>>(self, producer: P) -> C::Result {
        bridge_producer_lazy(self.len, producer, self.consumer)
    }
}
