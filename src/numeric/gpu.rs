//! Interval iteration on the GPU (`kernels/numeric/iterate.cu`): the
//! precomputations run on the host ([`super::reference::prepare`]), then
//! the model, the classes of undecided states and both bounds go to the
//! device, and launches of one sweep each refine the bounds until the
//! states not yet within the precision, counted by the last sweep, are
//! none. Each launch's count is zeroed by the host before it runs.

use std::time::Instant;

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::reference::Iteration;
use super::{Optimum, Outcome, SolveOptions};
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
/// Sweeps launched between two reads of the count of imprecise states.
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
        /// Device address of each class's first state in `members`.
        pub class_member_offsets: u64,
        /// Device address of the classes' states (`u32`).
        pub members: u64,
        /// Device address of the lower bounds (`f64` per state).
        pub lower: u64,
        /// Device address of the upper bounds (`f64` per state).
        pub upper: u64,
        /// Device address of the count of imprecise states (`u64`).
        pub counters: u64,
        /// Classes.
        pub classes: u64,
        /// The precision, as the bits of an `f64`.
        pub epsilon_bits: u64,
        /// 1 when the precision is relative.
        pub relative: u64,
        /// 1 for minimal probabilities.
        pub minimise: u64,
        /// 0 for plain value iteration.
        pub sound: u64,
    }
}

/// The kernel's build.
pub fn build() -> Build {
    Build::new(SOURCE).check_layout::<IterateParams>()
}

/// Refines `iteration` of `mdp` on `device` within `options`, as
/// [`super::reference::iterate`] does on one thread.
pub fn iterate(
    device: &Device,
    mdp: &Mdp,
    iteration: Iteration,
    options: &SolveOptions,
) -> Result<Outcome, GpuError> {
    let classes = iteration.classes.count() as u64;
    let function = device.function(&build(), "iterate")?;
    let branch_offsets = device.upload(&mdp.branch_offsets)?;
    let targets = device.upload(&mdp.targets)?;
    let probabilities = device.upload(&mdp.probabilities)?;
    let class_choice_offsets = device.upload(&iteration.classes.choice_offsets)?;
    let class_choices = device.upload(&iteration.classes.choices)?;
    let class_member_offsets = device.upload(&iteration.classes.member_offsets)?;
    let members = device.upload(&iteration.classes.members)?;
    let mut lower = device.upload(&iteration.lower)?;
    let mut upper = device.upload(&iteration.upper)?;
    let mut counters: CudaSlice<u64> = device.alloc_zeroed(1)?;
    let params = IterateParams {
        branch_offsets: device.address(&branch_offsets),
        targets: device.address(&targets),
        probabilities: device.address(&probabilities),
        class_choice_offsets: device.address(&class_choice_offsets),
        class_choices: device.address(&class_choices),
        class_member_offsets: device.address(&class_member_offsets),
        members: device.address(&members),
        lower: device.address_mut(&mut lower),
        upper: device.address_mut(&mut upper),
        counters: device.address_mut(&mut counters),
        classes,
        epsilon_bits: options.precision.epsilon.to_bits(),
        relative: u64::from(options.precision.relative),
        minimise: u64::from(iteration.optimum == Some(Optimum::Min)),
        sound: u64::from(options.sound),
    };
    let blocks = classes
        .div_ceil(u64::from(THREADS))
        .clamp(1, u64::from(device.multiprocessors()) * 16) as u32;
    let config = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut iterations = 0u64;
    let mut converged = classes == 0;
    while !converged && iterations < options.max_iterations {
        let sweeps = SWEEPS_PER_CHECK.min(options.max_iterations - iterations);
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
        iterations += sweeps;
        converged = device.download(&counters)?[0] == 0;
        if options
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            break;
        }
    }
    let (lower, upper) = (device.download(&lower)?, device.download(&upper)?);
    Ok(if options.sound {
        Outcome::from_bounds(lower, upper, iterations, converged)
    } else {
        Outcome::unsound(lower, iterations, converged)
    })
}
