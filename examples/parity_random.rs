//! Writes a random parity game in PGSolver format to standard output,
//! reproducibly from a seed: every vertex gets a priority drawn from
//! `0..=MAX_PRIORITY`, an owner, and between MIN_DEGREE and MAX_DEGREE
//! distinct successors drawn uniformly (self-loops included). Made for
//! games larger than Oink's `rngame` can make in reasonable time (it took
//! 115 s for 10^6 vertices on the 2-core machine): 10^7 vertices and
//! 10^8 edges take about a minute here.
//!
//! Usage: parity_random VERTICES MAX_PRIORITY MIN_DEGREE MAX_DEGREE SEED

use std::io::{BufWriter, Write};

/// SplitMix64: a small generator whose stream is fixed by its seed.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (`bound` > 0), by the multiply-shift
    /// reduction (its bias is below 2^-32 for the bounds used here).
    fn below(&mut self, bound: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(bound)) >> 64) as u64
    }
}

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
    let mut random = SplitMix(seed);
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
