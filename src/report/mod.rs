//! What the user sees: the verdict and its exit code, statistics, and
//! counterexample traces as text, JSON or an Aldebaran `.aut` file.

use std::borrow::Cow;

use serde::Serialize;

use crate::encode::EncodedNetwork;
use crate::error::exit;
use crate::explore::livelock::{INTERNAL_ACTIONS, Lasso, Livelock};
use crate::explore::{Completion, Exploration, FindingKind, Trace};
use crate::frontend::aut::quote_label;
use crate::frontend::net::quote_always;
use crate::model::{ErrorKind, Network};

/// The answer to the user's question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Everything reachable was explored and nothing was found.
    NoViolation,
    /// A reachable state has no successor.
    Deadlock,
    /// The named property monitor reached an error state.
    PropertyViolated(String),
    /// The model left the class it was read as; the message says how.
    ModelError(String),
    /// A cycle of internal actions is reachable (and nothing else was
    /// found).
    Livelock,
    /// The search stopped early without a finding: no verdict.
    Incomplete(Completion),
}

impl Verdict {
    /// Derives the verdict from an exploration.
    pub fn of(net: &EncodedNetwork, exploration: &Exploration) -> Verdict {
        match &exploration.first {
            Some(f) => match &f.kind {
                FindingKind::Deadlock => Verdict::Deadlock,
                FindingKind::Error(e) => match &net.error_locals[*e].kind {
                    ErrorKind::Property(name) => Verdict::PropertyViolated(name.clone()),
                    ErrorKind::Model(message) => Verdict::ModelError(message.clone()),
                },
            },
            None => match exploration.completion {
                Completion::Complete | Completion::StoppedAtFinding => Verdict::NoViolation,
                c => Verdict::Incomplete(c),
            },
        }
    }

    /// The verdict once a livelock check's answer `livelock` is known: a
    /// livelock found turns "no violation" into [`Verdict::Livelock`];
    /// every other verdict stands (a deadlock or property violation found
    /// as well is listed by [`Verdict::found`]).
    pub fn with_livelock(self, livelock: Option<&Livelock>) -> Verdict {
        match self {
            Verdict::NoViolation if livelock.is_some_and(Livelock::found) => Verdict::Livelock,
            verdict => verdict,
        }
    }

    /// The keys of every kind of violation found: this verdict's, when it
    /// is one, and `livelock` when `livelock` found one.
    pub fn found(&self, livelock: Option<&Livelock>) -> Vec<String> {
        let mut found = Vec::new();
        if !matches!(self, Verdict::NoViolation | Verdict::Incomplete(_)) {
            found.push(self.key().to_string());
        }
        if livelock.is_some_and(Livelock::found) && *self != Verdict::Livelock {
            found.push(Verdict::Livelock.key().to_string());
        }
        found
    }

    /// The process exit status for this verdict.
    pub fn exit_code(&self) -> i32 {
        match self {
            Verdict::NoViolation => exit::OK,
            Verdict::Deadlock | Verdict::PropertyViolated(_) | Verdict::Livelock => exit::VIOLATION,
            Verdict::ModelError(_) => exit::BAD_INPUT,
            Verdict::Incomplete(_) => exit::INCOMPLETE,
        }
    }

    /// Short machine-readable name, used in JSON.
    pub fn key(&self) -> &'static str {
        match self {
            Verdict::NoViolation => "no-violation",
            Verdict::Deadlock => "deadlock",
            Verdict::PropertyViolated(_) => "property-violated",
            Verdict::ModelError(_) => "model-error",
            Verdict::Livelock => "livelock",
            Verdict::Incomplete(_) => "incomplete",
        }
    }

    /// One line for people, given what was checked: deadlocks, the
    /// property `property`, livelocks.
    pub fn describe(
        &self,
        checked_deadlock: bool,
        property: Option<&str>,
        checked_livelock: bool,
    ) -> String {
        match self {
            Verdict::NoViolation => {
                let mut checked = Vec::new();
                if checked_deadlock {
                    checked.push("no deadlock".to_string());
                }
                if let Some(p) = property {
                    checked.push(format!("property `{p}` holds"));
                }
                if checked_livelock {
                    checked.push("no livelock".to_string());
                }
                if checked.is_empty() {
                    "state space explored completely (nothing was checked: use --deadlock, --property or --livelock)".to_string()
                } else {
                    checked.join(", ")
                }
            }
            Verdict::Livelock => LIVELOCK_FOUND.to_string(),
            Verdict::Deadlock => "deadlock found".to_string(),
            Verdict::PropertyViolated(p) => format!("property `{p}` violated"),
            Verdict::ModelError(m) => format!("model error: {m}"),
            Verdict::Incomplete(Completion::StateLimit) => {
                "exploration incomplete: the --max-states limit was reached; no verdict".to_string()
            }
            Verdict::Incomplete(Completion::Interrupted) => {
                "exploration incomplete: interrupted; no verdict".to_string()
            }
            Verdict::Incomplete(_) => {
                "exploration incomplete: the state table is full; no verdict (give more --memory)"
                    .to_string()
            }
        }
    }
}

/// The words of a livelock found.
pub const LIVELOCK_FOUND: &str = "livelock found: a reachable cycle of internal actions";

/// One step of a rendered trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepView {
    /// Action label of the step.
    pub action: String,
    /// Processes whose local state changed.
    pub changes: Vec<ChangeView>,
}

/// A local state change of one process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeView {
    /// Process name.
    pub process: String,
    /// Local state before the step.
    pub from: String,
    /// Local state after the step.
    pub to: String,
}

/// A process's local state, in the rendering of a whole state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LocalView {
    /// Process name.
    pub process: String,
    /// Local state name.
    pub state: String,
}

/// A trace with names instead of numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraceView {
    /// The initial state, one entry per process.
    pub initial: Vec<LocalView>,
    /// The steps.
    pub steps: Vec<StepView>,
    /// The last state, one entry per process.
    #[serde(rename = "final")]
    pub last: Vec<LocalView>,
}

/// Names every local state of `state`.
pub fn state_view(net: &EncodedNetwork, state: &[u32]) -> Vec<LocalView> {
    (0..net.processes())
        .map(|p| LocalView {
            process: net.process_names[p].clone(),
            state: net.state_name(p, net.layout.get(state, p)).to_string(),
        })
        .collect()
}

impl TraceView {
    /// Renders `trace` with the names of `net`.
    pub fn new(net: &EncodedNetwork, trace: &Trace) -> TraceView {
        let steps = trace
            .actions
            .iter()
            .zip(trace.states.windows(2))
            .map(|(&a, pair)| StepView {
                action: net.actions[a as usize].clone(),
                changes: (0..net.processes())
                    .filter_map(|p| {
                        let (from, to) = (net.layout.get(&pair[0], p), net.layout.get(&pair[1], p));
                        (from != to).then(|| ChangeView {
                            process: net.process_names[p].clone(),
                            from: net.state_name(p, from).to_string(),
                            to: net.state_name(p, to).to_string(),
                        })
                    })
                    .collect(),
            })
            .collect();
        TraceView {
            initial: state_view(net, &trace.states[0]),
            steps,
            last: state_view(net, trace.states.last().expect("a trace has a state")),
        }
    }

    /// Human-readable text: the initial state, then one line per step.
    /// Names that could be misread (spaces, `=`, `,`, `:`, quotes) are
    /// quoted, see [`readable_name`].
    pub fn to_text(&self) -> String {
        self.text(None)
    }

    /// [`TraceView::to_text`], with a line that says where a lasso's cycle
    /// starts before step `cycle_from` (counted from 0) when given.
    fn text(&self, cycle_from: Option<usize>) -> String {
        let mut out = String::new();
        let locals = |v: &[LocalView]| {
            v.iter()
                .map(|l| format!("{}={}", readable_name(&l.process), readable_name(&l.state)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        out.push_str(&format!("  initial: {}\n", locals(&self.initial)));
        let width = self.steps.len().to_string().len();
        for (i, step) in self.steps.iter().enumerate() {
            let changes = step
                .changes
                .iter()
                .map(|c| {
                    format!(
                        "{}: {} -> {}",
                        readable_name(&c.process),
                        readable_name(&c.from),
                        readable_name(&c.to)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            let changes = if changes.is_empty() {
                "(no local change)".to_string()
            } else {
                changes
            };
            if cycle_from == Some(i) {
                out.push_str("  cycle (internal actions only, back to the state before it):\n");
            }
            out.push_str(&format!(
                "  {:>width$}. {:<12} {}\n",
                i + 1,
                readable_name(&step.action),
                changes
            ));
        }
        out.push_str(&format!("  reached: {}\n", locals(&self.last)));
        out
    }

    /// The trace as an Aldebaran LTS: a path `0 -a1-> 1 -a2-> ... -> n`;
    /// an error when an action cannot be written (see [`quote_label`]).
    pub fn to_aut(&self) -> std::io::Result<String> {
        let n = self.steps.len();
        let mut out = format!("des (0, {n}, {})\n", n + 1);
        for (i, step) in self.steps.iter().enumerate() {
            out.push_str(&format!(
                "({i}, {}, {})\n",
                quote_label(&step.action)?,
                i + 1
            ));
        }
        Ok(out)
    }
}

/// A lasso with names instead of numbers: the whole path (prefix, then the
/// cycle, ending in the cycle's first state again) and where the cycle
/// starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LassoView {
    /// The path: `initial`, `steps` and `final` as in a [`TraceView`];
    /// `final` is the cycle's first state.
    #[serde(flatten)]
    pub path: TraceView,
    /// Steps of the prefix: `steps[loop_start..]` are the cycle, which
    /// starts in the state reached after `steps[..loop_start]`.
    pub loop_start: usize,
}

impl LassoView {
    /// Renders `lasso` with the names of `net`.
    pub fn new(net: &EncodedNetwork, lasso: &Lasso) -> LassoView {
        LassoView {
            path: TraceView::new(net, &lasso.trace),
            loop_start: lasso.loop_start,
        }
    }

    /// Human-readable text: the prefix, then a line that opens the cycle,
    /// then the cycle's steps.
    pub fn to_text(&self) -> String {
        self.path.text(Some(self.loop_start))
    }

    /// The lasso as an Aldebaran LTS: a path `0 -a1-> 1 -a2-> ...` whose
    /// last step goes back to state `loop_start`, the cycle's first state;
    /// an error when an action cannot be written (see [`quote_label`]).
    pub fn to_aut(&self) -> std::io::Result<String> {
        let n = self.path.steps.len();
        let mut out = format!("des (0, {n}, {n})\n");
        for (i, step) in self.path.steps.iter().enumerate() {
            let target = if i + 1 == n { self.loop_start } else { i + 1 };
            out.push_str(&format!(
                "({i}, {}, {target})\n",
                quote_label(&step.action)?
            ));
        }
        Ok(out)
    }
}

/// `name` as trace text shows it: bare when it cannot be misread, else in
/// double quotes with `"`, `\` and line breaks escaped as in `.net`
/// files. Names are misread when empty or holding white space, control
/// characters, quotes, backslashes, or the separators `=`, `,` and `:`.
pub fn readable_name(name: &str) -> Cow<'_, str> {
    let plain = !name.is_empty()
        && !name.chars().any(|c| {
            c.is_whitespace() || c.is_control() || matches!(c, '"' | '\\' | '=' | ',' | ':')
        });
    if plain {
        return Cow::Borrowed(name);
    }
    Cow::Owned(quote_always(name))
}

/// Everything a `check` run reports; serialises to the documented JSON.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// Model file.
    pub model: String,
    /// Engine that ran.
    pub engine: String,
    /// Whether deadlocks were checked.
    pub deadlock_checked: bool,
    /// Property checked, if any.
    pub property: Option<String>,
    /// Machine-readable verdict.
    pub verdict: String,
    /// Human-readable verdict.
    pub message: String,
    /// Whether every reachable state was explored.
    pub complete: bool,
    /// How the search ended: `complete`, `stopped-at-finding`,
    /// `state-limit`, `memory-limit` or `interrupted`.
    pub completion: String,
    /// The process exit status.
    pub exit_code: i32,
    /// Distinct states stored.
    pub states: u64,
    /// Transitions generated.
    pub transitions: u64,
    /// Breadth-first levels completed: every state within `depth` steps of
    /// the initial state was found.
    pub depth: u32,
    /// Deadlock states found (all of them with `--all`).
    pub deadlocks: u64,
    /// Error states found (all of them with `--all`).
    pub violations: u64,
    /// Rule firings blocked only by the property monitor.
    pub monitor_blocked: u64,
    /// Processes in the vector.
    pub processes: usize,
    /// Words of a state vector.
    pub vector_words: usize,
    /// Bits of a state vector actually used by processes.
    pub vector_bits: u32,
    /// Wall-clock time to read, check and encode the model.
    pub load_seconds: f64,
    /// Wall-clock time of the search (engine set-up included).
    pub search_seconds: f64,
    /// States per second of search.
    pub states_per_second: f64,
    /// Bytes of memory of the state store.
    pub memory_bytes: u64,
    /// How the states were stored: `plain` or `tree`.
    pub storage: String,
    /// Bytes the stored states occupy, a state on average: table entries,
    /// tree nodes and predecessor links, without the tables' empty room.
    pub bytes_per_state: f64,
    /// Engine-specific figures (GPU table size and fill, threads, …).
    pub engine_details: Vec<(String, String)>,
    /// Warnings about the model and the options, also printed on stderr.
    pub warnings: Vec<String>,
    /// The counterexample, when one was found and traces were kept.
    pub trace: Option<TraceView>,
    /// Whether livelocks (cycles of internal actions) were checked.
    pub livelock_checked: bool,
    /// Reachable states on a cycle of internal actions (0 when livelocks
    /// were not checked or the search was incomplete).
    pub livelock_states: u64,
    /// The lasso to a livelock, when one was found and traces were kept.
    pub lasso: Option<LassoView>,
    /// The keys of every kind of violation found (`deadlock`,
    /// `property-violated`, `model-error`, `livelock`).
    pub found: Vec<String>,
    /// How a search split over several GPUs (or partitions of one) shared
    /// its work; absent for a search on one table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partitions: Option<PartitionsView>,
}

/// The work sharing of a partitioned search, as `check` reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartitionsView {
    /// GPUs the partitions ran on.
    pub gpus: usize,
    /// How successors travelled: `NCCL` or `device copies`.
    pub exchange: String,
    /// States each partition stored.
    pub states: Vec<u64>,
    /// Successors sent to the partition that owns them.
    pub messages: u64,
    /// Bytes those messages took.
    pub bytes_exchanged: u64,
    /// Bytes exchanged per state stored.
    pub bytes_exchanged_per_state: f64,
    /// Seconds the partitions spent expanding, to the end of the slowest
    /// each round (part of the search time).
    pub expanding_seconds: f64,
    /// Seconds from the end of each round's expansions to the arrival of
    /// its last chunk, while owners store the chunks that have arrived
    /// (part of the search time).
    pub exchange_seconds: f64,
    /// Seconds the owners spent storing after each round's last chunk
    /// arrived, to the end of the slowest (part of the search time).
    pub storing_seconds: f64,
    /// Exchanges: one a level, more where outboxes filled mid-level.
    pub rounds: u64,
}

impl CheckReport {
    /// The human-readable report (the trace, then statistics).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!("{}: {}\n", self.model, self.message));
        if let Some(t) = &self.trace {
            out.push_str(&format!("trace ({} steps):\n", t.steps.len()));
            out.push_str(&t.to_text());
        } else if matches!(
            self.verdict.as_str(),
            "deadlock" | "property-violated" | "model-error"
        ) {
            out.push_str("no trace (traces were switched off)\n");
        }
        if let Some(l) = &self.lasso {
            out.push_str(&format!(
                "lasso ({} steps, the last {} a cycle):\n",
                l.path.steps.len(),
                l.path.steps.len() - l.loop_start
            ));
            out.push_str(&l.to_text());
        } else if self.found.iter().any(|f| f == Verdict::Livelock.key()) {
            out.push_str("no lasso (traces were switched off)\n");
        }
        out.push_str(&format!(
            "engine: {}\nstates: {}\ntransitions: {}\ndepth: {} (breadth-first levels completed)\n",
            self.engine, self.states, self.transitions, self.depth
        ));
        if self.deadlocks > 0 || self.violations > 0 {
            out.push_str(&format!(
                "deadlock states: {}\nerror states: {}\n",
                self.deadlocks, self.violations
            ));
        }
        if self.livelock_checked && self.complete {
            out.push_str(&format!(
                "livelock states: {} (on a cycle of the internal actions {})\n",
                self.livelock_states,
                INTERNAL_ACTIONS.join(", ")
            ));
        }
        out.push_str(&format!(
            "vector: {} processes, {} bits in {} words\ntime: load {:.3} s, search {:.3} s \
             ({:.0} states/s)\nmemory: {} ({} storage, {:.1} bytes a state)\n",
            self.processes,
            self.vector_bits,
            self.vector_words,
            self.load_seconds,
            self.search_seconds,
            self.states_per_second,
            human_bytes(self.memory_bytes),
            self.storage,
            self.bytes_per_state
        ));
        for (k, v) in &self.engine_details {
            out.push_str(&format!("{k}: {v}\n"));
        }
        if self.completion == Completion::StoppedAtFinding.key() {
            out.push_str(
                "note: the search stopped at the first finding (--all explores the rest)\n",
            );
        }
        out
    }
}

/// One process in an [`InfoReport`].
#[derive(Debug, Clone, Serialize)]
pub struct ProcessInfo {
    /// Process name.
    pub name: String,
    /// Local states.
    pub states: usize,
    /// Local transitions.
    pub transitions: usize,
    /// Bits of its field in the state vector.
    pub bits: u32,
}

/// What `info` reports about a model; serialises to the documented JSON.
#[derive(Debug, Clone, Serialize)]
pub struct InfoReport {
    /// Model file.
    pub model: String,
    /// Processes in the vector.
    pub processes: usize,
    /// Local states of all processes.
    pub local_states: usize,
    /// Local transitions of all processes.
    pub local_transitions: usize,
    /// Synchronisation rules.
    pub rules: usize,
    /// Distinct actions of the network.
    pub actions: usize,
    /// Bits of a state vector actually used by processes.
    pub vector_bits: u32,
    /// Words of 32 bits of a state vector.
    pub vector_words: usize,
    /// Entries of the encoded transition arrays.
    pub encoding_entries: usize,
    /// Bytes of the encoded arrays.
    pub encoding_bytes: u64,
    /// Property monitors defined in the model.
    pub properties: Vec<String>,
    /// Warnings about the model, also printed on stderr.
    pub warnings: Vec<String>,
    /// Every process.
    pub process_list: Vec<ProcessInfo>,
}

impl InfoReport {
    /// Describes `network`, encoded as `encoded`, read from `model`.
    pub fn new(
        model: &str,
        network: &Network,
        encoded: &EncodedNetwork,
        warnings: Vec<String>,
    ) -> InfoReport {
        let process_list: Vec<ProcessInfo> = network
            .processes
            .iter()
            .enumerate()
            .map(|(i, p)| ProcessInfo {
                name: p.name.clone(),
                states: p.lts.state_names.len(),
                transitions: p.lts.transitions.len(),
                bits: encoded.layout.fields[i].bits,
            })
            .collect();
        InfoReport {
            model: model.to_string(),
            processes: process_list.len(),
            local_states: process_list.iter().map(|p| p.states).sum(),
            local_transitions: process_list.iter().map(|p| p.transitions).sum(),
            rules: network.rules.len(),
            actions: encoded.actions.len(),
            vector_bits: encoded.layout.used_bits(),
            vector_words: encoded.words(),
            encoding_entries: encoded.entry_count(),
            encoding_bytes: 4
                * (encoded.transitions.len()
                    + encoded.state_offsets.len()
                    + encoded.proc_offsets.len()
                    + encoded.rule_participants.len()) as u64,
            properties: network.monitors.iter().map(|m| m.name.clone()).collect(),
            warnings,
            process_list,
        }
    }

    /// The human-readable description: totals, then one line per process.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "model: {}\nprocesses: {} ({} local states, {} local transitions)\n\
             synchronisation rules: {}\nactions: {}\n\
             state vector: {} bits used, {} words of 32 bits ({} bytes)\n\
             encoding: {} TransArray entries, {} in all\nproperties: {}\n",
            self.model,
            self.processes,
            self.local_states,
            self.local_transitions,
            self.rules,
            self.actions,
            self.vector_bits,
            self.vector_words,
            self.vector_words * 4,
            self.encoding_entries,
            human_bytes(self.encoding_bytes),
            if self.properties.is_empty() {
                "none".to_string()
            } else {
                self.properties.join(", ")
            }
        );
        out.push_str(&format!(
            "{:<24} {:>8} {:>12} {:>5}\n",
            "process", "states", "transitions", "bits"
        ));
        for p in &self.process_list {
            out.push_str(&format!(
                "{:<24} {:>8} {:>12} {:>5}\n",
                readable_name(&p.name),
                p.states,
                p.transitions,
                p.bits
            ));
        }
        out
    }
}

/// `1536` → `1.5 KiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lasso of `actions` whose cycle starts after `loop_start` steps
    /// (no local changes: only the actions and the shape matter here).
    fn lasso(actions: &[&str], loop_start: usize) -> LassoView {
        LassoView {
            path: TraceView {
                initial: Vec::new(),
                steps: actions
                    .iter()
                    .map(|a| StepView {
                        action: a.to_string(),
                        changes: Vec::new(),
                    })
                    .collect(),
                last: Vec::new(),
            },
            loop_start,
        }
    }

    #[test]
    fn a_lasso_as_aut_closes_its_cycle() {
        assert_eq!(
            lasso(&["tau"], 0).to_aut().unwrap(),
            "des (0, 1, 1)\n(0, \"tau\", 0)\n"
        );
        assert_eq!(
            lasso(&["go", "i", "tau"], 1).to_aut().unwrap(),
            "des (0, 3, 3)\n(0, \"go\", 1)\n(1, \"i\", 2)\n(2, \"tau\", 1)\n"
        );
    }

    #[test]
    fn livelocks_join_the_other_findings() {
        let found = Livelock {
            cyclic_states: 3,
            lasso: None,
        };
        let none = Livelock {
            cyclic_states: 0,
            lasso: None,
        };
        assert_eq!(
            Verdict::NoViolation.with_livelock(Some(&found)),
            Verdict::Livelock
        );
        assert_eq!(
            Verdict::NoViolation.with_livelock(Some(&none)),
            Verdict::NoViolation
        );
        assert_eq!(
            Verdict::Deadlock.with_livelock(Some(&found)),
            Verdict::Deadlock
        );
        assert_eq!(Verdict::Livelock.found(Some(&found)), ["livelock"]);
        assert_eq!(
            Verdict::Deadlock.found(Some(&found)),
            ["deadlock", "livelock"]
        );
        assert_eq!(Verdict::NoViolation.found(Some(&none)), [] as [&str; 0]);
        assert_eq!(
            Verdict::Incomplete(Completion::StateLimit).found(None),
            [] as [&str; 0]
        );
        assert_eq!(Verdict::Livelock.exit_code(), exit::VIOLATION);
        assert_eq!(
            Verdict::NoViolation.describe(true, Some("p"), true),
            "no deadlock, property `p` holds, no livelock"
        );
    }

    #[test]
    fn human_bytes_units() {
        assert_eq!(human_bytes(12), "12 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(3 << 30), "3.0 GiB");
    }
}
