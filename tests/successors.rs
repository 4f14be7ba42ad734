//! `SuccessorGenerator` against a direct reading of the model: on random
//! networks, every state of the product of the processes' local states (not
//! only reachable ones) has the same multiset of (action, successor, error)
//! and the same `Expansion` counts, with the full lookup tables, without
//! any, and with a budget that tables only some participants.

mod common;

use proptest::prelude::*;
use warpcheck::encode::{EncodedNetwork, Expansion, SuccessorGenerator};
use warpcheck::model::{Network, UnmatchedLabels};

/// Most product states checked per network.
const MAX_PRODUCT_STATES: usize = 20_000;

/// One step: action name, successor local states, error flag.
type Step = (String, Vec<u32>, bool);

/// The steps of global state `locals` straight from the model's semantics:
/// a label no rule mentions fires alone (unless unmatched labels are
/// blocked); a rule fires with every combination of its participants'
/// distinct targets; a rule that all but the monitor offer, and that has
/// some other participant, is a blocked monitor step.
fn model_steps(net: &Network, monitor: Option<usize>, locals: &[u32]) -> (Vec<Step>, Expansion) {
    let is_error = |p: usize, s: u32| net.processes[p].error_states.iter().any(|e| e.state == s);
    // Distinct targets of process p from its current state under `label`.
    let targets = |p: usize, label: &str| -> Vec<u32> {
        let lts = &net.processes[p].lts;
        let mut t: Vec<u32> = lts
            .transitions
            .iter()
            .filter(|t| t.source == locals[p] && lts.labels[t.label as usize] == label)
            .map(|t| t.target)
            .collect();
        t.sort_unstable();
        t.dedup();
        t
    };
    let mut steps = Vec::new();
    let mut expansion = Expansion::default();
    for (p, process) in net.processes.iter().enumerate() {
        if net.unmatched == UnmatchedLabels::Blocked {
            continue;
        }
        for label in &process.lts.labels {
            let synchronised = net.rules.iter().any(|r| {
                r.participants
                    .iter()
                    .any(|q| q.process == p && &q.label == label)
            });
            if synchronised {
                continue;
            }
            for target in targets(p, label) {
                let mut next = locals.to_vec();
                next[p] = target;
                steps.push((label.clone(), next, is_error(p, target)));
            }
        }
    }
    for rule in &net.rules {
        let choices: Vec<(usize, Vec<u32>)> = rule
            .participants
            .iter()
            .map(|q| (q.process, targets(q.process, &q.label)))
            .collect();
        let missing: Vec<usize> = choices
            .iter()
            .filter(|c| c.1.is_empty())
            .map(|c| c.0)
            .collect();
        if choices.len() > 1 && monitor.is_some_and(|m| missing == [m]) {
            expansion.monitor_blocked += 1;
            continue;
        }
        if !missing.is_empty() {
            continue;
        }
        let mut combinations: Vec<(Vec<u32>, bool)> = vec![(locals.to_vec(), false)];
        for (p, targets) in &choices {
            combinations = combinations
                .into_iter()
                .flat_map(|(next, error)| {
                    targets.iter().map(move |&t| {
                        let mut next = next.clone();
                        next[*p] = t;
                        (next, error || is_error(*p, t))
                    })
                })
                .collect();
        }
        steps.extend(
            combinations
                .into_iter()
                .map(|(next, error)| (rule.result.clone(), next, error)),
        );
    }
    expansion.successors = steps.len() as u64;
    steps.sort();
    (steps, expansion)
}

/// Compares the generator with [`model_steps`] on every product state.
fn check_network(net: &Network, encoded: &EncodedNetwork) -> Result<(), TestCaseError> {
    let sizes: Vec<u32> = net
        .processes
        .iter()
        .map(|p| p.lts.state_names.len() as u32)
        .collect();
    let mut generator = SuccessorGenerator::new(encoded);
    let mut locals = vec![0u32; sizes.len()];
    for _ in 0..MAX_PRODUCT_STATES {
        let mut vector = vec![0u32; encoded.words()];
        for (p, &s) in locals.iter().enumerate() {
            encoded.layout.set(&mut vector, p, s);
        }
        let mut steps = Vec::new();
        let expansion = generator.for_each(&vector, |s| {
            let next = (0..sizes.len())
                .map(|p| encoded.layout.get(s.state, p))
                .collect();
            steps.push((encoded.actions[s.action as usize].clone(), next, s.error));
        });
        steps.sort();
        let (expected, expected_expansion) = model_steps(net, encoded.monitor, &locals);
        prop_assert_eq!(&steps, &expected, "steps of {:?}", locals);
        prop_assert_eq!(expansion, expected_expansion, "expansion of {:?}", locals);
        // Next product state (odometer); done after the last.
        let Some(p) = (0..sizes.len()).find(|&p| locals[p] + 1 < sizes[p]) else {
            return Ok(());
        };
        locals[p] += 1;
        locals[..p].fill(0);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn successors_match_the_model(net in common::networks(), partial_rows in 0usize..12) {
        let mut encoded = EncodedNetwork::new(&net).expect("encodes");
        check_network(&net, &encoded)?;
        encoded.limit_lookup_tables(0);
        prop_assert_eq!(encoded.successor_tables().lookup_rows(), 0);
        check_network(&net, &encoded)?;
        encoded.limit_lookup_tables(partial_rows);
        prop_assert!(encoded.successor_tables().lookup_rows() <= partial_rows);
        check_network(&net, &encoded)?;
    }
}

/// The counters network: counter `i` is the owner of nothing but its own
/// `inc_i`, and each state has exactly the expected successors.
#[test]
fn counters_have_exact_successors() {
    let net = common::counters(3, 4, true);
    let encoded = EncodedNetwork::new(&net).expect("encodes");
    check_network(&net, &encoded).expect("matches the model");
    let mut generator = SuccessorGenerator::new(&encoded);
    let expansion = generator.for_each(&encoded.initial, |_| {});
    // Three increments; no counter is at its top, so no reset.
    assert_eq!(
        expansion,
        Expansion {
            successors: 3,
            monitor_blocked: 0
        }
    );
}
