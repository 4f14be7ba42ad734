//! Side-by-side SCC timings on one machine: the sequential reference
//! (Tarjan), the CPU engine's forward-backward rounds alone at 1 and 2
//! threads (columns `cpu1_s`, `cpu2_s`), the CPU engine on all threads
//! (`cpu_all_s`: Tarjan racing the rounds), and both GPU methods, on generated graphs and on explored MCC state spaces;
//! every partition is checked against Tarjan's. Colouring runs with the
//! labels its sample of the edges chooses (the table's column), then with
//! the other labels (on stderr, `NAME Coloring-LABELS:`). Writes each graph for the
//! peers (`NAME.egr`, ECL-SCC's binary CSR; `NAME.offsets` / `NAME.targets`,
//! raw little-endian u64 / u32 arrays for SciPy) into OUT_DIR, and prints
//! one tab-separated line per graph. `scripts/scc_bench.sh` runs it with
//! the peers.
//!
//! Usage: scc_bench OUT_DIR [MCC_MODEL_DIR ...]
//! (`SCC_BENCH_GPU_ONLY=1`: no CPU engine columns; `SCC_BENCH_SCALE=k`:
//! generated graphs k times smaller; `SCC_BENCH_ONLY=TEXT`: only the
//! generated graphs whose name contains TEXT; `RUST_LOG=warpcheck=debug`:
//! the engines' debug log on stderr, e.g. each colouring round's passes.)

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use warpcheck::explicit::Csr;
use warpcheck::explore::SearchOptions;
use warpcheck::explore::gpu::{self as gpu_explore, GpuOptions, SpaceOnDevice};
use warpcheck::gpu::Device;
use warpcheck::scc::cpu::Method;
use warpcheck::scc::gpu::{self, DeviceCsr, GpuComponents};
use warpcheck::scc::labels::Labels;
use warpcheck::scc::{Components, cpu, reference};
use warpcheck::testing::{self, graphs};

/// Timed runs of each GPU method; the best is reported.
const GPU_RUNS: usize = 3;
/// Graphs with more edges skip the single-thread CPU runs.
const MAX_EDGES_SINGLE_THREAD: u64 = 30_000_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = PathBuf::from(
        args.first()
            .expect("usage: scc_bench OUT_DIR [MCC_MODEL_DIR ...]"),
    );
    std::fs::create_dir_all(&out).unwrap();
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .with_ansi(std::io::stderr().is_terminal())
            .init();
    }
    let device = Device::open(0).ok();
    match &device {
        Some(device) => eprintln!("device: {}", device.description()),
        None => eprintln!("no GPU: CPU columns only"),
    }
    println!(
        "graph\tstates\tedges\tcomponents\ttarjan_s\tcpu1_s\tcpu2_s\tcpu_all_s\tgpu_coloring_s\tgpu_fb_s\tcoloring_rounds\tfb_rounds\texplore_s\tchecked"
    );
    // `SCC_BENCH_SCALE=k` divides every generated size by k (quick checks).
    let k: u32 = std::env::var("SCC_BENCH_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let generated = graphs::benchmark_graphs(k);
    let only = std::env::var("SCC_BENCH_ONLY").unwrap_or_default();
    for (name, make) in generated
        .into_iter()
        .filter(|(name, _)| name.contains(&only))
    {
        let graph = make();
        bench(device.as_ref(), &out, name, &graph, None, None);
    }
    let Some(device) = device else { return };
    for model in args.iter().skip(1).map(Path::new) {
        let name = model.file_name().unwrap().to_string_lossy().into_owned();
        let net = testing::load_mcc_model(model);
        let started = Instant::now();
        let (_, space) = gpu_explore::explore_on_device(
            &device,
            &net,
            &SearchOptions::default(),
            &GpuOptions::default(),
        )
        .unwrap();
        let explore_seconds = started.elapsed().as_secs_f64();
        // Colouring over edges generated from the table, then stored.
        let explored = match space.expect("a complete exploration") {
            SpaceOnDevice::InTable(table) => {
                let generated =
                    best_of(|| gpu::decompose_generated(&device, &*table, false, &|_| {}).unwrap());
                eprintln!(
                    "{name}: colouring over generated edges in {:.4} s ({} rounds, {} passes)",
                    generated.seconds, generated.rounds, generated.passes
                );
                table.store().unwrap()
            }
            SpaceOnDevice::Stored(graph) => graph,
        };
        let free_after_graph = device.free_memory().unwrap();
        // Decomposed where the explorer left it, then on a host copy.
        let view = || DeviceCsr {
            states: explored.states,
            edges: explored.edges,
            offsets: &explored.offsets,
            targets: &explored.targets,
        };
        let in_place =
            best_of(|| gpu::decompose(&device, view(), Method::Coloring, false).unwrap());
        eprintln!(
            "{name}: explored in {explore_seconds:.3} s, decomposed in place in {:.4} s; \
             free device memory {:.1} GiB after exploring",
            in_place.seconds,
            free_after_graph as f64 / (1u64 << 30) as f64
        );
        let host = Csr {
            offsets: device.download(&explored.offsets).unwrap(),
            targets: device.download(&explored.targets).unwrap()[..explored.edges as usize]
                .to_vec(),
        };
        drop(explored);
        bench(
            Some(&device),
            &out,
            &name,
            &host,
            Some(explore_seconds),
            Some(in_place.seconds),
        );
    }
}

/// The fastest of [`GPU_RUNS`] runs, after one warm-up.
fn best_of(run: impl Fn() -> GpuComponents) -> GpuComponents {
    let mut best = run();
    for _ in 0..GPU_RUNS {
        let next = run();
        if next.seconds < best.seconds {
            best = next;
        }
    }
    best
}

fn seconds<T>(run: impl FnOnce() -> T) -> (T, f64) {
    let started = Instant::now();
    let value = run();
    (value, started.elapsed().as_secs_f64())
}

fn bench(
    device: Option<&Device>,
    out: &Path,
    name: &str,
    graph: &Csr,
    explore_seconds: Option<f64>,
    in_place_seconds: Option<f64>,
) {
    write_peer_files(out, name, graph);
    let (expected, tarjan) = seconds(|| reference::decompose(graph));
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // The rounds alone (how they scale), then the engine (its race).
    let rounds_time = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let method = Method::ForwardBackward;
        let (found, time) = seconds(|| pool.install(|| cpu::representatives(graph, method)));
        let found = Components::from_representatives(&found);
        assert_eq!(found, expected, "{name}: CPU rounds at {threads} threads");
        time
    };
    // `SCC_BENCH_GPU_ONLY=1` leaves the CPU engine's columns out (Tarjan
    // stays: it checks the GPU's partitions).
    let with_cpu = std::env::var_os("SCC_BENCH_GPU_ONLY").is_none();
    let small = with_cpu && graph.edge_count() <= MAX_EDGES_SINGLE_THREAD;
    let cpu1 = small.then(|| rounds_time(1));
    let cpu2 = small.then(|| rounds_time(2));
    let cpu_all = with_cpu.then(|| {
        let (components, time) =
            seconds(|| cpu::decompose(graph, Method::ForwardBackward, threads));
        assert_eq!(components, expected, "{name}: the CPU engine");
        time
    });
    let mut results = Vec::new();
    let mut checked = true;
    if let Some(device) = device {
        let uploaded = gpu::upload(device, graph).unwrap();
        let checks = |found: &GpuComponents| {
            found.components.as_ref() == Some(&expected) && found.summary == expected.summary(graph)
        };
        for method in [Method::Coloring, Method::ForwardBackward] {
            checked &= checks(&gpu::decompose(device, uploaded.view(), method, true).unwrap());
            let best = best_of(|| gpu::decompose(device, uploaded.view(), method, false).unwrap());
            eprintln!(
                "{name} {method:?}: {:.4} s, {} rounds, {} passes, phases {:?}, labels {:?}",
                best.seconds, best.rounds, best.passes, best.phases, best.labels
            );
            // Colouring with the labels its sample did not choose, beside.
            let other = best.labels.map(|chosen| match chosen {
                Labels::Numbers => Labels::Scrambled,
                Labels::Scrambled => Labels::Numbers,
            });
            if let Some(labels) = other {
                let with = |partition| {
                    gpu::decompose_with_labels(device, uploaded.view(), labels, partition).unwrap()
                };
                checked &= checks(&with(true));
                let other = best_of(|| with(false));
                eprintln!(
                    "{name} Coloring-{labels:?}: {:.4} s, {} rounds, {} passes, phases {:?}",
                    other.seconds, other.rounds, other.passes, other.phases
                );
            }
            results.push(best);
        }
    }
    let show = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.4}"));
    let coloring = results
        .first()
        .map(|r| in_place_seconds.unwrap_or(r.seconds).min(r.seconds));
    let rounds = |i: usize| {
        results
            .get(i)
            .map_or("-".to_string(), |r| r.rounds.to_string())
    };
    let verdict = if checked {
        "same as Tarjan"
    } else {
        "DIFFERENT"
    };
    println!(
        "{name}\t{}\t{}\t{}\t{tarjan:.4}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{verdict}",
        graph.states(),
        graph.edge_count(),
        expected.count,
        show(cpu1),
        show(cpu2),
        show(cpu_all),
        show(coloring),
        show(results.get(1).map(|r| r.seconds)),
        rounds(0),
        rounds(1),
        show(explore_seconds),
    );
    std::io::stdout().flush().unwrap();
}

/// ECL-SCC's format (i32 nodes, i32 edges, i32 offsets, i32 targets) when
/// the graph fits it, and the raw arrays for SciPy.
fn write_peer_files(out: &Path, name: &str, graph: &Csr) {
    let bytes_u32 = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let offsets_u64: Vec<u8> = graph.offsets.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(out.join(format!("{name}.offsets")), offsets_u64).unwrap();
    std::fs::write(
        out.join(format!("{name}.targets")),
        bytes_u32(&graph.targets),
    )
    .unwrap();
    if graph.edge_count() < i32::MAX as u64 {
        let mut egr = Vec::new();
        egr.extend((graph.states() as i32).to_le_bytes());
        egr.extend((graph.edge_count() as i32).to_le_bytes());
        egr.extend(graph.offsets.iter().flat_map(|&o| (o as i32).to_le_bytes()));
        egr.extend(bytes_u32(&graph.targets));
        std::fs::write(out.join(format!("{name}.egr")), egr).unwrap();
    }
}
