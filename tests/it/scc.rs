//! SCC decomposition: the multi-core and GPU variants give the partition
//! of the sequential Tarjan reference (components numbered by smallest
//! state, so partitions compare with `==`), and the figures counted on the
//! GPU equal those counted on the host, on random graphs of every shape
//! that stresses the methods and on explored state spaces. Without a GPU
//! the GPU tests print SKIPPED.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use warpcheck::explicit::Csr;
use warpcheck::explore::SearchOptions;
use warpcheck::explore::gpu::{self as gpu_explore, GpuOptions, SpaceOnDevice};
use warpcheck::frontend::aut;
use warpcheck::gpu::Device;
use warpcheck::scc::cpu::Method;
use warpcheck::scc::gpu::{self, DeviceCsr};
use warpcheck::scc::labels::Labels;
use warpcheck::scc::{Components, Summary, cpu, mutual, reference};
use warpcheck::testing::{self, graphs};

use crate::gpu::with_gpu;

const METHODS: [Method; 2] = [Method::Coloring, Method::ForwardBackward];
const LABELS: [Labels; 2] = [Labels::Numbers, Labels::Scrambled];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn the_cpu_methods_give_the_reference_partition(graph in graphs::graph_shapes()) {
        let expected = reference::decompose(&graph);
        for method in METHODS {
            for threads in [1, 2] {
                prop_assert_eq!(&cpu::decompose(&graph, method, threads), &expected, "{:?}", method);
            }
            let by_rounds = Components::from_representatives(&cpu::representatives_by_rounds(&graph, method));
            prop_assert_eq!(&by_rounds, &expected, "{:?} by rounds alone", method);
        }
        for labels in LABELS {
            let labelled = Components::from_representatives(&cpu::representatives_with_labels(&graph, labels));
            prop_assert_eq!(&labelled, &expected, "colouring with {:?}", labels);
        }
        let keyed = Components::from_representatives(&cpu::representatives_by_keyed_rounds(&graph));
        prop_assert_eq!(&keyed, &expected, "keyed colouring rounds");
    }
}

/// `graph` decomposed on `device` by every method, and by colouring with
/// each kind of labels: the partition and the figures of the reference,
/// or what differs.
fn check_on_gpu(device: &Device, graph: &Csr, what: &str) -> Result<(), String> {
    let expected = reference::decompose(graph);
    let summary = expected.summary(graph);
    let uploaded = gpu::upload(device, graph).map_err(|e| e.to_string())?;
    let runs = METHODS
        .map(|method| (method, None))
        .into_iter()
        .chain(LABELS.map(|labels| (Method::Coloring, Some(labels))));
    for (method, labels) in runs {
        let what = format!("{what} {method:?} {labels:?}");
        let result = match labels {
            None => gpu::decompose(device, uploaded.view(), method, true),
            Some(labels) => gpu::decompose_with_labels(device, uploaded.view(), labels, true),
        }
        .map_err(|e| format!("{what}: {e}"))?;
        if result.components.as_ref() != Some(&expected) {
            return Err(format!("{what}: partition differs"));
        }
        if result.summary != summary {
            return Err(format!(
                "{what}: {:?} instead of {summary:?}",
                result.summary
            ));
        }
        if method == Method::Coloring && result.contracted != contracted_states(graph) {
            return Err(format!(
                "{what}: {} states contracted instead of {}",
                result.contracted,
                contracted_states(graph)
            ));
        }
        // The GPU's sample of the edges chooses the labels the CPU's does.
        let chosen = match method {
            Method::Coloring => Some(labels.unwrap_or(Labels::of(graph))),
            Method::ForwardBackward => None,
        };
        if result.labels != chosen {
            return Err(format!(
                "{what}: labels {:?} instead of {chosen:?}",
                result.labels
            ));
        }
    }
    Ok(())
}

/// The states that colouring stands in for by their cluster's root, as
/// the CPU finds them: those not their own root, if a sample of the edges
/// says contraction pays.
fn contracted_states(graph: &Csr) -> u64 {
    if !mutual::worth_contracting(graph) {
        return 0;
    }
    let roots = mutual::roots(graph);
    roots
        .iter()
        .enumerate()
        .filter(|&(state, &root)| root as usize != state)
        .count() as u64
}

/// Graphs of every shape, small and a few large, for the GPU tests.
fn gpu_cases() -> Vec<(String, Csr)> {
    let mut cases = Vec::new();
    for seed in 0..30u64 {
        let n = 1 + (seed * 37 % 200) as u32;
        cases.push((
            format!("random {seed}"),
            graphs::random_graph(n, seed * 5 % 400, seed),
        ));
        let k = 1 + (seed % 9) as u32;
        cases.push((
            format!("cycles {seed}"),
            graphs::chain_of_cycles(k, 1 + (seed % 7) as u32, seed % 2 == 0),
        ));
        cases.push((
            format!("chain {seed}"),
            graphs::component_chain(1 + (seed * 13 % 90) as u32, 1 + (seed % 4) as u32, seed),
        ));
        cases.push((
            format!("loops {seed}"),
            graphs::self_loops(n, seed % 50, seed),
        ));
        cases.push((
            format!("grid {seed}"),
            graphs::grid(
                1 + (seed % 12) as u32,
                1 + (seed * 7 % 12) as u32,
                (seed % 5) as f64 / 4.0,
                seed,
            ),
        ));
    }
    let permuted: Vec<(String, Csr)> = cases
        .iter()
        .map(|(name, graph)| (format!("{name} permuted"), graphs::permuted(graph, 7)))
        .collect();
    cases.extend(permuted);
    cases.push(("empty".into(), Csr::from_edges(0, []).unwrap()));
    cases.push((
        "random 10^5".into(),
        graphs::random_graph(100_000, 150_000, 1),
    ));
    cases.push(("rmat 2^16".into(), graphs::rmat(16, 500_000, 2)));
    cases.push(("chain 3000x2".into(), graphs::component_chain(3_000, 2, 3)));
    cases.push((
        "cycle 10^5 permuted".into(),
        graphs::permuted(&graphs::chain_of_cycles(1, 100_000, false), 4),
    ));
    cases.push(("grid 300x300".into(), graphs::grid(300, 300, 0.5, 5)));
    cases
}

#[test]
fn the_gpu_methods_give_the_reference_partition() {
    with_gpu(|device| {
        let failures: Vec<String> = gpu_cases()
            .iter()
            .filter_map(|(name, graph)| check_on_gpu(device, graph, name).err())
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

/// A deep chain of trivial components below a cycle and above a
/// self-loop, as in the state spaces of timed protocols (wlan): trimming
/// assigns exactly the chain (the self-loop does not count as an edge),
/// whether colouring trims first or gives up a long first round for it
/// (or converges without it: passes that sweep again while labels grow
/// can carry a label along the chain in fewer than `TRIM_AFTER_PASSES`),
/// and the partition and the figures stay the reference's.
#[test]
fn colouring_trims_deep_chains() {
    const CHAIN: u32 = 300_000;
    const CYCLE: u32 = 100_000;
    // The cycle 0 .. CYCLE - 1, then a path from it through every state to
    // the last, which loops on itself, and forward shortcuts.
    let mut edges: Vec<(u32, u32)> = (0..CHAIN - 1).map(|s| (s, s + 1)).collect();
    edges.push((CYCLE - 1, 0));
    edges.push((CHAIN - 1, CHAIN - 1));
    edges.extend((CYCLE..CHAIN - 7).step_by(5).map(|s| (s, s + 7)));
    let graph = graphs::permuted(&Csr::from_edges(CHAIN, edges).unwrap(), 11);
    assert_eq!(trimmed_states(&graph), u64::from(CHAIN - CYCLE));
    let expected = reference::decompose(&graph);
    with_gpu(|device| {
        let uploaded = gpu::upload(device, &graph).unwrap();
        let first = gpu::decompose_trimming_first(device, uploaded.view(), true).unwrap();
        let late = gpu::decompose(device, uploaded.view(), Method::Coloring, true).unwrap();
        for (result, trimmed) in [(first, u64::from(CHAIN - CYCLE)), (late, 0)] {
            assert!(
                [trimmed, u64::from(CHAIN - CYCLE)].contains(&result.trimmed),
                "{} states trimmed after {} passes",
                result.trimmed,
                result.passes
            );
            assert_eq!(result.components.as_ref(), Some(&expected));
            assert_eq!(result.summary, expected.summary(&graph));
        }
        check_on_gpu(device, &graph, "deep chain").unwrap();
    });
}

/// A grid with many edges both ways, from whose last state a path of
/// 3·10^5 states leads away: trimming assigns the path and the grid's
/// states without an edge in or out (none in a cluster of mutual edges),
/// colouring contracts the grid's clusters and goes on with them.
#[test]
fn colouring_contracts_and_trims() {
    const SIDE: u32 = 100;
    const PATH: u32 = 300_000;
    let grid = graphs::grid(SIDE, SIDE, 0.5, 9);
    let top = SIDE * SIDE;
    let path = (top - 1..top + PATH - 1).map(|s| (s, s + 1));
    let edges: Vec<(u32, u32)> = grid.edges().chain(path).collect();
    let graph = graphs::permuted(&Csr::from_edges(top + PATH, edges).unwrap(), 12);
    let contracted = contracted_states(&graph);
    assert!(
        contracted > u64::from(top) / 2,
        "{contracted} states contracted"
    );
    let trimmed = trimmed_states(&graph);
    assert!(trimmed >= u64::from(PATH));
    let expected = reference::decompose(&graph);
    with_gpu(|device| {
        let uploaded = gpu::upload(device, &graph).unwrap();
        let result = gpu::decompose_trimming_first(device, uploaded.view(), true).unwrap();
        assert_eq!(
            (result.trimmed, result.contracted),
            (trimmed, contracted),
            "after {} passes",
            result.passes
        );
        assert_eq!(result.components.as_ref(), Some(&expected));
        assert_eq!(result.summary, expected.summary(&graph));
    });
}

/// The states that trimming assigns: peeled one by one while one has no
/// edge from another live state or none to one (the order does not
/// change the set).
fn trimmed_states(graph: &Csr) -> u64 {
    let mut degrees = graphs::in_out_degrees(graph);
    let reverse = cpu::transposed(graph);
    let mut peeled = vec![false; degrees.len()];
    let mut work: Vec<u32> = (0..graph.states())
        .filter(|&s| degrees[s as usize].contains(&0))
        .collect();
    for &s in &work {
        peeled[s as usize] = true;
    }
    let mut count = 0;
    while let Some(state) = work.pop() {
        count += 1;
        let sides = [(graph.successors(state), 0), (reverse.successors(state), 1)];
        for (neighbours, side) in sides {
            for &next in neighbours.iter().filter(|&&next| next != state) {
                degrees[next as usize][side] -= 1;
                if degrees[next as usize][side] == 0 && !peeled[next as usize] {
                    peeled[next as usize] = true;
                    work.push(next);
                }
            }
        }
    }
    count
}

/// The state spaces of the bundled MCC models, decomposed on the device
/// without leaving it (by colouring over edges generated from the
/// explorer's table, then stored, by both methods), against Tarjan on a
/// host copy.
#[test]
fn explored_state_spaces_decompose_on_the_device() {
    let models = testing::mcc_models(Path::new("tests/data/mcc"));
    assert!(!models.is_empty(), "no models under tests/data/mcc");
    with_gpu(|device| {
        let mut failures = Vec::new();
        for model in models {
            let net = testing::load_mcc_model(&model);
            let name = model.file_name().unwrap().to_string_lossy().into_owned();
            let (_, space) = gpu_explore::explore_on_device(
                device,
                &net,
                &SearchOptions::default(),
                &GpuOptions::default(),
            )
            .unwrap();
            let (generated, graph) = match space.expect("a complete search") {
                SpaceOnDevice::InTable(table) => {
                    let reports = std::sync::Mutex::new(Vec::new());
                    let progress = |report| reports.lock().unwrap().push(report);
                    let generated =
                        gpu::decompose_generated(device, &*table, true, &progress).unwrap();
                    // One report a pass, in order, the last one the result's.
                    let reports = reports.into_inner().unwrap();
                    let last = reports.last().expect("at least one pass");
                    assert_eq!(
                        (last.round, last.passes),
                        (generated.rounds, generated.passes),
                        "{name}"
                    );
                    assert!(
                        reports
                            .windows(2)
                            .all(|w| w[1].passes == w[0].passes + 1 && w[1].round >= w[0].round)
                    );
                    assert_eq!(
                        reports[0].live,
                        gpu::GeneratedGraph::states(&*table),
                        "{name}"
                    );
                    (Some(generated), table.store().unwrap())
                }
                SpaceOnDevice::Stored(graph) => (None, graph),
            };
            let host = Csr {
                offsets: device.download(&graph.offsets).unwrap(),
                targets: device.download(&graph.targets).unwrap()[..graph.edges as usize].to_vec(),
            };
            let expected = reference::decompose(&host);
            let view = || DeviceCsr {
                states: graph.states,
                edges: graph.edges,
                offsets: &graph.offsets,
                targets: &graph.targets,
            };
            let results = METHODS.map(|method| {
                (
                    format!("{method:?}"),
                    gpu::decompose(device, view(), method, true).unwrap(),
                )
            });
            let generated =
                generated.map(|result| ("colouring over generated edges".to_string(), result));
            for (what, result) in results.into_iter().chain(generated) {
                if result.components.as_ref() != Some(&expected)
                    || result.summary != expected.summary(&host)
                {
                    failures.push(format!(
                        "{name} {what}: {:?} vs {:?}",
                        result.summary,
                        expected.summary(&host)
                    ));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

/// Every graph listed in `dir/oracles.tsv` (SciPy's figures for the
/// whole graph) with its summary: (name, graph, expected summary).
fn oracle_graphs(dir: &Path) -> Vec<(String, Csr, Summary)> {
    let Ok(text) = std::fs::read_to_string(dir.join("oracles.tsv")) else {
        return Vec::new();
    };
    let mut lines = text.lines();
    let columns: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let column = |fields: &[&str], name: &str| -> u64 {
        let index = columns.iter().position(|c| *c == name).unwrap();
        fields[index].parse().unwrap()
    };
    lines
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let file = dir.join(fields[columns.iter().position(|c| *c == "file").unwrap()]);
            // The bundled folder holds the small graphs of the list only.
            if !file.exists() {
                return None;
            }
            let graph = aut::load_graph(&file).unwrap().edges;
            let expected = Summary {
                states: column(&fields, "states"),
                edges: column(&fields, "edges"),
                components: column(&fields, "sccs"),
                largest_component: column(&fields, "largest_scc"),
                trivial_components: column(&fields, "trivial_sccs"),
                bottom_components: column(&fields, "bottom_sccs"),
            };
            Some((fields[0].to_string(), graph, expected))
        })
        .collect()
}

/// The bundled graphs, and those of `$WARPCHECK_GRAPHS` (default
/// `../shared/graphs`) when present.
fn all_oracle_graphs() -> Vec<(String, Csr, Summary)> {
    let shared = std::env::var_os("WARPCHECK_GRAPHS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/graphs"));
    let mut graphs = oracle_graphs(Path::new("tests/data/graphs"));
    assert!(!graphs.is_empty(), "no graphs under tests/data/graphs");
    let more = oracle_graphs(&shared);
    if more.is_empty() {
        warpcheck::testing::skipped(format_args!("no oracles.tsv in {}", shared.display()));
    }
    graphs.extend(more);
    graphs
}

#[test]
fn graphs_have_the_figures_scipy_computed() {
    let mut failures = Vec::new();
    for (name, graph, expected) in all_oracle_graphs() {
        let by_reference = reference::decompose(&graph);
        if by_reference.summary(&graph) != expected {
            failures.push(format!(
                "{name}: reference {:?}",
                by_reference.summary(&graph)
            ));
        }
        for method in METHODS {
            if cpu::decompose(&graph, method, 2) != by_reference {
                failures.push(format!("{name}: CPU {method:?} partition differs"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn gpu_graphs_have_the_figures_scipy_computed() {
    let graphs = all_oracle_graphs();
    with_gpu(|device| {
        let failures: Vec<String> = graphs
            .iter()
            .filter_map(|(name, graph, expected)| {
                check_on_gpu(device, graph, name)
                    .and_then(|()| {
                        let uploaded = gpu::upload(device, graph).map_err(|e| e.to_string())?;
                        let result =
                            gpu::decompose(device, uploaded.view(), Method::Coloring, false)
                                .map_err(|e| e.to_string())?;
                        (result.summary == *expected)
                            .then_some(())
                            .ok_or(format!("{name}: {:?}", result.summary))
                    })
                    .err()
            })
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

/// `warpcheck scc` on a graph file, a PRISM model and a network: the
/// figures in JSON, and the components file in its documented form.
#[test]
fn the_command_reports_figures_and_writes_components() {
    let dir = tempfile::tempdir().unwrap();
    let components = dir.path().join("components.txt");
    let report = json_report(&[
        "scc",
        "tests/data/graphs/tiny-10.aut",
        "--engine",
        "cpu",
        "--write-components",
        components.to_str().unwrap(),
    ]);
    for (field, value) in [
        ("states", 10),
        ("edges", 12),
        ("components", 7),
        ("largest_component", 3),
        ("trivial_components", 4),
        ("bottom_components", 3),
    ] {
        assert_eq!(report[field], value, "{field}");
    }
    assert!(report["engine"].as_str().unwrap().starts_with("cpu"));
    assert!(report["elapsed_seconds"].as_f64().unwrap() >= 0.0);
    let graph = aut::load_graph(Path::new("tests/data/graphs/tiny-10.aut"))
        .unwrap()
        .edges;
    let expected: String = reference::decompose(&graph)
        .of_state
        .iter()
        .enumerate()
        .map(|(state, component)| format!("{state} {component}\n"))
        .collect();
    assert_eq!(std::fs::read_to_string(&components).unwrap(), expected);

    let run = |args: &[&str]| {
        std::process::Command::new(crate::warpcheck_binary())
            .args(args)
            .output()
            .unwrap()
    };
    // A model is explored first: philosophers3 has 14 states in 2 components.
    let report = json_report(&["scc", "specs/philosophers3.net", "--engine", "reference"]);
    assert_eq!(
        (report["states"].as_u64(), report["components"].as_u64()),
        (Some(14), Some(2))
    );
    // `args` fail with exit `code` and message `stderr`.
    let fails = |args: &[&str], code: i32, stderr: &str| {
        let output = run(args);
        assert_eq!(output.status.code(), Some(code), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&output.stderr), stderr, "{args:?}");
    };
    // An exploration cut short has no decomposition: exit 3.
    fails(
        &[
            "scc",
            "specs/philosophers3.net",
            "--engine",
            "cpu",
            "--max-states",
            "3",
        ],
        3,
        "error: exploration incomplete (state-limit); no decomposition\n",
    );
    // Limits of the exploration do nothing on a graph file: a warning says so.
    let report = json_report(&[
        "scc",
        "specs/scc_example.aut",
        "--engine",
        "cpu",
        "--max-states",
        "3",
        "--timeout",
        "5",
    ]);
    assert_eq!(report["components"], 5);
    assert_eq!(
        report["warnings"],
        serde_json::json!([
            "--max-states, --timeout only limit the exploration of a model; a graph file is decomposed whole"
        ])
    );
    // Edges to states beyond the header are located errors.
    let bad = dir.path().join("bad.aut");
    std::fs::write(&bad, "des (0, 1, 2)\n(0, \"a\", 5)\n").unwrap();
    let output = run(&["scc", bad.to_str().unwrap(), "--engine", "cpu"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with(&format!("error: {}:2:", bad.display())),
        "{stderr}"
    );
    // A name that is neither a graph file nor a model is refused before
    // any engine starts.
    fails(
        &["scc", "Cargo.toml"],
        2,
        "error: Cargo.toml: unknown input format: scc reads graph files (.aut, .tra or .umb; \
         text files may end in .gz) and models to explore (.net, .exp or .pnml; or give \
         --input-format)\n",
    );
    // Graph files are named in any case.
    let upper = dir.path().join("DIE.TRA");
    std::fs::copy("specs/die.tra", &upper).unwrap();
    let report = json_report(&["scc", upper.to_str().unwrap(), "--engine", "cpu"]);
    assert_eq!(
        (report["states"].as_u64(), report["components"].as_u64()),
        (Some(13), Some(11))
    );
    // Forward-backward needs stored edges.
    fails(
        &[
            "scc",
            "specs/philosophers3.net",
            "--edges",
            "generated",
            "--method",
            "forward-backward",
        ],
        2,
        "error: --edges generated runs colouring only: forward-backward needs the stored \
         edges and their transpose\n",
    );
    // Where edges are kept matters only to the GPU explorer.
    let report = json_report(&[
        "scc",
        "specs/philosophers3.net",
        "--engine",
        "cpu",
        "--edges",
        "stored",
    ]);
    assert_eq!(
        report["warnings"],
        serde_json::json!([
            "--edges only affects a model explored on the GPU; a graph file or a CPU \
             exploration stores its edges"
        ])
    );
    assert_eq!(report["edges_kept"], serde_json::Value::Null);
    assert_eq!(report["gpu_work"], serde_json::Value::Null);
}

/// `warpcheck scc` on the GPU keeps an explored model's edges as `--edges`
/// says, with the same figures, and reports the device memory it needed.
#[test]
fn the_command_stores_or_generates_edges_on_the_gpu() {
    with_gpu(|_| {
        let mut figures = Vec::new();
        for edges in ["stored", "generated", "auto"] {
            let report = json_report(&[
                "scc",
                "tests/data/mcc/Peterson-PT-2/model.pnml",
                "--engine",
                "gpu",
                "--edges",
                edges,
            ]);
            let kept = if edges == "auto" { "stored" } else { edges };
            assert_eq!(report["edges_kept"], kept);
            assert!(report["device_memory_peak_bytes"].as_u64().unwrap() > 0);
            let work = &report["gpu_work"];
            assert!(work["rounds"].as_u64().unwrap() >= 1, "{work}");
            assert!(work["passes"].as_u64().is_some(), "{work}");
            // Colouring over the stored edge list chooses its labels;
            // over generated edges they are always scrambled.
            match kept {
                "stored" => assert!(
                    ["numbers", "scrambled"].contains(&work["labels"].as_str().unwrap()),
                    "{work}"
                ),
                _ => assert_eq!(work["labels"], serde_json::Value::Null, "{work}"),
            }
            assert!(
                work["phase_seconds"]["summary"].as_f64().unwrap() >= 0.0,
                "{work}"
            );
            let keys = [
                "states",
                "edges",
                "components",
                "largest_component",
                "trivial_components",
                "bottom_components",
            ];
            figures.push(keys.map(|key| report[key].clone()));
        }
        assert!(
            figures.windows(2).all(|pair| pair[0] == pair[1]),
            "{figures:?}"
        );
    });
}

/// The JSON report of `warpcheck --format json ARGS` (the binary of
/// [`crate::gpu::binary`]), which must exit 0.
fn json_report(args: &[&str]) -> serde_json::Value {
    let output = std::process::Command::new(crate::warpcheck_binary())
        .args(["--format", "json"])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}
