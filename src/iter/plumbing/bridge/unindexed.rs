//! The driver of an unindexed producer ("Unindexed producers" in the [bridge's module
//! doc](super)): cuts where the producer chooses, up front and on request, and leaves paced like
//! the indexed ones.

use crate::iter::plumbing::bridge::pace::Pace;
use crate::iter::plumbing::{LazyConsumer, Reducer, UnindexedProducer};
use crate::runtime::sharing::{self, StartAs};

/// [`bridge_unindexed`](super::bridge_unindexed) for forkjoin's own consumers, and the driver of every unindexed source that
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
    sharing::stopped_at_end(split_unindexed(
        producer,
        consumer,
        Cuts { splits, depth: 0 },
    ))
}

/// How many cuts an unindexed piece is under: deeper pieces are not cut again (see
/// [`Cuts::may_cut`]).
pub(super) const MAX_UNINDEXED_DEPTH: u32 = 256;

/// Where an unindexed piece stands in its producer's cuts.
#[derive(Clone, Copy)]
pub(super) struct Cuts {
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
pub(super) fn split_unindexed<P, C>(producer: P, consumer: C, cuts: Cuts) -> C::Result
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
        sharing::join_pieces_for_idle_worker(left, right)
    } else {
        sharing::join_pieces_for_split(left, right)
    };
    reducer.reduce(l, r)
}

/// Runs one piece of an unindexed producer, `depth` cuts deep, in batches ([`Pace`] sizes them,
/// as it does the indexed leaves'), cutting what is left of it when an idle worker asks and the
/// producer agrees: before the first batch (a `split` piece is one item), and after the batches
/// once one of them was timed (so a piece that keeps being asked still makes progress between two
/// cuts). A piece cut off a running one goes on with its batch size ([`split_unindexed_leaf`]).
pub(super) fn run_unindexed_leaf<P, C>(mut producer: P, consumer: C, depth: u32) -> C::Result
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
    if sharing::some_worker_idle() && !sharing::offer_waiting() && !sharing::offer_older_work() {
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
        // A boundary of cancellation: before each batch. The leaf returns what it has; the call
        // unwinds at its end (`sharing::stopped_at_end`).
        if sharing::stopped() {
            return consumer.complete();
        }
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
            && sharing::some_worker_idle()
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

/// Cuts a leaf for an idle worker: out of line, as [`split_leaf`](super::indexed::split_leaf) is. The first part goes on with
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
