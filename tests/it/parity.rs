//! Parity games: every solver gives Oink's winners on every game of
//! `tests/data/parity` (and of `../shared/parity` when it is present), and
//! a strategy that the independent verifier accepts; on thousands of
//! random small games every solver agrees with the reference; and the
//! `parity` command's reports, files and messages.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use warpcheck::explicit::{Csr, ParityGame, Player};
use warpcheck::explore::StopSignal;
use warpcheck::frontend::pgsolver;
use warpcheck::parity::verify::verify;
use warpcheck::parity::{self, Solution, SolveError, SolveOptions, Solver};
use warpcheck::testing::games::{propagation_paths, propagation_tree, small_games};

use crate::explicit_inputs::{data, oracle_rows, shared};

const SOLVERS: [Solver; 5] = [
    Solver::Zielonka,
    Solver::Spm,
    Solver::Fpi,
    Solver::Tangle,
    Solver::Pp,
];

/// Whether `solver` may run out of its budget on the game of oracle
/// `row`: SPM (without Oink's lifting heuristics) anywhere; Zielonka, FPI
/// and priority promotion only where Oink's solver of the same kind
/// (`npp` for priority promotion) took more than a second;
/// tangle learning only on the two-counter families (`tc`, `tc+`), which
/// are built to make it take exponentially many passes.
fn may_run_out(solver: Solver, row: &std::collections::HashMap<String, String>) -> bool {
    let oink_seconds = |column: &str| row[column].parse::<f64>().unwrap_or(f64::INFINITY);
    match solver {
        Solver::Spm => true,
        Solver::Zielonka => oink_seconds("zlk_s") > 1.0,
        Solver::Fpi => oink_seconds("fpi_s") > 1.0,
        Solver::Tangle => row["source"].starts_with("oink-tool: tc"),
        Solver::Pp => oink_seconds("npp_s") > 1.0,
    }
}

/// The file of game `name` in `dir` with extension `extension`, plain or
/// gzipped, when there is one.
pub(crate) fn file_in(dir: &Path, name: &str, extension: &str) -> Option<PathBuf> {
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
fn solve_within(
    game: &ParityGame,
    solver: Solver,
    shortcuts: bool,
    budget: Duration,
) -> Option<Solution> {
    let options = SolveOptions {
        stop: StopSignal::new().with_deadline(Instant::now() + budget),
        shortcuts,
        ..SolveOptions::default()
    };
    match parity::solve(game, solver, &options) {
        Ok(solution) => Some(solution),
        Err(SolveError::Stopped) | Err(SolveError::TooLarge(_)) => None,
        Err(e) => panic!("{solver:?}: {e}"),
    }
}

/// Solves every game of the oracle file that is in `dirs` (first found
/// wins) with every solver (SPM also with shortcuts), and checks the winners against Oink's and the
/// strategies with the verifier. Zielonka, FPI and priority promotion may
/// run out of `budget` only on a game where Oink's solver of the same kind
/// took more than a second; SPM, without Oink's lifting heuristics, may
/// run out anywhere. Those runs are printed, not failed. Gives the games
/// checked.
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
        let shared = Arc::new(game.clone());
        assert_eq!(game.vertices().to_string(), row["vertices"], "{name}");
        assert_eq!(game.edges.edge_count().to_string(), row["edges"], "{name}");
        let expected = pgsolver::read_solution(&solution_file, game.vertices()).unwrap();
        let check = |solution: &Solution, who: String, failures: &mut Vec<String>| {
            if solution.winners != expected.winners {
                let differ = (0..game.vertices() as usize)
                    .filter(|&v| solution.winners[v] != expected.winners[v])
                    .count();
                failures.push(format!(
                    "{name}: {who} differs from Oink at {differ} vertices"
                ));
            }
            if let Err(flaw) = verify(&game, solution) {
                failures.push(format!("{name}: {who}'s strategy fails: {flaw}"));
            }
            assert_eq!(
                solution.won_by(Player::Even).to_string(),
                row["W0"],
                "{name} {who}"
            );
        };
        let runs = SOLVERS.map(|solver| (solver, false));
        for (solver, shortcuts) in runs.into_iter().chain([(Solver::Spm, true)]) {
            let who = match shortcuts {
                true => format!("{solver:?} with shortcuts"),
                false => format!("{solver:?}"),
            };
            let started = Instant::now();
            let Some(solution) = solve_within(&game, solver, shortcuts, budget) else {
                println!("{name}: {who} stopped after {:.1?}", started.elapsed());
                if !may_run_out(solver, &row) {
                    failures.push(format!("{name}: {who} did not finish in {budget:?}"));
                }
                continue;
            };
            check(&solution, who, &mut failures);
        }
        for threads in [1, 2, parity::AT_ONCE_THREADS] {
            let raced: &[Solver] = match threads {
                1 => &[Solver::Pp],
                _ => parity::auto_race(threads),
            };
            let options = SolveOptions {
                threads,
                stop: StopSignal::new().with_deadline(Instant::now() + budget),
                ..SolveOptions::default()
            };
            match parity::solve_auto(&shared, &options) {
                Ok((solution, solver)) => {
                    check(
                        &solution,
                        format!("auto ({threads} threads, {solver:?})"),
                        &mut failures,
                    );
                }
                // One thread runs priority promotion alone, two race it
                // with tangle learning, AT_ONCE_THREADS with Zielonka's too.
                Err(SolveError::Stopped) if raced.iter().all(|&s| may_run_out(s, &row)) => {}
                Err(e) => failures.push(format!("{name}: auto on {threads} threads: {e}")),
            }
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

#[test]
fn bundled_games_get_oinks_winners_and_verified_strategies() {
    assert_eq!(check_oracles(&[data("parity")], Duration::from_secs(5)), 65);
}

#[test]
fn shared_games_get_oinks_winners_and_verified_strategies() {
    let Some(dir) = shared("parity") else {
        warpcheck::testing::skipped(format_args!("../shared/parity is not present"));
        return;
    };
    assert_eq!(check_oracles(&[dir], Duration::from_secs(5)), 67);
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
        for solver in [Solver::Spm, Solver::Fpi, Solver::Tangle, Solver::Pp] {
            let solution = parity::solve(&game, solver, &options).unwrap();
            prop_assert_eq!(&solution.winners, &reference.winners, "{:?}", solver);
            prop_assert_eq!(verify(&game, &solution), Ok(()), "{:?}", solver);
        }
        let whole = SolveOptions { skip_preprocessing: true, ..SolveOptions::default() };
        for solver in [Solver::Spm, Solver::Fpi] {
            let solution = parity::solve(&game, solver, &whole).unwrap();
            prop_assert_eq!(&solution.winners, &reference.winners, "{:?} whole", solver);
            prop_assert_eq!(verify(&game, &solution), Ok(()), "{:?} whole", solver);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    /// Games large enough for priority promotion to promote regions
    /// several times and to keep regions above a dominion it solves.
    #[test]
    fn priority_promotion_agrees_with_the_reference_on_larger_games(game in small_games(300, 30)) {
        let options = SolveOptions::default();
        let reference = parity::solve(&game, Solver::Zielonka, &options).unwrap();
        let solution = parity::solve(&game, Solver::Pp, &options).unwrap();
        prop_assert_eq!(&solution.winners, &reference.winners);
        prop_assert_eq!(verify(&game, &solution), Ok(()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// The solvers of the race start at once, so any may win.
    #[test]
    fn a_race_gives_the_references_winners_and_a_winning_strategy(game in small_games(40, 9)) {
        let options = SolveOptions::default();
        let reference = parity::solve(&game, Solver::Zielonka, &options).unwrap();
        let solvers = [Solver::Tangle, Solver::Zielonka, Solver::Pp];
        let shared = Arc::new(game.clone());
        let (solution, winner) = parity::race(&shared, &solvers, Duration::ZERO, &options).unwrap();
        prop_assert!(solvers.contains(&winner));
        prop_assert_eq!(&solution.winners, &reference.winners);
        prop_assert_eq!(verify(&game, &solution), Ok(()));
    }
}

#[test]
fn auto_runs_priority_promotion_alone_on_one_thread_and_a_stopped_race_says_so() {
    let game = Arc::new(pgsolver::load(&data("parity").join("tc-10.pg")).unwrap());
    let one = SolveOptions {
        threads: 1,
        ..SolveOptions::default()
    };
    let (solution, solver) = parity::solve_auto(&game, &one).unwrap();
    assert_eq!(solver, Solver::Pp);
    assert_eq!(verify(&game, &solution), Ok(()));
    let stopped = SolveOptions {
        threads: 2,
        stop: StopSignal::new(),
        ..SolveOptions::default()
    };
    stopped.stop.request();
    let error = parity::solve_auto(&game, &stopped).unwrap_err();
    assert!(matches!(error, SolveError::Stopped), "{error}");
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
fn warpcheck(args: &[&str]) -> Output {
    Command::new(crate::warpcheck_binary())
        .args(args)
        .current_dir(crate::repo_root())
        .env("CUDA_VISIBLE_DEVICES", "-1")
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_json_report_has_every_field_and_the_solution_file_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let written = dir.path().join("example.sol");
    let game_path = crate::repo_root().join("specs/parity_example.pg");
    let game = pgsolver::load(&game_path).unwrap();
    let reference = parity::solve(&game, Solver::Zielonka, &SolveOptions::default()).unwrap();
    let runs = ["auto", "zielonka", "spm", "fpi", "tangle", "pp"].map(|solver| (solver, None));
    for (solver, shortcuts) in runs.into_iter().chain([("spm", Some("--shortcuts"))]) {
        let mut args = vec![
            "--format",
            "json",
            "parity",
            "specs/parity_example.pg",
            "--solver",
            solver,
            "--verify",
            "--write-solution",
            written.to_str().unwrap(),
        ];
        args.extend(shortcuts);
        let out = warpcheck(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(report["vertices"], 8);
        assert_eq!(report["edges"], 13);
        assert_eq!(report["max_priority"], 7);
        assert_eq!(report["won_by_even"], reference.won_by(Player::Even));
        assert_eq!(report["won_by_odd"], reference.won_by(Player::Odd));
        assert_eq!(report["winner_of_first"], "even");
        assert_eq!(report["verified"], true);
        assert_eq!(report["exit_code"], 0);
        let ran = report["solver"].as_str().unwrap();
        match solver {
            "auto" => assert!(
                parity::AUTO_RACE_AT_ONCE.map(Solver::name).contains(&ran),
                "{ran}"
            ),
            _ => assert_eq!(ran, solver),
        }
        assert!(report["engine"].as_str().unwrap().starts_with("cpu ("));
        // Off the GPU the game is prepared before the solving clock starts.
        let seconds = ["load", "prepare", "solve", "verify"]
            .map(|step| report[format!("{step}_seconds")].as_f64().unwrap());
        assert!(seconds.iter().all(|&s| s >= 0.0), "{seconds:?}");
        let elapsed = report["elapsed_seconds"].as_f64().unwrap();
        assert!(
            seconds.iter().sum::<f64>() <= elapsed,
            "{seconds:?} {elapsed}"
        );
        let back = pgsolver::read_solution(&written, game.vertices()).unwrap();
        assert_eq!(back.winners, reference.winners, "{solver}");
        let solution = Solution {
            winners: back.winners,
            strategy: back.strategy,
        };
        assert_eq!(verify(&game, &solution), Ok(()), "{solver}");
    }
}

#[test]
fn the_text_report_names_the_regions() {
    let out = warpcheck(&[
        "parity",
        "tests/data/parity/tricky-names-spaces.pg",
        "--threads",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with(
        "input: tests/data/parity/tricky-names-spaces.pg (3 vertices, 5 edges, highest priority 3)\n\
         won by Even: "
    ));
    assert!(
        text.contains("solver: pp, engine: cpu (1 thread)\n"),
        "{text}"
    );
}

#[test]
fn bad_games_and_requests_are_refused_with_their_reason() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "parity 2;\n0 1 0 1,2;\n1 2 1 ;\n2 0 1 0;\n",
            "3:7: vertex 1 has no successor: dead ends are not allowed, since every play of a \
             parity game is infinite (give it a self-loop `1` to make it a sink)",
        ),
        (
            "parity 1;\n0 1 0 1;\n0 2 1 0;\n",
            "3:1: vertex 0 is defined twice",
        ),
        (
            "parity 1;\n0 1 0 2;\n1 2 1 0;\n",
            "2:7: successor 2 is beyond the header `parity 1;` (ids 0 to 1)",
        ),
        (
            "parity 1;\n0 99999999999 0 1;\n1 2 1 0;\n",
            "2:3: priority 99999999999 is too large: priorities are at most 4294967295",
        ),
        (
            "parity 2;\n0 1 0 1;\n2 2 1 0;\n",
            "1:8: vertex 1 is never defined; the header `parity 2;` declares the ids 0 to 2",
        ),
        (
            "parity 1;\n0 1 0 1\n",
            "2:8: expected `,` and a successor, a name in quotes, or `;`, found the end of the line",
        ),
    ];
    for (i, (text, message)) in cases.into_iter().enumerate() {
        let path = dir.path().join(format!("bad{i}.pg"));
        std::fs::write(&path, text).unwrap();
        let out = warpcheck(&["parity", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{text:?}");
        assert_eq!(
            stderr(&out),
            format!("error: {}:{message}\n", path.display()),
            "{text:?}"
        );
    }
    let shared_dead_end = warpcheck(&["parity", "tests/data/parity/invalid/deadend.pg"]);
    assert_eq!(shared_dead_end.status.code(), Some(2));
    assert!(stderr(&shared_dead_end).contains("deadend.pg:3:7: vertex 1 has no successor"));

    // The binary runs without a GPU here (`warpcheck`).
    for solver in ["auto", "pp", "zielonka"] {
        let args = [
            "parity",
            "specs/parity_example.pg",
            "--engine",
            "gpu",
            "--solver",
            solver,
        ];
        let no_gpu = warpcheck(&args);
        assert_eq!(no_gpu.status.code(), Some(2));
        assert!(
            stderr(&no_gpu).starts_with("error: --engine gpu: no GPU available: "),
            "{}",
            stderr(&no_gpu)
        );
    }
    for solver in ["pp", "auto"] {
        let out = warpcheck(&[
            "parity",
            "specs/parity_example.pg",
            "--shortcuts",
            "--solver",
            solver,
        ]);
        assert_eq!(out.status.code(), Some(2), "{solver}");
        assert_eq!(
            stderr(&out),
            "error: --shortcuts applies to small progress measures only: add --solver spm\n",
            "{solver}"
        );
    }
    let json = warpcheck(&["--format", "json", "parity", "no/such.pg"]);
    assert_eq!(json.status.code(), Some(2));
    let error: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(error["exit_code"], 2);
    assert!(error["error"].as_str().unwrap().starts_with("no/such.pg: "));
    let onto_game = warpcheck(&[
        "parity",
        "specs/parity_example.pg",
        "--write-solution",
        "specs/parity_example.pg",
    ]);
    assert_eq!(onto_game.status.code(), Some(2));
    assert!(stderr(&onto_game).contains("this is the model file; refusing to overwrite it"));
}

#[test]
fn a_timeout_ends_the_solver_with_exit_3() {
    // 40 vertices in a line of alternating priorities, each also moving
    // back to the start: fixpoint iteration needs many sweeps, but a
    // timeout of a microsecond stops it at its first look at the clock.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("line.pg");
    let mut text = String::from("parity 39;\n");
    for v in 0..40 {
        text.push_str(&format!("{v} {v} {} {},0;\n", v % 2, (v + 1) % 40));
    }
    std::fs::write(&path, text).unwrap();
    let out = warpcheck(&[
        "parity",
        path.to_str().unwrap(),
        "--solver",
        "fpi",
        "--timeout",
        "0.000001",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {}: not solved: the --timeout of 0.000001 s was reached\n",
            path.display()
        )
    );
}

#[test]
fn a_race_without_a_gpu_runs_the_cpu_alone_and_says_so() {
    let out = warpcheck(&[
        "--format",
        "json",
        "parity",
        "specs/parity_example.pg",
        "--engine",
        "race",
        "--solver",
        "zielonka",
        "--verify",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no GPU could be opened") && stderr(&out).contains("the CPU alone"),
        "{}",
        stderr(&out)
    );
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["solver"], "zielonka");
    assert_eq!(report["engine"], "cpu (1 thread)");
    assert_eq!(report["race_winner"], serde_json::Value::Null);
    assert_eq!(report["verified"], true);
}

/// The propagation games of Bootsma's thesis as `testing::games` makes
/// them: the sizes the thesis gives, Even's everywhere by the reference,
/// and solved by small progress measures without preprocessing too.
#[test]
fn propagation_games_have_the_theses_sizes_and_even_wins_them() {
    let paths = propagation_paths(50, 1000);
    assert_eq!(
        (paths.vertices(), paths.edges.edge_count()),
        (50_003, 100_002)
    );
    // `tprop21`, 22 levels, has 2^22 + 1 vertices and 2^23 - 1 moves.
    let tree = propagation_tree(12, 2);
    assert_eq!(
        (tree.vertices(), tree.edges.edge_count()),
        ((1 << 12) + 1, (1 << 13) - 1)
    );
    let whole = SolveOptions {
        skip_preprocessing: true,
        ..SolveOptions::default()
    };
    for game in [propagation_paths(6, 40), tree, propagation_tree(4, 3)] {
        let reference = parity::solve(&game, Solver::Zielonka, &whole).unwrap();
        assert_eq!(reference.won_by(Player::Even), u64::from(game.vertices()));
        for solver in [Solver::Spm, Solver::Fpi] {
            let solution = parity::solve(&game, solver, &whole).unwrap();
            assert_eq!(solution.winners, reference.winners, "{solver:?}");
            assert_eq!(verify(&game, &solution), Ok(()), "{solver:?}");
        }
        let mut text = Vec::new();
        pgsolver::write_game(&mut text, &game).unwrap();
        let back = pgsolver::parse(&text, Path::new("written.pg")).unwrap();
        assert_eq!(back, game);
    }
}

/// `--no-preprocessing` hands the whole game to small progress measures,
/// which the preprocessing would have solved whole; and it says so when
/// the solver never preprocesses.
#[test]
fn no_preprocessing_gives_spm_the_whole_game() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tree.pg");
    let game = propagation_tree(10, 2);
    let mut text = Vec::new();
    pgsolver::write_game(&mut text, &game).unwrap();
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap();
    let lifts = |log: &str| -> u64 {
        let at = log.find("small progress measures lifts=").expect(log) + 30;
        log[at..].split(' ').next().unwrap().parse().unwrap()
    };
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--format", "json", "parity", path, "--solver", "spm", "-vv", "--verify",
        ];
        args.extend(extra);
        let out = warpcheck(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(report["won_by_even"], 1025);
        assert_eq!(report["verified"], true);
        assert_eq!(report["warnings"], serde_json::json!([]));
        stderr(&out)
    };
    let preprocessed = run(&[]);
    assert!(
        preprocessed.contains("attractors solved vertices=1025 open=0"),
        "{preprocessed}"
    );
    assert_eq!(lifts(&preprocessed), 0);
    let whole = run(&["--no-preprocessing"]);
    assert!(!whole.contains("attractors solved"), "{whole}");
    assert!(lifts(&whole) >= 1024, "{whole}");
    let out = warpcheck(&[
        "--format",
        "json",
        "parity",
        path,
        "--solver",
        "pp",
        "--no-preprocessing",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        report["warnings"],
        serde_json::json!([
            "--no-preprocessing only affects spm and fpi, and the GPU; pp never preprocesses"
        ])
    );
}
