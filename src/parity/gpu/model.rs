//! A sequential model of `kernels/parity/spm.cu` and of the host's loop
//! in [`super`], for the tests: the same arrays (per player, measures
//! row by row in two buffers, two queues of flags, `changed_last`; the one
//! block's lists), the same kernels with their threads run one after
//! another, the same choice of mode ([`Mode`]) and the same turns of the
//! players, with lists, batches and turns small enough that every switch,
//! overflow and sharing of certainly won vertices happens. It must reach
//! the CPU solver's solution: that checks the handing over of buffers and
//! flags between the two kinds of launches and between the players'
//! turns, which the GPU tests only see on a device.

use std::cmp::Ordering;

use super::super::shortcuts::Moves;
use super::super::spm::{Alternation, alternate, grows_first, measure_bounds, moves_of};
use super::super::{Solution, SolveError, compress_priorities};
use super::{Mode, QUEUE_THREADS, heavy_vertices, lanes_over_moves, tile_lanes};
use crate::explicit::game::NO_MOVE;
use crate::explicit::offsets::row_range;
use crate::explicit::{Csr, ParityGame, Player};

/// `Progress` in the kernel: the successor and the shape of the progress
/// along the move (`progress_shape`), `None` for ⊤.
type Progress = Option<(u32, (usize, usize))>;

/// What lifting a vertex did (`Lift` in the kernel), with the new measure.
enum Lift {
    Unchanged,
    /// The new measure and the highest component that changed.
    Raised(Vec<u32>, usize),
    RaisedToTop,
}

/// The highest component that changed when a measure became ⊤
/// (`ALL_COMPONENTS` in the kernel).
const ALL_COMPONENTS: usize = usize::MAX;

/// One player's arrays on the device (`PlayerRun`), and how its lifting
/// goes on.
struct ModelRun {
    player: Player,
    bounds: Vec<u32>,
    measures: [Vec<u32>; 2],
    top: Vec<bool>,
    queues: [Vec<bool>; 2],
    changed_last: Vec<bool>,
    current_measures: usize,
    current_queue: usize,
    mode: Option<Mode>,
}

impl ModelRun {
    /// `PlayerRun` of `player` as `start` leaves it, for a game of
    /// `priorities` (compressed, the highest `highest`), `owners` and
    /// `moves`.
    fn start(
        player: Player,
        (priorities, highest): (&[u32], u32),
        owners: &[Player],
        moves: &Moves,
    ) -> ModelRun {
        let vertices = priorities.len();
        let bounds = measure_bounds(player, priorities, highest);
        let first_queue = (0..vertices as u32)
            .map(|v| grows_first(moves, owners, player, v))
            .collect();
        ModelRun {
            player,
            measures: [0, 1].map(|_| vec![0; vertices * bounds.len()]),
            bounds,
            top: vec![false; vertices],
            queues: [first_queue, vec![false; vertices]],
            changed_last: vec![false; vertices],
            current_measures: 0,
            current_queue: 0,
            mode: Some(Mode::Queue),
        }
    }
}

/// The device's arrays for one game, and the sizes of the batches. The
/// kernels work on `run`; the other player's waits in `parked`.
struct Model {
    /// The moves, each with its priority (its source's without
    /// shortcuts) and first step.
    moves: Moves,
    /// Whether moves carry priorities of their own (the kernel's
    /// `move_priorities` set): the lifts then compare progress move by
    /// move (`extreme_progress`).
    shortcuts: bool,
    predecessors: Csr,
    /// The priority of each move in `predecessors`.
    predecessor_priorities: Vec<u32>,
    priorities: Vec<u32>,
    owners: Vec<Player>,
    /// The heavy vertices (`heavy_vertices`), which a warp lifts.
    heavy: Vec<bool>,
    run: ModelRun,
    parked: ModelRun,
    /// Slots of each list (`queue_capacity`).
    capacity: usize,
    /// Grid-wide launches a batch.
    launches: usize,
    /// Strides of a queue launch.
    strides: u64,
}

impl Model {
    fn vertices(&self) -> usize {
        self.priorities.len()
    }

    fn width(&self) -> usize {
        self.run.bounds.len()
    }

    fn component(&self, buffer: usize, c: usize, v: u32) -> u32 {
        self.run.measures[buffer][v as usize * self.width() + c]
    }

    fn write_measure(&mut self, buffer: usize, v: u32, measure: &[u32]) {
        let start = v as usize * self.width();
        self.run.measures[buffer][start..start + measure.len()].copy_from_slice(measure);
    }

    /// `keep_measure`: copies v's measure from `buffer` into the other.
    fn keep_measure(&mut self, buffer: usize, v: u32) {
        let measure: Vec<u32> = (0..self.width())
            .map(|c| self.component(buffer, c, v))
            .collect();
        self.write_measure(1 - buffer, v, &measure);
    }

    /// `compare_from`.
    fn compare_from(&self, buffer: usize, a: u32, b: u32, cut: usize) -> Ordering {
        (cut..self.width())
            .rev()
            .map(|c| {
                self.component(buffer, c, a)
                    .cmp(&self.component(buffer, c, b))
            })
            .find(|order| order.is_ne())
            .unwrap_or(Ordering::Equal)
    }

    /// `extreme_move`: the move's position in the targets (`None`
    /// without moves) and whether its target was ⊤.
    fn extreme_move(
        &self,
        buffer: usize,
        v: u32,
        cut: usize,
        least: bool,
    ) -> (Option<usize>, bool) {
        let targets = &self.moves.edges.targets;
        let mut range = self.moves.of_vertex(v);
        let Some(first) = range.next() else {
            return (None, true);
        };
        let (mut best, mut best_top) = (first, self.run.top[targets[first] as usize]);
        for e in range {
            if best_top && !least {
                break;
            }
            let w = targets[e];
            let w_top = self.run.top[w as usize];
            let better = if least {
                !w_top && (best_top || self.compare_from(buffer, w, targets[best], cut).is_lt())
            } else {
                w_top || self.compare_from(buffer, w, targets[best], cut).is_gt()
            };
            if better {
                (best, best_top) = (e, w_top);
            }
        }
        (Some(best), best_top)
    }

    fn first_component(&self, priority: u32) -> usize {
        ((priority + self.run.player as u32) / 2) as usize
    }

    /// `progress_shape`: `(zeroed, incremented)` of the progress that a
    /// vertex of `priority` (first component `cut`) needs to move to `w`
    /// (not ⊤) in `buffer`, `None` when it is ⊤.
    fn progress_shape(
        &self,
        buffer: usize,
        priority: u32,
        w: u32,
        cut: usize,
    ) -> Option<(usize, usize)> {
        if Player::favoured_by(priority) == self.run.player {
            return Some((cut, self.width()));
        }
        let mut incremented = cut;
        while incremented < self.width()
            && self.component(buffer, incremented, w) >= self.run.bounds[incremented]
        {
            incremented += 1;
        }
        (incremented < self.width()).then_some((incremented, incremented))
    }

    /// Component `c` of that progress.
    fn needed(
        &self,
        buffer: usize,
        w: u32,
        (zeroed, incremented): (usize, usize),
        c: usize,
    ) -> u32 {
        match c {
            _ if c < zeroed => 0,
            _ => self.component(buffer, c, w) + u32::from(c == incremented),
        }
    }

    /// `compare_with_progress`: the order of `v`'s measure against that
    /// progress.
    fn compare_with_progress(
        &self,
        buffer: usize,
        v: u32,
        w: u32,
        shape: (usize, usize),
    ) -> Ordering {
        (0..self.width())
            .rev()
            .map(|c| {
                self.component(buffer, c, v)
                    .cmp(&self.needed(buffer, w, shape, c))
            })
            .find(|order| order.is_ne())
            .unwrap_or(Ordering::Equal)
    }

    /// `progress_along` a move of `priority` to `w`.
    fn progress_along(&self, buffer: usize, priority: u32, w: u32) -> Progress {
        if self.run.top[w as usize] {
            return None;
        }
        self.progress_shape(buffer, priority, w, self.first_component(priority))
            .map(|shape| (w, shape))
    }

    /// `compare_progress`: the order of two progresses, neither ⊤.
    fn compare_progress(
        &self,
        buffer: usize,
        (a, a_shape): (u32, (usize, usize)),
        (b, b_shape): (u32, (usize, usize)),
    ) -> Ordering {
        (a_shape.0.min(b_shape.0)..self.width())
            .rev()
            .map(|c| {
                self.needed(buffer, a, a_shape, c)
                    .cmp(&self.needed(buffer, b, b_shape, c))
            })
            .find(|order| order.is_ne())
            .unwrap_or(Ordering::Equal)
    }

    /// `favoured`: whether the measures favour progress `g` along move
    /// `e` over `h` along move `f`.
    fn favoured(
        &self,
        buffer: usize,
        least: bool,
        (e, g): (usize, Progress),
        (f, h): (usize, Progress),
    ) -> bool {
        match (g, h) {
            (Some(g), Some(h)) => match self.compare_progress(buffer, g, h) {
                Ordering::Equal => e < f,
                order => order.is_lt() == least,
            },
            (None, None) => e < f,
            (g, _) => g.is_none() != least,
        }
    }

    /// `extreme`: the move of `v` (`None` without moves) whose progress,
    /// `along` it, the measures favour most, and that progress; a tile of
    /// `lanes` lanes chooses, each lane taking moves of its own where the
    /// kernel's do ([`lanes_over_moves`]), its lanes then pairing off.
    /// Every lane must end with the same choice.
    fn extreme(
        &self,
        buffer: usize,
        v: u32,
        least: bool,
        lanes: u64,
        along: impl Fn(usize) -> Progress,
    ) -> (Option<usize>, Progress) {
        let moves = self.moves.of_vertex(v);
        // Nothing comes before the first ⊤ in the opponent's choice.
        let settled =
            |best: &(Option<usize>, Progress)| best.0.is_some() && best.1.is_none() && !least;
        let consider = |best: &mut (Option<usize>, Progress), e: usize, g: Progress| {
            if best
                .0
                .is_none_or(|f| self.favoured(buffer, least, (e, g), (f, best.1)))
            {
                *best = (Some(e), g);
            }
        };
        let lanes = match lanes_over_moves(lanes, moves.len() as u64) {
            true => lanes as usize,
            false => 1,
        };
        let mut favourites: Vec<(Option<usize>, Progress)> = (0..lanes)
            .map(|lane| {
                let mut best = (None, None);
                for e in moves.clone().skip(lane).step_by(lanes) {
                    if settled(&best) {
                        break;
                    }
                    consider(&mut best, e, along(e));
                }
                best
            })
            .collect();
        let mut bits = 1;
        while bits < lanes {
            favourites = (0..lanes)
                .map(|lane| {
                    let mut best = favourites[lane];
                    if let (Some(e), g) = favourites[lane ^ bits] {
                        consider(&mut best, e, g);
                    }
                    best
                })
                .collect();
            bits *= 2;
        }
        assert!(
            favourites
                .iter()
                .all(|&favourite| favourite == favourites[0]),
            "the lanes choosing for {v} disagree: {favourites:?}"
        );
        favourites[0]
    }

    /// The lanes that choose a move of `v` in a grid-wide launch: a warp
    /// for a heavy vertex, else a tile (`for_flagged_in_grid`); the one
    /// block's tiles lift heavy vertices too.
    fn lanes_in_grid(&self, v: u32) -> u64 {
        match self.heavy[v as usize] {
            true => 32,
            false => tile_lanes(self.width()),
        }
    }

    /// `chosen_move` by a tile of `lanes` lanes: the move's position
    /// (`None` without moves) and its progress.
    fn chosen_move(
        &self,
        buffer: usize,
        v: u32,
        least: bool,
        lanes: u64,
    ) -> (Option<usize>, Progress) {
        let targets = &self.moves.edges.targets;
        if self.shortcuts {
            return self.extreme(buffer, v, least, lanes, |e| {
                self.progress_along(buffer, self.moves.priorities[e], targets[e])
            });
        }
        let priority = self.priorities[v as usize];
        let cut = self.first_component(priority);
        let (e, chosen) = match lanes_over_moves(lanes, self.moves.of_vertex(v).len() as u64) {
            true => self.extreme(buffer, v, least, lanes, |e| {
                let w = targets[e];
                (!self.run.top[w as usize]).then_some((w, (cut, self.width())))
            }),
            false => match self.extreme_move(buffer, v, cut, least) {
                (Some(e), false) => (Some(e), Some((targets[e], (cut, self.width())))),
                (e, _) => (e, None),
            },
        };
        let progress = chosen.and_then(|(w, _)| {
            self.progress_shape(buffer, priority, w, cut)
                .map(|shape| (w, shape))
        });
        (e, progress)
    }

    /// `lift` from `buffer`; sets ⊤ in place, as the kernel does.
    fn lift(&mut self, buffer: usize, v: u32, lanes: u64) -> Lift {
        let own = self.owners[v as usize] == self.run.player;
        let Some((w, shape)) = self.chosen_move(buffer, v, own, lanes).1 else {
            self.run.top[v as usize] = true;
            return Lift::RaisedToTop;
        };
        if self.compare_with_progress(buffer, v, w, shape).is_ge() {
            return Lift::Unchanged;
        }
        let measure: Vec<u32> = (0..self.width())
            .map(|c| self.needed(buffer, w, shape, c))
            .collect();
        let changed = (0..self.width())
            .rev()
            .find(|&c| measure[c] != self.component(buffer, c, v))
            .expect("a raised measure differs");
        Lift::Raised(measure, changed)
    }

    /// `sees_change`: the predecessors of `v`, with shortcuts only those
    /// whose move into it reads component `changed` of its measure or a
    /// higher one.
    fn seeing_change(&self, v: u32, changed: usize) -> Vec<u32> {
        let range = row_range(&self.predecessors.offsets, v as usize);
        range
            .filter(|&e| {
                !self.shortcuts || changed >= self.first_component(self.predecessor_priorities[e])
            })
            .map(|e| self.predecessors.targets[e])
            .collect()
    }

    /// `spm_lift`, its threads one after another: gives the vertices raised.
    fn grid_launch(&mut self) -> u64 {
        let (read, queue) = (self.run.current_measures, self.run.current_queue);
        let mut raised = 0;
        for v in 0..self.vertices() as u32 {
            let index = v as usize;
            let (was_dirty, was_changed) =
                (self.run.queues[queue][index], self.run.changed_last[index]);
            if !was_dirty && !was_changed {
                continue;
            }
            self.run.queues[queue][index] = false;
            self.run.changed_last[index] = false;
            if self.run.top[index] {
                continue;
            }
            let changed = match if was_dirty {
                self.lift(read, v, self.lanes_in_grid(v))
            } else {
                Lift::Unchanged
            } {
                Lift::Unchanged => {
                    if was_changed {
                        self.keep_measure(read, v);
                    }
                    continue;
                }
                Lift::Raised(measure, changed) => {
                    self.write_measure(1 - read, v, &measure);
                    self.run.changed_last[index] = true;
                    changed
                }
                Lift::RaisedToTop => ALL_COMPONENTS,
            };
            for u in self.seeing_change(v, changed) {
                if !self.run.top[u as usize] {
                    self.run.queues[1 - queue][u as usize] = true;
                }
            }
            raised += 1;
        }
        self.run.current_measures = 1 - read;
        self.run.current_queue = 1 - queue;
        raised
    }

    /// `spm_lift_queue`, its phases one after another: gives the vertices
    /// raised and those left queued.
    fn queue_launch(&mut self) -> (u64, u64) {
        let (read, queue) = (self.run.current_measures, self.run.current_queue);
        let threads = u64::from(QUEUE_THREADS);
        let mut lists: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
        let mut length = [0u64; 2];
        let mut overflow = false;
        for v in 0..self.vertices() as u32 {
            if self.run.changed_last[v as usize] {
                self.keep_measure(read, v);
                self.run.changed_last[v as usize] = false;
            }
            if self.run.queues[queue][v as usize] {
                length[0] += 1;
                overflow |= !append(&mut lists[0], v, self.capacity);
            }
        }
        let (mut current, mut raised, mut first) = (0, 0, true);
        let mut strides = (self.vertices() as u64).div_ceil(threads);
        while (first || strides < self.strides) && !overflow && length[current] != 0 {
            first = false;
            let next = 1 - current;
            strides += length[current].div_ceil(threads);
            let listed = std::mem::take(&mut lists[current]);
            let outcomes: Vec<Lift> = listed
                .iter()
                .map(|&v| {
                    self.run.queues[queue][v as usize] = false;
                    match self.run.top[v as usize] {
                        true => Lift::Unchanged,
                        false => self.lift(read, v, tile_lanes(self.width())),
                    }
                })
                .collect();
            for (&v, outcome) in listed.iter().zip(outcomes) {
                let changed = match outcome {
                    Lift::Unchanged => continue,
                    Lift::Raised(measure, changed) => {
                        self.write_measure(read, v, &measure);
                        self.write_measure(1 - read, v, &measure);
                        changed
                    }
                    Lift::RaisedToTop => ALL_COMPONENTS,
                };
                for u in self.seeing_change(v, changed) {
                    if self.run.top[u as usize] || self.run.queues[queue][u as usize] {
                        continue;
                    }
                    self.run.queues[queue][u as usize] = true;
                    length[next] += 1;
                    overflow |= !append(&mut lists[next], u, self.capacity);
                }
                raised += 1;
            }
            length[current] = 0;
            current = next;
        }
        (raised, length[current])
    }

    /// Makes `player`'s run (0 Even, 1 Odd) the one the kernels work on.
    fn activate(&mut self, player: usize) {
        if self.run.player as usize != player {
            std::mem::swap(&mut self.run, &mut self.parked);
        }
    }

    /// `lift_turn` of `run`: batches until `budget` vertices were raised
    /// or the fixpoint; whether it was reached.
    fn lift_active(&mut self, budget: u64) -> bool {
        let mut raised_in_turn = 0;
        while let Some(now) = self.run.mode {
            if raised_in_turn >= budget {
                return false;
            }
            let raised;
            self.run.mode = match now {
                Mode::Grid => {
                    let counts: Vec<u64> = (0..self.launches).map(|_| self.grid_launch()).collect();
                    raised = counts.iter().sum();
                    Mode::after_grid_batch(&counts, self.capacity as u64)
                }
                Mode::Queue => {
                    let left;
                    (raised, left) = self.queue_launch();
                    Mode::after_queue_batch(left, self.capacity as u64)
                }
            };
            raised_in_turn += raised;
        }
        true
    }

    /// `stays`: whether `v` keeps its measure with the moves into
    /// `member`, in the current measures.
    fn stays(&self, member: &[bool], v: u32) -> bool {
        let buffer = self.run.current_measures;
        let own = self.owners[v as usize] == self.run.player;
        for e in self.moves.of_vertex(v) {
            let (w, priority) = (self.moves.edges.targets[e], self.moves.priorities[e]);
            let kept = member[w as usize]
                && self
                    .progress_shape(buffer, priority, w, self.first_component(priority))
                    .is_some_and(|shape| self.compare_with_progress(buffer, v, w, shape).is_ge());
            if kept == own {
                return kept;
            }
        }
        !own
    }

    /// `certainly_won`: `spm_won_start`, then rounds of `spm_won_round`
    /// (its threads one after another, so that a vertex dropped is seen
    /// at once by the later ones) until one drops none.
    fn certainly_won(&self) -> Vec<bool> {
        let mut member: Vec<bool> = self.run.top.iter().map(|&top| !top).collect();
        let mut check = member.clone();
        loop {
            let mut check_next = vec![false; member.len()];
            let mut dropped = 0;
            for v in 0..member.len() as u32 {
                if !std::mem::take(&mut check[v as usize])
                    || !member[v as usize]
                    || self.stays(&member, v)
                {
                    continue;
                }
                member[v as usize] = false;
                dropped += 1;
                for &u in self.predecessors.successors(v) {
                    check_next[u as usize] |= member[u as usize];
                }
            }
            if dropped == 0 {
                return member;
            }
            check = check_next;
        }
    }

    /// `spm_give_up` on `run`: ⊤ on `member`, predecessors queued in the
    /// current queue; whether any was not ⊤.
    fn give_up(&mut self, member: &[bool]) -> bool {
        let queue = self.run.current_queue;
        let mut given = false;
        for v in (0..member.len() as u32).filter(|&v| member[v as usize]) {
            if self.run.top[v as usize] {
                continue;
            }
            self.run.top[v as usize] = true;
            given = true;
            for &u in self.predecessors.successors(v) {
                if !self.run.top[u as usize] {
                    self.run.queues[queue][u as usize] = true;
                }
            }
        }
        given
    }

    /// `write_strategy` of `run` into `strategy`, after checking that
    /// both measure buffers agree wherever the measure is not ⊤.
    fn write_strategy(&self, strategy: &mut [u32]) {
        let vertices = self.vertices();
        // A vertex raised to ⊤ keeps what its buffers held: nothing reads
        // it again.
        for v in (0..vertices as u32).filter(|&v| !self.run.top[v as usize]) {
            for c in 0..self.width() {
                assert_eq!(
                    self.component(0, c, v),
                    self.component(1, c, v),
                    "buffers at {v}"
                );
            }
        }
        for v in 0..vertices as u32 {
            if self.owners[v as usize] == self.run.player
                && !self.run.top[v as usize]
                && let (Some(e), Some(_)) =
                    self.chosen_move(self.run.current_measures, v, true, self.lanes_in_grid(v))
            {
                strategy[v as usize] = self.moves.first_step(e);
            }
        }
    }
}

/// The host's side of the turns, as `OnGpu` in [`super`] has it.
impl Alternation for Model {
    fn lift_turn(&mut self, player: usize, budget: u64) -> Result<bool, SolveError> {
        self.activate(player);
        Ok(self.lift_active(budget))
    }

    fn share_certainly_won(&mut self, player: usize) -> Result<bool, SolveError> {
        self.activate(player);
        let won = self.certainly_won();
        self.activate(1 - player);
        Ok(self.give_up(&won))
    }

    fn give_up_region_of(&mut self, player: usize) -> Result<(), SolveError> {
        self.activate(player);
        let region: Vec<bool> = self.run.top.iter().map(|&top| !top).collect();
        self.activate(1 - player);
        self.give_up(&region);
        Ok(())
    }
}

/// Appends `v` to `list` unless it holds `capacity` already; whether it
/// fitted.
fn append(list: &mut Vec<u32>, v: u32, capacity: usize) -> bool {
    let fits = list.len() < capacity;
    if fits {
        list.push(v);
    }
    fits
}

/// [`super::solve`] on the model, with lists of `capacity` slots, batches
/// of `launches` grid-wide launches and queue launches of `strides`, and
/// first turns of `turn` raised vertices.
fn solve_on_model(
    game: &ParityGame,
    shortcuts: bool,
    capacity: usize,
    (launches, strides): (usize, u64),
    turn: u64,
) -> Solution {
    let (priorities, highest) = compress_priorities(&game.priorities);
    let moves = moves_of(game, &priorities, shortcuts);
    let vertices = priorities.len();
    let start = |player| ModelRun::start(player, (&priorities, highest), &game.owners, &moves);
    let (run, parked) = (start(Player::Even), start(Player::Odd));
    let (predecessors, predecessor_priorities) = moves.incoming();
    let mut heavy = vec![false; vertices];
    for v in heavy_vertices(&moves.edges, &predecessors) {
        heavy[v as usize] = true;
    }
    let mut model = Model {
        heavy,
        predecessors,
        predecessor_priorities,
        moves,
        shortcuts,
        // The kernels work on `run`; `parked` holds the other player's.
        run,
        parked,
        priorities,
        owners: game.owners.clone(),
        capacity,
        launches,
        strides,
    };
    alternate(&mut model, turn, turn).unwrap();
    let mut strategy = vec![NO_MOVE; vertices];
    model.activate(1);
    model.write_strategy(&mut strategy);
    model.activate(0);
    model.write_strategy(&mut strategy);
    let winners = model
        .run
        .top
        .iter()
        .map(|&odd| if odd { Player::Odd } else { Player::Even })
        .collect();
    Solution { winners, strategy }
}

mod tests {
    use super::*;
    use crate::parity::SolveOptions;
    use crate::parity::spm;
    use crate::testing::games::games_with_hubs;
    use proptest::prelude::*;
    use proptest::test_runner::TestRunner;

    /// A random game of up to `max_vertices` vertices (1 to 3 moves each,
    /// priorities up to `max_priority`) from `seed`, by xorshift.
    fn random_game(seed: u64, max_vertices: u64, max_priority: u64) -> ParityGame {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        let vertices = next(max_vertices) as u32 + 1;
        let mut edges = Vec::new();
        let (mut priorities, mut owners) = (Vec::new(), Vec::new());
        for v in 0..vertices {
            priorities.push(next(max_priority + 1) as u32);
            owners.push(if next(2) == 0 {
                Player::Even
            } else {
                Player::Odd
            });
            for _ in 0..=next(3) {
                edges.push((v, next(u64::from(vertices)) as u32));
            }
        }
        ParityGame {
            priorities,
            owners,
            edges: Csr::from_edges(vertices, edges).unwrap(),
            names: Vec::new(),
        }
    }

    /// Whether the model gets the CPU's solution of `game`, with and
    /// without shortcuts, with lists that overflow at once, now and then,
    /// or never, and batches of every size.
    fn check(game: &ParityGame, what: &str) {
        for shortcuts in [false, true] {
            let options = SolveOptions {
                shortcuts,
                ..SolveOptions::default()
            };
            let cpu = spm::solve(game, &options).unwrap();
            let vertices = game.vertices() as usize;
            for (capacity, batches) in
                [(1, (1, 1)), (3, (2, 2)), (8, (3, 5)), (vertices, (1, 1000))]
            {
                for turn in [1, 3, vertices as u64] {
                    let model = solve_on_model(game, shortcuts, capacity, batches, turn);
                    assert_eq!(
                        model, cpu,
                        "{what}, shortcuts {shortcuts}, capacity {capacity}, turn {turn}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_model_of_the_gpu_gets_the_cpus_solution_on_random_games() {
        for seed in 0..300 {
            check(&random_game(seed, 40, 9), &format!("seed {seed}"));
        }
    }

    #[test]
    fn the_model_of_the_gpu_gets_the_cpus_solution_on_games_with_heavy_vertices() {
        // Measures of a few components (tiles of 2 lanes, fewer than a
        // vertex's moves), more, and more than a tile of 32 lanes holds.
        for max_priority in [3, 12, 80] {
            TestRunner::new(ProptestConfig::with_cases(40))
                .run(&games_with_hubs(60, max_priority), |game| {
                    check(&game, &format!("priorities up to {max_priority}"));
                    Ok(())
                })
                .unwrap();
        }
    }

    /// Games that need thousands of rounds.
    #[test]
    fn the_model_of_the_gpu_gets_the_cpus_solution_on_counter_games() {
        for name in [
            "counter_core-6",
            "counter_m-20",
            "counter_rob-5",
            "rngame-100-10",
        ] {
            let path = format!("tests/data/parity/{name}.pg");
            check(
                &crate::frontend::pgsolver::load(path.as_ref()).unwrap(),
                name,
            );
        }
    }
}
