//! The sequential oracle: Tarjan's algorithm with an explicit call stack,
//! so that graphs of 10^8 states and chains as long do not overflow the
//! thread's stack.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::Components;
use crate::explicit::Csr;

/// A state not yet reached by the search.
const UNVISITED: u32 = u32::MAX;

/// The strongly connected components of `graph`, all states included.
pub fn decompose(graph: &Csr) -> Components {
    Components::from_representatives(&representatives(graph))
}

/// Each state's component, named by the component's root in the search
/// (the member the search entered first).
pub fn representatives(graph: &Csr) -> Vec<u32> {
    let mut representative = vec![0; graph.states() as usize];
    representatives_among(graph, 0..graph.states(), |_| true, &mut representative);
    representative
}

/// The components of the subgraph induced by the states `members` (those
/// for which `is_member` holds), written into `representative` at those
/// states: the rest of a parallel decomposition, whose assigned states
/// form whole components, so that the induced components are the graph's.
pub fn representatives_among(
    graph: &Csr,
    members: impl IntoIterator<Item = u32>,
    is_member: impl Fn(u32) -> bool,
    representative: &mut [u32],
) {
    let never = AtomicBool::new(false);
    representatives_among_unless(graph, members, is_member, representative, &never);
}

/// [`representatives`], unless `stop` is set before it ends (checked
/// every [`STEPS_BETWEEN_CHECKS`] steps): then `None`. What races the
/// parallel rounds in [`super::cpu::race`].
pub fn representatives_unless(graph: &Csr, stop: &AtomicBool) -> Option<Vec<u32>> {
    let mut representative = vec![0; graph.states() as usize];
    let states = 0..graph.states();
    representatives_among_unless(graph, states, |_| true, &mut representative, stop)
        .then_some(representative)
}

/// Search steps between two looks at a stop flag.
pub const STEPS_BETWEEN_CHECKS: u64 = 1 << 16;

/// [`representatives_among`] until `stop` is set; whether it finished.
pub fn representatives_among_unless(
    graph: &Csr,
    members: impl IntoIterator<Item = u32>,
    is_member: impl Fn(u32) -> bool,
    representative: &mut [u32],
    stop: &AtomicBool,
) -> bool {
    let mut search = Search::new(graph.states() as usize);
    let mut name = |member: u32, root: u32| representative[member as usize] = root;
    for root in members {
        if search.order[root as usize] == UNVISITED
            && !search.from(graph, root, &is_member, &mut name, stop)
        {
            return false;
        }
    }
    true
}

/// The components of `graph` in the order the search completes them, in
/// which each comes after every component it reaches: their states,
/// component after component, and where each component starts in that
/// list (then its length).
pub fn in_completion_order(graph: &Csr) -> (Vec<u32>, Vec<u32>) {
    in_completion_order_among(graph, 0..graph.states(), |_| true)
}

/// [`in_completion_order`] of the subgraph induced by the states `members`
/// (those for which `is_member` holds), searched from them in turn.
pub fn in_completion_order_among(
    graph: &Csr,
    members: impl IntoIterator<Item = u32>,
    is_member: impl Fn(u32) -> bool,
) -> (Vec<u32>, Vec<u32>) {
    let members = members.into_iter();
    let mut search = Search::new(graph.states() as usize);
    let mut states = Vec::with_capacity(members.size_hint().0);
    let mut starts = vec![0];
    let mut record = |member: u32, root: u32| {
        states.push(member);
        if member == root {
            starts.push(states.len() as u32);
        }
    };
    let never = AtomicBool::new(false);
    for root in members {
        if search.order[root as usize] == UNVISITED {
            search.from(graph, root, &is_member, &mut record, &never);
        }
    }
    (states, starts)
}

/// The state of one Tarjan search over a graph.
struct Search {
    /// Visit order of each state, [`UNVISITED`] before.
    order: Vec<u32>,
    /// The smallest visit order reachable through the state's subtree
    /// and one edge back into the component stack.
    low: Vec<u32>,
    /// Whether the state's component is complete.
    finished: Vec<bool>,
    /// States entered whose component is not complete yet.
    component_stack: Vec<u32>,
    /// The call stack: a state and the index of its next edge to follow.
    calls: Vec<(u32, u64)>,
    /// States visited so far.
    visited: u32,
}

impl Search {
    fn new(states: usize) -> Search {
        Search {
            order: vec![UNVISITED; states],
            low: vec![0; states],
            finished: vec![false; states],
            component_stack: Vec::new(),
            calls: Vec::new(),
            visited: 0,
        }
    }

    /// Visits `state` first: numbers it and puts it on both stacks.
    fn enter(&mut self, graph: &Csr, state: u32) {
        self.order[state as usize] = self.visited;
        self.low[state as usize] = self.visited;
        self.visited += 1;
        self.component_stack.push(state);
        self.calls.push((state, graph.offsets[state as usize]));
    }

    /// Finishes every component reachable from `root`, an unvisited
    /// member, through members, giving `finished` each member and its
    /// component's root, component after component as they complete (the
    /// root last); false if `stop` was seen set first.
    fn from(
        &mut self,
        graph: &Csr,
        root: u32,
        is_member: &impl Fn(u32) -> bool,
        finished: &mut impl FnMut(u32, u32),
        stop: &AtomicBool,
    ) -> bool {
        self.enter(graph, root);
        let mut steps = 0u64;
        while let Some(&(state, next)) = self.calls.last() {
            steps += 1;
            if steps.is_multiple_of(STEPS_BETWEEN_CHECKS) && stop.load(Relaxed) {
                return false;
            }
            if next < graph.offsets[state as usize + 1] {
                let target = graph.targets[next as usize];
                self.calls.last_mut().expect("a call is running").1 += 1;
                if !is_member(target) {
                    continue;
                }
                if self.order[target as usize] == UNVISITED {
                    self.enter(graph, target);
                } else if !self.finished[target as usize] {
                    let low = &mut self.low[state as usize];
                    *low = (*low).min(self.order[target as usize]);
                }
                continue;
            }
            self.calls.pop();
            let state_low = self.low[state as usize];
            if let Some(&(parent, _)) = self.calls.last() {
                let low = &mut self.low[parent as usize];
                *low = (*low).min(state_low);
            }
            if state_low == self.order[state as usize] {
                loop {
                    let member = self
                        .component_stack
                        .pop()
                        .expect("the root is on the stack");
                    self.finished[member as usize] = true;
                    finished(member, state);
                    if member == state {
                        break;
                    }
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn partition(states: u32, edges: &[(u32, u32)]) -> Vec<u32> {
        decompose(&Csr::from_edges(states, edges.iter().copied()).unwrap()).of_state
    }

    #[test]
    fn cycles_chains_and_isolated_states() {
        // 0 <-> 1 -> 2 -> 3 -> 2, 4 alone, 5 -> 5
        let edges = [(0, 1), (1, 0), (1, 2), (2, 3), (3, 2), (5, 5)];
        assert_eq!(partition(6, &edges), [0, 0, 1, 1, 2, 3]);
        // A self-loop after an edge that leaves the component still counts.
        let graph = Csr::from_edges(3, [(0, 1), (0, 0), (1, 2)]).unwrap();
        let summary = decompose(&graph).summary(&graph);
        assert_eq!(
            (summary.trivial_components, summary.bottom_components),
            (2, 1)
        );
        assert_eq!(partition(6, &edges), [0, 0, 1, 1, 2, 3]);
    }

    #[test]
    fn components_complete_after_those_they_reach() {
        // 0 <-> 1 -> 2 <-> 3, 4 alone, 5 -> 5
        let edges = [(0, 1), (1, 0), (1, 2), (2, 3), (3, 2), (5, 5)];
        let graph = Csr::from_edges(6, edges).unwrap();
        let (states, starts) = in_completion_order(&graph);
        assert_eq!(states, [3, 2, 1, 0, 4, 5]);
        assert_eq!(starts, [0, 2, 4, 5, 6]);
    }

    #[test]
    fn a_long_chain_needs_no_recursion() {
        let states = 2_000_000;
        let edges: Vec<(u32, u32)> = (0..states - 1).map(|s| (s, s + 1)).collect();
        let components = decompose(&Csr::from_edges(states, edges).unwrap());
        assert_eq!(components.count, states);
        let cycle: Vec<(u32, u32)> = (0..states).map(|s| (s, (s + 1) % states)).collect();
        assert_eq!(decompose(&Csr::from_edges(states, cycle).unwrap()).count, 1);
    }

    #[test]
    fn summary_counts_trivial_and_bottom_components() {
        let graph = Csr::from_edges(6, [(0, 1), (1, 0), (1, 2), (2, 3), (3, 2), (5, 5)]).unwrap();
        let summary = decompose(&graph).summary(&graph);
        assert_eq!(
            summary,
            super::super::Summary {
                states: 6,
                edges: 6,
                components: 4,
                largest_component: 2,
                trivial_components: 1,
                bottom_components: 3,
            }
        );
    }
}
