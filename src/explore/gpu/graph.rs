//! Read-only passes over the table of a complete search that turn it into
//! a numbered graph on the device (`kernels/explore/graph.cu`): the
//! occupied slots are numbered densely (the initial state 0, the others in
//! slot order), each state's transitions are counted and the counts
//! scanned into CSR offsets, and the edges (target state, action) are
//! written for all states at once ([`build`]) or a range of states at a
//! time, which then go to a [`GraphSink`] ([`push_edges`]). Every count
//! must equal the search's.

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::GpuOptions;
use super::kernel::GraphParams;
use super::search::SearchTable;
use crate::error::Error;
use crate::explicit::{Csr, Edge, GraphSink, LabelledGraph};
use crate::explore::Exploration;
use crate::gpu::{Build, Device, GpuError, scan};

/// Threads per block of the passes.
const THREADS: u32 = 256;
/// Edges written and copied back at once when pushing into a sink, unless
/// [`GpuOptions::graph_batch_edges`] says otherwise.
const EDGES_PER_BATCH: u64 = 1 << 24;
/// What the passes do, for error messages.
const DURING: &str = "building the state-space graph";

/// A state space as a CSR graph in device memory: the edges of state `s`
/// are `offsets[s]..offsets[s + 1]` of `targets` and `labels`. States are
/// numbered densely, 0 being the initial state.
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
    /// Action id of each edge (at least one entry, even without edges).
    pub labels: CudaSlice<u32>,
}

impl DeviceGraph {
    /// The graph of one state and no edge.
    pub(super) fn single_state(device: &Device) -> Result<DeviceGraph, GpuError> {
        Ok(DeviceGraph {
            states: 1,
            edges: 0,
            offsets: device.alloc_zeroed(2)?,
            targets: device.alloc_zeroed(1)?,
            labels: device.alloc_zeroed(1)?,
        })
    }

    /// A host copy, with the network's action names `actions`.
    pub fn download(
        &self,
        device: &Device,
        actions: Vec<String>,
    ) -> Result<LabelledGraph, GpuError> {
        let edges = self.edges as usize;
        Ok(LabelledGraph {
            edges: Csr {
                offsets: device.download(&self.offsets)?,
                targets: device.download(&self.targets.slice(..edges))?,
            },
            labels: device.download(&self.labels.slice(..edges))?,
            actions,
            initial: 0,
        })
    }
}

/// The state space of a complete search, whole, on the device.
pub(super) fn build(
    device: &Device,
    table: &SearchTable,
    exploration: &Exploration,
) -> Result<DeviceGraph, Error> {
    Ok(build_numbered(device, table, exploration)?.0)
}

/// [`build`], and the table slot of every state number (`slot_of`), which
/// the vectors of numbered states are read through.
pub(super) fn build_numbered(
    device: &Device,
    table: &SearchTable,
    exploration: &Exploration,
) -> Result<(DeviceGraph, CudaSlice<u32>), Error> {
    let mut passes = Passes::new(device, table, exploration)?;
    let (states, edges) = (passes.params.states, exploration.transitions);
    let mut targets = device.alloc_zeroed::<u32>(edges as usize)?;
    let mut labels = device.alloc_zeroed::<u32>(edges as usize)?;
    passes.fill(0..states, &mut targets, &mut labels)?;
    passes.check_missing()?;
    let [_, _, slot_of] = passes.numbering;
    let graph = DeviceGraph {
        states,
        edges,
        offsets: passes.offsets,
        targets,
        labels,
    };
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
        passes.fill(first..end, &mut targets, &mut labels)?;
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
struct Passes<'a> {
    device: &'a Device,
    build: Build,
    params: GraphParams,
    config: LaunchConfig,
    /// Kept alive for the addresses in `params`: the occupied bitmap, its
    /// prefix sums and the slot of every state number.
    numbering: [CudaSlice<u32>; 3],
    offsets: CudaSlice<u64>,
    missing: CudaSlice<u64>,
}

impl<'a> Passes<'a> {
    /// Numbers the states of `table` and counts their transitions into
    /// CSR offsets; counts that differ from `exploration`'s are an error.
    fn new(
        device: &'a Device,
        table: &SearchTable,
        exploration: &Exploration,
    ) -> Result<Passes<'a>, Error> {
        let geometry = &table.geometry;
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
            initial_slot: table.initial_slot,
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
            )));
        }
        let word = table.initial_slot as usize / 32;
        let bits = device.download(&occupied.slice(word..word + 1))?[0];
        let before = device.download(&occupied_before.slice(word..word + 1))?[0];
        params.initial_rank =
            before + (bits & ((1u64 << (table.initial_slot % 32)) - 1) as u32).count_ones();
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
            )));
        }
        Ok(Passes {
            device,
            build,
            params,
            config,
            numbering: [occupied, occupied_before, slot_of],
            offsets,
            missing,
        })
    }

    /// Writes the edges of `states` into `targets` and `labels`, from
    /// their start.
    fn fill(
        &mut self,
        states: std::ops::Range<u64>,
        targets: &mut CudaSlice<u32>,
        labels: &mut CudaSlice<u32>,
    ) -> Result<(), GpuError> {
        let params = GraphParams {
            targets: self.device.address_mut(targets),
            labels: self.device.address_mut(labels),
            first_state: states.start,
            end_state: states.end,
            ..self.params
        };
        launch(self.device, &self.build, "fill_edges", &params, self.config)
    }

    /// Fails when a successor generated by a pass was not in the table.
    fn check_missing(&self) -> Result<(), Error> {
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
fn inconsistent(detail: String) -> Error {
    Error::Gpu(GpuError::Inconsistent {
        during: DURING,
        detail,
    })
}
