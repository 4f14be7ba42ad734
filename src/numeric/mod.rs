//! Probabilistic model checking of explicit DTMCs, CTMCs and MDPs
//! (`warpcheck prob`): the property language ([`property`]), the graph
//! precomputations that settle probabilities 0 and 1 ([`qualitative`]),
//! the sequential reference engine and the iteration scheme all engines
//! share ([`mod@reference`]), the iterations on CPU threads ([`cpu`]) and
//! on the GPU ([`gpu`]), expected rewards ([`reward`]) and long-run
//! averages ([`long_run`]). It knows the explicit models of
//! [`crate::explicit`], never the files they came from.

pub mod cpu;
pub mod gpu;
pub mod long_run;
pub mod property;
pub mod qualitative;
pub mod reference;
pub mod reward;

use std::time::Instant;

use rayon::prelude::*;

use crate::explicit::offsets::first_window;
use crate::explicit::{ExplicitModel, MarkovChain, Mdp, ModelType, ProbModel};
use crate::explore::StopSignal;
use crate::gpu::{Device, GpuError};
use crate::scc::cpu::prefix_sums;
pub use property::Optimum;
use property::{Bound, PathFormula, Property, Query};
use reference::{Bounds, Iteration};

/// Runs `work` and logs its time at the debug level (`-vv`) as `what`:
/// the phases of `warpcheck prob`.
pub(crate) fn timed<T>(what: &str, work: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let result = work();
    tracing::debug!(seconds = started.elapsed().as_secs_f64(), "{what}");
    result
}

/// Rows numbered `0..rows` built on the current rayon pool, a block of
/// rows a task: `fill` appends the entries of a row to the list it is
/// given, with a scratch value that `scratch` makes for each task (and
/// `fill` leaves as it found it). Where each row starts (then the total),
/// and the entries, row after row.
pub(crate) fn rows_in_parallel<T: Send, S>(
    rows: usize,
    scratch: impl Fn() -> S + Sync + Send,
    fill: impl Fn(&mut S, usize, &mut Vec<T>) + Sync + Send,
) -> (Vec<u64>, Vec<T>) {
    const ROWS_PER_TASK: usize = 1 << 10;
    let blocks: Vec<(Vec<u64>, Vec<T>)> = (0..rows.div_ceil(ROWS_PER_TASK))
        .into_par_iter()
        .map_init(scratch, |scratch, block| {
            let rows = block * ROWS_PER_TASK..((block + 1) * ROWS_PER_TASK).min(rows);
            let mut lengths = Vec::with_capacity(rows.len());
            let mut entries = Vec::new();
            for row in rows {
                let start = entries.len();
                fill(scratch, row, &mut entries);
                lengths.push((entries.len() - start) as u64);
            }
            (lengths, entries)
        })
        .collect();
    let lengths = blocks
        .iter()
        .flat_map(|(lengths, _)| lengths)
        .copied()
        .collect();
    let entries = blocks
        .into_iter()
        .flat_map(|(_, entries)| entries)
        .collect();
    (prefix_sums(lengths), entries)
}

/// Large arrays that a phase of `prob` no longer needs, kept for a later
/// phase to fill instead of new ones: their pages are mapped already,
/// where a new array's pages would each be faulted in and zeroed by the
/// kernel again.
#[derive(Debug, Default)]
pub struct Spare {
    /// Arrays of 64-bit words.
    words: Vec<Vec<u64>>,
    /// Arrays of 32-bit words.
    halves: Vec<Vec<u32>>,
}

impl Spare {
    /// Keeps `words` for reuse.
    pub fn keep_words(&mut self, words: Vec<u64>) {
        self.words.push(words);
    }

    /// Keeps `halves` for reuse.
    pub fn keep_halves(&mut self, halves: Vec<u32>) {
        self.halves.push(halves);
    }

    /// `len` words of no set value, for the caller to write every one.
    pub fn words(&mut self, len: usize) -> Vec<u64> {
        take_fitting(&mut self.words, len)
    }

    /// `len` floats of no set value, for the caller to write every one.
    pub fn floats(&mut self, len: usize) -> Vec<f64> {
        // In place: the same size and alignment.
        self.words(len).into_iter().map(f64::from_bits).collect()
    }

    /// `len` half words of no set value, for the caller to write every one.
    pub fn halves(&mut self, len: usize) -> Vec<u32> {
        take_fitting(&mut self.halves, len)
    }
}

/// The smallest of `kept` that holds `len` values, cut or padded to
/// `len`, or else a new array of zeros (which the allocator maps zeroed,
/// without writing them).
fn take_fitting<T: Copy + Default>(kept: &mut Vec<Vec<T>>, len: usize) -> Vec<T> {
    let fitting = (0..kept.len())
        .filter(|&i| kept[i].capacity() >= len)
        .min_by_key(|&i| kept[i].capacity());
    let Some(index) = fitting else {
        return vec![T::default(); len];
    };
    let mut array = kept.swap_remove(index);
    array.truncate(len);
    array.resize(len, T::default());
    array
}

/// How close a computed value must be to the true one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Precision {
    /// The largest error allowed.
    pub epsilon: f64,
    /// Whether `epsilon` is relative to the value (else absolute).
    pub relative: bool,
}

/// How the iterations run and when they stop.
#[derive(Debug, Clone)]
pub struct SolveOptions {
    /// The precision to reach.
    pub precision: Precision,
    /// Sound (interval iteration: the error bound is guaranteed), or
    /// plain value iteration, which stops when an iteration changes no
    /// value by more than the precision and can stop far from the answer.
    pub sound: bool,
    /// Iterations at most.
    pub max_iterations: u64,
    /// When to give up early, if ever: a deadline, or a request (Ctrl-C).
    /// The bounds reached so far are then the outcome, not converged.
    pub stop: StopSignal,
}

/// What an engine computed for one property.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The value of every state (the midpoint of its interval when the
    /// method is sound).
    pub values: Vec<f64>,
    /// The guaranteed bound on the error of each value (0 where exact up
    /// to rounding), or `None` where the method guarantees none.
    pub error_bounds: Option<Vec<f64>>,
    /// Iterations (steps for a bounded property).
    pub iterations: u64,
    /// Whether the precision was reached (always for exact methods).
    pub converged: bool,
}

impl Outcome {
    /// The midpoints of `[lower, upper]` and their half widths; where the
    /// upper bound is infinite (none was proven), the lower bound with an
    /// infinite error bound, and where both are equal (infinite values
    /// included), that value exactly. The midpoints take the memory of
    /// the lower bounds, and the half widths that of the upper ones.
    pub fn from_bounds(
        mut lower: Vec<f64>,
        mut upper: Vec<f64>,
        iterations: u64,
        converged: bool,
    ) -> Outcome {
        for (low, high) in lower.iter_mut().zip(&mut upper) {
            let (l, u) = (*low, *high);
            (*low, *high) = if l == u {
                (l, 0.0)
            } else if u.is_infinite() {
                (l, f64::INFINITY)
            } else {
                ((l + u) / 2.0, ((u - l) / 2.0).max(0.0))
            };
        }
        Outcome {
            values: lower,
            error_bounds: Some(upper),
            iterations,
            converged,
        }
    }

    /// Values of plain value iteration: no bound is known.
    pub fn unsound(values: Vec<f64>, iterations: u64, converged: bool) -> Outcome {
        Outcome {
            values,
            error_bounds: None,
            iterations,
            converged,
        }
    }

    /// Values exact up to rounding (bounded properties).
    pub fn exact(values: Vec<f64>, iterations: u64) -> Outcome {
        let bounds = vec![0.0; values.len()];
        Outcome {
            values,
            error_bounds: Some(bounds),
            iterations,
            converged: true,
        }
    }
}

/// The mean time a CTMC stays in each state per visit: 1 over the sum of
/// its rates (self-loops included, as the embedded chain counts them as
/// moves); 1 for a state without moves, which never leaves anyway (its
/// values are settled without it).
pub fn holding_times(chain: &MarkovChain) -> Vec<f64> {
    (0..chain.states())
        .map(|state| {
            let exit: f64 = chain.row(state).1.iter().sum();
            if exit > 0.0 { 1.0 / exit } else { 1.0 }
        })
        .collect()
}

/// The embedded DTMC of a CTMC: each state's rates divided by their sum
/// (the probability of each move when the state is left; a state without
/// transitions keeps none).
pub fn embedded(chain: &MarkovChain) -> MarkovChain {
    let holding = holding_times(chain);
    let mut values = chain.values.clone();
    for (state, &time) in holding.iter().enumerate() {
        let row = chain.offsets[state] as usize..chain.offsets[state + 1] as usize;
        for value in &mut values[row] {
            *value *= time;
        }
    }
    MarkovChain {
        values,
        ..chain.clone()
    }
}

/// A DTMC as an MDP with one choice per state that has a transition (its
/// row), so that one set of algorithms serves both.
pub fn as_mdp(chain: &MarkovChain) -> Mdp {
    // The arrays are copied on the rayon pool: a large chain's hold
    // gigabytes (benches/results/2026-12-02-h200-egl/README.md).
    let (choice_offsets, branch_offsets) =
        if first_window(&chain.offsets, 2, |row| row[1] <= row[0]).is_none() {
            // Every state moves: a choice a state, the chain's own offsets.
            let states = chain.states() as u64;
            (
                (0..=states).into_par_iter().collect(),
                chain.offsets.par_iter().copied().collect(),
            )
        } else {
            let mut choice_offsets = Vec::with_capacity(chain.offsets.len());
            let mut branch_offsets = vec![0];
            choice_offsets.push(0);
            for state in 0..chain.states() {
                let (targets, _) = chain.row(state);
                if !targets.is_empty() {
                    branch_offsets.push(chain.offsets[state as usize + 1]);
                }
                choice_offsets.push(branch_offsets.len() as u64 - 1);
            }
            (choice_offsets, branch_offsets)
        };
    Mdp {
        choice_offsets,
        branch_offsets,
        targets: chain.targets.par_iter().copied().collect(),
        probabilities: chain.values.par_iter().copied().collect(),
        choice_labels: None,
        initial: chain.initial,
    }
}

/// Why a property cannot be computed on a model.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// A label the model lacks, with its column.
    #[error(transparent)]
    Property(#[from] property::PropertyError),
    /// A property that does not fit the model's type.
    #[error("{0}")]
    Mismatch(String),
    /// A property the engines do not compute yet.
    #[error("{0}")]
    Unsupported(String),
    /// The GPU failed.
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

/// Where the iterations run.
#[derive(Debug, Clone, Copy)]
pub enum Engine<'a> {
    /// The sequential reference.
    Reference,
    /// The multi-core engine, on this many threads.
    Cpu(usize),
    /// The GPU.
    Gpu(&'a Device),
}

/// Iterates `iteration` of `mdp` on `engine` within `options`.
pub fn solve(
    engine: Engine<'_>,
    mdp: &Mdp,
    mut iteration: Iteration,
    options: &SolveOptions,
) -> Result<Bounds, GpuError> {
    if !matches!(engine, Engine::Cpu(_)) {
        // Only the CPU engine's layout reuses them: the others free them
        // before they iterate.
        iteration.spare = Spare::default();
    }
    Ok(match engine {
        Engine::Gpu(device) => gpu::iterate(device, mdp, iteration, options)?,
        Engine::Cpu(threads) => cpu::iterate(mdp, iteration, options, threads),
        Engine::Reference => reference::iterate(mdp, iteration, options),
    })
}

/// The value of `property` in every state of `model` within `options`:
/// the precomputations and step-bounded properties on the host (on the
/// threads of the CPU engine, on one for the reference, on the current
/// rayon pool with the GPU), the iterations by `engine`.
pub fn check(
    model: &ProbModel,
    property: &Property,
    options: &SolveOptions,
    engine: Engine<'_>,
) -> Result<Outcome, CheckError> {
    let threads = match engine {
        Engine::Gpu(_) => return check_on(model, property, options, engine),
        Engine::Cpu(threads) => threads.max(1),
        Engine::Reference => 1,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool of at least one thread");
    let engine = match engine {
        Engine::Cpu(_) => Engine::Cpu(threads),
        _ => Engine::Reference,
    };
    pool.install(|| check_on(model, property, options, engine))
}

/// [`check`] on the current rayon pool.
fn check_on(
    model: &ProbModel,
    property: &Property,
    options: &SolveOptions,
    engine: Engine<'_>,
) -> Result<Outcome, CheckError> {
    let kind = model.model.model_type();
    let states = model.model.states();
    match &property.query {
        Query::Probability {
            optimum,
            path: PathFormula::Until { left, right, bound },
        } => {
            check_optimum(kind, *optimum, "P")?;
            let left = left.states(&model.labels, states)?;
            let right = right.states(&model.labels, states)?;
            probability(model, &left, &right, *bound, *optimum, options, engine)
        }
        Query::Reward {
            structure,
            optimum,
            target,
        } => {
            check_optimum(kind, *optimum, "R")?;
            let rewards = reward::structure(model, structure.as_deref())?;
            let target = target.states(&model.labels, states)?;
            Ok(reward::expected(
                &model.model,
                rewards,
                &target,
                *optimum,
                options,
                engine,
            )?)
        }
        Query::LongRunProbability(_) | Query::LongRunReward { .. } if kind == ModelType::Mdp => {
            Err(long_run::refusal_for_mdps())
        }
        Query::LongRunProbability(formula) => {
            let inside = formula.states(&model.labels, states)?;
            let indicator: Vec<f64> = inside.iter().map(|&i| f64::from(u8::from(i))).collect();
            long_run::average(&model.model, &indicator, options, engine)
        }
        Query::LongRunReward { structure } => {
            let rewards = reward::structure(model, structure.as_deref())?;
            let rates = reward::rates(&model.model, rewards);
            long_run::average(&model.model, &rates, options, engine)
        }
    }
}

/// Refuses `min`/`max` on a Markov chain and their absence on an MDP;
/// `operator` is `P` or `R`.
fn check_optimum(
    kind: ModelType,
    optimum: Option<Optimum>,
    operator: &str,
) -> Result<(), CheckError> {
    match (kind, optimum) {
        (ModelType::Mdp, None) => Err(CheckError::Mismatch(format!(
            "the model is an MDP: ask for {operator}min=? or {operator}max=?"
        ))),
        (ModelType::Dtmc | ModelType::Ctmc, Some(_)) => Err(CheckError::Mismatch(format!(
            "the model is a {}: {operator}min and {operator}max apply to MDPs; ask for {operator}=?",
            kind.name().to_uppercase()
        ))),
        _ => Ok(()),
    }
}

/// The probability of `left U right` (within `bound`, if any).
fn probability(
    model: &ProbModel,
    left: &[bool],
    right: &[bool],
    bound: Option<Bound>,
    optimum: Option<Optimum>,
    options: &SolveOptions,
    engine: Engine<'_>,
) -> Result<Outcome, CheckError> {
    let chain_as_mdp;
    let mdp = match (&model.model, bound) {
        (ExplicitModel::Ctmc(chain), Some(bound)) => {
            return Ok(reference::time_bounded_until(
                chain,
                left,
                right,
                bound.value,
                options,
            ));
        }
        // Which states a CTMC's paths visit, in order, is its embedded
        // DTMC's: untimed probabilities are that chain's.
        (ExplicitModel::Ctmc(chain), None) => {
            chain_as_mdp = timed("as MDP", || as_mdp(&embedded(chain)));
            &chain_as_mdp
        }
        (ExplicitModel::Dtmc(chain), _) => {
            chain_as_mdp = timed("as MDP", || as_mdp(chain));
            &chain_as_mdp
        }
        (ExplicitModel::Mdp(mdp), _) => mdp,
    };
    Ok(match bound {
        None => match (engine, optimum) {
            (Engine::Gpu(device), None | Some(Optimum::Min)) => {
                let goal = gpu::Goal::Probability { left };
                gpu::solve_on_device(device, mdp, goal, right, optimum, options)?
                    .outcome(options.sound)
            }
            // The maximum's classes collapse end components: on the host,
            // from the device's searches.
            (Engine::Gpu(device), Some(Optimum::Max)) => {
                let model = gpu::DeviceMdp::upload(device, mdp)?;
                let reach = gpu::maximal_reach(device, mdp, &model, left, right)?;
                let iteration = reference::maximum_from(mdp, &reach);
                drop(reach);
                gpu::iterate_with(device, mdp, &model, iteration, options)?.outcome(options.sound)
            }
            _ => {
                let iteration = reference::prepare(mdp, left, right, optimum);
                solve(engine, mdp, iteration, options)?.outcome(options.sound)
            }
        },
        Some(Bound {
            value,
            integral: true,
        }) => reference::bounded_until(mdp, left, right, value as u64, optimum, options),
        Some(Bound { value, .. }) => {
            return Err(CheckError::Mismatch(format!(
                "a step bound of a DTMC or MDP is a whole number of steps, not {value}"
            )));
        }
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::testing::graphs::SplitMix;

    /// A random MDP of `states` states, each with up to 3 choices of up
    /// to 3 equally likely branches: a branch leads, with chance `back`,
    /// to any state, and else to a lower-numbered one, so that with a
    /// small `back` most of the graph is acyclic, in wide levels.
    /// Deterministic in `seed`.
    pub fn random_mdp(states: u32, back: f64, seed: u64) -> Mdp {
        let mut rng = SplitMix::new(seed);
        let mut choices = Vec::with_capacity(states as usize);
        for state in 0..states {
            let mut state_choices = Vec::new();
            for _ in 0..rng.below(4) {
                let branches = 1 + rng.below(3);
                let mut choice = Vec::new();
                for _ in 0..branches {
                    let anywhere = state == 0 || rng.chance(back);
                    let target = rng.below(u64::from(if anywhere { states } else { state }));
                    choice.push((target as u32, 1.0 / branches as f64));
                }
                state_choices.push(choice);
            }
            choices.push(state_choices);
        }
        Mdp::from_choices(0, choices).unwrap()
    }

    /// `states` flags, each set with chance `p`, deterministic in `seed`.
    pub fn random_set(states: u32, p: f64, seed: u64) -> Vec<bool> {
        let mut rng = SplitMix::new(seed);
        (0..states).map(|_| rng.chance(p)).collect()
    }

    /// A pool of `threads` threads.
    pub fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// State 0: choice a → {1: 0.5, 2: 0.5}, choice b → {0} (an end
    /// component that never reaches the goal); 1: the goal (self-loop);
    /// 2: a trap (self-loop); 3: → {0: 0.5, 1: 0.5}.
    pub fn end_component_mdp() -> Mdp {
        Mdp::from_choices(
            0,
            vec![
                vec![vec![(1, 0.5), (2, 0.5)], vec![(0, 1.0)]],
                vec![vec![(1, 1.0)]],
                vec![vec![(2, 1.0)]],
                vec![vec![(0, 0.5), (1, 0.5)]],
            ],
        )
        .unwrap()
    }

    #[test]
    fn a_dtmc_is_an_mdp_of_one_choice_per_state_with_a_row() {
        let chain = MarkovChain {
            offsets: vec![0, 2, 2, 3],
            targets: vec![1, 2, 2],
            values: vec![0.25, 0.75, 1.0],
            initial: 0,
        };
        let mdp = as_mdp(&chain);
        mdp.validate().unwrap();
        assert_eq!(mdp.choice_offsets, [0, 1, 1, 2]);
        assert_eq!(mdp.branches_of(1), (&[2u32][..], &[1.0][..]));
    }
}
