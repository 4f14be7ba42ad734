//! Why a GPU could not be used or a GPU computation failed.

use cudarc::driver::DriverError;
use thiserror::Error;

/// Why the GPU runtime or a GPU algorithm could not run or finish.
#[derive(Debug, Error)]
pub enum GpuError {
    /// No CUDA driver, no NVRTC, or no such device.
    #[error("no GPU available: {0}")]
    Unavailable(String),
    /// NVRTC rejected a kernel (a bug in warpcheck, or in kernels given
    /// through `WARPCHECK_KERNEL_DIR`; the log says where).
    #[error("the GPU kernel {source_name} failed to compile for {arch}:\n{log}")]
    Compile {
        /// The kernel source file.
        source_name: String,
        /// Target architecture, e.g. `sm_90`.
        arch: String,
        /// NVRTC's log.
        log: String,
    },
    /// The device could not provide the memory asked for.
    #[error(
        "out of GPU memory: could not allocate {requested} bytes ({free} free); \
         try a smaller --memory"
    )]
    OutOfMemory {
        /// Bytes asked for.
        requested: u64,
        /// Bytes the device reported free.
        free: u64,
    },
    /// The options cannot work on this device or input.
    #[error("invalid GPU setting: {0}")]
    Invalid(String),
    /// A driver call or a kernel failed.
    #[error("GPU failure during {during}: {detail}")]
    Driver {
        /// What was being done.
        during: &'static str,
        /// The driver's message.
        detail: String,
    },
    /// A result computed on the device failed a consistency check (a bug
    /// in warpcheck).
    #[error("GPU result inconsistent during {during}: {detail}")]
    Inconsistent {
        /// What was being done.
        during: &'static str,
        /// What did not agree.
        detail: String,
    },
    /// The processes of a search split over several (`--ranks`) could not
    /// find each other.
    #[error("could not join the job's other processes: {0}")]
    Join(String),
    /// The caller's stop signal was set before the work was done (a race
    /// won by another contestant, a timeout): nothing failed.
    #[error("stopped before the GPU was done")]
    Stopped,
}

impl GpuError {
    /// Maps a driver error to [`GpuError::Driver`], saying what was being done.
    pub fn driver(during: &'static str) -> impl FnOnce(DriverError) -> GpuError {
        move |e| GpuError::Driver {
            during,
            detail: format!("{e:?}"),
        }
    }

    /// Whether the failure lies with the input or the request (bad
    /// settings, no device, not enough memory for what was asked) rather
    /// than with the device or warpcheck itself.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            GpuError::Unavailable(_)
                | GpuError::OutOfMemory { .. }
                | GpuError::Invalid(_)
                | GpuError::Join(_)
        )
    }
}
