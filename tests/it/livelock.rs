//! Livelock detection (`check --livelock`): hand-written networks with and
//! without cycles of internal actions, the SCC test graphs of
//! `$WARPCHECK_GRAPHS` (default `/work/shared/graphs`) against their
//! oracle, random networks where every engine must agree with the
//! reference and with a brute-force count, and the command line. Every
//! lasso is replayed through the network's semantics
//! (`testing::check_lasso`). The GPU tests print `SKIPPED: no GPU
//! available (<reason>)` and pass without a GPU.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use proptest::prelude::*;
use warpcheck::encode::EncodedNetwork;
use warpcheck::explicit::LabelledGraph;
use warpcheck::explore::cpu::{self, CpuOptions};
use warpcheck::explore::gpu::{self, GpuOptions};
use warpcheck::explore::livelock::{self, Livelock, StateSpace, is_internal};
use warpcheck::explore::{Completion, Exploration, SearchOptions, reference};
use warpcheck::frontend::{self, aut, net};
use warpcheck::gpu::Device;
use warpcheck::model::Network;
use warpcheck::testing;

use crate::gpu::with_gpu;

/// A search for the livelock check: complete, with traces.
fn whole() -> SearchOptions {
    SearchOptions {
        keep_going: true,
        memory_bytes: Some(64 << 20),
        ..SearchOptions::default()
    }
}

/// One engine's run with the livelock check's answer and the state space
/// (both `None` for an incomplete search).
struct Answer {
    exploration: Exploration,
    livelock: Option<Livelock>,
    graph: Option<LabelledGraph>,
}

/// The livelock answer of one engine's run.
fn answer((exploration, space): (Exploration, Option<StateSpace>)) -> Answer {
    let livelock = space
        .as_ref()
        .map(|space| livelock::check(space, true).expect("the vectors can be read"));
    Answer {
        exploration,
        livelock,
        graph: space.map(|s| s.graph),
    }
}

fn reference_answer(net: &EncodedNetwork) -> Answer {
    answer(reference::explore_space(net, &whole()).expect("the reference engine runs"))
}

fn cpu_answer(net: &EncodedNetwork) -> Answer {
    answer(
        cpu::explore_space(net, &whole(), &CpuOptions { threads: 2 }).expect("the cpu engine runs"),
    )
}

/// Checks an engine's answer on `net` against the reference's: the same
/// completion and count of states on tau-cycles, a lasso exactly when
/// there is a livelock, which replays and whose prefix is as long as the
/// reference's (both are shortest).
fn agree(net: &EncodedNetwork, engine: &Answer, reference: &Answer) -> Result<(), String> {
    if engine.exploration.completion != reference.exploration.completion
        || engine.exploration.states != reference.exploration.states
    {
        return Err(format!(
            "{:?}/{} states, reference {:?}/{}",
            engine.exploration.completion,
            engine.exploration.states,
            reference.exploration.completion,
            reference.exploration.states
        ));
    }
    let (found, expected) = match (&engine.livelock, &reference.livelock) {
        (Some(found), Some(expected)) => (found, expected),
        (None, None) => return Ok(()),
        (found, expected) => return Err(format!("{found:?} against the reference's {expected:?}")),
    };
    if found.cyclic_states != expected.cyclic_states {
        return Err(format!(
            "{} states on tau-cycles, reference {}",
            found.cyclic_states, expected.cyclic_states
        ));
    }
    match (&found.lasso, &expected.lasso) {
        (None, None) if !found.found() => Ok(()),
        (Some(lasso), Some(shortest)) => {
            testing::check_lasso(net, lasso)?;
            if lasso.loop_start != shortest.loop_start {
                return Err(format!(
                    "prefix of {} steps, the reference's {}",
                    lasso.loop_start, shortest.loop_start
                ));
            }
            Ok(())
        }
        (found, expected) => Err(format!("lasso {found:?}, reference {expected:?}")),
    }
}

/// Whether `start` reaches itself in one or more internal steps of
/// `graph`, by a depth-first search: the brute force.
fn on_tau_cycle(graph: &LabelledGraph, start: u32) -> bool {
    let tau_successors = |state: u32| {
        let row = graph.edges.offsets[state as usize] as usize
            ..graph.edges.offsets[state as usize + 1] as usize;
        graph.edges.targets[row.clone()]
            .iter()
            .zip(&graph.labels[row])
            .filter(|&(_, &action)| is_internal(&graph.actions[action as usize]))
            .map(|(&target, _)| target)
            .collect::<Vec<u32>>()
    };
    let mut seen = vec![false; graph.edges.states() as usize];
    let mut stack = tau_successors(start);
    while let Some(state) = stack.pop() {
        if state == start {
            return true;
        }
        if !std::mem::replace(&mut seen[state as usize], true) {
            stack.extend(tau_successors(state));
        }
    }
    false
}

/// The breadth-first distance of every state from the initial state.
fn distances(graph: &LabelledGraph) -> Vec<Option<usize>> {
    let mut distance = vec![None; graph.edges.states() as usize];
    distance[graph.initial as usize] = Some(0);
    let mut queue = VecDeque::from([graph.initial]);
    while let Some(state) = queue.pop_front() {
        let next = distance[state as usize].map(|d| d + 1);
        for &target in graph.edges.successors(state) {
            if distance[target as usize].is_none() {
                distance[target as usize] = next;
                queue.push_back(target);
            }
        }
    }
    distance
}

/// The reference's answer against the brute force: the count of
/// reachable states on tau-cycles, and a prefix as long as the distance to
/// the nearest one.
fn reference_is_exact(net: &EncodedNetwork, reference: &Answer) -> Result<(), String> {
    let (Some(livelock), Some(graph)) = (&reference.livelock, &reference.graph) else {
        return Ok(());
    };
    let distance = distances(graph);
    let cyclic: Vec<usize> = (0..graph.edges.states())
        .filter(|&s| on_tau_cycle(graph, s))
        .filter_map(|s| distance[s as usize])
        .collect();
    if livelock.cyclic_states != cyclic.len() as u64 {
        return Err(format!(
            "{} states on tau-cycles, brute force {}",
            livelock.cyclic_states,
            cyclic.len()
        ));
    }
    let nearest = cyclic.iter().copied().min();
    match &livelock.lasso {
        None if nearest.is_none() => Ok(()),
        None => Err("a livelock without a lasso".to_string()),
        Some(lasso) => {
            testing::check_lasso(net, lasso)?;
            if nearest != Some(lasso.loop_start) {
                return Err(format!(
                    "prefix of {} steps, nearest state on a tau-cycle at {nearest:?}",
                    lasso.loop_start
                ));
            }
            Ok(())
        }
    }
}

/// Parses `.net` text.
fn network(text: &str) -> Network {
    net::parse(text, Path::new("test.net")).expect("test models parse")
}

fn encoded(network: &Network) -> EncodedNetwork {
    EncodedNetwork::new(network).expect("test models encode")
}

/// A hand-written model and what the reference finds in it.
struct Model {
    /// The model's text.
    text: &'static str,
    /// Its format's extension, `net` or `aut`.
    extension: &'static str,
    /// Reachable states on tau-cycles.
    cyclic: u64,
    /// Steps of the lasso's prefix and cycle.
    shape: Option<(usize, usize)>,
}

/// Hand-written models with and without livelocks.
const MODELS: [Model; 8] = [
    // A tau self-loop at the initial state.
    Model {
        text: "process p { init a; a -tau-> a; }",
        extension: "net",
        cyclic: 1,
        shape: Some((0, 1)),
    },
    // A visible cycle: no livelock.
    Model {
        text: "process p { init a; a -x-> b -y-> a; }",
        extension: "net",
        cyclic: 0,
        shape: None,
    },
    // A tau-cycle reached only through a visible step; `i` counts too.
    Model {
        text: "process p { init a; a -go-> b; b -tau-> c -i-> b; }",
        extension: "net",
        cyclic: 2,
        shape: Some((1, 2)),
    },
    // A cycle of internal and visible steps: no livelock.
    Model {
        text: "process p { init a; a -tau-> b -x-> a; }",
        extension: "net",
        cyclic: 0,
        shape: None,
    },
    // Internal actions as the results of synchronisations: `i` is
    // internal, `tau2` and `I` are not.
    Model {
        text: "process p { init a; a -w-> b -v-> a; a -u-> a; }
         process q { init a; a -w-> b -v-> a; a -u-> a; }
         sync w : p, q -> i; sync v : p, q -> tau2; sync u : p, q -> I;",
        extension: "net",
        cyclic: 0,
        shape: None,
    },
    Model {
        text: "process p { init a; a -w-> b -v-> a; }
         process q { init a; a -w-> b -v-> a; }
         sync w : p, q -> i; sync v : p, q -> tau;",
        extension: "net",
        cyclic: 2,
        shape: Some((0, 2)),
    },
    // Tau self-loops in two processes: every reachable state is on a
    // tau-cycle.
    Model {
        text: "process p { init a; a -go-> b; b -tau-> b; }
         process q { init a; a -tau-> a; }",
        extension: "net",
        cyclic: 2,
        shape: Some((0, 1)),
    },
    // An .aut file: `i` is read as `tau`.
    Model {
        text: "des (0, 4, 4)\n(0, \"a\", 1)\n(1, i, 2)\n(2, tau, 1)\n(2, \"b\", 3)\n",
        extension: "aut",
        cyclic: 2,
        shape: Some((1, 2)),
    },
];

/// Loads a model of [`MODELS`].
fn model(text: &str, extension: &str) -> Network {
    match extension {
        "aut" => aut::parse_network(text, Path::new("test.aut")).expect("test models parse"),
        _ => network(text),
    }
}

#[test]
fn hand_written_models_have_their_livelocks() {
    for Model {
        text,
        extension,
        cyclic,
        shape,
    } in MODELS
    {
        let net = encoded(&model(text, extension));
        let reference = reference_answer(&net);
        let livelock = reference.livelock.as_ref().expect("complete");
        assert_eq!(livelock.cyclic_states, cyclic, "{text}");
        let lasso = livelock.lasso.as_ref();
        assert_eq!(
            lasso.map(|l| (l.loop_start, l.trace.actions.len() - l.loop_start)),
            shape,
            "{text}"
        );
        if let Some(lasso) = lasso {
            testing::check_lasso(&net, lasso).unwrap_or_else(|e| panic!("{text}: {e}"));
        }
        reference_is_exact(&net, &reference).unwrap_or_else(|e| panic!("{text}: {e}"));
        agree(&net, &cpu_answer(&net), &reference).unwrap_or_else(|e| panic!("{text}: cpu: {e}"));
    }
}

#[test]
fn an_incomplete_search_gives_no_answer() {
    let net = encoded(&network("process p { init a; a -x-> b -x-> c -tau-> c; }"));
    let limited = SearchOptions {
        max_states: Some(2),
        ..whole()
    };
    for run in [
        reference::explore_space(&net, &limited).unwrap(),
        cpu::explore_space(&net, &limited, &CpuOptions { threads: 1 }).unwrap(),
    ] {
        assert_eq!(run.0.completion, Completion::StateLimit);
        assert!(run.1.is_none());
    }
}

#[test]
fn an_erroneous_initial_state_is_a_state_space_of_one_state() {
    let net = encoded(&network(
        "process p { init a; error a \"broken\"; a -tau-> a; }",
    ));
    let reference = reference_answer(&net);
    assert_eq!(
        reference.exploration.completion,
        Completion::StoppedAtFinding
    );
    assert!(reference.livelock.is_none());
    // A property error at the start does not end a keep-going search:
    // its state space is the one state, on no tau-cycle (it is not
    // expanded).
    let net = initial_property_error();
    let reference = reference_answer(&net);
    assert_eq!(reference.exploration.completion, Completion::Complete);
    assert_eq!(reference.exploration.states, 1);
    assert_eq!(reference.livelock.as_ref().unwrap().cyclic_states, 0);
    agree(&net, &cpu_answer(&net), &reference).unwrap();
}

/// A network whose initial state is a property's error state, on a tau
/// self-loop that is never taken (error states are not expanded).
fn initial_property_error() -> EncodedNetwork {
    let model = network("process p { init a; a -tau-> a; } property bad { init e; error e; }");
    encoded(&model.with_monitor(model.monitor("bad").unwrap()))
}

/// Where the SCC test graphs are.
fn graphs_dir() -> PathBuf {
    std::env::var_os("WARPCHECK_GRAPHS")
        .map_or_else(|| PathBuf::from("/work/shared/graphs"), PathBuf::from)
}

/// The text of graph file `file` of `dir`, unpacked with `gzip` if it ends
/// in `.gz`; `None` if it cannot be read.
fn graph_text(dir: &Path, file: &str) -> Option<String> {
    let path = dir.join(file);
    if file.ends_with(".gz") {
        let out = Command::new("gzip").arg("-dc").arg(&path).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8(out.stdout).ok())?
    } else {
        std::fs::read_to_string(path).ok()
    }
}

/// Every graph of `oracles.tsv` of at most 100,000 states, read as an LTS
/// model: its reachable states and livelock verdict, on the reference and
/// the CPU engine.
#[test]
fn test_graphs_match_their_oracle() {
    let dir = graphs_dir();
    let Ok(table) = std::fs::read_to_string(dir.join("oracles.tsv")) else {
        warpcheck::testing::skipped(format_args!(
            "no oracles.tsv in {} (set WARPCHECK_GRAPHS)",
            dir.display()
        ));
        return;
    };
    let mut rows = table.lines();
    let header: Vec<&str> = rows.next().unwrap_or_default().split('\t').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|&c| c == name)
            .expect("oracle column")
    };
    let (states, reachable, livelock, file) = (
        column("states"),
        column("reachable_from_0"),
        column("tau_livelock_from_0"),
        column("file"),
    );
    let mut checked = 0;
    for row in rows {
        let fields: Vec<&str> = row.split('\t').collect();
        if fields[states].parse::<u64>().unwrap() > 100_000 {
            continue;
        }
        let Some(text) = graph_text(&dir, fields[file]) else {
            warpcheck::testing::skipped(format_args!("{} cannot be read", fields[file]));
            continue;
        };
        let name = fields[file].trim_end_matches(".gz");
        let net = encoded(&aut::parse_network(&text, Path::new(name)).unwrap());
        let reference = reference_answer(&net);
        assert_eq!(
            reference.exploration.states.to_string(),
            fields[reachable],
            "{name}: reachable states"
        );
        let found = reference.livelock.as_ref().unwrap();
        assert_eq!(
            if found.found() { "yes" } else { "no" },
            fields[livelock],
            "{name}"
        );
        if let Some(lasso) = &found.lasso {
            testing::check_lasso(&net, lasso).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        agree(&net, &cpu_answer(&net), &reference).unwrap_or_else(|e| panic!("{name}: cpu: {e}"));
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} graphs checked");
}

/// `network` with internal actions: each process's first own label is
/// renamed `tau`, the first shared label's rule result `i` and the second
/// vector's result `tau`.
fn with_internal_actions(mut network: Network) -> Network {
    for (i, process) in network.processes.iter_mut().enumerate() {
        let own = format!("p{i}_l0");
        if let Some(label) = process.lts.labels.iter_mut().find(|l| **l == own) {
            *label = "tau".to_string();
        }
    }
    for rule in &mut network.rules {
        match rule.result.as_str() {
            "s0" => rule.result = "i".to_string(),
            "v1" => rule.result = "tau".to_string(),
            _ => {}
        }
    }
    network
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn engines_agree_with_the_reference_and_the_brute_force(seed in any::<u64>()) {
        let net = encoded(&with_internal_actions(testing::random_network(seed)));
        let reference = reference_answer(&net);
        prop_assert_eq!(reference_is_exact(&net, &reference), Ok(()));
        prop_assert_eq!(agree(&net, &cpu_answer(&net), &reference), Ok(()));
    }
}

#[test]
fn random_networks_have_livelocks_and_none() {
    let (mut with, mut without) = (0, 0);
    for seed in 0..200 {
        let net = encoded(&with_internal_actions(testing::random_network(seed)));
        match reference_answer(&net).livelock {
            Some(l) if l.found() => with += 1,
            Some(_) => without += 1,
            None => {}
        }
    }
    // Both answers are common, so the property above tests both.
    assert!(
        with >= 40 && without >= 40,
        "{with} with, {without} without"
    );
}

fn gpu_answer(device: &Device, net: &EncodedNetwork) -> Answer {
    let (run, space) = gpu::explore_space(device, net, &whole(), &GpuOptions::default())
        .expect("the gpu engine runs");
    answer((run.exploration, space))
}

#[test]
fn gpu_engine_agrees_on_hand_written_models_and_test_graphs() {
    with_gpu(|device| {
        for Model {
            text, extension, ..
        } in MODELS
        {
            let net = encoded(&model(text, extension));
            agree(&net, &gpu_answer(device, &net), &reference_answer(&net))
                .unwrap_or_else(|e| panic!("{text}: gpu: {e}"));
        }
        let net = initial_property_error();
        agree(&net, &gpu_answer(device, &net), &reference_answer(&net))
            .unwrap_or_else(|e| panic!("initial error: gpu: {e}"));
        for file in [
            "tiny-10.aut",
            "cycle-10.aut",
            "twocliques-60.aut",
            "starsinks-5000.aut",
        ] {
            let Some(text) = graph_text(&graphs_dir(), file) else {
                warpcheck::testing::skipped(format_args!(
                    "{file} cannot be read (set WARPCHECK_GRAPHS)"
                ));
                continue;
            };
            let net = encoded(&aut::parse_network(&text, Path::new(file)).unwrap());
            agree(&net, &gpu_answer(device, &net), &reference_answer(&net))
                .unwrap_or_else(|e| panic!("{file}: gpu: {e}"));
        }
    });
}

#[test]
fn gpu_engine_agrees_on_random_networks() {
    with_gpu(|device| {
        let failures: Vec<String> = (0..300)
            .filter_map(|seed| {
                let net = encoded(&with_internal_actions(testing::random_network(seed)));
                agree(&net, &gpu_answer(device, &net), &reference_answer(&net))
                    .err()
                    .map(|e| format!("seed {seed}: {e}"))
            })
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

#[test]
fn gpu_cli_reports_the_lasso() {
    with_gpu(|_| {
        let dir = tempfile::tempdir().unwrap();
        let model = write(dir.path(), "lasso.net", LASSO_MODEL);
        let out = dir.path().join("lasso.aut");
        let o = warpcheck(&[
            "check",
            &model,
            "--livelock",
            "--engine",
            "gpu",
            "--format",
            "json",
            "--trace-out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v = json(&o);
        assert_eq!(v["verdict"], "livelock");
        assert_eq!(v["livelock_states"], 2);
        assert_eq!(v["lasso"]["loop_start"], 1);
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "des (0, 3, 3)\n(0, \"go\", 1)\n(1, \"tau\", 2)\n(2, \"i\", 1)\n"
        );
    });
}

/// Runs the `warpcheck` binary ([`crate::warpcheck_binary`]).
fn warpcheck(args: &[&str]) -> Output {
    Command::new(crate::warpcheck_binary())
        .args(args)
        .output()
        .expect("the binary runs")
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).expect("stdout is one JSON object")
}

/// Writes `text` to `name` in `dir` and gives its path as a string.
fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// A tau-cycle of two steps after one visible step, and a deadlock one
/// step away elsewhere.
const LASSO_MODEL: &str = "process p { init a; a -go-> b; b -tau-> c -i-> b; a -stop-> d; }";

#[test]
fn cli_reports_a_livelock_with_a_lasso_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let model = write(dir.path(), "lasso.net", LASSO_MODEL);
    let o = warpcheck(&["check", &model, "--livelock", "--engine", "reference"]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    let expected = format!(
        "{model}: livelock found: a reachable cycle of internal actions\n\
         lasso (3 steps, the last 2 a cycle):\n  initial: p=a\n  \
         1. go           p: a -> b\n  \
         cycle (internal actions only, back to the state before it):\n  \
         2. tau          p: b -> c\n  \
         3. i            p: c -> b\n  \
         reached: p=b\n"
    );
    assert!(text.starts_with(&expected), "{text}");
    assert!(text.contains("\nlivelock states: 2 (on a cycle of the internal actions tau, i)\n"));

    let o = warpcheck(&[
        "check",
        &model,
        "--livelock",
        "--engine",
        "cpu",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["verdict"], "livelock");
    assert_eq!(v["found"], serde_json::json!(["livelock"]));
    assert_eq!(v["livelock_checked"], true);
    assert_eq!(v["livelock_states"], 2);
    assert_eq!(v["complete"], true);
    assert_eq!(v["trace"], serde_json::Value::Null);
    assert_eq!(v["lasso"]["loop_start"], 1);
    let actions: Vec<&str> = v["lasso"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["go", "tau", "i"]);
    assert_eq!(
        v["lasso"]["final"],
        serde_json::json!([{"process": "p", "state": "b"}])
    );
    assert_eq!(
        v["lasso"]["initial"],
        serde_json::json!([{"process": "p", "state": "a"}])
    );
}

#[test]
fn cli_with_deadlock_reports_both_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let model = write(dir.path(), "both.net", LASSO_MODEL);
    let out = dir.path().join("trace.aut");
    let o = warpcheck(&[
        "check",
        &model,
        "--livelock",
        "--deadlock",
        "--engine",
        "reference",
        "--format",
        "json",
        "--trace-out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["verdict"], "deadlock");
    assert_eq!(v["found"], serde_json::json!(["deadlock", "livelock"]));
    assert_eq!(
        v["message"],
        "deadlock found; livelock found: a reachable cycle of internal actions"
    );
    assert_eq!(v["completion"], "complete");
    assert_eq!(v["deadlocks"], 1);
    assert_eq!(v["trace"]["steps"][0]["action"], "stop");
    assert_eq!(v["lasso"]["loop_start"], 1);
    // The deadlock's trace is the one written.
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "des (0, 1, 2)\n(0, \"stop\", 1)\n"
    );
}

#[test]
fn cli_trace_out_closes_the_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let model = write(dir.path(), "lasso.net", LASSO_MODEL);
    let out = dir.path().join("lasso.aut");
    let o = warpcheck(&[
        "check",
        &model,
        "--livelock",
        "--engine",
        "reference",
        "--trace-out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "des (0, 3, 3)\n(0, \"go\", 1)\n(1, \"tau\", 2)\n(2, \"i\", 1)\n"
    );
    // Read back as a model, the file has the livelock.
    let lts = frontend::load(&out).unwrap();
    let net = encoded(&lts);
    assert_eq!(reference_answer(&net).livelock.unwrap().cyclic_states, 2);
}

#[test]
fn cli_exit_codes_without_a_livelock_and_when_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    let model = write(
        dir.path(),
        "visible.net",
        "process p { init a; a -x-> b -tau-> a; }",
    );
    let o = warpcheck(&[
        "check",
        &model,
        "--livelock",
        "--engine",
        "cpu",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    assert_eq!(v["verdict"], "no-violation");
    assert_eq!(v["message"], "no livelock");
    assert_eq!(v["found"], serde_json::json!([]));
    assert_eq!(v["livelock_states"], 0);
    assert_eq!(v["lasso"], serde_json::Value::Null);

    let model = write(dir.path(), "lasso.net", LASSO_MODEL);
    let o = warpcheck(&[
        "check",
        &model,
        "--livelock",
        "--engine",
        "reference",
        "--max-states",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(3));
    let v = json(&o);
    assert_eq!(v["verdict"], "incomplete");
    assert_eq!(v["lasso"], serde_json::Value::Null);

    let o = warpcheck(&[
        "check",
        &model,
        "--livelock",
        "--no-trace",
        "--engine",
        "reference",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("\nno lasso (traces were switched off)\n"),
        "{text}"
    );
}

#[test]
fn cli_help_names_the_internal_actions() {
    let o = warpcheck(&["check", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains(
            "--livelock Look for a livelock: a reachable cycle of internal actions only, \
             the actions named `tau` or `i`"
        ),
        "{help}"
    );
}

/// Every model of `$WARPCHECK_MCC` (a copy of `../shared/mcc`) with
/// internal actions, on the reference and the CPU engine; the contest's
/// nets name their transitions otherwise, so none is checked so far.
#[test]
fn mcc_models_with_internal_actions() {
    let Some(dir) = std::env::var_os("WARPCHECK_MCC").map(PathBuf::from) else {
        warpcheck::testing::skipped(format_args!("set WARPCHECK_MCC to a copy of ../shared/mcc"));
        return;
    };
    let mut checked = 0;
    for model in testing::mcc_models(&dir) {
        let network = frontend::pnml::load(&model.join("model.pnml"))
            .unwrap_or_else(|e| panic!("{}: {e}", model.display()));
        if !network.actions().iter().any(|a| is_internal(a)) {
            continue;
        }
        let net = encoded(&network);
        let reference = reference_answer(&net);
        agree(&net, &cpu_answer(&net), &reference)
            .unwrap_or_else(|e| panic!("{}: {e}", model.display()));
        checked += 1;
    }
    println!("{checked} MCC models with internal actions checked");
}
