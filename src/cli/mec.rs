//! `warpcheck mec`: the maximal end components of an MDP read from PRISM
//! explicit files or a UMB archive, by the SCC engine the user picks.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, ValueEnum};

use super::engines::ExplicitEngineArgs;
use super::graphs::MethodChoice;
use super::output::{check_output_path, warn};
use super::{Cli, EngineChoice, PhaseLine, cpu_threads, emit_report};
use crate::error::{Error, exit};
use crate::explicit::{ExplicitModel, Mdp, ModelType, ProbModel};
use crate::frontend::{ExplicitFormat, prism, umb};
use crate::mec::{self, MecSummary, Mecs};
use crate::scc::cpu::Method;

/// The model types `--type` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TypeChoice {
    /// A Markov decision process (the only type `mec` decomposes).
    Mdp,
    /// A discrete-time Markov chain (rows of probabilities).
    Dtmc,
    /// A continuous-time Markov chain (rows of rates).
    Ctmc,
}

/// Arguments of `mec`.
#[derive(Debug, Args)]
pub struct MecArgs {
    /// The MDP: PRISM explicit transitions (`.tra`, or `.tra.gz`; the
    /// initial state from the `.lab` beside it) or a UMB archive (`.umb`).
    pub model: PathBuf,
    /// Engine of the SCC decompositions: the GPU (`auto` uses it when one
    /// can be opened), the multi-core CPU engine, or the sequential
    /// reference (Tarjan).
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto)]
    pub engine: EngineChoice,
    /// The model's type, where a `.tra` file leaves it open (a header of
    /// three numbers is an MDP); only `mdp` is decomposed.
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    pub model_type: Option<TypeChoice>,
    /// SCC method of the GPU and CPU engines.
    #[arg(long, value_enum, default_value_t = MethodChoice::Auto)]
    pub method: MethodChoice,
    /// Write one line per MEC: its states ascending, separated by spaces;
    /// MECs in the order of their smallest state.
    #[arg(long, value_name = "FILE")]
    pub write_mecs: Option<PathBuf>,
    /// Threads and GPU of the engines.
    #[command(flatten)]
    pub engines: ExplicitEngineArgs,
}

/// What `mec` decomposed, where, and how long each step took.
#[derive(Debug, serde::Serialize)]
struct MecReport {
    input: String,
    states: u64,
    choices: u64,
    transitions: u64,
    #[serde(flatten)]
    summary: MecSummary,
    iterations: u32,
    engine: String,
    method: Option<Method>,
    load_seconds: f64,
    kernel_seconds: Option<f64>,
    decompose_seconds: f64,
    elapsed_seconds: f64,
    mecs_file: Option<String>,
    warnings: Vec<String>,
    exit_code: i32,
}

/// Runs `mec`.
pub fn mec(cli: &Cli, args: &MecArgs) -> Result<i32, Error> {
    let started = Instant::now();
    if let Some(kind @ (TypeChoice::Dtmc | TypeChoice::Ctmc)) = args.model_type {
        let name = if kind == TypeChoice::Dtmc {
            "dtmc"
        } else {
            "ctmc"
        };
        return Err(Error::Usage(format!(
            "--type {name}: mec decomposes MDPs only (the end components of a Markov \
             chain are its bottom strongly connected components)"
        )));
    }
    if let Some(path) = &args.write_mecs {
        check_output_path(path, &args.model, "--write-mecs")?;
    }
    // The model first: its faults are reported before any note about
    // the engine.
    let mut phase = PhaseLine::new(cli);
    phase.show(format!("loading {}", args.model.display()));
    let loading = Instant::now();
    let kind = args.model_type.map(|_| ModelType::Mdp);
    let mdp = load_mdp(&args.model, kind)?;
    let load_seconds = loading.elapsed().as_secs_f64();
    phase.clear();
    let mut warnings: Vec<String> = Vec::new();
    let device = args.engines.device(args.engine, cli.quiet, &mut warnings)?;
    if args.engine == EngineChoice::Reference && args.method != MethodChoice::Auto {
        warnings.push("--method has no effect on the reference engine (Tarjan)".into());
    }
    for w in &warnings {
        warn(w);
    }
    let method = args.method.method(device.is_some());
    let kernel_seconds = match &device {
        Some(device) => {
            let compiling = Instant::now();
            mec::prepare_gpu(device)?;
            Some(compiling.elapsed().as_secs_f64())
        }
        None => None,
    };
    phase.show("decomposing".into());
    let decomposing = Instant::now();
    let (mecs, engine, method) = match (&device, args.engine) {
        (_, EngineChoice::Reference) => (mec::reference(&mdp), "reference".to_string(), None),
        (Some(device), _) => (
            mec::gpu(device, &mdp, method)?,
            format!("gpu ({})", device.description()),
            Some(method),
        ),
        (None, _) => {
            let threads = cpu_threads(args.engines.threads);
            (
                mec::cpu(&mdp, method, threads),
                format!("cpu ({threads} threads)"),
                Some(method),
            )
        }
    };
    let decompose_seconds = decomposing.elapsed().as_secs_f64();
    phase.clear();
    if let Some(path) = &args.write_mecs {
        write_mecs(path, &mecs)?;
    }
    let report = MecReport {
        input: args.model.display().to_string(),
        states: u64::from(mdp.states()),
        choices: mdp.choices(),
        transitions: mdp.targets.len() as u64,
        summary: mecs.summary(),
        iterations: mecs.iterations,
        engine,
        method,
        load_seconds,
        kernel_seconds,
        decompose_seconds,
        elapsed_seconds: started.elapsed().as_secs_f64(),
        mecs_file: args.write_mecs.as_ref().map(|p| p.display().to_string()),
        warnings,
        exit_code: exit::OK,
    };
    emit_report(cli, &report, text_report)?;
    Ok(exit::OK)
}

/// Reads the model of `path` for `command`: a `.tra` (plain or gzip; of
/// the type `kind` when given; labels from `lab`, else the `.lab` beside
/// it) or a `.umb` archive (which holds its labels); refuses other names.
pub(super) fn load_explicit(
    path: &Path,
    lab: Option<&Path>,
    kind: Option<ModelType>,
    command: &str,
) -> Result<ProbModel, Error> {
    match ExplicitFormat::from_path(path) {
        Some(ExplicitFormat::Umb) if lab.is_some() => Err(Error::Usage(
            "--lab only applies to a .tra model; a UMB archive holds its labels".into(),
        )),
        Some(ExplicitFormat::Umb) => Ok(umb::load(path)?),
        Some(ExplicitFormat::Tra) => Ok(prism::load(path, lab, kind)?),
        None => Err(Error::Usage(format!(
            "{}: {command} reads PRISM explicit transitions (.tra, .tra.gz) or UMB archives (.umb)",
            path.display()
        ))),
    }
}

/// Reads the MDP of `path` ([`load_explicit`]); refuses Markov chains.
fn load_mdp(path: &Path, kind: Option<ModelType>) -> Result<Mdp, Error> {
    match load_explicit(path, None, kind, "mec")?.model {
        ExplicitModel::Mdp(mdp) => Ok(mdp),
        chain => Err(Error::Model(format!(
            "{}: the model is a {}, not an MDP; mec decomposes MDPs only (the end \
             components of a Markov chain are its bottom strongly connected components)",
            path.display(),
            match chain.model_type() {
                ModelType::Dtmc => "DTMC",
                ModelType::Ctmc => "CTMC",
                ModelType::Mdp => "MDP",
            }
        ))),
    }
}

impl From<TypeChoice> for ModelType {
    fn from(choice: TypeChoice) -> ModelType {
        match choice {
            TypeChoice::Mdp => ModelType::Mdp,
            TypeChoice::Dtmc => ModelType::Dtmc,
            TypeChoice::Ctmc => ModelType::Ctmc,
        }
    }
}

/// The report as `name: value` lines.
fn text_report(report: &MecReport) -> String {
    let s = &report.summary;
    let mut lines = vec![
        format!(
            "input: {} ({} states, {} choices, {} transitions)",
            report.input, report.states, report.choices, report.transitions
        ),
        format!("maximal end components: {}", s.mecs),
        format!("states in MECs: {}", s.states_in_mecs),
        format!("largest MEC: {} states", s.largest_mec),
        format!("iterations: {}", report.iterations),
    ];
    let method = match report.method {
        Some(Method::Coloring) => ", colouring",
        Some(Method::ForwardBackward) => ", forward-backward",
        None => "",
    };
    lines.push(format!("engine: {}{method}", report.engine));
    let kernels = match report.kernel_seconds {
        Some(seconds) => format!(", GPU kernels {seconds:.3} s"),
        None => String::new(),
    };
    lines.push(format!(
        "time: load {:.3} s{kernels}, decompose {:.3} s, total {:.3} s",
        report.load_seconds, report.decompose_seconds, report.elapsed_seconds
    ));
    if let Some(file) = &report.mecs_file {
        lines.push(format!("MECs written to {file}"));
    }
    lines.join("\n") + "\n"
}

/// Writes the MECs of `mecs` to `path`, a line each.
fn write_mecs(path: &Path, mecs: &Mecs) -> Result<(), Error> {
    let write_error = |source| Error::Write {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::File::create(path).map_err(write_error)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    mecs.write_lines(&mut out).map_err(write_error)?;
    out.flush().map_err(write_error)
}
