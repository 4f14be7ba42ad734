//! Networks for tests: random ones fully determined by a seed, and
//! scalable families whose state spaces are known exactly.

use proptest::prelude::*;

use crate::model::{
    ErrorKind, ErrorState, Lts, LtsTransition, Monitor, MonitorTransition, Network, Participant,
    Process, SyncRule, UnmatchedLabels,
};

/// SplitMix64: a tiny deterministic generator, so that a seed names one
/// network on every machine and every run.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `low..=high`.
    fn range(&mut self, low: usize, high: usize) -> usize {
        low + (self.next() % (high - low + 1) as u64) as usize
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    /// One of `items`, which must not be empty.
    fn pick<'a>(&mut self, items: &'a [String]) -> &'a str {
        &items[self.range(0, items.len() - 1)]
    }
}

/// Number of shared label names (`s0`, `s1`, ...) synchronised by name.
const SHARED_LABELS: usize = 3;
/// Number of general synchronisation vectors (`v0`, `v1`, ...).
const VECTORS: usize = 3;
/// Number of labels of each process that no rule mentions (`p{i}_l{k}`).
const OWN_LABELS: usize = 2;

/// A small random network, fully determined by `seed`: 2 to 5 processes of
/// 1 to 6 states; labels that fire alone, labels synchronised by name among
/// a random subset of processes, and general vectors whose participants
/// each use their own label; nondeterministic targets; sometimes blocked
/// unmatched labels, error states and an attached property monitor.
pub fn random_network(seed: u64) -> Network {
    let mut rng = SplitMix(seed);
    let process_count = rng.range(2, 5);

    // Which processes take part in each shared name and each vector.
    let shared_members: Vec<Vec<usize>> = (0..SHARED_LABELS)
        .map(|_| (0..process_count).filter(|_| rng.chance(60)).collect())
        .collect();
    let vector_members: Vec<Vec<usize>> = (0..VECTORS)
        .map(|_| (0..process_count).filter(|_| rng.chance(45)).collect())
        .collect();

    let mut processes = Vec::with_capacity(process_count);
    for i in 0..process_count {
        let states = rng.range(1, 6);
        let mut labels: Vec<String> = (0..OWN_LABELS).map(|k| format!("p{i}_l{k}")).collect();
        for (k, members) in shared_members.iter().enumerate() {
            if members.contains(&i) {
                labels.push(format!("s{k}"));
            }
        }
        for (k, members) in vector_members.iter().enumerate() {
            if members.contains(&i) {
                labels.push(format!("v{k}_p{i}"));
            }
        }
        let mut lts = Lts {
            state_names: (0..states).map(|s| format!("q{s}")).collect(),
            initial: rng.range(0, states - 1) as u32,
            ..Lts::default()
        };
        let transition_count = rng.range(0, 2 * states + 1);
        for _ in 0..transition_count {
            let label = lts.intern_label(rng.pick(&labels));
            let source = rng.range(0, states - 1) as u32;
            // Nondeterminism: sometimes several targets for one (source, label).
            for _ in 0..rng.range(1, 2) {
                lts.transitions.push(LtsTransition {
                    source,
                    label,
                    target: rng.range(0, states - 1) as u32,
                });
            }
        }
        let mut error_states = Vec::new();
        if states > 1 && rng.chance(20) {
            error_states.push(ErrorState {
                state: rng.range(1, states - 1) as u32,
                // Model errors end even a keep-going search; properties do not.
                kind: if rng.chance(50) {
                    ErrorKind::Model(format!("process {i} became unsafe"))
                } else {
                    ErrorKind::Property(format!("local_{i}"))
                },
            });
        }
        processes.push(Process {
            name: format!("P{i}"),
            lts,
            error_states,
        });
    }

    // A rule over `members`, each taking part with `label(process)`.
    let rule = |members: &[usize], label: &dyn Fn(usize) -> String, result: String| SyncRule {
        participants: members
            .iter()
            .map(|&process| Participant {
                process,
                label: label(process),
            })
            .collect(),
        result,
    };
    let mut rules = Vec::new();
    for (k, members) in shared_members.iter().enumerate() {
        if !members.is_empty() {
            rules.push(rule(members, &|_| format!("s{k}"), format!("s{k}")));
        }
    }
    for (k, members) in vector_members.iter().enumerate() {
        if !members.is_empty() {
            // Sometimes two vectors share a result action.
            let result = format!("v{}", if rng.chance(20) { 0 } else { k });
            rules.push(rule(members, &|process| format!("v{k}_p{process}"), result));
        }
    }

    let mut net = Network {
        processes,
        rules,
        unmatched: if rng.chance(25) {
            UnmatchedLabels::Blocked
        } else {
            UnmatchedLabels::Independent
        },
        monitors: Vec::new(),
    };
    net.validate()
        .expect("generated networks are valid by construction");
    if rng.chance(35) {
        net = net.with_monitor(&random_monitor(&mut rng, &net));
    }
    net
}

/// A monitor of 2 or 3 states over `net`'s actions, the last state an error.
fn random_monitor(rng: &mut SplitMix, net: &Network) -> Monitor {
    let actions: Vec<String> = net.actions().into_iter().collect();
    let states = rng.range(2, 3);
    let mut transitions = Vec::new();
    for _ in 0..rng.range(1, 4) {
        let pattern = match rng.range(0, 2) {
            0 if !actions.is_empty() => regex::escape(rng.pick(&actions)),
            1 => "s.*".to_string(),
            _ => "v[01]|p0_.*".to_string(),
        };
        let source = rng.range(0, states - 1) as u32;
        let target = rng.range(0, states - 1) as u32;
        transitions
            .push(MonitorTransition::new(source, &pattern, target).expect("patterns are valid"));
    }
    Monitor {
        name: "random_property".to_string(),
        state_names: (0..states).map(|s| format!("m{s}")).collect(),
        initial: 0,
        error_states: vec![states as u32 - 1],
        transitions,
    }
}

/// A proptest strategy over [`random_network`], shrinking by seed.
pub fn networks() -> impl Strategy<Value = Network> {
    any::<u64>().prop_map(random_network)
}

/// A random network with many synchronising rules per local state, as the
/// units of a Petri net with many transitions have them, fully determined
/// by `seed`: 2 to 5 processes of 1 to 6 states, each with one label that
/// fires alone, and 12 to 48 rules of 1 to 4 participants. A participant
/// mostly offers its label of the rule in exactly one local state (a
/// transition's input place), else in several; sometimes with two targets.
/// Sometimes error states and an attached property monitor.
pub fn random_wide_network(seed: u64) -> Network {
    let mut rng = SplitMix(seed);
    let process_count = rng.range(2, 5);
    let sizes: Vec<usize> = (0..process_count).map(|_| rng.range(1, 6)).collect();
    let mut processes: Vec<Process> = sizes
        .iter()
        .enumerate()
        .map(|(i, &states)| {
            let mut lts = Lts {
                state_names: (0..states).map(|s| format!("q{s}")).collect(),
                initial: rng.range(0, states - 1) as u32,
                ..Lts::default()
            };
            let alone = lts.intern_label(&format!("p{i}_alone"));
            lts.transitions.push(LtsTransition {
                source: rng.range(0, states - 1) as u32,
                label: alone,
                target: rng.range(0, states - 1) as u32,
            });
            let mut error_states = Vec::new();
            if states > 1 && rng.chance(15) {
                error_states.push(ErrorState {
                    state: states as u32 - 1,
                    kind: ErrorKind::Model(format!("process {i} failed")),
                });
            }
            Process {
                name: format!("P{i}"),
                lts,
                error_states,
            }
        })
        .collect();
    let mut rules = Vec::new();
    for k in 0..rng.range(12, 48) {
        let mut members: Vec<usize> = (0..process_count).filter(|_| rng.chance(50)).collect();
        members.truncate(4);
        if members.is_empty() {
            members.push(rng.range(0, process_count - 1));
        }
        for &i in &members {
            let states = sizes[i];
            let lts = &mut processes[i].lts;
            let label = lts.intern_label(&format!("r{k}_p{i}"));
            let sources = if rng.chance(75) {
                1
            } else {
                rng.range(1, states)
            };
            for _ in 0..sources {
                let source = rng.range(0, states - 1) as u32;
                for _ in 0..if rng.chance(20) { 2 } else { 1 } {
                    lts.transitions.push(LtsTransition {
                        source,
                        label,
                        target: rng.range(0, states - 1) as u32,
                    });
                }
            }
        }
        rules.push(SyncRule {
            participants: members
                .iter()
                .map(|&process| Participant {
                    process,
                    label: format!("r{k}_p{process}"),
                })
                .collect(),
            // Sometimes two rules share a result action.
            result: format!("r{}", if rng.chance(10) { 0 } else { k }),
        });
    }
    let mut net = Network {
        processes,
        rules,
        unmatched: UnmatchedLabels::Independent,
        monitors: Vec::new(),
    };
    net.validate()
        .expect("generated networks are valid by construction");
    if rng.chance(30) {
        net = net.with_monitor(&random_monitor(&mut rng, &net));
    }
    net
}

/// A proptest strategy over [`random_wide_network`], shrinking by seed.
pub fn wide_networks() -> impl Strategy<Value = Network> {
    any::<u64>().prop_map(random_wide_network)
}

/// A scalable network with a known state space: `processes` counters of
/// `states` values each; counter `i` steps up alone (`inc_i`) and, with
/// `resets`, drops from its top value back to 0 together with counter
/// `i + 1` (mod `processes`) on `reset_i`, which that counter takes on a
/// self-loop in any state. Every combination of values is reachable, so
/// there are `states ^ processes` states; without resets the all-top state
/// is the only deadlock, `processes * (states - 1)` steps deep.
pub fn counters(processes: usize, states: usize, resets: bool) -> Network {
    let mut net = Network::default();
    for i in 0..processes {
        let mut lts = Lts {
            state_names: (0..states).map(|s| format!("c{s}")).collect(),
            ..Lts::default()
        };
        let inc = lts.intern_label(&format!("inc_{i}"));
        for s in 0..states as u32 - 1 {
            lts.transitions.push(LtsTransition {
                source: s,
                label: inc,
                target: s + 1,
            });
        }
        if resets {
            let reset = lts.intern_label(&format!("reset_{i}"));
            lts.transitions.push(LtsTransition {
                source: states as u32 - 1,
                label: reset,
                target: 0,
            });
            let previous = (i + processes - 1) % processes;
            let follow = lts.intern_label(&format!("reset_{previous}"));
            for s in 0..states as u32 {
                lts.transitions.push(LtsTransition {
                    source: s,
                    label: follow,
                    target: s,
                });
            }
        }
        net.processes.push(Process {
            name: format!("C{i}"),
            lts,
            error_states: Vec::new(),
        });
    }
    if resets {
        for i in 0..processes {
            let mut participants: Vec<Participant> = [i, (i + 1) % processes]
                .iter()
                .map(|&process| Participant {
                    process,
                    label: format!("reset_{i}"),
                })
                .collect();
            participants.sort();
            net.rules.push(SyncRule {
                participants,
                result: format!("reset_{i}"),
            });
        }
    }
    net
}

/// A chain of `n` two-state processes: process `i` may step only after
/// process `i - 1` did (rule `a_i` with a self-loop of `i - 1`). `n + 1`
/// states, `n` transitions, one deadlock; every word of the vector varies.
pub fn chain(n: usize) -> Network {
    let mut processes = Vec::new();
    let mut rules = Vec::new();
    for i in 0..n {
        let mut lts = Lts {
            state_names: vec!["idle".into(), "done".into()],
            ..Lts::default()
        };
        let own = lts.intern_label(&format!("a{i}"));
        lts.transitions.push(LtsTransition {
            source: 0,
            label: own,
            target: 1,
        });
        if i + 1 < n {
            let next = lts.intern_label(&format!("a{}", i + 1));
            lts.transitions.push(LtsTransition {
                source: 1,
                label: next,
                target: 1,
            });
        }
        processes.push(Process {
            name: format!("p{i}"),
            lts,
            error_states: Vec::new(),
        });
        if i > 0 {
            rules.push(SyncRule {
                participants: [i - 1, i]
                    .iter()
                    .map(|&process| Participant {
                        process,
                        label: format!("a{i}"),
                    })
                    .collect(),
                result: format!("a{i}"),
            });
        }
    }
    Network {
        processes,
        rules,
        ..Network::default()
    }
}

/// `network` with `count` two-state processes that never move put in
/// front (rules renumbered), so that vectors span more words while the
/// behaviour stays the same. Some start in state 1 so words are not zero.
pub fn widened(mut network: Network, count: usize) -> Network {
    let padding = (0..count).map(|i| Process {
        name: format!("pad{i}"),
        lts: Lts {
            state_names: vec!["a".into(), "b".into()],
            initial: u32::from(i % 3 == 0),
            ..Lts::default()
        },
        error_states: Vec::new(),
    });
    network.processes.splice(0..0, padding);
    for rule in &mut network.rules {
        for participant in &mut rule.participants {
            participant.process += count;
        }
    }
    network
}
