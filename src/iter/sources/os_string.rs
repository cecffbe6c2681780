//! `collect` into and `par_extend` of an [`OsString`], from `&OsStr`, `OsString` and
//! `Cow<OsStr>` items, as for `String`: every piece builds its own `OsString` and the pieces are
//! appended in order.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};

use crate::iter::consumers::collect::append_string_pieces;
use crate::iter::{FromParallelIterator, IntoParallelIterator, ParallelExtend};

macro_rules! os_string_items {
    ($($item:ty $(, $a:lifetime)?;)*) => {$(
        /// The items are concatenated in order (each piece of the input builds its own
        /// `OsString`).
        impl$(<$a>)? ParallelExtend<$item> for OsString {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                append_string_pieces(self, par_iter, |s, t| s.push(&t));
            }
        }

        /// The items are concatenated in order, as by `par_extend`.
        impl$(<$a>)? FromParallelIterator<$item> for OsString {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(par_iter: I) -> Self {
                let mut s = OsString::new();
                s.par_extend(par_iter);
                s
            }
        }
    )*};
}

os_string_items! {
    &'a OsStr, 'a;
    OsString;
    Cow<'a, OsStr>, 'a;
}
