//! `warpcheck prob`: every value of `../shared/prob/oracles.tsv`
//! (probabilities, expected rewards and long-run averages of DTMCs, CTMCs
//! and MDPs) reproduced within the error bound reported, on the bundled
//! models always and on the others when the shared folder is present;
//! optimal probabilities and rewards of random MDPs against brute force;
//! the command's report and its errors.

use std::path::{Path, PathBuf};

use warpcheck::explicit::ProbModel;
use warpcheck::explicit::{ExplicitModel, Mdp};
use warpcheck::explore::StopSignal;
use warpcheck::frontend::{prism, umb};
use warpcheck::numeric::{self, Engine, Optimum, Precision, SolveOptions, property};

use crate::explicit_inputs::{data, oracle_rows, shared};
use crate::gpu::with_gpu;

/// The model of instance `name` in `dir`: its `.tra` (with the `.lab`
/// beside it), else its `.umb` archive.
fn model_in(dir: &Path, name: &str) -> Option<ProbModel> {
    for tra in [format!("{name}.tra"), format!("{name}.tra.gz")] {
        if dir.join(&tra).is_file() {
            return Some(prism::load(&dir.join(tra), None, None).unwrap());
        }
    }
    let archive = dir.join(format!("{name}.umb"));
    archive.is_file().then(|| umb::load(&archive).unwrap())
}

/// Checks every computable oracle row whose model is in one of `dirs`
/// (first found wins) with `engine`; the rows checked.
fn check_oracles(dirs: &[PathBuf], engine: Engine<'_>) -> usize {
    let options = tight_options();
    let mut checked = 0;
    let mut failures = Vec::new();
    for row in oracle_rows(&data("prob").join("oracles.tsv")) {
        let (name, text) = (&row["instance"], &row["property"]);
        let Some(model) = dirs.iter().find_map(|dir| model_in(dir, name)) else {
            continue;
        };
        let property = property::parse(text).unwrap();
        let outcome = numeric::check(&model, &property, &options, engine).unwrap();
        let initial = model.model.initial() as usize;
        let (value, bound) = (
            outcome.values[initial],
            outcome.error_bounds.unwrap()[initial],
        );
        let expected: f64 = row["value"].parse().unwrap();
        // The oracle is itself rounded (17 digits) or within 1e-10.
        let slack = 1e-10 * expected.abs() + 1e-15;
        if !outcome.converged || (value - expected).abs() > bound + slack || bound > 1e-9 * expected
        {
            failures.push(format!("{name} {text}: {value} ± {bound} vs {expected}"));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

/// Rows of `oracles.tsv` whose model is bundled, and all of them.
const BUNDLED_ROWS: usize = 26;
const ALL_ROWS: usize = 41;

#[test]
fn bundled_models_give_the_oracles_values() {
    for engine in [Engine::Reference, Engine::Cpu(3)] {
        assert_eq!(check_oracles(&[data("prob")], engine), BUNDLED_ROWS);
    }
}

#[test]
fn shared_models_give_the_oracles_values() {
    let Some(dir) = shared("prob") else {
        warpcheck::testing::skipped(format_args!("../shared/prob is not present"));
        return;
    };
    for engine in [Engine::Reference, Engine::Cpu(3)] {
        assert_eq!(
            check_oracles(&[data("prob"), dir.clone()], engine),
            ALL_ROWS
        );
    }
}

/// The GPU's iterations give the oracles' values within the bounds they
/// report, on the bundled models and, when present, the shared ones.
#[test]
fn the_gpu_gives_the_oracles_values() {
    with_gpu(|device| {
        let mut dirs = vec![data("prob")];
        dirs.extend(shared("prob"));
        let expected = if dirs.len() == 2 {
            ALL_ROWS
        } else {
            BUNDLED_ROWS
        };
        assert_eq!(check_oracles(&dirs, Engine::Gpu(device)), expected);
    });
}

/// The exit code and JSON report of `warpcheck --format json prob
/// specs/die.tra ARGS`.
fn die_report(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let output = warpcheck(&[&["--format", "json", "prob", "specs/die.tra"], args].concat());
    let report = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    (output.status.code(), report)
}

/// Runs `warpcheck ARGS`.
fn warpcheck(args: &[&str]) -> std::process::Output {
    std::process::Command::new(crate::warpcheck_binary())
        .args(args)
        .current_dir(crate::repo_root())
        .output()
        .unwrap()
}

/// The bundled example (Knuth and Yao's die from coin flips): the JSON
/// report, a value within its bound, exact bounded values, and every
/// state's values written.
#[test]
fn the_command_reports_values_bounds_and_writes_them() {
    let dir = tempfile::tempdir().unwrap();
    let values = dir.path().join("values.txt");
    let (code, report) = die_report(&[
        "--property",
        "P=? [ F \"six\" ]",
        "--property",
        "P=? [ F<=3 \"six\" ]",
        "--precision",
        "1e-12",
        "--write-values",
        values.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(report["model_type"], "dtmc");
    assert_eq!(
        (report["states"].as_u64(), report["transitions"].as_u64()),
        (Some(13), Some(20))
    );
    let results = report["results"].as_array().unwrap();
    assert_eq!(results[0]["property"], "P=? [ F \"six\" ]");
    let (value, bound) = (
        results[0]["value"].as_f64().unwrap(),
        results[0]["error_bound"].as_f64().unwrap(),
    );
    assert!(
        bound <= 1e-12 && (value - 1.0 / 6.0).abs() <= bound,
        "{value} ± {bound}"
    );
    assert_eq!(
        (
            results[1]["value"].as_f64(),
            results[1]["error_bound"].as_f64()
        ),
        (Some(0.125), Some(0.0))
    );
    assert_eq!(results[1]["iterations"], 3);
    let written = std::fs::read_to_string(&values).unwrap();
    let blocks: Vec<&str> = written.split("# ").filter(|b| !b.is_empty()).collect();
    assert_eq!(blocks.len(), 2);
    assert!(
        blocks[1].starts_with("P=? [ F<=3 \"six\" ]\n0 1.25e-1\n"),
        "{}",
        blocks[1]
    );
    assert!(blocks[1].contains("\n12 1e0\n") && blocks[1].contains("\n7 0e0\n"));
}

/// Ctrl-C ends a long iteration with the bounds reached so far (exit 3),
/// as `--max-iterations` and `--timeout` do: a chain that leaves state 0
/// with probability 2·10^-9 a step, half of it to the goal, converges far
/// too slowly for 10^-12.
#[test]
fn ctrl_c_ends_an_iteration_with_its_bounds_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("slow.tra");
    std::fs::write(
        &model,
        "3 5\n0 0 0.999999998\n0 1 0.000000001\n0 2 0.000000001\n1 1 1\n2 2 1\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("slow.lab"),
        "0=\"init\" 1=\"goal\"\n0: 0\n1: 1\n",
    )
    .unwrap();
    let output = crate::cli::interrupted(&[
        "--format",
        "json",
        "prob",
        model.to_str().unwrap(),
        "--property",
        "P=? [ F \"goal\" ]",
        "--precision",
        "1e-12",
        "--max-iterations",
        "1000000000000",
        "--engine",
        "cpu",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("interrupted: finishing with the figures so far"),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let result = &report["results"][0];
    assert_eq!(result["converged"], false);
    let (value, bound) = (
        result["value"].as_f64().unwrap(),
        result["error_bound"].as_f64().unwrap(),
    );
    assert!(
        (value - 0.5).abs() <= bound && bound < 0.5,
        "{value} ± {bound}"
    );
    assert!(result["iterations"].as_u64().unwrap() > 0);
}

/// File names are read in any case: `DIE.TRA` is a PRISM model whose
/// labels are in `DIE.LAB` beside it.
#[test]
fn file_names_in_upper_case_are_recognised() {
    let dir = tempfile::tempdir().unwrap();
    for (from, to) in [("die.tra", "DIE.TRA"), ("die.lab", "DIE.LAB")] {
        std::fs::copy(Path::new("specs").join(from), dir.path().join(to)).unwrap();
    }
    let model = dir.path().join("DIE.TRA");
    let output = warpcheck(&[
        "--format",
        "json",
        "prob",
        model.to_str().unwrap(),
        "--property",
        "P=? [ F<=3 \"six\" ]",
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["results"][0]["value"].as_f64(), Some(0.125));
}

/// Errors: exit 2 with the property's column, the model's type, the file
/// and line of a properties file; exit 3 with the bound reached when the
/// precision is not.
/// Expected flips until the die shows a face (11/3 by Knuth and Yao),
/// the long-run share of six (1/6), and an infinite expectation (six is
/// missed from the other faces), as the command reports them in JSON.
#[test]
fn the_command_reports_rewards_and_long_run_values() {
    let (code, report) = die_report(&[
        "--srew",
        "flips=specs/die.srew",
        "--property",
        "R{\"flips\"}=? [ F \"done\" ]",
        "--property",
        "S=? [ \"six\" ]",
        "--property",
        "R=? [ F \"six\" ]",
        "--precision",
        "1e-9",
    ]);
    assert_eq!(code, Some(0));
    for (result, expected) in report["results"]
        .as_array()
        .unwrap()
        .iter()
        .zip([11.0 / 3.0, 1.0 / 6.0])
    {
        let (value, bound) = (
            result["value"].as_f64().unwrap(),
            result["error_bound"].as_f64().unwrap(),
        );
        assert!(
            bound <= 1e-9 && (value - expected).abs() <= bound,
            "{result}"
        );
    }
    let infinite = &report["results"][2];
    assert_eq!(
        (infinite["value"].as_str(), infinite["error_bound"].as_f64()),
        (Some("inf"), Some(0.0))
    );
}

#[test]
fn the_command_says_what_is_wrong() {
    let fails = |args: &[&str], code: i32, stderr: &str| {
        let output = warpcheck(&[args, &["--engine", "reference"]].concat());
        assert_eq!(output.status.code(), Some(code), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&output.stderr), stderr, "{args:?}");
    };
    fails(
        &["prob", "specs/die.tra", "--property", "P=? [ F \"seven\" ]"],
        2,
        "error: property `P=? [ F \"seven\" ]`: column 9: unknown label \"seven\" (the model has: \
         \"init\", \"deadlock\", \"done\", \"six\")\n",
    );
    fails(
        &[
            "prob",
            "specs/die.tra",
            "--property",
            "Pmax=? [ F \"six\" ]",
        ],
        2,
        "error: property `Pmax=? [ F \"six\" ]`: the model is a DTMC: Pmin and Pmax apply to \
         MDPs; ask for P=?\n",
    );
    fails(
        &[
            "prob",
            "specs/mec_example.tra",
            "--property",
            "P=? [ F \"goal\" ]",
        ],
        2,
        "error: property `P=? [ F \"goal\" ]`: the model is an MDP: ask for Pmin=? or Pmax=?\n",
    );
    fails(
        &[
            "prob",
            "specs/die.tra",
            "--property",
            "P=? [ F<=2.5 \"six\" ]",
        ],
        2,
        "error: property `P=? [ F<=2.5 \"six\" ]`: a step bound of a DTMC or MDP is a whole \
         number of steps, not 2.5\n",
    );
    fails(
        &["prob", "specs/die.tra"],
        2,
        "error: no property: give --property 'P=? [ F \"label\" ]' or --properties FILE\n",
    );
    fails(
        &[
            "prob",
            "specs/die.tra",
            "--property",
            "P=? [ F \"six\" ]",
            "--precision",
            "2",
        ],
        2,
        "error: --precision 2: give a number between 0 and 1 (exclusive)\n",
    );
    fails(
        &[
            "prob",
            "specs/die.tra",
            "--property",
            "P=? [ F \"six\" ]",
            "--timeout",
            "inf",
        ],
        2,
        "error: --timeout inf: give a non-negative number of seconds\n",
    );
    fails(
        &[
            "prob",
            "specs/die.tra",
            "--srew",
            "flips=specs/die.srew",
            "--property",
            "R{\"coins\"}=? [ F \"done\" ]",
        ],
        2,
        "error: property `R{\"coins\"}=? [ F \"done\" ]`: no reward structure \"coins\": the \
         model has \"flips\"\n",
    );
    fails(
        &[
            "prob",
            "specs/mec_example.tra",
            "--property",
            "S=? [ \"goal\" ]",
        ],
        2,
        "error: property `S=? [ \"goal\" ]`: the model is an MDP: long-run properties (S, R [ S \
         ]) are computed for DTMCs and CTMCs\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("props.txt");
    std::fs::write(&file, "// the die\nP=? [ F \"six\" ]\nP=? [ F \"six\" \n").unwrap();
    let output = warpcheck(&[
        "prob",
        "specs/die.tra",
        "--properties",
        file.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with(&format!("error: {}:3:", file.display())),
        "{stderr}"
    );
    // Cut short: the value with the bound reached, exit 3.
    let (code, report) = die_report(&["--property", "P=? [ F \"six\" ]", "--max-iterations", "2"]);
    assert_eq!(code, Some(3));
    let result = &report["results"][0];
    assert_eq!(
        (result["converged"].as_bool(), result["iterations"].as_u64()),
        (Some(false), Some(2))
    );
    let (value, bound) = (
        result["value"].as_f64().unwrap(),
        result["error_bound"].as_f64().unwrap(),
    );
    assert!(
        bound > 1e-3 && (value - 1.0 / 6.0).abs() <= bound,
        "{value} ± {bound}"
    );
}

/// What a brute-force run optimises under every scheduler.
enum Objective<'a> {
    /// The probability of `left U right`.
    Until { left: &'a [bool], right: &'a [bool] },
    /// The reward (per state visit) accumulated until `target`; infinite
    /// where the target is missed with positive probability.
    Reward {
        rewards: &'a [f64],
        target: &'a [bool],
    },
}

/// The optimal value of `objective` in every state of a small MDP, by
/// brute force: every memoryless deterministic scheduler (they suffice for
/// reachability and for these rewards), each induced chain solved by
/// Gaussian elimination. A state without a choice stays where it is.
fn brute_force(mdp: &Mdp, objective: &Objective<'_>, maximise: bool) -> Vec<f64> {
    let n = mdp.states() as usize;
    let counts: Vec<u64> = (0..n as u32)
        .map(|s| mdp.choices_of(s).count() as u64)
        .collect();
    let schedulers: u64 = counts.iter().map(|&c| c.max(1)).product();
    let pick = |a: f64, b: f64| if maximise { a.max(b) } else { a.min(b) };
    let mut best = vec![
        if maximise {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        n
    ];
    for mut code in 0..schedulers {
        // The chain this scheduler induces: row s = its choice's branches.
        let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
        for s in 0..n {
            if counts[s] == 0 {
                continue;
            }
            let choice = mdp.choices_of(s as u32).start + code % counts[s];
            code /= counts[s];
            let (targets, probabilities) = mdp.branches_of(choice);
            rows[s] = targets
                .iter()
                .map(|&t| t as usize)
                .zip(probabilities.iter().copied())
                .collect();
        }
        let values = match objective {
            Objective::Until { left, right } => chain_until(&rows, left, right),
            Objective::Reward { rewards, target } => chain_reward(&rows, rewards, target),
        };
        for s in 0..n {
            best[s] = pick(best[s], values[s]);
        }
    }
    best
}

/// The states with a path to a `to` state through `through` states (the
/// `to` states included).
fn reaching(rows: &[Vec<(usize, f64)>], through: &[bool], to: &[bool]) -> Vec<bool> {
    let mut reach = to.to_vec();
    loop {
        let grown: Vec<bool> = (0..rows.len())
            .map(|s| reach[s] || (through[s] && rows[s].iter().any(|&(t, p)| p > 0.0 && reach[t])))
            .collect();
        if grown == reach {
            return reach;
        }
        reach = grown;
    }
}

/// Solves `x = constant + Σ p·x` on the `unknown` states of a chain, the
/// others contributing `known` (Gaussian elimination with pivoting).
fn solve_chain(
    rows: &[Vec<(usize, f64)>],
    unknown: &[usize],
    constant: impl Fn(usize) -> f64,
    known: impl Fn(usize) -> f64,
) -> Vec<f64> {
    let index = |s: usize| unknown.iter().position(|&u| u == s);
    let m = unknown.len();
    let mut a = vec![vec![0.0; m + 1]; m];
    for (i, &s) in unknown.iter().enumerate() {
        a[i][i] += 1.0;
        a[i][m] += constant(s);
        for &(t, p) in &rows[s] {
            match index(t) {
                Some(j) => a[i][j] -= p,
                None => a[i][m] += p * known(t),
            }
        }
    }
    for col in 0..m {
        let pivot = (col..m)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .unwrap();
        a.swap(col, pivot);
        let pivot_row = a[col].clone();
        for (row, entries) in a.iter_mut().enumerate() {
            if row != col {
                let factor = entries[col] / pivot_row[col];
                for (entry, pivot) in entries[col..].iter_mut().zip(&pivot_row[col..]) {
                    *entry -= factor * pivot;
                }
            }
        }
    }
    (0..m).map(|i| a[i][m] / a[i][i]).collect()
}

/// The probability of `left U right` in every state of a chain.
fn chain_until(rows: &[Vec<(usize, f64)>], left: &[bool], right: &[bool]) -> Vec<f64> {
    let reach = reaching(rows, left, right);
    let unknown: Vec<usize> = (0..rows.len()).filter(|&s| reach[s] && !right[s]).collect();
    let solved = solve_chain(rows, &unknown, |_| 0.0, |t| f64::from(u8::from(right[t])));
    (0..rows.len())
        .map(|s| match unknown.iter().position(|&u| u == s) {
            Some(i) => solved[i],
            None => f64::from(u8::from(right[s])),
        })
        .collect()
}

/// The reward accumulated until `target` in every state of a chain:
/// infinite where the target is missed with positive probability.
fn chain_reward(rows: &[Vec<(usize, f64)>], rewards: &[f64], target: &[bool]) -> Vec<f64> {
    let n = rows.len();
    let all = vec![true; n];
    let reach = reaching(rows, &all, target);
    let missing: Vec<bool> = reach.iter().map(|&r| !r).collect();
    let not_target: Vec<bool> = target.iter().map(|&t| !t).collect();
    let risky = reaching(rows, &not_target, &missing);
    let unknown: Vec<usize> = (0..n).filter(|&s| !risky[s] && !target[s]).collect();
    let solved = solve_chain(rows, &unknown, |s| rewards[s], |_| 0.0);
    (0..n)
        .map(|s| match unknown.iter().position(|&u| u == s) {
            Some(i) => solved[i],
            None if target[s] => 0.0,
            None => f64::INFINITY,
        })
        .collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// On random MDPs, every engine's interval contains the brute-force
    /// optimum, and is as narrow as asked.
    #[test]
    fn mdp_intervals_contain_the_brute_force_optimum(
        mdp in crate::mec::small_mdps(6),
        sets in proptest::collection::vec((proptest::bool::ANY, proptest::bool::weighted(0.25)), 6),
    ) {
        let n = mdp.states() as usize;
        let left: Vec<bool> = sets[..n].iter().map(|&(l, _)| l).collect();
        let right: Vec<bool> = sets[..n].iter().map(|&(_, r)| r).collect();
        let options = SolveOptions {
            precision: Precision { epsilon: 1e-9, relative: false },
            sound: true,
            max_iterations: 1_000_000,
            stop: StopSignal::new(),
        };
        for (optimum, maximise) in [(Optimum::Max, true), (Optimum::Min, false)] {
            let expected = brute_force(&mdp, &Objective::Until { left: &left, right: &right }, maximise);
            for outcome in [
                numeric::reference::until(&mdp, &left, &right, Some(optimum), &options),
                numeric::cpu::iterate(&mdp, numeric::reference::prepare(&mdp, &left, &right, Some(optimum)), &options, 2).outcome(true),
            ] {
                proptest::prop_assert!(outcome.converged);
                let bounds = outcome.error_bounds.unwrap();
                for s in 0..n {
                    proptest::prop_assert!(bounds[s] <= 1e-9);
                    proptest::prop_assert!(
                        (outcome.values[s] - expected[s]).abs() <= bounds[s] + 1e-12,
                        "{:?} state {}: {} ± {} vs {}", optimum, s, outcome.values[s], bounds[s], expected[s]
                    );
                }
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// On random MDPs with random rewards (some 0, so that end components
    /// without reward occur), every engine's Rmin and Rmax intervals
    /// contain the brute-force optimum, infinite values included.
    #[test]
    fn reward_intervals_contain_the_brute_force_optimum(
        mdp in crate::mec::small_mdps(6),
        states in proptest::collection::vec((0u8..3, proptest::bool::weighted(0.3)), 6),
    ) {
        let n = mdp.states() as usize;
        let rewards: Vec<f64> = states[..n].iter().map(|&(r, _)| f64::from(r) * 0.75).collect();
        let target: Vec<bool> = states[..n].iter().map(|&(_, t)| t).collect();
        for (optimum, maximise) in [(Optimum::Max, true), (Optimum::Min, false)] {
            let expected = brute_force(&mdp, &Objective::Reward { rewards: &rewards, target: &target }, maximise);
            let choice_rewards = numeric::reward::per_choice(&mdp, &rewards);
            let prepared = || numeric::reward::prepare(&mdp, &choice_rewards, &target, Some(optimum));
            for bounds in [
                numeric::reference::iterate(&mdp, prepared(), &tight_options()),
                numeric::cpu::iterate(&mdp, prepared(), &tight_options(), 2),
            ] {
                proptest::prop_assert!(bounds.converged);
                let outcome = bounds.outcome(true);
                let errors = outcome.error_bounds.unwrap();
                for s in 0..n {
                    let (value, bound) = (outcome.values[s], errors[s]);
                    if expected[s].is_infinite() {
                        proptest::prop_assert_eq!(value, expected[s], "{:?} state {}", optimum, s);
                    } else {
                        proptest::prop_assert!(bound <= 1e-9 * expected[s].max(1e-300) + 1e-300);
                        proptest::prop_assert!(
                            (value - expected[s]).abs() <= bound + 1e-9 * expected[s].abs() + 1e-12,
                            "{:?} state {}: {} ± {} vs {}", optimum, s, value, bound, expected[s]
                        );
                    }
                }
            }
        }
    }
}

/// Sound, relative precision 1e-9: the oracle rows' precision, and what
/// rewards need (they have no natural scale).
fn tight_options() -> SolveOptions {
    SolveOptions {
        precision: Precision {
            epsilon: 1e-9,
            relative: true,
        },
        sound: true,
        max_iterations: 10_000_000,
        stop: StopSignal::new(),
    }
}

/// On 200 random MDPs of up to 300 states, the GPU's intervals and the
/// reference's overlap (each value within the other's bound), for optimal
/// probabilities and rewards, in every ordering; infinite values equal.
#[test]
fn the_gpu_agrees_with_the_reference_on_random_mdps() {
    with_gpu(|device| {
        let options = SolveOptions {
            precision: Precision {
                epsilon: 1e-9,
                relative: false,
            },
            sound: true,
            max_iterations: 10_000_000,
            stop: StopSignal::new(),
        };
        for seed in 0..200 {
            let mdp = crate::mec::random_mdp(seed);
            let n = mdp.states() as usize;
            let left: Vec<bool> = (0..n).map(|s| s % 5 != 1).collect();
            let right: Vec<bool> = (0..n).map(|s| s % 7 == 3).collect();
            // Probabilities, and rewards of choices (a third earn nothing).
            let rewards: Vec<f64> = (0..mdp.choices()).map(|c| (c % 3) as f64 * 0.75).collect();
            let cases = [Optimum::Max, Optimum::Min]
                .into_iter()
                .flat_map(|optimum| [false, true].map(|reward| (optimum, reward)));
            for (optimum, reward) in cases {
                let prepared = || match reward {
                    false => numeric::reference::prepare(&mdp, &left, &right, Some(optimum)),
                    true => numeric::reward::prepare(&mdp, &rewards, &right, Some(optimum)),
                };
                let expected =
                    numeric::reference::iterate(&mdp, prepared(), &options).outcome(true);
                for (name, ordering) in orderings() {
                    let found =
                        numeric::gpu::iterate_ordered(device, &mdp, prepared(), &options, ordering)
                            .unwrap()
                            .outcome(true);
                    let case = format!("seed {seed} {optimum:?} reward {reward} {name}");
                    assert_intervals_meet(&expected, &found, &case);
                }
            }
        }
    });
}

/// The MDP of `mdp`'s first choice in every state that has one: a chain.
fn first_choices(mdp: &Mdp) -> Mdp {
    let choices = (0..mdp.states())
        .map(|state| {
            mdp.choices_of(state)
                .take(1)
                .map(|choice| {
                    let (targets, probabilities) = mdp.branches_of(choice);
                    targets
                        .iter()
                        .copied()
                        .zip(probabilities.iter().copied())
                        .collect()
                })
                .collect()
        })
        .collect();
    Mdp::from_choices(mdp.initial, choices).unwrap()
}

/// On 120 random MDPs (every twentieth of 60,000 states, whose first
/// waves run over the whole grid), the GPU's precomputations give exactly
/// the host's bounds and classes (constants included), for the
/// probability of a chain (each state's first choice) and the minimal one
/// of an MDP, and for the expected reward of the chain and the maximal one
/// of the MDP; the values that `gpu::solve_on_device` iterates to from
/// them lie within the reference's bounds (infinite ones equal).
#[test]
fn the_gpus_precomputations_equal_the_hosts() {
    with_gpu(|device| {
        let options = tight_options();
        for seed in 0..120 {
            let mdp = crate::mec::random_mdp_of(seed, (seed % 20 == 0).then_some(60_000));
            let chain = first_choices(&mdp);
            let n = mdp.states() as usize;
            let left: Vec<bool> = (0..n).map(|s| s % 5 != 1).collect();
            let right: Vec<bool> = (0..n).map(|s| s % 7 == 3).collect();
            let cases = [
                (&chain, None, false),
                (&mdp, Some(Optimum::Min), false),
                (&chain, None, true),
                (&mdp, Some(Optimum::Max), true),
            ];
            for (model, optimum, reward) in cases {
                let rewards: Vec<f64> = (0..model.choices())
                    .map(|c| (c % 3) as f64 * 0.75)
                    .collect();
                let (host, goal) = match reward {
                    false => (
                        numeric::reference::prepare(model, &left, &right, optimum),
                        numeric::gpu::Goal::Probability { left: &left },
                    ),
                    true => (
                        numeric::reward::prepare(model, &rewards, &right, optimum),
                        numeric::gpu::Goal::Reward {
                            choice_rewards: &rewards,
                        },
                    ),
                };
                let uploaded = numeric::gpu::DeviceMdp::upload(device, model).unwrap();
                let found =
                    numeric::gpu::precompute(device, model, &uploaded, goal, &right, optimum)
                        .unwrap()
                        .download(device)
                        .unwrap();
                let case = format!("seed {seed} {optimum:?} reward {reward}");
                assert_eq!(found.lower, host.lower, "{case}");
                assert_eq!(found.upper, host.upper, "{case}");
                assert_eq!(found.upper_known, host.upper_known, "{case}");
                assert_eq!(found.classes, host.classes, "{case}");
                let expected = numeric::reference::iterate(model, host, &options).outcome(true);
                let values =
                    numeric::gpu::solve_on_device(device, model, goal, &right, optimum, &options)
                        .unwrap()
                        .outcome(true);
                assert_intervals_meet(&expected, &values, &case);
            }
        }
    });
}

/// Both outcomes converged, and in every state their values are equal or
/// their intervals (value ± error bound) overlap.
fn assert_intervals_meet(expected: &numeric::Outcome, values: &numeric::Outcome, case: &str) {
    assert!(expected.converged && values.converged, "{case}");
    assert_eq!(expected.values.len(), values.values.len(), "{case}");
    let (a, b) = (
        expected.error_bounds.as_ref().unwrap(),
        values.error_bounds.as_ref().unwrap(),
    );
    for (s, (&x, &y)) in expected.values.iter().zip(&values.values).enumerate() {
        assert!(
            x == y || (x - y).abs() <= a[s] + b[s] + 1e-12,
            "{case} state {s}: {x} ± {} vs {y} ± {}",
            a[s],
            b[s]
        );
    }
}

/// `gpu::maximal_reach` finds the host's sets on random MDPs (six of
/// 60,000 states): Pmax > 0 as `exists_reach`, Pmax = 1 as
/// `exists_almost_surely`, through `left` and through every state (a
/// minimal reward's). From those sets `reference::maximum_from` and
/// `reward::with_finite` build the host's iterations, and `numeric::check`
/// on the GPU (which takes this path for `Pmax` and `Rmin`) gives values
/// within the reference's bounds.
#[test]
fn the_gpus_maximal_reachability_equals_the_hosts() {
    use numeric::qualitative::{Predecessors, exists_almost_surely, exists_reach};
    with_gpu(|device| {
        let options = tight_options();
        for seed in 0..120 {
            let mdp = crate::mec::random_mdp_of(seed, (seed % 20 == 0).then_some(60_000));
            let n = mdp.states() as usize;
            let every = vec![true; n];
            let some: Vec<bool> = (0..n).map(|s| s % 5 != 1).collect();
            let right: Vec<bool> = (0..n).map(|s| s % 7 == 3).collect();
            let predecessors = Predecessors::of(&mdp);
            let uploaded = numeric::gpu::DeviceMdp::upload(device, &mdp).unwrap();
            for left in [&some, &every] {
                let case = format!("seed {seed} left everywhere {}", left == &every);
                let found =
                    numeric::gpu::maximal_reach(device, &mdp, &uploaded, left, &right).unwrap();
                let positive = exists_reach(&predecessors, left, &right);
                assert_eq!(found.positive, positive, "{case}");
                let sure = exists_almost_surely(&mdp, &predecessors, left, &right);
                assert_eq!(found.almost_sure, sure, "{case}");
            }
            let model = ProbModel {
                model: ExplicitModel::Mdp(mdp.clone()),
                labels: {
                    let mut labels = warpcheck::explicit::StateLabels::default();
                    for (name, set) in [("a", &some), ("b", &right)] {
                        labels.insert(name, (0..n as u32).filter(|&s| set[s as usize]).collect());
                    }
                    labels
                },
                rewards: vec![warpcheck::explicit::RewardStructure {
                    name: None,
                    states: (0..n).map(|s| (s % 3) as f64 * 0.75).collect(),
                    moves: None,
                }],
            };
            for text in ["Pmax=? [ \"a\" U \"b\" ]", "Rmin=? [ F \"b\" ]"] {
                let property = property::parse(text).unwrap();
                let expected =
                    numeric::check(&model, &property, &options, Engine::Reference).unwrap();
                let values =
                    numeric::check(&model, &property, &options, Engine::Gpu(device)).unwrap();
                assert_intervals_meet(&expected, &values, &format!("seed {seed} {text}"));
            }
        }
    });
}

/// Rows long enough for the GPU to give each class a warp (40 branches a
/// state on average): the same intervals as the reference, for a
/// probability and a reward.
#[test]
fn the_gpu_agrees_with_the_reference_on_long_rows() {
    with_gpu(|device| {
        let options = tight_options();
        let n = 300u32;
        let mut seed = 7u64;
        let mut next = move |bound: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % bound
        };
        let choices = (0..n)
            .map(|_| {
                let targets: std::collections::BTreeSet<u32> =
                    (0..40).map(|_| next(u64::from(n)) as u32).collect();
                let weight = 1.0 / targets.len() as f64;
                vec![targets.into_iter().map(|t| (t, weight)).collect()]
            })
            .collect();
        let mdp = Mdp::from_choices(0, choices).unwrap();
        let goal: Vec<bool> = (0..n).map(|s| s % 29 == 3).collect();
        let all = vec![true; n as usize];
        let state_rewards: Vec<f64> = (0..n).map(|s| f64::from(s % 3)).collect();
        let rewards = numeric::reward::per_choice(&mdp, &state_rewards);
        for reward in [false, true] {
            let prepared = || match reward {
                false => numeric::reference::prepare(&mdp, &all, &goal, None),
                true => numeric::reward::prepare(&mdp, &rewards, &goal, None),
            };
            let expected = numeric::reference::iterate(&mdp, prepared(), &options).outcome(true);
            let found = numeric::gpu::iterate(device, &mdp, prepared(), &options)
                .unwrap()
                .outcome(true);
            assert!(expected.converged && found.converged);
            let (a, b) = (expected.error_bounds.unwrap(), found.error_bounds.unwrap());
            for s in 0..n as usize {
                assert!(
                    (expected.values[s] - found.values[s]).abs() <= a[s] + b[s] + 1e-12,
                    "reward {reward} state {s}: {} ± {} vs {} ± {}",
                    expected.values[s],
                    a[s],
                    found.values[s],
                    b[s]
                );
            }
        }
    });
}

/// A random MDP of `states` states whose branches all lead to higher
/// states, at most `reach` further (so no class reads a cycle, and a small
/// reach makes it deep): up to three choices a state, of up to three
/// branches; the last state has none, nor, where `dead` is not 0, every
/// `dead`-th from the 4th (so that probabilities lie between 0 and 1).
fn random_acyclic_mdp(seed: u64, states: u32, reach: u32, dead: u32) -> Mdp {
    let mut random = warpcheck::testing::graphs::SplitMix::new(seed);
    let mut next = |bound: u64| random.below(bound);
    let choices = (0..states)
        .map(|state| {
            let room = u64::from((states - 1 - state).min(reach));
            let count = match room == 0 || (dead > 0 && state % dead == 4) {
                true => 0,
                false => 1 + next(3),
            };
            (0..count)
                .map(|_| {
                    let branches = 1 + next(3);
                    (0..branches)
                        .map(|_| (state + 1 + next(room) as u32, 1.0 / branches as f64))
                        .collect()
                })
                .collect()
        })
        .collect();
    Mdp::from_choices(0, choices).unwrap()
}

/// The peel tests' properties of an MDP: the probability of reaching
/// `right` through `left` and the expected reward until `right`, minimal
/// and maximal.
const PEEL_CASES: [&str; 4] = ["Pmin", "Pmax", "Rmin", "Rmax"];

/// The iteration of `mdp` for `case`, one of [`PEEL_CASES`], with `right`
/// the last state and every `spacing`-th from the 7th, and `left` all
/// states but every `spacing`-th from the 5th.
fn peel_case(mdp: &Mdp, case: &str, spacing: usize) -> numeric::reference::Iteration {
    let n = mdp.states() as usize;
    let left: Vec<bool> = (0..n).map(|s| s % spacing != 5).collect();
    let right: Vec<bool> = (0..n).map(|s| s % spacing == 7 || s + 1 == n).collect();
    let rewards: Vec<f64> = (0..mdp.choices()).map(|c| (c % 3) as f64 * 0.75).collect();
    let optimum = Some(if case.ends_with("min") {
        Optimum::Min
    } else {
        Optimum::Max
    });
    match case.starts_with('P') {
        true => numeric::reference::prepare(mdp, &left, &right, optimum),
        false => numeric::reward::prepare(mdp, &rewards, &right, optimum),
    }
}

/// On random acyclic MDPs (up to 50,000 states and 16,000 deep, so that
/// the peel runs its waves in one block and over the grid), a peel left
/// to finish solves every class in one update each: one iteration, no
/// error bound, values within the reference's bounds; probabilities and
/// rewards, minimal and maximal.
#[test]
fn the_gpus_peel_solves_acyclic_models_in_one_update() {
    with_gpu(|device| {
        let options = tight_options();
        for seed in 0..30u64 {
            let (states, reach) = match seed % 10 {
                0 => (50_000, 3),
                _ => (200 + 37 * seed as u32, 1 + seed as u32 % 40),
            };
            let mdp = random_acyclic_mdp(seed, states, reach, 0);
            for name in PEEL_CASES {
                let case = format!("seed {seed} {name}");
                let expected =
                    numeric::reference::iterate(&mdp, peel_case(&mdp, name, 13), &options)
                        .outcome(true);
                let found = numeric::gpu::iterate_ordered(
                    device,
                    &mdp,
                    peel_case(&mdp, name, 13),
                    &options,
                    numeric::gpu::Ordering {
                        peel: numeric::gpu::PeelLimit::Waves(u64::MAX),
                        ..numeric::gpu::Ordering::AUTO
                    },
                )
                .unwrap()
                .outcome(true);
                assert!(
                    found.iterations <= 1,
                    "{case}: {} iterations",
                    found.iterations
                );
                let bounds = found.error_bounds.as_ref().unwrap();
                assert!(bounds.iter().all(|&b| b == 0.0), "{case}: an error bound");
                assert_intervals_meet(&expected, &found, &case);
            }
        }
    });
}

/// A chain of `states` states that moves on with probability 0.999 and
/// otherwise to a dead end (the last state), until its end (the state
/// before): the probability of reaching the end has a class a state,
/// `states - 2` deep.
fn leaky_chain(states: u32) -> Mdp {
    let sink = states - 1;
    let choices = (0..states)
        .map(|state| match state + 2 >= states {
            true => Vec::new(),
            false => vec![vec![(state + 1, 0.999), (sink, 0.001)]],
        })
        .collect();
    Mdp::from_choices(0, choices).unwrap()
}

/// A peel stopped after its first launch (1,024 waves of classes 7,000
/// deep) leaves the rest to the sweeps, which then sweep a list of
/// classes; no peel at all sweeps every class. Both agree with the
/// reference, as does the default limit: the probability of reaching the
/// end of a leaky chain, and the expected rewards of a random acyclic MDP
/// until its last state.
#[test]
fn a_peel_stopped_early_leaves_the_rest_to_the_sweeps() {
    use numeric::gpu::PeelLimit;
    with_gpu(|device| {
        let options = tight_options();
        let chain = leaky_chain(8_000);
        let mdp = random_acyclic_mdp(3, 8_000, 2, 0);
        let end: Vec<bool> = (0..8_000).map(|s| s == 7_998).collect();
        let every = vec![true; 8_000];
        for name in PEEL_CASES {
            let (model, prepared): (&Mdp, Box<dyn Fn() -> numeric::reference::Iteration>) =
                match name.starts_with('P') {
                    true => (
                        &chain,
                        Box::new(|| {
                            let optimum = Some(if name == "Pmin" {
                                Optimum::Min
                            } else {
                                Optimum::Max
                            });
                            numeric::reference::prepare(&chain, &every, &end, optimum)
                        }),
                    ),
                    false => (&mdp, Box::new(|| peel_case(&mdp, name, 8_000))),
                };
            let expected = numeric::reference::iterate(model, prepared(), &options).outcome(true);
            for limit in [PeelLimit::Waves(1), PeelLimit::Off, PeelLimit::Auto] {
                let case = format!("{name} {limit:?}");
                let ordering = numeric::gpu::Ordering {
                    peel: limit,
                    ..numeric::gpu::Ordering::AUTO
                };
                let found =
                    numeric::gpu::iterate_ordered(device, model, prepared(), &options, ordering)
                        .unwrap()
                        .outcome(true);
                if limit != PeelLimit::Auto {
                    assert!(found.iterations > 1, "{case}: no sweep");
                }
                assert_intervals_meet(&expected, &found, &case);
            }
        }
    });
}

/// `blocks` blocks of `size` states in a row, each strongly connected
/// (a state moves on, back, or to the next block's first state), the last
/// block leaving to a goal (the second last state) and, where `leak`, every
/// state with probability 0.05 to a dead end (the last state): a
/// condensation `blocks` deep.
fn blocks_in_a_row(blocks: u32, size: u32, leak: bool) -> Mdp {
    let states = blocks * size + 2;
    let (goal, dead) = (states - 2, states - 1);
    let choices = (0..states)
        .map(|state| {
            if state >= goal {
                return Vec::new();
            }
            let (block, place) = (state / size, state % size);
            let first = block * size;
            let exit = if block + 1 == blocks {
                goal
            } else {
                first + size
            };
            let mut branches = vec![
                (first + (place + 1) % size, 0.5),
                (first + (place + size - 1) % size, 0.3),
                (exit, if leak { 0.15 } else { 0.2 }),
            ];
            if leak {
                branches.push((dead, 0.05));
            }
            vec![branches]
        })
        .collect();
    Mdp::from_choices(0, choices).unwrap()
}

/// Orderings the GPU tests run: the default, stages however few classes
/// they hold, and neither peel nor stages.
fn orderings() -> [(&'static str, numeric::gpu::Ordering); 3] {
    use numeric::gpu::Ordering;
    let staged = Ordering {
        stage_classes: 1,
        ..Ordering::AUTO
    };
    [
        ("default", Ordering::AUTO),
        ("stages", staged),
        ("neither", Ordering::NONE),
    ]
}

/// Stopped after each of `limits` sweeps (tight options otherwise), the
/// GPU's bounds of `prepared()` of `mdp` in `ordering` enclose every
/// state's value in `expected` (within its error bound), infinite values
/// exactly.
fn assert_enclosed_when_cut(
    device: &warpcheck::gpu::Device,
    mdp: &Mdp,
    prepared: &dyn Fn() -> numeric::reference::Iteration,
    ordering: numeric::gpu::Ordering,
    limits: &[u64],
    expected: &numeric::Outcome,
    case: &str,
) {
    let errors = expected.error_bounds.as_ref().unwrap();
    for &most in limits {
        let cut = SolveOptions {
            max_iterations: most,
            ..tight_options()
        };
        let bounds =
            numeric::gpu::iterate_ordered(device, mdp, prepared(), &cut, ordering).unwrap();
        for (s, (&value, &error)) in expected.values.iter().zip(errors).enumerate() {
            let (lower, upper) = (bounds.lower[s], bounds.upper[s]);
            let slack = error + 1e-9 * value.abs() + 1e-12;
            let encloses = match value.is_infinite() {
                true => lower == value && upper == value,
                false => lower <= value + slack && upper >= value - slack,
            };
            assert!(
                encloses,
                "{case}, {most} sweeps, state {s}: {value} not in [{lower}, {upper}]"
            );
        }
    }
}

/// Blocks in a row (40 of them, more than the 32 stages, so that stages
/// hold several heights), as probabilities and expected rewards, in every
/// ordering, to the precision and cut short: the same intervals as the
/// reference, bounds that enclose its values.
#[test]
fn stages_of_components_agree_with_the_reference() {
    with_gpu(|device| {
        let options = tight_options();
        for (leak, size) in [(true, 7), (false, 7), (true, 1), (false, 300)] {
            let mdp = blocks_in_a_row(40, size, leak);
            let n = mdp.states() as usize;
            let goal: Vec<bool> = (0..n).map(|s| s + 2 == n).collect();
            let every = vec![true; n];
            let rewards: Vec<f64> = (0..mdp.choices()).map(|c| 1.0 + (c % 3) as f64).collect();
            let prepared = || match leak {
                true => numeric::reference::prepare(&mdp, &every, &goal, None),
                false => numeric::reward::prepare(&mdp, &rewards, &goal, None),
            };
            assert!(prepared().classes.count() >= 40, "leak {leak}");
            let expected = numeric::reference::iterate(&mdp, prepared(), &options).outcome(true);
            for (name, ordering) in orderings() {
                let case = format!("leak {leak} size {size} {name}");
                let found =
                    numeric::gpu::iterate_ordered(device, &mdp, prepared(), &options, ordering)
                        .unwrap()
                        .outcome(true);
                assert_intervals_meet(&expected, &found, &case);
                let limits = [1, 5, 30, 100];
                assert_enclosed_when_cut(
                    device, &mdp, &prepared, ordering, &limits, &expected, &case,
                );
            }
        }
    });
}

/// Where the sweeps stop before the precision (an iteration limit of 1 to
/// 12), in every ordering, every state's bounds still enclose its value
/// (8 of these 60 random MDPs collapse states), also in the classes
/// of several states that minimal rewards collapse end components into
/// (the upper bounds not proven are infinite in all their states).
#[test]
fn bounds_cut_short_still_enclose_the_values() {
    with_gpu(|device| {
        let options = tight_options();
        let mut collapsed = 0;
        for seed in 0..60 {
            let mdp = crate::mec::random_mdp(seed);
            let n = mdp.states() as usize;
            let right: Vec<bool> = (0..n).map(|s| s % 7 == 3).collect();
            let rewards: Vec<f64> = (0..mdp.choices()).map(|c| (c % 3) as f64 * 0.75).collect();
            let prepared = || numeric::reward::prepare(&mdp, &rewards, &right, Some(Optimum::Min));
            let classes = prepared().classes;
            collapsed += usize::from(classes.members.len() > classes.count());
            let exact = numeric::reference::iterate(&mdp, prepared(), &options).outcome(true);
            assert!(exact.converged, "seed {seed}");
            let limits: Vec<u64> = (1..=12).collect();
            for (name, ordering) in orderings() {
                let case = format!("seed {seed}, {name}");
                assert_enclosed_when_cut(device, &mdp, &prepared, ordering, &limits, &exact, &case);
            }
        }
        assert!(
            collapsed >= 5,
            "only {collapsed} iterations collapse states"
        );
    });
}

/// A DTMC's choice rewards in a UMB archive are rewards per step of their
/// states: leader_sync's UMB twin gives the value its `.srew` (Storm's
/// folding of the same rewards into states) gives.
#[test]
fn umb_choice_rewards_of_a_dtmc_are_per_step_rewards() {
    let from_umb = umb::load(&data("prob").join("leader_sync-4-4.umb")).unwrap();
    let from_text = model_in(&data("prob"), "leader_sync-4-4").unwrap();
    let property = property::parse("R{\"num_rounds\"}=? [ F \"elected\" ]").unwrap();
    let [a, b] = [&from_umb, &from_text].map(|model| {
        numeric::check(model, &property, &tight_options(), Engine::Reference).unwrap()
    });
    let initial = from_umb.model.initial() as usize;
    let (x, y) = (a.values[initial], b.values[initial]);
    let bounds = a.error_bounds.unwrap()[initial] + b.error_bounds.unwrap()[initial];
    assert!(a.converged && (x - y).abs() <= bounds + 1e-14, "{x} vs {y}");
    assert_eq!(
        from_umb.rewards[0].moves.as_ref(),
        Some(&from_text.rewards[0].states)
    );
}

/// Checks that `property` has the value `expected` in the initial state of
/// `model`, within the bound reported (at most 1e-9 relative) and 1e-10
/// relative for rounding (as [`check_oracles`] allows), on the reference
/// and the CPU engine.
fn assert_value(model: &ProbModel, property: &str, expected: f64) {
    let parsed = property::parse(property).unwrap();
    let initial = model.model.initial() as usize;
    for engine in [Engine::Reference, Engine::Cpu(2)] {
        let outcome = numeric::check(model, &parsed, &tight_options(), engine)
            .unwrap_or_else(|e| panic!("{property}: {e}"));
        let (value, bound) = (
            outcome.values[initial],
            outcome.error_bounds.unwrap()[initial],
        );
        assert!(
            outcome.converged
                && bound <= 1e-9 * expected.abs()
                && (value - expected).abs() <= bound + 1e-10 * expected.abs(),
            "{property}: {value} ± {bound} vs {expected}"
        );
    }
}

/// Writes `files` (name, text) into `dir` and loads `m.tra` from it, with
/// the `.lab`, `.srew` and `.trew` beside it.
fn prism_model(dir: &Path, files: &[(&str, &str)]) -> ProbModel {
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    prism::load(&dir.join("m.tra"), None, None).unwrap()
}

/// Transition rewards (`.trew`) with state rewards (`.srew`), against
/// values computed by hand. The chain: 0 → 1 (earning 2) and 0 → 2
/// (earning 4), 1 → 0 (earning 1), 2 → 0 (earning nothing); state 1
/// earns 1.
/// - DTMC, both moves of 0 with probability 1/2: until 2, x0 = 3 + x1/2
///   and x1 = 1 + 1 + x0, so x0 = 8; in the long run the chain is in 0,
///   1, 2 for 1/2, 1/4, 1/4 of the steps and earns 3, 2, 0 per step:
///   2 per step.
/// - CTMC, rates 0 → 1: 1, 0 → 2: 3, 1 → 0: 2, 2 → 0: 4 (state 1's
///   reward is a rate): a jump from 0 earns (1·2 + 3·4)/4 = 3.5 on
///   average, a stay in 1 earns 1 · 1/2, so x0 = 3.5 + x1/4 and
///   x1 = 1.5 + x0: x0 = 31/6. In the long run π = (4/9, 2/9, 3/9), and
///   the reward rate is π1 · 1 + Σ π(s) Σ rate · reward = 2/9 + 4/9 · 14
///   + 2/9 · 2 = 62/9.
/// - MDP, state 0 choosing `a` → 1 (earning 5) or `b` → 1 (earning 1) or
///   2 (earning 3) with probability 1/2 each; 1 → 2 earning 1: until 2,
///   Rmax = 5 + 1 = 6 and Rmin = (1 + 1)/2 + 3/2 = 2.5.
#[test]
fn transition_rewards_give_the_values_computed_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let labels = ("m.lab", "0=\"init\" 1=\"two\"\n0: 0\n2: 1\n");
    let trew = ("m.trew", "3 3\n0 1 2\n0 2 4\n1 0 1\n");
    let srew = (
        "m.srew",
        "# Reward structure \"r\"\n# State rewards\n3 1\n1 1\n",
    );
    let dtmc = prism_model(
        dir.path(),
        &[
            ("m.tra", "3 4\n0 1 0.5\n0 2 0.5\n1 0 1\n2 0 1\n"),
            labels,
            trew,
            srew,
        ],
    );
    assert_eq!(dtmc.rewards[0].name.as_deref(), Some("r"));
    assert_value(&dtmc, "R{\"r\"}=? [ F \"two\" ]", 8.0);
    assert_value(&dtmc, "R=? [ S ]", 2.0);
    let ctmc = prism_model(
        dir.path(),
        &[
            ("m.tra", "3 4\n0 1 1\n0 2 3\n1 0 2\n2 0 4\n"),
            labels,
            trew,
            srew,
        ],
    );
    assert_value(&ctmc, "R=? [ F \"two\" ]", 31.0 / 6.0);
    assert_value(&ctmc, "R=? [ S ]", 62.0 / 9.0);
    // Files beside each other that name different structures are refused.
    std::fs::write(
        dir.path().join("m.trew"),
        format!("# Reward structure \"s\"\n{}", trew.1),
    )
    .unwrap();
    let error = prism::load(&dir.path().join("m.tra"), None, None).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: names the reward structure \"s\", but the .srew beside it names \"r\"",
            dir.path().join("m.trew").display()
        )
    );
    std::fs::remove_file(dir.path().join("m.srew")).unwrap();
    let mdp = prism_model(
        dir.path(),
        &[
            (
                "m.tra",
                "3 4 5\n0 0 1 1\n0 1 1 0.5\n0 1 2 0.5\n1 0 2 1\n2 0 2 1\n",
            ),
            labels,
            ("m.trew", "3 4 4\n0 0 1 5\n0 1 1 1\n0 1 2 3\n1 0 2 1\n"),
        ],
    );
    assert_eq!(mdp.rewards[0].name, None);
    assert_value(&mdp, "Rmax=? [ F \"two\" ]", 6.0);
    assert_value(&mdp, "Rmin=? [ F \"two\" ]", 2.5);
}

/// Choice rewards of a UMB archive are earned each time the choice is
/// taken, in MDPs and CTMCs too. csma-2-2's `time` (an action reward of
/// the PRISM model) gives the exact values of the Quantitative
/// Verification Benchmark Set (Storm 1.2.4, exact arithmetic: 227630345357
/// / 3221225472 and 53954981353 / 805306368). kanban-2's `throughput`
/// (an action reward of a CTMC, earned at the rate its transitions are
/// taken) gives 0.17387170617784925, which an independent Gauss–Seidel
/// solution of the generator (Python, to 1e-13) also gives; the benchmark
/// set lists 0.1739051212 from Storm's floating-point solver, 2·10⁻⁴
/// away, a solver whose error on kanban-1 is 10⁻⁵ against its exact
/// value.
#[test]
fn umb_choice_rewards_of_mdps_and_ctmcs_are_earned_per_move() {
    let csma = umb::load(&data("prob").join("csma-2-2.umb")).unwrap();
    assert_value(
        &csma,
        "R{\"time\"}max=? [ F \"all_delivered\" ]",
        227630345357.0 / 3221225472.0,
    );
    assert_value(
        &csma,
        "R{\"time\"}min=? [ F \"all_delivered\" ]",
        53954981353.0 / 805306368.0,
    );
    let kanban = umb::load(&data("prob").join("kanban-2.umb")).unwrap();
    assert_value(&kanban, "R{\"throughput\"}=? [ S ]", 0.17387170617784925);
}

/// Each property gets its own result or its own error: in JSON an `error`
/// field (null when the value is there), in text the message in place of
/// the value, and the exit code of the worst (an error over an incomplete
/// value). A `--srew` and a `--trew` of one name make one structure.
#[test]
fn each_property_gets_its_own_result_or_error() {
    let dir = tempfile::tempdir().unwrap();
    let trew = dir.path().join("die.trew");
    // One coin flip per move: as many as the flips of specs/die.srew.
    let text = std::fs::read_to_string("specs/die.tra").unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.retain(|line| !line.trim().is_empty());
    let mut trew_text = String::new();
    for line in &lines[1..] {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields[0] != fields[1] {
            trew_text += &format!("{} {} 1\n", fields[0], fields[1]);
        }
    }
    let entries = trew_text.lines().count();
    let states = lines[0].split_whitespace().next().unwrap();
    std::fs::write(&trew, format!("{states} {entries}\n{trew_text}")).unwrap();
    let trew_arg = format!("flips={}", trew.display());
    let (code, report) = die_report(&[
        "--trew",
        &trew_arg,
        "--property",
        "R{\"flips\"}=? [ F \"done\" ]",
        "--property",
        "P=? [ F \"seven\" ]",
        "--property",
        "P=? [ F \"six\" ]",
        "--max-iterations",
        "3",
    ]);
    assert_eq!(code, Some(2), "{report}");
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(results[0]["error"], serde_json::Value::Null);
    assert!(results[0]["value"].as_f64().is_some(), "{}", results[0]);
    assert_eq!(results[1]["value"], serde_json::Value::Null);
    assert_eq!(
        results[1]["error"].as_str(),
        Some(
            "column 9: unknown label \"seven\" (the model has: \"init\", \"deadlock\", \"done\", \
             \"six\")"
        )
    );
    assert_eq!(results[2]["converged"].as_bool(), Some(false));
    // The transition rewards count the flips of specs/die.srew: 11/3.
    let (code, report) = die_report(&[
        "--trew",
        &trew_arg,
        "--property",
        "R{\"flips\"}=? [ F \"done\" ]",
        "--precision",
        "1e-9",
    ]);
    assert_eq!(code, Some(0));
    let result = &report["results"][0];
    let (value, bound) = (
        result["value"].as_f64().unwrap(),
        result["error_bound"].as_f64().unwrap(),
    );
    assert!(
        (value - 11.0 / 3.0).abs() <= bound && bound <= 1e-9,
        "{result}"
    );
    // In text, the message stands in place of the value.
    let output = warpcheck(&[
        "prob",
        "specs/die.tra",
        "--property",
        "P=? [ F \"seven\" ]",
        "--property",
        "P=? [ F \"six\" ]",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("P=? [ F \"seven\" ]: error: column 9: unknown label \"seven\"")
            && stdout.contains("P=? [ F \"six\" ]: 0.1666"),
        "{stdout}"
    );
    // A second file of one kind for one structure is refused.
    let output = warpcheck(&[
        "prob",
        "specs/die.tra",
        "--trew",
        &trew_arg,
        "--trew",
        &trew_arg,
        "--property",
        "P=? [ F \"six\" ]",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!(
            "error: --trew {trew_arg}: the reward structure \"flips\" has a --trew file already\n"
        )
    );
}

/// Every reward row of `oracles.tsv` whose model is bundled, with its
/// state rewards moved onto the transitions as a `.trew` file: each
/// transition earns its source's reward (in a CTMC, the rate times the
/// mean holding time, what a visit earns), which gives the same expected
/// and long-run rewards, so the oracle's value.
#[test]
fn state_rewards_moved_onto_transitions_give_the_oracles_values() {
    let dir = tempfile::tempdir().unwrap();
    let trew = dir.path().join("m.trew");
    let mut checked = 0;
    for row in oracle_rows(&data("prob").join("oracles.tsv")) {
        let (name, text) = (&row["instance"], &row["property"]);
        let Some(mut model) = model_in(&data("prob"), name).filter(|_| text.starts_with('R'))
        else {
            continue;
        };
        let reward_name = text.split('"').nth(1).map(str::to_string);
        let property = property::parse(text).unwrap();
        let states = numeric::reward::structure(&model, reward_name.as_deref())
            .unwrap()
            .states
            .clone();
        let mut lines = Vec::new();
        match &model.model {
            ExplicitModel::Dtmc(chain) | ExplicitModel::Ctmc(chain) => {
                let ctmc = matches!(model.model, ExplicitModel::Ctmc(_));
                for source in 0..chain.states() {
                    let (targets, rates) = chain.row(source);
                    let exit: f64 = rates.iter().sum();
                    let earned = states[source as usize] / if ctmc { exit } else { 1.0 };
                    lines.extend(targets.iter().map(|t| format!("{source} {t} {earned:e}")));
                }
            }
            ExplicitModel::Mdp(mdp) => {
                for source in 0..mdp.states() {
                    let choices = mdp.choices_of(source);
                    for choice in choices.clone() {
                        let local = choice - choices.start;
                        let earned = states[source as usize];
                        lines.extend(
                            mdp.branches_of(choice)
                                .0
                                .iter()
                                .map(|t| format!("{source} {local} {t} {earned:e}")),
                        );
                    }
                }
            }
        }
        let header = match &model.model {
            ExplicitModel::Mdp(mdp) => format!("{} {}", mdp.states(), mdp.choices()),
            chain => chain.states().to_string(),
        };
        std::fs::write(
            &trew,
            format!("{header} {}\n{}\n", lines.len(), lines.join("\n")),
        )
        .unwrap();
        let mut moved = prism::parse_trew(&std::fs::read(&trew).unwrap(), &trew, &model.model)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        moved.name = reward_name;
        model.rewards = vec![moved];
        assert_value(&model, &property.text, row["value"].parse().unwrap());
        checked += 1;
    }
    assert_eq!(checked, 7);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// On random MDPs, the states of Pmax = 1 that one backward search
    /// finds once the end components are collapsed are those of the
    /// rounds of `exists_almost_surely`.
    #[test]
    fn pmax_one_after_collapsing_is_the_nested_fixed_point(
        mdp in crate::mec::small_mdps(8),
        sets in proptest::collection::vec((proptest::bool::weighted(0.8), proptest::bool::weighted(0.2)), 8),
    ) {
        use numeric::qualitative::{self, Predecessors};
        use numeric::reference::{ChoiceRule, Classes};
        let n = mdp.states() as usize;
        let left: Vec<bool> = sets[..n].iter().map(|&(l, _)| l).collect();
        let right: Vec<bool> = sets[..n].iter().map(|&(_, r)| r).collect();
        let predecessors = Predecessors::of(&mdp);
        let zero: Vec<bool> = qualitative::exists_reach(&predecessors, &left, &right)
            .iter()
            .map(|&p| !p)
            .collect();
        let maybe: Vec<bool> = (0..n).map(|s| !zero[s] && !right[s]).collect();
        let classes = Classes::collapsing_end_components(&mdp, &maybe, &ChoiceRule::ALL);
        let sure = qualitative::almost_surely_collapsed(&mdp, &predecessors, &classes, &zero);
        let mut found = right.clone();
        for class in (0..classes.count()).filter(|&class| sure[class]) {
            for &state in classes.states(class) {
                found[state as usize] = true;
            }
        }
        let expected = qualitative::exists_almost_surely(&mdp, &predecessors, &left, &right);
        proptest::prop_assert_eq!(found, expected);
    }
}
