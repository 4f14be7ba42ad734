//! Writes one of the propagation games of Bootsma's thesis (section 8.1
//! of `../shared/papers/parity-spm-gpu-*`) in PGSolver format to standard
//! output: games made so that small progress measures must lift most
//! vertices many times whatever the order, where a GPU's rounds of lifts
//! should pay. The shapes are described at
//! `warpcheck::testing::games::propagation_paths` and `propagation_tree`.
//!
//! Usage: parity_propagation paths PATHS LENGTH | tree LEVELS FANOUT
//! (the thesis's `prop50_1k` is `paths 50 1000`, its `tprop21` `tree 22 2`)

use std::io::{BufWriter, Write};

use warpcheck::frontend::pgsolver::write_game;
use warpcheck::testing::games::{propagation_paths, propagation_tree};

const USAGE: &str = "usage: parity_propagation paths PATHS LENGTH | tree LEVELS FANOUT";

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| -> u32 { args.get(i).and_then(|a| a.parse().ok()).expect(USAGE) };
    let game = match args.first().map(String::as_str) {
        Some("paths") => propagation_paths(number(1), number(2)),
        Some("tree") => propagation_tree(number(1), number(2)),
        _ => panic!("{USAGE}"),
    };
    let mut out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    write_game(&mut out, &game)?;
    out.flush()
}
