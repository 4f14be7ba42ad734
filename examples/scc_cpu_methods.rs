//! Times the CPU engine's two methods at 1 and 2 threads against Tarjan
//! on three generated graphs (a quick local check; scripts/scc_bench.sh
//! is the benchmark).
use std::time::Instant;
use warpcheck::scc::cpu::{self, Method};
use warpcheck::scc::reference;
use warpcheck::testing::graphs;

fn main() {
    let cases = [
        ("random", graphs::random_graph(1_000_000, 5_000_000, 1)),
        ("rmat", graphs::rmat(19, 6_400_000, 2)),
        ("grid", graphs::grid(1000, 1000, 0.5, 3)),
        ("chain", graphs::component_chain(10_000, 10, 4)),
    ];
    for (name, graph) in &cases {
        let t = Instant::now();
        let expected = reference::decompose(graph);
        print!("{name}: tarjan {:.3}", t.elapsed().as_secs_f64());
        for method in [Method::Coloring, Method::ForwardBackward] {
            for threads in [1, 2] {
                let t = Instant::now();
                assert_eq!(cpu::decompose(graph, method, threads), expected);
                print!("  {method:?}x{threads} {:.3}", t.elapsed().as_secs_f64());
            }
        }
        println!();
    }
}
