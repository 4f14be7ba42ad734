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
//! they stream through memory.
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

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::reference::{
    Bounds, Classes, Iteration, Phase, Schedule, Step, SweepRule, Tally, guess_above,
};
use super::{Precision, SolveOptions, timed};
use crate::explicit::{Csr, Mdp};
use crate::scc;

/// Classes one task updates.
const CLASSES_PER_TASK: usize = 1 << 10;

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
    /// The layout of `iteration` of `mdp`.
    fn of(mdp: &Mdp, iteration: &Iteration) -> Layout {
        let classes = &iteration.classes;
        let mut class_of = vec![u32::MAX; iteration.lower.len()];
        for class in 0..classes.count() {
            for &state in classes.states(class) {
                class_of[state as usize] = class as u32;
            }
        }
        let graph = dependencies(mdp, classes, &class_of);
        let (class_at, component_starts) = scc::reference::in_completion_order(&graph);
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
                let (mut low, mut high) = (constant, constant);
                let (targets, probabilities) = mdp.branches_of(choice);
                for (&target, &probability) in targets.iter().zip(probabilities) {
                    match class_of[target as usize] {
                        _ if probability <= 0.0 => {}
                        u32::MAX => {
                            low += probability * iteration.lower[target as usize];
                            high += probability * iteration.upper[target as usize];
                        }
                        read => {
                            layout.targets.push(position_of[read as usize]);
                            layout.probabilities.push(probability);
                        }
                    }
                }
                layout.settled_low.push(low);
                layout.settled_high.push(high);
                layout.branch_offsets.push(layout.targets.len() as u64);
            }
            layout.choice_offsets.push(layout.settled_low.len() as u64);
        }
        layout.heights = layout.heights();
        layout
    }

    /// The height of every component (see [`Layout::heights`]).
    fn heights(&self) -> Vec<u32> {
        let mut component_of = vec![0u32; self.class_at.len()];
        let mut heights = Vec::with_capacity(self.cyclic.len());
        for (component, (positions, cyclic)) in self.components().enumerate() {
            let choices = self.choice_offsets[positions.start] as usize
                ..self.choice_offsets[positions.end] as usize;
            let branches = self.branch_offsets[choices.start] as usize
                ..self.branch_offsets[choices.end] as usize;
            let below = self.targets[branches]
                .iter()
                .filter(|&&target| !positions.contains(&(target as usize)))
                .map(|&target| heights[component_of[target as usize] as usize])
                .max()
                .unwrap_or(0);
            heights.push(below + u32::from(cyclic));
            component_of[positions].fill(component as u32);
        }
        heights
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

    /// The positions of each component, in order, and whether it reads
    /// itself.
    fn components(&self) -> impl Iterator<Item = (std::ops::Range<usize>, bool)> + '_ {
        self.component_starts
            .windows(2)
            .zip(&self.cyclic)
            .map(|(starts, &cyclic)| (starts[0] as usize..starts[1] as usize, cyclic))
    }
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
    /// value).
    fn of(layout: &Layout, iteration: &Iteration) -> PositionBounds {
        let bounds = layout
            .class_at
            .iter()
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
        let frozen = layout
            .class_at
            .iter()
            .map(|_| AtomicBool::new(false))
            .collect();
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
fn solve_in_order(mdp: &Mdp, iteration: Iteration, options: &SolveOptions) -> Bounds {
    let layout = timed("layout", || Layout::of(mdp, &iteration));
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
    for (component, (positions, cyclic)) in layout.components().enumerate() {
        if !cyclic {
            let tally = bounds.update(&layout, positions.start, one_update);
            converged &= !options.sound || tally.imprecise == 0;
            iterations = iterations.max(1);
            continue;
        }
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
            break;
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
