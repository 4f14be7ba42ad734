//! Small progress measures on the GPU (`kernels/parity/spm.cu`), as
//! Bootsma and Willemse lift them: the game goes to the device once, a
//! thread per vertex lifts the vertices whose flag says a successor
//! changed, and launches repeat until one raises no measure. The host
//! zeroes each launch's count of raised vertices before it runs and reads
//! the counts after a batch of launches, between which it also looks at
//! the stop signal.
//!
//! Most games need far more rounds of lifting than a launch is worth: a
//! measure that counts up around a short cycle rises one step a round,
//! and a round that lifts a handful of vertices costs a whole launch. So
//! while few vertices are queued, one block runs many rounds in a launch
//! on a list of them (`spm_lift_queue`), and the grid-wide launches
//! (`spm_lift`) take over when the list overflows. Either kind of batch is
//! sized from the time the last one took ([`next_batch_size`]), so that
//! the stop signal is looked at about every [`BATCH_TIME`] whatever the
//! game. `gpu/model.rs` runs the same kernels and switching sequentially
//! in the tests, to check the hand-over of buffers and flags without a
//! GPU.
//!
//! The same measures as the CPU solver ([`super::spm`]): priorities
//! compressed, self-loops simplified, a run for Even (whose ⊤ vertices
//! are Odd's region) and a run for Odd started with ⊤ on Even's region,
//! each followed by a launch that picks its player's winning moves. Both
//! compute the least fixpoint of the same lifting and break ties alike,
//! so the two solvers give the same solution. The kernel's comment says
//! how measures stay consistent while threads read and write them.

use std::time::{Duration, Instant};

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

use super::spm::{checked_counters, measure_bounds, without_useless_self_loops};
use super::{Solution, SolveError, SolveOptions, Watch, compress_priorities};
use crate::explicit::game::NO_MOVE;
use crate::explicit::{ParityGame, Player};
use crate::gpu::{Build, Device, GpuError, KernelSource};
use crate::{kernel_file, param_block};

pub mod controlled;

/// The kernels.
pub const SOURCE: KernelSource = KernelSource {
    main: kernel_file!("parity/spm.cu"),
    headers: &[],
};

/// Threads per block of the grid-wide kernels.
const THREADS: u32 = 256;
/// Threads of the one block of `spm_lift_queue` (`QUEUE_THREADS` there).
const QUEUE_THREADS: u32 = 1024;
/// The most slots of each of `spm_lift_queue`'s lists (`QUEUE_CAPACITY`
/// there).
const QUEUE_CAPACITY: usize = 8192;
/// About how long a batch of launches runs: the stop signal is looked at
/// between two.
pub const BATCH_TIME: Duration = Duration::from_millis(20);
/// The most grid-wide launches of one batch (each has a count of its
/// own).
const MOST_LAUNCHES_PER_BATCH: u64 = 1024;
/// The first batches: grid-wide launches, and strides of the one block.
const FIRST_LAUNCHES_PER_BATCH: u64 = 8;
const FIRST_STRIDES_PER_BATCH: u64 = 256;
/// The most strides of one `spm_lift_queue` launch.
const MOST_STRIDES_PER_BATCH: u64 = 1 << 30;
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
        /// Device address of the two lists of `spm_lift_queue` (`u32`,
        /// `queue_capacity` each).
        pub lists: u64,
        /// Device address of the new measures by list slot (`u32`,
        /// column-wise, `queue_capacity` rows).
        pub pending: u64,
        /// Vertices.
        pub vertices: u64,
        /// Components per measure.
        pub width: u64,
        /// Whose measures: 0 Even, 1 Odd.
        pub player: u64,
        /// Slots of each list, at most `QUEUE_CAPACITY`.
        pub queue_capacity: u64,
        /// The strides of the block that one `spm_lift_queue` launch
        /// takes, about.
        pub strides: u64,
    }
}

/// The kernels' build.
pub fn build() -> Build {
    Build::new(SOURCE)
        .define("QUEUE_THREADS", i64::from(QUEUE_THREADS))
        .define("QUEUE_CAPACITY", QUEUE_CAPACITY as i64)
        .check_layout::<SpmParams>()
}

/// The size of the next batch (grid-wide launches, or strides of one
/// queue launch) after a batch of `size` took `elapsed`: scaled so that
/// it takes about [`BATCH_TIME`], but at most doubled, so that a batch
/// whose work grows runs at most about twice as long; from 1 to `most`.
pub fn next_batch_size(size: u64, elapsed: Duration, most: u64) -> u64 {
    let doubled = size.saturating_mul(2);
    let scaled = if elapsed.is_zero() {
        doubled
    } else {
        (size as f64 * BATCH_TIME.as_secs_f64() / elapsed.as_secs_f64()) as u64
    };
    scaled.min(doubled).min(most).max(1)
}

/// The compiled kernels.
struct Kernels {
    start: CudaFunction,
    lift: CudaFunction,
    lift_queue: CudaFunction,
    strategy: CudaFunction,
}

impl Kernels {
    fn load(device: &Device) -> Result<Kernels, GpuError> {
        let build = build();
        Ok(Kernels {
            start: device.function(&build, "spm_start")?,
            lift: device.function(&build, "spm_lift")?,
            lift_queue: device.function(&build, "spm_lift_queue")?,
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
    /// One block of [`QUEUE_THREADS`], for `spm_lift_queue`.
    queue_config: LaunchConfig,
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
    lists: CudaSlice<u32>,
    pending: CudaSlice<u32>,
    /// Which of `measures` holds every measure as it is now (the other
    /// may lack those of the last grid-wide launch).
    current_measures: usize,
    /// Which of `queues` flags the vertices to lift next.
    current_queue: usize,
}

/// How the lifting goes on: grid-wide launches, or one block on a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Grid,
    Queue,
}

impl Mode {
    /// The mode after grid-wide launches that raised `raised` vertices
    /// each, `None` at the fixpoint: a launch that raised nothing leaves
    /// no work, nor anything to copy. The one block takes over when the
    /// last launch raised few enough that their predecessors likely fit
    /// its lists of `queue_capacity` slots.
    fn after_grid_batch(raised: &[u64], queue_capacity: u64) -> Option<Mode> {
        match raised.last() {
            _ if raised.contains(&0) => None,
            Some(&last) if last <= queue_capacity / 8 => Some(Mode::Queue),
            _ => Some(Mode::Grid),
        }
    }

    /// The mode after a queue launch that left `left` vertices queued,
    /// `None` at the fixpoint; grid-wide when the lists of
    /// `queue_capacity` slots overflowed.
    fn after_queue_batch(left: u64, queue_capacity: u64) -> Option<Mode> {
        match left {
            0 => None,
            _ if left > queue_capacity => Some(Mode::Grid),
            _ => Some(Mode::Queue),
        }
    }
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
        let queue_capacity = vertices.min(QUEUE_CAPACITY);
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
            config: device.grid_stride_launch(vertices as u64, THREADS, 16),
            queue_config: LaunchConfig {
                grid_dim: (1, 1, 1),
                block_dim: (QUEUE_THREADS, 1, 1),
                shared_mem_bytes: 0,
            },
            params: SpmParams {
                vertices: vertices as u64,
                queue_capacity: queue_capacity as u64,
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
            // Whole words: `spm_lift_queue` sets flags with word atomics.
            queues: [
                device.alloc_zeroed(vertices.next_multiple_of(4))?,
                device.alloc_zeroed(vertices.next_multiple_of(4))?,
            ],
            changed_last: device.alloc_zeroed(vertices)?,
            raised: device.alloc_zeroed(MOST_LAUNCHES_PER_BATCH as usize)?,
            strategy: device.upload(&vec![NO_MOVE; vertices])?,
            lists: device.alloc_zeroed(2 * queue_capacity)?,
            // No more than the measures: the capacity is at most the
            // vertices.
            pending: device.alloc_zeroed((queue_capacity * widest).max(1))?,
            current_measures: 0,
            current_queue: 0,
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
        p.lists = device.address_mut(&mut on_device.lists);
        p.pending = device.address_mut(&mut on_device.pending);
        Ok(on_device)
    }

    /// Launches `function` with the block as it is: over every vertex,
    /// or with `queue_config` for `spm_lift_queue`.
    fn launch(&self, function: &CudaFunction, config: LaunchConfig) -> Result<(), GpuError> {
        let mut launch = self.device.stream().launch_builder(function);
        launch.arg(&self.params);
        // SAFETY: the block matches the kernel's (checked at compile time)
        // and its addresses point into the arrays of `self`, sized for the
        // game's vertices and moves, the widest measures and the lists'
        // capacity.
        unsafe { launch.launch(config) }
            .map(drop)
            .map_err(GpuError::driver(DURING))
    }

    /// Points the block at the current measures and queue, as the ones
    /// read, and at the others as the ones written.
    fn select_buffers(&mut self) {
        let (read, queue) = (self.current_measures, self.current_queue);
        let device = self.device;
        self.params.read_measures = device.address(&self.measures[read]);
        self.params.write_measures = device.address_mut(&mut self.measures[1 - read]);
        self.params.dirty = device.address_mut(&mut self.queues[queue]);
        self.params.dirty_next = device.address_mut(&mut self.queues[1 - queue]);
    }

    /// Runs `launches` grid-wide lifting launches; gives each one's count
    /// of raised vertices. After each, the measures written and the queue
    /// marked are the current ones.
    fn grid_batch(&mut self, launches: u64) -> Result<Vec<u64>, SolveError> {
        let device = self.device;
        memset_zeros(device, &mut self.raised)?;
        let first = device.address_mut(&mut self.raised);
        for slot in 0..launches {
            self.select_buffers();
            self.params.raised = first + slot * size_of::<u64>() as u64;
            self.launch(&self.kernels.lift, self.config)?;
            self.current_measures = 1 - self.current_measures;
            self.current_queue = 1 - self.current_queue;
        }
        let mut raised = device.download(&self.raised)?;
        raised.truncate(launches as usize);
        Ok(raised)
    }

    /// Runs one `spm_lift_queue` launch of about `strides` strides; gives
    /// the vertices raised and those left queued (0 at the fixpoint, above
    /// the lists' capacity when they overflowed). It leaves both measure
    /// buffers equal and the current queue flagging what is left.
    fn queue_batch(&mut self, strides: u64) -> Result<(u64, u64), SolveError> {
        let device = self.device;
        self.select_buffers();
        self.params.raised = device.address_mut(&mut self.raised);
        self.params.strides = strides;
        self.launch(&self.kernels.lift_queue, self.queue_config)?;
        let counts = device.download(&self.raised.slice(0..2))?;
        Ok((counts[0], counts[1]))
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
        (self.current_measures, self.current_queue) = (0, 0);
        self.select_buffers();
        self.launch(&self.kernels.start, self.config)?;
        let (mut mode, mut launches, mut strides) = (
            Some(Mode::Queue),
            FIRST_LAUNCHES_PER_BATCH,
            FIRST_STRIDES_PER_BATCH,
        );
        let capacity = self.params.queue_capacity;
        while let Some(now) = mode {
            watch.check(*lifts)?;
            let started = Instant::now();
            mode = match now {
                Mode::Grid => {
                    let raised = self.grid_batch(launches)?;
                    *lifts += raised.iter().sum::<u64>();
                    launches =
                        next_batch_size(launches, started.elapsed(), MOST_LAUNCHES_PER_BATCH);
                    Mode::after_grid_batch(&raised, capacity)
                }
                Mode::Queue => {
                    let (raised, left) = self.queue_batch(strides)?;
                    *lifts += raised;
                    strides = next_batch_size(strides, started.elapsed(), MOST_STRIDES_PER_BATCH);
                    Mode::after_queue_batch(left, capacity)
                }
            };
        }
        // Both buffers hold the measures now.
        self.select_buffers();
        self.launch(&self.kernels.strategy, self.config)?;
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
        match error {
            GpuError::Stopped => SolveError::Stopped,
            error => SolveError::Gpu(error),
        }
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
mod model;

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;
    use crate::gpu::nvrtc_available;

    #[test]
    fn a_batch_aims_at_its_time_but_at_most_doubles() {
        let ms = Duration::from_millis;
        // Quick batches grow, at most doubling.
        assert_eq!(next_batch_size(8, ms(1), 1024), 16);
        assert_eq!(next_batch_size(8, Duration::ZERO, 1024), 16);
        assert_eq!(next_batch_size(10, BATCH_TIME / 2 + ms(5), 1024), 13);
        // Slow ones shrink to what would take the batch time.
        assert_eq!(next_batch_size(100, BATCH_TIME * 4, 1024), 25);
        assert_eq!(next_batch_size(1, BATCH_TIME * 10, 1024), 1);
        // Within bounds.
        assert_eq!(next_batch_size(1000, ms(1), 1024), 1024);
        assert_eq!(next_batch_size(u64::MAX, ms(1), u64::MAX), u64::MAX);
    }

    #[test]
    fn the_modes_follow_the_counts() {
        assert_eq!(Mode::after_grid_batch(&[5, 0, 0], 8192), None);
        assert_eq!(
            Mode::after_grid_batch(&[5000, 1024], 8192),
            Some(Mode::Queue)
        );
        assert_eq!(
            Mode::after_grid_batch(&[5000, 1025], 8192),
            Some(Mode::Grid)
        );
        assert_eq!(Mode::after_queue_batch(0, 8192), None);
        assert_eq!(Mode::after_queue_batch(8192, 8192), Some(Mode::Queue));
        assert_eq!(Mode::after_queue_batch(8193, 8192), Some(Mode::Grid));
    }

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
            for kernel in ["spm_start", "spm_lift", "spm_lift_queue", "spm_strategy"] {
                assert!(ptx.contains(&format!(".entry {kernel}(")), "{kernel}");
            }
        }
    }
}
