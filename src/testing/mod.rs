//! Generators and checks shared by the integration tests, the benchmarks
//! and the examples: small random networks that exercise every feature of
//! the encoding, scalable families with known state spaces, a check that a
//! finding and its counterexample trace really are a path of the network,
//! and the bundled example and Model Checking Contest models.
//!
//! Compiled only with the `testing` feature, which the package's
//! dev-dependency on itself turns on for `cargo test`, `cargo bench` and
//! the examples; the shipped binary (`cargo build --release`) leaves it out.

mod checks;
pub mod fuzz;
pub mod games;
pub mod graphs;
mod models;
mod networks;

pub use checks::{
    bfs_level_sizes, check_finding, check_lasso, check_path, lts_of, numbering_free_shape,
};
pub use models::{load_mcc_model, mcc_models, spec_checks};
pub use networks::{
    chain, counters, networks, random_network, random_wide_network, wide_networks, widened,
};

/// Says that a test skipped some or all of its work, and why, on standard
/// error past the test harness's capture of `println!`, so that a test
/// that passes without doing its work shows it in every log (CI's and the
/// GPU machine's).
pub fn skipped(reason: std::fmt::Arguments) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {reason}");
}

/// [`skipped`] for a test that needs NVRTC where it cannot be loaded.
pub fn skipped_without_nvrtc() {
    skipped(format_args!(
        "NVRTC cannot be loaded (set LD_LIBRARY_PATH to its lib directory)"
    ));
}
