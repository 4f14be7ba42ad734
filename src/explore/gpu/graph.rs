//! Read-only passes over the table of a complete search that turn it into
//! a numbered graph on the device (`kernels/explore/graph.cu`): the
//! occupied slots are numbered densely (the initial state 0, the others in
//! slot order), each state's transitions are counted and the counts
//! scanned into CSR offsets, and the edges (target state, action) are
//! written for all states at once ([`TableGraph::store`],
//! [`download_numbered`]) or a range of states at a time, which then go to
//! a [`GraphSink`] ([`push_edges`]); or SCC colouring's passes generate
//! the edges again each time ([`TableGraph`]). Every count must equal the
//! search's.

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::GpuOptions;
use super::kernel::GraphParams;
use super::search::SearchTable;
use crate::error::Error;
use crate::explicit::{Csr, Edge, GraphSink, LabelledGraph};
use crate::explore::Exploration;
use crate::gpu::{Build, Device, GpuError, scan};
use crate::scc::gpu::{GeneratedArrays, GeneratedGraph, GeneratedPass};

/// Threads per block of the passes.
const THREADS: u32 = 256;
/// Edges written and copied back at once when pushing into a sink, unless
/// [`GpuOptions::graph_batch_edges`] says otherwise.
const EDGES_PER_BATCH: u64 = 1 << 24;
/// What the passes do, for error messages.
const DURING: &str = "building the state-space graph";

/// A state space as a CSR graph in device memory: the edges of state `s`
/// are `offsets[s]..offsets[s + 1]` of `targets`. States are numbered
/// densely, 0 being the initial state.
pub struct DeviceGraph {
    /// States.
    pub states: u64,
    /// Edges.
    pub edges: u64,
    /// First edge of each state, then the number of edges (`states + 1`
    /// entries).
    pub offsets: CudaSlice<u64>,
    /// Target state of each edge (at least one entry, even without edges).
    pub targets: CudaSlice<u32>,
}

impl DeviceGraph {
    /// The graph of one state and no edge.
    pub(super) fn single_state(device: &Device) -> Result<DeviceGraph, GpuError> {
        Ok(DeviceGraph {
            states: 1,
            edges: 0,
            offsets: device.alloc_zeroed(2)?,
            targets: device.alloc_zeroed(1)?,
        })
    }
}

/// The state space of a complete search, still in the search's table and
/// numbered (as [`super::explore_into`] numbers it), its edges not yet
/// written: [`TableGraph::store`] writes them as a [`DeviceGraph`]; where
/// they would not fit in device memory, SCC colouring runs on the table
/// itself, each pass generating the successors again
/// ([`crate::scc::gpu::GeneratedGraph`]).
pub struct TableGraph {
    table: Box<SearchTable>,
    passes: Passes,
    /// Edges, as the search counted them.
    edges: u64,
}

impl TableGraph {
    /// Numbers the states of a complete search's `table` and counts their
    /// edges (which must equal the search's).
    pub(super) fn new(
        device: &Device,
        table: Box<SearchTable>,
        exploration: &Exploration,
    ) -> Result<TableGraph, Error> {
        let passes = Passes::new(device, &table, exploration)?;
        device.note_memory_use()?;
        Ok(TableGraph {
            table,
            passes,
            edges: exploration.transitions,
        })
    }

    /// Bytes the stored edges take ([`TableGraph::store`]).
    pub fn stored_bytes(&self) -> u64 {
        4 * self.edges.max(1)
    }

    /// Bytes given back when the edges are stored: the table and the
    /// numbering.
    pub fn table_bytes(&self) -> u64 {
        let numbering: u64 = self
            .passes
            .numbering
            .iter()
            .map(|a| 4 * a.len() as u64)
            .sum();
        4 * self.table.table.len() as u64 + numbering
    }

    /// Writes the edges as a CSR graph and gives the table back.
    pub fn store(self) -> Result<DeviceGraph, Error> {
        let TableGraph {
            mut passes, edges, ..
        } = self;
        let states = passes.params.states;
        let mut targets = passes.device.alloc_zeroed::<u32>(edges as usize)?;
        passes.fill(0..states, &mut targets, None)?;
        passes.check_missing()?;
        passes.device.note_memory_use()?;
        Ok(DeviceGraph {
            states,
            edges,
            offsets: passes.offsets,
            targets,
        })
    }
}

impl GeneratedGraph for TableGraph {
    fn states(&self) -> u64 {
        self.passes.params.states
    }

    fn edges(&self) -> u64 {
        self.edges
    }

    fn launch(&self, pass: GeneratedPass, arrays: GeneratedArrays) -> Result<(), GpuError> {
        let params = GraphParams {
            signatures: arrays.signatures,
            keys: arrays.keys,
            representative: arrays.representative,
            component_bits: arrays.component_bits,
            grew: arrays.grew,
            ..self.passes.params
        };
        let kernel = match pass {
            GeneratedPass::Relax => "coloring_generated",
            GeneratedPass::Summary => "summary_generated",
        };
        launch(
            &self.passes.device,
            &self.passes.build,
            kernel,
            &params,
            self.passes.config,
        )
    }

    fn check(&self) -> Result<(), GpuError> {
        self.passes.check_missing()
    }
}

/// The state space of a complete search, labelled, copied to the host,
/// and the table slot of every state number (`slot_of`), which the vectors
/// of numbered states are read through.
pub(super) fn download_numbered(
    device: &Device,
    table: &SearchTable,
    exploration: &Exploration,
    actions: Vec<String>,
) -> Result<(LabelledGraph, CudaSlice<u32>), Error> {
    let mut passes = Passes::new(device, table, exploration)?;
    let (states, edges) = (passes.params.states, exploration.transitions);
    let mut targets = device.alloc_zeroed::<u32>(edges.max(1) as usize)?;
    let mut labels = device.alloc_zeroed::<u32>(edges.max(1) as usize)?;
    passes.fill(0..states, &mut targets, Some(&mut labels))?;
    passes.check_missing()?;
    let graph = LabelledGraph {
        edges: Csr {
            offsets: device.download(&passes.offsets)?,
            targets: device.download(&targets.slice(..edges as usize))?,
        },
        labels: device.download(&labels.slice(..edges as usize))?,
        actions,
        initial: 0,
    };
    let [_, _, slot_of] = passes.numbering;
    Ok((graph, slot_of))
}

/// Pushes every transition of a complete search into `sink`, a range of
/// states at a time, and finishes it.
pub(super) fn push_edges(
    device: &Device,
    table: &SearchTable,
    exploration: &Exploration,
    options: &GpuOptions,
    sink: &mut dyn GraphSink,
) -> Result<(), Error> {
    let mut passes = Passes::new(device, table, exploration)?;
    let offsets = device.download(&passes.offsets)?;
    let states = passes.params.states;
    let largest = offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    let capacity = options
        .graph_batch_edges
        .unwrap_or(EDGES_PER_BATCH)
        .max(largest)
        .max(1);
    let mut targets = device.alloc_zeroed::<u32>(capacity as usize)?;
    let mut labels = device.alloc_zeroed::<u32>(capacity as usize)?;
    let mut batch: Vec<Edge> = Vec::new();
    let mut first = 0u64;
    while first < states {
        // The most states after `first` whose edges fit the buffers.
        let limit = offsets[first as usize] + capacity;
        let end = (offsets.partition_point(|&offset| offset <= limit) as u64 - 1)
            .clamp(first + 1, states);
        passes.fill(first..end, &mut targets, Some(&mut labels))?;
        let count = (offsets[end as usize] - offsets[first as usize]) as usize;
        let target_states = device.download(&targets.slice(..count))?;
        let actions = device.download(&labels.slice(..count))?;
        batch.clear();
        for source in first..end {
            let edges = offsets[source as usize] - offsets[first as usize]
                ..offsets[source as usize + 1] - offsets[first as usize];
            batch.extend(edges.map(|e| {
                let e = e as usize;
                (source, actions[e], u64::from(target_states[e]))
            }));
        }
        sink.edges(&batch)?;
        first = end;
    }
    passes.check_missing()?;
    sink.finish(states, exploration.transitions)?;
    Ok(())
}

/// The numbering and the CSR offsets of a search's table, and what the
/// passes over it need.
struct Passes {
    device: Device,
    build: Build,
    params: GraphParams,
    config: LaunchConfig,
    /// Kept alive for the addresses in `params`: the occupied bitmap, its
    /// prefix sums and the slot of every state number.
    numbering: [CudaSlice<u32>; 3],
    offsets: CudaSlice<u64>,
    missing: CudaSlice<u64>,
}

impl Passes {
    /// Numbers the states of `table` and counts their transitions into
    /// CSR offsets; counts that differ from `exploration`'s are an error.
    fn new(
        device: &Device,
        table: &SearchTable,
        exploration: &Exploration,
    ) -> Result<Passes, Error> {
        let geometry = &table.geometry;
        let initial_slot = u32::try_from(table.initial_slot)
            .ok()
            .filter(|_| !geometry.wide)
            .ok_or_else(|| {
                inconsistent("the passes that number states read 32-bit slot numbers".into())
            })?;
        let slots = geometry.slots();
        let words = slots.div_ceil(32) as usize;
        let mut occupied = device.alloc_zeroed::<u32>(words)?;
        // One more word than the bitmap: the scan leaves the total there.
        let mut occupied_before = device.alloc_zeroed::<u32>(words + 1)?;
        let mut missing = device.alloc_zeroed::<u64>(1)?;
        let config = LaunchConfig {
            grid_dim: (device.multiprocessors() * 8, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut params = GraphParams {
            net: table.device_net.params(device),
            rule_actions: device.address(&table.device_net.rule_actions),
            table: device.address(&table.table),
            buckets: geometry.buckets,
            slots,
            occupied: device.address_mut(&mut occupied),
            occupied_before: device.address_mut(&mut occupied_before),
            missing: device.address_mut(&mut missing),
            initial_slot,
            ..GraphParams::default()
        };
        let build = table.kernel.graph_build();
        launch(device, &build, "mark_occupied", &params, config)?;
        scan::exclusive_scan(device, &mut occupied_before, words + 1)?;
        let states = device.download(&occupied_before.slice(words..))?[0];
        if u64::from(states) != exploration.states {
            return Err(inconsistent(format!(
                "the table holds {states} states but the search counted {}",
                exploration.states
            ))
            .into());
        }
        let word = initial_slot as usize / 32;
        let bits = device.download(&occupied.slice(word..word + 1))?[0];
        let before = device.download(&occupied_before.slice(word..word + 1))?[0];
        params.initial_rank =
            before + (bits & ((1u64 << (initial_slot % 32)) - 1) as u32).count_ones();
        params.states = u64::from(states);

        let mut slot_of = device.alloc_zeroed::<u32>(states as usize)?;
        params.slot_of = device.address_mut(&mut slot_of);
        launch(device, &build, "number_states", &params, config)?;
        let mut offsets = device.alloc_zeroed::<u64>(states as usize + 1)?;
        params.offsets = device.address_mut(&mut offsets);
        launch(device, &build, "count_edges", &params, config)?;
        scan::exclusive_scan(device, &mut offsets, states as usize + 1)?;
        let edges = device.download(&offsets.slice(states as usize..))?[0];
        if edges != exploration.transitions {
            return Err(inconsistent(format!(
                "the graph has {edges} transitions but the search counted {}",
                exploration.transitions
            ))
            .into());
        }
        Ok(Passes {
            device: device.clone(),
            build,
            params,
            config,
            numbering: [occupied, occupied_before, slot_of],
            offsets,
            missing,
        })
    }

    /// Writes the edges of `states` into `targets` and `labels` (if
    /// given), from their start.
    fn fill(
        &mut self,
        states: std::ops::Range<u64>,
        targets: &mut CudaSlice<u32>,
        labels: Option<&mut CudaSlice<u32>>,
    ) -> Result<(), GpuError> {
        let params = GraphParams {
            targets: self.device.address_mut(targets),
            labels: labels.map_or(0, |labels| self.device.address_mut(labels)),
            first_state: states.start,
            end_state: states.end,
            ..self.params
        };
        launch(
            &self.device,
            &self.build,
            "fill_edges",
            &params,
            self.config,
        )
    }

    /// Fails when a successor generated by a pass was not in the table.
    fn check_missing(&self) -> Result<(), GpuError> {
        match self.device.download(&self.missing)?[0] {
            0 => Ok(()),
            missing => Err(inconsistent(format!(
                "{missing} successor(s) of stored states are not in the table"
            ))),
        }
    }
}

/// Launches pass `kernel` of `build`.
fn launch(
    device: &Device,
    build: &Build,
    kernel: &str,
    params: &GraphParams,
    config: LaunchConfig,
) -> Result<(), GpuError> {
    let function = device.function(build, kernel)?;
    let mut launch = device.stream().launch_builder(&function);
    launch.arg(params);
    // SAFETY: the block matches the kernel's (checked at compile time);
    // every array it addresses lives until the passes end and has the
    // length the block's counts say.
    unsafe { launch.launch(config) }
        .map(drop)
        .map_err(GpuError::driver(DURING))
}

/// A count of the passes that differs from the search's.
fn inconsistent(detail: String) -> GpuError {
    GpuError::Inconsistent {
        during: DURING,
        detail,
    }
}
