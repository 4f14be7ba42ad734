//! Conformance of the PNML frontend and the reference engine with the
//! figures published for the Model Checking Contest nets in
//! `tests/data/mcc` (see its README), and the frontend's error paths.

use std::path::{Path, PathBuf};

use warpcheck::encode::EncodedNetwork;
use warpcheck::explore::cpu::{self, CpuOptions};
use warpcheck::explore::{Exploration, FindingKind, SearchOptions, reference};
use warpcheck::frontend::{LoadError, pnml};
use warpcheck::model::{ErrorKind, Network};

/// Models whose published deadlock verdict contradicts the net's state
/// space, with the verdict warpcheck finds. `BART-PT-002`: warpcheck
/// reproduces the published 17424 markings and 53328 edges exactly (this
/// file's first test; benches/results/mcc-table.md) and finds none of those
/// markings dead, so it reports `no` where the table says `yes`.
const DISPUTED_DEADLOCK_VERDICTS: &[(&str, &str)] = &[("BART-PT-002", "no")];

fn data_dir() -> PathBuf {
    crate::repo_root().join("tests/data/mcc")
}

/// One row of `oracles.tsv`.
struct Oracle {
    model: String,
    states: u64,
    transitions: u64,
    deadlock: String,
}

fn oracles() -> Vec<Oracle> {
    let text = std::fs::read_to_string(data_dir().join("oracles.tsv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("model\tstates\ttransitions\tdeadlock"));
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 4, "bad oracle row {line:?}");
            Oracle {
                model: fields[0].to_string(),
                states: fields[1].parse().unwrap(),
                transitions: fields[2].parse().unwrap(),
                deadlock: fields[3].to_string(),
            }
        })
        .collect()
}

fn explore(network: &Network, keep_going: bool) -> (EncodedNetwork, Exploration) {
    let encoded = EncodedNetwork::new(network).unwrap();
    let result = reference::explore(
        &encoded,
        &SearchOptions {
            check_deadlock: true,
            keep_going,
            ..SearchOptions::default()
        },
    );
    (encoded, result)
}

#[test]
fn every_small_mcc_net_matches_its_published_figures() {
    let oracles = oracles();
    assert_eq!(oracles.len(), 24);
    let mut failures = Vec::new();
    for oracle in &oracles {
        let path = data_dir().join(&oracle.model).join("model.pnml");
        let network = match pnml::load(&path) {
            Ok(network) => network,
            Err(e) => {
                failures.push(format!("{}: {e}", oracle.model));
                continue;
            }
        };
        let (_, result) = explore(&network, true);
        let found_deadlock = if result.deadlocks > 0 { "yes" } else { "no" };
        let expected_deadlock = DISPUTED_DEADLOCK_VERDICTS
            .iter()
            .find(|(model, _)| *model == oracle.model)
            .map_or(oracle.deadlock.as_str(), |&(_, verdict)| {
                assert_ne!(
                    verdict, oracle.deadlock,
                    "{} is no longer disputed",
                    oracle.model
                );
                verdict
            });
        let deadlock_ok = expected_deadlock == "unknown" || expected_deadlock == found_deadlock;
        if result.states != oracle.states
            || result.transitions != oracle.transitions
            || !deadlock_ok
            || result.errors != 0
        {
            failures.push(format!(
                "{}: expected {} states, {} transitions, deadlock {}; found {} states, {} \
                 transitions, deadlock {}, {} error states",
                oracle.model,
                oracle.states,
                oracle.transitions,
                expected_deadlock,
                result.states,
                result.transitions,
                found_deadlock,
                result.errors
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The published state and transition counts again, with the multi-core
/// engine on tables that index the rules of every local state that owns
/// one with key participants (the default indexes only local states that
/// own many; these nets have few or none).
#[test]
fn every_small_mcc_net_matches_its_published_counts_with_rules_indexed() {
    let mut failures = Vec::new();
    for oracle in oracles() {
        let path = data_dir().join(&oracle.model).join("model.pnml");
        let mut encoded = EncodedNetwork::new(&pnml::load(&path).unwrap()).unwrap();
        encoded.index_rules_from(0);
        let search = SearchOptions {
            keep_going: true,
            ..SearchOptions::default()
        };
        let result = cpu::explore(&encoded, &search, &CpuOptions { threads: 2 });
        if (result.states, result.transitions) != (oracle.states, oracle.transitions) {
            failures.push(format!(
                "{}: expected {} states, {} transitions; found {} states, {} transitions",
                oracle.model, oracle.states, oracle.transitions, result.states, result.transitions
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn units_become_processes_with_an_empty_state() {
    let network = pnml::load(&data_dir().join("ERK-PT-000001/model.pnml")).unwrap();
    // u0 has no places of its own and gets no process.
    let names: Vec<&str> = network.processes.iter().map(|p| p.name.as_str()).collect();
    // Some transitions produce into a unit without consuming from it: the
    // safety process records a second token put there.
    assert_eq!(names, ["u1", "u2", "u3", "u4", "u5", pnml::SAFETY_PROCESS]);
    assert_eq!(
        network.processes[1].lts.state_names,
        ["empty", "ERKPP", "MEKPP_ERK", "ERK"]
    );
    // r1 consumes RKIP (u1) and Raf1Star (u3) and produces Raf1Star_RKIP
    // (u1): one move in each of those units.
    let r1: Vec<_> = network.rules.iter().filter(|r| r.result == "r1").collect();
    let units: Vec<usize> = r1[0].participants.iter().map(|p| p.process).collect();
    assert_eq!(units, [0, 2]);
    assert_eq!(network.processes[1].lts.initial, 3);
    assert_eq!(network.actions().len(), 11);
    let encoded = EncodedNetwork::new(&network).unwrap();
    // u1 (6 states) 3 bits, u2 (4) 2, u3 to u5 (2) 1 each, safety 1 bit.
    assert_eq!(encoded.layout.used_bits(), 3 + 2 + 1 + 1 + 1 + 1);
}

/// A PNML document whose page holds `body`, which starts on line 5.
pub(super) fn document(body: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n\
         <pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\n\
         <net id=\"n\" type=\"http://www.pnml.org/version-2009/grammar/ptnet\">\n\
         <page id=\"g\">\n\
         {body}</page>\n</net>\n</pnml>\n"
    )
}

/// The message of the error that parsing `text` as `tiny.pnml` gives.
pub(super) fn load_error(text: &str) -> String {
    match pnml::parse(text, Path::new("tiny.pnml")) {
        Ok(_) => panic!("expected a load error"),
        Err(e) => e.to_string(),
    }
}

const TWO_PLACES: &str = "<place id=\"p\"><initialMarking><text>1</text></initialMarking></place>\n\
                          <place id=\"q\"/>\n\
                          <transition id=\"t\"/>\n";

#[test]
fn colored_net_is_rejected() {
    let text = document("").replace("ptnet", "symmetricnet");
    assert_eq!(
        load_error(&text),
        "tiny.pnml:3:1: net type `http://www.pnml.org/version-2009/grammar/symmetricnet` is not \
         supported: expected a place/transition net (type ending in `ptnet`); colored nets are \
         not supported"
    );
}

#[test]
fn malformed_xml_is_located() {
    let text = document("<place id=\"p\">\n</page>\n");
    assert_eq!(
        load_error(&text),
        "tiny.pnml:6:1: malformed XML: expected 'place' tag, not 'page'"
    );
}

#[test]
fn two_initial_tokens_in_a_place_make_a_place_transition_net() {
    let text =
        document("<place id=\"p\"><initialMarking><text>2</text></initialMarking></place>\n");
    let network = pnml::parse(&text, Path::new("tiny.pnml")).unwrap();
    assert_eq!(network.processes[0].lts.state_names, ["0", "1", "2"]);
    assert_eq!(network.processes[0].lts.initial, 2);
}

/// Found by fuzzing (`fuzz/regressions/pnml/`): a net without places read
/// as a network of no process, which `.net` cannot write.
#[test]
fn net_without_places_is_rejected() {
    for body in ["", "<pl id=\"p\"/>\n", "<transition id=\"t\"/>\n"] {
        assert_eq!(
            load_error(&document(body)),
            "tiny.pnml:3:1: the net has no <place>: a place/transition net needs at least one \
             place",
            "{body}"
        );
    }
}

#[test]
fn transition_without_arcs_is_rejected() {
    let text = document(TWO_PLACES);
    assert_eq!(
        load_error(&text),
        "tiny.pnml:7:1: transition `t` has no input and no output place; such transitions are \
         not supported"
    );
}

/// A NUPN section with one unit `u` holding `places`.
fn one_unit(places: &str) -> String {
    format!(
        "<toolspecific tool=\"nupn\" version=\"1.1\"><structure units=\"1\" root=\"u\" safe=\"true\">\
         <unit id=\"u\"><places>{places}</places><subunits/></unit></structure></toolspecific>\n"
    )
}

#[test]
fn two_initial_tokens_in_a_unit_are_rejected() {
    let marked = "<initialMarking><text>1</text></initialMarking>";
    let text = document(&format!(
        "<place id=\"p\">{marked}</place>\n<place id=\"q\">{marked}</place>\n{}",
        one_unit("p q")
    ));
    assert_eq!(
        load_error(&text),
        "tiny.pnml:6:1: the initial marking puts two tokens into unit `u` (places `p` and `q`)"
    );
}

#[test]
fn place_outside_every_unit_is_rejected() {
    let text = document(&format!("{TWO_PLACES}{}", one_unit("p")));
    assert_eq!(
        load_error(&text),
        "tiny.pnml:8:1: place `q` is in no NUPN unit"
    );
}

#[test]
fn unit_listing_a_transition_or_unknown_id_is_rejected() {
    for listed in ["p q t", "p q r"] {
        let text = document(&format!("{TWO_PLACES}{}", one_unit(listed)));
        let id = &listed[4..];
        assert_eq!(
            load_error(&text),
            format!("tiny.pnml:8:83: unit `u` lists `{id}`, which is no place"),
            "for {listed:?}"
        );
    }
}

/// Explores `text` and returns the error message of the first finding. Its
/// trace must end in the finding's state, reached by the transition that
/// puts a second token into `unit`: the marking as it was (`unit` still
/// holding `place`) with the safety process in its error state.
fn first_model_error(text: &str, unit: &str, place: &str, trace_steps: usize) -> String {
    let network = pnml::parse(text, Path::new("tiny.pnml")).unwrap();
    let (encoded, result) = explore(&network, false);
    let finding = result.first.expect("a finding");
    let FindingKind::Error(index) = finding.kind else {
        panic!("expected an error finding, got {:?}", finding.kind)
    };
    let trace = finding.trace.expect("a trace");
    assert_eq!(trace.actions.len(), trace_steps);
    assert_eq!(trace.states.last(), Some(&finding.state));
    let local_name = |process: &str| {
        let p = encoded
            .process_names
            .iter()
            .position(|n| n == process)
            .unwrap();
        encoded
            .state_name(p, encoded.layout.get(&finding.state, p))
            .to_string()
    };
    assert_eq!(local_name(unit), place);
    assert_eq!(local_name(pnml::SAFETY_PROCESS), pnml::UNSAFE_STATE);
    match &encoded.error_locals[index].kind {
        ErrorKind::Model(message) => message.clone(),
        other => panic!("expected a model error, got {other:?}"),
    }
}

#[test]
fn unsafe_net_reaches_a_model_error_with_a_trace() {
    // t keeps p marked and adds a token to q: the second firing overflows q.
    let text = document(&format!(
        "{TWO_PLACES}<arc id=\"a1\" source=\"p\" target=\"t\"/>\n\
         <arc id=\"a2\" source=\"t\" target=\"p\"/>\n\
         <arc id=\"a3\" source=\"t\" target=\"q\"/>\n"
    ));
    assert_eq!(
        first_model_error(&text, "q", "q", 2),
        format!(
            "net is not 1-safe: the last transition of the trace puts a second token into a \
             place; the place invariants found bound no place `q`, so no bound can be proven; \
             {READ_AS_COUNTS}"
        )
    );
}

/// What the 1-safety error says about reading the net otherwise.
pub(super) const READ_AS_COUNTS: &str = "to read it as a place/transition net, pass --place-bound K (the \
                              most tokens any place may hold)";

/// The model error of a net with NUPN units that puts a second token into a
/// place or unit.
const UNIT_VIOLATION: &str = "net is not 1-safe or violates its NUPN units: the last transition \
                              of the trace puts a second token into a place or unit; to read it \
                              as a place/transition net, pass --place-bound K (the most tokens \
                              any place may hold)";

#[test]
fn unit_violation_reaches_a_model_error_with_a_trace() {
    // t moves the token of r into q while p, in the same unit as q, is marked.
    let text = document(&format!(
        "{TWO_PLACES}<place id=\"r\"><initialMarking><text>1</text></initialMarking></place>\n\
         <arc id=\"a1\" source=\"r\" target=\"t\"/>\n\
         <arc id=\"a2\" source=\"t\" target=\"q\"/>\n\
         <toolspecific tool=\"nupn\" version=\"1.1\"><structure units=\"2\" root=\"u\" safe=\"true\">\
         <unit id=\"u\"><places>p q</places><subunits>v</subunits></unit>\
         <unit id=\"v\"><places>r</places><subunits/></unit></structure></toolspecific>\n"
    ));
    assert_eq!(first_model_error(&text, "u", "p", 1), UNIT_VIOLATION);
}

#[test]
fn shared_transition_names_get_unique_labels() {
    let text = document(
        "<place id=\"p\"><initialMarking><text>1</text></initialMarking></place>\n\
         <transition id=\"t1\"><name><text>go</text></name></transition>\n\
         <transition id=\"t2\"><name><text>go</text></name></transition>\n\
         <arc id=\"a1\" source=\"p\" target=\"t1\"/>\n\
         <arc id=\"a2\" source=\"p\" target=\"t2\"/>\n",
    );
    let network = pnml::parse(&text, Path::new("tiny.pnml")).unwrap();
    let actions: Vec<String> = network.actions().into_iter().collect();
    assert_eq!(actions, ["go@t1", "go@t2"]);
    let (_, result) = explore(&network, true);
    assert_eq!(
        (result.states, result.transitions, result.deadlocks),
        (2, 2, 1)
    );
}

#[test]
fn missing_file_is_an_io_error() {
    let error = pnml::load(Path::new("no/such/file.pnml")).unwrap_err();
    assert!(matches!(error, LoadError::Io { .. }));
}

/// Places `a` (marked), `b`, `c` in one NUPN unit `u`, and `arcs`.
fn unit_of_three(arcs: &str) -> String {
    document(&format!(
        "<place id=\"a\"><initialMarking><text>1</text></initialMarking></place>\n\
         <place id=\"b\"/><place id=\"c\"/>\n{arcs}{}",
        one_unit("a b c")
    ))
}

#[test]
fn producing_two_tokens_into_one_unit_is_a_model_error() {
    let text = unit_of_three(
        "<transition id=\"t\"/>\n\
         <arc id=\"a1\" source=\"a\" target=\"t\"/>\n\
         <arc id=\"a2\" source=\"t\" target=\"b\"/>\n\
         <arc id=\"a3\" source=\"t\" target=\"c\"/>\n",
    );
    assert_eq!(first_model_error(&text, "u", "a", 1), UNIT_VIOLATION);
}

#[test]
fn consuming_two_places_of_one_unit_never_fires() {
    let text = unit_of_three(
        "<transition id=\"move\"/><transition id=\"both\"/>\n\
         <arc id=\"a1\" source=\"a\" target=\"move\"/>\n\
         <arc id=\"a2\" source=\"move\" target=\"b\"/>\n\
         <arc id=\"a3\" source=\"a\" target=\"both\"/>\n\
         <arc id=\"a4\" source=\"b\" target=\"both\"/>\n\
         <arc id=\"a5\" source=\"both\" target=\"c\"/>\n",
    );
    let network = pnml::parse(&text, Path::new("tiny.pnml")).unwrap();
    let (_, result) = explore(&network, true);
    let figures = (
        result.states,
        result.transitions,
        result.deadlocks,
        result.errors,
    );
    assert_eq!(figures, (2, 1, 1, 0));
}
