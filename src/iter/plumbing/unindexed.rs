//! Driving the sources that have no positions and split themselves: [`split`](fn@crate::iter::split),
//! the tree walks ([`walk_tree_prefix`](crate::iter::walk_tree_prefix), ...), the slice splits
//! (`par_split`, ...) and a user's [`UnindexedProducer`](crate::iter::plumbing::UnindexedProducer)
//! (through [`bridge_unindexed`](crate::iter::plumbing::bridge_unindexed)).
//!
//! Such a source cannot be cut at an index, only asked to cut itself somewhere (a range in two by
//! the user's splitter, a tree at a level with two subtrees or more, a slice at a separator), and a
//! cut may be refused. The bridge of the indexed sources needs positions, so these run through
//! this simpler driver, with rayon's splitting rule plus one of ours: cut up front about
//! `log2(threads) + 1` levels deep, start such a round of cuts again in a piece that another
//! thread stole, and cut a piece again whenever an idle worker is asking for work when the piece
//! starts. A piece that has started runs to its end sequentially (it has no positions to cut at
//! between two items), so one piece's items should not be too long to run on one thread.

use crate::iter::plumbing::{LazyConsumer, Reducer};
use crate::runtime::hints;

/// A piece of an unindexed source: cut in two on request, or iterated sequentially.
pub(crate) trait SplitPiece: Send + Sized {
    /// The items of the piece.
    type Item;

    /// Cuts the piece in two: `self` keeps the first part, the second is returned. `None` when
    /// the piece cannot be cut (it is then left as it was).
    fn split(&mut self) -> Option<Self>;

    /// Feeds the items of the piece, in order, into `consumer`.
    fn fold_into<C: LazyConsumer<Self::Item>>(self, consumer: C) -> C;
}

/// Runs `piece` into `consumer`, cutting it as the module doc describes; results are reduced in
/// order, so ordered consumers (`collect`, `find_first`) see the items in the source's order.
pub(crate) fn drive_pieces<P, C>(piece: P, consumer: C) -> C::Result
where
    P: SplitPiece,
    C: LazyConsumer<P::Item>,
{
    let splits = match hints::start_as() {
        hints::StartAs::SplitUpFront => crate::current_num_threads(),
        hints::StartAs::Whole | hints::StartAs::OneLeaf => 0,
    };
    run(piece, consumer, splits)
}

/// `splits`: how many more up-front levels of cuts are wanted (halved at every level).
fn run<P, C>(mut piece: P, consumer: C, splits: usize) -> C::Result
where
    P: SplitPiece,
    C: LazyConsumer<P::Item>,
{
    if consumer.full() {
        return consumer.complete();
    }
    let asked = splits == 0 && !hints::nobody_can_ask() && hints::is_work_requested();
    if splits > 0 || asked {
        if let Some(right) = piece.split() {
            // Unindexed consumers ignore `keep`: these items have no positions.
            let (left_c, right_c, reducer) = consumer.split_off(0);
            let splits = splits / 2;
            let home = crate::current_thread_index();
            let left = move || run(piece, left_c, splits);
            let right = move || {
                // A stolen piece starts a new round of up-front cuts, as in rayon's splitter: the
                // thief had nothing to do, and the others may soon have nothing either.
                let stolen = crate::current_thread_index() != home;
                let splits = if stolen {
                    crate::current_num_threads()
                } else {
                    splits
                };
                run(right, right_c, splits)
            };
            let (l, r) = if asked {
                hints::join_for_idle_worker(left, right)
            } else {
                hints::join_for_split(left, right)
            };
            return reducer.reduce(l, r);
        }
    }
    piece.fold_into(consumer).complete()
}
