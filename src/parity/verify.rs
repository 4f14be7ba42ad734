//! An independent check of a [`Solution`], sharing no code with the
//! solvers: each player's region must be closed (the opponent cannot move
//! out of it, the player's strategy stays in it), and in the graph where
//! the player's moves are fixed by the strategy, no cycle inside the
//! region may have a highest priority that favours the opponent.
//!
//! Cycles are found by strongly connected components (the sequential
//! Tarjan of [`crate::scc::reference`]): a component's highest priority
//! must favour the region's player; its vertices of any priority above the
//! highest that favours the opponent are then removed (all of them, if no
//! priority in it favours the opponent) and what is left decomposed
//! again, since a cycle through one of them is won by the player. Taking
//! all such vertices at once, not only the highest, keeps a long chain of
//! the player's priorities (Oink's counter games) to one round.

use thiserror::Error;

use super::{Solution, TopComponents};
use crate::explicit::game::NO_MOVE;
use crate::explicit::{Csr, ParityGame, Player};

/// Why a solution does not solve its game.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Flaw {
    /// The solution's arrays do not have one entry per vertex.
    #[error("the solution has {found} entries for {vertices} vertices")]
    Length {
        /// Entries found.
        found: usize,
        /// Vertices in the game.
        vertices: u32,
    },
    /// A vertex won by its owner has no move, or one that is not a move.
    #[error(
        "vertex {vertex} is won by its owner, but its strategy {choice} is not one of its moves"
    )]
    NoMove {
        /// The vertex.
        vertex: u32,
        /// The strategy entry ([`NO_MOVE`] shows as 4294967295).
        choice: u32,
    },
    /// The strategy of a vertex leaves its owner's region.
    #[error("the strategy of vertex {vertex} leaves {player:?}'s region for vertex {to}")]
    StrategyLeaves {
        /// The vertex.
        vertex: u32,
        /// The player who wins it.
        player: Player,
        /// Where the strategy goes.
        to: u32,
    },
    /// The opponent can move out of a region.
    #[error("{opponent:?} can leave {player:?}'s region by the move {vertex} -> {to}")]
    OpponentEscapes {
        /// The opponent's vertex in the region.
        vertex: u32,
        /// Where it can move.
        to: u32,
        /// The region's player.
        player: Player,
        /// Who owns the vertex.
        opponent: Player,
    },
    /// A cycle inside a region, compatible with the player's strategy,
    /// whose highest priority favours the opponent.
    #[error(
        "{player:?} loses a play in its region: vertex {vertex} (priority {priority}) lies on a \
         cycle that its strategy allows and whose highest priority is {priority}"
    )]
    LosingCycle {
        /// A vertex of the cycle with its highest priority.
        vertex: u32,
        /// That priority.
        priority: u32,
        /// The region's player.
        player: Player,
    },
}

/// Checks that `solution` solves `game` (a validated game): regions
/// closed, strategies moves that stay, no cycle lost by a region's player.
pub fn verify(game: &ParityGame, solution: &Solution) -> Result<(), Flaw> {
    let vertices = game.vertices();
    for found in [solution.winners.len(), solution.strategy.len()] {
        if found != vertices as usize {
            return Err(Flaw::Length { found, vertices });
        }
    }
    let mut kept = Vec::new();
    for vertex in 0..vertices {
        let player = solution.winners[vertex as usize];
        let moves = game.edges.successors(vertex);
        if game.owners[vertex as usize] == player {
            let choice = solution.strategy[vertex as usize];
            if choice == NO_MOVE || !moves.contains(&choice) {
                return Err(Flaw::NoMove { vertex, choice });
            }
            if solution.winners[choice as usize] != player {
                return Err(Flaw::StrategyLeaves {
                    vertex,
                    player,
                    to: choice,
                });
            }
            kept.push((vertex, choice));
        } else {
            if let Some(&to) = moves
                .iter()
                .find(|&&to| solution.winners[to as usize] != player)
            {
                return Err(Flaw::OpponentEscapes {
                    vertex,
                    to,
                    player,
                    opponent: player.opponent(),
                });
            }
            kept.extend(moves.iter().map(|&to| (vertex, to)));
        }
    }
    // Regions are closed, so no kept move joins the two: one graph serves
    // both players.
    let graph = Csr::from_edges(vertices, kept).map_err(|_| Flaw::Length {
        found: solution.winners.len(),
        vertices,
    })?;
    no_losing_cycle(game, &graph, &solution.winners)
}

/// Checks that no cycle of `graph` has a highest priority that favours
/// the opponent of the player who wins its vertices.
fn no_losing_cycle(game: &ParityGame, graph: &Csr, winners: &[Player]) -> Result<(), Flaw> {
    losing_cycle_rounds(game, graph, winners).map(|_| ())
}

/// [`no_losing_cycle`], giving the rounds of decomposition it took.
fn losing_cycle_rounds(game: &ParityGame, graph: &Csr, winners: &[Player]) -> Result<u64, Flaw> {
    let vertices = graph.states() as usize;
    let mut alive = vec![true; vertices];
    let mut members: Vec<u32> = (0..graph.states()).collect();
    let mut components = TopComponents::new(vertices);
    // Per component (at its representative): the highest priority of a
    // member on a cycle that favours the opponent, if any.
    let mut opponents_highest: Vec<Option<u32>> = vec![None; vertices];
    let mut rounds = 0;
    while !members.is_empty() {
        rounds += 1;
        components.decompose(graph, &game.priorities, &members, &alive);
        for &v in &members {
            let priority = game.priorities[v as usize];
            if components.on_cycle(graph, v) && Player::favoured_by(priority) != winners[v as usize]
            {
                let highest =
                    &mut opponents_highest[components.representative[v as usize] as usize];
                *highest = Some(highest.map_or(priority, |p| p.max(priority)));
            }
        }
        let mut next = Vec::new();
        for &v in &members {
            let top = components.top(v);
            let cyclic = components.on_cycle(graph, v);
            let priority = game.priorities[v as usize];
            if !cyclic {
                alive[v as usize] = false;
                continue;
            }
            let top_priority = game.priorities[top as usize];
            let player = winners[v as usize];
            if Player::favoured_by(top_priority) != player {
                return Err(Flaw::LosingCycle {
                    vertex: top,
                    priority: top_priority,
                    player,
                });
            }
            match opponents_highest[components.representative[v as usize] as usize] {
                Some(highest) if priority <= highest => next.push(v),
                _ => alive[v as usize] = false,
            }
        }
        for &v in &members {
            opponents_highest[components.representative[v as usize] as usize] = None;
        }
        members = next;
    }
    Ok(rounds)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One cycle through `n` vertices of Even with the even priorities 2,
    /// 4, ..., 2n, then a vertex of Odd with priority 1 on a two-cycle with
    /// the first: Even wins all, in two rounds of decomposition (the
    /// chain goes in the first, Odd's vertex, alone, in the second;
    /// peeling one priority a round took `n + 1`); with priority 2n + 1
    /// instead of 1, Odd's cycle through it is found.
    #[test]
    fn a_chain_of_the_winners_priorities_is_checked_in_two_rounds() {
        let n = 1000;
        for (odd_priority, loses) in [(1, false), (2 * n + 1, true)] {
            let mut edges: Vec<(u32, u32)> = (0..n).map(|v| (v, (v + 1) % n)).collect();
            edges.extend([(0, n), (n, 0)]);
            let mut priorities: Vec<u32> = (0..n).map(|v| 2 * v + 2).collect();
            priorities.push(odd_priority);
            let mut owners = vec![Player::Even; n as usize];
            owners.push(Player::Odd);
            let game = ParityGame {
                priorities,
                owners,
                edges: Csr::from_edges(n + 1, edges.iter().copied()).unwrap(),
                names: Vec::new(),
            };
            let mut strategy: Vec<u32> = (0..n).map(|v| (v + 1) % n).collect();
            strategy.push(NO_MOVE);
            let solution = Solution {
                winners: vec![Player::Even; n as usize + 1],
                strategy,
            };
            let kept = Csr::from_edges(n + 1, edges).unwrap();
            let found = losing_cycle_rounds(&game, &kept, &solution.winners);
            if loses {
                assert_eq!(
                    found,
                    Err(Flaw::LosingCycle {
                        vertex: n,
                        priority: 2 * n + 1,
                        player: Player::Even
                    })
                );
            } else {
                assert_eq!(found, Ok(2));
                assert_eq!(verify(&game, &solution), Ok(()));
            }
        }
    }

    /// Vertex 0 (Even, priority 1) moves to 1 or 2; 1 (Odd, priority 2)
    /// back to 0; 2 (Odd, priority 3) to itself. Even wins 0 and 1 by
    /// moving from 0 to 1; Odd wins 2.
    fn example() -> ParityGame {
        ParityGame {
            priorities: vec![1, 2, 3],
            owners: vec![Player::Even, Player::Odd, Player::Odd],
            edges: Csr::from_edges(3, [(0, 1), (0, 2), (1, 0), (2, 2)]).unwrap(),
            names: Vec::new(),
        }
    }

    #[test]
    fn a_winning_solution_passes_and_each_fault_is_named() {
        let game = example();
        let good = Solution {
            winners: vec![Player::Even, Player::Even, Player::Odd],
            strategy: vec![1, NO_MOVE, 2],
        };
        assert_eq!(verify(&game, &good), Ok(()));
        let all_even = Solution {
            winners: vec![Player::Even; 3],
            strategy: vec![1, NO_MOVE, NO_MOVE],
        };
        assert_eq!(
            verify(&game, &all_even).unwrap_err().to_string(),
            "Even loses a play in its region: vertex 2 (priority 3) lies on a cycle that its \
             strategy allows and whose highest priority is 3"
        );
        let to_sink = Solution {
            strategy: vec![2, NO_MOVE, 2],
            ..good.clone()
        };
        assert_eq!(
            verify(&game, &to_sink),
            Err(Flaw::StrategyLeaves {
                vertex: 0,
                player: Player::Even,
                to: 2
            })
        );
        let escape = Solution {
            winners: vec![Player::Odd, Player::Even, Player::Odd],
            strategy: vec![NO_MOVE, NO_MOVE, 2],
        };
        assert_eq!(
            verify(&game, &escape),
            Err(Flaw::OpponentEscapes {
                vertex: 0,
                to: 1,
                player: Player::Odd,
                opponent: Player::Even
            })
        );
        let no_move = Solution {
            strategy: vec![NO_MOVE, NO_MOVE, 2],
            ..good
        };
        assert_eq!(
            verify(&game, &no_move),
            Err(Flaw::NoMove {
                vertex: 0,
                choice: NO_MOVE
            })
        );
    }
}
