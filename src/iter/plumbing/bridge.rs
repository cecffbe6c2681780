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
//!    [`is_work_requested`](crate::runtime::sharing::is_work_requested), a relaxed load of a count an idle
//!    worker raises when it finds nothing to steal. Only then, and unless an earlier offer of this
//!    worker still waits in its deque for the only idle worker
//!    ([`offer_waiting`](crate::runtime::sharing::offer_waiting): the request is answered already),
//!    does the leaf split its *remaining* positions in half with `join`, keep the left half and
//!    offer the right one. A uniform loop therefore pays for about `threads` joins in total, while a
//!    skewed loop keeps splitting exactly where the work is left. The only worker of a pool cannot be asked, so it folds its whole piece
//!    in one go ([`nobody_can_ask`](crate::runtime::sharing::nobody_can_ask)).
//! 3. **Batch sizes adapt to item cost.** The first batches are not timed and grow fourfold from
//!    one item (a small call of ten items runs three batches and reads no clock at all). From
//!    [`TIMED_FROM`] items on, or as soon as an idle worker asks, every batch is timed: the size
//!    grows while a batch takes less than [`BATCH_TARGET`] and halves when one takes much longer.
//!    Cheap items run in long vectorisable batches (polling cost is amortised); expensive items
//!    are polled often, so a request is answered within about one batch time whatever the item
//!    cost.
//! 4. **Only a remainder worth a hand-off is split** ([`worth_sharing`]): at the last timed batch's
//!    rate it must take at least [`MIN_SHARED_WORK`] × log2(threads) (many idle workers ask all the
//!    time, and the innermost leaf answers first). And a timed batch never takes more than half of
//!    what is left, so a batch sized on cheap items that runs into expensive ones leaves a boundary
//!    behind it at which the rest can still be shared. Except in a piece whose items turned out to
//!    be free ([`FREE_BATCH`]): while no idle worker is awake, it folds its rest in one go.
//! 5. **A leaf too short to split still answers.** Older pieces of the loop may sit on this worker's
//!    private job stack, which the runtime publishes on its own only during a `join` push;
//!    [`share_pending_work`](crate::runtime::sharing::share_pending_work) publishes the oldest one now.
//!    A leaf that can answer nothing stops looking for a few polls
//!    ([`back_off_requests`](crate::runtime::sharing::back_off_requests)).
//! 6. **Older work first.** A loop around the leaf may hold more: before splitting its own rest, a
//!    leaf asks [`offer_older_work`](crate::runtime::sharing::offer_older_work). A leaf whose first
//!    item started [`OFFER_LOOPS_PER_ITEM`] nested loops ([`items_hold_loops`]) goes on in
//!    [`run_leaf_offering`]: one item at a time, its rest registered as a latent fork that a poll
//!    inside an item can split for an idle worker. So the outermost rest, the largest piece, goes
//!    first, instead of the innermost loop's crumbs.
//!
//! **Unindexed producers** (`split`, the tree walks, the slice splits, a user's
//! [`UnindexedProducer`]) have no positions: they are cut in two where they choose, or not at all.
//! [`bridge_unindexed_lazy`] drives them with the same phases: up front it cuts while the pool wants
//! more pieces (about `log2(threads) + 1` levels deep), and a piece that another thread stole starts
//! such a round again, as in rayon; each piece then runs as a leaf in batches sized by the same
//! [`Pace`], and an idle worker's request splits what is left of the piece before its first batch
//! and, once a batch was timed, after each batch (see [`run_unindexed_leaf`]). A
//! producer written for rayon folds its piece whole in one batch, so it is asked only before it
//! starts; forkjoin's own sources fold `batch` items at a time and can be split between two
//! batches. There is no remainder length to estimate, so a request is answered whenever the
//! producer agrees to split, up to [`MAX_UNINDEXED_DEPTH`] cuts deep (a producer may cut off a
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

use std::cell::{Cell, RefCell};
use std::sync::OnceLock;
use std::time::Duration;

use crate::platform::clock::{self, ticks};

use crate::iter::plumbing::fixed_tree;
use crate::iter::plumbing::piece::fold_whole;
pub(crate) use crate::iter::plumbing::piece::Piece;
use crate::iter::plumbing::{
    Consumer, LazyConsumer, LazyDrive, Producer, ProducerCallback, Reducer, UnindexedConsumer,
    UnindexedProducer,
};
use crate::iter::IndexedParallelIterator;
use crate::runtime::sharing::{self, LeafStart, StartAs};

/// A batch shorter than this grows the next batch size: eightfold while batches take under an
/// eighth of it, twofold above that (see [`next_batch`]).
const BATCH_TARGET: Duration = Duration::from_micros(10);
/// A remainder estimated below this is not split for an idle worker: about what a hand-off costs
/// (a publication, a steal, a latch; 3–4 µs measured on 2 threads), so splitting it cannot pay.
const MIN_SHARED_WORK: Duration = Duration::from_micros(2);
/// A batch at least this long measures the cost per item well (see [`worth_sharing`]).
const MEASURABLE: Duration = Duration::from_micros(1);
/// A batch longer than this halves the next batch size (hysteresis against flapping).
const BATCH_TOO_LONG: Duration = Duration::from_micros(40);
/// A batch shorter than this cost about what its own poll and clock read cost (see
/// [`FREE_BATCH`]).
const NEGLIGIBLE: Duration = Duration::from_nanos(125);
/// A batch of at least this many items that takes less than [`NEGLIGIBLE`] (under 2 ps an item:
/// faster than a cache can deliver bytes to a vectorised loop) ran no per-item work at all: the
/// compiler turned the loop into a closed form (a range `sum`). Such a piece drops its end batches
/// (see [`run_leaf`]).
const FREE_BATCH: usize = 1 << 16;
/// Nested loops per item from which a leaf's items count as large enough to offer one by one (see
/// [`items_hold_loops`]): a nested loop costs a few tens of nanoseconds at least, so such an item
/// costs a microsecond or more, and the per-item split of [`run_leaf_offering`] (tens of
/// nanoseconds) stays in the noise. skynet's 10-way levels: only the three outer ones qualify.
const OFFER_LOOPS_PER_ITEM: usize = 64;
/// Batches of fewer items run untimed (see [`Pace`]).
const TIMED_FROM: usize = 16;
/// How many batches a piece whose consumer [prefers the end](LazyConsumer::prefers_end) cuts off its
/// end before it runs the rest forward. Each one splits the consumer, and a `find_last` consumer
/// can tell apart only 64 levels of splits (see `find_first_last.rs`): an unbounded walk from the
/// end would use them all up on a long piece, and pieces sharing a boundary cannot stop each other.
const TAIL_BATCHES: u8 = 12;

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

/// [`bridge_unindexed`] for forkjoin's own consumers, and the driver of every unindexed source that
/// splits itself (see "Unindexed producers" in the module doc).
pub(crate) fn bridge_unindexed_lazy<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: LazyConsumer<P::Item>,
{
    let splits = match sharing::start_as() {
        StartAs::SplitUpFront => crate::current_num_threads(),
        StartAs::Whole | StartAs::OneLeaf => 0,
    };
    split_unindexed(producer, consumer, Cuts { splits, depth: 0 })
}

/// How many cuts an unindexed piece is under: deeper pieces are not cut again (see
/// [`Cuts::may_cut`]).
const MAX_UNINDEXED_DEPTH: u32 = 256;

/// Where an unindexed piece stands in its producer's cuts.
#[derive(Clone, Copy)]
struct Cuts {
    /// How many more up-front cuts are wanted, halved at every level.
    splits: usize,
    /// How many cuts made this piece.
    depth: u32,
}

impl Cuts {
    /// Each cut nests a join in the stack of the thread that runs what is left, and a producer
    /// may cut off a little each time (a comb-shaped tree gives one leaf per cut): past
    /// [`MAX_UNINDEXED_DEPTH`] cuts a piece is folded as it is, so the stacks stay bounded.
    fn may_cut(self) -> bool {
        self.depth < MAX_UNINDEXED_DEPTH
    }

    /// The cuts of both parts of a cut.
    fn below(self) -> Cuts {
        Cuts {
            splits: self.splits / 2,
            depth: self.depth + 1,
        }
    }
}

/// Cuts `producer` up front while `cuts` asks for more pieces and the producer agrees, then runs
/// each piece as a leaf ([`run_unindexed_leaf`]).
fn split_unindexed<P, C>(producer: P, consumer: C, cuts: Cuts) -> C::Result
where
    P: UnindexedProducer,
    C: LazyConsumer<P::Item>,
{
    if consumer.full() {
        return consumer.complete();
    }
    if cuts.splits == 0 || !cuts.may_cut() {
        return run_unindexed_leaf(producer, consumer, cuts.depth);
    }
    match producer.split() {
        (left, Some(right)) => {
            let below = cuts.below();
            let run_left = move |left, left_c| split_unindexed(left, left_c, below);
            join_unindexed(left, right, consumer, run_left, below, false)
        }
        (whole, None) => run_unindexed_leaf(whole, consumer, cuts.depth),
    }
}

/// Runs `left` (with `run_left`) and `right` (cut further as `below` says) in parallel, each into
/// its part of `consumer`, and reduces their results in order. `for_idle`: the cut answers an idle
/// worker's request.
fn join_unindexed<P, C, L>(
    left: P,
    right: P,
    consumer: C,
    run_left: L,
    below: Cuts,
    for_idle: bool,
) -> C::Result
where
    P: UnindexedProducer,
    C: LazyConsumer<P::Item>,
    L: FnOnce(P, C) -> C::Result + Send,
{
    // Unindexed consumers ignore `keep`: these items have no positions.
    let (left_c, right_c, reducer) = consumer.split_off(0);
    let home = crate::current_thread_index();
    let left = move || run_left(left, left_c);
    let right = move || {
        // A stolen piece starts a new round of up-front cuts, as in rayon's splitter: the thief
        // had nothing to do, and the others may soon have nothing either.
        let mut cuts = below;
        if crate::current_thread_index() != home {
            cuts.splits = crate::current_num_threads();
        }
        split_unindexed(right, right_c, cuts)
    };
    let (l, r) = if for_idle {
        sharing::join_for_idle_worker(left, right)
    } else {
        sharing::join_for_split(left, right)
    };
    reducer.reduce(l, r)
}

/// Runs one piece of an unindexed producer, `depth` cuts deep, in batches ([`Pace`] sizes them,
/// as it does the indexed leaves'), cutting what is left of it when an idle worker asks and the
/// producer agrees: before the first batch (a `split` piece is one item), and after the batches
/// once one of them was timed (so a piece that keeps being asked still makes progress between two
/// cuts). A piece cut off a running one goes on with its batch size ([`split_unindexed_leaf`]).
fn run_unindexed_leaf<P, C>(mut producer: P, consumer: C, depth: u32) -> C::Result
where
    P: UnindexedProducer,
    C: LazyConsumer<P::Item>,
{
    let cuts = Cuts { splits: 0, depth };
    if sharing::nobody_can_ask() || !cuts.may_cut() {
        // No cut can be asked for, or none may be made: no batches either.
        return producer.fold_batch(consumer, usize::MAX).0.complete();
    }
    if consumer.full() {
        return consumer.complete();
    }
    // A loop around us holding older work answers first (see `run_leaf`).
    if sharing::is_work_requested() && !sharing::offer_waiting() && !sharing::offer_older_work() {
        match producer.split() {
            (left, Some(right)) => return split_unindexed_leaf(left, right, consumer, cuts, None),
            (whole, None) => producer = whole,
        }
    }
    run_unindexed_batches(producer, consumer, cuts, Pace::new())
}

/// The batches of [`run_unindexed_leaf`], from `pace` on.
fn run_unindexed_batches<P, C>(
    mut producer: P,
    mut consumer: C,
    cuts: Cuts,
    mut pace: Pace,
) -> C::Result
where
    P: UnindexedProducer,
    C: LazyConsumer<P::Item>,
{
    pace.restart_clock();
    loop {
        let batch = pace.batch;
        let (fed, rest) = producer.fold_batch(consumer, batch);
        consumer = fed;
        match rest {
            Some(rest) => producer = rest,
            None => return consumer.complete(),
        }
        pace.batch_done(batch, false);
        if consumer.full() {
            return consumer.complete();
        }
        if pace.rate.is_some()
            && sharing::is_work_requested()
            && !sharing::offer_waiting()
            && !sharing::offer_older_work()
        {
            match producer.split() {
                (left, Some(right)) => {
                    return split_unindexed_leaf(left, right, consumer, cuts, Some(pace));
                }
                (whole, None) => producer = whole,
            }
        }
    }
}

/// Cuts a leaf for an idle worker: out of line, as [`split_leaf`] is. The first part goes on with
/// `pace` if the leaf had started its batches.
#[inline(never)]
fn split_unindexed_leaf<P, C>(
    left: P,
    right: P,
    consumer: C,
    cuts: Cuts,
    pace: Option<Pace>,
) -> C::Result
where
    P: UnindexedProducer,
    C: LazyConsumer<P::Item>,
{
    let below = cuts.below();
    let run_left = move |left, left_c| match pace {
        Some(pace) => run_unindexed_batches(left, left_c, below, pace),
        None => run_unindexed_leaf(left, left_c, below.depth),
    };
    join_unindexed(left, right, consumer, run_left, below, true)
}

/// Runs `piece` into `consumer` in parallel with the adaptive policy described in the module doc.
pub(crate) fn bridge_pieces<P, C>(piece: P, consumer: C) -> C::Result
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    let len = piece.len();
    if len <= 1 || (len / 2 < piece.min_len() && len <= piece.max_len()) {
        // Nothing to split, now or later: most calls of a recursive search (nqueens' boards near
        // the bottom have zero or one child) end here without touching the scheduler, and a
        // piece shorter than two `with_min_len` pieces is not cut into batches either (a cut
        // clones a `repeat_n` item).
        return fold_whole(piece, consumer);
    }
    if len <= piece.max_len() {
        match sharing::start_as() {
            // Alone in the pool: no batches, no polls (a consumer that prefers the end still
            // walks its piece from the end, see `run_leaf`).
            StartAs::Whole if !consumer.prefers_end() => return fold_whole(piece, consumer),
            // The split's join would not offer its half to anyone: one leaf, which still splits
            // lazily if an idle worker asks.
            StartAs::Whole | StartAs::OneLeaf => return run_leaf(piece, consumer, Pace::new()),
            StartAs::SplitUpFront => {}
        }
    }
    let pieces = crate::current_num_threads().max(1);
    split_up_front(piece, consumer, pieces)
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

/// Splits until `pieces` pieces exist (and every piece respects `max_len`), then runs the leaves.
fn split_up_front<P, C>(producer: P, consumer: C, pieces: usize) -> C::Result
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    let len = producer.len();
    let min = producer.min_len().max(1);
    let too_long = len > producer.max_len();
    if (pieces > 1 || too_long) && len / 2 >= min && !consumer.full() {
        // Cut proportionally so an odd piece count still gives equal pieces.
        let (left_pieces, right_pieces, mid) = if pieces > 1 {
            let left = pieces / 2;
            // len * left / pieces without overflow; the 128-bit division only for huge inputs.
            let mid = match len.checked_mul(left) {
                Some(product) => product / pieces,
                None => (len as u128 * left as u128 / pieces as u128) as usize,
            };
            (left, pieces - left, mid.clamp(min, len - min))
        } else {
            (1, 1, len / 2)
        };
        let from_end = consumer.prefers_end();
        let (left_p, right_p) = producer.split_at(mid);
        let (left_c, right_c, reducer) = consumer.split_off(mid);
        let (left, right) = if from_end {
            // The right half here, the left one offered (see `LazyConsumer::prefers_end`).
            let (right, left) = sharing::join_for_split(
                move || split_up_front(right_p, right_c, right_pieces),
                move || split_up_front(left_p, left_c, left_pieces),
            );
            (left, right)
        } else {
            sharing::join_for_split(
                move || split_up_front(left_p, left_c, left_pieces),
                move || split_up_front(right_p, right_c, right_pieces),
            )
        };
        reducer.reduce(left, right)
    } else {
        run_leaf(producer, consumer, Pace::new())
    }
}

/// Runs one piece sequentially in adaptive batches, splitting the remainder in half whenever an idle
/// worker asks for work and the remainder is worth it. `pace` carries the parent's batch size and
/// measured rate into a split-off piece.
fn run_leaf<P, C>(mut producer: P, mut consumer: C, mut pace: Pace) -> C::Result
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    if consumer.prefers_end() && pace.tails > 0 {
        return run_leaf_from_end(producer, consumer, pace);
    }
    // Whether our items run nested loops (see `items_hold_loops`): asked after the first batch
    // and on a request, in pools of 3 or more.
    let loops = match sharing::leaf_start() {
        // The only worker of its pool: no split can ever be asked for, so no batches either.
        LeafStart::Alone => return fold_whole(producer, consumer),
        LeafStart::Plain => None,
        LeafStart::Counted(mark) => Some(mark),
    };
    let start_len = producer.len();
    let mut first_batch = loops.is_some();
    pace.restart_clock();
    loop {
        let len = producer.len();
        if len == 0 || consumer.full() {
            return consumer.complete();
        }
        if pace.free && !sharing::some_worker_searching() {
            // The items cost nothing (see `FREE_BATCH`): the halving end batches that keep the
            // rest shareable would cost more than the rest itself, and no worker is awake to
            // take it. (A sleeping one counts as asking, so it would also make every one of them
            // read the clock.)
            return fold_whole(producer, consumer);
        }
        if sharing::is_work_requested_in(loops.unwrap_or(0)) {
            let asked = Asked {
                loops,
                consumed: start_len - len,
            };
            match answer_request(&producer, &consumer, &mut pace, asked) {
                Answer::GoOn => {}
                Answer::Offer => return run_leaf_offering(producer, consumer),
                Answer::Split => return split_leaf(producer, consumer, pace),
            }
        }
        // Once timed, never more than half of what is left: a batch sized on cheap items may run
        // into expensive ones, and whatever a batch holds stays with this worker. Halving leaves a
        // later boundary at which the rest can still be shared (costs at most log2(len) extra
        // batches per piece). The untimed first batches are too small to need it, and a small
        // nested call (ten items) then runs in three batches, not five.
        let len = producer.len();
        let n = if pace.clock.is_some() {
            pace.batch.min(len.div_ceil(2))
        } else {
            pace.batch.min(len)
        };
        let (head, rest) = producer.split_at(n);
        consumer = consumer.consume_iter(head.into_iter());
        producer = rest;
        pace.batch_done(n, n < pace.batch);
        if first_batch {
            // The first item of an outer loop must not wait for a request to be offerable: its
            // rest would stay out of reach for a whole item (skynet on 64 simulated cores: 8x
            // instead of 22x).
            first_batch = false;
            if loops.is_some_and(|loops| items_hold_loops(loops, n)) && !consumer.prefers_end() {
                return run_leaf_offering(producer, consumer);
            }
        }
    }
}

/// What [`answer_request`] needs to know of the leaf besides its rest.
#[derive(Clone, Copy)]
struct Asked {
    /// The leaf's mark from `sharing::leaf_start`, in a pool that offers a loop's rest.
    loops: Option<u32>,
    /// Items the leaf consumed so far.
    consumed: usize,
}

/// What [`answer_request`] decided.
enum Answer {
    /// Go on with the next batch (answered with older work, or not at all).
    GoOn,
    /// Go on item by item, the rest offered from inside ([`run_leaf_offering`]).
    Offer,
    /// Split the rest for the idle worker ([`split_leaf`]).
    Split,
}

/// [`run_leaf`] between two batches, with some worker idle: answers with older work, or decides
/// to offer the rest (split now, or item by item from now on), or publishes a pending private job.
/// Out of line and cold, reading the leaf through references: a busy pool's leaves never come
/// here, so the request path stays out of every leaf's loop, and the leaf is not moved into and
/// out of a call (docs/benchmarks.md, "Design measurements", has the figures).
#[cold]
#[inline(never)]
fn answer_request<P, C>(producer: &P, consumer: &C, pace: &mut Pace, asked: Asked) -> Answer
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    let len = producer.len();
    let min = producer.min_len().max(1);
    // Unless the next poll may answer it (no estimate yet), stop looking for a while.
    let mut answerable_later = false;
    // An offer of ours still waiting answers the request already (see `offer_waiting`).
    if !sharing::offer_waiting() {
        let nested = asked
            .loops
            .is_some_and(|loops| items_hold_loops(loops, asked.consumed));
        if nested && !consumer.prefers_end() {
            return Answer::Offer;
        }
        // A loop around us holds older, larger work: that goes first.
        if sharing::offer_older_work() {
            return Answer::GoOn;
        }
        if len / 2 >= min {
            // The answer rests on the batches just run (see `refresh_rate`).
            pace.refresh_rate();
            if worth_sharing(len, pace.rate, Limits::get(), sharing::pool_size) {
                return Answer::Split;
            }
            answerable_later = pace.rate.is_none();
        }
    }
    // No estimate yet: time the next batch so the next poll can decide.
    pace.start_clock();
    // Too short to split (`with_min_len`, one item left, or too little work left to be worth a
    // hand-off), but older pieces of this loop (the up-front halves) may still sit on this
    // worker's private job stack: share one.
    sharing::share_pending_work();
    if !answerable_later {
        sharing::back_off_requests(asked.loops.unwrap_or(0));
    }
    Answer::GoOn
}

/// True once the `consumed` items of a leaf (which took `loops` from `sharing::loop_started`)
/// started at least [`OFFER_LOOPS_PER_ITEM`] nested loops each: every item is then a piece of
/// work worth a hand-off by itself, and the leaf goes on in [`run_leaf_offering`], its rest
/// offered from inside its items. Asked after the first batch (a thread-local load per leaf) and
/// on a request.
#[inline]
fn items_hold_loops(loops: u32, consumed: usize) -> bool {
    let nested = sharing::loops_started_since(loops) as usize;
    consumed > 0 && nested >= OFFER_LOOPS_PER_ITEM.saturating_mul(consumed)
}

/// One step of [`run_leaf_offering`], in the order the steps' results combine.
enum Step<R, D> {
    /// The result of one item, left of everything after it.
    Item(R, D),
    /// The index of an offered piece, right of everything the loop kept.
    Offered(usize, D),
}

/// Runs a leaf whose items run nested loops one item at a time, with the rest registered as the
/// loop's latent fork (`crate::runtime::sharing::with_latent_fork`): a request for work seen inside
/// an item splits off the right half of the rest (all of it if it cannot be halved), which is
/// offered at once as a job and finished before this returns. So idle workers get the outermost
/// remainder, the largest piece of work pending, not a crumb of the innermost loop that polled.
///
/// Each item runs with a consumer split off for it; their results and the offered pieces' are
/// reduced in position order at the end.
#[inline(never)]
fn run_leaf_offering<P, C>(producer: P, consumer: C) -> C::Result
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    let min = producer.min_len().max(1);
    // The loop's rest while an item runs: taken by `offer`, and back after the item.
    let rest: Cell<Option<(P, C)>> = Cell::new(None);
    let steps: RefCell<Vec<Step<C::Result, C::Reducer>>> = RefCell::new(Vec::new());
    let (last, offered) = sharing::with_offers(|offers| {
        let offer = || {
            let Some((producer, consumer)) = rest.take() else {
                return false;
            };
            let len = producer.len();
            if len == 0 || consumer.full() {
                rest.set(Some((producer, consumer)));
                return false;
            }
            let keep = if len / 2 >= min { len / 2 } else { 0 };
            let (kept, given) = producer.split_at(keep);
            let (kept_c, given_c, reducer) = consumer.split_off(keep);
            let offered = offers.offer(move |_| run_leaf_offering(given, given_c));
            let offered = offered.unwrap_or_else(|| unreachable!("items of a loop in a pool"));
            steps.borrow_mut().push(Step::Offered(offered, reducer));
            rest.set(Some((kept, kept_c)));
            true
        };
        let (mut producer, mut consumer) = (producer, consumer);
        loop {
            if producer.len() == 0 || consumer.full() {
                return consumer.complete();
            }
            // Between two items the request is ours to answer (an item may hold no poll), with
            // half of the rest: all of it would leave nothing to run here, and a piece popped back
            // unstolen would offer itself again.
            if producer.len() / 2 >= min
                && sharing::is_work_requested()
                && !sharing::offer_waiting()
                && !sharing::offer_older_work()
            {
                rest.set(Some((producer, consumer)));
                offer();
                (producer, consumer) = rest.take().unwrap_or_else(|| unreachable!());
                continue;
            }
            // Registered even while nobody asks: a request may come during the item (registering
            // only when asked at its start, skynet on 64 simulated cores reached 8x, not 22x).
            let (item, tail) = producer.split_at(1);
            let (item_c, tail_c, reducer) = consumer.split_off(1);
            rest.set(Some((tail, tail_c)));
            let result = sharing::with_latent_fork(&offer, || {
                item_c.consume_iter(item.into_iter()).complete()
            });
            (producer, consumer) = rest.take().unwrap_or_else(|| unreachable!());
            steps.borrow_mut().push(Step::Item(result, reducer));
        }
    });
    let mut offered: Vec<Option<C::Result>> = offered.into_iter().map(Some).collect();
    let mut acc = last;
    for step in steps.into_inner().into_iter().rev() {
        acc = match step {
            Step::Item(result, reducer) => reducer.reduce(result, acc),
            Step::Offered(i, reducer) => {
                let piece = offered[i].take();
                reducer.reduce(
                    acc,
                    piece.unwrap_or_else(|| unreachable!("one result each")),
                )
            }
        };
    }
    acc
}

/// Splits a leaf's remainder in half for an idle worker and runs both halves as leaves.
///
/// Out of line: the join's frame would otherwise be part of every leaf's frame, and most leaves
/// (the small calls of nested recursion) never split.
#[inline(never)]
fn split_leaf<P, C>(producer: P, consumer: C, pace: Pace) -> C::Result
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    let mid = producer.len() / 2;
    let (left_p, right_p) = producer.split_at(mid);
    let (left_c, right_c, reducer) = consumer.split_off(mid);
    let (left, right) = sharing::join_for_idle_worker(
        move || run_leaf(left_p, left_c, pace),
        move || run_leaf(right_p, right_c, pace),
    );
    reducer.reduce(left, right)
}

/// [`run_leaf`] for a consumer that [prefers the end](LazyConsumer::prefers_end): up to
/// [`TAIL_BATCHES`] batches are cut off the *end* of the piece, each fed to a consumer split off
/// for it, before the rest runs forward. So a `find_last` meets the last items of a piece first,
/// whatever the cost of the items before them (each of which may hold a whole nested search), and
/// the rest of the piece stops as soon as they hold a match. An idle worker's request ends the
/// walk after the first batch: the forward loop answers it, offering the right half as usual (keeping the right
/// half here would split the same end of the input again and again, down to where a `find_last`
/// consumer can no longer tell pieces apart).
fn run_leaf_from_end<P, C>(mut producer: P, mut consumer: C, mut pace: Pace) -> C::Result
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    let alone = sharing::nobody_can_ask();
    pace.restart_clock();
    // The result of everything consumed so far (all of it right of `consumer`'s positions), and
    // the reducer that puts `consumer`'s own result before it.
    let mut after: Option<(C::Result, C::Reducer)> = None;
    let own = loop {
        let len = producer.len();
        if len == 0 || consumer.full() {
            break consumer.complete();
        }
        // The first batch (the piece's last item) always runs: it is what a stolen piece of a
        // nested search is for.
        if pace.tails == 0 || (after.is_some() && !alone && sharing::is_work_requested()) {
            pace.tails = 0;
            break run_leaf(producer, consumer, pace);
        }
        let n = pace.batch.min(len.div_ceil(2));
        let (rest, tail) = producer.split_at(len - n);
        if rest.len() == len {
            // No cut possible there (a string piece without a separator): the rest in one go.
            break consumer.consume_iter(rest.into_iter()).complete();
        }
        let (left_c, tail_c, reducer) = consumer.split_off(len - n);
        let tail = tail_c.consume_iter(tail.into_iter()).complete();
        // The previous reducer joined `consumer`, of which the tail was the end, to what follows.
        after = Some(match after {
            None => (tail, reducer),
            Some((later, joins_tail)) => (joins_tail.reduce(tail, later), reducer),
        });
        producer = rest;
        consumer = left_c;
        pace.tails -= 1;
        pace.batch_done(n, n < pace.batch);
    };
    match after {
        None => own,
        Some((later, reducer)) => reducer.reduce(own, later),
    }
}

/// A leaf's batch size and, once it reads the clock, the rate of its last batch.
///
/// Small batches are not timed: even the cheap clock costs as much as a few cheap items, and a small
/// parallel call (ten items, each a nested call) would pay for several reads per call. The clock
/// starts once a piece has consumed [`TIMED_FROM`] items (from then on it bounds a batch's duration whatever
/// the item cost) or when an idle worker asks for work (the next poll then knows whether the
/// remainder is worth a hand-off). Durations stay in ticks (see `crate::platform::clock`): no conversion on
/// the hot path, the limits are converted once.
#[derive(Clone, Copy)]
struct Pace {
    batch: usize,
    /// Ticks when the current batch started, once timing is on.
    clock: Option<u64>,
    /// Items and ticks of the last timed batch (or batches: see `batch_done`).
    rate: Option<(usize, u64)>,
    /// Items consumed since the clock was last read (before the clock starts: since the start).
    untimed_items: usize,
    /// Batches still to cut off the end of the piece (see [`TAIL_BATCHES`]).
    tails: u8,
    /// The last measured batch showed the items to be free (see [`FREE_BATCH`]).
    free: bool,
}

impl Pace {
    fn new() -> Self {
        Pace {
            batch: 1,
            clock: None,
            rate: None,
            untimed_items: 0,
            tails: TAIL_BATCHES,
            free: false,
        }
    }

    /// A split-off piece keeps timing if its parent did, from its own start.
    fn restart_clock(&mut self) {
        if self.clock.is_some() {
            self.clock = Some(ticks());
            self.untimed_items = 0;
        }
    }

    fn start_clock(&mut self) {
        if self.clock.is_none() {
            self.clock = Some(ticks());
            self.untimed_items = 0;
        }
    }

    /// Before answering a request: if batches ran untimed since the last clock read (see
    /// [`batch_done`](Self::batch_done)), measures them together, so the answer rests on the items
    /// just run and not on older, perhaps cheaper ones (expensive items behind many free ones
    /// would otherwise stay on one worker while a stale estimate refuses every request).
    #[inline]
    fn refresh_rate(&mut self) {
        if let Some(started) = self.clock {
            if self.untimed_items > 0 {
                let now = ticks();
                self.clock = Some(now);
                let items = std::mem::take(&mut self.untimed_items);
                self.measured(items, now.saturating_sub(started), Limits::get());
            }
        }
    }

    /// After a batch of `n` items: starts the clock once [`TIMED_FROM`] items ran, and from then on
    /// measures the batch and sets the next size ([`next_batch`]).
    ///
    /// `capped`: the batch was cut to half of what was left. Such batches only shrink towards the end
    /// of the piece and say nothing new about the batch size, so once a rate is known they are not
    /// timed (a closed-form range sum would otherwise read the clock some twenty times in its tail);
    /// the next timed batch, or the next request ([`refresh_rate`](Self::refresh_rate)), measures
    /// them together.
    #[inline]
    fn batch_done(&mut self, n: usize, capped: bool) {
        let Some(started) = self.clock else {
            // Untimed batches of 1, 4, 16 items: a small nested call pays for few batches, and
            // the clock starts after 21 items at most.
            self.batch *= 4;
            // Counted in items consumed, not in batch size: capped batches grow the size without
            // consuming as much, and a ten-item call must not read the clock.
            self.untimed_items += n;
            if self.untimed_items >= TIMED_FROM {
                self.untimed_items = 0;
                self.clock = Some(ticks());
            }
            return;
        };
        self.untimed_items += n;
        if capped && self.rate.is_some() {
            return;
        }
        // One clock read per timed batch: its duration is the time since the previous read (the poll
        // and split check in between cost next to nothing).
        let now = ticks();
        let took = now.saturating_sub(started);
        self.clock = Some(now);
        let limits = Limits::get();
        let items = std::mem::take(&mut self.untimed_items);
        self.measured(items, took, limits);
        self.batch = next_batch(self.batch, took, limits);
    }

    /// Records that the last `items` items took `took` ticks.
    #[inline]
    fn measured(&mut self, items: usize, took: u64, limits: &Limits) {
        self.rate = Some((items, took));
        // A few end items measured fast say nothing new; any measurable batch ends the free regime.
        self.free = took < limits.negligible && (self.free || items >= FREE_BATCH);
    }
}

/// The batch size after a batch of size `batch` took `took` ticks: grows it while batches are short
/// (eightfold while they are very short), halves it when one took much longer than
/// [`BATCH_TARGET`]. No upper bound of its own: the clock bounds a batch's duration whatever the
/// item cost.
/// Eightfold, not more: a faster growth saves clock reads on a closed-form sum but moves the batch
/// boundaries of loops whose expensive items follow many free ones (docs/benchmarks.md, "Design
/// measurements").
fn next_batch(batch: usize, took: u64, limits: &Limits) -> usize {
    if took < limits.batch_target / 8 {
        batch.saturating_mul(8)
    } else if took < limits.batch_target {
        batch.saturating_mul(2)
    } else if took > limits.batch_too_long && batch > 1 {
        batch / 2
    } else {
        batch
    }
}

/// The duration constants of this module, in ticks.
struct Limits {
    batch_target: u64,
    batch_too_long: u64,
    min_shared_work: u64,
    measurable: u64,
    negligible: u64,
}

impl Limits {
    fn compute() -> Limits {
        Limits {
            batch_target: clock::ticks_in(BATCH_TARGET),
            batch_too_long: clock::ticks_in(BATCH_TOO_LONG),
            min_shared_work: clock::ticks_in(MIN_SHARED_WORK),
            measurable: clock::ticks_in(MEASURABLE),
            negligible: clock::ticks_in(NEGLIGIBLE),
        }
    }

    #[cfg(not(forkjoin_shuttle))]
    #[inline]
    fn get() -> &'static Limits {
        static LIMITS: OnceLock<Limits> = OnceLock::new();
        LIMITS.get_or_init(Limits::compute)
    }

    /// Under shuttle the tick's length depends on the execution's mode (a scheduling step, or a
    /// virtual nanosecond in the timing mode), so the limits are computed per execution.
    #[cfg(forkjoin_shuttle)]
    #[inline]
    fn get() -> &'static Limits {
        static STEPS: OnceLock<Limits> = OnceLock::new();
        static NANOS: OnceLock<Limits> = OnceLock::new();
        let cell = if crate::platform::sync::timing_mode() {
            &NANOS
        } else {
            &STEPS
        };
        cell.get_or_init(Limits::compute)
    }
}

/// True if `len` remaining items are estimated to take at least [`MIN_SHARED_WORK`] ×
/// log2(`threads`) at the rate of the previous batch (`items` in `took` ticks).
///
/// Handing half of a shorter remainder to another worker costs about as much as it saves (a
/// publication, a steal, a latch). Without this check a loop of near-free items (a range sum that
/// LLVM turns into a closed form) split again on every request, about 12 hand-offs per call on 2
/// threads. The estimate is trusted only from a batch of at least [`MEASURABLE`]: shorter ones are
/// dominated by the clock read itself and overstate the cost per item; no estimate means no split
/// yet (a piece's first batches are over within a few microseconds).
///
/// The threshold grows with the pool: a request is answered by the innermost leaf that polls, so
/// the pieces handed off are about as small as the threshold allows, and in a pool of many idle
/// workers every one of them keeps asking; a flat threshold let many-core pools hand off pieces
/// barely worth their hand-off. log2(`threads`) keeps 2 µs on 2 threads and asks for 8 µs on 16,
/// 12 µs on 64.
///
/// `threads` is asked only once a rate is measured: a small call answers most requests without an
/// estimate, and the pool size is one more cache line for such a call to read.
fn worth_sharing(
    len: usize,
    rate: Option<(usize, u64)>,
    limits: &Limits,
    threads: impl FnOnce() -> usize,
) -> bool {
    rate.is_some_and(|(items, took)| {
        took >= limits.measurable && {
            let min_shared = limits.min_shared_work as u128 * threads().max(2).ilog2() as u128;
            took as u128 * len as u128 >= min_shared * items as u128
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remainder_is_shared_only_with_a_measured_rate_that_predicts_enough_work() {
        let limits = limits_in_ns();
        let us = |n: u64| n * 1_000;
        // No batch yet: no estimate, no split.
        assert!(!worth_sharing(1_000_000, None, &limits, || 2));
        // 1000 items in 2 µs: 500 more take 1 µs (too little), 1000 more take 2 µs (enough).
        assert!(!worth_sharing(500, Some((1_000, us(2))), &limits, || 2));
        assert!(worth_sharing(1_000, Some((1_000, us(2))), &limits, || 2));
        // A pool of 16 asks for four times as much (8 µs), of 3 the same as of 2.
        assert!(!worth_sharing(3_999, Some((1_000, us(2))), &limits, || 16));
        assert!(worth_sharing(4_000, Some((1_000, us(2))), &limits, || 16));
        assert!(worth_sharing(1_000, Some((1_000, us(2))), &limits, || 3));
        // A batch shorter than `MEASURABLE` is mostly the clock read: never trusted, however many
        // items remain (a closed-form loop whose batches cost nothing).
        assert!(!worth_sharing(usize::MAX, Some((1, 900)), &limits, || 2));
        // One expensive item measured: a few more of them are worth a hand-off.
        assert!(worth_sharing(2, Some((1, us(50))), &limits, || 2));
        // One cheap item left (5 ns at the measured rate) is not.
        assert!(!worth_sharing(1, Some((1_000, us(5))), &limits, || 2));
    }

    /// One tick per nanosecond, the constants as documented.
    fn limits_in_ns() -> Limits {
        let ns = |d: Duration| d.as_nanos() as u64;
        Limits {
            batch_target: ns(BATCH_TARGET),
            batch_too_long: ns(BATCH_TOO_LONG),
            min_shared_work: ns(MIN_SHARED_WORK),
            measurable: ns(MEASURABLE),
            negligible: ns(NEGLIGIBLE),
        }
    }

    #[test]
    fn batches_grow_while_short_and_shrink_when_too_long() {
        let l = limits_in_ns();
        assert_eq!(next_batch(16, 20, &l), 16 * 8);
        assert_eq!(next_batch(16, 500, &l), 16 * 8);
        assert_eq!(next_batch(16, 5_000, &l), 16 * 2);
        assert_eq!(next_batch(16, 20_000, &l), 16);
        assert_eq!(next_batch(16, 50_000, &l), 8);
        assert_eq!(next_batch(1, 50_000, &l), 1);
        assert_eq!(next_batch(usize::MAX / 4, 20, &l), usize::MAX);
    }

    #[test]
    fn only_a_large_batch_that_cost_nothing_makes_a_piece_free_and_any_measurable_one_ends_it() {
        let l = limits_in_ns();
        let mut pace = Pace::new();
        // Few items fast: could be cheap real work hidden by the clock's own cost.
        pace.measured(FREE_BATCH - 1, 10, &l);
        assert!(!pace.free);
        // Many items, slower than negligible: real work, however cheap.
        pace.measured(FREE_BATCH, NEGLIGIBLE.as_nanos() as u64, &l);
        assert!(!pace.free);
        pace.measured(FREE_BATCH, 10, &l);
        assert!(pace.free);
        // End batches measured fast keep it; one that took time (expensive items behind the free
        // ones) ends it.
        pace.measured(3, 10, &l);
        assert!(pace.free);
        pace.measured(3, 300_000, &l);
        assert!(!pace.free);
    }

    #[test]
    fn the_limits_keep_their_order_in_ticks() {
        let l = Limits::get();
        assert!(l.negligible > 0 && l.negligible < l.measurable);
        assert!(l.measurable > 0);
        assert!(l.measurable <= l.min_shared_work && l.min_shared_work <= l.batch_target);
        assert!(l.batch_target < l.batch_too_long);
    }
}
