//! Small progress measures (Jurdziński), on the CPU with a work queue of
//! the vertices whose measure may grow.
//!
//! For a player `P`, a vertex's measure counts, per priority that favours
//! the opponent, how often such a priority may still be passed before a
//! higher one; component `c` is bounded by the number of vertices of that
//! priority, and exceeding every bound is ⊤: the opponent wins. Measures
//! only grow; `P` wins the vertices that never reach ⊤, and the successor
//! of least measure is `P`'s winning move. One run for Even gives the
//! winners and Even's strategy; a second run for Odd, started with ⊤ on
//! Even's region (where it ends anyway), gives Odd's strategy.
//!
//! Before that, self-loops are simplified (Bootsma's thesis, §7.1): the
//! owner of a vertex with a self-loop whose priority favours it keeps only
//! the loop, and drops the loop when the priority favours the opponent
//! (unless it is the only move). Priorities are compressed first
//! ([`super::compress_priorities`]), so that measures have as few
//! components as the game allows. Measures are one flat array, a vertex's
//! components side by side.

use std::collections::VecDeque;

use super::{Solution, SolveError, SolveOptions, Watch, compress_priorities};
use crate::explicit::game::NO_MOVE;
use crate::explicit::{Csr, ParityGame, Player};

/// Most measure components (vertices × components) a run may hold: 2^31
/// counters, 8 GiB.
const MAX_COUNTERS: u64 = 1 << 31;

/// Solves `game` (validated) by small progress measures.
pub fn solve(game: &ParityGame, options: &SolveOptions) -> Result<Solution, SolveError> {
    let (priorities, highest) = compress_priorities(&game.priorities);
    let edges = without_useless_self_loops(game, &priorities);
    let predecessors = edges.transpose();
    let mut watch = Watch::new(options, "lifts");
    let vertices = game.vertices() as usize;
    let mut lifts = 0u64;
    let even = Measures::new(Player::Even, &priorities, highest, vec![false; vertices])?.lift_all(
        game,
        &edges,
        &predecessors,
        &mut watch,
        &mut lifts,
    )?;
    let winners: Vec<Player> = even
        .top
        .iter()
        .map(|&top| if top { Player::Odd } else { Player::Even })
        .collect();
    let odd_lost = winners.iter().map(|&w| w == Player::Even).collect();
    let odd = Measures::new(Player::Odd, &priorities, highest, odd_lost)?.lift_all(
        game,
        &edges,
        &predecessors,
        &mut watch,
        &mut lifts,
    )?;
    let strategy = (0..game.vertices())
        .map(|v| match winners[v as usize] {
            w if w != game.owners[v as usize] => NO_MOVE,
            Player::Even => even.best_move(&edges, v),
            Player::Odd => odd.best_move(&edges, v),
        })
        .collect();
    Ok(Solution { winners, strategy })
}

/// The bound of every component of `player`'s measures, lowest priority
/// first: the vertices of that priority (`priorities` compressed, the
/// highest `highest`). A component per priority that favours the
/// opponent, so as many components as bounds.
pub(super) fn measure_bounds(player: Player, priorities: &[u32], highest: u32) -> Vec<u32> {
    let offset = player.opponent() as u32;
    let width = if highest < offset {
        0
    } else {
        ((highest - offset) / 2 + 1) as usize
    };
    let mut bounds = vec![0u32; width];
    for &p in priorities {
        if Player::favoured_by(p) != player {
            bounds[(p / 2) as usize] += 1;
        }
    }
    bounds
}

/// The counters of the measures of `vertices` vertices of `width`
/// components, refused above [`MAX_COUNTERS`].
pub(super) fn checked_counters(vertices: usize, width: usize) -> Result<u64, SolveError> {
    let counters = vertices as u64 * width as u64;
    if counters > MAX_COUNTERS {
        return Err(too_many_counters(vertices, width));
    }
    Ok(counters)
}

/// The error of measures that need too many counters.
fn too_many_counters(vertices: usize, width: usize) -> SolveError {
    let counters = vertices as u64 * width as u64;
    SolveError::TooLarge(format!(
        "small progress measures need {counters} counters ({vertices} vertices × {width} \
         priorities), more than the {MAX_COUNTERS} allowed; use --solver zielonka or fpi"
    ))
}

/// The moves of `game` with self-loops simplified (see the module
/// comment), `priorities` the compressed ones.
pub(super) fn without_useless_self_loops(game: &ParityGame, priorities: &[u32]) -> Csr {
    let mut offsets = Vec::with_capacity(game.edges.offsets.len());
    let mut targets = Vec::with_capacity(game.edges.targets.len());
    offsets.push(0);
    for v in 0..game.vertices() {
        let moves = game.edges.successors(v);
        if moves.len() > 1 && moves.contains(&v) {
            if Player::favoured_by(priorities[v as usize]) == game.owners[v as usize] {
                targets.push(v);
            } else {
                targets.extend(moves.iter().copied().filter(|&w| w != v));
            }
        } else {
            targets.extend_from_slice(moves);
        }
        offsets.push(targets.len() as u64);
    }
    Csr { offsets, targets }
}

/// The progress measures of one player.
struct Measures {
    player: Player,
    /// Compressed priority of every vertex.
    priorities: Vec<u32>,
    /// Components per measure: the priorities that favour the opponent.
    width: usize,
    /// The bound of each component: the vertices of its priority.
    bounds: Vec<u32>,
    /// Every vertex's components, lowest priority first.
    values: Vec<u32>,
    /// Whether the measure is ⊤.
    top: Vec<bool>,
}

impl Measures {
    /// Measures of `player` at 0, except ⊤ where `top` says so.
    fn new(
        player: Player,
        priorities: &[u32],
        highest: u32,
        top: Vec<bool>,
    ) -> Result<Measures, SolveError> {
        let bounds = measure_bounds(player, priorities, highest);
        let width = bounds.len();
        let counters = checked_counters(priorities.len(), width)?;
        let mut values = Vec::new();
        values
            .try_reserve_exact(counters as usize)
            .map_err(|_| too_many_counters(priorities.len(), width))?;
        values.resize(counters as usize, 0);
        Ok(Measures {
            player,
            priorities: priorities.to_vec(),
            width,
            bounds,
            values,
            top,
        })
    }

    /// The measure of `v`.
    fn of(&self, v: u32) -> &[u32] {
        let start = v as usize * self.width;
        &self.values[start..start + self.width]
    }

    /// The least measure that a vertex of priority `priority` needs to
    /// move to `w`, into `out`; false for ⊤.
    fn progress(&self, priority: u32, w: u32, out: &mut [u32]) -> bool {
        if self.top[w as usize] {
            return false;
        }
        // Components of priorities below `priority` do not matter.
        let cut = ((priority + self.player as u32) / 2) as usize;
        out[..cut.min(self.width)].fill(0);
        if cut < self.width {
            out[cut..].copy_from_slice(&self.of(w)[cut..]);
        }
        if Player::favoured_by(priority) == self.player {
            return true;
        }
        // One more pass of an opponent's priority: count it, carrying
        // into higher components when full.
        for (count, &bound) in out[cut..].iter_mut().zip(&self.bounds[cut..]) {
            if *count < bound {
                *count += 1;
                return true;
            }
            *count = 0;
        }
        false
    }

    /// The measure `v` needs given its successors' measures, into `best`
    /// (`scratch` is room for one measure); false for ⊤. The owner
    /// player's vertices take the least of their moves, the opponent's
    /// the greatest.
    fn lifted(
        &self,
        game: &ParityGame,
        edges: &Csr,
        v: u32,
        best: &mut [u32],
        scratch: &mut [u32],
    ) -> bool {
        let priority = self.priorities[v as usize];
        let minimise = game.owners[v as usize] == self.player;
        let mut found = false;
        for &w in edges.successors(v) {
            let finite = self.progress(priority, w, scratch);
            if !minimise && !finite {
                return false;
            }
            if finite && (!found || (less(scratch, best) == minimise)) {
                best.copy_from_slice(scratch);
                found = true;
            }
        }
        found
    }

    /// Lifts measures until none grows, from the vertices of priorities
    /// that favour the opponent (no other measure can grow first).
    fn lift_all(
        mut self,
        game: &ParityGame,
        edges: &Csr,
        predecessors: &Csr,
        watch: &mut Watch<'_>,
        lifts: &mut u64,
    ) -> Result<Measures, SolveError> {
        let mut queued: Vec<bool> = (0..game.vertices())
            .map(|v| {
                !self.top[v as usize]
                    && Player::favoured_by(self.priorities[v as usize]) != self.player
            })
            .collect();
        let mut queue: VecDeque<u32> = (0..game.vertices())
            .filter(|&v| queued[v as usize])
            .collect();
        let mut best = vec![0u32; self.width];
        let mut scratch = vec![0u32; self.width];
        while let Some(v) = queue.pop_front() {
            queued[v as usize] = false;
            *lifts += 1;
            if lifts.is_multiple_of(4096) {
                watch.check(*lifts)?;
            }
            if self.top[v as usize] {
                continue;
            }
            let finite = self.lifted(game, edges, v, &mut best, &mut scratch);
            if finite && !less(self.of(v), &best) {
                continue;
            }
            if finite {
                let start = v as usize * self.width;
                self.values[start..start + self.width].copy_from_slice(&best);
            } else {
                self.top[v as usize] = true;
            }
            for &u in predecessors.successors(v) {
                if !queued[u as usize] && !self.top[u as usize] {
                    queued[u as usize] = true;
                    queue.push_back(u);
                }
            }
        }
        Ok(self)
    }

    /// The move of least progress measure from `v`, one of the player's
    /// vertices that the player wins.
    fn best_move(&self, edges: &Csr, v: u32) -> u32 {
        let priority = self.priorities[v as usize];
        let mut best = vec![0u32; self.width];
        let mut scratch = vec![0u32; self.width];
        let mut choice = NO_MOVE;
        for &w in edges.successors(v) {
            if self.progress(priority, w, &mut scratch)
                && (choice == NO_MOVE || less(&scratch, &best))
            {
                best.copy_from_slice(&scratch);
                choice = w;
            }
        }
        choice
    }
}

/// Whether measure `a` is less than `b`: lexicographic from the highest
/// component down.
fn less(a: &[u32], b: &[u32]) -> bool {
    a.iter().rev().cmp(b.iter().rev()).is_lt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vertex whose moves are all the same self-loop (listed twice) of a
    /// priority that favours the opponent loses them all: no move is a
    /// loss for its owner, as the loop is.
    #[test]
    fn a_vertex_with_only_a_losing_self_loop_is_lost_by_its_owner() {
        let game = ParityGame {
            priorities: vec![0, 1],
            owners: vec![Player::Odd, Player::Even],
            edges: Csr::from_edges(2, [(0, 0), (0, 0), (1, 1), (1, 1)]).unwrap(),
            names: Vec::new(),
        };
        let solution = solve(&game, &SolveOptions::default()).unwrap();
        assert_eq!(solution.winners, [Player::Even, Player::Odd]);
    }
}
