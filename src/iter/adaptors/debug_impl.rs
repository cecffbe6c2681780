//! rayon-style `Debug` for adaptors that hold closures: print the base iterator (and any plain
//! state), skip the closures, so that `Debug` never asks for `F: Debug` (closures have none).

/// Implements `Debug` for `$name<$params>`, printing the listed fields, each bounded by `Debug`
/// through the type parameter given after it, and marking the skipped closures with `..`:
/// `debug_skipping_closures!(Map<I, F> { base: I });` prints `Map { base: .., .. }`.
macro_rules! debug_skipping_closures {
    ($name:ident<$($param:ident),+> { $($field:ident: $bound:ident),+ $(,)? }) => {
        impl<$($param),+> ::std::fmt::Debug for $name<$($param),+>
        where
            $($bound: ::std::fmt::Debug,)+
        {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(stringify!($name))
                    $(.field(stringify!($field), &self.$field))+
                    .finish_non_exhaustive()
            }
        }
    };
}

pub(crate) use debug_skipping_closures;
