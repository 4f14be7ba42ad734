//! Input formats. Each submodule turns one file format into a
//! [`crate::model::Network`] or, for graphs and probabilistic models, into
//! an [`crate::explicit`] structure; none of them knows about engines.
//!
//! Any text input may be gzip-compressed: it is recognised by the gzip
//! magic bytes, whatever its name, and decompressed with a bound on its
//! size (see [`MAX_MODEL_BYTES`] and [`MAX_EXPLICIT_BYTES`]).

pub mod aut;
pub mod exp;
pub mod net;
pub mod pgsolver;
pub mod pnml;
pub mod prism;
pub mod umb;

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Read};
use std::ops::Deref;
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;
use memmap2::Mmap;
use thiserror::Error;

use crate::model::Network;

/// Why a model file could not be loaded. Located errors print as
/// `file:line:column: message`, the form editors and CI logs link to.
#[derive(Debug, Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// File that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// A problem at a known place in a file.
    #[error("{}:{line}:{column}: {message}", path.display())]
    At {
        /// File the problem is in.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What is wrong and, for syntax errors, what was expected.
        message: String,
    },
    /// A problem of the file as a whole.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// File the problem is in.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl LoadError {
    /// A located error at byte `offset` of `text`.
    pub fn at(path: &Path, text: &str, offset: usize, message: impl Into<String>) -> Self {
        let (line, column) = line_column(text, offset);
        LoadError::At {
            path: path.to_path_buf(),
            line,
            column,
            message: message.into(),
        }
    }

    /// A located error at byte `offset` of `bytes`, text that need not be
    /// valid UTF-8 (the column counts characters of the line's valid
    /// prefix, an invalid byte as one).
    pub fn at_bytes(path: &Path, bytes: &[u8], offset: usize, message: impl Into<String>) -> Self {
        let offset = offset.min(bytes.len());
        let before = &bytes[..offset];
        let line = memchr::memchr_iter(b'\n', before).count() + 1;
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        LoadError::At {
            path: path.to_path_buf(),
            line,
            column,
            message: message.into(),
        }
    }

    /// An error about the whole file.
    pub fn invalid(path: &Path, message: impl Into<String>) -> Self {
        LoadError::Invalid {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}

/// 1-based line and column (counted in characters) of byte `offset`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// Most bytes read from one model file, include or standard input (1 GiB):
/// more is refused, so that an endless input (a pipe, `/dev/zero`) cannot
/// exhaust memory.
pub const MAX_MODEL_BYTES: u64 = 1 << 30;

/// Most bytes a graph or probabilistic model file may decompress to
/// (64 GiB), and never more than the memory available when it is read (see
/// [`read_explicit`]): a small compressed file that expands without end (a
/// "zip bomb") must give an error, not exhaust memory. Plain files are
/// mapped, not read, and have no bound.
pub const MAX_EXPLICIT_BYTES: u64 = 64 << 30;

/// The first bytes of every gzip stream.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Whether `bytes` start like a gzip stream.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&GZIP_MAGIC)
}

/// The name errors give a model read from standard input.
pub const STDIN_NAME: &str = "<stdin>";

/// Reads a whole model file as UTF-8 text, decompressing it when it is
/// gzip data. Directories, character and block devices are refused before
/// reading, and more than [`MAX_MODEL_BYTES`] is never read nor
/// decompressed (a pipe is read up to the limit); these and read failures
/// are [`LoadError::Io`]. Invalid UTF-8 is a located error at its first
/// byte.
pub fn read_file(path: &Path) -> Result<String, LoadError> {
    let (file, _) = open_model(path)?;
    read_text(file, path, MAX_MODEL_BYTES)
}

/// Opens a model file with its metadata; directories and character or
/// block devices are refused first, as [`LoadError::Io`].
fn open_model(path: &Path) -> Result<(File, std::fs::Metadata), LoadError> {
    let io_error = |source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(io_error)?;
    if let Some(kind) = unreadable_kind(&metadata.file_type()) {
        return Err(io_error(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("is {kind}, not a model file"),
        )));
    }
    let file = File::open(path).map_err(io_error)?;
    Ok((file, metadata))
}

/// What a file of type `file_type` is, when a model cannot be read from it.
fn unreadable_kind(file_type: &std::fs::FileType) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_char_device() {
            return Some("a character device");
        }
        if file_type.is_block_device() {
            return Some("a block device");
        }
    }
    file_type.is_dir().then_some("a directory")
}

/// Reads `reader` to its end as UTF-8 text of at most `limit` bytes, read
/// and (for gzip data) decompressed; `path` names it in errors.
fn read_text(reader: impl Read, path: &Path, limit: u64) -> Result<String, LoadError> {
    let io_error = |source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut bytes = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() as u64 > limit {
        return Err(io_error(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("larger than {limit} bytes, the most read from one model file"),
        )));
    }
    if is_gzip(&bytes) {
        bytes = gunzip(&bytes[..], path, limit, 0)?;
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let prefix = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
        LoadError::at(
            path,
            prefix,
            valid,
            format!("invalid UTF-8 (byte 0x{:02X})", bytes[valid]),
        )
    })
}

/// Decompresses the gzip stream `compressed` (one or more members, as
/// `gzip` writes them), refusing more than `limit` bytes of output;
/// `capacity` is a guess of the output size to reserve (clamped to
/// `limit`). `path` names the file in errors.
pub fn gunzip(
    compressed: impl Read,
    path: &Path,
    limit: u64,
    capacity: u64,
) -> Result<Vec<u8>, LoadError> {
    let mut bytes = Vec::new();
    // A guess only: a failed reservation just leaves the vector to grow.
    let _ = bytes.try_reserve(capacity.min(limit) as usize);
    MultiGzDecoder::new(compressed)
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| LoadError::invalid(path, format!("corrupt or truncated gzip data: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(LoadError::Io {
            path: path.to_path_buf(),
            source: io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!("decompresses to more than {limit} bytes, the most read from one file"),
            ),
        });
    }
    Ok(bytes)
}

/// The bytes of a graph or probabilistic model file: a plain file mapped
/// into memory (read lazily by the page cache, never copied), or what a
/// compressed file or a pipe gave.
#[derive(Debug)]
pub enum InputBytes {
    /// A plain file, mapped read-only.
    Mapped(Mmap),
    /// Decompressed or read content.
    Owned(Vec<u8>),
}

impl Deref for InputBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            InputBytes::Mapped(map) => map,
            InputBytes::Owned(bytes) => bytes,
        }
    }
}

/// Reads a graph or probabilistic model file as bytes, for readers that
/// scan bytes themselves (and in parallel): the bytes of [`read_raw`], and
/// for gzip data (known by its magic bytes) what they decompress to, at
/// most [`explicit_limit`] bytes.
pub fn read_explicit(path: &Path) -> Result<InputBytes, LoadError> {
    let raw = read_raw(path)?;
    if !is_gzip(&raw) {
        return Ok(raw);
    }
    // The gzip trailer holds the input size modulo 2^32: a guess only.
    let size_hint = raw
        .len()
        .checked_sub(4)
        .and_then(|at| raw.get(at..))
        .and_then(|tail| tail.try_into().ok())
        .map_or(0, |tail: [u8; 4]| u32::from_le_bytes(tail) as u64);
    gunzip(&raw[..], path, explicit_limit(), size_hint).map(InputBytes::Owned)
}

/// The bytes of a file as they are stored: a plain regular file is mapped;
/// anything else that is readable (a pipe) is read to its end, at most
/// [`explicit_limit`] bytes. Directories and devices are refused as
/// [`read_file`] refuses them.
pub fn read_raw(path: &Path) -> Result<InputBytes, LoadError> {
    let io_error = |source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let (mut file, metadata) = open_model(path)?;
    if metadata.is_file() && metadata.len() > 0 {
        // SAFETY: the map is read-only and private to this process; if the
        // file is changed by another process while it is mapped, the
        // readers see other bytes but never read outside the mapping,
        // whose length is fixed here. Truncating a mapped file is the
        // user's error (as with every tool that maps its input).
        let map = unsafe { Mmap::map(&file) }.map_err(io_error)?;
        return Ok(InputBytes::Mapped(map));
    }
    let limit = explicit_limit();
    let mut bytes = Vec::new();
    (&mut file)
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() as u64 > limit {
        return Err(io_error(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("larger than {limit} bytes, the most read from one file"),
        )));
    }
    Ok(InputBytes::Owned(bytes))
}

/// The most bytes a graph or probabilistic model may decompress to here:
/// [`MAX_EXPLICIT_BYTES`], or the memory the system reports available
/// (`MemAvailable` in `/proc/meminfo`) when that is less.
pub fn explicit_limit() -> u64 {
    crate::system::available_memory()
        .map_or(MAX_EXPLICIT_BYTES, |bytes| bytes.min(MAX_EXPLICIT_BYTES))
}

/// `base`, or else the first of `base#2`, `base#3`, ... that is not in
/// `taken`; `taken` then holds it. The readers name things that would
/// otherwise share a name with this, so that a made-up name can never be
/// one a file uses.
pub(crate) fn fresh_name(base: String, taken: &mut HashSet<String>) -> String {
    let mut name = base.clone();
    let mut suffix = 1;
    while !taken.insert(name.clone()) {
        suffix += 1;
        name = format!("{base}#{suffix}");
    }
    name
}

/// The input formats warpcheck reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Native `.net` networks.
    Net,
    /// Aldebaran `.aut`: a single LTS, explored as a one-process network.
    Aut,
    /// CADP EXP networks (a subset).
    Exp,
    /// Petri nets (place/transition nets) in PNML.
    Pnml,
}

impl Format {
    /// Every format, in the order messages list them.
    pub const ALL: [Format; 4] = [Format::Net, Format::Aut, Format::Exp, Format::Pnml];

    /// The format's usual name, also its main file extension: `net`,
    /// `aut`, `exp` or `pnml`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Net => "net",
            Format::Aut => "aut",
            Format::Exp => "exp",
            Format::Pnml => "pnml",
        }
    }

    /// The format a file name's extension names, in any case, after a
    /// `.gz` suffix is taken off (`model.aut.gz` is an `.aut` file).
    pub fn from_path(path: &Path) -> Option<Format> {
        match extension_without_gz(path)?.as_str() {
            "net" => Some(Format::Net),
            "aut" => Some(Format::Aut),
            "exp" => Some(Format::Exp),
            "pnml" | "xml" => Some(Format::Pnml),
            _ => None,
        }
    }
}

/// The files of explicit Markov models, read whole rather than explored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExplicitFormat {
    /// PRISM explicit transitions (`.tra`), with `.lab`, `.srew` and
    /// `.trew` files beside them.
    Tra,
    /// A UMB archive (`.umb`), which holds its labels and rewards.
    Umb,
}

impl ExplicitFormat {
    /// The format a file name's extension names, in any case, after a
    /// `.gz` suffix is taken off (as [`Format::from_path`]).
    pub fn from_path(path: &Path) -> Option<ExplicitFormat> {
        match extension_without_gz(path)?.as_str() {
            "tra" => Some(ExplicitFormat::Tra),
            "umb" => Some(ExplicitFormat::Umb),
            _ => None,
        }
    }
}

/// The extension of `path`'s file name in lower case, after a `.gz`
/// suffix (in any case) is taken off.
fn extension_without_gz(path: &Path) -> Option<String> {
    let name = without_suffix(path.file_name()?.to_str()?, ".gz");
    Some(Path::new(name).extension()?.to_str()?.to_ascii_lowercase())
}

/// `name` without `suffix` at its end, in any case (`M.TRA` without
/// `.tra` is `M`); `name` itself where it does not end so.
pub(crate) fn without_suffix<'a>(name: &'a str, suffix: &str) -> &'a str {
    let cut = name.len().saturating_sub(suffix.len());
    match name.get(cut..) {
        Some(tail) if tail.eq_ignore_ascii_case(suffix) => &name[..cut],
        _ => name,
    }
}

/// Loads a model file in the format its extension names
/// (`load_as(path, None)`).
pub fn load(path: &Path) -> Result<Network, LoadError> {
    load_as(path, None)
}

/// Loads a model in `format`, or without one in the format the extension
/// of `path` names, with the default [`pnml::Options`]
/// (`load_with(path, format, pnml::Options::default())`).
pub fn load_as(path: &Path, format: Option<Format>) -> Result<Network, LoadError> {
    load_with(path, format, pnml::Options::default())
}

/// Loads a model in `format`, or without one in the format the extension
/// of `path` names; a PNML net is read as `options` say, which must be the
/// default for other formats. `path` `-` is standard input: it needs
/// `format`, errors name it [`STDIN_NAME`], and the files it includes are
/// found relative to the current directory.
pub fn load_with(
    path: &Path,
    format: Option<Format>,
    options: pnml::Options,
) -> Result<Network, LoadError> {
    let from_stdin = path == Path::new("-");
    let name = if from_stdin {
        Path::new(STDIN_NAME)
    } else {
        path
    };
    let format = match format {
        Some(format) => format,
        None if from_stdin => {
            return Err(LoadError::invalid(
                name,
                format!(
                    "a model read from standard input needs its format given: one of {}",
                    Format::ALL.map(Format::name).join(", ")
                ),
            ));
        }
        None => Format::from_path(path).ok_or_else(|| {
            LoadError::invalid(
                path,
                "unknown model format: expected a file ending in .net, .aut, .exp or .pnml",
            )
        })?,
    };
    if format != Format::Pnml && options != pnml::Options::default() {
        return Err(LoadError::invalid(
            name,
            "--place-bound applies to Petri nets (PNML) only",
        ));
    }
    let text = if from_stdin {
        read_text(io::stdin().lock(), name, MAX_MODEL_BYTES)?
    } else {
        read_file(path)?
    };
    let mut network = match format {
        Format::Net => net::parse(&text, name)?,
        Format::Aut => aut::parse_network(&text, name)?,
        Format::Exp => exp::parse(&text, name)?,
        Format::Pnml => pnml::parse_with(&text, name, options)?,
    };
    network
        .validate()
        .map_err(|e| LoadError::invalid(name, e.to_string()))?;
    Ok(network)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_input_stops_at_the_limit() {
        let error = read_text(io::repeat(b'a'), Path::new("endless"), 1000).unwrap_err();
        assert_eq!(
            error.to_string(),
            "endless: larger than 1000 bytes, the most read from one model file"
        );
        let text = read_text(&b"abc"[..], Path::new("short"), 3).unwrap();
        assert_eq!(text, "abc");
    }

    #[test]
    fn gzip_input_is_decompressed_within_the_limit() {
        use flate2::{Compression, write::GzEncoder};
        use std::io::Write;
        let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
        encoder.write_all(&[b'a'; 5000]).unwrap();
        let compressed = encoder.finish().unwrap();
        let text = read_text(&compressed[..], Path::new("z.gz"), 5000).unwrap();
        assert_eq!(text.len(), 5000);
        let bomb = read_text(&compressed[..], Path::new("z.gz"), 4999).unwrap_err();
        assert_eq!(
            bomb.to_string(),
            "z.gz: decompresses to more than 4999 bytes, the most read from one file"
        );
        let truncated = gunzip(
            &compressed[..compressed.len() - 5],
            Path::new("z.gz"),
            9999,
            0,
        );
        assert_eq!(
            truncated.unwrap_err().to_string(),
            "z.gz: corrupt or truncated gzip data: unexpected end of file"
        );
    }

    #[test]
    fn formats_come_from_the_name_without_gz() {
        assert_eq!(
            Format::from_path(Path::new("a/b.AUT.gz")),
            Some(Format::Aut)
        );
        assert_eq!(Format::from_path(Path::new("b.net.gz")), Some(Format::Net));
        assert_eq!(Format::from_path(Path::new("b.gz")), None);
        assert_eq!(Format::from_path(Path::new("b.pnml")), Some(Format::Pnml));
        assert_eq!(Format::from_path(Path::new("b.tra")), None);
        assert_eq!(
            ExplicitFormat::from_path(Path::new("a/B.TRA.GZ")),
            Some(ExplicitFormat::Tra)
        );
        assert_eq!(
            ExplicitFormat::from_path(Path::new("b.umb.gz")),
            Some(ExplicitFormat::Umb)
        );
        assert_eq!(ExplicitFormat::from_path(Path::new("umb")), None);
        assert_eq!(ExplicitFormat::from_path(Path::new("b.aut")), None);
    }

    #[test]
    fn byte_locations_count_lines_and_characters() {
        let error = LoadError::at_bytes(Path::new("f"), b"ab\nc\xc3\xa9\xffx", 6, "m");
        assert_eq!(error.to_string(), "f:2:3: m");
        let bytes = b"a\n\xff\xfeb";
        assert_eq!(
            LoadError::at_bytes(Path::new("f"), bytes, 4, "m").to_string(),
            "f:2:3: m"
        );
    }

    #[test]
    fn line_column_counts_from_one() {
        let text = "ab\ncdé\nf";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 3), (2, 1));
        assert_eq!(line_column(text, text.find('f').unwrap()), (3, 1));
        assert_eq!(line_column(text, text.find('é').unwrap() + 2), (2, 4));
    }
}
