//! Small progress measures on the GPU against the CPU: on every game of
//! the parity folder (`$WARPCHECK_PARITY`, else `../shared/parity`, else
//! `tests/data/parity`) Oink's winners, strategies the verifier accepts,
//! and the very solution of the CPU's small progress measures (both
//! compute the least fixpoint and break ties alike); the same on hundreds
//! of random games against the reference; the race of CPU and GPU; the
//! stop signal; and the command line on the GPU. Without a GPU every test
//! prints `SKIPPED: no GPU available (<reason>)` and passes.
//!
//! On the GPU machine: `scripts/gpu_test.sh parity_gpu::` with a copy of
//! `../shared/parity` in `$WARPCHECK_PARITY` and the binary in
//! `$WARPCHECK_BIN`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use warpcheck::explicit::ParityGame;
use warpcheck::explore::StopSignal;
use warpcheck::frontend::pgsolver;
use warpcheck::gpu::Device;
use warpcheck::parity::verify::verify;
use warpcheck::parity::{self, Finisher, Solution, SolveError, SolveOptions, Solver, spm};

use crate::explicit_inputs::{oracle_rows, shared};
use crate::gpu::{binary, with_gpu};
use crate::parity::{file_in, small_games};

/// The folder of games with an `oracles.tsv`: `$WARPCHECK_PARITY`, else
/// `../shared/parity` when present, else the bundled `tests/data/parity`
/// (relative: the tests run from the repository root, here and on the
/// GPU machine).
fn games_folder() -> PathBuf {
    std::env::var_os("WARPCHECK_PARITY")
        .map(PathBuf::from)
        .or_else(|| shared("parity"))
        .unwrap_or_else(|| PathBuf::from("tests/data/parity"))
}

/// Options whose stop signal is set after `budget`.
fn within(budget: Duration) -> SolveOptions {
    SolveOptions {
        stop: StopSignal::new().with_deadline(Instant::now() + budget),
        ..SolveOptions::default()
    }
}

/// The outcome of a solver run within a budget: the solution, `None`
/// when the budget ran out or the measures would not fit, and the time.
fn timed(run: impl FnOnce() -> Result<Solution, SolveError>) -> (Option<Solution>, Duration) {
    let started = Instant::now();
    let solution = match run() {
        Ok(solution) => Some(solution),
        Err(SolveError::Stopped | SolveError::TooLarge(_)) => None,
        Err(e) => panic!("{e}"),
    };
    (solution, started.elapsed())
}

/// Small progress measures without preprocessing on the CPU, then on the
/// GPU; with preprocessing on the GPU. Winners must be Oink's, strategies
/// must verify, and the GPU's solutions must equal the CPU's. The CPU has
/// `CPU_BUDGET`; the GPU max(`GPU_BUDGET`, 20 t) where the CPU finished in
/// t, else `GPU_BUDGET`. The GPU must finish where the CPU took less than
/// `MUST_FINISH`; elsewhere running out is printed, not failed (a launch
/// lifts each vertex once, so SPM may need far more launches than the
/// CPU's work queue needs passes).
#[test]
fn gpu_spm_gets_oinks_winners_and_the_cpus_solution_on_every_game() {
    const CPU_BUDGET: Duration = Duration::from_secs(5);
    const GPU_BUDGET: Duration = Duration::from_secs(10);
    const MUST_FINISH: Duration = Duration::from_millis(500);
    with_gpu(|device| {
        let folder = games_folder();
        let mut failures = Vec::new();
        let (mut games, mut solved_on_gpu) = (0, 0);
        let mut slower = Vec::new();
        for row in oracle_rows(&folder.join("oracles.tsv")) {
            let name = &row["game"];
            let (Some(game_file), Some(solution_file)) =
                (file_in(&folder, name, "pg"), file_in(&folder, name, "sol"))
            else {
                continue;
            };
            games += 1;
            let game = pgsolver::load(&game_file).unwrap();
            let expected = pgsolver::read_solution(&solution_file, game.vertices()).unwrap();
            let check = |solution: &Solution, who: &str, failures: &mut Vec<String>| {
                if solution.winners != expected.winners {
                    failures.push(format!("{name}: {who} differs from Oink's winners"));
                }
                if let Err(flaw) = verify(&game, solution) {
                    failures.push(format!("{name}: {who}'s strategy fails: {flaw}"));
                }
            };
            let (on_cpu, cpu_time) = timed(|| spm::solve(&game, &within(CPU_BUDGET)));
            let gpu_budget = match on_cpu {
                Some(_) => GPU_BUDGET.max(cpu_time * 20),
                None => GPU_BUDGET,
            };
            let (on_gpu, gpu_time) =
                timed(|| parity::gpu::solve(device, &game, &within(gpu_budget)));
            println!(
                "{name}: spm on the cpu {cpu_time:.2?}{}, on the gpu {gpu_time:.2?}{}",
                if on_cpu.is_some() { "" } else { " (stopped)" },
                if on_gpu.is_some() { "" } else { " (stopped)" },
            );
            match (&on_gpu, &on_cpu) {
                (Some(gpu), Some(cpu)) => {
                    check(gpu, "the gpu", &mut failures);
                    if gpu != cpu {
                        failures.push(format!("{name}: the gpu's solution is not the cpu's"));
                    }
                }
                (Some(gpu), None) => check(gpu, "the gpu", &mut failures),
                (None, Some(_)) if cpu_time < MUST_FINISH => failures.push(format!(
                    "{name}: the gpu did not finish in {gpu_budget:.2?}, the cpu in {cpu_time:.2?}"
                )),
                (None, Some(_)) => slower.push(name.clone()),
                (None, None) => {}
            }
            solved_on_gpu += usize::from(on_gpu.is_some());
            let (preprocessed, _) =
                timed(|| parity::solve_on_gpu(&game, device, &within(GPU_BUDGET)));
            match preprocessed {
                Some(solution) => check(&solution, "the gpu after preprocessing", &mut failures),
                None => println!("{name}: the gpu after preprocessing stopped"),
            }
        }
        println!("{solved_on_gpu} of {games} games solved on the gpu");
        println!("run out on the gpu, not on the cpu: {slower:?}");
        assert!(games > 0, "no games in {}", folder.display());
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

/// Checks the GPU's small progress measures on `game`, with and without
/// preprocessing, against the CPU's (the same solutions) and the
/// reference (the same winners), and verifies the strategies.
fn agrees_with_the_cpu(device: &Device, game: &ParityGame) -> Result<(), TestCaseError> {
    let options = SolveOptions::default();
    let reference = parity::solve(game, Solver::Zielonka, &options).unwrap();
    let gpu = parity::gpu::solve(device, game, &options).unwrap();
    prop_assert_eq!(&gpu, &spm::solve(game, &options).unwrap());
    prop_assert_eq!(&gpu.winners, &reference.winners);
    prop_assert_eq!(verify(game, &gpu), Ok(()));
    let preprocessed = parity::solve_on_gpu(game, device, &options).unwrap();
    prop_assert_eq!(
        &preprocessed,
        &parity::solve(game, Solver::Spm, &options).unwrap()
    );
    prop_assert_eq!(verify(game, &preprocessed), Ok(()));
    Ok(())
}

/// Runs `cases` random games of [`small_games`] through `check` on the GPU.
fn on_random_games(
    cases: u32,
    max_vertices: u32,
    max_priority: u32,
    check: impl Fn(&Device, &ParityGame) -> Result<(), TestCaseError>,
) {
    with_gpu(|device| {
        TestRunner::new(ProptestConfig::with_cases(cases))
            .run(&small_games(max_vertices, max_priority), |game| {
                check(device, &game)
            })
            .unwrap();
    });
}

#[test]
fn gpu_spm_equals_the_cpus_on_small_random_games() {
    on_random_games(400, 40, 9, agrees_with_the_cpu);
}

/// Many priorities: wide measures, carries across components.
#[test]
fn gpu_spm_equals_the_cpus_on_random_games_with_many_priorities() {
    on_random_games(150, 60, 40, agrees_with_the_cpu);
}

/// Thousands of vertices: many blocks, and vertices lifted by one launch
/// while their successors change in it.
#[test]
fn gpu_spm_equals_the_cpus_on_larger_random_games() {
    on_random_games(30, 5000, 12, agrees_with_the_cpu);
}

#[test]
fn a_race_of_cpu_and_gpu_gives_the_references_winners_and_a_winning_strategy() {
    on_random_games(100, 40, 9, |device, game| {
        let options = SolveOptions::default();
        let reference = parity::solve(game, Solver::Zielonka, &options).unwrap();
        for solver in [None, Some(Solver::Zielonka), Some(Solver::Spm)] {
            let (solution, finisher) =
                parity::race_cpu_gpu(game, solver, device, &options).unwrap();
            match (finisher, solver) {
                (Finisher::Gpu, _) => {}
                (Finisher::Cpu(ran), Some(asked)) => prop_assert_eq!(ran, asked),
                (Finisher::Cpu(ran), None) => {
                    prop_assert!([Solver::Zielonka, Solver::Tangle].contains(&ran))
                }
            }
            prop_assert_eq!(&solution.winners, &reference.winners);
            prop_assert_eq!(verify(game, &solution), Ok(()));
        }
        Ok(())
    });
}

/// The GPU looks at the stop signal before every batch of launches, and a
/// race stops both sides.
#[test]
fn a_stop_ends_the_gpu_and_the_race() {
    with_gpu(|device| {
        let game = pgsolver::load(&games_folder().join("counter_ortl-20.pg")).unwrap();
        let stopped = SolveOptions::default();
        stopped.stop.request();
        let error = parity::gpu::solve(device, &game, &stopped).unwrap_err();
        assert!(matches!(error, SolveError::Stopped), "{error}");
        let error = parity::solve_on_gpu(&game, device, &stopped).unwrap_err();
        assert!(matches!(error, SolveError::Stopped), "{error}");
        let error = parity::race_cpu_gpu(&game, None, device, &stopped).unwrap_err();
        assert!(matches!(error, SolveError::Stopped), "{error}");
        // After the stops the device still solves.
        let solution = parity::solve_on_gpu(&game, device, &SolveOptions::default()).unwrap();
        assert_eq!(verify(&game, &solution), Ok(()));
    });
}

/// `warpcheck --format json parity specs/parity_example.pg ARGS --verify`
/// with the binary of [`binary`] on the GPU.
fn json_report(args: &[&str]) -> serde_json::Value {
    let output = std::process::Command::new(binary())
        .args([
            "--format",
            "json",
            "parity",
            "specs/parity_example.pg",
            "--verify",
        ])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_cli_solves_on_the_gpu_and_races() {
    with_gpu(|_| {
        for solver in ["auto", "spm"] {
            let report = json_report(&["--engine", "gpu", "--solver", solver]);
            assert_eq!(report["solver"], "spm");
            assert!(report["engine"].as_str().unwrap().starts_with("gpu ("));
            assert_eq!(report["won_by_even"], 7);
            assert_eq!(report["verified"], true);
        }
        let race = json_report(&["--engine", "race"]);
        let winner = race["race_winner"].as_str().unwrap();
        assert!(["cpu", "gpu"].contains(&winner), "{winner}");
        let engine = race["engine"].as_str().unwrap();
        assert!(engine.starts_with("race of cpu and gpu ("), "{engine}");
        assert!(engine.ends_with(" first"), "{engine}");
        assert_eq!(race["won_by_even"], 7);
    });
}
