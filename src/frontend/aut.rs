//! Aldebaran `.aut`: the plain-text LTS format of CADP, mCRL2 and LTSmin.
//!
//! A file is a header `des (INITIAL, TRANSITIONS, STATES)` followed by one
//! transition `(SOURCE, LABEL, TARGET)` per line. States are the numbers
//! `0..STATES`; labels are quoted (`"a !1"`) or bare (`a`). The internal
//! action, written `i` by CADP and `tau` by mCRL2, is read as
//! [`INTERNAL_ACTION`] (`tau`) whichever spelling the file uses.
//!
//! The reader works line by line on slices of the input, without copying
//! lines, and interns labels through a hash map, so that files of millions
//! of transitions load quickly (measured in docs/FORMAT.md, "Loading
//! speed"). What it allocates follows what the file holds, never the
//! header's counts: the LTS has the states the file uses (see
//! [`parse_lts`]).
//!
//! Every writer quotes labels with [`quote_label`], which holds the one
//! rule of how labels are written.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use hashbrown::HashMap;
use nom::bytes::complete::tag;
use nom::character::complete::{digit1, space0};
use nom::sequence::preceded;
use nom::{IResult, Parser};
use thiserror::Error;

use rayon::prelude::*;

use flate2::read::MultiGzDecoder;

use super::{LoadError, explicit_limit, is_gzip, read_explicit, read_file};
use crate::explicit::{
    Csr, Edge, GraphSink, LabelledGraph, MAX_STATES as GRAPH_MAX_STATES, SinkError,
};
use crate::model::{Lts, LtsTransition, Network, Process, UnmatchedLabels};
use crate::system::available_memory;

/// The one spelling of the internal action: `.aut` labels `i` and `tau`
/// (quoted or not) are both read as this label.
pub const INTERNAL_ACTION: &str = "tau";

/// Most states an `.aut` file may declare: local states are numbered in
/// 31 bits by the encoding (and in `u32` by [`Lts`]).
pub const MAX_STATES: u64 = (1 << 31) - 1;

/// Reads an `.aut` file into an [`Lts`] whose state names are the numbers.
pub fn load_lts(path: &Path) -> Result<Lts, LoadError> {
    parse_lts(&read_file(path)?, path)
}

/// Reads an `.aut` file as a network of one process, named after the file
/// stem, whose labels all fire alone.
pub fn load_network(path: &Path) -> Result<Network, LoadError> {
    parse_network(&read_file(path)?, path)
}

/// Parses `.aut` text as a network of one process, named after the stem of
/// `path` (`model` for `model.aut` and `model.aut.gz`; `path` also names
/// the file in errors), whose labels all fire alone.
pub fn parse_network(text: &str, path: &Path) -> Result<Network, LoadError> {
    let lts = parse_lts(text, path)?;
    let name = path.file_name().map_or_else(
        || "aut".to_string(),
        |name| {
            let name = name.to_string_lossy();
            let name = name.strip_suffix(".gz").unwrap_or(&name);
            Path::new(name)
                .file_stem()
                .map_or_else(|| name.to_string(), |s| s.to_string_lossy().into_owned())
        },
    );
    Ok(Network {
        processes: vec![Process {
            name,
            lts,
            error_states: Vec::new(),
        }],
        rules: Vec::new(),
        unmatched: UnmatchedLabels::Independent,
        monitors: Vec::new(),
    })
}

/// Parses `.aut` text; `path` is only used in error messages. Checks the
/// header's counts against the body and every state number against the
/// state count.
///
/// The LTS's states are those the text uses: the initial state and the
/// ends of the transitions, in increasing order of their numbers, each
/// named by its number. States the header declares beyond those have no
/// transition and cannot be reached; they are not stored, so that a header
/// declaring billions of states costs nothing. When the text uses every
/// number below the header's count, state `n` is the LTS's state `n`.
pub fn parse_lts(text: &str, path: &Path) -> Result<Lts, LoadError> {
    let error = |offset: usize, message: String| LoadError::at(path, text, offset, message);
    let mut lines = Lines::new(text);
    let Some((header_at, header_line)) = lines.next_nonblank() else {
        return Err(error(0, HEADER_EXPECTED.to_string()));
    };
    let header = parse_header(header_line).map_err(|(at, m)| error(header_at + at, m))?;
    if header.states > MAX_STATES {
        return Err(error(
            header_at,
            format!(
                "the header declares {} states; a process can have at most {MAX_STATES}",
                header.states
            ),
        ));
    }

    let mut labels: Vec<String> = Vec::new();
    let mut label_ids: HashMap<&str, u32> = HashMap::new();
    // A transition line takes at least 8 bytes (`(0,a,1)` and its line end).
    let capacity = header.transitions.min(text.len() as u64 / 8);
    let mut transitions = Vec::with_capacity(capacity as usize);
    let check_state = |number: u64, at: usize, what: &str| -> Result<u32, LoadError> {
        if number < header.states {
            Ok(number as u32)
        } else {
            Err(error(
                at,
                format!(
                    "{what} state {number} is out of range: the header declares {} states (0 to {})",
                    header.states,
                    header.states.saturating_sub(1)
                ),
            ))
        }
    };
    let initial = check_state(header.initial, header_at + header.initial_at, "initial")?;

    while let Some((line_at, line)) = lines.next_nonblank() {
        let parsed = parse_transition(line).map_err(|(at, m)| error(line_at + at, m))?;
        let source = check_state(parsed.source, line_at + parsed.source_at, "source")?;
        let target = check_state(parsed.target, line_at + parsed.target_at, "target")?;
        let spelled = match parsed.label {
            "i" | "tau" => INTERNAL_ACTION,
            other => other,
        };
        let label = *label_ids.entry(spelled).or_insert_with(|| {
            labels.push(spelled.to_string());
            (labels.len() - 1) as u32
        });
        if transitions.len() as u64 == header.transitions {
            return Err(error(
                line_at,
                format!(
                    "more transitions than the {} the header declares",
                    header.transitions
                ),
            ));
        }
        transitions.push(LtsTransition {
            source,
            label,
            target,
        });
    }
    if (transitions.len() as u64) < header.transitions {
        return Err(error(
            text.len(),
            format!(
                "the header declares {} transitions but the file has {}",
                header.transitions,
                transitions.len()
            ),
        ));
    }
    let used = used_states(initial, &transitions);
    let dense = used.len() == used.last().map_or(0, |&last| last as usize + 1);
    let number = |state: u32| used.binary_search(&state).unwrap_or_default() as u32;
    if !dense {
        for t in &mut transitions {
            t.source = number(t.source);
            t.target = number(t.target);
        }
    }
    Ok(Lts {
        initial: number(initial),
        state_names: used.iter().map(u32::to_string).collect(),
        labels,
        transitions,
    })
}

/// The state numbers used by the initial state and the transitions, in
/// increasing order, found in time and memory linear in the transitions:
/// marked in a table when the largest number is no larger than twice their
/// count (the usual, dense case), sorted otherwise.
fn used_states(initial: u32, transitions: &[LtsTransition]) -> Vec<u32> {
    let ends =
        || std::iter::once(initial).chain(transitions.iter().flat_map(|t| [t.source, t.target]));
    let largest = ends().max().unwrap_or(initial) as usize;
    if largest <= 2 * transitions.len() {
        let mut seen = vec![false; largest + 1];
        for state in ends() {
            seen[state as usize] = true;
        }
        (0..=largest as u32).filter(|&s| seen[s as usize]).collect()
    } else {
        let mut used: Vec<u32> = ends().collect();
        used.sort_unstable();
        used.dedup();
        used
    }
}

/// Renders an [`Lts`] as `.aut` text (labels quoted by [`quote_label`],
/// states by number), or says which label cannot be written.
pub fn write_lts(lts: &Lts) -> Result<String, UnwritableLabel> {
    let labels = lts
        .labels
        .iter()
        .map(|l| quote_label(l))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = String::with_capacity(32 + lts.transitions.len() * 16);
    // Writing into a String cannot fail.
    let _ = writeln!(
        out,
        "des ({}, {}, {})",
        lts.initial,
        lts.transitions.len(),
        lts.state_names.len()
    );
    for t in &lts.transitions {
        let _ = writeln!(
            out,
            "({}, {}, {})",
            t.source, labels[t.label as usize], t.target
        );
    }
    Ok(out)
}

/// A label that an `.aut` file cannot hold (see [`quote_label`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "label {label:?} cannot be written to an .aut file: it contains the control character U+{:04X}",
    u32::from(*character)
)]
pub struct UnwritableLabel {
    /// The label.
    pub label: String,
    /// Its first control character.
    pub character: char,
}

impl From<UnwritableLabel> for io::Error {
    fn from(error: UnwritableLabel) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, error)
    }
}

/// A label as every `.aut` writer of warpcheck writes it, the one rule
/// shared with the reader: in double quotes, nothing escaped, as CADP
/// writes labels. The reader takes a quoted label up to the last quote
/// before the line's last comma, so quotes, backslashes and commas inside
/// read back as they were. A label holding a control character (a line
/// break above all, which would end the line) cannot be written: that is
/// an error, never a broken file. (`i` and `tau` are written as they are
/// and read back as the internal action [`INTERNAL_ACTION`].)
pub fn quote_label(label: &str) -> Result<String, UnwritableLabel> {
    match label.chars().find(|c| c.is_control()) {
        Some(character) => Err(UnwritableLabel {
            label: label.to_string(),
            character,
        }),
        None => Ok(format!("\"{label}\"")),
    }
}

/// A [`GraphSink`] that writes a state space as an `.aut` file. The header
/// needs the counts, known only at the end, so the transitions go to a
/// scratch file beside the output first; the output is written only when
/// the graph is finished, so that an unfinished search leaves no file
/// that could be read as a whole state space.
pub struct AutWriter {
    path: PathBuf,
    /// Quoted labels by action id.
    labels: Vec<String>,
    scratch: BufWriter<File>,
}

impl AutWriter {
    /// A writer of `path` for a network whose action `i` is `actions[i]`;
    /// fails, writing nothing, when an action cannot be written (see
    /// [`quote_label`]).
    pub fn create(path: &Path, actions: &[String]) -> Result<AutWriter, SinkError> {
        let labels = actions
            .iter()
            .map(|a| quote_label(a))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| write_error(path, e.into()))?;
        let scratch = scratch_beside(path).map_err(|source| write_error(path, source))?;
        Ok(AutWriter {
            path: path.to_path_buf(),
            labels,
            scratch: BufWriter::new(scratch),
        })
    }

    /// Writes the output: the header, then the transitions of the scratch file.
    fn write_output(&mut self, states: u64, transitions: u64) -> io::Result<()> {
        self.scratch.flush()?;
        let scratch = self.scratch.get_mut();
        scratch.seek(SeekFrom::Start(0))?;
        let mut out = BufWriter::new(File::create(&self.path)?);
        writeln!(out, "des (0, {transitions}, {states})")?;
        let mut buffer = vec![0u8; 1 << 20];
        loop {
            let n = scratch.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            out.write_all(&buffer[..n])?;
        }
        out.flush()
    }
}

impl GraphSink for AutWriter {
    fn edges(&mut self, batch: &[Edge]) -> Result<(), SinkError> {
        batch
            .iter()
            .try_for_each(|&(source, action, target)| {
                writeln!(
                    self.scratch,
                    "({source}, {}, {target})",
                    self.labels[action as usize]
                )
            })
            .map_err(|source| write_error(&self.path, source))
    }

    fn finish(&mut self, states: u64, transitions: u64) -> Result<(), SinkError> {
        self.write_output(states, transitions).map_err(|source| {
            // The output may hold part of the graph: remove it, whether or
            // not it was created.
            let _ = std::fs::remove_file(&self.path);
            write_error(&self.path, source)
        })
    }
}

/// A failure to write `path`.
fn write_error(path: &Path, source: io::Error) -> SinkError {
    SinkError::Write {
        path: path.display().to_string(),
        source,
    }
}

/// An anonymous scratch file in the directory of `path` (same file system,
/// so the space it needs is where the user asked the output to go).
fn scratch_beside(path: &Path) -> io::Result<File> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let scratch = dir.join(format!(
        ".{}.edges.{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("out"),
        std::process::id()
    ));
    let file = File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&scratch)?;
    std::fs::remove_file(&scratch)?;
    Ok(file)
}

/// Reads an `.aut` file, plain or gzip-compressed, as a whole directed
/// graph for SCC and MEC decomposition: all the states the header declares
/// (also those without a transition, unlike [`parse_lts`]), the
/// transitions grouped by source in the order of the file, and the labels
/// numbered in the order they first appear (`i` and `tau` read as
/// [`INTERNAL_ACTION`]). A plain file is mapped and scanned in parallel
/// chunks; a gzip file (known by its magic bytes) is decompressed in
/// blocks of whole lines, each scanned in parallel while the next is
/// decompressed, so that its text is never held whole; at most
/// [`super::explicit_limit`] bytes are decompressed.
pub fn load_graph(path: &Path) -> Result<LabelledGraph, LoadError> {
    let io_error = |source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut start = [0u8; 2];
    let gzip = File::open(path)
        .and_then(|mut file| file.read(&mut start).map(|n| is_gzip(&start[..n])))
        .map_err(io_error)?;
    if !gzip || !std::fs::metadata(path).map_err(io_error)?.is_file() {
        return parse_graph(&read_explicit(path)?, path);
    }
    let file = File::open(path).map_err(io_error)?;
    let decoder = MultiGzDecoder::new(io::BufReader::with_capacity(1 << 20, file));
    parse_graph_blocks(decoder, path, GRAPH_BLOCK_BYTES, explicit_limit())
}

/// Bytes of decompressed text scanned at a time by [`load_graph`].
const GRAPH_BLOCK_BYTES: usize = 64 << 20;

/// Parses `.aut` bytes as a whole graph (see [`load_graph`]); `path` names
/// the file in errors, which are located (`file:line:column`) where a
/// line is at fault. Lines are scanned as bytes, in chunks parsed in
/// parallel, without an allocation per line (speed: see the `load_speed`
/// measurement in `tests/it/explicit_inputs.rs`).
pub fn parse_graph(bytes: &[u8], path: &Path) -> Result<LabelledGraph, LoadError> {
    let mut parser = GraphParser::new(path);
    parser.feed(bytes, 1)?;
    parser.finish(bytes, 1)
}

/// Parses the `.aut` text that `reader` gives as a whole graph, in blocks
/// of about `block` bytes that end at line ends, decompressing the next
/// block on another thread while one is scanned; more than `limit` bytes
/// of text is an error.
fn parse_graph_blocks(
    reader: impl Read + Send,
    path: &Path,
    block: usize,
    limit: u64,
) -> Result<LabelledGraph, LoadError> {
    let read_error =
        |e: io::Error| LoadError::invalid(path, format!("corrupt or truncated gzip data: {e}"));
    let mut parser = GraphParser::new(path);
    let (sender, receiver) = std::sync::mpsc::sync_channel::<io::Result<Vec<u8>>>(1);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut reader = reader.take(limit.saturating_add(1));
            let mut carry: Vec<u8> = Vec::new();
            loop {
                let mut text = std::mem::take(&mut carry);
                let result = fill_block(&mut reader, &mut text, block, &mut carry);
                let done = !matches!(result, Ok(true));
                let sent = match result {
                    Ok(_) if text.is_empty() => Ok(()),
                    Ok(_) => sender.send(Ok(text)),
                    Err(e) => sender.send(Err(e)),
                };
                if done || sent.is_err() {
                    return;
                }
            }
        });
        // The line the next block starts on, and the last block, kept for
        // the location of the end of the text.
        let mut first_line = 1u64;
        let mut total = 0u64;
        let mut last: Vec<u8> = Vec::new();
        for text in receiver {
            let text = text.map_err(read_error)?;
            total += text.len() as u64;
            if total > limit {
                return Err(LoadError::Io {
                    path: path.to_path_buf(),
                    source: io::Error::new(
                        io::ErrorKind::FileTooLarge,
                        format!(
                            "decompresses to more than {limit} bytes, the most read from one file"
                        ),
                    ),
                });
            }
            parser.feed(&text, first_line)?;
            first_line += memchr::memchr_iter(b'\n', &text).count() as u64;
            last = text;
        }
        let last_line = first_line - memchr::memchr_iter(b'\n', &last).count() as u64;
        parser.finish(&last, last_line)
    })
}

/// Reads from `reader` into `text` until it holds at least `block` bytes
/// and a line end, or the input ends; moves what follows the last line end
/// into `carry`. `Ok(true)` while there may be more input.
fn fill_block(
    reader: &mut impl Read,
    text: &mut Vec<u8>,
    block: usize,
    carry: &mut Vec<u8>,
) -> io::Result<bool> {
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(false);
        }
        text.extend_from_slice(&buffer[..n]);
        if text.len() >= block
            && let Some(end) = memchr::memrchr(b'\n', text)
        {
            carry.extend_from_slice(&text[end + 1..]);
            text.truncate(end + 1);
            return Ok(true);
        }
    }
}

/// A located error at byte `offset` of `block`, whose first line is line
/// `first_line` of the file `path`.
fn located(
    path: &Path,
    block: &[u8],
    first_line: u64,
    offset: usize,
    message: String,
) -> LoadError {
    match LoadError::at_bytes(path, block, offset, message) {
        LoadError::At {
            path,
            line,
            column,
            message,
        } => LoadError::At {
            path,
            line: line + first_line as usize - 1,
            column,
            message,
        },
        other => other,
    }
}

/// The state of a graph being read block by block: the header once seen,
/// the label table, and the transitions so far in file order.
struct GraphParser<'p> {
    path: &'p Path,
    header: Option<Header>,
    /// Where the header is, for messages about the whole graph: the block
    /// line and column.
    header_at: Option<(usize, usize)>,
    actions: Vec<String>,
    action_ids: HashMap<String, u32>,
    sources: Vec<u32>,
    targets: Vec<u32>,
    labels: Vec<u32>,
}

impl<'p> GraphParser<'p> {
    fn new(path: &'p Path) -> Self {
        GraphParser {
            path,
            header: None,
            header_at: None,
            actions: Vec::new(),
            action_ids: HashMap::new(),
            sources: Vec::new(),
            targets: Vec::new(),
            labels: Vec::new(),
        }
    }

    /// Reads the header, if not yet seen, and the transitions of `block`,
    /// text that ends at a line end (or at the end of the input) and
    /// starts on line `first_line`.
    fn feed(&mut self, block: &[u8], first_line: u64) -> Result<(), LoadError> {
        let path = self.path;
        let error =
            |offset: usize, message: String| located(path, block, first_line, offset, message);
        let mut body = 0;
        let header = match self.header {
            Some(header) => header,
            None => {
                let Some((header_at, header_end)) = next_nonblank_line(block, 0, block.len())
                else {
                    return Ok(());
                };
                let header_bytes = &block[header_at..header_end];
                let header_line = std::str::from_utf8(header_bytes).map_err(|e| {
                    let valid = e.valid_up_to();
                    error(header_at + valid, invalid_utf8(header_bytes, valid))
                })?;
                let header =
                    parse_header(header_line).map_err(|(at, m)| error(header_at + at, m))?;
                if header.states > GRAPH_MAX_STATES {
                    return Err(error(
                        header_at,
                        format!(
                            "the header declares {} states; a graph can have at most {GRAPH_MAX_STATES}",
                            header.states
                        ),
                    ));
                }
                if header.initial >= header.states {
                    return Err(error(
                        header_at + header.initial_at,
                        out_of_range("initial", header.initial, header.states),
                    ));
                }
                if let LoadError::At { line, column, .. } = error(header_at, String::new()) {
                    self.header_at = Some((line, column));
                }
                body = (header_end + 1).min(block.len());
                self.header = Some(header);
                header
            }
        };
        let states = header.states as u32;
        let chunks: Vec<Result<GraphChunk<'_>, ChunkError>> = split_at_lines(block, body)
            .into_par_iter()
            .map(|(start, end)| parse_graph_chunk(block, start, end, states))
            .collect();
        // The first fault in file order; a count beyond the header's before
        // it is reported first, as a reader going line by line would.
        let before = self.sources.len() as u64;
        let mut seen = before;
        let mut parsed = Vec::with_capacity(chunks.len());
        for chunk in chunks {
            match chunk {
                Ok(chunk) => {
                    seen += chunk.sources.len() as u64;
                    parsed.push(chunk);
                }
                Err(fault) if seen + fault.edges_before > header.transitions => {
                    seen += fault.edges_before;
                    break;
                }
                Err(fault) => return Err(error(fault.offset, fault.message)),
            }
        }
        if seen > header.transitions {
            let at =
                nth_nonblank_line(block, body, header.transitions - before).unwrap_or(block.len());
            return Err(error(
                at,
                format!(
                    "more transitions than the {} the header declares",
                    header.transitions
                ),
            ));
        }
        let added = (seen - before) as usize;
        let no_memory = || error(0, memory_message(header.states, seen));
        for array in [&mut self.sources, &mut self.targets, &mut self.labels] {
            array.try_reserve(added).map_err(|_| no_memory())?;
        }
        for chunk in parsed {
            let table: Vec<u32> = chunk
                .names
                .iter()
                .map(|&name| match self.action_ids.get(name) {
                    Some(&id) => id,
                    None => {
                        let id = self.actions.len() as u32;
                        self.actions.push(name.to_string());
                        self.action_ids.insert(name.to_string(), id);
                        id
                    }
                })
                .collect();
            self.sources.extend_from_slice(&chunk.sources);
            self.targets.extend_from_slice(&chunk.targets);
            self.labels
                .extend(chunk.labels.iter().map(|&l| table[l as usize]));
        }
        Ok(())
    }

    /// Checks the count of transitions and groups them by source; `last`
    /// is the last block fed, starting on line `first_line`, for the
    /// location of the end of the text.
    fn finish(self, last: &[u8], first_line: u64) -> Result<LabelledGraph, LoadError> {
        let path = self.path;
        let error =
            |offset: usize, message: String| located(path, last, first_line, offset, message);
        let Some(header) = self.header else {
            return Err(error(0, HEADER_EXPECTED.to_string()));
        };
        let total = self.sources.len() as u64;
        if total < header.transitions {
            return Err(error(
                last.len(),
                format!(
                    "the header declares {} transitions but the file has {total}",
                    header.transitions
                ),
            ));
        }
        let memory_error = || {
            let (line, column) = self.header_at.unwrap_or((1, 1));
            LoadError::At {
                path: self.path.to_path_buf(),
                line,
                column,
                message: memory_message(header.states, total),
            }
        };
        // Offsets and a cursor a state, targets and labels placed again an
        // edge (group_by_source); allocations beyond the memory available
        // would be granted and then killed when filled.
        let grouping_bytes = header.states.saturating_mul(16).saturating_add(total * 8);
        if available_memory().is_some_and(|available| grouping_bytes > available) {
            return Err(memory_error());
        }
        let grouped = group_by_source(
            header.states as u32,
            &self.sources,
            self.targets,
            self.labels,
        );
        let (edges, labels) = grouped.ok_or_else(memory_error)?;
        Ok(LabelledGraph {
            edges,
            labels,
            actions: self.actions,
            initial: header.initial as u32,
        })
    }
}

/// The message for a graph whose arrays cannot be allocated.
fn memory_message(states: u64, transitions: u64) -> String {
    format!("not enough memory for a graph of {states} states and {transitions} transitions")
}

/// The message for a state number at or beyond the header's count.
fn out_of_range(what: &str, number: u64, states: u64) -> String {
    format!(
        "{what} state {number} is out of range: the header declares {states} states (0 to {})",
        states.saturating_sub(1)
    )
}

/// The message for invalid UTF-8 at byte `valid` of `bytes`.
fn invalid_utf8(bytes: &[u8], valid: usize) -> String {
    format!("invalid UTF-8 (byte 0x{:02X})", bytes[valid])
}

/// The transitions of one chunk of lines, as parallel arrays; labels are
/// numbered locally, `names[label]` being the label's text.
struct GraphChunk<'a> {
    sources: Vec<u32>,
    targets: Vec<u32>,
    labels: Vec<u32>,
    names: Vec<&'a str>,
}

/// The first fault in a chunk: its byte offset in the file, the message,
/// and how many transitions the chunk held before it.
struct ChunkError {
    offset: usize,
    message: String,
    edges_before: u64,
}

/// Splits `bytes[start..]` into pieces that end at line ends, about one
/// per 4 MiB and at least a few per thread for large inputs, so that
/// chunks can be parsed in parallel.
pub(crate) fn split_at_lines(bytes: &[u8], start: usize) -> Vec<(usize, usize)> {
    let len = bytes.len() - start;
    let pieces = (len >> 22).clamp(1, 8 * rayon::current_num_threads().max(1));
    let mut bounds = Vec::with_capacity(pieces);
    let mut from = start;
    for piece in 1..=pieces {
        let mut to = start + len / pieces * piece;
        if piece == pieces {
            to = bytes.len();
        } else if to > from {
            to = memchr::memchr(b'\n', &bytes[to..]).map_or(bytes.len(), |i| to + i + 1);
        } else {
            to = from;
        }
        if to > from {
            bounds.push((from, to));
            from = to;
        }
    }
    if bounds.is_empty() {
        bounds.push((start, bytes.len()));
    }
    bounds
}

/// The next line of `bytes[from..end]` that holds more than white space:
/// its start and its end (before `\r\n` or `\n`).
pub(crate) fn next_nonblank_line(
    bytes: &[u8],
    mut from: usize,
    end: usize,
) -> Option<(usize, usize)> {
    while from < end {
        let line_end = memchr::memchr(b'\n', &bytes[from..end]).map_or(end, |i| from + i);
        let line = trim_cr(&bytes[from..line_end]);
        if !line.iter().all(u8::is_ascii_whitespace) {
            return Some((from, from + line.len()));
        }
        from = line_end + 1;
    }
    None
}

/// The start of the non-blank line that follows `skip` non-blank lines
/// from `from` on.
fn nth_nonblank_line(bytes: &[u8], mut from: usize, skip: u64) -> Option<usize> {
    for _ in 0..skip {
        let (_, end) = next_nonblank_line(bytes, from, bytes.len())?;
        from = end + 1;
    }
    next_nonblank_line(bytes, from, bytes.len()).map(|(start, _)| start)
}

/// `line` without a final `\r`.
fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Parses the transition lines of `bytes[start..end]`, checking state
/// numbers against `states`.
fn parse_graph_chunk(
    bytes: &[u8],
    start: usize,
    end: usize,
    states: u32,
) -> Result<GraphChunk<'_>, ChunkError> {
    let mut chunk = GraphChunk {
        sources: Vec::new(),
        targets: Vec::new(),
        labels: Vec::new(),
        names: Vec::new(),
    };
    let mut ids: HashMap<&[u8], u32> = HashMap::new();
    let mut last: Option<(&[u8], u32)> = None;
    let mut from = start;
    while let Some((line_at, line_end)) = next_nonblank_line(bytes, from, end) {
        from = line_end + 1;
        let fault = |at: usize, message: String, chunk: &GraphChunk<'_>| ChunkError {
            offset: line_at + at,
            message,
            edges_before: chunk.sources.len() as u64,
        };
        let line = &bytes[line_at..line_end];
        let edge = scan_transition(line).map_err(|(at, m)| fault(at, m, &chunk))?;
        for (number, at, what) in [(edge.0, edge.1, "source"), (edge.4, edge.5, "target")] {
            if number >= u64::from(states) {
                return Err(fault(at, out_of_range(what, number, states.into()), &chunk));
            }
        }
        let (label, label_at) = (edge.2, edge.3);
        let label = match label {
            b"i" | b"tau" => INTERNAL_ACTION.as_bytes(),
            other => other,
        };
        let id = match last {
            Some((text, id)) if text == label => id,
            _ => {
                let id = match ids.get(label) {
                    Some(&id) => id,
                    None => {
                        let name = std::str::from_utf8(label).map_err(|e| {
                            fault(
                                label_at + e.valid_up_to(),
                                invalid_utf8(label, e.valid_up_to()),
                                &chunk,
                            )
                        })?;
                        chunk.names.push(name);
                        let id = (chunk.names.len() - 1) as u32;
                        ids.insert(label, id);
                        id
                    }
                };
                last = Some((label, id));
                id
            }
        };
        chunk.sources.push(edge.0 as u32);
        chunk.targets.push(edge.4 as u32);
        chunk.labels.push(id);
    }
    Ok(chunk)
}

/// A transition line scanned: source and its offset, label (quotes
/// stripped) and its offset, target and its offset.
type ScannedTransition<'a> = (u64, usize, &'a [u8], usize, u64, usize);

/// Scans `(SOURCE, LABEL, TARGET)` as [`parse_transition`] does, on bytes
/// and with the same messages: the label is what lies between the first
/// comma and the last.
fn scan_transition(line: &[u8]) -> Result<ScannedTransition<'_>, LineError> {
    let expected = |at: usize, what: &str| (at, format!("expected {what}"));
    let mut at = skip_blanks(line, 0);
    if line.get(at) != Some(&b'(') {
        return Err(expected(
            at,
            "`(` to start a transition `(SOURCE, LABEL, TARGET)`",
        ));
    }
    at = skip_blanks(line, at + 1);
    let source_at = at;
    let (source, after) =
        scan_number(line, at).ok_or_else(|| expected(at, "a source state number"))??;
    at = skip_blanks(line, after);
    if line.get(at) != Some(&b',') {
        return Err(expected(at, "`,` after the source state"));
    }
    let rest = at + 1;
    let Some(comma) = memchr::memrchr(b',', &line[rest..]).map(|i| rest + i) else {
        let label_end = line[rest..]
            .iter()
            .rposition(|b| !matches!(b, b' ' | b'\t' | b')'))
            .map_or(0, |i| i + 1);
        return Err((
            rest + label_end,
            "expected `,` and a target state after the label".into(),
        ));
    };
    let label_text = &line[rest..comma];
    let leading = label_text
        .iter()
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    let label_at = rest + leading;
    let trimmed = label_text[leading..].trim_ascii_end();
    let label = if let Some(inner) = trimmed.strip_prefix(b"\"") {
        inner
            .strip_suffix(b"\"")
            .ok_or_else(|| (label_at, "expected `\"` to close the label".to_string()))?
    } else if trimmed.is_empty() {
        return Err((label_at, "expected a label".into()));
    } else {
        trimmed
    };
    let label_at = label_at + usize::from(trimmed.first() == Some(&b'"'));
    at = skip_blanks(line, comma + 1);
    let target_at = at;
    let (target, after) =
        scan_number(line, at).ok_or_else(|| expected(at, "a target state number"))??;
    at = skip_blanks(line, after);
    if line.get(at) != Some(&b')') {
        return Err(expected(at, "`)` after the target state"));
    }
    at += 1;
    if !line[at..].iter().all(u8::is_ascii_whitespace) {
        return Err((
            skip_blanks(line, at),
            "unexpected text after the transition".into(),
        ));
    }
    Ok((source, source_at, label, label_at, target, target_at))
}

/// The offset of the first byte at or after `at` that is not a space or tab.
fn skip_blanks(line: &[u8], mut at: usize) -> usize {
    while matches!(line.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    at
}

/// The decimal number at `at`: `None` without a digit there, else the
/// number (an error above `u32::MAX`, as [`to_number`] says) and the offset
/// after its digits.
fn scan_number(line: &[u8], at: usize) -> Option<Result<(u64, usize), LineError>> {
    let mut end = at;
    let mut value = 0u64;
    while let Some(&byte) = line.get(end) {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
        end += 1;
    }
    if end == at {
        return None;
    }
    let text = &line[at..end];
    // More than 10 significant digits may have wrapped around.
    let wrapped = text.len() > 10 && text.iter().skip_while(|&&b| b == b'0').count() > 10;
    if wrapped || value > u64::from(u32::MAX) {
        let shown = String::from_utf8_lossy(text);
        return Some(Err((at, format!("number {shown} is too large"))));
    }
    Some(Ok((value, end)))
}

/// Groups transitions `(sources[i], labels[i], targets[i])` by source,
/// each source's transitions in their given order: copied as they are when
/// the sources never decrease (the usual order of files), placed by a
/// counting sort otherwise. `None` when the arrays cannot be allocated.
fn group_by_source(
    states: u32,
    sources: &[u32],
    targets: Vec<u32>,
    labels: Vec<u32>,
) -> Option<(Csr, Vec<u32>)> {
    let mut offsets: Vec<u64> = Vec::new();
    offsets.try_reserve_exact(states as usize + 1).ok()?;
    offsets.resize(states as usize + 1, 0);
    for &source in sources {
        offsets[source as usize + 1] += 1;
    }
    for state in 0..states as usize {
        offsets[state + 1] += offsets[state];
    }
    if sources.is_sorted() {
        return Some((Csr { offsets, targets }, labels));
    }
    let mut placed_targets: Vec<u32> = Vec::new();
    let mut placed_labels: Vec<u32> = Vec::new();
    placed_targets.try_reserve_exact(targets.len()).ok()?;
    placed_labels.try_reserve_exact(labels.len()).ok()?;
    placed_targets.resize(targets.len(), 0);
    placed_labels.resize(labels.len(), 0);
    let mut next: Vec<u64> = Vec::new();
    next.try_reserve_exact(states as usize).ok()?;
    next.extend_from_slice(&offsets[..states as usize]);
    for ((&source, target), label) in sources.iter().zip(targets).zip(labels) {
        let slot = &mut next[source as usize];
        placed_targets[*slot as usize] = target;
        placed_labels[*slot as usize] = label;
        *slot += 1;
    }
    Some((
        Csr {
            offsets,
            targets: placed_targets,
        },
        placed_labels,
    ))
}

const HEADER_EXPECTED: &str = "expected the header `des (INITIAL, TRANSITIONS, STATES)`";

/// A syntax problem inside one line: byte offset in the line and message.
type LineError = (usize, String);

/// The numbers of a `des` header and where the initial state is written.
#[derive(Debug, Clone, Copy)]
struct Header {
    initial: u64,
    initial_at: usize,
    transitions: u64,
    states: u64,
}

/// One transition line, with the offsets of its state numbers in the line.
struct TransitionLine<'a> {
    source: u64,
    source_at: usize,
    label: &'a str,
    target: u64,
    target_at: usize,
}

/// Iterates over the lines of a text with their byte offsets, without
/// allocating.
struct Lines<'a> {
    text: &'a str,
    offset: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines { text, offset: 0 }
    }

    /// The next line that holds more than white space, with its offset.
    fn next_nonblank(&mut self) -> Option<(usize, &'a str)> {
        while self.offset < self.text.len() {
            let start = self.offset;
            let rest = &self.text[start..];
            let end = rest.find('\n').unwrap_or(rest.len());
            self.offset = start + end + 1;
            let line = rest[..end].strip_suffix('\r').unwrap_or(&rest[..end]);
            if !line.trim().is_empty() {
                return Some((start, line));
            }
        }
        None
    }
}

/// A decimal number after optional blanks.
fn number(input: &str) -> IResult<&str, &str> {
    preceded(space0, digit1).parse(input)
}

/// `symbol` after optional blanks.
fn symbol<'a>(input: &'a str, symbol: &str) -> IResult<&'a str, &'a str> {
    preceded(space0, tag(symbol)).parse(input)
}

/// Parses the digits at byte `at` of `line` (as found by [`number`]).
fn to_number(digits: &str, at: usize) -> Result<u64, LineError> {
    digits
        .parse::<u64>()
        .ok()
        .filter(|&n| n <= u64::from(u32::MAX))
        .ok_or_else(|| (at, format!("number {digits} is too large")))
}

/// Offset of `rest` inside `line` (both slices of the same line).
fn offset_in(line: &str, rest: &str) -> usize {
    line.len() - rest.len()
}

/// Offset of the first non-blank character of `rest` inside `line`.
fn token_at(line: &str, rest: &str) -> usize {
    offset_in(line, rest.trim_start_matches([' ', '\t']))
}

fn parse_header(line: &str) -> Result<Header, LineError> {
    let expected = |rest: &str| (token_at(line, rest), HEADER_EXPECTED.to_string());
    let (rest, _) = symbol(line, "des").map_err(|_| expected(line))?;
    let (rest, _) = symbol(rest, "(").map_err(|_| expected(rest))?;
    let mut values = [(0u64, 0usize); 3];
    let mut rest = rest;
    for (i, value) in values.iter_mut().enumerate() {
        let at = token_at(line, rest);
        let (after, digits) = number(rest).map_err(|_| expected(rest))?;
        *value = (to_number(digits, at)?, at);
        let closing = if i == 2 { ")" } else { "," };
        let (after, _) = symbol(after, closing).map_err(|_| expected(after))?;
        rest = after;
    }
    if !rest.trim().is_empty() {
        return Err((
            token_at(line, rest),
            "unexpected text after the header".into(),
        ));
    }
    Ok(Header {
        initial: values[0].0,
        initial_at: values[0].1,
        transitions: values[1].0,
        states: values[2].0,
    })
}

/// Parses `(SOURCE, LABEL, TARGET)`. The label is everything between the
/// first and the last comma, so quoted labels may contain commas.
fn parse_transition(line: &str) -> Result<TransitionLine<'_>, LineError> {
    let expected = |rest: &str, what: &str| (token_at(line, rest), format!("expected {what}"));
    let (rest, _) = symbol(line, "(")
        .map_err(|_| expected(line, "`(` to start a transition `(SOURCE, LABEL, TARGET)`"))?;
    let source_at = token_at(line, rest);
    let (rest, digits) = number(rest).map_err(|_| expected(rest, "a source state number"))?;
    let source = to_number(digits, source_at)?;
    let (rest, _) = symbol(rest, ",").map_err(|_| expected(rest, "`,` after the source state"))?;
    let Some(last_comma) = rest.rfind(',') else {
        let label_end = rest.trim_end_matches([' ', '\t', ')']).len();
        return Err((
            offset_in(line, rest) + label_end,
            "expected `,` and a target state after the label".to_string(),
        ));
    };
    let label_text = &rest[..last_comma];
    let label_at = offset_in(line, rest) + (label_text.len() - label_text.trim_start().len());
    let label = parse_label(label_text).map_err(|m| (label_at, m))?;
    let rest = &rest[last_comma + 1..];
    let target_at = token_at(line, rest);
    let (rest, digits) = number(rest).map_err(|_| expected(rest, "a target state number"))?;
    let target = to_number(digits, target_at)?;
    let (rest, _) = symbol(rest, ")").map_err(|_| expected(rest, "`)` after the target state"))?;
    if !rest.trim().is_empty() {
        return Err((
            token_at(line, rest),
            "unexpected text after the transition".into(),
        ));
    }
    Ok(TransitionLine {
        source,
        source_at,
        label,
        target,
        target_at,
    })
}

/// The label between the commas: quotes stripped, blanks trimmed.
fn parse_label(text: &str) -> Result<&str, String> {
    let trimmed = text.trim();
    if let Some(inner) = trimmed.strip_prefix('"') {
        return inner
            .strip_suffix('"')
            .ok_or_else(|| "expected `\"` to close the label".to_string());
    }
    if trimmed.is_empty() {
        return Err("expected a label".to_string());
    }
    Ok(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Lts, String> {
        parse_lts(text, Path::new("t.aut")).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_quoted_bare_and_internal_labels() {
        let lts =
            parse("des (0, 4, 3)\n(0, \"a, b\", 1)\n(1, i, 2)\r\n(2,\"tau\",0)\n\n(0, x, 0)\n")
                .unwrap();
        assert_eq!(lts.labels, vec!["a, b", "tau", "x"]);
        assert_eq!(lts.transitions.len(), 4);
        assert_eq!(lts.transitions[2].label, 1);
        assert_eq!(lts.state_names, vec!["0", "1", "2"]);
    }

    #[test]
    fn reports_counts_and_ranges() {
        let cases = [
            (
                "des (0, 2, 2)\n(0, a, 1)\n",
                "t.aut:3:1: the header declares 2 transitions but the file has 1",
            ),
            (
                "des (0, 1, 2)\n(0, a, 1)\n(1, b, 0)",
                "t.aut:3:1: more transitions than the 1 the header declares",
            ),
            (
                "des (0, 1, 2)\n(0, a, 2)",
                "t.aut:2:8: target state 2 is out of range: the header declares 2 states (0 to 1)",
            ),
            (
                "des (5, 0, 2)",
                "t.aut:1:6: initial state 5 is out of range: the header declares 2 states (0 to 1)",
            ),
            (
                "des (0, 1, 3000000000)\n(2999999999, a, 0)",
                "t.aut:1:1: the header declares 3000000000 states; a process can have at most 2147483647",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text).unwrap_err(), expected, "for {text:?}");
        }
    }

    /// `parse_graph` and `parse_graph_blocks` on `text`, as strings.
    fn whole_and_blocks(text: &[u8], block: usize) -> (String, String) {
        let show = |result: Result<LabelledGraph, LoadError>| match result {
            Ok(graph) => format!("{graph:?}"),
            Err(error) => error.to_string(),
        };
        let path = Path::new("t.aut");
        (
            show(parse_graph(text, path)),
            show(parse_graph_blocks(text, path, block, 1 << 20)),
        )
    }

    #[test]
    fn blocks_of_any_size_give_the_same_graph_and_errors() {
        let texts: [&[u8]; 7] = [
            b"des (1, 4, 5)\n(3, b, 1)\n\n(1, \"a, c\", 3)\r\n(3, i, 3)\n(0, x, 4)",
            b"\n\ndes (0, 2, 2)\n(0, a, 1)\n",
            b"des (0, 1, 2)\n(0, a, 1)\n(1, b, 0)",
            b"des (0, 1, 2)\n(0, a, 2)",
            b"",
            b"des (0,3,3)\n(0,a,1)\n(1,a,9)\n(2,a,0)\n",
            b"des (0,3,3)\n(2,a,1)\n(1,b,0)\n(0,a,0)\n",
        ];
        for text in texts {
            for block in [1, 2, 3, 7, 64] {
                let (whole, blocks) = whole_and_blocks(text, block);
                assert_eq!(
                    blocks,
                    whole,
                    "block {block}, text {:?}",
                    String::from_utf8_lossy(text)
                );
            }
        }
        let limited = parse_graph_blocks(texts[0], Path::new("t.aut"), 4, 10);
        assert_eq!(
            limited.unwrap_err().to_string(),
            "t.aut: decompresses to more than 10 bytes, the most read from one file"
        );
    }

    proptest::proptest! {
        #[test]
        fn blocks_agree_with_the_whole_text(
            edits in proptest::collection::vec((0usize..80, proptest::sample::select(b"(),\n 0129ab\"".to_vec())), 0..5),
            block in 1usize..40,
        ) {
            let mut text = b"des (0, 4, 3)\n(0, \"a\", 1)\n(1, tau, 2)\n\n(2, i, 0)\n(2, b, 2)\n".to_vec();
            for (at, byte) in edits {
                let at = at % text.len();
                text[at] = byte;
            }
            let (whole, blocks) = whole_and_blocks(&text, block);
            proptest::prop_assert_eq!(blocks, whole);
        }
    }

    #[test]
    fn write_round_trips() {
        let lts = parse("des (1, 2, 2)\n(0, \"say \"hi\"\", 1)\n(1, i, 0)\n").unwrap();
        assert_eq!(parse(&write_lts(&lts).unwrap()).unwrap(), lts);
    }
}
