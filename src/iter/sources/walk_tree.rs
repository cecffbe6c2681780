//! Tree walks: [`walk_tree_prefix`], [`walk_tree_postfix`] and [`walk_tree`], unindexed sources
//! over the nodes of a tree given by its root and a function listing a node's children.
//!
//! A piece of a walk is a run of *subtrees* (in order) plus the *ancestors* already visited by the
//! cuts that made it. A piece with two subtrees or more is cut between them, in the middle; a
//! piece with one subtree first visits that subtree's root (which becomes an ancestor) and takes
//! its children in its place, until it has two subtrees or none. Prefix order emits a piece's
//! ancestors before its subtrees, so they stay with the first part of a cut; postfix order emits
//! them after, so they go with the second part. Within a piece, the subtrees are walked depth
//! first with an explicit stack of children iterators (no recursion: a deep tree cannot overflow
//! the thread's stack).

use std::fmt;

use crate::iter::plumbing::unindexed::{drive_pieces, SplitPiece};
use crate::iter::plumbing::LazyConsumer;
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

    fn drive_lazy<C: LazyConsumer<S>>(self, consumer: C) -> C::Result {
        let piece = WalkPiece::new(self.initial_state, &self.children_of, Order::Prefix);
        drive_pieces(piece, consumer)
    }
}

impl<S, B, I> ParallelIterator for WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn drive_lazy<C: LazyConsumer<S>>(self, consumer: C) -> C::Result {
        let piece = WalkPiece::new(self.initial_state, &self.children_of, Order::Postfix);
        drive_pieces(piece, consumer)
    }
}

impl<S, B, I> ParallelIterator for WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator> + Send,
{
    type Item = S;

    fn drive_lazy<C: LazyConsumer<S>>(self, consumer: C) -> C::Result {
        self.0.drive_lazy(consumer)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    Prefix,
    Postfix,
}

/// A piece of a walk (see the module doc).
struct WalkPiece<'b, S, B> {
    /// Roots of the subtrees still to walk, in order.
    subtrees: Vec<S>,
    /// Nodes visited by cuts, in the order they were visited (each is an ancestor of the next).
    ancestors: Vec<S>,
    children_of: &'b B,
    order: Order,
}

impl<'b, S, B> WalkPiece<'b, S, B> {
    fn new(root: S, children_of: &'b B, order: Order) -> Self {
        WalkPiece {
            subtrees: vec![root],
            ancestors: Vec::new(),
            children_of,
            order,
        }
    }
}

impl<S, B, I> SplitPiece for WalkPiece<'_, S, B>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn split(&mut self) -> Option<Self> {
        // One subtree: descend (breadth first at this level) until there are two to share.
        while self.subtrees.len() == 1 {
            let node = self.subtrees.pop()?;
            self.subtrees.extend((self.children_of)(&node));
            self.ancestors.push(node);
        }
        if self.subtrees.len() < 2 {
            return None;
        }
        let second = self.subtrees.split_off(self.subtrees.len() / 2);
        // Prefix order emits the ancestors first: they stay here. Postfix emits them last: they
        // move to the second part.
        let ancestors = match self.order {
            Order::Prefix => Vec::new(),
            Order::Postfix => std::mem::take(&mut self.ancestors),
        };
        Some(WalkPiece {
            subtrees: second,
            ancestors,
            children_of: self.children_of,
            order: self.order,
        })
    }

    fn fold_into<C: LazyConsumer<S>>(self, consumer: C) -> C {
        let children_of = self.children_of;
        let walk = DepthFirst {
            roots: self.subtrees.into_iter(),
            stack: Vec::new(),
            children_of,
        };
        match self.order {
            Order::Prefix => {
                let consumer = consumer.consume_iter(self.ancestors.into_iter());
                consumer.consume_iter(walk.prefix())
            }
            Order::Postfix => {
                // Each ancestor is a descendant of the ones before it: the last visited comes
                // out first.
                let consumer = consumer.consume_iter(walk.postfix());
                consumer.consume_iter(self.ancestors.into_iter().rev())
            }
        }
    }
}

/// A sequential depth-first walk of a run of subtrees; each stack entry is a node (`None` once
/// emitted, in prefix order) with the iterator over its remaining children.
struct DepthFirst<'b, S, B, It> {
    roots: std::vec::IntoIter<S>,
    stack: Vec<(Option<S>, It)>,
    children_of: &'b B,
}

impl<'b, S, B, I> DepthFirst<'b, S, B, I::IntoIter>
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
{
    /// The next node to enter: the next child of the deepest node, else the next root (`None` with
    /// an empty stack when the walk is over, or when the deepest node has no children left).
    fn next_child(&mut self) -> Option<S> {
        match self.stack.last_mut() {
            Some((_, children)) => children.next(),
            None => self.roots.next(),
        }
    }

    fn enter(&mut self, node: S, keep: bool) -> Option<S> {
        let children = (self.children_of)(&node).into_iter();
        if keep {
            self.stack.push((Some(node), children));
            None
        } else {
            self.stack.push((None, children));
            Some(node)
        }
    }

    /// Every node as it is entered.
    fn prefix(mut self) -> impl Iterator<Item = S> + use<'b, S, B, I> {
        std::iter::from_fn(move || loop {
            match self.next_child() {
                Some(node) => return self.enter(node, false),
                None => {
                    let _finished = self.stack.pop()?;
                }
            }
        })
    }

    /// Every node once all its children are done.
    fn postfix(mut self) -> impl Iterator<Item = S> + use<'b, S, B, I> {
        std::iter::from_fn(move || loop {
            match self.next_child() {
                Some(node) => {
                    self.enter(node, true);
                }
                None => {
                    let (node, _) = self.stack.pop()?;
                    return node;
                }
            }
        })
    }
}
