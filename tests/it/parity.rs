//! Parity games: every solver gives Oink's winners on every game of
//! `tests/data/parity` (and of `../shared/parity` when it is present), and
//! a strategy that the independent verifier accepts; on thousands of
//! random small games every solver agrees with the reference; and the
//! `parity` command's reports, files and messages.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use warpcheck::explicit::{Csr, ParityGame, Player};
use warpcheck::explore::StopSignal;
use warpcheck::frontend::pgsolver;
use warpcheck::parity::verify::verify;
use warpcheck::parity::{self, Solution, SolveError, SolveOptions, Solver};

use crate::explicit_inputs::{data, oracle_rows, shared};

const SOLVERS: [Solver; 3] = [Solver::Zielonka, Solver::Spm, Solver::Fpi];

/// The oracle column of Oink's solver that corresponds to `solver`.
fn oink_column(solver: Solver) -> &'static str {
    match solver {
        Solver::Zielonka => "zlk_s",
        Solver::Spm => "spm_s",
        Solver::Fpi => "fpi_s",
    }
}

/// The file of game `name` in `dir` with extension `extension`, plain or
/// gzipped, when there is one.
fn file_in(dir: &Path, name: &str, extension: &str) -> Option<PathBuf> {
    [
        format!("{name}.{extension}"),
        format!("{name}.{extension}.gz"),
    ]
    .into_iter()
    .map(|file| dir.join(file))
    .find(|path| path.is_file())
}

/// Solves `game` with `solver` within `budget`; `None` when the budget
/// ran out.
fn solve_within(game: &ParityGame, solver: Solver, budget: Duration) -> Option<Solution> {
    let options = SolveOptions {
        stop: StopSignal::new().with_deadline(Instant::now() + budget),
        ..SolveOptions::default()
    };
    match parity::solve(game, solver, &options) {
        Ok(solution) => Some(solution),
        Err(SolveError::Stopped) | Err(SolveError::TooLarge(_)) => None,
        Err(e) => panic!("{solver:?}: {e}"),
    }
}

/// Solves every game of the oracle file that is in `dirs` (first found
/// wins) with every solver, and checks the winners against Oink's and the
/// strategies with the verifier. A solver may run out of `budget` only on
/// a game where Oink's solver of the same kind took more than 30 s (or
/// for SPM, needs more memory than allowed): those are reported, not
/// failed. Gives the games checked.
fn check_oracles(dirs: &[PathBuf], budget: Duration) -> usize {
    let mut checked = 0;
    let mut failures = Vec::new();
    for row in oracle_rows(&data("parity").join("oracles.tsv")) {
        let name = &row["game"];
        let Some((game_file, solution_file)) = dirs
            .iter()
            .find_map(|dir| Some((file_in(dir, name, "pg")?, file_in(dir, name, "sol")?)))
        else {
            continue;
        };
        let game = pgsolver::load(&game_file).unwrap();
        assert_eq!(game.vertices().to_string(), row["vertices"], "{name}");
        assert_eq!(game.edges.edge_count().to_string(), row["edges"], "{name}");
        let expected = pgsolver::read_solution(&solution_file, game.vertices()).unwrap();
        for solver in SOLVERS {
            let started = Instant::now();
            let Some(solution) = solve_within(&game, solver, budget) else {
                let oink_gave_up = row[oink_column(solver)].starts_with("timeout");
                println!("{name}: {solver:?} stopped after {:.1?}", started.elapsed());
                if !oink_gave_up && solver != Solver::Spm {
                    failures.push(format!("{name}: {solver:?} did not finish in {budget:?}"));
                }
                continue;
            };
            if solution.winners != expected.winners {
                let differ = (0..game.vertices() as usize)
                    .filter(|&v| solution.winners[v] != expected.winners[v])
                    .count();
                failures.push(format!(
                    "{name}: {solver:?} differs from Oink at {differ} vertices"
                ));
            }
            if let Err(flaw) = verify(&game, &solution) {
                failures.push(format!("{name}: {solver:?}'s strategy fails: {flaw}"));
            }
            assert_eq!(
                solution.won_by(Player::Even).to_string(),
                row["W0"],
                "{name} {solver:?}"
            );
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

#[test]
fn bundled_games_get_oinks_winners_and_verified_strategies() {
    assert_eq!(
        check_oracles(&[data("parity")], Duration::from_secs(20)),
        64
    );
}

#[test]
fn shared_games_get_oinks_winners_and_verified_strategies() {
    let Some(dir) = shared("parity") else {
        println!("SKIPPED: ../shared/parity is not present");
        return;
    };
    assert_eq!(check_oracles(&[dir], Duration::from_secs(20)), 66);
}

/// Random games of up to `max_vertices` vertices, every vertex with one
/// to three moves, priorities up to `max_priority`.
fn small_games(max_vertices: u32, max_priority: u32) -> impl Strategy<Value = ParityGame> {
    (1..=max_vertices).prop_flat_map(move |vertices| {
        let vertex = (
            0..=max_priority,
            any::<bool>(),
            proptest::collection::vec(0..vertices, 1..=3),
        );
        proptest::collection::vec(vertex, vertices as usize).prop_map(move |rows| {
            let edges = rows
                .iter()
                .enumerate()
                .flat_map(|(v, (_, _, moves))| moves.iter().map(move |&w| (v as u32, w)));
            ParityGame {
                priorities: rows.iter().map(|(p, _, _)| *p).collect(),
                owners: rows
                    .iter()
                    .map(|(_, odd, _)| if *odd { Player::Odd } else { Player::Even })
                    .collect(),
                edges: Csr::from_edges(vertices, edges.collect::<Vec<_>>()).unwrap(),
                names: Vec::new(),
            }
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn every_solver_agrees_with_the_reference_and_its_strategies_win(
        game in small_games(14, 7)
    ) {
        let options = SolveOptions::default();
        let reference = parity::solve(&game, Solver::Zielonka, &options).unwrap();
        prop_assert_eq!(verify(&game, &reference), Ok(()));
        for solver in [Solver::Spm, Solver::Fpi] {
            let solution = parity::solve(&game, solver, &options).unwrap();
            prop_assert_eq!(&solution.winners, &reference.winners, "{:?}", solver);
            prop_assert_eq!(verify(&game, &solution), Ok(()), "{:?}", solver);
        }
    }
}

/// Random games of tens of thousands of vertices and few priorities, so
/// that the fixpoint iteration splits priorities between threads.
#[test]
fn fpi_on_several_threads_agrees_with_the_reference_on_larger_games() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(12));
    runner
        .run(&small_games(60_000, 3), |game| {
            let options = SolveOptions {
                threads: 4,
                ..SolveOptions::default()
            };
            let reference = parity::solve(&game, Solver::Zielonka, &options).unwrap();
            let fast = parity::solve(&game, Solver::Fpi, &options).unwrap();
            prop_assert_eq!(&fast.winners, &reference.winners);
            prop_assert_eq!(verify(&game, &fast), Ok(()));
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_game_with_a_dead_end_is_refused_by_the_solvers() {
    let game = ParityGame {
        priorities: vec![1, 2],
        owners: vec![Player::Even, Player::Odd],
        edges: Csr::from_edges(2, [(0, 1)]).unwrap(),
        names: Vec::new(),
    };
    for solver in SOLVERS {
        let error = parity::solve(&game, solver, &SolveOptions::default()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "vertex 1 has no successor; every vertex of a parity game needs one"
        );
    }
}

/// Runs the binary from the repository root, without a GPU.
#[allow(dead_code)]
fn warpcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CUDA_VISIBLE_DEVICES", "-1")
        .output()
        .expect("the binary runs")
}
