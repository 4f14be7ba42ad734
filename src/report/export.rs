//! Export of a whole reachable state space as an Aldebaran `.aut` file, the
//! input of other tools (minimisation, SCC analyses).

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::aut_label;
use crate::encode::EncodedNetwork;
use crate::engine::{Exploration, SearchOptions, seq};

/// Explores `net` with the reference engine and writes every state and
/// transition to `path`; states are numbered in breadth-first discovery
/// order, 0 being the initial state.
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
    let exploration = seq::explore_with_edges(net, search, |source, action, target| {
        if failure.is_none()
            && let Err(e) = writeln!(edges, "({source}, {}, {target})", labels[action as usize])
        {
            failure = Some(e);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    edges.flush()?;
    drop(edges);
    scratch.seek(SeekFrom::Start(0))?;
    let mut out = BufWriter::new(File::create(path)?);
    writeln!(
        out,
        "des (0, {}, {})",
        exploration.transitions, exploration.states
    )?;
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = scratch.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        out.write_all(&buffer[..n])?;
    }
    out.flush()?;
    Ok(exploration)
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
