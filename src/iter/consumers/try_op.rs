//! Fallible items: the sealed [`Try`] trait behind `try_for_each`, collecting into `Result` and
//! `Option`, and the "stop at the first failure and remember it" mechanism they share.
//!
//! Every item is checked; a failure is recorded (only the first one to arrive, in time, is kept) and
//! turned into a `None` for [`while_some`](crate::iter::ParallelIterator::while_some), which stops all
//! pieces. Which failure is returned when several items fail is therefore unspecified, as in rayon:
//! it is the first that any thread met, not necessarily the one at the lowest position.

use crate::iter::{FromParallelIterator, IntoParallelIterator, ParallelIterator};
use crate::platform::sync::Mutex;

mod sealed {
    pub trait Sealed {}
    impl<T, E> Sealed for Result<T, E> {}
    impl<T> Sealed for Option<T> {}
}

/// The return types [`try_for_each`](crate::iter::ParallelIterator::try_for_each) accepts: `Result<T, E>`
/// (failure: `Err`) and `Option<T>` (failure: `None`). Sealed: it mirrors rayon's private `Try`, a
/// stand-in for the unstable `std::ops::Try`, and cannot be implemented outside this crate.
///
/// ```
/// use forkjoin::prelude::*;
/// let small = |x: u8| if x < 5 { Ok(()) } else { Err(x) };
/// let r: Result<(), u8> = (0..10u8).into_par_iter().try_for_each(small);
/// assert!(matches!(r, Err(5..=9)));
/// let o: Option<()> = (0..10u8).into_par_iter().try_for_each(|_| Some(()));
/// assert_eq!(o, Some(()));
/// ```
///
/// Other types cannot implement it (outside the crate it cannot even be named):
///
/// ```compile_fail
/// struct Flag(bool);
/// impl forkjoin::iter::Try for Flag {
///     type Output = ();
///     fn from_output(_: ()) -> Self { Flag(true) }
///     fn into_output(self) -> Result<(), Self> { if self.0 { Ok(()) } else { Err(self) } }
/// }
/// ```
pub trait Try: sealed::Sealed + Sized {
    /// The value of a success.
    type Output;
    /// A success holding `output`.
    fn from_output(output: Self::Output) -> Self;
    /// The value of a success, or `Err(self)` for a failure.
    fn into_output(self) -> Result<Self::Output, Self>;
}

impl<T, E> Try for Result<T, E> {
    type Output = T;
    fn from_output(output: T) -> Self {
        Ok(output)
    }
    fn into_output(self) -> Result<T, Self> {
        self.map_err(Err)
    }
}

impl<T> Try for Option<T> {
    type Output = T;
    fn from_output(output: T) -> Self {
        Some(output)
    }
    fn into_output(self) -> Result<T, Self> {
        self.ok_or(None)
    }
}

/// Collects the success values of `par_iter` (as told by `check`) into `C`, stopping every piece
/// once a failure is seen; returns the first failure recorded, if any, instead of the collection.
pub(in crate::iter) fn collect_until_failure<I, T, F, C>(
    par_iter: I,
    check: impl Fn(I::Item) -> Result<T, F> + Sync + Send,
) -> Result<C, F>
where
    I: ParallelIterator,
    T: Send,
    F: Send,
    C: FromParallelIterator<T>,
{
    let first: Mutex<Option<F>> = Mutex::new(None);
    let collection: C = par_iter
        .map(|item| match check(item) {
            Ok(value) => Some(value),
            Err(failure) => {
                // No user code runs under the lock, so a poisoned lock still holds a valid slot.
                let mut slot = first
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                slot.get_or_insert(failure);
                None
            }
        })
        .while_some()
        .collect();
    match first
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
    {
        Some(failure) => Err(failure),
        None => Ok(collection),
    }
}

/// Collects the `Ok` values into `C`, in the same order as collecting them into `C` directly, or
/// returns an error if any item is an `Err`. All threads stop soon after an error is seen; if several
/// items are errors, which one is returned is unspecified (the first that any thread met).
///
/// ```
/// use forkjoin::prelude::*;
/// let ok: Result<Vec<u32>, String> = ["1", "2", "3"].par_iter().map(|s| s.parse().map_err(|_| s.to_string())).collect();
/// assert_eq!(ok, Ok(vec![1, 2, 3]));
/// let err: Result<Vec<u32>, String> = ["1", "x", "3"].par_iter().map(|s| s.parse().map_err(|_| s.to_string())).collect();
/// assert_eq!(err, Err("x".to_string()));
/// ```
impl<C, T, E> FromParallelIterator<Result<T, E>> for Result<C, E>
where
    C: FromParallelIterator<T>,
    T: Send,
    E: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Result<T, E>>>(par_iter: I) -> Self {
        collect_until_failure(par_iter.into_par_iter(), |item| item)
    }
}

/// Collects the `Some` values into `C`, in the same order as collecting them into `C` directly, or
/// returns `None` if any item is `None`. All threads stop soon after a `None` is seen.
///
/// ```
/// use forkjoin::prelude::*;
/// let all: Option<Vec<u32>> = (1..4u32).into_par_iter().map(|x| 12u32.checked_div(x)).collect();
/// assert_eq!(all, Some(vec![12, 6, 4]));
/// let none: Option<Vec<u32>> = (0..4u32).into_par_iter().map(|x| 12u32.checked_div(x)).collect();
/// assert_eq!(none, None);
/// ```
impl<C, T> FromParallelIterator<Option<T>> for Option<C>
where
    C: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Option<T>>>(par_iter: I) -> Self {
        collect_until_failure(par_iter.into_par_iter(), |item| item.ok_or(())).ok()
    }
}
