//! The multi-core engine against the reference engine: same counts on
//! complete searches, same verdict and breadth-first level of the first
//! finding otherwise, at 1, 2 and 8 threads; every trace replays.

use std::ops::RangeInclusive;
use std::path::Path;

use proptest::prelude::*;
use warpcheck::encode::EncodedNetwork;
use warpcheck::explore::cpu::{self, CpuOptions, TableStart};
use warpcheck::explore::{
    Completion, Exploration, Finding, FindingKind, SearchOptions, Storage, reference,
};
use warpcheck::model::Network;
use warpcheck::testing;

/// Thread counts every comparison runs at.
const THREADS: [usize; 3] = [1, 2, 8];
/// Index entries of the smallest table (one bucket): a search that starts
/// there grows its table at every doubling of its states.
const TINY_TABLE: u64 = 8;
/// Reference searches larger than this are not compared (suite time).
const MAX_COMPARED_STATES: u64 = 300_000;

fn options(check_deadlock: bool, keep_going: bool) -> SearchOptions {
    SearchOptions {
        check_deadlock,
        keep_going,
        ..SearchOptions::default()
    }
}

/// The engine with the default table and memory limit.
fn run_parallel(net: &EncodedNetwork, search: &SearchOptions, threads: usize) -> Exploration {
    cpu::explore(net, search, &CpuOptions { threads })
}

/// The figures two complete searches must share: states, transitions,
/// deadlocks, errors, depth and how the search ended.
pub(crate) fn counts(r: &Exploration) -> (u64, u64, u64, u64, u32, Completion) {
    (
        r.states,
        r.transitions,
        r.deadlocks,
        r.errors,
        r.depth,
        r.completion,
    )
}

/// The engine starting from a one-bucket table, with at most
/// `memory_bytes` (default: the engine's limit).
pub(crate) fn run_growing(
    net: &EncodedNetwork,
    search: &SearchOptions,
    threads: usize,
    memory_bytes: Option<u64>,
) -> Exploration {
    run_growing_from(net, search, threads, memory_bytes, 0)
}

/// [`run_growing`] with state ids from `first_id`.
pub(crate) fn run_growing_from(
    net: &EncodedNetwork,
    search: &SearchOptions,
    threads: usize,
    memory_bytes: Option<u64>,
    first_id: u64,
) -> Exploration {
    let limited = SearchOptions {
        memory_bytes,
        ..search.clone()
    };
    let start = TableStart {
        slots: TINY_TABLE,
        first_id,
    };
    cpu::explore_from(net, &limited, &CpuOptions { threads }, start)
}

/// The breadth-first level whose expansion produced `finding`: a deadlock
/// is found expanding its own level, an error state while expanding the
/// level before it (-1: the initial state is an error state).
fn finding_level(finding: &Finding) -> i64 {
    let steps = finding.trace.as_ref().expect("traces are on").actions.len() as i64;
    match finding.kind {
        FindingKind::Deadlock => steps,
        FindingKind::Error(_) => steps - 1,
    }
}

/// Compares the engines on `net` with and without keep-going, at
/// [`THREADS`] threads, with the default storage; returns a description of
/// the first difference.
fn compare(net: &Network, check_deadlock: bool) -> Result<(), String> {
    compare_with(
        net,
        check_deadlock,
        SearchOptions::default().storage,
        0,
        &THREADS,
    )
}

/// [`compare`] with `storage`, state ids from `first_id`, at each of
/// `thread_counts` threads.
pub(crate) fn compare_with(
    net: &Network,
    check_deadlock: bool,
    storage: Storage,
    first_id: u64,
    thread_counts: &[usize],
) -> Result<(), String> {
    let encoded = EncodedNetwork::new(net).map_err(|e| e.to_string())?;
    let all = options(check_deadlock, true);
    let reference = reference::explore(&encoded, &all);
    let first_only = options(check_deadlock, false);
    let reference_first = reference::explore(&encoded, &first_only);
    let stored = |search: SearchOptions| SearchOptions { storage, ..search };
    let (all, first_only) = (stored(all), stored(first_only));
    let counts = |r: &Exploration| {
        (
            r.states,
            r.transitions,
            r.deadlocks,
            r.errors,
            r.monitor_blocked,
        )
    };
    let verdict = |r: &Exploration| (r.first.as_ref().map(finding_level), r.completion, r.depth);
    for &threads in thread_counts {
        // The complete search grows its table from one bucket, many times.
        let found = run_growing_from(&encoded, &all, threads, None, first_id);
        if found.engine != format!("cpu ({threads} threads)") {
            return Err(format!("engine name {:?}", found.engine));
        }
        // A fatal finding stops even a keep-going search part way.
        if verdict(&found) != verdict(&reference)
            || (reference.completion == Completion::Complete
                && counts(&found) != counts(&reference))
        {
            return Err(format!(
                "{threads} threads, keep going: (states, transitions, deadlocks, errors, \
                 monitor_blocked) {:?}, (finding level, completion, depth) {:?}; \
                 reference {:?}, {:?}",
                counts(&found),
                verdict(&found),
                counts(&reference),
                verdict(&reference)
            ));
        }
        let start = TableStart {
            first_id,
            ..TableStart::default()
        };
        let stopped = cpu::explore_from(&encoded, &first_only, &CpuOptions { threads }, start);
        if verdict(&stopped) != verdict(&reference_first) {
            return Err(format!(
                "{threads} threads, first finding: (level, completion, depth) {:?}, reference {:?}",
                verdict(&stopped),
                verdict(&reference_first)
            ));
        }
        for finding in [&found.first, &stopped.first].into_iter().flatten() {
            testing::check_finding(&encoded, finding)
                .map_err(|e| format!("{threads} threads: bad finding: {e}"))?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn agrees_with_reference_on_random_networks(net in testing::networks(), check_deadlock: bool) {
        if let Err(difference) = compare(&net, check_deadlock) {
            prop_assert!(false, "{}", difference);
        }
    }
}

#[test]
fn agrees_with_reference_on_counters_with_real_contention() {
    // 4^8 = 65536 states: enough for the threads to race on the table.
    let net = testing::counters(8, 4, true);
    compare(&net, true).unwrap();
    let encoded = EncodedNetwork::new(&net).unwrap();
    let r = run_parallel(&encoded, &options(true, true), 8);
    assert_eq!((r.states, r.deadlocks), (65_536, 0));
}

#[test]
fn finds_the_deep_deadlock_with_a_shortest_trace() {
    let net = testing::counters(6, 5, false);
    let encoded = EncodedNetwork::new(&net).unwrap();
    for threads in THREADS {
        let r = run_parallel(&encoded, &options(true, false), threads);
        assert_eq!(r.completion, Completion::StoppedAtFinding);
        let finding = r.first.unwrap();
        assert_eq!(finding.kind, FindingKind::Deadlock);
        assert_eq!(
            finding.state,
            vec![4 | 4 << 3 | 4 << 6 | 4 << 9 | 4 << 12 | 4 << 15]
        );
        assert_eq!(finding.trace.as_ref().unwrap().actions.len(), 24);
        testing::check_finding(&encoded, &finding).unwrap();
    }
}

#[test]
fn no_trace_reports_the_finding_without_a_path() {
    let encoded = EncodedNetwork::new(&testing::counters(3, 3, false)).unwrap();
    let search = SearchOptions {
        check_deadlock: true,
        no_trace: true,
        ..SearchOptions::default()
    };
    let finding = run_parallel(&encoded, &search, 2).first.unwrap();
    assert_eq!(finding.kind, FindingKind::Deadlock);
    assert_eq!(finding.trace, None);
}

#[test]
fn state_limit_stops_with_exactly_the_limit_on_one_thread() {
    let encoded = EncodedNetwork::new(&testing::counters(4, 4, true)).unwrap();
    let search = SearchOptions {
        max_states: Some(100),
        ..SearchOptions::default()
    };
    let reference = reference::explore(&encoded, &search);
    assert_eq!(
        (reference.states, reference.completion),
        (100, Completion::StateLimit)
    );
    let r = run_parallel(&encoded, &search, 1);
    assert_eq!((r.states, r.completion), (100, Completion::StateLimit));
    for threads in [2, 8] {
        let r = run_parallel(&encoded, &search, threads);
        assert_eq!(r.completion, Completion::StateLimit);
        assert!(r.states <= 100 && r.states > 90, "{} states", r.states);
    }
    // A limit the search never reaches changes nothing. (A limit of
    // exactly 256 could still end early: with several threads, a reserved
    // id that lost its insertion race stays unused, so the search may stop
    // up to one state per thread short of the limit.)
    let roomy = SearchOptions {
        max_states: Some(256 + 8),
        ..SearchOptions::default()
    };
    let r = run_parallel(&encoded, &roomy, 2);
    assert_eq!((r.states, r.completion), (256, Completion::Complete));
}

#[test]
fn a_full_table_ends_the_search_incomplete() {
    // Vectors of one word take 4 bytes of store, the memory limit plans 4
    // more a state for its predecessor, and an index entry takes 4 bytes,
    // of which 90% may be used. The table doubles
    // from one bucket (16 entries) while it fits in 4 KiB: up to 256
    // entries for 230 states (2.8 KiB), then to the 352 entries for 316
    // states that fit (3.9 KiB: 4096 bytes / (4 + 0.9 * 8) bytes an entry,
    // in whole buckets), and no further.
    let encoded = EncodedNetwork::new(&testing::counters(5, 4, true)).unwrap();
    for threads in THREADS {
        let r = run_growing(&encoded, &options(true, true), threads, Some(4096));
        assert_eq!(r.completion, Completion::TableFull);
        // Threads reserve ids in batches of at most capacity / (16 *
        // threads), so ids held unused when the table fills waste at most
        // a sixteenth of it.
        assert!(
            r.states <= 316 && r.states >= 316 - 316 / 16,
            "{} states with {threads} threads",
            r.states
        );
        // Every one of the 316 ids was handed out, used or not.
        assert_memory(&r, 352, 316..=316, 4);
    }
}

#[test]
fn a_limit_below_one_bucket_holds_the_initial_state_only() {
    // A one-bucket index (8 entries of 4 bytes) alone exceeds 20 bytes.
    // Each storage then keeps the initial state, as the reference engine
    // does, and stops with a full table instead of taking the bucket (or,
    // for trees, a first node table of half a megabyte) beyond the limit.
    let encoded = EncodedNetwork::new(&testing::counters(5, 4, true)).unwrap();
    for storage in [Storage::Plain, Storage::Tree, Storage::Auto] {
        let search = SearchOptions {
            memory_bytes: Some(20),
            storage,
            ..options(true, true)
        };
        let expected = reference::explore(&encoded, &search);
        assert_eq!(
            (expected.states, expected.completion),
            (1, Completion::TableFull)
        );
        for threads in THREADS {
            let r = run_parallel(&encoded, &search, threads);
            assert_eq!(
                (r.states, r.transitions, r.completion),
                (expected.states, expected.transitions, expected.completion),
                "{storage:?}, {threads} threads"
            );
            assert!(
                r.memory_bytes < 256,
                "{storage:?}: {} bytes",
                r.memory_bytes
            );
        }
    }
}

#[test]
fn growing_many_times_with_many_threads_keeps_counts_and_traces() {
    // 4^8 = 65536 states, from a table of one bucket: 13 growths, most of
    // them in the middle of a level, with 8 threads racing on the table
    // and holding reserved ids that the rebuilt index must leave out.
    let net = testing::counters(8, 4, true);
    let encoded = EncodedNetwork::new(&net).unwrap();
    let reference = reference::explore(&encoded, &options(true, true));
    for threads in THREADS {
        let r = run_growing(&encoded, &options(true, true), threads, None);
        assert_eq!(
            (r.states, r.transitions, r.deadlocks, r.depth, r.completion),
            (
                reference.states,
                reference.transitions,
                reference.deadlocks,
                reference.depth,
                Completion::Complete
            )
        );
        // An index of 2^17 4-byte entries (2^16 would hold 58982 states),
        // 4 bytes of store per id handed out, and the predecessor log.
        assert_memory(&r, 1 << 17, handed_out(&r, threads, 117_964), 4);
    }
    // The deadlock 24 steps deep, reached through many growths: its trace
    // follows predecessor ids stored before the growths.
    let encoded = EncodedNetwork::new(&testing::counters(6, 5, false)).unwrap();
    for threads in THREADS {
        let r = run_growing(&encoded, &options(true, false), threads, None);
        let finding = r.first.expect("the deadlock is found");
        assert_eq!(finding.trace.as_ref().unwrap().actions.len(), 24);
        testing::check_finding(&encoded, &finding).unwrap();
    }
}

#[test]
fn the_default_table_grows_past_its_first_size() {
    // 5^7 = 78125 states do not fit the first table (52428 states).
    let encoded = EncodedNetwork::new(&testing::counters(7, 5, true)).unwrap();
    let reference = reference::explore(&encoded, &options(true, true));
    for threads in [1, 2] {
        let r = run_parallel(&encoded, &options(true, true), threads);
        assert_eq!(
            (r.states, r.transitions, r.completion),
            (78_125, reference.transitions, Completion::Complete)
        );
        assert_memory(&r, 1 << 17, handed_out(&r, threads, 117_964), 4);
    }
}

/// Asserts that `r.memory_bytes` counts an index of `index_slots` 4-byte
/// entries, the records (of `record_bytes` bytes) of the state ids handed
/// out, `ids` of them, the breadth-first lists of state ids, which take at
/// most 16 bytes a state (two 8-byte runs: in the finished level and in
/// the next one), and with traces the predecessor log, at most 23 bytes a
/// state (an entry of a 1-byte header and a delta of at most 6 bytes, for
/// ids below 2^40, and a 16-byte run start).
fn assert_memory(r: &Exploration, index_slots: u64, ids: RangeInclusive<u64>, record_bytes: u64) {
    assert_memory_with(r, (index_slots, 4), ids, record_bytes);
}

/// [`assert_memory`] for an index of `index.0` entries of `index.1`
/// bytes each.
pub(crate) fn assert_memory_with(
    r: &Exploration,
    (index_slots, entry_bytes): (u64, u64),
    ids: RangeInclusive<u64>,
    record_bytes: u64,
) {
    let index_bytes = index_slots * entry_bytes;
    let least = index_bytes + ids.start() * record_bytes;
    let most = index_bytes + ids.end() * record_bytes + (16 + 23) * r.states;
    assert!(
        (least..=most).contains(&r.memory_bytes),
        "{} bytes for {} states, expected {least}..={most}",
        r.memory_bytes,
        r.states
    );
}

/// The state ids a complete search of `r.states` states with `threads`
/// threads on a table of `capacity` states hands out: at least one per
/// state, at most the unused rest of each thread's last batch (of
/// capacity / (16 * threads) ids, at most 4096) more.
pub(crate) fn handed_out(r: &Exploration, threads: usize, capacity: u64) -> RangeInclusive<u64> {
    let batch = (capacity / (16 * threads as u64)).clamp(1, 4096);
    r.states..=r.states + threads as u64 * batch
}

#[test]
fn traces_cost_a_compressed_predecessor_log() {
    // 4^6 = 4096 states of one word. With a state limit, one thread takes
    // one id at a time, so it hands out exactly one id per state, and both
    // searches build the same index and lists: the only difference is the
    // predecessor log. Its entries cover up to 16 states each and take a
    // byte when the expanding state moved by less than 8 since the last
    // entry, as it does in a breadth-first search of counters: between a
    // byte per 16 states and a byte per state, plus one 16-byte run start.
    let encoded = EncodedNetwork::new(&testing::counters(6, 4, true)).unwrap();
    let with_limit = |no_trace| SearchOptions {
        max_states: Some(1 << 20),
        no_trace,
        ..options(true, true)
    };
    let traced = run_parallel(&encoded, &with_limit(false), 1);
    let untraced = run_parallel(&encoded, &with_limit(true), 1);
    assert_eq!((traced.states, untraced.states), (4096, 4096));
    let log = traced.memory_bytes - untraced.memory_bytes;
    assert!(
        (4095 / 16 + 16..=4095 + 16).contains(&log),
        "{log} bytes of log"
    );
    // The first index (2^16 entries) holds them: 4 bytes an entry, and a
    // 4-byte vector a state.
    assert_memory(&untraced, 1 << 16, 4096..=4096, 4);
    assert_memory(&traced, 1 << 16, 4096..=4096, 4);
}

#[test]
fn progress_is_reported_on_long_runs() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    let calls = Arc::new(AtomicU64::new(0));
    let seen = calls.clone();
    let search = SearchOptions {
        progress: Some(Arc::new(move |p| {
            assert!(p.states >= 1);
            seen.fetch_add(1, Ordering::Relaxed);
        })),
        ..SearchOptions::default()
    };
    let encoded = EncodedNetwork::new(&testing::counters(9, 5, true)).unwrap();
    let r = run_parallel(&encoded, &search, 2);
    assert_eq!(r.states, 5u64.pow(9));
    if r.elapsed.as_secs_f64() > 1.2 {
        assert!(calls.load(Ordering::Relaxed) >= 1);
    }
}

/// Compares the engines on every model file under `dir` with `extensions`
/// (or named `model.pnml` in a folder of `dir`, as in the MCC archive), with
/// no property and with each property attached.
fn compare_files(dir: &Path, extensions: &[&str]) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .map(|p| if p.is_dir() { p.join("model.pnml") } else { p })
        .filter(|p| {
            p.extension()
                .is_some_and(|x| extensions.iter().any(|e| x == *e))
        })
        .collect();
    paths.sort();
    let mut compared = 0;
    for path in paths {
        let Ok(net) = warpcheck::frontend::load(&path) else {
            continue;
        };
        let mut variants = vec![net.clone()];
        variants.extend(net.monitors.iter().map(|m| net.with_monitor(m)));
        for variant in variants {
            let encoded = EncodedNetwork::new(&variant).unwrap();
            let bounded = SearchOptions {
                max_states: Some(MAX_COMPARED_STATES),
                ..options(true, true)
            };
            if reference::explore(&encoded, &bounded).completion != Completion::Complete {
                continue;
            }
            if let Err(difference) = compare(&variant, true) {
                panic!("{}: {difference}", path.display());
            }
            compared += 1;
        }
    }
    compared
}

#[test]
fn agrees_with_reference_on_specs() {
    let root = crate::repo_root();
    let compared = compare_files(&root.join("specs"), &["net", "aut", "exp", "pnml"]);
    eprintln!("compared {compared} spec variants");
}

#[test]
fn agrees_with_reference_on_small_mcc_models() {
    let root = crate::repo_root();
    let compared = compare_files(&root.join("tests/data/mcc"), &["pnml"]);
    eprintln!("compared {compared} MCC models");
}
