//! Command-line interface: argument parsing, engine choice, output and
//! exit codes. The binary only calls [`main`].

mod engines;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::encode::EncodedNetwork;
use crate::error::{Error, exit};
use crate::explore::cpu::{self, CpuOptions};
use crate::explore::gpu::{self, GpuOptions};
use crate::explore::{Completion, Progress, SearchOptions, reference};
use crate::frontend::{self, aut::AutWriter};
use crate::model::Network;
use crate::report::{CheckReport, TraceView, Verdict, human_bytes};

const EXIT_CODES: &str = "\
Exit codes:
  0  checked, no violation found
  1  violation found (deadlock or property); a trace is printed
  2  bad input or usage (messages say file:line:column), a model error such
     as a Petri net that is not 1-safe, or --engine gpu without a GPU
  3  exploration incomplete (--max-states or memory limit hit): no verdict
  4  internal or device failure (a CUDA error during the run, or a result
     that failed warpcheck's own consistency checks)";

/// warpcheck: on-the-fly explicit-state model checking of networks of LTSs,
/// on the CPU or a GPU.
#[derive(Debug, Parser)]
#[command(name = "warpcheck", version, after_help = EXIT_CODES)]
pub struct Cli {
    /// More log output on stderr (-v info, -vv debug); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Explore a model and check for deadlocks and/or a property.
    #[command(after_help = EXIT_CODES)]
    Check(CheckArgs),
    /// Describe a model: processes, local states, rules, vector size.
    Info(InfoArgs),
    /// Convert a model to another format (e.g. PNML to .net).
    Convert(ConvertArgs),
    /// Explore a model and export its state space as an Aldebaran .aut file.
    Explore(ExploreArgs),
    /// Write a .net model of a parameterised family (for benchmarks).
    Generate(GenerateArgs),
}

/// Parameterised model families of `generate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Family {
    /// N dining philosophers (deadlocks).
    Philosophers,
    /// K independent three-process subsystems meeting at a barrier
    /// (13^K states).
    Barrier,
}

/// Arguments of `generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The family.
    #[arg(value_enum)]
    pub family: Family,
    /// Its size parameter (N philosophers, K subsystems).
    pub size: usize,
    /// Output file (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Arguments of `explore`.
#[derive(Debug, Args)]
pub struct ExploreArgs {
    /// Model file.
    pub model: PathBuf,
    /// Write the reachable state space as an Aldebaran .aut file (state 0
    /// is the initial state).
    #[arg(long, value_name = "FILE")]
    pub write_aut: PathBuf,
    /// Join this property monitor to the network first.
    #[arg(long, value_name = "NAME")]
    pub property: Option<String>,
    /// Stop after this many states (exit code 3 when hit).
    #[arg(long, value_name = "N")]
    pub max_states: Option<u64>,
    /// Exploration engine: `reference` numbers states breadth-first,
    /// `cpu` in increasing state id (level by level), `gpu` by table slot.
    #[arg(long, value_enum, default_value_t = ExportEngine::Reference)]
    pub engine: ExportEngine,
    /// Worker threads of the CPU engine (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Memory for the state table of the cpu or gpu engine, e.g. 512M or
    /// 8G (default: most of the free memory of the device or host).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory: Option<u64>,
    /// GPU to use, as CUDA numbers the visible devices.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub device: usize,
    /// No notes on stderr.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Which engine explores for `explore`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportEngine {
    /// The sequential reference engine.
    Reference,
    /// The multi-core CPU engine, with a parallel export pass after it.
    Cpu,
    /// The GPU engine, with passes over its final table after it.
    Gpu,
}

/// Which engine explores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineChoice {
    /// The GPU when one can be opened, else the multi-core CPU engine.
    Auto,
    /// The GPU engine.
    Gpu,
    /// The multi-core CPU engine.
    Cpu,
    /// The sequential reference engine (exact, with shortest traces).
    Reference,
}

/// Output format of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Text for people.
    Text,
    /// JSON (schema in the README).
    Json,
}

/// Arguments of `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Model file: .net, .aut, .exp or .pnml.
    pub model: PathBuf,
    /// Look for reachable deadlocks (states without successors).
    #[arg(long)]
    pub deadlock: bool,
    /// Check the property monitor of this name (defined in the model file).
    #[arg(long, value_name = "NAME")]
    pub property: Option<String>,
    /// Keep going after the first finding and count all of them.
    #[arg(long)]
    pub all: bool,
    /// Exploration engine.
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto)]
    pub engine: EngineChoice,
    /// Worker threads of the CPU engine (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Stop after this many states (exit code 3 when hit).
    #[arg(long, value_name = "N")]
    pub max_states: Option<u64>,
    /// Memory for the state table, e.g. 512M or 8G (default: most of the
    /// free memory of the device or host).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory: Option<u64>,
    /// Do not keep predecessor links: no trace, more room for states.
    #[arg(long)]
    pub no_trace: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Also write the counterexample as an Aldebaran .aut file.
    #[arg(long, value_name = "FILE")]
    pub trace_out: Option<PathBuf>,
    /// GPU to use, as CUDA numbers the visible devices.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub device: usize,
    /// GPU: number of thread blocks (default from the device).
    #[arg(long, value_name = "N")]
    pub blocks: Option<u32>,
    /// GPU: threads per block, a multiple of 32 (default 256, fewer when
    /// wide vectors need the shared memory).
    #[arg(long, value_name = "N")]
    pub threads_per_block: Option<u32>,
    /// GPU: breadth-first levels (search iterations) per kernel launch
    /// (default 32).
    #[arg(long, value_name = "N")]
    pub iterations: Option<u32>,
    /// GPU: threads that expand one state together, a power of two up to
    /// 32 (default: 1 up to 48 processes, else about one per 8 processes).
    #[arg(long, value_name = "N", value_parser = parse_group_threads)]
    pub group_threads: Option<u32>,
    /// No live progress line, and no note when `auto` finds no GPU.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Arguments of `info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Model file.
    pub model: PathBuf,
}

/// Target formats of `convert`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConvertTarget {
    /// Native .net.
    Net,
}

/// Arguments of `convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Model file.
    pub model: PathBuf,
    /// Target format.
    #[arg(long, value_enum)]
    pub to: ConvertTarget,
    /// Output file (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Parses `123`, `64K`, `512M`, `8G`, `1T` (binary units, optional `B`/`iB`).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (digits, shift) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 30),
        Some('T' | 't') => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let value: f64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a size (examples: 4096, 512M, 8G)"))?;
    if value.is_nan() || value <= 0.0 || !value.is_finite() {
        return Err(format!("`{text}` is not a positive size"));
    }
    Ok((value * (1u64 << shift) as f64) as u64)
}

/// Parses `--group-threads`: a power of two from 1 to 32.
pub fn parse_group_threads(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if n.is_power_of_two() && n <= 32 => Ok(n),
        _ => Err(format!("`{text}` is not one of 1, 2, 4, 8, 16, 32")),
    }
}

/// Runs warpcheck with the process's arguments; returns the exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                exit::BAD_INPUT
            } else {
                exit::OK
            };
        }
    };
    init_logging(cli.verbose);
    let result = match &cli.command {
        Command::Check(args) => check(args),
        Command::Info(args) => info(args),
        Command::Convert(args) => convert(args),
        Command::Explore(args) => explore(args),
        Command::Generate(args) => generate(args),
    };
    result.unwrap_or_else(|error| {
        let code = error.exit_code();
        match &cli.command {
            Command::Check(args) if args.format == OutputFormat::Json => println!(
                "{}",
                serde_json::json!({"error": error.to_string(), "exit_code": code})
            ),
            _ => eprintln!("error: {error}"),
        }
        code
    })
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .without_time()
        .try_init();
}

fn load(path: &Path) -> Result<Network, Error> {
    Ok(frontend::load(path)?)
}

/// Loads `model`, joins the monitor `property` if given, and encodes it.
fn load_encoded(model: &Path, property: Option<&str>) -> Result<EncodedNetwork, Error> {
    let network = load(model)?;
    let network = match property {
        Some(name) => {
            let monitor = network
                .monitor(name)
                .map_err(|e| Error::Model(format!("{}: {e}", model.display())))?;
            network.with_monitor(monitor)
        }
        None => network,
    };
    EncodedNetwork::new(&network).map_err(|e| Error::Model(format!("{}: {e}", model.display())))
}

fn explore(args: &ExploreArgs) -> Result<i32, Error> {
    let encoded = load_encoded(&args.model, args.property.as_deref())?;
    let search = SearchOptions {
        keep_going: true,
        max_states: args.max_states,
        no_trace: true,
        ..SearchOptions::default()
    };
    let mut sink = AutWriter::create(&args.write_aut, &encoded.actions)?;
    let exploration = match args.engine {
        ExportEngine::Reference => reference::explore_into(&encoded, &search, &mut sink)?,
        ExportEngine::Cpu => {
            let options = CpuOptions {
                threads: args.threads.unwrap_or(0),
                memory_bytes: args.memory,
            };
            cpu::explore_into(&encoded, &search, &options, &mut sink)?
        }
        ExportEngine::Gpu => {
            let device = engines::required_device(args.device)?;
            let options = GpuOptions {
                memory_bytes: args.memory,
                ..GpuOptions::default()
            };
            gpu::explore_into(&device, &encoded, &search, &options, &mut sink)?.exploration
        }
    };
    let verdict = Verdict::of(&encoded, &exploration);
    match verdict {
        Verdict::Incomplete(_) | Verdict::ModelError(_) => {
            let unwritten = if exploration.completion == Completion::Complete {
                String::new()
            } else {
                format!(" ({} not written)", args.write_aut.display())
            };
            eprintln!("error: {}{unwritten}", verdict.describe(false, None));
            Ok(verdict.exit_code())
        }
        _ => {
            if !args.quiet {
                println!(
                    "{}: {} states, {} transitions written to {}",
                    args.model.display(),
                    exploration.states,
                    exploration.transitions,
                    args.write_aut.display()
                );
            }
            Ok(exit::OK)
        }
    }
}

fn check(args: &CheckArgs) -> Result<i32, Error> {
    if !args.deadlock && args.property.is_none() {
        tracing::info!("neither --deadlock nor --property given: exploring only");
    }
    let encoded = load_encoded(&args.model, args.property.as_deref())?;
    let progress = (!args.quiet && std::io::stderr().is_terminal()).then(progress_line);
    let search = SearchOptions {
        check_deadlock: args.deadlock,
        keep_going: args.all,
        max_states: args.max_states,
        no_trace: args.no_trace,
        progress: progress.as_ref().map(|(_, f)| f.clone()),
    };
    let run = engines::run(args, &encoded, &search)?;
    if let Some((bar, _)) = &progress {
        bar.finish_and_clear();
    }
    let exploration = &run.exploration;
    let verdict = Verdict::of(&encoded, exploration);
    if exploration.monitor_blocked > 0 {
        eprintln!(
            "warning: property `{}` blocked {} action firing(s) it matched but could not follow; \
             the monitor may be incomplete (add self-loops for actions it should ignore)",
            args.property.as_deref().unwrap_or("?"),
            exploration.monitor_blocked
        );
    }
    let trace = exploration
        .first
        .as_ref()
        .and_then(|f| f.trace.as_ref())
        .map(|t| TraceView::new(&encoded, t));
    if let (Some(path), Some(t)) = (&args.trace_out, &trace) {
        t.to_aut()
            .and_then(|text| std::fs::write(path, text))
            .map_err(|source| Error::Write {
                path: path.display().to_string(),
                source,
            })?;
    }
    let seconds = exploration.elapsed.as_secs_f64();
    let report = CheckReport {
        model: args.model.display().to_string(),
        engine: exploration.engine.clone(),
        deadlock_checked: args.deadlock,
        property: args.property.clone(),
        verdict: verdict.key().to_string(),
        message: verdict.describe(args.deadlock, args.property.as_deref()),
        complete: exploration.completion == crate::explore::Completion::Complete,
        exit_code: verdict.exit_code(),
        states: exploration.states,
        transitions: exploration.transitions,
        depth: exploration.depth,
        deadlocks: exploration.deadlocks,
        violations: exploration.errors,
        monitor_blocked: exploration.monitor_blocked,
        processes: encoded.processes(),
        vector_words: encoded.words(),
        vector_bits: encoded.layout.used_bits(),
        elapsed_seconds: seconds,
        states_per_second: if seconds > 0.0 {
            exploration.states as f64 / seconds
        } else {
            0.0
        },
        memory_bytes: exploration.memory_bytes,
        engine_details: run.details,
        trace,
    };
    match args.format {
        OutputFormat::Text => print!("{}", report.to_text()),
        OutputFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report)
                .map_err(|e| Error::Internal(format!("cannot render the report: {e}")))?
        ),
    }
    Ok(verdict.exit_code())
}

/// A live progress line on stderr, and the callback that updates it.
fn progress_line() -> (indicatif::ProgressBar, crate::explore::ProgressFn) {
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    let shown = bar.clone();
    let callback = Arc::new(move |p: &Progress| {
        let secs = p.elapsed.as_secs_f64().max(1e-9);
        shown.set_message(format!(
            "{} states, {} transitions, depth {}, {:.0} states/s",
            p.states,
            p.transitions,
            p.depth,
            p.states as f64 / secs
        ));
        shown.tick();
    });
    (bar, callback)
}

fn info(args: &InfoArgs) -> Result<i32, Error> {
    let network = load(&args.model)?;
    let encoded = EncodedNetwork::new(&network)
        .map_err(|e| Error::Model(format!("{}: {e}", args.model.display())))?;
    let local_states: usize = network
        .processes
        .iter()
        .map(|p| p.lts.state_names.len())
        .sum();
    let local_transitions: usize = network
        .processes
        .iter()
        .map(|p| p.lts.transitions.len())
        .sum();
    println!("model: {}", args.model.display());
    println!(
        "processes: {} ({} local states, {} local transitions)",
        network.processes.len(),
        local_states,
        local_transitions
    );
    println!("synchronisation rules: {}", network.rules.len());
    println!("actions: {}", encoded.actions.len());
    println!(
        "state vector: {} bits used, {} words of 32 bits ({} bytes)",
        encoded.layout.used_bits(),
        encoded.words(),
        encoded.words() * 4
    );
    println!(
        "encoding: {} TransArray entries, {} in all",
        encoded.entry_count(),
        human_bytes(
            4 * (encoded.transitions.len()
                + encoded.state_offsets.len()
                + encoded.proc_offsets.len()
                + encoded.rule_participants.len()) as u64
        )
    );
    let names: Vec<&str> = network.monitors.iter().map(|m| m.name.as_str()).collect();
    println!(
        "properties: {}",
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    );
    println!(
        "{:<24} {:>8} {:>12} {:>5}",
        "process", "states", "transitions", "bits"
    );
    for (i, p) in network.processes.iter().enumerate() {
        println!(
            "{:<24} {:>8} {:>12} {:>5}",
            p.name,
            p.lts.state_names.len(),
            p.lts.transitions.len(),
            encoded.layout.fields[i].bits
        );
    }
    Ok(exit::OK)
}

fn convert(args: &ConvertArgs) -> Result<i32, Error> {
    let network = load(&args.model)?;
    let text = match args.to {
        ConvertTarget::Net => frontend::net::write(&network),
    };
    write_output(args.output.as_deref(), &text)
}

fn generate(args: &GenerateArgs) -> Result<i32, Error> {
    let text = match args.family {
        Family::Philosophers => crate::generate::philosophers(args.size),
        Family::Barrier => crate::generate::barrier(args.size),
    }
    .map_err(|e| Error::Usage(e.to_string()))?;
    write_output(args.output.as_deref(), &text)
}

/// Writes `text` to `path`, or to standard output without one.
fn write_output(path: Option<&Path>, text: &str) -> Result<i32, Error> {
    match path {
        Some(path) => std::fs::write(path, text).map_err(|source| Error::Write {
            path: path.display().to_string(),
            source,
        })?,
        None => print!("{text}"),
    }
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("8GiB"), Ok(8 << 30));
        assert_eq!(parse_size("1.5k"), Ok(1536));
        assert_eq!(
            parse_size("lots"),
            Err("`lots` is not a size (examples: 4096, 512M, 8G)".to_string())
        );
    }

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
