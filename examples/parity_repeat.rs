//! Solves one parity game again and again in one process, so that the
//! solvers' times can be compared without parsing the game each time:
//! the rounds interleave the solvers (each round runs every solver once),
//! and the least and the median time of each are printed, tab-separated.
//! Every solution's winners are checked against the first solver's, and
//! its strategies with `verify`.
//!
//! Usage: parity_repeat GAME RUNS SOLVER... (SOLVER: `auto` or a name of
//! `--solver`: zielonka, spm, fpi, tangle, pp)

use std::path::Path;
use std::time::{Duration, Instant};

use warpcheck::frontend::pgsolver;
use warpcheck::parity::{self, Solution, SolveOptions, Solver, verify::verify};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    assert!(args.len() >= 3, "usage: parity_repeat GAME RUNS SOLVER...");
    let game = std::sync::Arc::new(pgsolver::load(Path::new(&args[0])).expect("a game"));
    let runs: usize = args[1].parse().expect("a number of runs");
    let solvers: Vec<Option<Solver>> = args[2..]
        .iter()
        .map(|name| match name.as_str() {
            "auto" => None,
            "zielonka" => Some(Solver::Zielonka),
            "spm" => Some(Solver::Spm),
            "fpi" => Some(Solver::Fpi),
            "tangle" => Some(Solver::Tangle),
            "pp" => Some(Solver::Pp),
            other => panic!("unknown solver {other}"),
        })
        .collect();
    let options = SolveOptions::default();
    let mut times = vec![Vec::new(); solvers.len()];
    let mut first: Option<Solution> = None;
    for _ in 0..runs {
        for (i, solver) in solvers.iter().enumerate() {
            let started = Instant::now();
            let solution = match solver {
                Some(solver) => parity::solve(&game, *solver, &options).expect("solved"),
                None => parity::solve_auto(&game, &options).expect("solved").0,
            };
            times[i].push(started.elapsed());
            verify(&game, &solution).expect("winning strategies");
            match &first {
                Some(reference) => {
                    assert_eq!(reference.winners, solution.winners, "{}", args[i + 2])
                }
                None => first = Some(solution),
            }
        }
    }
    println!("solver\tleast_s\tmedian_s");
    for (name, mut times) in args[2..].iter().zip(times) {
        times.sort();
        let seconds = |t: Duration| t.as_secs_f64();
        println!(
            "{name}\t{:.6}\t{:.6}",
            seconds(times[0]),
            seconds(times[times.len() / 2])
        );
    }
}
