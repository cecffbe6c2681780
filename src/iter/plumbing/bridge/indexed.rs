//! The adaptive driver of a piece with positions (an indexed iterator's producer, a string or a
//! range): a few pieces up front, then leaves that run in batches and split their rest when an idle
//! worker asks (rules 1–6 of the [bridge's module doc](super)).

use std::cell::{Cell, RefCell};

use crate::iter::plumbing::bridge::first_batches::FirstBatches;
use crate::iter::plumbing::bridge::pace::{worth_sharing, Limits, Pace};
use crate::iter::plumbing::piece::{fold_whole, Piece};
use crate::iter::plumbing::{LazyConsumer, Reducer};
use crate::runtime::sharing::{self, LeafStart, Offers, StartAs, StopCheck};

/// Nested loops per item from which a leaf's items count as large enough to offer one by one (see
/// [`items_hold_loops`]): a nested loop costs a few tens of nanoseconds at least, so such an item
/// costs a microsecond or more, and the per-item split of [`run_leaf_offering`] (tens of
/// nanoseconds) stays in the noise. skynet's 10-way levels: only the three outer ones qualify.
pub(super) const OFFER_LOOPS_PER_ITEM: usize = 64;
/// Batches of at least this many items tell, while idle polls are muted, whether the rest became
/// worth a hand-off ([`end_back_off_if_worth_sharing`]). Small calls never ask: at 64 the end
/// batches of a nested call of a few hundred items read the clock, which such calls paid for at
/// 8 and 64 workers (docs/benchmarks.md, "Free items and the closed-form call").
const END_TIMED_FROM: usize = 256;
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
            StartAs::Whole | StartAs::OneLeaf => {
                return sharing::stopped_at_end(run_fresh_leaf(piece, consumer));
            }
            StartAs::SplitUpFront => {}
        }
    }
    let pieces = crate::current_num_threads().max(1);
    sharing::stopped_at_end(split_up_front(piece, consumer, pieces))
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
        let left = (left_p, left_c, left_pieces);
        let right = (right_p, right_c, right_pieces);
        // The right half here, the left one offered (see `LazyConsumer::prefers_end`). The halves
        // trade places as values, so one join is compiled for both orders.
        let (here, offered) = if from_end {
            (right, left)
        } else {
            (left, right)
        };
        let (here, offered) = join_pieces(
            too_long,
            move || split_up_front(here.0, here.1, here.2),
            move || split_up_front(offered.0, offered.1, offered.2),
        );
        let (left, right) = if from_end {
            (offered, here)
        } else {
            (here, offered)
        };
        reducer.reduce(left, right)
    } else {
        run_leaf(producer, consumer, Pace::new())
    }
}

/// [`split_up_front`]'s join. A split that `with_max_len` demands (`demanded`) pushes b however
/// deep and publishes it at once ([`join_demanded`]): the caller asked for pieces this small, as
/// rayon's fix for items that wait for each other, and the depth rule would run the deep halves
/// inline, out of every other worker's reach, as a private b would be while its owner blocks in
/// another item. Other splits follow the depth rule.
#[inline(always)]
fn join_pieces<A, B, RA, RB>(demanded: bool, oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if demanded {
        join_demanded(oper_a, oper_b)
    } else {
        sharing::join_pieces_for_split(oper_a, oper_b)
    }
}

/// [`join_pieces`] for a demanded split, out of line so the common split's frame does not grow.
#[inline(never)]
fn join_demanded<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    sharing::join_pieces_demanded(oper_a, oper_b)
}

/// Runs one piece sequentially in adaptive batches, splitting the remainder in half whenever an idle
/// worker asks for work and the remainder is worth it. `pace` carries the parent's batch size and
/// measured rate into a split-off piece.
pub(super) fn run_leaf<P, C>(producer: P, consumer: C, mut pace: Pace) -> C::Result
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    if C::CAN_PREFER_END && consumer.prefers_end() && pace.tails > 0 {
        return run_leaf_from_end(producer, consumer, pace);
    }
    let Some(state) = LeafState::start(producer.len()) else {
        return fold_whole(producer, consumer);
    };
    pace.restart_clock();
    leaf_loop(producer, consumer, pace, state)
}

/// [`run_leaf`] for a call that runs as one leaf: while nobody asks at its start, its two untimed
/// batches run as one fold in the caller's frame ([`FirstBatches`]), and [`leaf_loop`] takes over
/// only where they stop or if more is left. A small nested call in a busy pool thus makes one call
/// into the consumer and none into the loop. Up-front pieces do not come here: they exist because
/// a worker was idle, whose request the loop's first poll would see anyway, and inlined into
/// `split_up_front` as well the code would grow by half again for nothing.
#[inline(always)]
pub(super) fn run_fresh_leaf<P, C>(mut producer: P, consumer: C) -> C::Result
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    let mut pace = Pace::new();
    if C::CAN_PREFER_END && consumer.prefers_end() {
        return run_leaf_from_end(producer, consumer, pace);
    }
    let start_len = producer.len();
    let Some(state) = LeafState::start(start_len) else {
        return fold_whole(producer, consumer);
    };
    let LeafState { loops, stop, .. } = state;
    // What the loop's first turn checks before its first batch, in its order.
    if start_len < 2
        || consumer.full()
        || stop.stopped()
        || sharing::some_worker_idle_in(loops.unwrap_or(0))
    {
        return leaf_loop(producer, consumer, pace, state);
    }
    // The pace's first untimed batch (one item), then its second.
    let (first, rest) = producer.split_at(pace.batch);
    pace.batch_done(pace.batch, false);
    let mut rest = Some(rest);
    // Whether the first item started nested loops: the leaf then offers its rest item by item.
    let holds_loops = move || loops.is_some_and(|loops| items_hold_loops(loops, 1));
    // Between the batches, what the loop's next turn would check first: the first item's nested
    // loops, a cancellation, a request.
    let stop_after_first =
        move || holds_loops() || stop.stopped() || sharing::some_worker_idle_in(loops.unwrap_or(0));
    let consumer = consumer.consume_iter(FirstBatches::new(
        first,
        &mut rest,
        pace.batch,
        stop_after_first,
    ));
    producer = rest.unwrap_or_else(|| unreachable!("the rest is handed back"));
    // What the second batch took (none if the poll said stop).
    let second = start_len - 1 - producer.len();
    if second > 0 && producer.len() == 0 {
        // The whole call (a small one).
        return consumer.complete();
    }
    if second > 0 {
        pace.batch_done(second, false);
    } else if holds_loops() {
        return run_leaf_offering(producer, consumer);
    }
    let state = LeafState {
        first_batch: false,
        ..state
    };
    leaf_loop(producer, consumer, pace, state)
}

/// What [`leaf_loop`] knows of its leaf besides the piece, the consumer and the pace.
#[derive(Clone, Copy)]
struct LeafState {
    /// The leaf's mark from `sharing::leaf_start`, in a pool that offers a loop's rest.
    loops: Option<u32>,
    /// The leaf's boundary of cancellation.
    stop: StopCheck,
    /// The piece's length when the leaf started.
    start_len: usize,
    /// The next batch is the leaf's first: after it, the leaf asks whether its items hold loops.
    first_batch: bool,
}

impl LeafState {
    /// A leaf's start (`sharing::leaf_start`) for a piece of `start_len` positions; `None` on the
    /// only worker of its pool, where no split can ever be asked for, so no batches either.
    #[inline(always)]
    fn start(start_len: usize) -> Option<LeafState> {
        let (start, stop) = sharing::leaf_start();
        // Whether our items run nested loops (see `items_hold_loops`): asked after the first
        // batch and on a request, in pools of 3 or more.
        let loops = match start {
            LeafStart::Alone => return None,
            LeafStart::Plain => None,
            LeafStart::Counted(mark) => Some(mark),
        };
        Some(LeafState {
            loops,
            stop,
            start_len,
            first_batch: loops.is_some(),
        })
    }
}

/// [`run_leaf`]'s loop of batches and polls.
#[inline(never)]
fn leaf_loop<P, C>(mut producer: P, mut consumer: C, mut pace: Pace, state: LeafState) -> C::Result
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    let LeafState {
        loops,
        stop,
        start_len,
        mut first_batch,
    } = state;
    loop {
        let len = producer.len();
        if len == 0 || consumer.full() {
            return consumer.complete();
        }
        // A boundary of cancellation: before each batch. The leaf returns what it has; the call
        // unwinds at its end (`sharing::stopped_at_end`).
        if stop.stopped() {
            return consumer.complete();
        }
        // `black_box`: whether the stop is armed does not change in the loop, and LLVM cloned
        // the whole loop on it (every leaf's machine code half as large again).
        if pace.free && !std::hint::black_box(stop.is_armed()) {
            // The items cost nothing (see `FREE_BATCH`): the compiler folded the batch loop into
            // a closed form, so the rest is not worth a hand-off to anyone, and the halving end
            // batches that keep it shareable would cost more than the rest itself (each one polled
            // and answered by a clock read while an idle worker asks). Whether the idle workers
            // sleep or search, the call folds its rest here: its time does not depend on what
            // they do. Under a cancellation node the batches are boundaries: kept (asked last,
            // and only of free pieces).
            return fold_whole(producer, consumer);
        }
        if sharing::some_worker_idle_in(loops.unwrap_or(0)) {
            let asked = Asked {
                loops,
                consumed: start_len - len,
                left: len,
                min: producer.min_len().max(1),
                prefers_end: consumer.prefers_end(),
            };
            match answer_request(&mut pace, asked) {
                Answer::GoOn => {}
                Answer::Offer => return run_leaf_offering(producer, consumer),
                Answer::Split => return split_leaf(producer, consumer, pace),
            }
        }
        // Once timed, never more than half of what is left: a batch sized on cheap items may run
        // into expensive ones, and whatever a batch holds stays with this worker. Halving leaves a
        // later boundary at which the rest can still be shared (costs at most log2(len) extra
        // batches per piece). The untimed first batches are too small to need it, and a small
        // nested call (ten items) then runs in two batches, not four.
        let len = producer.len();
        let n = if pace.clock.is_some() {
            pace.batch.min(len.div_ceil(2))
        } else {
            pace.batch.min(len)
        };
        let (head, rest) = producer.split_at(n);
        consumer = consumer.consume_iter(head.into_iter());
        producer = rest;
        let capped = n < pace.batch;
        pace.batch_done(n, capped);
        // A batch just timed (expensive items run in small batches) or a long one: while muted,
        // a rest that became worth a hand-off must still end the back-off.
        let timed = !capped && pace.rate.is_some();
        if (timed || n >= END_TIMED_FROM) && sharing::idle_polls_muted() {
            end_back_off_if_worth_sharing(&mut pace, capped, producer.len());
        }
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

/// [`run_leaf`] after a timed batch, or one of at least [`END_TIMED_FROM`] items, while this
/// worker's polls are muted (`sharing::back_off_idle_polls`: an idle worker could not be fed, on
/// a rate measured on cheap items, perhaps by another loop): the batches must say when the rest
/// becomes worth a hand-off, or expensive items behind cheap ones all run here, each end batch
/// taking half of what is left (docs/benchmarks.md, "Free items and the closed-form call"), and a
/// loop of expensive items started under a grown back-off would run here whole ("Idle polls at
/// many cores"). So an end batch, which is not timed once a rate is known (`capped`, see
/// [`Pace::batch_done`]), is measured here, and a rest worth a hand-off ends the back-off: the
/// next poll answers. Out of line: a busy pool's leaves and small calls never come here.
#[inline(never)]
fn end_back_off_if_worth_sharing(pace: &mut Pace, capped: bool, rest: usize) {
    if capped {
        pace.refresh_rate();
    }
    if worth_sharing(rest, pace.rate, Limits::get(), sharing::pool_size) {
        sharing::end_idle_poll_back_off();
    }
}

/// What [`answer_request`] needs to know of the leaf.
#[derive(Clone, Copy)]
struct Asked {
    /// The leaf's mark from `sharing::leaf_start`, in a pool that offers a loop's rest.
    loops: Option<u32>,
    /// Items the leaf consumed so far.
    consumed: usize,
    /// Items left.
    left: usize,
    /// The piece's `min_len`, at least 1.
    min: usize,
    /// Whether the consumer prefers the end ([`LazyConsumer::prefers_end`]).
    prefers_end: bool,
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
/// Out of line and cold, told about the leaf in a few numbers: a busy pool's leaves never come
/// here, so the request path stays out of every leaf's loop, the leaf is not moved into and out
/// of a call (docs/benchmarks.md, "Design measurements", has the figures), and the path is
/// compiled once, not once per call.
#[cold]
#[inline(never)]
fn answer_request(pace: &mut Pace, asked: Asked) -> Answer {
    let Asked { left: len, min, .. } = asked;
    // Unless the next poll may answer it (no estimate yet), stop looking for a while.
    let mut answerable_later = false;
    // An offer of ours still waiting answers the request already (see `offer_waiting`).
    if !sharing::offer_waiting() {
        let nested = asked
            .loops
            .is_some_and(|loops| items_hold_loops(loops, asked.consumed));
        if nested && !asked.prefers_end {
            sharing::end_idle_poll_back_off();
            return Answer::Offer;
        }
        // A loop around us holds older, larger work: that goes first.
        if sharing::offer_older_work() {
            sharing::end_idle_poll_back_off();
            return Answer::GoOn;
        }
        if len / 2 >= min {
            // The answer rests on the batches just run (see `refresh_rate`).
            pace.refresh_rate();
            if worth_sharing(len, pace.rate, Limits::get(), sharing::pool_size) {
                sharing::end_idle_poll_back_off();
                return Answer::Split;
            }
            answerable_later = pace.rate.is_none();
        }
    }
    // Too short to split (`with_min_len`, one item left, or too little work left to be worth a
    // hand-off), but older pieces of this loop (the up-front halves) may still sit on this
    // worker's private job stack: share one.
    sharing::publish_on_heartbeat();
    let muted = !answerable_later && sharing::back_off_idle_polls(asked.loops);
    // A leaf that polls again times its next batch, so that the next poll can decide. A muted
    // one does not: no poll of it will ask, as none of the leaves started under the back-off
    // will (a short one runs untimed, a long one starts its clock after `TIMED_FROM` items
    // anyway), so the two reads would measure a rate nobody uses (docs/benchmarks.md, "A muted
    // leaf's clock").
    if !muted {
        pace.start_clock();
    }
    Answer::GoOn
}

/// True once the `consumed` items of a leaf (which took `loops` from `sharing::loop_started`)
/// started at least [`OFFER_LOOPS_PER_ITEM`] nested loops each: every item is then a piece of
/// work worth a hand-off by itself, and the leaf goes on in [`run_leaf_offering`], its rest
/// offered from inside its items. Asked after the first batch (a thread-local load per leaf) and
/// on a request.
#[inline]
pub(super) fn items_hold_loops(loops: u32, consumed: usize) -> bool {
    let nested = sharing::loops_started_since(loops) as usize;
    consumed > 0 && nested >= OFFER_LOOPS_PER_ITEM.saturating_mul(consumed)
}

/// One step of [`run_leaf_offering`], in the order the steps' results combine.
enum Step<R, D> {
    /// The result of one item, left of everything after it.
    Item(R, D),
    /// An offered piece, right of everything the loop kept (its result comes from `with_offers`,
    /// in offer order).
    Offered(D),
}

/// Runs a leaf whose items run nested loops one item at a time, with the rest registered as the
/// loop's latent fork (`crate::runtime::sharing::with_latent_fork`): a request for work seen inside
/// an item splits off the right half of the rest (all of it if it cannot be halved), which is
/// offered at once as a job and finished before this returns. So idle workers get the outermost
/// remainder, the largest piece of work pending, not a crumb of the innermost loop that polled.
///
/// Each item runs with a consumer split off for it; their results and the offered pieces' are
/// reduced in position order at the end. The loop itself ([`offering_loop`]) sees the leaf
/// through `dyn` ([`OfferingLeaf`]): it is compiled once per result type, not once per call.
#[inline(never)]
pub(super) fn run_leaf_offering<'a, P, C>(producer: P, consumer: C) -> C::Result
where
    P: Piece + 'a,
    C: LazyConsumer<P::Item> + 'a,
{
    let leaf = Leaf {
        min: producer.min_len().max(1),
        rest: Cell::new(Some((producer, consumer))),
        steps: RefCell::new(Vec::new()),
    };
    let mut offered = sharing::with_offers(&mut |offers| offering_loop(&leaf, leaf.min, offers));
    let (_, consumer) = leaf.take_rest();
    let mut acc = consumer.complete();
    // Backwards, both the steps and the offered pieces' results (in offer order) pop off the end.
    let mut steps = leaf.steps.into_inner();
    while let Some(step) = steps.pop() {
        acc = match step {
            Step::Item(result, reducer) => reducer.reduce(result, acc),
            Step::Offered(reducer) => {
                let piece = offered.pop();
                reducer.reduce(
                    acc,
                    piece.unwrap_or_else(|| unreachable!("one result each")),
                )
            }
        };
    }
    acc
}

/// [`run_leaf_offering`]'s loop: item after item, the rest offered between two items when a
/// worker asks, and from inside an item through the latent fork.
#[inline(never)]
fn offering_loop<'a, R: Send>(
    leaf: &dyn OfferingLeaf<'a, R>,
    min: usize,
    offers: &Offers<'_, 'a, R>,
) {
    let offer = || leaf.offer_rest(offers);
    loop {
        let len = leaf.items_left();
        // A boundary of cancellation: before each item (each runs nested loops).
        if len == 0 || sharing::stopped() {
            return;
        }
        // Between two items the request is ours to answer (an item may hold no poll), with half
        // of the rest: all of it would leave nothing to run here, and a piece popped back
        // unstolen would offer itself again.
        if len / 2 >= min
            && sharing::some_worker_idle()
            && !sharing::offer_waiting()
            && !sharing::offer_older_work()
        {
            offer();
            continue;
        }
        // Registered even while nobody asks: a request may come during the item (registering
        // only when asked at its start, skynet on 64 simulated cores reached 8x, not 22x).
        leaf.run_item(&offer);
    }
}

/// The typed side of [`run_leaf_offering`], which [`offering_loop`] drives through `dyn`.
trait OfferingLeaf<'a, R> {
    /// Items left to run or offer: none once the consumer is full.
    fn items_left(&self) -> usize;
    /// Runs the next item here, with the rest registered as the loop's latent fork (`offer`).
    fn run_item(&self, offer: &dyn Fn() -> bool);
    /// Splits off the right half of the rest (all of it if it cannot be halved) and offers it.
    /// False if nothing is left to offer.
    fn offer_rest(&self, offers: &Offers<'_, 'a, R>) -> bool;
}

/// A leaf of [`run_leaf_offering`]: its rest, in a cell because an item's nested loop may offer
/// it (through the latent fork, on this thread) while the item runs, and what it has done.
struct Leaf<P: Piece, C: LazyConsumer<P::Item>> {
    /// The leaf's `min_len`, at least 1.
    min: usize,
    /// The items not yet run or offered, with their consumer; always there between two calls.
    rest: Cell<Option<(P, C)>>,
    /// Items run and pieces offered, in position order.
    steps: RefCell<Vec<Step<C::Result, C::Reducer>>>,
}

impl<P: Piece, C: LazyConsumer<P::Item>> Leaf<P, C> {
    /// The rest, taken out of its cell (see [`Leaf::rest`]).
    fn take_rest(&self) -> (P, C) {
        self.rest
            .take()
            .unwrap_or_else(|| unreachable!("a leaf's rest is put back"))
    }
}

impl<'a, P, C> OfferingLeaf<'a, C::Result> for Leaf<P, C>
where
    P: Piece + 'a,
    C: LazyConsumer<P::Item> + 'a,
{
    fn items_left(&self) -> usize {
        let (producer, consumer) = self.take_rest();
        let left = if consumer.full() { 0 } else { producer.len() };
        self.rest.set(Some((producer, consumer)));
        left
    }

    fn run_item(&self, offer: &dyn Fn() -> bool) {
        let (producer, consumer) = self.take_rest();
        let (item, tail) = producer.split_at(1);
        let (item_c, tail_c, reducer) = consumer.split_off(1);
        self.rest.set(Some((tail, tail_c)));
        let result =
            sharing::with_latent_fork(offer, || item_c.consume_iter(item.into_iter()).complete());
        self.steps.borrow_mut().push(Step::Item(result, reducer));
    }

    fn offer_rest(&self, offers: &Offers<'_, 'a, C::Result>) -> bool {
        // The rest is out of its cell only inside `items_left` and `run_item`'s split, where no
        // poll runs; a request is a hint, so even then the answer would be no offer, not a panic.
        let Some((producer, consumer)) = self.rest.take() else {
            return false;
        };
        let len = producer.len();
        if len == 0 || consumer.full() {
            self.rest.set(Some((producer, consumer)));
            return false;
        }
        let keep = if len / 2 >= self.min { len / 2 } else { 0 };
        let (kept, given) = producer.split_at(keep);
        let (kept_c, given_c, reducer) = consumer.split_off(keep);
        let offered = offers.offer(Box::new(move |_| run_leaf_offering(given, given_c)));
        assert!(offered, "items of a loop in a pool");
        self.steps.borrow_mut().push(Step::Offered(reducer));
        self.rest.set(Some((kept, kept_c)));
        true
    }
}

/// Splits a leaf's remainder in half for an idle worker and runs both halves as leaves.
///
/// Out of line: the join's frame would otherwise be part of every leaf's frame, and most leaves
/// (the small calls of nested recursion) never split.
#[inline(never)]
pub(super) fn split_leaf<P, C>(producer: P, consumer: C, pace: Pace) -> C::Result
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    let mid = producer.len() / 2;
    let (left_p, right_p) = producer.split_at(mid);
    let (left_c, right_c, reducer) = consumer.split_off(mid);
    let (left, right) = sharing::join_pieces_for_idle_worker(
        move || run_leaf(left_p, left_c, pace),
        move || run_leaf(right_p, right_c, pace),
    );
    reducer.reduce(left, right)
}

/// [`run_leaf`] for a consumer that [prefers the end](LazyConsumer::prefers_end): up to
/// [`TAIL_BATCHES`](super::pace::TAIL_BATCHES) batches are cut off the *end* of the piece, each fed to a consumer split off
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
        if sharing::stopped() {
            break consumer.complete();
        }
        // The first batch (the piece's last item) always runs: it is what a stolen piece of a
        // nested search is for.
        if pace.tails == 0 || (after.is_some() && !alone && sharing::some_worker_idle()) {
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
