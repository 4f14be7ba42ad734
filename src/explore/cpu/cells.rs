//! Zeroed arrays of atomic words (32 or 64 bits), the memory of the state
//! table and of the tree store's node table.
//!
//! A large array is mapped straight from the system (an anonymous
//! mapping): its pages are zero until first written and cost nothing
//! before, and on Linux it asks for transparent huge pages (2 MiB), which
//! the system grants where its setting is `always` or `madvise`. A table
//! probed at random over hundreds of megabytes then needs one TLB entry
//! per 2 MiB instead of per 4 KiB, and growing it takes one page fault per
//! 2 MiB instead of 512. A small array, or one whose mapping fails, comes
//! from the allocator, zeroed.

use std::ops::Deref;
use std::sync::atomic::{AtomicU32, AtomicU64};

use memmap2::{MmapMut, MmapOptions};

/// Bytes from which an array is mapped rather than allocated: a huge page.
const MAPPED_FROM_BYTES: usize = 2 << 20;

/// An atomic word whose all-zero value is valid, with its plain integer
/// of the same layout.
pub trait AtomicWord: Sized {
    /// The integer the atomic holds: same size, alignment and bit
    /// validity.
    type Plain: Copy + Default;
}

impl AtomicWord for AtomicU32 {
    type Plain = u32;
}

impl AtomicWord for AtomicU64 {
    type Plain = u64;
}

/// A zeroed array of atomic words that does not move while it lives.
pub struct ZeroedCells<Word: AtomicWord = AtomicU32> {
    storage: Storage<Word>,
}

enum Storage<Word> {
    Allocated(Box<[Word]>),
    /// A mapping of at least `len` words.
    Mapped {
        map: MmapMut,
        len: usize,
    },
}

impl<Word: AtomicWord> ZeroedCells<Word> {
    /// `len` zeroed words.
    pub fn new(len: usize) -> ZeroedCells<Word> {
        let bytes = len * size_of::<Word>();
        if bytes >= MAPPED_FROM_BYTES
            && let Ok(map) = MmapOptions::new().len(bytes).map_anon()
        {
            #[cfg(target_os = "linux")]
            // Only advice: without huge pages the mapping works the same.
            let _ = map.advise(memmap2::Advice::HugePage);
            return ZeroedCells {
                storage: Storage::Mapped { map, len },
            };
        }
        let zeroed: Box<[Word::Plain]> = vec![Word::Plain::default(); len].into_boxed_slice();
        // SAFETY: an `AtomicWord` has the same size, alignment and bit
        // validity as its `Plain` integer (whose default is zero), so a
        // boxed slice of one is a boxed slice of the other.
        let cells = unsafe { Box::from_raw(Box::into_raw(zeroed) as *mut [Word]) };
        ZeroedCells {
            storage: Storage::Allocated(cells),
        }
    }
}

impl<Word: AtomicWord> Deref for ZeroedCells<Word> {
    type Target = [Word];

    fn deref(&self) -> &[Word] {
        match &self.storage {
            Storage::Allocated(cells) => cells,
            // SAFETY: the mapping is readable and writable, page-aligned
            // (so aligned for any atomic word), zero-initialised (zero is a
            // valid `AtomicWord`), at least `len` words long, and lives as
            // long as `self`; atomics are written through shared references
            // by design.
            Storage::Mapped { map, len } => unsafe {
                std::slice::from_raw_parts(map.as_ptr().cast::<Word>(), *len)
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn small_and_large_arrays_start_zeroed_and_keep_what_is_written() {
        for len in [0, 1, 1000, MAPPED_FROM_BYTES / 4 + 3] {
            let cells = ZeroedCells::<AtomicU32>::new(len);
            assert_eq!(cells.len(), len);
            assert!(cells.iter().all(|c| c.load(Ordering::Relaxed) == 0));
            if let Some(last) = cells.last() {
                last.store(7, Ordering::Relaxed);
                assert_eq!(cells[len - 1].load(Ordering::Relaxed), 7);
            }
        }
        let wide = ZeroedCells::<AtomicU64>::new(MAPPED_FROM_BYTES / 8 + 1);
        assert!(wide.iter().all(|c| c.load(Ordering::Relaxed) == 0));
        wide[5].store(u64::MAX, Ordering::Relaxed);
        assert_eq!(wide[5].load(Ordering::Relaxed), u64::MAX);
    }
}
