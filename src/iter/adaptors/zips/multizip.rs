//! `into_par_iter()` on tuples of up to 12 indexed parallel iterators (or of things that become
//! them, by value, `&` or `&mut`): [`MultiZip`], the n-ary `zip`, as rayon's.
//!
//! Built on the binary [`zip`](crate::iter::IndexedParallelIterator::zip): the components are zipped
//! left to right into nested pairs, which a `map` flattens into the item tuple.

use crate::iter::plumbing::bridge::bridge_lazy;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::plumbing::{LazyConsumer, ProducerCallback};
use crate::iter::{
    IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelIterator,
};

/// Parallel iterator over tuples of the items of several indexed parallel iterators, in step:
/// what `into_par_iter()` on a tuple of them returns. As long as the shortest component; indexed.
///
/// ```
/// use forkjoin::prelude::*;
/// let (a, b, c) = (vec![1, 2, 3], vec!['x', 'y'], 10..20);
/// let v: Vec<(&i32, &char, i32)> = (&a, &b, c).into_par_iter().collect();
/// assert_eq!(v, [(&1, &'x', 10), (&2, &'y', 11)]);
/// let mut sums = vec![0; 3];
/// (&mut sums, &a, &a).into_par_iter().for_each(|(s, x, y)| *s = x + y);
/// assert_eq!(sums, [2, 4, 6]);
/// ```
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct MultiZip<T> {
    tuple: T,
}

/// The components zipped left to right: `((a.zip(b)).zip(c))...`.
macro_rules! zip_left {
    ($acc:expr;) => { $acc };
    ($acc:expr; $next:expr $(, $rest:expr)*) => { zip_left!($acc.zip($next); $($rest),*) };
}

/// The pattern of the nested pairs that [`zip_left!`] yields: `((a, b), c)...`.
macro_rules! nested_pattern {
    ($acc:tt;) => { $acc };
    ($acc:tt; $next:ident $(, $rest:ident)*) => { nested_pattern!(($acc, $next); $($rest),*) };
}

macro_rules! multizip {
    ($( ($first_t:ident $first_v:ident 0 $(, $t:ident $v:ident $idx:tt)*) )+) => {$(
        /// The components by value, in step.
        impl<$first_t $(, $t)*> IntoParallelIterator for ($first_t, $($t,)*)
        where
            $first_t: IntoParallelIterator<Iter: IndexedParallelIterator>,
            $($t: IntoParallelIterator<Iter: IndexedParallelIterator>,)*
        {
            type Item = ($first_t::Item, $($t::Item,)*);
            type Iter = MultiZip<($first_t::Iter, $($t::Iter,)*)>;

            fn into_par_iter(self) -> Self::Iter {
                MultiZip {
                    tuple: (self.0.into_par_iter(), $(self.$idx.into_par_iter(),)*),
                }
            }
        }

        /// The components by reference (`par_iter()`), in step.
        impl<'a, $first_t $(, $t)*> IntoParallelIterator for &'a ($first_t, $($t,)*)
        where
            $first_t: IntoParallelRefIterator<'a, Iter: IndexedParallelIterator>,
            $($t: IntoParallelRefIterator<'a, Iter: IndexedParallelIterator>,)*
        {
            type Item = ($first_t::Item, $($t::Item,)*);
            type Iter = MultiZip<($first_t::Iter, $($t::Iter,)*)>;

            fn into_par_iter(self) -> Self::Iter {
                MultiZip {
                    tuple: (self.0.par_iter(), $(self.$idx.par_iter(),)*),
                }
            }
        }

        /// The components by exclusive reference (`par_iter_mut()`), in step.
        impl<'a, $first_t $(, $t)*> IntoParallelIterator for &'a mut ($first_t, $($t,)*)
        where
            $first_t: IntoParallelRefMutIterator<'a, Iter: IndexedParallelIterator>,
            $($t: IntoParallelRefMutIterator<'a, Iter: IndexedParallelIterator>,)*
        {
            type Item = ($first_t::Item, $($t::Item,)*);
            type Iter = MultiZip<($first_t::Iter, $($t::Iter,)*)>;

            fn into_par_iter(self) -> Self::Iter {
                MultiZip {
                    tuple: (self.0.par_iter_mut(), $(self.$idx.par_iter_mut(),)*),
                }
            }
        }

        impl<$first_t $(, $t)*> ParallelIterator for MultiZip<($first_t, $($t,)*)>
        where
            $first_t: IndexedParallelIterator,
            $($t: IndexedParallelIterator,)*
        {
            type Item = ($first_t::Item, $($t::Item,)*);

            fn drive_unindexed<CONS: UnindexedConsumer<Self::Item>>(self, consumer: CONS) -> CONS::Result {
                drive_unindexed_lazily(self, consumer)
            }

            fn drive_lazy<CONS: LazyConsumer<Self::Item>>(self, consumer: CONS) -> CONS::Result {
                bridge_lazy(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$first_t $(, $t)*> IndexedParallelIterator for MultiZip<($first_t, $($t,)*)>
        where
            $first_t: IndexedParallelIterator,
            $($t: IndexedParallelIterator,)*
        {
            fn len(&self) -> usize {
                self.tuple.0.len()$(.min(self.tuple.$idx.len()))*
            }

            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                let ($first_v, $($v,)*) = self.tuple;
                zip_left!($first_v; $($v),*)
                    .map(|nested_pattern!($first_v; $($v),*)| ($first_v, $($v,)*))
                    .with_producer(callback)
            }
        }
    )+};
}

multizip! {
    (A a 0)
    (A a 0, B b 1)
    (A a 0, B b 1, C c 2)
    (A a 0, B b 1, C c 2, D d 3)
    (A a 0, B b 1, C c 2, D d 3, E e 4)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9, K k 10)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9, K k 10, L l 11)
}
