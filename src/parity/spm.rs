//! Small progress measures (Jurdziński), on the CPU with a work queue of
//! the vertices whose measure may grow.
//!
//! For a player `P`, a vertex's measure counts, per priority that favours
//! the opponent, how often such a priority may still be passed before a
//! higher one; component `c` is bounded by the number of vertices of that
//! priority, and exceeding every bound is ⊤: the opponent wins. Measures
//! only grow; `P` wins the vertices that never reach ⊤, and the successor
//! of least measure is `P`'s winning move.
//!
//! Alternating SPM (Bootsma's thesis, chapter 5; `alternate`, which
//! also drives the GPU's measures): the measures of both
//! players are lifted in turns, at first of as many lifts as the game has
//! vertices (`LONGEST_TURN` says how they grow). After each turn, the
//! vertices that the current measures already prove won by the player of
//! the turn (`Measures::certainly_won`) get ⊤ in the opponent's
//! measures, where the opponent's lifting would only bring them in the
//! end, often after many more lifts. The first player
//! whose queue runs empty has its least measures: they give the winners
//! and that player's strategy; the other player's measures are then
//! lifted to the end with ⊤ on the first player's region, for its
//! strategy. Both end as the least measures of each player with ⊤ on the
//! opponent's region, whichever finished first, so the solution does not
//! depend on the turns.
//!
//! Before that, self-loops are simplified (Bootsma's thesis, §7.1): the
//! owner of a vertex with a self-loop whose priority favours it keeps only
//! the loop, and drops the loop when the priority favours the opponent
//! (unless it is the only move). Priorities are compressed first
//! ([`super::compress_priorities`]), so that measures have as few
//! components as the game allows. Measures are one flat array, a vertex's
//! components side by side.
//!
//! With [`SolveOptions::shortcuts`], moves into chains of vertices with
//! one move go to the chain's end ([`super::shortcuts`], the thesis's
//! chapter 6): priorities then sit on moves, and the progress along a
//! move counts the move's priority (the highest it passes) instead of its
//! source's.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::shortcuts::{Moves, skip_chains};
use super::{Solution, SolveError, SolveOptions, Watch, compress_priorities};
use crate::explicit::game::NO_MOVE;
use crate::explicit::offsets::row_range;
use crate::explicit::{Csr, ParityGame, Player};

/// Most measure components (vertices × components) a run may hold: 2^31
/// counters, 8 GiB.
const MAX_COUNTERS: u64 = 1 << 31;

/// Longest turn of a player, in lifts per vertex of the game. A turn
/// starts as long as the game has vertices (Bootsma's choice) and doubles
/// after each round of two turns whose certainly won vertices gave the
/// opponent no new ⊤, so that games where that never pays spend little
/// on looking (2-core machine, `--solver spm` with `--engine cpu`:
/// counter_dp-20 5.9 s with turns of one lift per vertex, 3.8 s with this
/// doubling up to 64, pgrand-200k-s11 0.53 and 0.47 s, tc-12 3.7 and
/// 1.7 s; `benches/results/2026-12-02k-h200-parity-alloc/spm-turns-2core.txt`).
pub(super) const LONGEST_TURN: u64 = 64;

/// How the two players' measures take turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turns {
    /// Alternating SPM (see the module comment): what `--solver spm` runs.
    Alternating,
    /// Even's measures lifted to the end, then Odd's with ⊤ on Even's
    /// region, as the thesis's plain SPM. Both orders end with the same
    /// measures, so with the same solution (a test checks it).
    EvenThenOdd,
}

/// Solves `game` (validated) by alternating small progress measures.
pub fn solve(game: &ParityGame, options: &SolveOptions) -> Result<Solution, SolveError> {
    solve_with_turns(game, options, Turns::Alternating)
}

/// Solves `game` (validated) by small progress measures, the players
/// taking `turns`.
pub fn solve_with_turns(
    game: &ParityGame,
    options: &SolveOptions,
    turns: Turns,
) -> Result<Solution, SolveError> {
    let (priorities, highest) = compress_priorities(&game.priorities);
    let moves = moves_of(game, &priorities, options.shortcuts);
    let (predecessors, predecessor_priorities) = moves.incoming();
    let lifting = Lifting {
        game,
        moves: &moves,
        predecessors: &predecessors,
        predecessor_priorities: &predecessor_priorities,
    };
    let mut sides = OnCpu {
        runs: [
            Run::new(Measures::new(Player::Even, &priorities, highest)?, &lifting),
            Run::new(Measures::new(Player::Odd, &priorities, highest)?, &lifting),
        ],
        lifting,
        watch: Watch::new(options, "lifts"),
        lifts: 0,
    };
    let shortest_turn = u64::from(game.vertices()).max(1);
    // Even's first turn ends with its queue, unless the turns alternate.
    let first_turn = match turns {
        Turns::Alternating => shortest_turn,
        Turns::EvenThenOdd => u64::MAX,
    };
    let alternated = alternate(&mut sides, first_turn, shortest_turn)?;
    let lifts = sides.lifts;
    let [even, odd] = sides.runs.map(|run| run.measures);
    let winners: Vec<Player> = even
        .top
        .iter()
        .map(|&top| if top { Player::Odd } else { Player::Even })
        .collect();
    let strategy = (0..game.vertices())
        .map(|v| match winners[v as usize] {
            w if w != game.owners[v as usize] => NO_MOVE,
            Player::Even => even.best_move(&moves, v),
            Player::Odd => odd.best_move(&moves, v),
        })
        .collect();
    tracing::debug!(
        lifts,
        skipping = moves.skipping,
        first = alternated.first,
        turns = alternated.turns,
        lifting = alternated.lifting.as_secs_f64(),
        sharing = alternated.sharing.as_secs_f64(),
        "small progress measures"
    );
    Ok(Solution { winners, strategy })
}

/// Both players' lifting, wherever it runs (on the CPU here, on the GPU
/// in [`super::gpu`]), as [`alternate`] drives it; players by index, 0
/// Even and 1 Odd.
pub(super) trait Alternation {
    /// Lifts `player`'s measures until `budget` is spent (lifts on the
    /// CPU, raised measures on the GPU) or they reach their least
    /// fixpoint; whether they did.
    fn lift_turn(&mut self, player: usize, budget: u64) -> Result<bool, SolveError>;

    /// Sets ⊤ in the other player's measures on the vertices that
    /// `player`'s measures prove won ([`Measures::certainly_won`]), and
    /// queues their predecessors there; whether any was not ⊤ yet.
    fn share_certainly_won(&mut self, player: usize) -> Result<bool, SolveError>;

    /// Sets ⊤ in the other player's measures on `player`'s region (its
    /// vertices not ⊤), `player`'s measures being at their least fixpoint.
    fn give_up_region_of(&mut self, player: usize) -> Result<(), SolveError>;
}

/// What [`alternate`] did: who finished first, how many turns it took,
/// and the time spent lifting and sharing.
pub(super) struct Alternated {
    pub first: usize,
    pub turns: u64,
    pub lifting: Duration,
    pub sharing: Duration,
}

/// Alternating SPM (see the module comment): turns of `first_turn`,
/// doubling after each round of two turns that shared nothing new, up to
/// [`LONGEST_TURN`] times `shortest_turn`; the first player to reach its
/// fixpoint gives its region to the other, which is then lifted to its
/// own fixpoint.
pub(super) fn alternate(
    sides: &mut impl Alternation,
    first_turn: u64,
    shortest_turn: u64,
) -> Result<Alternated, SolveError> {
    let mut turn = first_turn;
    let (mut turns, mut lifting, mut sharing) = (0, Duration::ZERO, Duration::ZERO);
    let first = 'turns: loop {
        let mut news = false;
        for player in 0..2 {
            turns += 1;
            let started = Instant::now();
            let done = sides.lift_turn(player, turn)?;
            lifting += started.elapsed();
            if done {
                break 'turns player;
            }
            let started = Instant::now();
            news |= sides.share_certainly_won(player)?;
            sharing += started.elapsed();
        }
        if !news {
            turn = turn
                .saturating_mul(2)
                .min(shortest_turn.saturating_mul(LONGEST_TURN));
        }
    };
    sides.give_up_region_of(first)?;
    let started = Instant::now();
    sides.lift_turn(1 - first, u64::MAX)?;
    lifting += started.elapsed();
    Ok(Alternated {
        first,
        turns,
        lifting,
        sharing,
    })
}

/// Both players' runs on the CPU.
struct OnCpu<'a, 'w> {
    lifting: Lifting<'a>,
    runs: [Run; 2],
    watch: Watch<'w>,
    lifts: u64,
}

impl Alternation for OnCpu<'_, '_> {
    fn lift_turn(&mut self, player: usize, budget: u64) -> Result<bool, SolveError> {
        self.runs[player].lift(&self.lifting, &mut self.watch, &mut self.lifts, budget)
    }

    fn share_certainly_won(&mut self, player: usize) -> Result<bool, SolveError> {
        let won = self.runs[player].measures.certainly_won(&self.lifting);
        Ok(self.runs[1 - player].give_up(&won, &self.lifting))
    }

    fn give_up_region_of(&mut self, player: usize) -> Result<(), SolveError> {
        let region: Vec<bool> = self.runs[player]
            .measures
            .top
            .iter()
            .map(|&top| !top)
            .collect();
        self.runs[1 - player].give_up(&region, &self.lifting);
        Ok(())
    }
}

/// The moves the lifting reads: the game's, useless self-loops dropped
/// (`priorities` compressed), and with `shortcuts` chains skipped.
pub(super) fn moves_of(game: &ParityGame, priorities: &[u32], shortcuts: bool) -> Moves {
    let edges = without_useless_self_loops(game, priorities).into_owned();
    if shortcuts {
        skip_chains(&edges, priorities)
    } else {
        Moves::of(edges, priorities)
    }
}

/// Whether `player`'s measure of `v` can grow before any other has: `v`
/// has a move (of `moves`) whose priority favours the opponent, or is
/// the player's and has no move (its losing self-loops dropped), which
/// makes it ⊤. The GPU's first queue is the same (`spm_start`).
pub(super) fn grows_first(moves: &Moves, owners: &[Player], player: Player, v: u32) -> bool {
    let mut range = moves.of_vertex(v);
    if range.is_empty() {
        owners[v as usize] == player
    } else {
        range.any(|e| Player::favoured_by(moves.priorities[e]) != player)
    }
}

/// Whether no move reaches `v`. No measure depends on such a vertex's, so
/// it is lifted once, when the others have reached their fixpoint
/// ([`Run::lift`]). With shortcuts, every vertex of one move inside a
/// chain is one.
fn unreached(lifting: &Lifting<'_>, v: u32) -> bool {
    lifting.predecessors.successors(v).is_empty()
}

/// The game as the lifting reads it.
struct Lifting<'a> {
    game: &'a ParityGame,
    /// The moves, self-loops simplified (and chains skipped, with
    /// [`SolveOptions::shortcuts`]), with their priorities.
    moves: &'a Moves,
    /// The transpose of their edges.
    predecessors: &'a Csr,
    /// The priority of each move in `predecessors`.
    predecessor_priorities: &'a [u32],
}

/// One player's measures and the queue of the vertices whose measure may
/// grow.
struct Run {
    measures: Measures,
    queue: VecDeque<u32>,
    /// Whether a vertex is in `queue`, or is one that no move reaches
    /// ([`unreached`]): those count as queued throughout, so that no raise
    /// queues them, and are lifted once at the end ([`Run::lift`]).
    queued: Vec<bool>,
}

impl Run {
    /// A run from `measures` (none ⊤), every vertex queued whose measure
    /// can grow first: those with a move whose priority favours the
    /// opponent, and the player's vertices left without moves (their
    /// losing self-loops dropped), which are ⊤; but no vertex that no
    /// move reaches ([`unreached`]).
    fn new(measures: Measures, lifting: &Lifting<'_>) -> Run {
        let (moves, owners) = (lifting.moves, &lifting.game.owners);
        let vertices = 0..lifting.game.vertices();
        let queued: Vec<bool> = vertices
            .clone()
            .map(|v| unreached(lifting, v) || grows_first(moves, owners, measures.player, v))
            .collect();
        let queue = vertices
            .filter(|&v| queued[v as usize] && !unreached(lifting, v))
            .collect();
        Run {
            measures,
            queue,
            queued,
        }
    }

    /// Queues the predecessors of `v` whose measure is not ⊤, that are not
    /// queued (nor held for the end: see [`Run::queued`]), and whose move
    /// to `v` sees a change of `v`'s measure at component `changed`
    /// ([`Measures::lift`]; `usize::MAX` for ⊤): the progress along a move
    /// reads `v`'s components from the move's first one that matters up,
    /// so a raise below it changes nothing there (a chain's end, raised at
    /// a low component, would otherwise queue every vertex that skips into
    /// it with a priority above: shortcuts took twice the lifts of plain
    /// SPM on `tc-10` without this, and take 5 % fewer with it;
    /// `benches/results/2026-12-03c-h200-spm-large/shortcuts-lifts-2core*.txt`).
    fn queue_predecessors(&mut self, lifting: &Lifting<'_>, v: u32, changed: usize) {
        // One row range for both arrays of the moves into `v`.
        let range = row_range(&lifting.predecessors.offsets, v as usize);
        for (&u, &priority) in lifting.predecessors.targets[range.clone()]
            .iter()
            .zip(&lifting.predecessor_priorities[range])
        {
            if changed >= self.measures.first_component(priority)
                && !self.queued[u as usize]
                && !self.measures.top[u as usize]
            {
                self.queued[u as usize] = true;
                self.queue.push_back(u);
            }
        }
    }

    /// Lifts at most `budget` queued vertices; whether the queue ran
    /// empty (the measures are then the least that the ⊤ given allows).
    fn lift(
        &mut self,
        lifting: &Lifting<'_>,
        watch: &mut Watch<'_>,
        lifts: &mut u64,
        budget: u64,
    ) -> Result<bool, SolveError> {
        let width = self.measures.width;
        let mut room = [vec![0u32; width], vec![0u32; width]];
        for _ in 0..budget {
            let Some(v) = self.queue.pop_front() else {
                break;
            };
            self.queued[v as usize] = false;
            *lifts += 1;
            if lifts.is_multiple_of(4096) {
                watch.check(*lifts)?;
            }
            if let Some(changed) = self.measures.lift(lifting, v, &mut room) {
                self.queue_predecessors(lifting, v, changed);
            }
        }
        if !self.queue.is_empty() {
            return Ok(false);
        }
        // The measures of every vertex a move reaches are final: the
        // others need one lift each.
        for v in 0..lifting.game.vertices() {
            if unreached(lifting, v) {
                *lifts += 1;
                self.measures.lift(lifting, v, &mut room);
            }
        }
        Ok(true)
    }

    /// Sets ⊤ on the vertices that `won_by_opponent` marks (won by the
    /// opponent, so ⊤ in the least measures anyway) and queues their
    /// predecessors.
    fn give_up(&mut self, won_by_opponent: &[bool], lifting: &Lifting<'_>) -> bool {
        let mut any = false;
        for v in 0..won_by_opponent.len() as u32 {
            if won_by_opponent[v as usize] && !self.measures.top[v as usize] {
                self.measures.top[v as usize] = true;
                self.queue_predecessors(lifting, v, usize::MAX);
                any = true;
            }
        }
        any
    }
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
/// comment), `priorities` the compressed ones: `game`'s own moves when no
/// vertex has a self-loop beside other moves (no copy of a game of 10^7
/// vertices to upload).
pub(super) fn without_useless_self_loops<'g>(
    game: &'g ParityGame,
    priorities: &[u32],
) -> Cow<'g, Csr> {
    use rayon::prelude::*;
    let simplified = |v: u32| {
        let moves = game.edges.successors(v);
        moves.len() > 1 && moves.contains(&v)
    };
    if !(0..game.vertices()).into_par_iter().any(simplified) {
        return Cow::Borrowed(&game.edges);
    }
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
    Cow::Owned(Csr { offsets, targets })
}

/// The progress measures of one player.
struct Measures {
    player: Player,
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
    /// Measures of `player` at 0, a vertex per priority of `priorities`
    /// (compressed, the highest `highest`).
    fn new(player: Player, priorities: &[u32], highest: u32) -> Result<Measures, SolveError> {
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
            width,
            bounds,
            values,
            top: vec![false; priorities.len()],
        })
    }

    /// The measure of `v`.
    fn of(&self, v: u32) -> &[u32] {
        let start = v as usize * self.width;
        &self.values[start..start + self.width]
    }

    /// The least measure that a move of priority `priority` needs to
    /// reach `w`, into `out`; false for ⊤.
    fn progress(&self, priority: u32, w: u32, out: &mut [u32]) -> bool {
        if self.top[w as usize] {
            return false;
        }
        // Components of priorities below `priority` do not matter.
        let cut = self.first_component(priority);
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

    /// Raises the measure of `v` (if not ⊤) to what its successors'
    /// measures need (`room` for two measures); if it grew, the highest
    /// component that changed (`usize::MAX` when it became ⊤).
    fn lift(&mut self, lifting: &Lifting<'_>, v: u32, room: &mut [Vec<u32>; 2]) -> Option<usize> {
        if self.top[v as usize] {
            return None;
        }
        let [best, scratch] = room;
        if !self.lifted(lifting, v, best, scratch) {
            self.top[v as usize] = true;
            return Some(usize::MAX);
        }
        let start = v as usize * self.width;
        let measure = &mut self.values[start..start + self.width];
        // Measures compare from the highest component down.
        let changed = (0..self.width).rev().find(|&c| measure[c] != best[c])?;
        if measure[changed] > best[changed] {
            return None;
        }
        measure.copy_from_slice(best);
        Some(changed)
    }

    /// The lowest component that the progress along a move of `priority`
    /// reads: those of lower priorities do not matter past it.
    fn first_component(&self, priority: u32) -> usize {
        ((priority + self.player as u32) / 2) as usize
    }

    /// The measure `v` needs given its successors' measures, into `best`
    /// (`scratch` is room for one measure); false for ⊤. The owner
    /// player's vertices take the least of their moves, the opponent's
    /// the greatest; a vertex without moves (its losing self-loops
    /// dropped) is lost by its owner.
    fn lifted(&self, lifting: &Lifting<'_>, v: u32, best: &mut [u32], scratch: &mut [u32]) -> bool {
        let moves = lifting.moves;
        let minimise = lifting.game.owners[v as usize] == self.player;
        if moves.of_vertex(v).is_empty() {
            best.fill(0);
            return !minimise;
        }
        let mut found = false;
        for e in moves.of_vertex(v) {
            let finite = self.progress(moves.priorities[e], moves.edges.targets[e], scratch);
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

    /// The vertices that the measures, as lifted so far, prove won by
    /// their player (Bootsma's thesis, §5.1): the greatest set `W` of
    /// vertices whose measure is not ⊤ where the measure of each is at
    /// least the progress of a move into `W` (the player's vertices) or
    /// of every move, all into `W` (the opponent's). The measures
    /// restricted to `W` are then a progress measure of the game `W`
    /// spans, which the player's moves of least progress never leave.
    /// From the vertices not ⊤, a queue drops those that fail and looks
    /// again at their predecessors.
    fn certainly_won(&self, lifting: &Lifting<'_>) -> Vec<bool> {
        let mut member: Vec<bool> = self.top.iter().map(|&top| !top).collect();
        let mut queued = member.clone();
        let mut queue: VecDeque<u32> = (0..member.len() as u32)
            .filter(|&v| member[v as usize])
            .collect();
        let mut scratch = vec![0u32; self.width];
        while let Some(v) = queue.pop_front() {
            queued[v as usize] = false;
            if self.stays(lifting, &member, v, &mut scratch) {
                continue;
            }
            member[v as usize] = false;
            for &u in lifting.predecessors.successors(v) {
                if member[u as usize] && !queued[u as usize] {
                    queued[u as usize] = true;
                    queue.push_back(u);
                }
            }
        }
        member
    }

    /// Whether `v` (in `member`) keeps its measure with the moves into
    /// `member` (see [`Measures::certainly_won`]).
    fn stays(&self, lifting: &Lifting<'_>, member: &[bool], v: u32, scratch: &mut [u32]) -> bool {
        let moves = lifting.moves;
        let players_vertex = lifting.game.owners[v as usize] == self.player;
        for e in moves.of_vertex(v) {
            let w = moves.edges.targets[e];
            let kept = member[w as usize]
                && self.progress(moves.priorities[e], w, scratch)
                && !less(self.of(v), scratch);
            if kept == players_vertex {
                return kept;
            }
        }
        !players_vertex
    }

    /// The move of least progress measure from `v`, one of the player's
    /// vertices that the player wins, as its first step in the game.
    fn best_move(&self, moves: &Moves, v: u32) -> u32 {
        let mut best = vec![0u32; self.width];
        let mut scratch = vec![0u32; self.width];
        let mut choice = NO_MOVE;
        for e in moves.of_vertex(v) {
            if self.progress(moves.priorities[e], moves.edges.targets[e], &mut scratch)
                && (choice == NO_MOVE || less(&scratch, &best))
            {
                best.copy_from_slice(&scratch);
                choice = moves.first_step(e);
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
    use proptest::prelude::*;

    use super::*;
    use crate::parity::{reference, verify::verify};
    use crate::testing::games::small_games;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// At every turn of a player's lifting, the vertices its measures
        /// prove won are won by it (Zielonka's algorithm says), and once
        /// its queue is empty they are exactly those not ⊤.
        #[test]
        fn the_vertices_certainly_won_are_won_and_all_are_found_at_the_end(
            game in small_games(24, 7),
            turn in 1u64..6,
            shortcuts: bool,
        ) {
            let options = SolveOptions::default();
            let winners = reference::solve(&game, &game.edges.transpose(), &options)
                .unwrap()
                .winners;
            let (priorities, highest) = compress_priorities(&game.priorities);
            let moves = moves_of(&game, &priorities, shortcuts);
            let (predecessors, predecessor_priorities) = moves.incoming();
            let lifting = Lifting {
                game: &game,
                moves: &moves,
                predecessors: &predecessors,
                predecessor_priorities: &predecessor_priorities,
            };
            let mut watch = Watch::new(&options, "lifts");
            for player in [Player::Even, Player::Odd] {
                let measures =
                    Measures::new(player, &priorities, highest).unwrap();
                let mut run = Run::new(measures, &lifting);
                let mut lifts = 0;
                loop {
                    let done = run.lift(&lifting, &mut watch, &mut lifts, turn).unwrap();
                    let won = run.measures.certainly_won(&lifting);
                    for (v, &certain) in won.iter().enumerate() {
                        prop_assert!(!certain || winners[v] == player, "{v} for {player:?}");
                    }
                    if done {
                        let not_top: Vec<bool> = run.measures.top.iter().map(|&t| !t).collect();
                        prop_assert_eq!(won, not_top);
                        break;
                    }
                }
            }
        }

        /// Alternating SPM alone (no preprocessing before it, unlike
        /// `--solver spm`), with shortcuts or without: Zielonka's
        /// winners, strategies that win in the game as it is, and the
        /// solution of the players' measures lifted one after the other.
        #[test]
        fn alternating_spm_gives_the_references_winners_and_winning_strategies(
            game in small_games(40, 9),
            shortcuts: bool,
        ) {
            let options = SolveOptions { shortcuts, ..SolveOptions::default() };
            let reference = reference::solve(&game, &game.edges.transpose(), &options).unwrap();
            let solution = solve(&game, &options).unwrap();
            prop_assert_eq!(&solution.winners, &reference.winners);
            prop_assert_eq!(verify(&game, &solution.clone().normalised(&game)), Ok(()));
            let in_order = solve_with_turns(&game, &options, Turns::EvenThenOdd).unwrap();
            prop_assert_eq!(solution, in_order);
        }
    }

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
