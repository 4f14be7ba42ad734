//! Choosing and running the engine the user asked for.

use super::{CheckArgs, EngineChoice};
use crate::encode::EncodedNetwork;
use crate::engine::{Exploration, SearchOptions, seq};

/// An exploration plus engine-specific lines for the report.
pub struct EngineRun {
    /// What the engine found.
    pub exploration: Exploration,
    /// Extra `name: value` lines (table size, fill, threads, …).
    pub details: Vec<(String, String)>,
}

/// Runs the engine `args` asks for.
pub fn run(
    args: &CheckArgs,
    net: &EncodedNetwork,
    search: &SearchOptions,
) -> Result<EngineRun, String> {
    match args.engine {
        EngineChoice::Reference | EngineChoice::Auto | EngineChoice::Cpu | EngineChoice::Gpu => {
            Ok(EngineRun {
                exploration: seq::explore(net, search),
                details: Vec::new(),
            })
        }
    }
}
