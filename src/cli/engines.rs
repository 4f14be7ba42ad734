//! Choosing and running the engine the user asked for.

use super::{CheckArgs, EngineChoice};
use crate::encode::EncodedNetwork;
use crate::explore::cpu::{self, CpuOptions};
use crate::explore::gpu::{Gpu, GpuOptions};
use crate::explore::{Exploration, SearchOptions, reference};
use crate::report::human_bytes;

/// An exploration plus engine-specific lines for the report.
pub struct EngineRun {
    /// What the engine found.
    pub exploration: Exploration,
    /// Extra `name: value` lines (table size, fill, threads, …).
    pub details: Vec<(String, String)>,
}

/// Runs the engine `args` asks for. `auto` and `gpu` fall back to the CPU
/// engine, with a note on stderr, when no GPU can be opened.
pub fn run(
    args: &CheckArgs,
    net: &EncodedNetwork,
    search: &SearchOptions,
) -> Result<EngineRun, String> {
    match args.engine {
        EngineChoice::Reference => Ok(EngineRun {
            exploration: reference::explore(net, search),
            details: Vec::new(),
        }),
        EngineChoice::Cpu => Ok(run_cpu(args, net, search)),
        EngineChoice::Gpu | EngineChoice::Auto => {
            match open_gpu(args.engine == EngineChoice::Gpu) {
                Some(gpu) => run_gpu(&gpu, args, net, search),
                None => Ok(run_cpu(args, net, search)),
            }
        }
    }
}

/// Opens the GPU; when none can be opened, says on stderr that the CPU
/// engine runs instead: as a warning when the GPU was `requested`, as a
/// note when it was only preferred (`--engine auto`).
pub(super) fn open_gpu(requested: bool) -> Option<Gpu> {
    Gpu::open()
        .map_err(|e| {
            let kind = if requested { "warning" } else { "note" };
            eprintln!("{kind}: no GPU could be opened ({e}); using the CPU engine");
        })
        .ok()
}

fn run_cpu(args: &CheckArgs, net: &EncodedNetwork, search: &SearchOptions) -> EngineRun {
    EngineRun {
        exploration: cpu::explore(
            net,
            search,
            &CpuOptions {
                threads: args.threads.unwrap_or(0),
                memory_bytes: args.memory,
            },
        ),
        details: Vec::new(),
    }
}

fn run_gpu(
    gpu: &Gpu,
    args: &CheckArgs,
    net: &EncodedNetwork,
    search: &SearchOptions,
) -> Result<EngineRun, String> {
    let options = GpuOptions {
        blocks: args.blocks,
        threads_per_block: args.threads_per_block,
        iterations: args.iterations,
        group_threads: args.group_threads,
        memory_bytes: args.memory,
        ..GpuOptions::default()
    };
    let run = gpu
        .explore(net, search, &options)
        .map_err(|e| format!("GPU engine: {e}"))?;
    let details = vec![
        ("device".to_string(), gpu.description()),
        (
            "hash table".to_string(),
            format!(
                "{}, {:.2}% full",
                human_bytes(run.table_bytes),
                100.0 * run.table_fill
            ),
        ),
        (
            "table capacity".to_string(),
            if run.capacity >= run.capacity_without_traces {
                format!("{} states", run.capacity)
            } else {
                format!(
                    "{} states ({} with --no-trace: traces cost {:.0}%)",
                    run.capacity,
                    run.capacity_without_traces,
                    100.0 * (1.0 - run.capacity as f64 / run.capacity_without_traces as f64)
                )
            },
        ),
        (
            "redundant expansions".to_string(),
            format!("{:.2}%", run.redundancy),
        ),
        ("kernel launches".to_string(), run.launches.to_string()),
        (
            "set-up (compile, allocate)".to_string(),
            format!("{:.3} s", run.setup.as_secs_f64()),
        ),
    ];
    Ok(EngineRun {
        exploration: run.exploration,
        details,
    })
}
