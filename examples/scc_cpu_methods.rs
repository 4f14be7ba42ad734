//! Times the CPU engine on four generated graphs (a quick local check;
//! scripts/scc_bench.sh is the benchmark): Tarjan, each method's rounds
//! alone on 1 and 2 threads (how they scale), and the engine's race
//! (Tarjan on one thread against the rounds on the other) on 2 threads.
use std::time::Instant;
use warpcheck::scc::cpu::{self, Method};
use warpcheck::scc::{Components, reference};
use warpcheck::testing::graphs;

fn main() {
    let cases = [
        ("random", graphs::random_graph(1_000_000, 5_000_000, 1)),
        ("rmat", graphs::rmat(20, 12_800_000, 2)),
        ("grid", graphs::grid(1000, 1000, 0.5, 3)),
        ("chain", graphs::component_chain(10_000, 10, 4)),
    ];
    for (name, graph) in &cases {
        let t = Instant::now();
        let expected = reference::decompose(graph);
        print!("{name}: tarjan {:.3}", t.elapsed().as_secs_f64());
        for method in [Method::Coloring, Method::ForwardBackward] {
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let t = Instant::now();
                let found = pool.install(|| cpu::representatives(graph, method));
                let seconds = t.elapsed().as_secs_f64();
                assert_eq!(Components::from_representatives(&found), expected);
                print!("  {method:?} rounds x{threads} {seconds:.3}");
            }
            let t = Instant::now();
            let (found, finisher) = cpu::race(graph, method, 2);
            let seconds = t.elapsed().as_secs_f64();
            assert_eq!(found, expected);
            print!("  race x2 {seconds:.3} ({finisher:?})");
        }
        println!();
    }
}
