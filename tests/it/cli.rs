//! End-to-end tests of the `warpcheck` command: exit codes, messages,
//! reports and the files it writes. The reference engine is named so the
//! tests do not depend on the machine's GPU or core count.

use std::path::Path;
use std::process::{Command, Output};

use warpcheck::encode::EncodedNetwork;
use warpcheck::explore::{SearchOptions, reference};
use warpcheck::frontend;
use warpcheck::testing;

fn warpcheck(args: &[&str]) -> Output {
    Command::new(crate::warpcheck_binary())
        .args(args)
        .current_dir(crate::repo_root())
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).expect("stdout is one JSON object")
}

#[test]
fn deadlock_is_reported_with_a_shortest_trace_and_exit_1() {
    let o = warpcheck(&[
        "check",
        "specs/philosophers3.net",
        "--deadlock",
        "--engine",
        "reference",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("specs/philosophers3.net: deadlock found\ntrace (3 steps):\n"));
    assert!(text.contains("  1. left_0       phil0: think -> hold, fork0: free -> taken\n"));
    assert!(text.contains(
        "  reached: phil0=hold phil1=hold phil2=hold fork0=taken fork1=taken fork2=taken\n"
    ));
}

#[test]
fn json_report_follows_the_documented_schema() {
    let o = warpcheck(&[
        "check",
        "specs/mutex_bad.net",
        "--property",
        "mutex",
        "--engine",
        "reference",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["verdict"], "property-violated");
    assert_eq!(v["message"], "property `mutex` violated");
    assert_eq!(v["exit_code"], 1);
    assert_eq!(v["property"], "mutex");
    assert_eq!(v["complete"], false);
    assert_eq!(v["completion"], "stopped-at-finding");
    assert_eq!(v["warnings"], serde_json::json!([]));
    let steps = v["trace"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(v["trace"]["final"].as_array().unwrap().len(), 4);
    let last = v["trace"]["final"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["process"] == "mutex")
        .unwrap();
    assert_eq!(last["state"], "both");
    for key in [
        "states",
        "transitions",
        "depth",
        "deadlocks",
        "violations",
        "monitor_blocked",
        "vector_words",
        "vector_bits",
        "load_seconds",
        "search_seconds",
        "states_per_second",
        "memory_bytes",
        "bytes_per_state",
    ] {
        assert!(v[key].is_number(), "{key} missing");
    }
    assert_eq!(v["storage"], "plain");
}

#[test]
fn correct_system_satisfies_its_property_with_exit_0() {
    let o = warpcheck(&[
        "check",
        "specs/mutex_ok.net",
        "--property",
        "mutex",
        "--deadlock",
        "--engine",
        "reference",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["verdict"], "no-violation");
    assert_eq!(v["message"], "no deadlock, property `mutex` holds");
    assert_eq!(v["complete"], true);
    assert!(v["trace"].is_null());
}

#[test]
fn unknown_property_is_a_usage_error() {
    let o = warpcheck(&["check", "specs/mutex_ok.net", "--property", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: specs/mutex_ok.net: no property named `nope`; defined: mutex\n"
    );
}

#[test]
fn missing_file_and_unknown_format_are_bad_input() {
    let o = warpcheck(&["check", "specs/none.net"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: specs/none.net: No such file or directory (os error 2)\n"
    );
    let o = warpcheck(&["info", "Cargo.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: Cargo.toml: unknown model format: expected a file ending in .net, .aut, .exp or .pnml\n"
    );
}

#[test]
fn syntax_errors_reach_the_user_with_their_location() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.net");
    std::fs::write(&path, "process p { init a; a -x-> }\n").unwrap();
    let expected = frontend::load(&path).unwrap_err().to_string();
    let prefix = format!("{}:1:", path.display());
    assert!(expected.starts_with(&prefix), "{expected}");
    let o = warpcheck(&["check", path.to_str().unwrap(), "--deadlock"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o), format!("error: {expected}\n"));
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    assert_eq!(warpcheck(&[]).status.code(), Some(2));
    assert_eq!(
        warpcheck(&["check", "x.net", "--engine", "fast"])
            .status
            .code(),
        Some(2)
    );
    let help = warpcheck(&["check", "--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(stdout(&help).contains("3    exploration incomplete"));
    let group = warpcheck(&["check", "x.net", "--group-threads", "3"]);
    assert_eq!(group.status.code(), Some(2));
    assert!(
        stderr(&group).contains(
            "invalid value '3' for '--group-threads <N>': `3` is not one of 1, 2, 4, 8, 16, 32"
        ),
        "{}",
        stderr(&group)
    );
}

/// A search split over processes (`--ranks`) is checked before any GPU is
/// asked for: the rank's range, the engine, and --livelock.
#[test]
fn ranks_of_a_split_search_are_checked() {
    let model = "specs/philosophers3.net";
    let fails = |args: &[&str], expected: &str| {
        let o = warpcheck(&[&["check", model], args].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&o), expected, "{args:?}");
    };
    let split = ["--ranks", "2", "--rendezvous", "job.id"];
    fails(
        &[&split[..], &["--rank", "2"]].concat(),
        "error: --rank 2 with --ranks 2: ranks are numbered from 0 to 1\n",
    );
    fails(
        &[&split[..], &["--rank", "1", "--engine", "cpu"]].concat(),
        "error: --ranks splits a GPU search; --engine cpu runs none\n",
    );
    fails(
        &[&split[..], &["--rank", "0", "--livelock"]].concat(),
        "error: --ranks: --livelock runs on one GPU\n",
    );
    let o = warpcheck(&["check", model, "--ranks", "2", "--rank", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with(
            "error: the following required arguments were not provided:\n  --rendezvous <FILE>"
        ),
        "{}",
        stderr(&o)
    );
    let o = warpcheck(&[&["check", model, "--gpus", "2", "--rank", "0"], &split[..]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("error: the argument '--gpus <N|all>' cannot be used with '--ranks"),
        "{}",
        stderr(&o)
    );
    // No file is left where the rendezvous would have been.
    assert!(!crate::repo_root().join("job.id").exists());
}

#[test]
fn state_limit_gives_exit_3_and_no_verdict() {
    let o = warpcheck(&[
        "check",
        "specs/philosophers3.net",
        "--deadlock",
        "--max-states",
        "3",
        "--engine",
        "reference",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(3));
    let v = json(&o);
    assert_eq!(v["verdict"], "incomplete");
    assert_eq!(v["states"], 3);
    assert_eq!(v["complete"], false);
    assert_eq!(v["completion"], "state-limit");
}

#[test]
fn trace_out_writes_the_path_as_aut() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("trace.aut");
    let o = warpcheck(&[
        "check",
        "specs/philosophers3.net",
        "--deadlock",
        "--engine",
        "reference",
        "--trace-out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let lts = frontend::aut::load_lts(&out).unwrap();
    assert_eq!(lts.state_names.len(), 4);
    let labels: Vec<&str> = lts
        .transitions
        .iter()
        .map(|t| lts.labels[t.label as usize].as_str())
        .collect();
    assert_eq!(labels, ["left_0", "left_1", "left_2"]);
}

#[test]
fn exported_state_space_reads_back_with_the_same_counts() {
    let dir = tempfile::tempdir().unwrap();
    for model in ["specs/philosophers3.net", "specs/traffic_light.net"] {
        let out = dir.path().join("space.aut");
        let o = warpcheck(&["explore", model, "--write-aut", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let direct = reference::explore(
            &EncodedNetwork::new(&frontend::load(Path::new(model)).unwrap()).unwrap(),
            &SearchOptions {
                keep_going: true,
                ..SearchOptions::default()
            },
        );
        let lts = frontend::aut::load_lts(&out).unwrap();
        assert_eq!(lts.state_names.len() as u64, direct.states);
        assert_eq!(lts.transitions.len() as u64, direct.transitions);
        let reread = reference::explore(
            &EncodedNetwork::new(&frontend::aut::load_network(&out).unwrap()).unwrap(),
            &SearchOptions {
                keep_going: true,
                check_deadlock: true,
                ..SearchOptions::default()
            },
        );
        assert_eq!(
            (reread.states, reread.transitions),
            (direct.states, direct.transitions)
        );
    }
}

#[test]
fn info_describes_the_vector() {
    let o = warpcheck(&["info", "specs/philosophers3.net"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(text.contains("processes: 6 (15 local states, "));
    assert!(text.contains("synchronisation rules: 9\n"));
    assert!(text.contains("state vector: 9 bits used, 1 words of 32 bits (4 bytes)\n"));
}

#[test]
fn generated_family_instances_have_their_formula_counts() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("barrier.net");
    let o = warpcheck(&["generate", "barrier", "2", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = warpcheck(&[
        "check",
        out.to_str().unwrap(),
        "--deadlock",
        "--engine",
        "reference",
        "--format",
        "json",
    ]);
    let expected = warpcheck::generate::barrier_expected(2);
    let v = json(&o);
    assert_eq!(v["states"].as_u64().map(u128::from), Some(expected.states));
    assert_eq!(
        v["transitions"].as_u64().map(u128::from),
        Some(expected.transitions)
    );
    let o = warpcheck(&["generate", "philosophers", "100000000"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("100000000 is not in 0..=1000000"),
        "{}",
        stderr(&o)
    );
    let o = warpcheck(&["generate", "philosophers", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: philosophers needs a size of at least 2, got 1\n"
    );
}

#[test]
fn converted_petri_net_keeps_its_state_space() {
    let dir = tempfile::tempdir().unwrap();
    for model in [
        "tests/data/mcc/Peterson-PT-2/model.pnml",
        "tests/data/mcc/Philosophers-PT-000005/model.pnml",
    ] {
        let out = dir.path().join("converted.net");
        let o = warpcheck(&["convert", model, "--to", "net", "-o", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let figures = |path: &str| {
            let v = json(&warpcheck(&[
                "check",
                path,
                "--deadlock",
                "--all",
                "--engine",
                "reference",
                "--format",
                "json",
            ]));
            (
                v["states"].clone(),
                v["transitions"].clone(),
                v["deadlocks"].clone(),
            )
        };
        assert_eq!(figures(model), figures(out.to_str().unwrap()), "{model}");
    }
}

/// The transitions of a deterministic LTS (no state has two outgoing
/// transitions of one label) renumbered breadth-first from the initial
/// state, following labels in sorted order: equal for two such LTSs
/// exactly when they are isomorphic. `None` for a nondeterministic LTS.
fn canonical_transitions(lts: &warpcheck::model::Lts) -> Option<Vec<(u32, String, u32)>> {
    let mut outgoing = vec![Vec::new(); lts.state_names.len()];
    for t in &lts.transitions {
        outgoing[t.source as usize].push((lts.labels[t.label as usize].clone(), t.target));
    }
    let mut number = vec![None; lts.state_names.len()];
    number[lts.initial as usize] = Some(0u32);
    let mut queue = std::collections::VecDeque::from([lts.initial]);
    let mut next = 1;
    let mut edges = Vec::new();
    while let Some(state) = queue.pop_front() {
        let out = &mut outgoing[state as usize];
        out.sort();
        if out.windows(2).any(|pair| pair[0].0 == pair[1].0) {
            return None;
        }
        for (label, target) in out.iter() {
            let target_number = *number[*target as usize].get_or_insert_with(|| {
                queue.push_back(*target);
                next += 1;
                next - 1
            });
            edges.push((number[state as usize]?, label.clone(), target_number));
        }
    }
    edges.sort();
    Some(edges)
}

#[test]
fn cpu_engine_exports_the_same_state_space_as_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let export = |model: &str, engine: &[&str], name: &str| {
        let out = dir.path().join(name);
        let mut args = vec!["explore", model, "--write-aut", out.to_str().unwrap()];
        args.extend_from_slice(engine);
        let o = warpcheck(&args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{model} {engine:?}: {}",
            stderr(&o)
        );
        frontend::aut::load_lts(&out).unwrap()
    };
    let specs = ["specs/philosophers3.net", "specs/traffic_light.net"];
    let mcc = [
        "tests/data/mcc/ERK-PT-000001/model.pnml",
        "tests/data/mcc/Peterson-PT-2/model.pnml",
        "tests/data/mcc/SafeBus-PT-03/model.pnml",
        "tests/data/mcc/Raft-PT-02/model.pnml",
    ];
    for model in specs.iter().chain(&mcc) {
        let reference = export(model, &["--engine", "reference"], "reference.aut");
        let reference_shape = testing::numbering_free_shape(&reference);
        let reference_canonical = canonical_transitions(&reference);
        if specs.contains(model) {
            assert!(reference_canonical.is_some(), "{model} is deterministic");
        }
        for threads in ["1", "2"] {
            let cpu = export(model, &["--engine", "cpu", "--threads", threads], "cpu.aut");
            let context = format!("{model} with {threads} thread(s)");
            assert_eq!(cpu.initial, 0, "{context}");
            assert_eq!(
                (cpu.state_names.len(), cpu.transitions.len()),
                (reference.state_names.len(), reference.transitions.len()),
                "{context}"
            );
            assert_eq!(
                testing::numbering_free_shape(&cpu),
                reference_shape,
                "{context}"
            );
            assert_eq!(
                canonical_transitions(&cpu),
                reference_canonical,
                "{context}"
            );
        }
    }
}

#[test]
fn cpu_export_of_an_incomplete_search_writes_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("space.aut");
    let o = warpcheck(&[
        "explore",
        "specs/philosophers3.net",
        "--write-aut",
        out.to_str().unwrap(),
        "--engine",
        "cpu",
        "--threads",
        "2",
        "--max-states",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "error: exploration incomplete: the --max-states limit was reached; no verdict ({} \
             not written)\n",
            out.display()
        )
    );
    assert!(!out.exists());
}

#[test]
fn a_full_cpu_table_gives_exit_3_and_asks_for_more_memory() {
    let o = warpcheck(&[
        "check",
        "tests/data/mcc/Raft-PT-02/model.pnml",
        "--deadlock",
        "--engine",
        "cpu",
        "--threads",
        "2",
        "--memory",
        "4096",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with(
            "tests/data/mcc/Raft-PT-02/model.pnml: exploration incomplete: the state table is \
             full; no verdict (give more --memory)\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("\nstates: "),
        "the figures so far are printed: {text}"
    );
    assert!(!text.contains("note:"), "{text}");
}

#[test]
fn cpu_engine_tells_where_its_time_went_at_debug_level() {
    let o = warpcheck(&[
        "check",
        "specs/philosophers3.net",
        "--engine",
        "cpu",
        "--threads",
        "2",
        "--format",
        "json",
        "-vv",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let depth = json(&o)["depth"].as_u64().unwrap();
    let err = stderr(&o);
    let line = err
        .lines()
        .find(|l| l.contains("cpu engine:"))
        .unwrap_or_else(|| panic!("no time split in {err:?}"));
    // Piped, not a terminal: no colour codes.
    assert!(!line.contains('\u{1b}'), "{line:?}");
    assert!(
        line.starts_with(&format!(
            "DEBUG warpcheck::explore::cpu: cpu engine: 2 threads, {depth} levels, 0 growths; \
             of the threads' time, "
        )),
        "{line:?}"
    );
    assert!(
        line.contains("% waiting at the ends of levels, "),
        "{line:?}"
    );
    assert!(line.contains(" ms deciding at barriers"), "{line:?}");
}

/// Runs warpcheck with no GPU visible, so that what happens without a GPU
/// is tested on GPU machines too.
fn warpcheck_without_gpu(args: &[&str]) -> Output {
    Command::new(crate::warpcheck_binary())
        .args(args)
        .current_dir(crate::repo_root())
        .env("CUDA_VISIBLE_DEVICES", "-1")
        .output()
        .expect("the binary runs")
}

#[test]
fn engine_gpu_without_a_gpu_is_a_usage_error_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("space.aut");
    let check = [
        "check",
        "specs/philosophers3.net",
        "--deadlock",
        "--engine",
        "gpu",
    ];
    let explore = [
        "explore",
        "specs/philosophers3.net",
        "--write-aut",
        out.to_str().unwrap(),
        "--engine",
        "gpu",
    ];
    for args in [&check[..], &explore[..]] {
        let o = warpcheck_without_gpu(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: --engine gpu: no GPU available: "),
            "{args:?}: {err}"
        );
        assert!(stdout(&o).is_empty(), "{args:?}");
    }
    assert!(!out.exists());
    let o = warpcheck_without_gpu(&[&check[..], &["--format", "json"]].concat());
    assert_eq!(o.status.code(), Some(2));
    let report = json(&o);
    assert_eq!(report["exit_code"], 2);
    assert!(
        report["error"]
            .as_str()
            .unwrap()
            .starts_with("--engine gpu: no GPU available: "),
        "{report}"
    );
}

#[test]
fn engine_auto_without_a_gpu_notes_the_cpu_fallback_unless_quiet() {
    let args = [
        "check",
        "specs/philosophers3.net",
        "--deadlock",
        "--threads",
        "2",
    ];
    let o = warpcheck_without_gpu(&args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("note: no GPU could be opened (no GPU available: ")
            && err.ends_with("); using the CPU engine\n"),
        "{err}"
    );
    assert!(stdout(&o).contains("cpu (2 threads)"), "{}", stdout(&o));
    let o = warpcheck_without_gpu(&[&args[..], &["-q"]].concat());
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), "");
}

#[test]
fn help_lists_every_exit_code() {
    let help = stdout(&warpcheck(&["check", "--help"]));
    for code in [
        "0    checked, no violation found",
        "1    violation found",
        "2    bad input or usage",
        "3    exploration incomplete",
        "4    internal or device failure",
        "141  standard output was closed",
    ] {
        assert!(help.contains(code), "{code}: {help}");
    }
}

/// Writes the `barrier` family instance of size `k` (13^k states) into
/// `dir` and returns its path: a model too large to finish in a test.
fn large_model(dir: &Path, k: usize) -> String {
    let path = dir.join(format!("barrier{k}.net"));
    std::fs::write(&path, warpcheck::generate::barrier(k).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn thread_counts_are_validated() {
    for bad in ["100000", "0", "-3"] {
        let o = warpcheck(&[
            "check",
            "specs/philosophers3.net",
            &format!("--threads={bad}"),
        ]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(
            stderr(&o).contains("for '--threads <N>'"),
            "{bad}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_closed_pipe_ends_quietly_with_141_and_a_full_disk_is_an_error() {
    use std::process::Stdio;
    let mut child = Command::new(crate::warpcheck_binary())
        .args(["generate", "philosophers", "20000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(141), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");

    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = Command::new(crate::warpcheck_binary())
        .args(["info", "specs/philosophers3.net"])
        .current_dir(crate::repo_root())
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: cannot write standard output: No space left on device (os error 28)\n"
    );
}

#[test]
fn output_paths_are_checked_before_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.net");
    std::fs::copy("specs/philosophers3.net", &model).unwrap();
    let model = model.to_str().unwrap();
    let before = std::fs::read_to_string(model).unwrap();
    let o = warpcheck(&["check", model, "--deadlock", "--trace-out", model]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!("error: --trace-out {model}: this is the model file; refusing to overwrite it\n")
    );
    assert!(stdout(&o).is_empty(), "no search ran");
    let o = warpcheck(&["explore", model, "--write-aut", model]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = warpcheck(&["convert", model, "--to", "net", "-o", model]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(model).unwrap(), before);

    let unwritable = dir.path().join("missing/t.aut");
    let o = warpcheck(&[
        "check",
        model,
        "--deadlock",
        "--trace-out",
        unwritable.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with(&format!("error: cannot write {}: ", unwritable.display())),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty(), "no search ran");
}

#[test]
fn the_reference_engine_keeps_to_the_memory_limit() {
    let o = warpcheck(&[
        "check",
        "tests/data/mcc/Raft-PT-02/model.pnml",
        "--deadlock",
        "--engine",
        "reference",
        "--memory",
        "64K",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["completion"], "memory-limit");
    assert!(v["memory_bytes"].as_u64().unwrap() <= 64 << 10, "{v}");
    assert!(v["states"].as_u64().unwrap() > 100, "{v}");
}

#[test]
fn figures_are_defined_and_honest() {
    let o = warpcheck(&[
        "check",
        "specs/philosophers3.net",
        "--deadlock",
        "--engine",
        "reference",
    ]);
    let text = stdout(&o);
    assert!(
        text.contains("\ndepth: 3 (breadth-first levels completed)\n"),
        "{text}"
    );
    assert!(text.contains("\ntime: load "), "{text}");
    assert!(
        text.ends_with("note: the search stopped at the first finding (--all explores the rest)\n")
    );
    // A complete search: depth is the largest distance, and no note.
    let o = warpcheck(&[
        "check",
        "specs/philosophers3.net",
        "--engine",
        "reference",
        "--format",
        "json",
    ]);
    let v = json(&o);
    let network = frontend::load(Path::new("specs/philosophers3.net")).unwrap();
    let net = EncodedNetwork::new(&network).unwrap();
    let mut builder = warpcheck::explicit::LabelledGraphBuilder::new(net.actions.clone());
    let all = SearchOptions {
        keep_going: true,
        ..SearchOptions::default()
    };
    reference::explore_into(&net, &all, &mut builder).unwrap();
    let levels = testing::bfs_level_sizes(&builder.into_graph().unwrap().edges);
    assert_eq!(v["depth"].as_u64(), Some(levels.len() as u64 - 1));
    assert_eq!(v["completion"], "complete");
    let text = stdout(&warpcheck(&[
        "check",
        "specs/philosophers3.net",
        "--engine",
        "reference",
    ]));
    assert!(!text.contains("note:"), "{text}");
}

#[test]
fn option_mistakes_give_warnings() {
    let o = warpcheck(&[
        "check",
        "specs/philosophers3.net",
        "--deadlock",
        "--engine",
        "cpu",
        "--no-trace",
        "--trace-out",
        "never.aut",
        "--blocks",
        "4",
        "--tree-roots",
        "pairs",
        "--device",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "warning: --trace-out has no effect with --no-trace: no trace is kept\n\
         warning: --device, --blocks, --tree-roots only affect the GPU engine, which does not run here\n"
    );
    assert!(!Path::new("never.aut").exists());
}

#[test]
fn a_timeout_ends_the_search_with_the_figures_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let model = large_model(dir.path(), 8);
    for engine in ["reference", "cpu"] {
        let started = std::time::Instant::now();
        let o = warpcheck(&[
            "check",
            &model,
            "--deadlock",
            "--engine",
            engine,
            "--timeout",
            "0.5",
            "--format",
            "json",
        ]);
        assert_eq!(o.status.code(), Some(3), "{engine}: {}", stderr(&o));
        assert!(started.elapsed().as_secs() < 30, "{engine}");
        let v = json(&o);
        assert_eq!(v["completion"], "interrupted", "{engine}");
        assert_eq!(
            v["message"],
            "exploration incomplete: the --timeout of 0.5 s was reached; no verdict"
        );
        assert!(v["states"].as_u64().unwrap() > 1000, "{engine}: {v}");
    }
}

/// `warpcheck ARGS`, interrupted as by Ctrl-C (SIGINT) after 0.8 s.
pub(crate) fn interrupted(args: &[&str]) -> Output {
    use std::process::Stdio;
    let child = Command::new(crate::warpcheck_binary())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(800));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    child.wait_with_output().unwrap()
}

#[test]
fn ctrl_c_ends_the_search_with_the_figures_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let model = large_model(dir.path(), 8);
    let o = interrupted(&["check", &model, "--deadlock", "--engine", "cpu", "-q"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with(&format!(
            "{model}: exploration incomplete: interrupted (Ctrl-C); no verdict\n"
        )),
        "{text}"
    );
    assert!(text.contains("\nstates: "), "{text}");
}

#[test]
fn every_command_reports_errors_as_json_under_format_json() {
    for args in [
        &["check", "missing.net"][..],
        &["info", "missing.net"],
        &["convert", "missing.net", "--to", "net"],
        &["explore", "missing.net", "--write-aut", "x.aut"],
        &["generate", "philosophers", "1"],
    ] {
        let o = warpcheck(&[args, &["--format", "json"]].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let v = json(&o);
        assert_eq!(v["exit_code"], 2, "{args:?}");
        assert!(v["error"].is_string(), "{args:?}");
        assert_eq!(stderr(&o), "", "{args:?}");
    }
}

#[test]
fn version_names_the_commit() {
    let o = warpcheck(&["--version"]);
    let text = stdout(&o);
    assert!(
        text.starts_with(&format!("warpcheck {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
}

#[test]
fn completions_and_manual_page_come_from_the_option_definitions() {
    let o = warpcheck(&["completions", "bash"]);
    assert_eq!(o.status.code(), Some(0));
    let script = stdout(&o);
    assert!(script.contains("--trace-out") && script.contains("--input-format"));
    let o = warpcheck(&["man"]);
    assert_eq!(o.status.code(), Some(0));
    let page = stdout(&o);
    assert!(page.starts_with(".ie"), "{}", &page[..page.len().min(200)]);
    assert!(page.contains(".TH warpcheck 1"), "roff title");
}

#[test]
fn info_reports_as_json() {
    let o = warpcheck(&["info", "specs/philosophers3.net", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    assert_eq!(v["processes"], 6);
    assert_eq!(v["local_states"], 15);
    assert_eq!(v["rules"], 9);
    assert_eq!(v["vector_bits"], 9);
    assert_eq!(v["process_list"].as_array().unwrap().len(), 6);
    assert_eq!(v["process_list"][0]["name"], "phil0");
}

#[test]
fn traces_quote_names_that_could_be_misread() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("spaces.net");
    std::fs::write(
        &model,
        "process \"my proc\" { init \"at rest\"; \"at rest\" -\"go now\"-> \"done=1\"; }\n",
    )
    .unwrap();
    let o = warpcheck(&[
        "check",
        model.to_str().unwrap(),
        "--deadlock",
        "--engine",
        "reference",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        text.contains("  initial: \"my proc\"=\"at rest\"\n"),
        "{text}"
    );
    assert!(
        text.contains("  1. \"go now\"     \"my proc\": \"at rest\" -> \"done=1\"\n"),
        "{text}"
    );
}

#[test]
fn common_options_are_accepted_by_every_command() {
    for args in [
        &["info", "specs/philosophers3.net"][..],
        &["convert", "specs/philosophers3.net", "--to", "net"],
        &["generate", "barrier", "1"],
        &["check", "specs/philosophers3.net", "--engine", "reference"],
    ] {
        for common in [&["-q"][..], &["-v"], &["--format", "text"]] {
            let o = warpcheck(&[args, common].concat());
            assert_eq!(
                o.status.code(),
                Some(0),
                "{args:?} {common:?}: {}",
                stderr(&o)
            );
        }
    }
}

#[test]
fn the_model_can_come_from_standard_input() {
    use std::io::Write;
    use std::process::Stdio;
    let run = |extra: &[&str]| {
        let mut child = Command::new(crate::warpcheck_binary())
            .args(
                [
                    &["check", "-", "--deadlock", "--engine", "reference"][..],
                    extra,
                ]
                .concat(),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let model = std::fs::read(crate::repo_root().join("specs/philosophers3.net")).unwrap();
        // The command may refuse before reading; a closed pipe is fine then.
        let _ = child.stdin.take().unwrap().write_all(&model);
        child.wait_with_output().unwrap()
    };
    let o = run(&["--input-format", "net"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("-: deadlock found\n"),
        "{}",
        stdout(&o)
    );
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: <stdin>: a model read from standard input needs its format given: \
         one of net, aut, exp, pnml\n"
    );
}

#[test]
fn endless_devices_are_refused_as_models() {
    let o = warpcheck(&["info", "/dev/zero", "--input-format", "net"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("error: /dev/zero: "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn model_warnings_reach_stderr_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("dead.net");
    std::fs::write(
        &model,
        "process P { init a; a -go-> b; }\nprocess Q { init x; x -stay-> x; }\n\
         sync go : P, Q;\n",
    )
    .unwrap();
    let o = warpcheck(&[
        "check",
        model.to_str().unwrap(),
        "--engine",
        "reference",
        "--format",
        "json",
    ]);
    let warning = "rule for `go` can never fire: process `Q` has no transition labelled `go`";
    assert_eq!(stderr(&o), format!("warning: {warning}\n"));
    assert_eq!(json(&o)["warnings"], serde_json::json!([warning]));
}
