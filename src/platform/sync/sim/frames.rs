//! The frames on the calling thread's stack, for the timing mode's unwinding charge
//! (`super::vtime`, "Unwinding"): an unwinding costs per frame it passes, whatever the frame's size
//! (`examples/calibrate.rs` measures 48- and 432-byte frames alike), so the model counts frames
//! rather than bytes.
//!
//! The walk is the system unwinder's own (`_Unwind_Backtrace`, which `std` links on every target
//! that unwinds with DWARF tables): it yields each frame's canonical frame address (CFA), the stack
//! pointer of the call into that frame, i.e. the frame's top end. A frame lies below an address
//! `a` in it (or in a frame it called) exactly when its CFA is at most `a`. The walk costs a few
//! microseconds of real time; the timing mode takes one per raise, a handful per cancellation.

use std::ffi::{c_int, c_void};

/// `_Unwind_Context`, opaque.
#[repr(C)]
struct UnwindContext {
    _private: [u8; 0],
}

/// `_URC_NO_REASON`: go on to the next frame.
const URC_NO_REASON: c_int = 0;
/// `_URC_NORMAL_STOP`: stop the walk.
const URC_NORMAL_STOP: c_int = 1;

type TraceFn = extern "C" fn(*mut UnwindContext, *mut c_void) -> c_int;

// The declarations match the unwinder's C interface (`unwind.h`); calls stay `unsafe`.
unsafe extern "C" {
    fn _Unwind_Backtrace(trace: TraceFn, arg: *mut c_void) -> c_int;
    fn _Unwind_GetCFA(context: *mut UnwindContext) -> usize;
}

/// The most frames one walk records: far more than a simulated stack holds, a bound against a
/// stack the unwinder cannot end.
const MAX_FRAMES: usize = 4096;

/// Replaces `cfas` with the CFAs of the frames on the calling thread's stack, innermost first
/// (ascending addresses: the stack grows down).
pub(crate) fn walk(cfas: &mut Vec<usize>) {
    extern "C" fn each(context: *mut UnwindContext, arg: *mut c_void) -> c_int {
        // SAFETY: `arg` is the `&mut Vec<usize>` that `walk` passes, alive for the walk, and
        // nothing else refers to it meanwhile.
        let cfas = unsafe { &mut *arg.cast::<Vec<usize>>() };
        // SAFETY: the unwinder hands this callback a live context of the frame it visits.
        cfas.push(unsafe { _Unwind_GetCFA(context) });
        if cfas.len() < MAX_FRAMES {
            URC_NO_REASON
        } else {
            URC_NORMAL_STOP
        }
    }
    cfas.clear();
    // SAFETY: `each` only touches `cfas` (through `arg`), which outlives the call; the walk ends
    // at the stack's end, at an error, or at `MAX_FRAMES`, whichever comes first.
    unsafe {
        _Unwind_Backtrace(each, (cfas as *mut Vec<usize>).cast());
    }
    // The unwinder yields frames innermost first; a frame it could not step past ends the list.
    debug_assert!(cfas.windows(2).all(|w| w[0] <= w[1]));
}

/// How many of the frames `cfas` (ascending) have their CFA in `(above, up_to]`: the frames an
/// unwinding from stack address `above` passes before it reaches a frame at `up_to`.
pub(crate) fn between(cfas: &[usize], above: usize, up_to: usize) -> u64 {
    let first = cfas.partition_point(|&cfa| cfa <= above);
    let end = cfas.partition_point(|&cfa| cfa <= up_to);
    end.saturating_sub(first) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn nested(depth: u32, out: &mut Vec<usize>) {
        if depth == 0 {
            walk(out);
        } else {
            nested(std::hint::black_box(depth - 1), out);
        }
        std::hint::black_box(&*out);
    }

    #[test]
    fn a_walk_sees_each_nested_frame() {
        let (mut shallow, mut deep) = (Vec::new(), Vec::new());
        nested(0, &mut shallow);
        nested(10, &mut deep);
        assert_eq!(deep.len(), shallow.len() + 10);
        let marker = 0u8;
        let here = std::hint::black_box(&marker) as *const u8 as usize;
        // Below `here`: the walk's own frames and `nested`'s, 10 more of them in the deep walk.
        assert_eq!(between(&deep, 0, here) - between(&shallow, 0, here), 10);
    }

    #[test]
    fn between_counts_a_half_open_range() {
        let cfas = [10, 20, 30, 40];
        assert_eq!(between(&cfas, 0, 40), 4);
        assert_eq!(between(&cfas, 10, 30), 2);
        assert_eq!(between(&cfas, 15, 19), 0);
        assert_eq!(between(&cfas, 40, 100), 0);
    }
}
