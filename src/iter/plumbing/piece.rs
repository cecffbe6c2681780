//! [`Piece`]: what the bridge drives, and what the deterministic driver (`fixed_tree`) reduces;
//! [`fold_whole`], how both feed a piece to a consumer in one go.

use crate::iter::plumbing::LazyConsumer;

/// What the bridge drives: a run of positions that knows its length and can be cut at any of them.
///
/// An indexed iterator's [`Producer`](crate::iter::plumbing::Producer) becomes one with its length (`Counted` in `bridge/mod.rs`); the string
/// sources are pieces themselves, with bytes as positions (their items have no index, so they are
/// no `Producer`: a cut moves to the nearest place the items allow).
pub(crate) trait Piece: Send + Sized {
    /// The items of the piece.
    type Item;
    /// The sequential iterator over the piece.
    type IntoIter: Iterator<Item = Self::Item>;
    /// Number of positions in the piece.
    fn len(&self) -> usize;
    /// Splits into positions `[0, index)` and `[index, len)`; `index <= len`.
    fn split_at(self, index: usize) -> (Self, Self);
    /// Iterates the piece sequentially.
    fn into_iter(self) -> Self::IntoIter;
    /// Smallest piece worth handing to another thread.
    fn min_len(&self) -> usize {
        1
    }
    /// Largest piece one thread may take as a unit.
    fn max_len(&self) -> usize {
        usize::MAX
    }
}

/// Feeds a whole piece to `consumer` in one go, with no batches and no polls. A consumer that is
/// full already (a later piece of a `find_any` after a hit) takes nothing: a consumer checks its
/// own fullness only between batches, of which there is one here.
#[inline]
pub(crate) fn fold_whole<P, C>(piece: P, consumer: C) -> C::Result
where
    P: Piece,
    C: LazyConsumer<P::Item>,
{
    if consumer.full() {
        return consumer.complete();
    }
    consumer.consume_iter(piece.into_iter()).complete()
}
