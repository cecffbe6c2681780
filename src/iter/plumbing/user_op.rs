//! The user's closures wrapped in closures of ours before std's iterator methods get them.
//!
//! Handed to std as `&F`, a user's closure is called through core's `<&F as FnMut>::call_mut`, a
//! function without `#[inline]`. rustc compiles such a function once per crate, in the codegen unit
//! of its self type's module, the user's, where the closure's body is inlined into it. A leaf loop
//! of ours sits in another codegen unit and calls it on every item, unless the body is small
//! enough for ThinLTO to import across units. A large closure (nbody's force loop) then costs a
//! call per item with its accumulator passed through memory, and which unit a build puts our loop
//! in decides whether it does: a change anywhere in the crate can move it.
//!
//! A closure is compiled into every codegen unit that uses it: ours into the unit of the loop that
//! calls it, and the user's, called from ours, into the same unit, where LLVM can inline both into
//! the loop (docs/iterators.md, "Overhead on uniform loops").

/// `op` as a closure of ours, for std's one-argument iterator methods (`map`, `for_each`, `any`,
/// `filter_map`, `flat_map`): see the module doc.
#[inline(always)]
pub(crate) fn inlinable_op<A, R>(op: &impl Fn(A) -> R) -> impl Fn(A) -> R + '_ {
    move |a| op(a)
}

/// `op` as a closure of ours, for std's two-argument iterator methods (`fold`): see the module doc.
#[inline(always)]
pub(crate) fn inlinable_op2<A, B, R>(op: &impl Fn(A, B) -> R) -> impl Fn(A, B) -> R + '_ {
    move |a, b| op(a, b)
}
