//! [`MarkovChain`]: a discrete- or continuous-time Markov chain as a
//! compressed sparse row matrix with `f64` entries, the layout SpMV
//! kernels and qualitative graph analyses read.

use rayon::prelude::*;
use thiserror::Error;

use super::csr::{Csr, MAX_STATES};
use super::mdp::PROBABILITY_TOLERANCE;
use super::offsets::{self, OffsetsError};

/// Why arrays do not form a [`MarkovChain`].
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ChainError {
    /// The offsets do not delimit the entries.
    #[error("offsets {0}")]
    Offsets(#[from] OffsetsError),
    /// There is not one value per target.
    #[error("{values} values for {targets} targets")]
    ValueCount {
        /// Length of `values`.
        values: usize,
        /// Length of `targets`.
        targets: usize,
    },
    /// An entry leads to a state that is not in the chain.
    #[error("state {state}: target {target} is not among the {states} states")]
    TargetOutOfRange {
        /// The row.
        state: u32,
        /// The target.
        target: u32,
        /// States in the chain.
        states: u32,
    },
    /// An entry is not a finite positive number.
    #[error("state {state}: target {target} has value {value}, not a finite positive number")]
    BadValue {
        /// The row.
        state: u32,
        /// The target.
        target: u32,
        /// The value.
        value: f64,
    },
    /// The initial state is not a state.
    #[error("initial state {initial} is not among the {states} states")]
    InitialOutOfRange {
        /// The initial state.
        initial: u32,
        /// States in the chain.
        states: u32,
    },
}

/// A Markov chain on the states `0..states()`: state `s` moves to
/// `targets[i]` with value `values[i]` for `i` in
/// `offsets[s]..offsets[s + 1]`. The values are probabilities in a DTMC
/// (each non-empty row sums to 1) and rates in a CTMC; which one a chain is
/// is said by the [`super::ExplicitModel`] that holds it. A state with an
/// empty row has no transition (a deadlock; what it means is the caller's).
///
/// The fields are public for upload and export; data from elsewhere than
/// the readers should pass [`MarkovChain::validate`] before the accessors,
/// which index without checking, are used.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkovChain {
    /// `states() + 1` entries, non-decreasing, from 0 to `targets.len()`.
    pub offsets: Vec<u64>,
    /// The target of every transition, row after row.
    pub targets: Vec<u32>,
    /// The probability or rate of every transition, parallel to `targets`.
    pub values: Vec<f64>,
    /// The initial state.
    pub initial: u32,
}

impl MarkovChain {
    /// Number of states.
    pub fn states(&self) -> u32 {
        offsets::rows(&self.offsets) as u32
    }

    /// Number of transitions (stored entries).
    pub fn transitions(&self) -> u64 {
        self.targets.len() as u64
    }

    /// The targets of `state` and their values, in parallel. Panics if
    /// `state` is not below [`MarkovChain::states`].
    pub fn row(&self, state: u32) -> (&[u32], &[f64]) {
        let entries = offsets::row_range(&self.offsets, state as usize);
        (&self.targets[entries.clone()], &self.values[entries])
    }

    /// The graph of possible moves: an edge `s -> t` wherever the chain
    /// moves from `s` to `t` with a positive value, once per pair, each
    /// state's successors in increasing order. What SCC and qualitative
    /// analyses start from.
    pub fn underlying_graph(&self) -> Csr {
        let mut offsets = Vec::with_capacity(self.offsets.len());
        offsets.push(0);
        let mut targets = Vec::with_capacity(self.targets.len());
        let mut successors = Vec::new();
        for state in 0..self.states() {
            successors.clear();
            successors.extend_from_slice(self.row(state).0);
            successors.sort_unstable();
            successors.dedup();
            targets.extend_from_slice(&successors);
            offsets.push(targets.len() as u64);
        }
        Csr { offsets, targets }
    }

    /// The first state whose non-empty row does not sum to 1 within
    /// [`PROBABILITY_TOLERANCE`], with its sum: `None` when the chain is a
    /// DTMC. Empty rows (deadlocks) are not counted.
    pub fn first_non_stochastic_row(&self) -> Option<(u32, f64)> {
        (0..self.states()).into_par_iter().find_map_first(|state| {
            let values = self.row(state).1;
            let sum = values.iter().fold(0.0, |sum, value| sum + value);
            let off = sum.is_nan() || (sum - 1.0).abs() > PROBABILITY_TOLERANCE;
            (!values.is_empty() && off).then_some((state, sum))
        })
    }

    /// Checks the arrays: offsets well formed, at most [`MAX_STATES`]
    /// states, one value per target, every target a state, every value
    /// finite and positive, and an initial state that is a state. Row sums
    /// are not checked here (a CTMC's are rates): see
    /// [`MarkovChain::first_non_stochastic_row`].
    pub fn validate(&self) -> Result<(), ChainError> {
        offsets::check(&self.offsets, self.targets.len(), MAX_STATES)?;
        if self.values.len() != self.targets.len() {
            return Err(ChainError::ValueCount {
                values: self.values.len(),
                targets: self.targets.len(),
            });
        }
        let states = self.states();
        // On the rayon pool; the first fault in state order is reported.
        let fault = (0..states).into_par_iter().find_map_first(|state| {
            let (targets, values) = self.row(state);
            targets.iter().zip(values).find_map(|(&target, &value)| {
                if target >= states {
                    Some(ChainError::TargetOutOfRange {
                        state,
                        target,
                        states,
                    })
                } else if !(value.is_finite() && value > 0.0) {
                    Some(ChainError::BadValue {
                        state,
                        target,
                        value,
                    })
                } else {
                    None
                }
            })
        });
        if let Some(fault) = fault {
            return Err(fault);
        }
        if self.initial >= states {
            return Err(ChainError::InitialOutOfRange {
                initial: self.initial,
                states,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explicit::testing::assert_faults;

    /// Three states: 0 flips a coin to 1 or 2, 1 goes back to 0 twice
    /// (parallel entries), 2 has no transition.
    fn example() -> MarkovChain {
        MarkovChain {
            offsets: vec![0, 2, 4, 4],
            targets: vec![2, 1, 0, 0],
            values: vec![0.5, 0.5, 0.25, 0.75],
            initial: 0,
        }
    }

    #[test]
    fn rows_and_underlying_graph() {
        let chain = example();
        assert_eq!((chain.states(), chain.transitions()), (3, 4));
        assert_eq!(chain.row(0), (&[2, 1][..], &[0.5, 0.5][..]));
        assert_eq!(chain.row(2), (&[][..], &[][..]));
        let graph = chain.underlying_graph();
        assert_eq!(graph.offsets, [0, 2, 3, 3]);
        assert_eq!(graph.targets, [1, 2, 0]);
        assert_eq!(chain.first_non_stochastic_row(), None);
        let mut rates = chain;
        rates.values[3] = 3.0;
        assert_eq!(rates.first_non_stochastic_row(), Some((1, 3.25)));
    }

    #[test]
    fn validate_names_each_fault() {
        assert_faults(
            &example(),
            MarkovChain::validate,
            &[
                (
                    |c| c.offsets[3] = 5,
                    "offsets end at 5, but there are 4 entries",
                ),
                (|c| c.values.truncate(3), "3 values for 4 targets"),
                (
                    |c| c.targets[1] = 3,
                    "state 0: target 3 is not among the 3 states",
                ),
                (
                    |c| c.values[2] = 0.0,
                    "state 1: target 0 has value 0, not a finite positive number",
                ),
                (
                    |c| c.values[0] = f64::INFINITY,
                    "state 0: target 2 has value inf, not a finite positive number",
                ),
                (
                    |c| c.initial = 7,
                    "initial state 7 is not among the 3 states",
                ),
            ],
        );
    }
}
