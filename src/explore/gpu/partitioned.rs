//! A search split into partitions that own the states by the hash of their
//! vectors (`PARTITIONED` in `kernels/explore/search.cu`): one partition
//! per GPU, exchanging successors through NCCL, or several partitions on
//! one GPU, exchanging them by device copies (what tests run on a machine
//! of one GPU: the same kernels and the same host loop).
//!
//! Each level, every partition expands its frontier, stores the successors
//! it owns and writes the others into an outbox region per owner; the host
//! moves the regions into the owners' inboxes, and the `absorb` kernel
//! stores them there, new states joining the owner's next frontier. A
//! partition whose outbox fills beyond half stops taking frontier work: the
//! host exchanges and runs the rest of the level. Levels stay in lockstep,
//! so counts, verdicts and trace lengths are those of one GPU. Predecessor
//! links carry their partition above [`PARTITION_SHIFT`], so traces cross
//! partitions.
//!
//! Tables do not grow here: each partition takes the largest table its
//! share of the memory holds from the start (a growth renumbers slots, and
//! every partition holds links into every other one).

use std::time::{Duration, Instant};

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};
use cudarc::nccl::safe::Comm;

use super::device_net::DeviceNet;
use super::kernel::{SearchParams, found, stat, stop};
use super::search::{
    Buffers, Geometry, Launcher, Measured, NODE_SHARE, NodeTable, StateReader, StoredStates,
    ending_of, exploration_of, finding, memory_budget, place_initial,
};
use super::{GpuExploration, GpuOptions, Partitioning, SlotNumbers};
use crate::encode::{EncodedNetwork, hash_words};
use crate::explore::outcome;
use crate::explore::{Finding, Progress, SearchOptions, Storage};
use crate::gpu::{Device, GpuError, LargeSlice};

/// A link's partition sits above this bit (the kernels' `PARTITION_SHIFT`).
pub const PARTITION_SHIFT: u32 = 56;
/// Most partitions: a link's partition takes 7 bits (the top bit of a
/// message's link is its error flag).
pub const MAX_PARTITIONS: usize = 127;
/// A partition's outboxes and inbox take at most this share of its memory.
const EXCHANGE_SHARE: u64 = 8;
/// Messages an outbox region holds at least ...
const MIN_REGION_MESSAGES: u64 = 1 << 16;
/// ... and at most.
const MAX_REGION_MESSAGES: u64 = 1 << 28;
/// What the exchange does, for error messages.
const EXCHANGING: &str = "exchanging successors between partitions";

/// The partition that owns a vector of hash `hash` (the kernels'
/// `partition_of`): from the hash's low 16 bits, which the table's home
/// bucket leaves alone.
pub fn partition_of(hash: u64, partitions: usize) -> usize {
    (((hash & 0xffff) * partitions as u64) >> 16) as usize
}

/// Words of a message (the kernels' `MESSAGE_WORDS`): the vector of
/// `words` words, the predecessor's link (two words) with `trace`, and the
/// error flag in the top bit of the last word (a word of its own without).
fn message_words(words: usize, trace: bool) -> usize {
    words + 1 + usize::from(trace)
}

/// The outbox region of partition `source` that holds messages for
/// partition `owner` (a partition has no region for itself).
fn region(source: usize, owner: usize) -> usize {
    owner - usize::from(owner > source)
}

/// One partition: its device, tables, counters and exchange buffers.
struct Partition {
    device: Device,
    /// The network's arrays, which `params` addresses (kept alive).
    _device_net: DeviceNet,
    buffers: Buffers,
    nodes: Option<NodeTable>,
    stats: CudaSlice<u64>,
    /// A region of `params.out_capacity` messages per other partition.
    outbox: LargeSlice<u32>,
    /// Messages in each region, then the flag that stops taking work.
    out_counts: CudaSlice<u64>,
    /// Room for a full region from every other partition.
    inbox: LargeSlice<u32>,
    launcher: Launcher,
    absorb: CudaFunction,
    params: SearchParams,
    /// Bytes this partition allocated.
    bytes: u64,
}

impl Partition {
    /// Runs level `level` (or the rest of it) on the partition's device.
    fn expand(&mut self, level: u32) -> Result<(), GpuError> {
        let device = &self.device;
        device
            .stream()
            .memset_zeros(&mut self.out_counts)
            .map_err(GpuError::driver(EXCHANGING))?;
        self.params.first_level = level;
        let mut launch = device.stream().launch_builder(&self.launcher.function);
        launch.arg(&self.params);
        // SAFETY: the block matches the kernel's (checked at compile time),
        // every buffer it addresses lives as long as the partition and is
        // as large as the geometry and the exchange sizes say, and the grid
        // is resident.
        unsafe { launch.launch_cooperative(self.launcher.config) }
            .map_err(GpuError::driver("launching the search kernel"))?;
        Ok(())
    }

    /// Stores the first `messages` messages of the inbox (level `level`).
    fn absorb(&mut self, messages: u64) -> Result<(), GpuError> {
        if messages == 0 {
            return Ok(());
        }
        let device = &self.device;
        let mut launch = device.stream().launch_builder(&self.absorb);
        launch.arg(&self.params);
        launch.arg(&*self.inbox);
        launch.arg(&messages);
        let config = LaunchConfig {
            grid_dim: (
                self.launcher
                    .config
                    .grid_dim
                    .0
                    .min(messages.div_ceil(32) as u32),
                1,
                1,
            ),
            ..self.launcher.config
        };
        // SAFETY: as for `expand`; the inbox holds `messages` messages.
        unsafe { launch.launch(config) }
            .map_err(GpuError::driver("storing received successors"))?;
        Ok(())
    }

    /// The reader of this partition's states.
    fn stored(&self, vector_words: usize) -> StoredStates<'_> {
        StoredStates {
            device: &self.device,
            table: &self.buffers.table,
            geometry: &self.buffers.geometry,
            nodes: self.nodes.as_ref(),
            vector_words,
        }
    }
}

/// Moves each partition's messages to the partitions that own them.
trait Exchange {
    /// How, in reports.
    fn name(&self) -> &'static str;

    /// Queues, for every pair of partitions `s != d`, the copy of
    /// `counts[s][d]` messages of `words` words from the region for `d`
    /// of `s`'s outbox into `d`'s inbox, after the messages of the
    /// partitions below `s`. The copies are done when every partition's
    /// device has finished its stream.
    fn exchange(
        &mut self,
        parts: &mut [Partition],
        counts: &[Vec<u64>],
        words: usize,
    ) -> Result<(), GpuError>;
}

/// Where `source`'s messages start in `owner`'s inbox (in messages).
fn inbox_offset(counts: &[Vec<u64>], source: usize, owner: usize) -> u64 {
    (0..source)
        .filter(|&s| s != owner)
        .map(|s| counts[s][owner])
        .sum()
}

/// Partitions of one device: device-to-device copies on its stream.
struct DeviceCopies;

impl Exchange for DeviceCopies {
    fn name(&self) -> &'static str {
        "device copies"
    }

    fn exchange(
        &mut self,
        parts: &mut [Partition],
        counts: &[Vec<u64>],
        words: usize,
    ) -> Result<(), GpuError> {
        let bytes = 4 * words as u64;
        let outboxes: Vec<u64> = parts
            .iter()
            .map(|part| part.device.address(&part.outbox))
            .collect();
        let inboxes: Vec<u64> = parts
            .iter_mut()
            .map(|part| part.device.address_mut(&mut part.inbox))
            .collect();
        let capacities: Vec<u64> = parts.iter().map(|part| part.params.out_capacity).collect();
        let stream = parts[0].device.stream().cu_stream();
        for (owner, &inbox) in inboxes.iter().enumerate() {
            for (source, &outbox) in outboxes.iter().enumerate() {
                let messages = counts[source][owner];
                if source == owner || messages == 0 {
                    continue;
                }
                let from = outbox + region(source, owner) as u64 * capacities[source] * bytes;
                let to = inbox + inbox_offset(counts, source, owner) * bytes;
                // SAFETY: both ranges lie within their buffers (counts are
                // at most a region's capacity, and the inbox holds a region
                // from every other partition); one stream orders the copy
                // after the kernels that wrote the outbox and before the
                // one that reads the inbox.
                unsafe {
                    cudarc::driver::result::memcpy_dtod_async(
                        to,
                        from,
                        (messages * bytes) as usize,
                        stream,
                    )
                }
                .map_err(GpuError::driver(EXCHANGING))?;
            }
        }
        Ok(())
    }
}

/// One partition per GPU: grouped NCCL sends and receives.
struct Nccl {
    comms: Vec<Comm>,
}

/// Whether the NCCL library (`libnccl.so`) can be loaded: what a search
/// over several GPUs needs.
pub fn nccl_available() -> bool {
    // SAFETY: only tries to load the shared library.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

impl Nccl {
    /// A communicator over `devices`' streams, rank `i` on device `i`.
    fn new(devices: &[Device]) -> Result<Nccl, GpuError> {
        if !nccl_available() {
            return Err(GpuError::Unavailable(
                "the NCCL library (libnccl.so) cannot be loaded; put the directory of \
                 libnccl.so (a link to libnccl.so.2 will do) on LD_LIBRARY_PATH"
                    .into(),
            ));
        }
        let streams = devices.iter().map(|d| d.stream().clone()).collect();
        let comms = Comm::from_devices(streams).map_err(nccl_error)?;
        Ok(Nccl { comms })
    }
}

/// An NCCL failure as a GPU failure.
fn nccl_error(error: cudarc::nccl::result::NcclError) -> GpuError {
    GpuError::Driver {
        during: EXCHANGING,
        detail: format!("NCCL: {error:?}"),
    }
}

impl Exchange for Nccl {
    fn name(&self) -> &'static str {
        "NCCL"
    }

    fn exchange(
        &mut self,
        parts: &mut [Partition],
        counts: &[Vec<u64>],
        words: usize,
    ) -> Result<(), GpuError> {
        let words = words as u64;
        cudarc::nccl::result::group_start().map_err(nccl_error)?;
        let mut queued = Ok(());
        for (rank, part) in parts.iter_mut().enumerate() {
            let comm = &self.comms[rank];
            let capacity = part.params.out_capacity;
            for peer in (0..counts.len()).filter(|&peer| peer != rank) {
                let sent = counts[rank][peer];
                if sent > 0 {
                    let at = region(rank, peer) as u64 * capacity * words;
                    let range = at as usize..(at + sent * words) as usize;
                    queued = queued.and(comm.send(&part.outbox.slice(range), peer as i32));
                }
                let received = counts[peer][rank];
                if received > 0 {
                    let at = inbox_offset(counts, peer, rank) * words;
                    let range = at as usize..(at + received * words) as usize;
                    queued = queued.and(
                        comm.recv(&mut part.inbox.slice_mut(range), peer as i32)
                            .map(drop),
                    );
                }
            }
        }
        // The group ends whatever failed inside it.
        let ended = cudarc::nccl::result::group_end();
        queued.map_err(nccl_error)?;
        ended.map_err(nccl_error)?;
        Ok(())
    }
}

/// Explores `net` split into `partitions` partitions: all on `devices[0]`
/// when `devices` has one device (successors move by device copies), or
/// one on each device of `devices` (through NCCL). The counts, verdicts
/// and trace lengths are those of [`super::explore`]; `--memory`
/// (`search.memory_bytes`) is per device.
pub fn explore_partitioned(
    devices: &[Device],
    partitions: usize,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
) -> Result<GpuExploration, GpuError> {
    if !(2..=MAX_PARTITIONS).contains(&partitions) {
        return Err(GpuError::Invalid(format!(
            "a partitioned search takes 2 to {MAX_PARTITIONS} partitions, not {partitions}"
        )));
    }
    if devices.len() != 1 && devices.len() != partitions {
        return Err(GpuError::Invalid(format!(
            "{partitions} partitions need one device or {partitions}, not {}",
            devices.len()
        )));
    }
    if !options.work_claiming {
        return Err(GpuError::Invalid(
            "a partitioned search needs work claiming (a level that stops to exchange \
             goes on where its cursor stands)"
                .into(),
        ));
    }
    let started = Instant::now();
    if let Some(exploration) =
        outcome::initial_error(net, search, super::engine_name(&devices[0]), started)
    {
        return Ok(GpuExploration::without_search(exploration));
    }
    let tree = match search.storage {
        Storage::Tree => true,
        Storage::Plain => false,
        Storage::Auto => net.words() >= super::AUTO_TREE_WORDS,
    };
    let options = &super::for_storage(options, tree);
    let mut exchange: Box<dyn Exchange> = if devices.len() == 1 {
        Box::new(DeviceCopies)
    } else {
        Box::new(Nccl::new(devices)?)
    };
    // Each device's memory, split among its partitions before any takes
    // its share.
    let share = (partitions / devices.len()) as u64;
    let budgets = devices
        .iter()
        .map(|device| Ok(memory_budget(device, search)? / share))
        .collect::<Result<Vec<u64>, GpuError>>()?;
    let mut parts = (0..partitions)
        .map(|p| {
            let at = p % devices.len();
            let (device, budget) = (&devices[at], budgets[at]);
            Partition::allocate(device, p, partitions, budget, net, search, options, tree)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let owner = partition_of(hash_words(&net.initial), partitions);
    let initial_nodes = {
        let part = &mut parts[owner];
        let (device, kernel) = (part.device.clone(), part.launcher.kernel);
        place_initial(
            &device,
            &kernel,
            &mut part.buffers,
            &part.params,
            &net.initial,
        )?
        .1
    };
    for (p, part) in parts.iter_mut().enumerate() {
        let mut stats = [0u64; stat::WORDS];
        stats[stat::FOUND] = u64::MAX;
        stats[stat::FOUND_FATAL] = u64::MAX;
        if p == owner {
            stats[stat::STATES] = 1;
            stats[stat::LEN] = 1;
            stats[stat::NODES] = initial_nodes;
        }
        part.device.write(&stats, &mut part.stats)?;
        part.device.synchronize()?;
        part.device.note_memory_use()?;
    }
    let setup = started.elapsed();
    let search_start = Instant::now();
    let words = message_words(net.words(), !search.no_trace);
    let max_states = search.max_states.unwrap_or(u64::MAX);
    let mut traffic = Partitioning {
        devices: devices.len(),
        exchange: exchange.name(),
        states: Vec::new(),
        messages: 0,
        bytes: 0,
        time: Duration::ZERO,
        rounds: 0,
        outbox_messages: parts[0].params.out_capacity,
        outbox_full: false,
    };
    let mut launches = 0u64;
    let mut level = 0u32;
    let mut depth = 0u32;
    let mut states_before = 1u64;
    let mut interrupted = false;
    let (per_partition, finished) = loop {
        // Level `level`, in as many rounds as the outboxes need.
        let per_partition = loop {
            for part in parts.iter_mut() {
                part.expand(level)?;
                launches += 1;
            }
            let mut counts = vec![vec![0u64; partitions]; partitions];
            let mut yielded = false;
            for (source, part) in parts.iter().enumerate() {
                let sent = part
                    .device
                    .download(&part.out_counts)
                    .map_err(|e| running(e, "running the search kernel"))?;
                yielded |= sent[partitions - 1] != 0;
                for owner in (0..partitions).filter(|&owner| owner != source) {
                    counts[source][owner] =
                        sent[region(source, owner)].min(part.params.out_capacity);
                }
            }
            let exchange_start = Instant::now();
            exchange.exchange(&mut parts, &counts, words)?;
            for (owner, part) in parts.iter_mut().enumerate() {
                let received = (0..partitions).map(|source| counts[source][owner]).sum();
                part.absorb(received)?;
                launches += u64::from(received > 0);
            }
            let per_partition = parts
                .iter()
                .map(|part| {
                    part.device
                        .download(&part.stats)
                        .map_err(|e| running(e, "storing received successors"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let messages: u64 = counts.iter().flatten().sum();
            tracing::debug!(
                "level {level}: {messages} successors exchanged in {:.3} ms{}",
                exchange_start.elapsed().as_secs_f64() * 1e3,
                if yielded { " (the level goes on)" } else { "" }
            );
            traffic.messages += messages;
            traffic.bytes += messages * 4 * words as u64;
            traffic.time += exchange_start.elapsed();
            traffic.rounds += 1;
            let stopped = per_partition.iter().any(|stats| stats[stat::STOP] != 0);
            if !yielded || stopped {
                break per_partition;
            }
        };
        let merged = merge(&per_partition);
        let next = (level as usize + 1) % 3;
        let frontier: u64 = per_partition
            .iter()
            .map(|stats| stats[stat::LEN + next])
            .sum();
        // The depth: the last level that stored states.
        if merged[stat::STATES] > states_before {
            depth = level + 1;
        }
        states_before = merged[stat::STATES];
        level += 1;
        if let Some(progress) = &search.progress {
            progress(&Progress {
                states: merged[stat::STATES],
                transitions: merged[stat::TRANSITIONS],
                depth,
                elapsed: search_start.elapsed(),
            });
        }
        let stopped = per_partition.iter().any(|stats| stats[stat::STOP] != 0);
        if stopped || frontier == 0 || merged[stat::STATES] >= max_states {
            break (per_partition, frontier == 0);
        }
        if search.stop.is_set() {
            interrupted = true;
            break (per_partition, false);
        }
    };
    let mut counters = merge(&per_partition);
    counters[stat::DEPTH] = u64::from(depth);
    let first = first_finding(&parts, &per_partition, net, !search.no_trace)?;
    let stopped: Vec<u64> = per_partition
        .iter()
        .map(|stats| stats[stat::STOP])
        .collect();
    let ending = ending_of(net, search, first.as_ref(), &stopped, finished, interrupted);
    traffic.states = per_partition
        .iter()
        .map(|stats| stats[stat::STATES])
        .collect();
    traffic.outbox_full = stopped.contains(&stop::EXCHANGE_FULL);
    let geometry = parts[0].buffers.geometry;
    let slots: u64 = parts.iter().map(|part| part.buffers.geometry.slots()).sum();
    let (exploration, redundancy) = exploration_of(
        &counters,
        first,
        ending,
        tree,
        &geometry,
        Measured {
            elapsed: search_start.elapsed(),
            memory_bytes: parts.iter().map(|part| part.bytes).sum(),
            engine: format!(
                "{}; {partitions} partitions on {} GPU(s), exchanging by {}",
                parts[0].launcher.engine,
                devices.len(),
                exchange.name()
            ),
        },
    );
    let states = exploration.states;
    Ok(GpuExploration {
        exploration,
        table_bytes: parts.iter().map(|p| p.buffers.geometry.table_bytes()).sum(),
        budget: parts.iter().map(|part| part.bytes).sum(),
        slot_bits: if geometry.wide { 64 } else { 32 },
        growths: 0,
        staged_growths: 0,
        rerun_levels: 0,
        growth_time: Duration::ZERO,
        table_fill: states as f64 / slots as f64,
        capacity: slots,
        capacity_without_traces: slots,
        nodes: counters[stat::NODES],
        node_capacity: parts
            .iter()
            .map(|p| p.nodes.as_ref().map_or(0, NodeTable::capacity))
            .sum(),
        nodes_full: stopped.contains(&stop::NODES_FULL),
        compact_roots: false,
        plain_attempt: None,
        redundancy,
        launches,
        setup,
        partitioning: Some(Box::new(traffic)),
    })
}

impl Partition {
    /// Partition `partition` of `partitions` on `device`, within `budget`
    /// bytes: its tables, exchange buffers and kernels.
    #[allow(clippy::too_many_arguments)]
    fn allocate(
        device: &Device,
        partition: usize,
        partitions: usize,
        budget: u64,
        net: &EncodedNetwork,
        search: &SearchOptions,
        options: &GpuOptions,
        tree: bool,
    ) -> Result<Partition, GpuError> {
        let trace = !search.no_trace;
        let words = net.words();
        let message_bytes = 4 * message_words(words, trace) as u64;
        let regions = (partitions - 1) as u64;
        let capacity = options.outbox_messages.unwrap_or_else(|| {
            (budget / EXCHANGE_SHARE / (2 * regions * message_bytes))
                .clamp(MIN_REGION_MESSAGES, MAX_REGION_MESSAGES)
        });
        if capacity < 2 {
            return Err(GpuError::Invalid(format!(
                "outbox regions of {capacity} messages cannot work"
            )));
        }
        let exchange_bytes = 2 * regions * capacity * message_bytes;
        let nodes = if tree {
            Some(NodeTable::allocate(device, budget / NODE_SHARE)?)
        } else {
            None
        };
        let node_bytes = nodes.as_ref().map_or(0, NodeTable::bytes);
        let table_budget = budget
            .checked_sub(exchange_bytes + node_bytes)
            .ok_or_else(|| {
                GpuError::Invalid(format!(
                    "{budget} bytes of GPU memory a partition cannot hold its exchange buffers \
                     ({exchange_bytes} bytes): give more --memory"
                ))
            })?;
        // Links across partitions carry the partition in their high bits.
        let numbers = if trace {
            SlotNumbers::Wide
        } else {
            options.slot_numbers
        };
        let key_words = if tree { 2 } else { words };
        // Links name their partition in their top bits: no compact roots.
        let largest = Geometry::largest(
            key_words,
            trace,
            options.frontier,
            table_budget,
            numbers,
            false,
        )?;
        let device_net = DeviceNet::upload(device, net, options.readonly_path, options.owners)?;
        let launcher = Launcher::new(
            device,
            net,
            &device_net,
            options,
            &largest,
            trace,
            tree,
            true,
        )?;
        let absorb = device.function(&launcher.kernel.build(), "absorb")?;
        let mut buffers = Buffers::allocate(device, largest)?;
        let message_words = (regions * capacity * message_bytes / 4) as usize;
        // SAFETY: only the messages the kernels counted are read (copied
        // and absorbed).
        let mut outbox = unsafe { device.alloc_large::<u32>(message_words) }?;
        // SAFETY: as for the outbox.
        let inbox = unsafe { device.alloc_large::<u32>(message_words) }?;
        let mut out_counts = device.alloc_zeroed::<u64>(partitions)?;
        let mut stats = device.alloc_zeroed::<u64>(stat::WORDS)?;
        let geometry = buffers.geometry;
        let mut params = SearchParams {
            net: device_net.params(device),
            table: device.address_mut(&mut buffers.table),
            buckets: geometry.buckets,
            queue0: device.address_mut(&mut buffers.queues[0]),
            queue1: device.address_mut(&mut buffers.queues[1]),
            queue2: match buffers.queues.get_mut(2) {
                Some(bitmap) => device.address_mut(bitmap),
                None => 0,
            },
            queue_capacity: geometry.queue_capacity(),
            stats: device.address_mut(&mut stats),
            max_states: u64::MAX,
            grow_at: u64::MAX,
            levels: 1,
            check_deadlock: u32::from(search.check_deadlock),
            keep_going: u32::from(search.keep_going),
            outbox: device.address_mut(&mut outbox),
            out_counts: device.address_mut(&mut out_counts),
            out_capacity: capacity,
            out_soft: capacity / 2,
            partition: partition as u32,
            partitions: partitions as u32,
            ..SearchParams::default()
        };
        if let Some(nodes) = &nodes {
            (params.nodes, params.node_buckets) = nodes.addresses(device);
        }
        Ok(Partition {
            device: device.clone(),
            _device_net: device_net,
            bytes: geometry.bytes() + node_bytes + exchange_bytes,
            buffers,
            nodes,
            stats,
            outbox,
            out_counts,
            inbox,
            launcher,
            absorb,
            params,
        })
    }
}

/// A failure found when reading back after `during`.
fn running(error: GpuError, during: &'static str) -> GpuError {
    match error {
        GpuError::Driver { detail, .. } => GpuError::Driver { during, detail },
        other => other,
    }
}

/// The partitions' counters as one search's: sums of what they count.
fn merge(per_partition: &[Vec<u64>]) -> Vec<u64> {
    let mut merged = vec![0u64; stat::WORDS];
    for stats in per_partition {
        for counter in [
            stat::STATES,
            stat::TRANSITIONS,
            stat::DEADLOCKS,
            stat::ERRORS,
            stat::MONITOR_BLOCKED,
            stat::EXPANDED,
            stat::NODES,
        ] {
            merged[counter] += stats[counter];
        }
    }
    merged
}

/// The finding to report: the first partition's that ends even a `--all`
/// search, else the first partition's first finding; its trace crosses
/// partitions.
fn first_finding(
    parts: &[Partition],
    per_partition: &[Vec<u64>],
    net: &EncodedNetwork,
    trace: bool,
) -> Result<Option<Finding>, GpuError> {
    let pick = |counter: usize| {
        per_partition
            .iter()
            .enumerate()
            .find(|(_, stats)| stats[counter] != u64::MAX)
            .map(|(p, stats)| (p, stats[counter]))
    };
    let Some((partition, found)) = pick(stat::FOUND_FATAL).or_else(|| pick(stat::FOUND)) else {
        return Ok(None);
    };
    let shift = super::search::FOUND_KIND_SHIFT;
    let slot = found & ((1 << shift) - 1);
    let reader = Partitions {
        parts,
        vector_words: net.words(),
    };
    let link = ((partition as u64) << PARTITION_SHIFT) | slot;
    finding(&reader, net, link, found >> shift == found::DEADLOCK, trace).map(Some)
}

/// Reads states across partitions by links that name their partition.
struct Partitions<'a> {
    parts: &'a [Partition],
    vector_words: usize,
}

impl StateReader for Partitions<'_> {
    fn read(&self, link: u64, trace: bool) -> Result<(Vec<u32>, Option<u64>), GpuError> {
        let partition = (link >> PARTITION_SHIFT) as usize;
        let part = self
            .parts
            .get(partition)
            .ok_or_else(|| GpuError::Inconsistent {
                during: "rebuilding a trace",
                detail: format!("a link names partition {partition} of {}", self.parts.len()),
            })?;
        let slot = link & ((1 << PARTITION_SHIFT) - 1);
        part.stored(self.vector_words).read(slot, trace)
    }

    fn capacity(&self) -> u64 {
        self.parts
            .iter()
            .map(|part| part.buffers.geometry.slots())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_split_hashes_evenly() {
        for partitions in [2, 3, 8] {
            let mut counts = vec![0u64; partitions];
            for i in 0..60_000u32 {
                counts[partition_of(hash_words(&[i, i ^ 0x5555]), partitions)] += 1;
            }
            let mean = 60_000 / partitions as u64;
            for count in counts {
                assert!(
                    count.abs_diff(mean) < mean / 20,
                    "{partitions}: {count} vs {mean}"
                );
            }
        }
    }

    #[test]
    fn messages_from_each_source_follow_those_of_lower_sources() {
        // counts[s][d]: messages from s to d.
        let counts = vec![vec![0, 5, 7], vec![2, 0, 3], vec![4, 6, 0]];
        assert_eq!(inbox_offset(&counts, 0, 1), 0);
        assert_eq!(inbox_offset(&counts, 2, 1), 5);
        assert_eq!(inbox_offset(&counts, 1, 0), 0);
        assert_eq!(inbox_offset(&counts, 2, 0), 2);
        assert_eq!(inbox_offset(&counts, 1, 2), 7);
        assert_eq!(region(0, 2), 1);
        assert_eq!(region(2, 0), 0);
        assert_eq!(region(1, 0), 0);
    }
}
