//! Writes a random parity game in PGSolver format to standard output,
//! reproducibly from a seed: every vertex gets a priority drawn from
//! `0..=MAX_PRIORITY`, an owner, and between MIN_DEGREE and MAX_DEGREE
//! distinct successors drawn uniformly (self-loops included). Made for
//! games larger than Oink's `rngame` can make in reasonable time (it took
//! 115 s for 10^6 vertices on the 2-core machine): 10^7 vertices and
//! 10^8 edges (937 MB of text) took 6.4 s there. Uses the generator of
//! `warpcheck::testing::graphs`, so a command names one game everywhere.
//!
//! Usage: parity_random VERTICES MAX_PRIORITY MIN_DEGREE MAX_DEGREE SEED

use std::io::{BufWriter, Write};

use warpcheck::testing::graphs::SplitMix;

fn main() -> std::io::Result<()> {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let [vertices, max_priority, min_degree, max_degree, seed] = args[..] else {
        panic!("usage: parity_random VERTICES MAX_PRIORITY MIN_DEGREE MAX_DEGREE SEED");
    };
    assert!(
        vertices > 0 && 1 <= min_degree && min_degree <= max_degree && max_degree <= vertices,
        "need 1 <= MIN_DEGREE <= MAX_DEGREE <= VERTICES"
    );
    let mut random = SplitMix::new(seed);
    let mut out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    writeln!(out, "parity {};", vertices - 1)?;
    let mut successors = Vec::with_capacity(max_degree as usize);
    for v in 0..vertices {
        let degree = min_degree + random.below(max_degree - min_degree + 1);
        successors.clear();
        while (successors.len() as u64) < degree {
            let w = random.below(vertices);
            if !successors.contains(&w) {
                successors.push(w);
            }
        }
        let priority = random.below(max_priority + 1);
        let owner = random.below(2);
        write!(out, "{v} {priority} {owner} ")?;
        for (i, w) in successors.iter().enumerate() {
            write!(out, "{}{w}", if i == 0 { "" } else { "," })?;
        }
        writeln!(out, ";")?;
    }
    out.flush()
}
