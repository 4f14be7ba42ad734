//! Interval iteration on the GPU (`kernels/numeric/iterate.cu`): the
//! precomputations run on the host (for example
//! [`super::reference::prepare`]), or for `P=? [ left U right ]` and
//! `R=? [ F right ]` of a chain, `Pmin` and `Rmax` of an MDP on the device
//! too ([`solve_on_device`],
//! `kernels/numeric/qualitative.cu`), and for `Pmax` and `Rmin` their
//! searches ([`maximal_reach`]) with the end components collapsed on the
//! host ([`super::reference::maximum_from`]); then the model, the classes of
//! undecided states and both bounds are on the device. First a peel
//! (`peel`) solves the classes that reach no cycle exactly, in
//! topological order, as the CPU engine's order by SCCs does, and where
//! the classes left are many, they are cut into stages by the SCCs of
//! what they read (`stages`). Then launches of one sweep each refine the
//! bounds of the classes left, stage after stage, as the [`Schedule`]
//! shared with the other engines says, reading the tally of the last
//! sweep of every batch. Each
//! launch's tally is zeroed by the host before it runs. Each class is
//! updated by a group of lanes as wide as its mean number of branches
//! (rounded down to a power of two, at most a warp), so that the lanes of
//! a warp read neighbouring branches.

use std::time::{Duration, Instant};

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};
use rayon::prelude::*;

use super::qualitative::MaximalReach;
use super::reference::{Bounds, Classes, Iteration, Schedule, Shape, Step, Tally};
use super::{Optimum, SolveOptions, timed};
use crate::explicit::Mdp;
use crate::gpu::{Build, Device, GpuError, KernelSource, LargeSlice, scan, waves};
use crate::scc;
use crate::{kernel_constants, kernel_file, param_block};

/// The sweep kernel.
pub const SOURCE: KernelSource = KernelSource {
    main: kernel_file!("numeric/iterate.cu"),
    headers: &[],
};

/// The precomputation kernels.
pub const QUALITATIVE_SOURCE: KernelSource = KernelSource {
    main: kernel_file!("numeric/qualitative.cu"),
    headers: &[],
};

kernel_constants! {
    /// Slots of the precomputations' `u64` counters.
    pub mod counter: usize = "QUAL_COUNTER_" {
        /// Length of the wave being appended to.
        WAVE = 0;
        /// Waves run by the last launch of `qual_waves_block`.
        WAVES = 1;
        /// Branches of the classes' choices.
        BRANCHES = 2;
        /// States of the set `qual_restrict` was given.
        INSIDE = 3;
    }
}

kernel_constants! {
    /// Slots of the peel's `u64` counters.
    pub mod peel_counter: usize = "PEEL_COUNTER_" {
        /// Length of the wave being appended to.
        WAVE = 0;
        /// Waves run by the last launch of `peel_waves_block`.
        WAVES = 1;
    }
}

/// Counter slots in all.
const COUNTERS: usize = counter::INSIDE + 1;
/// Waves `peel_waves_block` runs at most a launch, so that the host can
/// stop a peel that runs past its time.
const PEEL_BLOCK_WAVES: u64 = 1024;
/// A peel may take as long as this many sweeps would (estimated by its
/// first pass over the classes' branches, which reads about what a sweep
/// reads)...
const PEEL_SWEEPS: u32 = 32;
/// ...or this long, whichever is longer (small models, whose sweeps cost
/// a launch each).
const PEEL_MIN_SECONDS: f64 = 0.05;
/// Threads per block.
const THREADS: u32 = 256;
/// Sweeps launched between two reads of the tally.
const SWEEPS_PER_CHECK: u64 = 16;
/// What the kernel does, for error messages.
const DURING: &str = "iterating on the GPU";
/// What the stages' set-up does, for error messages.
const STAGING: &str = "ordering the components of what the classes read on the GPU";
/// What the peel does, for error messages.
const PEELING: &str = "solving the classes that reach no cycle on the GPU";
/// What the precomputations do, for error messages.
const PRECOMPUTING: &str = "settling the states of probability 0 and 1 on the GPU";

param_block! {
    /// One sweep's arrays and settings (`IterateParams` in the kernel).
    pub struct IterateParams {
        /// Device address of the branch offsets of every choice (`u64`).
        pub branch_offsets: u64,
        /// Device address of the branches' targets (`u32`).
        pub targets: u64,
        /// Device address of the branches' probabilities (`f64`).
        pub probabilities: u64,
        /// Device address of each class's first choice in `class_choices`.
        pub class_choice_offsets: u64,
        /// Device address of the classes' choices (`u64`).
        pub class_choices: u64,
        /// Device address of the constant of each entry of `class_choices`
        /// (`f64`), or 0 when all are 0.
        pub class_constants: u64,
        /// Device address of each class's first state in `members`.
        pub class_member_offsets: u64,
        /// Device address of the classes' states (`u32`).
        pub members: u64,
        /// Device address of the lower bounds (`f64` per state).
        pub lower: u64,
        /// Device address of the upper bounds (`f64` per state).
        pub upper: u64,
        /// Device address of the tally (`u64` imprecise, `u64` raised).
        pub counters: u64,
        /// Classes.
        pub classes: u64,
        /// The precision, as the bits of an `f64`.
        pub epsilon_bits: u64,
        /// The settling precision of the lower-only phase, as bits.
        pub settle_bits: u64,
        /// 1 when both precisions are relative.
        pub relative: u64,
        /// 1 for minimal values.
        pub minimise: u64,
        /// The [`super::reference::Phase`], as its number.
        pub phase: u64,
        /// Lanes per class: a power of two up to 32.
        pub lanes: u64,
        /// Device address of the classes swept (`u32` each, `classes` of
        /// them), or 0 when all are, in order.
        pub class_list: u64,
    }
}

param_block! {
    /// The peel's arrays (`PeelParams` in the kernel; see `peel`).
    pub struct PeelParams {
        /// The classes, bounds and model, as the sweeps see them; `classes`
        /// counts all of them and `class_list` is 0.
        pub sweep: IterateParams,
        /// Device address of each state's class (`u32`; `u32::MAX`: none).
        pub class_of: u64,
        /// Device address of each class's count of branches into classes
        /// not yet solved (`u32`; `u32::MAX` once solved).
        pub waiting: u64,
        /// Device address of the offsets of the readers of each class
        /// (`u64`, classes + 1).
        pub entering_offsets: u64,
        /// Device address of the readers, class by class read (`u32`).
        pub entering: u64,
        /// Device address of the cursors that fill them (`u64` per class).
        pub entering_cursor: u64,
        /// Device address of the wave read (`u32` per class).
        pub wave: u64,
        /// Classes in it.
        pub wave_length: u64,
        /// Device address of the wave appended to (`u32` per class).
        pub next_wave: u64,
        /// Device address of the counters ([`peel_counter`]).
        pub counters: u64,
        /// 1 when the upper bounds are known (else they are guessed).
        pub upper_known: u64,
        /// Device address of the unsolved flags, then their ranks (`u32`,
        /// classes + 1).
        pub unsolved: u64,
        /// Device address of the list of the classes left (`u32`).
        pub class_list: u64,
    }
}

param_block! {
    /// The arrays of the precomputations (`QualParams` in the kernels).
    pub struct QualParams {
        /// Device address of the choice offsets of every state (`u64`).
        pub choice_offsets: u64,
        /// Device address of the branch offsets of every choice (`u64`).
        pub branch_offsets: u64,
        /// Device address of the branches' targets (`u32`).
        pub targets: u64,
        /// Device address of the branches' probabilities (`f64`).
        pub probabilities: u64,
        /// States.
        pub states: u64,
        /// Device address of the `left` and `right` flags (`u8` per state).
        pub flags: u64,
        /// Device address of each choice's state (`u32`).
        pub choice_state: u64,
        /// Device address of each state's choices not yet into the found
        /// set (`u32`).
        pub choices_left: u64,
        /// Device address of the choices' marks: into the found set (`u32`).
        pub choice_hit: u64,
        /// Device address of the entering index's offsets (`u64`, states + 1).
        pub entering_offsets: u64,
        /// Device address of the choices entering each state (`u64`).
        pub entering: u64,
        /// Device address of the cursors that fill them (`u64` per state).
        pub entering_cursor: u64,
        /// 1: the search starts from the `right` states; 0: from those the
        /// first search did not find.
        pub seed_right: u64,
        /// A state may join where its flags masked by this...
        pub allowed_mask: u64,
        /// ...equal this.
        pub allowed_value: u64,
        /// 1: a state joins when all its choices enter the set; 0: one.
        pub universal: u64,
        /// Device address of this search's found marks (`u32` per state).
        pub found: u64,
        /// Device address of the wave read (`u32` per state).
        pub wave: u64,
        /// States in it.
        pub wave_length: u64,
        /// Device address of the wave appended to (`u32` per state).
        pub next_wave: u64,
        /// Device address of the counters.
        pub counters: u64,
        /// Device address of the first search's marks (`u32` per state).
        pub positive: u64,
        /// Device address of the second search's marks (`u32` per state).
        pub escapes: u64,
        /// Device address of the lower bounds (`f64` per state).
        pub lower: u64,
        /// Device address of the upper bounds (`f64` per state).
        pub upper: u64,
        /// Device address of the undecided flags, then their ranks (`u64`,
        /// states + 1).
        pub rank: u64,
        /// Device address of the classes' states (`u32`).
        pub members: u64,
        /// Device address of each class's first state in `members`.
        pub member_offsets: u64,
        /// Device address of each class's first choice (`u64`, classes + 1).
        pub class_choice_offsets: u64,
        /// Device address of the classes' choices (`u64`).
        pub class_choices: u64,
        /// Classes.
        pub classes: u64,
        /// 1: an expected reward; 0: a probability.
        pub reward: u64,
        /// Device address of each choice's reward (`f64`), for a reward.
        pub choice_rewards: u64,
        /// Device address of the rewards of the classes' choices (`f64`).
        pub class_constants: u64,
        /// Device address of the last round's found set (`u32` per state),
        /// which `qual_restrict` counts and restricts the choices to.
        pub inside: u64,
        /// Device address of the choices a search may follow (`u32` per
        /// choice, nonzero where it may), or 0 for every choice.
        pub usable_choices: u64,
    }
}

param_block! {
    /// The arrays of the stages (`StageParams` in the kernel; see
    /// `stages`).
    pub struct StageParams {
        /// The peel's arrays: which class each state is in, which classes
        /// are solved, the ranks of the others and their list.
        pub peel: PeelParams,
        /// Classes left by the peel: the nodes of the read graph.
        pub nodes: u64,
        /// Device address of the read graph's offsets (`u64`, nodes + 1).
        pub offsets: u64,
        /// Device address of the nodes read (`u32`).
        pub targets: u64,
        /// Device address of each node's representative (`u32`).
        pub representative: u64,
        /// Device address of the representative flags, then their ranks:
        /// the component numbers (`u32`, nodes + 1).
        pub component: u64,
        /// Device address of the counts of each node's edges into other
        /// components, then their offsets (`u64`, nodes + 1).
        pub cross_offsets: u64,
        /// Device address of the pairs of components of those edges
        /// (`u32`, two an edge).
        pub pairs: u64,
        /// Device address of each component's size (`u32`).
        pub sizes: u64,
        /// Device address of each component's cyclic flag (`u8`).
        pub cyclic: u64,
        /// Device address of each component's stage (`u8`).
        pub component_stage: u64,
        /// Device address of the cursors that fill each stage's part of
        /// `stage_list` (`u64` per stage, from the part's offset).
        pub stage_cursors: u64,
        /// Device address of the classes, stage by stage (`u32`, nodes).
        pub stage_list: u64,
    }
}

/// The build of the sweep, peel and stage kernels.
pub fn build() -> Build {
    Build::new(SOURCE)
        .defines(peel_counter::DEFINES)
        .define("PEEL_BLOCK_WAVE", waves::BLOCK_WAVE as i64)
        .define("PEEL_BLOCK_WAVES", PEEL_BLOCK_WAVES as i64)
        .check_layout::<IterateParams>()
        .check_layout::<PeelParams>()
        .check_layout::<StageParams>()
}

/// The precomputation kernels' build.
pub fn qualitative_build() -> Build {
    Build::new(QUALITATIVE_SOURCE)
        .defines(counter::DEFINES)
        .define("QUAL_BLOCK_WAVE", waves::BLOCK_WAVE as i64)
        .check_layout::<QualParams>()
}

/// How many classes, choices of classes and branches of those choices an
/// iteration has: what the lanes per class and the bytes of a sweep
/// depend on.
#[derive(Debug, Clone, Copy)]
struct ClassSizes {
    classes: u64,
    choices: u64,
    branches: u64,
}

impl ClassSizes {
    /// The sizes of `classes` of `mdp`.
    fn of(mdp: &Mdp, classes: &Classes) -> ClassSizes {
        let branches = classes
            .choices
            .iter()
            .map(|&c| mdp.branch_offsets[c as usize + 1] - mdp.branch_offsets[c as usize])
            .sum();
        ClassSizes {
            classes: classes.count() as u64,
            choices: classes.choices.len() as u64,
            branches,
        }
    }

    /// The lanes per class: the mean branches per class, rounded down to
    /// a power of two, from 1 to 32.
    fn lanes(&self) -> u64 {
        match self.branches / self.classes.max(1) {
            0 | 1 => 1,
            mean => (1u64 << mean.ilog2()).min(32),
        }
    }

    /// The bytes one sweep must move at least: every class's offsets and
    /// members, the bounds of its members read and written, each of its
    /// choices' number and branch offsets, and each branch's target,
    /// probability and the two bounds it reads (the figure behind the
    /// bandwidth the debug log reports).
    fn sweep_bytes(&self) -> u64 {
        let per_class = 8 + 8 + 4 + 2 * (8 + 8);
        let per_choice = 8 + 16;
        let per_branch = 4 + 8 + 2 * 8;
        per_class * self.classes + per_choice * self.choices + per_branch * self.branches
    }
}

/// The arrays of an MDP that the sweeps read, on the device.
pub struct DeviceMdp {
    branch_offsets: LargeSlice<u64>,
    targets: LargeSlice<u32>,
    probabilities: LargeSlice<f64>,
}

impl DeviceMdp {
    /// `mdp`'s branches copied to `device`.
    pub fn upload(device: &Device, mdp: &Mdp) -> Result<DeviceMdp, GpuError> {
        Ok(DeviceMdp {
            branch_offsets: device.upload_large(&mdp.branch_offsets)?,
            targets: device.upload_large(&mdp.targets)?,
            probabilities: device.upload_large(&mdp.probabilities)?,
        })
    }
}

/// An [`Iteration`] whose bounds and classes are on the device.
pub struct DeviceIteration {
    shape: Shape,
    sizes: ClassSizes,
    lower: LargeSlice<f64>,
    upper: LargeSlice<f64>,
    class_choice_offsets: LargeSlice<u64>,
    class_choices: LargeSlice<u64>,
    class_constants: Option<LargeSlice<f64>>,
    class_member_offsets: LargeSlice<u64>,
    members: LargeSlice<u32>,
}

impl DeviceIteration {
    /// `iteration` of `mdp` copied to `device`.
    pub fn upload(
        device: &Device,
        mdp: &Mdp,
        iteration: &Iteration,
    ) -> Result<DeviceIteration, GpuError> {
        let classes = &iteration.classes;
        Ok(DeviceIteration {
            shape: iteration.shape(),
            sizes: ClassSizes::of(mdp, classes),
            lower: device.upload_large(&iteration.lower)?,
            upper: device.upload_large(&iteration.upper)?,
            class_choice_offsets: device.upload_large(&classes.choice_offsets)?,
            class_choices: device.upload_large(&classes.choices)?,
            class_constants: match classes.constants.is_empty() {
                true => None,
                false => Some(device.upload_large(&classes.constants)?),
            },
            class_member_offsets: device.upload_large(&classes.member_offsets)?,
            members: device.upload_large(&classes.members)?,
        })
    }

    /// The iteration copied back to the host (to compare it with the
    /// host's precomputations).
    pub fn download(&self, device: &Device) -> Result<Iteration, GpuError> {
        let choices = self.sizes.choices as usize;
        let member_offsets = device.download(&*self.class_member_offsets)?;
        let members = member_offsets.last().map_or(0, |&end| end as usize);
        Ok(Iteration {
            lower: device.download(&*self.lower)?,
            upper: device.download(&*self.upper)?,
            upper_known: self.shape.upper_known,
            classes: Classes {
                members: download_prefix(device, &self.members, members)?,
                member_offsets,
                choices: download_prefix(device, &self.class_choices, choices)?,
                choice_offsets: device.download(&*self.class_choice_offsets)?,
                constants: match &self.class_constants {
                    Some(constants) => download_prefix(device, constants, choices)?,
                    None => Vec::new(),
                },
            },
            optimum: self.shape.optimum,
            spare: super::Spare::default(),
        })
    }
}

/// The first `len` elements of `slice` (an allocation holds at least one).
fn download_prefix<T: cudarc::driver::DeviceRepr + Default + Clone>(
    device: &Device,
    slice: &LargeSlice<T>,
    len: usize,
) -> Result<Vec<T>, GpuError> {
    match len {
        0 => Ok(Vec::new()),
        _ => device.download(&slice.slice(..len)),
    }
}

/// How long the peel before the sweeps (`peel`) may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeelLimit {
    /// No peel: the sweeps update every class.
    Off,
    /// Until this many waves have run (the block kernel runs up to
    /// `PEEL_BLOCK_WAVES` a launch, so a peel may run that many more): for
    /// tests of a peel that stops early.
    Waves(u64),
    /// As long as `PEEL_SWEEPS` (32) sweeps would take, at least
    /// `PEEL_MIN_SECONDS` (0.05 s): the peel pays where the sweeps would need
    /// more than that to carry the values up the acyclic part, and costs
    /// little where they would not.
    Auto,
}

/// How the GPU orders the classes before its sweeps: the peel (`peel`)
/// and the stages of components (`stages`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ordering {
    /// How long the peel may run.
    pub peel: PeelLimit,
    /// The fewest classes a stage must hold on average for the classes
    /// the peel left to be swept in stages (`u64::MAX`: never). A sweep
    /// of fewer classes is bound by its launch, not by memory, so stages
    /// of them sweep no faster than all classes together, and stages
    /// serialise what the sweeps did at once: embedded-2 (3,478 states)
    /// took 18.0 s in stages against 3.1 s without (call B of
    /// benches/results/2026-12-02b-h200-peel/, before this gate).
    pub stage_classes: u64,
}

impl Ordering {
    /// The default: the peel within [`PeelLimit::Auto`], stages of at
    /// least 2^17 classes on average. Measured on an H200: stages of
    /// 31,000 classes cost more than they saved (1,000 blocks of 1,000
    /// states: 2.44-2.52 s against 2.25-2.29 s, call B, when each stage's
    /// sweep still ran over all classes), stages of about 300,000
    /// saved 3.1x on 1,000 layers of 10,000 states (call D of
    /// benches/results/2026-12-02b-h200-peel/).
    pub const AUTO: Ordering = Ordering {
        peel: PeelLimit::Auto,
        stage_classes: 1 << 17,
    };

    /// No peel and no stages: every class swept together, as before
    /// either existed (for comparisons).
    pub const NONE: Ordering = Ordering {
        peel: PeelLimit::Off,
        stage_classes: u64::MAX,
    };
}

/// Refines `iteration` of `mdp` on `device` within `options`, as
/// [`super::reference::iterate`] does on one thread.
pub fn iterate(
    device: &Device,
    mdp: &Mdp,
    iteration: Iteration,
    options: &SolveOptions,
) -> Result<Bounds, GpuError> {
    iterate_ordered(device, mdp, iteration, options, Ordering::AUTO)
}

/// [`iterate`] with the classes ordered as `ordering` says.
pub fn iterate_ordered(
    device: &Device,
    mdp: &Mdp,
    iteration: Iteration,
    options: &SolveOptions,
    ordering: Ordering,
) -> Result<Bounds, GpuError> {
    let model = DeviceMdp::upload(device, mdp)?;
    let on_device = DeviceIteration::upload(device, mdp, &iteration)?;
    drop(iteration);
    sweep_until_precise(device, &model, on_device, options, ordering)
}

/// [`iterate`] with `mdp`'s branches already on the device, in `model`.
pub fn iterate_with(
    device: &Device,
    mdp: &Mdp,
    model: &DeviceMdp,
    iteration: Iteration,
    options: &SolveOptions,
) -> Result<Bounds, GpuError> {
    let on_device = DeviceIteration::upload(device, mdp, &iteration)?;
    drop(iteration);
    sweep_until_precise(device, model, on_device, options, Ordering::AUTO)
}

/// The values of `goal` (the probability of `left U right`, or the
/// expected reward until `right`) in every state of `mdp` (a chain as
/// [`super::as_mdp`] gives it with `optimum` `None`, or an MDP with the
/// optimum that [`precompute`] takes), within `options`, with the
/// precomputations on `device` too.
pub fn solve_on_device(
    device: &Device,
    mdp: &Mdp,
    goal: Goal<'_>,
    right: &[bool],
    optimum: Option<Optimum>,
    options: &SolveOptions,
) -> Result<Bounds, GpuError> {
    let model = timed("upload", || DeviceMdp::upload(device, mdp))?;
    let iteration = precompute(device, mdp, &model, goal, right, optimum)?;
    sweep_until_precise(device, &model, iteration, options, Ordering::AUTO)
}

/// What [`precompute`] settles.
#[derive(Debug, Clone, Copy)]
pub enum Goal<'a> {
    /// The probability of `left U right`.
    Probability {
        /// The states a path may pass through.
        left: &'a [bool],
    },
    /// The expected reward until `right`, each choice earning its entry.
    Reward {
        /// Each choice's reward.
        choice_rewards: &'a [f64],
    },
}

/// The precomputation kernels, looked up once.
struct QualKernels {
    start: CudaFunction,
    fill: CudaFunction,
    seed: CudaFunction,
    wave: CudaFunction,
    waves_block: CudaFunction,
    undecided: CudaFunction,
    members: CudaFunction,
    choices: CudaFunction,
    restrict: CudaFunction,
}

impl QualKernels {
    fn load(device: &Device) -> Result<QualKernels, GpuError> {
        let module = device.module(&qualitative_build())?;
        let get = |name: &str| module.function(name);
        Ok(QualKernels {
            start: get("qual_start")?,
            fill: get("qual_fill")?,
            seed: get("qual_seed")?,
            wave: get("qual_wave")?,
            waves_block: get("qual_waves_block")?,
            undecided: get("qual_undecided")?,
            members: get("qual_members")?,
            choices: get("qual_choices")?,
            restrict: get("qual_restrict")?,
        })
    }
}

/// What [`super::reference::prepare`] gives for `left U right` of `mdp`
/// (`optimum` `None` or `Some(Optimum::Min)`), or
/// [`super::reward::prepare`] for the expected reward until `right`
/// (`optimum` `None` or `Some(Optimum::Max)`), as `goal` says, computed on
/// `device` from the arrays of `model` and `mdp`'s choice offsets: the
/// choices entering each state, a backward search for the states that
/// reach `right` with positive probability (universal for a minimal
/// probability and for rewards, else existential), a second one for those
/// that can escape to where it is not, and one class per undecided state
/// with its usable choices, numbered by a scan. (A maximal probability and
/// a minimal reward collapse end components: their classes are built on
/// the host.) The sets equal the host's; the order of each state's
/// entering choices is not fixed, which the searches do not see.
pub fn precompute(
    device: &Device,
    mdp: &Mdp,
    model: &DeviceMdp,
    goal: Goal<'_>,
    right: &[bool],
    optimum: Option<Optimum>,
) -> Result<DeviceIteration, GpuError> {
    let (universal, collapsing) = match goal {
        Goal::Probability { .. } => (optimum == Some(Optimum::Min), Some(Optimum::Max)),
        Goal::Reward { .. } => (true, Some(Optimum::Min)),
    };
    assert_ne!(
        optimum, collapsing,
        "classes that collapse end components are built on the host (maximal_reach)"
    );
    let mut phases = Phases::new();
    let states = mdp.states() as usize;
    let flags: Vec<u8> = match goal {
        Goal::Probability { left } => flags_of(left, right),
        Goal::Reward { .. } => right.par_iter().map(|&r| 1 | u8::from(r) << 1).collect(),
    };
    let Searches {
        kernels,
        mut params,
        mut counters,
        choice_offsets,
        flags,
        positive,
        escapes,
        index,
    } = Searches::new(device, mdp, model, &flags, &mut phases)?;
    // P > 0 (Pmin > 0; for rewards, under every scheduler): from `right`
    // through `left`.
    params.found = params.positive;
    params.seed_right = 1;
    params.allowed_mask = 1;
    params.allowed_value = 1;
    params.universal = u64::from(universal);
    let first_waves = search(device, &kernels, &mut params, &mut counters)?;
    phases.mark(device, "prob0")?;
    // P < 1: from the states of probability 0 through `left` states that
    // are not `right`.
    params.found = params.escapes;
    params.seed_right = 0;
    params.allowed_mask = 3;
    params.allowed_value = 1;
    params.universal = 0;
    let second_waves = search(device, &kernels, &mut params, &mut counters)?;
    phases.mark(device, "prob1")?;
    // The flags stay: qual_undecided reads a reward's targets from them.
    drop(index);
    let choice_rewards = match goal {
        Goal::Reward { choice_rewards } => Some(device.upload_large(choice_rewards)?),
        Goal::Probability { .. } => None,
    };
    params.reward = u64::from(choice_rewards.is_some());
    params.choice_rewards = choice_rewards.as_ref().map_or(0, |r| device.address(r));
    let mut lower = device.alloc_written_by_kernels::<f64>(states)?;
    let mut upper = device.alloc_written_by_kernels::<f64>(states)?;
    // Set by qual_undecided below `states`, then scanned.
    let mut rank = device.alloc_large_filled::<u64>(states + 1, 0)?;
    params.lower = device.address_mut(&mut lower);
    params.upper = device.address_mut(&mut upper);
    params.rank = device.address_mut(&mut rank);
    launch_over(device, &kernels.undecided, &params, states as u64)?;
    scan::exclusive_scan(device, &mut rank, states + 1)?;
    let classes = device.download(&rank.slice(states..states + 1))?[0];
    let n = classes as usize;
    // Written by qual_members below the class count (and the last offset).
    let mut members = device.alloc_written_by_kernels::<u32>(n)?;
    let mut member_offsets = device.alloc_written_by_kernels::<u64>(n + 1)?;
    // Counted by qual_members, then scanned.
    let mut class_choice_offsets = device.alloc_large_filled::<u64>(n + 1, 0)?;
    params.members = device.address_mut(&mut members);
    params.member_offsets = device.address_mut(&mut member_offsets);
    params.class_choice_offsets = device.address_mut(&mut class_choice_offsets);
    params.classes = classes;
    device
        .stream()
        .memset_zeros(&mut counters)
        .map_err(GpuError::driver(PRECOMPUTING))?;
    launch_over(device, &kernels.members, &params, states as u64)?;
    scan::exclusive_scan(device, &mut class_choice_offsets, n + 1)?;
    let class_choice_count = device.download(&class_choice_offsets.slice(n..n + 1))?[0];
    let mut class_choices = device.alloc_written_by_kernels::<u64>(class_choice_count as usize)?;
    params.class_choices = device.address_mut(&mut class_choices);
    // Written by qual_choices below the count of the classes' choices.
    let mut class_constants = match choice_rewards {
        Some(_) => Some(device.alloc_written_by_kernels::<f64>(class_choice_count as usize)?),
        None => None,
    };
    params.class_constants = class_constants
        .as_mut()
        .map_or(0, |c| device.address_mut(c));
    launch_over(device, &kernels.choices, &params, classes)?;
    let branches = device.download(&counters)?[counter::BRANCHES];
    phases.mark(device, "classes")?;
    drop((choice_offsets, flags, positive, escapes));
    tracing::debug!(
        states,
        classes,
        first_waves,
        second_waves,
        phases = phases.summary(),
        "GPU precomputations"
    );
    Ok(DeviceIteration {
        shape: Shape {
            // A probability lies below 1; a reward's bound is guessed.
            upper_known: choice_rewards.is_none(),
            optimum,
        },
        sizes: ClassSizes {
            classes,
            choices: class_choice_count,
            branches,
        },
        lower,
        upper,
        class_choice_offsets,
        class_choices,
        class_constants,
        class_member_offsets: member_offsets,
        members,
    })
}

/// The flags `qual_*` read: bit 0 where `left` holds, bit 1 where `right`
/// does.
fn flags_of(left: &[bool], right: &[bool]) -> Vec<u8> {
    left.par_iter()
        .zip(right)
        .map(|(&l, &r)| u8::from(l) | u8::from(r) << 1)
        .collect()
}

/// Phase timings for the debug log, kept only while it is enabled (each
/// mark waits for the device).
struct Phases {
    timed: bool,
    done: Vec<(&'static str, f64)>,
    since: Instant,
}

impl Phases {
    fn new() -> Phases {
        Phases {
            timed: tracing::enabled!(tracing::Level::DEBUG),
            done: Vec::new(),
            since: Instant::now(),
        }
    }

    /// Ends the phase `name` once the device has run its work.
    fn mark(&mut self, device: &Device, name: &'static str) -> Result<(), GpuError> {
        if self.timed {
            device.synchronize()?;
            self.done.push((name, self.since.elapsed().as_secs_f64()));
            self.since = Instant::now();
        }
        Ok(())
    }

    /// `name seconds` of each phase.
    fn summary(&self) -> String {
        let phases: Vec<String> = self
            .done
            .iter()
            .map(|(name, seconds)| format!("{name} {seconds:.4}"))
            .collect();
        phases.join(" ")
    }
}

/// What the backward searches of [`precompute`] and [`maximal_reach`]
/// share on the device: the kernels, the parameter block and the arrays
/// it points at.
struct Searches {
    kernels: QualKernels,
    params: QualParams,
    counters: CudaSlice<u64>,
    choice_offsets: LargeSlice<u64>,
    flags: LargeSlice<u8>,
    /// The first search's marks.
    positive: LargeSlice<u32>,
    /// The second search's marks.
    escapes: LargeSlice<u32>,
    /// What only the searches read, freed before the classes are built.
    index: SearchIndex,
}

/// The arrays only the searches read: each choice's state, the choices
/// entering each state, the universal searches' counts and the waves.
struct SearchIndex {
    _choice_state: LargeSlice<u32>,
    _choices_left: LargeSlice<u32>,
    _choice_hit: LargeSlice<u32>,
    _entering_offsets: LargeSlice<u64>,
    _entering: LargeSlice<u64>,
    _waves: [LargeSlice<u32>; 2],
}

impl Searches {
    /// Uploads `flags` ([`flags_of`]) and `mdp`'s choice offsets beside
    /// `model`, and files every choice under the states its positive
    /// branches enter (`qual_start`, a scan, `qual_fill`).
    fn new(
        device: &Device,
        mdp: &Mdp,
        model: &DeviceMdp,
        flags: &[u8],
        phases: &mut Phases,
    ) -> Result<Searches, GpuError> {
        let states = mdp.states() as usize;
        let choices = mdp.choices() as usize;
        let kernels = QualKernels::load(device)?;
        let choice_offsets = device.upload_large(&mdp.choice_offsets)?;
        let flags = device.upload_large(flags)?;
        phases.mark(device, "upload")?;
        let mut choice_state = device.alloc_written_by_kernels::<u32>(choices)?;
        let mut choices_left = device.alloc_written_by_kernels::<u32>(states)?;
        let mut choice_hit = device.alloc_large_filled::<u32>(choices, 0)?;
        // Counted by qual_start, then scanned.
        let mut entering_offsets = device.alloc_large_filled::<u64>(states + 1, 0)?;
        let mut positive = device.alloc_written_by_kernels::<u32>(states)?;
        let mut escapes = device.alloc_written_by_kernels::<u32>(states)?;
        // Appended to; read below the count appended.
        let mut waves = [
            device.alloc_written_by_kernels::<u32>(states)?,
            device.alloc_written_by_kernels::<u32>(states)?,
        ];
        let mut counters: CudaSlice<u64> = device.alloc_zeroed(COUNTERS)?;
        let mut params = QualParams {
            choice_offsets: device.address(&choice_offsets),
            branch_offsets: device.address(&model.branch_offsets),
            targets: device.address(&model.targets),
            probabilities: device.address(&model.probabilities),
            states: states as u64,
            flags: device.address(&flags),
            choice_state: device.address_mut(&mut choice_state),
            choices_left: device.address_mut(&mut choices_left),
            choice_hit: device.address_mut(&mut choice_hit),
            entering_offsets: device.address_mut(&mut entering_offsets),
            positive: device.address_mut(&mut positive),
            escapes: device.address_mut(&mut escapes),
            wave: device.address_mut(&mut waves[0]),
            next_wave: device.address_mut(&mut waves[1]),
            counters: device.address_mut(&mut counters),
            ..QualParams::default()
        };
        launch_over(device, &kernels.start, &params, states as u64)?;
        scan::exclusive_scan(device, &mut entering_offsets, states + 1)?;
        let pairs = device.download(&entering_offsets.slice(states..states + 1))?[0];
        // Written by qual_fill, every entry below the count of pairs.
        let mut entering = device.alloc_written_by_kernels::<u64>(pairs as usize)?;
        params.entering = device.address_mut(&mut entering);
        {
            // Dropped (after the stream's work) once qual_fill has run.
            let mut cursor = device.alloc_written_by_kernels::<u64>(states)?;
            if states > 0 {
                device
                    .stream()
                    .memcpy_dtod(&entering_offsets.slice(..states), &mut *cursor)
                    .map_err(GpuError::driver(PRECOMPUTING))?;
            }
            params.entering_cursor = device.address_mut(&mut cursor);
            launch_over(device, &kernels.fill, &params, states as u64)?;
            params.entering_cursor = 0;
        }
        phases.mark(device, "predecessors")?;
        tracing::debug!(states, entering = pairs, "GPU predecessor index");
        Ok(Searches {
            kernels,
            params,
            counters,
            choice_offsets,
            flags,
            positive,
            escapes,
            index: SearchIndex {
                _choice_state: choice_state,
                _choices_left: choices_left,
                _choice_hit: choice_hit,
                _entering_offsets: entering_offsets,
                _entering: entering,
                _waves: waves,
            },
        })
    }

    /// Runs an existential search from the `right` states through the
    /// `left` ones, marking what it finds at `found` and following only
    /// the choices `usable_choices` marks (0: all); the waves run.
    fn exists_from_right(
        &mut self,
        device: &Device,
        found: u64,
        usable_choices: u64,
    ) -> Result<u64, GpuError> {
        let params = &mut self.params;
        params.found = found;
        params.usable_choices = usable_choices;
        params.seed_right = 1;
        params.allowed_mask = 1;
        params.allowed_value = 1;
        params.universal = 0;
        search(device, &self.kernels, params, &mut self.counters)
    }

    /// Counts the states marked at `inside` and marks at `usable_choices`
    /// the choices whose positive branches all stay among them.
    fn restrict(
        &mut self,
        device: &Device,
        inside: u64,
        usable_choices: u64,
    ) -> Result<u64, GpuError> {
        self.params.inside = inside;
        self.params.usable_choices = usable_choices;
        device
            .stream()
            .memset_zeros(&mut self.counters)
            .map_err(GpuError::driver(PRECOMPUTING))?;
        launch_over(
            device,
            &self.kernels.restrict,
            &self.params,
            self.params.states,
        )?;
        Ok(device.download(&self.counters)?[counter::INSIDE])
    }
}

/// [`MaximalReach`] of `mdp` (whose branches `model` holds), found on
/// `device`: an existential backward search from `right`, then rounds of
/// one each that follow only the choices whose positive branches stay
/// among the states the round before found, until a round finds no fewer
/// (the greatest fixed point of
/// [`super::qualitative::exists_almost_surely`]). The same sets as the
/// host's searches.
pub fn maximal_reach(
    device: &Device,
    mdp: &Mdp,
    model: &DeviceMdp,
    left: &[bool],
    right: &[bool],
) -> Result<MaximalReach, GpuError> {
    let mut phases = Phases::new();
    let states = mdp.states() as usize;
    let mut searches = Searches::new(device, mdp, model, &flags_of(left, right), &mut phases)?;
    let mut usable = device.alloc_written_by_kernels::<u32>(mdp.choices() as usize)?;
    let usable = device.address_mut(&mut usable);
    let positive = searches.params.positive;
    searches.exists_from_right(device, positive, 0)?;
    phases.mark(device, "prob0")?;
    // The rounds' marks, alternately: the last round's and this one's.
    let mut extra = device.alloc_written_by_kernels::<u32>(states)?;
    let marks = [searches.params.escapes, device.address_mut(&mut extra)];
    let mut inside = searches.restrict(device, positive, usable)?;
    let mut rounds = 0;
    let almost_sure = loop {
        rounds += 1;
        let reached = marks[(rounds - 1) % 2];
        searches.exists_from_right(device, reached, usable)?;
        let found = searches.restrict(device, reached, usable)?;
        // Each round finds a subset of the last one's: as many is the same.
        if found == inside {
            break (rounds - 1) % 2;
        }
        inside = found;
    };
    phases.mark(device, "prob1")?;
    let as_flags = |marks: Vec<u32>| marks.into_par_iter().map(|m| m != 0).collect();
    let sets = MaximalReach {
        positive: as_flags(device.download(&*searches.positive)?),
        almost_sure: as_flags(match almost_sure {
            0 => device.download(&*searches.escapes)?,
            _ => device.download(&*extra)?,
        }),
    };
    phases.mark(device, "download")?;
    tracing::debug!(
        states,
        rounds,
        phases = phases.summary(),
        "GPU maximal reachability"
    );
    Ok(sets)
}

/// One backward search of [`precompute`] as `params` sets it up: seeds
/// it, then runs its waves until one is empty; the waves run.
fn search(
    device: &Device,
    kernels: &QualKernels,
    params: &mut QualParams,
    counters: &mut CudaSlice<u64>,
) -> Result<u64, GpuError> {
    device
        .stream()
        .memset_zeros(&mut *counters)
        .map_err(GpuError::driver(PRECOMPUTING))?;
    launch_over(device, &kernels.seed, params, params.states)?;
    let seeds = device.download(&*counters)?[counter::WAVE];
    let search = waves::Waves {
        block: &kernels.waves_block,
        grid: &kernels.wave,
        params,
        lists: |p| (&mut p.wave, &mut p.next_wave, &mut p.wave_length),
        launch: launch_with,
        threads: THREADS,
    };
    let slots = (counter::WAVE, counter::WAVES);
    waves::run(device, search, counters, slots, seeds, PRECOMPUTING)
}

/// Launches `kernel` with `params` and enough threads for `items` work
/// items.
fn launch_over(
    device: &Device,
    kernel: &CudaFunction,
    params: &QualParams,
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
    params: &QualParams,
    config: LaunchConfig,
) -> Result<(), GpuError> {
    // SAFETY: the block matches the kernels' (checked at compile time);
    // its addresses point into the allocations of `precompute` and the
    // model's upload, sized as the block says.
    unsafe { device.launch_block(kernel, params, config, PRECOMPUTING) }
}

/// Refines `iteration` on `device` with the branches of `model` within
/// `options`, the classes ordered as `ordering` says: first the peel
/// (`peel`) solves the classes
/// that reach no cycle, then the classes left are swept as the
/// [`Schedule`] the other engines share says, stage after stage where
/// their components were ordered (`stages`), each stage with a schedule
/// of its own, else all together. The iterations reported are the most
/// sweeps one stage took, at least 1 when the peel solved any class (one
/// update each, as the CPU engine counts them); a stage that stops short
/// (the iteration or time limit) stops the stages after it, whose upper
/// bounds become infinite where they were not known.
fn sweep_until_precise(
    device: &Device,
    model: &DeviceMdp,
    mut iteration: DeviceIteration,
    options: &SolveOptions,
    ordering: Ordering,
) -> Result<Bounds, GpuError> {
    let sizes = iteration.sizes;
    let shape = iteration.shape;
    let function = device.function(&build(), "iterate")?;
    let mut counters: CudaSlice<u64> = device.alloc_zeroed(2)?;
    let mut params = IterateParams {
        branch_offsets: device.address(&model.branch_offsets),
        targets: device.address(&model.targets),
        probabilities: device.address(&model.probabilities),
        class_choice_offsets: device.address(&iteration.class_choice_offsets),
        class_choices: device.address(&iteration.class_choices),
        class_constants: iteration
            .class_constants
            .as_ref()
            .map_or(0, |c| device.address(c)),
        class_member_offsets: device.address(&iteration.class_member_offsets),
        members: device.address(&iteration.members),
        lower: device.address_mut(&mut iteration.lower),
        upper: device.address_mut(&mut iteration.upper),
        counters: device.address_mut(&mut counters),
        classes: sizes.classes,
        epsilon_bits: 0,
        settle_bits: 0,
        relative: u64::from(options.precision.relative),
        minimise: u64::from(shape.optimum == Some(Optimum::Min)),
        phase: 0,
        lanes: sizes.lanes(),
        class_list: 0,
    };
    let states = iteration.lower.len();
    let mut left = timed("peel", || {
        peel(device, params, sizes, states, shape, ordering.peel)
    })?;
    params.classes = left.classes;
    params.class_list = left.list.as_ref().map_or(0, |list| device.address(list));
    let stages = match left.kept.take() {
        Some(kept) if left.classes / ordering.stage_classes >= 2 => timed("stages", || {
            stages(device, kept, left.classes, ordering.stage_classes, options)
        })?,
        _ => None,
    };
    // The list each stage sweeps a part of, and the parts: (offset,
    // classes, options).
    let (list, plan) = match &stages {
        Some(stages) => (device.address(&*stages.list), stages.plan.clone()),
        None => (params.class_list, vec![(0, left.classes, options.clone())]),
    };
    // Points `params` at the part of the list that holds a stage.
    let part = |params: &mut IterateParams, offset: u64, classes: u64| {
        params.class_list = if list == 0 { 0 } else { list + 4 * offset };
        params.classes = classes;
    };
    let sweeping = Instant::now();
    let mut iterations = u64::from(left.solved > 0);
    let mut converged = true;
    let mut swept = 0;
    for (stage, (offset, classes, stage_options)) in plan.iter().enumerate() {
        part(&mut params, *offset, *classes);
        let schedule = sweep_stage(
            device,
            &function,
            &mut params,
            &mut counters,
            shape,
            stage_options,
        )?;
        iterations = iterations.max(schedule.iterations());
        swept += schedule.iterations() * classes;
        if !schedule.upper_proven() {
            launch_on_classes(device, "iterate_forget_upper", &params)?;
        }
        if !schedule.converged() {
            converged = false;
            // The stages after this one read its bounds: their guesses of
            // the upper bounds would be unfounded.
            if !shape.upper_known {
                for (offset, classes, _) in &plan[stage + 1..] {
                    part(&mut params, *offset, *classes);
                    launch_on_classes(device, "iterate_forget_upper", &params)?;
                }
            }
            break;
        }
    }
    if tracing::enabled!(tracing::Level::DEBUG) {
        let seconds = sweeping.elapsed().as_secs_f64();
        let bytes = sizes.sweep_bytes() * swept / sizes.classes.max(1);
        tracing::debug!(
            stages = plan.len(),
            iterations,
            class_updates = swept,
            seconds,
            gigabytes_per_second = bytes as f64 / seconds.max(1e-9) / 1e9,
            "GPU iteration"
        );
    }
    timed("bounds downloaded", || {
        Ok(Bounds {
            lower: device.download(&*iteration.lower)?,
            upper: device.download(&*iteration.upper)?,
            iterations,
            converged,
        })
    })
}

/// Sweeps the classes of `params` with the sweep kernel `function` until
/// `options` say stop, as a [`Schedule`] of their own says; that schedule
/// at the end. The tally goes to `counters`.
fn sweep_stage(
    device: &Device,
    function: &CudaFunction,
    params: &mut IterateParams,
    counters: &mut CudaSlice<u64>,
    shape: Shape,
    options: &SolveOptions,
) -> Result<Schedule, GpuError> {
    let config = device.grid_stride_launch(params.classes * params.lanes, THREADS, 16);
    let mut schedule = Schedule::of_shape(shape, params.classes as usize, options);
    let mut step = schedule.start();
    while step != Step::Stop {
        if let Step::Guess(precision) = step {
            let guess = IterateParams {
                epsilon_bits: precision.epsilon.to_bits(),
                relative: u64::from(precision.relative),
                ..*params
            };
            launch_on_classes(device, "iterate_guess", &guess)?;
        }
        let rule = schedule.rule();
        params.epsilon_bits = rule.precision.epsilon.to_bits();
        params.settle_bits = rule.settle.epsilon.to_bits();
        params.phase = rule.phase as u64;
        let sweeps = schedule.batch(SWEEPS_PER_CHECK);
        for _ in 0..sweeps {
            device
                .stream()
                .memset_zeros(counters)
                .map_err(GpuError::driver(DURING))?;
            let mut launch = device.stream().launch_builder(function);
            launch.arg(&*params);
            // SAFETY: the block matches the kernel's (checked at
            // compile time); its addresses point into the allocations
            // of the iteration, the model and the peel, sized as the
            // classes and the MDP say.
            unsafe { launch.launch(config) }.map_err(GpuError::driver(DURING))?;
        }
        let tally = device.download(&*counters)?;
        step = schedule.after(
            sweeps,
            Tally {
                imprecise: tally[0],
                raised: tally[1],
            },
        );
    }
    Ok(schedule)
}

/// Launches the kernel `name` of the sweeps' build with `params`, a thread
/// for each class swept.
fn launch_on_classes(device: &Device, name: &str, params: &IterateParams) -> Result<(), GpuError> {
    let function = device.function(&build(), name)?;
    let config = device.grid_stride_launch(params.classes, THREADS, 16);
    // SAFETY: the block matches the kernel's (checked at compile time);
    // its addresses point into the sweeps' allocations.
    unsafe { device.launch_block(&function, params, config, DURING) }
}

/// The classes a peel left to the sweeps.
struct Unsolved {
    /// Their list (in class order) on the device, or `None` when the peel
    /// did not run: then the sweeps update every class.
    list: Option<LargeSlice<u32>>,
    /// How many are left.
    classes: u64,
    /// How many the peel solved.
    solved: u64,
    /// The peel's arrays that the stages read, when it ran and left any.
    kept: Option<PeelArrays>,
}

/// The arrays of a peel that say which class each state is in, which
/// classes are solved and the ranks of the others in the list of the
/// classes left, with the parameter block that addresses them.
struct PeelArrays {
    params: PeelParams,
    _class_of: LargeSlice<u32>,
    _waiting: LargeSlice<u32>,
    _unsolved: LargeSlice<u32>,
}

/// Solves exactly, on the device, the classes of `sweep` (with `sizes`,
/// over `states` states, bounds as `shape` says) that reach no cycle
/// of classes, in topological order (the GPU's counterpart of the CPU
/// engine's one-class components, `super::cpu`): the class graph is
/// peeled from its sinks in waves, each class solved by one update from
/// successors that are settled or solved (so their bounds are equal),
/// within `limit`. Every class that reads a cycle, or that the limit left,
/// is listed for the sweeps; a solved class is final, so the sweeps leave
/// it alone. On egl-10-8, an acyclic chain that took 208 sweeps, no sweep
/// is left. The peel is skipped where its arrays would not fit (with room
/// to spare) or its counts could overflow 32 bits, and solves nothing
/// where no class reads only settled states.
fn peel(
    device: &Device,
    sweep: IterateParams,
    sizes: ClassSizes,
    states: usize,
    shape: Shape,
    limit: PeelLimit,
) -> Result<Unsolved, GpuError> {
    let classes = sizes.classes as usize;
    let arrays = 4 * states as u64 + 36 * sizes.classes + 4 * sizes.branches;
    if limit == PeelLimit::Off
        || classes == 0
        || sizes.branches >= u64::from(u32::MAX)
        || device.free_memory()? < arrays + arrays / 4 + (1 << 28)
    {
        return Ok(Unsolved {
            list: None,
            classes: sizes.classes,
            solved: 0,
            kept: None,
        });
    }
    let started = Instant::now();
    let module = device.module(&build())?;
    let kernel = |name: &str| module.function(name);
    let launch = |name: &str, params: &PeelParams, items: usize| {
        let config = device.grid_stride_launch(items as u64, THREADS, 16);
        // SAFETY: the block matches the kernels' (checked at compile
        // time); its addresses point into the allocations of this peel and
        // of the sweeps, sized as the classes and the MDP say.
        unsafe { device.launch_block(&kernel(name)?, params, config, PEELING) }
    };
    let mut class_of = device.alloc_large_filled::<u32>(states, 0xff)?;
    // Written by peel_count for every class.
    let mut waiting = device.alloc_written_by_kernels::<u32>(classes)?;
    let mut entering_offsets = device.alloc_large_filled::<u64>(classes + 1, 0)?;
    // Each wave's classes are appended before they are read.
    let mut wave_lists = [
        device.alloc_written_by_kernels::<u32>(classes)?,
        device.alloc_written_by_kernels::<u32>(classes)?,
    ];
    let mut counters: CudaSlice<u64> = device.alloc_zeroed(2)?;
    let mut params = PeelParams {
        sweep,
        class_of: device.address_mut(&mut class_of),
        waiting: device.address_mut(&mut waiting),
        entering_offsets: device.address_mut(&mut entering_offsets),
        wave: device.address_mut(&mut wave_lists[1]),
        next_wave: device.address_mut(&mut wave_lists[0]),
        counters: device.address_mut(&mut counters),
        upper_known: u64::from(shape.upper_known),
        ..PeelParams::default()
    };
    launch("peel_class_of", &params, classes)?;
    launch("peel_count", &params, classes)?;
    let first = device.download(&counters)?[peel_counter::WAVE];
    // The first pass reads about what a sweep reads.
    let pass = started.elapsed();
    let (mut waves_run, mut pending, mut entries) = (0, 0, 0);
    if first > 0 {
        scan::exclusive_scan(device, &mut entering_offsets, classes + 1)?;
        entries = device.download(&entering_offsets.slice(classes..classes + 1))?[0];
        // Written by peel_fill, every entry below the count.
        let mut entering = device.alloc_written_by_kernels::<u32>(entries as usize)?;
        params.entering = device.address_mut(&mut entering);
        {
            // Dropped (after the stream's work) once peel_fill has run.
            let mut cursor = device.alloc_written_by_kernels::<u64>(classes)?;
            device
                .stream()
                .memcpy_dtod(&entering_offsets.slice(..classes), &mut *cursor)
                .map_err(GpuError::driver(PEELING))?;
            params.entering_cursor = device.address_mut(&mut cursor);
            launch("peel_fill", &params, classes)?;
            params.entering_cursor = 0;
        }
        let budget = (pass * PEEL_SWEEPS).max(Duration::from_secs_f64(PEEL_MIN_SECONDS));
        let (block, grid) = (kernel("peel_waves_block")?, kernel("peel_wave")?);
        let peeling = waves::Waves {
            block: &block,
            grid: &grid,
            params: &mut params,
            lists: |p| (&mut p.wave, &mut p.next_wave, &mut p.wave_length),
            launch: launch_peel,
            threads: THREADS,
        };
        let slots = (peel_counter::WAVE, peel_counter::WAVES);
        (waves_run, pending) = waves::run_until(
            device,
            peeling,
            &mut counters,
            slots,
            first,
            PEELING,
            |run| match limit {
                PeelLimit::Waves(most) => run >= most,
                _ => started.elapsed() >= budget,
            },
        )?;
        params.entering = 0;
    }
    drop((entering_offsets, wave_lists));
    // Set by peel_unsolved below the class count, then scanned.
    let mut unsolved = device.alloc_large_filled::<u32>(classes + 1, 0)?;
    params.unsolved = device.address_mut(&mut unsolved);
    launch("peel_unsolved", &params, classes)?;
    scan::exclusive_scan(device, &mut unsolved, classes + 1)?;
    let left = u64::from(device.download(&unsolved.slice(classes..classes + 1))?[0]);
    // Written by peel_list below the count of the classes left.
    let mut list = device.alloc_written_by_kernels::<u32>(left as usize)?;
    params.class_list = device.address_mut(&mut list);
    launch("peel_list", &params, classes)?;
    tracing::debug!(
        classes,
        solved = sizes.classes - left,
        waves = waves_run,
        stopped_early = pending > 0,
        readers = entries,
        first_pass_seconds = pass.as_secs_f64(),
        "GPU peel"
    );
    Ok(Unsolved {
        list: Some(list),
        classes: left,
        solved: sizes.classes - left,
        kept: (left > 0).then_some(PeelArrays {
            params,
            _class_of: class_of,
            _waiting: waiting,
            _unsolved: unsolved,
        }),
    })
}

/// Launches a peel kernel with `params` in `config` (the waves' launcher).
fn launch_peel(
    device: &Device,
    kernel: &CudaFunction,
    params: &PeelParams,
    config: LaunchConfig,
) -> Result<(), GpuError> {
    // SAFETY: the block matches the kernels' (checked at compile time);
    // its addresses point into the allocations of `peel` and the sweeps.
    unsafe { device.launch_block(kernel, params, config, PEELING) }
}

/// The stages of the classes a peel left: their list on the device,
/// stage by stage, and each stage's part of it (offset and class count)
/// and options, in the order they are swept.
struct Stages {
    list: LargeSlice<u32>,
    plan: Vec<(u64, u64, SolveOptions)>,
}

/// Orders the `nodes` classes a peel left (`peeled`) by the strongly
/// connected components of what they read, as the CPU engine's layout
/// does, within `options`: the read graph is built and decomposed on the
/// device (`scc::gpu::representatives`, colouring), the condensation's
/// edges (between components) are copied to the host, which gives each
/// component its height (the most cyclic components on a path of reads
/// from it, itself included: `heights`), and the heights are cut into at
/// most [`MAX_STAGES`] stages of consecutive heights, and at most one per
/// `stage_classes` classes, swept in order, each
/// to a precision scaled by its lowest height as on the CPU
/// (`Layout::precision_of` in `super::cpu`), so that a stage reading
/// bounds precise to its predecessors' precisions can reach its own. None
/// (sweep all together) where that gives one stage (one component, or no
/// path through two cyclic ones) or the arrays would not fit.
fn stages(
    device: &Device,
    peeled: PeelArrays,
    nodes: u64,
    stage_classes: u64,
    options: &SolveOptions,
) -> Result<Option<Stages>, GpuError> {
    let n = nodes as usize;
    let module = device.module(&build())?;
    let launch = |name: &str, params: &StageParams| {
        let config = device.grid_stride_launch(nodes, THREADS, 16);
        // SAFETY: the block matches the kernels' (checked at compile
        // time); its addresses point into the allocations below, of the
        // peel and of the sweeps, sized as the classes and the MDP say.
        unsafe { device.launch_block(&module.function(name)?, params, config, STAGING) }
    };
    let mut phases = Phases::new();
    let mut offsets = device.alloc_large_filled::<u64>(n + 1, 0)?;
    let mut params = StageParams {
        peel: peeled.params,
        nodes,
        offsets: device.address_mut(&mut offsets),
        ..StageParams::default()
    };
    launch("stage_count", &params)?;
    scan::exclusive_scan(device, &mut offsets, n + 1)?;
    let edges = device.download(&offsets.slice(n..n + 1))?[0];
    let needed =
        scc::gpu::stored_bytes(scc::cpu::Method::Coloring, nodes, edges) + 28 * nodes + 12 * edges;
    if device.free_memory()? < needed + needed / 4 + (1 << 28) {
        tracing::debug!(nodes, edges, "GPU stages: skipped, too little memory");
        return Ok(None);
    }
    // Written by stage_fill, every entry below the edge count.
    let mut targets = device.alloc_written_by_kernels::<u32>(edges as usize)?;
    params.targets = device.address_mut(&mut targets);
    launch("stage_fill", &params)?;
    phases.mark(device, "graph")?;
    let graph = scc::gpu::DeviceCsr {
        states: nodes,
        edges,
        offsets: &offsets,
        targets: &targets,
    };
    let representative = scc::gpu::representatives(device, graph, scc::cpu::Method::Coloring)?;
    params.representative = device.address(&*representative);
    phases.mark(device, "scc")?;
    // Set by stage_reps below the node count, then scanned.
    let mut component = device.alloc_large_filled::<u32>(n + 1, 0)?;
    let mut cross_offsets = device.alloc_large_filled::<u64>(n + 1, 0)?;
    params.component = device.address_mut(&mut component);
    params.cross_offsets = device.address_mut(&mut cross_offsets);
    launch("stage_reps", &params)?;
    scan::exclusive_scan(device, &mut component, n + 1)?;
    let components = device.download(&component.slice(n..n + 1))?[0] as usize;
    if components < 2 {
        tracing::debug!(nodes, edges, components, "GPU stages: one component");
        return Ok(None);
    }
    scan::exclusive_scan(device, &mut cross_offsets, n + 1)?;
    let cross = device.download(&cross_offsets.slice(n..n + 1))?[0] as usize;
    // Written by stage_cross, every pair below the count.
    let mut pairs = device.alloc_written_by_kernels::<u32>(2 * cross)?;
    let mut sizes = device.alloc_large_filled::<u32>(components, 0)?;
    let mut cyclic = device.alloc_large_filled::<u8>(components, 0)?;
    params.pairs = device.address_mut(&mut pairs);
    params.sizes = device.address_mut(&mut sizes);
    params.cyclic = device.address_mut(&mut cyclic);
    launch("stage_cross", &params)?;
    let sizes = device.download(&*sizes)?;
    let cyclic = device.download(&*cyclic)?;
    let pairs = match cross {
        0 => Vec::new(),
        _ => device.download(&pairs.slice(..2 * cross))?,
    };
    phases.mark(device, "condensation")?;
    let heights = heights(&cyclic[..components], &pairs);
    let highest = heights.iter().copied().max().unwrap_or(0);
    let count = (highest as usize + 1)
        .min(MAX_STAGES)
        .min((nodes / stage_classes) as usize);
    if count < 2 {
        tracing::debug!(nodes, edges, components, highest, "GPU stages: one stage");
        return Ok(None);
    }
    let stage_of = |height: u32| height as usize * count / (highest as usize + 1);
    let mut lowest = vec![u32::MAX; count];
    let mut per_stage = vec![0u64; count];
    for (&height, &size) in heights.iter().zip(&sizes) {
        let stage = stage_of(height);
        lowest[stage] = lowest[stage].min(height);
        per_stage[stage] += u64::from(size);
    }
    let mut starts: Vec<u64> = per_stage
        .iter()
        .scan(0, |start, &classes| {
            *start += classes;
            Some(*start - classes)
        })
        .collect();
    phases.mark(device, "heights")?;
    let component_stage: Vec<u8> = heights.iter().map(|&h| stage_of(h) as u8).collect();
    let uploaded = device.upload_large(&component_stage)?;
    let mut cursors = device.upload(&starts)?;
    params.component_stage = device.address(&*uploaded);
    params.stage_cursors = device.address_mut(&mut cursors);
    // Written by stage_assign for every node.
    let mut list = device.alloc_written_by_kernels::<u32>(n)?;
    params.stage_list = device.address_mut(&mut list);
    launch("stage_assign", &params)?;
    phases.mark(device, "lists")?;
    let plan = lowest
        .iter()
        .zip(&per_stage)
        .zip(starts.drain(..))
        .map(|((&low, &classes), start)| {
            let mut stage_options = options.clone();
            if options.sound {
                let share = f64::from(low.max(1)) / f64::from(highest.max(1));
                stage_options.precision.epsilon *= share * (1.0 - 1.0 / 64.0);
            }
            (start, classes, stage_options)
        })
        .collect();
    tracing::debug!(
        nodes,
        edges,
        components,
        cross,
        highest,
        stages = ?per_stage,
        phases = phases.summary(),
        "GPU stages"
    );
    Ok(Some(Stages { list, plan }))
}

/// Stages at most (`stages`): each costs a schedule of its own, with its
/// reads of the tally, even where it has few classes.
const MAX_STAGES: usize = 32;

/// The height of each component of a condensation whose components are
/// `cyclic` (nonzero) or not and whose edges are `pairs` (reader, read):
/// 1 for a cyclic component, plus the largest height of a component it
/// reads (0 if none). Kahn's algorithm, from the components that read
/// none.
fn heights(cyclic: &[u8], pairs: &[u32]) -> Vec<u32> {
    let n = cyclic.len();
    let mut reads_left = vec![0u32; n];
    let mut reader_offsets = vec![0usize; n + 1];
    for pair in pairs.chunks_exact(2) {
        reads_left[pair[0] as usize] += 1;
        reader_offsets[pair[1] as usize + 1] += 1;
    }
    for i in 0..n {
        reader_offsets[i + 1] += reader_offsets[i];
    }
    let mut readers = vec![0u32; pairs.len() / 2];
    let mut cursor = reader_offsets.clone();
    for pair in pairs.chunks_exact(2) {
        let read = pair[1] as usize;
        readers[cursor[read]] = pair[0];
        cursor[read] += 1;
    }
    let mut highest_read = vec![0u32; n];
    let mut heights = vec![0u32; n];
    let mut ready: Vec<usize> = (0..n).filter(|&c| reads_left[c] == 0).collect();
    while let Some(component) = ready.pop() {
        let height = highest_read[component] + u32::from(cyclic[component] != 0);
        heights[component] = height;
        for &reader in &readers[reader_offsets[component]..reader_offsets[component + 1]] {
            let reader = reader as usize;
            highest_read[reader] = highest_read[reader].max(height);
            reads_left[reader] -= 1;
            if reads_left[reader] == 0 {
                ready.push(reader);
            }
        }
    }
    heights
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel compiles, and its parameter block matches the host's
    /// ([`build`] checks the layout), without a GPU.
    #[test]
    fn the_iteration_kernel_compiles_with_nvrtc() {
        crate::gpu::assert_kernels_compile(
            &build(),
            &[
                "iterate",
                "iterate_guess",
                "iterate_forget_upper",
                "peel_class_of",
                "peel_count",
                "peel_fill",
                "peel_waves_block",
                "peel_wave",
                "peel_unsolved",
                "peel_list",
                "stage_count",
                "stage_fill",
                "stage_reps",
                "stage_cross",
                "stage_assign",
            ],
        );
    }

    /// Heights count the cyclic components on the longest path of reads:
    /// component 1 (acyclic) reads 0 (cyclic), 2 (cyclic) reads 1 twice,
    /// 3 (cyclic) reads 2 and 0, and 4 (acyclic) reads nothing.
    #[test]
    fn heights_count_the_cyclic_components_read() {
        let cyclic = [1, 0, 1, 1, 0];
        let pairs = [1, 0, 2, 1, 2, 1, 3, 2, 3, 0];
        assert_eq!(heights(&cyclic, &pairs), vec![1, 1, 2, 3, 0]);
        assert_eq!(heights(&cyclic, &[]), vec![1, 0, 1, 1, 0]);
    }

    /// The precomputation kernels compile, and their parameter block
    /// matches the host's, without a GPU.
    #[test]
    fn the_precomputation_kernels_compile_with_nvrtc() {
        crate::gpu::assert_kernels_compile(
            &qualitative_build(),
            &[
                "qual_start",
                "qual_fill",
                "qual_seed",
                "qual_wave",
                "qual_waves_block",
                "qual_undecided",
                "qual_members",
                "qual_choices",
            ],
        );
    }
}
