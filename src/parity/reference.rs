//! Zielonka's recursive algorithm, the oracle of the tests, with an
//! explicit stack of subgames so that games with millions of priorities
//! do not overflow the thread's stack.
//!
//! A subgame `G` with highest priority `p`, favouring player `α`: the
//! α-attractor `A` of the vertices of priority `p` is taken out and the
//! rest solved. If the opponent wins nothing there, α wins all of `G`;
//! otherwise the opponent's attractor `B` of its region is won by the
//! opponent, and `G` minus `B` is solved again.
//!
//! Every subgame is a prefix of one array of vertices: a subgame orders
//! its prefix so that the part it solves next comes first. Membership is
//! one number per vertex, the depth of the deepest subgame holding it.

use super::{Solution, SolveError, SolveOptions, Watch};
use crate::explicit::game::NO_MOVE;
use crate::explicit::{Csr, ParityGame, Player};

/// One subgame on the stack.
struct Frame {
    /// The subgame is `order[..len]`.
    len: usize,
    /// After its rest was handed down: the length of that rest, and the
    /// player who won the attractor taken out.
    rest: Option<(usize, Player)>,
}

/// The arrays of one run.
struct Zielonka<'a> {
    game: &'a ParityGame,
    predecessors: &'a Csr,
    /// Every vertex; a subgame is a prefix.
    order: Vec<u32>,
    /// The depth of the deepest subgame (from 1) that holds the vertex.
    depth: Vec<u32>,
    winners: Vec<Player>,
    strategy: Vec<u32>,
    /// Stamp of the last attractor that took the vertex in.
    attracted: Vec<u32>,
    /// Stamp of the last attractor that counted the vertex's moves.
    counted: Vec<u32>,
    /// Moves left that stay out of the attractor being computed.
    remaining: Vec<u32>,
    stamp: u32,
}

/// Solves `game` (validated) by Zielonka's algorithm; `predecessors` are
/// its predecessor lists (`game.edges.transpose()`).
pub fn solve(
    game: &ParityGame,
    predecessors: &Csr,
    options: &SolveOptions,
) -> Result<Solution, SolveError> {
    let vertices = game.vertices() as usize;
    let mut run = Zielonka {
        game,
        predecessors,
        order: (0..game.vertices()).collect(),
        depth: vec![0; vertices],
        winners: vec![Player::Even; vertices],
        strategy: vec![NO_MOVE; vertices],
        attracted: vec![0; vertices],
        counted: vec![0; vertices],
        remaining: vec![0; vertices],
        stamp: 0,
    };
    let mut watch = Watch::new(options, "subgames");
    let mut frames = vec![Frame {
        len: vertices,
        rest: None,
    }];
    let mut steps = 0u64;
    loop {
        let depth = frames.len() as u32;
        let Some(frame) = frames.last_mut() else {
            break;
        };
        steps += 1;
        watch.check(steps)?;
        match frame.rest {
            None if frame.len == 0 => {
                frames.pop();
            }
            None => {
                let (rest, winner) = run.split(frame.len, depth);
                frame.rest = Some((rest, winner));
                frames.push(Frame {
                    len: rest,
                    rest: None,
                });
            }
            Some((rest, winner)) => match run.opponent_region(rest, winner) {
                None => {
                    frames.pop();
                }
                Some(region) => {
                    frame.len = run.give_to_opponent(frame.len, region, winner.opponent(), depth);
                    frame.rest = None;
                }
            },
        }
    }
    Ok(Solution {
        winners: run.winners,
        strategy: run.strategy,
    })
}

impl Zielonka<'_> {
    /// Takes the attractor of the highest priority out of the subgame
    /// `order[..len]` at `depth`, tentatively won by the player that
    /// priority favours; gives the length of the rest, now
    /// `order[..rest]`, and that player.
    fn split(&mut self, len: usize, depth: u32) -> (usize, Player) {
        let game = self.game;
        for &v in &self.order[..len] {
            self.depth[v as usize] = depth;
        }
        let top = self.order[..len]
            .iter()
            .map(|&v| game.priorities[v as usize])
            .max()
            .unwrap_or(0);
        let winner = Player::favoured_by(top);
        let targets: Vec<u32> = self.order[..len]
            .iter()
            .copied()
            .filter(|&v| game.priorities[v as usize] == top)
            .collect();
        for &v in &targets {
            if game.owners[v as usize] == winner {
                // Any move within the subgame: if the opponent wins
                // nothing in the rest, every play that stays is won.
                let inside = game
                    .edges
                    .successors(v)
                    .iter()
                    .copied()
                    .find(|&w| self.depth[w as usize] >= depth);
                self.strategy[v as usize] = inside.unwrap_or(NO_MOVE);
            }
        }
        let attractor = self.attract(winner, targets, depth);
        for &v in &attractor {
            self.winners[v as usize] = winner;
        }
        (self.partition(len), winner)
    }

    /// The opponent's part of the solved rest `order[..rest]`, where
    /// `winner` took the attractor out; `None` when it is empty.
    fn opponent_region(&self, rest: usize, winner: Player) -> Option<Vec<u32>> {
        let region: Vec<u32> = self.order[..rest]
            .iter()
            .copied()
            .filter(|&v| self.winners[v as usize] != winner)
            .collect();
        (!region.is_empty()).then_some(region)
    }

    /// Gives the attractor of `region` to `opponent` in the subgame
    /// `order[..len]` at `depth` and takes it out; gives the length of
    /// what is left to solve.
    fn give_to_opponent(
        &mut self,
        len: usize,
        region: Vec<u32>,
        opponent: Player,
        depth: u32,
    ) -> usize {
        let attractor = self.attract(opponent, region, depth);
        for &v in &attractor {
            self.winners[v as usize] = opponent;
            self.depth[v as usize] = depth - 1;
        }
        self.partition(len)
    }

    /// Reorders `order[..len]` so that the vertices not in the last
    /// attractor come first; gives their number.
    fn partition(&mut self, len: usize) -> usize {
        let mut kept = 0;
        for i in 0..len {
            let v = self.order[i];
            if self.attracted[v as usize] != self.stamp {
                self.order.swap(i, kept);
                kept += 1;
            }
        }
        kept
    }

    /// The vertices of the subgame at `depth` from which `player` can
    /// force a visit to `targets` (all in the subgame), `targets` first;
    /// `player`'s vertices drawn in get the move that leads there.
    fn attract(&mut self, player: Player, mut targets: Vec<u32>, depth: u32) -> Vec<u32> {
        self.stamp += 1;
        let stamp = self.stamp;
        let game = self.game;
        for &v in &targets {
            self.attracted[v as usize] = stamp;
        }
        let mut next = 0;
        while next < targets.len() {
            let u = targets[next];
            next += 1;
            for &v in self.predecessors.successors(u) {
                let slot = v as usize;
                if self.depth[slot] < depth || self.attracted[slot] == stamp {
                    continue;
                }
                if game.owners[slot] == player {
                    self.strategy[slot] = u;
                } else {
                    if self.counted[slot] != stamp {
                        self.counted[slot] = stamp;
                        self.remaining[slot] = game
                            .edges
                            .successors(v)
                            .iter()
                            .filter(|&&w| self.depth[w as usize] >= depth)
                            .count() as u32;
                    }
                    self.remaining[slot] -= 1;
                    if self.remaining[slot] > 0 {
                        continue;
                    }
                }
                self.attracted[slot] = stamp;
                targets.push(v);
            }
        }
        targets
    }
}
