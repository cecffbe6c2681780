//! Tree walks: [`walk_tree_prefix`], [`walk_tree_postfix`] and [`walk_tree`], unindexed sources
//! over the nodes of a tree given by its root and a function listing a node's children.
//!
//! A piece of a walk is a stack of what is left to emit, next on top: *subtrees* still to walk and
//! single *nodes* whose children are already on the stack (or done). A sequential walk pops the top
//! entry: a node is emitted; a subtree's root has its children listed and pushed (first child on
//! top), then is emitted at once in prefix order, or pushed as a node beneath its children in
//! postfix order. (Within a batch the walk keeps the children iterators of the nodes it entered on
//! a stack of its own, and puts what they have left back as entries when the batch ends.) The
//! stacks live on the heap, so a deep tree cannot overflow the thread's stack.
//!
//! A piece is an [`UnindexedProducer`] that the bridge folds a few nodes at a time, so a running
//! walk can still be cut when an idle worker asks. A cut takes the bottom of the stack (the
//! entries emitted last) with the later half of its subtrees; a piece with a single subtree first
//! visits that subtree's root (which becomes a node entry, above its children in prefix order and
//! beneath them in postfix order) until it has two subtrees or none, and one with none is not cut.

use std::fmt;

use crate::iter::plumbing::bridge::bridge_unindexed_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{Folder, LazyConsumer, UnindexedProducer};
use crate::iter::ParallelIterator;

/// A parallel iterator over the nodes of a tree in prefix order: every node before its children,
/// the subtrees of the children in the order `children_of` lists them (as a sequential
/// depth-first walk would visit them).
///
/// ```
/// use forkjoin::iter::walk_tree_prefix;
/// use forkjoin::prelude::*;
/// //      4
/// //     / \
/// //    2   3
/// //       / \
/// //      1   2
/// let children = |&e: &u32| if e <= 2 { vec![] } else { vec![e / 2, e / 2 + 1] };
/// let nodes: Vec<u32> = walk_tree_prefix(4, children).collect();
/// assert_eq!(nodes, [4, 2, 3, 1, 2]);
/// ```
pub fn walk_tree_prefix<S, B, I>(root: S, children_of: B) -> WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    WalkTreePrefix {
        initial_state: root,
        children_of,
    }
}

/// A parallel iterator over the nodes of a tree in postfix order: the subtrees of a node's
/// children, in the order `children_of` lists them, then the node.
///
/// ```
/// use forkjoin::iter::walk_tree_postfix;
/// use forkjoin::prelude::*;
/// let children = |&e: &u32| if e <= 2 { vec![] } else { vec![e / 2, e / 2 + 1] };
/// let nodes: Vec<u32> = walk_tree_postfix(4, children).collect();
/// assert_eq!(nodes, [2, 1, 2, 3, 4]);
/// ```
pub fn walk_tree_postfix<S, B, I>(root: S, children_of: B) -> WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTreePostfix {
        initial_state: root,
        children_of,
    }
}

/// A parallel iterator over the nodes of a tree, in an order left unspecified (as in rayon); use
/// it when the order does not matter (a sum, a count). Today it is the postfix walk.
///
/// ```
/// use forkjoin::iter::walk_tree;
/// use forkjoin::prelude::*;
/// let children = |&e: &u32| if e <= 2 { vec![] } else { vec![e / 2, e / 2 + 1] };
/// assert_eq!(walk_tree(4, children).sum::<u32>(), 12);
/// ```
pub fn walk_tree<S, B, I>(root: S, children_of: B) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    WalkTree(walk_tree_postfix(root, children_of))
}

macro_rules! walk_struct {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[must_use = "parallel iterators are lazy and do nothing unless consumed"]
        pub struct $name<S, B> {
            initial_state: S,
            children_of: B,
        }

        impl<S: fmt::Debug, B> fmt::Debug for $name<S, B> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("initial_state", &self.initial_state)
                    .finish()
            }
        }
    };
}

walk_struct! {
    /// Parallel iterator returned by [`walk_tree_prefix`].
    WalkTreePrefix
}

walk_struct! {
    /// Parallel iterator returned by [`walk_tree_postfix`].
    WalkTreePostfix
}

/// Parallel iterator returned by [`walk_tree`].
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct WalkTree<S, B>(WalkTreePostfix<S, B>);

impl<S: fmt::Debug, B> fmt::Debug for WalkTree<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("WalkTree").field(&self.0).finish()
    }
}

impl<S, B, I> ParallelIterator for WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    type Item = S;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<S>>(self, consumer: C) -> C::Result {
        let piece = WalkPiece::new(self.initial_state, &self.children_of, Order::Prefix);
        bridge_unindexed_lazy(piece, consumer)
    }
}

impl<S, B, I> ParallelIterator for WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<S>>(self, consumer: C) -> C::Result {
        let piece = WalkPiece::new(self.initial_state, &self.children_of, Order::Postfix);
        bridge_unindexed_lazy(piece, consumer)
    }
}

impl<S, B, I> ParallelIterator for WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator> + Send,
{
    type Item = S;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<S>>(self, consumer: C) -> C::Result {
        self.0.drive_lazy(consumer)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    Prefix,
    Postfix,
}

/// An entry of a piece's stack (see the module doc).
enum Entry<S> {
    /// A subtree still to walk, given by its root.
    Subtree(S),
    /// A node to emit.
    Node(S),
}

/// A piece of a walk (see the module doc).
struct WalkPiece<'b, S, B> {
    /// What is left, the entry emitted first on top (last).
    stack: Vec<Entry<S>>,
    children_of: &'b B,
    order: Order,
}

impl<'b, S, B, I> WalkPiece<'b, S, B>
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
{
    fn new(root: S, children_of: &'b B, order: Order) -> Self {
        WalkPiece {
            stack: vec![Entry::Subtree(root)],
            children_of,
            order,
        }
    }

    /// Cuts the piece in two as the module doc describes: `self` keeps the entries emitted first,
    /// the rest is returned (`None` when no two subtrees can be had).
    fn cut_in_two(&mut self) -> Option<Self> {
        loop {
            let mut subtrees = self
                .stack
                .iter()
                .enumerate()
                .filter(|(_, entry)| matches!(entry, Entry::Subtree(_)))
                .map(|(i, _)| i);
            let first = subtrees.next()?;
            let count = 1 + subtrees.count();
            if count == 1 {
                // One subtree: visit its root, and on down while each node has one child (a
                // chain), then put the visited nodes and the last one's children in its place in
                // one splice. (Visiting one node per pass rescanned and shifted the whole stack
                // each time: quadratic in a chain's length.)
                let Entry::Subtree(mut root) = self.stack.remove(first) else {
                    unreachable!("`first` indexes a subtree")
                };
                let mut chain = Vec::new();
                let mut children: Vec<S> = Vec::new();
                loop {
                    children.extend((self.children_of)(&root));
                    chain.push(root);
                    if children.len() != 1 {
                        break;
                    }
                    root = children.pop().unwrap_or_else(|| unreachable!("one child"));
                }
                // The first child on top (emitted first); the chain's nodes above the subtrees
                // in prefix order (its root on top), below them in postfix order.
                let subtrees = children.into_iter().rev().map(Entry::Subtree);
                let replacement: Vec<Entry<S>> = if self.order == Order::Postfix {
                    chain.into_iter().map(Entry::Node).chain(subtrees).collect()
                } else {
                    subtrees
                        .chain(chain.into_iter().rev().map(Entry::Node))
                        .collect()
                };
                self.stack.splice(first..first, replacement);
                continue;
            }
            // The bottom part takes the later half of the subtrees (the larger one when odd).
            let later = count.div_ceil(2);
            let last_of_bottom = self
                .stack
                .iter()
                .enumerate()
                .filter(|(_, entry)| matches!(entry, Entry::Subtree(_)))
                .nth(later - 1)
                .map(|(i, _)| i)?;
            let top = self.stack.split_off(last_of_bottom + 1);
            let bottom = std::mem::replace(&mut self.stack, top);
            return Some(WalkPiece {
                stack: bottom,
                children_of: self.children_of,
                order: self.order,
            });
        }
    }
}

impl<S, B, I> UnindexedProducer for WalkPiece<'_, S, B>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn split(mut self) -> (Self, Option<Self>) {
        let second = self.cut_in_two();
        (self, second)
    }

    fn fold_with<F: Folder<S>>(mut self, folder: F) -> F {
        match self.order {
            Order::Prefix => folder.consume_iter(DepthFirst::<_, _, _, false>::new(&mut self)),
            Order::Postfix => folder.consume_iter(DepthFirst::<_, _, _, true>::new(&mut self)),
        }
    }

    fn fold_batch<C: LazyConsumer<S>>(self, consumer: C, batch: usize) -> (C, Option<Self>) {
        match self.order {
            Order::Prefix => self.fold_batch_in_order::<C, false>(consumer, batch),
            Order::Postfix => self.fold_batch_in_order::<C, true>(consumer, batch),
        }
    }
}

impl<S, B, I> WalkPiece<'_, S, B>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    /// [`UnindexedProducer::fold_batch`] in the order `POSTFIX` says.
    #[inline]
    fn fold_batch_in_order<C, const POSTFIX: bool>(
        mut self,
        consumer: C,
        batch: usize,
    ) -> (C, Option<Self>)
    where
        C: LazyConsumer<S>,
    {
        if batch == usize::MAX {
            let walk = DepthFirst::<_, _, _, POSTFIX>::new(&mut self);
            return (consumer.consume_iter(walk), None);
        }
        let mut walk = DepthFirst::<_, _, _, POSTFIX>::new(&mut self);
        let consumer = consumer.consume_iter(walk.by_ref().take(batch));
        walk.put_back();
        let rest = (!self.stack.is_empty()).then_some(self);
        (consumer, rest)
    }
}

/// The sequential walk of a piece: entries are popped off the piece's stack, and the subtrees
/// entered are walked depth first with a stack of children iterators (each with its node while
/// the node waits to be emitted, in postfix order), cheaper than pushing every child as an entry.
struct DepthFirst<'p, 'b, S, B, It, const POSTFIX: bool> {
    entries: &'p mut Vec<Entry<S>>,
    levels: Vec<(Option<S>, It)>,
    children_of: &'b B,
}

impl<'p, 'b, S, B, I, const POSTFIX: bool> DepthFirst<'p, 'b, S, B, I::IntoIter, POSTFIX>
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
{
    fn new(piece: &'p mut WalkPiece<'b, S, B>) -> Self {
        DepthFirst {
            entries: &mut piece.stack,
            levels: Vec::new(),
            children_of: piece.children_of,
        }
    }

    /// Returns what the walk has not emitted to the piece's stack, as entries (a batch ended).
    fn put_back(self) {
        for (node, children) in self.levels {
            if let Some(node) = node {
                self.entries.push(Entry::Node(node));
            }
            let start = self.entries.len();
            self.entries.extend(children.map(Entry::Subtree));
            self.entries[start..].reverse();
        }
    }
}

impl<S, B, I, const POSTFIX: bool> Iterator for DepthFirst<'_, '_, S, B, I::IntoIter, POSTFIX>
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    #[inline]
    fn next(&mut self) -> Option<S> {
        loop {
            let next = match self.levels.last_mut() {
                Some((_, children)) => children.next(),
                None => match self.entries.pop()? {
                    Entry::Node(node) => return Some(node),
                    Entry::Subtree(root) => Some(root),
                },
            };
            match next {
                Some(node) => {
                    let children = (self.children_of)(&node).into_iter();
                    if !POSTFIX {
                        self.levels.push((None, children));
                        return Some(node);
                    }
                    self.levels.push((Some(node), children));
                }
                None => {
                    // The deepest level has no children left: done with its node.
                    if let Some((Some(node), _)) = self.levels.pop() {
                        return Some(node);
                    }
                }
            }
        }
    }
}
