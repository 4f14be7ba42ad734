//! Place/transition nets (issue 16): arc weights, places of many tokens and
//! their bounds. Conformance with the figures published for the Model
//! Checking Contest nets in `tests/data/mcc-pt` (see its README) on the
//! reference and CPU engines, the model error of a firing beyond a place
//! bound, and the reader's errors for weights and arcs it refuses.

use std::path::{Path, PathBuf};

use super::frontends::counts;
use super::mcc::{READ_AS_COUNTS, document, load_error};
use super::pnml::assert_net_round_trip;
use warpcheck::encode::EncodedNetwork;
use warpcheck::explore::cpu::{self, CpuOptions};
use warpcheck::explore::{Exploration, FindingKind, SearchOptions, reference};
use warpcheck::frontend::{self, Format, pnml};
use warpcheck::model::{ErrorKind, Network};

fn data_dir() -> PathBuf {
    crate::repo_root().join("tests/data/mcc-pt")
}

/// One row of an `oracles.tsv` of place/transition nets.
struct Oracle {
    model: String,
    states: u64,
    transitions: u64,
    deadlock: String,
    most_tokens: u32,
}

fn oracles(dir: &Path) -> Vec<Oracle> {
    let text = std::fs::read_to_string(dir.join("oracles.tsv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("model\tstates\ttransitions\tdeadlock\tmax_tokens_in_a_place")
    );
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 5, "bad oracle row {line:?}");
            Oracle {
                model: fields[0].to_string(),
                states: fields[1].parse().unwrap(),
                transitions: fields[2].parse().unwrap(),
                deadlock: fields[3].to_string(),
                most_tokens: fields[4].parse().unwrap(),
            }
        })
        .collect()
}

/// The oracle row of `model` in `tests/data/mcc-pt`.
fn oracle(model: &str) -> Oracle {
    oracles(&data_dir())
        .into_iter()
        .find(|o| o.model == model)
        .unwrap()
}

fn options(keep_going: bool) -> SearchOptions {
    SearchOptions {
        check_deadlock: true,
        keep_going,
        ..SearchOptions::default()
    }
}

fn parse(text: &str, place_bound: Option<u32>) -> Network {
    pnml::parse_with(
        text,
        Path::new("tiny.pnml"),
        pnml::Options {
            place_bound,
            ..pnml::Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn load(path: &Path, place_bound: Option<u32>) -> Network {
    frontend::load_with(
        path,
        Some(Format::Pnml),
        pnml::Options {
            place_bound,
            ..pnml::Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The message of the model error that ends the search of `encoded`, with
/// the finding's state.
fn model_error(encoded: &EncodedNetwork) -> (String, Vec<u32>) {
    let result = reference::explore(encoded, &SearchOptions::default());
    let finding = result.first.expect("a finding");
    let FindingKind::Error(index) = finding.kind else {
        panic!("expected an error finding, got {:?}", finding.kind)
    };
    let trace = finding.trace.expect("a trace");
    assert_eq!(trace.states.last(), Some(&finding.state));
    match &encoded.error_locals[index].kind {
        ErrorKind::Model(message) => (message.clone(), finding.state),
        other => panic!("expected a model error, got {other:?}"),
    }
}

/// The net of `oracle` in `dir` as a place/transition net, read as the
/// command line reads it: a net that looks 1-safe is read as 1-safe first,
/// which must end in the 1-safety error saying how to read it otherwise;
/// then it is read again as a place/transition net with the default bound
/// ([`pnml::Options::counting`]), not with the published maximum.
fn read_counting(dir: &Path, oracle: &Oracle) -> Network {
    let path = dir.join(&oracle.model).join("model.pnml");
    let network = load(&path, None);
    let safe_reading = network
        .processes
        .iter()
        .any(|p| p.name == pnml::SAFETY_PROCESS);
    if !safe_reading {
        return network;
    }
    let (message, _) = model_error(&EncodedNetwork::new(&network).unwrap());
    assert!(
        message.ends_with(READ_AS_COUNTS),
        "{}: {message}",
        oracle.model
    );
    frontend::load_with(
        &path,
        Some(Format::Pnml),
        pnml::Options {
            counting: true,
            ..pnml::Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Compares one engine's figures with the oracle; `None` when they agree.
fn mismatch(oracle: &Oracle, engine: &str, result: &Exploration) -> Option<String> {
    let found_deadlock = if result.deadlocks > 0 { "yes" } else { "no" };
    let deadlock_ok = oracle.deadlock == "unknown" || oracle.deadlock == found_deadlock;
    let agrees = result.states == oracle.states
        && result.transitions == oracle.transitions
        && deadlock_ok
        && result.errors == 0;
    (!agrees).then(|| {
        format!(
            "{} ({engine}): expected {} states, {} transitions, deadlock {}; found {} states, \
             {} transitions, deadlock {found_deadlock}, {} error states",
            oracle.model,
            oracle.states,
            oracle.transitions,
            oracle.deadlock,
            result.states,
            result.transitions,
            result.errors
        )
    })
}

/// Explores every net of `tests/data/mcc-pt` on the reference and CPU
/// engines; returns how many and the disagreements with the oracles.
fn conformance() -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut explored = 0;
    for oracle in &oracles(&data_dir()) {
        let encoded = EncodedNetwork::new(&read_counting(&data_dir(), oracle)).unwrap();
        let result = reference::explore(&encoded, &options(true));
        failures.extend(mismatch(oracle, "reference", &result));
        let result = cpu::explore(&encoded, &options(true), &CpuOptions { threads: 2 });
        failures.extend(mismatch(oracle, "cpu", &result));
        explored += 1;
    }
    (explored, failures)
}

/// Every contest place/transition net of at most 10^7 states, on the
/// reference and CPU engines.
#[test]
fn every_pt_net_up_to_ten_million_states_matches_its_published_figures() {
    let (explored, failures) = conformance();
    assert_eq!(explored, 25);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_bound_below_the_published_maximum_is_a_model_error_naming_the_place() {
    for oracle in oracles(&data_dir()).iter().filter(|o| o.most_tokens > 1) {
        let bound = oracle.most_tokens - 1;
        let path = data_dir().join(&oracle.model).join("model.pnml");
        let options = pnml::Options {
            place_bound: Some(bound),
            ..pnml::Options::default()
        };
        let network = match frontend::load_with(&path, Some(Format::Pnml), options) {
            Ok(network) => network,
            Err(e) => {
                // The initial marking already holds the maximum.
                let message = e.to_string();
                assert!(
                    message.contains(&format!("more than its bound {bound} (--place-bound")),
                    "{}: {message}",
                    oracle.model
                );
                continue;
            }
        };
        let encoded = EncodedNetwork::new(&network).unwrap();
        let (message, state) = model_error(&encoded);
        let place = message
            .strip_prefix(&format!(
                "the last transition of the trace puts more than {bound} tokens into place `"
            ))
            .and_then(|rest| rest.split_once('`'))
            .map(|(place, _)| place.to_string())
            .unwrap_or_else(|| panic!("{}: {message}", oracle.model));
        assert!(
            message.ends_with(&format!(
                "the bound it was read with (--place-bound {bound}); pass a larger \
                 --place-bound to explore further"
            )),
            "{message}"
        );
        // The finding's state is the marking before the firing, with the
        // bound process in the state of that place.
        let local = |process: &str| {
            let p = encoded
                .process_names
                .iter()
                .position(|n| n == process)
                .unwrap();
            encoded
                .state_name(p, encoded.layout.get(&state, p))
                .to_string()
        };
        assert!(local(&place).parse::<u32>().unwrap() <= bound);
        assert_eq!(local(pnml::BOUND_PROCESS), format!("{place}>{bound}"));
    }
}

/// Five of the nets look 1-safe (arcs of weight 1, at most one token per
/// place initially) and are not. Three have every place bounded by place
/// invariants, some above 1: they are read by default as place/transition
/// nets with those proven bounds (no checked bound, no error process), at
/// least the published maximum. The invariants found leave places of the
/// other two unbounded: they keep the 1-safe reading, whose error names
/// such a place.
#[test]
fn nets_that_look_safe_are_read_with_their_proven_bounds() {
    for model in [
        "CircularTrains-PT-012",
        "HexagonalGrid-PT-110",
        "NeighborGrid-PT-d2n3m1c12",
    ] {
        let network = load(&data_dir().join(model).join("model.pnml"), None);
        assert!(
            network
                .processes
                .iter()
                .all(|p| p.name != pnml::SAFETY_PROCESS && p.name != pnml::BOUND_PROCESS),
            "{model}"
        );
        let most = network
            .processes
            .iter()
            .map(|p| p.lts.state_names.len() as u32 - 1)
            .max();
        assert!(most >= Some(oracle(model).most_tokens.max(2)), "{model}");
    }
    for model in ["DoubleExponent-PT-002", "IBM5964-PT-none"] {
        let network = load(&data_dir().join(model).join("model.pnml"), None);
        let (message, _) = model_error(&EncodedNetwork::new(&network).unwrap());
        assert!(
            message.starts_with("net is not 1-safe: ")
                && message.contains("the place invariants found bound no place `")
                && message.contains("so no bound can be proven; ")
                && message.ends_with(READ_AS_COUNTS),
            "{model}: {message}"
        );
    }
}

/// A net that looks 1-safe whose invariant `p + q + r = 2` bounds every
/// place by 2 is read with those bounds: `r` holds 2 tokens at the end.
#[test]
fn a_net_that_looks_safe_with_bounds_above_one_counts_tokens() {
    let text = document(&format!(
        "{}{}{}{}{}",
        place("p", 1),
        place("q", 1),
        place("r", 0),
        transition("t", &[("p", 1)], &[("r", 1)]),
        transition("u", &[("q", 1)], &[("r", 1)])
    ));
    let network = parse(&text, None);
    let states = local_state_counts(&network);
    assert_eq!(states, [3, 3, 3]);
    // (1,1,0) -> (0,1,1), (1,0,1) -> (0,0,2), which is dead.
    assert_eq!(counts(&network), (4, 4, 1, 0));
}

#[test]
fn pt_net_round_trips_through_net_with_token_counts_as_states() {
    let oracle = &oracles(&data_dir())[0];
    let network = read_counting(&data_dir(), oracle);
    let expected = (oracle.states, oracle.transitions);
    let (states, transitions, _, errors) = assert_net_round_trip(&network);
    assert_eq!((states, transitions, errors), (expected.0, expected.1, 0));
    let text = warpcheck::frontend::net::write(&network);
    assert!(text.contains("states 0, 1, 2, 3,"), "{text}");
}

// ---------------------------------------------------------------------
// Tiny nets.
// ---------------------------------------------------------------------

/// A place with `tokens` tokens.
fn place(id: &str, tokens: u64) -> String {
    format!("<place id=\"{id}\"><initialMarking><text>{tokens}</text></initialMarking></place>\n")
}

/// A transition `id` with weighted arcs from `inputs` and to `outputs`.
fn transition(id: &str, inputs: &[(&str, u64)], outputs: &[(&str, u64)]) -> String {
    let arc = |source: &str, target: &str, weight: u64| {
        format!(
            "<arc id=\"{source}-{target}\" source=\"{source}\" target=\"{target}\">\
             <inscription><text>{weight}</text></inscription></arc>\n"
        )
    };
    let mut text = format!("<transition id=\"{id}\"/>\n");
    for &(p, w) in inputs {
        text.push_str(&arc(p, id, w));
    }
    for &(p, w) in outputs {
        text.push_str(&arc(id, p, w));
    }
    text
}

#[test]
fn weighted_arcs_move_their_weight() {
    // 3p + 2q = 12 is a place invariant: p <= 4 and q <= 6 are proven.
    let text = document(&format!(
        "{}{}{}",
        place("p", 4),
        place("q", 0),
        transition("t", &[("p", 2)], &[("q", 3)])
    ));
    let network = parse(&text, None);
    let states = local_state_counts(&network);
    assert_eq!(states, [5, 7]);
    assert_eq!(network.processes[1].lts.state_names[6], "6");
    // (4,0) -> (2,3) -> (0,6).
    assert_eq!(counts(&network), (3, 2, 1, 0));
}

/// `p` (2 tokens, so that the net does not look 1-safe) keeps its tokens
/// and adds one to `q` at each firing: no invariant bounds `q`.
fn growing() -> String {
    document(&format!(
        "{}{}{}",
        place("p", 2),
        place("q", 0),
        transition("t", &[("p", 1)], &[("p", 1), ("q", 1)])
    ))
}

#[test]
fn a_firing_beyond_the_place_bound_is_a_model_error_with_a_trace() {
    let network = parse(&growing(), Some(3));
    let encoded = EncodedNetwork::new(&network).unwrap();
    let result = reference::explore(&encoded, &SearchOptions::default());
    let trace = result.first.as_ref().unwrap().trace.as_ref().unwrap();
    // q = 0, 1, 2, 3, then the fourth firing would put a fourth token.
    assert_eq!(trace.actions.len(), 4);
    let (message, state) = model_error(&encoded);
    assert_eq!(
        message,
        "the last transition of the trace puts more than 3 tokens into place `q`, the bound it \
         was read with (--place-bound 3); pass a larger --place-bound to explore further"
    );
    let names: Vec<&str> = (0..encoded.processes())
        .map(|p| encoded.state_name(p, encoded.layout.get(&state, p)))
        .collect();
    assert_eq!(names, ["2", "3", "q>3"]);
    assert_eq!(counts(&network), (5, 4, 0, 1));
}

#[test]
fn places_no_invariant_bounds_get_the_default_bound() {
    let network = parse(&growing(), None);
    let (message, _) = model_error(&EncodedNetwork::new(&network).unwrap());
    assert_eq!(
        message,
        format!(
            "the last transition of the trace puts more than {0} tokens into place `q`, the \
             bound it was read with (the default bound {0} of places that no place invariant \
             bounds); pass a larger --place-bound to explore further",
            pnml::DEFAULT_PLACE_BOUND
        )
    );
}

#[test]
fn a_place_bound_caps_a_larger_invariant_bound() {
    // p + q + r = 4 bounds every place by 4. With --place-bound 3 the
    // places are checked at 3: only q reaches 4, from (p, r) = (1, 0) or
    // (0, 1), where the firing is an error instead of a step to (0, 0).
    let text = document(&format!(
        "{}{}{}{}{}",
        place("p", 2),
        place("q", 0),
        place("r", 2),
        transition("t", &[("p", 1)], &[("q", 1)]),
        transition("u", &[("r", 1)], &[("q", 1)])
    ));
    assert_eq!(counts(&parse(&text, None)), (9, 12, 1, 0));
    let capped = parse(&text, Some(3));
    let states = local_state_counts(&capped);
    assert_eq!(states, [4, 4, 4, 2]);
    let (message, _) = model_error(&EncodedNetwork::new(&capped).unwrap());
    assert!(
        message.contains("more than 3 tokens into place `q`"),
        "{message}"
    );
}

#[test]
fn initial_marking_above_the_bound_is_a_located_error() {
    let text = document(&format!("{}{}", place("p", 7), place("q", 0)));
    let error = pnml::parse_with(
        &text,
        Path::new("tiny.pnml"),
        pnml::Options {
            place_bound: Some(3),
            ..pnml::Options::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "tiny.pnml:5:31: place `p` starts with 7 tokens, more than its bound 3 (--place-bound \
         3); pass --place-bound 7 or more"
    );
    // Beyond the largest bound a place is read with, no --place-bound helps.
    let text = document(&place("p", 2_000_000));
    assert_eq!(
        load_error(&text),
        format!(
            "tiny.pnml:5:31: place `p` starts with 2000000 tokens, more than its bound {0} (the \
             default bound {0} of places that no place invariant bounds); places are read with \
             at most {1} tokens",
            pnml::DEFAULT_PLACE_BOUND,
            pnml::MAX_PLACE_BOUND
        )
    );
}

#[test]
fn an_encoding_too_large_to_spell_out_is_refused() {
    let transitions: String = (0..20)
        .map(|i| transition(&format!("t{i}"), &[("p", 1)], &[("p", 1), ("q", 1)]))
        .collect();
    let text = document(&format!("{}{}{transitions}", place("p", 1), place("q", 0)));
    let error = pnml::parse_with(
        &text,
        Path::new("tiny.pnml"),
        pnml::Options {
            place_bound: Some(pnml::MAX_PLACE_BOUND),
            ..pnml::Options::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "tiny.pnml:6:1: reading this net with one local state per token count needs about \
             21000063 local states and transitions, more than {}; place `q` (bound 1000000) \
             alone needs 21000021; pass a smaller --place-bound",
            pnml::MAX_LOCAL_TRANSITIONS
        )
    );
}

#[test]
fn bad_weights_are_located_at_their_inscription() {
    let cases = [
        ("0", "is `0`: expected a positive whole number"),
        ("-2", "is `-2`: expected a positive whole number"),
        ("two", "is `two`: expected a positive whole number"),
        ("1.5", "is `1.5`: expected a positive whole number"),
        (
            "4294967296",
            "is 4294967296, more than 4294967295, the most read",
        ),
        (
            "99999999999999999999999",
            "is 99999999999999999999999, more than 4294967295, the most read",
        ),
    ];
    for (weight, problem) in cases {
        let text = document(&format!(
            "{}<transition id=\"t\"/>\n<arc id=\"a\" source=\"p\" target=\"t\">\n  \
             <inscription><text>{weight}</text></inscription></arc>\n",
            place("p", 1)
        ));
        assert_eq!(
            load_error(&text),
            format!("tiny.pnml:8:16: the weight of arc `a` {problem}"),
            "weight {weight}"
        );
    }
}

#[test]
fn bad_initial_markings_are_located() {
    for (marking, problem) in [
        ("-1", "is `-1`: expected a whole number of tokens"),
        ("x", "is `x`: expected a whole number of tokens"),
        (
            "5000000000",
            "is 5000000000, more than 4294967295, the most read",
        ),
    ] {
        let text = document(&format!(
            "<place id=\"p\"><initialMarking><text>{marking}</text></initialMarking></place>\n"
        ));
        assert_eq!(
            load_error(&text),
            format!("tiny.pnml:5:31: the initial marking of place `p` {problem}")
        );
    }
}

#[test]
fn inhibitor_and_reset_arcs_are_refused() {
    for kind in ["inhibitor", "reset"] {
        let text = document(&format!(
            "{}<transition id=\"t\"/>\n<arc id=\"a\" source=\"p\" target=\"t\">\
             <type value=\"{kind}\"/></arc>\n",
            place("p", 1)
        ));
        assert_eq!(
            load_error(&text),
            format!(
                "tiny.pnml:7:1: arc `a` is a {kind} arc: only ordinary arcs are supported (no \
                 inhibitor, reset or read arcs)"
            )
        );
    }
}

/// `p` (marked) moves to `q`, putting `go_weight` tokens there; `dead`
/// needs two tokens in `p` and produces two into `r`, so it never fires in
/// a 1-safe net. With `nupn`, a NUPN section declares the net safe, one
/// unit per place.
fn dead_weight_two(nupn: bool, go_weight: u64) -> String {
    let section = if nupn {
        "<toolspecific tool=\"nupn\" version=\"1.1\"><structure units=\"3\" root=\"u\" \
         safe=\"true\"><unit id=\"u\"><places>p</places><subunits>v w</subunits></unit>\
         <unit id=\"v\"><places>q</places><subunits/></unit>\
         <unit id=\"w\"><places>r</places><subunits/></unit></structure></toolspecific>\n"
    } else {
        ""
    };
    document(&format!(
        "{}{}{}{}{}{section}",
        place("p", 1),
        place("q", 0),
        place("r", 0),
        transition("go", &[("p", 1)], &[("q", go_weight)]),
        transition("dead", &[("p", 2)], &[("r", 2)]),
    ))
}

#[test]
fn declared_safe_net_with_a_dead_weight_two_arc_keeps_the_safe_reading() {
    let network = parse(&dead_weight_two(true, 1), None);
    assert_eq!(network.processes[0].lts.state_names, ["empty", "p"]);
    assert_eq!(counts(&network), (2, 1, 1, 0));
    // Without the declaration the weights make it a place/transition net,
    // with the same state space.
    let network = parse(&dead_weight_two(false, 1), None);
    assert_eq!(network.processes[0].lts.state_names, ["0", "1"]);
    assert_eq!(counts(&network), (2, 1, 1, 0));
}

#[test]
fn weight_two_into_a_declared_safe_net_is_the_safety_error() {
    let network = parse(&dead_weight_two(true, 2), None);
    let (message, _) = model_error(&EncodedNetwork::new(&network).unwrap());
    assert!(
        message.starts_with("net is not 1-safe or violates its NUPN units"),
        "{message}"
    );
}

#[test]
fn place_bound_applies_to_pnml_only() {
    let error = frontend::load_with(
        Path::new("specs/philosophers3.net"),
        None,
        pnml::Options {
            place_bound: Some(4),
            ..pnml::Options::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "specs/philosophers3.net: --place-bound applies to Petri nets (PNML) only"
    );
}

/// The local states of each process (token counts 0 ..= the place's bound).
fn local_state_counts(network: &Network) -> Vec<usize> {
    network
        .processes
        .iter()
        .map(|p| p.lts.state_names.len())
        .collect()
}

/// The note of the command line's second reading of a net that looks
/// 1-safe and is not, after the 1-safe attempt's time.
const READ_AGAIN: &str = "it was read again as a place/transition net, with the bounds its \
                          place invariants prove and at most 255 tokens in the other places \
                          (--place-bound K sets that bound)";

/// Without `--place-bound`, `check`, `explore` and `scc` read the two
/// contest nets that look 1-safe and are not again as place/transition
/// nets and give their published figures, with a note that says so; with
/// `--place-bound` the reading is the user's and nothing is read again.
#[test]
fn nets_that_only_look_safe_are_read_again_as_place_transition_nets() {
    let run = |args: &[&str]| {
        let output = std::process::Command::new(crate::warpcheck_binary())
            .args(["--format", "json"])
            .args(args)
            .output()
            .expect("the binary runs");
        let report: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("one JSON object");
        (output.status.code(), report)
    };
    let aut = std::env::temp_dir().join(format!("warpcheck-reread-{}.aut", std::process::id()));
    for model in ["DoubleExponent-PT-002", "IBM5964-PT-none"] {
        let expected = oracle(model);
        let path = data_dir().join(model).join("model.pnml");
        let path = path.to_str().unwrap();
        let figures = |report: &serde_json::Value, edges: &str| {
            (report["states"].as_u64(), report[edges].as_u64())
        };
        let published = (Some(expected.states), Some(expected.transitions));
        let noted = |report: &serde_json::Value| {
            let warnings = report["warnings"].as_array().unwrap();
            assert_eq!(warnings.len(), 1, "{model}: {warnings:?}");
            let note = warnings[0].as_str().unwrap();
            assert!(
                note.starts_with(
                    "the net is not 1-safe: its 1-safe reading reached a second \
                                  token in a place ("
                ) && note.ends_with(&format!("); {READ_AGAIN}")),
                "{model}: {note}"
            );
        };
        for engine in ["reference", "cpu"] {
            let (code, report) = run(&["check", path, "--engine", engine, "--deadlock", "--all"]);
            assert_eq!(
                figures(&report, "transitions"),
                published,
                "{model} {engine}"
            );
            assert_eq!(code, Some(1), "{model}: both nets have deadlocks");
            noted(&report);
        }
        let (code, report) = run(&[
            "explore",
            path,
            "--engine",
            "cpu",
            "--write-aut",
            aut.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{model}: {report}");
        assert_eq!(figures(&report, "transitions"), published, "{model}");
        noted(&report);
        let header = std::fs::read_to_string(&aut).unwrap();
        let header = header.lines().next().unwrap().to_string();
        assert_eq!(
            header,
            format!("des (0, {}, {})", expected.transitions, expected.states)
        );
        let (code, report) = run(&["scc", path, "--engine", "cpu"]);
        assert_eq!(code, Some(0), "{model}: {report}");
        assert_eq!(figures(&report, "edges"), published, "{model}");
        noted(&report);
        // The user's bound is the reading: the published maximum works
        // without a second reading, one token less is a model error.
        let most = expected.most_tokens.to_string();
        let (_, report) = run(&["check", path, "--engine", "cpu", "--place-bound", &most]);
        assert_eq!(report["warnings"], serde_json::json!([]), "{model}");
        let below = (expected.most_tokens - 1).to_string();
        let (code, report) = run(&["check", path, "--engine", "cpu", "--place-bound", &below]);
        assert_eq!(code, Some(2), "{model}: {report}");
        assert_eq!(report["verdict"], "model-error", "{model}: {report}");
    }
    let _ = std::fs::remove_file(&aut);
}
