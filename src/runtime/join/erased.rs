//! The halves of a join without their types: the join paths that are few per call (a split for
//! an idle worker, a join from outside every pool, the deterministic tree's up-front joins) take
//! the halves as trait objects, so their protocol is compiled once and not once per pair of
//! closures. An inline join's unwinding path hands its b over the same way (`join_inline`, whose
//! b drops its result inside the catch instead of keeping it).

use super::FnContext;

/// A half of a join without its types: run once, it keeps its result where
/// [`with_halves_erased`] reads it.
pub(super) type ErasedHalf<'a> = dyn RunHalf + Send + 'a;

/// What an [`ErasedHalf`] can do: run. A trait of our own rather than `dyn FnMut(FnContext)`,
/// whose vtable also holds `FnOnce::call_once`: rustc compiles a shim for it, a second copy of
/// each half's body, in every pipeline that splits, though nothing calls it.
pub(super) trait RunHalf {
    /// Runs the half (once) and keeps its result.
    fn run(&mut self, ctx: FnContext);
}

/// A half and where its result goes. References, as a closure's captures would be: the two options
/// live in [`with_halves_erased`]'s frame, and a `Half` needs no drop glue of its own.
struct Half<'a, F, R> {
    oper: &'a mut Option<F>,
    result: &'a mut Option<R>,
}

impl<F: FnOnce(FnContext) -> R, R> RunHalf for Half<'_, F, R> {
    #[inline]
    fn run(&mut self, ctx: FnContext) {
        *self.result = Some(self.oper.take().expect("a half runs once")(ctx));
    }
}

/// Calls `join` with the halves type-erased, and returns their results once it returned (a panic
/// of either unwinds out of `join`, and through here).
#[inline(always)]
pub(super) fn with_halves_erased<A, B, RA, RB>(
    oper_a: A,
    oper_b: B,
    join: impl FnOnce(&mut ErasedHalf<'_>, &mut ErasedHalf<'_>),
) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let (mut oper_a, mut oper_b) = (Some(oper_a), Some(oper_b));
    let (mut result_a, mut result_b) = (None, None);
    join(
        &mut Half {
            oper: &mut oper_a,
            result: &mut result_a,
        },
        &mut Half {
            oper: &mut oper_b,
            result: &mut result_b,
        },
    );
    (result_a.expect("a ran"), result_b.expect("b ran"))
}
