//! Forward-backward rounds of the CPU SCC engine (its default method)
//! on 1 and 2 threads, alternating, 5 times: R-MAT 2^20 (`rmat`) or the
//! random graph of 10^6 states and 5*10^6 edges (`random`), the graphs of
//! examples/scc_cpu_methods.rs. Copied into examples/ by run.sh.
use std::time::Instant;
use warpcheck::scc::cpu::{self, Method};
use warpcheck::testing::graphs;
fn main() {
    let which = std::env::args().nth(1).unwrap_or("rmat".into());
    let graph = match which.as_str() {
        "rmat" => graphs::rmat(20, 12_800_000, 2),
        _ => graphs::random_graph(1_000_000, 5_000_000, 1),
    };
    let pools: Vec<_> = [1, 2].iter().map(|&t| rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap()).collect();
    for rep in 0..5 {
        for (k, pool) in pools.iter().enumerate() {
            let t = Instant::now();
            let _ = pool.install(|| cpu::representatives(&graph, Method::ForwardBackward));
            print!("{which} rep {rep} x{} {:.3}  ", k + 1, t.elapsed().as_secs_f64());
        }
        println!();
    }
}
