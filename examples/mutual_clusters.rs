//! How much colouring's contraction of mutual edges (`scc::mutual`)
//! shrinks a graph: states, edges, edges whose reverse is an edge too (in
//! any rows, and in rows of at most `SCANNED_ROW`, which contraction looks
//! at), whether the sample says contraction pays, the clusters (roots)
//! and the edges between different clusters; and the states without an
//! edge in or without one out (self-loops aside): where there are none,
//! trimming assigns nothing. For the generated graphs of
//! `scc_bench`, and for each MCC model folder (its state space explored
//! on the CPU) or PRISM `.tra` file (its underlying graph) given.
//!
//! Usage: mutual_clusters [MCC_MODEL_DIR | MODEL.tra ...]
//! (`SCC_BENCH_ONLY=TEXT`: only the generated graphs whose name contains
//! TEXT, as in `scc_bench`.)

use std::path::Path;

use warpcheck::explicit::{Csr, LabelledGraphBuilder};
use warpcheck::explore::{SearchOptions, cpu as cpu_explore};
use warpcheck::frontend::prism;
use warpcheck::scc::mutual;
use warpcheck::testing::{self, graphs};

fn main() {
    println!(
        "graph\tstates\tedges\tmutual_edges\tmutual_in_short_rows\tcontracts\tclusters\tedges_between_clusters\tno_edge_in_or_out"
    );
    let only = std::env::var("SCC_BENCH_ONLY").unwrap_or_default();
    let generated = graphs::benchmark_graphs(1);
    for (name, make) in generated.iter().filter(|(name, _)| name.contains(&only)) {
        report(name, &make());
    }
    for input in std::env::args().skip(1) {
        let path = Path::new(&input);
        let graph = if input.ends_with(".tra") || input.ends_with(".tra.gz") {
            prism::load(path, None, None)
                .unwrap_or_else(|e| panic!("{input}: {e}"))
                .model
                .underlying_graph()
        } else {
            let net = testing::load_mcc_model(path);
            let mut builder = LabelledGraphBuilder::new(net.actions.clone());
            let options = Default::default();
            cpu_explore::explore_into(&net, &SearchOptions::default(), &options, &mut builder)
                .unwrap();
            builder.into_graph().expect("a complete exploration").edges
        };
        let name = path.file_name().unwrap().to_string_lossy();
        report(&name, &graph);
    }
}

/// One line of figures for `graph`.
fn report(name: &str, graph: &Csr) {
    let reverse_in_row = |from: u32, to: u32| from != to && graph.successors(to).contains(&from);
    let (mut mutual, mut short) = (0u64, 0u64);
    for (from, to) in graph.edges() {
        mutual += u64::from(reverse_in_row(from, to));
        short += u64::from(mutual::has_reverse(graph, from, to));
    }
    let roots = mutual::roots(graph);
    let clusters = roots
        .iter()
        .enumerate()
        .filter(|&(s, &r)| r as usize == s)
        .count();
    let between = graph
        .edges()
        .filter(|&(from, to)| roots[from as usize] != roots[to as usize])
        .count();
    let alone = graphs::in_out_degrees(graph)
        .iter()
        .filter(|d| d.contains(&0))
        .count();
    println!(
        "{name}\t{}\t{}\t{mutual}\t{short}\t{}\t{clusters}\t{between}\t{alone}",
        graph.states(),
        graph.edge_count(),
        mutual::worth_contracting(graph),
    );
}
