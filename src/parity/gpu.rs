//! Small progress measures on the GPU (`kernels/parity/spm.cu`), as
//! Bootsma and Willemse lift them: the game goes to the device once, a
//! thread per vertex lifts the vertices whose flag says a successor
//! changed, and launches repeat until one raises no measure. The host
//! zeroes each launch's count of raised vertices before it runs and reads
//! the counts after a batch of launches, between which it also looks at
//! the stop signal.
//!
//! The same measures as the CPU solver ([`super::spm`]): priorities
//! compressed, self-loops simplified, a run for Even (whose ⊤ vertices
//! are Odd's region) and a run for Odd started with ⊤ on Even's region,
//! each followed by a launch that picks its player's winning moves. Both
//! compute the least fixpoint of the same lifting and break ties alike,
//! so the two solvers give the same solution. The kernel's comment says
//! how measures stay consistent while threads read and write them.

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

use super::spm::{checked_counters, measure_bounds, without_useless_self_loops};
use super::{Solution, SolveError, SolveOptions, Watch, compress_priorities};
use crate::explicit::game::NO_MOVE;
use crate::explicit::{ParityGame, Player};
use crate::gpu::{Build, Device, GpuError, KernelSource};
use crate::{kernel_file, param_block};

/// The kernels.
pub const SOURCE: KernelSource = KernelSource {
    main: kernel_file!("parity/spm.cu"),
    headers: &[],
};

/// Threads per block.
const THREADS: u32 = 256;
/// Lifting launches between two reads of their counts (and of the stop
/// signal).
const LAUNCHES_PER_CHECK: usize = 64;
/// What the kernels do, for error messages.
const DURING: &str = "lifting progress measures on the GPU";

param_block! {
    /// The game, one player's measures and the work queue (`SpmParams` in
    /// the kernel).
    pub struct SpmParams {
        /// Device address of each vertex's first move (`u64`, one more).
        pub offsets: u64,
        /// Device address of the moves' targets (`u32`).
        pub targets: u64,
        /// Device address of each vertex's first predecessor (`u64`).
        pub predecessor_offsets: u64,
        /// Device address of the predecessors (`u32`).
        pub predecessors: u64,
        /// Device address of the compressed priorities (`u32`).
        pub priorities: u64,
        /// Device address of the owners (`u8`: 0 Even, 1 Odd).
        pub owners: u64,
        /// Device address of the components' bounds (`u32`).
        pub bounds: u64,
        /// Device address of the measures this launch reads (`u32`,
        /// column-wise).
        pub read_measures: u64,
        /// Device address of the measures this launch writes.
        pub write_measures: u64,
        /// Device address of the ⊤ bits (`u32` words).
        pub top: u64,
        /// Device address of this launch's work queue (`u8` per vertex).
        pub dirty: u64,
        /// Device address of the next launch's work queue.
        pub dirty_next: u64,
        /// Device address of the flags of the vertices the last launch
        /// raised (`u8`).
        pub changed_last: u64,
        /// Device address of this launch's count of raised vertices
        /// (`u64`), zeroed by the host.
        pub raised: u64,
        /// Device address of the strategy (`u32` per vertex).
        pub strategy: u64,
        /// Vertices.
        pub vertices: u64,
        /// Components per measure.
        pub width: u64,
        /// Whose measures: 0 Even, 1 Odd.
        pub player: u64,
    }
}

/// The kernels' build.
pub fn build() -> Build {
    Build::new(SOURCE).check_layout::<SpmParams>()
}

/// The compiled kernels.
struct Kernels {
    start: CudaFunction,
    lift: CudaFunction,
    strategy: CudaFunction,
}

impl Kernels {
    fn load(device: &Device) -> Result<Kernels, GpuError> {
        let build = build();
        Ok(Kernels {
            start: device.function(&build, "spm_start")?,
            lift: device.function(&build, "spm_lift")?,
            strategy: device.function(&build, "spm_strategy")?,
        })
    }
}

/// The game on the device: moves and predecessors as CSR, compressed
/// priorities, owners.
struct GameOnDevice {
    offsets: CudaSlice<u64>,
    targets: CudaSlice<u32>,
    predecessor_offsets: CudaSlice<u64>,
    predecessors: CudaSlice<u32>,
    priorities: CudaSlice<u32>,
    owners: CudaSlice<u8>,
}

/// Every array on the device, and the block that points into them.
struct OnDevice<'a> {
    device: &'a Device,
    kernels: Kernels,
    config: LaunchConfig,
    /// The block of the next launch; each array's address is in it.
    params: SpmParams,
    /// The compressed priorities, on the host.
    priorities: Vec<u32>,
    highest: u32,
    /// The game's arrays, which `params` points into.
    game: GameOnDevice,
    bounds: CudaSlice<u32>,
    measures: [CudaSlice<u32>; 2],
    top: CudaSlice<u32>,
    queues: [CudaSlice<u8>; 2],
    changed_last: CudaSlice<u8>,
    raised: CudaSlice<u64>,
    strategy: CudaSlice<u32>,
}

impl<'a> OnDevice<'a> {
    /// Uploads `game` (validated, with a vertex at least) with its
    /// self-loops simplified, and allocates the measures of the wider
    /// player.
    fn new(device: &'a Device, game: &ParityGame) -> Result<OnDevice<'a>, SolveError> {
        let vertices = game.vertices() as usize;
        let (priorities, highest) = compress_priorities(&game.priorities);
        let widest = [Player::Even, Player::Odd]
            .map(|player| measure_bounds(player, &priorities, highest).len())
            .into_iter()
            .max()
            .unwrap_or(0);
        let counters = checked_counters(vertices, widest)? as usize;
        let moves = without_useless_self_loops(game, &priorities);
        let predecessors = moves.transpose();
        let owners: Vec<u8> = game.owners.iter().map(|&o| o as u8).collect();
        let top_words = vertices.div_ceil(32);
        let game = GameOnDevice {
            offsets: device.upload(&moves.offsets)?,
            targets: device.upload(&moves.targets)?,
            predecessor_offsets: device.upload(&predecessors.offsets)?,
            predecessors: device.upload(&predecessors.targets)?,
            priorities: device.upload(&priorities)?,
            owners: device.upload(&owners)?,
        };
        let mut on_device = OnDevice {
            device,
            kernels: Kernels::load(device)?,
            config: LaunchConfig {
                grid_dim: (
                    (vertices as u64)
                        .div_ceil(u64::from(THREADS))
                        .clamp(1, u64::from(device.multiprocessors()) * 16)
                        as u32,
                    1,
                    1,
                ),
                block_dim: (THREADS, 1, 1),
                shared_mem_bytes: 0,
            },
            params: SpmParams {
                vertices: vertices as u64,
                ..SpmParams::default()
            },
            priorities,
            highest,
            bounds: device.alloc_zeroed(widest)?,
            measures: [
                device.alloc_zeroed(counters)?,
                device.alloc_zeroed(counters)?,
            ],
            top: device.alloc_zeroed(top_words)?,
            queues: [
                device.alloc_zeroed(vertices)?,
                device.alloc_zeroed(vertices)?,
            ],
            changed_last: device.alloc_zeroed(vertices)?,
            raised: device.alloc_zeroed(LAUNCHES_PER_CHECK)?,
            strategy: device.upload(&vec![NO_MOVE; vertices])?,
            game,
        };
        device.note_memory_use()?;
        let p = &mut on_device.params;
        let game = &on_device.game;
        p.offsets = device.address(&game.offsets);
        p.targets = device.address(&game.targets);
        p.predecessor_offsets = device.address(&game.predecessor_offsets);
        p.predecessors = device.address(&game.predecessors);
        p.priorities = device.address(&game.priorities);
        p.owners = device.address(&game.owners);
        p.bounds = device.address(&on_device.bounds);
        p.top = device.address_mut(&mut on_device.top);
        p.changed_last = device.address_mut(&mut on_device.changed_last);
        p.strategy = device.address_mut(&mut on_device.strategy);
        Ok(on_device)
    }

    /// Launches `function` over every vertex with the block as it is.
    fn launch(&self, function: &CudaFunction) -> Result<(), GpuError> {
        let mut launch = self.device.stream().launch_builder(function);
        launch.arg(&self.params);
        // SAFETY: the block matches the kernel's (checked at compile time)
        // and its addresses point into the arrays of `self`, sized for the
        // game's vertices and moves and the widest measures.
        unsafe { launch.launch(self.config) }
            .map(drop)
            .map_err(GpuError::driver(DURING))
    }

    /// Points launch `launch` at its buffers: even launches read the
    /// first measures and queue, odd ones the second.
    fn select_buffers(&mut self, launch: usize) {
        let (read, write) = (launch % 2, 1 - launch % 2);
        let device = self.device;
        self.params.read_measures = device.address(&self.measures[read]);
        self.params.write_measures = device.address_mut(&mut self.measures[write]);
        self.params.dirty = device.address_mut(&mut self.queues[read]);
        self.params.dirty_next = device.address_mut(&mut self.queues[write]);
    }

    /// Lifts `player`'s measures from 0, ⊤ where `top` has a bit, to their
    /// least fixpoint, then writes `player`'s moves where it owns and
    /// wins. Gives the ⊤ bits.
    fn solve_for(
        &mut self,
        player: Player,
        top: &[u32],
        watch: &mut Watch<'_>,
        lifts: &mut u64,
    ) -> Result<Vec<u32>, SolveError> {
        let device = self.device;
        let bounds = measure_bounds(player, &self.priorities, self.highest);
        // A player without opponent's priorities has measures of no
        // components (and nothing to copy).
        if !bounds.is_empty() {
            device.write(&bounds, &mut self.bounds)?;
        }
        device.write(top, &mut self.top)?;
        for buffer in self.measures.iter_mut() {
            memset_zeros(device, buffer)?;
        }
        for buffer in self.queues.iter_mut().chain([&mut self.changed_last]) {
            memset_zeros(device, buffer)?;
        }
        self.params.width = bounds.len() as u64;
        self.params.player = player as u64;
        self.select_buffers(0);
        self.launch(&self.kernels.start)?;
        let mut launches = 0;
        loop {
            watch.check(*lifts)?;
            memset_zeros(device, &mut self.raised)?;
            let first = device.address_mut(&mut self.raised);
            for slot in 0..LAUNCHES_PER_CHECK {
                self.select_buffers(launches + slot);
                self.params.raised = first + (slot * size_of::<u64>()) as u64;
                self.launch(&self.kernels.lift)?;
            }
            let raised = device.download(&self.raised)?;
            *lifts += raised.iter().sum::<u64>();
            // A launch that raised nothing leaves no work, nor anything
            // to copy: later launches change nothing.
            if raised.contains(&0) {
                break;
            }
            launches += LAUNCHES_PER_CHECK;
        }
        // Both buffers hold the measures now.
        self.launch(&self.kernels.strategy)?;
        Ok(device.download(&self.top)?)
    }
}

/// Zeroes `buffer` on `device`'s stream.
fn memset_zeros<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
    device: &Device,
    buffer: &mut CudaSlice<T>,
) -> Result<(), GpuError> {
    device
        .stream()
        .memset_zeros(buffer)
        .map_err(GpuError::driver(DURING))
}

impl From<GpuError> for SolveError {
    fn from(error: GpuError) -> SolveError {
        SolveError::Gpu(error)
    }
}

/// Solves `game` (validated) by small progress measures on `device`.
pub fn solve(
    device: &Device,
    game: &ParityGame,
    options: &SolveOptions,
) -> Result<Solution, SolveError> {
    let vertices = game.vertices() as usize;
    if vertices == 0 {
        return Ok(Solution {
            winners: Vec::new(),
            strategy: Vec::new(),
        });
    }
    let mut on_device = OnDevice::new(device, game)?;
    let mut watch = Watch::new(options, "lifts");
    let mut lifts = 0;
    let none_top = vec![0u32; vertices.div_ceil(32)];
    let odd_region = on_device.solve_for(Player::Even, &none_top, &mut watch, &mut lifts)?;
    let even_region: Vec<u32> = odd_region.iter().map(|&word| !word).collect();
    on_device.solve_for(Player::Odd, &even_region, &mut watch, &mut lifts)?;
    let winners = (0..vertices)
        .map(|v| match (odd_region[v / 32] >> (v % 32)) & 1 {
            1 => Player::Odd,
            _ => Player::Even,
        })
        .collect();
    let strategy = device.download(&on_device.strategy)?;
    Ok(Solution { winners, strategy })
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;
    use crate::gpu::nvrtc_available;

    #[test]
    fn the_spm_kernels_compile_with_nvrtc() {
        if !nvrtc_available() {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: NVRTC cannot be loaded (set LD_LIBRARY_PATH to its lib directory)"
            );
            return;
        }
        for arch in ["sm_80", "sm_90"] {
            let ptx = build().compile(arch).unwrap_or_else(|e| panic!("{e}"));
            for kernel in ["spm_start", "spm_lift", "spm_strategy"] {
                assert!(ptx.contains(&format!(".entry {kernel}(")), "{kernel}");
            }
        }
    }
}
