//! Long-run averages of Markov chains: `S=? [ φ ]` (the share of time
//! spent in `φ` states) and `R=? [ S ]` (the reward earned per time unit,
//! or per step in a DTMC). The chain ends up in one of its bottom strongly
//! connected components (BSCCs); inside one, the average is fixed, and a
//! state's value is the average of each BSCC weighted by the probability
//! of ending there.
//!
//! Inside a BSCC the average comes from the renewal argument, which gives
//! sound bounds: pick a state `r` of it; the expected number of visits
//! `ν(s)` to each state `s` between two visits to `r` is the least solution
//! of `ν(s) = Σ_t ν(t)·P(t, s)` with `ν(r) = 1` (a linear system of the
//! kind the interval iteration solves, with the transposed matrix), and
//! the average is `Σ ν(s)·w(s)·ρ(s) / Σ ν(s)·w(s)`, where `w(s)` is the
//! time a visit lasts (1 in a DTMC, the mean holding time in a CTMC) and
//! `ρ(s)` the rate averaged. Bounds of `ν` bound both sums, hence the
//! ratio. Every BSCC's system is solved in one iteration.

use super::reference::{ChoiceRule, Classes, Iteration};
use super::{
    CheckError, Engine, Outcome, Precision, SolveOptions, Spare, as_mdp, embedded, holding_times,
    solve,
};
use crate::explicit::{Csr, ExplicitModel, MarkovChain, Mdp};
use crate::scc;

/// Why an MDP has no long-run value here.
pub fn refusal_for_mdps() -> CheckError {
    CheckError::Mismatch(
        "the model is an MDP: long-run properties (S, R [ S ]) are computed for DTMCs and CTMCs"
            .into(),
    )
}

/// No BSCC holds the state (it is transient).
const TRANSIENT: u32 = u32::MAX;

/// The long-run average of `rates` (one value per state: 0/1 for the
/// share of time in a set, else a reward rate) in every state of `model`.
pub fn average(
    model: &ExplicitModel,
    rates: &[f64],
    options: &SolveOptions,
    engine: Engine<'_>,
) -> Result<Outcome, CheckError> {
    let (jumps, durations) = match model {
        ExplicitModel::Dtmc(chain) => (chain.clone(), vec![1.0; chain.states() as usize]),
        ExplicitModel::Ctmc(chain) => {
            // A state without moves is a BSCC of its own, whose average
            // needs no duration.
            let durations = holding_times(chain);
            (embedded(chain), durations)
        }
        ExplicitModel::Mdp(_) => return Err(refusal_for_mdps()),
    };
    let bsccs = Bsccs::of(&jumps.underlying_graph());
    let (low, high, iterations, converged) =
        bscc_averages(&jumps, &bsccs, &durations, rates, options, engine)?;
    // Each BSCC's states are settled at its average; the transient ones
    // average what they end up in, which lies between the extremes.
    let mut lower = vec![0.0; rates.len()];
    let mut upper = vec![0.0; rates.len()];
    let transient: Vec<bool> = bsccs.of_state.iter().map(|&b| b == TRANSIENT).collect();
    let floor = low.iter().copied().fold(f64::INFINITY, f64::min);
    let ceiling = high.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    for (state, &bscc) in bsccs.of_state.iter().enumerate() {
        (lower[state], upper[state]) = match bscc {
            TRANSIENT => (floor, ceiling),
            _ => (low[bscc as usize], high[bscc as usize]),
        };
    }
    let mdp = as_mdp(&jumps);
    let iteration = Iteration {
        lower,
        upper,
        upper_known: true,
        classes: Classes::identity(&mdp, &transient, &ChoiceRule::ALL),
        optimum: None,
        spare: Spare::default(),
    };
    let absorbed = solve(engine, &mdp, iteration, options)?;
    let mut outcome = absorbed.outcome(options.sound);
    outcome.iterations += iterations;
    outcome.converged &= converged;
    Ok(outcome)
}

/// The bottom strongly connected components of a graph.
struct Bsccs {
    /// The BSCC of every state, or [`TRANSIENT`].
    of_state: Vec<u32>,
    /// How many.
    count: u32,
}

impl Bsccs {
    fn of(graph: &Csr) -> Bsccs {
        let components = scc::reference::decompose(graph);
        let mut bottom = vec![true; components.count as usize];
        for (state, &component) in components.of_state.iter().enumerate() {
            if graph
                .successors(state as u32)
                .iter()
                .any(|&t| components.of_state[t as usize] != component)
            {
                bottom[component as usize] = false;
            }
        }
        let mut number = vec![TRANSIENT; bottom.len()];
        let mut count = 0;
        for (component, _) in bottom.iter().enumerate().filter(|(_, b)| **b) {
            number[component] = count;
            count += 1;
        }
        Bsccs {
            of_state: components
                .of_state
                .iter()
                .map(|&c| number[c as usize])
                .collect(),
            count,
        }
    }
}

/// Bounds of the average of `rates` in every BSCC, with the sweeps taken
/// and whether they reached a precision that leaves half of `options`'
/// to the transient states.
fn bscc_averages(
    jumps: &MarkovChain,
    bsccs: &Bsccs,
    durations: &[f64],
    rates: &[f64],
    options: &SolveOptions,
    engine: Engine<'_>,
) -> Result<(Vec<f64>, Vec<f64>, u64, bool), CheckError> {
    let states = jumps.states() as usize;
    let count = bsccs.count as usize;
    let transposed = transposed_within(jumps, bsccs);
    // The renewal state of each BSCC should be visited often, or the
    // excursions between its visits are long and the iteration slow: a
    // first guess (the initial state in its BSCC, elsewhere the state with
    // most probability flowing in), then, until the choice settles, the
    // state that a few sweeps from the last choice visit most (each pilot
    // twice as long as the one before, as visits spread a sweep at a time).
    let mut inflow = vec![0.0; states];
    for state in 0..jumps.states() {
        let (targets, probabilities) = jumps.row(state);
        for (&t, &p) in targets.iter().zip(probabilities) {
            inflow[t as usize] += p;
        }
    }
    inflow[jumps.initial as usize] = f64::INFINITY;
    let mut renewal = most_in_each(bsccs, &inflow);
    let mut pilots = 0;
    for round in 0..PILOT_ROUNDS {
        let pilot = solve(
            engine,
            &transposed,
            visits_iteration(&transposed, bsccs, &renewal),
            &SolveOptions {
                sound: false,
                max_iterations: FIRST_PILOT_SWEEPS << round,
                ..options.clone()
            },
        )?;
        pilots += pilot.iterations;
        let better = most_in_each(bsccs, &pilot.lower);
        if better == renewal {
            break;
        }
        renewal = better;
    }
    let mut highest_rate = vec![0.0f64; count];
    for (state, &bscc) in bsccs.of_state.iter().enumerate() {
        if bscc != TRANSIENT {
            highest_rate[bscc as usize] = highest_rate[bscc as usize].max(rates[state]);
        }
    }
    // A relative error δ of every ν moves the ratio by about 2δ of the
    // value (both sums err by δ): δ is an eighth of the target, so that
    // the BSCC's half width stays under half of it.
    let largest = highest_rate.iter().copied().fold(0.0, f64::max);
    let delta = if options.precision.relative || largest == 0.0 {
        options.precision.epsilon / 8.0
    } else {
        options.precision.epsilon / (8.0 * largest)
    };
    let bounds = solve(
        engine,
        &transposed,
        visits_iteration(&transposed, bsccs, &renewal),
        &SolveOptions {
            precision: Precision {
                epsilon: delta,
                relative: true,
            },
            ..options.clone()
        },
    )?;
    let upper = if options.sound {
        &bounds.upper
    } else {
        &bounds.lower
    };
    // Σ ν·w·ρ and Σ ν·w per BSCC, from the lower and from the upper ν.
    let mut sums = vec![[0.0f64; 4]; count];
    for (state, &bscc) in bsccs.of_state.iter().enumerate() {
        if bscc == TRANSIENT {
            continue;
        }
        let (weight, rate) = (durations[state], rates[state]);
        let sum = &mut sums[bscc as usize];
        if rate > 0.0 {
            sum[0] += bounds.lower[state] * weight * rate;
            sum[1] += upper[state] * weight * rate;
        }
        sum[2] += bounds.lower[state] * weight;
        sum[3] += upper[state] * weight;
    }
    let low: Vec<f64> = sums.iter().map(|s| ratio(s[0], s[3])).collect();
    let high: Vec<f64> = sums.iter().map(|s| ratio(s[1], s[2])).collect();
    let precise = !options.sound
        || low
            .iter()
            .zip(&high)
            .all(|(&l, &h)| options.precision.reached(l, h));
    Ok((
        low,
        high,
        pilots + bounds.iterations,
        bounds.converged && precise,
    ))
}

/// Sweeps of the first pilot iteration that chooses the renewal states.
const FIRST_PILOT_SWEEPS: u64 = 64;
/// Pilot iterations at most.
const PILOT_ROUNDS: u32 = 5;

/// The state of each BSCC with the largest `score`.
fn most_in_each(bsccs: &Bsccs, score: &[f64]) -> Vec<u32> {
    let mut best = vec![u32::MAX; bsccs.count as usize];
    for (state, &bscc) in bsccs.of_state.iter().enumerate() {
        if bscc != TRANSIENT {
            let slot = &mut best[bscc as usize];
            if *slot == u32::MAX || score[state] > score[*slot as usize] {
                *slot = state as u32;
            }
        }
    }
    best
}

/// The visits between two visits to the `renewal` state of each BSCC, as
/// an iteration over `transposed` ([`transposed_within`]): ν = 1 at the
/// renewal states, from 0 elsewhere in BSCCs, with no upper bound known;
/// the transient states stay at 0.
fn visits_iteration(transposed: &Mdp, bsccs: &Bsccs, renewal: &[u32]) -> Iteration {
    let states = bsccs.of_state.len();
    let in_bscc = |s: usize| bsccs.of_state[s] != TRANSIENT;
    let is_renewal = |s: usize| in_bscc(s) && renewal[bsccs.of_state[s] as usize] == s as u32;
    let unknown: Vec<bool> = (0..states).map(|s| in_bscc(s) && !is_renewal(s)).collect();
    let visits: Vec<f64> = (0..states)
        .map(|s| f64::from(u8::from(is_renewal(s))))
        .collect();
    Iteration {
        lower: visits.clone(),
        upper: visits,
        upper_known: false,
        classes: Classes::identity(transposed, &unknown, &ChoiceRule::ALL),
        optimum: None,
        spare: Spare::default(),
    }
}

/// `numerator / denominator`, infinite when the denominator is (no bound
/// was proven) unless the numerator is 0.
fn ratio(numerator: f64, denominator: f64) -> f64 {
    if numerator == 0.0 {
        0.0
    } else {
        numerator / denominator
    }
}

/// The moves inside BSCCs, reversed, as an MDP with one choice per state:
/// state `s`'s branches are `(t, P(t, s))` for the moves `t -> s` inside
/// its BSCC. (The "probabilities" are matrix entries, not a
/// distribution: the MDP is only ever iterated, never validated.)
fn transposed_within(jumps: &MarkovChain, bsccs: &Bsccs) -> Mdp {
    let states = jumps.states() as usize;
    let mut counts = vec![0u64; states + 1];
    let inside = |s: u32, t: u32| {
        let b = bsccs.of_state[s as usize];
        b != TRANSIENT && b == bsccs.of_state[t as usize]
    };
    for state in 0..jumps.states() {
        for &t in jumps.row(state).0 {
            if inside(state, t) {
                counts[t as usize + 1] += 1;
            }
        }
    }
    for i in 0..states {
        counts[i + 1] += counts[i];
    }
    let mut cursor = counts.clone();
    let mut targets = vec![0u32; counts[states] as usize];
    let mut probabilities = vec![0.0; counts[states] as usize];
    for state in 0..jumps.states() {
        let (to, values) = jumps.row(state);
        for (&t, &p) in to.iter().zip(values) {
            if inside(state, t) {
                let at = cursor[t as usize] as usize;
                targets[at] = state;
                probabilities[at] = p;
                cursor[t as usize] += 1;
            }
        }
    }
    Mdp {
        choice_offsets: (0..=states as u64).collect(),
        branch_offsets: counts,
        targets,
        probabilities,
        choice_labels: None,
        initial: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::StopSignal;

    fn options(epsilon: f64, relative: bool) -> SolveOptions {
        SolveOptions {
            precision: Precision { epsilon, relative },
            sound: true,
            max_iterations: 1_000_000,
            stop: StopSignal::new(),
        }
    }

    fn chain(rows: &[&[(u32, f64)]]) -> MarkovChain {
        let mut chain = MarkovChain {
            offsets: vec![0],
            targets: Vec::new(),
            values: Vec::new(),
            initial: 0,
        };
        for row in rows {
            for &(target, value) in *row {
                chain.targets.push(target);
                chain.values.push(value);
            }
            chain.offsets.push(chain.targets.len() as u64);
        }
        chain.validate().unwrap();
        chain
    }

    /// A birth-death CTMC on 0..=K (up at rate λ, down at rate μ): the
    /// long-run share of state i is ρ^i / Σ ρ^j with ρ = λ/μ, and the
    /// mean population Σ i·π(i).
    #[test]
    fn a_birth_death_chain_matches_its_closed_form() {
        let (k, lambda, mu) = (12u32, 3.0, 2.0);
        let rows: Vec<Vec<(u32, f64)>> = (0..=k)
            .map(|i| {
                let mut row = Vec::new();
                if i > 0 {
                    row.push((i - 1, mu));
                }
                if i < k {
                    row.push((i + 1, lambda));
                }
                row
            })
            .collect();
        let rows: Vec<&[(u32, f64)]> = rows.iter().map(|r| &r[..]).collect();
        let model = ExplicitModel::Ctmc(chain(&rows));
        let rho: f64 = lambda / mu;
        let total: f64 = (0..=k).map(|i| rho.powi(i as i32)).sum();
        let full: Vec<f64> = (0..=k).map(|i| f64::from(u8::from(i == k))).collect();
        let population: Vec<f64> = (0..=k).map(f64::from).collect();
        let expected_full = rho.powi(k as i32) / total;
        let expected_population: f64 = (0..=k)
            .map(|i| f64::from(i) * rho.powi(i as i32))
            .sum::<f64>()
            / total;
        for (rates, expected) in [(full, expected_full), (population, expected_population)] {
            for engine in [Engine::Reference, Engine::Cpu(2)] {
                let found = average(&model, &rates, &options(1e-10, true), engine).unwrap();
                let bound = found.error_bounds.as_ref().unwrap()[0];
                assert!(found.converged && bound <= 1e-10 * expected);
                assert!(
                    (found.values[0] - expected).abs() <= bound + 1e-14 * expected,
                    "{} ± {bound} vs {expected}",
                    found.values[0]
                );
            }
        }
    }

    /// A DTMC that leaves state 0 for one of two BSCCs: {1, 2} (1 → 2,
    /// 2 → 1 or 2 with 1/2 each: a third of the steps in 1) with
    /// probability 0.3, the absorbing {3} with 0.7. The long-run share of
    /// state 2 is 2/3 in the first BSCC, 0 in the second, 0.3 · 2/3 from 0.
    #[test]
    fn transient_states_average_the_bsccs_they_end_in() {
        let jumps = chain(&[
            &[(1, 0.3), (3, 0.7)],
            &[(2, 1.0)],
            &[(1, 0.5), (2, 0.5)],
            &[(3, 1.0)],
        ]);
        let model = ExplicitModel::Dtmc(jumps);
        let in_two = [0.0, 0.0, 1.0, 0.0];
        let found = average(&model, &in_two, &options(1e-12, false), Engine::Reference).unwrap();
        let bounds = found.error_bounds.unwrap();
        for (state, expected) in [(0, 0.2), (1, 2.0 / 3.0), (2, 2.0 / 3.0), (3, 0.0)] {
            assert!(
                (found.values[state] - expected).abs() <= bounds[state] + 1e-15,
                "state {state}: {} vs {expected}",
                found.values[state]
            );
            assert!(bounds[state] <= 1e-12);
        }
        let mdp = crate::explicit::Mdp::from_choices(0, vec![vec![vec![(0, 1.0)]]]).unwrap();
        let refused = average(
            &ExplicitModel::Mdp(mdp),
            &[1.0],
            &options(1e-6, false),
            Engine::Reference,
        );
        assert!(matches!(refused, Err(CheckError::Mismatch(_))));
    }
}
