//! SCC decomposition on the GPU (`kernels/scc/scc.cu`): the methods of
//! [`super::cpu`], each pass a kernel over the edge list (colouring) or
//! over the work list of live states (forward-backward). The graph may
//! come from the host ([`upload`]) or stay where the GPU explorer built it.

use std::time::Instant;

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

use super::cpu::{
    ASSIGNED, MAX_PIVOT_SLOTS, Method, PRIORITY_FIRST, PRIORITY_FIRST_INVERSE, PRIORITY_SECOND,
    PRIORITY_SECOND_INVERSE, TRIM_PASSES, stalled,
};
use super::{Components, Summary, reference};
use crate::explicit::Csr;
use crate::gpu::{Build, Device, GpuError, KernelSource, scan};
use crate::{kernel_constants, kernel_file, param_block};

/// The SCC kernels.
pub const SOURCE: KernelSource = KernelSource {
    main: kernel_file!("scc/scc.cu"),
    headers: &[],
};

kernel_constants! {
    /// Slots of the kernels' `u64` counters.
    pub mod counter: usize = "SCC_COUNTER_" {
        /// Length of the compacted work list.
        LIVE = 0;
        /// Components.
        COMPONENTS = 1;
        /// Size of the largest component.
        LARGEST = 2;
        /// Trivial components.
        TRIVIAL = 3;
        /// Bottom components.
        BOTTOM = 4;
        /// Blocks of a colouring pass in which a label grew.
        GREW = 5;
        /// Length of colouring's next edge list.
        EDGES = 6;
        /// Frontier lengths: direction (0 forward, 1 backward) times two
        /// plus the list's parity.
        FRONTIERS = 8;
    }
}

/// Counter slots in all.
const COUNTERS: usize = counter::FRONTIERS + 4;
/// Propagation passes launched before the first read of the frontier
/// lengths in a round; each read doubles the next batch, up to
/// [`MAX_BATCH`]: few waits on long paths, few idle passes on short ones.
const FIRST_BATCH: usize = 2;
/// See [`FIRST_BATCH`].
const MAX_BATCH: usize = 64;
/// Threads per block.
const THREADS: u32 = 256;
/// What the kernels do, for error messages.
const DURING: &str = "decomposing into components";

param_block! {
    /// The arrays of a decomposition (`SccParams` in the kernel).
    pub struct SccParams {
        /// Device address of the offsets (`u64`, states + 1).
        pub offsets: u64,
        /// Device address of the targets (`u32`, one per edge).
        pub targets: u64,
        /// States.
        pub states: u64,
        /// Device address of the partition keys (`u64` per state).
        pub partition: u64,
        /// Device address of the representatives (`u32` per state).
        pub representative: u64,
        /// Device address of the forward labels (`u32` per state).
        pub forward: u64,
        /// Device address of the backward labels (`u32` per state).
        pub backward: u64,
        /// Device address of the work list (`u32` per state).
        pub live: u64,
        /// Entries of the work list.
        pub live_count: u64,
        /// Device address of the compacted work list (`u32` per state).
        pub next_live: u64,
        /// Device address of the counters.
        pub counters: u64,
        /// The propagation pass (the stamp of the queued marks).
        pub pass: u64,
        /// Device address of the pivot slots (`u32`).
        pub pivots: u64,
        /// Pivot slots less one (a power of two less one).
        pub pivot_mask: u64,
        /// Forward-backward rounds run, salting split keys.
        pub round: u64,
        /// Device address of the transpose's offsets (`u64`, states + 1).
        pub reverse_offsets: u64,
        /// Device address of the transpose's targets (`u32` per edge).
        pub reverse_targets: u64,
        /// Device address of the forward seed list (`u32` per state).
        pub frontier_forward: u64,
        /// Device address of the backward seed list (`u32` per state).
        pub frontier_backward: u64,
        /// Counter slot of the forward seeds' number.
        pub count_forward_in: u64,
        /// Counter slot of the backward seeds' number.
        pub count_backward_in: u64,
        /// This pass's graph offsets (the graph's or the transpose's).
        pub pass_offsets: u64,
        /// This pass's graph targets.
        pub pass_targets: u64,
        /// This pass's labels (forward or backward).
        pub pass_labels: u64,
        /// This pass's queued marks (`u32` per state).
        pub pass_queued: u64,
        /// This pass's frontier.
        pub pass_frontier: u64,
        /// Counter slot of its length.
        pub pass_count: u64,
        /// The next frontier.
        pub pass_next: u64,
        /// Counter slot of its length.
        pub pass_next_count: u64,
        /// Device address of colouring's labels (`u32`, two per state).
        pub signatures: u64,
        /// Device address of colouring's edge list (`u32` pairs).
        pub edge_list: u64,
        /// Entries of the edge list.
        pub edge_count: u64,
        /// Device address of the kept edges (`u32` pairs).
        pub next_edges: u64,
        /// Edges of the graph.
        pub edges: u64,
        /// Device address of colouring's self-loop and leaving-edge bits
        /// (`u32` per state), or 0: the summary then scans the edges.
        pub state_bits: u64,
    }
}

/// The build of the SCC kernels, with their constants and parameter block.
pub fn build() -> Build {
    Build::new(SOURCE)
        .defines(counter::DEFINES)
        .defines(&[
            ("SCC_COUNTERS", COUNTERS as i64),
            ("PRIORITY_FIRST", PRIORITY_FIRST as i64),
            ("PRIORITY_SECOND", PRIORITY_SECOND as i64),
            ("PRIORITY_FIRST_INVERSE", PRIORITY_FIRST_INVERSE as i64),
            ("PRIORITY_SECOND_INVERSE", PRIORITY_SECOND_INVERSE as i64),
        ])
        .check_layout::<SccParams>()
}

/// A CSR graph in device memory, borrowed: `offsets` has `states + 1`
/// entries and `targets` `edges` (at least one allocated).
pub struct DeviceCsr<'a> {
    /// States.
    pub states: u64,
    /// Edges.
    pub edges: u64,
    /// First edge of each state, then the number of edges.
    pub offsets: &'a CudaSlice<u64>,
    /// Target of each edge.
    pub targets: &'a CudaSlice<u32>,
}

/// A host graph's arrays, uploaded.
pub struct UploadedCsr {
    /// The offsets.
    pub offsets: CudaSlice<u64>,
    /// The targets.
    pub targets: CudaSlice<u32>,
    states: u64,
    edges: u64,
}

impl UploadedCsr {
    /// The borrowed view the decomposition reads.
    pub fn view(&self) -> DeviceCsr<'_> {
        DeviceCsr {
            states: self.states,
            edges: self.edges,
            offsets: &self.offsets,
            targets: &self.targets,
        }
    }
}

/// Copies `graph` to `device`.
pub fn upload(device: &Device, graph: &Csr) -> Result<UploadedCsr, GpuError> {
    Ok(UploadedCsr {
        offsets: device.upload(&graph.offsets)?,
        targets: device.upload(&graph.targets)?,
        states: graph.states() as u64,
        edges: graph.edge_count(),
    })
}

/// What a decomposition on the GPU gives.
#[derive(Debug, Clone)]
pub struct GpuComponents {
    /// The figures, counted on the device.
    pub summary: Summary,
    /// The partition, when it was asked for (it is copied to the host).
    pub components: Option<Components>,
    /// Rounds: colouring's, or forward-backward's after the first
    /// trimming.
    pub rounds: u64,
    /// Propagation passes: over the edge list (colouring) or over the
    /// frontiers (forward-backward).
    pub passes: u64,
    /// Seconds on the device, from the first kernel to the summary.
    pub seconds: f64,
    /// Seconds per phase (colouring: set-up, rounds; forward-backward:
    /// transpose, trim, rounds, Tarjan on the host; then the summary),
    /// for tuning.
    pub phases: Vec<(&'static str, f64)>,
}

/// Decomposes `graph` on `device` by `method`; copies the partition back
/// when `partition` is set, else only the figures.
pub fn decompose(
    device: &Device,
    graph: DeviceCsr<'_>,
    method: Method,
    partition: bool,
) -> Result<GpuComponents, GpuError> {
    let started = Instant::now();
    let mut phases = Phases::new(device);
    let mut run = Run::new(device, &graph)?;
    // Read by the summary.
    let _state_bits = match method {
        Method::Coloring => Some(run.by_signatures(&graph, &mut phases)?),
        Method::ForwardBackward => {
            run.by_forward_backward(&graph, &mut phases)?;
            None
        }
    };
    let summary = run.summary(&graph)?;
    phases.end("summary")?;
    let components = if partition {
        let mut representatives = device.download(&run.representative)?;
        representatives.truncate(graph.states as usize);
        Some(Components::from_representatives(&representatives))
    } else {
        None
    };
    Ok(GpuComponents {
        summary,
        components,
        rounds: run.rounds,
        passes: run.passes,
        seconds: started.elapsed().as_secs_f64(),
        phases: phases.seconds,
    })
}

/// Seconds spent in each phase of a decomposition, summed over rounds.
struct Phases<'d> {
    device: &'d Device,
    since: Instant,
    seconds: Vec<(&'static str, f64)>,
}

impl<'d> Phases<'d> {
    fn new(device: &'d Device) -> Phases<'d> {
        Phases {
            device,
            since: Instant::now(),
            seconds: Vec::new(),
        }
    }

    /// Ends phase `name` once the device has run it.
    fn end(&mut self, name: &'static str) -> Result<(), GpuError> {
        self.device.synchronize()?;
        let now = Instant::now();
        let spent = (now - self.since).as_secs_f64();
        self.since = now;
        match self.seconds.iter_mut().find(|(phase, _)| *phase == name) {
            Some((_, total)) => *total += spent,
            None => self.seconds.push((name, spent)),
        }
        Ok(())
    }
}

/// The kernels, looked up once.
#[derive(Clone)]
struct Kernels {
    start: CudaFunction,
    compact: CudaFunction,
    trim_clear: CudaFunction,
    trim_mark: CudaFunction,
    trim_remove: CudaFunction,
    signatures_start: CudaFunction,
    signatures_edges: CudaFunction,
    signatures_propagate: CudaFunction,
    signatures_split: CudaFunction,
    signatures_restart: CudaFunction,
    signatures_finish: CudaFunction,
    pivots_choose: CudaFunction,
    pivots_seed: CudaFunction,
    pivots_finish: CudaFunction,
    propagate: CudaFunction,
    transpose_count: CudaFunction,
    transpose_fill: CudaFunction,
    summary_clear: CudaFunction,
    summary_sizes: CudaFunction,
    summary_edges: CudaFunction,
    summary_count: CudaFunction,
}

impl Kernels {
    fn load(device: &Device) -> Result<Kernels, GpuError> {
        let build = build();
        let get = |name: &str| device.function(&build, name);
        Ok(Kernels {
            start: get("scc_start")?,
            compact: get("compact")?,
            trim_clear: get("trim_clear")?,
            trim_mark: get("trim_mark")?,
            trim_remove: get("trim_remove")?,
            signatures_start: get("signatures_start")?,
            signatures_edges: get("signatures_edges")?,
            signatures_propagate: get("signatures_propagate")?,
            signatures_split: get("signatures_split")?,
            signatures_restart: get("signatures_restart")?,
            signatures_finish: get("signatures_finish")?,
            pivots_choose: get("pivots_choose")?,
            pivots_seed: get("pivots_seed")?,
            pivots_finish: get("pivots_finish")?,
            propagate: get("propagate")?,
            transpose_count: get("transpose_count")?,
            transpose_fill: get("transpose_fill")?,
            summary_clear: get("summary_clear")?,
            summary_sizes: get("summary_sizes")?,
            summary_edges: get("summary_edges")?,
            summary_count: get("summary_count")?,
        })
    }
}

/// The counter slot of the frontier length of `direction` (0 forward, 1
/// backward) in list `parity`.
fn frontier_slot(direction: usize, parity: usize) -> usize {
    counter::FRONTIERS + 2 * direction + parity
}

/// Device memory the kernels fill before they read it.
fn unset<T: cudarc::driver::DeviceRepr>(
    device: &Device,
    len: usize,
) -> Result<CudaSlice<T>, GpuError> {
    // SAFETY: every caller's kernels write each entry before reading it
    // (as each allocation below says).
    unsafe { device.alloc(len.max(1)) }
}

/// A decomposition in progress: the parameter block and the arrays both
/// methods use; each method allocates its own for its rounds and frees
/// them before the summary.
struct Run<'d> {
    device: &'d Device,
    kernels: Kernels,
    params: SccParams,
    // The allocations the block's addresses point into: they live as long
    // as the run.
    /// Set for every state by the method's last pass.
    representative: CudaSlice<u32>,
    /// The work list and the compacted one, set by the method's start.
    lists: [CudaSlice<u32>; 2],
    counters: CudaSlice<u64>,
    rounds: u64,
    passes: u64,
}

/// Forward-backward's arrays (set by scc_start, the rounds and the
/// transpose before they are read).
struct ForwardBackwardArrays {
    partition: CudaSlice<u64>,
    labels: [CudaSlice<u32>; 2],
    queued: [CudaSlice<u32>; 2],
    /// Two frontier lists per direction.
    frontiers: [[CudaSlice<u32>; 2]; 2],
    reverse_offsets: CudaSlice<u64>,
    reverse_targets: CudaSlice<u32>,
    pivots: CudaSlice<u32>,
}

/// Colouring's arrays: the labels (set by signatures_start) and two edge
/// lists (the first filled by signatures_start, the other by each split
/// below the count it sets).
struct SignatureArrays {
    signatures: CudaSlice<u32>,
    edge_lists: [CudaSlice<u64>; 2],
}

impl<'d> Run<'d> {
    fn new(device: &'d Device, graph: &DeviceCsr<'_>) -> Result<Run<'d>, GpuError> {
        let states = graph.states as usize;
        let mut run = Run {
            device,
            kernels: Kernels::load(device)?,
            params: SccParams::default(),
            representative: unset(device, states)?,
            lists: [unset(device, states)?, unset(device, states)?],
            counters: device.alloc_zeroed(COUNTERS)?,
            rounds: 0,
            passes: 0,
        };
        run.params = SccParams {
            offsets: device.address(graph.offsets),
            targets: device.address(graph.targets),
            states: graph.states,
            edges: graph.edges,
            representative: device.address_mut(&mut run.representative),
            live: device.address_mut(&mut run.lists[0]),
            next_live: device.address_mut(&mut run.lists[1]),
            counters: device.address_mut(&mut run.counters),
            ..SccParams::default()
        };
        Ok(run)
    }

    /// Colouring: rounds of passes over the edge list until no label
    /// grows, each followed by the split of the edges and the restart of
    /// the live states, until none is left. Gives the states' summary
    /// bits (`state_bits` in the block), which the summary reads.
    fn by_signatures(
        &mut self,
        graph: &DeviceCsr<'_>,
        phases: &mut Phases<'_>,
    ) -> Result<CudaSlice<u32>, GpuError> {
        let (device, kernels) = (self.device, self.kernels.clone());
        let mut arrays = SignatureArrays {
            signatures: unset(device, 2 * graph.states as usize)?,
            edge_lists: [
                unset(device, graph.edges as usize)?,
                unset(device, graph.edges as usize)?,
            ],
        };
        // Zeroed by signatures_start.
        let mut state_bits = unset::<u32>(device, graph.states as usize)?;
        self.params.state_bits = device.address_mut(&mut state_bits);
        self.params.signatures = device.address_mut(&mut arrays.signatures);
        let mut lists = arrays
            .edge_lists
            .each_mut()
            .map(|list| device.address_mut(list));
        self.params.edge_list = lists[0];
        self.params.next_edges = lists[1];
        self.launch_over(&kernels.signatures_start, graph.states)?;
        self.launch_over(&kernels.signatures_edges, graph.edges)?;
        self.swap_lists(graph.states);
        self.params.edge_count = graph.edges;
        phases.end("set-up")?;
        // As many threads as the device keeps resident: a block repeats
        // its share of the edges, so all of them should run at once.
        let resident = self.device.multiprocessors() as u64 * 2048;
        while self.params.live_count > 0 {
            self.rounds += 1;
            tracing::debug!(
                round = self.rounds,
                live = self.params.live_count,
                edges = self.params.edge_count,
                "SCC colouring round (GPU)"
            );
            while self.params.edge_count > 0 {
                self.passes += 1;
                self.clear_counter(counter::GREW)?;
                let threads = self.params.edge_count.min(resident);
                self.launch_over(&kernels.signatures_propagate, threads)?;
                if self.read_counters()?[counter::GREW] == 0 {
                    break;
                }
            }
            self.clear_counter(counter::EDGES)?;
            self.clear_counter(counter::LIVE)?;
            self.launch_over(&kernels.signatures_split, self.params.edge_count)?;
            self.launch(&kernels.signatures_restart)?;
            let counters = self.read_counters()?;
            lists.swap(0, 1);
            self.params.edge_list = lists[0];
            self.params.next_edges = lists[1];
            self.params.edge_count = counters[counter::EDGES];
            self.swap_lists(counters[counter::LIVE]);
            phases.end("rounds")?;
        }
        self.launch_over(&kernels.signatures_finish, graph.states)?;
        Ok(state_bits)
    }

    /// Forward-backward: the transpose, then rounds of trimming and one
    /// pivot per partition until every state is assigned.
    fn by_forward_backward(
        &mut self,
        graph: &DeviceCsr<'_>,
        phases: &mut Phases<'_>,
    ) -> Result<(), GpuError> {
        let device = self.device;
        let states = graph.states as usize;
        let pivot_slots = states.next_power_of_two().clamp(1, MAX_PIVOT_SLOTS);
        let list = || unset::<u32>(device, states);
        let mut arrays = ForwardBackwardArrays {
            partition: unset(device, states)?,
            labels: [list()?, list()?],
            queued: [device.alloc_zeroed(states)?, device.alloc_zeroed(states)?],
            frontiers: [[list()?, list()?], [list()?, list()?]],
            reverse_offsets: device.alloc_zeroed(states + 1)?,
            reverse_targets: unset(device, graph.edges as usize)?,
            pivots: device.alloc_zeroed(pivot_slots)?,
        };
        self.params = SccParams {
            partition: device.address_mut(&mut arrays.partition),
            forward: device.address_mut(&mut arrays.labels[0]),
            backward: device.address_mut(&mut arrays.labels[1]),
            pivots: device.address_mut(&mut arrays.pivots),
            pivot_mask: pivot_slots as u64 - 1,
            reverse_offsets: device.address_mut(&mut arrays.reverse_offsets),
            reverse_targets: device.address_mut(&mut arrays.reverse_targets),
            frontier_forward: device.address_mut(&mut arrays.frontiers[0][0]),
            frontier_backward: device.address_mut(&mut arrays.frontiers[1][0]),
            count_forward_in: frontier_slot(0, 0) as u64,
            count_backward_in: frontier_slot(1, 0) as u64,
            ..self.params
        };
        self.transpose(graph, &mut arrays)?;
        phases.end("transpose")?;
        self.launch_over(&self.kernels.start.clone(), graph.states)?;
        self.swap_lists(graph.states);
        // Live states when the last round started: a round that, with
        // the trimming after it, assigns less than a tenth of them has
        // stalled.
        let mut last_round_start = None;
        while self.params.live_count > 0 {
            self.trim()?;
            phases.end("trim")?;
            let live = self.params.live_count;
            if live == 0 {
                break;
            }
            if last_round_start.is_some_and(|start| stalled(start, live)) {
                self.finish_with_tarjan(graph, &arrays)?;
                phases.end("Tarjan on the host")?;
                break;
            }
            self.rounds += 1;
            tracing::debug!(
                round = self.rounds,
                live,
                "SCC forward-backward round (GPU)"
            );
            last_round_start = Some(live);
            self.forward_backward_round(&mut arrays)?;
            self.compact()?;
            phases.end("rounds")?;
        }
        Ok(())
    }

    /// Hands the live states of a stalled forward-backward round (long
    /// chains of small components, where each round finishes a few) to
    /// Tarjan on the host, as the CPU engine does: the graph, the
    /// partition keys and the representatives go to the host, and the
    /// completed representatives come back.
    fn finish_with_tarjan(
        &mut self,
        graph: &DeviceCsr<'_>,
        arrays: &ForwardBackwardArrays,
    ) -> Result<(), GpuError> {
        let states = graph.states as usize;
        let mut offsets = self.device.download(graph.offsets)?;
        offsets.truncate(states + 1);
        let mut targets = self.device.download(graph.targets)?;
        targets.truncate(graph.edges as usize);
        let host = Csr { offsets, targets };
        let partition = self.device.download(&arrays.partition)?;
        let mut representative = self.device.download(&self.representative)?;
        let is_live = |state: u32| partition[state as usize] != ASSIGNED;
        let live = (0..graph.states as u32).filter(|&state| is_live(state));
        reference::representatives_among(&host, live, is_live, &mut representative);
        self.device
            .write(&representative, &mut self.representative)?;
        self.params.live_count = 0;
        Ok(())
    }

    /// Builds the transpose: in-degrees, their prefix sums, then the edges
    /// placed through one cursor per state (kept in the partition array,
    /// which scc_start sets afterwards).
    fn transpose(
        &mut self,
        graph: &DeviceCsr<'_>,
        arrays: &mut ForwardBackwardArrays,
    ) -> Result<(), GpuError> {
        let kernels = self.kernels.clone();
        self.launch_over(&kernels.transpose_count, graph.edges)?;
        scan::exclusive_scan(
            self.device,
            &mut arrays.reverse_offsets,
            graph.states as usize + 1,
        )?;
        let states = graph.states as usize;
        self.device
            .stream()
            .memcpy_dtod(
                &arrays.reverse_offsets.slice(..states.max(1)),
                &mut arrays.partition,
            )
            .map_err(GpuError::driver(DURING))?;
        self.launch_over(&kernels.transpose_fill, graph.edges)
    }
    /// Launches `kernel` with enough threads for `items` work items.
    fn launch_over(&self, kernel: &CudaFunction, items: u64) -> Result<(), GpuError> {
        let wanted = items.div_ceil(THREADS as u64).max(1);
        let blocks = wanted.min(self.device.multiprocessors() as u64 * 32) as u32;
        let config = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = self.device.stream().launch_builder(kernel);
        launch.arg(&self.params);
        // SAFETY: the block matches the kernel's (checked at compile
        // time); every address in it points into an allocation of this
        // run or of the graph, sized as the block says.
        unsafe { launch.launch(config) }.map_err(GpuError::driver(DURING))?;
        Ok(())
    }

    /// Launches `kernel` over the work list.
    fn launch(&self, kernel: &CudaFunction) -> Result<(), GpuError> {
        self.launch_over(kernel, self.params.live_count)
    }

    /// Zeroes counter `slot`.
    fn clear_counter(&mut self, slot: usize) -> Result<(), GpuError> {
        self.device
            .stream()
            .memset_zeros(&mut self.counters.slice_mut(slot..slot + 1))
            .map_err(GpuError::driver(DURING))
    }

    /// Zeroes every counter.
    fn clear_counters(&mut self) -> Result<(), GpuError> {
        self.device
            .stream()
            .memset_zeros(&mut self.counters)
            .map_err(GpuError::driver(DURING))
    }

    /// The counters, once the stream has run everything before.
    fn read_counters(&self) -> Result<Vec<u64>, GpuError> {
        self.device.download(&self.counters)
    }

    /// Makes the compacted list, of `count` entries, the work list.
    fn swap_lists(&mut self, count: u64) {
        std::mem::swap(&mut self.params.live, &mut self.params.next_live);
        self.params.live_count = count;
    }

    /// Drops the assigned states from the work list.
    fn compact(&mut self) -> Result<(), GpuError> {
        self.clear_counter(counter::LIVE)?;
        self.launch(&self.kernels.compact.clone())?;
        let live = self.read_counters()?[counter::LIVE];
        self.swap_lists(live);
        Ok(())
    }

    /// Up to [`TRIM_PASSES`] trimming passes, as long as each removes at
    /// least one live state in a hundred.
    fn trim(&mut self) -> Result<(), GpuError> {
        let kernels = self.kernels.clone();
        for _ in 0..TRIM_PASSES {
            let before = self.params.live_count;
            self.launch(&kernels.trim_clear)?;
            self.launch(&kernels.trim_mark)?;
            self.launch(&kernels.trim_remove)?;
            self.compact()?;
            let removed = before - self.params.live_count;
            if removed == 0 || removed * 100 < self.params.live_count {
                break;
            }
        }
        Ok(())
    }

    /// Propagation passes from the seed frontiers (list 0 of each
    /// direction, lengths in their counter slots) until both are empty.
    fn propagate(&mut self, arrays: &mut ForwardBackwardArrays) -> Result<(), GpuError> {
        let propagate = self.kernels.propagate.clone();
        let (forward, backward) = (self.params.forward, self.params.backward);
        let graphs = [
            (self.params.offsets, self.params.targets, forward),
            (
                self.params.reverse_offsets,
                self.params.reverse_targets,
                backward,
            ),
        ];
        let queued = arrays
            .queued
            .each_mut()
            .map(|marks| self.device.address_mut(marks));
        let mut lists = [[0u64; 2]; 2];
        for (direction, pair) in arrays.frontiers.iter_mut().enumerate() {
            for (parity, list) in pair.iter_mut().enumerate() {
                lists[direction][parity] = self.device.address_mut(list);
            }
        }
        let mut parity = 0;
        let mut batch = FIRST_BATCH;
        // As many threads as the device keeps resident: frontier lengths
        // are known only on the device.
        let threads = self.device.multiprocessors() as u64 * 2048;
        loop {
            for _ in 0..batch {
                self.passes += 1;
                self.params.pass = self.passes;
                for (direction, &(offsets, targets, labels)) in graphs.iter().enumerate() {
                    self.clear_counter(frontier_slot(direction, 1 - parity))?;
                    self.params.pass_offsets = offsets;
                    self.params.pass_targets = targets;
                    self.params.pass_labels = labels;
                    self.params.pass_queued = queued[direction];
                    self.params.pass_frontier = lists[direction][parity];
                    self.params.pass_count = frontier_slot(direction, parity) as u64;
                    self.params.pass_next = lists[direction][1 - parity];
                    self.params.pass_next_count = frontier_slot(direction, 1 - parity) as u64;
                    self.launch_over(&propagate, threads)?;
                }
                parity = 1 - parity;
            }
            let counters = self.read_counters()?;
            if counters[frontier_slot(0, parity)] == 0 && counters[frontier_slot(1, parity)] == 0 {
                return Ok(());
            }
            batch = (batch * 2).min(MAX_BATCH);
        }
    }

    fn forward_backward_round(
        &mut self,
        arrays: &mut ForwardBackwardArrays,
    ) -> Result<(), GpuError> {
        let kernels = self.kernels.clone();
        self.params.round += 1;
        self.device
            .stream()
            .memset_zeros(&mut arrays.pivots)
            .map_err(GpuError::driver(DURING))?;
        self.clear_counter(frontier_slot(0, 0))?;
        self.clear_counter(frontier_slot(1, 0))?;
        self.launch(&kernels.pivots_choose)?;
        self.launch(&kernels.pivots_seed)?;
        self.propagate(arrays)?;
        self.launch(&kernels.pivots_finish)
    }

    /// The figures of the finished partition, counted on the device (in
    /// two arrays of its own: sizes and bits of each component).
    fn summary(&mut self, graph: &DeviceCsr<'_>) -> Result<Summary, GpuError> {
        let kernels = self.kernels.clone();
        // Set by summary_clear.
        let mut scratch = [
            unset::<u32>(self.device, graph.states as usize)?,
            unset::<u32>(self.device, graph.states as usize)?,
        ];
        self.params.forward = self.device.address_mut(&mut scratch[0]);
        self.params.backward = self.device.address_mut(&mut scratch[1]);
        self.clear_counters()?;
        self.launch_over(&kernels.summary_clear, graph.states)?;
        self.launch_over(&kernels.summary_sizes, graph.states)?;
        if self.params.state_bits == 0 {
            self.launch_over(&kernels.summary_edges, graph.edges)?;
        }
        self.launch_over(&kernels.summary_count, graph.states)?;
        let counters = self.read_counters()?;
        Ok(Summary {
            states: graph.states,
            edges: graph.edges,
            components: counters[counter::COMPONENTS],
            largest_component: counters[counter::LARGEST],
            trivial_components: counters[counter::TRIVIAL],
            bottom_components: counters[counter::BOTTOM],
        })
    }
}
