//! Choosing and running the engine the user asked for.

use std::time::Duration;

use clap::Args;

use super::output::note;
use super::{CheckArgs, EngineChoice, GpuArgs, GpuCount, cpu_options};
use crate::encode::EncodedNetwork;
use crate::error::Error;
use crate::explore::cpu::{self, MAX_THREADS};
use crate::explore::gpu::{self, GpuOptions};
use crate::explore::livelock::StateSpace;
use crate::explore::{Completion, Exploration, SearchOptions, reference};
use crate::gpu::Device;
use crate::report::human_bytes;

/// An exploration plus engine-specific lines for the report.
pub struct EngineRun {
    /// What the engine found.
    pub exploration: Exploration,
    /// Extra `name: value` lines (table size, fill, threads, …).
    pub details: Vec<(String, String)>,
    /// Whether the GPU engine ran.
    pub on_gpu: bool,
    /// The complete state space, when it was asked for (`--livelock`) and
    /// the search was complete.
    pub space: Option<StateSpace>,
    /// Notes for the user about how the run went (why a table filled).
    pub notes: Vec<String>,
    /// How a partitioned GPU search shared its work.
    pub partitioning: Option<gpu::Partitioning>,
}

impl EngineRun {
    /// A run of a CPU engine, which has no extra lines.
    fn on_cpu((exploration, space): (Exploration, Option<StateSpace>)) -> EngineRun {
        EngineRun {
            exploration,
            details: Vec::new(),
            on_gpu: false,
            space,
            notes: Vec::new(),
            partitioning: None,
        }
    }
}

/// Runs the engine `args` asks for; with `keep_space` (`--livelock`), it
/// also gives back the complete state space. `auto` falls back to the CPU
/// engine when no GPU can be opened, with a note on stderr unless `quiet`;
/// `gpu` without a GPU is a usage error.
pub fn run(
    args: &CheckArgs,
    quiet: bool,
    net: &EncodedNetwork,
    search: &SearchOptions,
    keep_space: bool,
) -> Result<EngineRun, Error> {
    let cpu = || -> Result<EngineRun, Error> {
        let options = cpu_options(&args.limits);
        Ok(EngineRun::on_cpu(if keep_space {
            cpu::explore_space(net, search, &options)?
        } else {
            (cpu::explore(net, search, &options), None)
        }))
    };
    if let Some(ranks) = args.gpu.ranks {
        return run_rank(args, ranks as usize, net, search, keep_space);
    }
    let ordinal = args.limits.device.unwrap_or(0);
    match args.engine {
        EngineChoice::Reference => Ok(EngineRun::on_cpu(if keep_space {
            reference::explore_space(net, search)?
        } else {
            (reference::explore(net, search), None)
        })),
        EngineChoice::Cpu => cpu(),
        EngineChoice::Gpu => run_gpu(&required_device(ordinal)?, args, net, search, keep_space),
        EngineChoice::Auto => match preferred_device(ordinal, quiet, CPU_ENGINE) {
            Some(device) => run_gpu(&device, args, net, search, keep_space),
            None => cpu(),
        },
    }
}

/// How long a rank other than 0 waits for rank 0's rendezvous file.
const RENDEZVOUS_PATIENCE: Duration = Duration::from_secs(300);

/// Runs this process's rank of a search split over `ranks` processes
/// (`--ranks`, `--rank`, `--rendezvous`), on the GPU `--device` names, else
/// its rank modulo the visible GPUs.
fn run_rank(
    args: &CheckArgs,
    ranks: usize,
    net: &EncodedNetwork,
    search: &SearchOptions,
    keep_space: bool,
) -> Result<EngineRun, Error> {
    let usage = |message: String| Err(Error::Usage(message));
    let (Some(rank), Some(rendezvous)) = (args.gpu.rank, &args.gpu.rendezvous) else {
        return usage("--ranks needs --rank and --rendezvous".into());
    };
    let rank = rank as usize;
    if rank >= ranks {
        return usage(format!(
            "--rank {rank} with --ranks {ranks}: ranks are numbered from 0 to {}",
            ranks - 1
        ));
    }
    if keep_space {
        return usage("--ranks: --livelock runs on one GPU".into());
    }
    if matches!(args.engine, EngineChoice::Cpu | EngineChoice::Reference) {
        return usage(format!(
            "--ranks splits a GPU search; --engine {} runs none",
            if args.engine == EngineChoice::Cpu {
                "cpu"
            } else {
                "reference"
            }
        ));
    }
    let ordinal = args
        .limits
        .device
        .unwrap_or_else(|| rank % Device::count().max(1));
    let device = Device::open(ordinal).map_err(|e| Error::Usage(format!("--ranks: {e}")))?;
    let job = gpu::RankJob {
        device: device.clone(),
        rank,
        ranks,
        rendezvous: rendezvous.clone(),
        patience: RENDEZVOUS_PATIENCE,
    };
    let run = gpu::explore_rank(&job, net, search, &gpu_options(&args.gpu))?;
    Ok(gpu_run(&device, run, None))
}

/// Opens GPU `ordinal` for `--engine gpu`: without one, a usage error
/// that says why in one line.
pub(super) fn required_device(ordinal: usize) -> Result<Device, Error> {
    Device::open(ordinal).map_err(|e| Error::Usage(format!("--engine gpu: {e}")))
}

/// The engine options of the commands on explicit models (`mec`, `prob`)
/// besides `--engine`.
#[derive(Debug, Args)]
pub struct ExplicitEngineArgs {
    /// Worker threads of the CPU engine (default: all cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=MAX_THREADS as i64))]
    pub threads: Option<u16>,
    /// GPU to use, as CUDA numbers the visible devices (default 0).
    #[arg(long, value_name = "N")]
    pub device: Option<usize>,
}

impl ExplicitEngineArgs {
    /// The GPU that `engine` asks for (`auto`: one that can be opened, else
    /// the CPU engine), and warnings for the options it leaves unread.
    pub(super) fn device(
        &self,
        engine: EngineChoice,
        quiet: bool,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Device>, Error> {
        let ordinal = self.device.unwrap_or(0);
        let device = match engine {
            EngineChoice::Gpu => Some(required_device(ordinal)?),
            EngineChoice::Auto => preferred_device(ordinal, quiet, CPU_ENGINE),
            EngineChoice::Cpu | EngineChoice::Reference => None,
        };
        if device.is_none() && self.device.is_some() {
            warnings.push("--device only affects the GPU engine, which does not run here".into());
        }
        if self.threads.is_some() && (device.is_some() || engine == EngineChoice::Reference) {
            warnings.push("--threads only affects the CPU engine, which does not run here".into());
        }
        Ok(device)
    }
}

/// What `auto` falls back to without a GPU, in notes.
pub(super) const CPU_ENGINE: &str = "the CPU engine";

/// Opens GPU `ordinal` for `--engine auto`; when none can be opened, says
/// on stderr (unless `quiet`) why, and that `instead` runs.
pub(super) fn preferred_device(ordinal: usize, quiet: bool, instead: &str) -> Option<Device> {
    Device::open(ordinal)
        .map_err(|e| {
            if !quiet {
                note(&format!(
                    "note: no GPU could be opened ({e}); using {instead}"
                ));
            }
        })
        .ok()
}

/// The GPU engine's options from the command line.
fn gpu_options(args: &GpuArgs) -> GpuOptions {
    GpuOptions {
        blocks: args.blocks,
        threads_per_block: args.threads_per_block,
        iterations: args.iterations,
        group_threads: args.group_threads,
        initial_table_bytes: args.initial_table,
        compact_roots: args.tree_roots != Some(super::TreeRoots::Pairs),
        ..GpuOptions::default()
    }
}

fn run_gpu(
    device: &Device,
    args: &CheckArgs,
    net: &EncodedNetwork,
    search: &SearchOptions,
    keep_space: bool,
) -> Result<EngineRun, Error> {
    let options = gpu_options(&args.gpu);
    let split = split_search(device, args, keep_space)?;
    let (run, space) = if keep_space {
        gpu::explore_space(device, net, search, &options)?
    } else if let Some((devices, partitions)) = &split {
        let run = gpu::explore_partitioned(devices, *partitions, net, search, &options)?;
        (run, None)
    } else {
        (gpu::explore(device, net, search, &options)?, None)
    };
    Ok(gpu_run(device, run, space))
}

/// The report's view of a GPU search on `device` (the first of several).
fn gpu_run(device: &Device, run: gpu::GpuExploration, space: Option<StateSpace>) -> EngineRun {
    let mut details = vec![
        ("device".to_string(), device.description()),
        (
            "hash table".to_string(),
            format!(
                "{}, {:.2}% full, {}-bit slot numbers; grew {} time(s) ({} through host \
                 memory, {} level(s) run again) in {:.3} s, up to {} allowed",
                human_bytes(run.table_bytes),
                100.0 * run.table_fill,
                run.slot_bits,
                run.growths,
                run.staged_growths,
                run.rerun_levels,
                run.growth_time.as_secs_f64(),
                human_bytes(run.budget)
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
    if let Some(split) = &run.partitioning {
        let states = run.exploration.states.max(1);
        details.push((
            "partitions".to_string(),
            format!(
                "{} on {} GPU(s), exchanging by {}; states per partition {:?}",
                split.states.len(),
                split.devices,
                split.exchange,
                split.states
            ),
        ));
        details.push((
            "exchange".to_string(),
            format!(
                "{} successors sent to their owners, {} ({:.1} bytes a state), in {} round(s); \
                 expanding {:.3} s, moving (and storing meanwhile) {:.3} s, storing after \
                 the last arrival {:.3} s",
                split.messages,
                human_bytes(split.bytes),
                split.bytes as f64 / states as f64,
                split.rounds,
                split.expanding.as_secs_f64(),
                split.moving.as_secs_f64(),
                split.storing.as_secs_f64()
            ),
        ));
    }
    if run.node_capacity > 0 {
        details.push((
            "tree roots".to_string(),
            if run.compact_roots {
                "compact (47 bits a root, by quotienting)".to_string()
            } else {
                "pairs of 32-bit words (--tree-roots pairs, a table too small for compact \
                 roots, or a search split over GPUs)"
                    .to_string()
            },
        ));
        details.push((
            "tree nodes".to_string(),
            format!(
                "{} of {} in {} generation(s) ({:.2}% full), {:.2} a state",
                run.nodes,
                run.node_capacity,
                run.node_generations,
                100.0 * run.nodes as f64 / run.node_capacity as f64,
                run.nodes as f64 / run.exploration.states.max(1) as f64
            ),
        ));
    }
    let mut notes = Vec::new();
    if let Some((states, elapsed)) = run.plain_attempt {
        notes.push(format!(
            "the plain GPU table filled at {states} states after {:.3} s; the search ran \
             again with tree storage (--storage tree skips the first attempt)",
            elapsed.as_secs_f64()
        ));
    }
    if run.exploration.completion == Completion::TableFull {
        notes.push(table_full_note(&run));
    }
    EngineRun {
        exploration: run.exploration,
        details,
        on_gpu: true,
        space,
        notes,
        partitioning: run.partitioning.map(|split| *split),
    }
}

/// The devices and partitions a search is split over (`--gpus`,
/// `--partitions`), or `None` for a search on `device` alone. `--gpus`
/// left at `all` gives one GPU where several cannot be used: with
/// `keep_space` (scc, --livelock, --write-aut), with `--device`, or when
/// one GPU is visible.
fn split_search(
    device: &Device,
    args: &CheckArgs,
    keep_space: bool,
) -> Result<Option<(Vec<Device>, usize)>, Error> {
    let usage = |message: String| Err(Error::Usage(message));
    let gpus = match args.gpu.gpus {
        Some(GpuCount::Exactly(n)) => n,
        Some(GpuCount::All) | None if keep_space || args.limits.device.is_some() => 1,
        Some(GpuCount::All) | None => Device::count().max(1),
    };
    // Several GPUs by default only where NCCL can move the successors.
    let gpus = if args.gpu.gpus.is_none() && gpus > 1 && !gpu::nccl_available() {
        note(&format!(
            "note: {gpus} GPUs are visible but NCCL (libnccl.so) cannot be loaded; searching \
             on one (scripts/nccl.sh finds a libnccl.so.2 to link)"
        ));
        1
    } else {
        gpus
    };
    if gpus > 1 && keep_space {
        return usage(format!(
            "--gpus {gpus}: scc, --livelock and --write-aut run on one GPU (--gpus 1)"
        ));
    }
    if gpus > 1 && args.limits.device.is_some() {
        return usage(format!(
            "--gpus {gpus} takes the first {gpus} GPUs: leave out --device (or choose GPUs by \
             CUDA_VISIBLE_DEVICES)"
        ));
    }
    match args.gpu.partitions.map(|p| p as usize) {
        Some(_) if keep_space => {
            usage("--partitions: scc, --livelock and --write-aut run on one table".to_string())
        }
        Some(partitions) if gpus > 1 && partitions != gpus => usage(format!(
            "--partitions {partitions} with --gpus {gpus}: several GPUs take one partition each"
        )),
        Some(partitions) if gpus == 1 => Ok(Some((vec![device.clone()], partitions))),
        _ if gpus == 1 => Ok(None),
        _ => {
            // `device` is GPU 0 here (no --device): its compiled kernels
            // are kept.
            let others = (1..gpus).map(|ordinal| {
                Device::open(ordinal).map_err(|e| Error::Usage(format!("--gpus {gpus}: {e}")))
            });
            let devices = std::iter::once(Ok(device.clone()))
                .chain(others)
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Some((devices, gpus)))
        }
    }
}

/// What limited a GPU search whose table filled, and what to change.
fn table_full_note(run: &gpu::GpuExploration) -> String {
    let states = run.exploration.states;
    if let Some(split) = run.partitioning.as_ref().filter(|split| split.outbox_full) {
        return format!(
            "a partition's outbox overflowed at {states} states: a level sent more than {} \
             successors to one partition before it could stop to exchange them; give a larger \
             --memory (an eighth of it holds the exchange buffers)",
            split.outbox_messages
        );
    }
    if run.nodes_full {
        return format!(
            "the GPU node table of tree storage filled at {states} states ({} nodes in {} \
             entries; it grows to at most a third of --memory and 2^32 - 16 entries, and not \
             within a level that overflowed its frontier queue): give a larger --memory or \
             --initial-table (its first generation is four times that), or use --storage plain",
            run.nodes, run.node_capacity
        );
    }
    let traces = if run.capacity < run.capacity_without_traces {
        format!(
            "; without traces (--no-trace) the same memory holds about {} states",
            run.capacity_without_traces
        )
    } else {
        String::new()
    };
    if run.capped_by_numbers {
        return format!(
            "the GPU table filled at {states} states: this command numbers table slots in \
             32 bits (at most 2^32 - 1 slots), whatever the memory; `check` without \
             --livelock numbers them in 64 bits"
        );
    }
    format!(
        "the GPU table filled at {states} states: the table may take {} (--memory, by \
         default 90% of the device's free memory), which holds about {} states{traces}; \
         give a larger --memory or use a GPU with more memory",
        human_bytes(run.budget),
        run.capacity
    )
}
