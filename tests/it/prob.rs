//! `warpcheck prob`: every probability of `../shared/prob/oracles.tsv`
//! that the engines compute (DTMC `P=?`, MDP `Pmin=?`/`Pmax=?`, bounded
//! or not; CTMC untimed `P=?`) reproduced within the error bound reported, on the bundled
//! models always and on the others when the shared folder is present;
//! the command's report and its errors.

use std::path::{Path, PathBuf};

use warpcheck::explicit::Mdp;
use warpcheck::explicit::ProbModel;
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
    let options = SolveOptions {
        precision: Precision {
            epsilon: 1e-9,
            relative: true,
        },
        sound: true,
        max_iterations: 10_000_000,
        deadline: None,
    };
    let mut checked = 0;
    let mut failures = Vec::new();
    for row in oracle_rows(&data("prob").join("oracles.tsv")) {
        let (name, text) = (&row["instance"], &row["property"]);
        let computable = text.starts_with('P');
        let Some(model) = computable
            .then(|| dirs.iter().find_map(|dir| model_in(dir, name)))
            .flatten()
        else {
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

#[test]
fn bundled_models_give_the_oracles_values() {
    for engine in [Engine::Reference, Engine::Cpu(3)] {
        assert_eq!(check_oracles(&[data("prob")], engine), 16);
    }
}

#[test]
fn shared_models_give_the_oracles_values() {
    let Some(dir) = shared("prob") else {
        println!("SKIPPED: ../shared/prob is not present");
        return;
    };
    for engine in [Engine::Reference, Engine::Cpu(3)] {
        assert_eq!(check_oracles(&[data("prob"), dir.clone()], engine), 27);
    }
}

/// The GPU's iterations give the oracles' values within the bounds they
/// report, on the bundled models and, when present, the shared ones.
#[test]
fn the_gpu_gives_the_oracles_values() {
    with_gpu(|device| {
        let mut dirs = vec![data("prob")];
        dirs.extend(shared("prob"));
        let expected = if dirs.len() == 2 { 27 } else { 16 };
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
    std::process::Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
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

/// Errors: exit 2 with the property's column, the model's type, the file
/// and line of a properties file; exit 3 with the bound reached when the
/// precision is not.
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

/// The optimal probability of `left U right` in every state of a small
/// MDP, by brute force: every memoryless deterministic scheduler (they
/// suffice for reachability), each induced chain solved exactly enough by
/// Gaussian elimination on the states that reach `right` with positive
/// probability. A state without a choice stays where it is.
fn brute_force(mdp: &Mdp, left: &[bool], right: &[bool], maximise: bool) -> Vec<f64> {
    let n = mdp.states() as usize;
    let counts: Vec<u64> = (0..n as u32)
        .map(|s| mdp.choices_of(s).count() as u64)
        .collect();
    let schedulers: u64 = counts.iter().map(|&c| c.max(1)).product();
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
        // States that reach `right` through `left` with positive probability.
        let mut reach = right.to_vec();
        loop {
            let grown: Vec<bool> = (0..n)
                .map(|s| reach[s] || (left[s] && rows[s].iter().any(|&(t, p)| p > 0.0 && reach[t])))
                .collect();
            if grown == reach {
                break;
            }
            reach = grown;
        }
        let unknown: Vec<usize> = (0..n).filter(|&s| reach[s] && !right[s]).collect();
        let index = |s: usize| unknown.iter().position(|&u| u == s);
        // (I - P) x = b on the unknown states.
        let m = unknown.len();
        let mut a = vec![vec![0.0; m + 1]; m];
        for (i, &s) in unknown.iter().enumerate() {
            a[i][i] += 1.0;
            for &(t, p) in &rows[s] {
                match index(t) {
                    Some(j) => a[i][j] -= p,
                    None if right[t] => a[i][m] += p,
                    None => {}
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
        for s in 0..n {
            let value = if right[s] {
                1.0
            } else {
                index(s).map_or(0.0, |i| a[i][m] / a[i][i])
            };
            best[s] = if maximise {
                best[s].max(value)
            } else {
                best[s].min(value)
            };
        }
    }
    best
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
            deadline: None,
        };
        for (optimum, maximise) in [(Optimum::Max, true), (Optimum::Min, false)] {
            let expected = brute_force(&mdp, &left, &right, maximise);
            for outcome in [
                numeric::reference::until(&mdp, &left, &right, Some(optimum), &options),
                numeric::cpu::iterate(&mdp, numeric::reference::prepare(&mdp, &left, &right, Some(optimum)), &options, 2),
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

/// On 200 random MDPs of up to 300 states, the GPU's intervals and the
/// reference's overlap: each value within the other's bound.
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
            deadline: None,
        };
        for seed in 0..200 {
            let mdp = crate::mec::random_mdp(seed);
            let n = mdp.states() as usize;
            let left: Vec<bool> = (0..n).map(|s| s % 5 != 1).collect();
            let right: Vec<bool> = (0..n).map(|s| s % 7 == 3).collect();
            for optimum in [Optimum::Max, Optimum::Min] {
                let prepared = || numeric::reference::prepare(&mdp, &left, &right, Some(optimum));
                let expected = numeric::reference::iterate(&mdp, prepared(), &options);
                let found = numeric::gpu::iterate(device, &mdp, prepared(), &options).unwrap();
                assert!(expected.converged && found.converged, "seed {seed}");
                let (a, b) = (expected.error_bounds.unwrap(), found.error_bounds.unwrap());
                for s in 0..n {
                    assert!(
                        (expected.values[s] - found.values[s]).abs() <= a[s] + b[s] + 1e-12,
                        "seed {seed} {optimum:?} state {s}: {} ± {} vs {} ± {}",
                        expected.values[s],
                        a[s],
                        found.values[s],
                        b[s]
                    );
                }
            }
        }
    });
}
