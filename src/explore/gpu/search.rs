//! Host side of a GPU search: table geometry, device buffers, the launch
//! loop over breadth-first levels, and trace reconstruction from the
//! predecessor slots stored in the table. With tree storage the table
//! holds root pairs and a node table beside it the rest (`tree.cuh`).

use std::time::Instant;

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

use super::compact;
use super::device_net::DeviceNet;
use super::kernel::{
    GrowParams, NetworkKernel, SearchKernel, SearchParams, found, stat, stop, warp_cache_entries,
};
use super::nodes::{FIRST_NODE_GENERATION, NODE_SHARE, NodeTable};
use super::tree;
use super::{Frontier, GpuExploration, GpuOptions, ReadOnlyPath, SlotNumbers, SyncCombination};
use crate::encode::{EncodedNetwork, hash_words};
use crate::explore::outcome::{self, Ending};
use crate::explore::{Exploration, Finding, FindingKind, Progress, SearchOptions, Storage, Trace};
use crate::gpu::{Device, GpuError, LargeSlice};

/// Shared memory a block may use without opting in to more.
const SHARED_LIMIT: usize = 48 * 1024;

/// Static shared memory of the search kernel per warp: its tallies of a
/// level (`TALLIES` words of 64 bits in `search.cu`), beside the dynamic
/// words that the launch asks for.
pub(super) const WARP_TALLY_BYTES: usize = 4 * 8;
/// Static shared memory of the search kernel per warp that walks bitmaps
/// (new marks, spilled states): its walk (`MarkWalk` in `search.cu`).
pub(super) const WARP_MARK_WALK_BYTES: usize = 200;
/// Default breadth-first levels per launch.
const DEFAULT_ITERATIONS: u32 = 32;
/// Default threads per block.
const DEFAULT_THREADS: u32 = 256;
/// Memory left to the driver and other users when the table takes the rest.
const RESERVED_MEMORY: u64 = 512 << 20;
/// Bytes of the table a search starts with unless told otherwise: small,
/// so that a small model leaves the GPU to others; the table grows when
/// it fills.
pub const DEFAULT_INITIAL_TABLE: u64 = 64 << 20;
/// How many times larger the table gets at each growth.
const GROWTH_FACTOR: u64 = 4;
/// The search stops before a level, to grow the table, when the stored
/// states plus this many times the new frontier reach half the slots
/// (the kernels' `GROWTH_HEADROOM`).
pub(super) const GROWTH_HEADROOM: u64 = 4;
/// The finding's kind sits above this bit of `stat::FOUND`, its slot below
/// (the kernels' `FOUND_KIND_SHIFT`).
pub(super) const FOUND_KIND_SHIFT: u32 = 60;
/// Most old slots renumbered at once when the table grows (the size of
/// the chunk's `moved_to` array, 8 bytes a slot).
const GROWTH_CHUNK_SLOTS: u64 = 1 << 27;
/// A chunk of the old table takes at most this share of the budget.
const GROWTH_CHUNK_SHARE: u64 = 32;
/// A growing table that would reach this share of the budget grows to the
/// largest table that fits instead: moving a table costs time in
/// proportion to its states, so the last move is made early (a search of
/// more than about 1/256 of the budget's states then holds most of it).
const LAST_STEP_SHARE: u64 = 32;

/// A spilling queue holds this share of the slots of a table where it
/// spills (the rest of a level goes to the spill bitmap).
const SPILLING_QUEUE_SHARE: u64 = 32;

/// A spilling queue of a table that may grow (and is not roomy) holds this
/// share of its slots: a level longer than that stops at its first spill,
/// and the table grows.
const GROWING_QUEUE_SHARE: u64 = 4;

/// The counters of a level's expansions, which a level that runs again
/// takes back to their values at its start ([`AT_LEVEL_START`]).
const LEVEL_COUNTED: [usize; 4] = [
    stat::TRANSITIONS,
    stat::DEADLOCKS,
    stat::EXPANDED,
    stat::MONITOR_BLOCKED,
];
/// Where the kernel keeps the [`LEVEL_COUNTED`] counters as they were when
/// the current level started.
const AT_LEVEL_START: [usize; 4] = [
    stat::START_TRANSITIONS,
    stat::START_DEADLOCKS,
    stat::START_EXPANDED,
    stat::START_MONITOR_BLOCKED,
];

/// Shape of the global table and the frontier queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Geometry {
    /// Words of a key: a state vector, or its root pair with tree storage.
    pub(super) words: usize,
    /// Words of a slot: the key, then the predecessor slot with traces.
    pub(super) slot_words: usize,
    /// Slots in one bucket.
    pub(super) slots_per_bucket: usize,
    /// 32-word lines in one bucket.
    pub(super) lines: usize,
    /// Buckets in the table.
    pub(super) buckets: u64,
    /// Slot numbers of 64 bits (else 32).
    pub(super) wide: bool,
    /// Root pairs kept compact (`compact.cuh`): `slots_per_bucket` of
    /// [`compact::SLOTS`] or [`compact::SLOTS_WITH_LINKS`] in one line.
    pub(super) compact: bool,
    /// How the frontier is kept.
    frontier: Frontier,
    /// Whether the frontier queues get a queue entry for every slot (a
    /// table that will grow: a level never overflows them) or for a
    /// quarter of them (the largest table).
    roomy_queues: bool,
    /// Entries of each spilling queue, where not the default share of the
    /// slots ([`GpuOptions::queue_entries`]).
    queue_entries: Option<u64>,
    /// Whether this table never grows (the largest, or one grown in
    /// place). A spilling queue holds the spilling share of its slots
    /// there, and spilled levels are walked; in a table that may grow
    /// (and is not roomy) it holds [`GROWING_QUEUE_SHARE`] of them, and the first spill
    /// stops the level so that the table grows before any spill bitmap is
    /// walked: a walked level cannot run again.
    never_grows: bool,
    /// The budget would hold more slots than 32-bit slot numbers reach,
    /// so those numbers, not the memory, cap this (largest) table.
    pub(super) capped_by_numbers: bool,
}

impl Geometry {
    /// The largest table (plus two queues of a quarter of its slots each,
    /// or three bitmaps of a bit a slot) that fits in `budget` bytes. Slot
    /// numbers are 64-bit when `numbers` says so, or by default when the
    /// table has more than `u32::MAX - 1` slots; otherwise the table has
    /// at most that many. With `compact` (root pairs of tree storage), the
    /// roots are kept compact when the table has at least
    /// [`compact::MIN_BUCKETS`] buckets.
    pub(super) fn largest(
        words: usize,
        trace: bool,
        frontier: Frontier,
        budget: u64,
        numbers: SlotNumbers,
        compact: bool,
    ) -> Result<Geometry, GpuError> {
        // The largest table never grows: a spilling queue spills there.
        let narrow = Geometry {
            never_grows: true,
            ..Geometry::shaped(words, trace, frontier, false, compact)
        };
        let narrow_cap = (u32::MAX as u64 - 1) / narrow.slots_per_bucket as u64;
        let fitting = budget / narrow.bytes_per_bucket();
        let wide = match numbers {
            SlotNumbers::Auto => fitting > narrow_cap,
            SlotNumbers::Wide => true,
            SlotNumbers::Narrow => false,
        };
        let geometry = if !wide {
            Geometry {
                capped_by_numbers: fitting > narrow_cap,
                ..narrow.with_buckets(fitting.min(narrow_cap))
            }
        } else {
            let wide = Geometry {
                never_grows: true,
                ..Geometry::shaped(words, trace, frontier, true, compact)
            };
            wide.with_buckets(budget / wide.bytes_per_bucket())
        };
        if compact && geometry.buckets < compact::MIN_BUCKETS {
            return Geometry::largest(words, trace, frontier, budget, numbers, false);
        }
        if geometry.buckets < 2 {
            return Err(GpuError::Invalid(format!(
                "{budget} bytes of GPU memory cannot hold a table of {}-byte buckets",
                128 * geometry.lines
            )));
        }
        Ok(Geometry {
            roomy_queues: false,
            ..geometry
        })
    }

    /// A table of no bucket yet with the slot layout of `words`-word
    /// vectors (and a predecessor link of 1 or 2 words with `trace`), or of
    /// compact roots (`compact.cuh`: 40-bit links).
    fn shaped(
        words: usize,
        trace: bool,
        frontier: Frontier,
        wide: bool,
        compact: bool,
    ) -> Geometry {
        let slot_words = words + if trace { 1 + usize::from(wide) } else { 0 };
        let (slots_per_bucket, lines) = if compact {
            let slots = if trace {
                compact::SLOTS_WITH_LINKS
            } else {
                compact::SLOTS
            };
            (slots, 1)
        } else if slot_words <= 32 {
            (32 / slot_words, 1)
        } else {
            (1, slot_words.div_ceil(32))
        };
        Geometry {
            words,
            slot_words,
            slots_per_bucket,
            lines,
            buckets: 0,
            wide,
            compact,
            frontier,
            roomy_queues: false,
            queue_entries: None,
            never_grows: false,
            capped_by_numbers: false,
        }
    }

    /// The same layout with `buckets` buckets and queues that a level of
    /// a table that will still grow cannot overflow.
    fn growing(&self, buckets: u64) -> Geometry {
        Geometry {
            buckets: buckets.max(2),
            roomy_queues: true,
            never_grows: false,
            ..*self
        }
    }

    fn with_buckets(&self, buckets: u64) -> Geometry {
        Geometry { buckets, ..*self }
    }

    /// The table a search starts in when asked for `buckets` buckets,
    /// `self` being the largest within `budget`: one with roomy queues
    /// (it grows at half fill) where that fits the budget; else one of
    /// that many buckets whose queues hold the share of a table that
    /// grows only when it fills or spills (growth's last step beside an
    /// old table) where that fits; else the largest. Roomy queues hold a
    /// slot each: asked for most of the budget (`--initial-table` near
    /// `--memory`), they would not fit.
    fn first_table(&self, buckets: u64, budget: u64) -> Geometry {
        let buckets = buckets.max(2);
        if buckets >= self.buckets {
            return *self;
        }
        let roomy = self.growing(buckets);
        if roomy.bytes() <= budget {
            return roomy;
        }
        let last = Geometry {
            never_grows: false,
            ..*self
        };
        if buckets <= budget / last.bytes_per_bucket() {
            last.with_buckets(buckets)
        } else {
            *self
        }
    }

    /// Buckets of this table moved at once when it grows within `budget`:
    /// few enough that the chunk (staged) and its `moved_to` array take a
    /// small share of the budget.
    fn growth_chunk_buckets(&self, budget: u64) -> u64 {
        let by_budget = budget / GROWTH_CHUNK_SHARE / (128 * self.lines as u64);
        let by_slots = GROWTH_CHUNK_SLOTS / self.slots_per_bucket as u64;
        by_budget.min(by_slots).min(self.buckets).max(1)
    }

    /// Bytes of a bucket and of its share of the (largest table's) queues.
    fn bytes_per_bucket(&self) -> u64 {
        let spb = self.slots_per_bucket as u64;
        128 * self.lines as u64
            + match self.frontier {
                Frontier::SpillingQueue if self.never_grows => {
                    (2 * spb * self.slot_number_bytes()).div_ceil(SPILLING_QUEUE_SHARE)
                        + (2 * spb).div_ceil(8)
                }
                Frontier::SpillingQueue => {
                    2 * spb.div_ceil(GROWING_QUEUE_SHARE) * self.slot_number_bytes()
                        + (2 * spb).div_ceil(8)
                }
                Frontier::Queue => 2 * spb.div_ceil(4) * self.slot_number_bytes(),
                Frontier::NewMarks => (3 * spb).div_ceil(8),
            }
    }

    /// Frontier queues (by level parity) or bitmaps of new marks (by
    /// level modulo 3).
    fn queue_count(&self) -> usize {
        match self.frontier {
            Frontier::Queue | Frontier::SpillingQueue => 2,
            Frontier::NewMarks => 3,
        }
    }

    fn slot_number_bytes(&self) -> u64 {
        if self.wide { 8 } else { 4 }
    }

    fn bucket_words(&self) -> usize {
        32 * self.lines
    }

    pub(super) fn slots(&self) -> u64 {
        self.buckets * self.slots_per_bucket as u64
    }

    /// Entries of each frontier queue, or words of each bitmap of new marks.
    pub(super) fn queue_capacity(&self) -> u64 {
        let slots = self.slots();
        match (self.frontier, self.roomy_queues) {
            (Frontier::Queue | Frontier::SpillingQueue, true) => slots,
            (Frontier::SpillingQueue, false) => match (self.queue_entries, self.never_grows) {
                (Some(entries), _) => entries.clamp(1, slots),
                (None, true) => slots.div_ceil(SPILLING_QUEUE_SHARE).max(64),
                (None, false) => slots.div_ceil(GROWING_QUEUE_SHARE).max(64),
            },
            (Frontier::Queue, false) => slots.div_ceil(4).max(64),
            (Frontier::NewMarks, _) => slots.div_ceil(32).max(64),
        }
    }

    /// 32-bit words of a spilling queue's two spill bitmaps (a bit a slot
    /// each), one after the other; none for other frontiers, nor in a
    /// roomy table, whose queues hold a slot each.
    pub(super) fn spill_words(&self) -> usize {
        match self.frontier {
            Frontier::SpillingQueue if !self.roomy_queues => 2 * self.slots().div_ceil(32) as usize,
            Frontier::Queue | Frontier::SpillingQueue | Frontier::NewMarks => 0,
        }
    }

    /// Whether the first spill of a level stops it (so that the table
    /// grows before the spill bitmap is walked).
    pub(super) fn spill_grows(&self) -> bool {
        self.spill_words() > 0 && !self.never_grows
    }

    /// Entries of a queue that holds `length` states (the rest spilled).
    fn queued(&self, length: u64) -> u64 {
        match self.frontier {
            Frontier::SpillingQueue => length.min(self.queue_capacity()),
            Frontier::Queue | Frontier::NewMarks => length,
        }
    }

    /// 32-bit words of each frontier queue (or bitmap).
    fn queue_words(&self) -> usize {
        let entry_words = match self.frontier {
            Frontier::Queue | Frontier::SpillingQueue if self.wide => 2,
            _ => 1,
        };
        self.queue_capacity() as usize * entry_words
    }

    fn table_words(&self) -> usize {
        self.buckets as usize * self.bucket_words()
    }

    pub(super) fn table_bytes(&self) -> u64 {
        self.table_words() as u64 * 4
    }

    /// Bytes of the table, the queues and the spill bitmaps.
    pub(super) fn bytes(&self) -> u64 {
        self.table_bytes()
            + (self.queue_count() * self.queue_words() + self.spill_words()) as u64 * 4
    }

    /// Word offset of slot `slot` in the table.
    pub(super) fn slot_offset(&self, slot: u64) -> usize {
        let spb = self.slots_per_bucket as u64;
        ((slot / spb) as usize) * self.bucket_words() + (slot % spb) as usize * self.slot_words
    }

    /// Bytes that `states` stored states take: their slots without the
    /// empty ones (a compact slot counts as its share of the line).
    pub(super) fn state_bytes(&self, states: u64) -> u64 {
        if self.compact {
            states * 128 / self.slots_per_bucket as u64
        } else {
            states * 4 * self.slot_words as u64
        }
    }

    /// Home bucket of a vector with hash `hash` (the kernel's mapping).
    fn home_bucket(&self, hash: u64) -> u64 {
        ((hash as u128 * self.buckets as u128) >> 64) as u64
    }

    /// The kernels' `NO_SLOT` for this table's slot numbers.
    fn no_slot(&self) -> u64 {
        if self.wide { u64::MAX } else { u32::MAX as u64 }
    }

    /// Where a table that may grow stops to grow: half its slots while it
    /// is growing; the last tables grow only when full.
    fn grow_at(&self) -> u64 {
        if self.roomy_queues {
            self.slots() / 2
        } else {
            u64::MAX
        }
    }
}

/// Default threads per vector group for a network of `processes`
/// processes: one thread a state up to about 48 processes (a warp then
/// expands 32 states at once and fills its insertion batches); beyond
/// that, a thread's walk over all processes grows long and lanes diverge,
/// so a group gets about one thread per 8 processes (the nearest power of
/// two), at most a warp. The thresholds come from measurements on eight
/// MCC models (docs/GPU.md, "Vector groups").
fn group_size(processes: usize) -> usize {
    if processes <= 48 {
        return 1;
    }
    let per_eight = processes / 8;
    let lower = 1usize << per_eight.ilog2();
    // Nearest in log scale: 2 * lower when processes / 8 >= lower * sqrt(2).
    let nearest = if processes * processes >= 128 * lower * lower {
        2 * lower
    } else {
        lower
    };
    nearest.min(32)
}

/// How a search's kernels run: the variant, its compiled search kernel,
/// and the largest grid that is resident at once.
pub(super) struct Launcher {
    pub(super) kernel: SearchKernel,
    pub(super) function: CudaFunction,
    pub(super) config: LaunchConfig,
    /// The engine's name in reports.
    pub(super) engine: String,
}

impl Launcher {
    /// The search kernel for `net` (uploaded as `device_net`) with tables
    /// shaped as `largest` (root pairs with `tree`), compiled for
    /// `device`; `partitioned` for one partition of a split search.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        device: &Device,
        net: &EncodedNetwork,
        device_net: &DeviceNet,
        options: &GpuOptions,
        largest: &Geometry,
        trace: bool,
        tree: bool,
        partitioned: bool,
    ) -> Result<Launcher, GpuError> {
        let words = net.words();
        let processes = net.processes();
        let buffers = options.sync == SyncCombination::SharedBuffers;
        let group = match options.group_threads {
            None if buffers => processes.next_power_of_two(),
            None => group_size(processes),
            Some(g) if g.is_power_of_two() && g <= 32 => g as usize,
            Some(g) => {
                return Err(GpuError::Invalid(format!(
                    "threads per vector group must be a power of two up to 32, not {g}"
                )));
            }
        };
        if buffers && (group > 32 || group < processes) {
            return Err(GpuError::Invalid(format!(
                "shared-memory sync buffers need a thread per process: a group of at most 32 \
                 threads for {processes} processes"
            )));
        }
        // Computed only for the shared-memory combination (a walk over every
        // local state's entries); 1 otherwise, as the kernel needs the constant.
        let max_offers = if buffers {
            net.max_rules_offered().max(1)
        } else {
            1
        };
        // Words of a lane's offer list (count, then rule, lo, hi per rule), as
        // the kernel's OFFER_WORDS.
        let offer_words = if buffers { 1 + 3 * max_offers } else { 0 };

        // Per-warp shared memory: vectors being expanded, staged successors, cache.
        let cache_entries = if options.cache {
            warp_cache_entries(words)
        } else {
            0
        };
        // Bitmaps of new marks, or spilled states, are walked through a list
        // of 32 slot numbers a warp.
        let lists_marks = options.frontier != Frontier::Queue;
        let slot_number_words = 1 + usize::from(largest.wide);
        // With tree storage, each group's tree values and each lane's root pair.
        let tree_words = if tree {
            tree::refs(words) * (32 / group) + 32 * 2
        } else {
            0
        };
        let warp_shared = 4
            * (words * (32 / group + 32 + cache_entries)
                + 32 * slot_number_words * usize::from(lists_marks)
                + 32 * offer_words
                + tree_words);
        let requested_threads = options.threads_per_block.unwrap_or(DEFAULT_THREADS);
        if requested_threads == 0
            || !requested_threads.is_multiple_of(32)
            || requested_threads > 1024
        {
            return Err(GpuError::Invalid(format!(
                "threads per block must be a multiple of 32 between 32 and 1024, not {requested_threads}"
            )));
        }
        let warp_static = WARP_TALLY_BYTES + WARP_MARK_WALK_BYTES * usize::from(lists_marks);
        let warps =
            (requested_threads as usize / 32).min(SHARED_LIMIT / (warp_shared + warp_static));
        if warps == 0 {
            return Err(GpuError::Invalid(format!(
                "state vectors of {words} words need more shared memory per warp \
                 ({} bytes) than a block has",
                warp_shared + warp_static
            )));
        }
        let threads = 32 * warps as u32;
        let shared_bytes = (warps * warp_shared) as u32;

        let read_path = device_net.read_path(options.readonly_path);
        let kernel = SearchKernel {
            network: NetworkKernel {
                vec_words: words,
                key_words: largest.words,
                slot_words: largest.slot_words,
                slots_per_bucket: largest.slots_per_bucket,
                bucket_lines: largest.lines,
                wide_slots: largest.wide,
                compact: largest.compact,
                group_threads: group,
                read_path,
                rule_indexes: device_net.rule_indexes(),
                wide_combinations: device_net.wide_combinations(),
            },
            trace,
            tree,
            cache_entries,
            work_claiming: options.work_claiming,
            frontier: options.frontier,
            sync: options.sync,
            max_offers,
            warps,
            partitioned,
        };
        let function = device.function(&kernel.build(), "explore_levels")?;
        let resident = function
            .occupancy_max_active_blocks_per_multiprocessor(threads, shared_bytes as usize, None)
            .map_err(GpuError::driver("querying occupancy"))?
            * device.multiprocessors();
        if resident == 0 {
            return Err(GpuError::Invalid(format!(
                "a block of {threads} threads with {shared_bytes} bytes of shared memory cannot run"
            )));
        }
        // Blocks wait for each other at level ends, so all must be resident.
        let blocks = options.blocks.unwrap_or(resident).clamp(1, resident);
        let engine = format!(
            "{}; {blocks} blocks x {threads} threads, {words}-word vectors in groups of \
             {group} threads, {} slots per bucket, network read through {}",
            super::engine_name(device),
            largest.slots_per_bucket,
            match read_path {
                ReadOnlyPath::Texture => "textures",
                ReadOnlyPath::Ldg => "__ldg",
                ReadOnlyPath::Plain => "plain loads",
            }
        );
        Ok(Launcher {
            kernel,
            function,
            config: LaunchConfig {
                grid_dim: (blocks, 1, 1),
                block_dim: (threads, 1, 1),
                shared_mem_bytes: shared_bytes,
            },
            engine,
        })
    }
}

/// The bytes a search may take on `device`: `--memory`, or most of the
/// free memory.
pub(super) fn memory_budget(device: &Device, search: &SearchOptions) -> Result<u64, GpuError> {
    let free = device.free_memory()?;
    match search.memory_bytes {
        Some(bytes) if bytes > free => Err(GpuError::OutOfMemory {
            requested: bytes,
            free,
        }),
        Some(bytes) => Ok(bytes),
        None => Ok(free.saturating_sub(RESERVED_MEMORY) / 10 * 9),
    }
}

/// What a search leaves on the device for the passes after it.
pub(super) struct SearchTable {
    pub(super) device_net: DeviceNet,
    pub(super) table: LargeSlice<u32>,
    pub(super) geometry: Geometry,
    /// The kernel variant the search ran: the passes read the table and
    /// the network as it did.
    pub(super) kernel: NetworkKernel,
    pub(super) initial_slot: u64,
}

/// The search's table and frontier queues on the device; growing the
/// table replaces them.
pub(super) struct Buffers {
    pub(super) table: LargeSlice<u32>,
    /// By level parity, or bitmaps by level modulo 3.
    pub(super) queues: Vec<LargeSlice<u32>>,
    /// A spilling queue's spill bitmaps ([`Geometry::spill_words`]).
    pub(super) spill: Option<LargeSlice<u32>>,
    pub(super) geometry: Geometry,
}

impl Buffers {
    /// An empty table of `geometry` and its queues (bitmaps of new marks
    /// start cleared).
    pub(super) fn allocate(device: &Device, geometry: Geometry) -> Result<Buffers, GpuError> {
        let table = device.alloc_large_filled(geometry.table_words(), 0xFF)?;
        let queue = || match geometry.frontier {
            Frontier::NewMarks => device.alloc_large_filled::<u32>(geometry.queue_words(), 0),
            // SAFETY: a queue is only read below the length the kernels
            // (or the host) wrote into it.
            Frontier::Queue | Frontier::SpillingQueue => unsafe {
                device.alloc_large::<u32>(geometry.queue_words())
            },
        };
        // Spill bitmaps start cleared, and the level that reads one clears it.
        let spill = match geometry.spill_words() {
            0 => None,
            words => Some(device.alloc_large_filled::<u32>(words, 0)?),
        };
        Ok(Buffers {
            queues: (0..geometry.queue_count())
                .map(|_| queue())
                .collect::<Result<_, _>>()?,
            spill,
            table,
            geometry,
        })
    }
}

/// Where the table stands: its growths so far, whether it may grow again,
/// the most bytes it and the growth's scratch arrays held at once, and the
/// largest table the budget allows (the forecast's).
struct Growth {
    budget: u64,
    largest: Geometry,
    can_grow: bool,
    growths: u32,
    /// Growths that staged the old table through host memory.
    staged: u32,
    /// Levels that filled the table and ran again in a larger one.
    rerun_levels: u32,
    /// Every growth goes through host memory ([`GpuOptions::staged_growth`]).
    always_staged: bool,
    peak_bytes: u64,
    time: std::time::Duration,
}

/// Runs the whole search from an initial state that is not an error
/// state, and keeps its table. Slot numbers stay 32-bit unless
/// `wide_allowed` (the passes that number a table's states read 32-bit
/// slots). With `tree`, the states are stored as trees (`tree.cuh`).
pub(super) fn run(
    device: &Device,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
    wide_allowed: bool,
    tree: bool,
) -> Result<(GpuExploration, SearchTable), GpuError> {
    let numbers = match (options.slot_numbers, wide_allowed) {
        (SlotNumbers::Wide, false) => {
            return Err(GpuError::Invalid(
                "64-bit slot numbers are not available where the states are numbered after \
                 the search (scc, --livelock)"
                    .into(),
            ));
        }
        (numbers, true) => numbers,
        (_, false) => SlotNumbers::Narrow,
    };
    let start = Instant::now();
    let trace = !search.no_trace;
    let words = net.words();
    let budget = memory_budget(device, search)?;
    let initial_table_bytes = options.initial_table_bytes.unwrap_or(DEFAULT_INITIAL_TABLE);
    // The node table starts at FIRST_NODE_GENERATION times the initial
    // table and grows into its share of the budget.
    let mut nodes = if tree {
        Some(NodeTable::allocate(
            device,
            FIRST_NODE_GENERATION * initial_table_bytes,
            budget / NODE_SHARE,
        )?)
    } else {
        None
    };
    let node_limit_bytes = nodes.as_ref().map_or(0, NodeTable::limit_bytes);
    // The table's budget, and its keys: vectors, or root pairs.
    let table_budget = budget - node_limit_bytes;
    let key_words = if tree { 2 } else { words };
    let compact = tree && options.compact_roots;
    let largest = Geometry {
        queue_entries: options.queue_entries,
        ..Geometry::largest(
            key_words,
            trace,
            options.frontier,
            table_budget,
            numbers,
            compact,
        )?
    };
    let device_net = DeviceNet::upload(device, net, options.readonly_path, options.owners)?;
    let Launcher {
        kernel,
        function,
        config,
        engine,
    } = Launcher::new(
        device,
        net,
        &device_net,
        options,
        &largest,
        trace,
        tree,
        false,
    )?;
    let iterations = options.iterations.unwrap_or(DEFAULT_ITERATIONS).max(1);
    let capacity_without_traces = Geometry::largest(
        key_words,
        false,
        options.frontier,
        table_budget,
        numbers,
        compact,
    )?
    .slots();
    tracing::info!(
        "GPU table: up to {} of memory, about {} states ({} with --no-trace){}",
        crate::report::human_bytes(budget),
        largest.slots(),
        capacity_without_traces,
        match &nodes {
            Some(nodes) => format!(
                ", stored as trees with up to {} nodes ({}; {} at first)",
                nodes.limit_bytes() / 8,
                crate::report::human_bytes(nodes.limit_bytes()),
                crate::report::human_bytes(nodes.bytes())
            ),
            None => String::new(),
        }
    );

    let mut initial_buckets = initial_table_bytes / (128 * largest.lines as u64);
    if largest.compact {
        initial_buckets = initial_buckets.max(compact::MIN_BUCKETS);
    }
    let first = largest.first_table(initial_buckets, table_budget);
    let mut growth = Growth {
        budget: table_budget,
        largest,
        can_grow: first.buckets < largest.buckets,
        growths: 0,
        staged: 0,
        rerun_levels: 0,
        always_staged: options.staged_growth,
        peak_bytes: first.bytes(),
        time: std::time::Duration::ZERO,
    };
    let mut buffers = Buffers::allocate(device, first)?;
    device.note_memory_use()?;

    // The initial state, the only state of level 0: slot 0 of its home
    // bucket, or stored by a kernel as a tree.
    let geometry = buffers.geometry;
    let no_slot = geometry.no_slot();
    let mut params = SearchParams {
        net: device_net.params(device),
        table: device.address_mut(&mut buffers.table),
        buckets: geometry.buckets,
        node_grow_at: u64::MAX,
        ..SearchParams::default()
    };
    if let Some(nodes) = &nodes {
        (params.nodes, params.node_generations) = nodes.addresses(device);
        params.node_grow_at = nodes.grow_at();
    }
    let (mut initial_slot, initial_nodes) =
        place_initial(device, &kernel, &mut buffers, &params, &net.initial)?;
    let mut stats_host = [0u64; stat::WORDS];
    stats_host[stat::STATES] = 1;
    stats_host[stat::PREV_STATES] = 1;
    stats_host[stat::FOUND] = u64::MAX;
    stats_host[stat::FOUND_FATAL] = u64::MAX;
    stats_host[stat::LEN] = 1;
    stats_host[stat::NODES] = initial_nodes;
    let mut stats = device.upload(&stats_host)?;
    device.synchronize()?;
    let setup = start.elapsed();
    let search_start = Instant::now();
    let max_states = search.max_states.unwrap_or(u64::MAX);
    params.stats = device.address_mut(&mut stats);
    params.max_states = max_states;
    params.first_level = 0;
    params.levels = iterations;
    params.check_deadlock = u32::from(search.check_deadlock);
    params.keep_going = u32::from(search.keep_going);
    let mut launches = 0u64;
    let mut interrupted = false;
    let counters = loop {
        let geometry = buffers.geometry;
        params.table = device.address_mut(&mut buffers.table);
        params.buckets = geometry.buckets;
        params.queue0 = device.address_mut(&mut buffers.queues[0]);
        params.queue1 = device.address_mut(&mut buffers.queues[1]);
        params.queue2 = match (buffers.queues.get_mut(2), buffers.spill.as_mut()) {
            (Some(bitmap), _) | (None, Some(bitmap)) => device.address_mut(bitmap),
            (None, None) => 0,
        };
        params.queue_capacity = geometry.queue_capacity();
        params.grow_at = if growth.can_grow {
            geometry.grow_at()
        } else {
            u64::MAX
        };
        params.spill_grows = u64::from(growth.can_grow && geometry.spill_grows());
        let mut launch = device.stream().launch_builder(&function);
        launch.arg(&params);
        // SAFETY: the block matches the kernel's (checked at compile time),
        // every buffer it addresses lives until the search returns and is
        // as large as the geometry says, and the grid is resident.
        unsafe { launch.launch_cooperative(config) }
            .map_err(GpuError::driver("launching the search kernel"))?;
        launches += 1;
        let mut counters = device
            .stream()
            .clone_dtoh(&stats)
            .map_err(GpuError::driver("running the search kernel"))?;
        params.first_level = counters[stat::LEVELS_DONE] as u32;
        if let Some(progress) = &search.progress {
            progress(&Progress {
                states: counters[stat::STATES],
                transitions: counters[stat::TRANSITIONS],
                depth: counters[stat::DEPTH] as u32,
                elapsed: search_start.elapsed(),
            });
        }
        if counters[stat::DECISION] == 0 {
            if search.stop.is_set() {
                interrupted = true;
                break counters;
            }
            continue;
        }
        let level = params.first_level as usize;
        let frontier = counters[stat::LEN + level % 3];
        let wants_room = counters[stat::STOP] == 0
            && frontier > 0
            && counters[stat::STATES] < max_states
            && counters[stat::STATES] + GROWTH_HEADROOM * frontier >= params.grow_at;
        // A level that filled the table, or the newest generation of the
        // nodes, runs again once they have grown: its input queue (or
        // bitmap) is intact, and the states it stored stay in the next
        // frontier.
        let redo = growth.can_grow && counters[stat::STOP] == stop::TABLE_FULL;
        let node_growth = node_growth(&counters, level, params.node_grow_at, max_states);
        let grow_nodes = node_growth != NodeGrowth::No;
        let rerun = redo || node_growth == NodeGrowth::Rerun;
        if !(wants_room || redo || grow_nodes) {
            break counters;
        }
        let rerun_level = if rerun { level - 1 } else { level };
        if let Some(nodes) = nodes.as_mut().filter(|_| grow_nodes) {
            nodes.grow(device, counters[stat::NODES])?;
            (params.nodes, params.node_generations) = nodes.addresses(device);
            params.node_grow_at = nodes.grow_at();
            tracing::info!(
                "GPU node table grown to {} generations ({} nodes, {}) at {} nodes",
                nodes.generations(),
                nodes.capacity(),
                crate::report::human_bytes(nodes.bytes()),
                counters[stat::NODES]
            );
            device.note_memory_use()?;
        }
        let target = if redo || wants_room {
            let lengths = queue_lengths(&counters, rerun_level, buffers.geometry.queue_count());
            let target = growth.target(&buffers.geometry, trace, &lengths);
            if target.is_none() {
                growth.can_grow = false;
                if redo {
                    break counters;
                }
            }
            target.map(|target| (target, lengths))
        } else {
            None
        };
        if rerun {
            growth.rerun_levels += 1;
            params.first_level = rerun_level as u32;
            for (now, before) in LEVEL_COUNTED.into_iter().zip(AT_LEVEL_START) {
                counters[now] = counters[before];
            }
            counters[stat::STOP] = 0;
            counters[stat::CURSOR + rerun_level % 3] = 0;
            counters[stat::SPILL_CURSOR + rerun_level % 2] = 0;
        }
        counters[stat::DECISION] = 0;
        let Some((target, lengths)) = target else {
            device.write(&counters, &mut stats)?;
            continue;
        };
        let grow_start = Instant::now();
        let mut host_slots = [initial_slot, no_slot, no_slot];
        for (k, found) in [stat::FOUND, stat::FOUND_FATAL].into_iter().enumerate() {
            if counters[found] != u64::MAX {
                host_slots[k + 1] = counters[found] & ((1 << FOUND_KIND_SHIFT) - 1);
            }
        }
        buffers = grow(
            device,
            &kernel,
            buffers,
            target,
            &lengths,
            &mut host_slots,
            &mut growth,
        )?;
        initial_slot = host_slots[0];
        for (k, found) in [stat::FOUND, stat::FOUND_FATAL].into_iter().enumerate() {
            if counters[found] != u64::MAX {
                let kind = counters[found] >> FOUND_KIND_SHIFT;
                counters[found] = (kind << FOUND_KIND_SHIFT) | host_slots[k + 1];
            }
        }
        growth.time += grow_start.elapsed();
        tracing::info!(
            "GPU table grown to {} ({} slots) at {} states in {:.3} s",
            crate::report::human_bytes(buffers.geometry.table_bytes()),
            buffers.geometry.slots(),
            counters[stat::STATES],
            grow_start.elapsed().as_secs_f64()
        );
        counters[stat::DECISION] = 0;
        device.write(&counters, &mut stats)?;
        device.note_memory_use()?;
    };

    let geometry = buffers.geometry;
    let level = params.first_level;
    let finished = counters[stat::LEN + level as usize % 3] == 0;
    let stopped = counters[stat::STOP];
    let fatal = counters[stat::FOUND_FATAL] != u64::MAX;
    let found = if fatal {
        counters[stat::FOUND_FATAL]
    } else {
        counters[stat::FOUND]
    };
    let first = match found {
        u64::MAX => None,
        found => Some(finding(
            &StoredStates {
                device,
                table: &buffers.table,
                geometry: &geometry,
                nodes: nodes.as_ref(),
                vector_words: words,
            },
            net,
            found & ((1 << FOUND_KIND_SHIFT) - 1),
            found >> FOUND_KIND_SHIFT == found::DEADLOCK,
            trace,
        )?),
    };
    let ending = ending_of(
        net,
        search,
        first.as_ref(),
        &[stopped],
        finished,
        interrupted,
    );
    let (exploration, redundancy) = exploration_of(
        &counters,
        first,
        ending,
        tree,
        &geometry,
        Measured {
            elapsed: search_start.elapsed(),
            memory_bytes: growth.peak_bytes + nodes.as_ref().map_or(0, NodeTable::bytes),
            engine,
        },
    );
    let states = exploration.states;
    let exploration = GpuExploration {
        exploration,
        table_bytes: geometry.table_bytes(),
        capacity: growth.largest.slots(),
        capacity_without_traces,
        table_fill: states as f64 / geometry.slots() as f64,
        slot_bits: if geometry.wide { 64 } else { 32 },
        capped_by_numbers: growth.largest.capped_by_numbers,
        growths: growth.growths,
        staged_growths: growth.staged,
        rerun_levels: growth.rerun_levels,
        growth_time: growth.time,
        budget,
        nodes: counters[stat::NODES],
        node_capacity: nodes.as_ref().map_or(0, NodeTable::capacity),
        node_generations: nodes.as_ref().map_or(0, NodeTable::generations),
        nodes_full: stopped == stop::NODES_FULL,
        compact_roots: geometry.compact,
        plain_attempt: None,
        redundancy,
        launches,
        setup,
        partitioning: None,
    };
    let kept = SearchTable {
        device_net,
        table: buffers.table,
        geometry,
        kernel: kernel.network,
        initial_slot,
    };
    Ok((exploration, kept))
}

/// Whether the nodes of tree storage get a generation where the search
/// kernel stopped.
#[derive(Debug, PartialEq)]
enum NodeGrowth {
    /// Not now.
    No,
    /// Before the next level: the newest generation is half full.
    BeforeLevel,
    /// The newest generation filled during the last level, which runs
    /// again.
    Rerun,
}

/// When the search kernel stopped before level `level` with `counters`,
/// whether the nodes get a generation (`node_grow_at`: `u64::MAX` where
/// they cannot grow).
fn node_growth(counters: &[u64], level: usize, node_grow_at: u64, max_states: u64) -> NodeGrowth {
    if node_grow_at == u64::MAX {
        return NodeGrowth::No;
    }
    let frontier = counters[stat::LEN + level % 3];
    match counters[stat::STOP] {
        // A level that has walked the states its queue spilled cleared
        // their marks as it read them, so it cannot run again: there the
        // nodes' filling ends the search.
        stop::NODES_FULL if level > 0 && counters[stat::SPILL_CURSOR + (level - 1) % 2] == 0 => {
            NodeGrowth::Rerun
        }
        0 if frontier > 0
            && counters[stat::STATES] < max_states
            && counters[stat::NODES] >= node_grow_at =>
        {
            NodeGrowth::BeforeLevel
        }
        _ => NodeGrowth::No,
    }
}

/// How a search ended: its first finding, why each of its tables' kernels
/// stopped (`stopped`: the `stat::STOP` of each), whether its last level
/// left no frontier (`finished`), and whether it was interrupted.
pub(super) fn ending_of(
    net: &EncodedNetwork,
    search: &SearchOptions,
    first: Option<&Finding>,
    stopped: &[u64],
    finished: bool,
    interrupted: bool,
) -> Ending {
    let room = [
        stop::TABLE_FULL,
        stop::QUEUE_FULL,
        stop::NODES_FULL,
        stop::EXCHANGE_FULL,
    ];
    Ending {
        finding_ends: outcome::finding_ends(net, search, first.map(|f| &f.kind)),
        out_of_room: stopped.iter().any(|reason| room.contains(reason)),
        state_limit: !finished && !interrupted,
        interrupted,
    }
}

/// What a search measured besides its counters.
pub(super) struct Measured {
    pub(super) elapsed: std::time::Duration,
    pub(super) memory_bytes: u64,
    pub(super) engine: String,
}

/// The figures of a search from its (merged) counters, its first finding
/// and how it ended, with time, memory and engine from `measured`; and
/// the redundant expansions in percent of the states (0 unless complete).
/// The states are stored in a table of `geometry`; with `tree`, as trees.
pub(super) fn exploration_of(
    counters: &[u64],
    first: Option<Finding>,
    ending: Ending,
    tree: bool,
    geometry: &Geometry,
    measured: Measured,
) -> (Exploration, f64) {
    let completion = ending.completion();
    let states = counters[stat::STATES];
    let expanded = counters[stat::EXPANDED];
    let unique_expansions = states - counters[stat::ERRORS];
    let redundancy = if completion == crate::explore::Completion::Complete && states > 0 {
        100.0 * expanded.saturating_sub(unique_expansions) as f64 / states as f64
    } else {
        0.0
    };
    let exploration = Exploration {
        states,
        transitions: counters[stat::TRANSITIONS],
        depth: counters[stat::DEPTH] as u32,
        deadlocks: counters[stat::DEADLOCKS],
        errors: counters[stat::ERRORS],
        monitor_blocked: counters[stat::MONITOR_BLOCKED],
        first,
        completion,
        storage: if tree { Storage::Tree } else { Storage::Plain },
        state_bytes: geometry.state_bytes(states) + 8 * counters[stat::NODES],
        elapsed: measured.elapsed,
        memory_bytes: measured.memory_bytes,
        engine: measured.engine,
    };
    (exploration, redundancy)
}

/// The entries (new states) each of `queues` frontier queues or bitmaps
/// holds before level `level` runs: its input, and what the level stored
/// so far (nothing, unless the level runs again after filling the table).
/// A third bitmap holds nothing that counts: the level clears it.
fn queue_lengths(counters: &[u64], level: usize, queues: usize) -> [u64; 3] {
    let mut lengths = [0; 3];
    lengths[level % queues] = counters[stat::LEN + level % 3];
    lengths[(level + 1) % queues] = counters[stat::LEN + (level + 1) % 3];
    lengths
}

/// How the old table is read while the new one fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OldTable {
    /// It stays on the device beside the new one.
    OnDevice,
    /// It is copied to host memory and freed first, so that the new table
    /// may take its memory; chunks come back through a staging buffer.
    Staged,
}

impl Growth {
    /// The largest table of the largest's layout in `room` bytes (with
    /// `extra_per_bucket` more a bucket): the largest of all when it fits,
    /// else, when it `may_grow` again, one whose queue does not spill.
    fn last_of(&self, room: u64, extra_per_bucket: u64, may_grow: bool) -> Geometry {
        let sized = |geometry: Geometry| {
            geometry.with_buckets(
                (room / (geometry.bytes_per_bucket() + extra_per_bucket)).min(self.largest.buckets),
            )
        };
        let last = sized(self.largest);
        if last.buckets < self.largest.buckets && may_grow {
            sized(Geometry {
                never_grows: false,
                ..self.largest
            })
        } else {
            last
        }
    }

    /// The next table for a search in `current` whose queues hold
    /// `lengths` entries (words of bitmaps with new marks); `None` when no
    /// larger table fits.
    ///
    /// While the table is growing, the next one is `GROWTH_FACTOR` times
    /// larger, beside the old one; when that one would take
    /// 1/`LAST_STEP_SHARE` of the budget, or the step after it would not
    /// fit beside it, the next is the largest that fits beside the old one
    /// (at least 4/5 of the budget) and grows no more at half fill. Only a
    /// table that fills up (or, with a spilling queue, spills) then
    /// moves, staged through host memory, into one of the whole budget.
    /// A frontier longer than a queue that may grow skips that table.
    fn target(
        &self,
        current: &Geometry,
        trace: bool,
        lengths: &[u64; 3],
    ) -> Option<(Geometry, OldTable)> {
        let chunk_buckets = current.growth_chunk_buckets(self.budget);
        let chunk_slots = chunk_buckets * current.slots_per_bucket as u64;
        let scratch = |next: &Geometry| {
            8 * chunk_slots + if trace { next.slots().div_ceil(8) } else { 0 } + 64
        };
        // Every queued entry must fit the new queues. Bitmaps hold any
        // frontier, and so does a table that never grows with spill
        // bitmaps; a frontier that spilled moves only into one whose queue
        // holds no more (it then holds the first entries, the rest are
        // marked). A table that may grow must hold the whole frontier in
        // its queue: it walks no spill bitmap, since a walked level cannot
        // run again.
        let queued = lengths.iter().copied().max().unwrap_or(0);
        let spilled = queued > current.queued(queued);
        let holds_frontier = |next: &Geometry| match current.frontier {
            Frontier::NewMarks => true,
            Frontier::SpillingQueue if next.spill_words() > 0 && !next.spill_grows() => {
                !spilled || next.queue_capacity() <= current.queue_capacity()
            }
            Frontier::Queue | Frontier::SpillingQueue => {
                !spilled && queued <= next.queue_capacity()
            }
        };
        if current.roomy_queues && !self.always_staged {
            let wanted = current.growing(current.buckets * GROWTH_FACTOR);
            let after = current.growing(wanted.buckets * GROWTH_FACTOR);
            let beside = if wanted.bytes() < self.budget / LAST_STEP_SHARE
                && wanted.bytes() + after.bytes() + scratch(&after) <= self.budget
            {
                wanted
            } else {
                // The largest table that fits beside the current one: the
                // largest of all, or one that may grow again.
                let room = self
                    .budget
                    .saturating_sub(current.bytes() + scratch(&self.largest));
                self.last_of(room, 0, true)
            };
            if beside.buckets > current.buckets
                && current.bytes() + beside.bytes() + scratch(&beside) <= self.budget
                && holds_frontier(&beside)
            {
                return Some((beside, OldTable::OnDevice));
            }
        }
        // In place: the frontier waits on the device (as the queues or
        // bitmaps it came in), next to a staging buffer of one chunk.
        let frontier_bytes = match current.frontier {
            Frontier::Queue | Frontier::SpillingQueue => {
                let entries: u64 = lengths.iter().map(|&l| current.queued(l)).sum();
                entries * current.slot_number_bytes()
                    + if spilled {
                        current.spill_words() as u64 * 4
                    } else {
                        0
                    }
            }
            Frontier::NewMarks => {
                lengths.iter().filter(|&&l| l > 0).count() as u64 * current.queue_words() as u64 * 4
            }
        };
        let staging = chunk_buckets * 128 * current.lines as u64;
        let room = self
            .budget
            .checked_sub(frontier_bytes + staging + 8 * chunk_slots + 64)?;
        let link_bytes = if trace {
            (current.slots_per_bucket as u64).div_ceil(8)
        } else {
            0
        };
        let fourfold = current.growing(current.buckets * GROWTH_FACTOR);
        let in_place = if self.always_staged
            && current.roomy_queues
            && fourfold.bytes() + if trace { fourfold.slots() / 8 } else { 0 } <= room
        {
            fourfold
        } else {
            // Only with `always_staged` does a table grown in place grow
            // again, and only when it holds the frontier in its queues.
            let last = self.last_of(room, link_bytes, self.always_staged);
            if holds_frontier(&last) {
                last
            } else {
                self.last_of(room, link_bytes, false)
            }
        };
        (in_place.buckets > current.buckets && holds_frontier(&in_place))
            .then_some((in_place, OldTable::Staged))
    }
}

/// Moves the search from `old` into an empty table of `target.0` (see
/// `kernels/explore/grow.cu`): every vector with its link, the frontier
/// queues (holding `lengths` entries, by parity) and the host's
/// `host_slots` (the initial state, the findings), renumbered.
fn grow(
    device: &Device,
    kernel: &SearchKernel,
    old: Buffers,
    target: (Geometry, OldTable),
    lengths: &[u64; 3],
    host_slots: &mut [u64; 3],
    growth: &mut Growth,
) -> Result<Buffers, GpuError> {
    let (geometry, placement) = target;
    let from = old.geometry;
    let marks = from.frontier == Frontier::NewMarks;
    let trace = kernel.trace;
    let build = kernel.build();
    let chunk_buckets = from.growth_chunk_buckets(growth.budget);
    let chunk_slots = chunk_buckets * from.slots_per_bucket as u64;
    let chunk_words = chunk_buckets as usize * from.bucket_words();

    // The frontier, where the renumbering reads it: the old queues (and
    // the spill bitmaps of a frontier that spilled), or copies of them
    // when the old buffers leave the device.
    let frontier_words = |q: usize| match from.frontier {
        _ if lengths[q] == 0 => 0,
        Frontier::Queue | Frontier::SpillingQueue => {
            from.queued(lengths[q]) as usize * (1 + usize::from(from.wide))
        }
        Frontier::NewMarks => from.queue_words(),
    };
    let spilled = (0..from.queue_count()).any(|q| from.queued(lengths[q]) < lengths[q]);
    let copy_start = Instant::now();
    let (old_on_device, old_host, old_frontier, old_spill) = match placement {
        OldTable::OnDevice => (Some(old), None, None, None),
        OldTable::Staged => {
            let table = device.copy_to_host(&old.table)?;
            let mut frontier = Vec::new();
            for (q, queue) in old.queues.iter().enumerate() {
                frontier.push(device.download(&queue.slice(0..frontier_words(q).max(1)))?);
            }
            let spill = match (&old.spill, spilled) {
                (Some(spill), true) => Some(device.download(spill)?),
                _ => None,
            };
            drop(old);
            device.synchronize()?;
            (None, Some(table), Some(frontier), spill)
        }
    };
    let copied_out = copy_start.elapsed();
    let move_start = Instant::now();
    let mut new = Buffers::allocate(device, geometry)?;
    let staged_spill = old_spill.map(|words| device.upload(&words)).transpose()?;
    let staged_frontier = match &old_frontier {
        Some(frontier) => Some(
            frontier
                .iter()
                .map(|words| device.upload(words))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        None => None,
    };
    let mut staging: Option<CudaSlice<u32>> = match placement {
        // SAFETY: a chunk is written (copied in) before the kernels read it.
        OldTable::Staged => Some(unsafe { device.alloc(chunk_words) }?),
        OldTable::OnDevice => None,
    };
    // SAFETY: `locate` writes every entry of a chunk before it is read.
    let mut moved_to: CudaSlice<u64> = unsafe { device.alloc(chunk_slots as usize) }?;
    let mut done = device.alloc_zeroed::<u32>(if trace {
        geometry.slots().div_ceil(32) as usize
    } else {
        1
    })?;
    let mut failed = device.alloc_zeroed::<u64>(1)?;
    let host_words: Vec<u32> = host_slots
        .iter()
        .flat_map(|&slot| slot_number_words_of(slot, from.wide))
        .collect();
    let host_from = device.upload(&host_words)?;
    let mut host_to = device.upload(&host_words)?;
    let used = match placement {
        OldTable::OnDevice => from.bytes(),
        OldTable::Staged => {
            chunk_words as u64 * 4 + (frontier_words(0) + frontier_words(1)) as u64 * 4
        }
    };
    growth.peak_bytes = growth
        .peak_bytes
        .max(used + geometry.bytes() + 8 * chunk_slots + done.len() as u64 * 4);
    device.note_memory_use()?;

    let config = LaunchConfig {
        grid_dim: (device.multiprocessors() * 8, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut params = GrowParams {
        table: device.address_mut(&mut new.table),
        buckets: geometry.buckets,
        slots: geometry.slots(),
        moved_to: device.address_mut(&mut moved_to),
        done: device.address_mut(&mut done),
        failed: device.address_mut(&mut failed),
        ..GrowParams::default()
    };
    let chunks: Vec<(u64, u64)> = (0..from.buckets)
        .step_by(chunk_buckets as usize)
        .map(|first| (first, chunk_buckets.min(from.buckets - first)))
        .collect();
    // Points `params.source` at chunk (first bucket, buckets).
    let mut load_chunk =
        |params: &mut GrowParams, (first, count): (u64, u64)| -> Result<(), GpuError> {
            let start = first as usize * from.bucket_words();
            let words = count as usize * from.bucket_words();
            params.source = match (&old_on_device, &old_host, staging.as_mut()) {
                (Some(old), _, _) => device.address(&old.table.slice(start..start + words)),
                (None, Some(host), Some(staging)) => {
                    device.write_from(host, start..start + words, staging)?;
                    device.address(staging)
                }
                _ => unreachable!("an old table is on the device or staged"),
            };
            params.first_slot = first * from.slots_per_bucket as u64;
            params.source_buckets = from.buckets;
            params.source_slots = count * from.slots_per_bucket as u64;
            Ok(())
        };
    // Without traces one round moves the vectors and renumbers the slot
    // numbers that refer to them (`reinsert` notes where each went); with
    // traces a link may point into a chunk not yet moved, so a second round
    // finds the vectors again and renumbers (grow.cuh).
    let rounds: &[&[&str]] = if trace {
        &[&["reinsert"], &["locate", "renumber_links"]]
    } else {
        &[&["reinsert"]]
    };
    for (round, kernels) in rounds.iter().enumerate() {
        let renumbers = round + 1 == rounds.len();
        for &chunk in &chunks {
            load_chunk(&mut params, chunk)?;
            for kernel in kernels.iter() {
                launch_grow(device, &build, kernel, &params, config)?;
            }
            if !renumbers {
                continue;
            }
            for q in (0..from.queue_count()).filter(|&q| lengths[q] > 0) {
                let source = match (&old_on_device, &staged_frontier) {
                    (Some(old), _) => device.address(&old.queues[q]),
                    (None, Some(staged)) => device.address(&staged[q]),
                    _ => unreachable!("the frontier is on the device or staged"),
                };
                if marks {
                    params.old_marks = source;
                    params.new_marks = device.address_mut(&mut new.queues[q]);
                    launch_grow(device, &build, "renumber_marks", &params, config)?;
                } else {
                    params.from = source;
                    params.to = device.address_mut(&mut new.queues[q]);
                    params.count = from.queued(lengths[q]);
                    // Into a spilling queue, what the queue cannot hold goes to
                    // the spill bitmap of the queue's level parity.
                    let new_spill = new.spill.as_mut().map(|spill| {
                        device.address_mut(spill) + (q * geometry.spill_words() / 2 * 4) as u64
                    });
                    (params.to_capacity, params.new_marks) = match new_spill {
                        Some(bitmap) => (geometry.queue_capacity(), bitmap),
                        None => (u64::MAX, 0),
                    };
                    launch_grow(device, &build, "renumber_slots", &params, config)?;
                    // What spilled before moves from bitmap to bitmap (the
                    // target's queue holds no more than the old one).
                    if params.count < lengths[q] {
                        let old_spill = match (&old_on_device, &staged_spill) {
                            (Some(old), _) => old.spill.as_ref().map(|spill| device.address(spill)),
                            (None, Some(staged)) => Some(device.address(staged)),
                            _ => None,
                        };
                        let (Some(old_spill), Some(new_spill)) = (old_spill, new_spill) else {
                            unreachable!(
                                "a frontier that spilled moves from spill bitmaps into spill bitmaps"
                            )
                        };
                        params.old_marks = old_spill + (q * from.spill_words() / 2 * 4) as u64;
                        params.new_marks = new_spill;
                        launch_grow(device, &build, "renumber_marks", &params, config)?;
                    }
                }
            }
            params.from = device.address(&host_from);
            params.to = device.address_mut(&mut host_to);
            params.count = host_slots.len() as u64;
            params.to_capacity = u64::MAX;
            launch_grow(device, &build, "renumber_slots", &params, config)?;
        }
    }
    let failures = device.download(&failed)?[0];
    if placement == OldTable::Staged {
        tracing::info!(
            "GPU table staged through host memory: {} copied out in {:.3} s, moved into the \
             new table in {:.3} s",
            crate::report::human_bytes(from.table_bytes()),
            copied_out.as_secs_f64(),
            move_start.elapsed().as_secs_f64()
        );
    }
    if failures > 0 {
        return Err(GpuError::Inconsistent {
            during: "growing the table",
            detail: format!(
                "{failures} vectors were not placed in or found again in the larger table"
            ),
        });
    }
    let renumbered = device.download(&host_to)?;
    for (k, slot) in host_slots.iter_mut().enumerate() {
        *slot = slot_number_of(&renumbered[k * (1 + usize::from(from.wide))..], from.wide);
    }
    growth.growths += 1;
    growth.staged += u32::from(placement == OldTable::Staged);
    growth.can_grow = (placement == OldTable::OnDevice || growth.always_staged)
        && geometry.buckets < growth.largest.buckets;
    Ok(new)
}

/// Stores `vector`, the initial state, in the empty table of `buffers`
/// (whose addresses `params` holds, and the node table's with tree
/// storage) and makes it the frontier of level 0: slot 0 of its home
/// bucket, or stored by a kernel as a tree. Gives its slot and the nodes
/// it took.
pub(super) fn place_initial(
    device: &Device,
    kernel: &SearchKernel,
    buffers: &mut Buffers,
    params: &SearchParams,
    vector: &[u32],
) -> Result<(u64, u64), GpuError> {
    let geometry = buffers.geometry;
    let no_slot = geometry.no_slot();
    let (slot, nodes) = if kernel.tree {
        store_initial(device, &kernel.build(), params, vector, no_slot)?
    } else {
        let home = geometry.home_bucket(hash_words(vector));
        let slot = home * geometry.slots_per_bucket as u64;
        let mut initial = vector.to_vec();
        if kernel.trace {
            initial.extend(slot_number_words_of(no_slot, geometry.wide));
        }
        let at = geometry.slot_offset(slot);
        device.write(
            &initial,
            &mut buffers.table.slice_mut(at..at + initial.len()),
        )?;
        (slot, 0)
    };
    if geometry.frontier == Frontier::NewMarks {
        let word = (slot / 32) as usize;
        device.write(
            &[1u32 << (slot % 32)],
            &mut buffers.queues[0].slice_mut(word..word + 1),
        )?;
    } else {
        let entry = slot_number_words_of(slot, geometry.wide);
        device.write(&entry, &mut buffers.queues[0].slice_mut(0..entry.len()))?;
    }
    Ok((slot, nodes))
}

/// Stores the initial state `vector` as a tree (kernel `store_initial` of
/// the search's `build`) in the empty tables of `params`: its slot and the
/// nodes it took.
fn store_initial(
    device: &Device,
    build: &crate::gpu::Build,
    params: &SearchParams,
    vector: &[u32],
    no_slot: u64,
) -> Result<(u64, u64), GpuError> {
    let store = device.function(build, "store_initial")?;
    let input = device.upload(vector)?;
    let mut out = device.alloc_zeroed::<u64>(2)?;
    let mut launch = device.stream().launch_builder(&store);
    launch.arg(params);
    launch.arg(&input);
    launch.arg(&mut out);
    let one_warp = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: the block matches the kernel's; `input` holds a vector and
    // `out` two counters; the tables `params` addresses are allocated.
    unsafe { launch.launch(one_warp) }.map_err(GpuError::driver("storing the initial state"))?;
    let out = device.download(&out)?;
    if out[0] == no_slot {
        return Err(GpuError::Invalid(
            "the initial state does not fit the tables (give more --memory)".into(),
        ));
    }
    Ok((out[0], out[1]))
}

/// Launches growth kernel `name` over `params`.
fn launch_grow(
    device: &Device,
    build: &crate::gpu::Build,
    name: &str,
    params: &GrowParams,
    config: LaunchConfig,
) -> Result<(), GpuError> {
    let function = device.function(build, name)?;
    let mut launch = device.stream().launch_builder(&function);
    launch.arg(params);
    // SAFETY: the block matches the kernel's (checked at compile time) and
    // every array it addresses is as large as the growth sized it.
    unsafe { launch.launch(config) }.map_err(GpuError::driver("growing the table"))?;
    Ok(())
}

/// `slot` as the words a kernel stores it in (low first).
fn slot_number_words_of(slot: u64, wide: bool) -> Vec<u32> {
    if wide {
        vec![slot as u32, (slot >> 32) as u32]
    } else {
        vec![slot as u32]
    }
}

/// The slot number stored in the first words of `words`.
fn slot_number_of(words: &[u32], wide: bool) -> u64 {
    if wide {
        u64::from(words[0]) | (u64::from(words[1]) << 32)
    } else {
        u64::from(words[0])
    }
}

/// Reads a search's stored states back by their links: slot numbers, as
/// predecessor links store them (with the partition above
/// `PARTITION_SHIFT` in a partitioned search).
pub(super) trait StateReader {
    /// The vector at `link` and, with `trace`, its predecessor's link
    /// (`None` for the initial state, or without traces).
    fn read(&self, link: u64, trace: bool) -> Result<(Vec<u32>, Option<u64>), GpuError>;

    /// The most states the store holds: no trace is longer.
    fn capacity(&self) -> u64;
}

/// Where a search's states are, to read them back.
pub(super) struct StoredStates<'a> {
    pub(super) device: &'a Device,
    pub(super) table: &'a CudaSlice<u32>,
    pub(super) geometry: &'a Geometry,
    /// The node table with tree storage.
    pub(super) nodes: Option<&'a NodeTable>,
    pub(super) vector_words: usize,
}

impl StateReader for StoredStates<'_> {
    fn read(&self, slot: u64, trace: bool) -> Result<(Vec<u32>, Option<u64>), GpuError> {
        let geometry = self.geometry;
        if geometry.compact {
            let at = geometry.slot_offset(slot - slot % geometry.slots_per_bucket as u64);
            let line = self.device.download(&self.table.slice(at..at + 32))?;
            let inconsistent = |detail: String| GpuError::Inconsistent {
                during: "reading a stored state",
                detail,
            };
            // The layout is the table's: with links when its slots have them.
            let links = geometry.slots_per_bucket == compact::SLOTS_WITH_LINKS;
            let decoded = compact::decode(&line, slot, geometry.buckets, links)
                .ok_or_else(|| inconsistent(format!("slot {slot} is empty")))?;
            let nodes = self
                .nodes
                .ok_or_else(|| inconsistent("compact roots without a node table".into()))?;
            let vector = nodes.vector(self.device, self.vector_words, decoded.key)?;
            return Ok((vector, decoded.link.filter(|_| trace)));
        }
        let stored = read_slot(self.device, self.table, self.geometry, slot)?;
        let key_words = self.geometry.words;
        let predecessor = if trace {
            Some(slot_number_of(&stored[key_words..], self.geometry.wide))
                .filter(|&link| link != self.geometry.no_slot())
        } else {
            None
        };
        let vector = match self.nodes {
            Some(nodes) => nodes.vector(self.device, self.vector_words, [stored[0], stored[1]])?,
            None => stored[..key_words].to_vec(),
        };
        Ok((vector, predecessor))
    }

    fn capacity(&self) -> u64 {
        self.geometry.slots()
    }
}

/// Reads slot `slot` (key, then predecessor when traces are on).
pub(super) fn read_slot(
    device: &Device,
    table: &CudaSlice<u32>,
    geometry: &Geometry,
    slot: u64,
) -> Result<Vec<u32>, GpuError> {
    let at = geometry.slot_offset(slot);
    device.download(&table.slice(at..at + geometry.slot_words))
}

/// The finding at `link`, with its trace rebuilt from predecessor links.
pub(super) fn finding(
    stored: &dyn StateReader,
    net: &EncodedNetwork,
    link: u64,
    deadlock: bool,
    trace: bool,
) -> Result<Finding, GpuError> {
    let (state, mut predecessor) = stored.read(link, trace)?;
    let kind = if deadlock {
        FindingKind::Deadlock
    } else {
        let error = net.error_in(&state).ok_or_else(|| GpuError::Inconsistent {
            during: "reading a finding",
            detail: "the reported error state contains no error".into(),
        })?;
        FindingKind::Error(error)
    };
    let trace = if trace {
        let mut states = vec![state.clone()];
        while let Some(link) = predecessor {
            if states.len() as u64 > stored.capacity() {
                return Err(GpuError::Inconsistent {
                    during: "rebuilding a trace",
                    detail: "the predecessor links form a cycle".into(),
                });
            }
            let (vector, before) = stored.read(link, true)?;
            states.push(vector);
            predecessor = before;
        }
        states.reverse();
        Some(
            Trace::through(net, states).ok_or_else(|| GpuError::Inconsistent {
                during: "rebuilding a trace",
                detail: "a stored predecessor does not lead to its successor".into(),
            })?,
        )
    } else {
        None
    };
    Ok(Finding { kind, state, trace })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_packs_slots_into_lines() {
        let g =
            Geometry::largest(3, true, Frontier::Queue, 1 << 20, SlotNumbers::Auto, false).unwrap();
        assert_eq!((g.slot_words, g.slots_per_bucket, g.lines), (4, 8, 1));
        assert_eq!(g.slot_offset(9), 32 + 4);
        let wide = Geometry::largest(
            40,
            false,
            Frontier::Queue,
            1 << 20,
            SlotNumbers::Auto,
            false,
        )
        .unwrap();
        assert_eq!((wide.slots_per_bucket, wide.lines), (1, 2));
        assert_eq!(wide.slot_offset(3), 3 * 64);
        assert!(g.bytes() <= 1 << 20);
        assert!(!g.wide);
    }

    #[test]
    fn large_tables_number_slots_in_64_bits_where_allowed() {
        let budget = 1 << 40;
        let narrow =
            Geometry::largest(1, true, Frontier::Queue, budget, SlotNumbers::Narrow, false)
                .unwrap();
        assert!(narrow.slots() < u32::MAX as u64 && !narrow.wide);
        let wide =
            Geometry::largest(1, true, Frontier::Queue, budget, SlotNumbers::Auto, false).unwrap();
        assert!(wide.wide && wide.slots() > u32::MAX as u64);
        // A link of two words: 3-word slots, 10 to a 32-word bucket.
        assert_eq!((wide.slot_words, wide.slots_per_bucket), (3, 10));
        assert!(wide.bytes() <= budget);
        assert_eq!(wide.no_slot(), u64::MAX);
        assert_eq!(
            slot_number_of(&slot_number_words_of(5 << 33 | 7, true), true),
            5 << 33 | 7
        );
    }

    /// Tree storage keeps its roots compact (21 to a line, 11 with links)
    /// where the table has room for the fewest buckets that allows, and
    /// plain root pairs below; a compact state counts its share of a line.
    #[test]
    fn compact_roots_need_a_table_of_their_least_size() {
        let budget = 1 << 30;
        let roots = Geometry::largest(
            2,
            false,
            Frontier::NewMarks,
            budget,
            SlotNumbers::Auto,
            true,
        )
        .unwrap();
        assert!(roots.compact && roots.buckets >= compact::MIN_BUCKETS);
        assert_eq!((roots.slots_per_bucket, roots.lines), (compact::SLOTS, 1));
        assert!(roots.bytes() <= budget);
        assert_eq!(roots.state_bytes(21), 128);
        let linked =
            Geometry::largest(2, true, Frontier::NewMarks, budget, SlotNumbers::Auto, true)
                .unwrap();
        assert_eq!(linked.slots_per_bucket, compact::SLOTS_WITH_LINKS);
        let small = 64 << 20;
        let pairs = Geometry::largest(2, false, Frontier::NewMarks, small, SlotNumbers::Auto, true)
            .unwrap();
        assert!(!pairs.compact);
        assert_eq!((pairs.slots_per_bucket, pairs.state_bytes(3)), (16, 24));
    }

    /// The largest table of compact roots (2-word keys, no links, 64-bit
    /// slot numbers) with a spilling queue in `budget` bytes.
    fn compact_spilling(budget: u64) -> Geometry {
        Geometry::largest(
            2,
            false,
            Frontier::SpillingQueue,
            budget,
            SlotNumbers::Wide,
            true,
        )
        .unwrap()
    }

    /// A search's growth from its first table, up to `largest` in `budget`.
    fn growth_within(budget: u64, largest: Geometry) -> Growth {
        Growth {
            budget,
            largest,
            can_grow: true,
            growths: 0,
            staged: 0,
            rerun_levels: 0,
            always_staged: false,
            peak_bytes: 0,
            time: std::time::Duration::ZERO,
        }
    }

    /// A spilling queue of the largest table holds 1/32 of its slots (or
    /// the entries asked), beside two spill bitmaps of a bit a slot; the
    /// whole fits the budget, at 0.75 byte a slot beyond the compact line
    /// (7 % fewer slots than bitmaps of new marks), and a growing table's
    /// queues hold a slot each.
    #[test]
    fn spilling_queues_take_a_share_of_the_slots_and_two_bitmaps() {
        let budget = 1 << 34;
        let spilling = compact_spilling(budget);
        let slots = spilling.slots();
        assert_eq!(spilling.queue_count(), 2);
        assert_eq!(spilling.queue_capacity(), slots.div_ceil(32));
        assert_eq!(spilling.spill_words() as u64, 2 * slots.div_ceil(32));
        assert!(spilling.bytes() <= budget);
        let frontier_bytes = spilling.bytes() - spilling.table_bytes();
        assert!(
            frontier_bytes * 100 <= slots * 76,
            "{frontier_bytes} bytes for {slots} slots"
        );
        let marks = Geometry::largest(
            2,
            false,
            Frontier::NewMarks,
            budget,
            SlotNumbers::Wide,
            true,
        )
        .unwrap();
        assert!(spilling.slots() * 100 >= marks.slots() * 93);
        let asked = Geometry {
            queue_entries: Some(5),
            ..spilling
        };
        assert_eq!(asked.queue_capacity(), 5);
        assert_eq!(
            asked.growing(1 << 21).queue_capacity(),
            (1 << 21) * compact::SLOTS as u64
        );
    }

    /// A first table asked for a small share of the budget has roomy
    /// queues; asked for most of it (where roomy queues would not fit), it
    /// keeps the buckets asked with the queues of a table that grows when
    /// it fills or spills; asked for more than those fit (a spilling
    /// queue's share of a table that may grow is 8 times that of one that
    /// never grows), or for the whole budget, it is the largest.
    #[test]
    fn first_tables_fit_the_budget() {
        let budget = 1 << 34;
        let spilling = compact_spilling(budget);
        let plain =
            Geometry::largest(3, false, Frontier::Queue, budget, SlotNumbers::Auto, false).unwrap();
        for (largest, most) in [
            (spilling, spilling.buckets / 2),
            (plain, plain.buckets / 4 * 3),
        ] {
            let small = largest.first_table(1 << 10, budget);
            assert_eq!(
                (small.buckets, small.queue_capacity()),
                (1 << 10, small.slots())
            );
            assert_eq!(small.grow_at(), small.slots() / 2);
            assert!(largest.growing(most).bytes() > budget);
            let first = largest.first_table(most, budget);
            assert_eq!(first.buckets, most);
            assert!(first.bytes() <= budget);
            assert!(!first.never_grows && first.queue_capacity() < first.slots());
            assert_eq!(first.grow_at(), u64::MAX);
            assert_eq!(largest.first_table(u64::MAX, budget), largest);
        }
        assert_eq!(
            spilling.first_table(spilling.buckets / 4 * 3, budget),
            spilling
        );
    }

    /// 32-bit slot numbers cap a table only where the memory would hold
    /// more slots than they reach: a table of 3.7e9 slots with traces in
    /// 70 GiB filled its memory, not its numbers (session 45's Parking-PT-208
    /// on an H100 was told otherwise).
    #[test]
    fn only_a_budget_beyond_32_bit_numbers_is_capped_by_them() {
        // (numbers asked, budget, wide numbers, capped by narrow ones); the
        // last is that run's table budget (70 GiB less the node table).
        let cases = [
            (SlotNumbers::Narrow, 1u64 << 40, false, true),
            (SlotNumbers::Narrow, 1 << 30, false, false),
            (SlotNumbers::Auto, 1 << 40, true, false),
            (SlotNumbers::Auto, 46 << 30, false, false),
        ];
        for (numbers, budget, wide, capped) in cases {
            let largest =
                Geometry::largest(2, true, Frontier::NewMarks, budget, numbers, true).unwrap();
            let slots = largest.slots();
            let case = format!("{numbers:?} numbers in {budget} bytes: {slots} slots");
            assert_eq!(
                (largest.wide, largest.capped_by_numbers),
                (wide, capped),
                "{case}"
            );
            assert!(wide || slots < u64::from(u32::MAX), "{case}");
        }
    }

    #[test]
    fn geometry_rejects_tiny_budgets() {
        assert!(matches!(
            Geometry::largest(1, true, Frontier::Queue, 100, SlotNumbers::Auto, false),
            Err(GpuError::Invalid(_))
        ));
    }

    #[test]
    fn nodes_grow_between_levels_and_rerun_a_level_only_before_its_spilled_states() {
        let stopped = |stop: u64, nodes: u64, spill_cursors: [u64; 2]| {
            let mut counters = [0u64; stat::WORDS];
            counters[stat::STOP] = stop;
            counters[stat::NODES] = nodes;
            counters[stat::STATES] = 500;
            counters[stat::LEN + 5 % 3] = 10;
            counters[stat::SPILL_CURSOR..stat::SPILL_CURSOR + 2].copy_from_slice(&spill_cursors);
            counters
        };
        let growth =
            |counters: &[u64], grow_at, max_states| node_growth(counters, 5, grow_at, max_states);
        // Level 4 filled the newest generation: it runs again unless it
        // had claimed a chunk of its spill bitmap (cursor 4 % 2).
        let full = stopped(stop::NODES_FULL, 90, [0, 3]);
        assert_eq!(growth(&full, 100, u64::MAX), NodeGrowth::Rerun);
        let walked = stopped(stop::NODES_FULL, 90, [3, 0]);
        assert_eq!(growth(&walked, 100, u64::MAX), NodeGrowth::No);
        assert_eq!(growth(&full, u64::MAX, u64::MAX), NodeGrowth::No);
        // Between levels, from half the newest generation on.
        let half = stopped(0, 100, [0, 0]);
        assert_eq!(growth(&half, 100, u64::MAX), NodeGrowth::BeforeLevel);
        assert_eq!(growth(&half, 101, u64::MAX), NodeGrowth::No);
        assert_eq!(growth(&half, u64::MAX, u64::MAX), NodeGrowth::No);
        // Not at the state limit, the end, a full table or a finding.
        assert_eq!(growth(&half, 100, 500), NodeGrowth::No);
        let mut ended = half;
        ended[stat::LEN + 5 % 3] = 0;
        assert_eq!(growth(&ended, 100, u64::MAX), NodeGrowth::No);
        for stop in [stop::TABLE_FULL, stop::FINDING] {
            assert_eq!(
                growth(&stopped(stop, 100, [0, 0]), 100, u64::MAX),
                NodeGrowth::No
            );
        }
    }

    /// Growth goes fourfold beside the old table while the step after
    /// fits too, then to the largest table that fits beside the old one,
    /// and from there (when it fills) to the whole budget, in place.
    #[test]
    fn growth_targets_fit_the_budget() {
        let budget = 1 << 30;
        let largest =
            Geometry::largest(3, true, Frontier::Queue, budget, SlotNumbers::Auto, false).unwrap();
        let growth = growth_within(budget, largest);
        let small = largest.growing(1 << 10);
        let (next, placement) = growth.target(&small, true, &[100, 0, 0]).unwrap();
        assert_eq!((next.buckets, placement), (4 << 10, OldTable::OnDevice));
        assert_eq!(next.queue_capacity(), next.slots());
        assert_eq!(next.grow_at(), next.slots() / 2);
        let big = largest.growing(largest.buckets / 8);
        let (jump, placement) = growth.target(&big, true, &[100, 0, 0]).unwrap();
        assert_eq!(placement, OldTable::OnDevice);
        assert!(jump.bytes() + big.bytes() <= budget);
        assert!(jump.buckets >= largest.buckets / 2 && jump.buckets < largest.buckets);
        assert_eq!(jump.grow_at(), u64::MAX);
        let (last, placement) = growth.target(&jump, true, &[100, 0, 0]).unwrap();
        // The whole budget less the staging buffer and the chunk's map.
        assert_eq!(placement, OldTable::Staged);
        assert!(last.buckets > jump.buckets && last.buckets >= largest.buckets / 10 * 9);
        assert!(last.bytes() <= budget);
        assert!(growth.target(&largest, true, &[100, 0, 0]).is_none());
        // A frontier that the new queues could not hold stops growth.
        assert!(growth.target(&jump, true, &[jump.slots(), 0, 0]).is_none());
    }

    /// With a spilling queue, a roomy table has no spill bitmaps; the jump
    /// beside it (which may grow again) keeps its share of its slots in
    /// its queues, and its first spill stops the level; a frontier that
    /// spilled there moves in place into a table that never grows, whose
    /// queue holds the spilling share and no more than the jump's.
    #[test]
    fn spilling_queues_walk_spills_only_in_a_table_that_never_grows() {
        let budget = 1 << 32;
        let largest = compact_spilling(budget);
        let growth = growth_within(budget, largest);
        let big = largest.growing(largest.buckets / 8);
        assert_eq!((big.spill_words(), big.queue_capacity()), (0, big.slots()));
        assert!(!big.spill_grows());
        let (jump, placement) = growth.target(&big, false, &[100, 0, 0]).unwrap();
        assert_eq!(placement, OldTable::OnDevice);
        assert!(jump.buckets < largest.buckets);
        assert!(jump.bytes() + big.bytes() <= budget);
        assert_eq!(
            jump.queue_capacity(),
            jump.slots().div_ceil(GROWING_QUEUE_SHARE)
        );
        assert_eq!(jump.spill_words() as u64, 2 * jump.slots().div_ceil(32));
        assert!(jump.spill_grows());
        let spilled = jump.queue_capacity() + 1;
        let (last, placement) = growth.target(&jump, false, &[spilled, 0, 0]).unwrap();
        assert_eq!(placement, OldTable::Staged);
        assert!(last.buckets > jump.buckets && last.bytes() <= budget);
        assert_eq!(last.queue_capacity(), last.slots().div_ceil(32));
        assert!(last.queue_capacity() <= jump.queue_capacity());
        assert_eq!(last.spill_words() as u64, 2 * last.slots().div_ceil(32));
        assert!(!last.spill_grows() && !largest.spill_grows());
    }

    /// A table that may grow walks no spill bitmap, so a frontier longer
    /// than its queue never moves into it: growth takes a table that never
    /// grows instead, in place (session 40's call E lost expansions of
    /// entries moved past a jump's queue of 1,000, which its next level
    /// walked and then ran again).
    #[test]
    fn a_frontier_longer_than_a_growing_tables_queue_moves_where_spills_are_walked() {
        let budget = 1 << 32;
        let largest = Geometry {
            queue_entries: Some(1000),
            ..compact_spilling(budget)
        };
        let mut growth = growth_within(budget, largest);
        let big = largest.growing(largest.buckets / 8);
        let (jump, _) = growth.target(&big, false, &[1000, 0, 0]).unwrap();
        assert!(jump.spill_grows() && jump.queue_capacity() == 1000);
        let (past, placement) = growth.target(&big, false, &[1001, 0, 0]).unwrap();
        assert_eq!(placement, OldTable::Staged);
        assert!(past.spill_words() > 0 && !past.spill_grows());
        // Growing in place always: a spilled frontier skips the tables
        // that may grow again.
        growth.always_staged = true;
        let (again, placement) = growth.target(&jump, false, &[1001, 0, 0]).unwrap();
        assert_eq!(placement, OldTable::Staged);
        assert!(again.buckets > jump.buckets && again.spill_words() > 0 && !again.spill_grows());
        let (unspilled, _) = growth.target(&jump, false, &[1000, 0, 0]).unwrap();
        assert!(unspilled.spill_grows());
    }

    #[test]
    fn default_groups_follow_the_process_count() {
        assert_eq!(group_size(1), 1);
        assert_eq!(group_size(48), 1);
        assert_eq!(group_size(49), 8);
        assert_eq!(group_size(61), 8);
        assert_eq!(group_size(84), 8);
        assert_eq!(group_size(100), 16);
        assert_eq!(group_size(1500), 32);
    }
}
