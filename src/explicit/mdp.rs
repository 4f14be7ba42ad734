//! [`Mdp`]: a Markov decision process as flat arrays, state → choice →
//! (target, probability), the layout numeric kernels (value iteration,
//! SpMV) and MEC decomposition read.

use std::ops::Range;

use rayon::prelude::*;
use thiserror::Error;

use super::csr::{Csr, MAX_STATES};
use super::offsets::{self, OffsetsError};

/// How far the probabilities of one choice may sum from 1 (relative to 1,
/// so also absolute): rounding in the files and tools that produce them
/// leaves sums like 0.9999999999999999, which must pass, while a lost
/// branch must not.
pub const PROBABILITY_TOLERANCE: f64 = 1e-9;

/// Why arrays do not form an [`Mdp`].
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MdpError {
    /// The choice offsets do not delimit the choices.
    #[error("choice offsets {0}")]
    ChoiceOffsets(OffsetsError),
    /// The branch offsets do not delimit the branches.
    #[error("branch offsets {0}")]
    BranchOffsets(OffsetsError),
    /// Two parallel arrays differ in length.
    #[error("{found} {what} for {expected} {per}")]
    LengthMismatch {
        /// What there are too many or too few of.
        what: &'static str,
        /// How many there are.
        found: usize,
        /// What they should match one to one.
        per: &'static str,
        /// How many of those there are.
        expected: usize,
    },
    /// A branch leads to a state that is not in the MDP.
    #[error("state {state}, choice {choice}: target {target} is not among the {states} states")]
    TargetOutOfRange {
        /// The state the choice belongs to.
        state: u32,
        /// The choice (a global choice number).
        choice: u64,
        /// The target.
        target: u32,
        /// States in the MDP.
        states: u32,
    },
    /// A branch has a probability that is not positive (or is NaN).
    #[error(
        "state {state}, choice {choice}: target {target} has probability {probability}, not a positive number"
    )]
    NonPositiveProbability {
        /// The state the choice belongs to.
        state: u32,
        /// The choice (a global choice number).
        choice: u64,
        /// The target of the branch.
        target: u32,
        /// Its probability.
        probability: f64,
    },
    /// The probabilities of a choice do not sum to 1.
    #[error("state {state}, choice {choice}: probabilities sum to {sum}, not 1")]
    ProbabilitySum {
        /// The state the choice belongs to.
        state: u32,
        /// The choice (a global choice number).
        choice: u64,
        /// The sum.
        sum: f64,
    },
    /// The initial state is not a state.
    #[error("initial state {initial} is not among the {states} states")]
    InitialOutOfRange {
        /// The initial state.
        initial: u32,
        /// States in the MDP.
        states: u32,
    },
}

/// A Markov decision process: state `s` has the choices
/// `choice_offsets[s]..choice_offsets[s + 1]` (numbered globally), and
/// choice `c` the branches `branch_offsets[c]..branch_offsets[c + 1]`,
/// branch `b` leading to `targets[b]` with probability `probabilities[b]`.
/// A state with no choice is a deadlock; what it means is the caller's.
///
/// The fields are public for upload and export; data from elsewhere than
/// [`Mdp::from_choices`] should pass [`Mdp::validate`] before the
/// accessors, which index without checking, are used.
#[derive(Debug, Clone, PartialEq)]
pub struct Mdp {
    /// `states() + 1` entries, from 0 to `choices()`.
    pub choice_offsets: Vec<u64>,
    /// `choices() + 1` entries, from 0 to `targets.len()`.
    pub branch_offsets: Vec<u64>,
    /// Target state of every branch.
    pub targets: Vec<u32>,
    /// Probability of every branch, parallel to `targets`.
    pub probabilities: Vec<f64>,
    /// An action id per choice, where the model names its choices.
    pub choice_labels: Option<Vec<u32>>,
    /// The initial state.
    pub initial: u32,
}

impl Mdp {
    /// Builds an MDP from nested lists, for tests and small examples:
    /// `choices[s][c]` lists the `(target, probability)` branches of the
    /// `c`-th choice of state `s`; there are `choices.len()` states and no
    /// choice labels. Fails as [`Mdp::validate`] does.
    pub fn from_choices(initial: u32, choices: Vec<Vec<Vec<(u32, f64)>>>) -> Result<Mdp, MdpError> {
        let mut mdp = Mdp {
            choice_offsets: vec![0],
            branch_offsets: vec![0],
            targets: Vec::new(),
            probabilities: Vec::new(),
            choice_labels: None,
            initial,
        };
        for state_choices in choices {
            for branches in state_choices {
                for (target, probability) in branches {
                    mdp.targets.push(target);
                    mdp.probabilities.push(probability);
                }
                mdp.branch_offsets.push(mdp.targets.len() as u64);
            }
            mdp.choice_offsets
                .push(offsets::rows(&mdp.branch_offsets) as u64);
        }
        mdp.validate()?;
        Ok(mdp)
    }

    /// Number of states.
    pub fn states(&self) -> u32 {
        offsets::rows(&self.choice_offsets) as u32
    }

    /// Number of choices, over all states.
    pub fn choices(&self) -> u64 {
        offsets::rows(&self.branch_offsets) as u64
    }

    /// The (global) numbers of the choices of `state`. Panics if `state`
    /// is not below [`Mdp::states`].
    pub fn choices_of(&self, state: u32) -> Range<u64> {
        let state = state as usize;
        self.choice_offsets[state]..self.choice_offsets[state + 1]
    }

    /// The targets of `choice` and their probabilities, in parallel.
    /// Panics if `choice` is not below [`Mdp::choices`].
    pub fn branches_of(&self, choice: u64) -> (&[u32], &[f64]) {
        let branches = offsets::row_range(&self.branch_offsets, choice as usize);
        (
            &self.targets[branches.clone()],
            &self.probabilities[branches],
        )
    }

    /// The graph of possible moves: an edge `s -> t` wherever some choice
    /// of `s` reaches `t` with positive probability, once per pair, each
    /// state's successors in increasing order. What MEC and qualitative
    /// analyses start from.
    pub fn underlying_graph(&self) -> Csr {
        let mut offsets = Vec::with_capacity(self.choice_offsets.len());
        offsets.push(0);
        let mut targets = Vec::new();
        let mut successors = Vec::new();
        for state in 0..self.states() {
            successors.clear();
            for choice in self.choices_of(state) {
                successors.extend_from_slice(self.branches_of(choice).0);
            }
            successors.sort_unstable();
            successors.dedup();
            targets.extend_from_slice(&successors);
            offsets.push(targets.len() as u64);
        }
        Csr { offsets, targets }
    }

    /// Checks the arrays: both offset arrays well formed (see
    /// [`OffsetsError`]), at most [`MAX_STATES`] states, one probability
    /// per target and one label per choice, every target a state, every
    /// probability positive, each choice's probabilities summing to 1
    /// within [`PROBABILITY_TOLERANCE`], and an initial state that is a
    /// state.
    pub fn validate(&self) -> Result<(), MdpError> {
        offsets::check(&self.branch_offsets, self.targets.len(), u64::MAX)
            .map_err(MdpError::BranchOffsets)?;
        let choices = offsets::rows(&self.branch_offsets);
        offsets::check(&self.choice_offsets, choices, MAX_STATES)
            .map_err(MdpError::ChoiceOffsets)?;
        if self.probabilities.len() != self.targets.len() {
            return Err(MdpError::LengthMismatch {
                what: "probabilities",
                found: self.probabilities.len(),
                per: "targets",
                expected: self.targets.len(),
            });
        }
        if let Some(labels) = &self.choice_labels
            && labels.len() != choices
        {
            return Err(MdpError::LengthMismatch {
                what: "choice labels",
                found: labels.len(),
                per: "choices",
                expected: choices,
            });
        }
        let states = self.states();
        // Checked on the current rayon pool; where a choice fails, again
        // in order, so that the first fault is the one reported.
        let valid = (0..states).into_par_iter().all(|state| {
            self.choices_of(state)
                .all(|choice| self.check_choice(state, choice).is_ok())
        });
        if !valid {
            for state in 0..states {
                for choice in self.choices_of(state) {
                    self.check_choice(state, choice)?;
                }
            }
        }
        if self.initial >= states {
            return Err(MdpError::InitialOutOfRange {
                initial: self.initial,
                states,
            });
        }
        Ok(())
    }

    /// Checks the branches of `choice`, a choice of `state`: targets in
    /// range, probabilities positive and summing to 1.
    fn check_choice(&self, state: u32, choice: u64) -> Result<(), MdpError> {
        let (targets, probabilities) = self.branches_of(choice);
        let states = self.states();
        for (&target, &probability) in targets.iter().zip(probabilities) {
            if target >= states {
                return Err(MdpError::TargetOutOfRange {
                    state,
                    choice,
                    target,
                    states,
                });
            }
            if probability.is_nan() || probability <= 0.0 {
                return Err(MdpError::NonPositiveProbability {
                    state,
                    choice,
                    target,
                    probability,
                });
            }
        }
        // Folded from +0.0: `Sum` starts at -0.0, which reads oddly in the
        // message for a choice without branches.
        let sum = probabilities
            .iter()
            .fold(0.0, |sum, probability| sum + probability);
        if sum.is_nan() || (sum - 1.0).abs() > PROBABILITY_TOLERANCE {
            return Err(MdpError::ProbabilitySum { state, choice, sum });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explicit::testing::assert_faults;

    /// Three states: state 0 chooses between a coin flip to 1 or 2 and a
    /// sure move to 1; state 1 loops; state 2 has no choice.
    fn example() -> Mdp {
        Mdp::from_choices(
            0,
            vec![
                vec![vec![(1, 0.5), (2, 0.5)], vec![(1, 1.0)]],
                vec![vec![(1, 1.0)]],
                vec![],
            ],
        )
        .unwrap()
    }

    #[test]
    fn from_choices_lays_out_flat_arrays() {
        let mdp = example();
        assert_eq!(mdp.choice_offsets, [0, 2, 3, 3]);
        assert_eq!(mdp.branch_offsets, [0, 2, 3, 4]);
        assert_eq!(mdp.targets, [1, 2, 1, 1]);
        assert_eq!(mdp.probabilities, [0.5, 0.5, 1.0, 1.0]);
        assert_eq!(mdp.choice_labels, None);
        assert_eq!((mdp.states(), mdp.choices()), (3, 3));
        assert_eq!(mdp.choices_of(0), 0..2);
        assert_eq!(mdp.choices_of(2), 3..3);
        assert_eq!(mdp.branches_of(0), (&[1, 2][..], &[0.5, 0.5][..]));
        assert_eq!(mdp.branches_of(2), (&[1][..], &[1.0][..]));
    }

    #[test]
    fn underlying_graph_has_each_possible_move_once() {
        let graph = example().underlying_graph();
        assert_eq!(graph.offsets, [0, 2, 3, 3]);
        assert_eq!(graph.targets, [1, 2, 1]);
    }

    #[test]
    fn sums_within_the_tolerance_pass() {
        let thirds = vec![vec![vec![(0, 0.1), (0, 0.2), (0, 0.7)]]];
        assert!(Mdp::from_choices(0, thirds).is_ok());
        let off = vec![vec![vec![(0, 1.0 + PROBABILITY_TOLERANCE / 2.0)]]];
        assert!(Mdp::from_choices(0, off).is_ok());
    }

    #[test]
    fn validate_names_each_fault() {
        assert_faults(
            &example(),
            Mdp::validate,
            &[
                (
                    |m| m.branch_offsets.clear(),
                    "branch offsets are empty; they need one entry more than there are rows",
                ),
                (
                    |m| m.branch_offsets[1] = 4,
                    "branch offsets decrease at row 1: 4 then 3",
                ),
                (
                    |m| m.choice_offsets[0] = 1,
                    "choice offsets start at 1, not 0",
                ),
                (
                    |m| m.choice_offsets[3] = 2,
                    "choice offsets decrease at row 2: 3 then 2",
                ),
                (
                    |m| m.probabilities.truncate(3),
                    "3 probabilities for 4 targets",
                ),
                (
                    |m| m.choice_labels = Some(vec![0]),
                    "1 choice labels for 3 choices",
                ),
                (
                    |m| m.targets[1] = 3,
                    "state 0, choice 0: target 3 is not among the 3 states",
                ),
                (
                    |m| m.probabilities[2] = -1.0,
                    "state 0, choice 1: target 1 has probability -1, not a positive number",
                ),
                (
                    |m| m.probabilities[3] = f64::NAN,
                    "state 1, choice 2: target 1 has probability NaN, not a positive number",
                ),
                (
                    |m| m.probabilities[1] = 0.25,
                    "state 0, choice 0: probabilities sum to 0.75, not 1",
                ),
                (
                    |m| m.initial = 3,
                    "initial state 3 is not among the 3 states",
                ),
            ],
        );
    }

    #[test]
    fn a_choice_without_branches_sums_to_zero() {
        let empty = Mdp::from_choices(0, vec![vec![vec![]]]).unwrap_err();
        assert_eq!(
            empty.to_string(),
            "state 0, choice 0: probabilities sum to 0, not 1"
        );
    }

    #[test]
    fn labels_one_per_choice_pass() {
        let mut mdp = example();
        mdp.choice_labels = Some(vec![4, 5, 4]);
        assert_eq!(mdp.validate(), Ok(()));
    }
}
