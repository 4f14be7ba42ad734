//! `warpcheck prob`: the value of probabilistic properties in the initial
//! state of a DTMC, CTMC or MDP read from PRISM explicit files or a UMB
//! archive, with the error bound the method guarantees.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;

use super::engines::ExplicitEngineArgs;
use super::mec::{TypeChoice, load_explicit};
use super::output::{check_output_path, warn};
use super::{Cli, EngineChoice, Interruption, PhaseLine, cpu_threads, emit_report};
use crate::error::{Error, exit};
use crate::explicit::{ExplicitModel, ModelType, RewardStructure};
use crate::frontend::{self, LoadError, prism};
use crate::numeric::property::{self, Property};
use crate::numeric::{self, CheckError, Engine, Precision, SolveOptions};

/// Arguments of `prob`.
#[derive(Debug, Args)]
pub struct ProbArgs {
    /// The model: PRISM explicit transitions (`.tra`, or `.tra.gz`; labels
    /// from the `.lab` beside it or --lab) or a UMB archive (`.umb`).
    pub model: PathBuf,
    /// A property in PRISM syntax over the model's labels, e.g.
    /// `P=? [ F "goal" ]`, `Pmax=? [ "a" U<=10 "b" ]` (repeatable).
    #[arg(long, value_name = "PROPERTY")]
    pub property: Vec<String>,
    /// A file of properties, one a line (`//` starts a comment line).
    #[arg(long, value_name = "FILE")]
    pub properties: Option<PathBuf>,
    /// Engine of the iterations: the GPU (`auto` uses it when one can be
    /// opened), the multi-core CPU engine, or the sequential reference; the
    /// graph precomputations and step-bounded properties run on the host.
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto)]
    pub engine: EngineChoice,
    /// Threads and GPU of the engines.
    #[command(flatten)]
    pub engines: ExplicitEngineArgs,
    /// The labels of a `.tra` model (default: the `.lab` beside it).
    #[arg(long, value_name = "FILE")]
    pub lab: Option<PathBuf>,
    /// State rewards from a PRISM `.srew` file (`STATES ENTRIES`, then
    /// `STATE VALUE` lines), as `FILE` or `NAME=FILE` (the structure that
    /// `R{"NAME"}` names; without it, the name of a `# Reward structure
    /// "NAME"` comment in the file, if any); repeatable. Given, --srew and
    /// --trew are the model's reward structures, in place of the `.srew`
    /// and `.trew` beside a `.tra` file or those of a UMB archive. A
    /// CTMC's values are rates, earned per time unit.
    #[arg(long, value_name = "[NAME=]FILE")]
    pub srew: Vec<String>,
    /// Transition rewards from a PRISM `.trew` file (`STATES ENTRIES`,
    /// then `SOURCE TARGET VALUE` lines; for an MDP `STATES CHOICES
    /// ENTRIES`, then `SOURCE CHOICE TARGET VALUE`), named as for --srew;
    /// repeatable. A value is earned each time its transition is taken (in
    /// a CTMC too). A --srew and a --trew of the same name (or both without
    /// one) make one structure.
    #[arg(long, value_name = "[NAME=]FILE")]
    pub trew: Vec<String>,
    /// The model's type, where a `.tra` file leaves it open.
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    pub model_type: Option<TypeChoice>,
    /// The largest error allowed in every state's value (absolute, or
    /// relative with --relative).
    #[arg(long, value_name = "EPSILON", default_value_t = 1e-6)]
    pub precision: f64,
    /// Read --precision as relative to the value.
    #[arg(long)]
    pub relative: bool,
    /// Plain value iteration: faster, but it stops when an iteration
    /// changes no value by more than the precision, which can be far from
    /// the answer; no error bound is reported.
    #[arg(long)]
    pub unsound: bool,
    /// Iterations at most per property; a property that has not reached
    /// the precision by then gets its value with the bound reached (exit 3).
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub max_iterations: u64,
    /// Seconds per property at most, as for --max-iterations.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Write every state's value of each property: `state value` lines,
    /// one block per property headed by `# PROPERTY`.
    #[arg(long, value_name = "FILE")]
    pub write_values: Option<PathBuf>,
}

/// One property's result, or why it has none.
#[derive(Debug, serde::Serialize)]
struct PropertyResult {
    property: String,
    /// The value in the initial state (`"inf"` when infinite); null when
    /// the property could not be computed.
    #[serde(serialize_with = "optional_number_or_text")]
    value: Option<f64>,
    /// The guaranteed bound on its error; null for --unsound, `"inf"`
    /// when no upper bound was proven.
    #[serde(serialize_with = "optional_number_or_text")]
    error_bound: Option<f64>,
    /// Whether the precision was reached.
    converged: bool,
    iterations: u64,
    elapsed_seconds: f64,
    /// Why the property could not be computed; null when it was.
    error: Option<String>,
    /// The exit code this property alone would give.
    #[serde(skip)]
    exit_code: i32,
}

/// A finite number as a JSON number, others as the text `inf`, `-inf` or
/// `nan` (JSON has no such numbers).
fn number_or_text<S: serde::Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if value.is_finite() {
        serializer.serialize_f64(*value)
    } else {
        serializer.serialize_str(&value.to_string().to_lowercase())
    }
}

/// [`number_or_text`] of a value that may be absent (null).
fn optional_number_or_text<S: serde::Serializer>(
    value: &Option<f64>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => number_or_text(value, serializer),
        None => serializer.serialize_none(),
    }
}

/// What `prob` computed.
#[derive(Debug, serde::Serialize)]
struct ProbReport {
    input: String,
    model_type: &'static str,
    states: u64,
    choices: u64,
    transitions: u64,
    engine: String,
    sound: bool,
    precision: f64,
    relative: bool,
    load_seconds: f64,
    results: Vec<PropertyResult>,
    elapsed_seconds: f64,
    values_file: Option<String>,
    warnings: Vec<String>,
    exit_code: i32,
}

/// Runs `prob`.
pub fn prob(cli: &Cli, args: &ProbArgs) -> Result<i32, Error> {
    let started = Instant::now();
    if !(args.precision > 0.0 && args.precision < 1.0) {
        return Err(Error::Usage(format!(
            "--precision {}: give a number between 0 and 1 (exclusive)",
            args.precision
        )));
    }
    let timeout = match args.timeout {
        None => None,
        Some(seconds) => Some(Duration::try_from_secs_f64(seconds).map_err(|_| {
            Error::Usage(format!(
                "--timeout {seconds}: give a non-negative number of seconds"
            ))
        })?),
    };
    if let Some(path) = &args.write_values {
        check_output_path(path, &args.model, "--write-values")?;
    }
    let properties = properties(args)?;
    let mut phase = PhaseLine::new(cli);
    phase.show(format!("loading {}", args.model.display()));
    let loading = Instant::now();
    let kind = args.model_type.map(ModelType::from);
    let mut model = load_explicit(&args.model, args.lab.as_deref(), kind, "prob")?;
    if !args.srew.is_empty() || !args.trew.is_empty() {
        model.rewards = reward_structures(args, &model.model)?;
    }
    let load_seconds = loading.elapsed().as_secs_f64();
    let mut warnings = Vec::new();
    if args.unsound {
        warnings.push(
            "--unsound: plain value iteration can stop far from the answer; no error bound \
             is known"
                .to_string(),
        );
    }
    phase.clear();
    let device = args.engines.device(args.engine, cli.quiet, &mut warnings)?;
    for w in &warnings {
        warn(w);
    }
    let threads = cpu_threads(args.engines.threads);
    let (engine, name) = match (&device, args.engine) {
        (Some(device), _) => (
            Engine::Gpu(device),
            format!("gpu ({})", device.description()),
        ),
        (None, EngineChoice::Reference) => (Engine::Reference, "reference".to_string()),
        (None, _) => (Engine::Cpu(threads), format!("cpu ({threads} threads)")),
    };
    // Ctrl-C ends the property being checked with its bounds so far, and
    // the later ones with the bounds they start from (a second one quits
    // at once).
    let interruption = Interruption::arm(None, cli.quiet);
    let mut results = Vec::new();
    let mut all_values = Vec::new();
    for (number, property) in properties.iter().enumerate() {
        phase.show(format!(
            "checking {} ({} of {})",
            property.text,
            number + 1,
            properties.len()
        ));
        let checking = Instant::now();
        let options = SolveOptions {
            precision: Precision {
                epsilon: args.precision,
                relative: args.relative,
            },
            sound: !args.unsound,
            max_iterations: args.max_iterations,
            stop: match timeout {
                Some(timeout) => interruption
                    .stop
                    .child()
                    .with_deadline(Instant::now() + timeout),
                None => interruption.stop.clone(),
            },
        };
        let initial = model.model.initial() as usize;
        let result = match numeric::check(&model, property, &options, engine) {
            Ok(outcome) => {
                let result = PropertyResult {
                    property: property.text.clone(),
                    value: Some(outcome.values[initial]),
                    error_bound: outcome.error_bounds.as_ref().map(|bounds| bounds[initial]),
                    converged: outcome.converged,
                    iterations: outcome.iterations,
                    elapsed_seconds: checking.elapsed().as_secs_f64(),
                    error: None,
                    exit_code: if outcome.converged {
                        exit::OK
                    } else {
                        exit::INCOMPLETE
                    },
                };
                if args.write_values.is_some() {
                    all_values.push((property.text.clone(), outcome.values));
                }
                result
            }
            Err(error) => {
                let error = match error {
                    CheckError::Gpu(error) => Error::from(error),
                    other => Error::Usage(other.to_string()),
                };
                phase.clear();
                eprintln!("error: property `{}`: {error}", property.text);
                PropertyResult {
                    property: property.text.clone(),
                    value: None,
                    error_bound: None,
                    converged: false,
                    iterations: 0,
                    elapsed_seconds: checking.elapsed().as_secs_f64(),
                    error: Some(error.to_string()),
                    exit_code: error.exit_code(),
                }
            }
        };
        results.push(result);
    }
    phase.clear();
    if let Some(path) = &args.write_values {
        write_values(path, &all_values)?;
    }
    let exit_code = results
        .iter()
        .map(|result| result.exit_code)
        .fold(exit::OK, worse);
    let report = ProbReport {
        input: args.model.display().to_string(),
        model_type: model.model.model_type().name(),
        states: u64::from(model.model.states()),
        choices: model.model.choices(),
        transitions: model.model.transitions(),
        engine: name,
        sound: !args.unsound,
        precision: args.precision,
        relative: args.relative,
        load_seconds,
        results,
        elapsed_seconds: started.elapsed().as_secs_f64(),
        values_file: args.write_values.as_ref().map(|p| p.display().to_string()),
        warnings,
        exit_code,
    };
    emit_report(cli, &report, text_report)?;
    Ok(exit_code)
}

/// The worse of two exit codes: an incomplete value is worse than none
/// missing, an error worse than that, and a device failure or internal
/// error worst.
fn worse(a: i32, b: i32) -> i32 {
    let rank = |code| match code {
        exit::OK => 0,
        exit::INCOMPLETE => 1,
        exit::BAD_INPUT => 2,
        _ => 3,
    };
    if rank(b) > rank(a) { b } else { a }
}

/// The name and file of a --srew or --trew: `NAME=FILE` when the text
/// before the first `=` is a name (letters, digits, `_`, not starting
/// with a digit), else the whole text as a file without a name.
fn named_file(given: &str) -> (Option<&str>, &Path) {
    match given.split_once('=') {
        Some((name, file))
            if name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
        {
            (Some(name), Path::new(file))
        }
        _ => (None, Path::new(given)),
    }
}

/// The reward structures of --srew and --trew for `model`: a state and a
/// transition rewards file of the same name (given, else the file's) make
/// one structure, as do two without a name.
fn reward_structures(
    args: &ProbArgs,
    model: &ExplicitModel,
) -> Result<Vec<RewardStructure>, Error> {
    /// A structure, and which of its files it has, by option name.
    struct Given {
        structure: RewardStructure,
        options: Vec<&'static str>,
    }
    let mut structures: Vec<Given> = Vec::new();
    let files = args
        .srew
        .iter()
        .map(|given| ("--srew", given))
        .chain(args.trew.iter().map(|given| ("--trew", given)));
    for (option, given) in files {
        let (name, path) = named_file(given);
        let bytes = frontend::read_explicit(path)?;
        let mut structure = match option {
            "--srew" => prism::parse_srew(&bytes, path, model.states())?,
            _ => prism::parse_trew(&bytes, path, model)?,
        };
        if let Some(name) = name {
            structure.name = Some(name.to_string());
        }
        match structures
            .iter_mut()
            .find(|other| other.structure.name == structure.name)
        {
            Some(other) if other.options.contains(&option) => {
                let name = match &structure.name {
                    Some(name) => format!("\"{name}\""),
                    None => "without a name".to_string(),
                };
                return Err(Error::Usage(format!(
                    "{option} {given}: the reward structure {name} has a {option} file already"
                )));
            }
            Some(other) => {
                other.structure.add(structure);
                other.options.push(option);
            }
            None => structures.push(Given {
                structure,
                options: vec![option],
            }),
        }
    }
    Ok(structures
        .into_iter()
        .map(|given| given.structure)
        .collect())
}

/// The properties of --property and --properties, parsed; at least one.
fn properties(args: &ProbArgs) -> Result<Vec<Property>, Error> {
    let mut parsed = Vec::new();
    for text in &args.property {
        parsed.push(
            property::parse(text)
                .map_err(|e| Error::Usage(format!("--property `{}`: {e}", text.trim())))?,
        );
    }
    if let Some(path) = &args.properties {
        let text = frontend::read_file(path)?;
        let from_file = property::parse_file(&text).map_err(|(line, e)| LoadError::At {
            path: path.clone(),
            line,
            column: e.column,
            message: e.message,
        })?;
        parsed.extend(from_file);
    }
    if parsed.is_empty() {
        return Err(Error::Usage(
            "no property: give --property 'P=? [ F \"label\" ]' or --properties FILE".into(),
        ));
    }
    Ok(parsed)
}

/// Writes `# PROPERTY` and then `state value` for every state, per
/// property.
fn write_values(path: &Path, all: &[(String, Vec<f64>)]) -> Result<(), Error> {
    let write_error = |source| Error::Write {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::File::create(path).map_err(write_error)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    for (property, values) in all {
        writeln!(out, "# {property}").map_err(write_error)?;
        for (state, value) in values.iter().enumerate() {
            writeln!(out, "{state} {value:e}").map_err(write_error)?;
        }
    }
    out.flush().map_err(write_error)
}

/// The report as `name: value` lines.
fn text_report(report: &ProbReport) -> String {
    let mut lines = vec![format!(
        "input: {} ({}, {} states, {} choices, {} transitions)",
        report.input, report.model_type, report.states, report.choices, report.transitions
    )];
    for result in &report.results {
        let (Some(value), None) = (result.value, &result.error) else {
            let error = result.error.as_deref().unwrap_or_default();
            lines.push(format!("{}: error: {error}", result.property));
            continue;
        };
        let bound = match result.error_bound {
            Some(bound) => format!(" ± {bound:.3e}"),
            None => " (no error bound: --unsound)".to_string(),
        };
        let reached = if result.converged {
            ""
        } else {
            " — precision NOT reached"
        };
        lines.push(format!(
            "{}: {}{bound}{reached} ({} iterations, {:.3} s)",
            result.property, value, result.iterations, result.elapsed_seconds
        ));
    }
    lines.push(format!(
        "engine: {}, {}; time: load {:.3} s, total {:.3} s",
        report.engine,
        if report.sound {
            "interval iteration (sound)"
        } else {
            "value iteration (unsound)"
        },
        report.load_seconds,
        report.elapsed_seconds
    ));
    if let Some(file) = &report.values_file {
        lines.push(format!("values written to {file}"));
    }
    lines.join("\n") + "\n"
}
