//! The multi-core CPU engine: level-synchronous breadth-first search by a
//! team of threads over one lock-free, growing [`StateTable`].
//!
//! Every stored state has a stable id, handed out in blocks to the threads,
//! so the states a thread stores during a level form a few runs of
//! consecutive ids. A breadth-first level is the list of those runs, cut
//! into chunks; the threads take chunks from a shared cursor (so a thread
//! that finishes early simply takes more), read the states from the store
//! in id order, expand them with the shared [`SuccessorGenerator`] and look
//! the successors up. A barrier ends each level, which makes termination
//! detection exact (a level is finished when every thread has passed the
//! barrier, and the search ends when a finished level produced no state to
//! expand) and keeps every stored predecessor one level closer to the
//! initial state, so traces are shortest paths, as with the reference
//! engine.
//!
//! # Growing the table
//!
//! The table starts small and doubles its index whenever the states stored
//! reach [`MAX_FILL_PER_MILLE`] of it, up to the memory limit (`--memory`,
//! else most of the available memory); when even the largest table that
//! fits is full, the search ends with [`Completion::TableFull`]. Growing
//! needs every thread out of the table, which happens at a *pause*:
//!
//! 1. The state ids a thread may use come from its reserve, refilled from
//!    a shared allowance of as many ids as the table may hold. A thread
//!    whose refill fails while looking up a new successor leaves that
//!    state's expansion unfinished, raises the `grow` flag and goes to the
//!    barrier. Every other thread checks the flag before each state and
//!    goes to the barrier too; threads that ran out of chunks are already
//!    there. So the pause waits for at most one state expansion per thread.
//!    Before the barrier, every thread gives back (a copy of) what is left
//!    of its reserve: those ids hold no published state.
//! 2. The last thread to arrive sees the flag, frees the old index,
//!    allocates a larger, empty one and the store's new segments, lists
//!    the published ids (all ids handed out, less the reserves given back)
//!    and lowers the flag, before it lets the others go
//!    (`LevelBarrier`); then all threads write to
//!    every memory page of a share of the new index ([`Index::map_pages`]:
//!    a page first mapped by a read must later be replaced, at the cost of
//!    an interrupt to every core) and put the published states into it in
//!    parallel, a share of the ids each, reading and hashing their vectors
//!    ([`StateTable::reindex`]); a second barrier ends the pause and every
//!    thread goes on with the chunk it was in, starting with the state it
//!    left unfinished, and with its reserve as it was.
//! 3. Counts stay exact because a state's transitions, monitor-blocked
//!    firings and deadlock verdict are counted only when its expansion
//!    completes, while a successor is counted (and queued for the next
//!    level, and checked for errors) only by the lookup that inserted it.
//!    Expanding an unfinished state again generates the same successors;
//!    those stored the first time are now found, not inserted, so nothing
//!    is counted or queued twice.
//!
//! No state moves in the store, so predecessor ids, the frontier's runs and
//! a finding's id stay valid across a growth. A barrier is the only way a
//! level ends too: the last thread to arrive decides between a growth (flag
//! raised), the end of the search (a stop was requested, or the level
//! produced nothing) and the next level, and it is the only thread that
//! touches the shared structures while the others wait.
//!
//! A lookup in a large table mostly waits for memory, so a thread generates
//! all successors of a state and prefetches their buckets before it looks
//! the first one up, so that the cache misses of one state's lookups can
//! overlap (a design choice; its gain was not measured on its own).
//!
//! # Memory
//!
//! A stored state costs its record (vector or tree root; with trees, also
//! its share of the node table), an index entry / fill bytes of index and,
//! with traces, its entry in its thread's predecessor log (`parents`),
//! which takes well under the 4 or 8 bytes of a stored predecessor id and
//! was no slower on one and two threads (measured in docs/CPU.md,
//! "Predecessor log").
//!
//! The index grows at 90% fill, so a state costs 4 / fill bytes of index,
//! 4.4 to 8.9 bytes (twice that with 8-byte entries). The probe of a
//! bucket of 16 entries stays short, but not free; growing at 80% instead
//! was no faster, and took more memory on a model that it made grow once
//! more (docs/CPU.md, "Growing at 90 %").
//! Reported memory is what the search wrote: the whole index, the store's
//! records of every id handed out (the store's segments beyond them are
//! never written, so the system gives them no memory), the whole node
//! table of a tree store, the predecessor logs, and the largest lists of
//! state ids of two consecutive levels.
//!
//! The index and the store's segments are mapped with transparent huge
//! pages asked for (`cells::ZeroedCells`), and a segment is mapped whole, so
//! that a growth copies no record: faster than 4 KiB pages and segments
//! grown by copying, and the decision at a growth's barrier, which every
//! other thread waits for, stays short (docs/CPU.md, "Huge pages and whole
//! store segments" and "Deciding at barriers"). The reported memory leaves
//! out the rest of the huge page that the last records of each store array
//! lie in, up to 2 MiB each (docs/CPU.md, "Memory the report leaves out").
//!
//! # State ids
//!
//! State ids are 64 bits ([`StateId`]) wherever they travel: the store,
//! the index, the frontier's runs and chunks, the threads' reserves, the
//! predecessor logs, findings and the export. The index alone spends
//! memory on them for every state: its entries take 4 bytes while the ids
//! of the table fit them, below [`NARROW_IDS_END`] (2^32 - 1), and 8 bytes
//! from the growth whose larger table's ids pass it on (a growth rebuilds
//! the index anyway, so changing the width costs nothing more). So a
//! search of fewer than about 3.9 * 10^9 states costs what it cost with
//! 32-bit ids, but for the lists of a level's runs of ids, whose runs take
//! 16 bytes instead of 8 (docs/CPU.md, "State ids of 64 bits"). What
//! bounds a table is memory, and at most [`MAX_STATES`] states (an index
//! of [`MAX_INDEX_SLOTS`] entries). Tests reach ids past 2^32 by numbering
//! the states from an id near it ([`TableStart::first_id`]); the store
//! spends no memory below the first id.
//!
//! # Storage: whole vectors or trees
//!
//! The store keeps each state's vector whole (`--storage plain`) or as a
//! tree of shared nodes (`--storage tree`, `tree.rs`: an 8-byte root a
//! state, and 8 bytes a node in one lock-free node table). The index
//! hashes the whole vector either way and compares the record (vector or
//! root), so ids, frontier and predecessor logs do not depend on it. A
//! thread encodes a successor against the state it expands, whose node
//! values it kept when it read it: only the nodes above changed words are
//! looked up.
//!
//! A node table does not grow in place (a node's index is its entry): when
//! the nodes reach [`NODE_MAX_FILL_PER_MILLE`] of it (a shared allowance,
//! taken in batches, like state ids), a *store copy* pause encodes every
//! published state again, in parallel, into a tree store with a table
//! twice as large (or as large as fits), under the same ids (the
//! `Phase::Copy` phase), and frees the old one. `--storage auto` starts
//! with whole vectors and, when a doubled table of them would not fit the
//! memory limit and a root is smaller than a vector, copies the states
//! into a tree store the same way, then grows the index; a search whose
//! vectors fit never pays for trees. While a copy runs, the old store and
//! the new one are both held: the limit does not count that peak.
//!
//! # Diagnostics
//!
//! With `-vv` the engine logs where the threads' time went: waiting at the
//! ends of levels, at growth pauses, re-indexing, copying stores, and the
//! time the deciding thread took at barriers.

mod cells;
mod export;
mod parents;
mod table;
mod tree;

pub use table::{
    BUCKET_ENTRIES, Index, Lookup, MAX_INDEX_SLOTS, NARROW_ENTRY_BYTES, NARROW_IDS_END, StateId,
    StateStore, StateTable, VectorStore, WIDE_ENTRY_BYTES, entry_bytes,
};
pub use tree::{NODE_BYTES, NODE_MAX_FILL_PER_MILLE, NodeTable, TreeScratch};

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, RwLock};
use std::time::{Duration, Instant};

use parents::{ParentLog, Parents};

use super::livelock::{self, StateSpace};
use super::outcome::{self, Ending};
use super::{
    Completion, Exploration, Finding, FindingKind, Progress, SearchOptions, Storage, Trace,
};
use crate::encode::{EncodedNetwork, SuccessorGenerator, hash_words};
use crate::error::Error;
use crate::explicit::{GraphSink, LabelledGraphBuilder};

/// How the multi-core engine runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuOptions {
    /// Worker threads; 0 means one per available core. At most
    /// [`MAX_THREADS`] run.
    pub threads: usize,
}

/// Most worker threads a search starts, whatever [`CpuOptions::threads`]
/// asks: more would only cost memory and start-up time.
pub const MAX_THREADS: usize = 1024;

/// Index entries the table starts with (256 KiB), so that a small search
/// reports and touches little memory. Growing is not free: a larger start
/// is faster on models of millions of states (measured in docs/CPU.md,
/// "First index size").
pub const INITIAL_SLOTS: u64 = 1 << 16;
/// Share of the index entries that may be used (in thousandths) before it
/// grows: probing a bucket at a time stays short up to here (docs/CPU.md,
/// "Growing at 90 %").
pub const MAX_FILL_PER_MILLE: u64 = 900;
/// The most states a table may hold: those of the largest index
/// ([`MAX_INDEX_SLOTS`] entries) at [`MAX_FILL_PER_MILLE`], about 6.2 *
/// 10^10. Memory bounds a search long before: that index alone takes 512
/// GiB, and the states' records at least 230 GiB more.
pub const MAX_STATES: u64 = MAX_INDEX_SLOTS / 1000 * MAX_FILL_PER_MILLE;
/// Bytes a state that the memory limit plans for its predecessor (with
/// traces): what an uncompressed id takes. The compressed log
/// (`parents`) takes less (docs/CPU.md, "Predecessor log").
const PLANNED_PARENT_BYTES: u64 = 4;
/// Bytes of a tree-stored state's record: its root.
const TREE_RECORD_BYTES: u64 = 8;
/// Node table entries a conversion to tree storage plans a stored state
/// (the table grows again if they are too few).
const CONVERSION_NODE_SLOTS_PER_STATE: u64 = 2;
/// Entries of an index bucket, the unit of index sizes.
const BUCKET: u64 = BUCKET_ENTRIES as u64;
/// Memory limit when the available memory cannot be read.
const FALLBACK_MEMORY_LIMIT: u64 = 1 << 30;
/// Memory left to everything else, at least: 256 MiB or an eighth of the
/// available memory, whichever is more.
const MIN_MEMORY_MARGIN: u64 = 256 << 20;
/// Most state ids a thread reserves at a time.
const MAX_ID_BATCH: u64 = 4096;
/// Bounds of the number of states in one chunk of a level.
const CHUNK_MIN: u64 = 16;
const CHUNK_MAX: u64 = 1024;
/// A chunk holds at most this share, per thread, of the states of its
/// level still unclaimed before it (see [`chunks`]).
const CHUNK_SHARE: usize = 4;
/// How long a thread at a barrier spins before it sleeps: a level often
/// ends within microseconds of the first thread's arrival, and waking a
/// sleeping thread takes tens of microseconds. A longer spin gained
/// nothing (docs/CPU.md, "Barrier spin").
const BARRIER_SPIN: Duration = Duration::from_micros(50);
/// Time between two progress reports.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(500);
/// A thread looks at the search's [`crate::explore::StopSignal`] at state
/// ids that are multiples of this.
const STOP_CHECK_INTERVAL: StateId = 1024;

/// Explores the state space of `net` breadth-first with `opts.threads`
/// threads. Counts and verdicts equal those of [`super::reference::explore`]: on
/// a complete search every count is the same; a search that stops at a
/// finding stops in the same breadth-first level (the finding may be
/// another one of that level).
pub fn explore(net: &EncodedNetwork, search: &SearchOptions, opts: &CpuOptions) -> Exploration {
    explore_from(net, search, opts, TableStart::default())
}

/// How a search's table starts. Tests pick a tiny index, which makes a
/// search grow its table many times, or ids near or past 2^32, which only
/// billions of states would reach otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableStart {
    /// Index entries of the first index (at least one bucket, and fewer
    /// where the memory limit asks).
    pub slots: u64,
    /// The initial state's id; the other states' ids follow it, and the
    /// store spends no memory on the ids below it.
    pub first_id: StateId,
}

impl Default for TableStart {
    /// [`INITIAL_SLOTS`], and ids from 0.
    fn default() -> TableStart {
        TableStart {
            slots: INITIAL_SLOTS,
            first_id: 0,
        }
    }
}

/// [`explore`] with its table started as `table` says.
pub fn explore_from(
    net: &EncodedNetwork,
    search: &SearchOptions,
    opts: &CpuOptions,
    table: TableStart,
) -> Exploration {
    let start = Instant::now();
    let team = Team::of(opts);
    outcome::initial_error(net, search, team.engine_name(), start)
        .unwrap_or_else(|| search_from(net, search, team, table, start).0)
}

/// [`explore`], then a pass over the stored states that pushes every
/// transition into `sink` (`export.rs`); the sink is finished only when
/// the search is complete.
pub fn explore_into(
    net: &EncodedNetwork,
    search: &SearchOptions,
    opts: &CpuOptions,
    sink: &mut dyn GraphSink,
) -> Result<Exploration, Error> {
    explore_into_from(net, search, opts, TableStart::default(), sink)
}

/// [`explore_into`] with its table started as `table` says.
pub fn explore_into_from(
    net: &EncodedNetwork,
    search: &SearchOptions,
    opts: &CpuOptions,
    table: TableStart,
    sink: &mut dyn GraphSink,
) -> Result<Exploration, Error> {
    let start = Instant::now();
    let team = Team::of(opts);
    if let Some(exploration) = outcome::initial_error(net, search, team.engine_name(), start) {
        return outcome::alone_into(exploration, sink);
    }
    let (exploration, stored) = search_from(net, search, team, table, start);
    if exploration.completion == Completion::Complete {
        export::push_edges(net, &stored, &exploration, team.threads, sink)?;
    }
    Ok(exploration)
}

/// [`explore`] and, after a complete search, its state space in memory
/// (`None` for an incomplete search), numbered as [`explore_into`]
/// numbers it, with the store kept to read the vectors of its states:
/// what the livelock check reads.
pub fn explore_space(
    net: &EncodedNetwork,
    search: &SearchOptions,
    opts: &CpuOptions,
) -> Result<(Exploration, Option<StateSpace>), Error> {
    explore_space_from(net, search, opts, TableStart::default())
}

/// [`explore_space`] with its table started as `table` says.
pub fn explore_space_from(
    net: &EncodedNetwork,
    search: &SearchOptions,
    opts: &CpuOptions,
    table: TableStart,
) -> Result<(Exploration, Option<StateSpace>), Error> {
    let start = Instant::now();
    let team = Team::of(opts);
    if let Some(exploration) = outcome::initial_error(net, search, team.engine_name(), start) {
        return livelock::alone(net, exploration);
    }
    let mut builder = LabelledGraphBuilder::new(net.actions.clone());
    let (exploration, stored) = search_from(net, search, team, table, start);
    if exploration.completion != Completion::Complete {
        return Ok((exploration, None));
    }
    export::push_edges(net, &stored, &exploration, team.threads, &mut builder)?;
    let space = builder.into_graph().map(|graph| StateSpace {
        graph,
        vectors: Box::new(export::NumberedStates::new(stored)),
    });
    Ok((exploration, space))
}

/// The worker threads of a search and the cores they run on, read once at
/// the start.
#[derive(Debug, Clone, Copy)]
struct Team {
    threads: usize,
    cores: usize,
}

impl Team {
    /// The threads `opts` asks for: as many as there are cores for 0.
    fn of(opts: &CpuOptions) -> Team {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = match opts.threads {
            0 => cores,
            threads => threads,
        }
        .min(MAX_THREADS);
        Team { threads, cores }
    }

    /// The engine's name in reports.
    fn engine_name(&self) -> String {
        format!("cpu ({} threads)", self.threads)
    }
}

/// The states a finished search stored, under their state ids: the ids
/// handed out less those reserved but never used.
struct StoredStates {
    table: StateTable,
    published: Vec<Range<StateId>>,
}

impl StoredStates {
    /// The ids that hold a state, as runs in increasing order; the initial
    /// state's id is the first.
    fn published(&self) -> &[Range<StateId>] {
        &self.published
    }

    /// Words of a state vector.
    fn words(&self) -> usize {
        self.table.store.words()
    }

    /// Copies the vector of published state `id` into `out`.
    fn read(&self, id: StateId, out: &mut [u32]) {
        self.table.store.read(id, out);
    }

    /// The id of `vector`, if it was stored; looks up without inserting
    /// (`scratch` is working memory for a tree store).
    fn id_of(&self, vector: &[u32], scratch: &mut TreeScratch) -> Option<StateId> {
        let record = self
            .table
            .store
            .record_of(vector, None, scratch, &mut || false)?;
        match self
            .table
            .find_or_insert(record, hash_words(vector), || None)
        {
            Lookup::Found(id) => Some(id),
            Lookup::Inserted(_) | Lookup::Refused => None,
        }
    }
}

/// The search behind [`explore_from`] and [`explore_into`], from an
/// initial state that is not an error state.
fn search_from(
    net: &EncodedNetwork,
    search: &SearchOptions,
    team: Team,
    table_start: TableStart,
    start: Instant,
) -> (Exploration, StoredStates) {
    let Team { threads, cores } = team;
    let traces = !search.no_trace;
    let words = net.words();
    let root = table_start.first_id;
    let sizing = Sizing {
        first_id: root,
        limit: search.memory_bytes.unwrap_or_else(default_memory_limit),
        parent_bytes: if traces { PLANNED_PARENT_BYTES } else { 0 },
        converts: search.storage == Storage::Auto && 4 * words as u64 > TREE_RECORD_BYTES,
    };
    let store = match search.storage {
        Storage::Tree => {
            StateStore::tree(words, sizing.initial_node_slots(table_start.slots, words))
        }
        Storage::Plain | Storage::Auto => StateStore::plain(words),
    };
    let slots = sizing.initial_slots(table_start.slots, &store);
    let ids = sizing.initial_ids(slots, &store);
    let table = StateTable::of(store, slots, ids);
    let mut scratch = TreeScratch::new(words);
    let record = table
        .store
        .record_of(&net.initial, None, &mut scratch, &mut || true)
        .expect("the first node table has room for a whole tree");
    let inserted = table.find_or_insert(record, hash_words(&net.initial), || Some(root));
    debug_assert_eq!(inserted, Lookup::Inserted(root));
    let nodes = scratch.take_inserted();
    let ids = Ids::new(root, search.max_states, threads);
    ids.restart(root + 1, table.store.ids_end());
    let node_ids = Ids::new(0, None, threads);
    if let Some(node_table) = table.store.nodes() {
        node_ids.restart(nodes, NodeTable::capacity(node_table.slots()));
    }

    let shared = Shared {
        net,
        search,
        threads,
        root,
        sizing,
        table: RwLock::new(table),
        published: RwLock::new(Vec::new()),
        handovers: (0..threads).map(|_| Line(Mutex::default())).collect(),
        ids: Line(ids),
        node_ids: Line(node_ids),
        nodes: AtomicU64::new(nodes),
        pending: RwLock::new(None),
        pending_nodes: AtomicU64::new(0),
        copy_failed: AtomicBool::new(false),
        grow_index: AtomicBool::new(false),
        words,
        start,
        stop: Line(AtomicBool::new(false)),
        grow: Line(AtomicBool::new(false)),
        state_limit: AtomicBool::new(false),
        interrupted: AtomicBool::new(false),
        table_full: AtomicBool::new(false),
        first: Mutex::new(None),
        has_finding: AtomicBool::new(false),
        frontier: RwLock::new(std::iter::once(root..root + 1).collect()),
        cursor: Line(AtomicUsize::new(0)),
        barrier: LevelBarrier::new(threads, cores),
        phase: AtomicU8::new(Phase::Expand as u8),
        depth: AtomicU32::new(0),
        growths: AtomicU32::new(0),
        copies: AtomicU32::new(0),
        deciding_nanos: AtomicU64::new(0),
        level_stored: AtomicU64::new(0),
        frontier_bytes: AtomicU64::new(0),
        counters: (0..threads).map(|_| Counters::default()).collect(),
    };
    let mut totals = Stats {
        states: 1,
        ..Stats::default()
    };
    let mut logs = Vec::new();
    let per_thread: Vec<(Stats, Option<ParentLog>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|id| {
                let shared = &shared;
                scope.spawn(move || shared.work(id))
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("worker threads do not panic"))
            .collect()
    });
    for (stats, log) in per_thread {
        totals.add(&stats);
        logs.extend(log);
    }
    let parent_bytes: u64 = logs.iter().map(ParentLog::bytes).sum();
    let thread_time = start.elapsed().as_secs_f64() * threads as f64;
    let share = |time: Duration| 100.0 * time.as_secs_f64() / thread_time;
    tracing::debug!(
        "cpu engine: {threads} threads, {} levels, {} growths; of the threads' time, \
         {:.1}% waiting at the ends of levels, {:.1}% at growth pauses, {:.1}% re-indexing, \
         {:.1}% copying stores ({} store copies); {:.1} ms deciding at barriers",
        shared.depth.load(Ordering::Relaxed),
        shared.growths.load(Ordering::Relaxed),
        share(totals.waiting),
        share(totals.pausing),
        share(totals.reindexing),
        share(totals.copying),
        shared.copies.load(Ordering::Relaxed),
        shared.deciding_nanos.load(Ordering::Relaxed) as f64 / 1e6,
    );

    let first = shared.first.lock().expect("no panics while locked").clone();
    let ending = Ending {
        finding_ends: outcome::finding_ends(net, search, first.as_ref().map(|(kind, _)| kind)),
        out_of_room: shared.table_full.load(Ordering::Relaxed),
        state_limit: shared.state_limit.load(Ordering::Relaxed),
        interrupted: shared.interrupted.load(Ordering::Relaxed),
    };
    let first = first.map(|(kind, id)| Finding {
        state: shared.vector(id),
        // The logs are indexed only when a trace is asked for.
        trace: traces.then(|| shared.trace_to(id, &Parents::new(logs))),
        kind,
    });
    let handed_out = shared.ids.next.load(Ordering::Relaxed);
    let published = published(root..handed_out, shared.unused_reserves());
    let frontier_bytes = shared.frontier_bytes.load(Ordering::Relaxed);
    let nodes = shared.nodes.load(Ordering::Relaxed);
    let table = shared.table.into_inner().expect("no thread runs any more");
    let exploration = Exploration {
        states: totals.states,
        transitions: totals.transitions,
        depth: shared.depth.load(Ordering::Relaxed),
        deadlocks: totals.deadlocks,
        errors: totals.errors,
        monitor_blocked: totals.monitor_blocked,
        first,
        completion: ending.completion(),
        elapsed: start.elapsed(),
        memory_bytes: table.bytes_for(handed_out - root) + parent_bytes + frontier_bytes,
        storage: table.store.storage(),
        state_bytes: totals.states
            * (table.store.records().record_bytes() + table.index.entry_bytes())
            + nodes * NODE_BYTES
            + parent_bytes,
        engine: team.engine_name(),
    };
    (exploration, StoredStates { table, published })
}

/// The memory limit without `--memory`: `MemAvailable` from
/// `/proc/meminfo` less a margin of an eighth of it (at least 256 MiB);
/// 1 GiB where it cannot be read.
pub fn default_memory_limit() -> u64 {
    crate::system::available_memory().map_or(FALLBACK_MEMORY_LIMIT, |available| {
        available.saturating_sub((available / 8).max(MIN_MEMORY_MARGIN))
    })
}

/// How large the table may get: index entries, store records and node
/// table together stay within `limit` bytes. A growth frees the old index
/// before it allocates the new one, so the two never count together; a
/// store copy (a larger node table, or a conversion to tree storage)
/// holds the old store and the new one at once, which the limit does not
/// count (docs/CPU.md, "Tree storage").
struct Sizing {
    /// The initial state's id: the ids of a table of `capacity` states
    /// end `capacity` after it.
    first_id: StateId,
    /// Bytes the table may take.
    limit: u64,
    /// Bytes a state's predecessor is planned to take.
    parent_bytes: u64,
    /// Whether a store of whole vectors becomes a tree store when a
    /// doubled table would not fit (`--storage auto`, on vectors wider
    /// than a root).
    converts: bool,
}

impl Sizing {
    /// States an index of `slots` entries may hold.
    fn capacity(slots: u64) -> u64 {
        (slots * MAX_FILL_PER_MILLE / 1000).clamp(1, MAX_STATES)
    }

    /// The ids of a table whose index has `slots` entries.
    fn ids(&self, slots: u64) -> Range<StateId> {
        self.first_id..self.first_id + Self::capacity(slots)
    }

    /// Bytes of an entry of an index of `slots` entries: narrow while the
    /// ids of its table fit them.
    fn entry_bytes(&self, slots: u64) -> u64 {
        entry_bytes(self.ids(slots).end)
    }

    /// Bytes of an index of `slots` entries, a store as large as it may
    /// hold of records of `record_bytes` bytes, and `node_bytes` of node
    /// table.
    fn table_bytes(&self, slots: u64, record_bytes: u64, node_bytes: u64) -> u64 {
        slots * self.entry_bytes(slots)
            + Self::capacity(slots) * (record_bytes + self.parent_bytes)
            + node_bytes
    }

    /// The first node table's entries for vectors of `words` words:
    /// `wanted`, at most half the limit's worth (a small limit leaves room
    /// for the index and records), and room for a whole tree at least.
    fn initial_node_slots(&self, wanted: u64, words: usize) -> u64 {
        wanted
            .min(self.limit / (2 * NODE_BYTES))
            .max(4 * words as u64)
            .next_power_of_two()
    }

    /// The first index's entries: `wanted` in whole buckets (at most
    /// [`MAX_INDEX_SLOTS`]), halved until the table of `store` fits the
    /// limit (at least one bucket).
    fn initial_slots(&self, wanted: u64, store: &StateStore) -> u64 {
        let record_bytes = store.records().record_bytes();
        let node_bytes = store.node_table_bytes();
        let mut slots = (wanted.min(MAX_INDEX_SLOTS) / BUCKET).max(1) * BUCKET;
        while slots > BUCKET && self.table_bytes(slots, record_bytes, node_bytes) > self.limit {
            slots = (slots / (2 * BUCKET)).max(1) * BUCKET;
        }
        slots
    }

    /// The ids of the first table, an index of `slots` entries over
    /// `store`: those of [`Sizing::ids`], fewer where even that table
    /// would exceed the limit (a limit below one bucket), so that it holds
    /// only the states that fit, and the initial state at least.
    fn initial_ids(&self, slots: u64, store: &StateStore) -> Range<StateId> {
        let ids = self.ids(slots);
        let fixed = slots * self.entry_bytes(slots) + store.node_table_bytes();
        let per_state = (store.records().record_bytes() + self.parent_bytes).max(1);
        let fitting = (self.limit.saturating_sub(fixed) / per_state).max(1);
        ids.start..ids.end.min(ids.start + fitting)
    }

    /// The entries of the index that replaces one of `slots` entries over
    /// `store`: twice as many, or as many as fit (unless the store is to
    /// become a tree store instead); `None` when no larger table fits.
    fn next_slots(&self, slots: u64, store: &StateStore) -> Option<u64> {
        if slots >= MAX_INDEX_SLOTS {
            return None;
        }
        let record_bytes = store.records().record_bytes();
        let node_bytes = store.node_table_bytes();
        let doubled = (2 * slots).min(MAX_INDEX_SLOTS);
        if self.table_bytes(doubled, record_bytes, node_bytes) <= self.limit {
            return Some(doubled);
        }
        if self.converts && store.storage() == Storage::Plain {
            return None;
        }
        // Bytes per entry of a full-size table: the entry and its share of
        // the store. The entries are as wide as the doubled index's: no
        // narrower, so that the table fits.
        let per_mille_bytes = 1000 * self.entry_bytes(doubled)
            + MAX_FILL_PER_MILLE * (record_bytes + self.parent_bytes);
        let fitting =
            self.limit.saturating_sub(node_bytes) * 1000 / per_mille_bytes / BUCKET * BUCKET;
        (Self::capacity(fitting) > Self::capacity(slots)).then_some(fitting)
    }

    /// The entries of a node table larger than one of `node_slots`
    /// entries beside an index of `index_slots` entries over tree records:
    /// twice as many, or as many as fit; `None` when no larger one fits.
    fn next_node_slots(&self, index_slots: u64, node_slots: u64) -> Option<u64> {
        let room = self
            .limit
            .saturating_sub(self.table_bytes(index_slots, TREE_RECORD_BYTES, 0))
            / NODE_BYTES;
        let slots = (2 * node_slots).min(room).min(tree::MAX_NODE_SLOTS);
        (NodeTable::capacity(slots) > NodeTable::capacity(node_slots)).then_some(slots)
    }

    /// The node table entries a conversion of `states` states to tree
    /// storage starts with, beside an index of `index_slots` entries:
    /// [`CONVERSION_NODE_SLOTS_PER_STATE`] a state, or as many as fit.
    fn conversion_node_slots(&self, index_slots: u64, states: u64) -> u64 {
        let room = self
            .limit
            .saturating_sub(self.table_bytes(index_slots, TREE_RECORD_BYTES, 0))
            / NODE_BYTES;
        (CONVERSION_NODE_SLOTS_PER_STATE * states)
            .next_power_of_two()
            .min(room)
            .min(tree::MAX_NODE_SLOTS)
    }
}

/// The shared allowance of ids (of states, or of tree nodes): ids from
/// `first` below `limit` (the end of the table's ids, or of the state
/// limit's if lower), handed out to threads in batches so that they
/// rarely touch the shared counter.
struct Ids {
    /// The first id: the initial state's, or 0 for nodes.
    first: u64,
    /// The next id nobody has reserved.
    next: AtomicU64,
    /// Ids that may be reserved: below this.
    limit: AtomicU64,
    /// Ids reserved at a time.
    batch: AtomicU64,
    /// The user's state limit.
    max_states: Option<u64>,
    /// Worker threads.
    threads: u64,
}

impl Ids {
    /// An allowance of no ids yet, of ids from `first`, under the user's
    /// state limit `max_states`, for `threads` threads; see
    /// [`Ids::restart`].
    fn new(first: u64, max_states: Option<u64>, threads: usize) -> Ids {
        Ids {
            first,
            next: AtomicU64::new(first),
            limit: AtomicU64::new(0),
            batch: AtomicU64::new(1),
            max_states,
            threads: threads as u64,
        }
    }

    /// Hands out ids from `next` on, for a table of the ids below
    /// `ids_end`.
    fn restart(&self, next: u64, ids_end: u64) {
        self.next.store(next, Ordering::Relaxed);
        self.set_ids_end(ids_end);
    }

    /// Whether every id of the allowance has been reserved.
    fn spent(&self) -> bool {
        self.next.load(Ordering::Relaxed) >= self.limit.load(Ordering::Relaxed)
    }

    /// Sets the allowance for a table of the ids from `first` below
    /// `ids_end`. Exact counts under a state limit (batches of one);
    /// otherwise batches small enough that no thread sits on a large share
    /// of a small table.
    fn set_ids_end(&self, ids_end: u64) {
        let capacity = ids_end - self.first;
        let limit = self.first + self.max_states.map_or(capacity, |m| m.min(capacity));
        self.limit.store(limit, Ordering::Relaxed);
        let batch = if self.max_states.is_some() {
            1
        } else {
            (capacity / (16 * self.threads)).clamp(1, MAX_ID_BATCH)
        };
        self.batch.store(batch, Ordering::Relaxed);
    }

    /// Reserves the next batch of ids; `None` when the allowance is spent.
    fn reserve(&self) -> Option<Range<u64>> {
        let limit = self.limit.load(Ordering::Relaxed);
        let batch = self.batch.load(Ordering::Relaxed);
        let mut next = self.next.load(Ordering::Relaxed);
        loop {
            if next >= limit {
                return None;
            }
            let end = (next + batch).min(limit);
            match self
                .next
                .compare_exchange_weak(next, end, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Some(next..end),
                Err(now) => next = now,
            }
        }
    }

    /// Whether the user's state limit, rather than the table, refused the
    /// last reservation.
    fn state_limit_reached(&self) -> bool {
        self.max_states
            .is_some_and(|m| self.next.load(Ordering::Relaxed) - self.first >= m)
    }
}

/// The barrier that ends every round of work. The last thread to arrive
/// runs the round's decision before it lets the others go, so that one
/// barrier, not two, separates two levels; the others spin for
/// [`BARRIER_SPIN`] (when every thread has a core of its own), then sleep.
struct LevelBarrier {
    threads: usize,
    /// Threads that have arrived in this round.
    arrived: AtomicUsize,
    /// Rounds completed: a waiting thread leaves when it changes.
    round: AtomicU64,
    /// Threads that sleep on `wake`; changed, like `round`, under the lock.
    sleepers: Mutex<usize>,
    wake: Condvar,
    /// Whether to spin before sleeping.
    spin: bool,
}

impl LevelBarrier {
    /// A barrier for `threads` threads on a machine of `cores` cores.
    fn new(threads: usize, cores: usize) -> LevelBarrier {
        LevelBarrier {
            threads,
            arrived: AtomicUsize::new(0),
            round: AtomicU64::new(0),
            sleepers: Mutex::new(0),
            wake: Condvar::new(),
            spin: threads <= cores,
        }
    }

    /// Waits until every thread has arrived; the last one runs `last`
    /// first. Whatever a thread did before it arrived, and whatever `last`
    /// did, is visible to every thread after the barrier.
    fn wait(&self, last: impl FnOnce()) {
        let round = self.round.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            // Reset before the round changes, so that a thread released now
            // counts its next arrival from zero.
            self.arrived.store(0, Ordering::Relaxed);
            last();
            let sleepers = self.sleepers.lock().expect("no panics while locked");
            self.round.store(round + 1, Ordering::Release);
            if *sleepers > 0 {
                self.wake.notify_all();
            }
            return;
        }
        if self.spin {
            let started = Instant::now();
            let mut spins = 0u32;
            while self.round.load(Ordering::Acquire) == round {
                std::hint::spin_loop();
                spins += 1;
                if spins.is_multiple_of(64) && started.elapsed() >= BARRIER_SPIN {
                    break;
                }
            }
        }
        let mut sleepers = self.sleepers.lock().expect("no panics while locked");
        while self.round.load(Ordering::Acquire) == round {
            *sleepers += 1;
            sleepers = self.wake.wait(sleepers).expect("no panics while locked");
            *sleepers -= 1;
        }
    }
}

/// What a thread hands over at each barrier: the runs of ids of the new
/// states it stored since the level began, and what is left of its reserve
/// of ids.
#[derive(Default)]
struct Handover {
    produced: Vec<Range<StateId>>,
    reserve: Range<StateId>,
}

/// What the threads do after a barrier, as decided by the last to arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Phase {
    /// Expand (the rest of) the current level.
    Expand,
    /// Put the published states into the new index, then expand.
    Reindex,
    /// Copy the published states into the new store (a tree store with a
    /// larger node table, or one that replaces whole vectors).
    Copy,
    /// The search is over.
    Finished,
}

impl Phase {
    /// The phase stored as `value` (by `phase as u8`).
    fn from_u8(value: u8) -> Phase {
        [Phase::Expand, Phase::Reindex, Phase::Copy, Phase::Finished]
            .into_iter()
            .find(|phase| *phase as u8 == value)
            .expect("only phases are stored")
    }
}

/// What one thread counted, and where its time went (for the engine's
/// debug log: how much the barriers and growths cost).
#[derive(Debug, Default, Clone, Copy)]
struct Stats {
    states: u64,
    transitions: u64,
    deadlocks: u64,
    errors: u64,
    monitor_blocked: u64,
    /// Time spent waiting at the ends of levels.
    waiting: Duration,
    /// Time spent waiting at the barriers of growths.
    pausing: Duration,
    /// Time spent putting states into a grown index.
    reindexing: Duration,
    /// Time spent copying states into a new store.
    copying: Duration,
}

impl Stats {
    fn add(&mut self, other: &Stats) {
        self.states += other.states;
        self.transitions += other.transitions;
        self.deadlocks += other.deadlocks;
        self.errors += other.errors;
        self.monitor_blocked += other.monitor_blocked;
        self.waiting += other.waiting;
        self.pausing += other.pausing;
        self.reindexing += other.reindexing;
        self.copying += other.copying;
    }
}

/// A thread's running totals, published for progress reports; one cache
/// line each so that threads do not slow each other down.
#[derive(Default)]
#[repr(align(64))]
struct Counters {
    states: AtomicU64,
    transitions: AtomicU64,
}

/// A value on cache lines of its own. Every thread reads `stop` and `grow`
/// before each state, while the chunk cursor and the id allowance are
/// written every few hundred states: apart, a write does not make every
/// other core fetch the flags again.
#[repr(align(64))]
struct Line<T>(T);

impl<T> std::ops::Deref for Line<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// Everything the threads share.
struct Shared<'a> {
    net: &'a EncodedNetwork,
    search: &'a SearchOptions,
    threads: usize,
    /// The initial state's id.
    root: StateId,
    sizing: Sizing,
    /// The states. Threads read-lock it for a whole round between two
    /// barriers; only the deciding thread write-locks it, while every
    /// other thread waits at a barrier.
    table: RwLock<StateTable>,
    /// Runs of the ids published before a growth, to put into the new
    /// index.
    published: RwLock<Vec<Range<StateId>>>,
    /// What each thread hands over at each barrier; a lock each, so that
    /// threads reaching a barrier together do not wait for one another.
    handovers: Vec<Line<Mutex<Handover>>>,
    ids: Line<Ids>,
    /// The allowance of nodes that may be put into a tree store's node
    /// table: as many as it may hold.
    node_ids: Line<Ids>,
    /// Nodes in the tree store's node table, as of the last barrier.
    nodes: AtomicU64,
    /// The store the published states are being copied into.
    pending: RwLock<Option<StateStore>>,
    /// Nodes put into the pending store's node table.
    pending_nodes: AtomicU64,
    /// Set when the pending store's node table had no room for a copy.
    copy_failed: AtomicBool,
    /// Whether the index grows after the store copy.
    grow_index: AtomicBool,
    /// Words of a state vector.
    words: usize,
    start: Instant,
    /// Set to make every thread stop at its next state.
    stop: Line<AtomicBool>,
    /// Set to pause every thread at its next state and grow the table.
    grow: Line<AtomicBool>,
    /// The state limit was hit.
    state_limit: AtomicBool,
    /// The table was full and could not grow.
    table_full: AtomicBool,
    /// Set when the search's stop signal ended it.
    interrupted: AtomicBool,
    /// The finding to report and its state id.
    first: Mutex<Option<(FindingKind, StateId)>>,
    /// Whether `first` holds a finding.
    has_finding: AtomicBool,
    /// The level being expanded: runs of state ids, cut into chunks.
    frontier: RwLock<Vec<Range<StateId>>>,
    /// Next chunk of `frontier` to hand out.
    cursor: Line<AtomicUsize>,
    /// Ends each round of work.
    barrier: LevelBarrier,
    /// What to do after the barrier (a [`Phase`]): every thread reads it
    /// at once when the barrier lets them go, so it takes no lock.
    phase: AtomicU8,
    /// Breadth-first depth reached.
    depth: AtomicU32,
    /// Times the index grew.
    growths: AtomicU32,
    /// Times the states were copied into a new store.
    copies: AtomicU32,
    /// Time the last threads to reach a barrier spent deciding, while the
    /// others waited.
    deciding_nanos: AtomicU64,
    /// States (error states included) stored during the current level.
    level_stored: AtomicU64,
    /// Most bytes the lists of two consecutive levels took at once.
    frontier_bytes: AtomicU64,
    /// Per-thread progress counters.
    counters: Vec<Counters>,
}

impl Shared<'_> {
    /// Records a finding in state `id`. The first one is kept, unless a
    /// fatal one (see [`outcome::is_fatal`]) comes later, as in the reference engine;
    /// every thread stops unless the search keeps going and the finding is
    /// not fatal.
    fn record(&self, kind: FindingKind, id: StateId) {
        let fatal = outcome::is_fatal(self.net, &kind);
        if outcome::ends_search(self.net, self.search, &kind) {
            self.stop.store(true, Ordering::Relaxed);
        }
        // Fast path for the many deadlocks of a keep-going search.
        if !fatal && self.has_finding.load(Ordering::Relaxed) {
            return;
        }
        let mut first = self.first.lock().expect("no panics while locked");
        if outcome::replaces(self.net, first.as_ref().map(|(kept, _)| kept), &kind) {
            *first = Some((kind, id));
            self.has_finding.store(true, Ordering::Relaxed);
        }
    }

    /// The vector of state `id`.
    fn vector(&self, id: StateId) -> Vec<u32> {
        let mut vector = vec![0; self.net.words()];
        let table = self.table.read().expect("no panics while locked");
        table.store.read(id, &mut vector);
        vector
    }

    /// The path from the initial state to state `id`, following the logged
    /// predecessors; the actions are recomputed from consecutive vectors.
    fn trace_to(&self, id: StateId, parents: &Parents) -> Trace {
        let mut ids = vec![id];
        let mut at = id;
        while at != self.root {
            at = parents
                .of(at)
                .expect("every stored state but the initial one has a logged predecessor");
            ids.push(at);
        }
        ids.reverse();
        let states: Vec<Vec<u32>> = ids.iter().map(|&s| self.vector(s)).collect();
        Trace::through(self.net, states)
            .expect("a stored state is a successor of its stored predecessor")
    }

    /// Whether threads must leave the table: a stop or a growth is due.
    #[inline]
    fn interrupted(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.grow.load(Ordering::Relaxed)
    }

    /// The body of worker thread `id`: rounds of expanding chunks, each
    /// ended by a barrier after which the thread goes on with the level,
    /// helps grow the table, or returns.
    fn work(&self, id: usize) -> (Stats, Option<ParentLog>) {
        let mut worker = Worker {
            parents: (!self.search.no_trace).then(ParentLog::default),
            shared: self,
            generator: SuccessorGenerator::new(self.net),
            state: vec![0; self.words],
            scratch: TreeScratch::new(self.words),
            node_credits: 0,
            next: Vec::new(),
            reserve: 0..0,
            successors: Vec::new(),
            found: Vec::new(),
            stats: Stats::default(),
        };
        // The ids of the chunk being expanded that are still to expand; it
        // survives a pause, so the thread resumes where it left off.
        let mut chunk: Range<StateId> = 0..0;
        let mut next_progress = PROGRESS_INTERVAL;
        loop {
            let stored_before = worker.stats.states;
            {
                let table = self.table.read().expect("no panics while locked");
                let frontier = self.frontier.read().expect("no panics while locked");
                'round: while !self.interrupted() {
                    if chunk.is_empty() {
                        match frontier.get(self.cursor.fetch_add(1, Ordering::Relaxed)) {
                            Some(next) => chunk = next.clone(),
                            None => break,
                        }
                    }
                    while !chunk.is_empty() {
                        if self.interrupted() {
                            break 'round;
                        }
                        if chunk.start.is_multiple_of(STOP_CHECK_INTERVAL)
                            && self.search.stop.is_set()
                        {
                            self.interrupted.store(true, Ordering::Relaxed);
                            self.stop.store(true, Ordering::Relaxed);
                            break 'round;
                        }
                        match worker.expand(&table, chunk.start) {
                            Expansion::Done => chunk.start += 1,
                            Expansion::NeedsRoom => {
                                self.grow.store(true, Ordering::Relaxed);
                                break 'round;
                            }
                            Expansion::Stopped => break 'round,
                        }
                    }
                    worker.publish_counters(id);
                    if id == 0 && self.start.elapsed() >= next_progress {
                        next_progress = self.start.elapsed() + PROGRESS_INTERVAL;
                        self.report_progress();
                    }
                }
            }
            self.level_stored
                .fetch_add(worker.stats.states - stored_before, Ordering::Relaxed);
            self.nodes
                .fetch_add(worker.scratch.take_inserted(), Ordering::Relaxed);
            {
                let mut handover = self.handovers[id].lock().expect("no panics while locked");
                handover.produced.append(&mut worker.next);
                handover.reserve = worker.reserve.clone();
            }
            let arrived = Instant::now();
            self.barrier.wait(|| {
                let started = Instant::now();
                self.decide();
                self.deciding_nanos
                    .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
            });
            let waited = arrived.elapsed();
            // A pause for room goes through phases, each ended by a
            // barrier, until the threads expand again or the search ends.
            let mut phase = Phase::from_u8(self.phase.load(Ordering::Relaxed));
            if phase == Phase::Expand || phase == Phase::Finished {
                worker.stats.waiting += waited;
            } else {
                worker.stats.pausing += waited;
            }
            loop {
                match phase {
                    Phase::Finished => return (worker.stats, worker.parents),
                    Phase::Expand => break,
                    Phase::Reindex => {
                        let started = Instant::now();
                        self.reindex_share(id);
                        let arrived = Instant::now();
                        worker.stats.reindexing += arrived - started;
                        // Every state is in the new index before anyone
                        // looks a vector up again.
                        self.barrier
                            .wait(|| self.phase.store(Phase::Expand as u8, Ordering::Relaxed));
                        worker.stats.pausing += arrived.elapsed();
                    }
                    Phase::Copy => {
                        let started = Instant::now();
                        self.copy_share(id);
                        let arrived = Instant::now();
                        worker.stats.copying += arrived - started;
                        self.barrier.wait(|| {
                            let next = self.finish_copy();
                            self.phase.store(next as u8, Ordering::Relaxed);
                        });
                        worker.stats.pausing += arrived.elapsed();
                        // The credits were for the node table replaced.
                        worker.node_credits = 0;
                    }
                }
                phase = Phase::from_u8(self.phase.load(Ordering::Relaxed));
            }
        }
    }

    /// Puts share `part` of the published states into the new index, after
    /// mapping the pages of a share of it.
    fn reindex_share(&self, part: usize) {
        let table = self.table.read().expect("no panics while locked");
        let published = self.published.read().expect("no panics while locked");
        table.index.map_pages(part, self.threads);
        for ids in share(&published, part, self.threads) {
            table.reindex(ids);
        }
    }

    /// Copies share `part` of the published states into the pending store;
    /// raises `copy_failed` when its node table has no room left.
    fn copy_share(&self, part: usize) {
        let table = self.table.read().expect("no panics while locked");
        let pending = self.pending.read().expect("no panics while locked");
        let published = self.published.read().expect("no panics while locked");
        let into = pending.as_ref().expect("a copy has a store to copy into");
        let mut scratch = TreeScratch::new(self.words);
        let mut credits = 0;
        for ids in share(&published, part, self.threads) {
            let copied = into.copy_from(&table.store, ids, &mut scratch, &mut || {
                self.node_credit(&mut credits)
            });
            if !copied {
                self.copy_failed.store(true, Ordering::Relaxed);
                break;
            }
        }
        self.pending_nodes
            .fetch_add(scratch.take_inserted(), Ordering::Relaxed);
    }

    /// Takes one node insertion from a thread's `credits`, refilled from
    /// the shared allowance; `false` when it is spent.
    #[inline]
    fn node_credit(&self, credits: &mut u64) -> bool {
        if *credits == 0 {
            match self.node_ids.reserve() {
                Some(batch) => *credits = batch.end - batch.start,
                None => return false,
            }
        }
        *credits -= 1;
        true
    }

    /// Run by the last thread to reach the barrier, while the others wait:
    /// ends the search, starts a pause for room, or makes the states
    /// produced by the level just finished the next level.
    fn decide(&self) {
        let phase = self.next_phase();
        self.phase.store(phase as u8, Ordering::Relaxed);
    }

    /// [`Shared::decide`], less the recording of the phase it returns.
    fn next_phase(&self) -> Phase {
        // When the search ends, the handovers keep the reserves given back
        // at this last barrier, to tell the published ids afterwards.
        if self.stop.load(Ordering::Relaxed) {
            return Phase::Finished;
        }
        if self.grow.swap(false, Ordering::Relaxed) {
            return self.begin_growth();
        }
        // No thread was interrupted, so every thread ran out of chunks:
        // the level is done.
        let mut produced = Vec::new();
        for handover in &self.handovers {
            let mut handover = handover.lock().expect("no panics while locked");
            produced.append(&mut handover.produced);
        }
        // A level that stored only error states still counts as a level.
        if self.level_stored.swap(0, Ordering::Relaxed) > 0 {
            self.depth.fetch_add(1, Ordering::Relaxed);
        }
        if produced.is_empty() {
            return Phase::Finished;
        }
        let produced_bytes = std::mem::size_of_val(produced.as_slice()) as u64;
        let next = chunks(produced, self.threads);
        let mut frontier = self.frontier.write().expect("no panics while locked");
        let lists = produced_bytes + std::mem::size_of_val(next.as_slice()) as u64;
        self.frontier_bytes.fetch_max(
            lists + std::mem::size_of_val(frontier.as_slice()) as u64,
            Ordering::Relaxed,
        );
        *frontier = next;
        self.cursor.store(0, Ordering::Relaxed);
        Phase::Expand
    }

    /// Makes room for the search to go on, as the allowance that was spent
    /// asks: a larger node table (the states copied into it), else a larger
    /// index, else (`--storage auto`) tree storage instead of whole
    /// vectors, the index then grown. Lists the published ids (those
    /// handed out, less the threads' unused reserves) for the phases
    /// that follow. [`Phase::Finished`] when nothing larger fits.
    fn begin_growth(&self) -> Phase {
        let mut table = self.table.write().expect("no panics while locked");
        *self.published.write().expect("no panics while locked") = published(
            self.root..self.ids.next.load(Ordering::Relaxed),
            self.unused_reserves(),
        );
        let nodes_full = table.store.nodes().is_some() && self.node_ids.spent();
        if nodes_full {
            let node_slots = table.store.nodes().map_or(0, NodeTable::slots);
            let Some(node_slots) = self.sizing.next_node_slots(table.index.slots(), node_slots)
            else {
                return self.out_of_room();
            };
            self.grow_index.store(self.ids.spent(), Ordering::Relaxed);
            return self.start_copy(&table, node_slots);
        }
        self.grow_index_of(&mut table)
    }

    /// Replaces the index by a larger, empty one and makes room in the
    /// store ([`Phase::Reindex`]), if a larger table fits; else converts a
    /// store of whole vectors into a tree store, if the search may
    /// ([`Phase::Copy`], the index grown after).
    fn grow_index_of(&self, table: &mut StateTable) -> Phase {
        if let Some(slots) = self.sizing.next_slots(table.index.slots(), &table.store) {
            table.begin_growth(slots, self.sizing.ids(slots));
            self.growths.fetch_add(1, Ordering::Relaxed);
            self.ids.set_ids_end(table.store.ids_end());
            return Phase::Reindex;
        }
        if self.sizing.converts && table.store.storage() == Storage::Plain {
            let states = self.ids.next.load(Ordering::Relaxed);
            self.grow_index.store(true, Ordering::Relaxed);
            let node_slots = self
                .sizing
                .conversion_node_slots(table.index.slots(), states);
            return self.start_copy(table, node_slots);
        }
        self.out_of_room()
    }

    /// Ends the search for want of room.
    fn out_of_room(&self) -> Phase {
        self.table_full.store(true, Ordering::Relaxed);
        Phase::Finished
    }

    /// Starts copying the states of `table` into a tree store with a node
    /// table of `node_slots` entries.
    fn start_copy(&self, table: &StateTable, node_slots: u64) -> Phase {
        let mut pending = self.pending.write().expect("no panics while locked");
        // An earlier attempt's store is freed before the next one is made.
        *pending = None;
        let mut into = StateStore::tree(self.words, node_slots);
        into.reserve(self.root..table.store.ids_end());
        self.node_ids.restart(0, NodeTable::capacity(node_slots));
        self.pending_nodes.store(0, Ordering::Relaxed);
        *pending = Some(into);
        Phase::Copy
    }

    /// Run by the last thread after a store copy: the copy replaces the
    /// store (and the index grows if it was full), or, if its node table
    /// had no room, a copy into a larger one starts, if one fits.
    fn finish_copy(&self) -> Phase {
        let mut table = self.table.write().expect("no panics while locked");
        let node_slots = {
            let pending = self.pending.read().expect("no panics while locked");
            let into = pending.as_ref().expect("a copy has a store to copy into");
            into.nodes().map_or(0, NodeTable::slots)
        };
        if self.copy_failed.swap(false, Ordering::Relaxed) {
            return match self.sizing.next_node_slots(table.index.slots(), node_slots) {
                Some(larger) => self.start_copy(&table, larger),
                None => {
                    *self.pending.write().expect("no panics while locked") = None;
                    self.out_of_room()
                }
            };
        }
        let copied = self.pending.write().expect("no panics while locked").take();
        table.store = copied.expect("a copy has a store to copy into");
        self.copies.fetch_add(1, Ordering::Relaxed);
        let nodes = self.pending_nodes.load(Ordering::Relaxed);
        self.nodes.store(nodes, Ordering::Relaxed);
        self.node_ids
            .restart(nodes, NodeTable::capacity(node_slots));
        if self.grow_index.swap(false, Ordering::Relaxed) {
            return self.grow_index_of(&mut table);
        }
        Phase::Expand
    }

    /// The ids the threads reserved but had not used at the last barrier:
    /// they hold no published state.
    fn unused_reserves(&self) -> Vec<Range<StateId>> {
        self.handovers
            .iter()
            .map(|handover| {
                handover
                    .lock()
                    .expect("no panics while locked")
                    .reserve
                    .clone()
            })
            .filter(|reserve| !reserve.is_empty())
            .collect()
    }

    /// Calls the progress callback with the threads' published totals.
    fn report_progress(&self) {
        let Some(progress) = &self.search.progress else {
            return;
        };
        let (states, transitions) = self.counters.iter().fold((1, 0), |(s, t), c| {
            (
                s + c.states.load(Ordering::Relaxed),
                t + c.transitions.load(Ordering::Relaxed),
            )
        });
        progress(&Progress {
            states,
            transitions,
            depth: self.depth.load(Ordering::Relaxed),
            elapsed: self.start.elapsed(),
        });
    }
}

/// The ids `ids` outside the `unused` ranges (which lie within them), as
/// runs.
fn published(ids: Range<StateId>, mut unused: Vec<Range<StateId>>) -> Vec<Range<StateId>> {
    unused.sort_by_key(|gap| gap.start);
    let mut runs = Vec::with_capacity(unused.len() + 1);
    let mut at = ids.start;
    for gap in unused {
        if gap.start > at {
            runs.push(at..gap.start);
        }
        at = at.max(gap.end);
    }
    if at < ids.end {
        runs.push(at..ids.end);
    }
    runs
}

/// Share `part` of `parts` (as equal as can be) of the ids in `runs`, as
/// runs.
fn share(
    runs: &[Range<StateId>],
    part: usize,
    parts: usize,
) -> impl Iterator<Item = Range<StateId>> {
    let total: u64 = runs.iter().map(|run| run.end - run.start).sum();
    let from = total * part as u64 / parts as u64;
    let to = total * (part as u64 + 1) / parts as u64;
    let mut before = 0;
    runs.iter().filter_map(move |run| {
        let (first, end) = (before, before + (run.end - run.start));
        before = end;
        let (low, high) = (first.max(from), end.min(to));
        (low < high).then(|| run.start + (low - first)..run.start + (high - first))
    })
}

/// `runs` of state ids cut into chunks for `threads`, in decreasing sizes:
/// each chunk holds 1 / ([`CHUNK_SHARE`] * threads) of the states after
/// its start (within [`CHUNK_MIN`] and [`CHUNK_MAX`]), so that chunks are
/// claimed rarely early in a level and the last ones are small: a thread
/// that takes the last chunk keeps the others waiting at the level's
/// barrier for little time.
fn chunks(runs: Vec<Range<StateId>>, threads: usize) -> Vec<Range<StateId>> {
    let mut remaining: u64 = runs.iter().map(|r| r.end - r.start).sum();
    let mut chunks = Vec::with_capacity(runs.len() + 2 * CHUNK_SHARE * threads);
    for run in runs {
        let mut start = run.start;
        while start < run.end {
            let size = (remaining / (CHUNK_SHARE * threads) as u64).clamp(CHUNK_MIN, CHUNK_MAX);
            let end = run.end.min(start + size);
            chunks.push(start..end);
            remaining -= end - start;
            start = end;
        }
    }
    chunks
}

/// How expanding one state ended.
enum Expansion {
    /// Every successor was looked up; the state is counted.
    Done,
    /// A new successor found no room (no state id or, stored as a tree, no
    /// node left): the table must grow, and the state be expanded again
    /// after.
    NeedsRoom,
    /// The state limit was reached; the search stops.
    Stopped,
}

/// One thread's private state.
struct Worker<'s, 'a> {
    shared: &'s Shared<'a>,
    generator: SuccessorGenerator<'a>,
    /// The vector being expanded.
    state: Vec<u32>,
    /// Working memory for tree storage: the node values of `state`, the
    /// base of its successors' trees.
    scratch: TreeScratch,
    /// Nodes this thread may still put into the node table before it
    /// takes more from the shared allowance.
    node_credits: u64,
    /// Runs of ids of the new states for the next level.
    next: Vec<Range<StateId>>,
    /// Ids reserved for this thread and not used yet.
    reserve: Range<StateId>,
    /// The successors of the state being expanded, one after the other.
    successors: Vec<u32>,
    /// Hash and error flag of each of `successors`.
    found: Vec<(u64, bool)>,
    /// The predecessors of the states this thread stored (with traces).
    parents: Option<ParentLog>,
    stats: Stats,
}

impl Worker<'_, '_> {
    /// Expands state `id`: stores its new successors, queues those that
    /// are not error states, and, once every successor has been looked up,
    /// counts its transitions and checks it for deadlock. All successors
    /// are generated (and their buckets prefetched) before the first
    /// lookup.
    #[inline]
    fn expand(&mut self, table: &StateTable, id: StateId) -> Expansion {
        let Worker {
            shared,
            generator,
            state,
            scratch,
            node_credits,
            next,
            reserve,
            successors,
            found,
            parents,
            stats,
        } = self;
        table.store.read_with(id, state, scratch);
        successors.clear();
        found.clear();
        let expansion = generator.for_each_merged(state, |successor| {
            let hash = hash_words(successor.state);
            table.index.prefetch(hash);
            successors.extend_from_slice(successor.state);
            found.push((hash, successor.error));
        });
        for (successor, &(hash, error)) in successors.chunks_exact(state.len()).zip(found.iter()) {
            let credit = &mut || shared.node_credit(node_credits);
            let Some(record) = table
                .store
                .record_of(successor, Some(state), scratch, credit)
            else {
                return Expansion::NeedsRoom;
            };
            let lookup = table.find_or_insert(record, hash, || {
                if reserve.is_empty() {
                    *reserve = shared.ids.reserve()?;
                }
                Some(reserve.start)
            });
            match lookup {
                Lookup::Found(_) => {}
                Lookup::Inserted(child) => {
                    debug_assert_eq!(child, reserve.start);
                    reserve.start += 1;
                    stats.states += 1;
                    if let Some(log) = parents {
                        log.record(child, id);
                    }
                    if error {
                        stats.errors += 1;
                        let error = shared
                            .net
                            .error_in(successor)
                            .expect("a successor flagged as error contains an error state");
                        shared.record(FindingKind::Error(error), child);
                    } else {
                        match next.last_mut() {
                            Some(run) if run.end == child => run.end += 1,
                            _ => next.push(child..child + 1),
                        }
                    }
                }
                Lookup::Refused => {
                    if shared.ids.state_limit_reached() {
                        shared.state_limit.store(true, Ordering::Relaxed);
                        shared.stop.store(true, Ordering::Relaxed);
                        return Expansion::Stopped;
                    }
                    return Expansion::NeedsRoom;
                }
            }
        }
        stats.transitions += expansion.successors;
        stats.monitor_blocked += expansion.monitor_blocked;
        if expansion.successors == 0 && shared.search.check_deadlock {
            stats.deadlocks += 1;
            shared.record(FindingKind::Deadlock, id);
        }
        Expansion::Done
    }

    /// Publishes this thread's totals for progress reports.
    fn publish_counters(&self, id: usize) {
        let counters = &self.shared.counters[id];
        counters.states.store(self.stats.states, Ordering::Relaxed);
        counters
            .transitions
            .store(self.stats.transitions, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_ids_leave_out_the_unused_reserves() {
        let unused = vec![20..24, 4..8, 6..10, 30..32];
        assert_eq!(published(0..32, unused), vec![0..4, 10..20, 24..30]);
        assert_eq!(published(0..5, vec![]), vec![0..5]);
        assert_eq!(published(0..3, vec![0..2, 1..3]), Vec::<Range<u64>>::new());
        // From a first id past 2^32.
        let first = 1 << 33;
        assert_eq!(
            published(
                first..first + 10,
                vec![first + 9..first + 10, first + 2..first + 4]
            ),
            vec![first..first + 2, first + 4..first + 9]
        );
    }

    #[test]
    fn kept_store_finds_every_published_state_after_growths() {
        let model = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/mcc/Raft-PT-02/model.pnml"
        );
        let net = EncodedNetwork::new(&crate::frontend::load(model.as_ref()).unwrap()).unwrap();
        let search = SearchOptions {
            keep_going: true,
            ..SearchOptions::default()
        };
        let opts = CpuOptions { threads: 4 };
        // Ids from just below 2^32: the index grows from narrow entries to
        // wide ones.
        let first_id = NARROW_IDS_END - 1000;
        let start = TableStart {
            slots: 16,
            first_id,
        };
        let (exploration, stored) =
            search_from(&net, &search, Team::of(&opts), start, Instant::now());
        assert_eq!(exploration.states, 7381);
        assert_eq!(stored.table.index.entry_bytes(), WIDE_ENTRY_BYTES);
        let ids: Vec<u64> = stored.published().iter().cloned().flatten().collect();
        assert_eq!(ids.len(), 7381);
        assert_eq!(ids[0], first_id);
        assert!(ids[7380] > 1 << 32);
        // The store's memory is that of the ids from the first one on.
        let records = stored.table.store.records();
        let index = stored.table.index.bytes();
        assert!(exploration.memory_bytes < index + 2 * 7381 * records.record_bytes() + (1 << 20));
        let mut vector = vec![0; stored.words()];
        stored.read(first_id, &mut vector);
        assert_eq!(vector, net.initial);
        let mut scratch = TreeScratch::new(stored.words());
        for id in ids {
            stored.read(id, &mut vector);
            assert_eq!(stored.id_of(&vector, &mut scratch), Some(id));
        }
    }

    #[test]
    fn chunks_shrink_towards_the_end_of_a_level() {
        // 10000 states for 2 threads: a chunk holds an eighth of what is
        // left (10000 / 8 = 1250, capped at 1024; then 8976 / 8 = 1122,
        // capped; then 7952 / 8 = 994, 6958 / 8 = 869, ...), at least 16.
        let level = std::iter::once(0..10_000).collect();
        let cut = chunks(level, 2);
        assert_eq!(cut[..4], [0..1024, 1024..2048, 2048..3042, 3042..3911]);
        assert_eq!(cut[cut.len() - 3..], [9967..9983, 9983..9999, 9999..10_000]);
        assert_eq!(cut.len(), 42);
        let ids: Vec<u64> = cut.iter().cloned().flatten().collect();
        assert_eq!(ids, (0..10_000).collect::<Vec<u64>>());
        // Chunks never span two runs.
        assert_eq!(chunks(vec![0..3, 10..12], 4), vec![0..3, 10..12]);
    }

    #[test]
    fn shares_cover_every_id_once() {
        let runs = vec![0..4, 10..20, 24..30];
        for parts in 1..=8 {
            let ids: Vec<u64> = (0..parts)
                .flat_map(|part| share(&runs, part, parts))
                .flatten()
                .collect();
            let expected: Vec<u64> = runs.iter().cloned().flatten().collect();
            assert_eq!(ids, expected, "{parts} parts");
        }
        // 20 ids: the second half starts at the 11th, id 16.
        assert_eq!(share(&runs, 1, 2).collect::<Vec<_>>(), vec![16..20, 24..30]);
    }
}
