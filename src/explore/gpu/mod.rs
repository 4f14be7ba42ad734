//! The GPU engine: GPUexplore's on-the-fly exploration (Wijs & Bošnački)
//! in CUDA, driven through cudarc. The kernel (`kernels/explore.cu`) is
//! compiled by NVRTC at run time for the device's own architecture, with
//! the network's shape (vector words, processes, group size) baked in as
//! constants; compiled kernels are cached per shape.
//!
//! The search is breadth-first and level-synchronous: one global hash table
//! of 32-word buckets stores every vector (with its predecessor's slot when
//! traces are on), and the winner of each insertion appends the new slot to
//! the next frontier. See `docs/GPU.md` for the design and the reasoning
//! about insertion races.

mod rules;
mod search;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream, DriverError, sys};
use thiserror::Error;

use crate::encode::EncodedNetwork;
pub use crate::encode::OwnerChoice;
use crate::explore::{Exploration, SearchOptions};

/// The kernel source, embedded so that the binary needs no files at run time.
const KERNEL_SOURCE: &str = include_str!("../../../kernels/explore.cu");

/// How the kernel reads the encoded network. Textures took 4 to 31 % less
/// search time than `__ldg` on eight MCC models (docs/GPU.md), so they are the
/// default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadOnlyPath {
    /// Texture objects over linear memory (the texture cache path); falls
    /// back to [`ReadOnlyPath::Ldg`] when an array is longer than the
    /// device's linear textures allow.
    #[default]
    Texture,
    /// Through the read-only data cache (`__ldg`).
    Ldg,
    /// Ordinary global loads.
    Plain,
}

/// How a level's new states are handed to the next level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Frontier {
    /// The inserting warp appends the new slot to a queue (4 bytes a
    /// state of the level); a level expands exactly its queue.
    #[default]
    Queue,
    /// GPUexplore's "new" marks, Open and Visited in one table: a bit per
    /// slot (two bitmaps, one per level parity) marks the new states, and
    /// each level scans the whole bitmap for them.
    NewMarks,
}

/// How the owner of a synchronising rule finds the other participants'
/// entries for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyncCombination {
    /// Direct look-up rows (rule, participant, local state) -> entries, in
    /// read-only memory: no synchronisation between threads.
    #[default]
    Lookup,
    /// GPUexplore's buffers: each thread lists the rules its process offers
    /// in the state in shared memory; the owner reads the others' lists
    /// after a `__syncwarp`. Needs one thread per process (at most 32
    /// processes).
    SharedBuffers,
}

/// Tuning of the GPU search. `None` fields get defaults from the device's
/// properties; the switches exist to measure each part of the design.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuOptions {
    /// Blocks of the grid (default: as many as can be resident at once).
    pub blocks: Option<u32>,
    /// Threads per block, a multiple of 32 (default 256, fewer when the
    /// per-warp shared memory needs it).
    pub threads_per_block: Option<u32>,
    /// Breadth-first levels per kernel launch (default 32).
    pub iterations: Option<u32>,
    /// Threads of a vector group, which expands one state: a power of two
    /// up to 32 (default: enough for one process a thread, at most 32).
    /// Fewer threads than processes give each thread several processes and
    /// a warp more states at once.
    pub group_threads: Option<u32>,
    /// Device memory for the table and frontier queues (default: most of
    /// the free memory).
    pub memory_bytes: Option<u64>,
    /// Per-warp cache of recently inserted vectors in shared memory.
    pub cache: bool,
    /// Warps claim frontier chunks through an atomic cursor (otherwise a
    /// fixed round-robin split).
    pub work_claiming: bool,
    /// How the encoded network is read.
    pub readonly_path: ReadOnlyPath,
    /// How new states reach the next level.
    pub frontier: Frontier,
    /// Which participant of a rule combines it.
    pub owners: OwnerChoice,
    /// How the owner finds the other participants' entries.
    pub sync: SyncCombination,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            blocks: None,
            threads_per_block: None,
            iterations: None,
            group_threads: None,
            memory_bytes: None,
            cache: true,
            work_claiming: true,
            readonly_path: ReadOnlyPath::Texture,
            frontier: Frontier::Queue,
            owners: OwnerChoice::MostSelective,
            sync: SyncCombination::Lookup,
        }
    }
}

/// Why the GPU engine could not run or finish.
#[derive(Debug, Error)]
pub enum GpuError {
    /// No CUDA driver, no NVRTC, or no device.
    #[error("no GPU available: {0}")]
    Unavailable(String),
    /// NVRTC rejected the kernel (a bug in warpcheck; the log says where).
    #[error("the GPU kernel failed to compile for {arch}:\n{log}")]
    Compile {
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
    /// The options cannot work on this device or network.
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
}

impl GpuError {
    fn driver(during: &'static str) -> impl FnOnce(DriverError) -> GpuError {
        move |e| GpuError::Driver {
            during,
            detail: format!("{e:?}"),
        }
    }
}

/// One exported transition: source state number, action id, target state
/// number (states numbered densely, 0 being the initial state).
pub type Edge = (u64, u32, u64);

/// The result of a GPU search: the common figures plus the GPU's own.
#[derive(Debug, Clone)]
pub struct GpuExploration {
    /// States, transitions, verdicts, as every engine reports them.
    pub exploration: Exploration,
    /// Bytes of the hash table.
    pub table_bytes: u64,
    /// Fraction of table slots in use at the end.
    pub table_fill: f64,
    /// States the table can hold.
    pub capacity: u64,
    /// States the same memory would hold without predecessor links
    /// (`--no-trace`): what traces cost.
    pub capacity_without_traces: u64,
    /// Extra expansions in percent of states (states expanded more than
    /// once); the frontier queue makes this 0 by construction.
    pub redundancy: f64,
    /// Kernel launches.
    pub launches: u64,
    /// Time before the search proper: kernel compilation (first use of a
    /// network shape), allocation and clearing of the table. Not part of
    /// `exploration.elapsed`.
    pub setup: std::time::Duration,
}

/// An opened GPU: context, stream, properties and compiled kernels.
pub struct Gpu {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    compute_capability: (i32, i32),
    multiprocessors: u32,
    total_memory: u64,
    /// Compiled kernel modules by their constant definitions.
    kernels: Mutex<HashMap<String, Arc<CudaModule>>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.description())
    }
}

impl Gpu {
    /// Opens device 0. Fails with [`GpuError::Unavailable`] when the CUDA
    /// driver or NVRTC cannot be loaded or no device exists.
    pub fn open() -> Result<Gpu, GpuError> {
        // SAFETY: only tries to load the shared libraries.
        if !unsafe { sys::is_culib_present() } {
            return Err(GpuError::Unavailable(
                "the CUDA driver library (libcuda) cannot be loaded".into(),
            ));
        }
        // SAFETY: as above.
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            return Err(GpuError::Unavailable(
                "the NVRTC library (libnvrtc) cannot be loaded".into(),
            ));
        }
        let unavailable = |e: DriverError| GpuError::Unavailable(format!("{e:?}"));
        let count = CudaContext::device_count().map_err(unavailable)?;
        if count < 1 {
            return Err(GpuError::Unavailable("no CUDA device found".into()));
        }
        let context = CudaContext::new(0).map_err(unavailable)?;
        let name = context.name().map_err(unavailable)?;
        let compute_capability = context.compute_capability().map_err(unavailable)?;
        let multiprocessors = context
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(unavailable)? as u32;
        let total_memory = context.total_mem().map_err(unavailable)? as u64;
        let stream = context.default_stream();
        Ok(Gpu {
            context,
            stream,
            name,
            compute_capability,
            multiprocessors,
            total_memory,
            kernels: Mutex::new(HashMap::new()),
        })
    }

    /// Name, compute capability, multiprocessors and memory of the device.
    pub fn description(&self) -> String {
        let (major, minor) = self.compute_capability;
        format!(
            "{} (sm_{major}{minor}, {} SMs, {:.1} GiB)",
            self.name,
            self.multiprocessors,
            self.total_memory as f64 / (1u64 << 30) as f64
        )
    }

    /// Explores `net` on the GPU. Incomplete searches say so through
    /// [`Exploration::completion`] (e.g. `TableFull`), never by a verdict.
    pub fn explore(
        &self,
        net: &EncodedNetwork,
        search: &SearchOptions,
        options: &GpuOptions,
    ) -> Result<GpuExploration, GpuError> {
        search::explore(self, net, search, options)
    }

    /// Explores `net` on the GPU (keep-going, as `search` says) and then
    /// expands every stored state again in a separate pass over the final
    /// table, giving `edges` every transition in batches, with states
    /// numbered densely (0 is the initial state). The pass runs only after
    /// a complete search; its counts must equal the search's, else an
    /// error. The search itself runs exactly as in [`Gpu::explore`].
    pub fn explore_edges(
        &self,
        net: &EncodedNetwork,
        search: &SearchOptions,
        options: &GpuOptions,
        edges: &mut dyn FnMut(&[Edge]) -> Result<(), String>,
    ) -> Result<GpuExploration, GpuError> {
        search::explore_edges(self, net, search, options, edges)
    }

    /// Kernel `name` of the source compiled with `defines`, from the cache
    /// or NVRTC.
    fn kernel(&self, defines: &[(&str, i64)], name: &str) -> Result<CudaFunction, GpuError> {
        let key: String = defines
            .iter()
            .map(|(name, value)| format!("-D{name}={value} "))
            .collect();
        let mut kernels = self.kernels.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(module) = kernels.get(&key) {
            return module
                .load_function(name)
                .map_err(GpuError::driver("loading the compiled kernel"));
        }
        let (major, minor) = self.compute_capability;
        let arch = format!("sm_{major}{minor}");
        let mut flags: Vec<String> = key.split_whitespace().map(str::to_string).collect();
        flags.push(format!("--gpu-architecture={arch}"));
        flags.push("--std=c++17".into());
        let ptx = cudarc::nvrtc::compile_ptx_with_opts(
            KERNEL_SOURCE,
            cudarc::nvrtc::CompileOptions {
                options: flags,
                name: Some("explore.cu".into()),
                ..Default::default()
            },
        )
        .map_err(|e| GpuError::Compile {
            arch: arch.clone(),
            log: match e {
                cudarc::nvrtc::CompileError::CompileError { log, .. } => {
                    log.to_string_lossy().into_owned()
                }
                other => format!("{other:?}"),
            },
        })?;
        let module = self
            .context
            .load_module(ptx)
            .map_err(GpuError::driver("loading the compiled kernel"))?;
        let function = module
            .load_function(name)
            .map_err(GpuError::driver("loading the compiled kernel"))?;
        kernels.insert(key, module);
        Ok(function)
    }
}
