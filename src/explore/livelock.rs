//! Livelock detection: is there a reachable cycle of internal actions
//! only? A livelock is a way for the network to run forever without any
//! visible action, which a deadlock check cannot see.
//!
//! Every engine hands over the complete state space it explored as a
//! [`StateSpace`]: a [`LabelledGraph`] numbered its own way, and a way to
//! read back the state vectors of chosen states from the engine's own
//! store ([`StateVectors`]), so that a lasso found in one engine's graph
//! is rendered from that engine's states. The search here works on the
//! graph alone ([`tau_cycles`]): the edges whose action is internal form
//! the tau-subgraph, its strongly connected components come from
//! [`tau_components`] (the one place an SCC algorithm is called), and a
//! state lies on a tau-cycle exactly when its component has two or more
//! states or it has a tau self-loop. The lasso is a shortest path (by
//! breadth-first search over all edges) from the initial state to such a
//! state, then a shortest tau-cycle through that state inside its
//! component.
//!
//! Memory stays linear in `u32` per state: the tau-subgraph is a CSR of
//! `u32` targets, the searches keep one `u32` per state.
//! Knows no file format and no CLI.

use std::collections::VecDeque;

use super::{Exploration, Trace, outcome};
use crate::encode::EncodedNetwork;
use crate::error::Error;
use crate::explicit::{Csr, LabelledGraph, LabelledGraphBuilder};
use crate::scc::{self, Components};

/// The action names that count as internal: `tau` (mCRL2's spelling,
/// and how `.aut` and `.exp` files read both spellings) and `i` (CADP's
/// spelling, as a `.net` or PNML model may name an action).
pub const INTERNAL_ACTIONS: [&str; 2] = ["tau", "i"];

/// Whether the action named `name` is internal (see [`INTERNAL_ACTIONS`]).
pub fn is_internal(name: &str) -> bool {
    INTERNAL_ACTIONS.contains(&name)
}

/// Reads the vectors of states of a [`StateSpace`] from the store of the
/// engine that explored it, under the engine's own numbering.
pub trait StateVectors {
    /// The vector of each state of `states`, in that order. Fails when
    /// the engine's store cannot be read (a device error) or a number is
    /// not a state.
    fn vectors(&self, states: &[u32]) -> Result<Vec<Vec<u32>>, Error>;
}

/// Vectors kept in one array, `words` words each, state `s` at
/// `s * words`: the reference engine's store (which numbers states in
/// discovery order), and the one state of a search whose initial state is
/// an error state.
#[derive(Debug, Clone)]
pub struct FlatVectors {
    /// Words of a vector.
    pub words: usize,
    /// The vectors, one after the other.
    pub vectors: Vec<u32>,
}

/// The state space of an [`initial_error`](super::outcome::initial_error)
/// search: its one state, whose vector is the initial one, when the
/// search is complete. Every engine ends such a search this way.
pub fn alone(
    net: &EncodedNetwork,
    exploration: Exploration,
) -> Result<(Exploration, Option<StateSpace>), Error> {
    let mut builder = LabelledGraphBuilder::new(net.actions.clone());
    let exploration = outcome::alone_into(exploration, &mut builder)?;
    let space = builder.into_graph().map(|graph| StateSpace {
        graph,
        vectors: Box::new(FlatVectors {
            words: net.words(),
            vectors: net.initial.clone(),
        }),
    });
    Ok((exploration, space))
}

impl StateVectors for FlatVectors {
    fn vectors(&self, states: &[u32]) -> Result<Vec<Vec<u32>>, Error> {
        states
            .iter()
            .map(|&state| {
                let at = state as usize * self.words;
                self.vectors
                    .get(at..at + self.words)
                    .map(<[u32]>::to_vec)
                    .ok_or_else(|| Error::Internal(format!("state {state} has no stored vector")))
            })
            .collect()
    }
}

/// The complete state space of a search, as the engine that explored it
/// numbered it (0 is the initial state), with access to its vectors.
pub struct StateSpace {
    /// Every transition, with its action.
    pub graph: LabelledGraph,
    /// The vectors of the graph's states.
    pub vectors: Box<dyn StateVectors>,
}

/// A lasso in a graph: a path from the initial state whose steps from
/// `loop_start` on form a cycle of internal actions. `states[0]` is the
/// initial state, `actions[k]` leads from `states[k]` to `states[k + 1]`,
/// and the last state equals `states[loop_start]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphLasso {
    /// The states of the path, the cycle's first state again at the end.
    pub states: Vec<u32>,
    /// The action of each step.
    pub actions: Vec<u32>,
    /// Index of the cycle's first state in `states`: the prefix has this
    /// many steps.
    pub loop_start: usize,
}

/// What the search for tau-cycles found in a graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TauCycles {
    /// Reachable states that lie on a cycle of internal actions.
    pub cyclic_states: u64,
    /// A lasso to one of them, when there is one: shortest prefix, then a
    /// shortest cycle through the prefix's last state.
    pub lasso: Option<GraphLasso>,
}

/// A lasso of state vectors: `trace` runs from the initial state through
/// the cycle back to `trace.states[loop_start]`; the steps from
/// `loop_start` on are the cycle of internal actions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lasso {
    /// The whole path, prefix then cycle.
    pub trace: Trace,
    /// Steps of the prefix; the cycle starts at `trace.states[loop_start]`.
    pub loop_start: usize,
}

/// The answer of a livelock check on a complete state space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Livelock {
    /// Reachable states on a cycle of internal actions: a livelock exists
    /// exactly when this is not 0.
    pub cyclic_states: u64,
    /// The lasso, when a livelock exists and a trace was asked for.
    pub lasso: Option<Lasso>,
}

impl Livelock {
    /// Whether a livelock was found.
    pub fn found(&self) -> bool {
        self.cyclic_states > 0
    }
}

/// Checks `space` for a reachable cycle of internal actions; with `trace`,
/// reads the vectors of a lasso to it from the engine's store.
pub fn check(space: &StateSpace, trace: bool) -> Result<Livelock, Error> {
    let found = tau_cycles(&space.graph);
    let lasso = match found.lasso.filter(|_| trace) {
        Some(lasso) => Some(Lasso {
            trace: Trace {
                states: space.vectors.vectors(&lasso.states)?,
                actions: lasso.actions,
            },
            loop_start: lasso.loop_start,
        }),
        None => None,
    };
    Ok(Livelock {
        cyclic_states: found.cyclic_states,
        lasso,
    })
}

/// The strongly connected components of the tau-subgraph: the one call of
/// an SCC algorithm in the livelock check, so that a faster variant
/// replaces it here.
pub fn tau_components(tau: &Csr) -> Components {
    scc::reference::decompose(tau)
}

/// The internal edges of `graph` as a [`Csr`] on the same states (each
/// state's internal edges in their stored order), and the action of each
/// of its edges.
fn tau_subgraph(graph: &LabelledGraph) -> (Csr, Vec<u32>) {
    let internal: Vec<bool> = graph.actions.iter().map(|a| is_internal(a)).collect();
    let is_tau = |label: u32| internal.get(label as usize).copied().unwrap_or(false);
    let states = graph.edges.states();
    let mut offsets = Vec::with_capacity(states as usize + 1);
    let mut targets = Vec::new();
    let mut labels = Vec::new();
    offsets.push(0u64);
    for state in 0..states {
        let row = graph.edges.offsets[state as usize] as usize
            ..graph.edges.offsets[state as usize + 1] as usize;
        for (&target, &label) in graph.edges.targets[row.clone()]
            .iter()
            .zip(&graph.labels[row])
        {
            if is_tau(label) {
                targets.push(target);
                labels.push(label);
            }
        }
        offsets.push(targets.len() as u64);
    }
    (Csr { offsets, targets }, labels)
}

/// Marks "not reached" in the breadth-first search over all edges.
const UNREACHED: u32 = u32::MAX;

/// Finds the reachable states of `graph` (a validated graph) that lie on a
/// cycle of internal actions, and a lasso to one of them.
pub fn tau_cycles(graph: &LabelledGraph) -> TauCycles {
    let (tau, tau_labels) = tau_subgraph(graph);
    let components = tau_components(&tau);
    let on_cycle = cyclic_states(&tau, &components);
    // Breadth-first over all edges from the initial state: `parent` holds
    // the state each state was first reached from (the initial state its
    // own), [`UNREACHED`] before.
    let mut parent = vec![UNREACHED; graph.edges.states() as usize];
    parent[graph.initial as usize] = graph.initial;
    let mut queue = VecDeque::from([graph.initial]);
    let mut entry = None;
    let mut cyclic = 0u64;
    while let Some(state) = queue.pop_front() {
        if on_cycle[state as usize] {
            cyclic += 1;
            entry.get_or_insert(state);
        }
        for &target in graph.edges.successors(state) {
            if parent[target as usize] == UNREACHED {
                parent[target as usize] = state;
                queue.push_back(target);
            }
        }
    }
    let lasso = entry.and_then(|entry| {
        let (cycle_states, cycle_actions) = cycle(&tau, &tau_labels, &components, entry)?;
        let (mut states, mut actions) = prefix(graph, &parent, entry);
        let loop_start = actions.len();
        states.extend(cycle_states);
        actions.extend(cycle_actions);
        Some(GraphLasso {
            states,
            actions,
            loop_start,
        })
    });
    TauCycles {
        cyclic_states: cyclic,
        lasso,
    }
}

/// Whether each state lies on a tau-cycle: its component has two or more
/// states, or it has a tau self-loop.
fn cyclic_states(tau: &Csr, components: &Components) -> Vec<bool> {
    let mut sizes = vec![0u32; components.count as usize];
    for &component in &components.of_state {
        sizes[component as usize] = sizes[component as usize].saturating_add(1);
    }
    (0..tau.states())
        .map(|state| {
            sizes[components.of_state[state as usize] as usize] >= 2
                || tau.successors(state).contains(&state)
        })
        .collect()
}

/// The breadth-first path from the initial state to `end` along the links
/// in `parent`: its states (initial first, `end` last) and actions. Each
/// step's action is that of the first edge from the parent to the state,
/// the edge the search reached it by.
fn prefix(graph: &LabelledGraph, parent: &[u32], end: u32) -> (Vec<u32>, Vec<u32>) {
    let mut states = vec![end];
    let mut actions = Vec::new();
    let mut at = end;
    while at != graph.initial {
        let source = parent[at as usize];
        let row = graph.edges.offsets[source as usize] as usize
            ..graph.edges.offsets[source as usize + 1] as usize;
        let edge = row.start
            + graph.edges.targets[row]
                .iter()
                .position(|&target| target == at)
                .unwrap_or(0);
        actions.push(graph.labels[edge]);
        at = source;
        states.push(at);
    }
    states.reverse();
    actions.reverse();
    (states, actions)
}

/// A shortest cycle of tau edges through `start`, inside its component
/// (where every tau-cycle through `start` lies): the states after `start`
/// (ending with `start` again) and the actions of the steps; `None` when
/// no tau-cycle passes through `start`.
fn cycle(
    tau: &Csr,
    labels: &[u32],
    components: &Components,
    start: u32,
) -> Option<(Vec<u32>, Vec<u32>)> {
    let component = components.of_state[start as usize];
    // The tau edge each state of the component was first reached by.
    let mut parent: hashbrown::HashMap<u32, u64> = hashbrown::HashMap::new();
    let mut queue = VecDeque::from([start]);
    let mut closing = None;
    'search: while let Some(state) = queue.pop_front() {
        for edge in tau.offsets[state as usize]..tau.offsets[state as usize + 1] {
            let target = tau.targets[edge as usize];
            if target == start {
                closing = Some(edge);
                break 'search;
            }
            if components.of_state[target as usize] == component && !parent.contains_key(&target) {
                parent.insert(target, edge);
                queue.push_back(target);
            }
        }
    }
    let mut edge = closing?;
    let mut states = vec![start];
    let mut actions = vec![labels[edge as usize]];
    loop {
        let source = (tau.offsets.partition_point(|&o| o <= edge) - 1) as u32;
        if source == start {
            break;
        }
        states.push(source);
        edge = *parent.get(&source)?;
        actions.push(labels[edge as usize]);
    }
    states.reverse();
    actions.reverse();
    Some((states, actions))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explicit::{GraphSink, LabelledGraphBuilder};

    /// The graph of `edges` on `states` states, actions `a`, `tau`, `i`, `b`.
    fn graph(states: u64, edges: &[(u64, u32, u64)]) -> LabelledGraph {
        let actions = ["a", "tau", "i", "b"].map(String::from).to_vec();
        let mut builder = LabelledGraphBuilder::new(actions);
        builder.edges(edges).unwrap();
        builder.finish(states, edges.len() as u64).unwrap();
        builder.into_graph().unwrap()
    }

    const A: u32 = 0;
    const TAU: u32 = 1;
    const I: u32 = 2;
    const B: u32 = 3;

    #[test]
    fn internal_names_are_tau_and_i() {
        assert!(is_internal("tau") && is_internal("i"));
        assert!(!is_internal("TAU") && !is_internal("i1") && !is_internal(""));
    }

    #[test]
    fn no_internal_cycle_no_lasso() {
        // A visible cycle and a tau chain.
        let g = graph(4, &[(0, A, 1), (1, B, 0), (1, TAU, 2), (2, I, 3)]);
        assert_eq!(
            tau_cycles(&g),
            TauCycles {
                cyclic_states: 0,
                lasso: None
            }
        );
    }

    #[test]
    fn shortest_prefix_then_shortest_cycle() {
        // 0 -a-> 1 -a-> 2 -tau-> 3 -i-> 2 (cycle of 2), and a longer way
        // 0 -b-> 4 -b-> 5 -b-> 3. Also a tau 3-cycle 2 -tau-> 6 -tau-> 7 -tau-> 2.
        let g = graph(
            8,
            &[
                (0, A, 1),
                (0, B, 4),
                (1, A, 2),
                (2, TAU, 6),
                (2, TAU, 3),
                (3, I, 2),
                (4, B, 5),
                (5, B, 3),
                (6, TAU, 7),
                (7, TAU, 2),
            ],
        );
        let found = tau_cycles(&g);
        assert_eq!(found.cyclic_states, 4);
        assert_eq!(
            found.lasso,
            Some(GraphLasso {
                states: vec![0, 1, 2, 3, 2],
                actions: vec![A, A, TAU, I],
                loop_start: 2
            })
        );
    }

    #[test]
    fn a_self_loop_is_a_cycle() {
        let g = graph(3, &[(0, A, 1), (1, TAU, 1), (1, A, 2), (2, TAU, 2)]);
        let found = tau_cycles(&g);
        assert_eq!(found.cyclic_states, 2);
        assert_eq!(
            found.lasso,
            Some(GraphLasso {
                states: vec![0, 1, 1],
                actions: vec![A, TAU],
                loop_start: 1
            })
        );
    }

    #[test]
    fn the_initial_state_may_start_the_cycle() {
        let g = graph(2, &[(0, I, 1), (1, TAU, 0)]);
        assert_eq!(
            tau_cycles(&g).lasso,
            Some(GraphLasso {
                states: vec![0, 1, 0],
                actions: vec![I, TAU],
                loop_start: 0
            })
        );
    }

    #[test]
    fn unreachable_cycles_do_not_count() {
        // 2 <-tau-> 3 is not reachable from 0; 1 -a-> 1 is visible.
        let g = graph(4, &[(0, TAU, 1), (1, A, 1), (2, TAU, 3), (3, TAU, 2)]);
        assert_eq!(tau_cycles(&g).cyclic_states, 0);
    }

    #[test]
    fn a_cycle_mixing_visible_and_internal_steps_is_no_livelock() {
        let g = graph(3, &[(0, TAU, 1), (1, A, 2), (2, TAU, 0)]);
        assert_eq!(tau_cycles(&g).lasso, None);
    }

    #[test]
    fn flat_vectors_read_by_state_number() {
        let flat = FlatVectors {
            words: 2,
            vectors: vec![1, 2, 3, 4],
        };
        assert_eq!(flat.vectors(&[1, 0]).unwrap(), [vec![3, 4], vec![1, 2]]);
        assert_eq!(
            flat.vectors(&[2]).unwrap_err().to_string(),
            "internal error: state 2 has no stored vector"
        );
    }
}
