//! `warpcheck scc`: strongly connected components of a graph file or of
//! a model's state space, by the engine the user picks.

use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, ValueEnum};

use super::engines::{CPU_ENGINE, preferred_device, required_device};
use super::output::{check_output_path, warn};
use super::{
    Cli, EngineChoice, InputArgs, Interruption, PhaseLine, SearchLimits, cpu_options, cpu_threads,
    emit_report, load_and_search, progress_line, search_options, spinner,
};
use crate::error::{Error, exit};
use crate::explicit::{Csr, LabelledGraphBuilder};
use crate::explore::gpu::{self as gpu_explore, GpuOptions};
use crate::explore::{Completion, Exploration, SearchOptions, cpu as cpu_explore, reference};
use crate::frontend::{self, ExplicitFormat, Format};
use crate::gpu::Device;
use crate::scc::cpu::{Finisher, Method};
use crate::scc::gpu::GeneratedGraph;
use crate::scc::{self, Components, Summary};

/// What `scc --help` says before the options: which inputs are graphs.
pub const SCC_ABOUT: &str = "\
Decompose a graph into strongly connected components.

MODEL is a graph file, decomposed whole (states unreachable from its initial
state included): Aldebaran .aut, PRISM explicit .tra or UMB .umb (the graph of
a Markov model's moves); text files may be gzip-compressed (.gz). Any other
model (.net, .exp, .pnml, or --input-format) is explored first and its
reachable state space decomposed; on the GPU it stays on the device.";

/// The exit codes of `scc` and `mec`, which find no violations.
pub const DECOMPOSITION_EXIT_CODES: &str = "\
Exit codes:
  0    decomposed
  2    bad input or usage (messages say file:line:column), or --engine gpu
       without a GPU
  3    the exploration of a model was incomplete (--max-states, memory limit,
       --timeout or Ctrl-C): no decomposition
  4    internal or device failure
  141  standard output was closed by its reader (as a tool killed by SIGPIPE)";

/// How `scc` finds components.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MethodChoice {
    /// Colouring on the GPU (faster there, and no worst case as bad as
    /// forward-backward's on long chains), forward-backward on the CPU
    /// (faster there; a round that stalls hands the rest to Tarjan); see
    /// docs/SCC.md.
    Auto,
    /// Maximum-label propagation both ways over a list of edges.
    Coloring,
    /// Trimming, then forward-backward reachability from one pivot per
    /// partition.
    ForwardBackward,
}

impl MethodChoice {
    /// The method an engine runs, on the GPU or not.
    pub(super) fn method(self, on_gpu: bool) -> Method {
        match self {
            MethodChoice::Auto if on_gpu => Method::Coloring,
            MethodChoice::Auto => Method::ForwardBackward,
            MethodChoice::Coloring => Method::Coloring,
            MethodChoice::ForwardBackward => Method::ForwardBackward,
        }
    }
}

/// Where the GPU keeps an explored model's edges while it decomposes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EdgesChoice {
    /// Stored when they and the method's arrays fit in device memory,
    /// else generated.
    Auto,
    /// Written as a CSR graph (4 bytes an edge), then the explorer's
    /// table is freed.
    Stored,
    /// Not stored: each colouring pass generates every state's successors
    /// again from the explorer's table (20 bytes a state beside the table;
    /// colouring only; slower, for state spaces whose edges do not fit).
    Generated,
}

/// Arguments of `scc`.
#[derive(Debug, Args)]
pub struct SccArgs {
    /// A graph file, decomposed whole (states unreachable from its initial
    /// state included): `.aut`, or a PRISM explicit `.tra` or UMB `.umb`
    /// model (the graph of its possible moves); or a model to explore
    /// (.net, .exp, .pnml: its reachable state space). Text files may be
    /// gzip-compressed (`.gz`).
    #[command(flatten)]
    pub input: InputArgs,
    /// Engine: the GPU (`auto` uses it when one can be opened), the
    /// multi-core CPU engine, or the sequential reference (Tarjan).
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto)]
    pub engine: EngineChoice,
    /// Method of the GPU and CPU engines.
    #[arg(long, value_enum, default_value_t = MethodChoice::Auto)]
    pub method: MethodChoice,
    /// Where the GPU keeps an explored model's edges (graph files are
    /// always stored). On the GPU the exploration takes at most half the
    /// free device memory unless --memory says otherwise: the rest holds
    /// the graph and the decomposition.
    #[arg(long, value_enum, default_value_t = EdgesChoice::Auto)]
    pub edges: EdgesChoice,
    /// Write `state component` per line, for every state, components
    /// numbered from 0 in the order of their smallest state.
    #[arg(long, value_name = "FILE")]
    pub write_components: Option<PathBuf>,
    /// Limits of the exploration (models only) and the engines' resources.
    #[command(flatten)]
    pub limits: SearchLimits,
}

/// What `scc` decomposed, where, and how long each step took.
#[derive(Debug, serde::Serialize)]
struct SccReport {
    input: String,
    #[serde(flatten)]
    summary: Summary,
    engine: String,
    method: Option<Method>,
    /// The CPU engine's race: which side finished first.
    finished_by: Option<Finisher>,
    /// How the GPU kept an explored model's edges.
    edges_kept: Option<EdgesChoice>,
    /// What the GPU decomposition did, for tuning.
    gpu_work: Option<GpuWork>,
    /// The most device memory in use (all processes) where the explorer
    /// and the decomposition allocated the most.
    device_memory_peak_bytes: Option<u64>,
    load_seconds: f64,
    explore_seconds: Option<f64>,
    decompose_seconds: f64,
    elapsed_seconds: f64,
    edges_per_second: f64,
    components_file: Option<String>,
    warnings: Vec<String>,
    exit_code: i32,
}

/// A GPU decomposition's rounds, passes, trimmed and contracted states,
/// colouring's labels and seconds per phase (colouring: contract, set-up, rounds, trim,
/// Tarjan on the host;
/// forward-backward: transpose, trim, rounds, Tarjan on the host; both:
/// summary).
#[derive(Debug, serde::Serialize)]
struct GpuWork {
    rounds: u64,
    passes: u64,
    trimmed: u64,
    contracted: u64,
    labels: Option<scc::labels::Labels>,
    phase_seconds: serde_json::Map<String, serde_json::Value>,
}

impl GpuWork {
    fn of(result: &scc::gpu::GpuComponents) -> GpuWork {
        GpuWork {
            rounds: result.rounds,
            passes: result.passes,
            trimmed: result.trimmed,
            contracted: result.contracted,
            labels: result.labels,
            phase_seconds: result
                .phases
                .iter()
                .map(|&(phase, seconds)| (phase.to_string(), seconds.into()))
                .collect(),
        }
    }
}

/// The graph to decompose, on the host or left on the GPU by the explorer.
enum Graph {
    Host(Csr),
    Explored {
        device: Device,
        space: gpu_explore::SpaceOnDevice,
    },
}

/// The kinds of graph file, by the name's ending (in any case, before any
/// `.gz`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GraphFile {
    Aut,
    /// The graph of a Markov model's moves.
    Explicit(ExplicitFormat),
}

/// The graph file `input` names, if it names one (and no --input-format
/// asks to read it as a model); an error if it names neither a graph file
/// nor a model.
fn graph_file(input: &InputArgs) -> Result<Option<GraphFile>, Error> {
    if input.input_format.is_some() || input.model == Path::new("-") {
        return Ok(None);
    }
    match (
        Format::from_path(&input.model),
        ExplicitFormat::from_path(&input.model),
    ) {
        (Some(Format::Aut), _) => Ok(Some(GraphFile::Aut)),
        (Some(_), _) => Ok(None),
        (None, Some(explicit)) => Ok(Some(GraphFile::Explicit(explicit))),
        (None, None) => Err(Error::Usage(format!(
            "{}: unknown input format: scc reads graph files (.aut, .tra or .umb; text files \
             may end in .gz) and models to explore (.net, .exp or .pnml; or give \
             --input-format)",
            input.model.display()
        ))),
    }
}

/// Runs `scc`.
pub fn scc(cli: &Cli, args: &SccArgs) -> Result<i32, Error> {
    let started = Instant::now();
    let graph_file = graph_file(&args.input)?;
    if let Some(path) = &args.write_components {
        check_output_path(path, &args.input.model, "--write-components")?;
    }
    if args.edges == EdgesChoice::Generated && args.method == MethodChoice::ForwardBackward {
        return Err(Error::Usage(
            "--edges generated runs colouring only: forward-backward needs the stored edges \
             and their transpose"
                .into(),
        ));
    }
    let device = match args.engine {
        EngineChoice::Gpu => Some(required_device(args.limits.device.unwrap_or(0))?),
        EngineChoice::Auto => {
            preferred_device(args.limits.device.unwrap_or(0), cli.quiet, CPU_ENGINE)
        }
        EngineChoice::Cpu | EngineChoice::Reference => None,
    };
    let mut warnings = Vec::new();
    if device.is_none() && args.limits.device.is_some() {
        warnings.push("--device only affects the GPU engine, which does not run here".into());
    }
    if args.engine == EngineChoice::Reference && args.method != MethodChoice::Auto {
        warnings.push("--method has no effect on the reference engine (Tarjan)".into());
    }
    if device.is_some() && args.limits.threads.is_some() {
        warnings.push("--threads has no effect on the GPU engine".into());
    }
    if args.edges != EdgesChoice::Auto
        && (device.is_none() || args.engine == EngineChoice::Reference || graph_file.is_some())
    {
        warnings.push(
            "--edges only affects a model explored on the GPU; a graph file or a CPU \
             exploration stores its edges"
                .into(),
        );
    }
    let limits = &args.limits;
    let exploring_limits: Vec<&str> = [
        (limits.max_states.is_some(), "--max-states"),
        (limits.memory.is_some(), "--memory"),
        (limits.timeout.is_some(), "--timeout"),
    ]
    .into_iter()
    .filter_map(|(given, name)| given.then_some(name))
    .collect();
    if graph_file.is_some() && !exploring_limits.is_empty() {
        warnings.push(format!(
            "{} only limit{} the exploration of a model; a graph file is decomposed whole",
            exploring_limits.join(", "),
            if exploring_limits.len() == 1 { "s" } else { "" }
        ));
    }
    // Live progress lines on stderr (a terminal, not --quiet).
    let progress = !cli.quiet && std::io::stderr().is_terminal();
    let (graph, load_seconds, explore_seconds) = if let Some(kind) = graph_file {
        let mut phase = PhaseLine::new(cli);
        phase.show(format!("loading {}", args.input.model.display()));
        let loading = Instant::now();
        let graph = load_graph(&args.input.model, kind)?;
        (Graph::Host(graph), loading.elapsed(), None)
    } else {
        let interruption = Interruption::arm(args.limits.timeout, cli.quiet);
        let exploring_progress = progress.then(progress_line);
        let mut search = SearchOptions {
            keep_going: true,
            no_trace: true,
            progress: exploring_progress.as_ref().map(|(_, f)| f.clone()),
            ..search_options(&args.limits, &interruption.stop)
        };
        if let Some(device) = device.as_ref().filter(|_| search.memory_bytes.is_none()) {
            search.memory_bytes = Some(device.free_memory()? / 2);
        }
        let exploring = Instant::now();
        let (loaded, explored, reread) = load_and_search(
            &args.input,
            None,
            |loaded| explore(args, &loaded.encoded, &search, device.as_ref()),
            |explored| explored.as_ref().err(),
        )?;
        warnings.extend(loaded.warnings.iter().cloned());
        warnings.extend(reread);
        if let Some((bar, _)) = exploring_progress {
            bar.finish_and_clear();
        }
        match explored {
            Ok(graph) => (
                graph,
                loaded.load_time,
                Some(exploring.elapsed().saturating_sub(loaded.load_time)),
            ),
            Err(exploration) => {
                for w in &warnings {
                    warn(w);
                }
                let message = match exploration.completion {
                    Completion::Interrupted => interruption.describe(),
                    other => format!("exploration incomplete ({}); no decomposition", other.key()),
                };
                return Err(Error::Incomplete(message));
            }
        }
    };
    for w in &warnings {
        warn(w);
    }
    if let Graph::Host(graph) = &graph
        && (device.is_none() || args.engine == EngineChoice::Reference)
    {
        let parallel =
            args.engine != EngineChoice::Reference && cpu_threads(args.limits.threads) > 1;
        let counts = (graph.states() as u64, graph.targets.len() as u64);
        host_memory_suffices(
            &args.input.model,
            counts,
            parallel,
            crate::system::available_memory(),
        )?;
    }
    let decomposing = Instant::now();
    let mut finished_by = None;
    let mut edges_kept = None;
    let mut gpu_work = None;
    let want_partition = args.write_components.is_some();
    let method = args.method.method(device.is_some());
    let (summary, components, engine, method) = match (graph, args.engine, &device) {
        (Graph::Host(graph), EngineChoice::Reference, _) => {
            let components = scc::reference::decompose(&graph);
            (
                components.summary(&graph),
                Some(components),
                "reference".to_string(),
                None,
            )
        }
        (Graph::Host(graph), _, Some(device)) => {
            let uploaded = scc::gpu::upload(device, &graph)?;
            let result = scc::gpu::decompose(device, uploaded.view(), method, want_partition)?;
            gpu_work = Some(GpuWork::of(&result));
            (
                result.summary,
                result.components,
                gpu_name(device),
                Some(method),
            )
        }
        (Graph::Host(graph), _, None) => {
            let threads = cpu_threads(args.limits.threads);
            let (components, finisher) = scc::cpu::race(&graph, method, threads);
            finished_by = Some(finisher);
            let engine = format!("cpu ({threads} threads)");
            // One thread runs Tarjan alone, no method.
            let method = (threads > 1).then_some(method);
            (components.summary(&graph), Some(components), engine, method)
        }
        (Graph::Explored { device, space }, _, _) => {
            let (result, kept) =
                decompose_explored(&device, space, method, args, want_partition, progress)?;
            edges_kept = Some(kept);
            gpu_work = Some(GpuWork::of(&result));
            (
                result.summary,
                result.components,
                gpu_name(&device),
                Some(method),
            )
        }
    };
    let decompose_seconds = decomposing.elapsed().as_secs_f64();
    if let (Some(path), Some(components)) = (&args.write_components, &components) {
        write_components(path, components)?;
    }
    let report = SccReport {
        input: args.input.model.display().to_string(),
        summary,
        engine,
        method,
        finished_by,
        edges_kept,
        gpu_work,
        device_memory_peak_bytes: device.as_ref().map(Device::peak_memory_use),
        load_seconds: load_seconds.as_secs_f64(),
        explore_seconds: explore_seconds.map(|d| d.as_secs_f64()),
        decompose_seconds,
        elapsed_seconds: started.elapsed().as_secs_f64(),
        edges_per_second: summary.edges as f64 / decompose_seconds.max(1e-9),
        components_file: args
            .write_components
            .as_ref()
            .map(|p| p.display().to_string()),
        warnings,
        exit_code: exit::OK,
    };
    emit_report(cli, &report, text_report)?;
    Ok(exit::OK)
}

/// The report as `name: value` lines.
fn text_report(report: &SccReport) -> String {
    let s = &report.summary;
    let mut lines = vec![
        format!(
            "input: {} ({} states, {} edges)",
            report.input, s.states, s.edges
        ),
        format!("components: {}", s.components),
        format!("largest component: {} states", s.largest_component),
        format!("trivial components: {}", s.trivial_components),
        format!("bottom components: {}", s.bottom_components),
    ];
    let method = report
        .method
        .map(|m| match m {
            Method::Coloring => ", colouring",
            Method::ForwardBackward => ", forward-backward",
        })
        .unwrap_or("");
    let race = match (report.finished_by, report.method) {
        (Some(Finisher::Tarjan), None) => ", Tarjan",
        (Some(Finisher::Tarjan), Some(_)) => " racing Tarjan, which finished first",
        (Some(Finisher::Rounds), _) => " racing Tarjan, finished first",
        (None, _) => "",
    };
    let edges = match report.edges_kept {
        Some(EdgesChoice::Generated) => ", edges generated again in each pass",
        Some(_) => ", edges stored",
        None => "",
    };
    lines.push(format!("engine: {}{method}{race}{edges}", report.engine));
    if let Some(bytes) = report.device_memory_peak_bytes {
        lines.push(format!(
            "device memory: at most {:.2} GiB in use",
            bytes as f64 / (1u64 << 30) as f64
        ));
    }
    let mut time = format!("time: load {:.3} s", report.load_seconds);
    if let Some(explore) = report.explore_seconds {
        time.push_str(&format!(", explore {explore:.3} s"));
    }
    time.push_str(&format!(
        ", decompose {:.3} s ({:.3e} edges/s), total {:.3} s",
        report.decompose_seconds, report.edges_per_second, report.elapsed_seconds
    ));
    lines.push(time);
    if let Some(file) = &report.components_file {
        lines.push(format!("components written to {file}"));
    }
    lines.join("\n") + "\n"
}

/// Decomposes a state space the GPU explorer left on `device`, its edges
/// stored or generated as `args.edges` says (`auto`: stored where they and
/// the method's arrays fit in the memory free once the table is given
/// back); also says which.
fn decompose_explored(
    device: &Device,
    space: gpu_explore::SpaceOnDevice,
    method: Method,
    args: &SccArgs,
    want_partition: bool,
    progress: bool,
) -> Result<(scc::gpu::GpuComponents, EdgesChoice), Error> {
    let table = match space {
        gpu_explore::SpaceOnDevice::Stored(graph) => {
            return Ok((
                decompose_stored(device, &graph, method, want_partition)?,
                EdgesChoice::Stored,
            ));
        }
        gpu_explore::SpaceOnDevice::InTable(table) => table,
    };
    let store = match args.edges {
        EdgesChoice::Stored => true,
        EdgesChoice::Generated => false,
        // Forward-backward asked for: only stored edges have a transpose.
        EdgesChoice::Auto if method == Method::ForwardBackward => true,
        EdgesChoice::Auto => {
            let free = device.free_memory()?;
            let margin = free / 20 + (256 << 20);
            let after = (free + table.table_bytes()).saturating_sub(table.stored_bytes());
            let needed = scc::gpu::stored_bytes(method, table.states(), table.edges());
            table.stored_bytes() + margin <= free && needed + margin <= after
        }
    };
    if store {
        let graph = table.store()?;
        Ok((
            decompose_stored(device, &graph, method, want_partition)?,
            EdgesChoice::Stored,
        ))
    } else {
        let bar = progress.then(spinner);
        let report = |at: scc::gpu::RoundProgress| {
            if let Some(bar) = &bar {
                bar.set_message(format!(
                    "decomposing over generated edges: round {}, {} live states, {} passes",
                    at.round, at.live, at.passes
                ));
                bar.tick();
            }
        };
        let result = scc::gpu::decompose_generated(device, &*table, want_partition, &report)?;
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        Ok((result, EdgesChoice::Generated))
    }
}

/// Decomposes a stored state space on `device`.
fn decompose_stored(
    device: &Device,
    graph: &gpu_explore::DeviceGraph,
    method: Method,
    want_partition: bool,
) -> Result<scc::gpu::GpuComponents, Error> {
    let view = scc::gpu::DeviceCsr {
        states: graph.states,
        edges: graph.edges,
        offsets: &graph.offsets,
        targets: &graph.targets,
    };
    Ok(scc::gpu::decompose(device, view, method, want_partition)?)
}

/// The engine's name in reports.
fn gpu_name(device: &Device) -> String {
    format!("gpu ({})", device.description())
}

/// Explores the model completely into a graph: on the GPU (where it
/// stays), else with the CPU or reference explorer into host memory.
/// An incomplete exploration comes back as `Err`.
fn explore(
    args: &SccArgs,
    net: &crate::encode::EncodedNetwork,
    search: &SearchOptions,
    device: Option<&Device>,
) -> Result<Result<Graph, Exploration>, Error> {
    if let Some(device) = device.filter(|_| args.engine != EngineChoice::Reference) {
        let (result, space) =
            gpu_explore::explore_on_device(device, net, search, &GpuOptions::default())?;
        return Ok(match space {
            Some(space) => Ok(Graph::Explored {
                device: device.clone(),
                space,
            }),
            None => Err(result.exploration),
        });
    }
    let mut builder = LabelledGraphBuilder::new(net.actions.clone());
    let exploration = match args.engine {
        EngineChoice::Reference => reference::explore_into(net, search, &mut builder)?,
        _ => cpu_explore::explore_into(net, search, &cpu_options(&args.limits), &mut builder)?,
    };
    Ok(match builder.into_graph() {
        Some(graph) if exploration.completion == Completion::Complete => {
            Ok(Graph::Host(graph.edges))
        }
        _ => Err(exploration),
    })
}

/// Reads a graph file whole: the edges of an `.aut` file, or the moves
/// of a probabilistic model.
fn load_graph(path: &Path, kind: GraphFile) -> Result<Csr, Error> {
    Ok(match kind {
        GraphFile::Aut => frontend::aut::load_graph(path)?.edges,
        GraphFile::Explicit(ExplicitFormat::Tra) => frontend::prism::load(path, None, None)?
            .model
            .underlying_graph(),
        GraphFile::Explicit(ExplicitFormat::Umb) => {
            frontend::umb::load(path)?.model.underlying_graph()
        }
    })
}

/// An error, instead of a process the system kills, where decomposing a
/// graph of `(states, edges)` on the host (by a `parallel` method beside
/// Tarjan, or Tarjan alone) needs more than the memory `available`
/// ([`scc::host_working_bytes`]).
fn host_memory_suffices(
    path: &Path,
    (states, edges): (u64, u64),
    parallel: bool,
    available: Option<u64>,
) -> Result<(), Error> {
    let needed = scc::host_working_bytes(states, edges, parallel);
    match available {
        Some(available) if needed > available => Err(Error::Model(format!(
            "{}: decomposing {states} states and {edges} edges on the host needs at least {} \
             beyond the loaded graph, and {} is available; free memory, use a machine with \
             more, or a GPU (--engine gpu)",
            path.display(),
            crate::report::human_bytes(needed),
            crate::report::human_bytes(available)
        ))),
        _ => Ok(()),
    }
}

/// Writes `state component` lines for every state.
fn write_components(path: &Path, components: &Components) -> Result<(), Error> {
    let write_error = |source| Error::Write {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::File::create(path).map_err(write_error)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    for (state, component) in components.of_state.iter().enumerate() {
        writeln!(out, "{state} {component}").map_err(write_error)?;
    }
    out.flush().map_err(write_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 10^9 isolated states that the system killed at 23.8 GB in
    /// session 44 (about 8 GB loaded, then 16 GB for the race) now give
    /// an error that names the need and what is available.
    #[test]
    fn a_decomposition_beyond_the_available_memory_is_refused_with_its_figures() {
        let needed = scc::host_working_bytes(1_000_000_000, 0, true);
        assert_eq!(needed, 16_000_000_000);
        let path = Path::new("big.aut");
        let refused =
            host_memory_suffices(path, (1_000_000_000, 0), true, Some(14 << 30)).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "big.aut: decomposing 1000000000 states and 0 edges on the host needs at least \
             14.9 GiB beyond the loaded graph, and 14.0 GiB is available; free memory, use a \
             machine with more, or a GPU (--engine gpu)"
        );
        assert_eq!(refused.exit_code(), exit::BAD_INPUT);
        for available in [Some(needed), None] {
            assert!(host_memory_suffices(path, (1_000_000_000, 0), true, available).is_ok());
        }
        // Tarjan alone needs 13 bytes a state: 13 GB fit in 14 GiB.
        assert!(host_memory_suffices(path, (1_000_000_000, 0), false, Some(14 << 30)).is_ok());
        assert!(scc::host_working_bytes(10, 100, true) > scc::host_working_bytes(10, 0, true));
        assert_eq!(scc::host_working_bytes(10, 100, false), 130);
    }
}
