//! Maximal end components: every engine's MECs equal Storm's, file for
//! file, on the bundled MDPs and those of `../shared/prob` when present;
//! on random small MDPs the multi-core engine agrees with the reference
//! and the reference with a brute-force search of the definition; and the
//! `mec` command's exit codes, reports and files. Without a GPU the GPU
//! test prints SKIPPED.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use proptest::prelude::*;
use warpcheck::explicit::{ExplicitModel, Mdp};
use warpcheck::frontend::{prism, umb};
use warpcheck::mec::{self, MecSummary, Mecs, NO_MEC};
use warpcheck::scc::cpu::Method;

use crate::gpu::with_gpu;

const METHODS: [Method; 2] = [Method::Coloring, Method::ForwardBackward];

/// `tests/data/prob`.
fn bundled() -> PathBuf {
    crate::repo_root().join("tests/data/prob")
}

/// `../shared/prob`, when it is present.
fn shared() -> Option<PathBuf> {
    crate::explicit_inputs::shared("prob")
}

/// Every MDP of `dir` with a Storm `.mec` file: its name, the MDP (from
/// the `.tra` or `.tra.gz`, else the `.umb`) and the `.mec` text, by name.
fn storm_cases(dir: &Path) -> Vec<(String, Mdp, String)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".mec").map(str::to_string)
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let plain = dir.join(format!("{name}.tra"));
            let gzipped = dir.join(format!("{name}.tra.gz"));
            let model = if plain.exists() {
                prism::load(&plain, None, None).unwrap().model
            } else if gzipped.exists() {
                prism::load(&gzipped, None, None).unwrap().model
            } else {
                umb::load(&dir.join(format!("{name}.umb"))).unwrap().model
            };
            let ExplicitModel::Mdp(mdp) = model else {
                panic!("{name} is not an MDP");
            };
            let expected = std::fs::read_to_string(dir.join(format!("{name}.mec"))).unwrap();
            (name, mdp, expected)
        })
        .collect()
}

/// The counts of `mecs.tsv` for `name`: MECs, states in MECs, largest.
fn tsv_summary(name: &str) -> Option<MecSummary> {
    let text = std::fs::read_to_string(bundled().join("mecs.tsv")).unwrap();
    text.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split('\t').collect();
        (fields[0] == name).then(|| MecSummary {
            mecs: fields[2].parse().unwrap(),
            states_in_mecs: fields[3].parse().unwrap(),
            largest_mec: fields[4].parse().unwrap(),
        })
    })
}

/// Whether `found` has the MECs of the reference's `expected`, in no more
/// iterations: a fast engine decomposes only the components that lost
/// something, and stops as soon as none of them keeps a live state,
/// where the textbook loop runs one more decomposition to see nothing
/// change.
fn same_mecs(found: &Mecs, expected: &Mecs) -> bool {
    found.mecs == expected.mecs
        && found.of_state == expected.of_state
        && found.iterations <= expected.iterations
}

/// [`same_mecs`] as an assertion, `context` naming the case.
fn assert_same_mecs(found: &Mecs, expected: &Mecs, context: &str) {
    assert_eq!(found.mecs, expected.mecs, "{context}");
    assert_eq!(found.of_state, expected.of_state, "{context}");
    assert!(
        found.iterations <= expected.iterations,
        "{context}: {} iterations, the reference {}",
        found.iterations,
        expected.iterations
    );
}

/// Checks the reference and the CPU engine (both methods, 1 and 2
/// threads) against the Storm files of `dir`; returns how many MDPs.
fn check_against_storm(dir: &Path) -> usize {
    let cases = storm_cases(dir);
    for (name, mdp, expected) in &cases {
        let reference = mec::reference(mdp);
        assert_eq!(&reference.to_lines(), expected, "{name}: reference");
        assert_eq!(
            Some(reference.summary()),
            tsv_summary(name),
            "{name}: mecs.tsv"
        );
        for method in METHODS {
            for threads in [1, 2] {
                assert_same_mecs(
                    &mec::cpu(mdp, method, threads),
                    &reference,
                    &format!("{name}: cpu {method:?} {threads} threads"),
                );
            }
        }
    }
    cases.len()
}

#[test]
fn bundled_mdps_have_storms_mecs() {
    assert_eq!(check_against_storm(&bundled()), 5);
}

#[test]
fn shared_mdps_have_storms_mecs() {
    let Some(dir) = shared() else {
        warpcheck::testing::skipped(format_args!("../shared/prob is not present"));
        return;
    };
    assert_eq!(check_against_storm(&dir), 7);
}

#[test]
fn the_gpu_engine_gives_storms_mecs() {
    let mut cases = storm_cases(&bundled());
    if let Some(dir) = shared() {
        cases.extend(storm_cases(&dir));
    }
    with_gpu(|device| {
        let mut failures = Vec::new();
        for (name, mdp, expected) in &cases {
            for method in METHODS {
                match mec::gpu(device, mdp, method) {
                    Ok(mecs) if &mecs.to_lines() == expected => {}
                    Ok(_) => failures.push(format!("{name} {method:?}: MECs differ")),
                    Err(e) => failures.push(format!("{name} {method:?}: {e}")),
                }
            }
        }
        // Random MDPs of up to 300 states, the module doc's example (whose
        // MEC is {u} alone) and three of 2·10^5 states, where every pass
        // runs on many blocks and the loop on many candidates.
        let mut random: Vec<(String, Mdp)> = (0..200)
            .map(|seed| (format!("random {seed}"), random_mdp(seed)))
            .collect();
        random.push(("u, v, x".to_string(), the_module_docs_mdp()));
        random.extend(
            (0..3).map(|seed| (format!("large {seed}"), random_mdp_of(seed, Some(200_000)))),
        );
        for (name, mdp) in &random {
            let expected = mec::reference(mdp);
            for method in METHODS {
                match mec::gpu(device, mdp, method) {
                    Ok(mecs) if same_mecs(&mecs, &expected) => {}
                    Ok(mecs) => failures.push(format!(
                        "{name} {method:?}: MECs differ: {} found, {} expected; same MECs: \
                         {}; {} iterations, the reference {}",
                        mecs.count(),
                        expected.count(),
                        mecs.mecs == expected.mecs,
                        mecs.iterations,
                        expected.iterations
                    )),
                    Err(e) => failures.push(format!("{name} {method:?}: {e}")),
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

/// The MDP of the module doc of `warpcheck::mec`: `u: a -> {v, x}, b -> {u}`
/// and `v: c -> {u}`, with `x` absorbing; the MECs are `{u}` and `{x}`.
fn the_module_docs_mdp() -> Mdp {
    let (u, v, x) = (0, 1, 2);
    Mdp::from_choices(
        u,
        vec![
            vec![vec![(v, 0.5), (x, 0.5)], vec![(u, 1.0)]],
            vec![vec![(u, 1.0)]],
            vec![vec![(x, 1.0)]],
        ],
    )
    .unwrap()
}

#[test]
fn the_module_docs_example_has_the_mecs_u_and_x() {
    let mdp = the_module_docs_mdp();
    let expected = vec![vec![0], vec![2]];
    assert_eq!(mec::reference(&mdp).mecs, expected);
    for method in METHODS {
        assert_eq!(mec::cpu(&mdp, method, 2).mecs, expected, "{method:?}");
    }
}

/// An MDP of up to 300 states from `seed` by a fixed linear congruential
/// generator: a few choices per state, most to nearby states, so that
/// end components of several sizes form.
pub(crate) fn random_mdp(seed: usize) -> Mdp {
    random_mdp_of(seed, None)
}

/// [`random_mdp`], of `states` states when given.
pub(crate) fn random_mdp_of(seed: usize, states: Option<u32>) -> Mdp {
    let mut x = (seed as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = |bound: u64| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) % bound
    };
    let drawn = 1 + next(300) as u32;
    let states = states.unwrap_or(drawn);
    let choices = (0..states)
        .map(|state| {
            (0..next(4))
                .map(|_| {
                    let branches = 1 + next(3);
                    (0..branches)
                        .map(|_| {
                            let target = if next(10) < 8 {
                                (state + next(7) as u32).saturating_sub(3) % states
                            } else {
                                next(u64::from(states)) as u32
                            };
                            (target, 1.0 / branches as f64)
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    Mdp::from_choices(0, choices).unwrap()
}

/// MDPs of 1 to `max_states` states, 0 to 3 choices a state, 1 to 3
/// branches a choice, to any state, with equal probabilities.
pub(crate) fn small_mdps(max_states: u32) -> impl Strategy<Value = Mdp> {
    (1..=max_states)
        .prop_flat_map(|states| {
            prop::collection::vec(
                prop::collection::vec(prop::collection::vec(0..states, 1..=3), 0..=3),
                states as usize,
            )
        })
        .prop_map(|choices| {
            let nested = choices
                .into_iter()
                .map(|state_choices| {
                    state_choices
                        .into_iter()
                        .map(|targets| {
                            let probability = 1.0 / targets.len() as f64;
                            targets.into_iter().map(|t| (t, probability)).collect()
                        })
                        .collect()
                })
                .collect();
            Mdp::from_choices(0, nested).unwrap()
        })
}

/// Whether the states of the bit set `set` form an end component: each
/// has a choice whose branches all stay in `set`, and those choices'
/// branches connect `set` strongly.
fn is_end_component(mdp: &Mdp, set: u32) -> bool {
    let states = mdp.states();
    let members = || (0..states).filter(move |s| set & (1 << s) != 0);
    let mut successors = vec![0u32; states as usize];
    for state in members() {
        for choice in mdp.choices_of(state) {
            let reached = mdp
                .branches_of(choice)
                .0
                .iter()
                .fold(0u32, |bits, &t| bits | (1 << t));
            if reached & !set == 0 {
                successors[state as usize] |= reached;
            }
        }
        if successors[state as usize] == 0 {
            return false;
        }
    }
    let first = set.trailing_zeros();
    let mut forward = 1u32 << first;
    let mut backward = 1u32 << first;
    loop {
        let mut grown_forward = forward;
        let mut grown_backward = backward;
        for state in members() {
            if forward & (1 << state) != 0 {
                grown_forward |= successors[state as usize];
            }
            if successors[state as usize] & backward != 0 {
                grown_backward |= 1 << state;
            }
        }
        if (grown_forward, grown_backward) == (forward, backward) {
            return forward == set && backward == set;
        }
        (forward, backward) = (grown_forward, grown_backward);
    }
}

/// The MECs by the definition: every end component's state set, the
/// maximal ones kept, as ascending lists by smallest state.
fn brute_force_mecs(mdp: &Mdp) -> Vec<Vec<u32>> {
    let states = mdp.states();
    let components: Vec<u32> = (1..1u32 << states)
        .filter(|&set| is_end_component(mdp, set))
        .collect();
    let mut maximal: Vec<u32> = components
        .iter()
        .copied()
        .filter(|&set| {
            !components
                .iter()
                .any(|&other| other != set && other & set == set)
        })
        .collect();
    maximal.sort_by_key(|set| set.trailing_zeros());
    maximal
        .into_iter()
        .map(|set| (0..states).filter(|s| set & (1 << s) != 0).collect())
        .collect()
}

/// `of_state` as the lists of `mecs` give it.
fn assert_consistent(mecs: &Mecs, states: u32) {
    let mut expected = vec![NO_MEC; states as usize];
    for (number, mec) in mecs.mecs.iter().enumerate() {
        for &state in mec {
            expected[state as usize] = number as u32;
        }
    }
    assert_eq!(mecs.of_state, expected);
}

proptest! {
    #[test]
    fn the_reference_meets_the_definition(mdp in small_mdps(7)) {
        let mecs = mec::reference(&mdp);
        prop_assert_eq!(&mecs.mecs, &brute_force_mecs(&mdp));
        assert_consistent(&mecs, mdp.states());
    }

    #[test]
    fn the_cpu_engine_gives_the_reference_mecs(mdp in small_mdps(40)) {
        let expected = mec::reference(&mdp);
        for method in METHODS {
            let found = mec::cpu(&mdp, method, 2);
            prop_assert!(same_mecs(&found, &expected), "{:?}: {:?} against {:?}", method, found, expected);
        }
    }
}

#[test]
fn the_cpu_engine_gives_the_reference_mecs_on_larger_mdps() {
    for seed in 0..40 {
        let mdp = random_mdp(seed);
        let expected = mec::reference(&mdp);
        assert_consistent(&expected, mdp.states());
        for method in METHODS {
            assert_same_mecs(
                &mec::cpu(&mdp, method, 2),
                &expected,
                &format!("seed {seed} {method:?}"),
            );
        }
    }
}

// The command.

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
fn the_json_report_has_every_field() {
    let o = warpcheck(&[
        "mec",
        "tests/data/prob/csma-2-2.tra",
        "--engine",
        "cpu",
        "--threads",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut fields: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    fields.sort_unstable();
    assert_eq!(
        fields,
        [
            "choices",
            "decompose_seconds",
            "elapsed_seconds",
            "engine",
            "exit_code",
            "input",
            "iterations",
            "kernel_seconds",
            "largest_mec",
            "load_seconds",
            "mecs",
            "mecs_file",
            "method",
            "states",
            "states_in_mecs",
            "transitions",
            "warnings",
        ]
    );
    assert_eq!(report["input"], "tests/data/prob/csma-2-2.tra");
    assert_eq!(report["states"], 1038);
    assert_eq!(report["choices"], 1054);
    assert_eq!(report["transitions"], 1282);
    assert_eq!(report["mecs"], 3);
    assert_eq!(report["states_in_mecs"], 3);
    assert_eq!(report["largest_mec"], 1);
    assert_eq!(
        report["iterations"],
        mec::cpu(&csma(), Method::ForwardBackward, 2).iterations
    );
    assert_eq!(report["engine"], "cpu (2 threads)");
    assert_eq!(report["method"], "forward-backward");
    assert_eq!(report["mecs_file"], serde_json::Value::Null);
    assert_eq!(report["kernel_seconds"], serde_json::Value::Null);
    assert_eq!(report["warnings"], serde_json::json!([]));
    assert_eq!(report["exit_code"], 0);
    assert!(report["elapsed_seconds"].as_f64().unwrap() >= 0.0);
}

fn csma() -> Mdp {
    match prism::load(&bundled().join("csma-2-2.tra"), None, None)
        .unwrap()
        .model
    {
        ExplicitModel::Mdp(mdp) => mdp,
        _ => panic!("csma-2-2 is an MDP"),
    }
}

#[test]
fn write_mecs_gives_storms_file_from_either_format() {
    let dir = tempfile::tempdir().unwrap();
    for (input, engine) in [
        ("tests/data/prob/consensus-2-4.tra", "reference"),
        ("tests/data/prob/consensus-2-4.umb", "cpu"),
        ("tests/data/prob/resource-gathering-200-15-15.umb", "auto"),
    ] {
        let out = dir.path().join("out.mec");
        let o = warpcheck(&[
            "mec",
            input,
            "--engine",
            engine,
            "--write-mecs",
            out.to_str().unwrap(),
            "-q",
        ]);
        assert_eq!(o.status.code(), Some(0), "{input}: {}", stderr(&o));
        assert_eq!(stdout(&o), "", "{input}");
        let expected = Path::new(input).with_extension("mec");
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            std::fs::read_to_string(crate::repo_root().join(expected)).unwrap(),
            "{input}"
        );
    }
}

#[test]
fn the_bundled_example_reports_its_mecs_in_text() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("example.mec");
    let o = warpcheck(&[
        "mec",
        "specs/mec_example.tra",
        "--engine",
        "reference",
        "--write-mecs",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(crate::repo_root().join("specs/mec_example.mec")).unwrap()
    );
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..6],
        [
            "input: specs/mec_example.tra (8 states, 12 choices, 16 transitions)",
            "maximal end components: 4",
            "states in MECs: 7",
            "largest MEC: 3 states",
            "iterations: 3",
            "engine: reference",
        ]
    );
    assert!(lines[6].starts_with("time: load "), "{text}");
    assert_eq!(lines[7], format!("MECs written to {}", out.display()));
    assert_eq!(lines.len(), 8, "{text}");
}

#[test]
fn markov_chains_are_refused_with_the_reason() {
    let o = warpcheck(&["mec", "tests/data/prob/brp-32-3.tra"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: tests/data/prob/brp-32-3.tra: the model is a DTMC, not an MDP; mec decomposes \
         MDPs only (the end components of a Markov chain are its bottom strongly connected \
         components)\n"
    );
    let o = warpcheck(&["mec", "tests/data/prob/embedded-2.umb", "--engine", "cpu"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .starts_with("error: tests/data/prob/embedded-2.umb: the model is a CTMC, not an MDP;"),
        "{}",
        stderr(&o)
    );
    let o = warpcheck(&["mec", "tests/data/prob/csma-2-2.tra", "--type", "dtmc"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: --type dtmc: mec decomposes MDPs only (the end components of a Markov chain \
         are its bottom strongly connected components)\n"
    );
    let o = warpcheck(&[
        "mec",
        "tests/data/prob/brp-32-3.tra",
        "--type",
        "mdp",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let error: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(error["exit_code"], 2);
    assert!(
        error["error"]
            .as_str()
            .unwrap()
            .starts_with("tests/data/prob/brp-32-3.tra:"),
        "{error}"
    );
}

#[test]
fn bad_inputs_and_outputs_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let o = warpcheck(&["mec", "specs/philosophers3.net"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: specs/philosophers3.net: mec reads PRISM explicit transitions (.tra, .tra.gz) \
         or UMB archives (.umb)\n"
    );
    let missing = dir.path().join("none.tra");
    let o = warpcheck(&["mec", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("error: "), "{}", stderr(&o));
    let broken = dir.path().join("broken.tra");
    std::fs::write(&broken, "2 2 2\n0 0 1 1\n1 0 0 x\n").unwrap();
    let o = warpcheck(&["mec", broken.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with(&format!("error: {}:3:", broken.display())),
        "{}",
        stderr(&o)
    );
    let o = warpcheck(&[
        "mec",
        "specs/mec_example.tra",
        "--write-mecs",
        "specs/mec_example.tra",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: --write-mecs specs/mec_example.tra: this is the model file; refusing to \
         overwrite it\n"
    );
    let o = warpcheck(&[
        "mec",
        "specs/mec_example.tra",
        "--write-mecs",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "error: --write-mecs {}: is a directory\n",
            dir.path().display()
        )
    );
    let o = warpcheck(&["mec", "specs/mec_example.tra", "--threads", "0"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn engine_gpu_without_a_gpu_is_a_usage_error_and_auto_falls_back() {
    let o = warpcheck(&["mec", "specs/mec_example.tra", "--engine", "gpu"]);
    assert_eq!(o.status.code(), Some(2));
    let message = stderr(&o);
    assert!(message.starts_with("error: --engine gpu: "), "{message}");
    assert_eq!(message.lines().count(), 1, "{message}");
    let o = warpcheck(&[
        "mec",
        "specs/mec_example.tra",
        "--device",
        "1",
        "--method",
        "forward-backward",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        report["engine"].as_str().unwrap().starts_with("cpu ("),
        "{report}"
    );
    assert_eq!(report["method"], "forward-backward");
    assert_eq!(
        report["warnings"],
        serde_json::json!(["--device only affects the GPU engine, which does not run here"])
    );
    assert_eq!(report["mecs"], 4);
}
