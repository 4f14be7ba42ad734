//! The partitioned GPU search (`--gpus`, `--partitions`) against the
//! reference and against one table: random networks in 2 to 5 partitions
//! of one GPU with every design switch the partitioned kernel takes, plain
//! and tree storage (compact roots without traces), specs and small MCC
//! models; traces that cross
//! partitions replay and are as long as one GPU's; levels that run in
//! several rounds when outboxes fill; an overflowing outbox is reported,
//! never a verdict; NCCL moves data on the machine's GPUs; the command
//! line. Without a GPU every test prints `SKIPPED: no GPU available
//! (<reason>)` and passes.
//!
//! On the GPU machine: `scripts/gpu_test.sh gpu_partitioned::` (with NCCL
//! on `LD_LIBRARY_PATH`: `scripts/nccl.sh` finds it).

use std::path::Path;
use std::process::Command;

use cudarc::nccl::safe::Comm;
use warpcheck::encode::EncodedNetwork;
use warpcheck::explore::gpu::{self, GpuExploration, GpuOptions};
use warpcheck::explore::{Completion, FindingKind, SearchOptions, Storage, reference};
use warpcheck::generate;
use warpcheck::gpu::{Device, GpuError};
use warpcheck::testing;

use crate::gpu::{compare_with, figures, on_mcc_models, options_for, search, with_gpu};

/// Device memory of a partitioned test search, split among its partitions.
const TEST_MEMORY: u64 = 1 << 30;

/// `search` within the tests' memory.
fn within(search: SearchOptions) -> SearchOptions {
    SearchOptions {
        memory_bytes: Some(TEST_MEMORY),
        ..search
    }
}

/// `net` explored in `partitions` partitions of `device`.
fn partitioned(
    device: &Device,
    partitions: usize,
    net: &EncodedNetwork,
    search: SearchOptions,
    options: &GpuOptions,
) -> Result<GpuExploration, GpuError> {
    gpu::explore_partitioned(
        std::slice::from_ref(device),
        partitions,
        net,
        &within(search),
        options,
    )
}

/// The switches of `options_for(seed)` that a partitioned search takes
/// (it claims work dynamically, and its tables do not grow).
fn partitioned_options(seed: u64, processes: usize) -> GpuOptions {
    GpuOptions {
        work_claiming: true,
        ..options_for(seed, processes)
    }
}

/// Random networks (some widened to 4 or 36 words), specs and the bundled
/// MCC models, in 2 to 5 partitions, plain and tree storage, against the
/// reference: every count, the verdicts, findings that replay.
#[test]
fn partitioned_search_matches_the_reference() {
    with_gpu(|device| {
        let random = (0..160u64).map(|seed| (seed, testing::random_network(seed)));
        let wide = (160..200u64).map(|seed| {
            let pads = if seed % 2 == 0 { 100 } else { 1100 };
            (seed, testing::widened(testing::random_network(seed), pads))
        });
        let mut failures = Vec::new();
        for (seed, network) in random.chain(wide) {
            let net = EncodedNetwork::new(&network).expect("test networks encode");
            let partitions = 2 + (seed % 4) as usize;
            let storage = if seed % 3 == 0 {
                Storage::Tree
            } else {
                Storage::Plain
            };
            let options = partitioned_options(seed, net.processes());
            let what = format!(
                "seed {seed} ({} words, {partitions} partitions, {storage:?}, {options:?})",
                net.words()
            );
            failures.extend(
                compare_with(&net, storage, &what, |search| {
                    partitioned(device, partitions, &net, search, &options)
                })
                .err(),
            );
        }
        let models = testing::spec_checks().into_iter().chain(
            testing::mcc_models(Path::new("tests/data/mcc"))
                .into_iter()
                .map(|model| (model.display().to_string(), testing::load_mcc_model(&model))),
        );
        for (at, (what, net)) in models.enumerate() {
            let partitions = 2 + at % 3;
            let what = format!("{what} ({partitions} partitions)");
            failures.extend(
                compare_with(&net, Storage::Plain, &what, |search| {
                    partitioned(device, partitions, &net, search, &GpuOptions::default())
                })
                .err(),
            );
        }
        assert!(
            failures.is_empty(),
            "{} failures:\n{}",
            failures.len(),
            failures.join("\n")
        );
    });
}

/// Without traces, tree storage keeps its roots compact in every
/// partition (each partition's table has room for the least compact
/// table): random networks and the bundled MCC models, in 2 or 3
/// partitions of a GiB each, give the reference's counts and verdicts.
#[test]
fn compact_roots_in_partitions_match_the_reference() {
    with_gpu(|device| {
        let random = (0..60u64).map(|seed| {
            let net = EncodedNetwork::new(&testing::random_network(seed)).unwrap();
            let options = partitioned_options(seed, net.processes());
            (format!("seed {seed}"), net, options)
        });
        let models = testing::mcc_models(Path::new("tests/data/mcc"))
            .into_iter()
            .map(|model| {
                let net = testing::load_mcc_model(&model);
                (model.display().to_string(), net, GpuOptions::default())
            });
        let mut failures = Vec::new();
        for (at, (what, net, options)) in random.chain(models).enumerate() {
            let partitions = 2 + at % 2;
            let what = format!("{what} ({} words, {partitions} partitions)", net.words());
            for keep_going in [true, false] {
                let search = SearchOptions {
                    no_trace: true,
                    storage: Storage::Tree,
                    memory_bytes: Some((partitions as u64) << 30),
                    ..search(keep_going)
                };
                let reference = reference::explore(&net, &search);
                let run = gpu::explore_partitioned(
                    std::slice::from_ref(device),
                    partitions,
                    &net,
                    &search,
                    &options,
                )
                .unwrap();
                let found = &run.exploration;
                if run.launches > 0 && !run.compact_roots {
                    failures.push(format!("{what}: the roots were not kept compact"));
                } else if keep_going
                    // A model error ends even a --all search, where the
                    // search order meets it first: then only the verdict.
                    && !(found.completion == Completion::StoppedAtFinding
                        && reference.completion == Completion::StoppedAtFinding)
                    && figures(found) != figures(&reference)
                {
                    failures.push(format!(
                        "{what}: {:?} != reference {:?}",
                        figures(found),
                        figures(&reference)
                    ));
                } else if !keep_going
                    && (found.completion, found.first.is_some())
                        != (reference.completion, reference.first.is_some())
                {
                    failures.push(format!(
                        "{what}: stop-at-first verdict {:?}/{} != reference {:?}/{}",
                        found.completion,
                        found.first.is_some(),
                        reference.completion,
                        reference.first.is_some()
                    ));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

/// Whether a finding is a deadlock (its trace is as long as the depth of
/// its state) or an error state (found one level later).
fn is_deadlock(exploration: &warpcheck::explore::Exploration) -> Option<bool> {
    let finding = exploration.first.as_ref()?;
    Some(matches!(finding.kind, FindingKind::Deadlock))
}

/// Stop-at-first searches with traces find what one table finds, at the
/// same depth: a finding of the same kind has a trace of the same length
/// (a breadth-first search meets the findings of a level in any order, so
/// only findings of one kind have one length), and the trace replays.
#[test]
fn traces_across_partitions_are_as_long_as_one_tables() {
    with_gpu(|device| {
        let mut compared = 0;
        let mut failures = Vec::new();
        for seed in 0..200u64 {
            let net = EncodedNetwork::new(&testing::random_network(seed)).unwrap();
            let options = GpuOptions::default();
            let one = gpu::explore(device, &net, &within(search(false)), &options)
                .unwrap()
                .exploration;
            let split = partitioned(device, 3, &net, search(false), &options)
                .unwrap()
                .exploration;
            if split.completion != one.completion || is_deadlock(&split) != is_deadlock(&one) {
                continue;
            }
            let (Some(a), Some(b)) = (&one.first, &split.first) else {
                continue;
            };
            let (a, b) = (a.trace.as_ref().unwrap(), b.trace.as_ref().unwrap());
            compared += 1;
            if a.actions.len() != b.actions.len() {
                failures.push(format!(
                    "seed {seed}: one table's trace has {} steps, the partitions' {}",
                    a.actions.len(),
                    b.actions.len()
                ));
            }
            if let Err(e) = testing::check_finding(&net, split.first.as_ref().unwrap()) {
                failures.push(format!("seed {seed}: {e}"));
            }
        }
        assert!(
            compared >= 50,
            "only {compared} findings of one kind compared"
        );
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

/// A network whose levels send far more successors than small outboxes
/// hold (a grid of two blocks, so that few successors are in flight when
/// a warp sees the outbox half full): the levels run in rounds, and the
/// counts stay exact.
#[test]
fn levels_run_in_rounds_when_outboxes_fill() {
    with_gpu(|device| {
        let text = generate::barrier(5).unwrap();
        let network = warpcheck::frontend::net::parse(&text, Path::new("barrier5.net")).unwrap();
        let net = EncodedNetwork::new(&network).unwrap();
        let reference = reference::explore(&net, &search(true));
        for outbox_messages in [1 << 16, 1 << 13] {
            let options = GpuOptions {
                outbox_messages: Some(outbox_messages),
                blocks: Some(2),
                ..GpuOptions::default()
            };
            let run = partitioned(device, 2, &net, search(true), &options).unwrap();
            let split = run.partitioning.as_ref().unwrap();
            assert_eq!(figures(&run.exploration), figures(&reference));
            assert!(
                split.rounds > u64::from(run.exploration.depth) + 1,
                "{outbox_messages}: {} rounds for {} levels",
                split.rounds,
                run.exploration.depth
            );
            assert_eq!(
                split.states.iter().sum::<u64>(),
                reference.states,
                "states per partition {:?}",
                split.states
            );
        }
    });
}

/// Outboxes of a few messages overflow at once: the search ends
/// incomplete (exit 3 on the command line), with counts below the truth,
/// never with a verdict.
#[test]
fn an_overflowing_outbox_is_reported_never_a_verdict() {
    with_gpu(|device| {
        let text = generate::philosophers(8).unwrap();
        let network =
            warpcheck::frontend::net::parse(&text, Path::new("philosophers8.net")).unwrap();
        let net = EncodedNetwork::new(&network).unwrap();
        let options = GpuOptions {
            outbox_messages: Some(4),
            ..GpuOptions::default()
        };
        let run = partitioned(device, 4, &net, search(true), &options).unwrap();
        assert_eq!(run.exploration.completion, Completion::TableFull);
        assert!(run.partitioning.as_ref().unwrap().outbox_full);
        let reference = reference::explore(&net, &search(true));
        assert!(run.exploration.states < reference.states);
    });
}

/// NCCL is there and moves data: a send and a receive through a
/// communicator over every visible GPU (ring: each rank sends to the next).
/// Without the NCCL library the test says SKIPPED, unless
/// `WARPCHECK_REQUIRE_NCCL` is set (as `scripts/gpu_test.sh` sets it).
#[test]
fn nccl_moves_data_between_the_gpus() {
    with_gpu(|_| {
        if !gpu::nccl_available() {
            assert!(
                std::env::var_os("WARPCHECK_REQUIRE_NCCL").is_none(),
                "libnccl.so cannot be loaded"
            );
            warpcheck::testing::skipped(format_args!("libnccl.so cannot be loaded"));
            return;
        }
        let devices: Vec<Device> = (0..Device::count())
            .map(|ordinal| Device::open(ordinal).unwrap())
            .collect();
        let ranks = devices.len();
        let comms =
            Comm::from_devices(devices.iter().map(|d| d.stream().clone()).collect()).unwrap();
        let sent: Vec<_> = devices
            .iter()
            .enumerate()
            .map(|(rank, d)| d.upload(&[rank as u32 * 10 + 1, 7, 9]).unwrap())
            .collect();
        let mut received: Vec<_> = devices
            .iter()
            .map(|d| d.alloc_zeroed::<u32>(3).unwrap())
            .collect();
        cudarc::nccl::result::group_start().unwrap();
        for rank in 0..ranks {
            comms[rank]
                .send(&sent[rank], ((rank + 1) % ranks) as i32)
                .unwrap();
            comms[rank]
                .recv(&mut received[rank], ((rank + ranks - 1) % ranks) as i32)
                .unwrap();
        }
        cudarc::nccl::result::group_end().unwrap();
        for (rank, device) in devices.iter().enumerate() {
            let from = (rank + ranks - 1) % ranks;
            assert_eq!(
                device.download(&received[rank]).unwrap(),
                vec![from as u32 * 10 + 1, 7, 9]
            );
        }
        println!("NCCL moved data between {ranks} GPU(s)");
    });
}

/// The command line: `--gpus 1 --partitions 3` gives the reference's counts and
/// says how the states were split; `--gpus` beyond the visible GPUs is a
/// usage error that says why.
#[test]
fn the_cli_splits_the_search() {
    with_gpu(|_| {
        let model = "specs/philosophers3.net";
        let run = |args: &[&str]| {
            Command::new(crate::warpcheck_binary())
                .args(["check", model, "--deadlock", "--engine", "gpu"])
                .args(args)
                .output()
                .unwrap()
        };
        // One GPU, whatever the machine has: --gpus defaults to all.
        let output = run(&["--gpus", "1", "--partitions", "3", "-v"]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
        let network = warpcheck::frontend::load(Path::new(model)).unwrap();
        let net = EncodedNetwork::new(&network).unwrap();
        let reference = reference::explore(&net, &search(false));
        let trace_steps = reference.first.unwrap().trace.unwrap().actions.len();
        assert!(
            stdout.contains(&format!("trace ({trace_steps} steps)")),
            "{stdout}"
        );
        assert!(
            stdout.contains("partitions: 3 on 1 GPU(s), exchanging by device copies"),
            "{stdout}"
        );
        let visible = Device::count();
        let output = run(&["--gpus", &(visible + 1).to_string()]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.starts_with(&format!(
                "error: --gpus {}: no GPU available: no CUDA device {visible}: {visible} visible",
                visible + 1
            )),
            "{stderr}"
        );
    });
}

/// A search split over processes (`--ranks`), one per visible GPU, each
/// started as its own `warpcheck check`: rank 0 reports the reference's
/// counts, verdict and trace length (its trace crosses the processes), the
/// other ranks print no report and exit alike, and the rendezvous file is
/// gone. With fewer than two GPUs or without NCCL the test says SKIPPED
/// (NCCL puts no two ranks on one GPU).
#[test]
fn ranks_in_separate_processes_match_the_reference() {
    with_gpu(|_| {
        let ranks = Device::count();
        if ranks < 2 || !gpu::nccl_available() {
            warpcheck::testing::skipped(format_args!(
                "a search over processes needs two GPUs and NCCL"
            ));
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let rendezvous = dir.path().join("job.id");
        // Ten philosophers deadlock; five barrier subsystems (13^5 states)
        // do not.
        for (text, deadlock) in [
            (generate::philosophers(10).unwrap(), true),
            (generate::barrier(5).unwrap(), false),
        ] {
            let model = dir.path().join(if deadlock {
                "deadlock.net"
            } else {
                "barrier.net"
            });
            std::fs::write(&model, text).unwrap();
            let model = model.to_str().unwrap();
            let processes: Vec<_> = (0..ranks)
                .map(|rank| {
                    Command::new(crate::warpcheck_binary())
                        .args(["--format", "json", "check", model, "--deadlock"])
                        .args(["--engine", "gpu", "--memory", "1G"])
                        .args(["--ranks", &ranks.to_string(), "--rank", &rank.to_string()])
                        .arg("--rendezvous")
                        .arg(&rendezvous)
                        .stdout(std::process::Stdio::piped())
                        .stderr(std::process::Stdio::piped())
                        .spawn()
                        .unwrap()
                })
                .collect();
            let outputs: Vec<_> = processes
                .into_iter()
                .map(|process| process.wait_with_output().unwrap())
                .collect();
            let network = warpcheck::frontend::load(Path::new(model)).unwrap();
            let net = EncodedNetwork::new(&network).unwrap();
            // A search that stops at a deadlock counts what its level
            // stored: only a complete one's counts are the reference's.
            let reference = reference::explore(&net, &search(!deadlock));
            let code = if deadlock { 1 } else { 0 };
            for (rank, output) in outputs.iter().enumerate() {
                let stderr = String::from_utf8_lossy(&output.stderr);
                assert_eq!(
                    output.status.code(),
                    Some(code),
                    "{model} rank {rank}: {stderr}"
                );
                if rank > 0 {
                    assert!(output.stdout.is_empty(), "{model} rank {rank}");
                }
            }
            let report: serde_json::Value = serde_json::from_slice(&outputs[0].stdout).unwrap();
            if !deadlock {
                assert_eq!(
                    (
                        report["states"].as_u64(),
                        report["transitions"].as_u64(),
                        report["depth"].as_u64()
                    ),
                    (
                        Some(reference.states),
                        Some(reference.transitions),
                        Some(u64::from(reference.depth))
                    ),
                    "{model}"
                );
            }
            assert_eq!(report["partitions"]["gpus"].as_u64(), Some(ranks as u64));
            assert_eq!(report["partitions"]["exchange"], "NCCL between processes");
            let steps = reference
                .first
                .as_ref()
                .and_then(|finding| finding.trace.as_ref())
                .map(|trace| trace.actions.len());
            let reported = report["trace"]["steps"].as_array().map(Vec::len);
            assert_eq!(reported, steps, "{model}");
            assert!(!rendezvous.exists());
            println!("{model}: {ranks} ranks agree with the reference");
        }
    });
}

/// Every model of `$WARPCHECK_MCC` (a copy of `../shared/mcc`) with at
/// most `$WARPCHECK_MCC_MAX` states, split over every visible GPU (NCCL),
/// or in 2 partitions of the one GPU: the published state and transition
/// counts.
#[test]
#[ignore]
fn mcc_models_match_the_published_counts_in_partitions() {
    with_gpu(|device| {
        let devices: Vec<Device> = match Device::count() {
            1 => vec![device.clone()],
            count => (0..count).map(|o| Device::open(o).unwrap()).collect(),
        };
        let partitions = devices.len().max(2);
        on_mcc_models(|name, net, (states, transitions), _| {
            let run = gpu::explore_partitioned(
                &devices,
                partitions,
                net,
                &search(true),
                &GpuOptions::default(),
            )
            .unwrap();
            let found = &run.exploration;
            let split = run.partitioning.as_ref().unwrap();
            println!(
                "{name}: {} states {} transitions in {:.3}s, {} partitions {:?}, {:.1} bytes \
                 exchanged a state",
                found.states,
                found.transitions,
                found.elapsed.as_secs_f64(),
                partitions,
                split.states,
                split.bytes as f64 / found.states as f64
            );
            ((found.states, found.transitions) != (states, transitions)).then(|| {
                format!(
                    "{name}: {} states {} transitions; published {states} {transitions}",
                    found.states, found.transitions
                )
            })
        });
    });
}
