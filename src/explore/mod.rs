//! Exploration engines. Every engine takes an [`EncodedNetwork`] and
//! [`SearchOptions`] and returns an [`Exploration`]; they differ only in
//! how they search, so their counts and verdicts must agree exactly.

pub mod cpu;
pub mod gpu;
pub mod livelock;
pub mod outcome;
pub mod reference;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::encode::EncodedNetwork;

/// A snapshot handed to the progress callback during long runs.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// States stored so far.
    pub states: u64,
    /// Transitions generated so far.
    pub transitions: u64,
    /// Breadth-first levels completed so far (see [`Exploration::depth`]).
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
    /// Most bytes the state store may take (`--memory`); reaching it ends
    /// the search with [`Completion::TableFull`]. `None`: each engine's
    /// default, most of the free memory of the host or device.
    pub memory_bytes: Option<u64>,
    /// How the engines store the visited states (`--storage`).
    pub storage: Storage,
    /// Ends the search early with [`Completion::Interrupted`] (Ctrl-C,
    /// `--timeout`); engines look at it at least every few thousand states
    /// (the GPU engine between kernel launches).
    pub stop: StopSignal,
    /// Progress callback.
    pub progress: Option<ProgressFn>,
}

/// How an engine stores the visited state vectors.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Storage {
    /// Plain while the states fit that way; tree storage once they would
    /// not (or, where an engine has no tree storage, plain).
    #[default]
    Auto,
    /// Each vector whole in a hash table: fastest, its width in bytes a
    /// state and more.
    Plain,
    /// Each vector as a root pointing at shared halves, recursively, in a
    /// table of nodes (Laarman's tree compression): a few bytes a state
    /// whatever the vector's width, for more work a state.
    Tree,
}

impl Storage {
    /// The name `--storage` takes and the reports print.
    pub fn key(self) -> &'static str {
        match self {
            Storage::Auto => "auto",
            Storage::Plain => "plain",
            Storage::Tree => "tree",
        }
    }
}

/// A request to end a search early, shared between the searching threads
/// and whoever may ask for the end: a flag anyone holding a clone can set,
/// an optional deadline after which the signal counts as set, and an
/// optional parent signal whose setting sets this one too.
#[derive(Debug, Clone, Default)]
pub struct StopSignal {
    requested: Arc<AtomicBool>,
    deadline: Option<Instant>,
    parent: Option<Arc<StopSignal>>,
}

impl StopSignal {
    /// A signal that is set by [`StopSignal::request`] only.
    pub fn new() -> StopSignal {
        StopSignal::default()
    }

    /// The same signal, also set once `deadline` has passed.
    pub fn with_deadline(mut self, deadline: Instant) -> StopSignal {
        self.deadline = Some(deadline);
        self
    }

    /// A new signal that is set by its own [`StopSignal::request`] and
    /// whenever this one is: for work inside a larger one (the solvers of
    /// a race inside a race), which then sees a stop of the whole at
    /// once, while its own stop leaves the whole running.
    pub fn child(&self) -> StopSignal {
        StopSignal {
            parent: Some(Arc::new(self.clone())),
            ..StopSignal::default()
        }
    }

    /// Asks every search watching this signal (or a clone, or a child) to
    /// stop.
    pub fn request(&self) {
        self.requested.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was requested, the deadline has passed or the parent
    /// is set.
    pub fn is_set(&self) -> bool {
        self.requested.load(Ordering::Relaxed)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.parent.as_ref().is_some_and(|parent| parent.is_set())
    }
}

impl std::fmt::Debug for SearchOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchOptions")
            .field("check_deadlock", &self.check_deadlock)
            .field("keep_going", &self.keep_going)
            .field("max_states", &self.max_states)
            .field("no_trace", &self.no_trace)
            .field("memory_bytes", &self.memory_bytes)
            .field("storage", &self.storage)
            .field("stop", &self.stop)
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
    /// The state store ran out of room (or reached `--memory`): the
    /// result is incomplete.
    TableFull,
    /// The [`StopSignal`] was set (Ctrl-C or `--timeout`): the result is
    /// incomplete.
    Interrupted,
}

impl Completion {
    /// Short machine-readable name, used in JSON.
    pub fn key(self) -> &'static str {
        match self {
            Completion::Complete => "complete",
            Completion::StoppedAtFinding => "stopped-at-finding",
            Completion::StateLimit => "state-limit",
            Completion::TableFull => "memory-limit",
            Completion::Interrupted => "interrupted",
        }
    }
}

/// The result of a search.
#[derive(Debug, Clone)]
pub struct Exploration {
    /// Distinct states stored (error states included, never expanded).
    pub states: u64,
    /// Transitions generated from expanded states.
    pub transitions: u64,
    /// Breadth-first levels completed: every state within `depth` steps of
    /// the initial state has been found (so, for a complete search, the
    /// largest distance of a state from the initial state). A search that
    /// stops inside a level may also have found some states one step
    /// further, such as the end of a trace.
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
    /// Wall-clock time of the search (loading and encoding excluded).
    pub elapsed: Duration,
    /// Bytes of memory the state store used.
    pub memory_bytes: u64,
    /// How the states were stored in the end ([`Storage::Plain`] or
    /// [`Storage::Tree`]).
    pub storage: Storage,
    /// Bytes the stored states occupy in the store: their table entries
    /// and tree nodes, with their predecessor links when traces are kept
    /// (without the empty room of the tables, which `memory_bytes`
    /// counts). Divided by `states`, the bytes a state.
    pub state_bytes: u64,
    /// Name of the engine, for the report.
    pub engine: String,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_signal_is_set_by_its_parent_and_not_the_other_way() {
        let parent = StopSignal::new();
        let child = parent.child();
        let sibling = parent.child();
        child.request();
        assert!(child.is_set());
        assert!(!parent.is_set());
        assert!(!sibling.is_set());
        parent.request();
        assert!(sibling.is_set());
        let passed = StopSignal::new().with_deadline(Instant::now());
        assert!(passed.child().child().is_set());
    }
}
