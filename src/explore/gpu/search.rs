//! Host side of a GPU search: table geometry, device buffers, the launch
//! loop over breadth-first levels, and trace reconstruction from the
//! predecessor slots stored in the table.

use std::time::{Duration, Instant};

use cudarc::driver::{
    CudaSlice, DevicePtr, DevicePtrMut, LaunchArgs, LaunchConfig, PushKernelArg, sys,
};

use super::{
    Edge, Frontier, Gpu, GpuError, GpuExploration, GpuOptions, ReadOnlyPath, SyncCombination, rules,
};
use crate::encode::{EncodedNetwork, INDEPENDENT, OwnerChoice, hash_words};
use crate::explore::{
    Completion, Exploration, Finding, FindingKind, Progress, SearchOptions, Trace, is_fatal,
};

// Indices into the kernel's statistics array (see kernels/explore.cu).
const ST_STATES: usize = 0;
const ST_TRANSITIONS: usize = 1;
const ST_DEADLOCKS: usize = 2;
const ST_ERRORS: usize = 3;
const ST_MONITOR_BLOCKED: usize = 4;
const ST_STOP: usize = 5;
const ST_FOUND: usize = 6;
const ST_DEPTH: usize = 7;
const ST_LEVELS_DONE: usize = 10;
const ST_DECISION: usize = 11;
const ST_PREV_STATES: usize = 12;
const ST_EXPANDED: usize = 13;
const ST_FOUND_FATAL: usize = 14;
const ST_LEN: usize = 16;
const ST_WORDS: usize = 24;

/// Kernel stop reasons that mean the store ran out of room.
const STOP_TABLE_FULL: u64 = 2;
const STOP_QUEUE_FULL: u64 = 3;
/// Finding kinds in `ST_FOUND`.
const FOUND_DEADLOCK: u64 = 1;
/// Predecessor of the initial state, and "no slot".
const NO_SLOT: u32 = u32::MAX;
/// Buckets probed before an insertion gives up (table full).
const MAX_PROBES: i64 = 128;
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
struct Geometry {
    /// Words of a state vector.
    words: usize,
    /// Words of a slot: the vector, then the predecessor slot with traces.
    slot_words: usize,
    /// Slots in one bucket.
    slots_per_bucket: usize,
    /// 32-word lines in one bucket.
    lines: usize,
    /// Buckets in the table.
    buckets: u64,
    /// Entries of each of the two frontier queues, or words of each of
    /// the two bitmaps of new marks.
    queue_capacity: u64,
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

    fn slots(&self) -> u64 {
        self.buckets * self.slots_per_bucket as u64
    }

    fn table_bytes(&self) -> u64 {
        self.buckets * self.bucket_words() as u64 * 4
    }

    fn queue_bytes(&self) -> u64 {
        2 * self.queue_capacity * 4
    }

    /// Word offset of slot `slot` in the table.
    fn slot_offset(&self, slot: u32) -> usize {
        let spb = self.slots_per_bucket;
        (slot as usize / spb) * self.bucket_words() + (slot as usize % spb) * self.slot_words
    }

    /// Home bucket of a vector with hash `hash` (the kernel's mapping).
    fn home_bucket(&self, hash: u64) -> u64 {
        ((hash as u128 * self.buckets as u128) >> 64) as u64
    }
}

/// Default threads per vector group for a network of `processes`
/// processes. Measured on eight MCC models (docs/GPU.md, "Vector
/// groups"): one thread a state is fastest up to about 48 processes (a
/// warp then expands 32 states at once and fills its insertion batches);
/// beyond that, a thread's walk over all processes grows long and lanes
/// diverge, so a group gets about one thread per 8 processes (the nearest
/// power of two), at most a warp.
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

/// Device copies of the encoded network's read-only arrays.
struct DeviceNet {
    /// `[word, shift, mask, 0]` per process (one 16-byte load).
    fields: CudaSlice<u32>,
    proc_offsets: CudaSlice<u32>,
    transitions: CudaSlice<u32>,
    /// The successor tables (see [`rules`]).
    item_offsets: CudaSlice<u32>,
    items: CudaSlice<u32>,
    others: CudaSlice<u32>,
    lookup: CudaSlice<u32>,
    /// `[process, state, fatal]` of every error state, in encoding order.
    error_locals: CudaSlice<u32>,
    /// StateOffsets, and the process of each `others` row: read by the
    /// shared-memory combination ([`SyncCombination::SharedBuffers`]).
    state_offsets: CudaSlice<u32>,
    other_processes: CudaSlice<u32>,
    /// Texture objects over the seven arrays above that the kernels take
    /// first, in their parameter order, when they read through textures.
    textures: Option<Textures>,
}

/// Texture objects over linear device memory, destroyed with this value.
struct Textures {
    handles: [sys::CUtexObject; 7],
    /// Copies of the arrays, each starting at an address aligned as
    /// textures need (the handles point into them).
    _memory: Vec<CudaSlice<u32>>,
}

impl Drop for Textures {
    fn drop(&mut self) {
        for &handle in self.handles.iter().filter(|&&h| h != 0) {
            // SAFETY: each handle was created once and is destroyed once;
            // the kernels that read it have finished (the stream is
            // synchronised before a search returns).
            let _ = unsafe { sys::cuTexObjectDestroy(handle) };
        }
    }
}

impl DeviceNet {
    /// Pushes the arrays that every kernel takes first, in the kernels'
    /// parameter order: texture handles or device pointers.
    fn push_args<'a>(&'a self, launch: &mut LaunchArgs<'a>) {
        match &self.textures {
            Some(textures) => {
                for handle in &textures.handles {
                    launch.arg(handle);
                }
            }
            None => {
                launch
                    .arg(&self.fields)
                    .arg(&self.proc_offsets)
                    .arg(&self.item_offsets)
                    .arg(&self.items)
                    .arg(&self.transitions)
                    .arg(&self.others)
                    .arg(&self.lookup);
            }
        }
    }

    fn upload(
        gpu: &Gpu,
        net: &EncodedNetwork,
        path: ReadOnlyPath,
        owners: OwnerChoice,
    ) -> Result<DeviceNet, GpuError> {
        let fields: Vec<u32> = net
            .layout
            .fields
            .iter()
            .flat_map(|f| [f.word, f.shift, ((1u64 << f.bits) - 1) as u32, 0])
            .collect();
        let tables = rules::build(net, rules::MAX_LOOKUP_ROWS, owners)?;
        let error_locals: Vec<u32> = (0..net.error_locals.len())
            .flat_map(|i| {
                let e = &net.error_locals[i];
                [
                    e.process as u32,
                    e.state,
                    u32::from(is_fatal(net, &FindingKind::Error(i))),
                ]
            })
            .collect();
        // Never upload an empty array: a zero-byte allocation is not portable.
        let upload = |data: &[u32]| {
            let padded: Vec<u32> = if data.is_empty() {
                vec![0]
            } else {
                data.to_vec()
            };
            gpu.stream
                .clone_htod(&padded)
                .map_err(GpuError::driver("copying the network to the GPU"))
        };
        let mut device_net = DeviceNet {
            fields: upload(&fields)?,
            proc_offsets: upload(&net.proc_offsets)?,
            transitions: upload(&net.transitions)?,
            item_offsets: upload(&tables.item_offsets)?,
            items: upload(&tables.items)?,
            others: upload(&tables.others)?,
            lookup: upload(&tables.lookup)?,
            error_locals: upload(&error_locals)?,
            state_offsets: upload(&net.state_offsets)?,
            other_processes: upload(&tables.other_processes)?,
            textures: None,
        };
        if path == ReadOnlyPath::Texture {
            device_net.textures = device_net.textures(gpu)?;
        }
        Ok(device_net)
    }

    /// Texture objects over the seven network arrays, with the texel
    /// width (u32 channels) that each is read with; `None` when an array
    /// is longer than the device's linear textures allow (the kernel then
    /// reads through `__ldg`).
    fn textures(&self, gpu: &Gpu) -> Result<Option<Textures>, GpuError> {
        let attribute = |attribute| {
            gpu.context
                .attribute(attribute)
                .map_err(GpuError::driver("querying texture limits"))
        };
        let max_texels =
            attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH)?
                as usize;
        let alignment = attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT)?
            .max(4) as u64;
        let arrays: [(&CudaSlice<u32>, u32, &str); 7] = [
            (&self.fields, 4, "process fields"),
            (&self.proc_offsets, 1, "process offsets"),
            (&self.item_offsets, 1, "item offsets"),
            (&self.items, 4, "items"),
            (&self.transitions, 1, "transitions"),
            (&self.others, 4, "rule participants"),
            (&self.lookup, 2, "rule look-up rows"),
        ];
        gpu.context
            .bind_to_thread()
            .map_err(GpuError::driver("creating texture objects"))?;
        // Built up in place, so that a failure part way destroys what exists.
        let mut textures = Textures {
            handles: [0; 7],
            _memory: Vec::with_capacity(arrays.len()),
        };
        for (at, (array, channels, name)) in arrays.into_iter().enumerate() {
            let texels = array.len() / channels as usize;
            if texels > max_texels {
                tracing::info!(
                    "the {name} ({texels} texels) exceed the device's linear texture width \
                     ({max_texels}): reading the network through __ldg instead"
                );
                return Ok(None);
            }
            // A copy placed at the first aligned address of a slightly larger buffer.
            let slack = (alignment / 4) as usize;
            // SAFETY: the part the texture covers is written right below.
            let mut aligned: CudaSlice<u32> = unsafe { gpu.stream.alloc(array.len() + slack) }
                .map_err(GpuError::driver("allocating texture memory"))?;
            let (base, _) = aligned.device_ptr(&gpu.stream);
            let skip = ((alignment - base % alignment) % alignment / 4) as usize;
            gpu.stream
                .memcpy_dtod(array, &mut aligned.slice_mut(skip..skip + array.len()))
                .map_err(GpuError::driver("copying the network to texture memory"))?;
            let pointer = base + 4 * skip as u64;
            textures._memory.push(aligned);
            // SAFETY: plain C structs; all-zero is a valid start for both.
            let mut resource: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
            resource.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_LINEAR;
            resource.res.linear = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_3 {
                devPtr: pointer,
                format: sys::CUarray_format::CU_AD_FORMAT_UNSIGNED_INT32,
                numChannels: channels,
                sizeInBytes: texels * channels as usize * 4,
            };
            // SAFETY: as above.
            let mut description: sys::CUDA_TEXTURE_DESC = unsafe { std::mem::zeroed() };
            description.flags = sys::CU_TRSF_READ_AS_INTEGER;
            // SAFETY: the descriptors are initialised and the memory stays
            // allocated as long as `self`, which outlives the handles.
            unsafe {
                sys::cuTexObjectCreate(
                    &mut textures.handles[at],
                    &resource,
                    &description,
                    std::ptr::null(),
                )
            }
            .result()
            .map_err(GpuError::driver("creating texture objects"))?;
        }
        Ok(Some(textures))
    }
}

/// An exploration that never reached the GPU: the initial state is an
/// error state, which is stored but not expanded.
fn initial_error(net: &EncodedNetwork, search: &SearchOptions, error: usize) -> Exploration {
    Exploration {
        states: 1,
        transitions: 0,
        depth: 0,
        deadlocks: 0,
        errors: 1,
        monitor_blocked: 0,
        first: Some(Finding {
            kind: FindingKind::Error(error),
            state: net.initial.clone(),
            trace: (!search.no_trace).then(|| Trace {
                states: vec![net.initial.clone()],
                actions: Vec::new(),
            }),
        }),
        completion: if search.keep_going && !is_fatal(net, &FindingKind::Error(error)) {
            Completion::Complete
        } else {
            Completion::StoppedAtFinding
        },
        elapsed: Duration::ZERO,
        memory_bytes: 0,
        engine: String::new(),
    }
}

/// What a search leaves on the device for the export pass.
struct SearchTable {
    device_net: DeviceNet,
    table: CudaSlice<u32>,
    /// The first frontier queue, free after the search: the export's edge buffer.
    queue: CudaSlice<u32>,
    geometry: Geometry,
    defines: Vec<(&'static str, i64)>,
    initial_slot: u32,
}

/// Runs the whole search; see [`Gpu::explore`].
pub(super) fn explore(
    gpu: &Gpu,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
) -> Result<GpuExploration, GpuError> {
    search_table(gpu, net, search, options).map(|(exploration, _)| exploration)
}

/// Runs the whole search and keeps its table (none when the initial state
/// is an error state and the device was not used).
fn search_table(
    gpu: &Gpu,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
) -> Result<(GpuExploration, Option<SearchTable>), GpuError> {
    let start = Instant::now();
    let engine = format!("gpu: {}", gpu.description());
    if let Some(error) = net.error_in(&net.initial) {
        let mut exploration = initial_error(net, search, error);
        exploration.engine = engine;
        exploration.elapsed = start.elapsed();
        let exploration = GpuExploration {
            exploration,
            table_bytes: 0,
            table_fill: 0.0,
            redundancy: 0.0,
            launches: 0,
            setup: Duration::ZERO,
            capacity: 0,
            capacity_without_traces: 0,
        };
        return Ok((exploration, None));
    }
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
    let device_net = DeviceNet::upload(gpu, net, options.readonly_path, options.owners)?;
    // Words of a lane's offer list (count, then rule, lo, hi per rule), as
    // the kernel's OFFER_WORDS.
    // Computed only for the shared-memory combination (a walk over every
    // local state's entries); 1 otherwise, as the kernel needs the constant.
    let max_offers = if buffers {
        net.max_rules_offered().max(1)
    } else {
        1
    };
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

    let (free, _) = gpu
        .context
        .mem_get_info()
        .map_err(GpuError::driver("querying free memory"))?;
    let free = free as u64;
    let budget = match options.memory_bytes {
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

    let read_path = match (options.readonly_path, &device_net.textures) {
        (ReadOnlyPath::Texture, None) => ReadOnlyPath::Ldg,
        (path, _) => path,
    };
    let defines: Vec<(&'static str, i64)> = vec![
        ("W", words as i64),
        ("S", geometry.slot_words as i64),
        ("SPB", geometry.slots_per_bucket as i64),
        ("LINES", geometry.lines as i64),
        ("G", group as i64),
        ("TRACE", i64::from(trace)),
        ("CACHE", cache_entries as i64),
        ("CLAIM", i64::from(options.work_claiming)),
        ("FRONTIER_BITS", i64::from(marks)),
        ("SYNC_BUFFERS", i64::from(buffers)),
        ("MAX_OFFERS", max_offers as i64),
        (
            "READ_PATH",
            match read_path {
                ReadOnlyPath::Plain => 0,
                ReadOnlyPath::Ldg => 1,
                ReadOnlyPath::Texture => 2,
            },
        ),
        ("MAX_PROBES", MAX_PROBES),
        ("WARPS", warps as i64),
    ];
    let function = gpu.kernel(&defines, "explore_levels")?;
    let resident = function
        .occupancy_max_active_blocks_per_multiprocessor(threads, shared_bytes as usize, None)
        .map_err(GpuError::driver("querying occupancy"))?
        * gpu.multiprocessors;
    if resident == 0 {
        return Err(GpuError::Invalid(format!(
            "a block of {threads} threads with {shared_bytes} bytes of shared memory cannot run"
        )));
    }
    // Blocks wait for each other at level ends, so all must be resident.
    let blocks = options.blocks.unwrap_or(resident).clamp(1, resident);
    let iterations = options.iterations.unwrap_or(DEFAULT_ITERATIONS).max(1);
    let engine = format!(
        "{engine}; {blocks} blocks x {threads} threads, {words}-word vectors in groups of \
         {group} threads, {} slots per bucket, network read through {}",
        geometry.slots_per_bucket,
        match read_path {
            ReadOnlyPath::Texture => "textures",
            ReadOnlyPath::Ldg => "__ldg",
            ReadOnlyPath::Plain => "plain loads",
        }
    );

    let stream = &gpu.stream;
    let out_of_memory = |requested: u64| move |_| GpuError::OutOfMemory { requested, free };
    let table_words = geometry.buckets as usize * geometry.bucket_words();
    // SAFETY: the table is filled with the empty pattern right below; the
    // queues are only read below the lengths the kernel wrote.
    let mut table: CudaSlice<u32> =
        unsafe { stream.alloc(table_words) }.map_err(out_of_memory(geometry.table_bytes()))?;
    let mut queue0: CudaSlice<u32> = unsafe { stream.alloc(geometry.queue_capacity as usize) }
        .map_err(out_of_memory(geometry.queue_bytes()))?;
    let mut queue1: CudaSlice<u32> = unsafe { stream.alloc(geometry.queue_capacity as usize) }
        .map_err(out_of_memory(geometry.queue_bytes()))?;
    {
        let bytes = table_words * 4;
        let (pointer, _sync) = table.device_ptr_mut(stream);
        // SAFETY: `pointer` addresses `bytes` bytes of the table.
        unsafe {
            cudarc::driver::result::memset_d8_async(pointer, 0xFF, bytes, stream.cu_stream())
        }
        .map_err(GpuError::driver("clearing the table"))?;
    }

    // The initial state: slot 0 of its home bucket, the only state of level 0.
    let home = geometry.home_bucket(hash_words(&net.initial));
    let initial_slot = (home * geometry.slots_per_bucket as u64) as u32;
    let mut initial = net.initial.clone();
    if trace {
        initial.push(NO_SLOT);
    }
    let at = geometry.slot_offset(initial_slot);
    stream
        .memcpy_htod(&initial, &mut table.slice_mut(at..at + initial.len()))
        .map_err(GpuError::driver("storing the initial state"))?;
    if marks {
        stream
            .memset_zeros(&mut queue0)
            .and_then(|()| stream.memset_zeros(&mut queue1))
            .map_err(GpuError::driver("clearing the new marks"))?;
        let word = initial_slot as usize / 32;
        stream
            .memcpy_htod(
                &[1u32 << (initial_slot % 32)],
                &mut queue0.slice_mut(word..word + 1),
            )
            .map_err(GpuError::driver("storing the initial state"))?;
    } else {
        stream
            .memcpy_htod(&[initial_slot], &mut queue0.slice_mut(0..1))
            .map_err(GpuError::driver("storing the initial state"))?;
    }
    let mut stats_host = [0u64; ST_WORDS];
    stats_host[ST_STATES] = 1;
    stats_host[ST_PREV_STATES] = 1;
    stats_host[ST_FOUND] = u64::MAX;
    stats_host[ST_FOUND_FATAL] = u64::MAX;
    stats_host[ST_LEN] = 1;
    let stats = stream
        .clone_htod(&stats_host)
        .map_err(GpuError::driver("copying counters to the GPU"))?;

    stream
        .synchronize()
        .map_err(GpuError::driver("clearing the table"))?;
    let setup = start.elapsed();
    let search_start = Instant::now();
    let config = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: shared_bytes,
    };
    let buckets = geometry.buckets;
    let queue_capacity = geometry.queue_capacity;
    let max_states = search.max_states.unwrap_or(u64::MAX);
    let process_count = processes as u32;
    let error_count = net.error_locals.len() as u32;
    let search_flags = u32::from(search.check_deadlock) | (u32::from(search.keep_going) << 1);
    let mut level = 0u32;
    let mut launches = 0u64;
    let counters = loop {
        let mut launch = stream.launch_builder(&function);
        device_net.push_args(&mut launch);
        launch
            .arg(&table)
            .arg(&buckets)
            .arg(&queue0)
            .arg(&queue1)
            .arg(&queue_capacity)
            .arg(&stats)
            .arg(&level)
            .arg(&iterations)
            .arg(&max_states)
            .arg(&device_net.error_locals)
            .arg(&error_count)
            .arg(&process_count)
            .arg(&search_flags)
            .arg(&device_net.state_offsets)
            .arg(&device_net.other_processes);
        // SAFETY: the arguments match the kernel's signature, every buffer
        // is as large as the geometry says, and the grid is resident.
        unsafe { launch.launch_cooperative(config) }
            .map_err(GpuError::driver("launching the search kernel"))?;
        launches += 1;
        let counters = stream
            .clone_dtoh(&stats)
            .map_err(GpuError::driver("running the search kernel"))?;
        level = counters[ST_LEVELS_DONE] as u32;
        if let Some(progress) = &search.progress {
            progress(&Progress {
                states: counters[ST_STATES],
                transitions: counters[ST_TRANSITIONS],
                depth: counters[ST_DEPTH] as u32,
                elapsed: search_start.elapsed(),
            });
        }
        if counters[ST_DECISION] != 0 {
            break counters;
        }
    };

    let finished = counters[ST_LEN + level as usize % 3] == 0;
    let stop = counters[ST_STOP];
    let fatal = counters[ST_FOUND_FATAL] != u64::MAX;
    let found = if fatal {
        counters[ST_FOUND_FATAL]
    } else {
        counters[ST_FOUND]
    };
    let first = match found {
        u64::MAX => None,
        found => Some(finding(
            gpu,
            net,
            &table,
            &geometry,
            found as u32,
            found >> 32 == FOUND_DEADLOCK,
            trace,
        )?),
    };
    let completion = if first.is_some() && (fatal || !search.keep_going) {
        Completion::StoppedAtFinding
    } else if stop == STOP_TABLE_FULL || stop == STOP_QUEUE_FULL {
        Completion::TableFull
    } else if !finished {
        Completion::StateLimit
    } else {
        Completion::Complete
    };
    let states = counters[ST_STATES];
    let expanded = counters[ST_EXPANDED];
    let unique_expansions = states - counters[ST_ERRORS];
    let redundancy = if completion == Completion::Complete && states > 0 {
        100.0 * expanded.saturating_sub(unique_expansions) as f64 / states as f64
    } else {
        0.0
    };
    let exploration = Exploration {
        states,
        transitions: counters[ST_TRANSITIONS],
        depth: counters[ST_DEPTH] as u32,
        deadlocks: counters[ST_DEADLOCKS],
        errors: counters[ST_ERRORS],
        monitor_blocked: counters[ST_MONITOR_BLOCKED],
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
    let stored = SearchTable {
        device_net,
        table,
        queue: queue0,
        geometry,
        defines,
        initial_slot,
    };
    Ok((exploration, Some(stored)))
}

/// Runs the search, then the export pass; see [`Gpu::explore_edges`].
pub(super) fn explore_edges(
    gpu: &Gpu,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
    sink: &mut dyn FnMut(&[Edge]) -> Result<(), String>,
) -> Result<GpuExploration, GpuError> {
    let (result, stored) = search_table(gpu, net, search, options)?;
    if let (Some(stored), Completion::Complete) = (stored, result.exploration.completion) {
        export_edges(gpu, net, &stored, &result.exploration, sink)?;
    }
    Ok(result)
}

/// An export failure: counts that disagree with the search, or the sink's.
fn export_error(detail: String) -> GpuError {
    GpuError::Driver {
        during: "exporting the state space",
        detail,
    }
}

/// Dense state numbers of the occupied slots: the rank of each slot among
/// the occupied ones, rotated so that the initial state's slot is 0.
struct SlotNumbering {
    /// Bit `j` of word `i`: slot `32 i + j` is occupied.
    bitmap: Vec<u32>,
    /// Occupied slots before word `i`.
    before: Vec<u32>,
    /// Rank of the initial state's slot.
    initial_rank: u64,
    initial_slot: u32,
}

impl SlotNumbering {
    fn new(bitmap: Vec<u32>, initial_slot: u32) -> SlotNumbering {
        let before = bitmap
            .iter()
            .scan(0u32, |count, word| {
                let at = *count;
                *count += word.count_ones();
                Some(at)
            })
            .collect();
        let mut numbering = SlotNumbering {
            bitmap,
            before,
            initial_rank: 0,
            initial_slot,
        };
        numbering.initial_rank = numbering.rank(initial_slot);
        numbering
    }

    /// Occupied slots.
    fn len(&self) -> u64 {
        self.before
            .last()
            .zip(self.bitmap.last())
            .map_or(0, |(before, word)| u64::from(*before + word.count_ones()))
    }

    fn rank(&self, slot: u32) -> u64 {
        let word = slot as usize / 32;
        let below = self.bitmap[word] & ((1u64 << (slot % 32)) - 1) as u32;
        u64::from(self.before[word] + below.count_ones())
    }

    /// The number of occupied slot `slot`.
    fn of(&self, slot: u32) -> u64 {
        let rank = self.rank(slot);
        if slot == self.initial_slot {
            0
        } else if rank < self.initial_rank {
            rank + 1
        } else {
            rank
        }
    }
}

/// Threads per block of the export kernels.
const EXPORT_THREADS: u32 = 256;

/// The export pass over the table of a complete search.
fn export_edges(
    gpu: &Gpu,
    net: &EncodedNetwork,
    stored: &SearchTable,
    exploration: &Exploration,
    sink: &mut dyn FnMut(&[Edge]) -> Result<(), String>,
) -> Result<(), GpuError> {
    let stream = &gpu.stream;
    let geometry = &stored.geometry;
    let slots = geometry.slots();
    let blocks = gpu.multiprocessors * 8;
    let config = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (EXPORT_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let bitmap_words = slots.div_ceil(32) as usize;
    // SAFETY: the kernel writes every word before it is read back.
    let mut bitmap: CudaSlice<u32> =
        unsafe { stream.alloc(bitmap_words) }.map_err(|_| GpuError::OutOfMemory {
            requested: bitmap_words as u64 * 4,
            free: gpu
                .context
                .mem_get_info()
                .map_or(0, |(free, _)| free as u64),
        })?;
    let occupied = gpu.kernel(&stored.defines, "occupied_slots")?;
    let mut launch = stream.launch_builder(&occupied);
    launch.arg(&stored.table).arg(&slots).arg(&mut bitmap);
    // SAFETY: the arguments match the kernel's signature and the bitmap
    // has a bit for every slot.
    unsafe { launch.launch(config) }.map_err(GpuError::driver("marking occupied slots"))?;
    let numbering = SlotNumbering::new(
        stream
            .clone_dtoh(&bitmap)
            .map_err(GpuError::driver("marking occupied slots"))?,
        stored.initial_slot,
    );
    drop(bitmap);
    if numbering.len() != exploration.states {
        return Err(export_error(format!(
            "the table holds {} states but the search counted {}",
            numbering.len(),
            exploration.states
        )));
    }

    let function = gpu.kernel(&stored.defines, "export_edges")?;
    let capacity = stored.queue.len() as u64 / 3;
    let mut counters = stream
        .clone_htod(&[0u64; 2])
        .map_err(GpuError::driver("copying counters to the GPU"))?;
    let device_net = &stored.device_net;
    let error_count = net.error_locals.len() as u32;
    let process_count = net.processes() as u32;
    let buckets = geometry.buckets;
    // Slots per launch: room for twice the average out-degree; halved
    // whenever a range has more transitions than the buffer holds.
    let per_slot = exploration.transitions.div_ceil(slots).max(1);
    let mut span = (capacity / (2 * per_slot)).max(1);
    let mut first = 0u64;
    let mut transitions = 0u64;
    let mut batch: Vec<Edge> = Vec::new();
    while first < slots {
        let end = slots.min(first + span);
        stream
            .memset_zeros(&mut counters)
            .map_err(GpuError::driver("clearing the export counters"))?;
        let mut launch = stream.launch_builder(&function);
        device_net.push_args(&mut launch);
        launch
            .arg(&device_net.error_locals)
            .arg(&error_count)
            .arg(&process_count)
            .arg(&stored.table)
            .arg(&buckets)
            .arg(&first)
            .arg(&end)
            .arg(&stored.queue)
            .arg(&capacity)
            .arg(&mut counters);
        // SAFETY: the arguments match the kernel's signature; the kernel
        // writes at most `capacity` edges of three words into the queue.
        unsafe { launch.launch(config) }
            .map_err(GpuError::driver("launching the export kernel"))?;
        let [count, missing] = <[u64; 2]>::try_from(
            stream
                .clone_dtoh(&counters)
                .map_err(GpuError::driver("running the export kernel"))?,
        )
        .map_err(|_| export_error("the export counters were not copied back".into()))?;
        if missing > 0 {
            return Err(export_error(format!(
                "{missing} successor(s) of stored states are not in the table"
            )));
        }
        if count > capacity {
            if end - first == 1 {
                return Err(export_error(format!(
                    "one state has {count} transitions, more than the {capacity} the buffer holds"
                )));
            }
            span = (end - first) / 2;
            continue;
        }
        let words = stream
            .clone_dtoh(&stored.queue.slice(..3 * count as usize))
            .map_err(GpuError::driver("copying transitions back"))?;
        batch.clear();
        batch.extend(words.chunks_exact(3).map(|edge| {
            let action = if edge[1] & INDEPENDENT != 0 {
                edge[1] & !INDEPENDENT
            } else {
                net.rule_actions[edge[1] as usize]
            };
            (numbering.of(edge[0]), action, numbering.of(edge[2]))
        }));
        sink(&batch).map_err(export_error)?;
        transitions += count;
        first = end;
    }
    if transitions != exploration.transitions {
        return Err(export_error(format!(
            "the export found {transitions} transitions but the search counted {}",
            exploration.transitions
        )));
    }
    Ok(())
}

/// Reads slot `slot` (vector, then predecessor when traces are on).
fn read_slot(
    gpu: &Gpu,
    table: &CudaSlice<u32>,
    geometry: &Geometry,
    slot: u32,
) -> Result<Vec<u32>, GpuError> {
    let at = geometry.slot_offset(slot);
    gpu.stream
        .clone_dtoh(&table.slice(at..at + geometry.slot_words))
        .map_err(GpuError::driver("reading a state from the table"))
}

/// The finding at `slot`, with its trace rebuilt from predecessor slots.
fn finding(
    gpu: &Gpu,
    net: &EncodedNetwork,
    table: &CudaSlice<u32>,
    geometry: &Geometry,
    slot: u32,
    deadlock: bool,
    trace: bool,
) -> Result<Finding, GpuError> {
    let words = geometry.words;
    let stored = read_slot(gpu, table, geometry, slot)?;
    let state = stored[..words].to_vec();
    let kind = if deadlock {
        FindingKind::Deadlock
    } else {
        let error = net.error_in(&state).ok_or_else(|| GpuError::Driver {
            during: "reading a finding",
            detail: "the reported error state contains no error".into(),
        })?;
        FindingKind::Error(error)
    };
    let trace = if trace {
        let mut states = vec![state.clone()];
        let mut predecessor = stored[words];
        while predecessor != NO_SLOT {
            let stored = read_slot(gpu, table, geometry, predecessor)?;
            states.push(stored[..words].to_vec());
            predecessor = stored[words];
        }
        states.reverse();
        Some(Trace::through(net, states).ok_or_else(|| GpuError::Driver {
            during: "rebuilding a trace",
            detail: "a stored predecessor does not lead to its successor".into(),
        })?)
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
