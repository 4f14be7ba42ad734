//! The readers of whole graphs (`.aut`) and probabilistic models (PRISM
//! explicit files, UMB archives): every bundled file against its oracle,
//! the larger ones of `../shared` when that folder is present, exact error
//! messages, and no panic on mutated input.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use warpcheck::frontend::aut;

/// A folder of `tests/data`.
fn data(folder: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(folder)
}

/// A folder of the project's shared data, when it is present.
fn shared(folder: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(folder);
    dir.is_dir().then_some(dir)
}

/// The rows of a tab-separated oracle file, the header row left out, as
/// maps from column name to field.
fn oracle_rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let columns: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), columns.len(), "bad oracle row {line:?}");
            columns
                .iter()
                .zip(fields)
                .map(|(c, f)| (c.to_string(), f.to_string()))
                .collect()
        })
        .collect()
}

/// Writes `text` to a file `name` in a fresh temporary folder.
fn temp_file(name: &str, text: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// gzip of `bytes`.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// Loads every graph of `oracles.tsv` found in `dir` and checks its
/// states, edges and tau edges; returns how many it loaded.
fn check_graphs(dir: &Path) -> usize {
    let mut loaded = 0;
    for row in oracle_rows(&data("graphs").join("oracles.tsv")) {
        let path = dir.join(&row["file"]);
        if !path.exists() {
            continue;
        }
        let graph = aut::load_graph(&path).unwrap_or_else(|e| panic!("{e}"));
        graph.validate().unwrap();
        assert_eq!(graph.edges.states().to_string(), row["states"], "{}", row["graph"]);
        assert_eq!(graph.edges.edge_count().to_string(), row["edges"], "{}", row["graph"]);
        let tau = graph.actions.iter().position(|a| a == "tau");
        let tau_edges = graph.labels.iter().filter(|&&l| Some(l as usize) == tau).count();
        assert_eq!(tau_edges.to_string(), row["tau_edges"], "{}", row["graph"]);
        assert_eq!(graph.initial, 0);
        loaded += 1;
    }
    loaded
}

#[test]
fn bundled_graphs_match_their_oracles() {
    assert_eq!(check_graphs(&data("graphs")), 14);
}

#[test]
fn shared_graphs_match_their_oracles() {
    let Some(dir) = shared("graphs") else {
        println!("SKIPPED: ../shared/graphs is not present");
        return;
    };
    assert_eq!(check_graphs(&dir), 25);
}

#[test]
fn graph_reader_agrees_with_the_network_reader() {
    for name in ["tiny-10.aut", "twocliques-60.aut", "starsinks-5000.aut"] {
        let path = data("graphs").join(name);
        let graph = aut::load_graph(&path).unwrap();
        let lts = aut::load_lts(&path).unwrap();
        assert_eq!(graph.actions, lts.labels, "{name}");
        let mut from_lts: Vec<(u32, u32, u32)> = lts
            .transitions
            .iter()
            .map(|t| {
                let number = |s: u32| lts.state_names[s as usize].parse::<u32>().unwrap();
                (number(t.source), t.label, number(t.target))
            })
            .collect();
        from_lts.sort_unstable();
        assert_eq!(graph.canonical_edges(), from_lts, "{name}");
    }
}

/// The error `load_graph` gives for `text` in a file `g.aut`, its folder
/// left out.
fn graph_error(text: &[u8]) -> String {
    let (_dir, path) = temp_file("g.aut", text);
    let message = aut::load_graph(&path).unwrap_err().to_string();
    message.replace(&format!("{}", path.display()), "g.aut")
}

#[test]
fn graph_states_without_edges_are_kept_and_labels_numbered_in_order() {
    let (_dir, path) = temp_file("g.aut", b"des (1, 3, 5)\n(3, b, 1)\n\n(1, \"a, c\", 3)\r\n(3, i, 3)\n");
    let graph = aut::load_graph(&path).unwrap();
    assert_eq!(graph.edges.states(), 5);
    assert_eq!(graph.initial, 1);
    assert_eq!(graph.actions, ["b", "a, c", "tau"]);
    assert_eq!(graph.edges.offsets, [0, 0, 1, 1, 3, 3]);
    assert_eq!(graph.edges.targets, [3, 1, 3]);
    assert_eq!(graph.labels, [1, 0, 2]);
}

#[test]
fn graph_errors_are_located() {
    let cases: [(&[u8], &str); 10] = [
        (b"", "g.aut:1:1: expected the header `des (INITIAL, TRANSITIONS, STATES)`"),
        (b"des (0, 2, 2)\n(0, a, 1)\n", "g.aut:3:1: the header declares 2 transitions but the file has 1"),
        (b"des (0, 1, 2)\n(0, a, 1)\n(1, b, 0)", "g.aut:3:1: more transitions than the 1 the header declares"),
        (b"des (0, 1, 2)\n(0, a, 2)", "g.aut:2:8: target state 2 is out of range: the header declares 2 states (0 to 1)"),
        (b"des (0, 1, 2)\n  (9, a, 1)", "g.aut:2:4: source state 9 is out of range: the header declares 2 states (0 to 1)"),
        (b"des (5, 0, 2)", "g.aut:1:6: initial state 5 is out of range: the header declares 2 states (0 to 1)"),
        (b"des (0, 1, 2)\n(0, a 1)", "g.aut:2:8: expected `,` and a target state after the label"),
        (b"des (0, 1, 2)\n(x, a, 1)", "g.aut:2:2: expected a source state number"),
        (b"des (0, 1, 2)\n(0, \"a, 1)", "g.aut:2:5: expected `\"` to close the label"),
        (b"des (0, 1, 2)\n(0, \"\xff\", 1) ", "g.aut:2:6: invalid UTF-8 (byte 0xFF)"),
    ];
    for (text, expected) in cases {
        assert_eq!(graph_error(text), expected, "for {:?}", String::from_utf8_lossy(text));
    }
    assert_eq!(
        graph_error(b"des (0, 1, 2)\n(0, a, 1) x"),
        "g.aut:2:11: unexpected text after the transition"
    );
    assert_eq!(
        graph_error(b"des (0, 1, 5000000000)\n"),
        "g.aut:1:12: number 5000000000 is too large"
    );
}

#[test]
fn gzip_graphs_are_read_by_their_magic_bytes() {
    let text = b"des (0, 2, 3)\n(0, a, 1)\n(1, a, 2)\n";
    let (_dir, path) = temp_file("plain-name.aut", &gzip(text));
    let graph = aut::load_graph(&path).unwrap();
    assert_eq!(graph.canonical_edges(), [(0, 0, 1), (1, 0, 2)]);
    let compressed = gzip(text);
    let truncated = &compressed[..compressed.len() / 2];
    assert_eq!(
        graph_error(truncated),
        "g.aut: corrupt or truncated gzip data: incomplete deflate stream"
    );
}

#[test]
fn networks_load_from_gzip_files_named_by_their_inner_extension() {
    let text = std::fs::read(data("graphs").join("tiny-10.aut")).unwrap();
    let (_dir, path) = temp_file("tiny.aut.gz", &gzip(&text));
    let network = warpcheck::frontend::load(&path).unwrap();
    let plain = warpcheck::frontend::load(&data("graphs").join("tiny-10.aut")).unwrap();
    assert_eq!(network.processes[0].lts, plain.processes[0].lts);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Mutated graph files give a graph or an error, never a panic.
    #[test]
    fn mutated_graphs_never_panic(
        edits in proptest::collection::vec((0usize..200, any::<u8>()), 0..6),
        cut in 0usize..200,
    ) {
        let mut bytes = b"des (0, 4, 3)\n(0, \"a\", 1)\n(1, tau, 2)\n(2, i, 0)\n(2, b, 2)\n".to_vec();
        for (at, byte) in edits {
            let at = at % bytes.len();
            bytes[at] = byte;
        }
        bytes.truncate(cut.max(1));
        let _ = aut::parse_graph(&bytes, Path::new("m.aut"));
        let compressed = gzip(&bytes);
        let _ = warpcheck::frontend::gunzip(&compressed[..cut % compressed.len()], Path::new("m.gz"), 1000, 0);
    }
}
