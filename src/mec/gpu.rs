//! Maximal end components on the GPU (`kernels/mec/mec.cu`): the loop of
//! [`super::decompose`] over a shrinking candidate set, with the MDP, the
//! enabled choices, the candidates and each iteration's graph on the
//! device. An iteration numbers the candidates, builds the graph of their
//! enabled choices (degrees, a prefix sum, the edges), decomposes it with
//! the SCC kernels ([`scc::gpu::representatives`]), disables the choices
//! that leave their component or the candidates, labels the components
//! that lost nothing as MECs and appends the rest's live states to the
//! next candidates. The host reads two counts an iteration (edges, next
//! candidates) and the labels once at the end.

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig};

use super::{Mecs, Phases};
use crate::explicit::Mdp;
use crate::gpu::{Build, Device, GpuError, KernelSource, LargeSlice, scan, waves};
use crate::scc;
use crate::scc::cpu::Method;
use crate::{kernel_constants, kernel_file, param_block};

/// The MEC kernels.
pub const SOURCE: KernelSource = KernelSource {
    main: kernel_file!("mec/mec.cu"),
    headers: &[],
};

kernel_constants! {
    /// Slots of the kernels' `u64` counters.
    pub mod counter: usize = "MEC_COUNTER_" {
        /// Length of the next candidate list.
        NEXT = 0;
        /// Length of the next wave of deaths.
        DYING = 1;
        /// Waves run by the last launch of `mec_deaths_block`.
        WAVES = 2;
    }
}

/// Counter slots in all.
const COUNTERS: usize = counter::WAVES + 1;
/// Threads per block.
const THREADS: u32 = 256;
/// What the kernels do, for error messages.
const DURING: &str = "decomposing into maximal end components";

param_block! {
    /// The arrays of a MEC decomposition (`MecParams` in the kernel).
    pub struct MecParams {
        /// Device address of the MDP's choice offsets (`u64`, states + 1).
        pub choice_offsets: u64,
        /// Device address of its branch offsets (`u64`, choices + 1).
        pub branch_offsets: u64,
        /// Device address of its branch targets (`u32`).
        pub targets: u64,
        /// States.
        pub states: u64,
        /// Device address of the enabled flags (`u32` per choice, nonzero
        /// while enabled).
        pub enabled: u64,
        /// Device address of each choice's state (`u32`).
        pub choice_state: u64,
        /// Device address of the entering index's offsets (`u64`, states + 1).
        pub entering_offsets: u64,
        /// Device address of the entering choices (`u32` per branch).
        pub entering: u64,
        /// Device address of the cursors that fill them (`u64` per state).
        pub entering_cursor: u64,
        /// Device address of this wave's dying states (`u32` per state).
        pub dying: u64,
        /// Dying states in the wave.
        pub dying_count: u64,
        /// Device address of the next wave's (`u32` per state).
        pub next_dying: u64,
        /// Device address of the enabled choices' counts (`u32` per state).
        pub enabled_count: u64,
        /// Device address of each state's candidate index (`u32`).
        pub local: u64,
        /// Device address of the MEC labels (`u32` per state).
        pub mec_label: u64,
        /// Device address of the candidate list (`u32` per state).
        pub candidates: u64,
        /// Candidates in the list.
        pub candidate_count: u64,
        /// Device address of the next candidate list (`u32` per state).
        pub next_candidates: u64,
        /// Device address of the candidates' graph offsets (`u64`, states + 1).
        pub graph_offsets: u64,
        /// Device address of its targets (`u32`, one per edge).
        pub graph_targets: u64,
        /// Device address of the candidates' representatives (`u32`).
        pub representative: u64,
        /// Device address of the lost marks (`u32` per component index).
        pub lost: u64,
        /// Device address of the smallest states (`u32` per component index).
        pub smallest: u64,
        /// Device address of the counters.
        pub counters: u64,
        /// Device address of the members' ranks (`u32`, states + 1).
        pub member_rank: u64,
        /// Device address of the states in MECs (`u32` each).
        pub members: u64,
        /// Device address of their labels (`u32` each).
        pub member_labels: u64,
    }
}

/// The build of the MEC kernels, with their constants and parameter block.
pub fn build() -> Build {
    Build::new(SOURCE)
        .defines(counter::DEFINES)
        .define("MEC_BLOCK_WAVE", waves::BLOCK_WAVE as i64)
        .check_layout::<MecParams>()
}

/// The kernels, looked up once.
struct Kernels {
    start: CudaFunction,
    entering: CudaFunction,
    deaths: CudaFunction,
    deaths_block: CudaFunction,
    first: CudaFunction,
    number: CudaFunction,
    degree: CudaFunction,
    fill: CudaFunction,
    split: CudaFunction,
    smallest: CudaFunction,
    settle: CudaFunction,
    flags: CudaFunction,
    members: CudaFunction,
}

impl Kernels {
    fn load(device: &Device) -> Result<Kernels, GpuError> {
        let module = device.module(&build())?;
        let get = |name: &str| module.function(name);
        Ok(Kernels {
            start: get("mec_start")?,
            entering: get("mec_entering")?,
            deaths: get("mec_deaths")?,
            deaths_block: get("mec_deaths_block")?,
            first: get("mec_first")?,
            number: get("mec_number")?,
            degree: get("mec_degree")?,
            fill: get("mec_fill")?,
            split: get("mec_split")?,
            smallest: get("mec_smallest")?,
            settle: get("mec_settle")?,
            flags: get("mec_flags")?,
            members: get("mec_members")?,
        })
    }
}

/// The MECs of `mdp` on `device`, each iteration's graph decomposed by
/// `method`. `mdp` must be valid ([`Mdp::validate`]).
pub fn decompose(device: &Device, mdp: &Mdp, method: Method) -> Result<Mecs, GpuError> {
    // The set-up's phases are timed (the device waited for) only in the
    // debug log.
    let timed = tracing::enabled!(tracing::Level::DEBUG);
    let mut phases = Phases::new();
    let mark = |phases: &mut Phases, name: &'static str| -> Result<(), GpuError> {
        if timed {
            device.synchronize()?;
            phases.end(name);
        }
        Ok(())
    };
    let states = mdp.states() as usize;
    let choices = mdp.choices() as usize;
    let kernels = Kernels::load(device)?;
    mark(&mut phases, "kernels")?;
    let choice_offsets = device.upload_large(&mdp.choice_offsets)?;
    let branch_offsets = device.upload_large(&mdp.branch_offsets)?;
    let targets = device.upload_large(&mdp.targets)?;
    mark(&mut phases, "upload")?;
    let mut enabled = device.alloc_large_filled::<u32>(choices, 0xff)?;
    // Counted by mec_start, then scanned.
    let mut entering_offsets = device.alloc_large_filled::<u64>(states + 1, 0)?;
    // Set by mec_start and mec_entering.
    let mut choice_state = device.alloc_written_by_kernels::<u32>(choices)?;
    let mut entering = device.alloc_written_by_kernels::<u32>(mdp.targets.len())?;
    let mut enabled_count = device.alloc_written_by_kernels::<u32>(states)?;
    let mut local = device.alloc_written_by_kernels::<u32>(states)?;
    let mut mec_label = device.alloc_written_by_kernels::<u32>(states)?;
    // Appended to; read below the count appended.
    let mut lists = [
        device.alloc_written_by_kernels::<u32>(states)?,
        device.alloc_written_by_kernels::<u32>(states)?,
    ];
    let mut dying = [
        device.alloc_written_by_kernels::<u32>(states)?,
        device.alloc_written_by_kernels::<u32>(states)?,
    ];
    // Set below the candidate count by mec_number and mec_degree.
    let mut graph_offsets = device.alloc_written_by_kernels::<u64>(states + 1)?;
    let mut lost = device.alloc_written_by_kernels::<u32>(states)?;
    let mut smallest = device.alloc_written_by_kernels::<u32>(states)?;
    let mut counters: CudaSlice<u64> = device.alloc_zeroed(COUNTERS)?;
    let mut params = MecParams {
        choice_offsets: device.address(&choice_offsets),
        branch_offsets: device.address(&branch_offsets),
        targets: device.address(&targets),
        states: states as u64,
        enabled: device.address_mut(&mut enabled),
        choice_state: device.address_mut(&mut choice_state),
        entering_offsets: device.address_mut(&mut entering_offsets),
        entering: device.address_mut(&mut entering),
        dying: device.address_mut(&mut dying[1]),
        next_dying: device.address_mut(&mut dying[0]),
        enabled_count: device.address_mut(&mut enabled_count),
        local: device.address_mut(&mut local),
        mec_label: device.address_mut(&mut mec_label),
        candidates: device.address_mut(&mut lists[1]),
        next_candidates: device.address_mut(&mut lists[0]),
        graph_offsets: device.address_mut(&mut graph_offsets),
        lost: device.address_mut(&mut lost),
        smallest: device.address_mut(&mut smallest),
        counters: device.address_mut(&mut counters),
        ..MecParams::default()
    };
    let launch = |kernel: &CudaFunction, params: &MecParams, items: u64| {
        launch_over(device, kernel, params, items)
    };
    mark(&mut phases, "allocate")?;
    launch(&kernels.start, &params, states as u64)?;
    scan::exclusive_scan(device, &mut entering_offsets, states + 1)?;
    mark(&mut phases, "start")?;
    {
        // Dropped (after the stream's work) once mec_entering has run.
        let mut cursor = device.alloc_written_by_kernels::<u64>(states)?;
        device
            .stream()
            .memcpy_dtod(&entering_offsets.slice(..states.max(1)), &mut *cursor)
            .map_err(GpuError::driver(DURING))?;
        params.entering_cursor = device.address_mut(&mut cursor);
        launch(&kernels.entering, &params, states as u64)?;
        params.entering_cursor = 0;
    }
    let dead = device.download(&counters)?[counter::DYING];
    mark(&mut phases, "entering")?;
    let waves = deaths(device, &kernels, &mut params, &mut counters, dead)?;
    mark(&mut phases, "deaths")?;
    launch(&kernels.first, &params, states as u64)?;
    let mut candidates = device.download(&counters)?[counter::NEXT];
    mark(&mut phases, "first")?;
    tracing::debug!(states, candidates, waves, phases = %phases, "MEC set-up (GPU)");
    let mut iterations = 0;
    loop {
        iterations += 1;
        std::mem::swap(&mut params.candidates, &mut params.next_candidates);
        params.candidate_count = candidates;
        if candidates == 0 {
            break;
        }
        let mut phases = Phases::new();
        let n = candidates as usize;
        launch(&kernels.number, &params, candidates)?;
        launch(&kernels.degree, &params, candidates)?;
        scan::exclusive_scan(device, &mut graph_offsets, n + 1)?;
        let edges = device.download(&graph_offsets.slice(n..n + 1))?[0];
        // Written by mec_fill, every entry below the edge count.
        let mut graph_targets = device.alloc_written_by_kernels::<u32>(edges as usize)?;
        params.graph_targets = device.address_mut(&mut graph_targets);
        launch(&kernels.fill, &params, candidates)?;
        let graph = scc::gpu::DeviceCsr {
            states: candidates,
            edges,
            offsets: &graph_offsets,
            targets: &graph_targets,
        };
        device.synchronize()?;
        phases.end("graph");
        let representative = scc::gpu::representatives(device, graph, method)?;
        phases.end("scc");
        params.representative = device.address(&*representative);
        device
            .stream()
            .memset_zeros(&mut counters)
            .map_err(GpuError::driver(DURING))?;
        launch(&kernels.split, &params, candidates)?;
        let dead = device.download(&counters)?[counter::DYING];
        phases.end("split");
        let waves = deaths(device, &kernels, &mut params, &mut counters, dead)?;
        phases.end("deaths");
        launch(&kernels.smallest, &params, candidates)?;
        launch(&kernels.settle, &params, candidates)?;
        candidates = device.download(&counters)?[counter::NEXT];
        phases.end("settle");
        tracing::debug!(
            iteration = iterations,
            candidates = n,
            edges,
            left = candidates,
            waves,
            phases = %phases,
            "MEC iteration (GPU)"
        );
        if candidates == 0 {
            break;
        }
    }
    let mut phases = Phases::new();
    // Only the states in MECs come back, ascending, with their labels.
    let mut rank = device.alloc_written_by_kernels::<u32>(states + 1)?;
    params.member_rank = device.address_mut(&mut rank);
    launch(&kernels.flags, &params, states as u64)?;
    scan::exclusive_scan(device, &mut rank, states + 1)?;
    let in_mecs = device.download(&rank.slice(states..states + 1))?[0] as usize;
    // Written below the count by mec_members.
    let mut members = [
        device.alloc_written_by_kernels::<u32>(in_mecs)?,
        device.alloc_written_by_kernels::<u32>(in_mecs)?,
    ];
    params.members = device.address_mut(&mut members[0]);
    params.member_labels = device.address_mut(&mut members[1]);
    launch(&kernels.members, &params, states as u64)?;
    let download = |list: &LargeSlice<u32>| match in_mecs {
        0 => Ok(Vec::new()),
        _ => device.download(&list.slice(..in_mecs)),
    };
    let (states_in_mecs, labels) = (download(&members[0])?, download(&members[1])?);
    phases.end("download");
    let pairs = states_in_mecs.into_iter().zip(labels);
    let mecs = Mecs::from_smallest(states, pairs, iterations);
    phases.end("labels");
    tracing::debug!(states_in_mecs = in_mecs, phases = %phases, "MEC end (GPU)");
    Ok(mecs)
}

/// Runs waves of [`MecParams::dying`] from the `dead` states just
/// appended to the next wave, until a wave leaves no state without an
/// enabled choice ([`waves::run`]: short waves in one block,
/// `mec_deaths_block`, long ones a launch a wave). Zeroes the wave counter
/// on the way; returns the number of waves.
fn deaths(
    device: &Device,
    kernels: &Kernels,
    params: &mut MecParams,
    counters: &mut CudaSlice<u64>,
    dead: u64,
) -> Result<u64, GpuError> {
    let deaths = waves::Waves {
        block: &kernels.deaths_block,
        grid: &kernels.deaths,
        params,
        lists: |p| (&mut p.dying, &mut p.next_dying, &mut p.dying_count),
        launch: launch_with,
        threads: THREADS,
    };
    let slots = (counter::DYING, counter::WAVES);
    waves::run(device, deaths, counters, slots, dead, DURING)
}

/// Launches `kernel` with `params` and enough threads for `items` work
/// items.
fn launch_over(
    device: &Device,
    kernel: &CudaFunction,
    params: &MecParams,
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
    params: &MecParams,
    config: LaunchConfig,
) -> Result<(), GpuError> {
    // SAFETY: the block matches the kernel's (checked at compile time);
    // every address in it points into an allocation of `decompose` or of
    // the MDP's upload, sized as the block says.
    unsafe { device.launch_block(kernel, params, config, DURING) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mec_kernels_compile_with_nvrtc() {
        crate::gpu::assert_kernels_compile(
            &build(),
            &[
                "mec_start",
                "mec_entering",
                "mec_deaths",
                "mec_deaths_block",
                "mec_first",
                "mec_number",
                "mec_degree",
                "mec_fill",
                "mec_split",
                "mec_smallest",
                "mec_settle",
                "mec_flags",
                "mec_members",
            ],
        );
    }
}
