//! Explicit, numbered structures as plain arrays that can be uploaded to a
//! GPU as they are: graphs, labelled graphs, MDPs and parity games. Explorers
//! fill them through a [`GraphSink`]; SCC, MEC, numeric and game algorithms
//! start from them; the readers of graph and probabilistic model files give
//! them ([`ProbModel`]). Knows no file format and no engine.

pub mod chain;
pub mod csr;
pub mod game;
pub mod labels;
pub mod lts;
pub mod mdp;
pub mod model;
pub(crate) mod offsets;
pub mod sink;
#[cfg(test)]
mod testing;

pub use chain::{ChainError, MarkovChain};
pub use csr::{Csr, CsrError, MAX_STATES};
pub use game::{GameError, ParityGame, Player};
pub use labels::StateLabels;
pub use lts::{LabelledGraph, LabelledGraphBuilder, LtsError};
pub use mdp::{Mdp, MdpError, PROBABILITY_TOLERANCE};
pub use model::{ExplicitModel, ModelType, ProbModel, RewardStructure};
pub use offsets::OffsetsError;
pub use sink::{Edge, GraphSink, SinkError};
