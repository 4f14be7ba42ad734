//! [`ProbModel`]: a probabilistic model as the readers of PRISM explicit
//! files and UMB archives give it: a DTMC, CTMC or MDP
//! ([`ExplicitModel`]), its state labels and its state rewards.

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

/// One reward structure on states: `values[s]` is the reward of state `s`
/// (a rate in a CTMC).
#[derive(Debug, Clone, PartialEq)]
pub struct StateRewards {
    /// Its name, where the file gives one (UMB does, a PRISM `.srew` does
    /// not).
    pub name: Option<String>,
    /// One value per state.
    pub values: Vec<f64>,
}

/// A probabilistic model with what properties need besides the
/// transitions.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbModel {
    /// The transitions, with the initial state.
    pub model: ExplicitModel,
    /// The state labels (atomic propositions).
    pub labels: StateLabels,
    /// The state reward structures (none, one or several).
    pub rewards: Vec<StateRewards>,
}
