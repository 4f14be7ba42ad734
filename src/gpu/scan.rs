//! Exclusive prefix sums on the device, in place (`kernels/common/scan.cu`):
//! the primitive that turns per-state counts into CSR offsets and
//! occupancy bits into dense numbers.

use cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg, ValidAsZeroBits};

use super::{Build, Device, GpuError, KernelSource};
use crate::kernel_file;

/// The scan kernels.
pub const SOURCE: KernelSource = KernelSource {
    main: kernel_file!("common/scan.cu"),
    headers: &[],
};

/// Elements a block scans (the kernel's `SCAN_TILE`).
const TILE: usize = 2048;
/// Threads of a scan block (the kernel's `SCAN_THREADS`).
const THREADS: u32 = 256;

crate::param_block! {
    /// The arrays of one scan step.
    pub struct ScanParams {
        /// Device address of the elements.
        pub data: u64,
        /// Elements.
        pub len: u64,
        /// Device address of one element per tile.
        pub tile_sums: u64,
    }
}

/// Element types the scan kernels exist for.
pub trait ScanElement: DeviceRepr + ValidAsZeroBits + Default + Clone {
    /// Suffix of the kernels' names.
    const KERNEL_SUFFIX: &'static str;
}

impl ScanElement for u32 {
    const KERNEL_SUFFIX: &'static str = "u32";
}

impl ScanElement for u64 {
    const KERNEL_SUFFIX: &'static str = "u64";
}

/// The build of the scan kernels, with their parameter block checked.
pub fn build() -> Build {
    Build::new(SOURCE).check_layout::<ScanParams>()
}

/// Replaces the first `len` elements of `data` by their exclusive prefix
/// sums (element i becomes the sum of elements 0..i). Give one more
/// element than there are counts, set to zero, to get the total at the end.
pub fn exclusive_scan<T: ScanElement>(
    device: &Device,
    data: &mut CudaSlice<T>,
    len: usize,
) -> Result<(), GpuError> {
    let address = device.address_mut(data);
    scan_at::<T>(device, address, len)
}

/// [`exclusive_scan`] of `len` elements at device address `data`.
fn scan_at<T: ScanElement>(device: &Device, data: u64, len: usize) -> Result<(), GpuError> {
    if len == 0 {
        return Ok(());
    }
    let tiles = len.div_ceil(TILE);
    let mut sums: CudaSlice<T> = device.alloc_zeroed(tiles)?;
    let params = ScanParams {
        data,
        len: len as u64,
        tile_sums: device.address_mut(&mut sums),
    };
    let module = device.module(&build())?;
    let scan = module.function(&format!("scan_tiles_{}", T::KERNEL_SUFFIX))?;
    let config = LaunchConfig {
        grid_dim: (tiles as u32, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = device.stream().launch_builder(&scan);
    launch.arg(&params);
    // SAFETY: the block matches the kernel's; `data` holds `len` elements
    // and `sums` one per tile.
    unsafe { launch.launch(config) }.map_err(GpuError::driver("scanning"))?;
    if tiles > 1 {
        scan_at::<T>(device, params.tile_sums, tiles)?;
        let add = module.function(&format!("add_tile_offsets_{}", T::KERNEL_SUFFIX))?;
        let config = LaunchConfig {
            grid_dim: (device.multiprocessors() * 8, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = device.stream().launch_builder(&add);
        launch.arg(&params);
        // SAFETY: as above; `sums` now holds each tile's offset.
        unsafe { launch.launch(config) }.map_err(GpuError::driver("scanning"))?;
    }
    // `sums` is freed in stream order, after the kernels that read it.
    drop(sums);
    Ok(())
}
