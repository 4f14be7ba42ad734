//! `SuccessorGenerator` against a direct reading of the model: on random
//! networks, every state of the product of the processes' local states (not
//! only reachable ones) has the same multiset of (action, successor, error)
//! and the same `Expansion` counts, with the full lookup tables, without
//! any, and with a budget that tables only some participants. The GPU
//! kernel's generator, run on the host over the flattened tables, agrees
//! too, on random networks and on the reachable states of the MCC models.
//! So does `SuccessorGenerator::for_each_merged`, which emits the
//! successors of parallel rules once (random networks given parallel copies
//! of their rules, MCC models whose transitions repeat each other's arcs).

use std::path::Path;

use proptest::prelude::*;
use warpcheck::encode::{
    DEFAULT_INDEXED_FROM, DEFAULT_LOOKUP_ROWS, ERROR_TARGET, EncodedNetwork, Expansion, FIXED_ROW,
    FlatSuccessorTables, INDEPENDENT, MONITOR_ROW, OwnerChoice, RULE_INDEX, SuccessorGenerator,
};
use warpcheck::model::{Network, UnmatchedLabels};
use warpcheck::testing;

/// Most product states checked per network.
const MAX_PRODUCT_STATES: usize = 20_000;
/// Most reachable states checked per MCC model.
const MAX_REACHABLE_STATES: usize = 20_000;

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

/// A successor vector and whether it entered an error state.
type Successor = (Vec<u32>, bool);

/// `generator_next` of `kernels/explore/network.cuh` on the host: every
/// successor of `state` through the flat tables, sorted, what the kernel
/// counts, and the most combinations of one enabled rule.
fn kernel_successors(
    net: &EncodedNetwork,
    tables: &FlatSuccessorTables,
    state: &[u32],
) -> (Vec<Successor>, Expansion, u64) {
    // A field as [word, shift, mask] (the kernel's get_field/set_field).
    let get = |f: &[u32], vector: &[u32]| (vector[f[0] as usize] >> f[1]) & f[2];
    let set = |f: &[u32], vector: &mut [u32], value: u32| {
        let word = &mut vector[f[0] as usize];
        *word = (*word & !(f[2] << f[1])) | ((value & f[2]) << f[1]);
    };
    let item_at = |at: u32| &tables.items[4 * at as usize..][..4];
    let mut found = Vec::new();
    let mut most_combinations = 0;
    let mut expansion = Expansion::default();
    for (p, field) in net.layout.fields.iter().enumerate() {
        let own_field = [field.word, field.shift, field.mask() >> field.shift];
        let at = net.proc_offsets[p] as usize + get(&own_field, state) as usize;
        // The local state's items, each rule index in place of the items
        // of the cell that the state selects.
        let mut items = Vec::new();
        for at in tables.item_offsets[at]..tables.item_offsets[at + 1] {
            let item = item_at(at);
            if item[0] & INDEPENDENT != 0 || item[0] & RULE_INDEX == 0 {
                items.push(item);
                continue;
            }
            let cell: u32 = (item[0] & !RULE_INDEX..item[1])
                .map(|key| {
                    let row = &tables.others[4 * key as usize..][..4];
                    get(row, state) * row[3]
                })
                .sum();
            let row = 2 * (item[2] + cell) as usize;
            for at in tables.lookup[row]..tables.lookup[row + 1] {
                let filed = item_at(at);
                assert_eq!(
                    filed[0] & (INDEPENDENT | RULE_INDEX),
                    0,
                    "cells file owned rules"
                );
                items.push(filed);
            }
        }
        for item in items {
            if item[0] & INDEPENDENT != 0 {
                let mut next = state.to_vec();
                set(&own_field, &mut next, item[1] & !ERROR_TARGET);
                found.push((next, item[1] & ERROR_TARGET != 0));
                continue;
            }
            let mut ranges = vec![(&own_field[..], item[1] as usize, item[2] as usize)];
            let (mut monitor_missing, mut enabled) = (false, true);
            for other in item[0] as usize..item[3] as usize {
                let row = &tables.others[4 * other..][..4];
                let base = (row[3] & !(MONITOR_ROW | FIXED_ROW)) as usize;
                let at = if row[3] & FIXED_ROW != 0 {
                    base
                } else {
                    base + get(row, state) as usize
                };
                let (lo, hi) = (tables.lookup[2 * at], tables.lookup[2 * at + 1]);
                if lo < hi {
                    ranges.push((row, lo as usize, hi as usize));
                } else if row[3] & MONITOR_ROW != 0 {
                    monitor_missing = true;
                } else {
                    enabled = false;
                    break;
                }
            }
            if !enabled {
                continue;
            }
            if monitor_missing {
                expansion.monitor_blocked += 1;
                continue;
            }
            // Combinations in mixed radix over the participants' entries.
            let combinations: usize = ranges.iter().map(|&(_, lo, hi)| hi - lo).product();
            most_combinations = most_combinations.max(combinations as u64);
            for mut c in 0..combinations {
                let mut next = state.to_vec();
                let mut error = false;
                for &(f, lo, hi) in &ranges {
                    let target = net.transitions[2 * (lo + c % (hi - lo)) + 1];
                    c /= hi - lo;
                    error |= target & ERROR_TARGET != 0;
                    set(f, &mut next, target & !ERROR_TARGET);
                }
                found.push((next, error));
            }
        }
    }
    expansion.successors = found.len() as u64;
    found.sort();
    (found, expansion, most_combinations)
}

/// The kernel's tables: those of `encoded` flattened, or rebuilt with a
/// full budget when its own tables leave participants to binary search.
fn kernel_tables(encoded: &EncodedNetwork) -> FlatSuccessorTables {
    encoded
        .flat_successor_tables(DEFAULT_LOOKUP_ROWS, OwnerChoice::MostSelective)
        .expect("small networks fit the row budget")
}

/// Compares the generator, and the kernel's generator over the flat
/// tables, with [`model_steps`] on every product state.
fn check_network(net: &Network, encoded: &EncodedNetwork) -> Result<(), TestCaseError> {
    let sizes: Vec<u32> = net
        .processes
        .iter()
        .map(|p| p.lts.state_names.len() as u32)
        .collect();
    let mut generator = SuccessorGenerator::new(encoded);
    // The kernel's generator with either owner choice.
    let lowest_owners = encoded
        .flat_successor_tables(DEFAULT_LOOKUP_ROWS, OwnerChoice::Lowest)
        .expect("small networks fit the row budget");
    let all_tables = [kernel_tables(encoded), lowest_owners];
    // The kernels' combination counter is sized by this bound: no state
    // exceeds it, and where every product state is visited, one reaches it.
    let bound = encoded.max_combinations();
    let mut most_combinations = 0;
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
        let (merged, merged_expansion) = merged_successors(&mut generator, &vector);
        prop_assert_eq!(
            merged,
            distinct_successors(steps.iter().map(|(_, next, error)| {
                let mut vector = vec![0u32; encoded.words()];
                for (p, &s) in next.iter().enumerate() {
                    encoded.layout.set(&mut vector, p, s);
                }
                (vector, *error)
            })),
            "merged successors of {:?}",
            locals
        );
        prop_assert_eq!(
            merged_expansion,
            expected_expansion,
            "merged expansion of {:?}",
            locals
        );
        let mut expected_successors: Vec<_> = expected
            .into_iter()
            .map(|(_, next, error)| (next, error))
            .collect();
        expected_successors.sort();
        for tables in &all_tables {
            let (kernel_found, kernel_expansion, combinations) =
                kernel_successors(encoded, tables, &vector);
            prop_assert!(
                combinations <= bound,
                "a rule has {combinations} combinations at {:?}, over the bound {bound}",
                locals
            );
            most_combinations = most_combinations.max(combinations);
            let mut kernel_steps: Vec<_> = kernel_found
                .into_iter()
                .map(|(next, error)| {
                    let locals = (0..sizes.len()).map(|p| encoded.layout.get(&next, p));
                    (locals.collect::<Vec<u32>>(), error)
                })
                .collect();
            kernel_steps.sort();
            prop_assert_eq!(
                &kernel_steps,
                &expected_successors,
                "kernel steps of {:?}",
                locals
            );
            prop_assert_eq!(
                kernel_expansion,
                expected_expansion,
                "kernel expansion of {:?}",
                locals
            );
        }
        // Next product state (odometer); done after the last.
        let Some(p) = (0..sizes.len()).find(|&p| locals[p] + 1 < sizes[p]) else {
            prop_assert_eq!(most_combinations, bound, "the most combinations of a rule");
            return Ok(());
        };
        locals[p] += 1;
        locals[..p].fill(0);
    }
    Ok(())
}

/// The distinct `(successor, error)` pairs among `successors`, sorted.
fn distinct_successors(
    successors: impl Iterator<Item = (Vec<u32>, bool)>,
) -> Vec<(Vec<u32>, bool)> {
    let mut distinct: Vec<_> = successors.collect();
    distinct.sort();
    distinct.dedup();
    distinct
}

/// The distinct successors that [`SuccessorGenerator::for_each_merged`]
/// emits for `state`, with its counts; no successor is emitted twice for
/// one set of parallel rules, so the emitted ones number at most the
/// transitions counted.
fn merged_successors(
    generator: &mut SuccessorGenerator<'_>,
    state: &[u32],
) -> (Vec<(Vec<u32>, bool)>, Expansion) {
    let mut emitted = Vec::new();
    let expansion = generator.for_each_merged(state, |s| emitted.push((s.state.to_vec(), s.error)));
    assert!(emitted.len() as u64 <= expansion.successors);
    (distinct_successors(emitted.into_iter()), expansion)
}

/// `net` with a parallel copy of each rule that `picks` names (modulo the
/// rule count; repeats give several copies): the same participants and
/// labels under another action.
fn with_parallel_copies(mut net: Network, picks: &[usize]) -> Network {
    if net.rules.is_empty() {
        return net;
    }
    for (copy, &pick) in picks.iter().enumerate() {
        let mut rule = net.rules[pick % net.rules.len()].clone();
        rule.result = format!("{}_copy{copy}", rule.result);
        net.rules.push(rule);
    }
    net
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn successors_match_the_model(net in testing::networks(), partial_rows in 0usize..12) {
        let mut encoded = EncodedNetwork::new(&net).expect("encodes");
        check_network(&net, &encoded)?;
        let full = kernel_tables(&encoded);
        let rows = encoded.successor_tables().lookup_rows();
        // Few rules a local state: no rule indexes, only participant rows.
        prop_assert_eq!(encoded.successor_tables().index_sizes(), (0, 0));
        prop_assert_eq!(rows, full.lookup.len() / 2);
        encoded.limit_lookup_tables(0);
        prop_assert_eq!(encoded.successor_tables().lookup_rows(), 0);
        check_network(&net, &encoded)?;
        encoded.limit_lookup_tables(partial_rows);
        prop_assert!(encoded.successor_tables().lookup_rows() <= partial_rows);
        check_network(&net, &encoded)?;
        // The flat tables never depend on the CPU's budget; they fit in
        // exactly as many rows as the full tables have.
        prop_assert_eq!(kernel_tables(&encoded), full.clone());
        prop_assert_eq!(encoded.flat_successor_tables(rows, OwnerChoice::MostSelective), Some(full));
        if rows > 0 {
            prop_assert_eq!(encoded.flat_successor_tables(rows - 1, OwnerChoice::MostSelective), None);
        }
        // Every rule with key participants indexed, with and without rows.
        encoded.index_rules_from(0);
        check_network(&net, &encoded)?;
        encoded.limit_lookup_tables(0);
        check_network(&net, &encoded)?;
    }

    /// Networks with many rules a local state: rule indexes at the default
    /// threshold where a process owns enough rules, everywhere, and never;
    /// with the full row budget, none and some.
    #[test]
    fn indexed_successors_match_the_model(
        net in testing::wide_networks(),
        indexed_from in 0usize..4,
        partial_rows in 0usize..40,
    ) {
        let mut encoded = EncodedNetwork::new(&net).expect("encodes");
        prop_assert_eq!(encoded.successor_tables().indexed_from(), DEFAULT_INDEXED_FROM);
        check_network(&net, &encoded)?;
        for from in [indexed_from, usize::MAX] {
            encoded.index_rules_from(from);
            prop_assert_eq!(encoded.successor_tables().indexed_from(), from);
            check_network(&net, &encoded)?;
            encoded.limit_lookup_tables(partial_rows);
            prop_assert_eq!(encoded.successor_tables().indexed_from(), from);
            check_network(&net, &encoded)?;
            encoded.limit_lookup_tables(DEFAULT_LOOKUP_ROWS);
        }
        encoded.index_rules_from(usize::MAX);
        prop_assert_eq!(encoded.successor_tables().index_sizes(), (0, 0));
    }

    /// Networks with parallel rules (copies of some rules under other
    /// actions): every rule's action is emitted by `for_each`, the merged
    /// generation emits each successor once and counts every copy, with
    /// and without rule indexes and lookup rows.
    #[test]
    fn parallel_rules_are_merged_and_counted(
        net in prop_oneof![testing::networks(), testing::wide_networks()],
        picks in prop::collection::vec(any::<usize>(), 1..12),
        partial_rows in 0usize..20,
    ) {
        let net = with_parallel_copies(net, &picks);
        let mut encoded = EncodedNetwork::new(&net).expect("encodes");
        check_network(&net, &encoded)?;
        encoded.index_rules_from(0);
        check_network(&net, &encoded)?;
        encoded.limit_lookup_tables(partial_rows);
        check_network(&net, &encoded)?;
    }
}

/// The wide random networks do exercise rule indexes: with every rule
/// that has key participants indexed, most of them have some.
#[test]
fn wide_networks_have_rule_indexes() {
    let indexed = (0..50)
        .filter(|&seed| {
            let mut encoded = EncodedNetwork::new(&testing::random_wide_network(seed)).unwrap();
            encoded.index_rules_from(0);
            encoded.successor_tables().index_sizes().0 > 0
        })
        .count();
    assert!(
        indexed >= 40,
        "only {indexed} of 50 networks have rule indexes"
    );
}

/// The counters network: counter `i` is the owner of nothing but its own
/// `inc_i`, and each state has exactly the expected successors.
#[test]
fn counters_have_exact_successors() {
    let net = testing::counters(3, 4, true);
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

/// The kernel's generator over the flat tables and the reference
/// generator give the same successors and counts on every reachable state
/// (up to 20,000 each) of the small MCC models; so do both with the rules
/// indexed wherever they have key participants.
#[test]
fn kernel_tables_generate_the_reference_successors_on_mcc_models() {
    let models = testing::mcc_models(Path::new("tests/data/mcc"));
    assert!(!models.is_empty(), "no models under tests/data/mcc");
    for model in models {
        let net = testing::load_mcc_model(&model);
        let mut indexed = net.clone();
        indexed.index_rules_from(0);
        assert!(indexed.successor_tables().index_sizes().0 > 0);
        let kernels = [
            (&net, kernel_tables(&net)),
            (&indexed, kernel_tables(&indexed)),
        ];
        let mut generator = SuccessorGenerator::new(&net);
        let mut indexed_generator = SuccessorGenerator::new(&indexed);
        let mut seen = std::collections::HashSet::from([net.initial.clone()]);
        let mut queue = vec![net.initial.clone()];
        while let Some(state) = queue.pop() {
            let mut expected = Vec::new();
            let expansion =
                generator.for_each(&state, |s| expected.push((s.state.to_vec(), s.error)));
            expected.sort();
            let mut from_index = Vec::new();
            let index_expansion = indexed_generator
                .for_each(&state, |s| from_index.push((s.state.to_vec(), s.error)));
            from_index.sort();
            assert_eq!(
                from_index,
                expected,
                "{}: indexed successors of {state:?}",
                model.display()
            );
            assert_eq!(
                index_expansion,
                expansion,
                "{}: indexed, at {state:?}",
                model.display()
            );
            for merging in [&mut generator, &mut indexed_generator] {
                let (merged, merged_expansion) = merged_successors(merging, &state);
                assert_eq!(
                    merged,
                    distinct_successors(expected.iter().cloned()),
                    "{}: merged successors of {state:?}",
                    model.display()
                );
                assert_eq!(
                    merged_expansion,
                    expansion,
                    "{}: merged, at {state:?}",
                    model.display()
                );
            }
            for (encoded, tables) in &kernels {
                let (found, kernel_expansion, _) = kernel_successors(encoded, tables, &state);
                assert_eq!(
                    found,
                    expected,
                    "{}: successors of {state:?}",
                    model.display()
                );
                assert_eq!(
                    kernel_expansion,
                    expansion,
                    "{}: at {state:?}",
                    model.display()
                );
            }
            for (next, _) in expected {
                if seen.len() < MAX_REACHABLE_STATES && seen.insert(next.clone()) {
                    queue.push(next);
                }
            }
        }
    }
}

/// Parking-PT-104 repeats the arcs of 41 of its 97 transitions: merged
/// generation emits fewer successors than it counts transitions on its
/// first reachable states, and the same counts as `for_each`.
#[test]
fn parallel_transitions_of_a_contest_net_are_emitted_once() {
    let net = testing::load_mcc_model(Path::new("tests/data/mcc/Parking-PT-104"));
    let mut generator = SuccessorGenerator::new(&net);
    let mut seen = std::collections::HashSet::from([net.initial.clone()]);
    let mut queue = std::collections::VecDeque::from([net.initial.clone()]);
    let (mut emitted, mut merged_transitions, mut transitions) = (0u64, 0u64, 0u64);
    while let Some(state) = queue.pop_front().filter(|_| seen.len() < 2_000) {
        merged_transitions += generator
            .for_each_merged(&state, |_| emitted += 1)
            .successors;
        transitions += generator
            .for_each(&state, |s| {
                if seen.insert(s.state.to_vec()) {
                    queue.push_back(s.state.to_vec());
                }
            })
            .successors;
    }
    assert_eq!(merged_transitions, transitions);
    assert!(
        emitted < transitions,
        "{emitted} successors emitted for {transitions} transitions"
    );
}
