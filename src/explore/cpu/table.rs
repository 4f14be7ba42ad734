//! The state table shared by all worker threads, in two parts:
//!
//! - a [`StateStore`]: the stored vectors under stable *state ids* (64
//!   bits, [`StateId`]), either whole ([`VectorStore`]: the vectors one
//!   after the other, each at its id) or as trees (`super::tree`: a root
//!   of two words at each id, and the shared node table). It grows by
//!   appending segments and never moves a state, so a state id stays valid
//!   for the whole search: predecessor links and the breadth-first
//!   frontier (runs of ids) survive any growth untouched; a change of
//!   storage or of node table copies every state to the same id
//!   ([`StateStore::copy_from`]);
//! - an [`Index`]: a lock-free open-addressing hash table whose entries
//!   hold a state id and as many bits of the vector's hash as the id
//!   leaves free, probed a bucket of 16 entries at a time, after Laarman,
//!   van de Pol & Weber's lockless hash table. Its entries take 4 bytes
//!   while the store's ids fit them (below [`NARROW_IDS_END`], 2^32 - 1),
//!   8 bytes after. When it fills up, the search pauses every thread,
//!   frees it and builds a larger one from the stored vectors
//!   ([`StateTable::reindex`]), of 8-byte entries once the larger store's
//!   ids need them. It hashes the whole vector however it is stored, and
//!   compares a stored state by its *record*: the vector, or the root of
//!   its tree (equal vectors have equal roots), so a change of storage
//!   leaves it as it is.
//!
//! A stored state costs its record and an index entry divided by the
//! index's fill (0.45 to 0.9 in the search): 4.4 to 8.9 bytes for fewer
//! than about 3.9 * 10^9 states, 8.9 to 17.8 beyond; with traces, also its
//! entry in a predecessor log (`super::parents`); stored as a tree, also
//! its share of the nodes (8 bytes each). An index holds at most
//! [`MAX_INDEX_SLOTS`] entries (2^32 buckets: the first bucket of a probe
//! comes from 32 bits of the hash), about 6.2 * 10^10 states.
//!
//! 8-byte entries holding 32 hash bits would spare reading vectors when the
//! index grows, but cost as much again (4.4 to 8.9 more bytes a state) and
//! the old index beside the new one while it grows; so do 8-byte entries
//! for ids that 4 bytes hold, which is why the width follows the ids.

use std::ops::Range;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::cells::{AtomicWord, ZeroedCells};
use super::tree::{NodeTable, TreeScratch, TreeStore};
use crate::encode::hash_words;
use crate::explore::Storage;

/// A state id: the state's place in the store.
pub type StateId = u64;

/// Entries of a bucket: one cache line of narrow entries, two of wide
/// entries.
pub const BUCKET_ENTRIES: usize = 16;
/// Most buckets an index has: the first bucket of a probe comes from 32
/// bits of the hash.
const MAX_BUCKETS: u64 = 1 << 32;
/// Most entries an index has.
pub const MAX_INDEX_SLOTS: u64 = MAX_BUCKETS * BUCKET_ENTRIES as u64;
/// States whose buckets [`StateTable::reindex`] prefetches at a time.
const REINDEX_BATCH: usize = 32;
/// An index entry nobody has taken.
const EMPTY: u64 = 0;
/// Vectors in one segment of the store: 2^19, so that a segment of
/// one-word vectors fills a huge page of 2 MiB.
const SEGMENT_SHIFT: u32 = 19;
const SEGMENT_RECORDS: u64 = 1 << SEGMENT_SHIFT;

/// Bytes of a narrow index entry: ids below [`NARROW_IDS_END`].
pub const NARROW_ENTRY_BYTES: u64 = 4;
/// Bytes of a wide index entry: any id.
pub const WIDE_ENTRY_BYTES: u64 = 8;
/// The ids a narrow entry holds are below this: an id plus one fits 32
/// bits.
pub const NARROW_IDS_END: StateId = u32::MAX as u64;

/// Bytes of an index entry of an index over the ids below `ids_end`:
/// narrow while they fit it, else wide.
pub fn entry_bytes(ids_end: StateId) -> u64 {
    if ids_end <= NARROW_IDS_END {
        NARROW_ENTRY_BYTES
    } else {
        WIDE_ENTRY_BYTES
    }
}

/// What [`StateTable::find_or_insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The vector was already stored under this id.
    Found(StateId),
    /// The vector is new and now stored under this id.
    Inserted(StateId),
    /// The vector is new but no id was available (the caller's budget ran
    /// out) or the index had no empty entry left; nothing was stored.
    Refused,
}

/// Records of a fixed number of words (whole vectors, or tree roots),
/// addressed by state id, in segments of 2^19 (`SEGMENT_RECORDS`) records
/// (`ZeroedCells`) that are added as the capacity grows and never move.
/// Ids need not start at 0: the segments wholly below the first id
/// reserved are empty.
/// (The predecessors are logged apart, by the threads that store the
/// states: `super::parents`.)
pub struct VectorStore {
    /// Words of a vector.
    words: usize,
    /// The segments of `SEGMENT_RECORDS` vectors each.
    vectors: Vec<ZeroedCells>,
    /// The segments have room for the ids below this.
    ids_end: StateId,
}

impl VectorStore {
    /// An empty store for records of `words` words.
    pub fn new(words: usize) -> VectorStore {
        VectorStore {
            words,
            vectors: Vec::new(),
            ids_end: 0,
        }
    }

    /// Words of a record.
    pub fn words(&self) -> usize {
        self.words
    }

    /// Bytes the store spends on a state: its record.
    pub fn record_bytes(&self) -> u64 {
        4 * self.words as u64
    }

    /// The ids below this have room.
    pub fn ids_end(&self) -> StateId {
        self.ids_end
    }

    /// Makes room for the ids `ids`; the segments wholly below them that
    /// are not there yet are left empty. Needs exclusive access: it adds
    /// segments.
    pub fn reserve(&mut self, ids: Range<StateId>) {
        if ids.end <= self.ids_end {
            return;
        }
        // A segment is taken whole, since its pages cost memory only once
        // written: growing never copies a vector.
        while (self.vectors.len() as u64) * SEGMENT_RECORDS < ids.end {
            let below = (self.vectors.len() as u64 + 1) * SEGMENT_RECORDS <= ids.start;
            let records = if below { 0 } else { SEGMENT_RECORDS as usize };
            self.vectors.push(ZeroedCells::new(records * self.words));
        }
        self.ids_end = ids.end;
    }

    /// The vector words of state `id`.
    #[inline]
    fn vector_cells(&self, id: StateId) -> &[AtomicU32] {
        let segment = (id >> SEGMENT_SHIFT) as usize;
        let start = (id & (SEGMENT_RECORDS - 1)) as usize * self.words;
        &self.vectors[segment][start..start + self.words]
    }

    /// Writes the record of an id that no other thread can see yet.
    #[inline]
    pub fn write(&self, id: StateId, vector: &[u32]) {
        for (cell, &word) in self.vector_cells(id).iter().zip(vector) {
            cell.store(word, Ordering::Relaxed);
        }
    }

    /// Copies the record of stored state `id` into `out`.
    #[inline]
    pub fn read(&self, id: StateId, out: &mut [u32]) {
        for (word, cell) in out.iter_mut().zip(self.vector_cells(id)) {
            *word = cell.load(Ordering::Relaxed);
        }
    }

    /// Whether stored state `id` has the record `vector`.
    #[inline]
    fn holds(&self, id: StateId, vector: &[u32]) -> bool {
        self.vector_cells(id)
            .iter()
            .zip(vector)
            .all(|(cell, &word)| cell.load(Ordering::Relaxed) == word)
    }
}

/// The stored states, by state id: whole vectors or trees.
pub enum StateStore {
    /// Each vector whole, as its record.
    Plain(VectorStore),
    /// Each vector as a tree, its root as its record.
    Tree(TreeStore),
}

impl StateStore {
    /// An empty store of whole vectors of `words` words.
    pub fn plain(words: usize) -> StateStore {
        StateStore::Plain(VectorStore::new(words))
    }

    /// An empty tree store for vectors of `words` words with a node table
    /// of `node_slots` entries.
    pub fn tree(words: usize, node_slots: u64) -> StateStore {
        StateStore::Tree(TreeStore::new(words, node_slots))
    }

    /// Words of a state vector.
    pub fn words(&self) -> usize {
        match self {
            StateStore::Plain(vectors) => vectors.words(),
            StateStore::Tree(tree) => tree.words(),
        }
    }

    /// How the vectors are stored.
    pub fn storage(&self) -> Storage {
        match self {
            StateStore::Plain(_) => Storage::Plain,
            StateStore::Tree(_) => Storage::Tree,
        }
    }

    /// The records the index compares: the vectors, or the roots.
    pub fn records(&self) -> &VectorStore {
        match self {
            StateStore::Plain(vectors) => vectors,
            StateStore::Tree(tree) => tree.roots(),
        }
    }

    /// The node table of a tree store.
    pub fn nodes(&self) -> Option<&NodeTable> {
        match self {
            StateStore::Plain(_) => None,
            StateStore::Tree(tree) => Some(tree.nodes()),
        }
    }

    /// Bytes of the node table (0 for whole vectors): what the store
    /// takes beyond its records.
    pub fn node_table_bytes(&self) -> u64 {
        self.nodes().map_or(0, NodeTable::bytes)
    }

    /// The ids below this have room.
    pub fn ids_end(&self) -> StateId {
        self.records().ids_end()
    }

    /// Makes room for the ids `ids`.
    pub fn reserve(&mut self, ids: Range<StateId>) {
        match self {
            StateStore::Plain(vectors) => vectors.reserve(ids),
            StateStore::Tree(tree) => tree.roots_mut().reserve(ids),
        }
    }

    /// Copies the vector of stored state `id` into `out`; a tree store
    /// keeps its node values in `scratch`, as the base of the next
    /// [`StateStore::record_of`].
    #[inline]
    pub fn read_with(&self, id: StateId, out: &mut [u32], scratch: &mut TreeScratch) {
        match self {
            StateStore::Plain(vectors) => vectors.read(id, out),
            StateStore::Tree(tree) => tree.read(id, out, scratch),
        }
    }

    /// Copies the vector of stored state `id` into `out` (for a tree
    /// store, with scratch memory of its own).
    pub fn read(&self, id: StateId, out: &mut [u32]) {
        self.read_with(id, out, &mut TreeScratch::new(out.len()));
    }

    /// The record of `vector`: the vector itself, or the root of its tree
    /// (the tree's missing nodes put into the table; `credit`, called
    /// before each, may refuse, and then the answer is `None`). `base` is
    /// the vector read or encoded last with `scratch`, whose nodes the
    /// tree may reuse.
    #[inline]
    pub fn record_of<'r>(
        &self,
        vector: &'r [u32],
        base: Option<&[u32]>,
        scratch: &'r mut TreeScratch,
        credit: &mut impl FnMut() -> bool,
    ) -> Option<&'r [u32]> {
        match self {
            StateStore::Plain(_) => Some(vector),
            StateStore::Tree(tree) => {
                tree.encode(vector, base, scratch, credit)?;
                Some(TreeStore::last_root(scratch))
            }
        }
    }

    /// Stores the states of ids `ids` of `from` under the same ids here,
    /// whose room is made; `false` when `credit` refused a node (nothing
    /// is stored for the ids after). Several threads may copy disjoint
    /// ranges at once. Consecutive ids are often close in the search
    /// (successors of one state), so each tree is encoded against the one
    /// before.
    pub fn copy_from(
        &self,
        from: &StateStore,
        ids: Range<StateId>,
        scratch: &mut TreeScratch,
        credit: &mut impl FnMut() -> bool,
    ) -> bool {
        let words = from.words();
        let (mut vector, mut previous) = (vec![0; words], vec![0; words]);
        let mut reading = TreeScratch::new(words);
        for (at, id) in ids.enumerate() {
            from.read_with(id, &mut vector, &mut reading);
            let base = (at > 0).then_some(&previous[..]);
            let Some(record) = self.record_of(&vector, base, scratch, credit) else {
                return false;
            };
            self.records().write(id, record);
            scratch.rebase();
            std::mem::swap(&mut vector, &mut previous);
        }
        true
    }
}

/// An atomic index entry: 4 bytes (narrow) or 8 (wide). The index works
/// on entries as 64-bit values; a narrow entry has its high half zero.
trait IndexCell: AtomicWord {
    /// Bytes of an entry.
    const BYTES: u64;

    /// The hash bits an entry may take as its tag, where the entry holds
    /// them: the low 32 bits of the hash, apart from the high 32 bits
    /// that pick the first bucket.
    fn tag_bits(hash: u64) -> u64;

    /// The entry.
    fn get(&self, order: Ordering) -> u64;

    /// Sets the entry to `entry` if it is empty; else the entry found.
    fn take(&self, entry: u64, success: Ordering, failure: Ordering) -> Result<(), u64>;
}

impl IndexCell for AtomicU32 {
    const BYTES: u64 = NARROW_ENTRY_BYTES;

    #[inline]
    fn tag_bits(hash: u64) -> u64 {
        hash & u64::from(u32::MAX)
    }

    #[inline]
    fn get(&self, order: Ordering) -> u64 {
        u64::from(self.load(order))
    }

    #[inline]
    fn take(&self, entry: u64, success: Ordering, failure: Ordering) -> Result<(), u64> {
        self.compare_exchange(EMPTY as u32, entry as u32, success, failure)
            .map(drop)
            .map_err(u64::from)
    }
}

impl IndexCell for AtomicU64 {
    const BYTES: u64 = WIDE_ENTRY_BYTES;

    #[inline]
    fn tag_bits(hash: u64) -> u64 {
        hash << 32
    }

    #[inline]
    fn get(&self, order: Ordering) -> u64 {
        self.load(order)
    }

    #[inline]
    fn take(&self, entry: u64, success: Ordering, failure: Ordering) -> Result<(), u64> {
        self.compare_exchange(EMPTY, entry, success, failure)
            .map(drop)
    }
}

/// The entries of an index, all of one width: `buckets` buckets of 16
/// atomic entries. An entry is empty (0) or `tag | (id + 1)`: its low bits
/// (`id_mask`) hold the state id plus one, just enough of them for the
/// largest id the store has room for, and the bits above hold the same
/// bits of [`IndexCell::tag_bits`] of the vector's hash (the *tag*), which
/// filter out most other vectors without reading the store. The high 32
/// bits of the hash pick the first bucket of the probe (`hash >> 32` times
/// `buckets`, over 2^32), so tag and bucket come from different bits.
struct Entries<Cell: IndexCell> {
    /// The entries, starting on a cache-line boundary at `start`.
    cells: ZeroedCells<Cell>,
    /// Index in `cells` of bucket 0's first entry.
    start: usize,
    /// Number of buckets.
    buckets: usize,
    /// The bits of an entry that hold the id plus one.
    id_mask: u64,
}

impl<Cell: IndexCell> Entries<Cell> {
    /// Empty entries, `buckets` buckets (at least one), for state ids
    /// below `ids_end`, which an entry of this width holds.
    fn new(buckets: usize, ids_end: StateId) -> Entries<Cell> {
        let cells = ZeroedCells::new(buckets * BUCKET_ENTRIES + BUCKET_ENTRIES);
        let misalignment = (cells.as_ptr() as usize % 64) / size_of::<Cell>();
        // An id below `ids_end`, plus one, is at most `ids_end`.
        let id_bits = u64::BITS - ids_end.leading_zeros();
        let id_mask = (1u64 << id_bits) - 1;
        Entries {
            cells,
            start: (BUCKET_ENTRIES - misalignment) % BUCKET_ENTRIES,
            buckets,
            id_mask,
        }
    }

    /// The bucket where the probe for a vector with hash `hash` starts.
    #[inline]
    fn first_bucket(&self, hash: u64) -> usize {
        (((hash >> 32) * self.buckets as u64) >> 32) as usize
    }

    /// The tag bits of a vector with hash `hash`.
    #[inline]
    fn tag_of(&self, hash: u64) -> u64 {
        Cell::tag_bits(hash) & !self.id_mask
    }

    /// The entries of bucket `bucket`.
    #[inline]
    fn bucket(&self, bucket: usize) -> &[Cell] {
        let first = self.start + bucket * BUCKET_ENTRIES;
        &self.cells[first..first + BUCKET_ENTRIES]
    }

    /// The buckets of the probe sequence for hash `hash`: every bucket
    /// once, from the first one on, wrapping around.
    #[inline]
    fn probe(&self, hash: u64) -> impl Iterator<Item = &[Cell]> {
        let first = self.first_bucket(hash);
        (first..self.buckets)
            .chain(0..first)
            .map(|bucket| self.bucket(bucket))
    }

    /// See [`Index::prefetch`]: a bucket of wide entries spans two cache
    /// lines.
    #[inline]
    fn prefetch(&self, hash: u64) {
        let line_entries = 64 / size_of::<Cell>();
        for cell in self
            .bucket(self.first_bucket(hash))
            .iter()
            .step_by(line_entries)
        {
            prefetch_line(cell);
        }
    }

    /// See [`Index::map_pages`].
    fn map_pages(&self, part: usize, parts: usize) {
        let len = self.cells.len();
        let (from, to) = (len * part / parts, len * (part + 1) / parts);
        let page_entries = 4096 / size_of::<Cell>();
        for cell in self.cells[from..to].iter().step_by(page_entries) {
            let _ = cell.take(EMPTY, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// See [`Index::place`].
    fn place(&self, hash: u64, id: StateId) {
        let entry = self.tag_of(hash) | (id + 1);
        for bucket in self.probe(hash) {
            for cell in bucket {
                if cell.get(Ordering::Relaxed) == EMPTY
                    && cell
                        .take(entry, Ordering::Relaxed, Ordering::Relaxed)
                        .is_ok()
                {
                    return;
                }
            }
        }
        unreachable!("an index is built with room for every stored state")
    }

    /// See [`StateTable::find_or_insert`]; `records` are the store's.
    #[inline]
    fn find_or_insert(
        &self,
        records: &VectorStore,
        record: &[u32],
        hash: u64,
        next_id: impl FnOnce() -> Option<StateId>,
    ) -> Lookup {
        let tag = self.tag_of(hash);
        let mut next_id = Some(next_id);
        let mut written: Option<StateId> = None;
        for bucket in self.probe(hash) {
            for cell in bucket {
                let mut entry = cell.get(Ordering::Acquire);
                if entry == EMPTY {
                    let id = match written {
                        Some(id) => id,
                        None => {
                            let Some(id) = next_id.take().and_then(|next| next()) else {
                                return Lookup::Refused;
                            };
                            records.write(id, record);
                            written = Some(id);
                            id
                        }
                    };
                    match cell.take(tag | (id + 1), Ordering::Release, Ordering::Acquire) {
                        Ok(()) => return Lookup::Inserted(id),
                        Err(now) => entry = now,
                    }
                }
                if entry & !self.id_mask == tag {
                    let id = (entry & self.id_mask) - 1;
                    if records.holds(id, record) {
                        return Lookup::Found(id);
                    }
                }
            }
        }
        Lookup::Refused
    }
}

/// The hash index over a [`StateStore`]: buckets of 16 atomic entries,
/// each the id of a state and bits of its vector's hash (`Entries`), of 4
/// bytes while the store's ids fit them, else of 8: an index of narrow
/// entries that grows past [`NARROW_IDS_END`] is rebuilt with wide ones,
/// as any growth rebuilds it, so a search of fewer states pays no more for
/// its index than narrow entries cost.
///
/// The tag narrows as the store grows: with narrow entries, below 2^22
/// states it has at least 10 bits (one entry in 1024 of those a lookup
/// passes costs a store read for nothing), below 2^28 states 4 bits, and
/// none near 2^32; wide entries leave it 28 bits or more below 2^36 ids
/// (the largest index holds fewer states).
///
/// An entry does not hold its hash, so a larger index is built from the
/// stored vectors ([`StateTable::reindex`]) and needs no old index beside
/// it.
pub struct Index {
    entries: Width,
}

/// The entries of an index, of the width its ids need.
enum Width {
    Narrow(Entries<AtomicU32>),
    Wide(Entries<AtomicU64>),
}

/// Evaluates `$body` with `$entries` bound to the entries of `$index`,
/// whatever their width.
macro_rules! with_entries {
    ($index:expr, $entries:ident => $body:expr) => {
        match &$index.entries {
            Width::Narrow($entries) => $body,
            Width::Wide($entries) => $body,
        }
    };
}

impl Index {
    /// An empty index of at least one bucket and about `slots` entries
    /// (at most [`MAX_INDEX_SLOTS`]), for state ids below `ids_end`. The
    /// memory comes zeroed from the allocator, which for a large index
    /// maps pages only when they are first written.
    pub fn new(slots: u64, ids_end: StateId) -> Index {
        let buckets = (slots / BUCKET_ENTRIES as u64).clamp(1, MAX_BUCKETS) as usize;
        let entries = if entry_bytes(ids_end) == NARROW_ENTRY_BYTES {
            Width::Narrow(Entries::new(buckets, ids_end))
        } else {
            Width::Wide(Entries::new(buckets, ids_end))
        };
        Index { entries }
    }

    /// Number of entries.
    pub fn slots(&self) -> u64 {
        with_entries!(self, entries => (entries.buckets * BUCKET_ENTRIES) as u64)
    }

    /// Bytes of one entry: [`NARROW_ENTRY_BYTES`] or [`WIDE_ENTRY_BYTES`].
    pub fn entry_bytes(&self) -> u64 {
        match self.entries {
            Width::Narrow(_) => AtomicU32::BYTES,
            Width::Wide(_) => AtomicU64::BYTES,
        }
    }

    /// Bytes of the entries.
    pub fn bytes(&self) -> u64 {
        self.slots() * self.entry_bytes()
    }

    /// Starts loading the first bucket of a vector with hash `hash` into
    /// the cache. A search finds a state's successors first and looks them
    /// up after, so that the cache misses of the lookups overlap instead of
    /// following one another.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        with_entries!(self, entries => entries.prefetch(hash))
    }

    /// Writes to every memory page of share `part` of `parts` of the
    /// entries, so that the kernel maps a private zeroed page at once.
    /// Reading an untouched page first (as probing does) maps the shared
    /// zero page, and the write that follows must replace it and flush
    /// the stale mapping from every core running the process: an
    /// interrupt to each of them, per page. The write is a compare and
    /// exchange of empty with empty, which changes no entry, so threads
    /// placing states in the same pages meanwhile are unaffected.
    pub fn map_pages(&self, part: usize, parts: usize) {
        with_entries!(self, entries => entries.map_pages(part, parts))
    }

    /// Puts state `id`, whose vector has hash `hash` and is known to be
    /// absent, in the first empty entry of its probe sequence.
    fn place(&self, hash: u64, id: StateId) {
        with_entries!(self, entries => entries.place(hash, id))
    }
}

/// Starts loading the cache line of `cell` (a hint: it reads nothing into
/// the program).
#[inline]
fn prefetch_line<Cell>(cell: &Cell) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint to the cache: it reads nothing into
    // the program and never faults, whatever the address.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(cell).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = cell;
}

/// A set of state vectors under stable ids: a [`StateStore`] and its
/// [`Index`].
///
/// # Insertion protocol and why it is race-free
///
/// A thread that meets an empty entry on the probe of a vector it is
/// looking up takes a state id nobody else can hold (from its own reserve,
/// through `next_id`), writes the vector into that id's
/// record, and only then publishes it by a compare-and-swap of the entry
/// from empty to `tag | (id + 1)` with `Release` ordering. Readers load
/// entries with `Acquire`, so whoever sees an entry also sees its complete
/// record: there is no half-written state to wait for. Entries never change
/// once set, and a vector is always placed in the first empty entry of its
/// probe sequence, so a reader that reaches an empty entry knows the vector
/// is absent. If the compare-and-swap fails, another thread published an
/// entry there in between, possibly for the same vector, so the entry is
/// examined like any other; the id just written stays unpublished and the
/// caller reuses it for its next new state. Hence each vector is stored
/// once, under one id, and a published record never changes.
///
/// Growing ([`StateTable::begin_growth`], [`StateTable::reindex`]) needs
/// every thread stopped: the search does it at a barrier (see
/// `super::Shared::work`). It must be told which ids were published: the
/// ids a thread reserved but has not used hold no state, or a written but
/// unpublished one.
pub struct StateTable {
    /// The states.
    pub store: StateStore,
    /// The index over them.
    pub index: Index,
}

impl StateTable {
    /// A table of whole vectors of `words` words with an index of about
    /// `slots` entries and room for the ids `ids`.
    pub fn new(words: usize, slots: u64, ids: Range<StateId>) -> StateTable {
        StateTable::of(StateStore::plain(words), slots, ids)
    }

    /// A table of `store` (empty) with an index of about `slots` entries
    /// and room for the ids `ids`.
    pub fn of(mut store: StateStore, slots: u64, ids: Range<StateId>) -> StateTable {
        store.reserve(ids);
        let index = Index::new(slots, store.ids_end());
        StateTable { store, index }
    }

    /// Looks up the vector whose record (see [`StateStore::record_of`])
    /// is `record` and whose [`crate::encode::hash_words`] is `hash`, and
    /// stores the record when it is new. `next_id`
    /// is called, at most once, only for a vector that is not in the index;
    /// it gives an id that no other thread uses and that the caller
    /// consumes only when the answer is [`Lookup::Inserted`] with that id,
    /// or `None` to refuse the insertion.
    #[inline]
    pub fn find_or_insert(
        &self,
        record: &[u32],
        hash: u64,
        next_id: impl FnOnce() -> Option<StateId>,
    ) -> Lookup {
        let records = self.store.records();
        with_entries!(self.index, entries => entries.find_or_insert(records, record, hash, next_id))
    }

    /// Starts growing to an index of about `slots` entries and room for
    /// the ids `ids`: makes room in the store and replaces the index by an
    /// empty one (of wide entries if the ids need them), into which every
    /// published state must be put again with [`StateTable::reindex`]
    /// before anyone looks a vector up. The old index is freed before the
    /// new one is allocated.
    pub fn begin_growth(&mut self, slots: u64, ids: Range<StateId>) {
        self.store.reserve(ids);
        self.index = Index::new(0, 0);
        self.index = Index::new(slots, self.store.ids_end());
    }

    /// Puts the states of ids `ids`, all published before the growth, into
    /// the index. Run by several threads at once on disjoint ranges while
    /// nobody looks anything up: the vectors are distinct, so each one
    /// simply takes the first empty entry of its probe sequence.
    ///
    /// States are taken in id order, so their buckets are all over the
    /// index: the buckets of a batch of `REINDEX_BATCH` states are
    /// prefetched before the first of them is placed, so that their cache
    /// misses overlap.
    pub fn reindex(&self, ids: Range<StateId>) {
        let words = self.store.words();
        let mut vector = vec![0; words];
        let mut scratch = TreeScratch::new(words);
        let mut hashes = [0u64; REINDEX_BATCH];
        let mut start = ids.start;
        while start < ids.end {
            let batch = start..ids.end.min(start + REINDEX_BATCH as u64);
            for (id, hash) in batch.clone().zip(hashes.iter_mut()) {
                self.store.read_with(id, &mut vector, &mut scratch);
                *hash = hash_words(&vector);
                self.index.prefetch(*hash);
            }
            for (id, &hash) in batch.clone().zip(hashes.iter()) {
                self.index.place(hash, id);
            }
            start = batch.end;
        }
    }

    /// Bytes used when `records` ids have been handed out: the whole
    /// index, the records of those ids (the store's pages beyond them
    /// were never written, so the system never gave them memory) and the
    /// whole node table of a tree store.
    pub fn bytes_for(&self, records: u64) -> u64 {
        self.index.bytes()
            + records * self.store.records().record_bytes()
            + self.store.node_table_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct two-word vectors.
    fn vector(i: u64) -> [u32; 2] {
        [i as u32, (i >> 32) as u32 ^ 0x5555]
    }

    /// Inserts `count` distinct vectors under the ids from `ids.start`,
    /// in order, and checks that each is found under its id.
    fn fill_and_find(table: &StateTable, ids: &Range<StateId>, count: u64) {
        for i in 0..count {
            let v = vector(i);
            let id = ids.start + i;
            assert_eq!(
                table.find_or_insert(&v, hash_words(&v), || Some(id)),
                Lookup::Inserted(id)
            );
        }
        for i in 0..count {
            let v = vector(i);
            let found = table.find_or_insert(&v, hash_words(&v), || None);
            assert_eq!(found, Lookup::Found(ids.start + i));
        }
        let absent = vector(count);
        assert_eq!(
            table.find_or_insert(&absent, hash_words(&absent), || None),
            Lookup::Refused
        );
    }

    #[test]
    fn entries_are_narrow_while_the_ids_fit_and_wide_after_and_survive_growth() {
        let cases = [
            (0..1000, NARROW_ENTRY_BYTES),
            // The last ids a 4-byte entry holds: id + 1 is 2^32 - 1.
            (NARROW_IDS_END - 1000..NARROW_IDS_END, NARROW_ENTRY_BYTES),
            (NARROW_IDS_END - 1000..NARROW_IDS_END + 1, WIDE_ENTRY_BYTES),
            (1 << 40..(1 << 40) + 1000, WIDE_ENTRY_BYTES),
        ];
        for (ids, width) in cases {
            let mut table = StateTable::new(2, 2048, ids.clone());
            assert_eq!(entry_bytes(ids.end), width);
            assert_eq!(table.index.entry_bytes(), width, "ids {ids:?}");
            assert_eq!(table.index.bytes(), 2048 * width);
            fill_and_find(&table, &ids, 1000);
            if ids.start == 0 {
                continue;
            }
            // Growing past 2^32 - 1 rebuilds the index with wide entries.
            table.begin_growth(4096, ids.start..ids.end.max(NARROW_IDS_END + 1));
            assert_eq!(table.index.entry_bytes(), WIDE_ENTRY_BYTES);
            table.reindex(ids.start..ids.start + 1000);
            for i in 0..1000 {
                let v = vector(i);
                let found = table.find_or_insert(&v, hash_words(&v), || None);
                assert_eq!(found, Lookup::Found(ids.start + i));
            }
        }
    }

    #[test]
    fn a_store_spends_nothing_on_the_segments_below_its_first_id() {
        let mut store = VectorStore::new(1);
        let first = 3 * SEGMENT_RECORDS + 5;
        store.reserve(first..first + 10);
        assert_eq!(store.ids_end(), first + 10);
        let lengths: Vec<usize> = store.vectors.iter().map(|segment| segment.len()).collect();
        assert_eq!(lengths, [0, 0, 0, SEGMENT_RECORDS as usize]);
        store.write(first, &[7]);
        let mut out = [0];
        store.read(first, &mut out);
        assert_eq!(out, [7]);
    }
}
