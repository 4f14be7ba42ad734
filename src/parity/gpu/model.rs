//! A sequential model of `kernels/parity/spm.cu` and of the host's loop
//! in [`super`], for the tests: the same arrays (column-wise measures in
//! two buffers, two queues of flags, `changed_last`, the one block's
//! lists), the same kernels with their threads run one after another, and
//! the same choice of mode ([`Mode`]), with lists and batches small enough
//! that every switch and overflow happens. It must reach the CPU solver's
//! solution: that checks the handing over of buffers and flags between
//! the two kinds of launches, which the GPU tests only see on a device.

use std::cmp::Ordering;

use super::super::spm::{measure_bounds, without_useless_self_loops};
use super::super::{Solution, compress_priorities};
use super::{Mode, QUEUE_THREADS};
use crate::explicit::game::NO_MOVE;
use crate::explicit::{Csr, ParityGame, Player};

/// What lifting a vertex did (`Lift` in the kernel), with the new measure.
enum Lift {
    Unchanged,
    Raised(Vec<u32>),
    RaisedToTop,
}

/// The device's arrays for one game, and the sizes of the batches.
struct Model {
    moves: Csr,
    predecessors: Csr,
    priorities: Vec<u32>,
    highest: u32,
    owners: Vec<Player>,
    player: Player,
    bounds: Vec<u32>,
    measures: [Vec<u32>; 2],
    top: Vec<bool>,
    queues: [Vec<bool>; 2],
    changed_last: Vec<bool>,
    current_measures: usize,
    current_queue: usize,
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
        self.bounds.len()
    }

    fn component(&self, buffer: usize, c: usize, v: u32) -> u32 {
        self.measures[buffer][c * self.vertices() + v as usize]
    }

    fn write_measure(&mut self, buffer: usize, v: u32, measure: &[u32]) {
        let vertices = self.vertices();
        for (c, &value) in measure.iter().enumerate() {
            self.measures[buffer][c * vertices + v as usize] = value;
        }
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

    /// `extreme_move`: the move and whether it was ⊤.
    fn extreme_move(&self, buffer: usize, v: u32, cut: usize, least: bool) -> (u32, bool) {
        let Some((&first, rest)) = self.moves.successors(v).split_first() else {
            return (NO_MOVE, true);
        };
        let (mut best, mut best_top) = (first, self.top[first as usize]);
        for &w in rest {
            if best_top && !least {
                break;
            }
            let w_top = self.top[w as usize];
            let better = if least {
                !w_top && (best_top || self.compare_from(buffer, w, best, cut).is_lt())
            } else {
                w_top || self.compare_from(buffer, w, best, cut).is_gt()
            };
            if better {
                (best, best_top) = (w, w_top);
            }
        }
        (best, best_top)
    }

    fn first_component(&self, v: u32) -> usize {
        ((self.priorities[v as usize] + self.player as u32) / 2) as usize
    }

    /// `lift` from `buffer`; sets ⊤ in place, as the kernel does.
    fn lift(&mut self, buffer: usize, v: u32) -> Lift {
        let priority = self.priorities[v as usize];
        let cut = self.first_component(v);
        let own = self.owners[v as usize] == self.player;
        let (w, w_top) = self.extreme_move(buffer, v, cut, own);
        if w_top {
            self.top[v as usize] = true;
            return Lift::RaisedToTop;
        }
        // Components below `zeroed` are 0, component `incremented` (the
        // width when none) is w's plus one, the others are w's.
        let (mut zeroed, mut incremented) = (cut, self.width());
        if Player::favoured_by(priority) != self.player {
            incremented = cut;
            while incremented < self.width()
                && self.component(buffer, incremented, w) >= self.bounds[incremented]
            {
                incremented += 1;
            }
            if incremented == self.width() {
                self.top[v as usize] = true;
                return Lift::RaisedToTop;
            }
            zeroed = incremented;
        }
        let needed: Vec<u32> = (0..self.width())
            .map(|c| match c {
                _ if c < zeroed => 0,
                _ => self.component(buffer, c, w) + u32::from(c == incremented),
            })
            .collect();
        let mine: Vec<u32> = (0..self.width())
            .map(|c| self.component(buffer, c, v))
            .collect();
        if needed.iter().rev().cmp(mine.iter().rev()).is_le() {
            return Lift::Unchanged;
        }
        Lift::Raised(needed)
    }

    /// `spm_lift`, its threads one after another: gives the vertices raised.
    fn grid_launch(&mut self) -> u64 {
        let (read, queue) = (self.current_measures, self.current_queue);
        let mut raised = 0;
        for v in 0..self.vertices() as u32 {
            let index = v as usize;
            let (was_dirty, was_changed) = (self.queues[queue][index], self.changed_last[index]);
            if !was_dirty && !was_changed {
                continue;
            }
            self.queues[queue][index] = false;
            self.changed_last[index] = false;
            if self.top[index] {
                continue;
            }
            match if was_dirty {
                self.lift(read, v)
            } else {
                Lift::Unchanged
            } {
                Lift::Unchanged => {
                    if was_changed {
                        self.keep_measure(read, v);
                    }
                    continue;
                }
                Lift::Raised(measure) => {
                    self.write_measure(1 - read, v, &measure);
                    self.changed_last[index] = true;
                }
                Lift::RaisedToTop => {}
            }
            for &u in self.predecessors.successors(v) {
                if !self.top[u as usize] {
                    self.queues[1 - queue][u as usize] = true;
                }
            }
            raised += 1;
        }
        self.current_measures = 1 - read;
        self.current_queue = 1 - queue;
        raised
    }

    /// `spm_lift_queue`, its phases one after another: gives the vertices
    /// raised and those left queued.
    fn queue_launch(&mut self) -> (u64, u64) {
        let (read, queue) = (self.current_measures, self.current_queue);
        let threads = u64::from(QUEUE_THREADS);
        let mut lists: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
        let mut length = [0u64; 2];
        let mut overflow = false;
        for v in 0..self.vertices() as u32 {
            if self.changed_last[v as usize] {
                self.keep_measure(read, v);
                self.changed_last[v as usize] = false;
            }
            if self.queues[queue][v as usize] {
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
                    self.queues[queue][v as usize] = false;
                    match self.top[v as usize] {
                        true => Lift::Unchanged,
                        false => self.lift(read, v),
                    }
                })
                .collect();
            for (&v, outcome) in listed.iter().zip(outcomes) {
                match outcome {
                    Lift::Unchanged => continue,
                    Lift::Raised(measure) => {
                        self.write_measure(read, v, &measure);
                        self.write_measure(1 - read, v, &measure);
                    }
                    Lift::RaisedToTop => {}
                }
                for &u in self.predecessors.successors(v) {
                    if self.top[u as usize] || self.queues[queue][u as usize] {
                        continue;
                    }
                    self.queues[queue][u as usize] = true;
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

    /// `solve_for`: lifts `player`'s measures from ⊤ on `top` to the
    /// fixpoint, then writes `player`'s moves into `strategy`.
    fn solve_for(&mut self, player: Player, top: Vec<bool>, strategy: &mut [u32]) -> Vec<bool> {
        let vertices = self.vertices();
        self.player = player;
        self.bounds = measure_bounds(player, &self.priorities, self.highest);
        self.measures = [0, 1].map(|_| vec![0; vertices * self.bounds.len()]);
        self.changed_last = vec![false; vertices];
        self.queues = [0, 1].map(|_| vec![false; vertices]);
        (self.current_measures, self.current_queue) = (0, 0);
        self.queues[0] = (0..vertices)
            .map(|v| !top[v] && Player::favoured_by(self.priorities[v]) != player)
            .collect();
        self.top = top;
        let mut mode = Some(Mode::Queue);
        while let Some(now) = mode {
            mode = match now {
                Mode::Grid => {
                    let raised: Vec<u64> = (0..self.launches).map(|_| self.grid_launch()).collect();
                    Mode::after_grid_batch(&raised, self.capacity as u64)
                }
                Mode::Queue => Mode::after_queue_batch(self.queue_launch().1, self.capacity as u64),
            };
        }
        // A vertex raised to ⊤ keeps what its buffers held: nothing reads
        // it again.
        for v in (0..vertices as u32).filter(|&v| !self.top[v as usize]) {
            for c in 0..self.width() {
                assert_eq!(
                    self.component(0, c, v),
                    self.component(1, c, v),
                    "buffers at {v}"
                );
            }
        }
        for v in 0..vertices as u32 {
            if self.owners[v as usize] == player && !self.top[v as usize] {
                let (choice, chosen_top) =
                    self.extreme_move(self.current_measures, v, self.first_component(v), true);
                if !chosen_top {
                    strategy[v as usize] = choice;
                }
            }
        }
        std::mem::take(&mut self.top)
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
/// of `launches` grid-wide launches and queue launches of `strides`.
fn solve_on_model(game: &ParityGame, capacity: usize, launches: usize, strides: u64) -> Solution {
    let (priorities, highest) = compress_priorities(&game.priorities);
    let moves = without_useless_self_loops(game, &priorities);
    let vertices = priorities.len();
    let mut model = Model {
        predecessors: moves.transpose(),
        moves,
        priorities,
        highest,
        owners: game.owners.clone(),
        player: Player::Even,
        bounds: Vec::new(),
        measures: [Vec::new(), Vec::new()],
        top: Vec::new(),
        queues: [Vec::new(), Vec::new()],
        changed_last: Vec::new(),
        current_measures: 0,
        current_queue: 0,
        capacity,
        launches,
        strides,
    };
    let mut strategy = vec![NO_MOVE; vertices];
    let odd_region = model.solve_for(Player::Even, vec![false; vertices], &mut strategy);
    let even_region = odd_region.iter().map(|&odd| !odd).collect();
    model.solve_for(Player::Odd, even_region, &mut strategy);
    let winners = odd_region
        .iter()
        .map(|&odd| if odd { Player::Odd } else { Player::Even })
        .collect();
    Solution { winners, strategy }
}

mod tests {
    use super::*;
    use crate::parity::SolveOptions;
    use crate::parity::spm;

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

    /// Whether the model gets the CPU's solution of `game` with lists
    /// that overflow at once, now and then, or never, and batches of
    /// every size.
    fn check(game: &ParityGame, what: &str) {
        let cpu = spm::solve(game, &SolveOptions::default()).unwrap();
        let vertices = game.vertices() as usize;
        for (capacity, launches, strides) in [(1, 1, 1), (3, 2, 2), (8, 3, 5), (vertices, 1, 1000)]
        {
            let model = solve_on_model(game, capacity, launches, strides);
            assert_eq!(model, cpu, "{what}, capacity {capacity}");
        }
    }

    #[test]
    fn the_model_of_the_gpu_gets_the_cpus_solution_on_random_games() {
        for seed in 0..300 {
            check(&random_game(seed, 40, 9), &format!("seed {seed}"));
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
