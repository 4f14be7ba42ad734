//! The lock-free state table shared by all worker threads: open addressing
//! over encoded vectors, probed a bucket (about one cache line) at a time,
//! after Laarman, van de Pol & Weber's lockless hash table and the CPU twin
//! of GPUexplore's warp-the-line probing. It is allocated once and never
//! resizes, so no thread ever waits for a rehash.

use std::hint::spin_loop;
use std::sync::atomic::{AtomicU32, Ordering};

/// Words of one cache line.
const LINE_WORDS: usize = 16;
/// Claim word of a slot nobody has taken.
const EMPTY: u32 = 0;
/// Claim word of a slot whose vector is being written.
const WRITING: u32 = 1;
/// A finished slot's claim word is its predecessor's slot index plus this.
const DONE_BASE: u32 = 2;
/// Spins on a slot being written before yielding the core.
const SPINS_BEFORE_YIELD: u32 = 64;

/// The most slots a table may have: every slot index must fit a claim word
/// as `index + DONE_BASE`.
pub const MAX_SLOTS: u64 = (u32::MAX - DONE_BASE) as u64;

/// What [`StateTable::find_or_insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The vector was already stored in this slot.
    Found(u32),
    /// The vector is new and now stored in this slot.
    Inserted(u32),
    /// The vector is new but `may_insert` refused (a state budget ran
    /// out), or the table had no empty slot left; nothing was stored.
    Refused,
}

/// A fixed-size, lock-free set of state vectors, each stored with the slot
/// index of its predecessor.
///
/// # Layout
///
/// Slot `i` is `1 + words` consecutive `u32`s: a claim word, then the
/// vector. Slots are packed without gaps, so a state costs exactly its
/// vector plus 4 bytes. A bucket is the `max(1, 16 / (1 + words))` slots
/// that fit in a cache line; a vector's hash picks its first bucket, and
/// probing goes on linearly a bucket at a time, so a probe touches one line
/// (two where a bucket straddles a line boundary) before moving on.
///
/// # Insertion protocol and why it is race-free
///
/// A claim word only moves forward: `EMPTY` → `WRITING` → `DONE_BASE +
/// predecessor`, and never changes once done. The vector words of a slot are
/// written only by the one thread whose compare-and-swap moved the claim
/// word from `EMPTY` to `WRITING`, and only before it publishes the slot by
/// storing the done value with `Release` ordering. A reader loads the claim
/// word with `Acquire`:
///
/// - `EMPTY`: the vector is not in the table (a vector is always stored in
///   the first empty slot of its probe sequence, and slots never empty
///   again), so the reader tries to claim this slot. If its compare-and-swap
///   fails, another thread claimed the slot in between, and the reader
///   examines the slot again as below, because that thread may be storing
///   the very same vector.
/// - `WRITING`: the vector words are incomplete, so they are never compared
///   (a half-written slot must not be taken for a match, nor for a
///   mismatch: the writer may be storing the reader's vector, and skipping
///   the slot would store it twice). The reader waits until the slot is
///   published; the window is a few stores long.
/// - done: the `Acquire` load synchronises with the writer's `Release`
///   store, so the reader sees the complete vector and compares it.
///
/// Hence each vector is stored at most once, and a reader that found a
/// vector sees its final words. The predecessor index rides in the claim
/// word, so traces cost no extra memory; the initial state is its own
/// predecessor.
pub struct StateTable {
    /// Words of a vector.
    words: usize,
    /// Slots per bucket.
    bucket_slots: usize,
    /// Number of buckets.
    buckets: usize,
    /// The slots, starting on a cache-line boundary at `start`.
    cells: Box<[AtomicU32]>,
    /// Index in `cells` of slot 0's claim word (64-byte aligned).
    start: usize,
}

impl StateTable {
    /// A table for vectors of `words` words that uses at most `bytes` bytes
    /// (at least one bucket, at most [`MAX_SLOTS`] slots). The memory comes
    /// zeroed from the operating system, which maps pages only when they are
    /// first written.
    pub fn new(words: usize, bytes: u64) -> StateTable {
        let slot_words = 1 + words;
        let bucket_slots = (LINE_WORDS / slot_words).max(1);
        let slots = (bytes / (4 * slot_words as u64)).min(MAX_SLOTS);
        let buckets = ((slots / bucket_slots as u64) as usize).max(1);
        let cell_count = buckets * bucket_slots * slot_words;
        // `vec![0; n]` allocates zeroed memory without writing it (calloc),
        // which keeps creating a large table cheap.
        let zeroed: Box<[u32]> = vec![0u32; cell_count + LINE_WORDS].into_boxed_slice();
        // SAFETY: `AtomicU32` has the same size, alignment and bit validity
        // as `u32`, so a boxed slice of one is a boxed slice of the other.
        let cells = unsafe { Box::from_raw(Box::into_raw(zeroed) as *mut [AtomicU32]) };
        let misalignment = (cells.as_ptr() as usize % (4 * LINE_WORDS)) / 4;
        let start = (LINE_WORDS - misalignment) % LINE_WORDS;
        StateTable {
            words,
            bucket_slots,
            buckets,
            cells,
            start,
        }
    }

    /// Number of slots.
    pub fn capacity(&self) -> u64 {
        (self.buckets * self.bucket_slots) as u64
    }

    /// Bytes one stored state takes: its vector plus the claim word.
    pub fn slot_bytes(&self) -> u64 {
        Self::slot_bytes_for(self.words)
    }

    /// Bytes one stored state of `words` words takes in any table.
    pub fn slot_bytes_for(words: usize) -> u64 {
        4 * (1 + words) as u64
    }

    /// Bytes allocated for the slots.
    pub fn allocated_bytes(&self) -> u64 {
        self.capacity() * self.slot_bytes()
    }

    /// The bucket where the probe for a vector with hash `hash` starts.
    #[inline]
    fn first_bucket(&self, hash: u64) -> usize {
        ((hash as u128 * self.buckets as u128) >> 64) as usize
    }

    /// Starts loading the first bucket of a vector with hash `hash` into
    /// the cache. A search finds a state's successors first and looks them
    /// up after, so that the cache misses of the lookups overlap instead of
    /// following one another.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        let claim = &self.cells[self.claim_index(self.first_bucket(hash) * self.bucket_slots)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is only a hint to the cache: it reads nothing
        // into the program and never faults, whatever the address.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>(claim.as_ptr() as *const i8);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = claim;
    }

    /// Index in `cells` of slot `slot`'s claim word.
    #[inline]
    fn claim_index(&self, slot: usize) -> usize {
        self.start + slot * (1 + self.words)
    }

    /// Looks `vector` (whose [`crate::encode::hash_words`] is `hash`) up and
    /// stores it with predecessor `parent` (`None`: its own slot) when it is
    /// new and `may_insert` agrees. `may_insert` is called at most once, and
    /// only for a vector that is not in the table.
    #[inline]
    pub fn find_or_insert(
        &self,
        vector: &[u32],
        hash: u64,
        parent: Option<u32>,
        may_insert: impl FnOnce() -> bool,
    ) -> Lookup {
        debug_assert_eq!(vector.len(), self.words);
        let first_bucket = self.first_bucket(hash);
        let mut may_insert = Some(may_insert);
        let mut granted = false;
        for probe in 0..self.buckets {
            let bucket = (first_bucket + probe) % self.buckets;
            for slot in bucket * self.bucket_slots..(bucket + 1) * self.bucket_slots {
                let claim = &self.cells[self.claim_index(slot)];
                let mut state = claim.load(Ordering::Acquire);
                if state == EMPTY {
                    // Ask once: after a lost race the permission still holds.
                    granted = granted || may_insert.take().is_some_and(|allow| allow());
                    if !granted {
                        return Lookup::Refused;
                    }
                    match claim.compare_exchange(
                        EMPTY,
                        WRITING,
                        Ordering::Acquire,
                        Ordering::Acquire,
                    ) {
                        Ok(_) => {
                            self.publish(slot, vector, parent.unwrap_or(slot as u32));
                            return Lookup::Inserted(slot as u32);
                        }
                        Err(now) => state = now,
                    }
                }
                if state == WRITING {
                    Self::wait_published(claim);
                }
                if self.vector_at(slot).eq(vector.iter().copied()) {
                    return Lookup::Found(slot as u32);
                }
            }
        }
        Lookup::Refused
    }

    /// Copies the vector of published slot `slot` into `out`.
    pub fn read(&self, slot: u32, out: &mut [u32]) {
        for (word, value) in out.iter_mut().zip(self.vector_at(slot as usize)) {
            *word = value;
        }
    }

    /// Slot index of the predecessor of published slot `slot` (the slot
    /// itself for the initial state).
    pub fn parent(&self, slot: u32) -> u32 {
        self.cells[self.claim_index(slot as usize)].load(Ordering::Acquire) - DONE_BASE
    }

    /// Writes `vector` into the claimed `slot` and publishes it.
    #[inline]
    fn publish(&self, slot: usize, vector: &[u32], parent: u32) {
        let claim = self.claim_index(slot);
        for (cell, &word) in self.cells[claim + 1..claim + 1 + self.words]
            .iter()
            .zip(vector)
        {
            cell.store(word, Ordering::Relaxed);
        }
        self.cells[claim].store(parent + DONE_BASE, Ordering::Release);
    }

    /// Spins until the slot whose claim word is `claim` is published.
    #[cold]
    fn wait_published(claim: &AtomicU32) {
        let mut spins = 0;
        while claim.load(Ordering::Acquire) == WRITING {
            spins += 1;
            if spins < SPINS_BEFORE_YIELD {
                spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// The vector words of a published slot (an iterator, so that a
    /// comparison stops at the first difference).
    #[inline]
    fn vector_at(&self, slot: usize) -> impl Iterator<Item = u32> + '_ {
        let claim = self.claim_index(slot);
        self.cells[claim + 1..claim + 1 + self.words]
            .iter()
            .map(|cell| cell.load(Ordering::Relaxed))
    }
}
