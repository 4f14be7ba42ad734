//! Explores one PNML model with the reference engine and prints the figures
//! the Model Checking Contest publishes, as one JSON object with the field
//! names of `warpcheck check --format json` (plus load time and vector bits).
//!
//! `scripts/mcc_table.sh --example` uses it where the CLI is not wanted.
//! Usage: `cargo run --release --example mcc_count -- MODEL.pnml [--load-only]`
//! (`--load-only`: report load time and vector size without exploring).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use warpcheck::encode::EncodedNetwork;
use warpcheck::explore::{SearchOptions, reference};
use warpcheck::frontend::pnml;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, load_only) = match args.as_slice() {
        [path] => (PathBuf::from(path), false),
        [path, flag] if flag == "--load-only" => (PathBuf::from(path), true),
        _ => {
            eprintln!("usage: mcc_count MODEL.pnml [--load-only]");
            return ExitCode::from(2);
        }
    };
    let load_start = Instant::now();
    let network = match pnml::load(&path) {
        Ok(network) => network,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let encoded = match EncodedNetwork::new(&network) {
        Ok(encoded) => encoded,
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let load_seconds = load_start.elapsed().as_secs_f64();
    let vector = serde_json::json!({
        "load_seconds": load_seconds,
        "processes": encoded.processes(),
        "rules": encoded.rule_count,
        "state_bits": encoded.layout.used_bits(),
        "state_words": encoded.words(),
    });
    if load_only {
        println!("{vector}");
        return ExitCode::SUCCESS;
    }
    let result = reference::explore(
        &encoded,
        &SearchOptions {
            check_deadlock: true,
            keep_going: true,
            no_trace: true,
            ..SearchOptions::default()
        },
    );
    let report = serde_json::json!({
        "states": result.states,
        "transitions": result.transitions,
        "deadlocks": result.deadlocks,
        "errors": result.errors,
        "elapsed_seconds": result.elapsed.as_secs_f64(),
        "vector": vector,
    });
    println!("{report}");
    ExitCode::SUCCESS
}
