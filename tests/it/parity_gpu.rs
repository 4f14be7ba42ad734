//! Small progress measures on the GPU against the CPU: on every game of
//! the parity folder (`$WARPCHECK_PARITY`, else `../shared/parity`, else
//! `tests/data/parity`) Oink's winners, strategies the verifier accepts,
//! and the very solution of the CPU's small progress measures (both
//! compute the least fixpoint and break ties alike); the same on hundreds
//! of random games against the reference; the race of CPU and GPU; the
//! stop signal; and the command line on the GPU. Without a GPU every test
//! prints `SKIPPED: no GPU available (<reason>)` and passes.
//!
//! Small progress measures can take very long on games of a few thousand
//! vertices, on the CPU and more so on the GPU, so every solver call runs
//! within a budget ([`within`]): what the GPU must finish (where the CPU
//! was quick) is asserted, what runs out elsewhere is printed.
//!
//! On the GPU machine: `scripts/gpu_test.sh parity_gpu::` with a copy of
//! `../shared/parity` in `$WARPCHECK_PARITY` and the binary in
//! `$WARPCHECK_BIN`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use warpcheck::explicit::{Csr, ParityGame, Player};
use warpcheck::explore::StopSignal;
use warpcheck::frontend::pgsolver;
use warpcheck::gpu::Device;
use warpcheck::parity::spm;
use warpcheck::parity::verify::verify;
use warpcheck::parity::{self, Finisher, Solution, SolveError, SolveOptions, Solver};

use crate::explicit_inputs::{oracle_rows, shared};
use crate::gpu::with_gpu;
use crate::parity::file_in;
use warpcheck::testing::games::{
    games_with_hubs, propagation_paths, propagation_tree, small_games,
};

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

/// How long the GPU may take on a game the CPU solved in `cpu_time`, or
/// ran out on (`None`): 20 times the CPU's time, at least `floor`.
fn gpu_budget(cpu_time: Option<Duration>, floor: Duration) -> Duration {
    cpu_time.map_or(floor, |time| floor.max(time * 20))
}

/// Where the CPU took less than this, the GPU must finish within
/// [`gpu_budget`].
const MUST_FINISH: Duration = Duration::from_millis(200);
/// On random games, at most this share of the GPU runs (with and without
/// preprocessing) may run out of their budgets where the CPU's finished.
const MAY_RUN_OUT: f64 = 0.1;

/// Small progress measures without preprocessing on the CPU, then on the
/// GPU, and both with shortcuts; with preprocessing on the GPU. Winners
/// must be Oink's, strategies must verify, and the GPU's solutions must
/// equal the CPU's. The CPU has
/// `CPU_BUDGET`, the GPU [`gpu_budget`] (floor `CPU_BUDGET`) with and
/// without preprocessing. The GPU must finish where the CPU took less than
/// [`MUST_FINISH`]; elsewhere running out is printed, not failed (SPM
/// lifts one step a round along a cycle, so the GPU can need millions of
/// rounds where the CPU's work queue is quick).
#[test]
fn gpu_spm_gets_oinks_winners_and_the_cpus_solution_on_every_game() {
    const CPU_BUDGET: Duration = Duration::from_secs(2);
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
            let plain_budget = gpu_budget(on_cpu.as_ref().map(|_| cpu_time), CPU_BUDGET);
            let (on_gpu, gpu_time) =
                timed(|| parity::gpu::solve(device, &game, &within(plain_budget)));
            println!(
                "{name}: spm on the cpu {cpu_time:.2?}{}, on the gpu {gpu_time:.2?}{}",
                if on_cpu.is_some() { "" } else { " (stopped)" },
                if on_gpu.is_some() { "" } else { " (stopped)" },
            );
            // A GPU run (`who`) beside the CPU's of the same solver: what it
            // finds must be Oink's and the CPU's solution, and it must finish
            // within `budget` where the CPU took less than MUST_FINISH. Gives
            // whether it ran out where the CPU finished (too slow, not wrong).
            let against_the_cpu = |who: &str,
                                   gpu: &Option<Solution>,
                                   cpu: &Option<Solution>,
                                   (budget, cpu_time): (Duration, Duration),
                                   failures: &mut Vec<String>| {
                match (gpu, cpu) {
                    (Some(gpu), cpu) => {
                        check(gpu, who, failures);
                        if cpu.as_ref().is_some_and(|cpu| gpu != cpu) {
                            failures.push(format!("{name}: {who}: the solution is not the cpu's"));
                        }
                        false
                    }
                    (None, Some(_)) if cpu_time < MUST_FINISH => {
                        failures.push(format!(
                            "{name}: {who} did not finish in {budget:.2?}, the cpu in {cpu_time:.2?}"
                        ));
                        false
                    }
                    (None, cpu) => cpu.is_some(),
                }
            };
            if against_the_cpu(
                "the gpu",
                &on_gpu,
                &on_cpu,
                (plain_budget, cpu_time),
                &mut failures,
            ) {
                slower.push(name.clone());
            }
            solved_on_gpu += usize::from(on_gpu.is_some());
            let (cpu_shortcuts, cpu_time) =
                timed(|| spm::solve(&game, &with_shortcuts(&within(CPU_BUDGET))));
            let shortcuts_budget = gpu_budget(cpu_shortcuts.as_ref().map(|_| cpu_time), CPU_BUDGET);
            let (gpu_shortcuts, _) = timed(|| {
                parity::gpu::solve(device, &game, &with_shortcuts(&within(shortcuts_budget)))
            });
            if against_the_cpu(
                "the gpu with shortcuts",
                &gpu_shortcuts,
                &cpu_shortcuts,
                (shortcuts_budget, cpu_time),
                &mut failures,
            ) {
                slower.push(format!("{name} with shortcuts"));
            }
            let (preprocessed, _) =
                timed(|| on_gpu_with(device, &game, Solver::Spm, &within(plain_budget)));
            match preprocessed {
                Some(solution) => check(&solution, "the gpu after preprocessing", &mut failures),
                None => println!("{name}: the gpu after preprocessing stopped"),
            }
            let (rest_by_pp, _) =
                timed(|| on_gpu_with(device, &game, Solver::Pp, &within(CPU_BUDGET)));
            match rest_by_pp {
                Some(solution) => {
                    check(&solution, "pp after the gpu's preprocessing", &mut failures)
                }
                None => failures.push(format!("{name}: pp after the gpu's preprocessing stopped")),
            }
        }
        println!("{solved_on_gpu} of {games} games solved on the gpu");
        println!("run out on the gpu, not on the cpu: {slower:?}");
        assert!(games > 0, "no games in {}", folder.display());
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

/// Checks the GPU's small progress measures on `game`, with and without
/// preprocessing and with shortcuts, against the CPU's (the same
/// solutions) and the reference (the same winners), and verifies the
/// strategies ([`compare_runs`]). Gives the GPU runs that ran out where
/// the CPU's finished.
fn agrees_with_the_cpu(
    device: &Device,
    game: &ParityGame,
    cpu_budget: Duration,
) -> Result<usize, TestCaseError> {
    let reference = parity::solve(game, Solver::Zielonka, &within(cpu_budget)).unwrap();
    let plain = plain_spm_agrees(device, game, &reference, cpu_budget)?;
    let preprocessed = compare_runs(
        "spm after preprocessing",
        game,
        &reference,
        cpu_budget,
        Moves::MayDiffer,
        |options| parity::solve(game, Solver::Spm, options),
        |options| on_gpu_with(device, game, Solver::Spm, options),
    )?;
    let with_shortcuts = compare_runs(
        "spm with shortcuts",
        game,
        &reference,
        cpu_budget,
        Moves::Same,
        |options| spm::solve(game, &with_shortcuts(options)),
        |options| parity::gpu::solve(device, game, &with_shortcuts(options)),
    )?;
    Ok(plain + preprocessed + with_shortcuts)
}

/// [`compare_runs`] of small progress measures on the whole game, without
/// shortcuts: the GPU's solution must be the CPU's.
fn plain_spm_agrees(
    device: &Device,
    game: &ParityGame,
    reference: &Solution,
    cpu_budget: Duration,
) -> Result<usize, TestCaseError> {
    compare_runs(
        "spm",
        game,
        reference,
        cpu_budget,
        Moves::Same,
        |options| spm::solve(game, options),
        |options| parity::gpu::solve(device, game, options),
    )
}

/// `options` with shortcuts over chains of one-move vertices.
fn with_shortcuts(options: &SolveOptions) -> SolveOptions {
    SolveOptions {
        shortcuts: true,
        ..options.clone()
    }
}

/// The GPU runs that [`agrees_with_the_cpu`] makes of a game.
const GPU_RUNS_PER_GAME: usize = 3;

/// Whether two solvers must choose the same moves: small progress
/// measures on the CPU and the GPU must, but the preprocessing on the GPU
/// reaches vertices in another order than the CPU's.
#[derive(Clone, Copy, PartialEq)]
enum Moves {
    Same,
    MayDiffer,
}

/// [`parity::solve_on_gpu`] with `rest` for the rest, without the rest's
/// solver.
fn on_gpu_with(
    device: &Device,
    game: &ParityGame,
    rest: Solver,
    options: &SolveOptions,
) -> Result<Solution, SolveError> {
    parity::solve_on_gpu(game, device, Some(rest), options).map(|(solution, _)| solution)
}

/// Runs `on_cpu` within `cpu_budget`, then `on_gpu` within [`gpu_budget`]
/// (floor `cpu_budget`): where both finished, both solutions must be
/// equal ([`Moves::Same`]) or have the same winners, and each one found
/// must have the winners of `reference` and a strategy that verifies. Prints the runs that ran out, and gives 1 where the GPU
/// ran out and the CPU did not (on random games the GPU's rounds can take
/// 20 times the CPU's work queue even where the CPU is fast:
/// [`on_random_games`] bounds how often).
fn compare_runs(
    what: &str,
    game: &ParityGame,
    reference: &Solution,
    cpu_budget: Duration,
    moves: Moves,
    on_cpu: impl FnOnce(&SolveOptions) -> Result<Solution, SolveError>,
    on_gpu: impl FnOnce(&SolveOptions) -> Result<Solution, SolveError>,
) -> Result<usize, TestCaseError> {
    let (cpu, cpu_time) = timed(|| on_cpu(&within(cpu_budget)));
    let budget = gpu_budget(cpu.as_ref().map(|_| cpu_time), cpu_budget);
    let (gpu, gpu_time) = timed(|| on_gpu(&within(budget)));
    let vertices = game.vertices();
    if cpu.is_none() || gpu.is_none() {
        println!(
            "{what} on {vertices} vertices: cpu {cpu_time:.2?}{}, gpu {gpu_time:.2?}{}",
            if cpu.is_some() { "" } else { " (ran out)" },
            if gpu.is_some() { "" } else { " (ran out)" },
        );
    }
    if let (Some(gpu), Some(cpu), Moves::Same) = (&gpu, &cpu, moves) {
        prop_assert_eq!(gpu, cpu, "{}", what);
    }
    for solution in gpu.iter().chain(&cpu) {
        prop_assert_eq!(&solution.winners, &reference.winners, "{}", what);
        prop_assert_eq!(verify(game, solution), Ok(()), "{}", what);
    }
    Ok(usize::from(gpu.is_none() && cpu.is_some()))
}

/// Runs `cases` random games of `games` (e.g. [`small_games`]) through
/// `check` on the GPU and prints how many GPU runs ran out where the CPU's
/// finished: at most [`MAY_RUN_OUT`] of the [`GPU_RUNS_PER_GAME`] runs a
/// game makes.
fn on_random_games(
    cases: u32,
    games: impl Strategy<Value = ParityGame>,
    check: impl Fn(&Device, &ParityGame) -> Result<usize, TestCaseError>,
) {
    with_gpu(|device| {
        let ran_out = std::cell::Cell::new(0);
        let started = Instant::now();
        TestRunner::new(ProptestConfig::with_cases(cases))
            .run(&games, |game| {
                ran_out.set(ran_out.get() + check(device, &game)?);
                Ok(())
            })
            .unwrap();
        println!(
            "{cases} games in {:.2?}; GPU runs that ran out where the CPU's finished: {}",
            started.elapsed(),
            ran_out.get()
        );
        let runs = GPU_RUNS_PER_GAME * cases as usize;
        assert!(
            ran_out.get() as f64 <= MAY_RUN_OUT * runs as f64,
            "{} of {runs} runs ran out",
            ran_out.get()
        );
    });
}

#[test]
fn gpu_spm_equals_the_cpus_on_small_random_games() {
    on_random_games(400, small_games(40, 9), |device, game| {
        agrees_with_the_cpu(device, game, Duration::from_secs(10))
    });
}

/// Many priorities: wide measures, carries across components.
#[test]
fn gpu_spm_equals_the_cpus_on_random_games_with_many_priorities() {
    on_random_games(150, small_games(60, 40), |device, game| {
        agrees_with_the_cpu(device, game, Duration::from_secs(10))
    });
}

/// Vertices with more moves or predecessors than a warp has lanes, which
/// a whole warp lifts in the grid-wide launches, its lanes choosing among
/// moves of their own (as the tiles of the one block do), with measures
/// of a few components, more, and more than a tile holds.
#[test]
fn gpu_spm_equals_the_cpus_on_games_with_heavy_vertices() {
    for max_priority in [3, 12, 80] {
        on_random_games(60, games_with_hubs(60, max_priority), |device, game| {
            agrees_with_the_cpu(device, game, Duration::from_secs(10))
        });
    }
}

/// Thousands of vertices: grid-wide launches and the one block's lists,
/// switching between them. Some of these games take the CPU's small
/// progress measures tens of seconds: each run has a second.
#[test]
fn gpu_spm_equals_the_cpus_on_larger_random_games() {
    on_random_games(30, small_games(5000, 12), |device, game| {
        agrees_with_the_cpu(device, game, Duration::from_secs(1))
    });
}

/// The propagation games of Bootsma's thesis, which the preprocessing
/// solves whole: small progress measures on the GPU must give the CPU's
/// solution, alone and through `solve_on_gpu` without preprocessing (the
/// path of `--engine gpu --no-preprocessing`), within the budget.
#[test]
fn gpu_spm_equals_the_cpus_on_propagation_games() {
    with_gpu(|device| {
        let budget = Duration::from_secs(20);
        let whole = |options: &SolveOptions| SolveOptions {
            skip_preprocessing: true,
            ..options.clone()
        };
        let games = [
            propagation_paths(6, 40),
            propagation_paths(50, 1000),
            propagation_tree(10, 2),
            propagation_tree(16, 2),
            propagation_tree(6, 5),
        ];
        for game in &games {
            let reference = parity::solve(game, Solver::Zielonka, &within(budget)).unwrap();
            let plain = plain_spm_agrees(device, game, &reference, budget).unwrap();
            let unprocessed = compare_runs(
                "spm without preprocessing",
                game,
                &reference,
                budget,
                Moves::Same,
                |options| parity::solve(game, Solver::Spm, &whole(options)),
                |options| on_gpu_with(device, game, Solver::Spm, &whole(options)),
            )
            .unwrap();
            assert_eq!(plain + unprocessed, 0, "{} vertices", game.vertices());
        }
    });
}

/// The GPU's preprocessing with every solver for the rest (and `auto`):
/// the reference's winners, and strategies that verify.
#[test]
fn the_gpus_preprocessing_with_any_rest_solver_gets_the_references_winners() {
    on_random_games(200, small_games(60, 12), |device, game| {
        let options = within(Duration::from_secs(10));
        let reference = parity::solve(game, Solver::Zielonka, &options).unwrap();
        let rests = [Solver::Pp, Solver::Tangle, Solver::Fpi, Solver::Zielonka];
        for rest in rests.map(Some).into_iter().chain([None]) {
            let (solution, used) = parity::solve_on_gpu(game, device, rest, &options).unwrap();
            if let (Some(used), Some(asked)) = (used, rest) {
                prop_assert_eq!(used, asked);
            }
            prop_assert_eq!(&solution.winners, &reference.winners, "{:?}", rest);
            prop_assert_eq!(verify(game, &solution), Ok(()), "{:?}", rest);
        }
        Ok(0)
    });
}

/// A random game of `vertices` vertices in the manner of Oink's
/// `rngame`: priorities up to `max_priority`, random owners, one to
/// three moves to random vertices (seeded by `seed`).
fn rngame(vertices: u32, max_priority: u32, seed: u64) -> ParityGame {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move |bound: u32| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % u64::from(bound)) as u32
    };
    let mut edges = Vec::new();
    let (mut priorities, mut owners) = (Vec::new(), Vec::new());
    for v in 0..vertices {
        priorities.push(next(max_priority + 1));
        owners.push(if next(2) == 0 {
            Player::Even
        } else {
            Player::Odd
        });
        let mut targets: Vec<u32> = (0..=next(3)).map(|_| next(vertices)).collect();
        targets.sort_unstable();
        targets.dedup();
        edges.extend(targets.into_iter().map(|w| (v, w)));
    }
    ParityGame {
        priorities,
        owners,
        edges: Csr::from_edges(vertices, edges).unwrap(),
        names: Vec::new(),
    }
}

/// Random games of 10^5 to 10^6 vertices, whose attractors run in waves
/// over the whole grid: the GPU's preprocessing and priority promotion
/// after it give priority promotion's winners on the CPU, with strategies
/// that verify.
#[test]
fn the_gpus_preprocessing_solves_large_random_games() {
    with_gpu(|device| {
        for (vertices, max_priority, seed) in [
            (100_000, 10, 1),
            (300_000, 100, 2),
            (1_000_000, 1_000_000, 3),
        ] {
            let game = rngame(vertices, max_priority, seed);
            let options = within(Duration::from_secs(60));
            let started = Instant::now();
            let on_cpu = parity::solve(&game, Solver::Pp, &options).unwrap();
            let cpu_time = started.elapsed();
            let started = Instant::now();
            let (on_gpu, used) =
                parity::solve_on_gpu(&game, device, Some(Solver::Pp), &options).unwrap();
            println!(
                "rngame {vertices} {max_priority}: pp on the cpu {cpu_time:.2?}, \
                 the gpu's preprocessing and pp {:.2?} (rest solved: {})",
                started.elapsed(),
                used.is_some()
            );
            assert_eq!(
                on_gpu.winners, on_cpu.winners,
                "rngame {vertices} {max_priority}"
            );
            assert_eq!(
                verify(&game, &on_gpu),
                Ok(()),
                "rngame {vertices} {max_priority}"
            );
        }
    });
}

#[test]
fn a_race_of_cpu_and_gpu_gives_the_references_winners_and_a_winning_strategy() {
    on_random_games(100, small_games(40, 9), |device, game| {
        let options = within(Duration::from_secs(10));
        let reference = parity::solve(game, Solver::Zielonka, &options).unwrap();
        let shared = Arc::new(game.clone());
        let cases = [None, Some(Solver::Zielonka), Some(Solver::Spm)]
            .into_iter()
            .flat_map(|solver| [(solver, Some(Solver::Spm)), (solver, solver)]);
        for (solver, gpu_rest) in cases {
            // As `--engine auto` races: the GPU after a head start.
            let head_start = match solver {
                None => parity::GPU_HEAD_START,
                Some(_) => Duration::ZERO,
            };
            let (solution, finisher) =
                parity::race_cpu_gpu(&shared, solver, gpu_rest, head_start, device, &options)
                    .unwrap();
            let is_asked = |ran: Solver, asked: Option<Solver>| match asked {
                Some(asked) => ran == asked,
                None => parity::AUTO_RACE_AT_ONCE.contains(&ran),
            };
            match finisher {
                Finisher::Gpu(None) => {}
                Finisher::Gpu(Some(ran)) => prop_assert!(is_asked(ran, gpu_rest), "{ran:?}"),
                Finisher::Cpu(ran) => prop_assert!(is_asked(ran, solver), "{ran:?}"),
            }
            prop_assert_eq!(&solution.winners, &reference.winners);
            prop_assert_eq!(verify(game, &solution), Ok(()));
        }
        Ok(0)
    });
}

/// `copies` disjoint copies of `game`.
fn copies(game: &ParityGame, copies: u32) -> ParityGame {
    let vertices = game.vertices();
    let edges: Vec<(u32, u32)> = (0..copies)
        .flat_map(|copy| {
            let shift = copy * vertices;
            game.edges.edges().map(move |(v, w)| (v + shift, w + shift))
        })
        .collect();
    ParityGame {
        priorities: game.priorities.repeat(copies as usize),
        owners: game.owners.repeat(copies as usize),
        edges: Csr::from_edges(vertices * copies, edges).unwrap(),
        names: Vec::new(),
    }
}

/// The GPU looks at the stop signal before every batch of launches, and a
/// race stops both sides: a stop set before the start ends every solver at
/// once; a deadline reached during a long run ends the GPU's within
/// `LATE` past it (batches take about [`parity::gpu::BATCH_TIME`]) and a
/// race's within `LATE` plus the race's wait between two looks at the
/// signal (0.1 s). counter_rr-20 takes the CPU's small progress measures
/// more than 20 s: on it alone the GPU lifts in one block, on 2000 copies
/// of it (160000 vertices) in grid-wide launches.
#[test]
fn a_stop_ends_the_gpu_and_the_race() {
    with_gpu(|device| {
        let game = pgsolver::load(&games_folder().join("counter_rr-20.pg")).unwrap();
        stops_in_time(device, &game, "counter_rr-20");
        stops_in_time(device, &copies(&game, 2000), "2000 copies of counter_rr-20");
        // After the stops the device still solves.
        let small = pgsolver::load(&games_folder().join("counter_m-20.pg")).unwrap();
        let solution = on_gpu_with(
            device,
            &small,
            Solver::Spm,
            &within(Duration::from_secs(10)),
        )
        .unwrap();
        assert_eq!(verify(&small, &solution), Ok(()));
    });
}

/// The checks of [`a_stop_ends_the_gpu_and_the_race`] on `game` (`name`
/// in messages), which the GPU must not solve in `DEADLINE`.
fn stops_in_time(device: &Device, game: &ParityGame, name: &str) {
    const DEADLINE: Duration = Duration::from_millis(300);
    const LATE: Duration = Duration::from_millis(100);
    let shared = Arc::new(game.clone());
    let stopped = SolveOptions::default();
    stopped.stop.request();
    let error = parity::gpu::solve(device, game, &stopped).unwrap_err();
    assert!(matches!(error, SolveError::Stopped), "{error}");
    let error = on_gpu_with(device, game, Solver::Spm, &stopped).unwrap_err();
    assert!(matches!(error, SolveError::Stopped), "{error}");
    for gpu_rest in [None, Some(Solver::Spm)] {
        let error = parity::race_cpu_gpu(&shared, None, gpu_rest, Duration::ZERO, device, &stopped)
            .unwrap_err();
        assert!(matches!(error, SolveError::Stopped), "{error}");
    }
    let within_deadline = |what: &str, late: Duration, run: &dyn Fn(&SolveOptions) -> bool| {
        let started = Instant::now();
        let stopped = run(&within(DEADLINE));
        let took = started.elapsed();
        println!(
            "{name}, {what}: {took:.2?}{}",
            if stopped { " (stopped)" } else { "" }
        );
        assert!(took < DEADLINE + late, "{name}, {what} took {took:.2?}");
    };
    let is_stopped = |result: Result<Solution, SolveError>| match result {
        Err(SolveError::Stopped) => true,
        Ok(_) => false,
        Err(e) => panic!("{e}"),
    };
    within_deadline("the gpu", LATE, &|options| {
        let stopped = is_stopped(parity::gpu::solve(device, game, options));
        assert!(stopped, "the gpu solved {name} in {DEADLINE:?}");
        stopped
    });
    within_deadline("the gpu after preprocessing", LATE, &|options| {
        is_stopped(on_gpu_with(device, game, Solver::Spm, options))
    });
    // The CPU may win the race in time.
    within_deadline("the race", LATE + Duration::from_millis(100), &|options| {
        is_stopped(
            parity::race_cpu_gpu(
                &shared,
                None,
                Some(Solver::Spm),
                Duration::ZERO,
                device,
                options,
            )
            .map(|(s, _)| s),
        )
    });
}

/// `warpcheck --format json parity specs/parity_example.pg ARGS --verify`
/// with the binary of [`binary`] on the GPU.
fn json_report(args: &[&str]) -> serde_json::Value {
    let output = std::process::Command::new(crate::warpcheck_binary())
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
        for solver in ["auto", "spm", "pp", "zielonka"] {
            let report = json_report(&["--engine", "gpu", "--solver", solver]);
            let ran = report["solver"].as_str().unwrap();
            match solver {
                "auto" => assert!(
                    parity::AUTO_RACE_AT_ONCE.map(Solver::name).contains(&ran),
                    "{ran}"
                ),
                _ => assert_eq!(ran, solver),
            }
            let engine = report["engine"].as_str().unwrap();
            assert!(engine.starts_with("gpu ("), "{engine}");
            assert!(
                engine.contains("cycles one player controls and their attractors; the rest: "),
                "{engine}"
            );
            assert_eq!(report["won_by_even"], 7);
            assert_eq!(report["verified"], true);
            // The GPU's side prepares its own arrays, inside the solve.
            assert_eq!(report["prepare_seconds"], serde_json::Value::Null);
        }
        let whole = json_report(&["--engine", "gpu", "--solver", "spm", "--no-preprocessing"]);
        let engine = whole["engine"].as_str().unwrap();
        assert!(
            engine.starts_with("gpu (")
                && engine.ends_with("): no preprocessing; the whole game: spm on the gpu"),
            "{engine}"
        );
        assert_eq!(whole["won_by_even"], 7);
        assert_eq!(whole["verified"], true);
        assert_eq!(whole["warnings"], serde_json::json!([]));
        let shortcuts = json_report(&["--engine", "gpu", "--solver", "spm", "--shortcuts"]);
        assert_eq!(shortcuts["won_by_even"], 7);
        assert_eq!(shortcuts["verified"], true);
        assert_eq!(shortcuts["warnings"], serde_json::json!([]));
        let race = json_report(&["--engine", "race"]);
        let winner = race["race_winner"].as_str().unwrap();
        assert!(["cpu", "gpu"].contains(&winner), "{winner}");
        let engine = race["engine"].as_str().unwrap();
        assert!(engine.starts_with("race of cpu and gpu ("), "{engine}");
        assert!(engine.contains(" first"), "{engine}");
        assert_eq!(race["won_by_even"], 7);
    });
}

/// A cycle of `vertices` vertices of Even through the priorities 1, 2,
/// ..., `vertices` in turn, where every second vertex may also move back
/// to the first: the shape of Oink's `counter_qpt` games. Even wins every
/// vertex by going round; the GPU's preprocessing searches the cycle a
/// vertex a wave.
fn long_controlled_cycle(vertices: u32) -> ParityGame {
    let edges = (0..vertices).flat_map(|v| {
        let next = (v + 1) % vertices;
        let back = (v % 2 == 1 && next != 0).then_some((v, 0));
        std::iter::once((v, next)).chain(back)
    });
    ParityGame {
        priorities: (1..=vertices).collect(),
        owners: vec![Player::Even; vertices as usize],
        edges: Csr::from_edges(vertices, edges.collect::<Vec<_>>()).unwrap(),
        names: Vec::new(),
    }
}

/// On a game where the CPU is far the faster (a long cycle one player
/// controls), the GPU alone ends by its deadline, solved or stopped, and a
/// race of both ends soon after the faster side: within twice its time
/// plus 0.3 s (room for a loaded machine: the race returns with the
/// first result, without waiting for the GPU to stop). The kernels are
/// loaded first, on a small game: compiling them (with the disk cache
/// cold, as when this test runs first on a fresh machine) does not look
/// at the stop signal, and took the GPU's side to 1.12 s and 1.30 s in
/// two such runs.
#[test]
fn a_race_ends_soon_after_its_faster_side_on_a_long_cycle_one_player_controls() {
    const DEADLINE: Duration = Duration::from_secs(1);
    const LATE: Duration = Duration::from_millis(100);
    with_gpu(|device| {
        let game = Arc::new(long_controlled_cycle(1_000_000));
        let (on_cpu, cpu_time) =
            timed(|| parity::solve_auto(&game, &SolveOptions::default()).map(|(s, _)| s));
        let on_cpu = on_cpu.unwrap();
        assert!(on_cpu.winners.iter().all(|&w| w == Player::Even));
        assert_eq!(verify(&game, &on_cpu), Ok(()));
        let small = long_controlled_cycle(100);
        let loaded = on_gpu_with(device, &small, Solver::Pp, &SolveOptions::default()).unwrap();
        assert_eq!(verify(&small, &loaded), Ok(()));
        let (alone, gpu_time) = timed(|| on_gpu_with(device, &game, Solver::Pp, &within(DEADLINE)));
        if let Some(solution) = &alone {
            assert_eq!(solution.winners, on_cpu.winners);
            assert_eq!(verify(&game, solution), Ok(()));
        }
        assert!(gpu_time < DEADLINE + LATE, "the gpu took {gpu_time:.2?}");
        let started = Instant::now();
        let (solution, finisher) = parity::race_cpu_gpu(
            &game,
            None,
            None,
            Duration::ZERO,
            device,
            &within(10 * DEADLINE),
        )
        .unwrap();
        let race_time = started.elapsed();
        println!(
            "a cycle of 10^6 vertices: cpu {cpu_time:.2?}, gpu {gpu_time:.2?}{}, race {race_time:.2?} \
             ({finisher:?} first)",
            if alone.is_some() { "" } else { " (stopped)" }
        );
        assert_eq!(solution.winners, on_cpu.winners);
        assert_eq!(verify(&game, &solution), Ok(()));
        let faster = if alone.is_some() {
            cpu_time.min(gpu_time)
        } else {
            cpu_time
        };
        assert!(
            race_time < 2 * faster + Duration::from_millis(300),
            "the race took {race_time:.2?}"
        );
    });
}
