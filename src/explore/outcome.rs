//! The search rules, written once: which finding a search keeps, which
//! finding ends it, what an erroneous initial state gives, and how the way
//! a search ended maps to a [`Completion`]. Every explorer follows them; the
//! GPU kernel's `record_finding` (`kernels/explore/search.cu`) mirrors
//! [`replaces`] and [`ends_search`]: it keeps the first finding and, in a
//! separate counter, the first fatal one, which the host then prefers.

use std::time::Instant;

use super::{Completion, Exploration, Finding, FindingKind, SearchOptions, Storage, Trace};
use crate::encode::EncodedNetwork;
use crate::error::Error;
use crate::explicit::GraphSink;
use crate::model::ErrorKind;

/// Whether a finding ends the search even under `keep_going`: reaching a
/// [`ErrorKind::Model`] state means the model is not what it was read as,
/// so the rest of the state space would be meaningless.
pub fn is_fatal(net: &EncodedNetwork, kind: &FindingKind) -> bool {
    matches!(kind, FindingKind::Error(e) if matches!(net.error_locals[*e].kind, ErrorKind::Model(_)))
}

/// Whether finding `kind` ends the search: always without `keep_going`,
/// and when it is fatal.
pub fn ends_search(net: &EncodedNetwork, search: &SearchOptions, kind: &FindingKind) -> bool {
    !search.keep_going || is_fatal(net, kind)
}

/// Whether `found` takes the place of the finding `kept` so far: the
/// first finding is kept, unless a fatal one comes later.
pub fn replaces(net: &EncodedNetwork, kept: Option<&FindingKind>, found: &FindingKind) -> bool {
    match kept {
        None => true,
        Some(kept) => !is_fatal(net, kept) && is_fatal(net, found),
    }
}

/// The whole search when the initial state is an error state: that state
/// is stored and found, and nothing is expanded. `None` when the initial
/// state is not an error state.
pub fn initial_error(
    net: &EncodedNetwork,
    search: &SearchOptions,
    engine: String,
    started: Instant,
) -> Option<Exploration> {
    let error = net.error_in(&net.initial)?;
    let kind = FindingKind::Error(error);
    let ending = Ending {
        finding_ends: ends_search(net, search, &kind),
        ..Ending::default()
    };
    Some(Exploration {
        states: 1,
        transitions: 0,
        depth: 0,
        deadlocks: 0,
        errors: 1,
        monitor_blocked: 0,
        first: Some(Finding {
            kind,
            state: net.initial.clone(),
            trace: (!search.no_trace).then(|| Trace {
                states: vec![net.initial.clone()],
                actions: Vec::new(),
            }),
        }),
        completion: ending.completion(),
        elapsed: started.elapsed(),
        memory_bytes: 0,
        storage: Storage::Plain,
        state_bytes: 0,
        engine,
    })
}

/// The state space of an [`initial_error`] search into `sink`: the one
/// state and no transition, when the search is complete.
pub fn alone_into(
    exploration: Exploration,
    sink: &mut dyn GraphSink,
) -> Result<Exploration, Error> {
    if exploration.completion == Completion::Complete {
        sink.finish(exploration.states, exploration.transitions)?;
    }
    Ok(exploration)
}

/// How a search ended, as an explorer saw it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ending {
    /// A finding that ends the search ([`ends_search`]) was made.
    pub finding_ends: bool,
    /// The state store ran out of room.
    pub out_of_room: bool,
    /// The `--max-states` limit was reached (or the search stopped short
    /// of its last level for it).
    pub state_limit: bool,
    /// The search's [`crate::explore::StopSignal`] was set.
    pub interrupted: bool,
}

impl Ending {
    /// The search's [`Completion`]: a finding that ends the search first
    /// (its verdict stands whatever else happened), then an interruption,
    /// then a full store, then the state limit; otherwise the search was
    /// complete.
    pub fn completion(&self) -> Completion {
        if self.finding_ends {
            Completion::StoppedAtFinding
        } else if self.interrupted {
            Completion::Interrupted
        } else if self.out_of_room {
            Completion::TableFull
        } else if self.state_limit {
            Completion::StateLimit
        } else {
            Completion::Complete
        }
    }
}

/// Whether the kept finding `first` ends the search.
pub fn finding_ends(
    net: &EncodedNetwork,
    search: &SearchOptions,
    first: Option<&FindingKind>,
) -> bool {
    first.is_some_and(|kind| ends_search(net, search, kind))
}
