//! warpcheck: an on-the-fly explicit-state model checker for networks of
//! labelled transition systems, with a reference engine, a multi-core CPU
//! engine and a GPU engine after Wijs & Bošnački's GPUexplore.
//!
//! The crate is layered like LTSmin's PINS split: [`frontend`]s read files
//! into a [`model::Network`]; [`encode`] packs it into the arrays every
//! engine of [`explore`] explores; [`report`] renders what the engines found.

pub mod cli;
pub mod encode;
pub mod error;
pub mod explicit;
pub mod explore;
pub mod frontend;
pub mod generate;
pub mod gpu;
pub mod mec;
pub mod model;
pub mod numeric;
pub mod parity;
pub mod report;
pub mod scc;
pub mod system;
#[cfg(feature = "testing")]
pub mod testing;
