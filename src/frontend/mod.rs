//! Input formats. Each submodule turns one file format into a
//! [`crate::model::Network`]; none of them knows about engines.

pub mod aut;
pub mod exp;
pub mod net;
pub mod pnml;

use std::path::{Path, PathBuf};

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

/// Reads a whole file, mapping failure to [`LoadError::Io`].
pub fn read_file(path: &Path) -> Result<String, LoadError> {
    std::fs::read_to_string(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })
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
    /// 1-safe Petri nets in PNML.
    Pnml,
}

impl Format {
    /// The format a file name's extension names.
    pub fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "net" => Some(Format::Net),
            "aut" => Some(Format::Aut),
            "exp" => Some(Format::Exp),
            "pnml" | "xml" => Some(Format::Pnml),
            _ => None,
        }
    }
}

/// TEMPORARY until the frontend branch lands.
pub fn load_as(path: &Path, _format: Option<Format>) -> Result<Network, LoadError> {
    load(path)
}

/// Loads a model file in the format its extension names.
pub fn load(path: &Path) -> Result<Network, LoadError> {
    let format = Format::from_path(path).ok_or_else(|| {
        LoadError::invalid(
            path,
            "unknown model format: expected a file ending in .net, .aut, .exp or .pnml",
        )
    })?;
    let mut network = match format {
        Format::Net => net::load(path)?,
        Format::Aut => aut::load_network(path)?,
        Format::Exp => exp::load(path)?,
        Format::Pnml => pnml::load(path)?,
    };
    network
        .validate()
        .map_err(|e| LoadError::invalid(path, e.to_string()))?;
    Ok(network)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_from_one() {
        let text = "ab\ncdé\nf";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 3), (2, 1));
        assert_eq!(line_column(text, text.find('f').unwrap()), (3, 1));
        assert_eq!(line_column(text, text.find('é').unwrap() + 2), (2, 4));
    }
}
