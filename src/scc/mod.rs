//! Strongly connected components of a [`Csr`] graph.
//!
//! Every algorithm here labels each state with a representative, equal
//! for two states exactly when they share a component; [`Components`]
//! turns such labels into the one numbering every engine reports
//! (components numbered by their smallest state), so results compare
//! with `==`. [`reference`](mod@reference) is the sequential oracle (iterative Tarjan);
//! [`cpu`] and [`gpu`] are the fast variants, checked against it.
//! Knows no file format and no CLI.

pub mod cpu;
pub mod gpu;
pub mod labels;
pub mod mutual;
pub mod reference;

use rayon::prelude::*;

use crate::explicit::Csr;

/// Bytes that a decomposition on the host allocates beyond the graph
/// itself, at least: 16 a state for the CPU engine's race of Tarjan and a
/// parallel method (`parallel`), plus the transpose's 4 an edge, else 13 a
/// state for Tarjan alone (peaks on 2·10^7 isolated states less the
/// loaded graph; docs/SCC.md, "Memory"). While the transpose is built by
/// parts, each thread's counts take 4 bytes a state more (at most 4 an
/// edge in all), which this lower bound leaves out.
pub fn host_working_bytes(states: u64, edges: u64, parallel: bool) -> u64 {
    if parallel {
        states
            .saturating_mul(16)
            .saturating_add(edges.saturating_mul(4))
    } else {
        states.saturating_mul(13)
    }
}

/// A partition of a graph's states into strongly connected components.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Components {
    /// The component of every state. Components are numbered from 0 in
    /// the order of their smallest state: state 0 is in component 0, and
    /// the first state not in it is in component 1, and so on.
    pub of_state: Vec<u32>,
    /// Number of components.
    pub count: u32,
}

impl Components {
    /// The partition given by `representatives`: one state per state, the
    /// same state for every member of a component (any member: each
    /// algorithm names components its own way), renumbered in the
    /// canonical order in one pass.
    pub fn from_representatives(representatives: &[u32]) -> Components {
        const UNNUMBERED: u32 = u32::MAX;
        let mut number = vec![UNNUMBERED; representatives.len()];
        let mut count = 0;
        let of_state = representatives
            .iter()
            .map(|&representative| {
                let slot = &mut number[representative as usize];
                if *slot == UNNUMBERED {
                    *slot = count;
                    count += 1;
                }
                *slot
            })
            .collect();
        Components { of_state, count }
    }

    /// The figures users ask of a decomposition of `graph`.
    pub fn summary(&self, graph: &Csr) -> Summary {
        let components = self.count as usize;
        let mut sizes = vec![0u64; components];
        for &component in &self.of_state {
            sizes[component as usize] += 1;
        }
        let (self_loops, leaving) = (0..graph.states())
            .into_par_iter()
            .fold(
                || (Vec::new(), Vec::new()),
                |(mut self_loops, mut leaving), state| {
                    let component = self.of_state[state as usize];
                    let successors = graph.successors(state);
                    if successors.contains(&state) {
                        self_loops.push(component);
                    }
                    if successors
                        .iter()
                        .any(|&target| self.of_state[target as usize] != component)
                    {
                        leaving.push(component);
                    }
                    (self_loops, leaving)
                },
            )
            .reduce(
                || (Vec::new(), Vec::new()),
                |(mut a, mut b), (c, d)| {
                    a.extend(c);
                    b.extend(d);
                    (a, b)
                },
            );
        let mut has_self_loop = vec![false; components];
        self_loops
            .into_iter()
            .for_each(|c| has_self_loop[c as usize] = true);
        let mut is_bottom = vec![true; components];
        leaving
            .into_iter()
            .for_each(|c| is_bottom[c as usize] = false);
        Summary {
            states: graph.states() as u64,
            edges: graph.edge_count(),
            components: self.count as u64,
            largest_component: sizes.iter().copied().max().unwrap_or(0),
            trivial_components: (0..components)
                .filter(|&c| sizes[c] == 1 && !has_self_loop[c])
                .count() as u64,
            bottom_components: is_bottom.iter().filter(|&&bottom| bottom).count() as u64,
        }
    }
}

/// The counts of a decomposition, as `warpcheck scc` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Summary {
    /// States of the graph.
    pub states: u64,
    /// Edges of the graph.
    pub edges: u64,
    /// Strongly connected components.
    pub components: u64,
    /// States in the largest component (0 for the empty graph).
    pub largest_component: u64,
    /// Components of one state without a self-loop.
    pub trivial_components: u64,
    /// Components that no edge leaves (a state without successors is one).
    pub bottom_components: u64,
}
