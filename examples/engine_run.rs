//! Explores one model with a chosen engine and prints one JSON object with
//! the field names of `warpcheck check --format json` (`states`,
//! `transitions`, `elapsed_seconds`, `memory_bytes`, ...), plus
//! `bytes_per_state` (`memory_bytes` divided by the states).
//!
//! `scripts/bench_engines.sh --example` uses it instead of the CLI.
//! Usage: `cargo run --release --example engine_run -- MODEL
//! [--engine reference|cpu] [--threads N] [--memory BYTES] [--counters P,S]
//! [--first-id N]` where `--counters P,S` explores the built-in family of
//! `P` counters of `S` values (`S^P` states) instead of a model file, and
//! `--first-id N` numbers the CPU engine's states from `N` (past 2^32, its
//! index takes 8-byte entries from the start).

use std::process::ExitCode;

use warpcheck::encode::EncodedNetwork;
use warpcheck::explore::cpu::{self, CpuOptions, TableStart};
use warpcheck::explore::{Exploration, SearchOptions, reference};
use warpcheck::model::Network;
use warpcheck::testing;

/// The command line, parsed.
struct Args {
    model: String,
    engine: String,
    threads: usize,
    memory: Option<u64>,
    first_id: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        model: String::new(),
        engine: "cpu".to_string(),
        threads: 0,
        memory: None,
        first_id: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--engine" => args.engine = value("--engine")?,
            "--threads" => {
                args.threads = value("--threads")?
                    .parse()
                    .map_err(|e| format!("--threads: {e}"))?
            }
            "--memory" => {
                args.memory = Some(
                    value("--memory")?
                        .parse()
                        .map_err(|e| format!("--memory: {e}"))?,
                )
            }
            "--first-id" => {
                args.first_id = value("--first-id")?
                    .parse()
                    .map_err(|e| format!("--first-id: {e}"))?
            }
            // Flags the CLI takes that this example always applies.
            "--deadlock" | "--all" | "--no-trace" => {}
            "--format" => {
                value("--format")?;
            }
            _ if args.model.is_empty() => args.model = arg,
            _ => return Err(format!("unexpected argument `{arg}`")),
        }
    }
    if args.model.is_empty() {
        return Err("usage: engine_run MODEL|counters:P,S [--engine reference|cpu] [--threads N] [--memory BYTES]".into());
    }
    Ok(args)
}

/// Loads a model file, or builds `counters:P,S`.
fn network(model: &str) -> Result<Network, String> {
    if let Some(spec) = model.strip_prefix("counters:") {
        let parse = |s: Option<&str>| -> Result<usize, String> {
            s.and_then(|s| s.parse().ok())
                .ok_or(format!("`{model}`: expected counters:PROCESSES,STATES"))
        };
        let mut parts = spec.split(',');
        let processes = parse(parts.next())?;
        let states = parse(parts.next())?;
        return Ok(testing::counters(processes, states, true));
    }
    warpcheck::frontend::load(std::path::Path::new(model)).map_err(|e| e.to_string())
}

fn run(args: &Args) -> Result<Exploration, String> {
    let net = network(&args.model)?;
    let encoded = EncodedNetwork::new(&net).map_err(|e| e.to_string())?;
    let search = SearchOptions {
        check_deadlock: true,
        keep_going: true,
        no_trace: true,
        memory_bytes: args.memory,
        ..SearchOptions::default()
    };
    match args.engine.as_str() {
        "reference" => Ok(reference::explore(&encoded, &search)),
        "cpu" => {
            let opts = CpuOptions {
                threads: args.threads,
            };
            let start = TableStart {
                first_id: args.first_id,
                ..TableStart::default()
            };
            Ok(cpu::explore_from(&encoded, &search, &opts, start))
        }
        other => Err(format!(
            "unknown engine `{other}`: expected reference or cpu"
        )),
    }
}

fn main() -> ExitCode {
    let result = parse_args().and_then(|args| run(&args));
    match result {
        Ok(r) => {
            let report = serde_json::json!({
                "engine": r.engine,
                "states": r.states,
                "transitions": r.transitions,
                "deadlocks": r.deadlocks,
                "completion": format!("{:?}", r.completion),
                "elapsed_seconds": r.elapsed.as_secs_f64(),
                "memory_bytes": r.memory_bytes,
                "bytes_per_state": r.memory_bytes as f64 / r.states as f64,
            });
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}
