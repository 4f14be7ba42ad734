//! Zeroed arrays of atomic words, the memory of the state table.
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
use std::sync::atomic::AtomicU32;

use memmap2::{MmapMut, MmapOptions};

/// Bytes from which an array is mapped rather than allocated: a huge page.
const MAPPED_FROM_BYTES: usize = 2 << 20;

/// A zeroed array of atomic words that does not move while it lives.
pub struct ZeroedCells {
    storage: Storage,
}

enum Storage {
    Allocated(Box<[AtomicU32]>),
    /// A mapping of at least `len` words.
    Mapped {
        map: MmapMut,
        len: usize,
    },
}

impl ZeroedCells {
    /// `len` zeroed words.
    pub fn new(len: usize) -> ZeroedCells {
        let bytes = len * size_of::<AtomicU32>();
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
        let zeroed: Box<[u32]> = vec![0u32; len].into_boxed_slice();
        // SAFETY: `AtomicU32` has the same size, alignment and bit validity
        // as `u32`, so a boxed slice of one is a boxed slice of the other.
        let cells = unsafe { Box::from_raw(Box::into_raw(zeroed) as *mut [AtomicU32]) };
        ZeroedCells {
            storage: Storage::Allocated(cells),
        }
    }
}

impl Deref for ZeroedCells {
    type Target = [AtomicU32];

    fn deref(&self) -> &[AtomicU32] {
        match &self.storage {
            Storage::Allocated(cells) => cells,
            // SAFETY: the mapping is readable and writable, page-aligned
            // (so aligned for `AtomicU32`), zero-initialised, at least `len`
            // words long, and lives as long as `self`; atomics are written
            // through shared references by design.
            Storage::Mapped { map, len } => unsafe {
                std::slice::from_raw_parts(map.as_ptr().cast::<AtomicU32>(), *len)
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
            let cells = ZeroedCells::new(len);
            assert_eq!(cells.len(), len);
            assert!(cells.iter().all(|c| c.load(Ordering::Relaxed) == 0));
            if let Some(last) = cells.last() {
                last.store(7, Ordering::Relaxed);
                assert_eq!(cells[len - 1].load(Ordering::Relaxed), 7);
            }
        }
    }
}
