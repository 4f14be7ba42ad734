//! SCC decomposition: the multi-core and GPU variants give the partition
//! of the sequential Tarjan reference (components numbered by smallest
//! state, so partitions compare with `==`), and the figures counted on the
//! GPU equal those counted on the host, on random graphs of every shape
//! that stresses the methods and on explored state spaces. Without a GPU
//! the GPU tests print SKIPPED.

use std::path::Path;

use proptest::prelude::*;
use warpcheck::explicit::Csr;
use warpcheck::explore::SearchOptions;
use warpcheck::explore::gpu::{self as gpu_explore, GpuOptions};
use warpcheck::gpu::Device;
use warpcheck::scc::cpu::Method;
use warpcheck::scc::gpu::{self, DeviceCsr};
use warpcheck::scc::{cpu, reference};
use warpcheck::testing::{self, graphs};

use crate::gpu::with_gpu;

const METHODS: [Method; 2] = [Method::Coloring, Method::ForwardBackward];

proptest! {
    #[test]
    fn the_cpu_methods_give_the_reference_partition(graph in graphs::graph_shapes()) {
        let expected = reference::decompose(&graph);
        for method in METHODS {
            for threads in [1, 2] {
                prop_assert_eq!(&cpu::decompose(&graph, method, threads), &expected, "{:?}", method);
            }
        }
    }
}

/// `graph` decomposed on `device` by every method: the partition and the
/// figures of the reference, or what differs.
fn check_on_gpu(device: &Device, graph: &Csr, what: &str) -> Result<(), String> {
    let expected = reference::decompose(graph);
    let summary = expected.summary(graph);
    let uploaded = gpu::upload(device, graph).map_err(|e| e.to_string())?;
    for method in METHODS {
        let result = gpu::decompose(device, uploaded.view(), method, true)
            .map_err(|e| format!("{what} {method:?}: {e}"))?;
        if result.components.as_ref() != Some(&expected) {
            return Err(format!("{what} {method:?}: partition differs"));
        }
        if result.summary != summary {
            return Err(format!(
                "{what} {method:?}: {:?} instead of {summary:?}",
                result.summary
            ));
        }
    }
    Ok(())
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
    cases.push((
        "chain 30000x2".into(),
        graphs::component_chain(30_000, 2, 3),
    ));
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

/// The state spaces of the bundled MCC models, built and decomposed on the
/// device without leaving it, against Tarjan on a host copy.
#[test]
fn explored_state_spaces_decompose_on_the_device() {
    let models = testing::mcc_models(Path::new("tests/data/mcc"));
    assert!(!models.is_empty(), "no models under tests/data/mcc");
    with_gpu(|device| {
        let mut failures = Vec::new();
        for model in models {
            let net = testing::load_mcc_model(&model);
            let name = model.file_name().unwrap().to_string_lossy().into_owned();
            let (_, graph) = gpu_explore::explore_graph(
                device,
                &net,
                &SearchOptions::default(),
                &GpuOptions::default(),
            )
            .unwrap();
            let graph = graph.expect("a complete search");
            let host = graph.download(device, Vec::new()).unwrap().edges;
            let expected = reference::decompose(&host);
            for method in METHODS {
                let view = DeviceCsr {
                    states: graph.states,
                    edges: graph.edges,
                    offsets: &graph.offsets,
                    targets: &graph.targets,
                };
                let result = gpu::decompose(device, view, method, true).unwrap();
                if result.components.as_ref() != Some(&expected)
                    || result.summary != expected.summary(&host)
                {
                    failures.push(format!(
                        "{name} {method:?}: {:?} vs {:?}",
                        result.summary,
                        expected.summary(&host)
                    ));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}
