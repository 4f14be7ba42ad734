//! Colouring's rounds alone with each kind of labels ([`Labels`]), side by
//! side on the current machine: the CPU engine's colouring on 2 threads,
//! scrambled and numbered labels taking turns, on `.aut` graphs given as
//! arguments (each also numbered at random, as the GPU explorer's table
//! slots number a state space) and on three generated graphs; with what
//! the sample of the edges shows and which labels it chooses. Every
//! partition is checked against Tarjan's.
//!
//! ```text
//! warpcheck explore model.pnml --write-aut /tmp/model.aut
//! cargo run --release --example scc_labels -- /tmp/model.aut
//! ```

use std::time::Instant;

use warpcheck::explicit::Csr;
use warpcheck::scc::labels::{self, Labels};
use warpcheck::scc::{Components, cpu, reference};
use warpcheck::testing::graphs;

/// Runs of each kind of labels, taking turns.
const RUNS: usize = 3;

fn main() {
    let mut cases: Vec<(String, Csr)> = Vec::new();
    for path in std::env::args().skip(1) {
        let graph = match warpcheck::frontend::aut::load_graph(std::path::Path::new(&path)) {
            Ok(graph) => graph.edges,
            Err(error) => {
                eprintln!("{error}");
                std::process::exit(1);
            }
        };
        cases.push((format!("{path} permuted"), graphs::permuted(&graph, 7)));
        cases.push((path, graph));
    }
    cases.push((
        "random 10^6".into(),
        graphs::random_graph(1_000_000, 5_000_000, 1),
    ));
    cases.push(("rmat 2^20".into(), graphs::rmat(20, 12_800_000, 2)));
    cases.push(("grid 1000x1000".into(), graphs::grid(1000, 1000, 0.5, 3)));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a pool of 2 threads");
    println!("graph\tsampled\tnear\tfrom_hubs\tchosen\tscrambled_s\tnumbers_s\tratio");
    for (name, graph) in &cases {
        let expected = reference::decompose(graph);
        let mut seconds = [Vec::new(), Vec::new()];
        for _ in 0..RUNS {
            for (slot, labels) in [Labels::Scrambled, Labels::Numbers].into_iter().enumerate() {
                let started = Instant::now();
                let found = pool.install(|| cpu::representatives_with_labels(graph, labels));
                seconds[slot].push(started.elapsed().as_secs_f64());
                assert_eq!(Components::from_representatives(&found), expected, "{name}");
            }
        }
        let median = |times: &mut Vec<f64>| {
            times.sort_by(f64::total_cmp);
            times[times.len() / 2]
        };
        let (scrambled, numbers) = (median(&mut seconds[0]), median(&mut seconds[1]));
        let sample = labels::sample(graph);
        println!(
            "{name}\t{}\t{}\t{}\t{:?}\t{scrambled:.3}\t{numbers:.3}\t{:.2}",
            sample.edges,
            sample.near,
            sample.from_hubs,
            Labels::from_sample(sample),
            scrambled / numbers
        );
    }
}
