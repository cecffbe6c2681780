//! STUB: sequential `join`; replaced by the runtime.
#![allow(missing_docs)]

/// Context handed to the closures of [`join_context`].
#[derive(Debug)]
pub struct FnContext {
    migrated: bool,
}

impl FnContext {
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    (a(), b())
}

pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    (
        a(FnContext { migrated: false }),
        b(FnContext { migrated: false }),
    )
}
