//! Explicit, numbered structures as plain arrays that can be uploaded to a
//! GPU as they are: graphs, labelled graphs, MDPs and parity games. Explorers
//! fill them through a [`GraphSink`]; SCC, MEC, numeric and game algorithms
//! start from them. Knows no file format and no engine.

pub mod sink;

pub use sink::{CountingSink, Edge, GraphSink, SinkError};
