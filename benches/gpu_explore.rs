//! GPU throughput on large Model Checking Contest models, beside the
//! reference engine; `scripts/gpu_bench.sh` runs it on the GPU machine
//! (benches/results/gpu.md). Prints one line per run.
//!
//! The models are those named in `$WARPCHECK_BENCH` (folders of
//! `$WARPCHECK_MCC`, comma-separated), with the reference engine on those
//! named in `$WARPCHECK_BENCH_REFERENCE`, and the design switches one at a
//! time on `$WARPCHECK_BENCH_ABLATE`, and each vector-group size listed in
//! `$WARPCHECK_BENCH_GROUPS` (e.g. `4,8,16`) on every model, with each read
//! path in `$WARPCHECK_BENCH_READS` (e.g. `ldg,texture`). Without
//! `$WARPCHECK_MCC` and `$WARPCHECK_BENCH`, or without a GPU, it prints
//! `SKIPPED: ...` and exits 0 (so `cargo bench` passes on any machine).

use std::path::PathBuf;
use std::time::Instant;

use warpcheck::explore::gpu::{
    self, Frontier, GpuOptions, OwnerChoice, ReadOnlyPath, SyncCombination,
};
use warpcheck::explore::{SearchOptions, reference};
use warpcheck::gpu::{Device, GpuError};
use warpcheck::testing;

/// A complete search (`--all`) that checks for deadlocks.
fn search() -> SearchOptions {
    SearchOptions {
        check_deadlock: true,
        keep_going: true,
        ..SearchOptions::default()
    }
}

fn main() {
    let (Some(dir), Ok(models)) = (
        std::env::var_os("WARPCHECK_MCC").map(PathBuf::from),
        std::env::var("WARPCHECK_BENCH"),
    ) else {
        println!("SKIPPED: set WARPCHECK_MCC and WARPCHECK_BENCH");
        return;
    };
    let reference_models = std::env::var("WARPCHECK_BENCH_REFERENCE").unwrap_or_default();
    let ablate = std::env::var("WARPCHECK_BENCH_ABLATE").unwrap_or_default();
    // Vector-group sizes to try on every model besides the default.
    let group_threads: Vec<u32> = std::env::var("WARPCHECK_BENCH_GROUPS")
        .unwrap_or_default()
        .split(',')
        .filter_map(|g| g.parse().ok())
        .collect();
    // Read paths for those runs (`$WARPCHECK_BENCH_READS`, default `ldg`).
    let read_paths: Vec<(&str, ReadOnlyPath)> = std::env::var("WARPCHECK_BENCH_READS")
        .unwrap_or_else(|_| "ldg".into())
        .split(',')
        .filter_map(|path| match path {
            "ldg" => Some(("ldg", ReadOnlyPath::Ldg)),
            "plain" => Some(("plain", ReadOnlyPath::Plain)),
            "texture" => Some(("texture", ReadOnlyPath::Texture)),
            _ => None,
        })
        .collect();
    let device = match Device::open(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            let reason = match e {
                GpuError::Unavailable(reason) => reason,
                other => other.to_string(),
            };
            println!("SKIPPED: no GPU available ({reason})");
            return;
        }
    };
    println!("device: {}", device.description());
    for name in models.split(',').filter(|m| !m.is_empty()) {
        let net = testing::load_mcc_model(&dir.join(name));
        let mut variants = vec![("default", GpuOptions::default(), false)];
        if ablate.split(',').any(|m| m == name) {
            let d = GpuOptions::default;
            variants.extend([
                ("no-trace", d(), true),
                (
                    "no-cache",
                    GpuOptions {
                        cache: false,
                        ..d()
                    },
                    false,
                ),
                (
                    "no-claiming",
                    GpuOptions {
                        work_claiming: false,
                        ..d()
                    },
                    false,
                ),
                (
                    "plain-loads",
                    GpuOptions {
                        readonly_path: ReadOnlyPath::Plain,
                        ..d()
                    },
                    false,
                ),
                (
                    "new-marks",
                    GpuOptions {
                        frontier: Frontier::NewMarks,
                        ..d()
                    },
                    false,
                ),
                (
                    "lowest-owner",
                    GpuOptions {
                        owners: OwnerChoice::Lowest,
                        ..d()
                    },
                    false,
                ),
                (
                    "sync-buffers",
                    GpuOptions {
                        sync: SyncCombination::SharedBuffers,
                        ..d()
                    },
                    false,
                ),
                (
                    "ldg",
                    GpuOptions {
                        readonly_path: ReadOnlyPath::Ldg,
                        ..d()
                    },
                    false,
                ),
                (
                    "iterations=1",
                    GpuOptions {
                        iterations: Some(1),
                        ..d()
                    },
                    false,
                ),
                (
                    "threads=128",
                    GpuOptions {
                        threads_per_block: Some(128),
                        ..d()
                    },
                    false,
                ),
                (
                    "threads=512",
                    GpuOptions {
                        threads_per_block: Some(512),
                        ..d()
                    },
                    false,
                ),
            ]);
        }
        let mut variants: Vec<(String, GpuOptions, bool)> = variants
            .into_iter()
            .map(|(name, options, no_trace)| (name.to_string(), options, no_trace))
            .collect();
        for &(path_name, readonly_path) in &read_paths {
            for &threads in &group_threads {
                let options = GpuOptions {
                    group_threads: Some(threads),
                    readonly_path,
                    ..GpuOptions::default()
                };
                variants.push((format!("group={threads} {path_name}"), options, false));
            }
        }
        for (variant, options, no_trace) in variants {
            let started = Instant::now();
            let options_search = SearchOptions {
                no_trace,
                ..search()
            };
            match gpu::explore(&device, &net, &options_search, &options) {
                Ok(found) => {
                    let e = &found.exploration;
                    println!("{}", e.engine);
                    println!(
                        "gpu {name} {variant}: states {} transitions {} deadlocks {} depth {} \
                         {:?} | search {:.3}s = {:.3e} states/s | setup {:.3}s wall {:.3}s | table {:.1} GiB fill {:.3} launches {} redundancy {:.2}%",
                        e.states,
                        e.transitions,
                        e.deadlocks,
                        e.depth,
                        e.completion,
                        e.elapsed.as_secs_f64(),
                        e.states as f64 / e.elapsed.as_secs_f64(),
                        found.setup.as_secs_f64(),
                        started.elapsed().as_secs_f64(),
                        found.table_bytes as f64 / (1u64 << 30) as f64,
                        found.table_fill,
                        found.launches,
                        found.redundancy
                    );
                }
                Err(e) => println!("gpu {name} {variant}: error {e}"),
            }
        }
        if reference_models.split(',').any(|m| m == name) {
            let e = reference::explore(&net, &search());
            println!(
                "reference {name}: states {} transitions {} deadlocks {} | {:.3}s = {:.3e} states/s",
                e.states,
                e.transitions,
                e.deadlocks,
                e.elapsed.as_secs_f64(),
                e.states as f64 / e.elapsed.as_secs_f64()
            );
        }
    }
}
