//! SCC decomposition on the GPU (`kernels/scc/scc.cu`): the methods of
//! [`super::cpu`], each pass a kernel over the edge list (colouring) or
//! over the work list of live states (forward-backward). The graph may
//! come from the host ([`upload`]) or stay where the GPU explorer built it.

use std::collections::HashMap;
use std::time::Instant;

use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};

use super::cpu::{ASSIGNED, MAX_JUMPS, MAX_PIVOT_SLOTS, Method, TRIM_PASSES, stalled};
use super::labels::{
    self, EdgeSample, Labels, SCRAMBLE_FIRST, SCRAMBLE_FIRST_INVERSE, SCRAMBLE_SECOND,
    SCRAMBLE_SECOND_INVERSE,
};
use super::{Components, Summary, mutual, reference};
use crate::explicit::Csr;
use crate::gpu::{Build, Device, GpuError, KernelFile, KernelSource, LargeSlice, scan};
use crate::{kernel_constants, kernel_file, param_block};

/// Colouring's labels and edge rule, which the explorer's passes over
/// generated edges share.
pub const COLORING_HEADER: KernelFile = kernel_file!("scc/coloring.cuh");

/// The SCC kernels.
pub const SOURCE: KernelSource = KernelSource {
    main: kernel_file!("scc/scc.cu"),
    headers: &[COLORING_HEADER],
};

/// The defines [`COLORING_HEADER`] needs: the chain steps of a jump,
/// which `labels` the seeds spread and the scrambling's factors.
pub fn coloring_defines(labels: Labels) -> [(&'static str, i64); 6] {
    [
        ("MAX_JUMPS", MAX_JUMPS as i64),
        ("NUMBERED_LABELS", labels.numbered_define()),
        ("SCRAMBLE_FIRST", SCRAMBLE_FIRST as i64),
        ("SCRAMBLE_SECOND", SCRAMBLE_SECOND as i64),
        ("SCRAMBLE_FIRST_INVERSE", SCRAMBLE_FIRST_INVERSE as i64),
        ("SCRAMBLE_SECOND_INVERSE", SCRAMBLE_SECOND_INVERSE as i64),
    ]
}

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
        /// Blocks of a colouring pass over generated edges in which a
        /// label grew.
        GREW = 5;
        /// Length of colouring's next edge list.
        EDGES = 6;
        /// Threads of colouring's first start that met a row too long to
        /// list alone (`signatures_long_rows` lists those rows).
        LONG_ROWS = 7;
        /// Frontier lengths: direction (0 forward, 1 backward) times two
        /// plus the list's parity.
        FRONTIERS = 8;
        /// Tickets taken from trimming's work list (`trim_drain`), in a
        /// 128-byte line of its own.
        TRIM_TAKEN = 16;
        /// States of trimming's work list handled (`trim_drain`), in a
        /// line of its own.
        TRIM_FINISHED = 32;
        /// States of trimming's work list that the thread which left
        /// them without a live edge went on with, never appended
        /// (`trim_drain`), in a line of its own.
        TRIM_CONTINUED = 48;
        /// Blocks in which a label grew, one slot per pass of a batch of
        /// colouring passes over the edge list (`MAX_COLORING_BATCH`
        /// slots), in lines of their own.
        GREW_BY_PASS = 64;
        /// Sweeps of a block's share of colouring's edge list in which a
        /// label grew, since the decomposition began, in a line of its
        /// own: a block sweeps its share again while other blocks' sweeps
        /// grow labels.
        GROWTHS = 80;
        /// Sampled edges that have their reverse (`edges_sample`), then
        /// the states that are not their cluster's root (`mutual_flatten`).
        MUTUAL = 81;
        /// Sampled edges between states less than [`crate::scc::labels::NEAR`] apart
        /// (`edges_sample`).
        NEAR = 82;
        /// Sampled edges in a row longer than [`crate::scc::labels::LONG_ROW`]
        /// (`edges_sample`).
        FROM_HUBS = 83;
    }
}

/// Counter slots in all.
const COUNTERS: usize = counter::FROM_HUBS + 1;
/// Propagation passes launched before the first read of the frontier
/// lengths in a round; each read doubles the next batch, up to
/// [`MAX_BATCH`]: few waits on long paths, few idle passes on short ones.
const FIRST_BATCH: usize = 2;
/// See [`FIRST_BATCH`].
const MAX_BATCH: usize = 64;
/// Threads per block.
const THREADS: u32 = 256;
/// Threads that a multiprocessor keeps resident on the data-centre GPUs
/// from Volta to Hopper: colouring's passes ask the compiler for as few
/// registers as let this many of them run (`__launch_bounds__`), since
/// their blocks wait on each other's growth.
const FULL_MULTIPROCESSOR_THREADS: u32 = 2048;
/// Blocks a multiprocessor of trimming's work list (`trim_drain`): the
/// threads that wait for items poll two counters, so fewer than fill the
/// device.
const TRIM_BLOCKS_PER_SM: u64 = 1;
/// Propagation passes after which colouring gives up a round that has
/// not converged and trims first (once): colouring needs a pass per step
/// of the longest path it spreads a label along, and a round a layer of a
/// deep chain of components, where trimming takes the chain a state at a
/// time. Random and R-MAT graphs converge within a few passes a round,
/// so they never pay for the transpose that trimming builds.
const TRIM_AFTER_PASSES: u64 = 32;
/// Edges of a live graph that, once trimmed, still takes more than
/// [`TRIM_AFTER_PASSES`] passes a round, up to which Tarjan on the host
/// finishes it: a small component of long cycles can take colouring a
/// thousand passes, each a launch and a wait.
const HOST_FINISH_EDGES: u64 = 1 << 20;
/// What the kernels do, for error messages.
const DURING: &str = "decomposing into components";

/// The `leaves_seen` stamp of colouring's pass `number`, the
/// `in_round`-th of its round: its number, except for a round's first
/// pass (whose labels are rarely final), which stamps nothing (0).
fn leaves_stamp(in_round: u64, number: u64) -> u64 {
    if in_round > 1 { number } else { 0 }
}

/// Colouring passes launched before the first read of whether a round
/// has converged; each read doubles the next batch, up to
/// [`MAX_COLORING_BATCH`]. A pass after the one that grew nothing returns
/// at once (`signatures_propagate`), so a batch costs a launch per pass
/// past convergence instead of a sweep, and a round of n passes waits for
/// the host about log2(n) times instead of n.
const FIRST_COLORING_BATCH: u64 = 2;
/// See [`FIRST_COLORING_BATCH`].
const MAX_COLORING_BATCH: u64 = 16;
/// Passes of a colouring round after which its blocks sweep their share
/// of the edges again while other blocks' sweeps grow labels
/// (`signatures_propagate`), instead of leaving as soon as their own
/// share is still: labels then cross the shares within a pass, where a
/// long path otherwise takes a pass a crossing. Measured on an H200
/// (`benches/results/2026-12-02h-h200-scc-sweeps/`): from the first pass
/// (0), Peterson-PT-3 took 41–48 passes instead of 75–95 and was 2–4 %
/// ahead of ECL-SCC's median in each of three calls, but
/// Referendum-PT-0015 took 47 ms instead of 41 (its
/// rounds converge in one pass, where the extra sweeps find nothing);
/// from the second (1), the random graph took 8.6 ms, R-MAT 10.6, the
/// grid 104, Referendum-PT-0015 41 and Peterson-PT-3 25.3–25.7 (49–54
/// passes, no round reaching 32 in 18 decompositions), within the spread
/// of the same graphs without resweeping (grid 84–109, Peterson-PT-3
/// 20.7–29.0 over this and the previous session), not run side by side.
const RESWEEP_AFTER_PASSES: u64 = 1;
/// Sweeps in a row in which a resweeping block's share grows nothing,
/// after which it leaves the pass even if other blocks' labels grow.
const COLORING_IDLE_SWEEPS: u64 = 4;

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
        /// The propagation pass (the stamp of the queued marks; in
        /// colouring, of `leaves_seen`, or 0 for none).
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
        /// Device address of colouring's pass stamps (`u32` per state):
        /// the last pass of a round in which an assigned state had an
        /// edge to a state of another component.
        pub leaves_seen: u64,
        /// Device address of trimming's live in- and out-degrees
        /// (`u32`, two per state).
        pub degrees: u64,
        /// 1 once trimming has assigned states (colouring then
        /// starts from the others only).
        pub trimmed: u64,
        /// Device address of the host's assignments (`u32` pairs: a
        /// state and its representative).
        pub assignments: u64,
        /// Entries of the assignments.
        pub assignment_count: u64,
        /// A colouring pass's place in its batch: it counts into counter
        /// slot `GREW_BY_PASS` plus this, and returns at once if it is
        /// not the first and the pass before counted nothing.
        pub batch_pass: u64,
        /// A colouring pass's place in its round (from 1): after
        /// `RESWEEP_AFTER_PASSES`, its blocks sweep their share of the
        /// edges again while other blocks' sweeps grow labels.
        pub round_pass: u64,
        /// Device address of each state's root in the union of the mutual
        /// edges (`u32` per state, [`mutual::roots`]), or 0: colouring
        /// then runs on the roots and the edges between them.
        pub roots: u64,
    }
}

/// The build of the SCC kernels with colouring's `labels`, with their
/// constants and parameter block.
pub fn build(labels: Labels) -> Build {
    Build::new(SOURCE)
        .defines(counter::DEFINES)
        .defines(&[
            ("SCC_COUNTERS", COUNTERS as i64),
            ("SCC_THREADS", i64::from(THREADS)),
            (
                "COLORING_MIN_BLOCKS",
                i64::from(FULL_MULTIPROCESSOR_THREADS / THREADS),
            ),
            ("RESWEEP_AFTER_PASSES", RESWEEP_AFTER_PASSES as i64),
            ("COLORING_IDLE_SWEEPS", COLORING_IDLE_SWEEPS as i64),
            ("MUTUAL_SCANNED_ROW", mutual::SCANNED_ROW as i64),
            ("MUTUAL_SAMPLED_EDGES", mutual::SAMPLED_EDGES as i64),
            ("LABELS_NEAR", labels::NEAR as i64),
            ("LABELS_LONG_ROW", labels::LONG_ROW as i64),
        ])
        .defines(&coloring_defines(labels))
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

/// Which pass over generated edges a [`GeneratedGraph`] launches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeneratedPass {
    /// Colouring: relax every edge between two live states with the same
    /// key once, and count at `grew` the blocks in which a label grew.
    Relax,
    /// The summary: OR the bits of a self-loop (1) and of an edge that
    /// leaves the component (2) into `component_bits` at each state's
    /// representative.
    Summary,
}

/// Device addresses of the arrays a pass over generated edges reads and
/// writes (0 where the pass uses none).
#[derive(Debug, Clone, Copy, Default)]
pub struct GeneratedArrays {
    /// Colouring's labels, two `u32` per state.
    pub signatures: u64,
    /// Each state's key (`u64`, [`ASSIGNED`] once assigned).
    pub keys: u64,
    /// Each state's representative (`u32`).
    pub representative: u64,
    /// The summary bits at each representative (`u32`).
    pub component_bits: u64,
    /// A `u64` counter of the blocks in which a label grew.
    pub grew: u64,
}

/// A graph whose edges are not stored but generated again by each pass
/// (the GPU explorer's table: `kernels/explore/graph.cu`), so that a state
/// space whose edges would not fit in device memory is still decomposed
/// there. Only colouring runs on it, keyed as
/// [`super::cpu::representatives_by_keyed_rounds`] specifies: forward-backward
/// needs predecessors.
pub trait GeneratedGraph {
    /// States.
    fn states(&self) -> u64;
    /// Edges.
    fn edges(&self) -> u64;
    /// Launches `pass` over every state's successors on the device's
    /// stream.
    fn launch(&self, pass: GeneratedPass, arrays: GeneratedArrays) -> Result<(), GpuError>;
    /// Fails when a pass generated a successor that is not a state of the
    /// graph.
    fn check(&self) -> Result<(), GpuError>;
}

/// Bytes of device memory a decomposition of a stored graph of `states`
/// and `edges` by `method` allocates at its peak (the graph itself not
/// counted).
pub fn stored_bytes(method: Method, states: u64, edges: u64) -> u64 {
    match method {
        // Representative, two work lists, labels, summary bits, pass
        // stamps, roots, two edge lists; beside them, when a round is
        // long, trimming's degrees, transpose and cursors (its work list
        // is the compacted list).
        Method::Coloring => 60 * states + 20 * edges,
        // Representative, two work lists, keys, labels, marks, four
        // frontiers, the transpose.
        Method::ForwardBackward => 60 * states + 4 * edges,
    }
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
    /// States that colouring's trimming assigned (0: a first round
    /// converged within `TRIM_AFTER_PASSES` passes, and nothing was
    /// trimmed).
    pub trimmed: u64,
    /// States that colouring stood in for by their cluster's root
    /// ([`mutual`]): 0 when a sample of the edges showed too few mutual
    /// ones.
    pub contracted: u64,
    /// The labels that colouring's seeds spread over the edge list
    /// (`None`: forward-backward, or colouring over generated edges, which
    /// scrambles them).
    pub labels: Option<Labels>,
    /// Seconds on the device, from the first kernel to the summary.
    pub seconds: f64,
    /// Seconds per phase (colouring: allocate, for the allocations and
    /// frees of its arrays, set-up, trim, rounds, Tarjan on the host;
    /// forward-backward: transpose, trim, rounds, Tarjan on the host; then
    /// the summary), for tuning.
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
    decompose_with(device, graph, method, false, None, partition)
}

/// [`decompose`] by colouring with the given `labels` instead of those
/// that a sample of the edges chooses ([`Labels::from_sample`]): for
/// benchmarks and tests that compare the two.
pub fn decompose_with_labels(
    device: &Device,
    graph: DeviceCsr<'_>,
    labels: Labels,
    partition: bool,
) -> Result<GpuComponents, GpuError> {
    decompose_with(
        device,
        graph,
        Method::Coloring,
        false,
        Some(labels),
        partition,
    )
}

/// [`decompose`] by colouring that trims before its first round, as the
/// MEC loop's decompositions do, instead of only once a round runs long:
/// for graphs known to be mostly long paths of trivial components, and
/// for tests of trimming (a first round that converges within
/// `TRIM_AFTER_PASSES` passes never trims).
pub fn decompose_trimming_first(
    device: &Device,
    graph: DeviceCsr<'_>,
    partition: bool,
) -> Result<GpuComponents, GpuError> {
    decompose_with(device, graph, Method::Coloring, true, None, partition)
}

/// [`decompose`], colouring trimming first if `trim_first`, with `labels`
/// if given.
fn decompose_with(
    device: &Device,
    graph: DeviceCsr<'_>,
    method: Method,
    trim_first: bool,
    labels: Option<Labels>,
    partition: bool,
) -> Result<GpuComponents, GpuError> {
    let started = Instant::now();
    let mut phases = Phases::new(device);
    let choices = Choices { trim_first, labels };
    // The state bits are read by the summary.
    let (mut run, _state_bits) =
        Run::by_method(device, &graph, method, choices, &mut phases, &never)?;
    let summary = run.summary(None)?;
    phases.end("summary")?;
    run.finish(summary, partition, started, phases)
}

/// Decomposes `graph` on `device` by `method` and leaves the result there:
/// every state's representative (a state of its component, the same for
/// all of them), for kernels that read it next (the MEC loop,
/// [`crate::mec::gpu()`]). Nothing is counted or copied back. Colouring
/// trims first: the graphs of MDPs are mostly transient states on long
/// paths (on wlan-6-0's, trimming assigns 4,955,156 of 5,007,548 states),
/// which colouring would spend `TRIM_AFTER_PASSES` (32) passes on before
/// trimming them all the same.
pub fn representatives(
    device: &Device,
    graph: DeviceCsr<'_>,
    method: Method,
) -> Result<LargeSlice<u32>, GpuError> {
    representatives_until(device, graph, method, &never)
}

/// [`representatives`], which gives up with [`GpuError::Stopped`] once
/// `stop` says so; it is asked after every batch of passes (a long path
/// can take a pass per state), so a caller racing another solver is not
/// held up.
pub fn representatives_until(
    device: &Device,
    graph: DeviceCsr<'_>,
    method: Method,
    stop: &dyn Fn() -> bool,
) -> Result<LargeSlice<u32>, GpuError> {
    let mut phases = Phases::new(device);
    let choices = Choices {
        trim_first: true,
        labels: None,
    };
    let (run, _) = Run::by_method(device, &graph, method, choices, &mut phases, stop)?;
    if tracing::enabled!(tracing::Level::DEBUG) {
        phases.end("rounds")?;
        tracing::debug!(
            states = graph.states,
            rounds = run.rounds,
            passes = run.passes,
            trimmed = run.trimmed,
            phases = ?phases.seconds,
            "SCC representatives (GPU)"
        );
    }
    Ok(run.representative)
}

/// Where a decomposition over generated edges stands, after a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundProgress {
    /// The current round (from 1).
    pub round: u64,
    /// Passes so far, over all rounds.
    pub passes: u64,
    /// States still unassigned when the round started.
    pub live: u64,
}

/// Decomposes `graph`, whose edges each pass generates, on `device` by
/// colouring; copies the partition back when `partition` is set. Calls
/// `progress` after every pass (each pass takes seconds on 10^9 states).
pub fn decompose_generated(
    device: &Device,
    graph: &dyn GeneratedGraph,
    partition: bool,
    progress: &dyn Fn(RoundProgress),
) -> Result<GpuComponents, GpuError> {
    let started = Instant::now();
    let mut phases = Phases::new(device);
    // Scrambled: the explorer's passes over generated edges spread them.
    let mut run = Run::new(device, graph.states(), graph.edges(), Labels::Scrambled)?;
    run.by_generated(graph, &mut phases, progress)?;
    let summary = run.summary(Some(graph))?;
    graph.check()?;
    phases.end("summary")?;
    run.finish(summary, partition, started, phases)
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
    /// The labels colouring's kernels spread.
    labels: Labels,
    start: CudaFunction,
    compact: CudaFunction,
    trim_clear: CudaFunction,
    trim_mark: CudaFunction,
    trim_remove: CudaFunction,
    trim_degrees: CudaFunction,
    trim_seed: CudaFunction,
    trim_drain: CudaFunction,
    signatures_start: CudaFunction,
    signatures_edges: CudaFunction,
    signatures_long_rows: CudaFunction,
    signatures_propagate: CudaFunction,
    signatures_split: CudaFunction,
    signatures_restart: CudaFunction,
    signatures_finish: CudaFunction,
    signatures_assign: CudaFunction,
    keyed_start: CudaFunction,
    keyed_split: CudaFunction,
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
    edges_sample: CudaFunction,
    mutual_join: CudaFunction,
    mutual_flatten: CudaFunction,
}

impl Kernels {
    /// The kernels of [`build`]`(labels)`.
    fn load(device: &Device, labels: Labels) -> Result<Kernels, GpuError> {
        let module = device.module(&build(labels))?;
        let get = |name: &str| module.function(name);
        Ok(Kernels {
            labels,
            start: get("scc_start")?,
            compact: get("compact")?,
            trim_clear: get("trim_clear")?,
            trim_mark: get("trim_mark")?,
            trim_remove: get("trim_remove")?,
            trim_degrees: get("trim_degrees")?,
            trim_seed: get("trim_seed")?,
            trim_drain: get("trim_drain")?,
            signatures_start: get("signatures_start")?,
            signatures_edges: get("signatures_edges")?,
            signatures_long_rows: get("signatures_long_rows")?,
            signatures_propagate: get("signatures_propagate")?,
            signatures_split: get("signatures_split")?,
            signatures_restart: get("signatures_restart")?,
            signatures_finish: get("signatures_finish")?,
            signatures_assign: get("signatures_assign")?,
            keyed_start: get("keyed_start")?,
            keyed_split: get("keyed_split")?,
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
            edges_sample: get("edges_sample")?,
            mutual_join: get("mutual_join")?,
            mutual_flatten: get("mutual_flatten")?,
        })
    }
}

/// Threads of `kernel`, in blocks of [`THREADS`], that the device keeps
/// resident at once (by the occupancy its registers allow).
fn resident_threads(device: &Device, kernel: &CudaFunction) -> Result<u64, GpuError> {
    let blocks = kernel
        .occupancy_max_active_blocks_per_multiprocessor(THREADS, 0, None)
        .map_err(GpuError::driver("querying occupancy"))?;
    if blocks == 0 {
        return Err(GpuError::Invalid(format!(
            "a block of {THREADS} threads of the SCC kernels cannot run"
        )));
    }
    Ok(u64::from(blocks) * u64::from(device.multiprocessors()) * u64::from(THREADS))
}

/// The counter slot of the frontier length of `direction` (0 forward, 1
/// backward) in list `parity`.
fn frontier_slot(direction: usize, parity: usize) -> usize {
    counter::FRONTIERS + 2 * direction + parity
}

/// Device memory the kernels fill before they read it (as each allocation
/// below says).
fn unset<T: cudarc::driver::DeviceRepr>(
    device: &Device,
    len: usize,
) -> Result<LargeSlice<T>, GpuError> {
    device.alloc_written_by_kernels(len)
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
    representative: LargeSlice<u32>,
    /// The work list and the compacted one, for the methods that keep one
    /// ([`Run::allocate_work_lists`]; set by the method's start).
    lists: Vec<LargeSlice<u32>>,
    counters: CudaSlice<u64>,
    rounds: u64,
    passes: u64,
    trimmed: u64,
    contracted: u64,
    /// Colouring's labels: given by the caller before the run, else
    /// chosen from a sample of the edges when colouring starts.
    labels: Option<Labels>,
    /// The caller's stop signal, looked at after each batch of passes.
    stop: &'d dyn Fn() -> bool,
}

/// What a caller may choose about colouring.
#[derive(Debug, Clone, Copy)]
struct Choices {
    /// Trim before the first round instead of only once a round runs
    /// long.
    trim_first: bool,
    /// The labels, instead of those a sample of the edges chooses.
    labels: Option<Labels>,
}

/// A stop signal that is never set.
fn never() -> bool {
    false
}

/// Forward-backward's arrays (set by scc_start, the rounds and the
/// transpose before they are read).
struct ForwardBackwardArrays {
    partition: LargeSlice<u64>,
    labels: [LargeSlice<u32>; 2],
    queued: [LargeSlice<u32>; 2],
    /// Two frontier lists per direction.
    frontiers: [[LargeSlice<u32>; 2]; 2],
    reverse_offsets: LargeSlice<u64>,
    reverse_targets: LargeSlice<u32>,
    pivots: LargeSlice<u32>,
}

/// What `edges_sample` counted: sampled edges that have their reverse
/// (contraction), and what the labels are chosen from.
#[derive(Debug, Clone, Copy)]
struct SampledEdges {
    mutual: u64,
    labels: EdgeSample,
}

/// Colouring's arrays: the labels (set by signatures_start) and two edge
/// lists (the first filled by signatures_start, the other by each split
/// below the count it sets).
struct SignatureArrays {
    signatures: LargeSlice<u32>,
    edge_lists: [LargeSlice<u64>; 2],
}

impl<'d> Run<'d> {
    /// A run on `states` and `edges` with the kernels of `labels`.
    fn new(
        device: &'d Device,
        states: u64,
        edges: u64,
        labels: Labels,
    ) -> Result<Run<'d>, GpuError> {
        let mut run = Run {
            device,
            kernels: Kernels::load(device, labels)?,
            params: SccParams::default(),
            representative: unset(device, states as usize)?,
            lists: Vec::new(),
            counters: device.alloc_zeroed(COUNTERS)?,
            rounds: 0,
            passes: 0,
            trimmed: 0,
            contracted: 0,
            labels: None,
            stop: &never,
        };
        run.params = SccParams {
            states,
            edges,
            representative: device.address_mut(&mut run.representative),
            counters: device.address_mut(&mut run.counters),
            ..SccParams::default()
        };
        Ok(run)
    }

    /// A run on `graph` that has assigned every state by `method`, with
    /// colouring's state bits (which the summary reads) and `choices`.
    /// [`GpuError::Stopped`] once `stop` says so.
    fn by_method(
        device: &'d Device,
        graph: &DeviceCsr<'_>,
        method: Method,
        choices: Choices,
        phases: &mut Phases<'_>,
        stop: &'d dyn Fn() -> bool,
    ) -> Result<(Run<'d>, Option<LargeSlice<u32>>), GpuError> {
        // Colouring's kernels with the labels it will likely use (a state
        // space's numbering is random), so that most runs compile and load
        // one module; forward-backward's pivots spread scrambled labels.
        let labels = match method {
            Method::Coloring => choices.labels.unwrap_or(Labels::Numbers),
            Method::ForwardBackward => Labels::Scrambled,
        };
        let mut run = Run::new(device, graph.states, graph.edges, labels)?;
        run.stop = stop;
        run.labels = choices.labels;
        run.params.offsets = device.address(graph.offsets);
        run.params.targets = device.address(graph.targets);
        let state_bits = match method {
            Method::Coloring => Some(run.by_signatures(choices.trim_first, phases)?),
            Method::ForwardBackward => {
                run.by_forward_backward(graph, phases)?;
                None
            }
        };
        Ok((run, state_bits))
    }

    /// Allocates the work list and the compacted one.
    fn allocate_work_lists(&mut self) -> Result<(), GpuError> {
        let states = self.params.states as usize;
        self.lists = vec![unset(self.device, states)?, unset(self.device, states)?];
        self.params.live = self.device.address_mut(&mut self.lists[0]);
        self.params.next_live = self.device.address_mut(&mut self.lists[1]);
        Ok(())
    }

    /// The run's work list at device address `address` (the work list's
    /// or the compacted one's).
    fn list_at(&mut self, address: u64) -> &mut LargeSlice<u32> {
        let device = self.device;
        self.lists
            .iter_mut()
            .find(|list| device.address(&***list) == address)
            .expect("the address is one of the run's lists")
    }

    /// The figures and, with `partition`, the partition copied back.
    fn finish(
        self,
        summary: Summary,
        partition: bool,
        started: Instant,
        phases: Phases<'_>,
    ) -> Result<GpuComponents, GpuError> {
        let components = if partition {
            let mut representatives = self.device.download(&self.representative)?;
            representatives.truncate(self.params.states as usize);
            Some(Components::from_representatives(&representatives))
        } else {
            None
        };
        Ok(GpuComponents {
            summary,
            components,
            rounds: self.rounds,
            passes: self.passes,
            trimmed: self.trimmed,
            contracted: self.contracted,
            labels: self.labels,
            seconds: started.elapsed().as_secs_f64(),
            phases: phases.seconds,
        })
    }

    /// Colouring over generated edges: rounds of passes until no label
    /// grows, each followed by the split of the states by their pairs of
    /// labels, until none is live.
    fn by_generated(
        &mut self,
        graph: &dyn GeneratedGraph,
        phases: &mut Phases<'_>,
        progress: &dyn Fn(RoundProgress),
    ) -> Result<(), GpuError> {
        let (device, kernels) = (self.device, self.kernels.clone());
        let states = graph.states();
        // Both set by keyed_start.
        let mut signatures = unset::<u32>(device, 2 * states as usize)?;
        let mut keys = unset::<u64>(device, states as usize)?;
        self.params.signatures = device.address_mut(&mut signatures);
        self.params.partition = device.address_mut(&mut keys);
        let arrays = GeneratedArrays {
            signatures: self.params.signatures,
            keys: self.params.partition,
            grew: self.params.counters + 8 * counter::GREW as u64,
            ..GeneratedArrays::default()
        };
        device.note_memory_use()?;
        self.launch_over(&kernels.keyed_start, states)?;
        phases.end("set-up")?;
        let mut live = states;
        while live > 0 {
            self.rounds += 1;
            tracing::debug!(
                round = self.rounds,
                live,
                "SCC colouring round over generated edges (GPU)"
            );
            loop {
                self.passes += 1;
                self.clear_counter(counter::GREW)?;
                let pass = Instant::now();
                graph.launch(GeneratedPass::Relax, arrays)?;
                let grew = self.read_counters()?[counter::GREW];
                tracing::debug!(
                    pass = self.passes,
                    blocks_grew = grew,
                    seconds = pass.elapsed().as_secs_f64(),
                    "SCC colouring pass over generated edges (GPU)"
                );
                progress(RoundProgress {
                    round: self.rounds,
                    passes: self.passes,
                    live,
                });
                if grew == 0 {
                    break;
                }
            }
            self.clear_counter(counter::LIVE)?;
            self.launch_over(&kernels.keyed_split, states)?;
            live = self.read_counters()?[counter::LIVE];
            phases.end("rounds")?;
        }
        self.launch_over(&kernels.signatures_finish, states)?;
        // Freed as this returns.
        self.params.signatures = 0;
        self.params.partition = 0;
        Ok(())
    }

    /// Colouring: rounds of passes over the edge list until no label
    /// grows, each followed by the split of the edges and the restart of
    /// the live states, until none is left; trimming first if
    /// `trim_first`, else only once a first round runs long. Gives the
    /// states' summary bits (`state_bits` in the block), which the
    /// summary reads.
    fn by_signatures(
        &mut self,
        trim_first: bool,
        phases: &mut Phases<'_>,
    ) -> Result<LargeSlice<u32>, GpuError> {
        // The run's own allocations.
        phases.end("allocate")?;
        let sample = self.sample_edges()?;
        let labels = self.labels.unwrap_or(Labels::from_sample(sample.labels));
        tracing::debug!(
            ?sample,
            ?labels,
            "SCC colouring's sample of the edges (GPU)"
        );
        self.labels = Some(labels);
        if labels != self.kernels.labels {
            self.kernels = Kernels::load(self.device, labels)?;
        }
        phases.end("set-up")?;
        let (device, kernels) = (self.device, self.kernels.clone());
        let (states, edges) = (self.params.states, self.params.edges);
        self.allocate_work_lists()?;
        // Unassigned until trimming (if it runs) assigns some.
        device.fill(&mut *self.representative, 0xff)?;
        self.params.representative = device.address_mut(&mut self.representative);
        let mut arrays = SignatureArrays {
            signatures: unset(device, 2 * states as usize)?,
            edge_lists: [
                unset(device, edges as usize)?,
                unset(device, edges as usize)?,
            ],
        };
        // Zeroed by signatures_start.
        let mut state_bits = unset::<u32>(device, states as usize)?;
        // No pass is numbered 0.
        let mut leaves_seen = device.alloc_large_filled::<u32>(states as usize, 0)?;
        device.note_memory_use()?;
        phases.end("allocate")?;
        self.params.state_bits = device.address_mut(&mut state_bits);
        self.params.leaves_seen = device.address_mut(&mut leaves_seen);
        self.params.signatures = device.address_mut(&mut arrays.signatures);
        let mut lists = arrays
            .edge_lists
            .each_mut()
            .map(|list| device.address_mut(list));
        let edge_list_addresses = lists;
        self.params.edge_list = lists[0];
        self.params.next_edges = lists[1];
        if trim_first {
            phases.end("set-up")?;
            self.trim_as_work_list()?;
            phases.end("trim")?;
        }
        let roots = self.contract(sample.mutual)?;
        if roots.is_some() {
            phases.end("contract")?;
        }
        self.start_coloring()?;
        phases.end("set-up")?;
        // As many threads as the device keeps resident: a block repeats
        // its share of the edges while others grow labels, so all of them
        // must run at once.
        let resident = resident_threads(device, &kernels.signatures_propagate)?;
        tracing::debug!(resident, "SCC colouring's resident threads (GPU)");
        while self.params.live_count > 0 {
            self.rounds += 1;
            tracing::debug!(
                round = self.rounds,
                live = self.params.live_count,
                edges = self.params.edge_count,
                "SCC colouring round (GPU)"
            );
            // A round that needs more passes than TRIM_AFTER_PASSES (long
            // paths) is given up for trimming, and after trimming, on a
            // small live graph, for Tarjan on the host.
            let trimmed = self.params.trimmed != 0;
            let limit = if trimmed && self.params.edge_count > HOST_FINISH_EDGES {
                u64::MAX
            } else {
                TRIM_AFTER_PASSES
            };
            let (mut round_passes, mut converged) = (0, self.params.edge_count == 0);
            let mut batch = FIRST_COLORING_BATCH;
            while !converged && round_passes < limit {
                let launched = batch.min(limit - round_passes);
                let grew_slots = counter::GREW_BY_PASS..counter::GREW_BY_PASS + launched as usize;
                self.clear_counter_slots(grew_slots.clone())?;
                let threads = self.params.edge_count.min(resident);
                for place in 1..=launched {
                    self.params.batch_pass = place - 1;
                    self.params.round_pass = round_passes + place;
                    self.params.pass = leaves_stamp(round_passes + place, self.passes + place);
                    self.launch_over(&kernels.signatures_propagate, threads)?;
                }
                let grew = &self.read_counters()?[grew_slots];
                // The passes that ran: up to the first that counted
                // nothing, which saw the final labels; those after it
                // returned at once.
                let ran = grew.iter().position(|&blocks| blocks == 0);
                converged = ran.is_some();
                let ran = ran.map_or(launched, |place| place as u64 + 1);
                self.passes += ran;
                round_passes += ran;
                if converged {
                    self.params.pass = leaves_stamp(round_passes, self.passes);
                }
                self.check_stop()?;
                batch = (batch * 2).min(MAX_COLORING_BATCH);
            }
            // The split reads the stamps of a last pass that saw the final
            // labels.
            if !converged {
                self.params.pass = 0;
            }
            tracing::debug!(
                passes = round_passes,
                converged,
                "SCC colouring round's passes (GPU)"
            );
            if !converged && trimmed {
                let edge_list = &arrays.edge_lists[usize::from(lists[0] != edge_list_addresses[0])];
                self.finish_round_on_host(edge_list)?;
                phases.end("Tarjan on the host")?;
            } else if !converged {
                // Long paths: trim the chains away and colour again.
                phases.end("rounds")?;
                self.trim_as_work_list()?;
                self.start_coloring()?;
                tracing::debug!(
                    trimmed = self.trimmed,
                    live = self.params.live_count,
                    "SCC trimming after a long first round (GPU)"
                );
                phases.end("trim")?;
                continue;
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
        self.launch_over(&kernels.signatures_finish, states)?;
        phases.end("rounds")?;
        self.params.pass = 0;
        self.params.leaves_seen = 0;
        self.params.roots = 0;
        drop((arrays, leaves_seen, roots));
        phases.end("allocate")?;
        Ok(state_bits)
    }

    /// Finishes a colouring round on the host: Tarjan over the live states
    /// and the edges between them (`edge_list`, the current list), whose
    /// labels then name their representatives, so that the split and the
    /// restart that follow assign them all.
    fn finish_round_on_host(&mut self, edge_list: &LargeSlice<u64>) -> Result<(), GpuError> {
        let device = self.device;
        let live_count = self.params.live_count as usize;
        let live = device.download(&self.list_at(self.params.live).slice(..live_count))?;
        let pairs = device.download(&edge_list.slice(..self.params.edge_count as usize))?;
        let local: HashMap<u32, u32> = live
            .iter()
            .enumerate()
            .map(|(index, &state)| (state, index as u32))
            .collect();
        // An edge list entry is a uint2: the source in the low word.
        let edges = pairs
            .iter()
            .map(|&pair| (local[&(pair as u32)], local[&((pair >> 32) as u32)]));
        let graph = Csr::from_edges(live.len() as u32, edges)
            .map_err(|e| GpuError::Invalid(format!("the live graph of a colouring round: {e}")))?;
        let assignments: Vec<u64> = reference::representatives(&graph)
            .iter()
            .zip(&live)
            .map(|(&representative, &state)| {
                u64::from(state) | u64::from(live[representative as usize]) << 32
            })
            .collect();
        tracing::debug!(
            states = live.len(),
            edges = pairs.len(),
            "SCC colouring round finished by Tarjan on the host (GPU)"
        );
        let mut uploaded = device.upload(&assignments)?;
        self.params.assignments = device.address_mut(&mut uploaded);
        self.params.assignment_count = assignments.len() as u64;
        let kernels = self.kernels.clone();
        self.launch_over(&kernels.signatures_assign, self.params.assignment_count)?;
        self.params.assignments = 0;
        self.params.assignment_count = 0;
        Ok(())
    }

    /// Colouring's start: every state's labels its own priority, the
    /// unassigned states in the work list and the edges between them in
    /// the edge list (the others recorded in the state bits).
    fn start_coloring(&mut self) -> Result<(), GpuError> {
        let kernels = self.kernels.clone();
        self.clear_counter(counter::LIVE)?;
        self.clear_counter(counter::EDGES)?;
        self.clear_counter(counter::LONG_ROWS)?;
        self.launch_over(&kernels.signatures_start, self.params.states)?;
        self.launch_over(&kernels.signatures_edges, self.params.edges)?;
        if self.params.trimmed == 0 && self.params.roots == 0 {
            // Returns at once unless signatures_edges left long rows.
            self.launch_over(&kernels.signatures_long_rows, self.params.edges)?;
            self.swap_lists(self.params.states);
            self.params.edge_count = self.params.edges;
        } else {
            let counters = self.read_counters()?;
            self.swap_lists(counters[counter::LIVE]);
            self.params.edge_count = counters[counter::EDGES];
        }
        Ok(())
    }

    /// The sample of the edges that decides on contraction and labels
    /// (`edges_sample`).
    fn sample_edges(&mut self) -> Result<SampledEdges, GpuError> {
        let kernels = self.kernels.clone();
        self.clear_counter_slots(counter::MUTUAL..counter::FROM_HUBS + 1)?;
        self.launch_over(&kernels.edges_sample, mutual::SAMPLED_EDGES)?;
        let counters = self.read_counters()?;
        Ok(SampledEdges {
            mutual: counters[counter::MUTUAL],
            labels: EdgeSample {
                edges: self.params.edges.min(mutual::SAMPLED_EDGES),
                near: counters[counter::NEAR],
                from_hubs: counters[counter::FROM_HUBS],
            },
        })
    }

    /// Contraction of the mutual edges ([`mutual`]) when the sample of the
    /// edges, `mutual` of which have their reverse, says it pays: each
    /// state's root, in an array that `params.roots` points into while it
    /// lives (else 0 there, and `None`).
    fn contract(&mut self, mutual: u64) -> Result<Option<LargeSlice<u32>>, GpuError> {
        let (device, kernels) = (self.device, self.kernels.clone());
        if !mutual::pays(mutual, self.params.edges) {
            return Ok(None);
        }
        // Every state a root (all bits set) until mutual_join.
        let mut roots = device.alloc_large_filled::<u32>(self.params.states as usize, 0xff)?;
        self.params.roots = device.address_mut(&mut roots);
        device.note_memory_use()?;
        self.launch_over(&kernels.mutual_join, self.params.states)?;
        self.clear_counter(counter::MUTUAL)?;
        self.launch_over(&kernels.mutual_flatten, self.params.states)?;
        self.contracted = self.read_counters()?[counter::MUTUAL];
        Ok(Some(roots))
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
        self.allocate_work_lists()?;
        let pivot_slots = states.next_power_of_two().clamp(1, MAX_PIVOT_SLOTS);
        let list = || unset::<u32>(device, states);
        let mut arrays = ForwardBackwardArrays {
            partition: unset(device, states)?,
            labels: [list()?, list()?],
            queued: [
                device.alloc_large_filled(states, 0)?,
                device.alloc_large_filled(states, 0)?,
            ],
            frontiers: [[list()?, list()?], [list()?, list()?]],
            reverse_offsets: device.alloc_large_filled(states + 1, 0)?,
            reverse_targets: unset(device, graph.edges as usize)?,
            pivots: device.alloc_large_filled(pivot_slots, 0)?,
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
        self.transpose(&mut arrays.reverse_offsets, &mut arrays.partition)?;
        device.note_memory_use()?;
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

    /// Builds the transpose into `reverse_offsets` (zeroed, states + 1)
    /// and the block's `reverse_targets`: in-degrees, their prefix sums,
    /// then the edges placed through one `cursor` per state, which must
    /// be the block's `partition` (forward-backward's partition array,
    /// which scc_start sets afterwards).
    fn transpose(
        &mut self,
        reverse_offsets: &mut LargeSlice<u64>,
        cursor: &mut LargeSlice<u64>,
    ) -> Result<(), GpuError> {
        let kernels = self.kernels.clone();
        let (states, edges) = (self.params.states as usize, self.params.edges);
        self.launch_over(&kernels.transpose_count, edges)?;
        scan::exclusive_scan(self.device, reverse_offsets, states + 1)?;
        self.device
            .stream()
            .memcpy_dtod(&reverse_offsets.slice(..states.max(1)), cursor)
            .map_err(GpuError::driver(DURING))?;
        self.launch_over(&kernels.transpose_fill, states as u64)
    }

    /// Trimming (`trim_degrees` in the kernels): assigns every state left
    /// without an edge from or to another live state a component of its
    /// own, until none is, and leaves the rest unassigned. One work list
    /// (`trim_drain`): a state is peeled as soon as its last live edge on
    /// one side is gone, without waves. Uses the transpose and the work
    /// lists, which the method sets again afterwards; counts the states
    /// assigned in `trimmed`.
    fn trim_as_work_list(&mut self) -> Result<(), GpuError> {
        let (device, kernels) = (self.device, self.kernels.clone());
        let states = self.params.states as usize;
        let mut degrees = device.alloc_large_filled::<u32>(2 * states, 0)?;
        let mut reverse_offsets = device.alloc_large_filled::<u64>(states + 1, 0)?;
        let mut reverse_targets = unset::<u32>(device, self.params.edges as usize)?;
        let mut cursor = unset::<u64>(device, states)?;
        // The work list's queue is the compacted list, which colouring's
        // start writes again: free (all ones) beyond what is appended.
        device.fill(self.list_at(self.params.next_live), 0xff)?;
        self.params.degrees = device.address_mut(&mut degrees);
        self.params.reverse_offsets = device.address_mut(&mut reverse_offsets);
        self.params.reverse_targets = device.address_mut(&mut reverse_targets);
        self.params.partition = device.address_mut(&mut cursor);
        self.transpose(&mut reverse_offsets, &mut cursor)?;
        device.note_memory_use()?;
        self.launch_over(&kernels.trim_degrees, states as u64)?;
        for slot in [
            counter::LIVE,
            counter::TRIM_TAKEN,
            counter::TRIM_FINISHED,
            counter::TRIM_CONTINUED,
        ] {
            self.clear_counter(slot)?;
        }
        self.launch_over(&kernels.trim_seed, states as u64)?;
        let resident =
            u64::from(device.multiprocessors()) * TRIM_BLOCKS_PER_SM * u64::from(THREADS);
        self.launch_over(&kernels.trim_drain, resident)?;
        let counters = self.read_counters()?;
        self.trimmed = counters[counter::LIVE] + counters[counter::TRIM_CONTINUED];
        self.params.degrees = 0;
        self.params.reverse_offsets = 0;
        self.params.reverse_targets = 0;
        self.params.partition = 0;
        self.params.trimmed = 1;
        Ok(())
    }

    /// [`GpuError::Stopped`] if the caller's stop signal is set.
    fn check_stop(&self) -> Result<(), GpuError> {
        if (self.stop)() {
            return Err(GpuError::Stopped);
        }
        Ok(())
    }

    /// Launches `kernel` with enough threads for `items` work items.
    fn launch_over(&self, kernel: &CudaFunction, items: u64) -> Result<(), GpuError> {
        let mut launch = self.device.stream().launch_builder(kernel);
        launch.arg(&self.params);
        let config = self.device.grid_stride_launch(items, THREADS, 32);
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
        self.clear_counter_slots(slot..slot + 1)
    }

    /// Zeroes the counters in `slots`.
    fn clear_counter_slots(&mut self, slots: std::ops::Range<usize>) -> Result<(), GpuError> {
        self.device
            .stream()
            .memset_zeros(&mut self.counters.slice_mut(slots))
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
            self.check_stop()?;
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
    /// two arrays of its own: sizes and bits of each component); the bits
    /// come from colouring's `state_bits`, or a pass over the edges
    /// (`generated` by that graph's passes, if given).
    fn summary(&mut self, generated: Option<&dyn GeneratedGraph>) -> Result<Summary, GpuError> {
        let kernels = self.kernels.clone();
        let (states, edges) = (self.params.states, self.params.edges);
        // Set by summary_clear.
        let mut scratch = [
            unset::<u32>(self.device, states as usize)?,
            unset::<u32>(self.device, states as usize)?,
        ];
        self.params.forward = self.device.address_mut(&mut scratch[0]);
        self.params.backward = self.device.address_mut(&mut scratch[1]);
        self.device.note_memory_use()?;
        self.clear_counters()?;
        self.launch_over(&kernels.summary_clear, states)?;
        self.launch_over(&kernels.summary_sizes, states)?;
        match generated {
            Some(graph) => graph.launch(
                GeneratedPass::Summary,
                GeneratedArrays {
                    representative: self.params.representative,
                    component_bits: self.params.backward,
                    ..GeneratedArrays::default()
                },
            )?,
            None if self.params.state_bits == 0 => {
                self.launch_over(&kernels.summary_edges, edges)?
            }
            None => {}
        }
        self.launch_over(&kernels.summary_count, states)?;
        let counters = self.read_counters()?;
        Ok(Summary {
            states,
            edges,
            components: counters[counter::COMPONENTS],
            largest_component: counters[counter::LARGEST],
            trivial_components: counters[counter::TRIVIAL],
            bottom_components: counters[counter::BOTTOM],
        })
    }
}
