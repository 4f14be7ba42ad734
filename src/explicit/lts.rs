//! [`LabelledGraph`]: an explored state space in memory, a [`Csr`] with an
//! action id on every edge, and [`LabelledGraphBuilder`], the
//! [`GraphSink`] that explorers fill it through.

use thiserror::Error;

use super::csr::{Csr, CsrError, MAX_STATES};
use super::offsets;
use super::sink::{Edge, GraphSink, SinkError};

/// Why arrays do not form a [`LabelledGraph`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LtsError {
    /// The edges do not form a graph.
    #[error("{0}")]
    Edges(#[from] CsrError),
    /// There is not one label per edge.
    #[error("{labels} labels for {edges} edges")]
    LabelCount {
        /// Length of `labels`.
        labels: usize,
        /// Length of `edges.targets`.
        edges: usize,
    },
    /// An edge carries an action id with no name.
    #[error("edge {from} -> {to} has action {action}, but {actions} actions are named")]
    UnnamedAction {
        /// Source state of the edge.
        from: u32,
        /// Target state of the edge.
        to: u32,
        /// Its action id.
        action: u32,
        /// Length of `actions`.
        actions: usize,
    },
    /// The initial state is not a state.
    #[error("initial state {initial} is not among the {states} states")]
    InitialOutOfRange {
        /// The initial state.
        initial: u32,
        /// States in the graph.
        states: u32,
    },
}

/// A labelled transition system as arrays: edge `i` of [`Csr`] `edges`
/// carries the action `labels[i]`, whose name is `actions[labels[i]]`.
///
/// Fields are public for upload and export; data from elsewhere than
/// [`LabelledGraphBuilder`] should pass [`LabelledGraph::validate`] first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelledGraph {
    /// The transitions, without their actions.
    pub edges: Csr,
    /// One action id per edge, parallel to `edges.targets`.
    pub labels: Vec<u32>,
    /// Action names, indexed by action id.
    pub actions: Vec<String>,
    /// The initial state.
    pub initial: u32,
}

impl LabelledGraph {
    /// Every transition `(source, action, target)`, by increasing source,
    /// each source's transitions in their stored order.
    pub fn transitions(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        self.edges
            .edges()
            .zip(&self.labels)
            .map(|((source, target), &action)| (source, action, target))
    }

    /// Every transition `(source, action, target)`, sorted: equal for two
    /// graphs with the same transitions and the same state numbering,
    /// whatever order each stores a state's transitions in. For comparing
    /// the output of two explorers.
    pub fn canonical_edges(&self) -> Vec<(u32, u32, u32)> {
        let mut transitions: Vec<_> = self.transitions().collect();
        transitions.sort_unstable();
        transitions
    }

    /// Checks the edges (see [`Csr::validate`]), one label per edge, a
    /// name for every label and an initial state that is a state.
    pub fn validate(&self) -> Result<(), LtsError> {
        self.edges.validate()?;
        if self.labels.len() != self.edges.targets.len() {
            return Err(LtsError::LabelCount {
                labels: self.labels.len(),
                edges: self.edges.targets.len(),
            });
        }
        let states = self.edges.states();
        check_transitions(self.transitions(), states, self.actions.len())?;
        if self.initial >= states {
            return Err(LtsError::InitialOutOfRange {
                initial: self.initial,
                states,
            });
        }
        Ok(())
    }
}

/// Checks that every transition `(source, action, target)` lies within
/// `states` states and has one of `actions` named actions.
fn check_transitions(
    transitions: impl IntoIterator<Item = (u32, u32, u32)>,
    states: u32,
    actions: usize,
) -> Result<(), LtsError> {
    for (from, action, to) in transitions {
        if from >= states || to >= states {
            return Err(CsrError::EdgeOutOfRange { from, to, states }.into());
        }
        if action as usize >= actions {
            return Err(LtsError::UnnamedAction {
                from,
                to,
                action,
                actions,
            });
        }
    }
    Ok(())
}

/// A [`GraphSink`] that builds a [`LabelledGraph`]: it keeps the edges of
/// every batch, whatever their order, and on [`GraphSink::finish`] groups
/// them by source, each source's edges in the order they arrived. The
/// initial state is 0, as the sink's contract numbers it.
#[derive(Debug, Clone)]
pub struct LabelledGraphBuilder {
    /// Names of the action ids the edges will carry.
    actions: Vec<String>,
    /// `(source, action, target)` of every edge received so far.
    received: Vec<(u32, u32, u32)>,
    /// The graph, once finished.
    graph: Option<LabelledGraph>,
}

impl LabelledGraphBuilder {
    /// A builder for edges whose action ids index `actions`.
    pub fn new(actions: Vec<String>) -> LabelledGraphBuilder {
        LabelledGraphBuilder {
            actions,
            received: Vec::new(),
            graph: None,
        }
    }

    /// The graph, once [`GraphSink::finish`] has succeeded; `None` before.
    pub fn into_graph(self) -> Option<LabelledGraph> {
        self.graph
    }

    /// Refuses a call after a successful [`GraphSink::finish`].
    fn check_unfinished(&self) -> Result<(), SinkError> {
        match self.graph {
            Some(_) => Err(SinkError::Inconsistent(
                "the labelled graph is already finished".into(),
            )),
            None => Ok(()),
        }
    }
}

/// A state number from an explorer as a `u32`, or why it is not one.
fn state_number(state: u64) -> Result<u32, SinkError> {
    u32::try_from(state).map_err(|_| {
        SinkError::Capacity(format!(
            "state {state} does not fit the u32 state numbers of a labelled graph"
        ))
    })
}

impl GraphSink for LabelledGraphBuilder {
    fn edges(&mut self, batch: &[Edge]) -> Result<(), SinkError> {
        self.check_unfinished()?;
        self.received.reserve(batch.len());
        for &(source, action, target) in batch {
            self.received
                .push((state_number(source)?, action, state_number(target)?));
        }
        Ok(())
    }

    fn finish(&mut self, states: u64, transitions: u64) -> Result<(), SinkError> {
        self.check_unfinished()?;
        if transitions != self.received.len() as u64 {
            return Err(SinkError::Inconsistent(format!(
                "finish reports {transitions} transitions, but {} were received",
                self.received.len()
            )));
        }
        if states == 0 || states > MAX_STATES {
            return Err(SinkError::Capacity(format!(
                "finish reports {states} states; a labelled graph holds 1 to {MAX_STATES}"
            )));
        }
        let states = states as u32;
        check_transitions(self.received.iter().copied(), states, self.actions.len())
            .map_err(|fault| SinkError::Inconsistent(fault.to_string()))?;
        let received = std::mem::take(&mut self.received);
        let mut labels = vec![0; received.len()];
        let mut targets = vec![0; received.len()];
        let by_source = received
            .iter()
            .map(|&(source, action, target)| (source, (action, target)));
        let offsets = offsets::group_by_row(states, by_source, |slot, (action, target)| {
            labels[slot] = action;
            targets[slot] = target;
        });
        let graph = LabelledGraph {
            edges: Csr { offsets, targets },
            labels,
            actions: std::mem::take(&mut self.actions),
            initial: 0,
        };
        self.graph = Some(graph);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explicit::testing::assert_faults;

    /// Owned action names.
    fn names(actions: &[&str]) -> Vec<String> {
        actions.iter().map(|name| name.to_string()).collect()
    }

    /// Transitions of a small state space, sources interleaved.
    const EDGES: [Edge; 6] = [
        (0, 1, 1),
        (1, 0, 2),
        (0, 0, 2),
        (2, 2, 0),
        (1, 1, 1),
        (0, 2, 1),
    ];

    /// Feeds `batches` to a builder for the actions `a`, `b`, `tau`, then
    /// finishes it with the given totals.
    fn build(
        batches: &[&[Edge]],
        states: u64,
        transitions: u64,
    ) -> Result<LabelledGraph, SinkError> {
        let mut builder = LabelledGraphBuilder::new(names(&["a", "b", "tau"]));
        for batch in batches {
            builder.edges(batch)?;
        }
        assert_eq!(builder.clone().into_graph(), None);
        builder.finish(states, transitions)?;
        Ok(builder.into_graph().expect("finished"))
    }

    #[test]
    fn builder_groups_by_source_in_arrival_order() {
        let graph = build(&[&EDGES], 3, 6).unwrap();
        assert_eq!(graph.edges.offsets, [0, 3, 5, 6]);
        assert_eq!(graph.edges.targets, [1, 2, 1, 2, 1, 0]);
        assert_eq!(graph.labels, [1, 0, 2, 0, 1, 2]);
        assert_eq!(graph.actions, names(&["a", "b", "tau"]));
        assert_eq!(graph.initial, 0);
        assert_eq!(graph.validate(), Ok(()));
    }

    #[test]
    fn builder_ignores_how_edges_are_split_into_batches() {
        let whole = build(&[&EDGES], 3, 6).unwrap();
        for split in 0..=EDGES.len() {
            let (front, back) = EDGES.split_at(split);
            assert_eq!(
                build(&[front, back], 3, 6).unwrap(),
                whole,
                "split at {split}"
            );
        }
        let singles: Vec<&[Edge]> = EDGES.chunks(1).collect();
        assert_eq!(build(&singles, 3, 6).unwrap(), whole);
        // Sources in another order, each source's edges still in order.
        let by_source_backwards: Vec<Edge> = (0..3)
            .rev()
            .flat_map(|source| EDGES.iter().copied().filter(move |edge| edge.0 == source))
            .collect();
        assert_eq!(build(&[&by_source_backwards], 3, 6).unwrap(), whole);
    }

    #[test]
    fn canonical_edges_forget_the_order_within_a_source() {
        let graph = build(&[&EDGES], 3, 6).unwrap();
        let mut reordered = EDGES;
        reordered.reverse();
        let other = build(&[&reordered], 3, 6).unwrap();
        assert_ne!(other, graph);
        let mut expected: Vec<(u32, u32, u32)> = EDGES
            .iter()
            .map(|&(source, action, target)| (source as u32, action, target as u32))
            .collect();
        expected.sort_unstable();
        assert_eq!(graph.canonical_edges(), expected);
        assert_eq!(other.canonical_edges(), expected);
    }

    #[test]
    fn builder_refuses_inconsistent_input() {
        let fault = |batch: &[Edge], states, transitions| {
            build(&[batch], states, transitions)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            fault(&EDGES, 3, 5),
            "inconsistent graph: finish reports 5 transitions, but 6 were received"
        );
        assert_eq!(
            fault(&[], 0, 0),
            "finish reports 0 states; a labelled graph holds 1 to 4294967295"
        );
        assert_eq!(
            fault(&[], 1 << 32, 0),
            "finish reports 4294967296 states; a labelled graph holds 1 to 4294967295"
        );
        assert_eq!(
            fault(&[(0, 0, 1 << 32)], 3, 1),
            "state 4294967296 does not fit the u32 state numbers of a labelled graph"
        );
        assert_eq!(
            fault(&[(3, 0, 1)], 3, 1),
            "inconsistent graph: edge 3 -> 1 leaves the 3 states"
        );
        assert_eq!(
            fault(&[(1, 0, 3)], 3, 1),
            "inconsistent graph: edge 1 -> 3 leaves the 3 states"
        );
        assert_eq!(
            fault(&[(1, 3, 0)], 3, 1),
            "inconsistent graph: edge 1 -> 0 has action 3, but 3 actions are named"
        );
    }

    #[test]
    fn builder_takes_nothing_after_finishing() {
        let mut builder = LabelledGraphBuilder::new(names(&["a"]));
        builder.edges(&[(0, 0, 0)]).unwrap();
        builder.finish(1, 1).unwrap();
        let finished = "inconsistent graph: the labelled graph is already finished";
        assert_eq!(builder.edges(&[]).unwrap_err().to_string(), finished);
        assert_eq!(builder.finish(1, 1).unwrap_err().to_string(), finished);
        assert_eq!(builder.into_graph().unwrap().canonical_edges(), [(0, 0, 0)]);
    }

    #[test]
    fn validate_names_each_fault() {
        assert_faults(
            &build(&[&EDGES], 3, 6).unwrap(),
            LabelledGraph::validate,
            &[
                (
                    |g| g.edges.targets[0] = 5,
                    "edge 0 -> 5 leaves the 3 states",
                ),
                (
                    |g| g.edges.offsets[3] = 7,
                    "offsets end at 7, but there are 6 entries",
                ),
                (|g| g.labels.truncate(5), "5 labels for 6 edges"),
                (
                    |g| g.labels[4] = 9,
                    "edge 1 -> 1 has action 9, but 3 actions are named",
                ),
                (
                    |g| g.initial = 3,
                    "initial state 3 is not among the 3 states",
                ),
            ],
        );
    }
}
