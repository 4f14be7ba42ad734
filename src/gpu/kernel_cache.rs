//! Compiled kernels kept on disk. NVRTC compiles each module in every
//! process that loads it (on the 2-core development machine about 0.6 s
//! for a search kernel, 0.33 s for `prob`'s sweeps), so a module's CUBIN
//! is stored once under a name that hashes everything it was compiled
//! from (the build's cache key: source texts, definitions and layout
//! checks; the architecture; NVRTC's version) and read back by later
//! processes. A file is written under a temporary name and renamed, so
//! that no reader sees a partial one, and ends in a hash of its bytes: a
//! file without the right one is compiled again and replaced. Where the
//! directory cannot be written, modules are compiled as before.
//!
//! `WARPCHECK_KERNEL_CACHE` names the directory (empty or `off`: no cache);
//! by default `$XDG_CACHE_HOME/warpcheck/kernels`, else
//! `$HOME/.cache/warpcheck/kernels`.

use std::collections::hash_map::DefaultHasher;
use std::ffi::OsString;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::{Build, GpuError};

/// Environment variable naming the cache's directory (empty or `off`:
/// none).
pub const KERNEL_CACHE_VARIABLE: &str = "WARPCHECK_KERNEL_CACHE";

/// Bytes of the hash that ends every cached file.
const TRAILER: usize = 8;

/// Where compiled modules are kept, if anywhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelCache {
    directory: Option<PathBuf>,
}

/// A module's machine code and where it came from.
pub struct CachedBinary {
    /// The CUBIN.
    pub bytes: Vec<u8>,
    /// Whether it was read from the cache (else compiled just now).
    pub from_cache: bool,
}

impl KernelCache {
    /// The cache the environment names (see the module's doc), read once.
    pub fn from_environment() -> &'static KernelCache {
        static CACHE: OnceLock<KernelCache> = OnceLock::new();
        CACHE.get_or_init(|| KernelCache {
            directory: directory_from(
                std::env::var_os(KERNEL_CACHE_VARIABLE),
                std::env::var_os("XDG_CACHE_HOME"),
                std::env::var_os("HOME"),
            ),
        })
    }

    /// A cache in `directory` (created when first written).
    pub fn in_directory(directory: impl Into<PathBuf>) -> KernelCache {
        KernelCache {
            directory: Some(directory.into()),
        }
    }

    /// `build`'s CUBIN for `arch`: from the cache when it holds a sound
    /// copy, else compiled by NVRTC and stored.
    pub fn binary(&self, build: &Build, arch: &str) -> Result<CachedBinary, GpuError> {
        let file = match &self.directory {
            Some(directory) => directory.join(file_name(build, arch)?),
            None => return self.compile(build, arch, None),
        };
        match read_sound(&file) {
            Some(bytes) => Ok(CachedBinary {
                bytes,
                from_cache: true,
            }),
            None => self.compile(build, arch, Some(&file)),
        }
    }

    /// `build`'s CUBIN for `arch`, compiled now and stored at `file` (where
    /// given and writable), replacing what was there.
    pub fn compile(
        &self,
        build: &Build,
        arch: &str,
        file: Option<&Path>,
    ) -> Result<CachedBinary, GpuError> {
        let bytes = build.compile_binary(arch)?;
        if let Some(file) = file
            && let Err(error) = store(file, &bytes)
        {
            tracing::debug!(file = %file.display(), %error, "kernel cache not written");
        }
        Ok(CachedBinary {
            bytes,
            from_cache: false,
        })
    }

    /// The file that holds (or would hold) `build`'s CUBIN for `arch`, if
    /// there is a cache.
    pub fn file_of(&self, build: &Build, arch: &str) -> Result<Option<PathBuf>, GpuError> {
        match &self.directory {
            Some(directory) => Ok(Some(directory.join(file_name(build, arch)?))),
            None => Ok(None),
        }
    }
}

/// The cache's directory from the values of `WARPCHECK_KERNEL_CACHE`,
/// `XDG_CACHE_HOME` and `HOME` (see the module's doc).
fn directory_from(
    variable: Option<OsString>,
    xdg_cache_home: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    let set = |value: &Option<OsString>| value.as_ref().filter(|v| !v.is_empty()).cloned();
    if let Some(value) = &variable {
        return match value.to_str() {
            Some("") | Some("off") => None,
            _ => Some(PathBuf::from(value)),
        };
    }
    if let Some(cache) = set(&xdg_cache_home) {
        return Some(PathBuf::from(cache).join("warpcheck").join("kernels"));
    }
    set(&home).map(|home| PathBuf::from(home).join(".cache/warpcheck/kernels"))
}

/// The file name of `build`'s CUBIN for `arch` under this NVRTC.
fn file_name(build: &Build, arch: &str) -> Result<String, GpuError> {
    let mut hasher = DefaultHasher::new();
    build.cache_key()?.hash(&mut hasher);
    arch.hash(&mut hasher);
    super::compile::nvrtc_version().hash(&mut hasher);
    Ok(format!("{:016x}.cubin", hasher.finish()))
}

/// The hash that ends a cached file of `bytes`.
fn trailer(bytes: &[u8]) -> [u8; TRAILER] {
    let mut hasher = DefaultHasher::new();
    bytes.hash(&mut hasher);
    hasher.finish().to_le_bytes()
}

/// The CUBIN in `file`, if the file exists and ends in the hash of the
/// rest.
fn read_sound(file: &Path) -> Option<Vec<u8>> {
    let mut bytes = std::fs::read(file).ok()?;
    let body = bytes.len().checked_sub(TRAILER)?;
    if bytes[body..] != trailer(&bytes[..body]) || body == 0 {
        return None;
    }
    bytes.truncate(body);
    Some(bytes)
}

/// Writes `bytes` and their hash to `file`, through a temporary file in
/// the same directory that is then renamed over it.
fn store(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let directory = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(directory)?;
    let mut temporary = tempfile_in(directory)?;
    temporary.1.write_all(bytes)?;
    temporary.1.write_all(&trailer(bytes))?;
    temporary.1.sync_all()?;
    drop(temporary.1);
    std::fs::rename(&temporary.0, file).inspect_err(|_| {
        let _ = std::fs::remove_file(&temporary.0);
    })
}

/// A new file in `directory` named after this process and a counter.
fn tempfile_in(directory: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let number = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = directory.join(format!(".{}-{number}.part", std::process::id()));
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    Ok((path, file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::{KernelSource, nvrtc_available};

    /// Whether NVRTC can be loaded; if not, says the test is skipped.
    fn nvrtc_or_skipped() -> bool {
        let available = nvrtc_available();
        if !available {
            crate::testing::skipped_without_nvrtc();
        }
        available
    }

    /// A small module to cache.
    fn build() -> Build {
        Build::new(KernelSource {
            main: crate::kernel_file!("common/scan.cu"),
            headers: &[],
        })
        .check_layout::<crate::gpu::scan::ScanParams>()
    }

    /// The environment's settings choose the directory: the variable
    /// first (empty or `off` turn the cache off), then `XDG_CACHE_HOME`,
    /// then `HOME`; none of them, no cache.
    #[test]
    fn the_directory_comes_from_the_environment() {
        let some = |s: &str| Some(OsString::from(s));
        assert_eq!(
            directory_from(some("/c"), some("/x"), some("/h")),
            Some("/c".into())
        );
        assert_eq!(directory_from(some("off"), some("/x"), some("/h")), None);
        assert_eq!(directory_from(some(""), some("/x"), some("/h")), None);
        assert_eq!(
            directory_from(None, some("/x"), some("/h")),
            Some("/x/warpcheck/kernels".into())
        );
        assert_eq!(
            directory_from(None, some(""), some("/h")),
            Some("/h/.cache/warpcheck/kernels".into())
        );
        assert_eq!(directory_from(None, None, None), None);
    }

    /// A module compiled once is stored and read back: the second call
    /// returns what the file holds (here replaced by other bytes with
    /// their hash, which only a read can return). A damaged file (cut
    /// short, or with the wrong hash) is compiled again and replaced.
    #[test]
    fn a_module_is_read_back_and_a_damaged_one_compiled_again() {
        if !nvrtc_or_skipped() {
            return;
        }
        let directory = tempfile::tempdir().unwrap();
        let cache = KernelCache::in_directory(directory.path().join("kernels"));
        let build = build();
        let first = cache.binary(&build, "sm_90").unwrap();
        assert!(!first.from_cache);
        assert!(first.bytes.starts_with(b"\x7fELF"));
        let file = cache.file_of(&build, "sm_90").unwrap().unwrap();
        assert_eq!(read_sound(&file).as_deref(), Some(&first.bytes[..]));

        store(&file, b"other bytes").unwrap();
        let second = cache.binary(&build, "sm_90").unwrap();
        assert!(second.from_cache);
        assert_eq!(second.bytes, b"other bytes");

        let whole = std::fs::read(&file).unwrap();
        for damaged in [&whole[..whole.len() - 1], &b"short"[..], &[][..]] {
            std::fs::write(&file, damaged).unwrap();
            let again = cache.binary(&build, "sm_90").unwrap();
            assert!(!again.from_cache);
            assert_eq!(again.bytes, first.bytes);
            assert_eq!(read_sound(&file).as_deref(), Some(&first.bytes[..]));
        }
        // Another architecture is another file.
        let other = cache.file_of(&build, "sm_80").unwrap().unwrap();
        assert_ne!(other, file);
        let leftovers: Vec<_> = std::fs::read_dir(file.parent().unwrap())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .filter(|name| name.to_string_lossy().ends_with(".part"))
            .collect();
        assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    }

    /// Where the directory cannot be created, the module is compiled all
    /// the same.
    #[test]
    fn an_unwritable_cache_still_compiles() {
        if !nvrtc_or_skipped() {
            return;
        }
        let directory = tempfile::tempdir().unwrap();
        let blocker = directory.path().join("a file");
        std::fs::write(&blocker, b"").unwrap();
        let cache = KernelCache::in_directory(blocker.join("kernels"));
        let binary = cache.binary(&build(), "sm_90").unwrap();
        assert!(!binary.from_cache);
        assert!(binary.bytes.starts_with(b"\x7fELF"));
    }
}
