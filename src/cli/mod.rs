//! Command-line interface: argument parsing, engine choice, output and
//! exit codes. The binary only calls [`main`].

mod allocator;
mod engines;
mod graphs;
mod mec;
mod output;
mod parity;
mod prob;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::encode::EncodedNetwork;
use crate::error::{Error, exit};
use crate::explore::cpu::{self, CpuOptions, MAX_THREADS};
use crate::explore::gpu::{self, GpuOptions};
use crate::explore::livelock::{self, Livelock};
use crate::explore::{
    Completion, Exploration, FindingKind, Progress, SearchOptions, StopSignal, Storage, reference,
};
use crate::frontend::{self, Format, aut::AutWriter, pnml};
use crate::model::Network;
use crate::report::{
    CheckReport, InfoReport, LIVELOCK_FOUND, LassoView, PartitionsView, TraceView, Verdict,
};
use output::{check_output_path, emit, note, warn};

const EXIT_CODES: &str = "\
Exit codes:
  0    checked, no violation found
  1    violation found (deadlock, property or livelock); a trace is printed
  2    bad input or usage (messages say file:line:column), a model error such
       as a Petri net that is not 1-safe or exceeds a place bound, or
       --engine gpu without a GPU
  3    exploration incomplete (--max-states, memory limit, --timeout or
       Ctrl-C): no verdict; the figures so far are printed
  4    internal or device failure (a CUDA error during the run, or a result
       that failed warpcheck's own consistency checks)
  141  standard output was closed by its reader (as a tool killed by SIGPIPE)";

/// The version line: the package version and the commit it was built from.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("WARPCHECK_COMMIT"),
    ")"
);

/// warpcheck: on-the-fly explicit-state model checking of networks of LTSs,
/// on the CPU or a GPU.
///
/// GPU kernels are compiled on first use and kept in
/// $XDG_CACHE_HOME/warpcheck/kernels (else ~/.cache/warpcheck/kernels);
/// WARPCHECK_KERNEL_CACHE=DIR moves the cache, WARPCHECK_KERNEL_CACHE=off
/// turns it off.
#[derive(Debug, Parser)]
#[command(name = "warpcheck", version = VERSION, after_help = EXIT_CODES)]
pub struct Cli {
    /// More log output on stderr (-v info, -vv debug); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// No progress line and no notes on stderr (warnings and errors stay).
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Output format: text for people, or one JSON object on stdout (the
    /// README has the schemas; errors are JSON too).
    #[arg(long, value_enum, global = true, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Explore a model and check for deadlocks, a property and/or
    /// livelocks.
    #[command(after_help = EXIT_CODES)]
    Check(CheckArgs),
    /// Describe a model: processes, local states, rules, vector size.
    Info(InfoArgs),
    /// Convert a model to another format (e.g. PNML to .net).
    Convert(ConvertArgs),
    /// Explore a model and export its state space as an Aldebaran .aut file.
    #[command(after_help = EXIT_CODES)]
    Explore(ExploreArgs),
    /// Write a .net model of a parameterised family (for benchmarks).
    Generate(GenerateArgs),
    /// Decompose a graph file or a model's state space into strongly
    /// connected components.
    #[command(long_about = graphs::SCC_ABOUT, after_help = graphs::DECOMPOSITION_EXIT_CODES)]
    Scc(graphs::SccArgs),
    /// Decompose an MDP (PRISM explicit files or UMB) into maximal end
    /// components.
    #[command(after_help = graphs::DECOMPOSITION_EXIT_CODES)]
    Mec(mec::MecArgs),
    /// Compute probabilistic properties (PRISM syntax) of a DTMC, CTMC or
    /// MDP read from PRISM explicit files or UMB, with a guaranteed error
    /// bound.
    #[command(after_help = PROB_EXIT_CODES)]
    Prob(prob::ProbArgs),
    /// Solve a parity game (PGSolver format): the winner of every vertex
    /// and a winning strategy for each player.
    #[command(after_help = parity::PARITY_EXIT_CODES)]
    Parity(parity::ParityArgs),
    /// Print a shell completion script (e.g. `warpcheck completions bash >
    /// /etc/bash_completion.d/warpcheck`).
    Completions(CompletionsArgs),
    /// Print the manual page (roff), e.g. `warpcheck man | man -l -`.
    Man(ManArgs),
}

/// The exit codes of `prob`.
const PROB_EXIT_CODES: &str = "\
Exit codes:
  0    every property computed within the precision
  2    bad input or usage (messages say file:line:column; a property's errors
       say its column)
  3    a property did not reach the precision within --max-iterations or
       --timeout, or Ctrl-C ended it: its value is printed with the bound
       actually reached
  141  standard output was closed by its reader (as a tool killed by SIGPIPE)";

/// The model a command reads.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Model file: .net, .aut, .exp or .pnml (by its extension); `-` reads
    /// standard input, in the format --input-format names.
    pub model: PathBuf,
    /// Read the model in this format, whatever its name ends in.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,
    /// PNML only: read the net as a place/transition net in which no place
    /// holds more than K tokens; a place that a place invariant bounds
    /// lower keeps that bound, and a firing beyond K is a model error
    /// (exit 2). Without it, nets that look 1-safe (or declare it) are read
    /// as 1-safe, the others with invariant bounds, else 255 tokens.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=pnml::MAX_PLACE_BOUND as i64))]
    pub place_bound: Option<u32>,
}

/// The input formats, as the command line names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// The native .net format.
    Net,
    /// Aldebaran .aut (one LTS).
    Aut,
    /// CADP EXP networks.
    Exp,
    /// Petri nets (place/transition nets) in PNML.
    Pnml,
}

impl From<InputFormat> for Format {
    fn from(format: InputFormat) -> Format {
        match format {
            InputFormat::Net => Format::Net,
            InputFormat::Aut => Format::Aut,
            InputFormat::Exp => Format::Exp,
            InputFormat::Pnml => Format::Pnml,
        }
    }
}

/// When a search gives up, and what it may use; shared by `check` and
/// `explore`.
#[derive(Debug, Args)]
pub struct SearchLimits {
    /// Stop after this many states (exit code 3 when hit).
    #[arg(long, value_name = "N")]
    pub max_states: Option<u64>,
    /// Memory for the state store of any engine, e.g. 512M or 8G (default:
    /// most of the free memory of the device or host); reaching it gives
    /// exit code 3.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory: Option<u64>,
    /// How the states are stored: `plain` (whole vectors, fastest),
    /// `tree` (shared halves of vectors: a few bytes a state whatever their
    /// width; on the GPU its node table starts small and grows into a
    /// third of the memory, at most 32 GiB), or `auto` (plain
    /// while the states fit, then tree; on the GPU, vectors of 16 words or
    /// more get an eighth of the memory plain).
    #[arg(long, value_name = "KIND", value_enum, default_value_t = StorageArg::Auto)]
    pub storage: StorageArg,
    /// Stop after this many seconds of search (fractions allowed), with
    /// the figures so far and exit code 3, as Ctrl-C does.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    /// Worker threads of the CPU engine (default: all cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=MAX_THREADS as i64))]
    pub threads: Option<u16>,
    /// GPU to use, as CUDA numbers the visible devices (default 0).
    #[arg(long, value_name = "N")]
    pub device: Option<usize>,
}

/// Values of `--storage` (see [`Storage`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StorageArg {
    /// Plain while the states fit, then tree (on the GPU, vectors of 16
    /// words or more try plain in an eighth of the memory).
    Auto,
    /// Whole vectors.
    Plain,
    /// Vectors as trees of shared halves.
    Tree,
}

impl StorageArg {
    /// The engines' storage choice.
    fn storage(self) -> Storage {
        match self {
            StorageArg::Auto => Storage::Auto,
            StorageArg::Plain => Storage::Plain,
            StorageArg::Tree => Storage::Tree,
        }
    }
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

/// Largest size parameter of `generate`: its models grow linearly, to a
/// few hundred megabytes at this size.
const MAX_GENERATED_SIZE: i64 = 1_000_000;

/// Arguments of `generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The family.
    #[arg(value_enum)]
    pub family: Family,
    /// Its size parameter (N philosophers, K subsystems), at most
    /// 1,000,000 (a model of some hundred megabytes).
    #[arg(value_parser = clap::value_parser!(u32).range(0..=MAX_GENERATED_SIZE))]
    pub size: u32,
    /// Output file (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Arguments of `explore`.
#[derive(Debug, Args)]
pub struct ExploreArgs {
    /// The model.
    #[command(flatten)]
    pub input: InputArgs,
    /// Write the reachable state space as an Aldebaran .aut file (state 0
    /// is the initial state).
    #[arg(long, value_name = "FILE")]
    pub write_aut: PathBuf,
    /// Join this property monitor to the network first.
    #[arg(long, value_name = "NAME")]
    pub property: Option<String>,
    /// Exploration engine: `reference` numbers states breadth-first,
    /// `cpu` in increasing state id (level by level), `gpu` by table slot.
    #[arg(long, value_enum, default_value_t = ExportEngine::Reference)]
    pub engine: ExportEngine,
    /// Limits of the search.
    #[command(flatten)]
    pub limits: SearchLimits,
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

/// Output format of every command.
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
    /// The model.
    #[command(flatten)]
    pub input: InputArgs,
    /// Look for reachable deadlocks (states without successors).
    #[arg(long)]
    pub deadlock: bool,
    /// Check the property monitor of this name (defined in the model file).
    #[arg(long, value_name = "NAME")]
    pub property: Option<String>,
    /// Look for a livelock: a reachable cycle of internal actions only,
    /// the actions named `tau` or `i` (.aut and .exp files read both as
    /// `tau`). Explores the whole state space and keeps it in memory; a
    /// livelock is reported with a lasso, the path to the cycle and the
    /// cycle. With --deadlock or --property, every kind found is reported
    /// (exit 1 if any), and their findings are counted as with --all.
    #[arg(long)]
    pub livelock: bool,
    /// Keep going after the first finding and count all of them.
    #[arg(long)]
    pub all: bool,
    /// Exploration engine.
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto)]
    pub engine: EngineChoice,
    /// Limits of the search.
    #[command(flatten)]
    pub limits: SearchLimits,
    /// Do not keep predecessor links: no trace, more room for states.
    #[arg(long)]
    pub no_trace: bool,
    /// Also write the counterexample as an Aldebaran .aut file (a lasso's
    /// last step goes back to the cycle's first state; with a deadlock or
    /// property trace as well, that trace is written).
    #[arg(long, value_name = "FILE")]
    pub trace_out: Option<PathBuf>,
    /// Options of the GPU engine.
    #[command(flatten)]
    pub gpu: GpuArgs,
}

/// Options that only the GPU engine reads.
#[derive(Debug, Args)]
pub struct GpuArgs {
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
    /// GPU: size the hash table starts at, e.g. 64M (the default); it
    /// grows fourfold whenever a level might fill half of it, up to
    /// --memory, so a small model takes little of the GPU. A size near
    /// --memory starts a table that grows only when it fills.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub initial_table: Option<u64>,
    /// GPU: how many GPUs share the search, `all` (the default: every
    /// visible GPU, as CUDA_VISIBLE_DEVICES allows, where NCCL can be
    /// loaded; else one) or a number. With more
    /// than one, each GPU owns the states whose hash falls to it and NCCL
    /// moves successors to their owners; --memory is then per GPU and each
    /// table takes it from the start. scc, --livelock and --write-aut run
    /// on one GPU.
    #[arg(long, value_name = "N|all", value_parser = parse_gpus)]
    pub gpus: Option<GpuCount>,
    /// GPU (for testing): split the search into N partitions on one GPU,
    /// exchanging successors by device copies: the multi-GPU search on a
    /// machine of one GPU.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=127))]
    pub partitions: Option<u32>,
    /// GPU: split the search over N processes, on one host or several
    /// (docs/GPU.md shows launches by mpirun and srun), one GPU and one
    /// partition each, joined by NCCL. Start every rank with the same model
    /// and options, and --rank and --rendezvous; a rank takes the GPU
    /// --device names, else its rank modulo the visible GPUs.
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(2..=127),
        requires_all = ["rank", "rendezvous"],
        conflicts_with_all = ["gpus", "partitions"]
    )]
    pub ranks: Option<u32>,
    /// GPU, with --ranks: this process's rank, from 0. Rank 0 prints the
    /// report and writes --trace-out; the others print no report.
    #[arg(long, value_name = "R", requires = "ranks")]
    pub rank: Option<u32>,
    /// GPU, with --ranks: a path that every rank can read (on a shared
    /// file system across hosts) and that does not exist yet. Rank 0
    /// writes NCCL's id there, the others wait for it (up to 5 minutes),
    /// and rank 0 removes it once all have joined.
    #[arg(long, value_name = "FILE", requires = "ranks")]
    pub rendezvous: Option<PathBuf>,
    /// GPU, with tree storage: how the table keeps a state's root,
    /// `compact` (the default: 47 bits by quotienting, 6.1 bytes a slot,
    /// 11.6 with traces; a table of at least 256 MiB) or `pairs` (two
    /// 32-bit words, 8 bytes a slot, 16 with traces; measured 0-9%
    /// faster on contest nets of 10^9 states).
    #[arg(long, value_name = "KIND", value_enum)]
    pub tree_roots: Option<TreeRoots>,
}

/// Values of `--tree-roots`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TreeRoots {
    /// 47 bits a root, by quotienting.
    Compact,
    /// Two 32-bit words a root.
    Pairs,
}

/// The GPUs `--gpus` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuCount {
    /// Every visible GPU.
    All,
    /// This many (the first ones CUDA numbers).
    Exactly(usize),
}

/// Parses `--gpus`: `all` or a number from 1.
pub fn parse_gpus(text: &str) -> Result<GpuCount, String> {
    match text.trim() {
        "all" => Ok(GpuCount::All),
        number => match number.parse::<usize>() {
            Ok(n) if (1..=127).contains(&n) => Ok(GpuCount::Exactly(n)),
            _ => Err(format!(
                "`{text}` is neither `all` nor a number of GPUs from 1 to 127"
            )),
        },
    }
}

impl GpuArgs {
    /// The GPU options given on the command line, as users wrote them.
    fn given(&self) -> Vec<&'static str> {
        [
            (self.blocks.is_some(), "--blocks"),
            (self.threads_per_block.is_some(), "--threads-per-block"),
            (self.iterations.is_some(), "--iterations"),
            (self.group_threads.is_some(), "--group-threads"),
            (self.initial_table.is_some(), "--initial-table"),
            (self.gpus.is_some(), "--gpus"),
            (self.partitions.is_some(), "--partitions"),
            (self.ranks.is_some(), "--ranks"),
            (self.rank.is_some(), "--rank"),
            (self.rendezvous.is_some(), "--rendezvous"),
            (self.tree_roots.is_some(), "--tree-roots"),
        ]
        .into_iter()
        .filter_map(|(given, name)| given.then_some(name))
        .collect()
    }
}

/// Arguments of `info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The model.
    #[command(flatten)]
    pub input: InputArgs,
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
    /// The model.
    #[command(flatten)]
    pub input: InputArgs,
    /// Target format.
    #[arg(long, value_enum)]
    pub to: ConvertTarget,
    /// Output file (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Arguments of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `man`.
#[derive(Debug, Args)]
pub struct ManArgs {
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
    let bytes = value * (1u64 << shift) as f64;
    if value.is_nan() || value <= 0.0 || !value.is_finite() || bytes < 1.0 {
        return Err(format!("`{text}` is not a positive size"));
    }
    if bytes >= u64::MAX as f64 {
        return Err(format!("`{text}` is too large a size"));
    }
    Ok(bytes as u64)
}

/// Longest `--timeout`: a year, far beyond any search, and safely inside
/// what an [`Instant`] can add.
const MAX_TIMEOUT_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// Parses `--timeout`: seconds, fractions allowed, more than 0 and at most
/// a year.
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s <= MAX_TIMEOUT_SECONDS => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "`{text}` is not a number of seconds between 0 and one year (examples: 30, 0.5)"
        )),
    }
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
        Command::Check(args) => check(&cli, args),
        Command::Info(args) => info(&cli, args),
        Command::Convert(args) => convert(&cli, args),
        Command::Explore(args) => explore(&cli, args),
        Command::Generate(args) => generate(&cli, args),
        Command::Scc(args) => graphs::scc(&cli, args),
        Command::Mec(args) => mec::mec(&cli, args),
        Command::Prob(args) => prob::prob(&cli, args),
        Command::Parity(args) => parity::parity(&cli, args),
        Command::Completions(args) => completions(args),
        Command::Man(args) => man(&cli, args),
    };
    result.unwrap_or_else(|error| report_error(&cli, &error))
}

/// Tells the user about `error` in the chosen format; returns its exit
/// code. A closed standard output ends the command without a word.
fn report_error(cli: &Cli, error: &Error) -> i32 {
    let code = error.exit_code();
    match (error, cli.format) {
        (Error::BrokenPipe, _) => {}
        (_, OutputFormat::Json) => {
            let object = serde_json::json!({"error": error.to_string(), "exit_code": code});
            if let Err(Error::Write { .. }) = emit(&format!("{object}\n")) {
                note(&format!("error: {error}"));
            }
        }
        (_, OutputFormat::Text) => note(&format!("error: {error}")),
    }
    code
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

/// Loads the model `input` names (a file, or standard input for `-`); a
/// Petri net as a place/transition net when `counting` (see
/// [`pnml::Options::counting`]).
fn load(input: &InputArgs, counting: bool) -> Result<Network, Error> {
    let options = pnml::Options {
        place_bound: input.place_bound,
        counting,
    };
    Ok(frontend::load_with(
        &input.model,
        input.input_format.map(Format::from),
        options,
    )?)
}

/// The model's warnings, and those of the property if one is checked.
fn model_warnings(network: &Network, property: Option<&str>) -> Vec<String> {
    let mut warnings: Vec<String> = network.warnings().iter().map(ToString::to_string).collect();
    if let Some(monitor) = property.and_then(|name| network.monitor(name).ok()) {
        warnings.extend(
            network
                .property_warnings(monitor)
                .iter()
                .map(ToString::to_string),
        );
    }
    warnings
}

/// A model loaded, joined with its property and encoded, with the time
/// that took and the warnings about it.
struct Loaded {
    encoded: EncodedNetwork,
    warnings: Vec<String>,
    load_time: Duration,
}

/// Loads `input`, joins the monitor `property` if given, and encodes it;
/// `counting` as for [`load`].
fn load_encoded(
    input: &InputArgs,
    property: Option<&str>,
    counting: bool,
) -> Result<Loaded, Error> {
    let started = Instant::now();
    let network = load(input, counting)?;
    let warnings = model_warnings(&network, property);
    let network = match property {
        Some(name) => {
            let monitor = network
                .monitor(name)
                .map_err(|e| Error::Model(format!("{}: {e}", input.model.display())))?;
            network.with_monitor(monitor)
        }
        None => network,
    };
    let encoded = EncodedNetwork::new(&network)
        .map_err(|e| Error::Model(format!("{}: {e}", input.model.display())))?;
    Ok(Loaded {
        encoded,
        warnings,
        load_time: started.elapsed(),
    })
}

/// Loads `input` (with the monitor `property`) and runs `search` on it,
/// whose result holds an exploration where `exploration_of` finds one.
/// When that exploration ended at the 1-safety error of a Petri net that
/// was read as 1-safe because it declares or looks so (no `--place-bound`),
/// the net is loaded again as a place/transition net and searched again,
/// and the note returned beside says so: a user who does not know whether
/// a net is 1-safe gets its state space either way.
fn load_and_search<R>(
    input: &InputArgs,
    property: Option<&str>,
    mut search: impl FnMut(&Loaded) -> Result<R, Error>,
    exploration_of: impl Fn(&R) -> Option<&Exploration>,
) -> Result<(Loaded, R, Option<String>), Error> {
    let started = Instant::now();
    let loaded = load_encoded(input, property, false)?;
    let result = search(&loaded)?;
    let unsafe_after_all = exploration_of(&result)
        .is_some_and(|exploration| is_not_safe_after_all(input, &loaded.encoded, exploration));
    if !unsafe_after_all {
        return Ok((loaded, result, None));
    }
    let note = format!(
        "the net is not 1-safe: its 1-safe reading reached a second token in a place \
         ({:.3} s); it was read again as a place/transition net, with the bounds its place \
         invariants prove and at most {} tokens in the other places (--place-bound K sets \
         that bound)",
        started.elapsed().as_secs_f64(),
        pnml::DEFAULT_PLACE_BOUND
    );
    let loaded = load_encoded(input, property, true)?;
    let result = search(&loaded)?;
    Ok((loaded, result, Some(note)))
}

/// Whether `exploration` ended at the 1-safety error of a Petri net that
/// `input` left to warpcheck to read (PNML without `--place-bound`).
fn is_not_safe_after_all(
    input: &InputArgs,
    net: &EncodedNetwork,
    exploration: &Exploration,
) -> bool {
    let format = input
        .input_format
        .map(Format::from)
        .or_else(|| Format::from_path(&input.model));
    let at_safety_error = match exploration.first.as_ref().map(|f| &f.kind) {
        Some(FindingKind::Error(e)) => {
            net.process_names[net.error_locals[*e].process] == pnml::SAFETY_PROCESS
        }
        _ => false,
    };
    format == Some(Format::Pnml) && input.place_bound.is_none() && at_safety_error
}

/// How the user can end a search early: `--timeout` and Ctrl-C.
struct Interruption {
    stop: StopSignal,
    /// Set by the Ctrl-C handler.
    by_user: Arc<AtomicBool>,
    timeout: Option<Duration>,
}

impl Interruption {
    /// Starts watching for Ctrl-C (a second one quits at once, exit 130)
    /// and arms the timeout, counted from now.
    fn arm(timeout: Option<Duration>, quiet: bool) -> Interruption {
        let mut stop = StopSignal::new();
        if let Some(timeout) = timeout {
            stop = stop.with_deadline(Instant::now() + timeout);
        }
        let by_user = Arc::new(AtomicBool::new(false));
        let (signal, flag) = (stop.clone(), by_user.clone());
        let handler = ctrlc::set_handler(move || {
            if flag.swap(true, Ordering::Relaxed) {
                std::process::exit(130);
            }
            signal.request();
            if !quiet {
                note("interrupted: finishing with the figures so far (Ctrl-C again quits at once)");
            }
        });
        if let Err(e) = handler {
            tracing::debug!("Ctrl-C cannot be caught: {e}");
        }
        Interruption {
            stop,
            by_user,
            timeout,
        }
    }

    /// The verdict line of a search that this interruption ended.
    fn describe(&self) -> String {
        match self.timeout {
            Some(t) if !self.by_user.load(Ordering::Relaxed) => format!(
                "exploration incomplete: the --timeout of {} s was reached; no verdict",
                t.as_secs_f64()
            ),
            _ => "exploration incomplete: interrupted (Ctrl-C); no verdict".to_string(),
        }
    }
}

/// The message of `verdict`, with the interruption's own words when it
/// ended the search.
fn verdict_message(
    verdict: &Verdict,
    interruption: &Interruption,
    deadlock: bool,
    property: Option<&str>,
    livelock: bool,
) -> String {
    match verdict {
        Verdict::Incomplete(Completion::Interrupted) => interruption.describe(),
        _ => verdict.describe(deadlock, property, livelock),
    }
}

/// The search options every command shares.
fn search_options(limits: &SearchLimits, stop: &StopSignal) -> SearchOptions {
    SearchOptions {
        max_states: limits.max_states,
        memory_bytes: limits.memory,
        storage: limits.storage.storage(),
        stop: stop.clone(),
        ..SearchOptions::default()
    }
}

fn explore(cli: &Cli, args: &ExploreArgs) -> Result<i32, Error> {
    check_output_path(&args.write_aut, &args.input.model, "--write-aut")?;
    let on_gpu = args.engine == ExportEngine::Gpu;
    let interruption = Interruption::arm(args.limits.timeout, cli.quiet);
    let search = SearchOptions {
        keep_going: true,
        no_trace: true,
        ..search_options(&args.limits, &interruption.stop)
    };
    let export = |loaded: &Loaded| -> Result<Exploration, Error> {
        let encoded = &loaded.encoded;
        let mut sink = AutWriter::create(&args.write_aut, &encoded.actions)?;
        Ok(match args.engine {
            ExportEngine::Reference => reference::explore_into(encoded, &search, &mut sink)?,
            ExportEngine::Cpu => {
                let options = cpu_options(&args.limits);
                cpu::explore_into(encoded, &search, &options, &mut sink)?
            }
            ExportEngine::Gpu => {
                let device = engines::required_device(args.limits.device.unwrap_or(0))?;
                gpu::explore_into(&device, encoded, &search, &GpuOptions::default(), &mut sink)?
                    .exploration
            }
        })
    };
    let (loaded, exploration, reread) =
        load_and_search(&args.input, args.property.as_deref(), export, |e| Some(e))?;
    let mut warnings = loaded.warnings.clone();
    warnings.extend(reread);
    warnings.extend(engine_option_warnings(&args.limits, None, on_gpu));
    for w in &warnings {
        warn(w);
    }
    let encoded = &loaded.encoded;
    let verdict = Verdict::of(encoded, &exploration);
    let written = matches!(verdict, Verdict::NoViolation);
    let message = if written {
        format!(
            "{} states, {} transitions written to {}",
            exploration.states,
            exploration.transitions,
            args.write_aut.display()
        )
    } else {
        let unwritten = if exploration.completion == Completion::Complete {
            String::new()
        } else {
            format!(" ({} not written)", args.write_aut.display())
        };
        format!(
            "{}{unwritten}",
            verdict_message(&verdict, &interruption, false, None, false)
        )
    };
    let code = verdict.exit_code();
    match cli.format {
        OutputFormat::Json => {
            let report = serde_json::json!({
                "model": args.input.model.display().to_string(),
                "output": args.write_aut.display().to_string(),
                "written": written,
                "message": message,
                "completion": exploration.completion.key(),
                "exit_code": code,
                "engine": exploration.engine,
                "states": exploration.states,
                "transitions": exploration.transitions,
                "depth": exploration.depth,
                "load_seconds": loaded.load_time.as_secs_f64(),
                "search_seconds": exploration.elapsed.as_secs_f64(),
                "warnings": warnings,
            });
            emit(&format!("{report:#}\n"))?;
        }
        OutputFormat::Text if written => {
            if !cli.quiet {
                emit(&format!("{}: {message}\n", args.input.model.display()))?;
            }
        }
        OutputFormat::Text => note(&format!("error: {message}")),
    }
    Ok(code)
}

/// The CPU engine's options from the command line.
fn cpu_options(limits: &SearchLimits) -> CpuOptions {
    CpuOptions {
        threads: limits.threads.map_or(0, usize::from),
    }
}

/// Warnings about options the engine that runs does not read.
fn engine_option_warnings(
    limits: &SearchLimits,
    gpu_args: Option<&GpuArgs>,
    on_gpu: bool,
) -> Vec<String> {
    let mut warnings = Vec::new();
    if on_gpu {
        if limits.threads.is_some() {
            warnings.push("--threads has no effect on the GPU engine".to_string());
        }
    } else {
        let mut given = gpu_args.map(GpuArgs::given).unwrap_or_default();
        if limits.device.is_some() {
            given.insert(0, "--device");
        }
        if !given.is_empty() {
            warnings.push(format!(
                "{} only affect{} the GPU engine, which does not run here",
                given.join(", "),
                if given.len() == 1 { "s" } else { "" }
            ));
        }
    }
    warnings
}

fn check(cli: &Cli, args: &CheckArgs) -> Result<i32, Error> {
    let mut warnings = Vec::new();
    if !args.deadlock && args.property.is_none() && !args.livelock {
        tracing::info!("none of --deadlock, --property and --livelock given: exploring only");
    }
    match &args.trace_out {
        Some(_) if args.no_trace => {
            warnings.push("--trace-out has no effect with --no-trace: no trace is kept".into());
        }
        Some(path) => check_output_path(path, &args.input.model, "--trace-out")?,
        None => {}
    }
    // The ranks of a search split over processes, but rank 0, print no
    // progress and no report, and write no trace.
    let follower = args.gpu.rank.is_some_and(|rank| rank > 0);
    let progress = (!cli.quiet && !follower && std::io::stderr().is_terminal()).then(progress_line);
    let interruption = Interruption::arm(args.limits.timeout, cli.quiet);
    let search = SearchOptions {
        check_deadlock: args.deadlock,
        // A livelock check needs the whole state space.
        keep_going: args.all || args.livelock,
        no_trace: args.no_trace,
        progress: progress.as_ref().map(|(_, f)| f.clone()),
        ..search_options(&args.limits, &interruption.stop)
    };
    let (loaded, run, reread) = load_and_search(
        &args.input,
        args.property.as_deref(),
        |loaded| engines::run(args, cli.quiet, &loaded.encoded, &search, args.livelock),
        |run| Some(&run.exploration),
    )?;
    warnings.extend(loaded.warnings.iter().cloned());
    warnings.extend(reread);
    let encoded = &loaded.encoded;
    warnings.extend(run.notes.iter().cloned());
    if let Some((bar, _)) = &progress {
        bar.finish_and_clear();
    }
    warnings.extend(engine_option_warnings(
        &args.limits,
        Some(&args.gpu),
        run.on_gpu,
    ));
    let exploration = &run.exploration;
    let livelock = run
        .space
        .as_ref()
        .map(|space| livelock::check(space, !args.no_trace))
        .transpose()?;
    if exploration.monitor_blocked > 0 {
        warnings.push(format!(
            "property `{}` blocked {} action firing(s) it matched but could not follow; \
             the monitor may be incomplete (add self-loops for actions it should ignore)",
            args.property.as_deref().unwrap_or("?"),
            exploration.monitor_blocked
        ));
    }
    let trace = exploration
        .first
        .as_ref()
        .and_then(|f| f.trace.as_ref())
        .map(|t| TraceView::new(encoded, t));
    let lasso = livelock
        .as_ref()
        .and_then(|l| l.lasso.as_ref())
        .map(|l| LassoView::new(encoded, l));
    let aut = match (&trace, &lasso) {
        (Some(t), _) => Some(t.to_aut()),
        (None, Some(l)) => Some(l.to_aut()),
        (None, None) => None,
    };
    if let (Some(path), Some(aut), false) = (&args.trace_out, aut, follower)
        && let Err(e) = aut.and_then(|text| std::fs::write(path, text))
    {
        warnings.push(format!(
            "the trace was not written: {}",
            Error::Write {
                path: path.display().to_string(),
                source: e
            }
        ));
    }
    for w in &warnings {
        warn(w);
    }
    let mut report = check_report(
        args,
        &loaded,
        exploration,
        &interruption,
        run.details,
        Found {
            trace,
            livelock: livelock.as_ref(),
            lasso,
        },
        warnings,
    );
    report.partitions = run.partitioning.map(|split| PartitionsView {
        gpus: split.devices,
        exchange: split.exchange.to_string(),
        bytes_exchanged_per_state: split.bytes as f64 / report.states.max(1) as f64,
        states: split.states,
        messages: split.messages,
        bytes_exchanged: split.bytes,
        expanding_seconds: split.expanding.as_secs_f64(),
        exchange_seconds: split.moving.as_secs_f64(),
        storing_seconds: split.storing.as_secs_f64(),
        rounds: split.rounds,
    });
    match cli.format {
        _ if follower => {}
        OutputFormat::Text => emit(&report.to_text())?,
        OutputFormat::Json => emit(&format!("{}\n", to_json(&report)?))?,
    }
    Ok(report.exit_code)
}

/// The threads of a multi-core engine: `--threads`, else every core.
fn cpu_threads(requested: Option<u16>) -> usize {
    match requested {
        Some(threads) => usize::from(threads),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// Prints a command's report: JSON under `--format json`, else the lines
/// `text` makes of it unless `-q` asks for silence.
fn emit_report<R: serde::Serialize>(
    cli: &Cli,
    report: &R,
    text: impl FnOnce(&R) -> String,
) -> Result<(), Error> {
    match cli.format {
        OutputFormat::Json => emit(&format!("{}\n", to_json(report)?)),
        OutputFormat::Text if !cli.quiet => emit(&text(report)),
        OutputFormat::Text => Ok(()),
    }
}

/// `value` as pretty-printed JSON.
fn to_json(value: &impl serde::Serialize) -> Result<String, Error> {
    serde_json::to_string_pretty(value)
        .map_err(|e| Error::Internal(format!("cannot render the report: {e}")))
}

/// What a `check` run found, beyond the exploration's figures.
struct Found<'a> {
    /// The trace of the deadlock or property finding.
    trace: Option<TraceView>,
    /// The livelock check's answer (`--livelock` and a complete search).
    livelock: Option<&'a Livelock>,
    /// The lasso of a livelock found.
    lasso: Option<LassoView>,
}

/// The report of a `check` run.
fn check_report(
    args: &CheckArgs,
    loaded: &Loaded,
    exploration: &Exploration,
    interruption: &Interruption,
    engine_details: Vec<(String, String)>,
    Found {
        trace,
        livelock,
        lasso,
    }: Found<'_>,
    warnings: Vec<String>,
) -> CheckReport {
    let encoded = &loaded.encoded;
    let verdict = Verdict::of(encoded, exploration).with_livelock(livelock);
    let found = verdict.found(livelock);
    let mut message = verdict_message(
        &verdict,
        interruption,
        args.deadlock,
        args.property.as_deref(),
        args.livelock,
    );
    if verdict != Verdict::Livelock && found.iter().any(|f| f == Verdict::Livelock.key()) {
        message = format!("{message}; {LIVELOCK_FOUND}");
    }
    let seconds = exploration.elapsed.as_secs_f64();
    CheckReport {
        model: args.input.model.display().to_string(),
        engine: exploration.engine.clone(),
        deadlock_checked: args.deadlock,
        property: args.property.clone(),
        verdict: verdict.key().to_string(),
        message,
        complete: exploration.completion == Completion::Complete,
        completion: exploration.completion.key().to_string(),
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
        load_seconds: loaded.load_time.as_secs_f64(),
        search_seconds: seconds,
        states_per_second: if seconds > 0.0 {
            exploration.states as f64 / seconds
        } else {
            0.0
        },
        memory_bytes: exploration.memory_bytes,
        storage: exploration.storage.key().to_string(),
        bytes_per_state: if exploration.states > 0 {
            exploration.state_bytes as f64 / exploration.states as f64
        } else {
            0.0
        },
        engine_details,
        warnings,
        trace,
        livelock_checked: args.livelock,
        livelock_states: livelock.map_or(0, |l| l.cyclic_states),
        lasso,
        found,
        partitions: None,
    }
}

/// A live line on stderr, while stderr is a terminal and `--quiet` is not
/// given, that says what a command is doing and for how long, so that a
/// long load or computation shows that it is alive. Cleared before
/// anything else is written to stderr ([`PhaseLine::clear`]) and when
/// dropped.
struct PhaseLine {
    shown: bool,
    bar: Option<indicatif::ProgressBar>,
}

impl PhaseLine {
    /// A line for `cli`'s command, not drawn yet.
    fn new(cli: &Cli) -> PhaseLine {
        PhaseLine {
            shown: !cli.quiet && std::io::stderr().is_terminal(),
            bar: None,
        }
    }

    /// Says that the command is now doing `what`, timed from now.
    fn show(&mut self, what: String) {
        if !self.shown {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let bar = spinner();
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                    .expect("a valid template"),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        bar.reset_elapsed();
        bar.set_message(what);
    }

    /// Takes the line off the terminal (a later [`PhaseLine::show`] draws
    /// it again).
    fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for PhaseLine {
    fn drop(&mut self) {
        self.clear();
    }
}

/// A live line on stderr, whose message the caller sets.
fn spinner() -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar
}

/// A live progress line of a search on stderr, and the callback that
/// updates it.
fn progress_line() -> (indicatif::ProgressBar, crate::explore::ProgressFn) {
    let bar = spinner();
    let shown = bar.clone();
    let callback = Arc::new(move |p: &Progress| {
        let secs = p.elapsed.as_secs_f64().max(1e-9);
        shown.set_message(format!(
            "{} states, {} transitions, {} levels done, {:.0} states/s",
            p.states,
            p.transitions,
            p.depth,
            p.states as f64 / secs
        ));
        shown.tick();
    });
    (bar, callback)
}

fn info(cli: &Cli, args: &InfoArgs) -> Result<i32, Error> {
    let network = load(&args.input, false)?;
    let warnings = model_warnings(&network, None);
    let encoded = EncodedNetwork::new(&network)
        .map_err(|e| Error::Model(format!("{}: {e}", args.input.model.display())))?;
    for w in &warnings {
        warn(w);
    }
    let report = InfoReport::new(
        &args.input.model.display().to_string(),
        &network,
        &encoded,
        warnings,
    );
    match cli.format {
        OutputFormat::Text => emit(&report.to_text())?,
        OutputFormat::Json => emit(&format!("{}\n", to_json(&report)?))?,
    }
    Ok(exit::OK)
}

fn convert(cli: &Cli, args: &ConvertArgs) -> Result<i32, Error> {
    if let Some(output) = &args.output {
        check_output_path(output, &args.input.model, "--output")?;
    }
    let network = load(&args.input, false)?;
    let text = match args.to {
        ConvertTarget::Net => frontend::net::write(&network),
    };
    write_output(cli, args.output.as_deref(), &text)
}

fn generate(cli: &Cli, args: &GenerateArgs) -> Result<i32, Error> {
    let text = match args.family {
        Family::Philosophers => crate::generate::philosophers(args.size as usize),
        Family::Barrier => crate::generate::barrier(args.size as usize),
    }
    .map_err(|e| Error::Usage(e.to_string()))?;
    write_output(cli, args.output.as_deref(), &text)
}

fn completions(args: &CompletionsArgs) -> Result<i32, Error> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "warpcheck", &mut script);
    emit(&String::from_utf8_lossy(&script))?;
    Ok(exit::OK)
}

fn man(cli: &Cli, args: &ManArgs) -> Result<i32, Error> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .map_err(|e| Error::Internal(format!("cannot render the manual page: {e}")))?;
    write_output(cli, args.output.as_deref(), &String::from_utf8_lossy(&page))
}

/// Writes `text` to `path`, or to standard output without one. Under
/// `--format json` the text needs a file, and stdout gets a summary.
fn write_output(cli: &Cli, path: Option<&Path>, text: &str) -> Result<i32, Error> {
    match (path, cli.format) {
        (None, OutputFormat::Text) => emit(text)?,
        (None, OutputFormat::Json) => {
            return Err(Error::Usage(
                "--format json prints a summary object: give the output file with --output"
                    .to_string(),
            ));
        }
        (Some(path), format) => {
            std::fs::write(path, text).map_err(|source| Error::Write {
                path: path.display().to_string(),
                source,
            })?;
            if format == OutputFormat::Json {
                let summary = serde_json::json!({
                    "output": path.display().to_string(),
                    "bytes": text.len(),
                    "exit_code": exit::OK,
                });
                emit(&format!("{summary:#}\n"))?;
            }
        }
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
        assert_eq!(
            parse_size("0.1"),
            Err("`0.1` is not a positive size".to_string())
        );
        assert_eq!(
            parse_size("1e30T"),
            Err("`1e30T` is too large a size".to_string())
        );
    }

    #[test]
    fn timeouts_parse_as_seconds() {
        assert_eq!(parse_seconds("2.5"), Ok(Duration::from_millis(2500)));
        for bad in ["0", "-1", "inf", "NaN", "1e300", "soon"] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
