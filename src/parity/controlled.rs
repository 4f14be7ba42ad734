//! Preprocessing for the fast solvers: cycles a player controls alone.
//!
//! A cycle of vertices all owned by one player, whose highest priority
//! favours that player, is won by it: it can go round forever. Such
//! cycles are found per player by strongly connected components of the
//! graph of its own vertices (a component whose highest priority favours
//! the player is won whole, by moving towards a vertex of that priority;
//! otherwise those vertices are removed and what is left decomposed
//! again), then the player's attractor of them is won too. Even first,
//! then Odd in what is left; the rest is a subgame (every vertex keeps a
//! move in it), solved by the solver and put back. The rest's solution is
//! a solution of the game: neither player can leave the rest into the
//! other's attractor to its profit.

use std::borrow::Cow;

use super::{Solution, SolveError, TopComponents, Watch};
use crate::explicit::game::NO_MOVE;
use crate::explicit::{Csr, ParityGame, Player};

/// Not yet solved, in [`Partial::winners`] (and in the winners that
/// [`finish`] takes).
pub(super) const OPEN: u8 = 2;

/// What preprocessing solved: a winner (`Player as u8`, or [`OPEN`]) and
/// a strategy entry per vertex.
struct Partial<'a> {
    game: &'a ParityGame,
    predecessors: &'a Csr,
    winners: Vec<u8>,
    strategy: Vec<u32>,
    /// Moves left out of an attractor, `u32::MAX` before it counts them.
    remaining: Vec<u32>,
}

/// Solves `game` by first solving the cycles each player controls and
/// their attractors, then the rest with `solve_rest`; `predecessors` are
/// `game`'s predecessor lists.
pub fn solve_with(
    game: &ParityGame,
    predecessors: &Csr,
    watch: &mut Watch<'_>,
    solve_rest: impl FnOnce(Cow<'_, ParityGame>) -> Result<Solution, SolveError>,
) -> Result<Solution, SolveError> {
    let vertices = game.vertices() as usize;
    let mut partial = Partial {
        game,
        predecessors,
        winners: vec![OPEN; vertices],
        strategy: vec![NO_MOVE; vertices],
        remaining: vec![u32::MAX; vertices],
    };
    for player in [Player::Even, Player::Odd] {
        let won = partial.controlled_cycles(player, watch)?;
        partial.attract(player, won);
    }
    finish(game, partial.winners, partial.strategy, solve_rest)
}

/// Completes what preprocessing solved (`winners`: `Player as u8` or
/// [`OPEN`]; `strategy`: the winners' moves, [`NO_MOVE`] elsewhere): the
/// open vertices' subgame is solved by `solve_rest` and put back. The
/// subgame comes owned, or as `game` itself when every vertex is open.
pub(super) fn finish(
    game: &ParityGame,
    mut winners: Vec<u8>,
    mut strategy: Vec<u32>,
    solve_rest: impl FnOnce(Cow<'_, ParityGame>) -> Result<Solution, SolveError>,
) -> Result<Solution, SolveError> {
    let open: Vec<u32> = (0..game.vertices())
        .filter(|&v| winners[v as usize] == OPEN)
        .collect();
    tracing::debug!(
        vertices = winners.len(),
        open = open.len(),
        "the cycles each player controls and their attractors solved"
    );
    if open.len() == winners.len() {
        return solve_rest(Cow::Borrowed(game));
    }
    let (rest, original) = subgame(game, &winners, &open);
    let solved = solve_rest(Cow::Owned(rest))?;
    for (i, &v) in original.iter().enumerate() {
        winners[v as usize] = solved.winners[i] as u8;
        let choice = solved.strategy[i];
        strategy[v as usize] = if choice == NO_MOVE {
            NO_MOVE
        } else {
            original[choice as usize]
        };
    }
    let winners = winners
        .iter()
        .map(|&w| if w == 0 { Player::Even } else { Player::Odd })
        .collect();
    Ok(Solution { winners, strategy })
}

/// The subgame of `game` on the vertices `open` (those `winners` leaves
/// [`OPEN`]), renumbered in their order; and the original number of each.
fn subgame(game: &ParityGame, winners: &[u8], open: &[u32]) -> (ParityGame, Vec<u32>) {
    let mut position = vec![u32::MAX; winners.len()];
    for (i, &v) in open.iter().enumerate() {
        position[v as usize] = i as u32;
    }
    let mut offsets = Vec::with_capacity(open.len() + 1);
    let mut targets = Vec::new();
    offsets.push(0u64);
    for &v in open {
        targets.extend(
            game.edges
                .successors(v)
                .iter()
                .filter(|&&w| winners[w as usize] == OPEN)
                .map(|&w| position[w as usize]),
        );
        offsets.push(targets.len() as u64);
    }
    let rest = ParityGame {
        priorities: open.iter().map(|&v| game.priorities[v as usize]).collect(),
        owners: open.iter().map(|&v| game.owners[v as usize]).collect(),
        edges: Csr { offsets, targets },
        names: Vec::new(),
    };
    (rest, open.to_vec())
}

impl Partial<'_> {
    /// The open vertices of `player` on cycles of its own vertices whose
    /// highest priority favours it, with moves that keep going round.
    fn controlled_cycles(
        &mut self,
        player: Player,
        watch: &mut Watch<'_>,
    ) -> Result<Vec<u32>, SolveError> {
        let game = self.game;
        let vertices = game.vertices() as usize;
        let own = |v: u32| self.winners[v as usize] == OPEN && game.owners[v as usize] == player;
        let edges: Vec<(u32, u32)> = (0..game.vertices())
            .filter(|&v| own(v))
            .flat_map(|v| {
                game.edges
                    .successors(v)
                    .iter()
                    .filter(|&&w| own(w))
                    .map(move |&w| (v, w))
            })
            .collect();
        let mut members: Vec<u32> = (0..game.vertices()).filter(|&v| own(v)).collect();
        let graph = Csr::from_edges(game.vertices(), edges)
            .map_err(|e| SolveError::TooLarge(e.to_string()))?;
        let mut alive = vec![false; vertices];
        for &v in &members {
            alive[v as usize] = true;
        }
        let mut components = TopComponents::new(vertices);
        let mut won = Vec::new();
        let mut rounds = 0;
        while !members.is_empty() {
            rounds += 1;
            watch.check(rounds)?;
            components.decompose(&graph, &game.priorities, &members, &alive);
            let mut next = Vec::new();
            let mut tops = Vec::new();
            for &v in &members {
                let top = components.top(v);
                let cyclic = components.on_cycle(&graph, v);
                let top_priority = game.priorities[top as usize];
                if !cyclic {
                    alive[v as usize] = false;
                } else if Player::favoured_by(top_priority) == player {
                    if v == top {
                        tops.push(v);
                    }
                } else if game.priorities[v as usize] == top_priority {
                    alive[v as usize] = false;
                } else {
                    next.push(v);
                }
            }
            // A won component: from its top vertex, the moves back
            // towards it, searched on reversed edges within the component.
            for top in tops {
                let representative = &components.representative;
                let root = representative[top as usize];
                let inside = |v: u32| alive[v as usize] && representative[v as usize] == root;
                let start = won.len();
                won.push(top);
                self.winners[top as usize] = player as u8;
                let mut next_vertex = start;
                while next_vertex < won.len() {
                    let u = won[next_vertex];
                    next_vertex += 1;
                    for &v in self.predecessors.successors(u) {
                        if inside(v)
                            && self.winners[v as usize] == OPEN
                            && game.owners[v as usize] == player
                        {
                            self.winners[v as usize] = player as u8;
                            self.strategy[v as usize] = u;
                            won.push(v);
                        }
                    }
                }
                let back = graph.successors(top).iter().copied().find(|&w| inside(w));
                self.strategy[top as usize] = back.unwrap_or(NO_MOVE);
                for &v in &won[start..] {
                    alive[v as usize] = false;
                }
            }
            members = next;
        }
        tracing::debug!(
            ?player,
            rounds,
            won = won.len(),
            "a player's controlled cycles"
        );
        Ok(won)
    }

    /// Gives `player` its attractor of `targets` (won already) among the
    /// open vertices, with the moves that lead there.
    fn attract(&mut self, player: Player, mut targets: Vec<u32>) {
        let game = self.game;
        let mut next = 0;
        while next < targets.len() {
            let u = targets[next];
            next += 1;
            for &v in self.predecessors.successors(u) {
                let slot = v as usize;
                if self.winners[slot] != OPEN {
                    continue;
                }
                if game.owners[slot] == player {
                    self.strategy[slot] = u;
                } else {
                    if self.remaining[slot] == u32::MAX {
                        // Moves to open vertices and into this attractor:
                        // each of the latter is taken off once, when its
                        // end is drawn from the queue.
                        let winners = &self.winners;
                        self.remaining[slot] = game
                            .edges
                            .successors(v)
                            .iter()
                            .filter(|&&w| {
                                matches!(winners[w as usize], OPEN)
                                    || winners[w as usize] == player as u8
                            })
                            .count() as u32;
                    }
                    self.remaining[slot] -= 1;
                    if self.remaining[slot] > 0 {
                        continue;
                    }
                }
                self.winners[slot] = player as u8;
                targets.push(v);
            }
        }
    }
}
