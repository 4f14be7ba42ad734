//! One error type for the whole toolset, and the process exit codes: the
//! command-line interface maps an [`enum@Error`] to its code in one place
//! ([`Error::exit_code`]).

use thiserror::Error;

use crate::explicit::SinkError;
use crate::frontend::LoadError;
use crate::gpu::GpuError;

/// Process exit codes.
pub mod exit {
    /// Checked, no violation found (or, without a check, explored completely).
    pub const OK: i32 = 0;
    /// A violation was found: a deadlock or a property violation.
    pub const VIOLATION: i32 = 1;
    /// Bad input or usage (including `--engine gpu` without a GPU), or a
    /// model error such as a Petri net that is not 1-safe.
    pub const BAD_INPUT: i32 = 2;
    /// The exploration is incomplete: a state or memory limit was hit.
    pub const INCOMPLETE: i32 = 3;
    /// An internal or device failure: a CUDA error during a run, or a
    /// result that failed warpcheck's own consistency checks.
    pub const INTERNAL: i32 = 4;
    /// Standard output was closed by its reader (`| head -1`): the status
    /// a Unix tool killed by `SIGPIPE` ends with (128 + 13), without a
    /// message.
    pub const BROKEN_PIPE: i32 = 141;
}

/// Everything that can make a warpcheck command fail.
#[derive(Debug, Error)]
pub enum Error {
    /// A model file could not be read or parsed.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The command line asks for something that cannot be done.
    #[error("{0}")]
    Usage(String),
    /// The model cannot be checked as asked (its message names the file).
    #[error("{0}")]
    Model(String),
    /// An output file could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The reader of standard output went away.
    #[error("standard output was closed")]
    BrokenPipe,
    /// A state-space sink failed.
    #[error(transparent)]
    Sink(#[from] SinkError),
    /// The GPU could not be used, or failed.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// A search ended before the state space was complete, so a command
    /// that needs all of it has no answer.
    #[error("{0}")]
    Incomplete(String),
    /// A result failed warpcheck's own consistency checks: a bug.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// The process exit code for this error: [`exit::BAD_INPUT`] for
    /// problems with the input, the request or the environment (no GPU,
    /// not enough memory for what was asked, unwritable files),
    /// [`exit::INTERNAL`] for device failures and internal errors.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Load(_)
            | Error::Usage(_)
            | Error::Model(_)
            | Error::Write { .. }
            | Error::Sink(SinkError::Write { .. } | SinkError::Capacity(_)) => exit::BAD_INPUT,
            Error::Sink(SinkError::Inconsistent(_)) => exit::INTERNAL,
            Error::BrokenPipe => exit::BROKEN_PIPE,
            Error::Incomplete(_) => exit::INCOMPLETE,
            Error::Gpu(e) if e.is_usage() => exit::BAD_INPUT,
            Error::Gpu(_) | Error::Internal(_) => exit::INTERNAL,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_failures_and_internal_errors_exit_4_the_rest_2() {
        let driver = Error::Gpu(GpuError::Driver {
            during: "running the search kernel",
            detail: "CUDA_ERROR_LAUNCH_FAILED".into(),
        });
        assert_eq!(driver.exit_code(), exit::INTERNAL);
        let inconsistent = Error::Gpu(GpuError::Inconsistent {
            during: "exporting the state space",
            detail: "counts differ".into(),
        });
        assert_eq!(inconsistent.exit_code(), exit::INTERNAL);
        let compile = Error::Gpu(GpuError::Compile {
            source_name: "explore/search.cu".into(),
            arch: "sm_90".into(),
            log: String::new(),
        });
        assert_eq!(compile.exit_code(), exit::INTERNAL);
        assert_eq!(Error::Internal("x".into()).exit_code(), exit::INTERNAL);
        for usage in [
            Error::Gpu(GpuError::Unavailable("no CUDA device found".into())),
            Error::Gpu(GpuError::Invalid("threads".into())),
            Error::Gpu(GpuError::OutOfMemory {
                requested: 1,
                free: 0,
            }),
            Error::Usage("bad".into()),
            Error::Model("m".into()),
        ] {
            assert_eq!(usage.exit_code(), exit::BAD_INPUT, "{usage}");
        }
    }
}
