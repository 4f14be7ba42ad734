//! Kernel sources and their compilation by NVRTC: a [`KernelSource`] is a
//! real `.cu` file with the `.cuh` headers it includes, embedded in the
//! binary; a [`Build`] adds the `-D` definitions and the parameter-block
//! checks of one variant. Compiling needs NVRTC only, not a GPU, so every
//! variant can be compiled in CI.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::ffi::{CStr, CString, c_char};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use cudarc::nvrtc::sys as nvrtc;

use super::GpuError;
use super::abi::ParamBlock;

/// Environment variable naming a directory to read kernel sources from
/// instead of the embedded copies (same relative paths as `kernels/`):
/// kernel work without rebuilding, and tests of kernel failures.
pub const KERNEL_DIR_VARIABLE: &str = "WARPCHECK_KERNEL_DIR";

/// One file of the `kernels/` directory, embedded at build time.
#[derive(Debug, Clone, Copy)]
pub struct KernelFile {
    /// Path relative to `kernels/`, as `#include` names it.
    pub path: &'static str,
    /// The embedded text.
    pub embedded: &'static str,
}

/// Embeds `kernels/$path` as a [`KernelFile`].
#[macro_export]
macro_rules! kernel_file {
    ($path:literal) => {
        $crate::gpu::KernelFile {
            path: $path,
            embedded: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/kernels/", $path)),
        }
    };
}

/// The headers in `kernels/common/`, which every kernel may include.
pub const COMMON_HEADERS: &[KernelFile] = &[
    kernel_file!("common/grid.cuh"),
    kernel_file!("common/hash.cuh"),
    kernel_file!("common/warp.cuh"),
];

impl KernelFile {
    /// A hash of the file's text, read once per process (as the kernel
    /// directory is): every module look-up keys on it, and hashing the
    /// texts again at each look-up was the bulk of a key's cost
    /// (`benches/results/2026-12-05h-2core-kernel-lookups/`).
    fn text_hash(&self) -> Result<u64, GpuError> {
        static HASHES: OnceLock<Mutex<HashMap<&'static str, u64>>> = OnceLock::new();
        let mut hashes = HASHES
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(&hash) = hashes.get(self.path) {
            return Ok(hash);
        }
        let mut hasher = DefaultHasher::new();
        self.text()?.hash(&mut hasher);
        let hash = hasher.finish();
        hashes.insert(self.path, hash);
        Ok(hash)
    }

    /// The file's text: from `$WARPCHECK_KERNEL_DIR` when set (and not
    /// empty), else the embedded copy.
    pub fn text(&self) -> Result<String, GpuError> {
        match kernel_dir() {
            None => Ok(self.embedded.to_string()),
            Some(dir) => {
                let path = dir.join(self.path);
                std::fs::read_to_string(&path).map_err(|e| GpuError::Compile {
                    source_name: self.path.to_string(),
                    arch: String::new(),
                    log: format!("cannot read {}: {e}", path.display()),
                })
            }
        }
    }
}

/// `$WARPCHECK_KERNEL_DIR`, read once; an empty value counts as unset,
/// as `VAR= command` in a shell means.
fn kernel_dir() -> Option<&'static PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        std::env::var_os(KERNEL_DIR_VARIABLE)
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from)
    })
    .as_ref()
}

/// A kernel source file and the algorithm's own headers it includes
/// (besides [`COMMON_HEADERS`]).
#[derive(Debug, Clone, Copy)]
pub struct KernelSource {
    /// The `.cu` file.
    pub main: KernelFile,
    /// Headers of the algorithm's folder.
    pub headers: &'static [KernelFile],
}

/// Name of the header the host generates with the parameter-block checks;
/// every kernel source that takes a block includes it last.
const ABI_CHECK_HEADER: &str = "abi_check.h";

/// One variant of a kernel source: its `-D` definitions and the parameter
/// blocks whose layout the compiler must check against the host's.
#[derive(Debug, Clone)]
pub struct Build {
    source: KernelSource,
    defines: Vec<(String, i64)>,
    abi_checks: String,
}

impl Build {
    /// `source` without definitions.
    pub fn new(source: KernelSource) -> Build {
        Build {
            source,
            defines: Vec::new(),
            abi_checks: String::new(),
        }
    }

    /// Adds `-Dname=value`.
    pub fn define(mut self, name: &str, value: i64) -> Build {
        self.defines.push((name.to_string(), value));
        self
    }

    /// Adds every `(name, value)` of `defines`.
    pub fn defines(mut self, defines: &[(&str, i64)]) -> Build {
        self.defines.extend(
            defines
                .iter()
                .map(|&(name, value)| (name.to_string(), value)),
        );
        self
    }

    /// Asserts, at compile time, that the kernel's `P` has the host's size
    /// and field offsets.
    pub fn check_layout<P: ParamBlock>(mut self) -> Build {
        self.abi_checks.push_str(&P::layout_assertions());
        self
    }

    /// The source file's path, for messages.
    pub fn source_name(&self) -> &'static str {
        self.source.main.path
    }

    /// The definitions, in order.
    pub fn defined(&self) -> &[(String, i64)] {
        &self.defines
    }

    /// What identifies the compiled module apart from the architecture:
    /// the source's texts, the definitions and the checks.
    pub(super) fn cache_key(&self) -> Result<String, GpuError> {
        let mut hasher = DefaultHasher::new();
        for file in self.files() {
            file.path.hash(&mut hasher);
            file.text_hash()?.hash(&mut hasher);
        }
        self.abi_checks.hash(&mut hasher);
        let defines: String = self
            .defines
            .iter()
            .map(|(name, value)| format!(" -D{name}={value}"))
            .collect();
        Ok(format!(
            "{}{defines} #{:016x}",
            self.source.main.path,
            hasher.finish()
        ))
    }

    /// The main file, then every header it may include.
    fn files(&self) -> impl Iterator<Item = &KernelFile> {
        std::iter::once(&self.source.main)
            .chain(self.source.headers)
            .chain(COMMON_HEADERS)
    }

    /// Compiles the variant to PTX for `arch` (e.g. `sm_90`). Needs the
    /// NVRTC library only, no GPU.
    pub fn compile(&self, arch: &str) -> Result<String, GpuError> {
        let program = self.run_nvrtc(arch, Pass::Code)?;
        program.ptx().map_err(|log| self.failed(arch, log))
    }

    /// Compiles the variant to machine code (a CUBIN) for the real
    /// architecture `arch` (e.g. `sm_90`): what a device loads without
    /// the driver's PTX compiler, whose work a module of PTX would repeat
    /// at its first launches.
    pub fn compile_binary(&self, arch: &str) -> Result<Vec<u8>, GpuError> {
        let program = self.run_nvrtc(arch, Pass::Code)?;
        program.cubin().map_err(|log| self.failed(arch, log))
    }

    /// Compiles the variant for the real architecture `arch` and gives
    /// what ptxas reports (in NVRTC's log) of kernel `kernel`: registers,
    /// stack frame, spilled bytes and static shared memory. A kernel
    /// capped at a register count spills what does not fit, and the spills
    /// cost time, so the figures compare variants without a GPU.
    pub fn kernel_resources(&self, arch: &str, kernel: &str) -> Result<KernelResources, GpuError> {
        let log = self.run_nvrtc(arch, Pass::CodeWithReport)?.log();
        let figures = regex::Regex::new(&format!(
            r"Function properties for {}\n.*?(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads\n.*?Used (\d+) registers([^\n]*)",
            regex::escape(kernel)
        ))
        .expect("a valid pattern");
        let captures = figures.captures(&log).ok_or_else(|| {
            GpuError::Invalid(format!(
                "ptxas reported no resources of kernel {kernel}:\n{log}"
            ))
        })?;
        let figure = |k: usize| captures[k].parse().expect("digits that fit 32 bits");
        // The rest of the line names static shared memory when there is any.
        let shared = regex::Regex::new(r"(\d+) bytes smem").expect("a valid pattern");
        Ok(KernelResources {
            stack_frame: figure(1),
            spill_stores: figure(2),
            spill_loads: figure(3),
            registers: figure(4),
            static_shared: shared
                .captures(&captures[5])
                .map_or(0, |c| c[1].parse().expect("digits that fit 32 bits")),
        })
    }

    /// Checks the variant with NVRTC's front end only (syntax, types,
    /// templates, the parameter-block assertions), without code
    /// generation: for checks of many variants.
    pub fn check(&self, arch: &str) -> Result<(), GpuError> {
        self.run_nvrtc(arch, Pass::Syntax).map(drop)
    }

    /// The compilation error of the variant for `arch` with `log`.
    fn failed(&self, arch: &str, log: String) -> GpuError {
        GpuError::Compile {
            source_name: self.source.main.path.to_string(),
            arch: arch.to_string(),
            log,
        }
    }

    /// Runs NVRTC on the variant, as far as `pass` says.
    fn run_nvrtc(&self, arch: &str, pass: Pass) -> Result<Program, GpuError> {
        if !nvrtc_available() {
            return Err(GpuError::Unavailable(
                "the NVRTC library (libnvrtc) cannot be loaded".into(),
            ));
        }
        let failed = |log: String| self.failed(arch, log);
        let c_string = |text: String| {
            CString::new(text).map_err(|_| failed("a kernel text contains a NUL byte".into()))
        };
        let main = c_string(self.source.main.text()?)?;
        let main_name = c_string(self.source.main.path.to_string())?;
        let mut header_texts = Vec::new();
        let mut header_names = Vec::new();
        for file in self.files().skip(1) {
            header_texts.push(c_string(file.text()?)?);
            header_names.push(c_string(file.path.to_string())?);
        }
        header_texts.push(c_string(self.abi_checks.clone())?);
        header_names.push(c_string(ABI_CHECK_HEADER.to_string())?);
        let options: Vec<CString> = self
            .defines
            .iter()
            .map(|(name, value)| format!("-D{name}={value}"))
            // Line information changes no code; it lets a profiler (ncu)
            // attribute samples to kernel source lines.
            .chain([
                format!("--gpu-architecture={arch}"),
                "--std=c++17".into(),
                "--generate-line-info".into(),
            ])
            .chain(match pass {
                Pass::Syntax => Some("--fdevice-syntax-only".to_string()),
                Pass::Code => None,
                Pass::CodeWithReport => Some("--ptxas-options=-v".to_string()),
            })
            .map(c_string)
            .collect::<Result<_, _>>()?;
        let pointers = |strings: &[CString]| -> Vec<*const c_char> {
            strings.iter().map(|s| s.as_ptr()).collect()
        };
        let (texts, names, option_pointers) = (
            pointers(&header_texts),
            pointers(&header_names),
            pointers(&options),
        );
        let mut program: nvrtc::nvrtcProgram = std::ptr::null_mut();
        // SAFETY: every pointer is to a NUL-terminated string that lives
        // until the end of this function; the counts match the arrays.
        unsafe {
            nvrtc::nvrtcCreateProgram(
                &mut program,
                main.as_ptr(),
                main_name.as_ptr(),
                texts.len() as i32,
                texts.as_ptr(),
                names.as_ptr(),
            )
        }
        .result()
        .map_err(|e| failed(format!("nvrtcCreateProgram: {e:?}")))?;
        let program = Program(program);
        // SAFETY: `program` is valid; the options are valid C strings.
        let compiled = unsafe {
            nvrtc::nvrtcCompileProgram(
                program.0,
                option_pointers.len() as i32,
                option_pointers.as_ptr(),
            )
        };
        let log = program.log();
        if compiled != nvrtc::nvrtcResult::NVRTC_SUCCESS {
            return Err(failed(log));
        }
        if log.contains("warning") {
            return Err(failed(format!("compiled with warnings:\n{log}")));
        }
        Ok(program)
    }
}

/// A compiled kernel's resources, as ptxas reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelResources {
    /// Registers a thread.
    pub registers: u32,
    /// Bytes of a thread's stack frame (local arrays and spills).
    pub stack_frame: u32,
    /// Bytes of spill stores in the code.
    pub spill_stores: u32,
    /// Bytes of spill loads in the code.
    pub spill_loads: u32,
    /// Bytes of static shared memory of a block (`__shared__` arrays; the
    /// dynamic share a launch asks for comes on top).
    pub static_shared: u32,
}

/// How far NVRTC goes with a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// The front end only.
    Syntax,
    /// Code generation.
    Code,
    /// Code generation, with ptxas's report of each kernel's resources in
    /// the log.
    CodeWithReport,
}

/// An NVRTC program, destroyed on drop.
struct Program(nvrtc::nvrtcProgram);

impl Program {
    /// The compilation log (empty when there is none).
    fn log(&self) -> String {
        self.text(nvrtc::nvrtcGetProgramLogSize, nvrtc::nvrtcGetProgramLog)
            .unwrap_or_else(|e| e)
    }

    /// The PTX of a compiled program.
    fn ptx(&self) -> Result<String, String> {
        self.text(nvrtc::nvrtcGetPTXSize, nvrtc::nvrtcGetPTX)
    }

    /// The machine code of a program compiled for a real architecture.
    fn cubin(&self) -> Result<Vec<u8>, String> {
        let mut size = 0usize;
        // SAFETY: the program is valid and `size` is a valid out-pointer.
        unsafe { nvrtc::nvrtcGetCUBINSize(self.0, &mut size) }
            .result()
            .map_err(|e| format!("nvrtcGetCUBINSize: {e:?}"))?;
        let mut buffer = vec![0u8; size.max(1)];
        // SAFETY: the buffer holds `size` bytes, as NVRTC asked.
        unsafe { nvrtc::nvrtcGetCUBIN(self.0, buffer.as_mut_ptr().cast()) }
            .result()
            .map_err(|e| format!("nvrtcGetCUBIN: {e:?}"))?;
        Ok(buffer)
    }

    /// A text that NVRTC hands out as a size query, then a copy into a
    /// buffer of that size.
    fn text(
        &self,
        size_of: unsafe fn(nvrtc::nvrtcProgram, *mut usize) -> nvrtc::nvrtcResult,
        copy: unsafe fn(nvrtc::nvrtcProgram, *mut c_char) -> nvrtc::nvrtcResult,
    ) -> Result<String, String> {
        let mut size = 0usize;
        // SAFETY: the program is valid and `size` is a valid out-pointer.
        unsafe { size_of(self.0, &mut size) }
            .result()
            .map_err(|e| format!("{e:?}"))?;
        let mut buffer = vec![0 as c_char; size.max(1)];
        // SAFETY: the buffer holds `size` bytes, as NVRTC asked.
        unsafe { copy(self.0, buffer.as_mut_ptr()) }
            .result()
            .map_err(|e| format!("{e:?}"))?;
        // SAFETY: NVRTC writes a NUL-terminated string; the buffer ends in
        // a NUL in any case (zeroed, at least one byte).
        let text = unsafe { CStr::from_ptr(buffer.as_ptr()) };
        Ok(text.to_string_lossy().into_owned())
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program was created once and is destroyed once.
        let _ = unsafe { nvrtc::nvrtcDestroyProgram(&mut self.0) };
    }
}

/// NVRTC's version (major, minor), or (0, 0) where it cannot be asked;
/// asked once a process.
pub fn nvrtc_version() -> (i32, i32) {
    static VERSION: OnceLock<(i32, i32)> = OnceLock::new();
    *VERSION.get_or_init(|| {
        let (mut major, mut minor) = (0, 0);
        if !nvrtc_available() {
            return (0, 0);
        }
        // SAFETY: the library is loaded; both are valid out-pointers.
        let asked = unsafe { nvrtc::nvrtcVersion(&mut major, &mut minor) };
        match asked {
            nvrtc::nvrtcResult::NVRTC_SUCCESS => (major, minor),
            _ => (0, 0),
        }
    })
}

/// Whether the NVRTC library can be loaded; looked at once a process,
/// and then kept loaded. cudarc's probe alone unloads the library again,
/// so that every later probe, and the first call into it, loaded the
/// library afresh, also inside a GPU solver's timed set-up, which asks
/// for NVRTC's version to name its cached kernels.
pub fn nvrtc_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        // SAFETY: only loads the shared library; `culib` loads it for good
        // once the probe found it.
        unsafe {
            let present = nvrtc::is_culib_present();
            if present {
                nvrtc::culib();
            }
            present
        }
    })
}

/// For tests that compile kernels without a GPU: checks that `build`
/// compiles for the architectures of the A100 and the H100/H200 and
/// defines every kernel of `entries`; says SKIPPED where NVRTC cannot be
/// loaded.
#[cfg(test)]
pub fn assert_kernels_compile(build: &Build, entries: &[&str]) {
    if !nvrtc_available() {
        crate::testing::skipped_without_nvrtc();
        return;
    }
    for arch in ["sm_80", "sm_90"] {
        let ptx = build
            .compile(arch)
            .unwrap_or_else(|e| panic!("{arch}: {e}"));
        for entry in entries {
            assert!(ptx.contains(&format!(".entry {entry}(")), "{arch}: {entry}");
        }
        // What a device loads: machine code in an ELF image.
        let binary = build
            .compile_binary(arch)
            .unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert!(binary.starts_with(b"\x7fELF"), "{arch}: no CUBIN");
    }
}
