//! The GPU engine against the reference engine: exact counts and verdicts
//! on hundreds of random networks (with synchronisation, nondeterminism,
//! error states and monitors), on wide vectors, on generated families and
//! on the MCC models; every GPU trace is replayed through the reference
//! semantics. Without a GPU every test prints `SKIPPED: no GPU available
//! (<reason>)` and passes.
//!
//! The `#[ignore]`d test needs files from outside the repository and is
//! run on the GPU machine by `scripts/gpu_test.sh`; the throughput
//! benchmark is `benches/gpu_explore.rs` (`scripts/gpu_bench.sh`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use warpcheck::encode::EncodedNetwork;
use warpcheck::encode::{HASH_GOLDEN, hash_words};
use warpcheck::explicit::{Csr, LabelledGraphBuilder};
use warpcheck::explore::gpu::{
    self, Frontier, GpuExploration, GpuOptions, OwnerChoice, ReadOnlyPath, SlotNumbers,
    SyncCombination,
};
use warpcheck::explore::{Completion, Exploration, SearchOptions, Storage, outcome, reference};
use warpcheck::frontend::aut::AutWriter;
use warpcheck::generate;
use warpcheck::gpu::{Device, GpuError, KERNEL_DIR_VARIABLE, scan};
use warpcheck::model::Network;
use warpcheck::testing;

/// Device memory for test searches: small, so that tables clear quickly.
const TEST_MEMORY: u64 = 64 << 20;

/// The first GPU of the test binary; tests take turns on it.
pub(crate) fn with_gpu(run: impl FnOnce(&Device)) {
    static GPU: OnceLock<Result<Mutex<Device>, String>> = OnceLock::new();
    let opened = GPU.get_or_init(|| {
        Device::open(0).map(Mutex::new).map_err(|e| match e {
            GpuError::Unavailable(reason) => reason,
            other => other.to_string(),
        })
    });
    match opened {
        Ok(gpu) => run(&gpu.lock().unwrap_or_else(|e| e.into_inner())),
        Err(reason) => {
            warpcheck::testing::skipped(format_args!("no GPU available ({reason})"));
        }
    }
}

pub(crate) fn search(keep_going: bool) -> SearchOptions {
    SearchOptions {
        check_deadlock: true,
        keep_going,
        ..SearchOptions::default()
    }
}

/// `search` with the tests' small device memory.
fn small(search: SearchOptions) -> SearchOptions {
    SearchOptions {
        memory_bytes: Some(TEST_MEMORY),
        ..search
    }
}

/// The figures every engine must agree on.
pub(crate) fn figures(e: &Exploration) -> (u64, u64, u64, u64, u64, u32, Completion) {
    (
        e.states,
        e.transitions,
        e.deadlocks,
        e.errors,
        e.monitor_blocked,
        e.depth,
        e.completion,
    )
}

/// Compares a full search and a stop-at-first search of `net` with the
/// reference engine; replays the GPU's finding.
fn compare(
    device: &Device,
    net: &EncodedNetwork,
    options: &GpuOptions,
    what: &str,
) -> Result<(), String> {
    compare_stored(device, net, options, Storage::Auto, what)
}

/// [`compare`] with the states stored as `storage` says.
fn compare_stored(
    device: &Device,
    net: &EncodedNetwork,
    options: &GpuOptions,
    storage: Storage,
    what: &str,
) -> Result<(), String> {
    let what = format!("{what} ({options:?})");
    compare_with(net, storage, &what, |search| {
        gpu::explore(device, net, &small(search), options)
    })
}

/// Compares a full search and stop-at-first searches (with and without
/// traces) that `explore` runs with the reference engine, the states
/// stored as `storage` says; replays the findings.
pub(crate) fn compare_with(
    net: &EncodedNetwork,
    storage: Storage,
    what: &str,
    explore: impl Fn(SearchOptions) -> Result<GpuExploration, GpuError>,
) -> Result<(), String> {
    let all = SearchOptions {
        storage,
        ..search(true)
    };
    let reference = reference::explore(net, &all);
    let found = explore(all.clone()).map_err(|e| format!("{what}: {e}"))?;
    // A search that ends at its initial state stores nothing.
    if storage != Storage::Auto && found.launches > 0 && found.exploration.storage != storage {
        return Err(format!(
            "{what}: stored as {:?}, not {storage:?}",
            found.exploration.storage
        ));
    }
    let fatal_stop = found.exploration.completion == Completion::StoppedAtFinding;
    if fatal_stop {
        // A Model error ends even a --all search; where it is met first
        // depends on the search order, so only the verdict is compared.
        let finding = found
            .exploration
            .first
            .as_ref()
            .ok_or("stopped without a finding")?;
        if !outcome::is_fatal(net, &finding.kind) || reference.errors == 0 {
            return Err(format!(
                "{what}: --all search stopped at {:?}",
                finding.kind
            ));
        }
        testing::check_finding(net, finding).map_err(|e| format!("{what}: {e}"))?;
    } else if figures(&found.exploration) != figures(&reference) {
        return Err(format!(
            "{what}: gpu {:?} != reference {:?}",
            figures(&found.exploration),
            figures(&reference)
        ));
    }
    for trace in [true, false] {
        let first = SearchOptions {
            no_trace: !trace,
            storage,
            ..search(false)
        };
        let reference = reference::explore(net, &first);
        let found = explore(first.clone())
            .map_err(|e| format!("{what}: {e}"))?
            .exploration;
        if found.completion != reference.completion
            || found.first.is_some() != reference.first.is_some()
        {
            return Err(format!(
                "{what}: stop-at-first verdict {:?}/{} != reference {:?}/{}",
                found.completion,
                found.first.is_some(),
                reference.completion,
                reference.first.is_some()
            ));
        }
        if let Some(finding) = &found.first {
            if finding.trace.is_some() != trace {
                return Err(format!("{what}: trace presence should be {trace}"));
            }
            testing::check_finding(net, finding).map_err(|e| format!("{what}: {e}"))?;
        }
    }
    Ok(())
}

/// A different combination of the design switches for each seed (for a
/// network of `processes` processes: the shared-memory sync buffers need a
/// thread each, so at most 32).
pub(crate) fn options_for(seed: u64, processes: usize) -> GpuOptions {
    let buffers = seed % 7 == 3 && processes <= 32;
    GpuOptions {
        cache: seed.is_multiple_of(2),
        work_claiming: !seed.is_multiple_of(3),
        readonly_path: match seed % 5 {
            0 => ReadOnlyPath::Plain,
            1 => ReadOnlyPath::Ldg,
            _ => ReadOnlyPath::Texture,
        },
        owners: if seed % 6 == 2 {
            OwnerChoice::Lowest
        } else {
            OwnerChoice::MostSelective
        },
        frontier: match seed % 4 {
            1 => Frontier::NewMarks,
            3 => Frontier::SpillingQueue,
            _ => Frontier::Queue,
        },
        // Some spilling queues (trees' too) hold 3 states: levels spill.
        queue_entries: (seed % 5 == 2).then_some(3),
        sync: if buffers {
            SyncCombination::SharedBuffers
        } else {
            SyncCombination::Lookup
        },
        // Some seeds give a state a group of 2 to 8 threads (the default
        // for small networks is 1).
        group_threads: (seed.is_multiple_of(11) && !buffers).then_some(2 << (seed % 3)),
        iterations: Some([1, 3, 32][(seed % 3) as usize]),
        blocks: seed.is_multiple_of(7).then_some(2),
        threads_per_block: seed.is_multiple_of(4).then_some(64),
        // Tables that start at 32 buckets grow several times (and levels
        // that fill them run again); some with 64-bit slot numbers.
        initial_table_bytes: (seed % 3 != 1).then_some(4 << 10),
        slot_numbers: if seed % 5 == 4 {
            SlotNumbers::Wide
        } else {
            SlotNumbers::Auto
        },
        ..GpuOptions::default()
    }
}

/// Compares the GPU with the reference on each `(seed, network, name)`,
/// with the switches [`options_for`] picks from the seed, and fails once
/// with every mismatch listed.
fn assert_all_match(device: &Device, cases: impl Iterator<Item = (u64, Network, String)>) {
    assert_all_stored_match(device, Storage::Auto, cases);
}

/// [`assert_all_match`] with the states stored as `storage` says.
fn assert_all_stored_match(
    device: &Device,
    storage: Storage,
    cases: impl Iterator<Item = (u64, Network, String)>,
) {
    let failures: Vec<String> = cases
        .filter_map(|(seed, network, name)| {
            let net = EncodedNetwork::new(&network).expect("test networks encode");
            let what = format!("{name} ({} words, {storage:?})", net.words());
            compare_stored(
                device,
                &net,
                &options_for(seed, net.processes()),
                storage,
                &what,
            )
            .err()
        })
        .collect();
    assert_none_failed(&failures);
}

/// Fails once with every failure listed.
fn assert_none_failed(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn random_networks_match_the_reference() {
    with_gpu(|device| {
        let cases =
            (0..400u64).map(|seed| (seed, testing::random_network(seed), format!("seed {seed}")));
        assert_all_match(device, cases);
    });
}

#[test]
fn wide_random_networks_match_the_reference() {
    with_gpu(|device| {
        // 100 pad bits: 4 words; 1100 pad bits: 36 words, buckets of 2 lines.
        let cases = [(100usize, 0..60u64), (1100, 60..90)]
            .into_iter()
            .flat_map(|(pads, seeds)| seeds.map(move |seed| (pads, seed)))
            .map(|(pads, seed)| {
                let network = testing::widened(testing::random_network(seed), pads);
                (seed, network, format!("seed {seed} + {pads} pads"))
            });
        assert_all_match(device, cases);
    });
}

#[test]
fn long_chains_of_wide_vectors_are_exact() {
    with_gpu(|device| {
        for n in [40, 700, 1500] {
            let net = EncodedNetwork::new(&testing::chain(n)).unwrap();
            let found = gpu::explore(device, &net, &small(search(true)), &GpuOptions::default())
                .unwrap()
                .exploration;
            assert_eq!(
                (
                    found.states,
                    found.transitions,
                    found.deadlocks,
                    found.depth
                ),
                (n as u64 + 1, n as u64, 1, n as u32),
                "chain of {n} ({} words)",
                net.words()
            );
            compare(device, &net, &GpuOptions::default(), &format!("chain {n}")).unwrap();
        }
    });
}

#[test]
fn generated_families_have_their_exact_counts() {
    with_gpu(|device| {
        let cases = [
            ("philosophers", 3),
            ("philosophers", 9),
            ("philosophers", 14),
            ("barrier", 3),
            ("barrier", 5),
        ];
        for (family, n) in cases {
            let (text, expected) = if family == "philosophers" {
                (
                    generate::philosophers(n),
                    generate::philosophers_expected(n),
                )
            } else {
                (generate::barrier(n), generate::barrier_expected(n))
            };
            let what = format!("{family} {n}");
            let network =
                warpcheck::frontend::net::parse(&text.unwrap(), Path::new("generated.net"))
                    .unwrap();
            let net = EncodedNetwork::new(&network).unwrap();
            let found = gpu::explore(device, &net, &small(search(true)), &GpuOptions::default())
                .unwrap()
                .exploration;
            assert_eq!(
                (
                    found.states as u128,
                    found.transitions as u128,
                    found.deadlocks as u128
                ),
                (expected.states, expected.transitions, expected.deadlocks),
                "{what}"
            );
            compare(device, &net, &GpuOptions::default(), &what).unwrap();
        }
    });
}

/// A network whose first level is wide: one process with `branches`
/// ways out of its initial state (and back), beside a three-state cycle.
fn star(branches: usize) -> Network {
    let mut text = String::from("process star { init centre;");
    for b in 0..branches {
        text.push_str(&format!(" centre -out_{b}-> leaf_{b} -back-> centre;"));
    }
    text.push_str(" }\nprocess cycle { init a; a -step-> b -step-> c -step-> a; }\n");
    warpcheck::frontend::net::parse(&text, Path::new("star.net")).unwrap()
}

/// Tables that start tiny grow (beside the old one, or in its place
/// through host memory), with either width of slot numbers and both
/// frontiers; a level that fills the table runs again in the larger one.
/// Counts equal the reference's, traces replay.
#[test]
fn tables_that_grow_stay_exact() {
    with_gpu(|device| {
        let philosophers = warpcheck::frontend::net::parse(
            &generate::philosophers(16).unwrap(),
            Path::new("generated.net"),
        )
        .unwrap();
        let cases = [
            (
                &philosophers,
                4 << 10,
                256 << 20,
                Frontier::Queue,
                SlotNumbers::Auto,
                false,
            ),
            (
                &philosophers,
                4 << 10,
                256 << 20,
                Frontier::NewMarks,
                SlotNumbers::Wide,
                false,
            ),
            (
                &philosophers,
                64 << 10,
                48 << 20,
                Frontier::Queue,
                SlotNumbers::Wide,
                true,
            ),
            (
                &philosophers,
                64 << 10,
                48 << 20,
                Frontier::NewMarks,
                SlotNumbers::Auto,
                true,
            ),
            (
                &star(3000),
                4 << 10,
                64 << 20,
                Frontier::Queue,
                SlotNumbers::Auto,
                false,
            ),
            (
                &star(3000),
                4 << 10,
                64 << 20,
                Frontier::Queue,
                SlotNumbers::Wide,
                true,
            ),
            (
                &philosophers,
                64 << 10,
                48 << 20,
                Frontier::SpillingQueue,
                SlotNumbers::Auto,
                false,
            ),
            (
                &philosophers,
                4 << 10,
                256 << 20,
                Frontier::SpillingQueue,
                SlotNumbers::Wide,
                false,
            ),
        ];
        let mut staged = 0;
        let mut rerun = 0;
        for (network, initial, memory, frontier, numbers, staged_growth) in cases {
            let net = EncodedNetwork::new(network).unwrap();
            let options = GpuOptions {
                initial_table_bytes: Some(initial),
                frontier,
                slot_numbers: numbers,
                staged_growth,
                // A spilling queue of 100 entries where it spills (in a
                // table that never grows).
                queue_entries: (frontier == Frontier::SpillingQueue).then_some(100),
                ..GpuOptions::default()
            };
            let what = format!(
                "{} states, {initial} B of {memory} B, {frontier:?}, {numbers:?}, staged {staged_growth}",
                reference::explore(&net, &search(true)).states
            );
            for keep_going in [true, false] {
                for no_trace in [false, true] {
                    let unlimited = SearchOptions {
                        no_trace,
                        ..search(keep_going)
                    };
                    let reference = reference::explore(&net, &unlimited);
                    let options_search = SearchOptions {
                        memory_bytes: Some(memory),
                        ..unlimited
                    };
                    let found = gpu::explore(device, &net, &options_search, &options)
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert!(
                        !keep_going || found.growths > 0,
                        "{what}: the table never grew"
                    );
                    assert_eq!(
                        found.slot_bits,
                        if numbers == SlotNumbers::Wide { 64 } else { 32 }
                    );
                    staged += found.staged_growths;
                    rerun += found.rerun_levels;
                    let exploration = &found.exploration;
                    if keep_going {
                        assert_eq!(figures(exploration), figures(&reference), "{what}");
                    } else {
                        assert_eq!(exploration.completion, reference.completion, "{what}");
                    }
                    if let Some(finding) = &exploration.first {
                        assert_eq!(finding.trace.is_some(), !no_trace, "{what}");
                        testing::check_finding(&net, finding)
                            .unwrap_or_else(|e| panic!("{what}: {e}"));
                    }
                }
            }
        }
        assert!(
            staged > 0,
            "no growth staged the old table through the host"
        );
        assert!(rerun > 0, "no level ran again after filling the table");
    });
}

/// A first table of most of `--memory` (`--initial-table` near it, as
/// a user who wants no growth asks) stays within the memory: its queues
/// are those of a table that grows when it fills or spills, not a slot
/// each (in session 43, `--initial-table 51G` on Parking-PT-208 ended
/// with exit 2 in a budget of 125 GiB: queues of a slot each for its
/// 8.99·10^9 slots take about 144 GB beside the table). Counts equal the
/// reference's, with both plain frontiers and tree storage's spilling
/// queue; findings replay.
#[test]
fn a_first_table_of_most_of_the_memory_stays_within_it() {
    with_gpu(|device| {
        let net = EncodedNetwork::new(
            &warpcheck::frontend::net::parse(
                &generate::philosophers(16).unwrap(),
                Path::new("generated.net"),
            )
            .unwrap(),
        )
        .unwrap();
        let memory = 48 << 20;
        let mut failures = Vec::new();
        for (frontier, storage) in [
            (Frontier::Queue, Storage::Plain),
            (Frontier::NewMarks, Storage::Plain),
            (Frontier::SpillingQueue, Storage::Tree),
        ] {
            let options = GpuOptions {
                initial_table_bytes: Some(memory / 4 * 3),
                frontier,
                ..GpuOptions::default()
            };
            let what = format!("{frontier:?}, {storage:?}");
            let explore = |search: SearchOptions| {
                let search = SearchOptions {
                    memory_bytes: Some(memory),
                    ..search
                };
                let found = gpu::explore(device, &net, &search, &options)?;
                let used = found.exploration.memory_bytes;
                assert!(used <= memory, "{what}: {used} bytes used of {memory}");
                Ok(found)
            };
            failures.extend(compare_with(&net, storage, &what, explore).err());
        }
        assert_none_failed(&failures);
    });
}

/// Tree storage against the reference: random networks (every tree shape
/// from 1 to 36 words, with every design switch of `options_for`), long
/// chains of wide vectors, the specs and the small MCC models; traces
/// replay.
#[test]
fn tree_storage_matches_the_reference() {
    with_gpu(|device| {
        let random =
            (0..150u64).map(|seed| (seed, testing::random_network(seed), format!("seed {seed}")));
        let wide = [(40usize, 150..190u64), (100, 190..220), (1100, 220..235)]
            .into_iter()
            .flat_map(|(pads, seeds)| seeds.map(move |seed| (pads, seed)))
            .map(|(pads, seed)| {
                let network = testing::widened(testing::random_network(seed), pads);
                (seed, network, format!("seed {seed} + {pads} pads"))
            });
        assert_all_stored_match(device, Storage::Tree, random.chain(wide));
        let mut failures = Vec::new();
        for n in [40, 700] {
            let net = EncodedNetwork::new(&testing::chain(n)).unwrap();
            failures.extend(
                compare_stored(
                    device,
                    &net,
                    &GpuOptions::default(),
                    Storage::Tree,
                    &format!("chain {n}"),
                )
                .err(),
            );
        }
        for (what, net) in testing::spec_checks() {
            failures.extend(
                compare_stored(device, &net, &GpuOptions::default(), Storage::Tree, &what).err(),
            );
        }
        for model in testing::mcc_models(Path::new("tests/data/mcc")) {
            let net = testing::load_mcc_model(&model);
            let what = model.display().to_string();
            failures.extend(
                compare_stored(device, &net, &GpuOptions::default(), Storage::Tree, &what).err(),
            );
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

/// Device memory in which tree storage keeps its roots compact: the root
/// table has room for `compact.cuh`'s least number of buckets (2^21), the
/// node table a third beside it. ([`TEST_MEMORY`] keeps root pairs.)
const COMPACT_MEMORY: u64 = 1 << 30;

/// `explore` in `memory` bytes, failing unless the roots were compact.
fn explore_compact(
    device: &Device,
    net: &EncodedNetwork,
    search: SearchOptions,
    options: &GpuOptions,
    memory: u64,
) -> Result<GpuExploration, GpuError> {
    let search = SearchOptions {
        memory_bytes: Some(memory),
        ..search
    };
    let found = gpu::explore(device, net, &search, options)?;
    if found.launches > 0 && !found.compact_roots {
        return Err(GpuError::Invalid("the roots were not kept compact".into()));
    }
    Ok(found)
}

/// Compact roots against the reference: random networks (every tree shape
/// from 1 to 36 words, every design switch of `options_for`), long chains,
/// the specs and the small MCC models; traces replay through the links
/// the compact slots keep.
#[test]
fn compact_roots_match_the_reference() {
    with_gpu(|device| {
        let random =
            (0..120u64).map(|seed| (seed, testing::random_network(seed), format!("seed {seed}")));
        let wide = [(40usize, 150..170u64), (1100, 220..228)]
            .into_iter()
            .flat_map(|(pads, seeds)| seeds.map(move |seed| (pads, seed)))
            .map(|(pads, seed)| {
                let network = testing::widened(testing::random_network(seed), pads);
                (seed, network, format!("seed {seed} + {pads} pads"))
            });
        let mut cases: Vec<(EncodedNetwork, GpuOptions, String)> = random
            .chain(wide)
            .map(|(seed, network, what)| {
                let net = EncodedNetwork::new(&network).expect("test networks encode");
                let options = options_for(seed, net.processes());
                (net, options, what)
            })
            .collect();
        cases.push((
            EncodedNetwork::new(&testing::chain(700)).unwrap(),
            GpuOptions::default(),
            "chain 700".into(),
        ));
        for (what, net) in testing::spec_checks() {
            cases.push((net, GpuOptions::default(), what));
        }
        for model in testing::mcc_models(Path::new("tests/data/mcc")) {
            let net = testing::load_mcc_model(&model);
            cases.push((net, GpuOptions::default(), model.display().to_string()));
        }
        let failures: Vec<String> = cases
            .iter()
            .filter_map(|(net, options, what)| {
                let what = format!("{what} ({} words, compact roots)", net.words());
                compare_with(net, Storage::Tree, &what, |search| {
                    explore_compact(device, net, search, options, COMPACT_MEMORY)
                })
                .err()
            })
            .collect();
        assert_none_failed(&failures);
    });
}

/// A spilling queue (trees' frontier) that holds 5 states: every level
/// beyond them is marked in its spill bitmap and walked after the queue.
/// The table starts at its largest, where queues spill; compact roots and
/// root pairs, against the reference (traces replay), on a long chain,
/// the specs and the small MCC models.
#[test]
fn spilling_queues_match_the_reference() {
    with_gpu(|device| {
        let mut cases = vec![(
            EncodedNetwork::new(&testing::chain(700)).unwrap(),
            "chain 700".to_string(),
        )];
        cases.extend(
            testing::spec_checks()
                .into_iter()
                .map(|(what, net)| (net, what)),
        );
        for model in testing::mcc_models(Path::new("tests/data/mcc")) {
            cases.push((testing::load_mcc_model(&model), model.display().to_string()));
        }
        let mut failures = Vec::new();
        for (memory, compact) in [(COMPACT_MEMORY, true), (TEST_MEMORY, false)] {
            let options = GpuOptions {
                initial_table_bytes: Some(memory),
                queue_entries: Some(5),
                compact_roots: compact,
                ..GpuOptions::default()
            };
            for (net, what) in &cases {
                let what = format!("{what} (spilling queue, compact roots {compact})");
                let explore = |search: SearchOptions| {
                    let search = SearchOptions {
                        memory_bytes: Some(memory),
                        ..search
                    };
                    gpu::explore(device, net, &search, &options)
                };
                failures.extend(compare_with(net, Storage::Tree, &what, explore).err());
            }
        }
        assert_none_failed(&failures);
    });
}

/// A compact table that grows (beside the old one, or staged through the
/// host) keeps every state and renumbers every link: 45,239,074
/// philosophers' states fill the least compact table (2^21 buckets) beyond
/// half, with and without links; counts equal the closed form, the
/// deadlock's trace replays, and a state takes about 6.1 bytes (11.6 with
/// links) besides its nodes. In less memory the growth goes in place into
/// a table whose spilling queue spills.
#[test]
fn compact_tables_that_grow_stay_exact() {
    with_gpu(|device| {
        let n = 20;
        let network = warpcheck::frontend::net::parse(
            &generate::philosophers(n).unwrap(),
            Path::new("generated.net"),
        )
        .unwrap();
        let net = EncodedNetwork::new(&network).unwrap();
        let expected = generate::philosophers_expected(n);
        // In 1,280 MiB, with spilling queues of 1,000 entries: with
        // traces, the first spill in the table beside the last roomy one
        // stops its level, which runs again after the growth in place
        // into a table that never grows; without, the growth out of the
        // last roomy table goes in place and marks what the queue cannot
        // hold.
        for (staged_growth, queue_entries, memory) in [
            (false, None, 4 << 30),
            (true, None, 4 << 30),
            (false, Some(1000), 1280 << 20),
        ] {
            let options = GpuOptions {
                staged_growth,
                queue_entries,
                ..GpuOptions::default()
            };
            for no_trace in [true, false] {
                let what = format!(
                    "philosophers {n}, staged {staged_growth}, queue {queue_entries:?}, no trace {no_trace}"
                );
                let all = SearchOptions {
                    no_trace,
                    storage: Storage::Tree,
                    ..search(true)
                };
                let found = explore_compact(device, &net, all, &options, memory)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let e = &found.exploration;
                assert_eq!(
                    (
                        u128::from(e.states),
                        u128::from(e.transitions),
                        u128::from(e.deadlocks)
                    ),
                    (expected.states, expected.transitions, expected.deadlocks),
                    "{what}"
                );
                assert!(found.growths > 0, "{what}: the table never grew");
                assert_eq!(
                    found.staged_growths > 0,
                    staged_growth || queue_entries.is_some(),
                    "{what}"
                );
                let slot_bytes = if no_trace { 128.0 / 21.0 } else { 128.0 / 11.0 };
                let table_bytes = e.state_bytes - 8 * found.nodes;
                assert_eq!(
                    table_bytes,
                    e.states * 128 / if no_trace { 21 } else { 11 },
                    "{what}"
                );
                assert!(
                    (table_bytes as f64 / e.states as f64 - slot_bytes).abs() < 1e-3,
                    "{what}"
                );
                let first = SearchOptions {
                    no_trace,
                    storage: Storage::Tree,
                    ..search(false)
                };
                let found = explore_compact(device, &net, first, &options, memory)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                check_first_deadlock(&net, &found, no_trace, &what);
            }
        }
    });
}

/// `n` dining philosophers (`generate::philosophers`) beside `padding`
/// processes that never move: wide vectors whose extra words never change.
fn widened_philosophers(n: usize, padding: usize) -> EncodedNetwork {
    let text = generate::philosophers(n).unwrap();
    let network = warpcheck::frontend::net::parse(&text, Path::new("generated.net")).unwrap();
    EncodedNetwork::new(&testing::widened(network, padding)).unwrap()
}

/// The search's first finding is a deadlock of `net`, with a trace that
/// replays unless `no_trace`.
fn check_first_deadlock(net: &EncodedNetwork, found: &GpuExploration, no_trace: bool, what: &str) {
    let finding = found.exploration.first.as_ref().expect("the deadlock");
    assert_eq!(finding.trace.is_some(), !no_trace, "{what}");
    testing::check_finding(net, finding).unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// `--storage auto` keeps vectors of a few words plain until the table
/// fills, then runs again as trees, which hold the state space in the
/// same memory: exact counts, and the first attempt reported.
#[test]
fn auto_storage_turns_to_trees_when_the_plain_table_fills() {
    with_gpu(|device| {
        let net = widened_philosophers(11, 300);
        let reference = reference::explore(&net, &search(true));
        let limited = |storage| SearchOptions {
            memory_bytes: Some(1 << 20),
            storage,
            ..search(true)
        };
        let plain = gpu::explore(
            device,
            &net,
            &limited(Storage::Plain),
            &GpuOptions::default(),
        )
        .unwrap();
        assert_eq!(
            plain.exploration.completion,
            Completion::TableFull,
            "{} words",
            net.words()
        );
        let auto = gpu::explore(
            device,
            &net,
            &limited(Storage::Auto),
            &GpuOptions::default(),
        )
        .unwrap();
        assert_eq!(figures(&auto.exploration), figures(&reference));
        assert_eq!(auto.exploration.storage, Storage::Tree);
        // The first attempt ran plain and filled its table (how many states
        // it stored by then depends on the warps' timing).
        let attempt = auto.plain_attempt.map(|(states, _)| states);
        assert!(
            attempt.is_some_and(|states| states > 1 && states < reference.states),
            "{attempt:?} of {} states; a plain run stored {}",
            reference.states,
            plain.exploration.states
        );
        // A tree state takes fewer bytes than a plain one of these vectors.
        let per_state = auto.exploration.state_bytes as f64 / auto.exploration.states as f64;
        assert!(
            per_state < 4.0 * net.words() as f64,
            "{per_state} bytes a state"
        );
        assert!(auto.nodes > 0 && auto.nodes <= auto.node_capacity);
    });
}

/// `--storage auto` runs wide vectors (16 words or more) plain while they
/// fit an eighth of the memory, so a small state space costs neither
/// speed nor the node table; past that share it runs again as trees.
#[test]
fn auto_storage_tries_wide_vectors_plain_in_a_share_of_the_memory() {
    with_gpu(|device| {
        let net = widened_philosophers(8, 600);
        assert!(net.words() >= 16, "{} words", net.words());
        let reference = reference::explore(&net, &search(true));
        let auto = |memory_bytes| SearchOptions {
            memory_bytes,
            storage: Storage::Auto,
            ..search(true)
        };
        let small = gpu::explore(device, &net, &auto(None), &GpuOptions::default()).unwrap();
        assert_eq!(figures(&small.exploration), figures(&reference));
        assert_eq!(small.exploration.storage, Storage::Plain);
        assert_eq!(small.plain_attempt, None);
        assert_eq!(small.node_capacity, 0, "no node table");
        // In 1 MiB, the plain table's eighth holds fewer states than there are.
        let plain_share = SearchOptions {
            memory_bytes: Some(1 << 17),
            storage: Storage::Plain,
            ..search(true)
        };
        let plain = gpu::explore(device, &net, &plain_share, &GpuOptions::default()).unwrap();
        assert_eq!(plain.exploration.completion, Completion::TableFull);
        let limited =
            gpu::explore(device, &net, &auto(Some(1 << 20)), &GpuOptions::default()).unwrap();
        assert_eq!(figures(&limited.exploration), figures(&reference));
        assert_eq!(limited.exploration.storage, Storage::Tree);
        let attempt = limited.plain_attempt.map(|(states, _)| states);
        assert!(
            attempt.is_some_and(|states| states > 1 && states < reference.states),
            "{attempt:?} of {} states",
            reference.states
        );
    });
}

#[test]
fn a_full_node_table_is_reported_never_a_verdict() {
    with_gpu(|device| {
        let net = EncodedNetwork::new(&testing::widened(testing::chain(3000), 64)).unwrap();
        let tiny = SearchOptions {
            memory_bytes: Some(96 << 10),
            storage: Storage::Tree,
            ..search(true)
        };
        let found = gpu::explore(device, &net, &tiny, &GpuOptions::default()).unwrap();
        assert_eq!(found.exploration.completion, Completion::TableFull);
        assert!(found.exploration.states < 3001);
        assert!(found.nodes_full, "the root table filled first");
    });
}

/// The node table starts at four times the initial table and grows by
/// generations whose indices follow the older ones': from a table of a few
/// kilobytes, a search adds several, and stores and reads back the same
/// states as the reference (with and without traces), its trace to the
/// deadlock read through every generation.
#[test]
fn the_node_table_grows_by_generations() {
    with_gpu(|device| {
        let net = widened_philosophers(10, 200);
        let reference = reference::explore(&net, &search(true));
        let options = GpuOptions {
            initial_table_bytes: Some(512),
            ..GpuOptions::default()
        };
        for no_trace in [false, true] {
            let what = if no_trace {
                "without traces"
            } else {
                "with traces"
            };
            let tree = |keep_going| SearchOptions {
                storage: Storage::Tree,
                no_trace,
                ..small(search(keep_going))
            };
            let whole = gpu::explore(device, &net, &tree(true), &options).unwrap();
            assert_eq!(figures(&whole.exploration), figures(&reference), "{what}");
            assert!(
                whole.node_generations >= 4,
                "{what}: {} generations for {} nodes",
                whole.node_generations,
                whole.nodes
            );
            assert!(whole.nodes <= whole.node_capacity, "{what}");
            // Each generation triples the entries before it, from 32 (two
            // buckets of 16) at least.
            assert!(
                whole.node_capacity >= 32 << (2 * (whole.node_generations - 1)),
                "{what}: {} entries in {} generations",
                whole.node_capacity,
                whole.node_generations
            );
            let first = gpu::explore(device, &net, &tree(false), &options).unwrap();
            check_first_deadlock(&net, &first, no_trace, what);
        }
    });
}

/// A small model under `--storage tree` takes little of the GPU: the node
/// table starts at four times the initial table instead of taking its
/// whole share (a third of the memory) up front.
#[test]
fn tree_storage_of_a_small_model_takes_little_memory() {
    with_gpu(|device| {
        let net = EncodedNetwork::new(&testing::widened(testing::chain(13), 64)).unwrap();
        let reference = reference::explore(&net, &search(true));
        let tree = SearchOptions {
            storage: Storage::Tree,
            ..search(true)
        };
        let found = gpu::explore(device, &net, &tree, &GpuOptions::default()).unwrap();
        assert_eq!(figures(&found.exploration), figures(&reference));
        assert_eq!(found.node_generations, 1);
        assert!(8 * found.node_capacity <= 4 * gpu::DEFAULT_INITIAL_TABLE);
        // The first table with its queues, and the first node generation.
        let memory = found.exploration.memory_bytes;
        assert!(
            memory < found.budget / 8,
            "{memory} bytes of a budget of {}",
            found.budget
        );
    });
}

#[test]
fn a_full_table_is_reported_never_a_verdict() {
    with_gpu(|device| {
        let text = generate::philosophers(14).unwrap();
        let network = warpcheck::frontend::net::parse(&text, Path::new("generated.net")).unwrap();
        let net = EncodedNetwork::new(&network).unwrap();
        let tiny = SearchOptions {
            memory_bytes: Some(64 << 10),
            ..search(true)
        };
        let found = gpu::explore(device, &net, &tiny, &GpuOptions::default()).unwrap();
        assert_eq!(found.exploration.completion, Completion::TableFull);
        assert!(found.exploration.states < generate::philosophers_expected(14).states as u64);
    });
}

#[test]
fn device_errors_are_messages() {
    with_gpu(|device| {
        let net = EncodedNetwork::new(&testing::chain(3)).unwrap();
        let too_much = SearchOptions {
            memory_bytes: Some(1 << 50),
            ..search(true)
        };
        let error = gpu::explore(device, &net, &too_much, &GpuOptions::default()).unwrap_err();
        assert!(
            error.to_string().starts_with("out of GPU memory"),
            "{error}"
        );
        let odd_block = GpuOptions {
            threads_per_block: Some(100),
            ..GpuOptions::default()
        };
        let error = gpu::explore(device, &net, &small(search(true)), &odd_block).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid GPU setting: threads per block must be a multiple of 32 between 32 and 1024, not 100"
        );
        let buffers = GpuOptions {
            sync: SyncCombination::SharedBuffers,
            ..GpuOptions::default()
        };
        let wide = EncodedNetwork::new(&testing::chain(40)).unwrap();
        let error = gpu::explore(device, &wide, &small(search(true)), &buffers).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid GPU setting: shared-memory sync buffers need a thread per process: a group \
             of at most 32 threads for 40 processes"
        );
    });
}

/// The models whose whole state spaces the export tests compare: a few
/// specs (one of them an `.aut`) and the small MCC nets.
fn exported_models() -> Vec<PathBuf> {
    let mut models: Vec<PathBuf> = [
        "specs/philosophers3.net",
        "specs/traffic_light.net",
        "specs/mutex_bad.net",
        "specs/button.aut",
    ]
    .into_iter()
    .map(PathBuf::from)
    .collect();
    models.extend(
        testing::mcc_models(Path::new("tests/data/mcc"))
            .into_iter()
            .map(|m| m.join("model.pnml")),
    );
    models
}

#[test]
fn exported_state_spaces_match_the_reference_export() {
    let models = exported_models();
    let dir = tempfile::tempdir().unwrap();
    let reference_path = dir.path().join("reference.aut");
    let gpu_path = dir.path().join("gpu.aut");
    let search = SearchOptions {
        keep_going: true,
        no_trace: true,
        ..SearchOptions::default()
    };
    with_gpu(|device| {
        for model in &models {
            let network = warpcheck::frontend::load(model)
                .unwrap_or_else(|e| panic!("{}: {e}", model.display()));
            let net = EncodedNetwork::new(&network).unwrap();
            let mut sink = AutWriter::create(&reference_path, &net.actions).unwrap();
            let reference = reference::explore_into(&net, &search, &mut sink).unwrap();
            let mut sink = AutWriter::create(&gpu_path, &net.actions).unwrap();
            let explored = gpu::explore_into(
                device,
                &net,
                &small(search.clone()),
                &GpuOptions::default(),
                &mut sink,
            )
            .unwrap_or_else(|e| panic!("{}: {e}", model.display()));
            let what = model.display();
            assert_eq!(
                explored.exploration.completion,
                Completion::Complete,
                "{what}"
            );
            let expected = warpcheck::frontend::aut::load_lts(&reference_path).unwrap();
            let exported = warpcheck::frontend::aut::load_lts(&gpu_path).unwrap();
            assert_eq!(exported.initial, 0, "{what}");
            assert_eq!(
                (
                    exported.state_names.len() as u64,
                    exported.transitions.len() as u64
                ),
                (reference.states, reference.transitions),
                "{what}"
            );
            assert_eq!(
                testing::numbering_free_shape(&exported),
                testing::numbering_free_shape(&expected),
                "{what}"
            );
            std::fs::remove_file(&gpu_path).unwrap();
        }
    });
}

#[test]
fn small_mcc_models_match_the_reference() {
    // Relative to the repository root, where cargo (and scripts/gpu_test.sh) run tests.
    let models = testing::mcc_models(Path::new("tests/data/mcc"));
    assert!(!models.is_empty(), "no models under tests/data/mcc");
    with_gpu(|device| {
        let mut failures = Vec::new();
        for model in models {
            let net = testing::load_mcc_model(&model);
            let name = model.file_name().unwrap().to_string_lossy().into_owned();
            // Both ways of handing states to the next level, and
            // GPUexplore's shared-memory combination where it applies.
            let mut variants = vec![
                ("queue", GpuOptions::default()),
                (
                    "new marks",
                    GpuOptions {
                        frontier: Frontier::NewMarks,
                        ..GpuOptions::default()
                    },
                ),
            ];
            if net.processes() <= 32 {
                variants.push((
                    "sync buffers",
                    GpuOptions {
                        sync: SyncCombination::SharedBuffers,
                        owners: OwnerChoice::Lowest,
                        ..GpuOptions::default()
                    },
                ));
            }
            for (variant, options) in variants {
                if let Err(e) = compare(device, &net, &options, &format!("{name} {variant}")) {
                    failures.push(e);
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

#[test]
fn specs_match_the_reference_and_their_traces_replay() {
    with_gpu(|device| {
        let failures: Vec<String> = testing::spec_checks()
            .iter()
            .filter_map(|(what, net)| compare(device, net, &GpuOptions::default(), what).err())
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

/// The device's memory comes from CUDA's pool and goes back to the device
/// at a synchronisation: a search after another must see it free again
/// (before `Device::free_memory` synchronised, the second table of a
/// process was a quarter of the first).
#[test]
fn a_search_after_another_gets_the_memory_back() {
    with_gpu(|device| {
        let net = EncodedNetwork::new(&testing::chain(3)).unwrap();
        let first = gpu::explore(device, &net, &search(true), &GpuOptions::default()).unwrap();
        let second = gpu::explore(device, &net, &search(true), &GpuOptions::default()).unwrap();
        assert_eq!(second.table_bytes, first.table_bytes);
        assert_eq!(second.exploration.states, 4);
    });
}

#[test]
fn devices_are_opened_by_ordinal() {
    with_gpu(|device| {
        assert_eq!(device.ordinal(), 0);
        match Device::open(1 << 20) {
            Err(GpuError::Unavailable(reason)) => assert!(
                reason.starts_with("no CUDA device 1048576: ") && reason.ends_with(" visible"),
                "{reason}"
            ),
            other => panic!("device 2^20 opened: {other:?}"),
        }
    });
}

#[test]
fn the_kernels_hash_vectors_as_the_host_does() {
    with_gpu(|device| {
        for (vector, golden) in HASH_GOLDEN {
            let hashes = gpu::device_hashes(device, vector, vector.len()).unwrap();
            assert_eq!(hashes, [golden], "{vector:?}");
        }
        // Many vectors of a few widths, against the host's function.
        for words in [1usize, 2, 7, 33] {
            let vectors: Vec<u32> = (0..1000 * words as u32)
                .map(|i| i.wrapping_mul(0x9E37_79B9).rotate_left(i % 29))
                .collect();
            let expected: Vec<u64> = vectors.chunks(words).map(hash_words).collect();
            assert_eq!(
                gpu::device_hashes(device, &vectors, words).unwrap(),
                expected,
                "{words} words"
            );
        }
    });
}

#[test]
fn the_device_scan_gives_exclusive_prefix_sums() {
    with_gpu(|device| {
        // Around the tile size (2048) and over two levels of tiles.
        for len in [1usize, 5, 2047, 2048, 2049, 2048 * 2048 + 3] {
            let counts: Vec<u64> = (0..len as u64).map(|i| i % 7 + (i % 3) * 1000).collect();
            let sums: Vec<u64> = counts
                .iter()
                .scan(0u64, |sum, &c| {
                    let before = *sum;
                    *sum += c;
                    Some(before)
                })
                .collect();
            // 32-bit sums wrap as the host's truncation does.
            let narrow = |values: &[u64]| values.iter().map(|&v| v as u32).collect::<Vec<u32>>();
            assert_eq!(
                scanned(device, narrow(&counts)),
                narrow(&sums),
                "u32, {len}"
            );
            let wide = |values: &[u64]| values.iter().map(|&v| v << 20).collect::<Vec<u64>>();
            assert_eq!(scanned(device, wide(&counts)), wide(&sums), "u64, {len}");
        }
    });
}

/// `values` through the device's exclusive scan.
fn scanned<T: scan::ScanElement>(device: &Device, values: Vec<T>) -> Vec<T> {
    let mut on_device = device.upload(&values).unwrap();
    scan::exclusive_scan(device, &mut on_device, values.len()).unwrap();
    device.download(&on_device).unwrap()
}

#[test]
fn the_graph_left_on_the_device_is_the_exported_one() {
    let search = SearchOptions {
        keep_going: true,
        no_trace: true,
        ..SearchOptions::default()
    };
    with_gpu(|device| {
        for model in &exported_models() {
            let what = model.display();
            let network = warpcheck::frontend::load(model).unwrap();
            let net = EncodedNetwork::new(&network).unwrap();
            let options = GpuOptions::default();
            let (explored, space) =
                gpu::explore_space(device, &net, &small(search.clone()), &options).unwrap();
            let graph = space.unwrap_or_else(|| panic!("{what}: no graph")).graph;
            graph.validate().unwrap();
            // The same edges stored on the device, unlabelled.
            let (_, space) =
                gpu::explore_on_device(device, &net, &small(search.clone()), &options).unwrap();
            let stored = match space.unwrap_or_else(|| panic!("{what}: no space")) {
                gpu::SpaceOnDevice::InTable(table) => table.store().unwrap(),
                gpu::SpaceOnDevice::Stored(graph) => graph,
            };
            let stored = Csr {
                offsets: device.download(&stored.offsets).unwrap(),
                targets: device.download(&stored.targets).unwrap()[..stored.edges as usize]
                    .to_vec(),
            };
            // The same graph pushed into a sink a few states at a time.
            let batches = GpuOptions {
                graph_batch_edges: Some(1000),
                ..options.clone()
            };
            let mut builder = LabelledGraphBuilder::new(net.actions.clone());
            gpu::explore_into(device, &net, &small(search.clone()), &batches, &mut builder)
                .unwrap();
            let pushed = builder.into_graph().unwrap();
            let mut builder = LabelledGraphBuilder::new(net.actions.clone());
            let reference = reference::explore_into(&net, &search, &mut builder).unwrap();
            let by_reference = builder.into_graph().unwrap();
            assert_eq!(
                (u64::from(graph.edges.states()), graph.edges.edge_count()),
                (reference.states, reference.transitions),
                "{what}"
            );
            assert_eq!(
                (
                    explored.exploration.states,
                    explored.exploration.transitions
                ),
                (reference.states, reference.transitions),
                "{what}"
            );
            // Each search places states in its own slots, so the GPU's
            // numberings differ from run to run and from the reference's:
            // compare what does not depend on them.
            assert_eq!(
                testing::bfs_level_sizes(&stored),
                testing::bfs_level_sizes(&by_reference.edges),
                "{what}: stored"
            );
            for (name, gpu_graph) in [("device", &graph), ("pushed", &pushed)] {
                assert_eq!(
                    testing::bfs_level_sizes(&gpu_graph.edges),
                    testing::bfs_level_sizes(&by_reference.edges),
                    "{what}: {name}"
                );
                assert_eq!(
                    testing::numbering_free_shape(&testing::lts_of(gpu_graph)),
                    testing::numbering_free_shape(&testing::lts_of(&by_reference)),
                    "{what}: {name}"
                );
            }
        }
    });
}

#[test]
fn a_device_failure_during_the_search_exits_4() {
    with_gpu(|_| {
        // The kernels as they are, but the search kernel traps at its start.
        let dir = tempfile::tempdir().unwrap();
        for file in gpu::kernel::all_files() {
            let path = dir.path().join(file.path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let mut text = file.embedded.to_string();
            if file.path == "explore/search.cu" {
                let start = "explore_levels(const SearchParams params) {\n";
                assert!(text.contains(start), "the search kernel's signature moved");
                text = text.replace(
                    start,
                    &format!("{start}    if (params.levels > 0) __trap();\n"),
                );
            }
            std::fs::write(path, text).unwrap();
        }
        let output = Command::new(crate::warpcheck_binary())
            .args([
                "check",
                "specs/philosophers3.net",
                "--deadlock",
                "--engine",
                "gpu",
            ])
            .env(KERNEL_DIR_VARIABLE, dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(4), "{stderr}");
        assert!(
            stderr.starts_with("error: GPU failure during running the search kernel: "),
            "{stderr}"
        );
        assert!(output.stdout.is_empty());
    });
}

/// Published (states, transitions, deadlock) of the MCC models in `dir`.
fn oracles(dir: &Path) -> Vec<(String, u64, u64, String)> {
    let text = std::fs::read_to_string(dir.join("oracles.tsv")).unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            Some((
                f.first()?.to_string(),
                f.get(1)?.parse().ok()?,
                f.get(2)?.parse().ok()?,
                f.get(3)?.to_string(),
            ))
        })
        .collect()
}

/// Every model of `$WARPCHECK_MCC` (a copy of `../shared/mcc`) with at most
/// `$WARPCHECK_MCC_MAX` states (default 10^7) against the published state
/// and transition counts, and, up to 10^6 states, against every figure of
/// the reference engine. Published deadlock verdicts that disagree are
/// printed (they concern the PNML translation, not the search).
#[test]
#[ignore]
fn mcc_models_match_the_published_counts() {
    with_gpu(|device| {
        on_mcc_models(|name, net, (states, transitions), deadlock| {
            let found = gpu::explore(device, net, &search(true), &GpuOptions::default())
                .unwrap()
                .exploration;
            println!(
                "{name}: {} states {} transitions {} deadlocks in {:.3}s",
                found.states,
                found.transitions,
                found.deadlocks,
                found.elapsed.as_secs_f64()
            );
            if (deadlock == "yes") != (found.deadlocks > 0) && deadlock != "unknown" {
                println!(
                    "note: {name}: published deadlock verdict {deadlock}, found {}",
                    found.deadlocks
                );
            }
            if states <= 1_000_000 {
                let reference = reference::explore(net, &search(true));
                if figures(&found) != figures(&reference) {
                    return Some(format!(
                        "{name}: gpu {:?} != reference {:?}",
                        figures(&found),
                        figures(&reference)
                    ));
                }
            }
            ((found.states, found.transitions) != (states, transitions)).then(|| {
                format!(
                    "{name}: gpu {} states {} transitions; published {states} {transitions}",
                    found.states, found.transitions
                )
            })
        });
    });
}

/// Runs `check` on every model of `$WARPCHECK_MCC` (a copy of
/// `../shared/mcc`) with at most `$WARPCHECK_MCC_MAX` states (default
/// 10^7), with its name, network, published (states, transitions) and
/// deadlock verdict; fails with every failure it gives. Without the
/// variable, says SKIPPED.
pub(crate) fn on_mcc_models(
    mut check: impl FnMut(&str, &EncodedNetwork, (u64, u64), &str) -> Option<String>,
) {
    let Some(dir) = std::env::var_os("WARPCHECK_MCC").map(PathBuf::from) else {
        warpcheck::testing::skipped(format_args!("set WARPCHECK_MCC to a copy of ../shared/mcc"));
        return;
    };
    let max: u64 = std::env::var("WARPCHECK_MCC_MAX")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(10_000_000);
    let mut failures = Vec::new();
    for (name, states, transitions, deadlock) in oracles(&dir) {
        if states > max || !dir.join(&name).join("model.pnml").is_file() {
            continue;
        }
        let net = testing::load_mcc_model(&dir.join(&name));
        failures.extend(check(&name, &net, (states, transitions), &deadlock));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_stop_signal_ends_the_gpu_search_between_launches() {
    with_gpu(|device| {
        let text = generate::barrier(6).unwrap();
        let network = warpcheck::frontend::net::parse(&text, Path::new("barrier6.net")).unwrap();
        let net = EncodedNetwork::new(&network).unwrap();
        let stop = warpcheck::explore::StopSignal::new();
        stop.request();
        let stopped = SearchOptions {
            stop,
            ..small(search(false))
        };
        let options = GpuOptions {
            iterations: Some(1),
            ..GpuOptions::default()
        };
        let found = gpu::explore(device, &net, &stopped, &options).unwrap();
        let e = &found.exploration;
        assert_eq!(e.completion, Completion::Interrupted);
        assert!(e.first.is_none());
        // One launch of one level ran: the initial state and its successors.
        assert_eq!(e.depth, 1);
        let all = generate::barrier_expected(6).states as u64;
        assert!(e.states > 1 && e.states < all, "{}", e.states);
    });
}
