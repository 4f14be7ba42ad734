//! Writes a random parity game in PGSolver format to standard output,
//! reproducibly from a seed: every vertex gets a priority drawn from
//! `0..=MAX_PRIORITY`, an owner, and between MIN_DEGREE and MAX_DEGREE
//! distinct successors drawn uniformly (self-loops included). Made for
//! games larger than Oink's `rngame` can make in reasonable time (it took
//! 115 s for 10^6 vertices on the 2-core machine): 10^7 vertices and
//! 10^8 edges (937 MB of text) took 6.4 s there. Uses the generator of
//! `warpcheck::testing::games::random_game`, so a command names one game
//! everywhere.
//!
//! Usage: parity_random VERTICES MAX_PRIORITY MIN_DEGREE MAX_DEGREE SEED

use std::io::{BufWriter, Write};

use warpcheck::frontend::pgsolver::write_game;
use warpcheck::testing::games::random_game;

fn main() -> std::io::Result<()> {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let [vertices, max_priority, min_degree, max_degree, seed] = args[..] else {
        panic!("usage: parity_random VERTICES MAX_PRIORITY MIN_DEGREE MAX_DEGREE SEED");
    };
    let narrow = |n: u64| u32::try_from(n).expect("a number below 2^32");
    let game = random_game(
        narrow(vertices),
        narrow(max_priority),
        narrow(min_degree),
        narrow(max_degree),
        seed,
    );
    let mut out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    write_game(&mut out, &game)?;
    out.flush()
}
