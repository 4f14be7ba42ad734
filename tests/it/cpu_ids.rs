//! State ids of 64 bits in the multi-core engine. A search stores at most
//! a few million states here, so it numbers them from an id near or past
//! 2^32 (`TableStart::first_id`): counts, verdicts and traces against the
//! reference engine with whole vectors and trees, on 1 and 2 threads; an
//! index that grows from 4-byte entries to 8-byte ones; the memory counted
//! for each width; and the graph export.

use std::collections::BTreeSet;

use proptest::prelude::*;
use warpcheck::encode::EncodedNetwork;
use warpcheck::explicit::LabelledGraphBuilder;
use warpcheck::explore::cpu::{
    self, CpuOptions, NARROW_ENTRY_BYTES, NARROW_IDS_END, TableStart, WIDE_ENTRY_BYTES,
};
use warpcheck::explore::livelock::StateSpace;
use warpcheck::explore::{Completion, SearchOptions, Storage, reference};
use warpcheck::testing;

use crate::cpu::{assert_memory_with, compare_with, counts, handed_out, run_growing_from};

/// Ids from here cross 2^32 - 1, the last id a 4-byte entry holds, after
/// 1000 states: the index starts with 4-byte entries and grows into 8-byte
/// ones.
const CROSSING: u64 = NARROW_IDS_END - 1000;
/// Ids from here are all past 2^32: 8-byte entries from the start.
const PAST: u64 = 1 << 33;
/// Thread counts the comparisons run at.
const THREADS: [usize; 2] = [1, 2];

/// A complete search for deadlocks, keeping going after findings.
fn whole(storage: Storage) -> SearchOptions {
    SearchOptions {
        check_deadlock: true,
        keep_going: true,
        storage,
        ..SearchOptions::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn agrees_with_reference_on_random_networks_with_ids_past_32_bits(
        net in testing::networks(),
        check_deadlock: bool,
        storage in prop_oneof![Just(Storage::Plain), Just(Storage::Tree)],
        first_id in prop_oneof![Just(CROSSING), Just(PAST)],
    ) {
        if let Err(difference) = compare_with(&net, check_deadlock, storage, first_id, &THREADS) {
            prop_assert!(false, "first id {}, {:?}: {}", first_id, storage, difference);
        }
    }
}

#[test]
fn the_index_grows_from_narrow_to_wide_entries_keeping_counts_and_memory_right() {
    // 4^8 = 65536 states from a one-bucket table, 13 growths, the first
    // ones below 2^32 - 1 with 4-byte entries; the last index has 2^17
    // 8-byte entries.
    let encoded = EncodedNetwork::new(&testing::counters(8, 4, true)).unwrap();
    let expected = reference::explore(&encoded, &whole(Storage::Plain));
    for storage in [Storage::Plain, Storage::Tree] {
        for threads in THREADS {
            let r = run_growing_from(&encoded, &whole(storage), threads, None, CROSSING);
            assert_eq!(
                counts(&r),
                counts(&expected),
                "{storage:?}, {threads} threads"
            );
            if storage == Storage::Plain {
                let ids = handed_out(&r, threads, 117_964);
                assert_memory_with(&r, (1 << 17, WIDE_ENTRY_BYTES), ids, 4);
            }
        }
    }
    // Without traces, a state costs its 4-byte vector and an entry: 8
    // bytes past 2^32, 4 bytes below.
    let untraced = SearchOptions {
        no_trace: true,
        ..whole(Storage::Plain)
    };
    for (first_id, entry_bytes) in [(0, NARROW_ENTRY_BYTES), (CROSSING, WIDE_ENTRY_BYTES)] {
        let r = run_growing_from(&encoded, &untraced, 2, None, first_id);
        assert_eq!(r.state_bytes, 65_536 * (4 + entry_bytes));
    }
}

#[test]
fn traces_through_growths_replay_with_ids_past_32_bits() {
    // The deadlock 24 steps deep, reached through many growths, across
    // the change of entry width or past it.
    let encoded = EncodedNetwork::new(&testing::counters(6, 5, false)).unwrap();
    let search = SearchOptions {
        check_deadlock: true,
        ..SearchOptions::default()
    };
    for first_id in [CROSSING, PAST] {
        for storage in [Storage::Plain, Storage::Tree] {
            for threads in THREADS {
                let stored = SearchOptions {
                    storage,
                    ..search.clone()
                };
                let r = run_growing_from(&encoded, &stored, threads, None, first_id);
                let finding = r.first.expect("the deadlock is found");
                assert_eq!(finding.trace.as_ref().unwrap().actions.len(), 24);
                testing::check_finding(&encoded, &finding).unwrap();
            }
        }
    }
}

#[test]
fn limits_count_from_the_first_id() {
    let encoded = EncodedNetwork::new(&testing::counters(5, 4, true)).unwrap();
    // The state limit: one thread stops at exactly the limit.
    let limited = SearchOptions {
        max_states: Some(100),
        ..whole(Storage::Plain)
    };
    let r = run_growing_from(&encoded, &limited, 1, None, PAST);
    assert_eq!((r.states, r.completion), (100, Completion::StateLimit));
    // The memory limit, with 8-byte entries: an entry and 0.9 of a 4-byte
    // vector and a planned 4-byte predecessor take 15.2 bytes, so 4 KiB
    // holds 269 entries, 256 in whole buckets, the index of 230 states
    // that doubling reaches anyway; nothing larger fits.
    for threads in THREADS {
        let r = run_growing_from(&encoded, &whole(Storage::Plain), threads, Some(4096), PAST);
        assert_eq!(r.completion, Completion::TableFull);
        assert!(
            r.states <= 230 && r.states >= 230 - 230 / 16,
            "{} states with {threads} threads",
            r.states
        );
        assert_memory_with(&r, (256, WIDE_ENTRY_BYTES), 230..=230, 4);
    }
}

/// Every transition of `space` as the vectors of its ends and its action.
fn transitions_by_vector(space: &StateSpace) -> BTreeSet<(Vec<u32>, String, Vec<u32>)> {
    let graph = &space.graph;
    let states = u32::try_from(graph.edges.offsets.len() - 1).unwrap();
    let numbers: Vec<u32> = (0..states).collect();
    let vectors = space.vectors.vectors(&numbers).unwrap();
    graph
        .transitions()
        .map(|(source, action, target)| {
            (
                vectors[source as usize].clone(),
                graph.actions[action as usize].clone(),
                vectors[target as usize].clone(),
            )
        })
        .collect()
}

#[test]
fn the_exported_graph_is_the_reference_one_with_ids_past_32_bits() {
    let encoded = EncodedNetwork::new(&testing::counters(6, 4, true)).unwrap();
    let search = whole(Storage::Plain);
    let (expected_run, expected) = reference::explore_space(&encoded, &search).unwrap();
    let expected = transitions_by_vector(&expected.expect("the search is complete"));
    for first_id in [CROSSING, PAST] {
        let start = TableStart {
            slots: 16,
            first_id,
        };
        for threads in THREADS {
            let opts = CpuOptions { threads };
            let (run, space) = cpu::explore_space_from(&encoded, &search, &opts, start).unwrap();
            assert_eq!(counts(&run), counts(&expected_run));
            let space = space.expect("the search is complete");
            assert_eq!(transitions_by_vector(&space), expected, "{threads} threads");
            // The sink of `scc` and `--write-aut` gets the same graph: on
            // one thread the numbering is the same too.
            if threads == 1 {
                let mut builder = LabelledGraphBuilder::new(encoded.actions.clone());
                cpu::explore_into_from(&encoded, &search, &opts, start, &mut builder).unwrap();
                let graph = builder.into_graph().unwrap();
                assert_eq!(graph.transitions().collect::<Vec<_>>(), {
                    space.graph.transitions().collect::<Vec<_>>()
                });
            }
        }
    }
}
