//! [`GraphSink`]: where explorers push the transitions of a state space,
//! so that writing an `.aut` file, building an in-memory graph or handing
//! edges to a later algorithm is one interface for every explorer.

use thiserror::Error;

/// One transition of an explored state space: source state number, action
/// id (an index into the network's action names), target state number.
/// States are numbered densely from 0, the initial state.
pub type Edge = (u64, u32, u64);

/// Why a sink could not take the edges given to it.
#[derive(Debug, Error)]
pub enum SinkError {
    /// Writing to a file failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file being written.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The sink cannot hold the graph (for example, more states than its
    /// numbering allows).
    #[error("{0}")]
    Capacity(String),
    /// What the sink was given does not form a graph (counts that differ
    /// from what was pushed, edges outside the states): a bug of the
    /// explorer that pushed it.
    #[error("inconsistent graph: {0}")]
    Inconsistent(String),
}

/// Receives a state space edge by edge, in batches, then its totals.
///
/// Explorers call [`GraphSink::edges`] any number of times, each batch in
/// any order of sources, and [`GraphSink::finish`] once, only after a
/// complete search: a sink that is never finished must leave no output
/// that could be read as a whole state space.
pub trait GraphSink {
    /// Takes a batch of transitions.
    fn edges(&mut self, batch: &[Edge]) -> Result<(), SinkError>;

    /// Ends the graph: `states` states (numbered `0..states`, 0 being the
    /// initial state) and `transitions` transitions, as many as the
    /// batches held.
    fn finish(&mut self, states: u64, transitions: u64) -> Result<(), SinkError>;
}
