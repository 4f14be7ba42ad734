//! Shortcuts over chains of vertices with one move (Bootsma's thesis,
//! chapter 6), for small progress measures.
//!
//! A play that enters a vertex with one move has no choice until it
//! reaches a vertex with two or more: the chain in between only adds its
//! priorities. So a move `u → v`, where `v` has one move, can go straight
//! to the end of `v`'s chain instead, if the move carries a priority of
//! its own: the highest of the priorities passed, `u`'s and those of the
//! chain's vertices (max-parity: the highest priority seen infinitely
//! often decides a play, and a chain passed infinitely often shows its
//! highest infinitely often). Priorities then sit on moves, not vertices:
//! a move without a shortcut carries its source's priority.
//!
//! Every play of the game with shortcuts is a play of the game with its
//! chains skipped, and the other way round, with the same winner; so the
//! winners are the game's. A strategy's move maps back to the move's first
//! step (the chain's first vertex), after which the chain has no choice:
//! the plays it allows are the expansions of the shortcut strategy's.
//! The thesis also shortcuts a vertex's move into a vertex of several
//! moves owned by the same player, moving that choice one step earlier;
//! that is left out here: the strategy would then have to choose at the
//! skipped vertex by where the play came from, which a positional
//! strategy cannot.
//!
//! A chain that runs into a cycle of vertices with one move each has no
//! end: moves into it keep their target.

use crate::explicit::Csr;
use crate::explicit::offsets::{group_by_row, row_range};

/// The moves of a game, each with its priority and its first step in the
/// game: the game's own ([`Moves::of`]), or with chains skipped
/// ([`skip_chains`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moves {
    /// The moves, in the order of the game's (one for one).
    pub edges: Csr,
    /// Each move's priority: the highest of its source's and the skipped
    /// vertices'.
    pub priorities: Vec<u32>,
    /// Each move's successor in the game, kept when some move skips a
    /// vertex; `None` when none does, each move's successor being then its
    /// target (read them with [`Moves::first_step`]).
    pub first_steps: Option<Vec<u32>>,
    /// How many moves skip at least one vertex.
    pub skipping: u64,
}

impl Moves {
    /// The moves `edges` of a game of vertex `priorities` as they are:
    /// each carries its source's priority.
    pub fn of(edges: Csr, priorities: &[u32]) -> Moves {
        let priorities = (0..priorities.len() as u32)
            .flat_map(|v| {
                edges
                    .successors(v)
                    .iter()
                    .map(move |_| priorities[v as usize])
            })
            .collect();
        Moves {
            edges,
            priorities,
            first_steps: None,
            skipping: 0,
        }
    }

    /// The successor in the game of move `e`: the first vertex it skips,
    /// or its target.
    pub fn first_step(&self, e: usize) -> u32 {
        match &self.first_steps {
            Some(first_steps) => first_steps[e],
            None => self.edges.targets[e],
        }
    }

    /// The moves of `v`: their positions in [`Moves::edges`]' targets.
    pub fn of_vertex(&self, v: u32) -> std::ops::Range<usize> {
        row_range(&self.edges.offsets, v as usize)
    }

    /// The moves by target: each vertex's predecessors (the transpose of
    /// [`Moves::edges`], by increasing source, a source once per move) and
    /// beside each the priority of its move.
    pub fn incoming(&self) -> (Csr, Vec<u32>) {
        let vertices = self.edges.states();
        let mut sources = vec![0; self.edges.targets.len()];
        let mut priorities = vec![0; self.edges.targets.len()];
        let reversed = (0..vertices).flat_map(|u| {
            self.of_vertex(u)
                .map(move |e| (self.edges.targets[e], (u, self.priorities[e])))
        });
        let offsets = group_by_row(vertices, reversed, |slot, (source, priority)| {
            sources[slot] = source;
            priorities[slot] = priority;
        });
        let predecessors = Csr {
            offsets,
            targets: sources,
        };
        (predecessors, priorities)
    }
}

/// Where the chain of a vertex with one move ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChainEnd {
    /// Not looked at yet.
    Unknown,
    /// On the chain being followed now.
    Following,
    /// At this vertex (one with zero or several moves), having passed
    /// this highest priority.
    At { vertex: u32, highest: u32 },
    /// Nowhere: the chain runs into a cycle of vertices with one move.
    Endless,
}

/// The moves of the game of `edges` and vertex `priorities` with every
/// move into a vertex of one move sent to the end of its chain. Linear in
/// the size of the game: each chain is followed once.
pub fn skip_chains(edges: &Csr, priorities: &[u32]) -> Moves {
    let vertices = priorities.len();
    let single = |v: u32| edges.successors(v).len() == 1;
    let mut ends = vec![ChainEnd::Unknown; vertices];
    let mut path = Vec::new();
    for start in 0..vertices as u32 {
        if !single(start) || ends[start as usize] != ChainEnd::Unknown {
            continue;
        }
        // Follow the chain to a vertex of several moves, a vertex already
        // resolved, or a vertex on this path (a cycle).
        let mut v = start;
        let beyond = loop {
            if !single(v) {
                break ChainEnd::At {
                    vertex: v,
                    highest: 0,
                };
            }
            match ends[v as usize] {
                ChainEnd::Unknown => {
                    ends[v as usize] = ChainEnd::Following;
                    path.push(v);
                    v = edges.successors(v)[0];
                }
                ChainEnd::Following => break ChainEnd::Endless,
                resolved => break resolved,
            }
        };
        // Resolve the path from its end back: each vertex's chain ends
        // where its successor's does, past its own priority too.
        let mut end = beyond;
        for &u in path.iter().rev() {
            if let ChainEnd::At { vertex, highest } = end {
                end = ChainEnd::At {
                    vertex,
                    highest: highest.max(priorities[u as usize]),
                };
            }
            ends[u as usize] = end;
        }
        path.clear();
    }
    let mut targets = Vec::with_capacity(edges.targets.len());
    let mut move_priorities = Vec::with_capacity(edges.targets.len());
    let mut skipping = 0;
    for u in 0..vertices as u32 {
        let own = priorities[u as usize];
        for &v in edges.successors(u) {
            let (target, priority) = match ends[v as usize] {
                ChainEnd::At { vertex, highest } if single(v) => {
                    skipping += 1;
                    (vertex, own.max(highest))
                }
                _ => (v, own),
            };
            targets.push(target);
            move_priorities.push(priority);
        }
    }
    Moves {
        edges: Csr {
            offsets: edges.offsets.clone(),
            targets,
        },
        priorities: move_priorities,
        first_steps: (skipping > 0).then(|| edges.targets.clone()),
        skipping,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::testing::games::small_games;

    /// 0 → 1 → 2 → {3, 0}; 3 → 4 → 5 → 4 (a cycle of single moves);
    /// 3 → 6; 6 → 6.
    fn chains() -> (Csr, Vec<u32>) {
        let edges = Csr::from_edges(
            7,
            [
                (0, 1),
                (1, 2),
                (2, 3),
                (2, 0),
                (3, 4),
                (3, 6),
                (4, 5),
                (5, 4),
                (6, 6),
            ],
        )
        .unwrap();
        (edges, vec![1, 8, 2, 3, 4, 5, 6])
    }

    #[test]
    fn a_move_into_a_chain_goes_to_its_end_with_the_highest_priority_passed() {
        let (edges, priorities) = chains();
        let shortcuts = skip_chains(&edges, &priorities);
        // 0 → 1 → 2: 0's move skips 1 (priority 8); 1's own move is into
        // 2, which has two moves; 2's move to 0 skips 0 and 1; 3's move
        // into the endless cycle 4 ↔ 5 stays, and so do the cycle's and
        // 6's self-loop (6 has one move, but the loop never ends).
        assert_eq!(shortcuts.edges.targets, [2, 2, 3, 2, 4, 6, 5, 4, 6]);
        assert_eq!(shortcuts.priorities, [8, 8, 2, 8, 3, 3, 4, 5, 6]);
        assert_eq!(shortcuts.first_steps.as_ref(), Some(&edges.targets));
        assert_eq!(shortcuts.edges.offsets, edges.offsets);
        assert_eq!(shortcuts.skipping, 2);
    }

    /// Follows the game from `first` while the vertex has one move, at most
    /// `vertices` steps: the end (None if the walk never leaves vertices
    /// of one move) and the highest priority passed before it.
    fn walk(edges: &Csr, priorities: &[u32], first: u32) -> (Option<u32>, u32) {
        let (mut v, mut highest) = (first, 0);
        for _ in 0..=priorities.len() {
            if edges.successors(v).len() != 1 {
                return (Some(v), highest);
            }
            highest = highest.max(priorities[v as usize]);
            v = edges.successors(v)[0];
        }
        (None, 0)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        /// Every move's target and priority are those of walking the game
        /// from its first step.
        #[test]
        fn each_move_is_the_walk_from_its_first_step(game in small_games(40, 9)) {
            let shortcuts = skip_chains(&game.edges, &game.priorities);
            let mut skipping = 0;
            for u in 0..game.vertices() {
                for e in game.edges.offsets[u as usize]..game.edges.offsets[u as usize + 1] {
                    let e = e as usize;
                    let first = game.edges.targets[e];
                    prop_assert_eq!(shortcuts.first_step(e), first);
                    let own = game.priorities[u as usize];
                    let (target, priority) = match walk(&game.edges, &game.priorities, first) {
                        (Some(end), highest) if end != first => {
                            skipping += 1;
                            (end, own.max(highest))
                        }
                        _ => (first, own),
                    };
                    prop_assert_eq!(shortcuts.edges.targets[e], target);
                    prop_assert_eq!(shortcuts.priorities[e], priority);
                }
            }
            prop_assert_eq!(shortcuts.skipping, skipping);
        }
    }
}
