//! Expected rewards accumulated until a target is reached (`R=? [ F φ ]`,
//! `Rmin`, `Rmax`), with PRISM's meaning: the value is infinite wherever
//! the target is missed with positive probability (under some scheduler
//! for `Rmax`, under every one for `Rmin`), else the least solution of
//! `x = reward + Σ p·x` outside the target. Each step earns the reward of
//! the state it leaves and that of the move it makes (transition and
//! choice rewards, as their mean over the branches: see
//! [`RewardStructure`]), the move into the target included. A CTMC's state
//! rewards are rates, earned for as long as the state is held: on its
//! embedded DTMC, each visit earns the rate divided by the exit rate (the
//! mean holding time), and each jump its move's reward. For `Rmin` the
//! choices that risk missing the target are dropped, and end components
//! without reward are collapsed (staying in one for ever earns nothing but
//! never arrives). No upper bound is known beforehand: the
//! [`super::reference::Schedule`] finds one.

use std::borrow::Cow;

use rayon::prelude::*;

use super::qualitative::{self, Predecessors};
use super::reference::{ChoiceRule, Classes, Iteration};
use super::{
    CheckError, Engine, Optimum, Outcome, SolveOptions, Spare, as_mdp, embedded, gpu,
    holding_times, solve, timed,
};
use crate::explicit::{ExplicitModel, Mdp, ProbModel, RewardStructure};
use crate::gpu::GpuError;

/// The reward structure a property names: the one called `name`, or with
/// no name (or when the model's only structure has none, as a PRISM
/// `.srew` file gives it) the model's only one. Rewards must be finite and
/// non-negative.
pub fn structure<'m>(
    model: &'m ProbModel,
    name: Option<&str>,
) -> Result<&'m RewardStructure, CheckError> {
    let available = || {
        let names: Vec<String> = model
            .rewards
            .iter()
            .map(|r| match &r.name {
                Some(name) => format!("\"{name}\""),
                None => "one without a name".to_string(),
            })
            .collect();
        if names.is_empty() {
            "the model has none; give a .srew or .trew file with --srew or --trew".to_string()
        } else {
            format!("the model has {}", names.join(", "))
        }
    };
    let found = match name {
        Some(name) => model
            .rewards
            .iter()
            .find(|r| r.name.as_deref() == Some(name))
            .or(match &model.rewards[..] {
                [only] if only.name.is_none() => Some(only),
                _ => None,
            })
            .ok_or_else(|| {
                CheckError::Mismatch(format!("no reward structure \"{name}\": {}", available()))
            })?,
        None => match &model.rewards[..] {
            [only] => only,
            _ => {
                return Err(CheckError::Mismatch(format!(
                    "say which reward structure, as in R{{\"name\"}}: {}",
                    available()
                )));
            }
        },
    };
    let invalid = |(index, value): (usize, &f64)| {
        (!(value.is_finite() && *value >= 0.0)).then_some((index, *value))
    };
    if let Some((state, value)) = found.states.iter().enumerate().find_map(invalid) {
        return Err(CheckError::Mismatch(format!(
            "state {state} has reward {value}: rewards must be finite and non-negative"
        )));
    }
    let moves = found.moves.iter().flatten();
    if let Some((index, value)) = moves.enumerate().find_map(invalid) {
        let place = match model.model {
            ExplicitModel::Mdp(_) => "choice",
            _ => "the move of state",
        };
        return Err(CheckError::Mismatch(format!(
            "{place} {index} has a mean transition reward of {value}: rewards must be finite \
             and non-negative"
        )));
    }
    Ok(found)
}

/// The reward rate of every state of a Markov chain `model`, which
/// long-run averages weigh: its state reward, plus the reward of its move
/// times how often the move is made, once per step in a DTMC and at the
/// state's exit rate in a CTMC.
pub fn rates(model: &ExplicitModel, rewards: &RewardStructure) -> Vec<f64> {
    let mut rates = rewards.states.clone();
    if let Some(moves) = &rewards.moves {
        let holding = match model {
            ExplicitModel::Ctmc(chain) => Some(holding_times(chain)),
            _ => None,
        };
        for (state, (rate, reward)) in rates.iter_mut().zip(moves).enumerate() {
            *rate += match &holding {
                Some(holding) => reward / holding[state],
                None => *reward,
            };
        }
    }
    rates
}

/// The expected reward (of `rewards`) accumulated until a `target` state
/// is reached, in every state of `model`, optimised by `optimum` for an
/// MDP.
pub fn expected(
    model: &ExplicitModel,
    rewards: &RewardStructure,
    target: &[bool],
    optimum: Option<Optimum>,
    options: &SolveOptions,
    engine: Engine<'_>,
) -> Result<Outcome, GpuError> {
    let (mdp, per_visit): (Cow<Mdp>, Cow<[f64]>) = timed("as MDP", || match model {
        ExplicitModel::Dtmc(chain) => (
            Cow::Owned(as_mdp(chain)),
            Cow::Borrowed(rewards.states.as_slice()),
        ),
        ExplicitModel::Ctmc(chain) => {
            let per_visit = holding_times(chain)
                .iter()
                .zip(&rewards.states)
                .map(|(time, reward)| time * reward)
                .collect();
            (Cow::Owned(as_mdp(&embedded(chain))), Cow::Owned(per_visit))
        }
        ExplicitModel::Mdp(mdp) => (Cow::Borrowed(mdp), Cow::Borrowed(rewards.states.as_slice())),
    });
    let mdp = mdp.as_ref();
    // A chain's moves are indexed by state, an MDP's by choice.
    let by_choice = matches!(model, ExplicitModel::Mdp(_));
    let choice_rewards = timed("choice rewards", || match rewards.moves.as_deref() {
        None => per_choice(mdp, &per_visit),
        Some(moves) => of_each_choice(mdp, |state, choice| {
            per_visit[state as usize]
                + moves[if by_choice { choice } else { u64::from(state) } as usize]
        }),
    });
    let bounds = match (engine, optimum) {
        (Engine::Gpu(device), None | Some(Optimum::Max)) => {
            let goal = gpu::Goal::Reward {
                choice_rewards: &choice_rewards,
            };
            gpu::solve_on_device(device, mdp, goal, target, optimum, options)?
        }
        // A minimum's classes collapse end components: on the host, from
        // the device's searches.
        (Engine::Gpu(device), Some(Optimum::Min)) => {
            let model = gpu::DeviceMdp::upload(device, mdp)?;
            let every = vec![true; target.len()];
            let reach = gpu::maximal_reach(device, mdp, &model, &every, target)?;
            drop(every);
            let finite = reach.almost_sure;
            let iteration = with_finite(mdp, &choice_rewards, target, &finite, optimum);
            gpu::iterate_with(device, mdp, &model, iteration, options)?
        }
        _ => solve(
            engine,
            mdp,
            prepare(mdp, &choice_rewards, target, optimum),
            options,
        )?,
    };
    Ok(bounds.outcome(options.sound))
}

/// The reward of every choice of `mdp` when each choice earns its state's
/// reward (`rewards`, one per state).
pub fn per_choice(mdp: &Mdp, rewards: &[f64]) -> Vec<f64> {
    of_each_choice(mdp, |state, _| rewards[state as usize])
}

/// `reward(state, choice)` for every choice of `mdp`, in choice order,
/// computed on the rayon pool.
fn of_each_choice(mdp: &Mdp, reward: impl Fn(u32, u64) -> f64 + Sync) -> Vec<f64> {
    (0..mdp.states())
        .into_par_iter()
        .flat_map_iter(|state| mdp.choices_of(state).map(move |choice| (state, choice)))
        .map(|(state, choice)| reward(state, choice))
        .collect()
}

/// The precomputation of the expected reward until `target` in `mdp` (a
/// Markov chain as [`as_mdp`] gives it, with `optimum` `None`),
/// `choice_rewards` being earned each time a choice is taken ([`per_choice`]
/// gives them for rewards of states).
pub fn prepare(
    mdp: &Mdp,
    choice_rewards: &[f64],
    target: &[bool],
    optimum: Option<Optimum>,
) -> Iteration {
    let predecessors = timed("predecessors", || Predecessors::of(mdp));
    let all = vec![true; target.len()];
    // Where the target is reached with probability 1 under every scheduler
    // (Rmax, Markov chains) or under some scheduler (Rmin).
    let finite = timed("prob1", || match optimum {
        // In a Markov chain, E and A coincide: the searches of A are one pass.
        None | Some(Optimum::Max) => {
            let reach = qualitative::forall_reach(mdp, &predecessors, &all, target);
            let missed: Vec<bool> = reach.iter().map(|&r| !r).collect();
            qualitative::forall_almost_surely(&predecessors, &all, target, &missed)
        }
        Some(Optimum::Min) => qualitative::exists_almost_surely(mdp, &predecessors, &all, target),
    });
    Iteration {
        spare: predecessors.into_spare(),
        ..with_finite(mdp, choice_rewards, target, &finite, optimum)
    }
}

/// What [`prepare`] gives once `finite` says where the target is reached
/// with probability 1 (under every scheduler for `Rmax` and Markov chains,
/// under some for `Rmin`: the GPU's [`gpu::maximal_reach`] finds that
/// one's almost sure set, with every state as `left`).
pub fn with_finite(
    mdp: &Mdp,
    choice_rewards: &[f64],
    target: &[bool],
    finite: &[bool],
    optimum: Option<Optimum>,
) -> Iteration {
    let undecided: Vec<bool> = finite.iter().zip(target).map(|(&f, &t)| f && !t).collect();
    let stays_finite = |choice: u64| {
        let (targets, probabilities) = mdp.branches_of(choice);
        targets
            .iter()
            .zip(probabilities)
            .all(|(&t, &p)| p <= 0.0 || finite[t as usize])
    };
    let without_reward = |choice: u64| choice_rewards[choice as usize] == 0.0;
    let rule = ChoiceRule {
        usable: &stays_finite,
        collapsible: &without_reward,
        constants: Some(choice_rewards),
    };
    // Under Rmax and in Markov chains no end component lies among the
    // undecided states (staying in it would miss the target).
    let classes = timed("classes", || match optimum {
        Some(Optimum::Min) => Classes::collapsing_end_components(mdp, &undecided, &rule),
        _ => Classes::identity(mdp, &undecided, &rule),
    });
    let settled = |state: usize| {
        if target[state] || undecided[state] {
            0.0
        } else {
            f64::INFINITY
        }
    };
    let lower: Vec<f64> = (0..target.len()).map(settled).collect();
    Iteration {
        upper: lower.clone(),
        lower,
        upper_known: false,
        classes,
        optimum,
        spare: Spare::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::StopSignal;
    use crate::numeric::reference::iterate;
    use crate::numeric::{Precision, Spare};

    fn options(relative: bool) -> SolveOptions {
        SolveOptions {
            precision: Precision {
                epsilon: 1e-9,
                relative,
            },
            sound: true,
            max_iterations: 1_000_000,
            stop: StopSignal::new(),
        }
    }

    /// A geometric number of tries: each costs 1 and succeeds with
    /// probability 1/3, so 3 are expected; state 2 may also give up into a
    /// trap, which makes its expectation infinite.
    #[test]
    fn expected_tries_and_infinite_values() {
        let mdp = Mdp::from_choices(
            0,
            vec![
                vec![vec![(1, 1.0 / 3.0), (0, 2.0 / 3.0)]],
                vec![vec![(1, 1.0)]],
                vec![vec![(1, 0.5), (3, 0.5)]],
                vec![vec![(3, 1.0)]],
            ],
        )
        .unwrap();
        let target = [false, true, false, false];
        let iteration = prepare(
            &mdp,
            &per_choice(&mdp, &[1.0, 0.0, 1.0, 1.0]),
            &target,
            None,
        );
        for relative in [false, true] {
            let outcome =
                iterate(&mdp, iteration_clone(&iteration), &options(relative)).outcome(true);
            assert!(outcome.converged);
            let bound = outcome.error_bounds.as_ref().unwrap()[0];
            assert!(
                (outcome.values[0] - 3.0).abs() <= bound + 1e-14 && bound <= 3e-9,
                "{} ± {bound}",
                outcome.values[0]
            );
            assert_eq!(outcome.values[1], 0.0);
            assert_eq!(outcome.values[2], f64::INFINITY);
            assert_eq!(outcome.values[3], f64::INFINITY);
        }
    }

    fn iteration_clone(iteration: &Iteration) -> Iteration {
        Iteration {
            lower: iteration.lower.clone(),
            upper: iteration.upper.clone(),
            upper_known: iteration.upper_known,
            classes: Classes {
                members: iteration.classes.members.clone(),
                member_offsets: iteration.classes.member_offsets.clone(),
                choices: iteration.classes.choices.clone(),
                choice_offsets: iteration.classes.choice_offsets.clone(),
                constants: iteration.classes.constants.clone(),
            },
            optimum: iteration.optimum,
            spare: Spare::default(),
        }
    }

    /// State 0 earns nothing and chooses: `wait` loops back, `go` moves
    /// to state 2, which earns 5 and arrives. Waiting for ever earns 0 but
    /// never arrives: the end component {0} without reward is collapsed,
    /// only `go` leaves it, and Rmin = 5 (the least solution of
    /// `x0 = min(x0, x2)` would be 0). Rmax: waiting for ever misses the
    /// target under some scheduler: infinite.
    #[test]
    fn a_loop_without_reward_does_not_make_rmin_zero() {
        let mdp = Mdp::from_choices(
            0,
            vec![
                vec![vec![(0, 1.0)], vec![(2, 1.0)]],
                vec![vec![(1, 1.0)]],
                vec![vec![(1, 1.0)]],
            ],
        )
        .unwrap();
        let target = [false, true, false];
        let rewards = [0.0, 0.0, 5.0];
        let min = iterate(
            &mdp,
            prepare(
                &mdp,
                &per_choice(&mdp, &rewards),
                &target,
                Some(Optimum::Min),
            ),
            &options(false),
        )
        .outcome(true);
        assert!(min.converged);
        assert!((min.values[0] - 5.0).abs() <= 1e-9, "{}", min.values[0]);
        let max = iterate(
            &mdp,
            prepare(
                &mdp,
                &per_choice(&mdp, &rewards),
                &target,
                Some(Optimum::Max),
            ),
            &options(false),
        )
        .outcome(true);
        assert_eq!(max.values[0], f64::INFINITY);
        assert!((max.values[2] - 5.0).abs() <= 1e-9);
    }
}
