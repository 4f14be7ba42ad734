//! The explorer's kernels as the host sees them: their sources, the
//! constants and parameter blocks they share with the host, and the
//! variants they are compiled in. Every `-D` name a kernel reads is spelled
//! here once.

use super::search::{FOUND_KIND_SHIFT, GROWTH_HEADROOM};
use super::{Frontier, ReadOnlyPath, SyncCombination};
use crate::gpu::{Build, COMMON_HEADERS, KernelFile, KernelSource};
use crate::{kernel_constants, kernel_file, param_block};

/// Headers of `kernels/explore/`.
const HEADERS: &[KernelFile] = &[
    kernel_file!("explore/network.cuh"),
    kernel_file!("explore/params.cuh"),
    kernel_file!("explore/readonly.cuh"),
    kernel_file!("explore/table.cuh"),
    kernel_file!("explore/slot.cuh"),
    kernel_file!("explore/tree.cuh"),
    kernel_file!("explore/compact.cuh"),
];

/// Headers of the search's module beyond [`HEADERS`]: the kernels that
/// move a search into a larger table (`grow.cuh`) and their parameters.
const GROW_HEADERS: &[KernelFile] = &[
    kernel_file!("explore/grow.cuh"),
    kernel_file!("explore/grow_params.cuh"),
];

/// The search kernel (`explore_levels`) and the growth kernels, in one
/// module.
pub const SEARCH_SOURCE: KernelSource = KernelSource {
    main: kernel_file!("explore/search.cu"),
    headers: &[
        HEADERS[0],
        HEADERS[1],
        HEADERS[2],
        HEADERS[3],
        HEADERS[4],
        HEADERS[5],
        HEADERS[6],
        GROW_HEADERS[0],
        GROW_HEADERS[1],
    ],
};

/// The passes that number a finished search's states and build its graph
/// (or decompose it into SCCs without storing its edges).
pub const GRAPH_SOURCE: KernelSource = KernelSource {
    main: kernel_file!("explore/graph.cu"),
    headers: &[
        HEADERS[0],
        HEADERS[1],
        HEADERS[2],
        HEADERS[3],
        HEADERS[4],
        crate::scc::gpu::COLORING_HEADER,
    ],
};

/// A test kernel that hashes vectors with the kernels' hash, so that a
/// test can compare it with the host's (`kernels/common/hash_check.cu`).
pub const HASH_CHECK_SOURCE: KernelSource = KernelSource {
    main: kernel_file!("common/hash_check.cu"),
    headers: &[],
};

/// Every kernel file, for checks that want them all.
pub fn all_files() -> impl Iterator<Item = &'static KernelFile> {
    [
        SEARCH_SOURCE.main,
        GRAPH_SOURCE.main,
        HASH_CHECK_SOURCE.main,
    ]
    .iter()
    .chain(HEADERS)
    .chain(GROW_HEADERS)
    .chain(COMMON_HEADERS)
}

kernel_constants! {
    /// Indices into the search's array of `u64` statistics.
    pub mod stat: usize = "ST_" {
        /// States stored.
        STATES = 0;
        /// Transitions of expanded states.
        TRANSITIONS = 1;
        /// Deadlock states found.
        DEADLOCKS = 2;
        /// Error states found.
        ERRORS = 3;
        /// Firings blocked by the property monitor.
        MONITOR_BLOCKED = 4;
        /// Why the search stops: 0, or one of [`super::stop`].
        STOP = 5;
        /// The first finding: its kind ([`super::found`]) shifted left by
        /// `FOUND_KIND_SHIFT`, or'ed with its slot; or all ones.
        FOUND = 6;
        /// Breadth-first depth reached.
        DEPTH = 7;
        /// Blocks arrived at the grid barrier.
        BAR_COUNT = 8;
        /// Generation of the grid barrier.
        BAR_GEN = 9;
        /// Levels finished (where the next launch starts).
        LEVELS_DONE = 10;
        /// Set by the last block at a barrier when the search ends.
        DECISION = 11;
        /// States stored before the current level.
        PREV_STATES = 12;
        /// States expanded (redundant expansions included).
        EXPANDED = 13;
        /// Like `FOUND`, for the first finding that ends even a `--all` search.
        FOUND_FATAL = 14;
        /// Three rotating frontier lengths, by level modulo 3.
        LEN = 16;
        /// Three rotating work-claiming cursors.
        CURSOR = 20;
        /// `TRANSITIONS` when the current level started.
        START_TRANSITIONS = 24;
        /// `DEADLOCKS` when the current level started.
        START_DEADLOCKS = 25;
        /// `EXPANDED` when the current level started.
        START_EXPANDED = 26;
        /// `MONITOR_BLOCKED` when the current level started.
        START_MONITOR_BLOCKED = 27;
        /// Tree nodes stored (tree storage).
        NODES = 28;
        /// Two work-claiming cursors over the spill bitmaps of a spilling
        /// queue, by level parity.
        SPILL_CURSOR = 29;
        /// Length of the array.
        WORDS = 31;
    }
}

kernel_constants! {
    /// Why the kernel stopped (`stat::STOP`).
    pub mod stop: u64 = "STOP_" {
        /// A finding ends the search.
        FINDING = 1;
        /// An insertion found no free slot.
        TABLE_FULL = 2;
        /// A frontier queue overflowed.
        QUEUE_FULL = 3;
        /// The newest generation of the node table of tree storage is full.
        NODES_FULL = 4;
        /// A partition's outbox overflowed (partitioned search).
        EXCHANGE_FULL = 5;
    }
}

kernel_constants! {
    /// Kinds of the finding in `stat::FOUND`.
    pub mod found: u64 = "FOUND_" {
        /// A state without successors.
        DEADLOCK = 1;
        /// A state with a process in an error state.
        ERROR = 2;
    }
}

param_block! {
    /// The encoded network's device arrays (texture handles in place of the
    /// first seven when the network is read through textures).
    pub struct NetworkParams {
        /// `[word, shift, mask, 0]` per process.
        pub fields: u64,
        /// First local state of each process in the per-state arrays.
        pub proc_offsets: u64,
        /// First item of each local state.
        pub item_offsets: u64,
        /// What each local state fires alone or owns.
        pub items: u64,
        /// `[label word, target word]` per entry.
        pub trans: u64,
        /// The other participants of each rule.
        pub others: u64,
        /// Entry ranges of a participant's rule by its local state.
        pub lookup: u64,
        /// `[process, state, fatal]` per error state.
        pub error_locals: u64,
        /// First entry of each local state (shared-memory combination only).
        pub state_offsets: u64,
        /// The process of each `others` row (shared-memory combination only).
        pub other_processes: u64,
        /// Error states.
        pub errors: u32,
        /// Processes.
        pub processes: u32,
    }
}

param_block! {
    /// One launch of the search kernel.
    pub struct SearchParams {
        /// The network.
        pub net: NetworkParams,
        /// The table of slots.
        pub table: u64,
        /// Buckets of the table.
        pub buckets: u64,
        /// Frontier queue of even levels (or the new-mark bitmap of levels
        /// 0 modulo 3).
        pub queue0: u64,
        /// Frontier queue of odd levels (or new-mark bitmap 1 modulo 3).
        pub queue1: u64,
        /// New-mark bitmap of levels 2 modulo 3, or a spilling queue's two
        /// spill bitmaps (null where there are none; unused with queues).
        pub queue2: u64,
        /// Entries of each queue, or words of each bitmap.
        pub queue_capacity: u64,
        /// The statistics ([`stat`]).
        pub stats: u64,
        /// The node table's generations (tree storage): three words each,
        /// the address of its entries, its buckets and its first index.
        pub nodes: u64,
        /// How many generations it has; the last takes new nodes.
        pub node_generations: u64,
        /// Stop once this many states are stored.
        pub max_states: u64,
        /// Stop before a level that might take the states beyond this
        /// (the host then grows the table).
        pub grow_at: u64,
        /// Stop before a level once this many tree nodes are stored (the
        /// host then adds a node generation).
        pub node_grow_at: u64,
        /// 1: a spill into `queue2` stops the level as a full table does
        /// (a table that may still grow; see `spill_grows` in `search.rs`).
        pub spill_grows: u64,
        /// The level the launch starts at.
        pub first_level: u32,
        /// Levels the launch may run.
        pub levels: u32,
        /// 1: count states without successors as deadlocks.
        pub check_deadlock: u32,
        /// 1: go on after findings that do not end every search.
        pub keep_going: u32,
        /// A partitioned search: the outbox, a region of `out_capacity`
        /// messages per other partition.
        pub outbox: u64,
        /// Messages sent to each region, then the flag that tells warps to
        /// stop taking frontier work (`u64` each).
        pub out_counts: u64,
        /// Messages a region holds.
        pub out_capacity: u64,
        /// A region this full raises the flag: the host exchanges the
        /// messages and the level goes on.
        pub out_soft: u64,
        /// This partition.
        pub partition: u32,
        /// How many partitions there are.
        pub partitions: u32,
    }
}

param_block! {
    /// One step of moving a search into a larger table (`grow.cu`).
    pub struct GrowParams {
        /// Whole buckets of the old table: the chunk being moved.
        pub source: u64,
        /// Old number of the chunk's first slot.
        pub first_slot: u64,
        /// Slots of the chunk.
        pub source_slots: u64,
        /// Buckets of the old table (compact roots are decoded by them).
        pub source_buckets: u64,
        /// The new table.
        pub table: u64,
        /// Its buckets.
        pub buckets: u64,
        /// Its slots.
        pub slots: u64,
        /// New slot of each of the chunk's slots.
        pub moved_to: u64,
        /// A bit per new slot: its link is renumbered.
        pub done: u64,
        /// Slot numbers to renumber.
        pub from: u64,
        /// Their new numbers.
        pub to: u64,
        /// Entries of `from` and `to`.
        pub count: u64,
        /// Entries `to` holds: the new numbers of those beyond are marked
        /// in `new_marks` instead (a spilling queue's new table).
        pub to_capacity: u64,
        /// New marks by old slot.
        pub old_marks: u64,
        /// New marks by new slot.
        pub new_marks: u64,
        /// Vectors not placed or not found again (stays 0).
        pub failed: u64,
    }
}

param_block! {
    /// The passes that turn a finished search's table into a numbered graph.
    pub struct GraphParams {
        /// The network.
        pub net: NetworkParams,
        /// Action id of each rule.
        pub rule_actions: u64,
        /// The table of slots.
        pub table: u64,
        /// Buckets of the table.
        pub buckets: u64,
        /// Slots of the table.
        pub slots: u64,
        /// A bit per slot: holds a state.
        pub occupied: u64,
        /// Occupied slots before each word of `occupied`.
        pub occupied_before: u64,
        /// The slot of each state number.
        pub slot_of: u64,
        /// First edge of each state (states + 1 entries).
        pub offsets: u64,
        /// Target state of each edge of the range being filled.
        pub targets: u64,
        /// Action id of each edge of the range being filled.
        pub labels: u64,
        /// Successors not found in the table (a counter that must stay 0).
        pub missing: u64,
        /// States of the table.
        pub states: u64,
        /// First state of the range being filled.
        pub first_state: u64,
        /// End of the range being filled.
        pub end_state: u64,
        /// The initial state's slot.
        pub initial_slot: u32,
        /// Rank of that slot among the occupied ones.
        pub initial_rank: u32,
        /// SCC colouring over generated edges: the labels, two per state.
        pub signatures: u64,
        /// Each state's key (`ASSIGNED` once assigned).
        pub keys: u64,
        /// The summary: each state's component.
        pub representative: u64,
        /// The summary bits at each representative.
        pub component_bits: u64,
        /// Blocks of a colouring pass in which a label grew.
        pub grew: u64,
    }
}

/// Buckets probed before an insertion gives up (table full); compact
/// roots count their probes in a few bits and stop sooner
/// (32: `compact.cuh`).
pub const MAX_PROBES: i64 = 128;

/// What every explorer kernel is compiled for: the table's layout and how
/// the network is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetworkKernel {
    /// Words of a state vector.
    pub vec_words: usize,
    /// Words of a table key: the vector, or its root pair with tree storage.
    pub key_words: usize,
    /// Words of a slot: the key, then the predecessor with traces.
    pub slot_words: usize,
    /// Slots in one bucket.
    pub slots_per_bucket: usize,
    /// 32-word lines in one bucket.
    pub bucket_lines: usize,
    /// Slot numbers of 64 bits (tables of more than `u32::MAX - 1` slots).
    pub wide_slots: bool,
    /// Tree storage's root pairs kept compact (`compact.cuh`): the slot
    /// layout is that file's, and `slot_words` is not read.
    pub compact: bool,
    /// Threads that expand one state together.
    pub group_threads: usize,
    /// How the network's arrays are read.
    pub read_path: ReadOnlyPath,
    /// The successor tables hold rule indexes: without them the kernel
    /// leaves out the walk of an index's cell.
    pub rule_indexes: bool,
    /// A rule may have more combinations in one state than 32 bits count:
    /// the generator counts them in 64 bits (two more registers).
    pub wide_combinations: bool,
}

impl NetworkKernel {
    /// The definitions of network.cuh, readonly.cuh and table.cuh.
    fn defines(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("VEC_WORDS", self.vec_words as i64),
            ("KEY_WORDS", self.key_words as i64),
            ("SLOT_WORDS", self.slot_words as i64),
            ("SLOTS_PER_BUCKET", self.slots_per_bucket as i64),
            ("BUCKET_LINES", self.bucket_lines as i64),
            ("WIDE_SLOTS", i64::from(self.wide_slots)),
            ("GROUP_THREADS", self.group_threads as i64),
            (
                "READ_PATH",
                match self.read_path {
                    ReadOnlyPath::Plain => 0,
                    ReadOnlyPath::Ldg => 1,
                    ReadOnlyPath::Texture => 2,
                },
            ),
            (
                "MAX_PROBES",
                if self.compact {
                    super::compact::MAX_PROBES as i64
                } else {
                    MAX_PROBES
                },
            ),
            ("COMPACT", i64::from(self.compact)),
            ("RULE_INDEXES", i64::from(self.rule_indexes)),
            ("WIDE_COMBINATIONS", i64::from(self.wide_combinations)),
        ]
    }

    /// The graph passes for this network and table (of whole vectors).
    pub fn graph_build(&self) -> Build {
        debug_assert_eq!(
            self.key_words, self.vec_words,
            "graph passes read plain tables"
        );
        Build::new(GRAPH_SOURCE)
            .defines(&self.defines())
            .defines(&[("SYNC_BUFFERS", 0), ("MAX_OFFERS", 1)])
            // Colouring over generated edges numbers states by their table
            // slots and keeps the scrambled labels it was tuned with.
            .defines(&crate::scc::gpu::coloring_defines(
                crate::scc::labels::Labels::Scrambled,
            ))
            .check_layout::<NetworkParams>()
            .check_layout::<GraphParams>()
    }
}

/// Entries of each warp's cache of inserted vectors of `vec_words` words
/// (the search's default: about 16 KiB of shared memory a warp, 8 to 128
/// entries).
pub fn warp_cache_entries(vec_words: usize) -> usize {
    (4096 / vec_words).clamp(8, 128)
}

/// One variant of the search kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchKernel {
    /// The network and table.
    pub network: NetworkKernel,
    /// Store predecessor slots.
    pub trace: bool,
    /// Tree storage (`tree.cuh`): the table holds root pairs.
    pub tree: bool,
    /// Entries of each warp's cache of inserted vectors (0: none).
    pub cache_entries: usize,
    /// Warps claim frontier chunks through a shared cursor.
    pub work_claiming: bool,
    /// How new states reach the next level.
    pub frontier: Frontier,
    /// How a rule's owner finds the other participants' entries.
    pub sync: SyncCombination,
    /// Most rules one local state offers (offer lists of the shared-memory
    /// combination; 1 otherwise).
    pub max_offers: usize,
    /// Warps per block.
    pub warps: usize,
    /// One partition of a search split over several GPUs (or partitions
    /// of one): successors others own go to their outboxes, and the
    /// `absorb` kernel stores those received.
    pub partitioned: bool,
}

impl SearchKernel {
    /// The build of this variant.
    pub fn build(&self) -> Build {
        let buffers = self.sync == SyncCombination::SharedBuffers;
        Build::new(SEARCH_SOURCE)
            .defines(&self.network.defines())
            .defines(&[
                ("TRACE", i64::from(self.trace)),
                ("TREE", i64::from(self.tree)),
                (
                    "TREE_REFS",
                    super::tree::refs(self.network.vec_words) as i64,
                ),
                (
                    "TREE_LEAVES",
                    super::tree::leaves(self.network.vec_words) as i64,
                ),
                ("CACHE_ENTRIES", self.cache_entries as i64),
                ("WORK_CLAIMING", i64::from(self.work_claiming)),
                (
                    "FRONTIER_BITS",
                    i64::from(self.frontier == Frontier::NewMarks),
                ),
                ("SPILL", i64::from(self.frontier == Frontier::SpillingQueue)),
                ("SYNC_BUFFERS", i64::from(buffers)),
                ("MAX_OFFERS", self.max_offers as i64),
                ("WARPS", self.warps as i64),
                ("PARTITIONED", i64::from(self.partitioned)),
            ])
            .defines(stat::DEFINES)
            .defines(stop::DEFINES)
            .defines(found::DEFINES)
            .defines(&[
                ("FOUND_KIND_SHIFT", i64::from(FOUND_KIND_SHIFT)),
                ("GROWTH_HEADROOM", GROWTH_HEADROOM as i64),
            ])
            .check_layout::<NetworkParams>()
            .check_layout::<SearchParams>()
            .check_layout::<GrowParams>()
    }

    /// Variants that cover every switch of the search kernel and both
    /// bucket layouts (one line, several lines), for compile checks: every
    /// combination of trace, cache, work claiming, frontier, group size
    /// and read path on narrow vectors, then the rest on wide ones; 64-bit
    /// slot numbers with the `__ldg` path on narrow vectors (every switch)
    /// and with traces on wide ones.
    pub fn variants() -> Vec<SearchKernel> {
        let mut variants = Vec::new();
        for (vec_words, wide) in [(3, false), (40, true)] {
            for trace in [false, true] {
                for read_path in [
                    ReadOnlyPath::Plain,
                    ReadOnlyPath::Ldg,
                    ReadOnlyPath::Texture,
                ] {
                    let wide_slots = if wide {
                        trace
                    } else {
                        read_path == ReadOnlyPath::Ldg
                    };
                    let slot_words = vec_words + usize::from(trace) * (1 + usize::from(wide_slots));
                    let (slots_per_bucket, bucket_lines) = if wide {
                        (1, slot_words.div_ceil(32))
                    } else {
                        (32 / slot_words, 1)
                    };
                    for group_threads in [1, 8] {
                        let network = NetworkKernel {
                            vec_words,
                            key_words: vec_words,
                            slot_words,
                            slots_per_bucket,
                            bucket_lines,
                            wide_slots,
                            compact: false,
                            group_threads,
                            read_path,
                            rule_indexes: group_threads == 1,
                            wide_combinations: read_path == ReadOnlyPath::Plain,
                        };
                        let base = SearchKernel {
                            network,
                            trace,
                            tree: false,
                            cache_entries: 0,
                            work_claiming: true,
                            frontier: Frontier::Queue,
                            sync: SyncCombination::Lookup,
                            max_offers: 1,
                            warps: 8,
                            partitioned: false,
                        };
                        let switches = if wide {
                            vec![base]
                        } else {
                            switch_combinations(base)
                        };
                        variants.extend(switches);
                    }
                }
            }
        }
        let narrow = variants[0];
        variants.push(SearchKernel {
            network: NetworkKernel {
                group_threads: 32,
                ..narrow.network
            },
            sync: SyncCombination::SharedBuffers,
            max_offers: 8,
            ..narrow
        });
        // Tree storage: every tree shape the kernel special-cases (no node,
        // none above one word, one level, odd levels, many levels), with
        // and without traces and 64-bit slot numbers, every frontier, and
        // with compact roots (new marks and spilling queues).
        let mut tree = narrow;
        for (vec_words, trace, wide_slots, group_threads) in [
            (1, false, false, 1),
            (2, true, false, 1),
            (3, true, true, 1),
            (7, false, false, 8),
            (11, true, false, 32),
            (40, true, false, 8),
        ] {
            let slot_words = 2 + usize::from(trace) * (1 + usize::from(wide_slots));
            let base = SearchKernel {
                tree: true,
                trace,
                cache_entries: 32,
                network: NetworkKernel {
                    vec_words,
                    key_words: 2,
                    slot_words,
                    slots_per_bucket: 32 / slot_words,
                    bucket_lines: 1,
                    wide_slots,
                    group_threads,
                    ..narrow.network
                },
                ..narrow
            };
            let compact = NetworkKernel {
                compact: true,
                slots_per_bucket: if trace {
                    super::compact::SLOTS_WITH_LINKS
                } else {
                    super::compact::SLOTS
                },
                ..base.network
            };
            variants.extend([
                base,
                SearchKernel {
                    frontier: Frontier::NewMarks,
                    ..base
                },
                SearchKernel {
                    frontier: Frontier::SpillingQueue,
                    ..base
                },
                SearchKernel {
                    frontier: Frontier::NewMarks,
                    network: compact,
                    ..base
                },
                SearchKernel {
                    frontier: Frontier::SpillingQueue,
                    network: compact,
                    ..base
                },
            ]);
            tree = base;
        }
        variants.extend(Self::partitioned_variants(variants[0], tree));
        variants
    }

    /// Partitioned variants of `narrow` (plain storage) and `tree`: with
    /// and without traces (64-bit links), both frontiers.
    fn partitioned_variants(narrow: SearchKernel, tree: SearchKernel) -> Vec<SearchKernel> {
        let mut variants = Vec::new();
        for base in [narrow, tree] {
            for trace in [false, true] {
                let key_words = base.network.key_words;
                let slot_words = key_words + if trace { 2 } else { 0 };
                let network = NetworkKernel {
                    wide_slots: trace,
                    slot_words,
                    slots_per_bucket: 32 / slot_words,
                    bucket_lines: 1,
                    ..base.network
                };
                for frontier in [Frontier::Queue, Frontier::NewMarks] {
                    variants.push(SearchKernel {
                        network,
                        trace,
                        cache_entries: 32,
                        work_claiming: true,
                        frontier,
                        partitioned: true,
                        ..base
                    });
                }
            }
        }
        variants
    }
}

/// `base` with every combination of cache, work claiming and frontier.
fn switch_combinations(base: SearchKernel) -> Vec<SearchKernel> {
    let mut variants = Vec::new();
    for cache_entries in [0, 32] {
        for work_claiming in [false, true] {
            for frontier in [Frontier::Queue, Frontier::NewMarks, Frontier::SpillingQueue] {
                variants.push(SearchKernel {
                    cache_entries,
                    work_claiming,
                    frontier,
                    ..base
                });
            }
        }
    }
    variants
}

param_block! {
    /// The arrays of the hash check kernel.
    pub struct HashCheckParams {
        /// `count` vectors, one after the other.
        pub vectors: u64,
        /// Vectors.
        pub count: u64,
        /// One hash per vector.
        pub hashes: u64,
    }
}

/// The hash check kernel for vectors of `vec_words` words.
pub fn hash_check_build(vec_words: usize) -> Build {
    Build::new(HASH_CHECK_SOURCE)
        .define("VEC_WORDS", vec_words as i64)
        .check_layout::<HashCheckParams>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::gpu::search;
    use crate::gpu::{ParamBlock, nvrtc_available, scan};

    /// The architecture of the GPU machines (H100, H200).
    const ARCH: &str = "sm_90";

    /// Checks every build with NVRTC's front end, and compiles the first
    /// `full` of them to PTX, in parallel; lists those that fail.
    fn failures(builds: Vec<Build>, full: usize) -> Vec<String> {
        let builds: Vec<(bool, Build)> = builds
            .into_iter()
            .enumerate()
            .map(|(at, build)| (at < full, build))
            .collect();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let chunks: Vec<Vec<(bool, Build)>> = builds
            .chunks(builds.len().div_ceil(threads))
            .map(<[(bool, Build)]>::to_vec)
            .collect();
        std::thread::scope(|scope| {
            let workers: Vec<_> = chunks
                .iter()
                .map(|chunk| {
                    scope.spawn(move || {
                        chunk
                            .iter()
                            .filter_map(|(full, build)| {
                                let result = match full {
                                    true => build.compile(ARCH).map(drop),
                                    false => build.check(ARCH),
                                };
                                result.err().map(|e| {
                                    format!("{} {:?}: {e}", build.source_name(), build.defined())
                                })
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("compile threads do not panic"))
                .collect()
        })
    }

    /// Every variant of every kernel passes NVRTC's front end without a
    /// warning, and every parameter block matches its C mirror (checked by
    /// the compiler); the default variants of the search and of the graph
    /// passes, the scan, the hash check and the SCC and MEC kernels
    /// compile to PTX. Needs NVRTC only
    /// (CI installs NVIDIA's NVRTC wheel); says SKIPPED without it.
    #[test]
    fn every_kernel_variant_compiles_with_nvrtc() {
        if !nvrtc_available() {
            crate::testing::skipped_without_nvrtc();
            return;
        }
        let mut variants = SearchKernel::variants();
        // The variant `GpuOptions::default()` gives on narrow vectors first.
        let default = variants
            .iter()
            .position(|v| {
                v.trace
                    && v.cache_entries > 0
                    && v.work_claiming
                    && v.frontier == Frontier::Queue
                    && v.network.read_path == ReadOnlyPath::Texture
                    && v.network.group_threads == 1
            })
            .expect("the default variant is among the variants");
        variants.swap(0, default);
        // The graph passes read 32-bit slot numbers only.
        let mut networks: Vec<NetworkKernel> = Vec::new();
        for variant in &variants {
            if !variant.network.wide_slots && !variant.tree && !networks.contains(&variant.network)
            {
                networks.push(variant.network);
            }
        }
        // Compiled in full besides the first: the widest tree variant with
        // compact roots (tree code once took minutes to compile) ...
        let widest_tree = variants
            .iter()
            .filter(|v| v.tree && v.network.compact)
            .max_by_key(|v| v.network.vec_words)
            .expect("tree variants are among the variants");
        // ... and a partitioned one with traces.
        let partitioned = variants
            .iter()
            .find(|v| v.partitioned && v.trace && !v.tree)
            .expect("partitioned variants are among the variants");
        let mut builds = vec![
            variants[0].build(),
            widest_tree.build(),
            partitioned.build(),
            networks[0].graph_build(),
            scan::build(),
            hash_check_build(3),
            crate::scc::gpu::build(crate::scc::labels::Labels::Scrambled),
            crate::scc::gpu::build(crate::scc::labels::Labels::Numbers),
            crate::mec::gpu::build(),
            crate::numeric::gpu::build(),
            crate::numeric::gpu::qualitative_build(),
        ];
        builds.extend(variants.iter().skip(1).map(SearchKernel::build));
        builds.extend(networks.iter().skip(1).map(NetworkKernel::graph_build));
        builds.push(hash_check_build(40));
        let count = builds.len();
        let failed = failures(builds, 8);
        assert!(
            failed.is_empty(),
            "{} of {count} builds failed:\n{}",
            failed.len(),
            failed.join("\n")
        );
    }

    /// ptxas's report through NVRTC gives the search kernel's registers
    /// (at most the 64 its launch bounds allow): what
    /// `examples/search_registers` compares between kernel changes; a
    /// kernel the module lacks is an error, not zeros.
    #[test]
    fn the_resource_report_gives_the_search_kernels_registers() {
        if !nvrtc_available() {
            crate::testing::skipped_without_nvrtc();
            return;
        }
        let build = SearchKernel::variants()[0].build();
        let resources = build.kernel_resources(ARCH, "explore_levels").unwrap();
        assert!((1..=64).contains(&resources.registers), "{resources:?}");
        // The launcher's figures of static shared memory a warp are the
        // kernel's: tallies, and the walk of a bitmap frontier.
        for frontier in [Frontier::Queue, Frontier::NewMarks, Frontier::SpillingQueue] {
            let variant = SearchKernel {
                frontier,
                ..SearchKernel::variants()[0]
            };
            let shared = variant
                .build()
                .kernel_resources(ARCH, "explore_levels")
                .unwrap()
                .static_shared as usize;
            let walks = frontier != Frontier::Queue;
            assert_eq!(
                shared,
                variant.warps
                    * (search::WARP_TALLY_BYTES
                        + search::WARP_MARK_WALK_BYTES * usize::from(walks)),
                "{frontier:?}"
            );
        }
        let error = build
            .kernel_resources(ARCH, "no_such_kernel")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("ptxas reported no resources of kernel no_such_kernel"),
            "{error}"
        );
    }

    /// A parameter block whose C mirror differs from the host's layout
    /// does not compile: the check the other builds rely on works.
    #[test]
    fn a_layout_mismatch_fails_to_compile() {
        if !nvrtc_available() {
            crate::testing::skipped_without_nvrtc();
            return;
        }
        crate::param_block! {
            /// The scan block with one field fewer than the kernel's.
            pub struct ScanParams {
                /// Device address of the elements.
                pub data: u64,
                /// Elements.
                pub len: u64,
            }
        }
        let build = Build::new(scan::SOURCE).check_layout::<ScanParams>();
        let error = build.compile(ARCH).unwrap_err().to_string();
        assert!(
            error.contains("ScanParams: the host's block has 16 bytes"),
            "{error}"
        );
        let offsets: Vec<(&str, usize)> = ScanParams::fields()
            .iter()
            .map(|field| (field.name, field.offset))
            .collect();
        assert_eq!(offsets, [("data", 0), ("len", 8)]);
    }
}
