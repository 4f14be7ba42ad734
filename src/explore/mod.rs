//! Exploration engines. Every engine takes an [`EncodedNetwork`] and
//! [`SearchOptions`] and returns an [`Exploration`]; they differ only in
//! how they search, so their counts and verdicts must agree exactly.

pub mod cpu;
pub mod gpu;
pub mod reference;

use std::sync::Arc;
use std::time::Duration;

use crate::encode::EncodedNetwork;

/// A snapshot handed to the progress callback during long runs.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// States stored so far.
    pub states: u64,
    /// Transitions generated so far.
    pub transitions: u64,
    /// Current breadth-first depth (or an engine's best estimate).
    pub depth: u32,
    /// Time since the search started.
    pub elapsed: Duration,
}

/// Callback for progress reports; engines call it about twice a second.
pub type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// What to look for and when to stop.
#[derive(Clone, Default)]
pub struct SearchOptions {
    /// Report states without successors.
    pub check_deadlock: bool,
    /// Keep exploring after findings (`--all`), counting them all.
    pub keep_going: bool,
    /// Stop with [`Completion::StateLimit`] after this many states.
    pub max_states: Option<u64>,
    /// Skip predecessor links (no traces; less memory).
    pub no_trace: bool,
    /// Progress callback.
    pub progress: Option<ProgressFn>,
}

impl std::fmt::Debug for SearchOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchOptions")
            .field("check_deadlock", &self.check_deadlock)
            .field("keep_going", &self.keep_going)
            .field("max_states", &self.max_states)
            .field("no_trace", &self.no_trace)
            .finish()
    }
}

/// A path from the initial state: `states[0]` is initial and
/// `actions[i]` leads from `states[i]` to `states[i + 1]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    /// The visited state vectors.
    pub states: Vec<Vec<u32>>,
    /// Action ids of the steps.
    pub actions: Vec<u32>,
}

impl Trace {
    /// The trace through `states` (initial first), with each step's action
    /// recomputed from the encoding; `None` when some state is not a
    /// successor of the one before. Engines that store only predecessor
    /// references rebuild their traces with this.
    pub fn through(net: &EncodedNetwork, states: Vec<Vec<u32>>) -> Option<Trace> {
        let actions = states
            .windows(2)
            .map(|step| action_between(net, &step[0], &step[1]))
            .collect::<Option<Vec<u32>>>()?;
        Some(Trace { states, actions })
    }
}

/// What was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindingKind {
    /// A reachable state without successors.
    Deadlock,
    /// A reachable state with a process in an error state; the index is
    /// into [`EncodedNetwork::error_locals`].
    Error(usize),
}

/// A finding and, unless traces were switched off, a shortest path to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Deadlock or error.
    pub kind: FindingKind,
    /// The state found.
    pub state: Vec<u32>,
    /// Path from the initial state, when available.
    pub trace: Option<Trace>,
}

/// How the search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// Every reachable state was explored.
    Complete,
    /// Stopped at the first finding (the default).
    StoppedAtFinding,
    /// `--max-states` was reached: the result is incomplete.
    StateLimit,
    /// The state store ran out of room: the result is incomplete.
    TableFull,
}

/// The result of a search.
#[derive(Debug, Clone)]
pub struct Exploration {
    /// Distinct states stored (error states included, never expanded).
    pub states: u64,
    /// Transitions generated from expanded states.
    pub transitions: u64,
    /// Breadth-first depth reached (number of levels minus one).
    pub depth: u32,
    /// Deadlock states found.
    pub deadlocks: u64,
    /// Distinct error states found.
    pub errors: u64,
    /// Rule firings blocked only by the property monitor.
    pub monitor_blocked: u64,
    /// The first finding, with its trace.
    pub first: Option<Finding>,
    /// How the search ended.
    pub completion: Completion,
    /// Wall-clock time of the search.
    pub elapsed: Duration,
    /// Bytes of memory the state store used.
    pub memory_bytes: u64,
    /// Name of the engine, for the report.
    pub engine: String,
}

/// Whether a finding ends the search even under `keep_going`: reaching a
/// [`crate::model::ErrorKind::Model`] state means the model is not what it
/// was read as, so the rest of the state space would be meaningless.
pub fn is_fatal(net: &EncodedNetwork, kind: &FindingKind) -> bool {
    matches!(kind, FindingKind::Error(e)
        if matches!(net.error_locals[*e].kind, crate::model::ErrorKind::Model(_)))
}

/// Recomputes the action of a step `from -> to`: the first action whose
/// firing yields `to`.
pub fn action_between(net: &EncodedNetwork, from: &[u32], to: &[u32]) -> Option<u32> {
    let mut generator = crate::encode::SuccessorGenerator::new(net);
    let mut found = None;
    generator.for_each(from, |s| {
        if found.is_none() && s.state == to {
            found = Some(s.action);
        }
    });
    found
}
