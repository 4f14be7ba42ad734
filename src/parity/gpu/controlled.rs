//! The preprocessing of `parity/controlled.rs` on the GPU
//! (`kernels/parity/controlled.cu`): the cycles each player controls
//! alone and that player's attractor of them, Even first, then Odd in
//! what is left. On the random and steady games of 10^6 vertices of
//! `benches/results/2026-12-02d-h200-parity-gpu/` it left 0 to 150
//! vertices open.
//!
//! The game goes to the device once; its predecessor lists are built
//! there (a count, a scan, a fill). For each player, rounds over its open
//! vertices build the graph of their moves among themselves, decompose it
//! with the SCC kernels ([`scc::gpu::representatives`]), give each
//! component its top vertex (highest priority, then highest number) and
//! size, win the cyclic components whose top favours the player (from the
//! top, the moves back to it within the component, searched in waves),
//! and drop the acyclic components and the top priorities of the others
//! before the next round. The player's attractor of what it won then runs
//! in waves too ([`waves::run`]). Only the winners and the strategy come
//! back; the host solves the open rest (`finish` in `controlled.rs`).
//!
//! The sets won equal the CPU's (each is a least fixpoint: the cycles a
//! player can keep going round whose top favours it, and an attractor);
//! the moves may differ where several would do, as the vertices are
//! reached in another order.

use std::borrow::Cow;

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig};

use crate::explicit::ParityGame;
use crate::gpu::{Build, Device, GpuError, KernelSource, LargeSlice, scan, waves};
use crate::parity::controlled::finish;
use crate::parity::{Solution, SolveError, Watch};
use crate::scc;
use crate::scc::cpu::Method;
use crate::{kernel_constants, kernel_file, param_block};

/// The preprocessing's kernels.
pub const SOURCE: KernelSource = KernelSource {
    main: kernel_file!("parity/controlled.cu"),
    headers: &[],
};

kernel_constants! {
    /// Slots of the kernels' `u64` counters.
    pub mod counter: usize = "CONTROLLED_COUNTER_" {
        /// Length of the next member list.
        NEXT = 0;
        /// Length of the next wave.
        WAVE = 1;
        /// Waves run by the last launch of `ctl_waves_block`.
        WAVES = 2;
    }
}

/// Counter slots in all.
const COUNTERS: usize = counter::WAVES + 1;
/// Threads per block.
const THREADS: u32 = 256;
/// Waves that one launch of `ctl_waves_block` runs at most, so that a
/// stop is seen between launches (a long chain takes a wave a vertex).
const BLOCK_WAVES: u64 = 1024;
/// What the kernels do, for error messages.
const DURING: &str = "solving the cycles each player controls on the GPU";

param_block! {
    /// The game and the preprocessing's arrays (`ControlledParams` in the
    /// kernel).
    pub struct ControlledParams {
        /// Device address of each vertex's first move (`u64`, one more).
        pub offsets: u64,
        /// Device address of the moves' targets (`u32`).
        pub targets: u64,
        /// Device address of each vertex's first predecessor (`u64`, one
        /// more).
        pub predecessor_offsets: u64,
        /// Device address of the predecessors (`u32`, one per move).
        pub predecessors: u64,
        /// Device address of the priorities (`u32`).
        pub priorities: u64,
        /// Device address of the owners (`u8`: 0 Even, 1 Odd).
        pub owners: u64,
        /// Vertices.
        pub vertices: u64,
        /// Device address of the winners (`u32`: 0 Even, 1 Odd, 2 open).
        pub winners: u64,
        /// Device address of the winners' moves (`u32`, `NO_MOVE` for
        /// none).
        pub strategy: u64,
        /// Device address of the opponent's moves left out of an
        /// attractor (`u32` per vertex).
        pub remaining: u64,
        /// The player whose cycles and attractor are sought: 0 Even, 1 Odd.
        pub player: u64,
        /// Device address of each vertex's member index (`u32`, all ones
        /// for none).
        pub local: u64,
        /// Device address of this round's members (`u32`).
        pub members: u64,
        /// Members this round.
        pub member_count: u64,
        /// Device address of the next round's members (`u32`, appended).
        pub next_members: u64,
        /// Device address of the members' graph's offsets (`u64`, one
        /// more than the members).
        pub graph_offsets: u64,
        /// Device address of its targets (member indices, `u32`).
        pub graph_targets: u64,
        /// Device address of the members' components (`u32`, from the
        /// SCC kernels).
        pub representative: u64,
        /// Device address of each component's top (`u64`: priority, then
        /// vertex), by representative.
        pub tops: u64,
        /// Device address of each component's size (`u32`), by
        /// representative.
        pub sizes: u64,
        /// Device address of the members' self-loop flags (`u32`).
        pub self_loops: u64,
        /// Device address of this wave's vertices (`u32`).
        pub wave: u64,
        /// Vertices in this wave.
        pub wave_count: u64,
        /// Device address of the next wave's (`u32`, appended).
        pub next_wave: u64,
        /// 1 while the waves search back from the tops within their
        /// components, 0 while they attract.
        pub within_components: u64,
        /// Device address of the cursors that fill the predecessors
        /// (`u64` per vertex).
        pub cursor: u64,
        /// Device address of the counters.
        pub counters: u64,
    }
}

/// The kernels' build, with their constants and parameter block.
pub fn build() -> Build {
    Build::new(SOURCE)
        .defines(counter::DEFINES)
        .define("CONTROLLED_BLOCK_WAVE", waves::BLOCK_WAVE as i64)
        .define("CONTROLLED_BLOCK_WAVES", BLOCK_WAVES as i64)
        .check_layout::<ControlledParams>()
}

/// The kernels, looked up once.
struct Kernels {
    count_predecessors: CudaFunction,
    fill_predecessors: CudaFunction,
    start: CudaFunction,
    first_members: CudaFunction,
    number: CudaFunction,
    unnumber: CudaFunction,
    degree: CudaFunction,
    fill: CudaFunction,
    tops: CudaFunction,
    classify: CudaFunction,
    waves: CudaFunction,
    waves_block: CudaFunction,
    remaining: CudaFunction,
    won: CudaFunction,
}

impl Kernels {
    fn load(device: &Device) -> Result<Kernels, GpuError> {
        let module = device.module(&build())?;
        let get = |name: &str| module.function(name);
        Ok(Kernels {
            count_predecessors: get("ctl_count_predecessors")?,
            fill_predecessors: get("ctl_fill_predecessors")?,
            start: get("ctl_start")?,
            first_members: get("ctl_first_members")?,
            number: get("ctl_number")?,
            unnumber: get("ctl_unnumber")?,
            degree: get("ctl_degree")?,
            fill: get("ctl_fill")?,
            tops: get("ctl_tops")?,
            classify: get("ctl_classify")?,
            waves: get("ctl_waves")?,
            waves_block: get("ctl_waves_block")?,
            remaining: get("ctl_remaining")?,
            won: get("ctl_won")?,
        })
    }
}

/// Solves `game` (validated) by first solving the cycles each player
/// controls and their attractors on `device`, then the open rest with
/// `solve_rest`; the stop signal is looked at between rounds.
pub(in crate::parity) fn solve_with(
    device: &Device,
    game: &ParityGame,
    watch: &mut Watch<'_>,
    solve_rest: impl FnOnce(Cow<'_, ParityGame>) -> Result<Solution, SolveError>,
) -> Result<Solution, SolveError> {
    let started = std::time::Instant::now();
    let (winners, strategy) = preprocess(device, game, watch)?;
    let preprocessed = started.elapsed().as_secs_f64();
    let solution = finish(game, winners, strategy, solve_rest)?;
    tracing::debug!(
        preprocessed,
        seconds = started.elapsed().as_secs_f64(),
        "the GPU's preprocessing, then the rest"
    );
    Ok(solution)
}

/// The winners (`Player as u8`, or 2 while open) and the winners' moves
/// (`NO_MOVE` elsewhere) that the preprocessing finds.
fn preprocess(
    device: &Device,
    game: &ParityGame,
    watch: &mut Watch<'_>,
) -> Result<(Vec<u8>, Vec<u32>), SolveError> {
    watch.check(0)?;
    let options = watch.options;
    let stop = move || options.stop.is_set();
    let vertices = game.vertices() as usize;
    if vertices == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let setting_up = std::time::Instant::now();
    let moves = game.edges.targets.len();
    // Set-up took 55-63 ms on a game of 10^7 vertices (counter_qpt
    // 5000000, benches/results/2026-12-02f-h200-parity-race/): a race's
    // rival may finish meanwhile.
    let kernels = Kernels::load(device)?;
    watch.stopped()?;
    let owners: Vec<u8> = game.owners.iter().map(|&o| o as u8).collect();
    let offsets = device.upload_large(&game.edges.offsets)?;
    let targets = device.upload_large(&game.edges.targets)?;
    let priorities = device.upload_large(&game.priorities)?;
    let owners = device.upload_large(&owners)?;
    watch.stopped()?;
    let per_vertex = || device.alloc_written_by_kernels::<u32>(vertices);
    let mut predecessor_offsets = device.alloc_large_filled::<u64>(vertices + 1, 0)?;
    let mut predecessors = device.alloc_written_by_kernels::<u32>(moves.max(1))?;
    // Set by ctl_start.
    let mut winners = per_vertex()?;
    let mut strategy = per_vertex()?;
    let mut local = per_vertex()?;
    // Set by ctl_remaining before an attractor reads them.
    let mut remaining = per_vertex()?;
    // Appended to; read below the count appended.
    let mut member_lists = [per_vertex()?, per_vertex()?];
    let mut wave_lists = [per_vertex()?, per_vertex()?];
    // Set below the member count by ctl_number and ctl_degree.
    let mut graph_offsets = device.alloc_written_by_kernels::<u64>(vertices + 1)?;
    let mut tops = device.alloc_written_by_kernels::<u64>(vertices)?;
    let mut sizes = per_vertex()?;
    let mut self_loops = per_vertex()?;
    let mut counters: CudaSlice<u64> = device.alloc_zeroed(COUNTERS)?;
    let mut params = ControlledParams {
        offsets: device.address(&*offsets),
        targets: device.address(&*targets),
        predecessor_offsets: device.address_mut(&mut predecessor_offsets),
        predecessors: device.address_mut(&mut predecessors),
        priorities: device.address(&*priorities),
        owners: device.address(&*owners),
        vertices: vertices as u64,
        winners: device.address_mut(&mut winners),
        strategy: device.address_mut(&mut strategy),
        remaining: device.address_mut(&mut remaining),
        local: device.address_mut(&mut local),
        members: device.address_mut(&mut member_lists[1]),
        next_members: device.address_mut(&mut member_lists[0]),
        graph_offsets: device.address_mut(&mut graph_offsets),
        tops: device.address_mut(&mut tops),
        sizes: device.address_mut(&mut sizes),
        self_loops: device.address_mut(&mut self_loops),
        wave: device.address_mut(&mut wave_lists[1]),
        next_wave: device.address_mut(&mut wave_lists[0]),
        counters: device.address_mut(&mut counters),
        ..ControlledParams::default()
    };
    let over_vertices = vertices as u64;
    launch_over(device, &kernels.count_predecessors, &params, over_vertices)?;
    scan::exclusive_scan(device, &mut predecessor_offsets, vertices + 1)?;
    {
        // Dropped (after the stream's work) once the fill has run.
        let mut cursor = device.alloc_written_by_kernels::<u64>(vertices)?;
        device
            .stream()
            .memcpy_dtod(&predecessor_offsets.slice(..vertices), &mut *cursor)
            .map_err(GpuError::driver(DURING))?;
        params.cursor = device.address_mut(&mut cursor);
        launch_over(device, &kernels.fill_predecessors, &params, over_vertices)?;
        params.cursor = 0;
    }
    launch_over(device, &kernels.start, &params, over_vertices)?;
    if tracing::enabled!(tracing::Level::DEBUG) {
        device.synchronize()?;
        tracing::debug!(
            seconds = setting_up.elapsed().as_secs_f64(),
            "the game and its predecessors on the GPU"
        );
    }
    let started = std::time::Instant::now();
    let mut rounds = 0;
    for player in 0..2u64 {
        params.player = player;
        clear(device, &mut counters)?;
        launch_over(device, &kernels.first_members, &params, over_vertices)?;
        let mut members = read(device, &counters)?[counter::NEXT];
        while members > 0 {
            rounds += 1;
            watch.check(rounds)?;
            std::mem::swap(&mut params.members, &mut params.next_members);
            params.member_count = members;
            members = cycles_round(
                device,
                &kernels,
                &mut params,
                &mut graph_offsets,
                &mut counters,
                &stop,
            )?;
        }
        // The attractor of everything the player won.
        params.within_components = 0;
        clear(device, &mut counters)?;
        launch_over(device, &kernels.remaining, &params, over_vertices)?;
        launch_over(device, &kernels.won, &params, over_vertices)?;
        let won = read(device, &counters)?[counter::WAVE];
        let waves = run_waves(device, &kernels, &mut params, &mut counters, won, &stop)?;
        tracing::debug!(
            player,
            rounds,
            won,
            waves,
            seconds = started.elapsed().as_secs_f64(),
            "a player's controlled cycles and attractor (GPU)"
        );
    }
    let winners = device.download(&*winners)?;
    let strategy = device.download(&*strategy)?;
    let winners = winners.into_iter().map(|w| w as u8).collect();
    Ok((winners, strategy))
}

/// One round over the members (`params.member_count` of them, in
/// `params.members`): their graph, its components, the components won
/// and the search back from their tops; the next round's members.
fn cycles_round(
    device: &Device,
    kernels: &Kernels,
    params: &mut ControlledParams,
    graph_offsets: &mut LargeSlice<u64>,
    counters: &mut CudaSlice<u64>,
    stop: &dyn Fn() -> bool,
) -> Result<u64, SolveError> {
    let n = params.member_count;
    launch_over(device, &kernels.number, params, n)?;
    launch_over(device, &kernels.degree, params, n)?;
    scan::exclusive_scan(device, graph_offsets, n as usize + 1)?;
    let edges = device.download(&graph_offsets.slice(n as usize..n as usize + 1))?[0];
    // Written by ctl_fill, every entry below the edge count.
    let mut graph_targets = device.alloc_written_by_kernels::<u32>(edges.max(1) as usize)?;
    params.graph_targets = device.address_mut(&mut graph_targets);
    launch_over(device, &kernels.fill, params, n)?;
    let graph = scc::gpu::DeviceCsr {
        states: n,
        edges,
        offsets: graph_offsets,
        targets: &graph_targets,
    };
    let representative = scc::gpu::representatives_until(device, graph, Method::Coloring, stop)?;
    params.representative = device.address(&*representative);
    launch_over(device, &kernels.tops, params, n)?;
    clear(device, counters)?;
    launch_over(device, &kernels.classify, params, n)?;
    let counts = read(device, counters)?;
    params.within_components = 1;
    run_waves(
        device,
        kernels,
        params,
        counters,
        counts[counter::WAVE],
        stop,
    )?;
    launch_over(device, &kernels.unnumber, params, n)?;
    params.representative = 0;
    params.graph_targets = 0;
    // The waves zeroed only their own slots.
    Ok(counts[counter::NEXT])
}

/// Runs waves from the `pending` vertices just appended to the next
/// wave until one is empty ([`waves::run_until`]), or until `stop` says
/// so ([`SolveError::Stopped`]).
fn run_waves(
    device: &Device,
    kernels: &Kernels,
    params: &mut ControlledParams,
    counters: &mut CudaSlice<u64>,
    pending: u64,
    stop: &dyn Fn() -> bool,
) -> Result<u64, SolveError> {
    let reach = waves::Waves {
        block: &kernels.waves_block,
        grid: &kernels.waves,
        params,
        lists: |p| (&mut p.wave, &mut p.next_wave, &mut p.wave_count),
        launch: launch_with,
        threads: THREADS,
    };
    let slots = (counter::WAVE, counter::WAVES);
    let (run, left) =
        waves::run_until(device, reach, counters, slots, pending, DURING, |_| stop())?;
    if left > 0 {
        return Err(SolveError::Stopped);
    }
    Ok(run)
}

/// Zeroes the counters.
fn clear(device: &Device, counters: &mut CudaSlice<u64>) -> Result<(), GpuError> {
    device
        .stream()
        .memset_zeros(counters)
        .map_err(GpuError::driver(DURING))
}

/// The counters, once the stream has run everything before.
fn read(device: &Device, counters: &CudaSlice<u64>) -> Result<Vec<u64>, SolveError> {
    Ok(device.download(counters)?)
}

/// Launches `kernel` with `params` and enough threads for `items` work
/// items.
fn launch_over(
    device: &Device,
    kernel: &CudaFunction,
    params: &ControlledParams,
    items: u64,
) -> Result<(), GpuError> {
    launch_with(
        device,
        kernel,
        params,
        device.grid_stride_launch(items, THREADS, 32),
    )
}

/// Launches `kernel` with `params` in `config`.
fn launch_with(
    device: &Device,
    kernel: &CudaFunction,
    params: &ControlledParams,
    config: LaunchConfig,
) -> Result<(), GpuError> {
    // SAFETY: the block matches the kernel's (checked at compile time);
    // every address in it points into an allocation of `preprocess`,
    // sized as the block says, or is 0 where the kernel does not read it.
    unsafe { device.launch_block(kernel, params, config, DURING) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preprocessing_kernels_compile_with_nvrtc() {
        crate::gpu::assert_kernels_compile(
            &build(),
            &[
                "ctl_count_predecessors",
                "ctl_fill_predecessors",
                "ctl_start",
                "ctl_first_members",
                "ctl_number",
                "ctl_unnumber",
                "ctl_degree",
                "ctl_fill",
                "ctl_tops",
                "ctl_classify",
                "ctl_waves",
                "ctl_waves_block",
                "ctl_remaining",
                "ctl_won",
            ],
        );
    }
}
