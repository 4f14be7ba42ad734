//! Export of a whole reachable state space as an Aldebaran `.aut` file, the
//! input of other tools (minimisation, SCC analyses). Only a complete
//! search writes the file: a partial state space would read as a whole one.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;

use super::aut_label;
use crate::encode::{EncodedNetwork, SuccessorGenerator};
use crate::explore::cpu::{self, CpuOptions, StoredStates};
use crate::explore::gpu::{Gpu, GpuExploration, GpuOptions};
use crate::explore::{Completion, Exploration, SearchOptions, reference};

/// States the multi-core export expands in one parallel task.
const EXPORT_CHUNK: u32 = 4096;
/// Tasks whose text is held in memory before it is written out in order.
const CHUNKS_PER_WRITE: usize = 256;

/// Explores `net` with the reference engine and writes every state and
/// transition to `path`; states are numbered in breadth-first discovery
/// order, 0 being the initial state. Writes nothing unless the search is
/// complete.
pub fn write_state_space(
    net: &EncodedNetwork,
    search: &SearchOptions,
    path: &Path,
) -> io::Result<Exploration> {
    // The header needs the counts, known only at the end: write the edges
    // to a scratch file first, then the header and the edges.
    let mut scratch = tempfile_beside(path)?;
    let mut edges = BufWriter::new(&mut scratch);
    let labels: Vec<String> = net.actions.iter().map(|a| aut_label(a)).collect();
    let mut failure = None;
    let exploration = reference::explore_with_edges(net, search, |source, action, target| {
        if failure.is_none()
            && let Err(e) = write_edge(
                &mut edges,
                u64::from(source),
                &labels[action as usize],
                u64::from(target),
            )
        {
            failure = Some(e);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    edges.flush()?;
    drop(edges);
    if exploration.completion != Completion::Complete {
        return Ok(exploration);
    }
    write_with_edges_from(&mut scratch, &exploration, path)?;
    Ok(exploration)
}

/// Explores `net` on the GPU, then writes every state and transition to
/// `path` from the GPU's export pass over its final table (see
/// [`Gpu::explore_edges`]); the search itself is the one [`Gpu::explore`]
/// runs, the pass comes after it.
/// States are numbered by table slot, 0 being the initial state. Writes
/// nothing unless the search is complete and the pass agrees with it.
pub fn write_state_space_gpu(
    gpu: &Gpu,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
    path: &Path,
) -> Result<GpuExploration, String> {
    let mut scratch = tempfile_beside(path).map_err(|e| e.to_string())?;
    let mut edges = BufWriter::new(&mut scratch);
    let labels: Vec<String> = net.actions.iter().map(|a| aut_label(a)).collect();
    let explored = gpu
        .explore_edges(net, search, options, &mut |batch| {
            batch.iter().try_for_each(|&(source, action, target)| {
                write_edge(&mut edges, source, &labels[action as usize], target)
                    .map_err(|e| e.to_string())
            })
        })
        .map_err(|e| e.to_string())?;
    edges.flush().map_err(|e| e.to_string())?;
    drop(edges);
    if explored.exploration.completion == Completion::Complete {
        write_with_edges_from(&mut scratch, &explored.exploration, path)
            .map_err(|e| e.to_string())?;
    }
    Ok(explored)
}

/// The `.aut` header line of a state space.
fn write_header(out: &mut impl Write, exploration: &Exploration) -> io::Result<()> {
    writeln!(
        out,
        "des (0, {}, {})",
        exploration.transitions, exploration.states
    )
}

/// One `.aut` transition line.
fn write_edge(out: &mut impl Write, source: u64, label: &str, target: u64) -> io::Result<()> {
    writeln!(out, "({source}, {label}, {target})")
}

/// Writes `path`: the header, then the transition lines held in `scratch`.
fn write_with_edges_from(
    scratch: &mut File,
    exploration: &Exploration,
    path: &Path,
) -> io::Result<()> {
    scratch.seek(SeekFrom::Start(0))?;
    let mut out = BufWriter::new(File::create(path)?);
    write_header(&mut out, exploration)?;
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

/// Explores `net` with the multi-core engine, then writes every state and
/// transition to `path` from a pass over the stored states, so that the
/// search itself is the one [`cpu::explore`] runs. States are numbered in
/// increasing state id (0 is the initial state), which is breadth-first
/// order level by level but not within a level. Writes nothing unless the
/// search is complete; a pass that finds other counts than the search is
/// an error, and leaves no file.
pub fn write_state_space_parallel(
    net: &EncodedNetwork,
    search: &SearchOptions,
    opts: &CpuOptions,
    path: &Path,
) -> io::Result<Exploration> {
    let (exploration, stored) = cpu::explore_keeping_store(net, search, opts);
    if exploration.completion != Completion::Complete {
        return Ok(exploration);
    }
    let written = write_stored(net, &stored, &exploration, opts.threads, path);
    if written.is_err() {
        // The file may hold part of the edges: remove it, ignoring whether
        // it was created at all.
        let _ = std::fs::remove_file(path);
    }
    written.map(|()| exploration)
}

/// Writes the states in `stored` and their transitions, expanded again in
/// parallel chunks on `threads` threads (0: all cores), whose text is
/// written in state order.
fn write_stored(
    net: &EncodedNetwork,
    stored: &StoredStates,
    exploration: &Exploration,
    threads: usize,
    path: &Path,
) -> io::Result<()> {
    let numbering = DenseNumbering::new(stored.published());
    if numbering.len() != exploration.states {
        return Err(io::Error::other(format!(
            "the store holds {} states but the search counted {}",
            numbering.len(),
            exploration.states
        )));
    }
    let labels: Vec<String> = net.actions.iter().map(|a| aut_label(a)).collect();
    let chunks: Vec<Range<u32>> = stored
        .published()
        .iter()
        .flat_map(|run| {
            let end = run.end;
            run.clone()
                .step_by(EXPORT_CHUNK as usize)
                .map(move |start| start..end.min(start.saturating_add(EXPORT_CHUNK)))
        })
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(io::Error::other)?;
    let mut out = BufWriter::new(File::create(path)?);
    write_header(&mut out, exploration)?;
    let mut transitions = 0;
    for batch in chunks.chunks(CHUNKS_PER_WRITE) {
        let texts: Vec<Result<(Vec<u8>, u64), String>> = pool.install(|| {
            batch
                .par_iter()
                .map_init(
                    || (SuccessorGenerator::new(net), vec![0; stored.words()]),
                    |(generator, state), ids| {
                        edges_of(
                            net,
                            stored,
                            &numbering,
                            &labels,
                            generator,
                            state,
                            ids.clone(),
                        )
                    },
                )
                .collect()
        });
        for text in texts {
            let (text, edges) = text.map_err(io::Error::other)?;
            out.write_all(&text)?;
            transitions += edges;
        }
    }
    if transitions != exploration.transitions {
        return Err(io::Error::other(format!(
            "the export found {transitions} transitions but the search counted {}",
            exploration.transitions
        )));
    }
    out.flush()
}

/// The `.aut` lines of the transitions of states `ids` and how many there
/// are; error states have none (the search does not expand them).
fn edges_of(
    net: &EncodedNetwork,
    stored: &StoredStates,
    numbering: &DenseNumbering,
    labels: &[String],
    generator: &mut SuccessorGenerator<'_>,
    state: &mut [u32],
    ids: Range<u32>,
) -> Result<(Vec<u8>, u64), String> {
    let mut text = Vec::new();
    let mut edges = 0;
    let mut unknown = false;
    for id in ids {
        stored.read(id, state);
        if net.error_in(state).is_some() {
            continue;
        }
        let source = numbering.of(id);
        generator.for_each(state, |successor| match stored.id_of(successor.state) {
            Some(target) => {
                edges += 1;
                // Writing to a `Vec` cannot fail.
                let _ = write_edge(
                    &mut text,
                    source,
                    &labels[successor.action as usize],
                    numbering.of(target),
                );
            }
            None => unknown = true,
        });
        if unknown {
            return Err(format!("a successor of state {source} was not stored"));
        }
    }
    Ok((text, edges))
}

/// Numbers the published state ids densely, in increasing order.
struct DenseNumbering<'a> {
    /// The runs of published ids, in increasing order.
    runs: &'a [Range<u32>],
    /// Ids in the runs before each run.
    before: Vec<u64>,
}

impl<'a> DenseNumbering<'a> {
    fn new(runs: &'a [Range<u32>]) -> DenseNumbering<'a> {
        let before = runs
            .iter()
            .scan(0, |count, run| {
                let at = *count;
                *count += run.len() as u64;
                Some(at)
            })
            .collect();
        DenseNumbering { runs, before }
    }

    /// Number of published ids.
    fn len(&self) -> u64 {
        self.runs
            .last()
            .zip(self.before.last())
            .map_or(0, |(run, before)| before + run.len() as u64)
    }

    /// The number of published id `id`.
    fn of(&self, id: u32) -> u64 {
        let run = self.runs.partition_point(|run| run.start <= id) - 1;
        self.before[run] + u64::from(id - self.runs[run].start)
    }
}

/// An anonymous scratch file in the directory of `path` (same file system,
/// so the space it needs is where the user asked the output to go).
fn tempfile_beside(path: &Path) -> io::Result<File> {
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
