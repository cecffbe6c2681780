//! STUB: replaced by the runtime.

/// True when the calling thread is a pool worker and an idle worker has asked it to share work.
///
/// Long sequential loops (the parallel iterators' leaves) poll this to split lazily, only when a thief
/// is waiting. A relaxed load of a flag the caller owns: cheap enough to poll every few items.
#[inline]
#[allow(dead_code)] // stub
pub(crate) fn is_work_requested() -> bool {
    false
}
