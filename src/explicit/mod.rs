//! Explicit, numbered structures as plain arrays that can be uploaded to a
//! GPU as they are: graphs, labelled graphs, MDPs and parity games. Explorers
//! fill them through a [`GraphSink`]; SCC, MEC, numeric and game algorithms
//! start from them. Knows no file format and no engine.

pub mod csr;
pub mod game;
pub mod lts;
pub mod mdp;
mod offsets;
pub mod sink;
#[cfg(test)]
mod testing;

pub use csr::{Csr, CsrError, MAX_STATES};
pub use game::{GameError, ParityGame, Player};
pub use lts::{LabelledGraph, LabelledGraphBuilder, LtsError};
pub use mdp::{Mdp, MdpError, PROBABILITY_TOLERANCE};
pub use offsets::OffsetsError;
pub use sink::{Edge, GraphSink, SinkError};
