//! How late each parity solver returns once stopped: the stop signal is
//! given a deadline of 5, 10, 20, 40 and 80 ms into the solve, and the
//! time from the deadline to the solver's return is printed (`done`
//! where it finished first). A late return delays a race's result where
//! the race waits for its losers, and `--timeout`.
//!
//! Usage: parity_stop_latency GAME [THREADS] (THREADS: those of
//! `SolveOptions`, 0 for every core; `auto` races its solvers at once
//! from 4)

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use warpcheck::explore::StopSignal;
use warpcheck::frontend::pgsolver;
use warpcheck::parity::{self, SolveOptions, Solver};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    assert!(
        !args.is_empty(),
        "usage: parity_stop_latency GAME [THREADS]"
    );
    let game = Arc::new(pgsolver::load(Path::new(&args[0])).expect("a game"));
    let threads = args
        .get(1)
        .map_or(0, |t| t.parse().expect("a number of threads"));
    let solvers = [
        None,
        Some(Solver::Pp),
        Some(Solver::Tangle),
        Some(Solver::Zielonka),
    ];
    for solver in solvers {
        let solve = |stop: StopSignal| {
            let options = SolveOptions {
                threads,
                stop,
                ..SolveOptions::default()
            };
            match solver {
                Some(solver) => parity::solve(&game, solver, &options),
                None => parity::solve_auto(&game, &options).map(|(solution, _)| solution),
            }
        };
        let started = Instant::now();
        solve(StopSignal::new()).expect("solved");
        let whole = started.elapsed();
        let late: Vec<String> = [5, 10, 20, 40, 80]
            .into_iter()
            .map(|ms| {
                let started = Instant::now();
                let deadline = started + Duration::from_millis(ms);
                let done = solve(StopSignal::new().with_deadline(deadline)).is_ok();
                let late = started.elapsed().saturating_sub(Duration::from_millis(ms));
                let done = if done { " done" } else { "" };
                format!("{ms} ms: {:.1} ms{done}", late.as_secs_f64() * 1e3)
            })
            .collect();
        let name = solver.map_or("auto", |s| s.name());
        println!(
            "{name}: whole {:.3} s; late by {}",
            whole.as_secs_f64(),
            late.join(", ")
        );
        parity::wait_for_stopped_contestants();
    }
}
