//! A table that only grows, readable without locks: entries in segments that double in size, each
//! allocated the first time an index reaches it and kept until the table drops.
//!
//! The regions of one worker ([`super::region`]) and a pool's caps ([`super::cap`]) live in such
//! tables, because threads read their entries from a word that may be stale (a tag read from a
//! queue slot before the CAS that would take the job): an entry, once allocated, stays readable
//! memory for the table's life, so a stale index reads an entry or nothing, never freed memory.
//!
//! One writer grows a table (a region table's owning worker; the cap table under its allocation
//! lock); any thread reads.

use crate::platform::sync::{AtomicPtr, Ordering};

/// Segments of a table: enough for every index a `usize` can name.
fn segment_count(first: usize) -> usize {
    (usize::BITS - first.trailing_zeros()) as usize
}

/// A grow-only table of `T`s, segment `s` holding `first << s` of them.
pub(crate) struct Segmented<T> {
    segments: Box<[AtomicPtr<T>]>,
    /// Entries in the first segment: a power of two.
    first: usize,
}

impl<T: Default> Segmented<T> {
    /// An empty table whose first segment holds `first` entries (a power of two), allocated now
    /// if `allocate_first`.
    pub(crate) fn new(first: usize, allocate_first: bool) -> Self {
        debug_assert!(first.is_power_of_two());
        let table = Segmented {
            segments: (0..segment_count(first))
                .map(|_| AtomicPtr::new(std::ptr::null_mut()))
                .collect(),
            first,
        };
        if allocate_first {
            table.segments[0].store(table.new_segment(0), Ordering::Relaxed);
        }
        table
    }

    /// The segment holding `index`, and the index's place in it.
    #[inline(always)]
    fn segment_of(&self, index: usize) -> (usize, usize) {
        let blocks = index / self.first + 1;
        let s = (usize::BITS - 1 - blocks.leading_zeros()) as usize;
        (s, index - self.first * ((1 << s) - 1))
    }

    fn new_segment(&self, s: usize) -> *mut T {
        let entries: Box<[T]> = (0..self.first << s).map(|_| T::default()).collect();
        Box::into_raw(entries) as *mut T
    }

    /// The entry at `index`, if its segment exists.
    #[inline]
    pub(crate) fn get(&self, index: usize) -> Option<&T> {
        let (s, i) = self.segment_of(index);
        // Acquire: pairs with the Release store that published the segment in `get_or_grow`.
        let segment = self.segments.get(s)?.load(Ordering::Acquire);
        // SAFETY: a non-null pointer in segment slot `s` came from `new_segment(s)`, which holds
        // `first << s` entries (`i` is below that by `segment_of`), and lives until `self` drops.
        (!segment.is_null()).then(|| unsafe { &*segment.add(i) })
    }

    /// The entry at `index`, allocating its segment if this is the first time an index reaches
    /// it. Only the table's one writer calls this.
    #[inline]
    pub(crate) fn get_or_grow(&self, index: usize) -> &T {
        match self.get(index) {
            Some(entry) => entry,
            None => self.grow(index),
        }
    }

    #[cold]
    fn grow(&self, index: usize) -> &T {
        let (s, _) = self.segment_of(index);
        // Release: a reader that loads the pointer sees the initialised entries. Only the one
        // writer stores here, so no other segment can have appeared meanwhile.
        self.segments[s].store(self.new_segment(s), Ordering::Release);
        self.get(index).expect("segment just allocated")
    }
}

impl<T> Drop for Segmented<T> {
    fn drop(&mut self) {
        for (s, segment) in self.segments.iter().enumerate() {
            let segment = segment.load(Ordering::Relaxed);
            if !segment.is_null() {
                let len = self.first << s;
                // SAFETY: allocated by `new_segment(s)` as a boxed slice of `len` entries, freed
                // once here: `&mut self` means no reader is left.
                drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(segment, len)) });
            }
        }
    }
}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;
    use crate::platform::sync::AtomicUsize;

    #[test]
    fn segments_cover_the_indices_without_gaps() {
        let table: Segmented<AtomicUsize> = Segmented::new(64, false);
        let mut next = 0;
        for s in 0..6 {
            for i in 0..64 << s {
                assert_eq!(table.segment_of(next), (s, i), "index {next}");
                next += 1;
            }
        }
    }

    #[test]
    fn entries_appear_when_grown_and_keep_their_values() {
        let table: Segmented<AtomicUsize> = Segmented::new(4, true);
        assert!(table.get(3).is_some(), "the first segment is allocated");
        assert!(table.get(4).is_none());
        for i in 0..100 {
            table.get_or_grow(i).store(i + 1, Ordering::Relaxed);
        }
        for i in 0..100 {
            assert_eq!(table.get(i).unwrap().load(Ordering::Relaxed), i + 1);
        }
        assert!(table.get(usize::MAX).is_none());
    }
}
