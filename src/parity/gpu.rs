//! Small progress measures on the GPU (`kernels/parity/spm.cu`), as
//! Bootsma and Willemse lift them: the game goes to the device once, a
//! tile of lanes per vertex (reading neighbouring components of a
//! measure, `tile_lanes`) lifts the vertices whose flag says a successor
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
//! The same measures as the CPU solver ([`super::spm`]), alternating as
//! there: priorities compressed, self-loops simplified, both players'
//! measures on the device, lifted in turns; after each turn, the
//! vertices that the measures of its player prove won (`spm_won_start`
//! and rounds of `spm_won_round` until one drops none) get ⊤ in the
//! opponent's (`spm_give_up`). The first player whose lifting reaches its
//! fixpoint has its least measures, whose ⊤ vertices are the opponent's
//! region; the other goes on with ⊤ on the first's region to its own
//! fixpoint; then a launch for each picks its winning moves. Both solvers
//! end with the least fixpoint of the same lifting and break ties alike,
//! so they give the same solution. The kernel's comment says how measures
//! stay consistent while threads read and write them.
//!
//! With [`SolveOptions::shortcuts`] the moves skip chains of one-move
//! vertices as on the CPU ([`super::shortcuts`]): the moves' own
//! priorities and first steps go to the device too, a lift compares the
//! progress along each move instead of the successors' measures, and the
//! strategy names a move's first step, so the solution is still the CPU
//! solver's.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};
use rayon::prelude::*;

use super::shortcuts::skip_chains;
use super::spm::{
    Alternation, alternate, checked_counters, measure_bounds, without_useless_self_loops,
};
use super::{Solution, SolveError, SolveOptions, Watch, compress_priorities};
use crate::explicit::game::NO_MOVE;
use crate::explicit::{Csr, ParityGame, Player};
use crate::gpu::{Build, Device, GpuError, KernelSource, LargeSlice};
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
/// The lanes that lift one vertex together, for measures of `width`
/// components: enough to read them in one step, a power of two up to a
/// warp. A warp lifting each vertex alone would leave most of its lanes
/// idle on games of few priorities, and a thread alone would read a wide
/// measure one component after another.
fn tile_lanes(width: usize) -> u64 {
    width.clamp(1, 32).next_power_of_two() as u64
}

/// Moves or predecessors above which a vertex is heavy (a warp's lanes):
/// in the grid-wide launches a whole warp lifts it, each lane taking moves
/// and predecessors of its own (`is_heavy` in the kernel), instead of a
/// tile of a few lanes taking them a few at a time.
const HEAVY_DEGREE: u64 = 32;

/// Whether a tile of `lanes` lanes choosing among `moves` moves lets
/// each lane take moves of its own (`lanes_over_moves` in the kernel,
/// which the model follows): where there are more moves than lanes.
#[cfg(test)]
fn lanes_over_moves(lanes: u64, moves: u64) -> bool {
    moves > lanes
}

/// The vertices of `moves` and `predecessors` with more moves or
/// predecessors than [`HEAVY_DEGREE`], in order.
fn heavy_vertices(moves: &Csr, predecessors: &Csr) -> Vec<u32> {
    let degree = |offsets: &[u64], v: u32| offsets[v as usize + 1] - offsets[v as usize];
    (0..moves.states())
        .into_par_iter()
        .filter(|&v| {
            degree(&moves.offsets, v) > HEAVY_DEGREE
                || degree(&predecessors.offsets, v) > HEAVY_DEGREE
        })
        .collect()
}

/// Of a grid-wide launch of `warps` warps, the first warps, which lift
/// the `heavy` vertices a warp each while the others' tiles lift the
/// remaining vertices on `light_lanes` lanes in all: a share of the
/// warps after the lanes that each side would take, and at least one
/// each where there are heavy vertices (a launch has a block of
/// [`THREADS`] at least, so 8 warps).
fn heavy_warps(warps: u64, heavy: u64, light_lanes: u64) -> u64 {
    if heavy == 0 {
        return 0;
    }
    let heavy_lanes = heavy * HEAVY_DEGREE;
    let share = (u128::from(warps) * u128::from(heavy_lanes)
        / (u128::from(heavy_lanes) + u128::from(light_lanes))) as u64;
    share.clamp(1, warps - 1)
}

// The strategy starts as NO_MOVE everywhere by a fill of 0xff bytes.
const _: () = assert!(NO_MOVE == u32::MAX);

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
        /// Device address of the measures this launch reads (`u32`, row
        /// by row).
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
        /// Device address of the new measures by list slot (`u32`, a
        /// row of `width` per slot).
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
        /// Device address of the set `W` of `spm_won_*` and `spm_give_up`
        /// (`u8` per vertex).
        pub member: u64,
        /// Device address of the flags of the vertices that this
        /// `spm_won_round` looks at (`u8` per vertex).
        pub check: u64,
        /// Device address of those that the next one looks at.
        pub check_next: u64,
        /// Lanes that lift one vertex together (`tile_lanes`).
        pub tile: u64,
        /// Device address of each move's priority (`u32`) with shortcuts;
        /// 0 without, when a move carries its source's priority.
        pub move_priorities: u64,
        /// Device address of each move's first step in the game (`u32`):
        /// the first vertex a shortcut skips, or `targets` without
        /// shortcuts.
        pub first_steps: u64,
        /// Device address of each move's priority in the order of the
        /// predecessor lists (`u32`) with shortcuts; 0 without.
        pub predecessor_priorities: u64,
        /// Device address of the heavy vertices (`heavy_vertices`,
        /// `u32`).
        pub heavy: u64,
        /// Device address of a bit per vertex, set for the heavy ones
        /// (`u32` words).
        pub heavy_bits: u64,
        /// Heavy vertices.
        pub heavy_count: u64,
        /// The first warps of a grid-wide launch, which lift the heavy
        /// vertices (`heavy_warps`).
        pub heavy_warps: u64,
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
    won_start: CudaFunction,
    won_round: CudaFunction,
    give_up: CudaFunction,
}

impl Kernels {
    fn load(device: &Device) -> Result<Kernels, GpuError> {
        let module = device.module(&build())?;
        let get = |name: &str| module.function(name);
        Ok(Kernels {
            start: get("spm_start")?,
            lift: get("spm_lift")?,
            lift_queue: get("spm_lift_queue")?,
            strategy: get("spm_strategy")?,
            won_start: get("spm_won_start")?,
            won_round: get("spm_won_round")?,
            give_up: get("spm_give_up")?,
        })
    }
}

/// The game on the device: moves and predecessors as CSR, compressed
/// priorities, owners, and with shortcuts what the moves carry.
struct GameOnDevice {
    offsets: LargeSlice<u64>,
    targets: LargeSlice<u32>,
    predecessor_offsets: LargeSlice<u64>,
    predecessors: LargeSlice<u32>,
    priorities: LargeSlice<u32>,
    owners: LargeSlice<u8>,
    shortcuts: Option<Shortcuts>,
}

/// The moves' own priorities (in the order of the moves and of the
/// predecessor lists) and first steps on the device, with chains of
/// one-move vertices skipped ([`super::shortcuts::skip_chains`]).
struct Shortcuts {
    priorities: LargeSlice<u32>,
    /// Each move's first step; `None` where no move skips a vertex: the
    /// moves' targets are their first steps then.
    first_steps: Option<LargeSlice<u32>>,
    /// The moves' priorities in the order of the predecessor lists.
    predecessor_priorities: LargeSlice<u32>,
    /// Moves that skip at least one vertex.
    skipping: u64,
}

/// The heavy vertices on the device ([`heavy_vertices`]): their list, a
/// bit per vertex, and the warps of a grid-wide launch that take them.
struct HeavyOnDevice {
    list: LargeSlice<u32>,
    bits: LargeSlice<u32>,
    count: u64,
    warps: u64,
}

impl HeavyOnDevice {
    /// The heavy vertices `list` of a game of `vertices` vertices
    /// uploaded, for grid-wide launches in `config` whose other vertices
    /// take `tile` lanes each.
    fn new(
        device: &Device,
        list: &[u32],
        vertices: u64,
        config: &LaunchConfig,
        tile: u64,
    ) -> Result<HeavyOnDevice, GpuError> {
        let mut bits = vec![0u32; vertices.div_ceil(32) as usize];
        for &v in list {
            bits[v as usize / 32] |= 1 << (v % 32);
        }
        let count = list.len() as u64;
        let warps = u64::from(config.grid_dim.0) * u64::from(config.block_dim.0) / 32;
        Ok(HeavyOnDevice {
            warps: heavy_warps(warps, count, (vertices - count) * tile),
            count,
            // No allocation is empty.
            list: device.upload_large(if list.is_empty() { &[0] } else { list })?,
            bits: device.upload_large(&bits)?,
        })
    }
}

/// What both players' lifting shares on the device: the game, the
/// counts, the strategy, the one block's lists, and the set `W` of the
/// certainly won vertices with its flags.
struct OnDevice<'a> {
    device: &'a Device,
    kernels: Kernels,
    config: LaunchConfig,
    /// One block of [`QUEUE_THREADS`], for `spm_lift_queue`.
    queue_config: LaunchConfig,
    vertices: u64,
    queue_capacity: u64,
    /// The compressed priorities, on the host.
    priorities: Vec<u32>,
    highest: u32,
    game: GameOnDevice,
    heavy: HeavyOnDevice,
    raised: CudaSlice<u64>,
    strategy: LargeSlice<u32>,
    lists: CudaSlice<u32>,
    pending: CudaSlice<u32>,
    /// `W` (`u8` per vertex), and the flags of its rounds.
    member: LargeSlice<u8>,
    checks: [LargeSlice<u8>; 2],
    /// Where the lifting's time went, for the debug log.
    spent: Spent,
}

/// The lifting's launches of each kind and the time their batches took
/// (downloads of the counts included).
#[derive(Debug, Default)]
struct Spent {
    grid_launches: u64,
    grid: Duration,
    queue_launches: u64,
    queue: Duration,
}

/// One player's measures on the device, its queues, and how its lifting
/// goes on: each player's lifting stops at the end of a turn and goes on
/// in its next one from where it was.
struct PlayerRun {
    player: Player,
    /// Components per measure.
    width: usize,
    bounds: CudaSlice<u32>,
    measures: [LargeSlice<u32>; 2],
    top: LargeSlice<u32>,
    queues: [LargeSlice<u8>; 2],
    changed_last: LargeSlice<u8>,
    /// Which of `measures` holds every measure as it is now (the other
    /// may lack those of the last grid-wide launch).
    current_measures: usize,
    /// Which of `queues` flags the vertices to lift next.
    current_queue: usize,
    /// The kind of the next batch; `None` at the least fixpoint.
    mode: Option<Mode>,
    /// The size of the next batch of each kind.
    launches: u64,
    strides: u64,
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
    /// self-loops simplified, and with `shortcuts` its chains of one-move
    /// vertices skipped.
    fn new(
        device: &'a Device,
        game: &ParityGame,
        shortcuts: bool,
    ) -> Result<OnDevice<'a>, SolveError> {
        std::thread::scope(|scope| {
            let started = Instant::now();
            // The kernels load on a thread of their own while this one
            // prepares the game: 1.5 and 1.7 ms one after the other for
            // prop50_1k on an H200 host, set-up 4.39 -> 3.14 ms
            // (benches/results/2026-12-04b-h200-pp-parallel-levels/, call E).
            let loading = scope.spawn(|| Kernels::load(device));
            let vertices = game.vertices() as usize;
            let (priorities, highest) = compress_priorities(&game.priorities);
            let widest = [Player::Even, Player::Odd]
                .map(|player| measure_bounds(player, &priorities, highest).len())
                .into_iter()
                .max()
                .unwrap_or(0);
            checked_counters(vertices, widest)?;
            let mut moves = without_useless_self_loops(game, &priorities);
            let (predecessors, shortcuts) = match shortcuts {
                true => {
                    let skipped = skip_chains(&moves, &priorities);
                    let (predecessors, predecessor_priorities) = skipped.incoming();
                    let first_steps = skipped
                        .first_steps
                        .as_deref()
                        .map(|first_steps| device.upload_large(first_steps))
                        .transpose()?;
                    moves = Cow::Owned(skipped.edges);
                    let shortcuts = Shortcuts {
                        priorities: device.upload_large(&skipped.priorities)?,
                        first_steps,
                        predecessor_priorities: device.upload_large(&predecessor_priorities)?,
                        skipping: skipped.skipping,
                    };
                    (predecessors, Some(shortcuts))
                }
                false => (moves.transpose(), None),
            };
            let owners: Vec<u8> = game.owners.iter().map(|&o| o as u8).collect();
            let queue_capacity = vertices.min(QUEUE_CAPACITY);
            let heavy = heavy_vertices(&moves, &predecessors);
            let preparing = started.elapsed().as_secs_f64();
            let kernels = loading
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
            let waiting = started.elapsed().as_secs_f64() - preparing;
            tracing::debug!(
                preparing,
                waiting,
                "the game for the GPU's progress measures, then the kernels loaded beside"
            );
            let priorities_on_device = device.upload_large(&priorities)?;
            let tile = tile_lanes(widest);
            // A tile's lanes for every vertex, and a warp for every heavy one,
            // so that no tile lifts two in a round (`for_flagged_vertices`).
            let light = (vertices - heavy.len()) as u64;
            let config = device.grid_stride_launch(
                light * tile + heavy.len() as u64 * HEAVY_DEGREE,
                THREADS,
                16,
            );
            Ok(OnDevice {
                device,
                kernels,
                heavy: HeavyOnDevice::new(device, &heavy, vertices as u64, &config, tile)?,
                config,
                queue_config: LaunchConfig {
                    grid_dim: (1, 1, 1),
                    block_dim: (QUEUE_THREADS, 1, 1),
                    shared_mem_bytes: 0,
                },
                vertices: vertices as u64,
                queue_capacity: queue_capacity as u64,
                priorities,
                highest,
                game: GameOnDevice {
                    offsets: device.upload_large(&moves.offsets)?,
                    targets: device.upload_large(&moves.targets)?,
                    predecessor_offsets: device.upload_large(&predecessors.offsets)?,
                    predecessors: device.upload_large(&predecessors.targets)?,
                    priorities: priorities_on_device,
                    owners: device.upload_large(&owners)?,
                    shortcuts,
                },
                raised: device.alloc_zeroed(MOST_LAUNCHES_PER_BATCH as usize)?,
                strategy: device.alloc_large_filled(vertices, 0xff)?,
                lists: device.alloc_zeroed(2 * queue_capacity)?,
                // No more than the measures: the capacity is at most the
                // vertices.
                pending: device.alloc_zeroed((queue_capacity * widest).max(1))?,
                member: device.alloc_large_filled(vertices, 0)?,
                checks: [
                    device.alloc_large_filled(vertices, 0)?,
                    device.alloc_large_filled(vertices, 0)?,
                ],
                spent: Spent::default(),
            })
        })
    }

    /// `player`'s measures at 0, none ⊤, the vertices queued whose
    /// measure can grow first (`spm_start`).
    fn start(&mut self, player: Player) -> Result<PlayerRun, SolveError> {
        let device = self.device;
        let vertices = self.vertices as usize;
        let bounds = measure_bounds(player, &self.priorities, self.highest);
        let counters = checked_counters(vertices, bounds.len())? as usize;
        let mut run = PlayerRun {
            player,
            width: bounds.len(),
            // A player without opponent's priorities has measures of no
            // components.
            bounds: device.upload(&if bounds.is_empty() { vec![0] } else { bounds })?,
            measures: [
                device.alloc_large_filled(counters, 0)?,
                device.alloc_large_filled(counters, 0)?,
            ],
            top: device.alloc_large_filled(vertices.div_ceil(32), 0)?,
            // Whole words: `spm_lift_queue` sets flags with word atomics.
            queues: [
                device.alloc_large_filled(vertices.next_multiple_of(4), 0)?,
                device.alloc_large_filled(vertices.next_multiple_of(4), 0)?,
            ],
            changed_last: device.alloc_large_filled(vertices, 0)?,
            current_measures: 0,
            current_queue: 0,
            mode: Some(Mode::Queue),
            launches: FIRST_LAUNCHES_PER_BATCH,
            strides: FIRST_STRIDES_PER_BATCH,
        };
        device.note_memory_use()?;
        let params = self.block(&mut run);
        self.launch(&self.kernels.start, &params, self.config)?;
        Ok(run)
    }

    /// The block of a launch for `run`: the current measures and queue
    /// are the ones read, the others the ones written.
    fn block(&mut self, run: &mut PlayerRun) -> SpmParams {
        let device = self.device;
        let game = &self.game;
        let (read, queue) = (run.current_measures, run.current_queue);
        let [measures_0, measures_1] = &mut run.measures;
        let (read_measures, write_measures) = match read {
            0 => (measures_0, measures_1),
            _ => (measures_1, measures_0),
        };
        let [queue_0, queue_1] = &mut run.queues;
        let (dirty, dirty_next) = match queue {
            0 => (queue_0, queue_1),
            _ => (queue_1, queue_0),
        };
        let [check, check_next] = &mut self.checks;
        SpmParams {
            offsets: device.address(&game.offsets),
            targets: device.address(&game.targets),
            predecessor_offsets: device.address(&game.predecessor_offsets),
            predecessors: device.address(&game.predecessors),
            priorities: device.address(&game.priorities),
            owners: device.address(&game.owners),
            bounds: device.address(&run.bounds),
            read_measures: device.address(read_measures),
            write_measures: device.address_mut(write_measures),
            top: device.address_mut(&mut run.top),
            dirty: device.address_mut(dirty),
            dirty_next: device.address_mut(dirty_next),
            changed_last: device.address_mut(&mut run.changed_last),
            raised: device.address_mut(&mut self.raised),
            strategy: device.address_mut(&mut self.strategy),
            lists: device.address_mut(&mut self.lists),
            pending: device.address_mut(&mut self.pending),
            vertices: self.vertices,
            width: run.width as u64,
            player: run.player as u64,
            queue_capacity: self.queue_capacity,
            strides: 0,
            member: device.address_mut(&mut self.member),
            check: device.address_mut(check),
            check_next: device.address_mut(check_next),
            tile: tile_lanes(run.width),
            move_priorities: game
                .shortcuts
                .as_ref()
                .map_or(0, |shortcuts| device.address(&shortcuts.priorities)),
            first_steps: device.address(
                game.shortcuts
                    .as_ref()
                    .and_then(|shortcuts| shortcuts.first_steps.as_ref())
                    .unwrap_or(&game.targets),
            ),
            predecessor_priorities: game.shortcuts.as_ref().map_or(0, |shortcuts| {
                device.address(&shortcuts.predecessor_priorities)
            }),
            heavy: device.address(&self.heavy.list),
            heavy_bits: device.address(&self.heavy.bits),
            heavy_count: self.heavy.count,
            heavy_warps: self.heavy.warps,
        }
    }

    /// Launches `function` with `params`: over every vertex, or with
    /// `queue_config` for `spm_lift_queue`.
    fn launch(
        &self,
        function: &CudaFunction,
        params: &SpmParams,
        config: LaunchConfig,
    ) -> Result<(), GpuError> {
        let mut launch = self.device.stream().launch_builder(function);
        launch.arg(params);
        // SAFETY: the block matches the kernel's (checked at compile time)
        // and its addresses point into the arrays of `self` and of a
        // run, sized for the game's vertices and moves, the run's
        // measures and the lists' capacity.
        unsafe { launch.launch(config) }
            .map(drop)
            .map_err(GpuError::driver(DURING))
    }

    /// Runs `launches` launches of `function` over every vertex, the
    /// block from `block_of` before each; gives each one's count in
    /// `raised`.
    fn counted_launches(
        &mut self,
        function: &CudaFunction,
        launches: u64,
        mut block_of: impl FnMut(&mut Self) -> SpmParams,
    ) -> Result<Vec<u64>, SolveError> {
        let device = self.device;
        memset_zeros(device, &mut self.raised)?;
        let first = device.address_mut(&mut self.raised);
        for slot in 0..launches {
            let mut params = block_of(self);
            params.raised = first + slot * size_of::<u64>() as u64;
            self.launch(function, &params, self.config)?;
        }
        let mut counts = device.download(&self.raised)?;
        counts.truncate(launches as usize);
        Ok(counts)
    }

    /// Runs `launches` grid-wide lifting launches of `run`; gives each
    /// one's count of raised vertices. After each, the measures written
    /// and the queue marked are the current ones.
    fn grid_batch(&mut self, run: &mut PlayerRun, launches: u64) -> Result<Vec<u64>, SolveError> {
        let lift = self.kernels.lift.clone();
        self.counted_launches(&lift, launches, |on_device| {
            let params = on_device.block(run);
            run.current_measures = 1 - run.current_measures;
            run.current_queue = 1 - run.current_queue;
            params
        })
    }

    /// Runs one `spm_lift_queue` launch of `run` of about `strides`
    /// strides; gives the vertices raised and those left queued (0 at the
    /// fixpoint, above the lists' capacity when they overflowed). It
    /// leaves both measure buffers equal and the current queue flagging
    /// what is left.
    fn queue_batch(&mut self, run: &mut PlayerRun, strides: u64) -> Result<(u64, u64), SolveError> {
        let params = SpmParams {
            strides,
            ..self.block(run)
        };
        self.launch(&self.kernels.lift_queue, &params, self.queue_config)?;
        let counts = self.device.download(&self.raised.slice(0..2))?;
        Ok((counts[0], counts[1]))
    }

    /// Lifts `run` until it has raised `budget` vertices (at the end of a
    /// batch) or reached its least fixpoint; whether it did.
    fn lift_turn(
        &mut self,
        run: &mut PlayerRun,
        budget: u64,
        watch: &mut Watch<'_>,
        lifts: &mut u64,
    ) -> Result<bool, SolveError> {
        let capacity = self.queue_capacity;
        let mut raised_in_turn = 0;
        while let Some(now) = run.mode {
            if raised_in_turn >= budget {
                return Ok(false);
            }
            watch.check(*lifts)?;
            let started = Instant::now();
            let raised;
            run.mode = match now {
                Mode::Grid => {
                    let counts = self.grid_batch(run, run.launches)?;
                    raised = counts.iter().sum::<u64>();
                    self.spent.grid_launches += counts.len() as u64;
                    self.spent.grid += started.elapsed();
                    run.launches =
                        next_batch_size(run.launches, started.elapsed(), MOST_LAUNCHES_PER_BATCH);
                    Mode::after_grid_batch(&counts, capacity)
                }
                Mode::Queue => {
                    let left;
                    (raised, left) = self.queue_batch(run, run.strides)?;
                    self.spent.queue_launches += 1;
                    self.spent.queue += started.elapsed();
                    run.strides =
                        next_batch_size(run.strides, started.elapsed(), MOST_STRIDES_PER_BATCH);
                    Mode::after_queue_batch(left, capacity)
                }
            };
            *lifts += raised;
            raised_in_turn += raised;
        }
        Ok(true)
    }

    /// Leaves in `member` the vertices that `run`'s measures prove won by
    /// its player (`spm_won_start`, then rounds of `spm_won_round` until
    /// one drops none).
    fn certainly_won(&mut self, run: &mut PlayerRun) -> Result<(), SolveError> {
        self.region_as_member(run)?;
        self.device.fill(&mut self.checks[1], 0)?;
        let round = self.kernels.won_round.clone();
        let mut launches = FIRST_LAUNCHES_PER_BATCH;
        loop {
            let dropped = self.counted_launches(&round, launches, |on_device| {
                let params = on_device.block(run);
                on_device.checks.swap(0, 1);
                params
            })?;
            if dropped.contains(&0) {
                return Ok(());
            }
            launches = (launches * 2).min(MOST_LAUNCHES_PER_BATCH);
        }
    }

    /// Leaves in `member` the vertices of `run` not ⊤ (`spm_won_start`):
    /// its player's region once its measures are the least fixpoint.
    fn region_as_member(&mut self, run: &mut PlayerRun) -> Result<(), SolveError> {
        let params = self.block(run);
        self.launch(&self.kernels.won_start, &params, self.config)?;
        Ok(())
    }

    /// Sets ⊤ in `run` on the vertices of `member` and queues their
    /// predecessors (`spm_give_up`); whether any was not ⊤ before.
    fn give_up(&mut self, run: &mut PlayerRun) -> Result<bool, SolveError> {
        let give_up = self.kernels.give_up.clone();
        // The run's next launch lifts the vertices of its current queue.
        let given = self.counted_launches(&give_up, 1, |on_device| SpmParams {
            dirty_next: on_device
                .device
                .address_mut(&mut run.queues[run.current_queue]),
            ..on_device.block(run)
        })?;
        Ok(given[0] > 0)
    }

    /// Writes `run`'s moves where its player owns and wins, once its
    /// measures are the least fixpoint (both buffers hold them then).
    fn write_strategy(&mut self, run: &mut PlayerRun) -> Result<(), SolveError> {
        let params = self.block(run);
        self.launch(&self.kernels.strategy, &params, self.config)?;
        Ok(())
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

/// Solves `game` (validated) by alternating small progress measures on
/// `device`, the players' turns driven by the CPU solver's own loop
/// ([`super::spm`]): a turn raises as many measures as the game has
/// vertices at first, and the turns double, up to 64 times that, after
/// each round of two turns whose certainly won vertices gave the opponent
/// no new ⊤. A turn ends at the end of a batch of launches.
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
    let setting_up = Instant::now();
    let mut on_device = OnDevice::new(device, game, options.shortcuts)?;
    let runs = [
        on_device.start(Player::Even)?,
        on_device.start(Player::Odd)?,
    ];
    // Waited for only to time the set-up apart in the debug log.
    if tracing::enabled!(tracing::Level::DEBUG) {
        device.synchronize()?;
    }
    let set_up = setting_up.elapsed().as_secs_f64();
    let mut sides = OnGpu {
        on_device,
        runs,
        watch: Watch::new(options, "lifts"),
        lifts: 0,
    };
    let shortest_turn = vertices as u64;
    let alternated = alternate(&mut sides, shortest_turn, shortest_turn)?;
    let OnGpu {
        mut on_device,
        mut runs,
        lifts,
        ..
    } = sides;
    let finishing = Instant::now();
    for run in runs.iter_mut() {
        on_device.write_strategy(run)?;
    }
    let odd_region = device.download(&runs[0].top)?;
    let winners = (0..vertices)
        .map(|v| match (odd_region[v / 32] >> (v % 32)) & 1 {
            1 => Player::Odd,
            _ => Player::Even,
        })
        .collect();
    let strategy = device.download(&*on_device.strategy)?;
    let spent = std::mem::take(&mut on_device.spent);
    let skipping = on_device
        .game
        .shortcuts
        .as_ref()
        .map_or(0, |shortcuts| shortcuts.skipping);
    // Freed here (cuMemFree waits for the device), so that `finishing`
    // counts the frees.
    drop(on_device);
    drop(runs);
    tracing::debug!(
        set_up,
        finishing = finishing.elapsed().as_secs_f64(),
        grid_launches = spent.grid_launches,
        grid = spent.grid.as_secs_f64(),
        queue_launches = spent.queue_launches,
        queue = spent.queue.as_secs_f64(),
        lifts,
        skipping,
        first = alternated.first,
        turns = alternated.turns,
        lifting = alternated.lifting.as_secs_f64(),
        sharing = alternated.sharing.as_secs_f64(),
        "small progress measures (GPU)"
    );
    Ok(Solution { winners, strategy })
}

/// Both players' runs on the device.
struct OnGpu<'a, 'w> {
    on_device: OnDevice<'a>,
    runs: [PlayerRun; 2],
    watch: Watch<'w>,
    lifts: u64,
}

impl Alternation for OnGpu<'_, '_> {
    fn lift_turn(&mut self, player: usize, budget: u64) -> Result<bool, SolveError> {
        let run = &mut self.runs[player];
        self.on_device
            .lift_turn(run, budget, &mut self.watch, &mut self.lifts)
    }

    fn share_certainly_won(&mut self, player: usize) -> Result<bool, SolveError> {
        self.on_device.certainly_won(&mut self.runs[player])?;
        self.on_device.give_up(&mut self.runs[1 - player])
    }

    fn give_up_region_of(&mut self, player: usize) -> Result<(), SolveError> {
        self.on_device.region_as_member(&mut self.runs[player])?;
        self.on_device.give_up(&mut self.runs[1 - player])?;
        Ok(())
    }
}

#[cfg(test)]
mod model;

#[cfg(test)]
mod tests {
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
    fn tiles_cover_a_measure_up_to_a_warp() {
        let tiles: Vec<u64> = [0, 1, 2, 3, 5, 16, 17, 32, 33, 101]
            .into_iter()
            .map(tile_lanes)
            .collect();
        assert_eq!(tiles, [1, 1, 2, 4, 8, 16, 32, 32, 32, 32]);
    }

    #[test]
    fn heavy_vertices_have_more_moves_or_predecessors_than_a_warp_has_lanes() {
        let degree = HEAVY_DEGREE as u32;
        // Vertex 0 moves to 1..=degree + 1 (one move too many), vertex 1
        // to 2..=degree + 1 (as many as a warp has lanes); each of those
        // moves to vertex 2 as well, whose predecessors are then too many.
        let mut edges: Vec<(u32, u32)> = (1..=degree + 1).map(|w| (0, w)).collect();
        edges.extend((2..=degree + 1).map(|w| (1, w)));
        edges.extend((3..=degree + 1).map(|v| (v, 2)));
        let moves = Csr::from_edges(degree + 2, edges).unwrap();
        assert_eq!(heavy_vertices(&moves, &moves.transpose()), [0, 2]);
    }

    #[test]
    fn heavy_vertices_get_warps_after_the_lanes_they_take() {
        assert_eq!(heavy_warps(3128, 0, 100_006), 0);
        // One heavy vertex among 50,000 others of 2 lanes: one warp.
        assert_eq!(heavy_warps(3128, 1, 100_000), 1);
        // Lanes shared alike: half the warps.
        assert_eq!(heavy_warps(1000, 100, 3200), 500);
        // Every vertex heavy: all warps but one.
        assert_eq!(heavy_warps(1000, 5000, 0), 999);
    }

    #[test]
    fn the_spm_kernels_compile_with_nvrtc() {
        if !nvrtc_available() {
            crate::testing::skipped_without_nvrtc();
            return;
        }
        for arch in ["sm_80", "sm_90"] {
            let ptx = build().compile(arch).unwrap_or_else(|e| panic!("{e}"));
            for kernel in [
                "spm_start",
                "spm_lift",
                "spm_lift_queue",
                "spm_strategy",
                "spm_won_start",
                "spm_won_round",
                "spm_give_up",
            ] {
                assert!(ptx.contains(&format!(".entry {kernel}(")), "{kernel}");
            }
        }
    }
}
