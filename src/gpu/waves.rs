//! Propagations in waves (trimming's deaths, backward searches): each wave
//! reads one list of states and appends the next wave to another, and the
//! two lists swap. Short waves run in one block, many to a launch
//! (`short_waves_in_block` in `kernels/common/grid.cuh`), so that a long
//! thin chain costs neither a launch nor a read by the host a wave; long
//! ones run over the whole grid, a launch a wave.

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig};

use super::{Device, GpuError};

/// Longest wave that one block runs; the kernels' `short_waves_in_block`
/// is given it as its `max_wave` (a `-D` definition).
pub const BLOCK_WAVE: u64 = 8192;
/// Threads of the block that runs short waves.
const BLOCK_WAVE_THREADS: u32 = 1024;
/// Blocks a multiprocessor at most of a wave over the grid.
const GRID_BLOCKS_PER_SM: u64 = 32;

/// A launcher of kernels that take the parameter block `P`: the caller's
/// own, which vouches that the block suits the kernel and that its
/// addresses point into live allocations.
pub type Launch<P> = fn(&Device, &CudaFunction, &P, LaunchConfig) -> Result<(), GpuError>;

/// One propagation's kernels and lists, as [`run`] drives them.
pub struct Waves<'a, P> {
    /// Runs waves in one block while they are at most [`BLOCK_WAVE`]
    /// long; it leaves the pending wave's length and the waves it ran in
    /// the counters.
    pub block: &'a CudaFunction,
    /// Runs one wave over the grid; it leaves the next wave's length in
    /// the counters.
    pub grid: &'a CudaFunction,
    /// The parameter block both kernels take.
    pub params: &'a mut P,
    /// The block's list read, the list appended to and the read list's
    /// length.
    pub lists: fn(&mut P) -> (&mut u64, &mut u64, &mut u64),
    /// Launches either kernel.
    pub launch: Launch<P>,
    /// Threads a block of a wave over the grid.
    pub threads: u32,
}

impl<P> Waves<'_, P> {
    /// Swaps the list read and the list appended to.
    fn swap(&mut self) {
        let (read, appended, _) = (self.lists)(self.params);
        std::mem::swap(read, appended);
    }

    /// Sets the length of the list read.
    fn set_length(&mut self, length: u64) {
        *(self.lists)(self.params).2 = length;
    }
}

/// Runs the waves of `waves` from a first one of `pending` states (in the
/// list appended to so far) until one is empty: the waves run. The
/// kernels count the wave appended to in `counters[pending_slot]` and the
/// block's waves in `counters[waves_slot]`; `during` names the work for
/// errors.
pub fn run<P>(
    device: &Device,
    waves: Waves<'_, P>,
    counters: &mut CudaSlice<u64>,
    slots: (usize, usize),
    pending: u64,
    during: &'static str,
) -> Result<u64, GpuError> {
    let (run, _) = run_until(device, waves, counters, slots, pending, during, |_| false)?;
    Ok(run)
}

/// [`run`], which also stops before a launch when `stop` says so, given
/// the waves run so far (a block kernel should then run a bounded number
/// of waves a launch): the waves run, and the length of the wave left
/// pending (0 when the propagation is done).
pub fn run_until<P>(
    device: &Device,
    mut waves: Waves<'_, P>,
    counters: &mut CudaSlice<u64>,
    (pending_slot, waves_slot): (usize, usize),
    mut pending: u64,
    during: &'static str,
    mut stop: impl FnMut(u64) -> bool,
) -> Result<(u64, u64), GpuError> {
    let mut run = 0;
    while pending > 0 && !stop(run) {
        waves.swap();
        waves.set_length(pending);
        device
            .stream()
            .memset_zeros(&mut counters.slice_mut(pending_slot..pending_slot + 1))
            .map_err(GpuError::driver(during))?;
        if pending <= BLOCK_WAVE {
            let config = LaunchConfig {
                grid_dim: (1, 1, 1),
                block_dim: (BLOCK_WAVE_THREADS, 1, 1),
                shared_mem_bytes: 0,
            };
            (waves.launch)(device, waves.block, waves.params, config)?;
            let counts = device.download(&*counters)?;
            pending = counts[pending_slot];
            run += counts[waves_slot];
            // The pending wave is where appends went after an odd number
            // of waves; after an even number it is in the list read.
            if counts[waves_slot] % 2 == 0 {
                waves.swap();
            }
        } else {
            let config = device.grid_stride_launch(pending, waves.threads, GRID_BLOCKS_PER_SM);
            (waves.launch)(device, waves.grid, waves.params, config)?;
            pending = device.download(&*counters)?[pending_slot];
            run += 1;
        }
    }
    Ok((run, pending))
}
