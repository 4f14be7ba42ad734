//! [`ProbModel`]: a probabilistic model as the readers of PRISM explicit
//! files and UMB archives give it: a DTMC, CTMC or MDP
//! ([`ExplicitModel`]), its state labels and its reward structures.

use super::chain::MarkovChain;
use super::csr::Csr;
use super::labels::StateLabels;
use super::mdp::Mdp;

/// The kinds of probabilistic model: what `--type` names, and what a
/// reader is told when a file does not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelType {
    /// Discrete-time Markov chain: rows of probabilities.
    Dtmc,
    /// Continuous-time Markov chain: rows of rates.
    Ctmc,
    /// Markov decision process: choices of probability distributions.
    Mdp,
}

impl ModelType {
    /// The usual lower-case name: `dtmc`, `ctmc` or `mdp`.
    pub fn name(self) -> &'static str {
        match self {
            ModelType::Dtmc => "dtmc",
            ModelType::Ctmc => "ctmc",
            ModelType::Mdp => "mdp",
        }
    }
}

/// A model of one of the three [`ModelType`]s.
#[derive(Debug, Clone, PartialEq)]
pub enum ExplicitModel {
    /// A DTMC: every non-empty row sums to 1.
    Dtmc(MarkovChain),
    /// A CTMC: the values are rates.
    Ctmc(MarkovChain),
    /// An MDP.
    Mdp(Mdp),
}

impl ExplicitModel {
    /// Which kind of model this is.
    pub fn model_type(&self) -> ModelType {
        match self {
            ExplicitModel::Dtmc(_) => ModelType::Dtmc,
            ExplicitModel::Ctmc(_) => ModelType::Ctmc,
            ExplicitModel::Mdp(_) => ModelType::Mdp,
        }
    }

    /// Number of states.
    pub fn states(&self) -> u32 {
        match self {
            ExplicitModel::Dtmc(chain) | ExplicitModel::Ctmc(chain) => chain.states(),
            ExplicitModel::Mdp(mdp) => mdp.states(),
        }
    }

    /// Number of choices: one per state with a transition in a chain.
    pub fn choices(&self) -> u64 {
        match self {
            ExplicitModel::Dtmc(chain) | ExplicitModel::Ctmc(chain) => (0..chain.states())
                .filter(|&s| !chain.row(s).0.is_empty())
                .count()
                as u64,
            ExplicitModel::Mdp(mdp) => mdp.choices(),
        }
    }

    /// Number of transitions: entries of a chain, branches of an MDP.
    pub fn transitions(&self) -> u64 {
        match self {
            ExplicitModel::Dtmc(chain) | ExplicitModel::Ctmc(chain) => chain.transitions(),
            ExplicitModel::Mdp(mdp) => mdp.targets.len() as u64,
        }
    }

    /// The initial state.
    pub fn initial(&self) -> u32 {
        match self {
            ExplicitModel::Dtmc(chain) | ExplicitModel::Ctmc(chain) => chain.initial,
            ExplicitModel::Mdp(mdp) => mdp.initial,
        }
    }

    /// The graph of possible moves (see [`MarkovChain::underlying_graph`]
    /// and [`Mdp::underlying_graph`]).
    pub fn underlying_graph(&self) -> Csr {
        match self {
            ExplicitModel::Dtmc(chain) | ExplicitModel::Ctmc(chain) => chain.underlying_graph(),
            ExplicitModel::Mdp(mdp) => mdp.underlying_graph(),
        }
    }
}

/// One reward structure: rewards of states and rewards of moves.
///
/// A state's reward is earned per step spent in it (a DTMC or MDP) or per
/// time unit (a CTMC: a rate). A move's reward is earned once each time the
/// move is made: transition rewards (PRISM's `.trew`, UMB's branch
/// rewards) and choice rewards (UMB's, PRISM's action rewards) are both
/// kept as the reward a move earns on average, `Σ p·r` over its branches,
/// which is all that expected and long-run rewards depend on.
#[derive(Debug, Clone, PartialEq)]
pub struct RewardStructure {
    /// Its name, where the file gives one (UMB does; a PRISM `.srew` or
    /// `.trew` may in a `# Reward structure "NAME"` comment).
    pub name: Option<String>,
    /// The reward of every state.
    pub states: Vec<f64>,
    /// The mean reward of each move, where the structure has any: one per
    /// choice of an MDP, one per state of a Markov chain (its jump).
    pub moves: Option<Vec<f64>>,
}

impl RewardStructure {
    /// A structure of state rewards only.
    pub fn of_states(name: Option<String>, states: Vec<f64>) -> RewardStructure {
        RewardStructure {
            name,
            states,
            moves: None,
        }
    }

    /// A structure of move rewards only (`moves` as [`Self::moves`]
    /// indexes them) in a model of `states` states.
    pub fn of_moves(name: Option<String>, states: u32, moves: Vec<f64>) -> RewardStructure {
        RewardStructure {
            name,
            states: vec![0.0; states as usize],
            moves: Some(moves),
        }
    }

    /// Adds `other`'s rewards, state by state and move by move, to these
    /// (both belong to the same model); the name is this one's, else the
    /// other's.
    pub fn add(&mut self, other: RewardStructure) {
        for (mine, theirs) in self.states.iter_mut().zip(other.states) {
            *mine += theirs;
        }
        self.moves = match (self.moves.take(), other.moves) {
            (Some(mut mine), Some(theirs)) => {
                for (mine, theirs) in mine.iter_mut().zip(theirs) {
                    *mine += theirs;
                }
                Some(mine)
            }
            (mine, theirs) => mine.or(theirs),
        };
        self.name = self.name.take().or(other.name);
    }
}

impl ExplicitModel {
    /// The mean reward of each move (as [`RewardStructure::moves`] indexes
    /// them) when `branch_rewards` (one per transition, in the order of the
    /// targets) is earned on the branch taken: `Σ p·r` over a choice's
    /// branches, the probabilities of a CTMC's jump being its rates over
    /// their sum.
    pub fn mean_move_rewards(&self, branch_rewards: &[f64]) -> Vec<f64> {
        let weighted = |values: &[f64], rewards: &[f64]| -> f64 {
            values.iter().zip(rewards).map(|(p, r)| p * r).sum()
        };
        match self {
            ExplicitModel::Dtmc(chain) | ExplicitModel::Ctmc(chain) => (0..chain.states())
                .map(|state| {
                    let row = chain.offsets[state as usize] as usize
                        ..chain.offsets[state as usize + 1] as usize;
                    let values = &chain.values[row.clone()];
                    let mean = weighted(values, &branch_rewards[row]);
                    match self {
                        ExplicitModel::Ctmc(_) if mean != 0.0 => mean / values.iter().sum::<f64>(),
                        _ => mean,
                    }
                })
                .collect(),
            ExplicitModel::Mdp(mdp) => (0..mdp.choices())
                .map(|choice| {
                    let branches = mdp.branch_offsets[choice as usize] as usize
                        ..mdp.branch_offsets[choice as usize + 1] as usize;
                    weighted(
                        &mdp.probabilities[branches.clone()],
                        &branch_rewards[branches],
                    )
                })
                .collect(),
        }
    }
}

/// A probabilistic model with what properties need besides the
/// transitions.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbModel {
    /// The transitions, with the initial state.
    pub model: ExplicitModel,
    /// The state labels (atomic propositions).
    pub labels: StateLabels,
    /// The reward structures (none, one or several).
    pub rewards: Vec<RewardStructure>,
}
