//! The integration tests, one binary with a module per area. Shared
//! generators and checks are in `warpcheck::testing` (the `testing`
//! feature, on for every `cargo test`). Models are read relative to the
//! repository root, where cargo and `scripts/gpu_test.sh` run the tests.
//!
//! Run one area with a filter on its module, e.g. `cargo test cpu::`.
//! Proptest keeps the seeds of past failures of module `m` in
//! `tests/proptest-regressions/m.txt` (its default place for a crate whose
//! root is `main.rs`) and replays them first.

mod cli;
mod corpus;
mod cpu;
mod cpu_ids;
mod cpu_tree;
mod explicit_inputs;
mod frontends;
mod gpu;
mod gpu_partitioned;
mod inputs;
mod livelock;
mod mcc;
mod mcc_pt;
mod mec;
mod parity;
mod parity_gpu;
mod pnml;
mod prob;
mod reference;
mod scale;
mod scc;
mod successors;

/// The repository's root: where this binary was built from, or, where
/// that path is gone (a binary carried to another machine, as the GPU
/// tests are), the current directory, where `scripts/gpu_test.sh` runs it.
pub(crate) fn repo_root() -> &'static std::path::Path {
    let built = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    if built.join("Cargo.toml").is_file() {
        built
    } else {
        std::path::Path::new(".")
    }
}

/// The `warpcheck` binary: `$WARPCHECK_BIN` where it is set (on the GPU
/// machine, where the build's path does not exist), else the one cargo
/// built. Every test that runs the binary finds it here.
pub(crate) fn warpcheck_binary() -> std::path::PathBuf {
    std::env::var_os("WARPCHECK_BIN").map_or_else(
        || std::path::PathBuf::from(env!("CARGO_BIN_EXE_warpcheck")),
        std::path::PathBuf::from,
    )
}
