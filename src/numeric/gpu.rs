//! Interval iteration on the GPU (`kernels/numeric/iterate.cu`): the
//! precomputations run on the host (for example
//! [`super::reference::prepare`]), or for `P=? [ left U right ]` and
//! `R=? [ F right ]` of a chain, `Pmin` and `Rmax` of an MDP on the device
//! too ([`solve_on_device`],
//! `kernels/numeric/qualitative.cu`), and for `Pmax` and `Rmin` their
//! searches ([`maximal_reach`]) with the end components collapsed on the
//! host ([`super::reference::maximum_from`]); then the model, the classes of
//! undecided states and both bounds are on the device, and launches of one
//! sweep each refine the bounds as the [`Schedule`] shared with the other
//! engines says, reading the tally of the last sweep of every batch. Each
//! launch's tally is zeroed by the host before it runs. Each class is
//! updated by a group of lanes as wide as its mean number of branches
//! (rounded down to a power of two, at most a warp), so that the lanes of
//! a warp read neighbouring branches.

use std::time::Instant;

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};
use rayon::prelude::*;

use super::qualitative::MaximalReach;
use super::reference::{
    Bounds, Classes, Iteration, Schedule, Shape, Step, Tally, finish, guess_above,
};
use super::{Optimum, SolveOptions, timed};
use crate::explicit::Mdp;
use crate::gpu::{Build, Device, GpuError, KernelSource, LargeSlice, scan, waves};
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

/// Counter slots in all.
const COUNTERS: usize = counter::INSIDE + 1;
/// Threads per block.
const THREADS: u32 = 256;
/// Sweeps launched between two reads of the tally.
const SWEEPS_PER_CHECK: u64 = 16;
/// What the kernel does, for error messages.
const DURING: &str = "iterating on the GPU";
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

/// The sweep kernel's build.
pub fn build() -> Build {
    Build::new(SOURCE).check_layout::<IterateParams>()
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
        let classes = self.sizes.classes as usize;
        let choices = self.sizes.choices as usize;
        Ok(Iteration {
            lower: device.download(&*self.lower)?,
            upper: device.download(&*self.upper)?,
            upper_known: self.shape.upper_known,
            classes: Classes {
                members: download_prefix(device, &self.members, classes)?,
                member_offsets: device.download(&*self.class_member_offsets)?,
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

/// Refines `iteration` of `mdp` on `device` within `options`, as
/// [`super::reference::iterate`] does on one thread.
pub fn iterate(
    device: &Device,
    mdp: &Mdp,
    iteration: Iteration,
    options: &SolveOptions,
) -> Result<Bounds, GpuError> {
    iterate_with(
        device,
        mdp,
        &DeviceMdp::upload(device, mdp)?,
        iteration,
        options,
    )
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
    sweep_until_precise(device, model, on_device, options)
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
    sweep_until_precise(device, &model, iteration, options)
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
        let build = qualitative_build();
        let get = |name: &str| device.function(&build, name);
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
/// `options`: the sweeps of the [`Schedule`] the other engines share.
fn sweep_until_precise(
    device: &Device,
    model: &DeviceMdp,
    mut iteration: DeviceIteration,
    options: &SolveOptions,
) -> Result<Bounds, GpuError> {
    let sizes = iteration.sizes;
    let mut schedule = Schedule::of_shape(iteration.shape, sizes.classes as usize, options);
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
        minimise: u64::from(iteration.shape.optimum == Some(Optimum::Min)),
        phase: 0,
        lanes: sizes.lanes(),
    };
    let config = device.grid_stride_launch(sizes.classes * params.lanes, THREADS, 16);
    let sweeping = Instant::now();
    let mut step = schedule.start();
    let mut members: Option<Vec<u32>> = None;
    while step != Step::Stop {
        if let Step::Guess(precision) = step {
            let members = match &mut members {
                Some(members) => members,
                none => none.insert(download_prefix(
                    device,
                    &iteration.members,
                    sizes.classes as usize,
                )?),
            };
            let known = device.download(&*iteration.lower)?;
            let mut guessed = device.download(&*iteration.upper)?;
            for &state in members.iter() {
                guessed[state as usize] = guess_above(known[state as usize], precision);
            }
            device.write(&guessed, &mut *iteration.upper)?;
        }
        let rule = schedule.rule();
        params.epsilon_bits = rule.precision.epsilon.to_bits();
        params.settle_bits = rule.settle.epsilon.to_bits();
        params.phase = rule.phase as u64;
        let sweeps = schedule.batch(SWEEPS_PER_CHECK);
        for _ in 0..sweeps {
            device
                .stream()
                .memset_zeros(&mut counters)
                .map_err(GpuError::driver(DURING))?;
            let mut launch = device.stream().launch_builder(&function);
            launch.arg(&params);
            // SAFETY: the block matches the kernel's (checked at compile
            // time); its addresses point into the allocations above, sized
            // as the classes and the MDP say.
            unsafe { launch.launch(config) }.map_err(GpuError::driver(DURING))?;
        }
        let tally = device.download(&counters)?;
        step = schedule.after(
            sweeps,
            Tally {
                imprecise: tally[0],
                raised: tally[1],
            },
        );
    }
    if tracing::enabled!(tracing::Level::DEBUG) {
        let seconds = sweeping.elapsed().as_secs_f64();
        let bytes = sizes.sweep_bytes();
        tracing::debug!(
            sweeps = schedule.iterations(),
            seconds,
            bytes_per_sweep = bytes,
            gigabytes_per_second = (bytes * schedule.iterations()) as f64 / seconds.max(1e-9) / 1e9,
            "GPU iteration"
        );
    }
    timed("bounds downloaded", || {
        let lower = device.download(&*iteration.lower)?;
        let upper = device.download(&*iteration.upper)?;
        let members = match (schedule.upper_proven(), members) {
            (true, _) => Vec::new(),
            (false, Some(members)) => members,
            (false, None) => download_prefix(device, &iteration.members, sizes.classes as usize)?,
        };
        Ok(finish(&schedule, &members, lower, upper))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel compiles, and its parameter block matches the host's
    /// ([`build`] checks the layout), without a GPU.
    #[test]
    fn the_iteration_kernel_compiles_with_nvrtc() {
        crate::gpu::assert_kernels_compile(&build(), &["iterate"]);
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
