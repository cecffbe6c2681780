//! [`Piece`]: what the bridge drives, and what the deterministic driver (`fixed_tree`) reduces.

/// What the bridge drives: a run of positions that knows its length and can be cut at any of them.
///
/// An indexed iterator's [`Producer`](crate::iter::plumbing::Producer) becomes one with its length (`Counted` in `bridge.rs`); the string
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
    /// Block length of a deterministic piece, 0 for an adaptive one (see `fixed_tree`).
    fn block_len(&self) -> usize {
        0
    }
}
