//! The multi-core engine of `warpcheck prob`: the classes of undecided
//! states are split into the strongly connected components of what they
//! read (class → the classes its choices can reach), and the components
//! are solved one after another, each after every component it reaches
//! (topological interval iteration). What a component reads outside
//! itself is then final, so a component of one class that does not read
//! itself is final after one update, and a larger one is swept on its
//! own, as an optimistic [`Schedule`] of its own says (the lower bounds
//! first, then a guess of the upper ones, which gives way to the known
//! upper bounds if it does not verify), until its states are precise
//! (to a precision by its place in the order, see
//! `Layout::precision_of`), skipping the classes already within half of
//! it (see `PositionBounds`); the sweeps of a large component are
//! spread over rayon threads (Jacobi
//! and Gauss-Seidel mixed: a thread reads whatever bound another has
//! written, which is still a valid bound, see
//! [`super::reference::SharedBounds`]). The sweeps read a copy of the
//! system laid out in that order (`Layout`), one value a class, so that
//! they stream through memory. On more than one thread the order is
//! found in parallel (`Order::by_levels`: the classes that read no cycle
//! level by level, Tarjan's algorithm only for the rest), and the
//! one-class components of a level, which read only earlier levels, are
//! updated at once.
//!
//! Sound as the global iteration is: the bounds read from a finished
//! component are a lower and a proven upper bound, so every update keeps
//! both sides valid, and a guess verified against them bounds the value
//! of its component from above. Precise, too: an update only mixes what
//! it reads, so a state reading precise intervals (within an absolute
//! precision, or one relative to the lower bounds, which the mixture
//! keeps) is precise up to rounding. Where a component stops short (the
//! iteration or time limit), so do the components after it, with the
//! bounds they started with (upper bounds that are guesses become
//! infinite). The iterations reported are the most sweeps one component
//! took; the limit of iterations applies to each component.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::qualitative::by_levels;
use super::reference::{
    Bounds, Classes, Iteration, Phase, Schedule, Step, SweepRule, Tally, guess_above,
};
use super::{Precision, SolveOptions, Spare, rows_in_parallel, timed};
use crate::explicit::{Csr, Mdp};
use crate::scc;
use crate::scc::cpu::prefix_sums;

/// Classes one task updates.
const CLASSES_PER_TASK: usize = 1 << 10;

/// Positions whose arrays one task of [`Layout::in_order`] fills.
const POSITIONS_PER_BLOCK: usize = 1 << 12;

/// Sweeps between two looks for the classes frozen since the last.
const SWEEPS_PER_LOOK: u64 = 8;

/// Refines `iteration` of `mdp` on `threads` threads within `options`.
pub fn iterate(mdp: &Mdp, iteration: Iteration, options: &SolveOptions, threads: usize) -> Bounds {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .expect("a thread pool of at least one thread");
    pool.install(|| solve_in_order(mdp, iteration, options))
}

/// The classes of an [`Iteration`] in the order they are solved, one
/// position each: the components, each after those it reads, and each
/// component's classes in the order the search completed them (a
/// Gauss-Seidel order that mostly updates a class after those it reads,
/// which converges in far fewer sweeps than their numbers' order on
/// zeroconf). Every position has its
/// choices, and every choice the sums its branches into settled states
/// add to its lower and its upper bound, and its other branches by the
/// position they read.
struct Layout {
    /// The class at each position.
    class_at: Vec<u32>,
    /// Where each component's positions start, then their count.
    component_starts: Vec<u32>,
    /// Where each stage's components start, then their count (see
    /// [`Order`]).
    stage_starts: Vec<u32>,
    /// Whether each component reads itself (else it is one class, final
    /// after one update).
    cyclic: Vec<bool>,
    /// The most components that read themselves on a path of reads from
    /// each component, itself included.
    heights: Vec<u32>,
    /// Where each position's choices start, then their count.
    choice_offsets: Vec<u64>,
    /// The constant of each choice plus its branches into settled
    /// states, with their lower and with their upper bounds.
    settled_low: Vec<f64>,
    settled_high: Vec<f64>,
    /// Where each choice's branches start, then their count.
    branch_offsets: Vec<u64>,
    /// The position each branch reads, and its probability.
    targets: Vec<u32>,
    probabilities: Vec<f64>,
}

impl Layout {
    /// The layout of `iteration` of `mdp`, on the threads of the current
    /// rayon pool: [`Layout::in_parallel`] on more than one (in arrays of
    /// `spare` where they fit), [`Layout::sequential`] on one.
    fn of(mdp: &Mdp, iteration: &Iteration, spare: Spare) -> Layout {
        let mut layout = if rayon::current_num_threads() > 1 {
            Layout::in_parallel(mdp, iteration, spare)
        } else {
            timed("layout: sequential", || Layout::sequential(mdp, iteration))
        };
        layout.heights = timed("layout: heights", || layout.heights());
        tracing::debug!(stages = layout.stage_starts.len() - 1, "layout");
        layout
    }

    /// The layout (heights aside) on this thread, each component a stage
    /// of its own, in Tarjan's completion order ([`Order::sequential`]):
    /// the sequential reference.
    fn sequential(mdp: &Mdp, iteration: &Iteration) -> Layout {
        let classes = &iteration.classes;
        let class_of = class_of(classes, iteration.lower.len());
        let graph = dependencies(mdp, classes, &class_of);
        let Order {
            class_at,
            component_starts,
            stage_starts,
        } = Order::sequential(&graph);
        let cyclic = component_starts
            .windows(2)
            .map(|component| {
                let part = &class_at[component[0] as usize..component[1] as usize];
                part.len() > 1 || graph.successors(part[0]).contains(&part[0])
            })
            .collect();
        let mut position_of = vec![0u32; classes.count()];
        for (position, &class) in class_at.iter().enumerate() {
            position_of[class as usize] = position as u32;
        }
        let mut layout = Layout {
            class_at,
            component_starts,
            stage_starts,
            cyclic,
            heights: Vec::new(),
            choice_offsets: vec![0],
            settled_low: Vec::new(),
            settled_high: Vec::new(),
            branch_offsets: vec![0],
            targets: Vec::new(),
            probabilities: Vec::new(),
        };
        for &class in &layout.class_at {
            for (choice, constant) in classes.choices_with_constants(class as usize) {
                let (low, high) = split_choice(
                    mdp,
                    iteration,
                    &class_of,
                    choice,
                    constant,
                    |class, probability| {
                        layout.targets.push(position_of[class as usize]);
                        layout.probabilities.push(probability);
                    },
                );
                layout.settled_low.push(low);
                layout.settled_high.push(high);
                layout.branch_offsets.push(layout.targets.len() as u64);
            }
            layout.choice_offsets.push(layout.settled_low.len() as u64);
        }
        layout
    }

    /// The layout (heights aside) on the current rayon pool: the graph of
    /// what each class reads by [`dependencies_in_parallel`], its order by
    /// [`Order::by_levels`], and the arrays by [`Layout::in_order`].
    fn in_parallel(mdp: &Mdp, iteration: &Iteration, spare: Spare) -> Layout {
        let classes = &iteration.classes;
        let class_of = class_of(classes, iteration.lower.len());
        let graph = timed("layout: dependencies", || {
            dependencies_in_parallel(mdp, classes, &class_of)
        });
        let order = timed("layout: order", || Order::by_levels(&graph));
        timed("layout: arrays", || {
            Layout::in_order(mdp, iteration, &class_of, &graph, order, spare)
        })
    }

    /// The layout (heights aside) of `iteration` of `mdp` in `order`, an
    /// order of the components of `graph`, what each class reads
    /// (`class_of` each state), built on the current rayon pool: each position's count of
    /// choices and of branches read, their prefix sums, then the arrays
    /// (taken from `spare` where they fit) filled a block of positions a
    /// task.
    fn in_order(
        mdp: &Mdp,
        iteration: &Iteration,
        class_of: &[u32],
        graph: &Csr,
        order: Order,
        mut spare: Spare,
    ) -> Layout {
        let classes = &iteration.classes;
        let Order {
            class_at,
            component_starts,
            stage_starts,
        } = order;
        let cyclic = component_starts
            .par_windows(2)
            .map(|component| {
                let part = &class_at[component[0] as usize..component[1] as usize];
                part.len() > 1 || graph.successors(part[0]).contains(&part[0])
            })
            .collect();
        let position_of = scc::cpu::atomics32(classes.count(), 0);
        class_at
            .par_iter()
            .enumerate()
            .for_each(|(position, &class)| {
                position_of[class as usize].store(position as u32, Relaxed)
            });
        let position_of = scc::cpu::into_plain(position_of);
        // The branches of `choice` read in the layout: positive, into a
        // class.
        let read = |choice: u64| {
            let (targets, probabilities) = mdp.branches_of(choice);
            targets
                .iter()
                .zip(probabilities)
                .filter(|&(&target, &probability)| {
                    probability > 0.0 && class_of[target as usize] != u32::MAX
                })
        };
        let counting = std::time::Instant::now();
        let (choice_counts, branch_counts): (Vec<u64>, Vec<u64>) = class_at
            .par_iter()
            .map(|&class| {
                let class = class as usize;
                let entries = classes.choice_offsets[class] as usize
                    ..classes.choice_offsets[class + 1] as usize;
                let choices = &classes.choices[entries];
                let branches = choices.iter().map(|&choice| read(choice).count() as u64);
                (choices.len() as u64, branches.sum::<u64>())
            })
            .unzip();
        let choice_offsets = prefix_sums(choice_counts);
        let branch_starts = prefix_sums(branch_counts);
        let choices = *choice_offsets
            .last()
            .expect("one offset more than positions") as usize;
        let branches = *branch_starts
            .last()
            .expect("one offset more than positions") as usize;
        tracing::debug!(seconds = counting.elapsed().as_secs_f64(), "layout: counts");
        // Every entry is written below (the first offset here).
        let mut settled_low = spare.floats(choices);
        let mut settled_high = spare.floats(choices);
        let mut branch_offsets = spare.words(choices + 1);
        let mut targets = spare.halves(branches);
        let mut probabilities = spare.floats(branches);
        drop(spare);
        branch_offsets[0] = 0;
        // The arrays cut at the blocks of positions: each block's choices
        // (their bounds, and the end of their branches) and branches.
        let mut blocks = Vec::new();
        let (mut low, mut high, mut ends) = (
            &mut settled_low[..],
            &mut settled_high[..],
            &mut branch_offsets[1..],
        );
        let (mut reads, mut weights) = (&mut targets[..], &mut probabilities[..]);
        for first in (0..class_at.len()).step_by(POSITIONS_PER_BLOCK) {
            let last = (first + POSITIONS_PER_BLOCK).min(class_at.len());
            let choices = (choice_offsets[last] - choice_offsets[first]) as usize;
            let branches = (branch_starts[last] - branch_starts[first]) as usize;
            let (block_low, rest_low) = low.split_at_mut(choices);
            let (block_high, rest_high) = high.split_at_mut(choices);
            let (block_ends, rest_ends) = ends.split_at_mut(choices);
            let (block_reads, rest_reads) = reads.split_at_mut(branches);
            let (block_weights, rest_weights) = weights.split_at_mut(branches);
            blocks.push((
                first..last,
                block_low,
                block_high,
                block_ends,
                block_reads,
                block_weights,
            ));
            (low, high, ends, reads, weights) =
                (rest_low, rest_high, rest_ends, rest_reads, rest_weights);
        }
        blocks
            .into_par_iter()
            .for_each(|(positions, low, high, ends, reads, weights)| {
                let mut branch = 0;
                let first_branch = branch_starts[positions.start];
                let block_choices = class_at[positions]
                    .iter()
                    .flat_map(|&class| classes.choices_with_constants(class as usize));
                for (entry, (choice, constant)) in block_choices.enumerate() {
                    let (choice_low, choice_high) = split_choice(
                        mdp,
                        iteration,
                        class_of,
                        choice,
                        constant,
                        |class, probability| {
                            reads[branch] = position_of[class as usize];
                            weights[branch] = probability;
                            branch += 1;
                        },
                    );
                    low[entry] = choice_low;
                    high[entry] = choice_high;
                    ends[entry] = first_branch + branch as u64;
                }
            });
        Layout {
            class_at,
            component_starts,
            stage_starts,
            cyclic,
            heights: Vec::new(),
            choice_offsets,
            settled_low,
            settled_high,
            branch_offsets,
            targets,
            probabilities,
        }
    }

    /// The height of every component (see [`Layout::heights`]), stage by
    /// stage, the components of a large stage on the current rayon pool
    /// (each reads only earlier stages outside itself).
    fn heights(&self) -> Vec<u32> {
        let component_of = scc::cpu::atomics32(self.class_at.len(), 0);
        (0..self.cyclic.len())
            .into_par_iter()
            .for_each(|component| {
                for position in self.positions_of(component) {
                    component_of[position].store(component as u32, Relaxed);
                }
            });
        let component_of = scc::cpu::into_plain(component_of);
        let height = |below: &[u32], component: usize| {
            let positions = self.positions_of(component);
            let choices = self.choice_offsets[positions.start] as usize
                ..self.choice_offsets[positions.end] as usize;
            let branches = self.branch_offsets[choices.start] as usize
                ..self.branch_offsets[choices.end] as usize;
            let highest_read = self.targets[branches]
                .iter()
                .filter(|&&target| !positions.contains(&(target as usize)))
                .map(|&target| below[component_of[target as usize] as usize])
                .max()
                .unwrap_or(0);
            highest_read + u32::from(self.cyclic[component])
        };
        let mut heights = Vec::with_capacity(self.cyclic.len());
        for stage in self.stage_starts.windows(2) {
            let components = stage[0] as usize..stage[1] as usize;
            if components.len() >= 2 * CLASSES_PER_TASK {
                let below = &heights;
                let stage_heights: Vec<u32> = components
                    .into_par_iter()
                    .map(|c| height(below, c))
                    .collect();
                heights.extend(stage_heights);
            } else {
                for component in components {
                    let component_height = height(&heights, component);
                    heights.push(component_height);
                }
            }
        }
        heights
    }

    /// The positions of `component`.
    fn positions_of(&self, component: usize) -> std::ops::Range<usize> {
        self.component_starts[component] as usize..self.component_starts[component + 1] as usize
    }

    /// The precision `component` is solved to, `highest` being the most
    /// height: the components that read themselves approach a limit as
    /// precise as what they read, which they could only approach for ever
    /// if it lay on their own precision. So each aims a step of a
    /// `highest`-th of the precision above what it reads (at its height
    /// times that step), less a 64th of the precision, which the single
    /// classes that read the highest keep to spare for rounding. Plain
    /// value iteration aims at the precision.
    fn precision_of(&self, component: usize, highest: u32, options: &SolveOptions) -> Precision {
        let mut precision = options.precision;
        if options.sound {
            let share = f64::from(self.heights[component]) / f64::from(highest);
            precision.epsilon *= share * (1.0 - 1.0 / 64.0);
        }
        precision
    }
}

/// The components of the graph of what the classes read, in an order
/// in which each comes after every component it reads, grouped into
/// stages: runs of components none of which reads another.
struct Order {
    /// The class at each position.
    class_at: Vec<u32>,
    /// Where each component's positions start, then their count.
    component_starts: Vec<u32>,
    /// Where each stage's components start, then their count.
    stage_starts: Vec<u32>,
}

impl Order {
    /// The order in which Tarjan's algorithm completes the components of
    /// `graph`, on this thread, one component a stage: the sequential
    /// reference.
    fn sequential(graph: &Csr) -> Order {
        let (class_at, component_starts) = scc::reference::in_completion_order(graph);
        let stage_starts = (0..component_starts.len() as u32).collect();
        Order {
            class_at,
            component_starts,
            stage_starts,
        }
    }

    /// The components of `graph` on the current rayon pool: first, level
    /// by level, the classes whose reads (but themselves) are all in the
    /// levels before (each level a stage of one-class components, in
    /// class order); then the classes left, which read a cycle, in
    /// Tarjan's completion order on this thread, one component a stage.
    fn by_levels(graph: &Csr) -> Order {
        // Each class's reads of other classes not yet in a level.
        let unplaced: Vec<AtomicU32> = (0..graph.states())
            .into_par_iter()
            .map(|class| {
                let reads = graph.successors(class).iter();
                AtomicU32::new(reads.filter(|&&read| read != class).count() as u32)
            })
            .collect();
        let is_left = |class: u32| unplaced[class as usize].load(Relaxed) > 0;
        let seeds: Vec<u32> = (0..graph.states())
            .into_par_iter()
            .filter(|&class| !is_left(class))
            .collect();
        let mut class_at = Vec::with_capacity(graph.states() as usize);
        let mut stage_starts = Vec::new();
        // Without a class to start from, Tarjan orders all.
        if !seeds.is_empty() {
            let readers = scc::cpu::transposed(graph);
            let expand = |class: u32, next: &mut Vec<u32>| {
                for &reader in readers.successors(class) {
                    if reader != class && unplaced[reader as usize].fetch_sub(1, Relaxed) == 1 {
                        next.push(reader);
                    }
                }
            };
            by_levels(seeds, expand, |level| {
                level.par_sort_unstable();
                stage_starts.push(class_at.len() as u32);
                class_at.extend_from_slice(level);
            });
        }
        let placed = class_at.len() as u32;
        let mut component_starts: Vec<u32> = (0..=placed).into_par_iter().collect();
        let left: Vec<u32> = (0..graph.states())
            .into_par_iter()
            .filter(|&class| is_left(class))
            .collect();
        if !left.is_empty() {
            let (rest, starts) = scc::reference::in_completion_order_among(graph, left, is_left);
            class_at.extend(rest);
            stage_starts.extend((placed..).take(starts.len() - 1));
            component_starts.extend(starts[1..].iter().map(|&start| placed + start));
        }
        stage_starts.push(component_starts.len() as u32 - 1);
        Order {
            class_at,
            component_starts,
            stage_starts,
        }
    }
}

/// The class of every one of `states` states, `u32::MAX` where none (a
/// settled state), on the current rayon pool.
/// Splits `choice` (whose settled part is `constant`) of a class: the
/// branches into settled states (no class in `class_of`) add their
/// bounds to the low and high sums it returns, each branch into a class
/// goes to `read` with its probability (branches of probability 0 to
/// neither).
fn split_choice(
    mdp: &Mdp,
    iteration: &Iteration,
    class_of: &[u32],
    choice: u64,
    constant: f64,
    mut read: impl FnMut(u32, f64),
) -> (f64, f64) {
    let (mut low, mut high) = (constant, constant);
    let (targets, probabilities) = mdp.branches_of(choice);
    for (&target, &probability) in targets.iter().zip(probabilities) {
        match class_of[target as usize] {
            _ if probability <= 0.0 => {}
            u32::MAX => {
                low += probability * iteration.lower[target as usize];
                high += probability * iteration.upper[target as usize];
            }
            class => read(class, probability),
        }
    }
    (low, high)
}

fn class_of(classes: &Classes, states: usize) -> Vec<u32> {
    let class_of = scc::cpu::atomics32(states, u32::MAX);
    (0..classes.count()).into_par_iter().for_each(|class| {
        for &state in classes.states(class) {
            class_of[state as usize].store(class as u32, Relaxed);
        }
    });
    scc::cpu::into_plain(class_of)
}

/// The classes of `classes` that a class reads (`class_of` each state,
/// `u32::MAX` where settled): those of the targets of its choices (once
/// each where repeated in a row).
fn dependencies(mdp: &Mdp, classes: &Classes, class_of: &[u32]) -> Csr {
    let mut last_seen = vec![u32::MAX; classes.count()];
    let mut graph = Csr {
        offsets: Vec::with_capacity(classes.count() + 1),
        targets: Vec::new(),
    };
    graph.offsets.push(0);
    for class in 0..classes.count() {
        for (choice, _) in classes.choices_with_constants(class) {
            for &target in mdp.branches_of(choice).0 {
                let read = class_of[target as usize];
                if read != u32::MAX && last_seen[read as usize] != class as u32 {
                    last_seen[read as usize] = class as u32;
                    graph.targets.push(read);
                }
            }
        }
        graph.offsets.push(graph.targets.len() as u64);
    }
    graph
}

/// [`dependencies`] on the current rayon pool ([`rows_in_parallel`]):
/// a row keeps each class once, in the order first read, as in
/// [`dependencies`] (each task marks the classes of the row it builds in
/// a bit set of its own, cleared after the row).
fn dependencies_in_parallel(mdp: &Mdp, classes: &Classes, class_of: &[u32]) -> Csr {
    let in_row = || vec![0u64; classes.count().div_ceil(64)];
    let (offsets, targets) = rows_in_parallel(classes.count(), in_row, |in_row, class, reads| {
        let row_start = reads.len();
        for (choice, _) in classes.choices_with_constants(class) {
            for &target in mdp.branches_of(choice).0 {
                let read = class_of[target as usize];
                let (word, bit) = (read as usize / 64, 1 << (read % 64));
                if read != u32::MAX && in_row[word] & bit == 0 {
                    in_row[word] |= bit;
                    reads.push(read);
                }
            }
        }
        for &read in &reads[row_start..] {
            in_row[read as usize / 64] = 0;
        }
    });
    Csr { offsets, targets }
}

/// The bounds of every position of a [`Layout`], as the bits of `f64`s
/// that threads update while others read them (see
/// [`super::reference::SharedBounds`] for why that is sound).
struct PositionBounds {
    /// The lower and the upper bound of each position side by side, so
    /// that a read of both touches one cache line.
    bounds: Vec<[AtomicU64; 2]>,
    /// Whether the class at each position is within half the precision
    /// with proven bounds: as the lower bound only rises and the upper one
    /// only falls from then on, it stays precise and is not updated again
    /// (what reads it is then within half the precision up to what it
    /// reads elsewhere, so that its own iteration reaches the precision).
    frozen: Vec<AtomicBool>,
}

impl PositionBounds {
    /// The bounds of the classes at the positions of `layout`: the highest
    /// lower and the lowest upper bound of their states (which share a
    /// value), found on the current rayon pool.
    fn of(layout: &Layout, iteration: &Iteration) -> PositionBounds {
        let bounds = layout
            .class_at
            .par_iter()
            .map(|&class| {
                let states = iteration.classes.states(class as usize).iter();
                states.fold((f64::NEG_INFINITY, f64::INFINITY), |(l, u), &s| {
                    (
                        l.max(iteration.lower[s as usize]),
                        u.min(iteration.upper[s as usize]),
                    )
                })
            })
            .map(|(l, u)| [AtomicU64::new(l.to_bits()), AtomicU64::new(u.to_bits())])
            .collect();
        let frozen = scc::cpu::zeroed_atomics(layout.class_at.len());
        PositionBounds { bounds, frozen }
    }

    /// The lower bound at `position`.
    fn lower(&self, position: usize) -> f64 {
        f64::from_bits(self.bounds[position][0].load(Relaxed))
    }

    /// The upper bound at `position`.
    fn upper(&self, position: usize) -> f64 {
        f64::from_bits(self.bounds[position][1].load(Relaxed))
    }

    fn set(&self, position: usize, lower: f64, upper: f64) {
        self.bounds[position][0].store(lower.to_bits(), Relaxed);
        self.bounds[position][1].store(upper.to_bits(), Relaxed);
    }

    /// One update of the class at `position` under `rule`, as
    /// [`super::reference::SharedBounds::update`] does it.
    fn update(&self, layout: &Layout, position: usize, rule: SweepRule) -> Tally {
        if self.frozen[position].load(Relaxed) {
            return Tally::default();
        }
        let with_upper = rule.phase != Phase::LowerOnly;
        let mut best: Option<(f64, f64)> = None;
        let choices =
            layout.choice_offsets[position] as usize..layout.choice_offsets[position + 1] as usize;
        for choice in choices {
            let (mut low, mut high) = (layout.settled_low[choice], layout.settled_high[choice]);
            let branches =
                layout.branch_offsets[choice] as usize..layout.branch_offsets[choice + 1] as usize;
            let reads = layout.targets[branches.clone()]
                .iter()
                .zip(&layout.probabilities[branches]);
            if with_upper {
                for (&target, &probability) in reads {
                    low += probability * self.lower(target as usize);
                    high += probability * self.upper(target as usize);
                }
            } else {
                for (&target, &probability) in reads {
                    low += probability * self.lower(target as usize);
                }
            }
            best = Some(rule.better(best, (low, high)));
        }
        // A class without a choice out of it can only stay: value 0.
        let (low, high) = best.unwrap_or((0.0, 0.0));
        let mut tally = Tally::default();
        let (lower, upper) = rule.keep(
            self.lower(position),
            self.upper(position),
            low,
            high,
            &mut tally,
        );
        self.set(position, lower, upper);
        let half = Precision {
            epsilon: rule.precision.epsilon / 2.0,
            ..rule.precision
        };
        if rule.phase == Phase::Verified && half.reached(lower, upper) {
            self.frozen[position].store(true, Relaxed);
        }
        tally
    }
}

/// Solves the components of `iteration` in order (see the module
/// documentation).
fn solve_in_order(mdp: &Mdp, mut iteration: Iteration, options: &SolveOptions) -> Bounds {
    let spare = std::mem::take(&mut iteration.spare);
    let layout = timed("layout", || Layout::of(mdp, &iteration, spare));
    let bounds = PositionBounds::of(&layout, &iteration);
    let sweeping = std::time::Instant::now();
    let one_update = SweepRule {
        optimum: iteration.optimum,
        // What a single class reads is final: its update is a proven
        // upper bound, whether or not the start was one.
        phase: match (options.sound, iteration.upper_known) {
            (false, _) => Phase::LowerOnly,
            (true, true) => Phase::Verified,
            (true, false) => Phase::Verifying,
        },
        precision: options.precision,
        settle: options.precision,
    };
    let mut iterations = 0;
    let mut converged = true;
    // Positions from which no upper bound is proven.
    let mut unproven = Vec::new();
    let highest = layout.heights.iter().copied().max().unwrap_or(0);
    'stages: for stage in layout.stage_starts.windows(2) {
        let components = stage[0] as usize..stage[1] as usize;
        // The one-class components that do not read themselves: final
        // after one update, which only reads earlier stages.
        let update = |component: usize| {
            let position = layout.component_starts[component] as usize;
            bounds.update(&layout, position, one_update)
        };
        let is_single = |&component: &usize| !layout.cyclic[component];
        let singles = components.clone().filter(is_single);
        let tally = if components.len() >= 2 * CLASSES_PER_TASK {
            let singles = components.clone().into_par_iter().filter(is_single);
            singles.map(update).reduce(Tally::default, |a, b| a + b)
        } else {
            singles
                .clone()
                .map(update)
                .fold(Tally::default(), |a, b| a + b)
        };
        if singles.clone().next().is_some() {
            converged &= !options.sound || tally.imprecise == 0;
            iterations = iterations.max(1);
        }
        for component in components.filter(|&component| layout.cyclic[component]) {
            let positions = layout.positions_of(component);
            let component_options = SolveOptions {
                precision: layout.precision_of(component, highest, options),
                ..options.clone()
            };
            let (schedule, proven) = sweep_component(
                &layout,
                &iteration,
                positions.clone(),
                &bounds,
                &component_options,
            );
            iterations = iterations.max(schedule.iterations());
            if !proven {
                unproven.push(positions.clone());
            }
            if !schedule.converged() {
                converged = false;
                if !iteration.upper_known {
                    unproven.push(positions.end..layout.class_at.len());
                }
                break 'stages;
            }
        }
    }
    tracing::debug!(
        seconds = sweeping.elapsed().as_secs_f64(),
        components = layout.cyclic.len(),
        cyclic = layout.cyclic.iter().filter(|&&c| c).count(),
        iterations,
        "sweeps"
    );
    let (mut lower, mut upper) = (iteration.lower, iteration.upper);
    for (position, &class) in layout.class_at.iter().enumerate() {
        for &state in iteration.classes.states(class as usize) {
            lower[state as usize] = bounds.lower(position);
            upper[state as usize] = bounds.upper(position);
        }
    }
    if options.sound {
        for &class in unproven.into_iter().flatten().map(|p| &layout.class_at[p]) {
            for &state in iteration.classes.states(class as usize) {
                upper[state as usize] = f64::INFINITY;
            }
        }
    }
    Bounds {
        lower,
        upper,
        iterations,
        converged,
    }
}

/// Sweeps the component at `positions` as its own optimistic
/// [`Schedule`] says, in parallel where it is large enough; the schedule
/// at the end, and whether the upper bounds are proven (by the schedule,
/// or known before a guess and put back).
fn sweep_component(
    layout: &Layout,
    iteration: &Iteration,
    positions: std::ops::Range<usize>,
    bounds: &PositionBounds,
    options: &SolveOptions,
) -> (Schedule, bool) {
    let mut schedule = Schedule::optimistic(iteration, positions.len(), options);
    // The upper bounds known before a guess.
    let known: Vec<f64> = if schedule.falls_back() {
        positions.clone().map(|p| bounds.upper(p)).collect()
    } else {
        Vec::new()
    };
    let restore = || {
        for (position, &upper) in positions.clone().zip(&known) {
            bounds.set(position, bounds.lower(position), upper);
        }
    };
    // The positions not frozen, as of the last look.
    let mut active: Vec<u32> = positions.clone().map(|p| p as u32).collect();
    let mut step = schedule.start();
    while step != Step::Stop {
        match step {
            Step::Guess(precision) => {
                for position in positions.clone() {
                    let lower = bounds.lower(position);
                    let cap = known.get(position - positions.start);
                    let guess = guess_above(lower, precision).min(*cap.unwrap_or(&f64::INFINITY));
                    bounds.set(position, lower, guess);
                }
            }
            Step::Restore => restore(),
            Step::Sweep | Step::Stop => {}
        }
        if schedule.iterations().is_multiple_of(SWEEPS_PER_LOOK) {
            active.retain(|&p| !bounds.frozen[p as usize].load(Relaxed));
        }
        let rule = schedule.rule();
        let update = |&position: &u32| bounds.update(layout, position as usize, rule);
        let tally = if active.len() >= 2 * CLASSES_PER_TASK {
            active
                .par_iter()
                .with_min_len(CLASSES_PER_TASK)
                .map(update)
                .reduce(Tally::default, |a, b| a + b)
        } else {
            active
                .iter()
                .map(update)
                .fold(Tally::default(), |a, b| a + b)
        };
        step = schedule.after(1, tally);
    }
    if positions.len() >= 2 * CLASSES_PER_TASK {
        tracing::debug!(
            classes = positions.len(),
            sweeps = schedule.iterations(),
            "large component"
        );
    }
    let falls_back = !schedule.upper_proven() && schedule.falls_back();
    if falls_back {
        restore();
    }
    let proven = schedule.upper_proven() || falls_back;
    (schedule, proven)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::StopSignal;
    use crate::numeric::tests::{pool, random_mdp, random_set};
    use crate::numeric::{Optimum, Precision, reference};
    use crate::scc::Components;

    /// The precomputations of reaching a random 3 % of the states of
    /// `mdp` under `optimum`.
    fn iteration(mdp: &Mdp, optimum: Optimum, seed: u64) -> Iteration {
        let states = mdp.states();
        let right = random_set(states, 0.03, seed);
        reference::prepare(mdp, &vec![true; states as usize], &right, Some(optimum))
    }

    /// Checks that `order` lists every class of `graph` once, its
    /// components are those of Tarjan's algorithm, each reads only itself
    /// and components of earlier stages, and its stages cover the
    /// components in turn.
    fn check_order(graph: &Csr, order: &Order) {
        let classes = graph.states() as usize;
        let mut position_of = vec![u32::MAX; classes];
        for (position, &class) in order.class_at.iter().enumerate() {
            assert_eq!(position_of[class as usize], u32::MAX, "class {class} twice");
            position_of[class as usize] = position as u32;
        }
        assert_eq!(order.class_at.len(), classes);
        let mut component_of = vec![0usize; classes];
        let mut representative = vec![0u32; classes];
        for (component, range) in order.component_starts.windows(2).enumerate() {
            let members = &order.class_at[range[0] as usize..range[1] as usize];
            for &class in members {
                component_of[class as usize] = component;
                representative[class as usize] = members[0];
            }
        }
        assert_eq!(
            Components::from_representatives(&representative),
            scc::reference::decompose(graph)
        );
        let components = order.component_starts.len() - 1;
        assert_eq!(order.stage_starts.first(), Some(&0));
        assert_eq!(order.stage_starts.last(), Some(&(components as u32)));
        for stage in order.stage_starts.windows(2) {
            assert!(stage[0] < stage[1], "an empty stage");
            for class in (stage[0] as usize..stage[1] as usize)
                .flat_map(|component| {
                    order.component_starts[component]..order.component_starts[component + 1]
                })
                .map(|position| order.class_at[position as usize])
            {
                let own = component_of[class as usize];
                for &read in graph.successors(class) {
                    let other = component_of[read as usize];
                    assert!(
                        other == own || other < stage[0] as usize,
                        "{class} reads {read}"
                    );
                }
            }
        }
    }

    /// What the sweeps see of each class in `layout`: the height of its
    /// component, whether that reads itself, and each choice's settled
    /// sums and the classes it reads with their probabilities.
    type ClassView = (u32, bool, Vec<ChoiceView>);

    /// A choice's settled sums (with the lower and the upper bounds) and
    /// the classes it reads with their probabilities.
    type ChoiceView = (f64, f64, Vec<(u32, f64)>);

    fn views(layout: &Layout) -> Vec<ClassView> {
        let mut views = vec![(0, false, Vec::new()); layout.class_at.len()];
        for (component, &cyclic) in layout.cyclic.iter().enumerate() {
            for position in layout.positions_of(component) {
                let choices = layout.choice_offsets[position] as usize
                    ..layout.choice_offsets[position + 1] as usize;
                let choices = choices.map(|choice| {
                    let branches = layout.branch_offsets[choice] as usize
                        ..layout.branch_offsets[choice + 1] as usize;
                    let reads = branches.map(|branch| {
                        let class = layout.class_at[layout.targets[branch] as usize];
                        (class, layout.probabilities[branch])
                    });
                    (
                        layout.settled_low[choice],
                        layout.settled_high[choice],
                        reads.collect(),
                    )
                });
                let class = layout.class_at[position] as usize;
                views[class] = (layout.heights[component], cyclic, choices.collect());
            }
        }
        views
    }

    /// Each class's choices as the sweeps should see them, straight from
    /// `mdp`: the constant plus the branches into settled states, and
    /// the classes of the others of positive probability.
    fn expected_choices(mdp: &Mdp, iteration: &Iteration) -> Vec<Vec<ChoiceView>> {
        let classes = &iteration.classes;
        let class_of = class_of(classes, iteration.lower.len());
        (0..classes.count())
            .map(|class| {
                classes
                    .choices_with_constants(class)
                    .map(|(choice, constant)| {
                        let (mut low, mut high, mut reads) = (constant, constant, Vec::new());
                        let (targets, probabilities) = mdp.branches_of(choice);
                        for (&target, &p) in targets.iter().zip(probabilities) {
                            let t = target as usize;
                            if p > 0.0 && class_of[t] == u32::MAX {
                                low += p * iteration.lower[t];
                                high += p * iteration.upper[t];
                            } else if p > 0.0 {
                                reads.push((class_of[t], p));
                            }
                        }
                        (low, high, reads)
                    })
                    .collect()
            })
            .collect()
    }

    /// Two wide levels: 5,000 states that reach the goal (state 0) with a
    /// chance of their own and else a trap (1), and 5,000 whose two
    /// choices each lead to one of the first level. On three threads the
    /// layout has a stage a level, each of thousands of classes (updated
    /// at once), and every value is its chance, or the better of its two
    /// choices', exactly.
    #[test]
    fn wide_levels_are_stages_updated_at_once() {
        let mut rng = crate::testing::graphs::SplitMix::new(7);
        let chances: Vec<f64> = (0..5000)
            .map(|_| (1 + rng.below(999)) as f64 / 1000.0)
            .collect();
        let mut choices = vec![vec![vec![(0, 1.0)]], vec![vec![(1, 1.0)]]];
        for &chance in &chances {
            choices.push(vec![vec![(0, chance), (1, 1.0 - chance)]]);
        }
        let mut reads = Vec::new();
        for _ in 0..5000 {
            let (a, b) = (rng.below(5000) as u32, rng.below(5000) as u32);
            choices.push(vec![vec![(2 + a, 1.0)], vec![(2 + b, 1.0)]]);
            reads.push((a, b));
        }
        let mdp = Mdp::from_choices(0, choices).unwrap();
        let right: Vec<bool> = (0..mdp.states()).map(|s| s == 0).collect();
        let all = vec![true; right.len()];
        let prepared = || reference::prepare(&mdp, &all, &right, Some(Optimum::Max));
        let layout = pool(3).install(|| {
            let mut iteration = prepared();
            let spare = std::mem::take(&mut iteration.spare);
            Layout::of(&mdp, &iteration, spare)
        });
        assert_eq!(layout.stage_starts, [0, 5000, 10_000]);
        let options = SolveOptions {
            precision: Precision {
                epsilon: 1e-9,
                relative: false,
            },
            sound: true,
            max_iterations: u64::MAX,
            stop: StopSignal::new(),
        };
        let values = iterate(&mdp, prepared(), &options, 3).outcome(true).values;
        let expected = chances.iter().copied().chain(
            reads
                .iter()
                .map(|&(a, b)| chances[a as usize].max(chances[b as usize])),
        );
        for (state, expected) in (2..).zip(expected) {
            assert_eq!(values[state], expected, "state {state}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// On random MDPs large enough that every step is split into
        /// tasks, the layout built on three threads reads as the
        /// sequential one: the same graph of reads, orders of the same
        /// components, and the same choices, heights and cycles for every
        /// class; and the engine's values on three threads are the
        /// reference's within the precision.
        #[test]
        fn the_parallel_layout_reads_as_the_sequential_one(
            states in 2000u32..12_000,
            back in 0.0..0.1f64,
            max in proptest::prelude::any::<bool>(),
            seed in proptest::prelude::any::<u64>(),
        ) {
            let mdp = random_mdp(states, back, seed);
            let optimum = if max { Optimum::Max } else { Optimum::Min };
            let mut iteration = iteration(&mdp, optimum, seed);
            // The predecessors' arrays, whose stale entries the parallel
            // layout overwrites.
            let spare = std::mem::take(&mut iteration.spare);
            let class_of = class_of(&iteration.classes, states as usize);
            let graph = dependencies(&mdp, &iteration.classes, &class_of);
            let (parallel_graph, by_levels, parallel) = pool(3).install(|| {
                (
                    dependencies_in_parallel(&mdp, &iteration.classes, &class_of),
                    Order::by_levels(&graph),
                    Layout::of(&mdp, &iteration, spare),
                )
            });
            proptest::prop_assert_eq!(&parallel_graph, &graph);
            check_order(&graph, &Order::sequential(&graph));
            check_order(&graph, &by_levels);
            let sequential = pool(1).install(|| Layout::of(&mdp, &iteration, Spare::default()));
            let expected = expected_choices(&mdp, &iteration);
            let (parallel, sequential) = (views(&parallel), views(&sequential));
            for (class, (view, expected)) in parallel.iter().zip(&expected).enumerate() {
                proptest::prop_assert_eq!(&view.2, expected, "class {}", class);
            }
            proptest::prop_assert_eq!(parallel, sequential);

            let options = SolveOptions {
                precision: Precision { epsilon: 1e-9, relative: false },
                sound: true,
                max_iterations: u64::MAX,
                stop: StopSignal::new(),
            };
            let values = iterate(&mdp, iteration, &options, 3).outcome(true);
            let reference = reference::iterate(&mdp, self::iteration(&mdp, optimum, seed), &options)
                .outcome(true);
            for (state, (&value, &expected)) in values.values.iter().zip(&reference.values).enumerate() {
                proptest::prop_assert!((value - expected).abs() <= 2e-9, "state {}: {} against {}", state, value, expected);
            }
        }
    }
}
