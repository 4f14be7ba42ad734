//! Writes a DTMC of LAYERS layers of SIZE states as PRISM explicit files
//! OUT.tra and OUT.lab: a state moves to three random states of its own
//! layer (0.25 each), to a random state of the next layer (0.2; from the
//! last layer, to the goal) or to a dead end (0.05). Each layer is, with
//! high probability, one strongly connected component of random short
//! cycles, so the read graph is LAYERS components in a row. Label "goal".
//!
//! `rustc -O --edition 2021 layers.rs && ./layers LAYERS SIZE OUT`

use std::io::{BufWriter, Write};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let layers: u64 = args[1].parse().expect("LAYERS");
    let size: u64 = args[2].parse().expect("SIZE");
    let out = &args[3];
    let states = layers * size + 2;
    let (goal, dead) = (states - 2, states - 1);
    // Two passes with the same draws: the first counts the transitions
    // the header declares (repeated targets merge), the second writes.
    let rows = |mut emit: Box<dyn FnMut(u64, u64, f64) + '_>| {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |bound: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % bound
        };
        for state in 0..goal {
            let layer = state / size;
            let first = layer * size;
            let exit = if layer + 1 == layers { goal } else { first + size + next(size) };
            let mut row = vec![
                (first + next(size), 0.25),
                (first + next(size), 0.25),
                (first + next(size), 0.25),
                (exit, 0.2),
                (dead, 0.05),
            ];
            row.sort_by_key(|&(t, _)| t);
            let mut merged: Vec<(u64, f64)> = Vec::new();
            for (t, p) in row {
                match merged.last_mut() {
                    Some(last) if last.0 == t => last.1 += p,
                    _ => merged.push((t, p)),
                }
            }
            for (t, p) in merged {
                emit(state, t, p);
            }
        }
    };
    let mut transitions = 2u64;
    rows(Box::new(|_, _, _| transitions += 1));
    let file = std::fs::File::create(format!("{out}.tra")).unwrap();
    let mut tra = BufWriter::with_capacity(1 << 24, file);
    writeln!(tra, "{states} {transitions}").unwrap();
    rows(Box::new(|state, t, p| writeln!(tra, "{state} {t} {p}").unwrap()));
    writeln!(tra, "{goal} {goal} 1\n{dead} {dead} 1").unwrap();
    let mut lab = std::fs::File::create(format!("{out}.lab")).unwrap();
    write!(lab, "0=\"init\" 1=\"goal\"\n0: 0\n{goal}: 1\n").unwrap();
}
