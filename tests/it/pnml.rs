//! Hardening of the PNML reader (issue 12): names chosen by the net can
//! never collide with the names the reader makes up, duplicate names are
//! made unique, written `.net` files read back to the same state space,
//! and hostile documents (deep pages, many attributes, bad NUPN units)
//! give located errors instead of panics or unbounded work.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::frontends::counts;
use super::mcc::{document, load_error};
use warpcheck::frontend::{net, pnml};
use warpcheck::model::Network;

fn parse(text: &str) -> Network {
    pnml::parse(text, Path::new("tiny.pnml")).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Writes `network` as `.net` (what `warpcheck convert --to net` prints),
/// reads it back and checks that the state space is the same.
pub(super) fn assert_net_round_trip(network: &Network) -> (u64, u64, u64, u64) {
    let text = net::write(network);
    let back = net::parse(&text, Path::new("written.net"))
        .unwrap_or_else(|e| panic!("written text does not parse: {e}\n{text}"));
    let figures = counts(network);
    assert_eq!(counts(&back), figures, "{text}");
    figures
}

/// A place, marked or not, with an optional `<name>`.
fn place(id: &str, name: Option<&str>, marked: bool) -> String {
    let name = name.map_or(String::new(), |n| format!("<name><text>{n}</text></name>"));
    let marking = if marked {
        "<initialMarking><text>1</text></initialMarking>"
    } else {
        ""
    };
    format!("<place id=\"{id}\">{name}{marking}</place>\n")
}

/// A transition with a `<name>` and its arcs from `inputs` and to `outputs`.
fn transition(id: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> String {
    let mut text =
        format!("<transition id=\"{id}\"><name><text>{name}</text></name></transition>\n");
    for p in inputs {
        text.push_str(&format!(
            "<arc id=\"{id}-{p}\" source=\"{p}\" target=\"{id}\"/>\n"
        ));
    }
    for p in outputs {
        text.push_str(&format!(
            "<arc id=\"{id}+{p}\" source=\"{id}\" target=\"{p}\"/>\n"
        ));
    }
    text
}

/// `go` and `go!enabled` both move the token of `p` away (to `q`, to
/// `r`): 3 markings, 2 edges, 2 dead markings. The reader once named its
/// own local labels `NAME!enabled`, which the second transition's name
/// then matched (5 states, 4 edges, 3 deadlocks).
fn go_and_go_enabled() -> String {
    document(&format!(
        "{}{}{}{}{}",
        place("p", None, true),
        place("q", None, false),
        place("r", None, false),
        transition("t1", "go", &["p"], &["q"]),
        transition("t2", "go!enabled", &["p"], &["r"]),
    ))
}

#[test]
fn transition_named_like_an_internal_label_keeps_its_meaning() {
    let network = parse(&go_and_go_enabled());
    let actions: Vec<String> = network.actions().into_iter().collect();
    assert_eq!(actions, ["go", "go!enabled"]);
    assert_eq!(counts(&network), (3, 2, 2, 0));
    assert_eq!(assert_net_round_trip(&network), (3, 2, 2, 0));
}

/// Two transitions named `T` (ids `t1`, `t2`) and one named `T@t1` on a
/// 1-safe cycle `p -> q -> p`.
fn names_like_disambiguations() -> String {
    document(&format!(
        "{}{}{}{}{}",
        place("p", None, true),
        place("q", None, false),
        transition("t1", "T", &["p"], &["q"]),
        transition("t2", "T", &["q"], &["p"]),
        transition("t3", "T@t1", &["q"], &["p"]),
    ))
}

#[test]
fn transition_named_like_a_disambiguated_name_stays_distinct() {
    let network = parse(&names_like_disambiguations());
    let actions: Vec<String> = network.actions().into_iter().collect();
    // `T@t1` is the third transition's own name, so the first `T` gets
    // another suffix.
    assert_eq!(actions, ["T@t1", "T@t1#2", "T@t2"]);
    assert_eq!(counts(&network), (2, 3, 0, 0));
    assert_eq!(assert_net_round_trip(&network), (2, 3, 0, 0));
}

#[test]
fn duplicate_place_and_unit_names_are_made_unique() {
    // Places named `x` twice, `empty` (the name of a unit's empty state)
    // and `1-safety` (the safety process's name); `t` produces into `b`
    // without consuming from it, so the safety process exists.
    let text = document(&format!(
        "{}{}{}{}{}{}",
        place("a", Some("x"), true),
        place("b", Some("x"), false),
        place("c", Some("empty"), true),
        place("d", Some("1-safety"), false),
        transition("t", "t", &["a"], &["b", "d"]),
        transition("u", "u", &["c"], &[]),
    ));
    let network = parse(&text);
    let names: Vec<&str> = network.processes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["x@a", "x@b", "empty@c", "1-safety@d", "1-safety"]);
    assert_eq!(network.processes[2].lts.state_names, ["empty", "empty@c"]);
    assert_eq!(assert_net_round_trip(&network), (4, 4, 1, 0));
}

#[test]
fn duplicate_nupn_unit_ids_and_a_unit_named_like_the_safety_process() {
    let text = document(&format!(
        "{}{}{}{}\
         <toolspecific tool=\"nupn\" version=\"1.1\"><structure units=\"3\" root=\"u\" safe=\"true\">\
         <unit id=\"u\"><places>p</places><subunits/></unit>\
         <unit id=\"u\"><places>q</places><subunits/></unit>\
         <unit id=\"1-safety\"><places>r</places><subunits/></unit></structure></toolspecific>\n",
        place("p", None, true),
        place("q", None, false),
        place("r", None, false),
        transition("t", "t", &["p"], &["q", "r"]),
    ));
    let network = parse(&text);
    let names: Vec<&str> = network.processes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["u@1", "u@2", "1-safety@3", "1-safety"]);
    assert_eq!(assert_net_round_trip(&network), (2, 1, 1, 0));
}

#[test]
fn unsafe_net_is_still_found_after_a_round_trip() {
    // t keeps p marked and adds a token to q: the second firing overflows q.
    let text = document(&format!(
        "{}{}{}",
        place("p", None, true),
        place("q", None, false),
        transition("t", "t", &["p"], &["p", "q"]),
    ));
    let network = parse(&text);
    assert_eq!(assert_net_round_trip(&network), (3, 2, 0, 1));
}

#[test]
fn local_labels_are_numbered_by_rule() {
    let network = parse(&go_and_go_enabled());
    // p takes part in both rules, q in the first, r in the second.
    let labels: Vec<&Vec<String>> = network.processes.iter().map(|p| &p.lts.labels).collect();
    assert_eq!(
        labels,
        [
            &vec!["#0", "#1", "#2", "#3"],
            &vec!["#0", "#1"],
            &vec!["#2", "#3"],
            &vec!["#1", "#3"]
        ]
    );
    let results: Vec<&str> = network.rules.iter().map(|r| r.result.as_str()).collect();
    assert_eq!(results, ["go", "go", "go!enabled", "go!enabled"]);
}

fn mcc_dir() -> PathBuf {
    crate::repo_root().join("tests/data/mcc")
}

#[test]
fn mcc_nets_round_trip_through_net() {
    // Published figures of tests/data/mcc/oracles.tsv (Model Checking
    // Contest 2021 archive); the deadlock counts are warpcheck's.
    let cases = [
        ("ERK-PT-000001", (13, 30, 0, 0)),
        ("Eratosthenes-PT-010", (32, 120, 1, 0)),
        ("TokenRing-PT-005", (166, 365, 0, 0)),
        ("Philosophers-PT-000005", (243, 945, 2, 0)),
        ("NeoElection-PT-2", (241, 448, 1, 0)),
    ];
    for (model, expected) in cases {
        let network = pnml::load(&mcc_dir().join(model).join("model.pnml")).unwrap();
        assert_eq!(assert_net_round_trip(&network), expected, "{model}");
    }
}

// ---------------------------------------------------------------------
// Hostile documents.
// ---------------------------------------------------------------------

#[test]
fn unit_listing_a_place_twice_is_a_located_error() {
    let text = document(&format!(
        "{}<toolspecific tool=\"nupn\" version=\"1.1\"><structure units=\"1\" root=\"u\" safe=\"true\">\
         <unit id=\"u\"><places>p p</places><subunits/></unit></structure></toolspecific>\n",
        place("p", None, true)
    ));
    assert_eq!(
        load_error(&text),
        "tiny.pnml:6:83: unit `u` lists place `p` twice"
    );
}

/// `depth` nested pages around one marked place.
fn nested_pages(depth: usize) -> String {
    document(&format!(
        "{}{}{}",
        "<page id=\"x\">".repeat(depth),
        place("p", None, true),
        "</page>".repeat(depth)
    ))
}

#[test]
fn deeply_nested_pages_need_no_deep_stack() {
    // Runs on the test harness's thread (2 MiB of stack by default).
    let network = parse(&nested_pages(20_000));
    assert_eq!(network.processes.len(), 1);
    assert_eq!(counts(&network), (1, 0, 1, 0));
}

#[test]
fn element_with_too_many_attributes_is_refused_quickly() {
    let attributes: String = (0..50_000).map(|i| format!(" a{i}=\"\"")).collect();
    let text = document(&format!("<place id=\"p\"{attributes}/>\n"));
    let start = Instant::now();
    assert_eq!(
        load_error(&text),
        format!(
            "tiny.pnml:5:1: element <place> has more than {} attributes",
            pnml::MAX_ATTRIBUTES
        )
    );
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn attribute_limit_counts_only_markup() {
    // `=` in text, comments, CDATA and attribute values is no attribute.
    let many = "a=b ".repeat(2 * pnml::MAX_ATTRIBUTES);
    let text = document(&format!(
        "<!-- {many} --><![CDATA[{many}]]>\n<place id=\"p\"><name><text>{many}</text></name>\
         <toolspecific tool=\"x\" note=\"{many}\"/></place>\n"
    ));
    assert_eq!(parse(&text).processes.len(), 1);
}
