//! Tree storage in the multi-core engine (`--storage tree|auto`): the same
//! counts and verdicts as the reference engine on vectors of 1, 2, 3 and
//! many words, traces that replay, a node table that fills, the switch
//! from whole vectors to trees under a memory limit, and fewer bytes a
//! state than whole vectors once they are wide.

use proptest::prelude::*;
use warpcheck::encode::EncodedNetwork;
use warpcheck::explore::cpu::{self, CpuOptions};
use warpcheck::explore::{Completion, SearchOptions, Storage, reference};
use warpcheck::model::{Lts, LtsTransition, Network, Participant, Process, SyncRule};
use warpcheck::testing;

use crate::cpu::{counts, run_growing};

/// Thread counts every comparison runs at.
const THREADS: [usize; 3] = [1, 2, 8];

/// A search for deadlocks, with `storage`, keeping going after findings
/// or not.
fn options(storage: Storage, keep_going: bool) -> SearchOptions {
    SearchOptions {
        check_deadlock: true,
        keep_going,
        storage,
        ..SearchOptions::default()
    }
}

/// Local states of a process in a chain of [`lockstep`]: 3 bits.
const CHAIN: u32 = 8;

/// `counters(3, 4, resets)` (64 combinations of three counters, which
/// fire alone) and groups of more processes, of `groups[j]` processes
/// each, of [`CHAIN`] local states in a chain, those of a group stepping
/// together: 64 * 8^groups states and 6 + 3 bits a process of a group.
/// Without resets its one deadlock is 9 + 7 * groups steps deep.
fn lockstep(groups: &[usize], resets: bool) -> Network {
    let mut net = testing::counters(3, 4, resets);
    for (group, &size) in groups.iter().enumerate() {
        let first = net.processes.len();
        let label = format!("tick_{group}");
        for i in 0..size {
            let mut lts = Lts {
                state_names: (0..CHAIN).map(|s| format!("w{s}")).collect(),
                ..Lts::default()
            };
            let tick = lts.intern_label(&label);
            lts.transitions = (0..CHAIN - 1)
                .map(|s| LtsTransition {
                    source: s,
                    label: tick,
                    target: s + 1,
                })
                .collect();
            net.processes.push(Process {
                name: format!("G{group}_{i}"),
                lts,
                error_states: Vec::new(),
            });
        }
        net.rules.push(SyncRule {
            participants: (first..first + size)
                .map(|process| Participant {
                    process,
                    label: label.clone(),
                })
                .collect(),
            result: label,
        });
    }
    net.validate().unwrap();
    net
}

/// Groups of [`lockstep`] nets of 1, 2, 3 and 10 words, with those words.
const WIDTHS: [(&[usize], usize); 4] = [(&[], 1), (&[12], 2), (&[13, 12], 3), (&[34, 33, 33], 10)];

/// The [`lockstep`] net of ten words, 32768 states.
fn ten_words(resets: bool) -> EncodedNetwork {
    EncodedNetwork::new(&lockstep(WIDTHS[3].0, resets)).unwrap()
}

/// A [`lockstep`] net of ten words whose 512 states mostly differ in
/// every word: many nodes a state.
fn ten_words_all_changing() -> EncodedNetwork {
    EncodedNetwork::new(&lockstep(&[100], true)).unwrap()
}

#[test]
fn trees_of_one_two_three_and_ten_words_count_as_the_reference() {
    for (groups, words) in WIDTHS {
        let encoded = EncodedNetwork::new(&lockstep(groups, true)).unwrap();
        assert_eq!(encoded.words(), words, "groups {groups:?}");
        let expected = reference::explore(&encoded, &options(Storage::Plain, true));
        assert_eq!(expected.completion, Completion::Complete);
        for threads in THREADS {
            let r = run_growing(&encoded, &options(Storage::Tree, true), threads, None);
            assert_eq!(
                counts(&r),
                counts(&expected),
                "{words} words, {threads} threads"
            );
            assert_eq!(r.storage, Storage::Tree);
        }
    }
}

#[test]
fn tree_traces_replay_at_every_width() {
    for (groups, _) in WIDTHS {
        let encoded = EncodedNetwork::new(&lockstep(groups, false)).unwrap();
        let depth = 9 + 7 * groups.len();
        for threads in THREADS {
            let r = run_growing(&encoded, &options(Storage::Tree, false), threads, None);
            assert_eq!(r.completion, Completion::StoppedAtFinding);
            let finding = r.first.expect("the deadlock is found");
            assert_eq!(finding.trace.as_ref().unwrap().actions.len(), depth);
            testing::check_finding(&encoded, &finding).unwrap();
        }
    }
}

#[test]
fn trees_count_the_small_mcc_models_as_the_reference() {
    let root = crate::repo_root();
    let models = testing::mcc_models(&root.join("tests/data/mcc"));
    assert!(models.len() >= 20, "{} models", models.len());
    for model in models {
        let encoded = testing::load_mcc_model(&model);
        let expected = reference::explore(&encoded, &options(Storage::Plain, true));
        let first = reference::explore(&encoded, &options(Storage::Plain, false));
        for threads in [1, 2] {
            let r = run_growing(&encoded, &options(Storage::Tree, true), threads, None);
            assert_eq!(counts(&r), counts(&expected), "{}", model.display());
            let stopped = cpu::explore(
                &encoded,
                &options(Storage::Tree, false),
                &CpuOptions { threads },
            );
            assert_eq!(
                (stopped.completion, stopped.first.is_some()),
                (first.completion, first.first.is_some()),
                "{}",
                model.display()
            );
            if let Some(finding) = &stopped.first {
                testing::check_finding(&encoded, finding).unwrap();
                assert_eq!(
                    finding.trace.as_ref().unwrap().actions.len(),
                    first
                        .first
                        .as_ref()
                        .unwrap()
                        .trace
                        .as_ref()
                        .unwrap()
                        .actions
                        .len(),
                    "{}: a shortest trace",
                    model.display()
                );
            }
        }
    }
}

#[test]
fn a_full_node_table_ends_the_search_incomplete() {
    // Ten words a state, of which the first holds the counters: a state
    // has nodes of its own (those above that word, up to the root), more
    // than the node table that fits in 10 KiB beside the index and the
    // roots (about 8 KiB for the 512 states) holds.
    let encoded = ten_words_all_changing();
    for threads in THREADS {
        for traces in [true, false] {
            let search = SearchOptions {
                no_trace: !traces,
                ..options(Storage::Tree, true)
            };
            let r = run_growing(&encoded, &search, threads, Some(10 << 10));
            assert_eq!(r.completion, Completion::TableFull, "{threads} threads");
            assert_eq!(r.storage, Storage::Tree);
            assert!(
                (1..512).contains(&r.states),
                "{} states with {threads} threads",
                r.states
            );
            // The index, roots and node table stay within the limit; the
            // level lists and the predecessor log come on top.
            assert!(
                r.memory_bytes <= (10 << 10) + 38 * r.states,
                "{} bytes",
                r.memory_bytes
            );
        }
    }
}

#[test]
fn auto_turns_to_trees_mid_search_with_the_counts_of_plain() {
    let encoded = ten_words(true);
    let expected = reference::explore(&encoded, &options(Storage::Plain, true));
    // Whole vectors of 40 bytes (and 4 planned for the predecessor): the
    // 1.25 MiB hold an index of 30 048 entries (4 bytes) and its 27 043
    // records (44 bytes), too few for the 32 768 states. As trees (8-byte
    // roots), an index of 65 536 entries and its 58 982 records take
    // 0.93 MiB, beside their node table.
    let limit = 5 << 18;
    for threads in THREADS {
        let plain = run_growing(
            &encoded,
            &options(Storage::Plain, true),
            threads,
            Some(limit),
        );
        assert_eq!(plain.completion, Completion::TableFull);
        assert_eq!(plain.storage, Storage::Plain);
        let auto = run_growing(
            &encoded,
            &options(Storage::Auto, true),
            threads,
            Some(limit),
        );
        assert_eq!(counts(&auto), counts(&expected), "{threads} threads");
        assert_eq!(auto.storage, Storage::Tree);
        // Traces follow predecessors stored before the switch.
        let stopped_net = ten_words(false);
        let stopped = run_growing(
            &stopped_net,
            &options(Storage::Auto, false),
            threads,
            Some(limit),
        );
        let finding = stopped.first.expect("the deadlock is found");
        assert_eq!(finding.trace.as_ref().unwrap().actions.len(), 9 + 3 * 7);
        testing::check_finding(&stopped_net, &finding).unwrap();
        assert_eq!(stopped.storage, Storage::Tree);
    }
    // With room, auto keeps whole vectors.
    let roomy = run_growing(&encoded, &options(Storage::Auto, true), 2, None);
    assert_eq!(
        (roomy.storage, roomy.states),
        (Storage::Plain, expected.states)
    );
}

#[test]
fn auto_keeps_vectors_of_two_words_whole() {
    // A root takes as much as a vector of two words: no switch, the table
    // fills.
    let encoded = EncodedNetwork::new(&lockstep(WIDTHS[1].0, true)).unwrap();
    let r = run_growing(&encoded, &options(Storage::Auto, true), 2, Some(4 << 10));
    assert_eq!(
        (r.completion, r.storage),
        (Completion::TableFull, Storage::Plain)
    );
}

#[test]
fn wide_vectors_take_fewer_bytes_a_state_as_trees() {
    // Ten words: 40 bytes of vector and a 4-byte index entry a state
    // stored whole; as a tree, an 8-byte root, the entry, and its share
    // of the nodes, which the 32 768 states mostly share: the three groups
    // and the counters take 8 or 64 values each, and a node below the
    // root covers a few of them.
    let encoded = ten_words(true);
    let search = |storage| SearchOptions {
        no_trace: true,
        ..options(storage, true)
    };
    let plain = cpu::explore(
        &encoded,
        &search(Storage::Plain),
        &CpuOptions { threads: 2 },
    );
    let tree = cpu::explore(&encoded, &search(Storage::Tree), &CpuOptions { threads: 2 });
    assert_eq!(plain.state_bytes, 32_768 * 44);
    assert_eq!(tree.states, 32_768);
    let per_state = tree.state_bytes as f64 / tree.states as f64;
    assert!(
        (12.0..20.0).contains(&per_state),
        "{per_state} bytes a state"
    );
    // The memory counts the node table.
    assert!(tree.memory_bytes > tree.state_bytes);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn trees_of_any_width_agree_with_reference(
        groups in proptest::collection::vec(1usize..24, 0..=3),
        resets: bool,
    ) {
        let encoded = EncodedNetwork::new(&lockstep(&groups, resets)).unwrap();
        let expected = reference::explore(&encoded, &options(Storage::Plain, true));
        let r = run_growing(&encoded, &options(Storage::Tree, true), 2, None);
        prop_assert_eq!(counts(&r), counts(&expected));
        let stopped = run_growing(&encoded, &options(Storage::Tree, false), 2, None);
        prop_assert_eq!(stopped.first.is_some(), !resets);
        if let Some(finding) = &stopped.first {
            prop_assert!(testing::check_finding(&encoded, finding).is_ok());
        }
    }
}
