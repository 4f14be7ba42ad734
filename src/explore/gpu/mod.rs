//! The GPU explorer: GPUexplore's on-the-fly exploration (Wijs & Bošnački)
//! in CUDA, on a [`Device`] of the shared GPU runtime. The kernels
//! (`kernels/explore/`) are compiled by NVRTC for the device's own
//! architecture, with the network's shape (vector words, group size) baked
//! in as constants ([`kernel`]); compiled kernels are cached per shape by
//! the device.
//!
//! The search is breadth-first and level-synchronous: one global hash table
//! of 32-word buckets stores every vector (with its predecessor's slot when
//! traces are on), and the winner of each insertion appends the new slot to
//! the next frontier. After a complete search, read-only passes over the
//! table number the states and build the state space as a CSR graph on the
//! device ([`explore_on_device`]), or push it into a sink ([`explore_into`]).
//! See `docs/GPU.md` for the design and the reasoning about insertion races.

mod compact;
mod device_net;
mod graph;
pub mod kernel;
mod nodes;
mod partitioned;
mod rendezvous;
mod rules;
mod search;
mod tree;

use std::time::Instant;

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use crate::encode::EncodedNetwork;
pub use crate::encode::OwnerChoice;
use crate::error::Error;
use crate::explicit::GraphSink;
use crate::explore::livelock::{self, StateSpace, StateVectors};
use crate::explore::{Completion, Exploration, SearchOptions, Storage, outcome};
use crate::gpu::{Device, GpuError};
pub use graph::{DeviceGraph, TableGraph};
pub use partitioned::{RankJob, explore_partitioned, explore_rank, nccl_available, partition_of};
pub use search::DEFAULT_INITIAL_TABLE;

/// How the kernels read the encoded network. Textures are the default:
/// they took less search time than `__ldg` on every model measured
/// (docs/GPU.md, "Read-only path").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadOnlyPath {
    /// Texture objects over linear memory (the texture cache path); falls
    /// back to [`ReadOnlyPath::Ldg`] when an array is longer than the
    /// device's linear textures allow.
    #[default]
    Texture,
    /// Through the read-only data cache (`__ldg`).
    Ldg,
    /// Ordinary global loads.
    Plain,
}

/// How a level's new states are handed to the next level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Frontier {
    /// The inserting warp appends the new slot to a queue (4 bytes a
    /// state of the level); a level expands exactly its queue.
    #[default]
    Queue,
    /// GPUexplore's "new" marks, Open and Visited in one table: a bit per
    /// slot marks the new states, and each level scans the whole bitmap
    /// for them. Three bitmaps rotate: a level reads one, marks the next
    /// and clears the third.
    NewMarks,
    /// A queue that spills: in a table that never grows (the largest, or
    /// the one the last roomy table moves into through host memory) it
    /// holds 1/32 of the slots, and a level's states beyond that are
    /// marked in a bitmap (two, by level parity, 2 bits a slot in all),
    /// which the next level walks after its queue; in a table that may
    /// still grow it is a queue as `Queue`'s. Tree storage's frontier in a
    /// search of one piece: faster than bitmaps, in 0.75 byte a slot.
    SpillingQueue,
}

/// How many bits number the table's slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SlotNumbers {
    /// 64 bits when the largest table the memory allows has more than
    /// 2^32 - 1 slots, else 32.
    #[default]
    Auto,
    /// Always 64 bits (to measure what they cost).
    Wide,
    /// Always 32 bits: the table has at most 2^32 - 1 slots.
    Narrow,
}

/// How the owner of a synchronising rule finds the other participants'
/// entries for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyncCombination {
    /// Direct look-up rows (rule, participant, local state) -> entries, in
    /// read-only memory: no synchronisation between threads.
    #[default]
    Lookup,
    /// GPUexplore's buffers: each thread lists the rules its process offers
    /// in the state in shared memory; the owner reads the others' lists
    /// after a `__syncwarp`. Needs one thread per process (at most 32
    /// processes).
    SharedBuffers,
}

/// Tuning of the GPU search. `None` fields get defaults from the device's
/// properties; the switches exist to measure each part of the design.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuOptions {
    /// Blocks of the grid (default: as many as can be resident at once).
    pub blocks: Option<u32>,
    /// Threads per block, a multiple of 32 (default 256, fewer when the
    /// per-warp shared memory needs it).
    pub threads_per_block: Option<u32>,
    /// Breadth-first levels per kernel launch (default 32).
    pub iterations: Option<u32>,
    /// Threads of a vector group, which expands one state: a power of two
    /// up to 32 (default: enough for one process a thread, at most 32).
    /// Fewer threads than processes give each thread several processes and
    /// a warp more states at once.
    pub group_threads: Option<u32>,
    /// Per-warp cache of recently inserted vectors in shared memory.
    pub cache: bool,
    /// Warps claim frontier chunks through an atomic cursor (otherwise a
    /// fixed round-robin split).
    pub work_claiming: bool,
    /// How the encoded network is read.
    pub readonly_path: ReadOnlyPath,
    /// How new states reach the next level.
    pub frontier: Frontier,
    /// Which participant of a rule combines it.
    pub owners: OwnerChoice,
    /// How the owner finds the other participants' entries.
    pub sync: SyncCombination,
    /// Edges written and copied back at once when the state space is
    /// pushed into a sink ([`explore_into`]; default 2^24, or a state's
    /// edges if it has more): fewer take less device memory.
    pub graph_batch_edges: Option<u64>,
    /// Bytes of the table a search starts with (default 64 MiB, or all
    /// the memory allowed when that is less). The table grows fourfold
    /// whenever a level might fill half of it, up to the memory allowed.
    pub initial_table_bytes: Option<u64>,
    /// Width of slot numbers.
    pub slot_numbers: SlotNumbers,
    /// Every growth of the table goes through host memory, as only the
    /// last one does by default (to measure and test that path).
    pub staged_growth: bool,
    /// Tree storage keeps its roots compact (`compact.cuh`: 47 bits by
    /// quotienting) where the table has room for the buckets that needs;
    /// otherwise, or when false, as pairs of 32-bit words.
    pub compact_roots: bool,
    /// Messages each outbox region of a partitioned search holds (default:
    /// an eighth of a partition's memory for its outboxes and inbox,
    /// between 2^16 and 2^28 messages a region). Small ones make levels
    /// run in several rounds (to test that path).
    pub outbox_messages: Option<u64>,
    /// Entries of each spilling queue of a table that is not roomy
    /// (default: 1/32 of the slots of a table that never grows, a quarter
    /// in one that may). Small ones make levels spill (to test that path).
    pub queue_entries: Option<u64>,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            blocks: None,
            threads_per_block: None,
            iterations: None,
            group_threads: None,
            cache: true,
            work_claiming: true,
            readonly_path: ReadOnlyPath::Texture,
            frontier: Frontier::Queue,
            owners: OwnerChoice::MostSelective,
            sync: SyncCombination::Lookup,
            graph_batch_edges: None,
            initial_table_bytes: None,
            slot_numbers: SlotNumbers::Auto,
            staged_growth: false,
            compact_roots: true,
            outbox_messages: None,
            queue_entries: None,
        }
    }
}

/// The result of a GPU search: the common figures plus the GPU's own.
#[derive(Debug, Clone)]
pub struct GpuExploration {
    /// States, transitions, verdicts, as every engine reports them.
    pub exploration: Exploration,
    /// Bytes of the hash table at the end.
    pub table_bytes: u64,
    /// Bytes the table could grow to: `--memory`, or most of the free
    /// memory of the device.
    pub budget: u64,
    /// Bits of a slot number: 32, or 64 when the table may grow beyond
    /// 2^32 - 1 slots.
    pub slot_bits: u32,
    /// The memory would hold more slots than 32-bit slot numbers reach,
    /// so the numbers capped the table.
    pub capped_by_numbers: bool,
    /// Times the table grew.
    pub growths: u32,
    /// Growths that staged the old table through host memory, so that the
    /// new one could take its place.
    pub staged_growths: u32,
    /// Levels that filled the table before it grew and ran again.
    pub rerun_levels: u32,
    /// Time spent growing the table (part of `exploration.elapsed`).
    pub growth_time: std::time::Duration,
    /// Fraction of table slots in use at the end.
    pub table_fill: f64,
    /// States the largest table the budget allows can hold.
    pub capacity: u64,
    /// States the same memory would hold without predecessor links
    /// (`--no-trace`): what traces cost.
    pub capacity_without_traces: u64,
    /// Tree nodes stored (tree storage; 0 otherwise).
    pub nodes: u64,
    /// Nodes the node table holds at the end (0 without tree storage).
    pub node_capacity: u64,
    /// Generations the node table grew to (0 without tree storage).
    pub node_generations: usize,
    /// The search ended because the node table was full.
    pub nodes_full: bool,
    /// Tree storage kept its root pairs compact (`compact.cuh`: 47 bits a
    /// root, by quotienting): the table had room for the buckets that
    /// needs.
    pub compact_roots: bool,
    /// With `--storage auto`: the states the plain table held when it
    /// filled, and the time that took, before the search ran again with
    /// tree storage (that time is part of `exploration.elapsed`).
    pub plain_attempt: Option<(u64, std::time::Duration)>,
    /// Extra expansions in percent of states (states expanded more than
    /// once); the frontier queue makes this 0 by construction.
    pub redundancy: f64,
    /// Kernel launches.
    pub launches: u64,
    /// Time before the search proper: kernel compilation (first use of a
    /// network shape), allocation and clearing of the table. Not part of
    /// `exploration.elapsed`.
    pub setup: std::time::Duration,
    /// How a partitioned search ([`explore_partitioned`]) split the work;
    /// `None` for a search on one table.
    pub partitioning: Option<Box<Partitioning>>,
}

/// The figures of a partitioned search: how the states were split and what
/// the partitions sent each other.
#[derive(Debug, Clone, PartialEq)]
pub struct Partitioning {
    /// Devices the partitions ran on.
    pub devices: usize,
    /// How successors travelled: `"NCCL"`, or `"device copies"` for
    /// partitions of one GPU.
    pub exchange: &'static str,
    /// States each partition stored.
    pub states: Vec<u64>,
    /// Successors sent to the partition that owns them.
    pub messages: u64,
    /// Bytes those messages took.
    pub bytes: u64,
    /// Time the partitions spent expanding their frontiers, from the
    /// launches to the end of the slowest (part of `exploration.elapsed`).
    pub expanding: std::time::Duration,
    /// Time spent moving the messages, from the end of the expansions to
    /// the arrival of the last chunk (owners store the chunks that have
    /// arrived meanwhile; part of `exploration.elapsed`).
    pub moving: std::time::Duration,
    /// Time the owners spent storing what they received after the last
    /// chunk arrived, to the end of the slowest (part of
    /// `exploration.elapsed`).
    pub storing: std::time::Duration,
    /// Exchanges: one a level, more where outboxes filled mid-level.
    pub rounds: u64,
    /// Messages an outbox region holds.
    pub outbox_messages: u64,
    /// An outbox overflowed (the search is incomplete).
    pub outbox_full: bool,
}

impl GpuExploration {
    /// The result of a search that never reached the device (its initial
    /// state is an error state).
    fn without_search(exploration: Exploration) -> GpuExploration {
        GpuExploration {
            exploration,
            table_bytes: 0,
            budget: 0,
            slot_bits: 32,
            capped_by_numbers: false,
            growths: 0,
            staged_growths: 0,
            rerun_levels: 0,
            growth_time: std::time::Duration::ZERO,
            table_fill: 0.0,
            capacity: 0,
            capacity_without_traces: 0,
            nodes: 0,
            node_capacity: 0,
            node_generations: 0,
            nodes_full: false,
            compact_roots: false,
            plain_attempt: None,
            redundancy: 0.0,
            launches: 0,
            setup: std::time::Duration::ZERO,
            partitioning: None,
        }
    }
}

/// Explores `net` on `device`. Incomplete searches say so through
/// [`Exploration::completion`] (e.g. `TableFull`), never by a verdict.
pub fn explore(
    device: &Device,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
) -> Result<GpuExploration, GpuError> {
    Ok(match start(device, net, search, options, true)? {
        Started::InitialError(exploration) => GpuExploration::without_search(exploration),
        Started::Searched(result, _) => result,
    })
}

/// Explores `net` on `device` (as [`explore`] does) and then, after a
/// complete search, pushes every transition into `sink` from read-only
/// passes over the final table, with states numbered densely (0 is the
/// initial state, the others in table order), and finishes the sink. The
/// passes' counts must equal the search's, else an internal error.
pub fn explore_into(
    device: &Device,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
    sink: &mut dyn GraphSink,
) -> Result<GpuExploration, Error> {
    match start(device, net, search, options, false)? {
        Started::InitialError(exploration) => Ok(GpuExploration::without_search(
            outcome::alone_into(exploration, sink)?,
        )),
        Started::Searched(result, table) => {
            if result.exploration.completion == Completion::Complete {
                graph::push_edges(device, &table, &result.exploration, options, sink)?;
            }
            Ok(result)
        }
    }
}

/// A complete search's state space, left on the device.
pub enum SpaceOnDevice {
    /// Stored as a CSR graph (a search that ended at its initial state).
    Stored(DeviceGraph),
    /// Numbered in the search's table, the edges not yet written.
    InTable(Box<TableGraph>),
}

/// Explores `net` on `device` (as [`explore`] does) and, after a complete
/// search, keeps its state space on the device, numbered as
/// [`explore_into`] numbers it (`None` for an incomplete search).
pub fn explore_on_device(
    device: &Device,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
) -> Result<(GpuExploration, Option<SpaceOnDevice>), Error> {
    Ok(match start(device, net, search, options, false)? {
        Started::InitialError(exploration) => {
            let complete = exploration.completion == Completion::Complete;
            let graph = complete.then(|| DeviceGraph::single_state(device));
            let space = graph.transpose()?.map(SpaceOnDevice::Stored);
            (GpuExploration::without_search(exploration), space)
        }
        Started::Searched(result, table) => {
            let space = (result.exploration.completion == Completion::Complete)
                .then(|| TableGraph::new(device, table, &result.exploration))
                .transpose()?
                .map(|table| SpaceOnDevice::InTable(Box::new(table)));
            (result, space)
        }
    })
}

/// Explores `net` on `device` (as [`explore`] does) and, after a complete
/// search, downloads its state space, numbered as [`explore_into`] numbers
/// it, keeping the table on the device to read the vectors of numbered
/// states from (`None` for an incomplete search): what the livelock check
/// reads.
pub fn explore_space(
    device: &Device,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
) -> Result<(GpuExploration, Option<StateSpace>), Error> {
    match start(device, net, search, options, false)? {
        Started::InitialError(exploration) => {
            let (exploration, space) = livelock::alone(net, exploration)?;
            Ok((GpuExploration::without_search(exploration), space))
        }
        Started::Searched(result, table) => {
            if result.exploration.completion != Completion::Complete {
                return Ok((result, None));
            }
            let (graph, slot_of) =
                graph::download_numbered(device, &table, &result.exploration, net.actions.clone())?;
            let vectors = TableVectors {
                device: device.clone(),
                table,
                slot_of,
            };
            Ok((
                result,
                Some(StateSpace {
                    graph,
                    vectors: Box::new(vectors),
                }),
            ))
        }
    }
}

/// The table of a complete search and the slot of every state number:
/// reads the vectors of numbered states from the device.
struct TableVectors {
    device: Device,
    table: Box<search::SearchTable>,
    slot_of: CudaSlice<u32>,
}

impl StateVectors for TableVectors {
    fn vectors(&self, states: &[u32]) -> Result<Vec<Vec<u32>>, Error> {
        let words = self.table.geometry.words;
        states
            .iter()
            .map(|&state| {
                let at = state as usize;
                if at >= self.slot_of.len() {
                    return Err(Error::Internal(format!(
                        "state {state} is not a state of the graph"
                    )));
                }
                let slot = self.device.download(&self.slot_of.slice(at..at + 1))?[0];
                let mut stored = search::read_slot(
                    &self.device,
                    &self.table.table,
                    &self.table.geometry,
                    u64::from(slot),
                )?;
                stored.truncate(words);
                Ok(stored)
            })
            .collect()
    }
}

/// With `--storage auto`, vectors of at least this many words first try
/// the plain table in only a [`WIDE_PLAIN_SHARE`]th of the memory: a plain
/// slot takes 4 bytes a word, a tree a few a state (docs/GPU.md, "Tree
/// storage"), so a state space that outgrows that share is stored as trees
/// after little wasted work, and a small one runs plain, at full speed and
/// without a node table. A split search
/// (`partitioned`), which does not run again, stores them as trees from
/// the start.
const AUTO_TREE_WORDS: usize = 16;
/// The share of the memory (its reciprocal) in which `auto` tries a plain
/// table of vectors of [`AUTO_TREE_WORDS`] or more.
const WIDE_PLAIN_SHARE: u64 = 8;
/// Vectors of fewer words gain nothing from trees (a root pair is two
/// words): `auto` keeps them plain even when the table fills.
const MIN_TREE_WORDS: usize = 3;

/// How a search began: without the device, when the initial state is an
/// error state (the rules of [`outcome::initial_error`]), or on it.
enum Started {
    InitialError(Exploration),
    Searched(GpuExploration, Box<search::SearchTable>),
}

/// Runs the search of [`explore`], keeping its table; with 64-bit slot
/// numbers where the table needs them if `wide_allowed` (the passes that
/// number a table's states after the search read 32-bit ones).
fn start(
    device: &Device,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
    wide_allowed: bool,
) -> Result<Started, GpuError> {
    let started = Instant::now();
    Ok(
        match outcome::initial_error(net, search, engine_name(device), started) {
            Some(exploration) => Started::InitialError(exploration),
            None => {
                let tree = match (search.storage, wide_allowed) {
                    (Storage::Tree, false) => {
                        return Err(GpuError::Invalid(
                            "tree storage is not available where the states are numbered \
                             after the search (scc, --livelock, --write-aut): use --storage \
                             plain or auto"
                                .into(),
                        ));
                    }
                    (Storage::Tree, true) => true,
                    (Storage::Plain | Storage::Auto, _) => false,
                };
                let may_retry = search.storage == Storage::Auto
                    && wide_allowed
                    && net.words() >= MIN_TREE_WORDS;
                let first_search = if may_retry && net.words() >= AUTO_TREE_WORDS {
                    let budget = search::memory_budget(device, search)?;
                    SearchOptions {
                        memory_bytes: Some(budget / WIDE_PLAIN_SHARE),
                        ..search.clone()
                    }
                } else {
                    search.clone()
                };
                let (result, table) = search::run(
                    device,
                    net,
                    &first_search,
                    &for_storage(options, tree, false),
                    wide_allowed,
                    tree,
                )?;
                let retry = may_retry && result.exploration.completion == Completion::TableFull;
                if retry {
                    tracing::info!(
                        "the plain GPU table filled at {} states in {}; running again with \
                         tree storage",
                        result.exploration.states,
                        crate::report::human_bytes(result.exploration.memory_bytes)
                    );
                    drop(table);
                    let options = for_storage(options, true, false);
                    let (mut again, table) =
                        search::run(device, net, search, &options, true, true)?;
                    let plain = &result.exploration;
                    again.exploration.elapsed += plain.elapsed;
                    again.plain_attempt = Some((plain.states, plain.elapsed));
                    Started::Searched(again, Box::new(table))
                } else {
                    Started::Searched(result, Box::new(table))
                }
            }
        },
    )
}

/// `options` for a search that stores its states as trees (`tree`) or
/// not, in one piece or split into partitions (`split`). Tree storage
/// does not keep plain queues (a quarter of the slots each, 4 bytes a
/// slot with 64-bit slot numbers against 6.1 for a compact root): a
/// search in one piece keeps a spilling queue (0.75 byte a slot), a split
/// one bitmaps of new marks (3 bits a slot), as trees did before
/// (docs/GPU.md, "Tree storage"). A split search has no spilling queue.
pub(super) fn for_storage(options: &GpuOptions, tree: bool, split: bool) -> GpuOptions {
    let frontier = match (options.frontier, tree, split) {
        (Frontier::Queue | Frontier::SpillingQueue, true, true) => Frontier::NewMarks,
        (Frontier::Queue, true, false) => Frontier::SpillingQueue,
        (Frontier::SpillingQueue, false, true) => Frontier::Queue,
        (frontier, _, _) => frontier,
    };
    GpuOptions {
        frontier,
        ..options.clone()
    }
}

/// The kernels' hash of each vector of `vectors` (`words` words each),
/// computed on `device`: what the golden-value test of the hash compares
/// with [`crate::encode::hash_words`].
pub fn device_hashes(device: &Device, vectors: &[u32], words: usize) -> Result<Vec<u64>, GpuError> {
    let count = vectors.len() / words.max(1);
    let input = device.upload(vectors)?;
    let mut hashes = device.alloc_zeroed::<u64>(count)?;
    let params = kernel::HashCheckParams {
        vectors: device.address(&input),
        count: count as u64,
        hashes: device.address_mut(&mut hashes),
    };
    let function = device.function(&kernel::hash_check_build(words), "hash_vectors")?;
    let mut launch = device.stream().launch_builder(&function);
    launch.arg(&params);
    // SAFETY: the block matches the kernel's; the arrays hold `count`
    // vectors and hashes.
    unsafe { launch.launch(LaunchConfig::for_num_elems(count.max(1) as u32)) }
        .map_err(GpuError::driver("hashing vectors"))?;
    let mut hashes = device.download(&hashes)?;
    hashes.truncate(count);
    Ok(hashes)
}

/// The explorer's name in reports.
fn engine_name(device: &Device) -> String {
    format!("gpu: {}", device.description())
}
