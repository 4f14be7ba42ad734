//! Host side of a GPU search: table geometry, device buffers, the launch
//! loop over breadth-first levels, and trace reconstruction from the
//! predecessor slots stored in the table.

use std::time::Instant;

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::device_net::DeviceNet;
use super::kernel::{NetworkKernel, SearchKernel, SearchParams, found, stat, stop};
use super::{Frontier, GpuExploration, GpuOptions, ReadOnlyPath, SyncCombination};
use crate::encode::{EncodedNetwork, hash_words};
use crate::explore::outcome::{self, Ending};
use crate::explore::{Exploration, Finding, FindingKind, Progress, SearchOptions, Trace};
use crate::gpu::{Device, GpuError};

/// Predecessor of the initial state, and "no slot" (the kernels' `NO_SLOT`).
const NO_SLOT: u32 = u32::MAX;
/// Shared memory a block may use without opting in to more.
const SHARED_LIMIT: usize = 48 * 1024;
/// Default breadth-first levels per launch.
const DEFAULT_ITERATIONS: u32 = 32;
/// Default threads per block.
const DEFAULT_THREADS: u32 = 256;
/// Memory left to the driver and other users when the table takes the rest.
const RESERVED_MEMORY: u64 = 512 << 20;

/// Shape of the global table and the frontier queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Geometry {
    /// Words of a state vector.
    pub(super) words: usize,
    /// Words of a slot: the vector, then the predecessor slot with traces.
    pub(super) slot_words: usize,
    /// Slots in one bucket.
    pub(super) slots_per_bucket: usize,
    /// 32-word lines in one bucket.
    pub(super) lines: usize,
    /// Buckets in the table.
    pub(super) buckets: u64,
    /// Entries of each of the two frontier queues, or words of each of
    /// the two bitmaps of new marks.
    pub(super) queue_capacity: u64,
}

impl Geometry {
    /// The largest table (plus two queues of a quarter of its slots each,
    /// or two bitmaps of a bit a slot) that fits in `budget` bytes. Slot
    /// numbers are 32-bit, so the table never has more than `u32::MAX - 1`
    /// slots.
    fn new(
        words: usize,
        trace: bool,
        frontier: Frontier,
        budget: u64,
    ) -> Result<Geometry, GpuError> {
        let slot_words = words + usize::from(trace);
        let (slots_per_bucket, lines) = if slot_words <= 32 {
            (32 / slot_words, 1)
        } else {
            (1, slot_words.div_ceil(32))
        };
        let bucket_bytes = 128 * lines as u64;
        let per_bucket = bucket_bytes
            + match frontier {
                Frontier::Queue => 2 * slots_per_bucket as u64, // 2 queues x 4 B / 4
                Frontier::NewMarks => (2 * slots_per_bucket as u64).div_ceil(8),
            };
        let buckets = (budget / per_bucket).min((u32::MAX as u64 - 1) / slots_per_bucket as u64);
        if buckets < 2 {
            return Err(GpuError::Invalid(format!(
                "{budget} bytes of GPU memory cannot hold a table of {bucket_bytes}-byte buckets"
            )));
        }
        let slots = buckets * slots_per_bucket as u64;
        Ok(Geometry {
            words,
            slot_words,
            slots_per_bucket,
            lines,
            buckets,
            queue_capacity: match frontier {
                Frontier::Queue => slots.div_ceil(4).max(64),
                Frontier::NewMarks => slots.div_ceil(32).max(64),
            },
        })
    }

    fn bucket_words(&self) -> usize {
        32 * self.lines
    }

    pub(super) fn slots(&self) -> u64 {
        self.buckets * self.slots_per_bucket as u64
    }

    fn table_bytes(&self) -> u64 {
        self.buckets * self.bucket_words() as u64 * 4
    }

    fn queue_bytes(&self) -> u64 {
        2 * self.queue_capacity * 4
    }

    /// Word offset of slot `slot` in the table.
    pub(super) fn slot_offset(&self, slot: u32) -> usize {
        let spb = self.slots_per_bucket;
        (slot as usize / spb) * self.bucket_words() + (slot as usize % spb) * self.slot_words
    }

    /// Home bucket of a vector with hash `hash` (the kernel's mapping).
    fn home_bucket(&self, hash: u64) -> u64 {
        ((hash as u128 * self.buckets as u128) >> 64) as u64
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

/// What a search leaves on the device for the passes after it.
pub(super) struct SearchTable {
    pub(super) device_net: DeviceNet,
    pub(super) table: CudaSlice<u32>,
    pub(super) geometry: Geometry,
    /// The kernel variant the search ran: the passes read the table and
    /// the network as it did.
    pub(super) kernel: NetworkKernel,
    pub(super) initial_slot: u32,
}

/// Runs the whole search from an initial state that is not an error
/// state, and keeps its table.
pub(super) fn run(
    device: &Device,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
) -> Result<(GpuExploration, SearchTable), GpuError> {
    let start = Instant::now();
    let trace = !search.no_trace;
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
    let device_net = DeviceNet::upload(device, net, options.readonly_path, options.owners)?;
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
        (4096 / words).clamp(8, 128)
    } else {
        0
    };
    let marks = options.frontier == Frontier::NewMarks;
    // The marked slots' list takes 32 words a warp.
    let warp_shared = 4
        * (words * (32 / group + 32 + cache_entries) + 32 * usize::from(marks) + 32 * offer_words);
    let requested_threads = options.threads_per_block.unwrap_or(DEFAULT_THREADS);
    if requested_threads == 0 || !requested_threads.is_multiple_of(32) || requested_threads > 1024 {
        return Err(GpuError::Invalid(format!(
            "threads per block must be a multiple of 32 between 32 and 1024, not {requested_threads}"
        )));
    }
    let warps = (requested_threads as usize / 32).min(SHARED_LIMIT / warp_shared);
    if warps == 0 {
        return Err(GpuError::Invalid(format!(
            "state vectors of {words} words need more shared memory per warp \
             ({warp_shared} bytes) than a block has"
        )));
    }
    let threads = 32 * warps as u32;
    let shared_bytes = (warps * warp_shared) as u32;

    let free = device.free_memory()?;
    let budget = match search.memory_bytes {
        Some(bytes) if bytes > free => {
            return Err(GpuError::OutOfMemory {
                requested: bytes,
                free,
            });
        }
        Some(bytes) => bytes,
        None => free.saturating_sub(RESERVED_MEMORY) / 10 * 9,
    };
    let geometry = Geometry::new(words, trace, options.frontier, budget)?;
    let read_path = device_net.read_path(options.readonly_path);
    let kernel = SearchKernel {
        network: NetworkKernel {
            vec_words: words,
            slot_words: geometry.slot_words,
            slots_per_bucket: geometry.slots_per_bucket,
            bucket_lines: geometry.lines,
            group_threads: group,
            read_path,
        },
        trace,
        cache_entries,
        work_claiming: options.work_claiming,
        frontier: options.frontier,
        sync: options.sync,
        max_offers,
        warps,
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
    let iterations = options.iterations.unwrap_or(DEFAULT_ITERATIONS).max(1);
    let engine = format!(
        "{}; {blocks} blocks x {threads} threads, {words}-word vectors in groups of \
         {group} threads, {} slots per bucket, network read through {}",
        super::engine_name(device),
        geometry.slots_per_bucket,
        match read_path {
            ReadOnlyPath::Texture => "textures",
            ReadOnlyPath::Ldg => "__ldg",
            ReadOnlyPath::Plain => "plain loads",
        }
    );

    let table_words = geometry.buckets as usize * geometry.bucket_words();
    // SAFETY: the table is filled with the empty pattern right below; the
    // queues are only read below the lengths the kernel wrote.
    let mut table: CudaSlice<u32> = unsafe { device.alloc(table_words) }?;
    // SAFETY: as above.
    let mut queue0: CudaSlice<u32> = unsafe { device.alloc(geometry.queue_capacity as usize) }?;
    // SAFETY: as above.
    let mut queue1: CudaSlice<u32> = unsafe { device.alloc(geometry.queue_capacity as usize) }?;
    {
        let pointer = device.address_mut(&mut table);
        // SAFETY: `pointer` addresses the table's `table_words * 4` bytes.
        unsafe {
            cudarc::driver::result::memset_d8_async(
                pointer,
                0xFF,
                table_words * 4,
                device.stream().cu_stream(),
            )
        }
        .map_err(GpuError::driver("clearing the table"))?;
    }
    device.note_memory_use()?;

    // The initial state: slot 0 of its home bucket, the only state of level 0.
    let home = geometry.home_bucket(hash_words(&net.initial));
    let initial_slot = (home * geometry.slots_per_bucket as u64) as u32;
    let mut initial = net.initial.clone();
    if trace {
        initial.push(NO_SLOT);
    }
    let at = geometry.slot_offset(initial_slot);
    device.write(&initial, &mut table.slice_mut(at..at + initial.len()))?;
    if marks {
        let clear = |queue: &mut CudaSlice<u32>| {
            device
                .stream()
                .memset_zeros(queue)
                .map_err(GpuError::driver("clearing the new marks"))
        };
        clear(&mut queue0)?;
        clear(&mut queue1)?;
        let word = initial_slot as usize / 32;
        device.write(
            &[1u32 << (initial_slot % 32)],
            &mut queue0.slice_mut(word..word + 1),
        )?;
    } else {
        device.write(&[initial_slot], &mut queue0.slice_mut(0..1))?;
    }
    let mut stats_host = [0u64; stat::WORDS];
    stats_host[stat::STATES] = 1;
    stats_host[stat::PREV_STATES] = 1;
    stats_host[stat::FOUND] = u64::MAX;
    stats_host[stat::FOUND_FATAL] = u64::MAX;
    stats_host[stat::LEN] = 1;
    let mut stats = device.upload(&stats_host)?;
    device.synchronize()?;
    let setup = start.elapsed();
    let search_start = Instant::now();
    let config = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: shared_bytes,
    };
    let mut params = SearchParams {
        net: device_net.params(device),
        table: device.address_mut(&mut table),
        buckets: geometry.buckets,
        queue0: device.address_mut(&mut queue0),
        queue1: device.address_mut(&mut queue1),
        queue_capacity: geometry.queue_capacity,
        stats: device.address_mut(&mut stats),
        max_states: search.max_states.unwrap_or(u64::MAX),
        first_level: 0,
        levels: iterations,
        check_deadlock: u32::from(search.check_deadlock),
        keep_going: u32::from(search.keep_going),
    };
    let mut launches = 0u64;
    let mut interrupted = false;
    let counters = loop {
        let mut launch = device.stream().launch_builder(&function);
        launch.arg(&params);
        // SAFETY: the block matches the kernel's (checked at compile time),
        // every buffer it addresses lives until the search returns and is
        // as large as the geometry says, and the grid is resident.
        unsafe { launch.launch_cooperative(config) }
            .map_err(GpuError::driver("launching the search kernel"))?;
        launches += 1;
        let counters = device
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
        if counters[stat::DECISION] != 0 {
            break counters;
        }
        if search.stop.is_set() {
            interrupted = true;
            break counters;
        }
    };

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
            device,
            net,
            &table,
            &geometry,
            found as u32,
            found >> 32 == found::DEADLOCK,
            trace,
        )?),
    };
    let ending = Ending {
        finding_ends: outcome::finding_ends(net, search, first.as_ref().map(|f| &f.kind)),
        out_of_room: stopped == stop::TABLE_FULL || stopped == stop::QUEUE_FULL,
        state_limit: !finished && !interrupted,
        interrupted,
    };
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
        elapsed: search_start.elapsed(),
        memory_bytes: geometry.table_bytes() + geometry.queue_bytes(),
        engine,
    };
    let capacity_without_traces = Geometry::new(words, false, options.frontier, budget)?.slots();
    let exploration = GpuExploration {
        exploration,
        table_bytes: geometry.table_bytes(),
        capacity: geometry.slots(),
        capacity_without_traces,
        table_fill: states as f64 / geometry.slots() as f64,
        redundancy,
        launches,
        setup,
    };
    let kept = SearchTable {
        device_net,
        table,
        geometry,
        kernel: kernel.network,
        initial_slot,
    };
    Ok((exploration, kept))
}

/// Reads slot `slot` (vector, then predecessor when traces are on).
pub(super) fn read_slot(
    device: &Device,
    table: &CudaSlice<u32>,
    geometry: &Geometry,
    slot: u32,
) -> Result<Vec<u32>, GpuError> {
    let at = geometry.slot_offset(slot);
    device.download(&table.slice(at..at + geometry.slot_words))
}

/// The finding at `slot`, with its trace rebuilt from predecessor slots.
fn finding(
    device: &Device,
    net: &EncodedNetwork,
    table: &CudaSlice<u32>,
    geometry: &Geometry,
    slot: u32,
    deadlock: bool,
    trace: bool,
) -> Result<Finding, GpuError> {
    let words = geometry.words;
    let stored = read_slot(device, table, geometry, slot)?;
    let state = stored[..words].to_vec();
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
        let mut predecessor = stored[words];
        while predecessor != NO_SLOT {
            let stored = read_slot(device, table, geometry, predecessor)?;
            states.push(stored[..words].to_vec());
            predecessor = stored[words];
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
        let g = Geometry::new(3, true, Frontier::Queue, 1 << 20).unwrap();
        assert_eq!((g.slot_words, g.slots_per_bucket, g.lines), (4, 8, 1));
        assert_eq!(g.slot_offset(9), 32 + 4);
        let wide = Geometry::new(40, false, Frontier::Queue, 1 << 20).unwrap();
        assert_eq!((wide.slots_per_bucket, wide.lines), (1, 2));
        assert_eq!(wide.slot_offset(3), 3 * 64);
        assert!(g.table_bytes() + g.queue_bytes() <= 1 << 20);
    }

    #[test]
    fn geometry_keeps_slot_numbers_below_32_bits() {
        let g = Geometry::new(1, false, Frontier::Queue, 1 << 40).unwrap();
        assert!(g.slots() < u32::MAX as u64);
    }

    #[test]
    fn geometry_rejects_tiny_budgets() {
        assert!(matches!(
            Geometry::new(1, true, Frontier::Queue, 100),
            Err(GpuError::Invalid(_))
        ));
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
