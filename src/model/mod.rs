//! Format-independent description of what warpcheck checks: a network of
//! labelled transition systems (LTSs) that synchronise through rules, plus
//! property monitors.
//!
//! Frontends build these types; `encode` turns them into the packed arrays
//! that every engine explores. Nothing here knows about files or engines.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;

use regex::Regex;
use thiserror::Error;

/// A finite labelled transition system with named states.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lts {
    /// Name of every local state; the index is the state's number.
    pub state_names: Vec<String>,
    /// Number of the initial state.
    pub initial: u32,
    /// Every distinct label; transitions refer to these by index.
    pub labels: Vec<String>,
    /// The transitions, in any order.
    pub transitions: Vec<LtsTransition>,
}

/// One transition `source -labels[label]-> target` of an [`Lts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LtsTransition {
    /// Source state number.
    pub source: u32,
    /// Index into [`Lts::labels`].
    pub label: u32,
    /// Target state number.
    pub target: u32,
}

impl Lts {
    /// Index of `label`, adding it when it is new.
    pub fn intern_label(&mut self, label: &str) -> u32 {
        if let Some(i) = self.labels.iter().position(|l| l == label) {
            return i as u32;
        }
        self.labels.push(label.to_string());
        (self.labels.len() - 1) as u32
    }

    /// The set of labels that occur on at least one transition.
    pub fn used_labels(&self) -> BTreeSet<&str> {
        self.transitions
            .iter()
            .map(|t| self.labels[t.label as usize].as_str())
            .collect()
    }
}

/// Why reaching a local state is a finding rather than an ordinary state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// The error state of the named property monitor: a violation.
    Property(String),
    /// The model left the class it was read as (for example a Petri net that
    /// is not 1-safe); the message says how. Reported as bad input.
    Model(String),
}

/// A local state of a process whose reachability is a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorState {
    /// Local state number.
    pub state: u32,
    /// What reaching it means.
    pub kind: ErrorKind,
}

/// One process of a network: a named LTS.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Process {
    /// Name shown in traces and `info`.
    pub name: String,
    /// Its behaviour.
    pub lts: Lts,
    /// Local states whose reachability is a finding (monitor error states,
    /// markers of an unsafe Petri net).
    pub error_states: Vec<ErrorState>,
}

/// One participant of a synchronisation rule.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Participant {
    /// Index of the process in [`Network::processes`].
    pub process: usize,
    /// The local label that process must perform.
    pub label: String,
}

/// A multi-rendezvous: all participants move together, each on its own
/// local label, and the network performs the action `result`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncRule {
    /// Participants, at most one per process, sorted by process index.
    pub participants: Vec<Participant>,
    /// Action label of the combined step.
    pub result: String,
}

/// What happens to a local label of a process that occurs in no rule for
/// that process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnmatchedLabels {
    /// It fires alone (the GPUexplore semantics; the native format).
    #[default]
    Independent,
    /// It never fires (the CADP EXP semantics).
    Blocked,
}

/// A property monitor: an automaton over the network's actions whose
/// transitions carry regular expressions (full match) over action labels.
#[derive(Debug, Clone)]
pub struct Monitor {
    /// Name used with `--property`.
    pub name: String,
    /// Local state names.
    pub state_names: Vec<String>,
    /// Initial state number.
    pub initial: u32,
    /// Error state numbers: reaching any is a violation.
    pub error_states: Vec<u32>,
    /// Transitions with their patterns.
    pub transitions: Vec<MonitorTransition>,
}

/// One monitor transition `source -/pattern/-> target`.
#[derive(Debug, Clone)]
pub struct MonitorTransition {
    /// Source state number.
    pub source: u32,
    /// Regular expression, already anchored for a full match.
    pub pattern: Regex,
    /// Target state number.
    pub target: u32,
}

impl MonitorTransition {
    /// Builds a transition whose pattern must match a whole action label.
    pub fn new(source: u32, pattern: &str, target: u32) -> Result<Self, regex::Error> {
        Ok(Self {
            source,
            pattern: Regex::new(&format!("^(?:{pattern})$"))?,
            target,
        })
    }

    /// The pattern as the user wrote it (without the added anchors).
    pub fn pattern_source(&self) -> &str {
        let s = self.pattern.as_str();
        &s[4..s.len() - 2]
    }
}

/// A network of processes, its synchronisation rules and its monitors.
#[derive(Debug, Clone, Default)]
pub struct Network {
    /// The processes, in vector order.
    pub processes: Vec<Process>,
    /// The synchronisation rules.
    pub rules: Vec<SyncRule>,
    /// What labels in no rule do.
    pub unmatched: UnmatchedLabels,
    /// Property monitors defined with the network, selectable by name.
    pub monitors: Vec<Monitor>,
}

/// A structural problem of a network that a frontend could not locate in a
/// file (frontends report located errors themselves).
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ModelError {
    /// `--property NAME` named no monitor.
    #[error("no property named `{name}`; defined: {defined}")]
    UnknownProperty {
        /// Requested name.
        name: String,
        /// Comma-separated names that exist, or "none".
        defined: String,
    },
    /// A rule names a process index that does not exist.
    #[error("rule for `{result}` names process {process}, but the network has {count}")]
    BadProcess {
        /// Rule result label.
        result: String,
        /// Offending index.
        process: usize,
        /// Number of processes.
        count: usize,
    },
    /// A rule has two participants for one process.
    #[error("rule for `{result}` lists process `{process}` twice")]
    DuplicateParticipant {
        /// Rule result label.
        result: String,
        /// Process name.
        process: String,
    },
    /// A rule with no participant.
    #[error("rule for `{result}` has no participant")]
    EmptyRule {
        /// Rule result label.
        result: String,
    },
    /// A process without states.
    #[error("process `{0}` has no states")]
    EmptyProcess(String),
}

/// Something a network allows but its author most likely did not mean;
/// loading goes on, and the command line prints each as `warning: ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelWarning {
    /// A rule that can never fire: a participant has no transition with
    /// its label (for example an EXP vector naming a label its process
    /// lacks).
    DeadRule {
        /// The rule's result action.
        result: String,
        /// The participant without the label.
        process: String,
        /// The label it would have to perform.
        label: String,
    },
    /// Several rules with the same participants, labels and result.
    DuplicateRule {
        /// The rules' result action.
        result: String,
        /// How many identical rules there are.
        count: usize,
    },
    /// A property monitor transition whose pattern matches no action of the
    /// network: it never fires, so the property holds vacuously there.
    UnmatchedPattern {
        /// The property's name.
        property: String,
        /// The transition's source state.
        source: String,
        /// The pattern as written.
        pattern: String,
        /// The transition's target state.
        target: String,
    },
    /// No pattern of a property matches any action of the network: the
    /// monitor never moves and the property holds vacuously.
    VacuousProperty {
        /// The property's name.
        property: String,
    },
}

impl fmt::Display for ModelWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelWarning::DeadRule {
                result,
                process,
                label,
            } => write!(
                f,
                "rule for `{result}` can never fire: process `{process}` has no transition \
                 labelled `{label}`"
            ),
            ModelWarning::DuplicateRule { result, count } => write!(
                f,
                "rule for `{result}` is given {count} times with the same participants and \
                 labels; the copies add nothing"
            ),
            ModelWarning::UnmatchedPattern {
                property,
                source,
                pattern,
                target,
            } => write!(
                f,
                "property `{property}`: pattern `{pattern}` (from `{source}` to `{target}`) \
                 matches no action of the network, so this transition never fires and the \
                 property holds vacuously on it"
            ),
            ModelWarning::VacuousProperty { property } => write!(
                f,
                "property `{property}`: no pattern matches any action of the network, so the \
                 property holds vacuously"
            ),
        }
    }
}

impl Network {
    /// Checks the invariants engines rely on: rule participants exist, are
    /// unique and sorted; every process has a state.
    pub fn validate(&mut self) -> Result<(), ModelError> {
        for p in &self.processes {
            if p.lts.state_names.is_empty() {
                return Err(ModelError::EmptyProcess(p.name.clone()));
            }
        }
        for rule in &mut self.rules {
            if rule.participants.is_empty() {
                return Err(ModelError::EmptyRule {
                    result: rule.result.clone(),
                });
            }
            if let Some(p) = rule
                .participants
                .iter()
                .find(|p| p.process >= self.processes.len())
            {
                return Err(ModelError::BadProcess {
                    result: rule.result.clone(),
                    process: p.process,
                    count: self.processes.len(),
                });
            }
            rule.participants.sort();
            for w in rule.participants.windows(2) {
                if w[0].process == w[1].process {
                    return Err(ModelError::DuplicateParticipant {
                        result: rule.result.clone(),
                        process: self.processes[w[0].process].name.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Rules that can never fire, in rule order, then rules given more than
    /// once, in the order of their first copy (see [`ModelWarning`]).
    /// Linear in the size of the network.
    pub fn warnings(&self) -> Vec<ModelWarning> {
        let offered: Vec<HashSet<&str>> = self
            .processes
            .iter()
            .map(|p| {
                p.lts
                    .transitions
                    .iter()
                    .filter_map(|t| p.lts.labels.get(t.label as usize))
                    .map(String::as_str)
                    .collect()
            })
            .collect();
        let mut warnings = Vec::new();
        // Each distinct rule (sorted participants and result): the index of
        // its first copy and the number of copies.
        type RuleKey<'a> = (Vec<(usize, &'a str)>, &'a str);
        let mut copies: HashMap<RuleKey, (usize, usize)> = HashMap::new();
        for (index, rule) in self.rules.iter().enumerate() {
            let lacking = rule.participants.iter().find(|p| {
                offered
                    .get(p.process)
                    .is_some_and(|labels| !labels.contains(p.label.as_str()))
            });
            if let Some(p) = lacking {
                warnings.push(ModelWarning::DeadRule {
                    result: rule.result.clone(),
                    process: self.processes[p.process].name.clone(),
                    label: p.label.clone(),
                });
            }
            let mut key: Vec<(usize, &str)> = rule
                .participants
                .iter()
                .map(|p| (p.process, p.label.as_str()))
                .collect();
            key.sort_unstable();
            copies
                .entry((key, rule.result.as_str()))
                .or_insert((index, 0))
                .1 += 1;
        }
        let mut duplicated: Vec<(usize, usize)> = copies
            .into_values()
            .filter(|&(_, count)| count > 1)
            .collect();
        duplicated.sort_unstable();
        warnings.extend(
            duplicated
                .into_iter()
                .map(|(first, count)| ModelWarning::DuplicateRule {
                    result: self.rules[first].result.clone(),
                    count,
                }),
        );
        warnings
    }

    /// Transitions of `monitor` whose pattern matches no action of this
    /// network, or, when no pattern matches any, one
    /// [`ModelWarning::VacuousProperty`].
    pub fn property_warnings(&self, monitor: &Monitor) -> Vec<ModelWarning> {
        let actions = self.actions();
        let state = |s: u32| {
            monitor
                .state_names
                .get(s as usize)
                .cloned()
                .unwrap_or_else(|| s.to_string())
        };
        let unmatched: Vec<ModelWarning> = monitor
            .transitions
            .iter()
            .filter(|t| !actions.iter().any(|a| t.pattern.is_match(a)))
            .map(|t| ModelWarning::UnmatchedPattern {
                property: monitor.name.clone(),
                source: state(t.source),
                pattern: t.pattern_source().to_string(),
                target: state(t.target),
            })
            .collect();
        if unmatched.len() == monitor.transitions.len() {
            return vec![ModelWarning::VacuousProperty {
                property: monitor.name.clone(),
            }];
        }
        unmatched
    }

    /// For every process, the local labels that occur in some rule for it.
    pub fn synchronising_labels(&self) -> Vec<BTreeSet<String>> {
        let mut sync = vec![BTreeSet::new(); self.processes.len()];
        for rule in &self.rules {
            for p in &rule.participants {
                sync[p.process].insert(p.label.clone());
            }
        }
        sync
    }

    /// Every action the network can perform by its structure: rule results
    /// and, under [`UnmatchedLabels::Independent`], the labels that fire alone.
    pub fn actions(&self) -> BTreeSet<String> {
        let mut actions: BTreeSet<String> = self.rules.iter().map(|r| r.result.clone()).collect();
        if self.unmatched == UnmatchedLabels::Independent {
            let sync = self.synchronising_labels();
            for (i, p) in self.processes.iter().enumerate() {
                for l in p.lts.used_labels() {
                    if !sync[i].contains(l) {
                        actions.insert(l.to_string());
                    }
                }
            }
        }
        actions
    }

    /// Looks a monitor up by name.
    pub fn monitor(&self, name: &str) -> Result<&Monitor, ModelError> {
        self.monitors
            .iter()
            .find(|m| m.name == name)
            .ok_or_else(|| ModelError::UnknownProperty {
                name: name.to_string(),
                defined: if self.monitors.is_empty() {
                    "none".to_string()
                } else {
                    self.monitors
                        .iter()
                        .map(|m| m.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            })
    }

    /// The network with `monitor` joined as one more (last) process that
    /// takes part in every action its patterns match. An action the monitor
    /// matches but cannot follow in its current state is blocked; reaching
    /// one of its error states is a [`ErrorKind::Property`] finding.
    pub fn with_monitor(&self, monitor: &Monitor) -> Network {
        let monitor_index = self.processes.len();
        let actions = self.actions();
        let watched: BTreeSet<&String> = actions
            .iter()
            .filter(|a| monitor.transitions.iter().any(|t| t.pattern.is_match(a)))
            .collect();

        let mut lts = Lts {
            state_names: monitor.state_names.clone(),
            initial: monitor.initial,
            ..Lts::default()
        };
        let mut label_ids: HashMap<&str, u32> = HashMap::with_capacity(watched.len());
        for t in &monitor.transitions {
            for &a in &watched {
                if t.pattern.is_match(a) {
                    let label = *label_ids.entry(a).or_insert_with(|| {
                        lts.labels.push(a.clone());
                        (lts.labels.len() - 1) as u32
                    });
                    lts.transitions.push(LtsTransition {
                        source: t.source,
                        label,
                        target: t.target,
                    });
                }
            }
        }
        lts.transitions.sort();
        lts.transitions.dedup();

        let mut net = self.clone();
        net.monitors.clear();
        for rule in &mut net.rules {
            if watched.contains(&rule.result) {
                rule.participants.push(Participant {
                    process: monitor_index,
                    label: rule.result.clone(),
                });
            }
        }
        if self.unmatched == UnmatchedLabels::Independent {
            // Independent labels the monitor watches become two-party rules.
            let sync = self.synchronising_labels();
            let mut extra: HashMap<(usize, String), ()> = HashMap::new();
            for (i, p) in self.processes.iter().enumerate() {
                for l in p.lts.used_labels() {
                    if !sync[i].contains(l) && watched.contains(&l.to_string()) {
                        extra.insert((i, l.to_string()), ());
                    }
                }
            }
            let mut extra: Vec<_> = extra.into_keys().collect();
            extra.sort();
            for (i, l) in extra {
                net.rules.push(SyncRule {
                    participants: vec![
                        Participant {
                            process: i,
                            label: l.clone(),
                        },
                        Participant {
                            process: monitor_index,
                            label: l.clone(),
                        },
                    ],
                    result: l,
                });
            }
        }
        net.processes.push(Process {
            name: monitor.name.clone(),
            lts,
            error_states: monitor
                .error_states
                .iter()
                .map(|&s| ErrorState {
                    state: s,
                    kind: ErrorKind::Property(monitor.name.clone()),
                })
                .collect(),
        });
        net
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lts(states: &[&str], trans: &[(u32, &str, u32)]) -> Lts {
        let mut l = Lts {
            state_names: states.iter().map(|s| s.to_string()).collect(),
            ..Lts::default()
        };
        for &(s, a, t) in trans {
            let label = l.intern_label(a);
            l.transitions.push(LtsTransition {
                source: s,
                label,
                target: t,
            });
        }
        l
    }

    #[test]
    fn independent_watched_label_becomes_two_party_rule() {
        let net = Network {
            processes: vec![Process {
                name: "P".into(),
                lts: lts(&["a", "b"], &[(0, "go", 1), (1, "back", 0)]),
                error_states: vec![],
            }],
            ..Network::default()
        };
        let m = Monitor {
            name: "m".into(),
            state_names: vec!["ok".into(), "bad".into()],
            initial: 0,
            error_states: vec![1],
            transitions: vec![MonitorTransition::new(0, "g.", 1).unwrap()],
        };
        let composed = net.with_monitor(&m);
        assert_eq!(composed.processes.len(), 2);
        assert_eq!(composed.rules.len(), 1);
        assert_eq!(composed.rules[0].result, "go");
        assert_eq!(composed.processes[1].lts.transitions.len(), 1);
        assert_eq!(m.transitions[0].pattern_source(), "g.");
    }

    /// A network of one process `P` and one rule `r` with these
    /// participants (process index, label).
    fn one_rule(participants: &[(usize, &str)]) -> Network {
        Network {
            processes: vec![Process {
                name: "P".into(),
                lts: lts(&["a"], &[]),
                error_states: vec![],
            }],
            rules: vec![SyncRule {
                participants: participants
                    .iter()
                    .map(|&(process, label)| Participant {
                        process,
                        label: label.into(),
                    })
                    .collect(),
                result: "r".into(),
            }],
            ..Network::default()
        }
    }

    #[test]
    fn validate_checks_the_process_range_before_looking_processes_up() {
        let mut net = one_rule(&[(0, "x"), (7, "x"), (7, "x")]);
        assert_eq!(
            net.validate().unwrap_err().to_string(),
            "rule for `r` names process 7, but the network has 1"
        );
    }

    #[test]
    fn validate_rejects_duplicate_participant() {
        let mut net = one_rule(&[(0, "x"), (0, "y")]);
        assert_eq!(
            net.validate(),
            Err(ModelError::DuplicateParticipant {
                result: "r".into(),
                process: "P".into()
            })
        );
    }
}
