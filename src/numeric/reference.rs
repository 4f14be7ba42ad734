//! The sequential reference of `warpcheck prob`, and the iteration scheme
//! every engine shares: after the graph precomputations of
//! [`super::qualitative`] have settled what they can, the undecided states
//! satisfy `x = opt over choices (constant + Σ p·x)` (reachability
//! probabilities have no constants; expected rewards have each choice's
//! reward), solved by interval iteration (Haddad and Monmege; Baier et
//! al., CAV 2017): a lower sequence from below and an upper one from above
//! close in on the value, so the half distance between them bounds the
//! error of their midpoint. For maximal probabilities (and minimal rewards,
//! over end components without reward) the end components among the
//! undecided states are collapsed first, or the sequences could stop apart.
//!
//! Where no upper bound is known beforehand (rewards, visit counts), it is
//! found optimistically (Hartmanns and Kaminski, CAV 2020): once the lower
//! sequence settles, a guess a little above it is iterated until one sweep
//! lowers it everywhere, which proves it lies above the least fixed point
//! (the value); a guess that does not verify within a while is dropped for
//! a closer one. [`Schedule`] holds this phase logic for all engines.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::qualitative::{self, MaximalReach, Predecessors};
use super::{Optimum, Outcome, Precision, SolveOptions, Spare, rows_in_parallel, timed};
use crate::explicit::{MarkovChain, Mdp};
use crate::explore::StopSignal;
use crate::{mec, scc};

/// The undecided part of a property once the precomputations have settled
/// what they can, with a lower and an upper bound of every state's value:
/// what the iterations refine (here, on CPU threads or on the GPU).
pub struct Iteration {
    /// Lower bounds: the settled values, and a lower bound where undecided.
    pub lower: Vec<f64>,
    /// Upper bounds: the settled values, and an upper bound where
    /// undecided if `upper_known` (else anything: a guess replaces it).
    pub upper: Vec<f64>,
    /// Whether `upper` bounds the undecided values from above (1 for
    /// probabilities); if not, the schedule guesses and verifies one.
    pub upper_known: bool,
    /// The undecided states, grouped into the classes that share a value.
    pub classes: Classes,
    /// Which scheduler (`None` for a Markov chain).
    pub optimum: Option<Optimum>,
    /// The precomputations' large arrays, for the engine to reuse.
    pub spare: Spare,
}

/// What a [`Schedule`] needs to know of an iteration besides its classes.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// As [`Iteration::upper_known`].
    pub upper_known: bool,
    /// As [`Iteration::optimum`].
    pub optimum: Option<Optimum>,
}

impl Iteration {
    /// Its [`Shape`].
    pub fn shape(&self) -> Shape {
        Shape {
            upper_known: self.upper_known,
            optimum: self.optimum,
        }
    }
}

/// What a sweep does with the upper bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Phase {
    /// Only the lower bounds move (plain value iteration, or the search for
    /// a guess); a state is settled when its bound moves by at most the
    /// sweep's settling precision.
    LowerOnly = 0,
    /// The upper bounds are a guess, replaced by their update each sweep;
    /// a sweep that raises none proves them upper bounds.
    Verifying = 1,
    /// The upper bounds are proven and only ever lowered.
    Verified = 2,
}

/// How one sweep updates a class.
#[derive(Debug, Clone, Copy)]
pub struct SweepRule {
    /// Which scheduler.
    pub optimum: Option<Optimum>,
    /// What happens to the upper bounds.
    pub phase: Phase,
    /// The precision the intervals must reach.
    pub precision: Precision,
    /// In [`Phase::LowerOnly`]: the largest move of a settled lower bound.
    pub settle: Precision,
}

/// What a sweep found: the states not yet precise (not settled, in
/// [`Phase::LowerOnly`]), and in [`Phase::Verifying`] the states whose
/// guess went up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// States not within the precision.
    pub imprecise: u64,
    /// States whose guessed upper bound rose.
    pub raised: u64,
}

/// What an engine does after a sweep, as the [`Schedule`] says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Sweep again with [`Schedule::rule`].
    Sweep,
    /// Set every undecided state's upper bound to [`guess_above`] of its
    /// lower bound with this precision, then sweep again.
    Guess(Precision),
    /// Stop: the precision is reached (or the limits are, see
    /// [`Schedule::converged`]).
    Stop,
    /// Put back the upper bounds known before the guess (which did not
    /// verify), then sweep again, as interval iteration from there. Only a
    /// schedule made by [`Schedule::optimistic`] gives it.
    Restore,
}

/// The phases of the iteration and when to stop, shared by the engines so
/// that they agree sweep for sweep.
#[derive(Debug, Clone)]
pub struct Schedule {
    rule: SweepRule,
    sound: bool,
    max_iterations: u64,
    stop: StopSignal,
    /// Sweeps done.
    iterations: u64,
    /// Sweeps done in the current phase, and in the last lower phase.
    in_phase: u64,
    last_lower: u64,
    /// Guesses made so far.
    guesses: u32,
    /// Whether the upper bounds were known before a guess, which then
    /// gives way to them ([`Step::Restore`]) if it does not verify.
    fallback: bool,
    converged: bool,
}

/// Guesses tried before the schedule keeps the last one however long it
/// takes to verify (each is 10 times closer to the lower bounds).
const MAX_GUESSES: u32 = 6;
/// Guesses tried, where the upper bounds are known, before they are put
/// back ([`Step::Restore`]). Lower bounds that move by less than the
/// precision a sweep may still lie further below the value, so a first
/// guess may fail where the lower bounds settled ten times closer give
/// one that verifies. (consensus-6-2's `Pmax` on two threads: 127-141
/// sweeps when the first guess verified, about 1,170 when it failed and
/// the upper bounds came down from 1: benches/results/2026-11-29j-2core-guess.)
const GUESSES_BEFORE_RESTORE: u32 = 2;

impl Schedule {
    /// The schedule of `iteration` within `options`.
    pub fn new(iteration: &Iteration, options: &SolveOptions) -> Schedule {
        Schedule::of_shape(iteration.shape(), iteration.classes.count(), options)
    }

    /// The schedule of an iteration of this `shape` over `classes`
    /// classes that lie elsewhere (on the GPU), within `options`.
    pub fn of_shape(shape: Shape, classes: usize, options: &SolveOptions) -> Schedule {
        Schedule::of_classes(shape, classes, options, false)
    }

    /// The schedule of `classes` of the classes of `iteration` (a part
    /// solved on its own) within `options`, which guesses an upper bound
    /// also where one is known (probabilities): the lower bounds of
    /// reachability often settle in a fraction of the sweeps that bring
    /// the upper bound 1 down to them, and a guess a little above them
    /// mostly verifies at once. A guess that does not verify within as
    /// many sweeps as the lower bounds first took (at least 16) is made
    /// again from lower bounds settled ten times closer, with as long to
    /// verify; after two guesses the known bounds are put back
    /// ([`Step::Restore`]), and interval iteration goes on from the lower
    /// bounds reached.
    pub fn optimistic(iteration: &Iteration, classes: usize, options: &SolveOptions) -> Schedule {
        Schedule::of_classes(iteration.shape(), classes, options, true)
    }

    fn of_classes(
        iteration: Shape,
        classes: usize,
        options: &SolveOptions,
        optimistic: bool,
    ) -> Schedule {
        let fallback = options.sound && iteration.upper_known && optimistic;
        let phase = if !options.sound || !iteration.upper_known || fallback {
            Phase::LowerOnly
        } else {
            Phase::Verified
        };
        Schedule {
            rule: SweepRule {
                optimum: iteration.optimum,
                phase,
                precision: options.precision,
                settle: options.precision,
            },
            sound: options.sound,
            max_iterations: options.max_iterations,
            stop: options.stop.clone(),
            iterations: 0,
            in_phase: 0,
            last_lower: 0,
            guesses: 0,
            fallback,
            converged: classes == 0,
        }
    }

    /// The rule of the next sweep.
    pub fn rule(&self) -> SweepRule {
        self.rule
    }

    /// The first step: [`Step::Stop`] when nothing is undecided.
    pub fn start(&self) -> Step {
        if self.converged || self.max_iterations == 0 {
            Step::Stop
        } else {
            Step::Sweep
        }
    }

    /// Sweeps the engine may run before it reads a [`Tally`] (the last
    /// one's): at most `wanted`, and no more than the limit allows.
    pub fn batch(&self, wanted: u64) -> u64 {
        wanted.min(self.max_iterations - self.iterations).max(1)
    }

    /// What to do after `sweeps` sweeps under [`Self::rule`], the last of
    /// which found `tally`.
    pub fn after(&mut self, sweeps: u64, tally: Tally) -> Step {
        self.iterations += sweeps;
        self.in_phase += sweeps;
        let next = match self.rule.phase {
            Phase::LowerOnly if tally.imprecise > 0 => Step::Sweep,
            Phase::LowerOnly if !self.sound => {
                self.converged = true;
                Step::Stop
            }
            Phase::LowerOnly => {
                self.guesses += 1;
                // A guess made again after a short settling gets as long
                // to verify as the first, where the known bounds wait.
                self.last_lower = if self.fallback {
                    self.last_lower.max(self.in_phase)
                } else {
                    self.in_phase
                };
                self.enter(Phase::Verifying);
                Step::Guess(self.rule.settle)
            }
            Phase::Verifying if tally.raised == 0 => {
                self.enter(Phase::Verified);
                self.finished(tally)
            }
            Phase::Verifying
                if self.fallback
                    && self.guesses >= GUESSES_BEFORE_RESTORE
                    && self.in_phase > self.last_lower.max(16) =>
            {
                self.fallback = false;
                self.enter(Phase::Verified);
                Step::Restore
            }
            Phase::Verifying
                if self.guesses < MAX_GUESSES && self.in_phase > self.last_lower.max(16) =>
            {
                // The guess may lie below the value: settle the lower
                // bounds closer, and guess again from there.
                self.rule.settle.epsilon /= 10.0;
                self.enter(Phase::LowerOnly);
                Step::Sweep
            }
            Phase::Verifying => Step::Sweep,
            Phase::Verified => self.finished(tally),
        };
        let out_of_time = self.stop.is_set();
        if next != Step::Stop && (self.iterations >= self.max_iterations || out_of_time) {
            Step::Stop
        } else {
            next
        }
    }

    fn enter(&mut self, phase: Phase) {
        self.rule.phase = phase;
        self.in_phase = 0;
    }

    fn finished(&mut self, tally: Tally) -> Step {
        if tally.imprecise == 0 {
            self.converged = true;
            Step::Stop
        } else {
            Step::Sweep
        }
    }

    /// Sweeps done.
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// Whether the precision was reached.
    pub fn converged(&self) -> bool {
        self.converged
    }

    /// Whether the upper bounds are proven: if not when the iteration
    /// stops, only the lower bounds mean anything, or the known ones (see
    /// [`Schedule::falls_back`]).
    pub fn upper_proven(&self) -> bool {
        self.rule.phase == Phase::Verified
    }

    /// Whether the upper bounds known before a guess still hold where
    /// the current ones are not proven: an optimistic schedule that stops
    /// before its guess verified.
    pub fn falls_back(&self) -> bool {
        self.fallback
    }
}

/// The optimistic guess of an upper bound a little above `lower`: by
/// `precision` (relative: of the value).
pub fn guess_above(lower: f64, precision: Precision) -> f64 {
    if precision.relative {
        lower * (1.0 + precision.epsilon)
    } else {
        lower + precision.epsilon
    }
}

/// Where the iterations ended: both bounds of every state, how many sweeps
/// it took and whether the precision was reached.
pub struct Bounds {
    /// Lower bounds.
    pub lower: Vec<f64>,
    /// Upper bounds (infinite where none was proven).
    pub upper: Vec<f64>,
    /// Sweeps.
    pub iterations: u64,
    /// Whether every undecided state is within the precision.
    pub converged: bool,
}

impl Bounds {
    /// The outcome for the user: the sound midpoints, or for `--unsound`
    /// the lower bounds without an error bound.
    pub fn outcome(self, sound: bool) -> Outcome {
        if sound {
            Outcome::from_bounds(self.lower, self.upper, self.iterations, self.converged)
        } else {
            Outcome::unsound(self.lower, self.iterations, self.converged)
        }
    }
}

/// The precomputations of `left U right` in `mdp` (a DTMC as
/// [`super::as_mdp`] gives it, with `optimum` `None`). For `Pmax`, the
/// end components of the states neither settled at 0 nor `right` are
/// collapsed before the states of value 1 are sought, which the collapse
/// makes one backward search
/// ([`qualitative::almost_surely_collapsed`]); in a Markov chain, a state
/// has value 1 when no path through `left` reaches one of value 0.
pub fn prepare(mdp: &Mdp, left: &[bool], right: &[bool], optimum: Option<Optimum>) -> Iteration {
    let predecessors = timed("predecessors", || Predecessors::of(mdp));
    // The states of positive value, negated in place.
    let mut zero = timed("prob0", || match optimum {
        None | Some(Optimum::Max) => qualitative::exists_reach(&predecessors, left, right),
        Some(Optimum::Min) => qualitative::forall_reach(mdp, &predecessors, left, right),
    });
    zero.par_iter_mut()
        .for_each(|positive| *positive = !*positive);
    let (one, classes) = match optimum {
        Some(Optimum::Max) => {
            let maybe: Vec<bool> = zero.iter().zip(right).map(|(&z, &r)| !z && !r).collect();
            let classes = timed("classes", || {
                Classes::collapsing_end_components(mdp, &maybe, &ChoiceRule::ALL)
            });
            let sure = timed("prob1", || {
                qualitative::almost_surely_collapsed(mdp, &predecessors, &classes, &zero)
            });
            let mut one = right.to_vec();
            for class in (0..classes.count()).filter(|&class| sure[class]) {
                for &state in classes.states(class) {
                    one[state as usize] = true;
                }
            }
            (one, classes.retain(|class| !sure[class]))
        }
        _ => {
            let one = timed("prob1", || {
                qualitative::forall_almost_surely(&predecessors, left, right, &zero)
            });
            let undecided: Vec<bool> = zero.iter().zip(&one).map(|(&z, &o)| !z && !o).collect();
            let classes = timed("classes", || {
                Classes::identity(mdp, &undecided, &ChoiceRule::ALL)
            });
            (one, classes)
        }
    };
    tracing::debug!(
        zero = zero.iter().filter(|&&z| z).count(),
        one = one.iter().filter(|&&o| o).count(),
        classes = classes.count(),
        "settled"
    );
    let settled = |state: usize| if one[state] { 1.0 } else { 0.0 };
    let undecided = |state: usize| !zero[state] && !one[state];
    Iteration {
        lower: (0..zero.len()).into_par_iter().map(settled).collect(),
        upper: (0..zero.len())
            .into_par_iter()
            .map(|s| if undecided(s) { 1.0 } else { settled(s) })
            .collect(),
        upper_known: true,
        classes,
        optimum,
        spare: predecessors.into_spare(),
    }
}

/// What [`prepare`] gives for the maximal probability of `left U right`
/// once `reach` says where it is positive and where it is 1 (as the GPU's
/// [`super::gpu::maximal_reach`] finds them): the end components of the
/// undecided states collapsed on the current rayon pool. The states of an
/// end component share their maximum, so those of [`prepare`]'s classes
/// that it finds sure are exactly the ones that lie outside these
/// undecided states.
pub fn maximum_from(mdp: &Mdp, reach: &MaximalReach) -> Iteration {
    let undecided: Vec<bool> = (reach.positive.par_iter().zip(&reach.almost_sure))
        .map(|(&positive, &sure)| positive && !sure)
        .collect();
    let classes = timed("classes", || {
        Classes::collapsing_end_components(mdp, &undecided, &ChoiceRule::ALL)
    });
    let settled = |sure: bool| if sure { 1.0 } else { 0.0 };
    Iteration {
        lower: reach
            .almost_sure
            .par_iter()
            .map(|&sure| settled(sure))
            .collect(),
        upper: (reach.almost_sure.par_iter().zip(&undecided))
            .map(|(&sure, &undecided)| if undecided { 1.0 } else { settled(sure) })
            .collect(),
        upper_known: true,
        classes,
        optimum: Some(Optimum::Max),
        spare: Spare::default(),
    }
}

/// The probability of `left U right` in every state of `mdp` (a DTMC as
/// [`super::as_mdp`] gives it, with `optimum` `None`), optimised by
/// `optimum`, within `options`.
pub fn until(
    mdp: &Mdp,
    left: &[bool],
    right: &[bool],
    optimum: Option<Optimum>,
    options: &SolveOptions,
) -> Outcome {
    iterate(mdp, prepare(mdp, left, right, optimum), options).outcome(options.sound)
}

/// Refines `iteration` on one thread, Gauss-Seidel style (each update
/// reads the newest bounds), as the [`Schedule`] says: until every
/// undecided state's interval is within the precision (plain value
/// iteration: until no lower bound moves by more than it), or the
/// iteration or time limit.
pub fn iterate(mdp: &Mdp, iteration: Iteration, options: &SolveOptions) -> Bounds {
    sweep_until_precise(iteration, options, |bounds, classes, rule| {
        (0..classes.count())
            .map(|class| bounds.update(mdp, classes, class, rule))
            .fold(Tally::default(), |a, b| a + b)
    })
}

impl std::ops::Add for Tally {
    type Output = Tally;

    /// Both counts of two tallies.
    fn add(self, other: Tally) -> Tally {
        Tally {
            imprecise: self.imprecise + other.imprecise,
            raised: self.raised + other.raised,
        }
    }
}

/// The bounds of every state as the bits of `f64`s, which threads may
/// update while others read them (a stale read is still a valid bound: the
/// lower sequence only rises, and a proven upper one only falls; a guess
/// is proven only by a sweep that lowers it everywhere, when every read
/// was at least as high as the final value). [`super::cpu`] keeps its own
/// in the order it solves the classes in.
pub struct SharedBounds {
    lower: Vec<AtomicU64>,
    upper: Vec<AtomicU64>,
}

impl SharedBounds {
    /// Bounds starting at `lower` and `upper`.
    pub fn new(lower: &[f64], upper: &[f64]) -> SharedBounds {
        SharedBounds {
            lower: Self::of(lower),
            upper: Self::of(upper),
        }
    }

    fn of(values: &[f64]) -> Vec<AtomicU64> {
        values.iter().map(|v| AtomicU64::new(v.to_bits())).collect()
    }

    /// Sets the upper bound of each state of `class` to `guess` of its
    /// lower bound.
    pub fn guess_upper(&self, classes: &Classes, class: usize, guess: impl Fn(f64) -> f64) {
        for &state in classes.states(class) {
            Self::set(&self.upper, state, guess(Self::get(&self.lower, state)));
        }
    }

    /// The lower and the upper bounds.
    pub fn into_vecs(self) -> (Vec<f64>, Vec<f64>) {
        let plain = |values: Vec<AtomicU64>| -> Vec<f64> {
            values
                .into_iter()
                .map(|v| f64::from_bits(v.into_inner()))
                .collect()
        };
        (plain(self.lower), plain(self.upper))
    }

    fn get(values: &[AtomicU64], state: u32) -> f64 {
        f64::from_bits(values[state as usize].load(Relaxed))
    }

    fn set(values: &[AtomicU64], state: u32, value: f64) {
        values[state as usize].store(value.to_bits(), Relaxed);
    }

    /// One update of `class` under `rule`: the best over its choices of
    /// the choice's constant plus the expected bounds of its successors,
    /// kept as [`Phase`] says. Counts the class's states not yet precise
    /// and, when verifying, those whose guess rose.
    pub fn update(&self, mdp: &Mdp, classes: &Classes, class: usize, rule: SweepRule) -> Tally {
        let with_upper = rule.phase != Phase::LowerOnly;
        let mut best: Option<(f64, f64)> = None;
        for (choice, constant) in classes.choices_with_constants(class) {
            let (targets, probabilities) = mdp.branches_of(choice);
            let (mut low, mut high) = (constant, constant);
            for (&target, &probability) in targets.iter().zip(probabilities) {
                low += probability * Self::get(&self.lower, target);
                if with_upper {
                    high += probability * Self::get(&self.upper, target);
                }
            }
            best = Some(rule.better(best, (low, high)));
        }
        // A class without a choice out of it can only stay: value 0.
        let (low, high) = best.unwrap_or((0.0, 0.0));
        let mut tally = Tally::default();
        for &state in classes.states(class) {
            let (lower, upper) = (Self::get(&self.lower, state), Self::get(&self.upper, state));
            let (lower, upper) = rule.keep(lower, upper, low, high, &mut tally);
            Self::set(&self.lower, state, lower);
            Self::set(&self.upper, state, upper);
        }
        tally
    }
}

impl SweepRule {
    /// The better of the bounds of a choice so far (`None` before the
    /// first) and those of the next, bound by bound.
    pub fn better(self, best: Option<(f64, f64)>, next: (f64, f64)) -> (f64, f64) {
        let pick = |a: f64, b: f64| match self.optimum {
            Some(Optimum::Min) => a.min(b),
            _ => a.max(b),
        };
        match best {
            None => next,
            Some((low, high)) => (pick(low, next.0), pick(high, next.1)),
        }
    }

    /// The bounds a state with bounds `lower` and `upper` keeps after an
    /// update that found `low` and `high`, as the [`Phase`] says, adding
    /// the state to `tally` where it is not precise, or its guess rose.
    pub fn keep(
        self,
        lower: f64,
        upper: f64,
        low: f64,
        high: f64,
        tally: &mut Tally,
    ) -> (f64, f64) {
        let raised = lower.max(low);
        let (kept, precise) = match self.phase {
            Phase::LowerOnly => (upper, self.settle.close(lower, raised)),
            Phase::Verifying => {
                tally.raised += u64::from(high > upper || high < raised);
                (high, self.precision.reached(raised, high))
            }
            Phase::Verified => {
                let lowered = upper.min(high);
                (lowered, self.precision.reached(raised, lowered))
            }
        };
        tally.imprecise += u64::from(!precise);
        (raised, kept)
    }
}

/// Runs `sweep` (which updates every class once under the rule given and
/// tallies the result) as the [`Schedule`] of `iteration` says; the bounds
/// reached.
pub fn sweep_until_precise(
    iteration: Iteration,
    options: &SolveOptions,
    sweep: impl Fn(&SharedBounds, &Classes, SweepRule) -> Tally,
) -> Bounds {
    let mut schedule = Schedule::new(&iteration, options);
    let bounds = SharedBounds::new(&iteration.lower, &iteration.upper);
    let classes = &iteration.classes;
    let mut step = schedule.start();
    while step != Step::Stop {
        if let Step::Guess(precision) = step {
            for class in 0..classes.count() {
                bounds.guess_upper(classes, class, |lower| guess_above(lower, precision));
            }
        }
        let tally = sweep(&bounds, classes, schedule.rule());
        step = schedule.after(1, tally);
    }
    let (lower, upper) = bounds.into_vecs();
    finish(&schedule, &classes.members, lower, upper)
}

/// The [`Bounds`] an engine reached under `schedule` over the classes of
/// `members` (the undecided states): upper bounds that were never proven
/// become infinite.
pub fn finish(
    schedule: &Schedule,
    members: &[u32],
    lower: Vec<f64>,
    mut upper: Vec<f64>,
) -> Bounds {
    if !schedule.upper_proven() {
        for &state in members {
            upper[state as usize] = f64::INFINITY;
        }
    }
    Bounds {
        lower,
        upper,
        iterations: schedule.iterations(),
        converged: schedule.converged(),
    }
}

/// The probability of reaching `right` within `steps` steps through
/// `left` states, optimised by `optimum`: `steps` rounds of the Bellman
/// update from the indicator of `right` (exact up to rounding). Stopped
/// by the iteration or time limit of `options` after `i` rounds, each
/// value lies between the probability within `i` steps and 1, and the
/// outcome says so.
pub fn bounded_until(
    mdp: &Mdp,
    left: &[bool],
    right: &[bool],
    steps: u64,
    optimum: Option<Optimum>,
    options: &SolveOptions,
) -> Outcome {
    let states = mdp.states() as usize;
    let mut values: Vec<f64> = right.iter().map(|&r| if r { 1.0 } else { 0.0 }).collect();
    let mut next = values.clone();
    for done in 0..steps {
        let out_of_time = options.stop.is_set();
        if done >= options.max_iterations || out_of_time {
            let ones = vec![1.0; states];
            return Outcome::from_bounds(values, ones, done, false);
        }
        let mut changed = false;
        for state in 0..states {
            if right[state] || !left[state] {
                continue;
            }
            let sums = mdp.choices_of(state as u32).map(|choice| {
                let (targets, probabilities) = mdp.branches_of(choice);
                targets
                    .iter()
                    .zip(probabilities)
                    .map(|(&t, &p)| p * values[t as usize])
                    .sum::<f64>()
            });
            next[state] = match optimum {
                Some(Optimum::Min) => sums.fold(f64::INFINITY, f64::min),
                _ => sums.fold(f64::NEG_INFINITY, f64::max),
            };
            if !next[state].is_finite() {
                // No choice: the state stays where it is.
                next[state] = 0.0;
            }
            changed |= next[state] != values[state];
        }
        std::mem::swap(&mut values, &mut next);
        if !changed {
            // A step that changes no value is a fixpoint of the step: every
            // later step gives the same values, so they are the answer for
            // any bound from here on, however large.
            return Outcome::exact(values, done + 1);
        }
    }
    Outcome::exact(values, steps)
}

/// The states the iteration updates, grouped: each class is one state, or
/// a collapsed end component of the undecided states, all of whose states
/// share one value; its choices are those of its states that can leave
/// it, each with its constant (a reward) where the property has them.
#[derive(Debug, PartialEq)]
pub struct Classes {
    /// The undecided states, class by class.
    pub members: Vec<u32>,
    /// Where each class's states start in `members`, then their count.
    pub member_offsets: Vec<u64>,
    /// The choices of each class, class by class.
    pub choices: Vec<u64>,
    /// Where each class's choices start in `choices`, then their count.
    pub choice_offsets: Vec<u64>,
    /// The constant of each entry of `choices`, or empty when all are 0.
    pub constants: Vec<f64>,
}

/// Which choices the classes use, and what each adds.
pub struct ChoiceRule<'a> {
    /// Whether a choice may be taken at all (minimal rewards drop those
    /// that risk never reaching the target).
    pub usable: &'a (dyn Fn(u64) -> bool + Sync),
    /// Whether a usable choice counts towards the end components that are
    /// collapsed (minimal rewards collapse only those without reward).
    pub collapsible: &'a (dyn Fn(u64) -> bool + Sync),
    /// Each choice's constant, indexed by choice, if any.
    pub constants: Option<&'a [f64]>,
}

impl ChoiceRule<'_> {
    /// Every choice, no constants.
    pub const ALL: ChoiceRule<'static> = ChoiceRule {
        usable: &|_| true,
        collapsible: &|_| true,
        constants: None,
    };
}

impl Classes {
    /// One class per undecided state, with its usable choices, found on
    /// the current rayon pool.
    pub fn identity(mdp: &Mdp, undecided: &[bool], rule: &ChoiceRule<'_>) -> Classes {
        let members: Vec<u32> = (0..mdp.states())
            .into_par_iter()
            .filter(|&s| undecided[s as usize])
            .collect();
        let member_offsets = (0..=members.len() as u64).into_par_iter().collect();
        Classes::of_groups(
            mdp,
            members,
            member_offsets,
            |_, choice| (rule.usable)(choice),
            rule.constants,
        )
    }

    /// The undecided states with every maximal end component among them
    /// (of the MDP restricted to them and to the collapsible choices) as
    /// one class, whose choices are the usable ones that do not stay
    /// inside it. The end components are found on the threads of the
    /// current rayon pool ([`mec::cpu`]).
    pub fn collapsing_end_components(
        mdp: &Mdp,
        undecided: &[bool],
        rule: &ChoiceRule<'_>,
    ) -> Classes {
        if !undecided.contains(&true) {
            return Classes::identity(mdp, undecided, rule);
        }
        let (inner, original) = timed("restriction", || {
            restrict(mdp, undecided, |choice| {
                (rule.usable)(choice) && (rule.collapsible)(choice)
            })
        });
        let threads = rayon::current_num_threads();
        let mecs = timed("end components", || {
            mec::cpu(&inner, scc::cpu::Method::default(), threads)
        });
        // The end components, then the other states alone.
        let mut members: Vec<u32> = Vec::with_capacity(original.len());
        let mut member_offsets = vec![0];
        for mec in &mecs.mecs {
            members.extend(mec.iter().map(|&s| original[s as usize]));
            member_offsets.push(members.len() as u64);
        }
        for (state, _) in (mecs.of_state.iter().enumerate()).filter(|&(_, &m)| m == mec::NO_MEC) {
            members.push(original[state]);
            member_offsets.push(members.len() as u64);
        }
        let mut class_of = vec![u32::MAX; mdp.states() as usize];
        for (class, range) in member_offsets.windows(2).enumerate() {
            for &state in &members[range[0] as usize..range[1] as usize] {
                class_of[state as usize] = class as u32;
            }
        }
        let keep = |state: u32, choice: u64| {
            let (targets, probabilities) = mdp.branches_of(choice);
            let class = class_of[state as usize];
            // A choice that stays inside its end component leads nowhere
            // new (with a reward, it only adds to it).
            (rule.usable)(choice)
                && !targets
                    .iter()
                    .zip(probabilities)
                    .all(|(&t, &p)| p <= 0.0 || class_of[t as usize] == class)
        };
        Classes::of_groups(mdp, members, member_offsets, keep, rule.constants)
    }

    /// The classes of the states `members`, class by class from
    /// `member_offsets`, with the choices of their states that `keep`,
    /// found on the current rayon pool.
    fn of_groups(
        mdp: &Mdp,
        members: Vec<u32>,
        member_offsets: Vec<u64>,
        keep: impl Fn(u32, u64) -> bool + Sync,
        constants: Option<&[f64]>,
    ) -> Classes {
        let classes = member_offsets.len() - 1;
        let (choice_offsets, choices) = rows_in_parallel(
            classes,
            || (),
            |_, class, choices| {
                let states = member_offsets[class] as usize..member_offsets[class + 1] as usize;
                for &state in &members[states] {
                    choices.extend(mdp.choices_of(state).filter(|&c| keep(state, c)));
                }
            },
        );
        let constants = match constants {
            Some(constants) => choices.par_iter().map(|&c| constants[c as usize]).collect(),
            None => Vec::new(),
        };
        Classes {
            members,
            member_offsets,
            choices,
            choice_offsets,
            constants,
        }
    }

    /// The classes for which `keep` holds, in order.
    pub fn retain(self, keep: impl Fn(usize) -> bool) -> Classes {
        let mut kept = Classes {
            members: Vec::new(),
            member_offsets: vec![0],
            choices: Vec::new(),
            choice_offsets: vec![0],
            constants: Vec::new(),
        };
        for class in (0..self.count()).filter(|&class| keep(class)) {
            kept.members.extend(self.states(class));
            let choices =
                self.choice_offsets[class] as usize..self.choice_offsets[class + 1] as usize;
            kept.choices.extend(&self.choices[choices.clone()]);
            if !self.constants.is_empty() {
                kept.constants.extend(&self.constants[choices]);
            }
            kept.member_offsets.push(kept.members.len() as u64);
            kept.choice_offsets.push(kept.choices.len() as u64);
        }
        kept
    }

    /// Number of classes.
    pub fn count(&self) -> usize {
        self.member_offsets.len() - 1
    }

    /// The states of `class`.
    pub fn states(&self, class: usize) -> &[u32] {
        &self.members[self.member_offsets[class] as usize..self.member_offsets[class + 1] as usize]
    }

    /// The choices of `class` with their constants.
    pub fn choices_with_constants(&self, class: usize) -> impl Iterator<Item = (u64, f64)> + '_ {
        let range = self.choice_offsets[class] as usize..self.choice_offsets[class + 1] as usize;
        let constants = &self.constants;
        self.choices[range.clone()]
            .iter()
            .zip(range)
            .map(move |(&choice, entry)| (choice, constants.get(entry).copied().unwrap_or(0.0)))
    }
}

/// The MDP restricted to the `keep` states, renumbered densely, with only
/// the `allowed` choices whose positive branches all stay among them; and
/// the original number of each kept state.
fn restrict(mdp: &Mdp, keep: &[bool], allowed: impl Fn(u64) -> bool) -> (Mdp, Vec<u32>) {
    let original: Vec<u32> = (0..mdp.states()).filter(|&s| keep[s as usize]).collect();
    let mut renumbered = vec![u32::MAX; mdp.states() as usize];
    for (new, &old) in original.iter().enumerate() {
        renumbered[old as usize] = new as u32;
    }
    let mut restricted = Mdp {
        choice_offsets: Vec::with_capacity(original.len() + 1),
        branch_offsets: vec![0],
        targets: Vec::new(),
        probabilities: Vec::new(),
        choice_labels: None,
        initial: 0,
    };
    restricted.choice_offsets.push(0);
    for &state in &original {
        for choice in mdp.choices_of(state).filter(|&choice| allowed(choice)) {
            let (targets, probabilities) = mdp.branches_of(choice);
            let positive = targets.iter().zip(probabilities).filter(|&(_, &p)| p > 0.0);
            if positive
                .clone()
                .all(|(&t, _)| renumbered[t as usize] != u32::MAX)
            {
                for (&target, &probability) in positive {
                    restricted.targets.push(renumbered[target as usize]);
                    restricted.probabilities.push(probability);
                }
                restricted
                    .branch_offsets
                    .push(restricted.targets.len() as u64);
            }
        }
        restricted
            .choice_offsets
            .push(restricted.branch_offsets.len() as u64 - 1);
    }
    // Whole choices of a valid MDP, so still valid.
    (restricted, original)
}

impl Precision {
    /// Whether a value known to lie in `[lower, upper]` is pinned down by
    /// their midpoint: half their distance within the precision (of the
    /// lower bound, so of the value too, when relative).
    pub fn reached(self, lower: f64, upper: f64) -> bool {
        let half = (upper - lower) / 2.0;
        half <= 0.0 || half <= self.epsilon * if self.relative { lower } else { 1.0 }
    }

    /// The unsound stopping rule of plain value iteration: the value moved
    /// from `old` to `new` by at most the precision.
    pub fn close(self, old: f64, new: f64) -> bool {
        (new - old).abs() <= self.epsilon * if self.relative { new.abs() } else { 1.0 }
    }
}

/// The probability of reaching `right` within time `time` through `left`
/// states in the CTMC `chain` (rates), by uniformisation: with `q` above
/// every exit rate, the chain at time `time` is the uniformised DTMC
/// (`I + Q/q`) after a Poisson(`q·time`) number of steps, so the value is
/// the Poisson-weighted sum of the step-bounded values. The weights are
/// computed from the mode outwards; the two tails left out are bounded
/// by geometric series (each ratio of neighbouring weights is below 1
/// there), and, as every step-bounded value lies in [0, 1], their sum
/// bounds what is missing: the value reported is the midpoint of that
/// interval. The tails are cut below a quarter of the precision (relative:
/// a quarter of 10^-30 of it, the value being unknown beforehand).
pub fn time_bounded_until(
    chain: &MarkovChain,
    left: &[bool],
    right: &[bool],
    time: f64,
    options: &SolveOptions,
) -> Outcome {
    let states = chain.states() as usize;
    let moving = |s: usize| left[s] && !right[s];
    let exit = |s: u32| -> f64 {
        let (targets, rates) = chain.row(s);
        targets
            .iter()
            .zip(rates)
            .filter(|&(&t, _)| t != s)
            .map(|(_, &r)| r)
            .sum()
    };
    let q = 1.02
        * (0..states)
            .filter(|&s| moving(s))
            .map(|s| exit(s as u32))
            .fold(0.0, f64::max);
    let lambda = q * time;
    let indicator: Vec<f64> = right.iter().map(|&r| if r { 1.0 } else { 0.0 }).collect();
    if lambda <= 0.0 {
        return Outcome::exact(indicator, 0);
    }
    if !lambda.is_finite() || lambda > options.max_iterations as f64 {
        // More steps than allowed are needed (about λ): nothing computed.
        let upper = (0..states)
            .map(|s| if moving(s) { 1.0 } else { indicator[s] })
            .collect();
        return Outcome::from_bounds(indicator, upper, 0, false);
    }
    let tail_target = options.precision.epsilon / 4.0
        * if options.precision.relative {
            1e-30
        } else {
            1.0
        };
    let weights = PoissonWindow::new(lambda, tail_target);
    let mut values = indicator.clone();
    let mut next = indicator.clone();
    let mut sum: Vec<f64> = vec![0.0; states];
    let mut step = 0u64;
    loop {
        if let Some(weight) = weights.weight(step) {
            for (total, value) in sum.iter_mut().zip(&values) {
                *total += weight * value;
            }
        }
        if step == weights.last {
            break;
        }
        let out_of_time = options.stop.is_set();
        if step >= options.max_iterations || out_of_time {
            // Each missing weighted value lies in [0, 1].
            let missing = weights.mass_after(step) + weights.tails;
            let upper = sum.iter().map(|v| v + missing).collect();
            return Outcome::from_bounds(sum, upper, step, false);
        }
        let mut changed = false;
        for s in 0..states {
            if !moving(s) {
                continue;
            }
            let (targets, rates) = chain.row(s as u32);
            let mut stay = 1.0;
            let mut value = 0.0;
            for (&t, &r) in targets.iter().zip(rates) {
                if t as usize != s {
                    value += r / q * values[t as usize];
                    stay -= r / q;
                }
            }
            next[s] = value + stay * values[s];
            changed |= next[s] != values[s];
        }
        std::mem::swap(&mut values, &mut next);
        step += 1;
        if !changed {
            // A fixpoint of the step (as in `bounded_until`): every later
            // step's values are these, so the window's weight from here on
            // falls on them at once.
            let rest = weights.mass_after(step - 1);
            for (total, value) in sum.iter_mut().zip(&values) {
                *total += rest * value;
            }
            break;
        }
    }
    let upper = sum.iter().map(|v| v + weights.tails).collect();
    let mut outcome = Outcome::from_bounds(sum, upper, step, true);
    for (s, &r) in right.iter().enumerate() {
        if r {
            outcome.values[s] = 1.0;
        }
    }
    outcome
}

/// The Poisson(λ) probabilities of `first..=last` steps, and a bound on
/// the probability of all the others (`tails`).
struct PoissonWindow {
    first: u64,
    last: u64,
    weights: Vec<f64>,
    tails: f64,
}

impl PoissonWindow {
    /// The narrowest window around the mode whose tails are each bounded
    /// below `target`.
    fn new(lambda: f64, target: f64) -> PoissonWindow {
        let mode = lambda.floor() as u64;
        // ln P(mode) = -λ + mode ln λ - ln mode!
        let log_factorial: f64 = (2..=mode).map(|i| (i as f64).ln()).sum();
        let at_mode = (-lambda + mode as f64 * lambda.ln() - log_factorial).exp();
        // Right of the mode: P(k+1) = P(k) λ / (k+1); beyond `last` the
        // ratios stay below r = λ/(last+1), so the tail is below
        // P(last) r / (1 - r).
        let mut right = vec![at_mode];
        let mut last = mode;
        let right_tail = loop {
            let ratio = lambda / (last + 1) as f64;
            let tail = right.last().unwrap() * ratio / (1.0 - ratio);
            if ratio < 1.0 && tail <= target {
                break tail;
            }
            right.push(right.last().unwrap() * ratio);
            last += 1;
        };
        // Left of the mode: P(k-1) = P(k) k / λ; below `first` the ratios
        // stay below s = first/λ, so the tail is below P(first) s / (1 - s).
        let mut left = Vec::new();
        let mut first = mode;
        let mut weight = at_mode;
        let left_tail = loop {
            if first == 0 {
                break 0.0;
            }
            let ratio = first as f64 / lambda;
            let tail = weight * ratio / (1.0 - ratio);
            if ratio < 1.0 && tail <= target {
                break tail;
            }
            weight *= ratio;
            first -= 1;
            left.push(weight);
        };
        left.reverse();
        left.extend(right);
        // ln mode! sums thousands of logarithms and carries their rounding
        // into every weight as one common factor: the window's weights,
        // which add up to 1 less the tails, are scaled to do so.
        let total: f64 = left.iter().sum();
        let tails = left_tail + right_tail;
        let scale = (1.0 - tails) / total;
        PoissonWindow {
            first,
            last,
            weights: left.iter().map(|w| w * scale).collect(),
            tails: tails * scale,
        }
    }

    /// The weight of `step` steps, if it is in the window.
    fn weight(&self, step: u64) -> Option<f64> {
        (self.first..=self.last)
            .contains(&step)
            .then(|| self.weights[(step - self.first) as usize])
    }

    /// The weight of the window's steps after `step`.
    fn mass_after(&self, step: u64) -> f64 {
        let from = (step + 1).max(self.first);
        (from..=self.last).filter_map(|k| self.weight(k)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::tests::end_component_mdp as mdp;

    fn options(sound: bool) -> SolveOptions {
        SolveOptions {
            precision: Precision {
                epsilon: 1e-9,
                relative: false,
            },
            sound,
            max_iterations: 10_000,
            stop: StopSignal::new(),
        }
    }

    /// An optimistic schedule of probabilities guesses once the lower
    /// bounds settle; when the guess does not verify within 16 sweeps (as
    /// many as the lower bounds took, at least 16) it settles the lower
    /// bounds ten times closer and guesses again, and when that guess
    /// fails too it puts back the known upper bounds and goes on as
    /// interval iteration.
    #[test]
    fn an_optimistic_guess_that_fails_gives_way_to_the_known_bounds() {
        let (all, goal) = (vec![true; 4], vec![false, true, false, false]);
        let iteration = prepare(&mdp(), &all, &goal, Some(Optimum::Max));
        let mut schedule = Schedule::optimistic(&iteration, 2, &options(true));
        assert_eq!(schedule.rule().phase, Phase::LowerOnly);
        assert!(schedule.falls_back());
        let moving = Tally {
            imprecise: 1,
            raised: 1,
        };
        assert_eq!(schedule.after(1, moving), Step::Sweep);
        let settled = Tally::default();
        let first = match schedule.after(1, settled) {
            Step::Guess(precision) => precision.epsilon,
            step => panic!("{step:?}"),
        };
        for _ in 0..16 {
            assert_eq!(schedule.after(1, moving), Step::Sweep);
            assert!(!schedule.upper_proven() && schedule.falls_back());
        }
        // The first guess failed: the lower bounds settle closer.
        assert_eq!(schedule.after(1, moving), Step::Sweep);
        assert_eq!(schedule.rule().phase, Phase::LowerOnly);
        match schedule.after(1, settled) {
            Step::Guess(precision) => assert_eq!(precision.epsilon, first / 10.0),
            step => panic!("{step:?}"),
        }
        for _ in 0..16 {
            assert_eq!(schedule.after(1, moving), Step::Sweep);
            assert!(!schedule.upper_proven() && schedule.falls_back());
        }
        assert_eq!(schedule.after(1, moving), Step::Restore);
        assert!(schedule.upper_proven() && !schedule.falls_back());
        assert_eq!(schedule.after(1, settled), Step::Stop);
        assert!(schedule.converged());
        // Without a known bound (rewards) nothing is put back; the plain
        // schedule of the other engines starts with the bounds proven.
        let mut unknown = prepare(&mdp(), &all, &goal, Some(Optimum::Max));
        unknown.upper_known = false;
        assert!(!Schedule::optimistic(&unknown, 2, &options(true)).falls_back());
        assert_eq!(
            Schedule::new(&iteration, &options(true)).rule().phase,
            Phase::Verified
        );
    }

    /// `maximum_from`, given the sets of the host's own nested search
    /// (`exists_almost_surely`, not the collapsed one `prepare` uses),
    /// builds exactly `prepare`'s iteration: the same bounds, classes and
    /// choices, on random MDPs with end components among the undecided
    /// states and sure ones.
    #[test]
    fn the_maximum_from_its_sure_sets_is_prepares() {
        use crate::numeric::tests::{random_mdp, random_set};
        // Cases with a collapsed end component, and with sure states
        // beyond `right`: the test must meet both.
        let (mut collapsed, mut sure) = (0, 0);
        for seed in 0..300u64 {
            let states = 1 + (seed % 60) as u32;
            let model = random_mdp(states, 0.3, seed);
            let left = random_set(states, 0.85, seed + 1);
            let right = random_set(states, 0.1, seed + 2);
            let predecessors = Predecessors::of(&model);
            let reach = MaximalReach {
                positive: qualitative::exists_reach(&predecessors, &left, &right),
                almost_sure: qualitative::exists_almost_surely(
                    &model,
                    &predecessors,
                    &left,
                    &right,
                ),
            };
            let (found, host) = (
                maximum_from(&model, &reach),
                prepare(&model, &left, &right, Some(Optimum::Max)),
            );
            assert_eq!(found.lower, host.lower, "seed {seed}");
            assert_eq!(found.upper, host.upper, "seed {seed}");
            assert_eq!(found.classes, host.classes, "seed {seed}");
            let a = &found.classes;
            collapsed += usize::from(a.member_offsets.windows(2).any(|r| r[1] - r[0] > 1));
            sure += usize::from(reach.almost_sure.iter().zip(&right).any(|(&s, &r)| s && !r));
        }
        assert!(collapsed > 10 && sure > 10, "{collapsed} {sure}");
    }

    #[test]
    fn maximal_and_minimal_reachability_with_an_end_component() {
        let (all, goal) = (vec![true; 4], vec![false, true, false, false]);
        // Without collapsing {0}'s loop the upper bound would stay at 1.
        let max = until(&mdp(), &all, &goal, Some(Optimum::Max), &options(true));
        assert!(max.converged);
        assert_eq!(max.values, [0.5, 1.0, 0.0, 0.75]);
        let min = until(&mdp(), &all, &goal, Some(Optimum::Min), &options(true));
        assert!(min.converged);
        assert_eq!(min.values, [0.0, 1.0, 0.0, 0.5]);
        // Bounded: one step from 3 reaches the goal with 0.5; two steps
        // add 0.5 · 0.5 through state 0's choice a.
        let bounded = |steps, optimum, options: &SolveOptions| {
            bounded_until(&mdp(), &all, &goal, steps, Some(optimum), options)
        };
        assert_eq!(bounded(1, Optimum::Max, &options(true)).values[3], 0.5);
        assert_eq!(bounded(2, Optimum::Max, &options(true)).values[3], 0.75);
        assert_eq!(bounded(2, Optimum::Min, &options(true)).values[3], 0.5);
        // Cut short after one of two steps: between 0.5 and 1, not converged.
        let short = SolveOptions {
            max_iterations: 1,
            ..options(true)
        };
        let cut = bounded(2, Optimum::Max, &short);
        assert_eq!(
            (cut.values[3], cut.converged, cut.iterations),
            (0.75, false, 1)
        );
        assert_eq!(cut.error_bounds.unwrap()[3], 0.25);
        // Two steps reach the unbounded maximum, and the third changes
        // nothing: any larger bound stops there, exact, within a limit of
        // iterations far below the bound.
        let few = SolveOptions {
            max_iterations: 10,
            ..options(true)
        };
        let far = bounded(u64::MAX, Optimum::Max, &few);
        assert_eq!(
            (far.values, far.converged, far.iterations),
            (max.values, true, 3)
        );
        assert_eq!(far.error_bounds.unwrap(), [0.0; 4]);
    }

    /// Time-bounded reachability against closed forms: 0 → 1 → 2 with
    /// rates a and b (a hypoexponential time to reach 2), and a self-loop
    /// rate on 0 that must not matter.
    #[test]
    fn uniformisation_matches_closed_forms() {
        let (a, b) = (3.0f64, 0.5f64);
        let chain = MarkovChain {
            offsets: vec![0, 2, 3, 4],
            targets: vec![0, 1, 2, 2],
            values: vec![7.0, a, b, 1.0],
            initial: 0,
        };
        let all = vec![true; 3];
        let goal = vec![false, false, true];
        for (time, epsilon) in [(0.1, 1e-12), (2.0, 1e-12), (40.0, 1e-9), (0.0, 1e-9)] {
            let options = SolveOptions {
                precision: Precision {
                    epsilon,
                    relative: false,
                },
                ..options(true)
            };
            let found = time_bounded_until(&chain, &all, &goal, time, &options);
            let exact = 1.0 - (b * (-a * time).exp() - a * (-b * time).exp()) / (b - a);
            let bound = found.error_bounds.as_ref().unwrap()[0];
            assert!(found.converged && bound <= epsilon, "t = {time}");
            assert!(
                (found.values[0] - exact).abs() <= bound + 1e-13,
                "t = {time}: {} vs {exact}",
                found.values[0]
            );
            // From state 1 only the second rate counts.
            let from_one = 1.0 - (-b * time).exp();
            assert!((found.values[1] - from_one).abs() <= bound + 1e-13);
        }
        // A long time (about 30,600 uniformised steps): the steps reach a
        // fixpoint (both states' values round to 1) after a few hundred,
        // and the rest of the window's weight falls on it.
        let roomy = SolveOptions {
            max_iterations: 100_000,
            ..options(true)
        };
        let long = time_bounded_until(&chain, &all, &goal, 1e4, &roomy);
        let bound = long.error_bounds.as_ref().unwrap()[0];
        assert!(
            long.converged && long.iterations < 1000,
            "{}",
            long.iterations
        );
        assert!((long.values[0] - 1.0).abs() <= bound + 1e-13);
        // A time needing more steps than allowed: nothing computed, said so.
        let far = time_bounded_until(&chain, &all, &goal, 1e300, &options(true));
        assert!(!far.converged && far.iterations == 0);
        assert_eq!((far.values[0], far.error_bounds.unwrap()[0]), (0.5, 0.5));
        // Poisson weights: the window and its tails account for all mass.
        let window = PoissonWindow::new(1000.0, 1e-12);
        let mass: f64 = window.weights.iter().sum::<f64>() + window.tails;
        assert!((mass - 1.0).abs() < 1e-12 && window.tails <= 2e-12);
        assert!(window.first < 1000 && window.last > 1000);
    }

    /// A DTMC where the answer needs many iterations: a random walk on
    /// 0..=20 moving up with 0.4, down with 0.6, absorbed at both ends;
    /// P(reach 20 from 10) = (1 - r^10) / (1 - r^20) with r = 1.5.
    #[test]
    fn interval_iteration_brackets_the_gamblers_ruin() {
        let n = 20u32;
        let choices = (0..=n)
            .map(|s| {
                if s == 0 || s == n {
                    vec![vec![(s, 1.0)]]
                } else {
                    vec![vec![(s + 1, 0.4), (s - 1, 0.6)]]
                }
            })
            .collect();
        let walk = Mdp::from_choices(10, choices).unwrap();
        let goal: Vec<bool> = (0..=n).map(|s| s == n).collect();
        let all = vec![true; n as usize + 1];
        let exact = (1.0 - 1.5f64.powi(10)) / (1.0 - 1.5f64.powi(20));
        let sound = until(&walk, &all, &goal, None, &options(true));
        let bound = sound.error_bounds.as_ref().unwrap()[10];
        assert!(sound.converged && bound <= 1e-9);
        assert!(
            (sound.values[10] - exact).abs() <= bound + 1e-15,
            "{} vs {exact}",
            sound.values[10]
        );
        let plain = until(&walk, &all, &goal, None, &options(false));
        assert!(plain.converged && plain.error_bounds.is_none());
        assert!(plain.values[10] <= exact);
        // Cut short, the sound method says so and still brackets the value.
        let short = until(
            &walk,
            &all,
            &goal,
            None,
            &SolveOptions {
                max_iterations: 5,
                ..options(true)
            },
        );
        assert!(!short.converged);
        let bound = short.error_bounds.as_ref().unwrap()[10];
        assert!((short.values[10] - exact).abs() <= bound && bound > 1e-3);
    }
}
