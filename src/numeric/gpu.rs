//! Interval iteration on the GPU (`kernels/numeric/iterate.cu`): the
//! precomputations run on the host (for example
//! [`super::reference::prepare`]), then the model, the classes of undecided
//! states and both bounds go to the device, and launches of one sweep each
//! refine the bounds as the [`Schedule`] shared with the other engines says,
//! reading the tally of the last sweep of every batch. Each launch's tally
//! is zeroed by the host before it runs. Each class is updated by a group
//! of lanes as wide as its mean number of branches (rounded down to a power
//! of two, at most a warp), so that the lanes of a warp read neighbouring
//! branches.

use cudarc::driver::{CudaSlice, PushKernelArg};

use super::SolveOptions;
use super::reference::{Bounds, Iteration, Schedule, Step, Tally, finish, guess_above};
use crate::explicit::Mdp;
use crate::gpu::{Build, Device, GpuError, KernelSource};
use crate::{kernel_file, param_block};

/// The kernel.
pub const SOURCE: KernelSource = KernelSource {
    main: kernel_file!("numeric/iterate.cu"),
    headers: &[],
};

/// Threads per block.
const THREADS: u32 = 256;
/// Sweeps launched between two reads of the tally.
const SWEEPS_PER_CHECK: u64 = 16;
/// What the kernel does, for error messages.
const DURING: &str = "iterating on the GPU";

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

/// The kernel's build.
pub fn build() -> Build {
    Build::new(SOURCE).check_layout::<IterateParams>()
}

/// The lanes per class: the mean branches per class, rounded down to a
/// power of two, from 1 to 32.
fn lanes_per_class(mdp: &Mdp, classes: &super::reference::Classes) -> u64 {
    let mean = class_branches(mdp, classes) / (classes.count() as u64).max(1);
    match mean {
        0 | 1 => 1,
        mean => (1u64 << mean.ilog2()).min(32),
    }
}

/// The bytes one sweep must move at least: every class's offsets and
/// members, the bounds of its members read and written, each of its
/// choices' number and branch offsets, and each branch's target,
/// probability and the two bounds it reads (the figure behind the
/// bandwidth the debug log reports).
fn sweep_bytes(mdp: &Mdp, classes: &super::reference::Classes) -> u64 {
    let per_class = 8 + 8 + 4 + 2 * (8 + 8);
    let per_choice = 8 + 16;
    let per_branch = 4 + 8 + 2 * 8;
    per_class * classes.count() as u64
        + per_choice * classes.choices.len() as u64
        + per_branch * class_branches(mdp, classes)
}

/// The branches of all the classes' choices.
fn class_branches(mdp: &Mdp, classes: &super::reference::Classes) -> u64 {
    classes
        .choices
        .iter()
        .map(|&c| mdp.branch_offsets[c as usize + 1] - mdp.branch_offsets[c as usize])
        .sum()
}

/// Refines `iteration` of `mdp` on `device` within `options`, as
/// [`super::reference::iterate`] does on one thread.
pub fn iterate(
    device: &Device,
    mdp: &Mdp,
    iteration: Iteration,
    options: &SolveOptions,
) -> Result<Bounds, GpuError> {
    let mut schedule = Schedule::new(&iteration, options);
    let classes = &iteration.classes;
    let count = classes.count() as u64;
    let function = device.function(&build(), "iterate")?;
    let branch_offsets = device.upload(&mdp.branch_offsets)?;
    let targets = device.upload(&mdp.targets)?;
    let probabilities = device.upload(&mdp.probabilities)?;
    let class_choice_offsets = device.upload(&classes.choice_offsets)?;
    let class_choices = device.upload(&classes.choices)?;
    let class_constants = match classes.constants.is_empty() {
        true => None,
        false => Some(device.upload(&classes.constants)?),
    };
    let class_member_offsets = device.upload(&classes.member_offsets)?;
    let members = device.upload(&classes.members)?;
    let mut lower = device.upload(&iteration.lower)?;
    let mut upper = device.upload(&iteration.upper)?;
    let mut counters: CudaSlice<u64> = device.alloc_zeroed(2)?;
    let mut params = IterateParams {
        branch_offsets: device.address(&branch_offsets),
        targets: device.address(&targets),
        probabilities: device.address(&probabilities),
        class_choice_offsets: device.address(&class_choice_offsets),
        class_choices: device.address(&class_choices),
        class_constants: class_constants.as_ref().map_or(0, |c| device.address(c)),
        class_member_offsets: device.address(&class_member_offsets),
        members: device.address(&members),
        lower: device.address_mut(&mut lower),
        upper: device.address_mut(&mut upper),
        counters: device.address_mut(&mut counters),
        classes: count,
        epsilon_bits: 0,
        settle_bits: 0,
        relative: u64::from(options.precision.relative),
        minimise: u64::from(iteration.optimum == Some(super::Optimum::Min)),
        phase: 0,
        lanes: lanes_per_class(mdp, classes),
    };
    let config = device.grid_stride_launch(count * params.lanes, THREADS, 16);
    let sweeping = std::time::Instant::now();
    let mut step = schedule.start();
    while step != Step::Stop {
        if let Step::Guess(precision) = step {
            let known = device.download(&lower)?;
            let mut guessed = device.download(&upper)?;
            for &state in &classes.members {
                guessed[state as usize] = guess_above(known[state as usize], precision);
            }
            device.write(&guessed, &mut upper)?;
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
        // A pass over the classes' choices: only for the log.
        let seconds = sweeping.elapsed().as_secs_f64();
        let bytes = sweep_bytes(mdp, classes);
        tracing::debug!(
            sweeps = schedule.iterations(),
            seconds,
            bytes_per_sweep = bytes,
            gigabytes_per_second = (bytes * schedule.iterations()) as f64 / seconds.max(1e-9) / 1e9,
            "GPU iteration"
        );
    }
    let (lower, upper) = (device.download(&lower)?, device.download(&upper)?);
    Ok(finish(&schedule, classes, lower, upper))
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
}
