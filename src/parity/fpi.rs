//! Fixpoint iteration with distractions and freezing (van Dijk and
//! Rubbens, GandALF 2019), multi-threaded over the vertices of one
//! priority.
//!
//! Every vertex is tentatively won by the player its priority favours,
//! unless it is a *distraction*: a vertex whose one-step winner (its
//! owner if some move reaches a vertex the owner tentatively wins, else
//! the opponent) is not the player its priority favours; a distraction is
//! tentatively won by the other player. Priorities are visited from the
//! lowest up; the vertices of a priority are re-evaluated, and when new
//! distractions appear there, the lower priorities must be recomputed:
//! vertices below that the losing player's opponent wins keep their
//! result (they are *frozen* at that priority), the others are reset, and
//! the sweep starts again from the lowest priority. When a whole sweep
//! changes nothing, the tentative winners are the winners, and the move
//! each vertex's owner found last is a winning strategy.
//!
//! Vertices are renumbered by (compressed) priority so that a priority is
//! a contiguous range and "every lower priority" a prefix. The vertices of
//! one priority are evaluated in parallel (rayon) when there are many:
//! each writes only its own state, and reading a neighbour's state before
//! or after its update both lead to the same fixpoint.

use std::sync::atomic::{AtomicU8, AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use super::{Solution, SolveError, SolveOptions, Watch, compress_priorities, with_threads};
use crate::explicit::game::NO_MOVE;
use crate::explicit::{ParityGame, Player};

/// State bit: the parity of the vertex's priority.
const ODD_PRIORITY: u8 = 1;
/// State bit: the vertex is a distraction.
const DISTRACTION: u8 = 2;

/// Fewest vertices of one priority (or below it, for a reset) that are
/// handled in parallel; smaller ranges are not worth the threads.
const PARALLEL_FROM: usize = 1 << 14;

/// The tentative winner of a vertex in state `state`: 0 Even, 1 Odd.
fn winner_of(state: u8) -> u8 {
    (state ^ (state >> 1)) & 1
}

/// The game renumbered by priority, and the iteration's state.
struct Iteration {
    /// Start of every priority's range of vertices, and the end.
    starts: Vec<usize>,
    /// Owner (0 Even, 1 Odd) of every renumbered vertex.
    owners: Vec<u8>,
    offsets: Vec<u64>,
    targets: Vec<u32>,
    states: Vec<AtomicU8>,
    /// The last winning move found for each vertex.
    strategy: Vec<AtomicU32>,
    /// The priority a vertex is frozen at, 0 when it is not frozen.
    frozen: Vec<u32>,
    parallel: bool,
}

/// Solves `game` (validated) by fixpoint iteration on `options.threads`
/// threads.
pub fn solve(game: &ParityGame, options: &SolveOptions) -> Result<Solution, SolveError> {
    with_threads(options.threads, || {
        let (priorities, highest) = compress_priorities(&game.priorities);
        let (mut iteration, original) = Iteration::new(game, &priorities, highest);
        iteration.parallel = rayon::current_num_threads() > 1;
        iteration.run(options)?;
        Ok(iteration.solution(&original))
    })
}

impl Iteration {
    /// The game renumbered by `priorities` (the compressed ones, at most
    /// `highest`); also the original number of each renumbered vertex.
    fn new(game: &ParityGame, priorities: &[u32], highest: u32) -> (Iteration, Vec<u32>) {
        let vertices = priorities.len();
        let mut starts = vec![0usize; highest as usize + 2];
        for &p in priorities {
            starts[p as usize + 1] += 1;
        }
        for p in 0..=highest as usize {
            starts[p + 1] += starts[p];
        }
        let mut next = starts.clone();
        let mut position = vec![0u32; vertices];
        let mut original = vec![0u32; vertices];
        for (v, &p) in priorities.iter().enumerate() {
            let slot = &mut next[p as usize];
            position[v] = *slot as u32;
            original[*slot] = v as u32;
            *slot += 1;
        }
        let mut offsets = Vec::with_capacity(vertices + 1);
        offsets.push(0u64);
        for &v in &original {
            let degree = game.edges.successors(v).len() as u64;
            offsets.push(offsets[offsets.len() - 1] + degree);
        }
        let mut targets = vec![0u32; game.edges.targets.len()];
        let renumber = |(i, out): (usize, &mut [u32])| {
            for (slot, &w) in out.iter_mut().zip(game.edges.successors(original[i])) {
                *slot = position[w as usize];
            }
        };
        // Split the targets by vertex, then renumber each list.
        let mut rest = &mut targets[..];
        let mut lists = Vec::with_capacity(vertices);
        for i in 0..vertices {
            let (list, tail) = rest.split_at_mut((offsets[i + 1] - offsets[i]) as usize);
            lists.push(list);
            rest = tail;
        }
        lists.into_par_iter().enumerate().for_each(renumber);
        let owners = original
            .iter()
            .map(|&v| game.owners[v as usize] as u8)
            .collect();
        let states = original
            .iter()
            .map(|&v| AtomicU8::new((priorities[v as usize] & 1) as u8))
            .collect();
        let iteration = Iteration {
            starts,
            owners,
            offsets,
            targets,
            states,
            strategy: (0..vertices).map(|_| AtomicU32::new(NO_MOVE)).collect(),
            frozen: vec![0; vertices],
            parallel: false,
        };
        (iteration, original)
    }

    /// Iterates to the fixpoint.
    fn run(&mut self, options: &SolveOptions) -> Result<(), SolveError> {
        let mut watch = Watch::new(options, "iterations");
        let levels = self.starts.len() - 1;
        let mut iterations = 1u64;
        let mut priority = 0usize;
        while priority < levels {
            watch.check(iterations)?;
            let (start, end) = (self.starts[priority], self.starts[priority + 1]);
            if start == end || !self.update(start, end) {
                priority += 1;
                continue;
            }
            iterations += 1;
            if priority > 0 {
                self.freeze_or_reset(start, priority as u32);
                priority = 0;
            }
        }
        Ok(())
    }

    /// Re-evaluates the vertices `start..end` (one priority); whether a
    /// new distraction appeared.
    fn update(&self, start: usize, end: usize) -> bool {
        if self.parallel && end - start >= PARALLEL_FROM {
            (start..end)
                .into_par_iter()
                .with_min_len(1024)
                .map(|v| self.update_vertex(v))
                .reduce(|| false, |a, b| a | b)
        } else {
            let mut changed = false;
            for v in start..end {
                changed |= self.update_vertex(v);
            }
            changed
        }
    }

    /// Re-evaluates vertex `v`: whether it became a distraction.
    fn update_vertex(&self, v: usize) -> bool {
        let state = self.states[v].load(Relaxed);
        if state & DISTRACTION != 0 || self.frozen[v] != 0 {
            return false;
        }
        let owner = self.owners[v];
        let moves = &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize];
        let good = moves
            .iter()
            .find(|&&w| winner_of(self.states[w as usize].load(Relaxed)) == owner);
        let one_step = match good {
            Some(&w) => {
                self.strategy[v].store(w, Relaxed);
                owner
            }
            None => owner ^ 1,
        };
        if one_step != state & ODD_PRIORITY {
            self.states[v].store(state | DISTRACTION, Relaxed);
            return true;
        }
        false
    }

    /// After new distractions at `priority` (above 0): every vertex below
    /// `end` (the priority's start) not frozen higher is frozen at
    /// `priority` when the player that gained wins it, else reset.
    fn freeze_or_reset(&mut self, end: usize, priority: u32) {
        let lost = (priority & 1) as u8;
        let states = &self.states;
        let visit = |(v, frozen): (usize, &mut u32)| {
            if *frozen >= priority {
                return;
            }
            let state = states[v].load(Relaxed);
            let wins = if *frozen != 0 {
                // A frozen vertex is won by the opponent of the parity of
                // the priority it was frozen at.
                (*frozen & 1) as u8 ^ 1
            } else {
                winner_of(state)
            };
            if wins != lost {
                *frozen = priority;
            } else {
                *frozen = 0;
                states[v].store(state & ODD_PRIORITY, Relaxed);
            }
        };
        let frozen = &mut self.frozen[..end];
        if self.parallel && end >= PARALLEL_FROM {
            frozen
                .par_iter_mut()
                .enumerate()
                .with_min_len(4096)
                .for_each(visit);
        } else {
            frozen.iter_mut().enumerate().for_each(visit);
        }
    }

    /// The winners and strategy, in the game's numbering.
    fn solution(&self, original: &[u32]) -> Solution {
        let vertices = original.len();
        let mut winners = vec![Player::Even; vertices];
        let mut strategy = vec![NO_MOVE; vertices];
        for (i, &v) in original.iter().enumerate() {
            let winner = winner_of(self.states[i].load(Relaxed));
            winners[v as usize] = if winner == 0 {
                Player::Even
            } else {
                Player::Odd
            };
            let choice = self.strategy[i].load(Relaxed);
            if winner == self.owners[i] && choice != NO_MOVE {
                strategy[v as usize] = original[choice as usize];
            }
        }
        Solution { winners, strategy }
    }
}
