//! The host's cost of looking up kernel modules, without a GPU: the key
//! that the module caches (in memory and on disk) compute for a build,
//! timed for the SCC decomposition's build (31 kernels, the look-ups of
//! one decomposition). Prints the median of 21 samples of 31 keys
//! of one build, and of 31 builds with their keys, in microseconds:
//!
//! ```text
//! cargo run --release --example kernel_keys
//! ```

use std::time::Instant;
use warpcheck::gpu::kernel_cache::KernelCache;
use warpcheck::scc::labels::Labels;

/// Kernels of the SCC decomposition's build: the look-ups of one run.
const LOOKUPS: usize = 31;

fn main() {
    let cache = KernelCache::in_directory(std::env::temp_dir());
    let key = |build: &warpcheck::gpu::Build| {
        cache
            .file_of(build, "sm_90")
            .expect("the kernel sources are readable")
    };
    let build = warpcheck::scc::gpu::build(Labels::Scrambled);
    key(&build);
    let median = |sample: &dyn Fn()| {
        let mut times: Vec<f64> = (0..21)
            .map(|_| {
                let started = Instant::now();
                sample();
                started.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let keys = median(&|| {
        for _ in 0..LOOKUPS {
            key(&build);
        }
    });
    let builds = median(&|| {
        for _ in 0..LOOKUPS {
            key(&warpcheck::scc::gpu::build(Labels::Scrambled));
        }
    });
    println!(
        "{LOOKUPS} keys of one build: {keys:.0} us; {LOOKUPS} builds and keys: {builds:.0} us"
    );
}
