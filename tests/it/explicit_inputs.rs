//! The readers of whole graphs (`.aut`) and probabilistic models (PRISM
//! explicit files, UMB archives): every bundled file against its oracle,
//! the larger ones of `../shared` when that folder is present, exact error
//! messages, and no panic on mutated input.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use warpcheck::explicit::{ExplicitModel, ModelType};
use warpcheck::frontend::{aut, prism, umb};

/// A folder of `tests/data`.
pub(crate) fn data(folder: &str) -> PathBuf {
    crate::repo_root().join("tests/data").join(folder)
}

/// A folder of the project's shared data, when it is present: in
/// `$WARPCHECK_SHARED` (where the shared folders were carried to, on the GPU
/// machine), else in `../shared`.
pub(crate) fn shared(folder: &str) -> Option<PathBuf> {
    let root = match std::env::var_os("WARPCHECK_SHARED") {
        Some(root) => PathBuf::from(root),
        None => crate::repo_root().join("../shared"),
    };
    let dir = root.join(folder);
    dir.is_dir().then_some(dir)
}

/// The rows of a tab-separated oracle file, the header row left out, as
/// maps from column name to field.
pub(crate) fn oracle_rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
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
        assert_eq!(
            graph.edges.states().to_string(),
            row["states"],
            "{}",
            row["graph"]
        );
        assert_eq!(
            graph.edges.edge_count().to_string(),
            row["edges"],
            "{}",
            row["graph"]
        );
        let tau = graph.actions.iter().position(|a| a == "tau");
        let tau_edges = graph
            .labels
            .iter()
            .filter(|&&l| Some(l as usize) == tau)
            .count();
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
        warpcheck::testing::skipped(format_args!("../shared/graphs is not present"));
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
    let (_dir, path) = temp_file(
        "g.aut",
        b"des (1, 3, 5)\n(3, b, 1)\n\n(1, \"a, c\", 3)\r\n(3, i, 3)\n",
    );
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
        (
            b"",
            "g.aut:1:1: expected the header `des (INITIAL, TRANSITIONS, STATES)`",
        ),
        (
            b"des (0, 2, 2)\n(0, a, 1)\n",
            "g.aut:3:1: the header declares 2 transitions but the file has 1",
        ),
        (
            b"des (0, 1, 2)\n(0, a, 1)\n(1, b, 0)",
            "g.aut:3:1: more transitions than the 1 the header declares",
        ),
        (
            b"des (0, 1, 2)\n(0, a, 2)",
            "g.aut:2:8: target state 2 is out of range: the header declares 2 states (0 to 1)",
        ),
        (
            b"des (0, 1, 2)\n  (9, a, 1)",
            "g.aut:2:4: source state 9 is out of range: the header declares 2 states (0 to 1)",
        ),
        (
            b"des (5, 0, 2)",
            "g.aut:1:6: initial state 5 is out of range: the header declares 2 states (0 to 1)",
        ),
        (
            b"des (0, 1, 2)\n(0, a 1)",
            "g.aut:2:8: expected `,` and a target state after the label",
        ),
        (
            b"des (0, 1, 2)\n(x, a, 1)",
            "g.aut:2:2: expected a source state number",
        ),
        (
            b"des (0, 1, 2)\n(0, \"a, 1)",
            "g.aut:2:5: expected `\"` to close the label",
        ),
        (
            b"des (0, 1, 2)\n(0, \"\xff\", 1) ",
            "g.aut:2:6: invalid UTF-8 (byte 0xFF)",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(
            graph_error(text),
            expected,
            "for {:?}",
            String::from_utf8_lossy(text)
        );
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

/// A header whose states would not fit the memory available is an error
/// at the header, not a process that the system kills while the arrays
/// fill (Linux grants allocations it cannot back). Skipped where 64 GB or
/// more are available, as 4·10^9 states then load.
#[test]
fn a_graph_beyond_the_available_memory_is_refused_at_its_header() {
    let states = 4_000_000_000u64;
    match warpcheck::system::available_memory() {
        Some(available) if available < states * 16 => assert_eq!(
            graph_error(format!("des (0, 0, {states})\n").as_bytes()),
            format!(
                "g.aut:1:1: not enough memory for a graph of {states} states and 0 transitions"
            )
        ),
        available => {
            warpcheck::testing::skipped(format_args!("{available:?} bytes of memory available"))
        }
    }
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
    assert_eq!(network.processes[0].name, "tiny");
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

/// The model type an oracle names.
fn model_type(name: &str) -> ModelType {
    match name {
        "dtmc" => ModelType::Dtmc,
        "ctmc" => ModelType::Ctmc,
        "mdp" => ModelType::Mdp,
        other => panic!("unknown model type {other}"),
    }
}

/// Whether two models have the same transitions: the same arrays, the
/// values of CTMCs (rates, which UMB stores as probabilities times exit
/// rates) equal to a relative 1e-12.
fn assert_same_transitions(tra: &ExplicitModel, umb: &ExplicitModel, name: &str) {
    assert_eq!(tra.model_type(), umb.model_type(), "{name}");
    assert_eq!(tra.underlying_graph(), umb.underlying_graph(), "{name}");
    match (tra, umb) {
        (ExplicitModel::Mdp(a), ExplicitModel::Mdp(b)) => assert_eq!(a, b, "{name}"),
        (ExplicitModel::Dtmc(a), ExplicitModel::Dtmc(b)) => assert_eq!(a, b, "{name}"),
        (ExplicitModel::Ctmc(a), ExplicitModel::Ctmc(b)) => {
            assert_eq!(
                (&a.offsets, &a.targets, a.initial),
                (&b.offsets, &b.targets, b.initial),
                "{name}"
            );
            for (x, y) in a.values.iter().zip(&b.values) {
                assert!(
                    (x - y).abs() <= 1e-12 * x.abs(),
                    "{name}: rate {x} against {y}"
                );
            }
        }
        _ => unreachable!("types compared above"),
    }
}

/// Loads every instance of the probabilistic oracles found in `dir`, from
/// its PRISM files (with and without its type given) and from its UMB
/// archive, and checks them against the oracle and each other; returns how
/// many instances it loaded.
fn check_prob_models(dir: &Path) -> usize {
    let mut done = std::collections::HashSet::new();
    for row in oracle_rows(&data("prob").join("oracles.tsv")) {
        let name = row["instance"].clone();
        let files: Vec<&str> = row["files"].split(',').collect();
        let Some(tra) = files
            .iter()
            .find(|f| f.contains(".tra"))
            .map(|f| dir.join(f))
        else {
            panic!("{name}: no .tra in the oracle");
        };
        let tra = if tra.exists() {
            tra
        } else {
            tra.with_extension("tra.gz")
        };
        if !tra.exists() || !done.insert(name.clone()) {
            continue;
        }
        let kind = model_type(&row["type"]);
        let given = prism::load(&tra, None, Some(kind)).unwrap_or_else(|e| panic!("{e}"));
        let inferred = prism::load(&tra, None, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(given, inferred, "{name}: the type inferred differs");
        let model = &given.model;
        assert_eq!(model.model_type(), kind, "{name}");
        assert_eq!(model.states().to_string(), row["states"], "{name}");
        if kind == ModelType::Mdp {
            assert_eq!(model.choices().to_string(), row["choices"], "{name}");
        }
        assert_eq!(
            model.transitions().to_string(),
            row["transitions"],
            "{name}"
        );
        let initial = model.initial();
        assert_eq!(given.labels.get("init"), Some(&[initial][..]), "{name}");
        assert_eq!(
            given.rewards.len(),
            usize::from(files.iter().any(|f| f.ends_with(".srew"))),
            "{name}"
        );

        let umb = umb::load(&dir.join(format!("{name}.umb"))).unwrap_or_else(|e| panic!("{e}"));
        assert_same_transitions(model, &umb.model, &name);
        for (label, states) in given.labels.names.iter().zip(&given.labels.states) {
            assert_eq!(
                umb.labels.get(label),
                Some(&states[..]),
                "{name}: label {label}"
            );
        }
        // The reward structure the `.srew` file holds is among the UMB's.
        if let Some(srew) = given.rewards.first() {
            let property = &row["property"];
            let reward_name = property.split('"').nth(1).unwrap_or_default();
            let in_umb = umb
                .rewards
                .iter()
                .find(|r| r.name.as_deref() == Some(reward_name));
            if let Some(in_umb) = in_umb {
                // A DTMC's `.srew` holds Storm's choice rewards folded into
                // its states, as rewards per step.
                let per_step: Vec<f64> = match (&in_umb.moves, kind) {
                    (Some(moves), ModelType::Dtmc) => in_umb
                        .states
                        .iter()
                        .zip(moves)
                        .map(|(s, m)| s + m)
                        .collect(),
                    _ => in_umb.states.clone(),
                };
                assert_eq!(per_step, srew.states, "{name}: reward {reward_name}");
                if kind != ModelType::Dtmc {
                    assert_eq!(in_umb.moves, None, "{name}: reward {reward_name}");
                }
            }
        }
    }
    done.len()
}

#[test]
fn bundled_prob_models_match_their_oracles_and_umb_twins() {
    assert_eq!(check_prob_models(&data("prob")), 5);
}

#[test]
fn shared_prob_models_match_their_oracles_and_umb_twins() {
    let Some(dir) = shared("prob") else {
        warpcheck::testing::skipped(format_args!("../shared/prob is not present"));
        return;
    };
    assert_eq!(check_prob_models(&dir), 18);
}

/// The uncompressed tar inside a bundled UMB archive.
fn umb_tar(name: &str) -> Vec<u8> {
    let compressed = std::fs::read(data("prob").join(format!("{name}.umb"))).unwrap();
    let mut tar = Vec::new();
    std::io::Read::read_to_end(
        &mut liblzma::read::XzDecoder::new(&compressed[..]),
        &mut tar,
    )
    .unwrap();
    tar
}

/// A tar archive of `members` (name, bytes), in that order.
fn tar_of(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (name, bytes) in members {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, name, &bytes[..]).unwrap();
    }
    builder.into_inner().unwrap()
}

/// The members of a tar archive, in order.
fn members_of(tar: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut archive = tar::Archive::new(tar);
    archive
        .entries()
        .unwrap()
        .map(|entry| {
            let mut entry = entry.unwrap();
            let name = entry.path().unwrap().to_string_lossy().into_owned();
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut bytes).unwrap();
            (name, bytes)
        })
        .filter(|(name, _)| !name.ends_with('/'))
        .collect()
}

/// The error `umb::parse` gives for `bytes`.
fn umb_error(bytes: &[u8]) -> String {
    umb::parse(bytes, Path::new("m.umb"))
        .unwrap_err()
        .to_string()
}

#[test]
fn umb_archives_load_plain_xz_and_gzip() {
    let tar = umb_tar("consensus-2-4");
    let from_xz = umb::load(&data("prob").join("consensus-2-4.umb")).unwrap();
    assert_eq!(umb::parse(&tar, Path::new("m.umb")).unwrap(), from_xz);
    let (_dir, path) = temp_file("m.umb", &gzip(&tar));
    assert_eq!(umb::load(&path).unwrap(), from_xz);
    assert_eq!(from_xz.rewards.len(), 1);
    assert_eq!(from_xz.rewards[0].name.as_deref(), Some("steps"));
    assert_eq!(from_xz.labels.get("c2"), Some(&[263, 287][..]));
}

#[test]
fn umb_faults_name_the_member_and_offset() {
    let tar = umb_tar("leader_sync-4-4");
    let members = members_of(&tar);
    let without = |name: &str| {
        let kept: Vec<(&str, Vec<u8>)> = members
            .iter()
            .filter(|(n, _)| n != name)
            .map(|(n, b)| (n.as_str(), b.clone()))
            .collect();
        tar_of(&kept)
    };
    let changed = |name: &str, change: &dyn Fn(&mut Vec<u8>)| {
        let kept: Vec<(&str, Vec<u8>)> = members
            .iter()
            .map(|(n, b)| {
                let mut bytes = b.clone();
                if n == name {
                    change(&mut bytes);
                }
                (n.as_str(), bytes)
            })
            .collect();
        tar_of(&kept)
    };
    assert_eq!(
        umb_error(&without("index.json")),
        "m.umb: the archive has no member index.json"
    );
    assert_eq!(
        umb_error(&without("branch-to-target.bin")),
        "m.umb: the archive has no member branch-to-target.bin"
    );
    assert_eq!(
        umb_error(&changed("branch-to-target.bin", &|b| b.truncate(b.len() - 3))),
        "m.umb: member branch-to-target.bin has 8533 bytes; 1067 entries of 8 bytes were expected"
    );
    assert_eq!(
        umb_error(&changed("branch-to-target.bin", &|b| b[16..24]
            .copy_from_slice(&5000u64.to_le_bytes()))),
        "m.umb: member branch-to-target.bin: byte 16: target 5000 is not among the 812 states"
    );
    assert_eq!(
        umb_error(&changed("choice-to-branches.bin", &|b| b[8..16]
            .copy_from_slice(&5000u64.to_le_bytes()))),
        "m.umb: member choice-to-branches.bin: byte 16: offset 257 is below the previous offset 5000"
    );
    assert_eq!(
        umb_error(&changed("branch-to-probability.bin", &|b| b[0..8]
            .copy_from_slice(&0.5f64.to_le_bytes()))),
        "m.umb: state 0: probabilities sum to 1.49609375, not 1 (the rows of a DTMC sum to 1)"
    );
    // 812 states: bit 813 lies in the last word's unused part.
    assert_eq!(
        umb_error(&changed("state-is-initial.bin", &|b| b[101] |= 1 << 5)),
        "m.umb: member state-is-initial.bin: byte 96: bit 813 is set, but there are 812 states"
    );
    assert_eq!(
        umb_error(&changed("index.json", &|b| b.truncate(10))),
        "m.umb: member index.json: EOF while parsing a string at line 2 column 8"
    );
    assert_eq!(
        umb_error(&tar[..3000]),
        "m.umb: corrupt or truncated tar archive after member state-is-initial.bin, at byte 3072: unexpected EOF during skip"
    );
    assert_eq!(
        umb_error(&tar[..2600]),
        "m.umb: member state-is-initial.bin is truncated: 104 bytes from byte 2560, but the archive ends at byte 2600"
    );
    let compressed = std::fs::read(data("prob").join("leader_sync-4-4.umb")).unwrap();
    assert_eq!(
        umb_error(&compressed[..compressed.len() / 2]),
        "m.umb: corrupt or truncated xz data in member choice-to-branches.bin, at byte 7312 of the tar archive: premature eof"
    );
    let gz = gzip(&tar);
    assert_eq!(
        umb_error(&gz[..gz.len() / 2]),
        "m.umb: corrupt or truncated gzip data in member choice-to-branches.bin, at byte 8841 of the tar archive: incomplete deflate stream"
    );
    assert_eq!(
        umb_error(b"hello"),
        "m.umb: not a UMB archive: neither a tar archive (no `ustar` at byte 257) nor xz or gzip data"
    );
    assert_eq!(
        umb_error(&tar_of(&[])),
        "m.umb: not a UMB archive: neither a tar archive (no `ustar` at byte 257) nor xz or gzip data"
    );
}

#[test]
fn prism_files_beside_each_other_are_found_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("m.tra", "3 3\n0 1 1\n1 2 1\n2 2 1\n");
    let tra = dir.path().join("m.tra");
    let model = prism::load(&tra, None, None).unwrap();
    assert_eq!(model.model.initial(), 0);
    assert_eq!(model.labels, Default::default());
    std::fs::write(
        dir.path().join("m.lab.gz"),
        gzip(b"0=\"init\" 1=\"goal\"\n1: 0\n2: 1\n"),
    )
    .unwrap();
    write("m.srew", "3 1\n2 4.5\n");
    let model = prism::load(&tra, None, None).unwrap();
    assert_eq!(model.model.initial(), 1);
    assert_eq!(model.labels.get("goal"), Some(&[2][..]));
    assert_eq!(model.rewards[0].states, [0.0, 0.0, 4.5]);
    let message = |lab: &str| {
        write("other.lab", lab);
        let error = prism::load(&tra, Some(&dir.path().join("other.lab")), None).unwrap_err();
        error
            .to_string()
            .replace(&dir.path().display().to_string(), "")
    };
    assert_eq!(
        message("0=\"init\"\n0: 0\n1: 0\n"),
        "/other.lab: 2 states are labelled \"init\"; exactly one initial state is needed"
    );
    assert_eq!(
        message("0=\"goal\"\n"),
        "/other.lab: no label \"init\" is declared; it names the initial state"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Mutated PRISM files give a model or an error, never a panic.
    #[test]
    fn mutated_prism_files_never_panic(
        edits in proptest::collection::vec((0usize..200, any::<u8>()), 0..6),
        cut in 1usize..200,
    ) {
        let mutate = |text: &[u8]| {
            let mut bytes = text.to_vec();
            for &(at, byte) in &edits {
                let at = at % bytes.len();
                bytes[at] = byte;
            }
            bytes.truncate(cut);
            bytes
        };
        let path = Path::new("m");
        let _ = prism::parse_tra(&mutate(b"3 4\n0 1 0.5\n0 2 0.5\n1 1 1\n2 0 1e0\n"), path, None);
        let _ = prism::parse_tra(&mutate(b"3 3 4\n0 0 1 0.5\n0 0 2 0.5\n0 1 1 1\n2 0 2 1\n"), path, None);
        let _ = prism::parse_lab(&mutate(b"0=\"init\" 1=\"deadlock\" 2=\"g\"\n0: 0\n2: 1 2\n"), path, 3);
        let _ = prism::parse_srew(&mutate(b"# Reward structure \"r\"\n3 2\n0 1.5\n2 2\n"), path, 3);
        let chain = prism::parse_tra(b"3 4\n0 1 0.5\n0 2 0.5\n1 1 1\n2 0 1\n", path, None).unwrap();
        let _ = prism::parse_trew(&mutate(b"3 3\n0 1 2\n0 2 1.5\n2 0 1\n"), path, &chain);
        let mdp = prism::parse_tra(b"3 3 4\n0 0 1 0.5\n0 0 2 0.5\n0 1 1 1\n2 0 2 1\n", path, None).unwrap();
        let _ = prism::parse_trew(&mutate(b"3 3 3\n0 0 1 2\n0 1 1 1\n2 0 2 3\n"), path, &mdp);
    }

    /// Mutated UMB archives give a model or an error, never a panic.
    #[test]
    fn mutated_umb_archives_never_panic(
        edits in proptest::collection::vec((0usize..20000, any::<u8>()), 1..8),
        cut in 0usize..20000,
    ) {
        let mut tar = umb_tar("leader_sync-4-4");
        for (at, byte) in edits {
            let at = at % tar.len();
            tar[at] = byte;
        }
        let _ = umb::parse(&tar, Path::new("m.umb"));
        tar.truncate(cut);
        let _ = umb::parse(&tar, Path::new("m.umb"));
    }
}

/// The kept inputs of fuzz target `target`: its corpus and its
/// regressions (`fuzz/corpus/TARGET/`, `fuzz/regressions/TARGET/`).
fn fuzz_corpus(target: &str) -> Vec<Vec<u8>> {
    let fuzz = crate::repo_root().join("fuzz");
    let mut inputs: Vec<Vec<u8>> = std::fs::read_dir(fuzz.join("corpus").join(target))
        .unwrap()
        .chain(
            std::fs::read_dir(fuzz.join("regressions").join(target))
                .into_iter()
                .flatten(),
        )
        .map(|entry| std::fs::read(entry.unwrap().path()).unwrap())
        .collect();
    inputs.sort();
    inputs
}

#[test]
fn aut_graph_fuzz_corpus_replays() {
    let mut accepted = 0;
    for input in fuzz_corpus("aut_graph") {
        if let Ok(graph) = aut::parse_graph(&input, Path::new("fuzz.aut")) {
            assert_eq!(graph.validate(), Ok(()));
            accepted += 1;
        }
    }
    assert!(accepted > 0, "the aut_graph corpus has no accepted input");
}

#[test]
fn tra_fuzz_corpus_replays() {
    let mut accepted = 0;
    for input in fuzz_corpus("tra") {
        match prism::parse_tra(&input, Path::new("fuzz.tra"), None) {
            Ok(ExplicitModel::Dtmc(chain) | ExplicitModel::Ctmc(chain)) => {
                assert_eq!(chain.validate(), Ok(()))
            }
            Ok(ExplicitModel::Mdp(mdp)) => assert_eq!(mdp.validate(), Ok(())),
            Err(_) => continue,
        }
        accepted += 1;
    }
    assert!(accepted > 0, "the tra corpus has no accepted input");
}

/// Writes `text` in pieces to `path` and to `path.gz`, returning the size
/// of the text.
fn write_plain_and_gzip(path: &Path, pieces: impl Iterator<Item = String>) -> u64 {
    use std::io::Write;
    let plain = std::fs::File::create(path).unwrap();
    let gz = std::fs::File::create(path.with_extension(format!(
        "{}.gz",
        path.extension().unwrap().to_str().unwrap()
    )))
    .unwrap();
    let mut plain = std::io::BufWriter::new(plain);
    let mut gz =
        flate2::write::GzEncoder::new(std::io::BufWriter::new(gz), flate2::Compression::new(6));
    let mut size = 0;
    for piece in pieces {
        plain.write_all(piece.as_bytes()).unwrap();
        gz.write_all(piece.as_bytes()).unwrap();
        size += piece.len() as u64;
    }
    plain.flush().unwrap();
    gz.finish().unwrap().flush().unwrap();
    size
}

/// Load speed of the graph and `.tra` readers on generated files of 10^7
/// transitions, plain and gzip-compressed: a measurement, not a check.
/// Run it with `cargo test --release --test it explicit_inputs::load_speed
/// -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement of speed, run by hand"]
fn load_speed() {
    let dir = tempfile::tempdir().unwrap();
    let transitions: u64 = 10_000_000;
    // Pseudo-random targets (a linear congruential sequence).
    let target = |i: u64, states: u64| {
        (i.wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407)
            >> 33)
            % states
    };
    let aut = dir.path().join("big.aut");
    let states = 1_000_000;
    let header = std::iter::once(format!("des (0, {transitions}, {states})\n"));
    let labels = ["\"a\"", "\"b\"", "\"tau\""];
    let lines = (0..transitions).map(|i| {
        let label = labels[(i / 7 % 3) as usize];
        format!(
            "({}, {label}, {})\n",
            i * states / transitions,
            target(i, states)
        )
    });
    let aut_text = write_plain_and_gzip(&aut, header.chain(lines));
    let tra = dir.path().join("big.tra");
    let states = 2_000_000;
    let header = std::iter::once(format!("{states} {transitions}\n"));
    let lines = (0..transitions).map(|i| format!("{} {} 0.2\n", i / 5, target(i, states)));
    let tra_text = write_plain_and_gzip(&tra, header.chain(lines));
    let runs: [(&str, PathBuf, u64); 4] = [
        ("aut", aut.clone(), aut_text),
        ("aut.gz", aut.with_extension("aut.gz"), aut_text),
        ("tra", tra.clone(), tra_text),
        ("tra.gz", tra.with_extension("tra.gz"), tra_text),
    ];
    for (what, path, text) in runs {
        let file = std::fs::metadata(&path).unwrap().len();
        let start = std::time::Instant::now();
        let count = if what.starts_with("aut") {
            aut::load_graph(&path).unwrap().edges.edge_count()
        } else {
            prism::load(&path, None, None).unwrap().model.transitions()
        };
        let seconds = start.elapsed().as_secs_f64();
        assert_eq!(count, transitions);
        println!(
            "{what}: {count} transitions in {seconds:.2} s: {:.0} MB/s of text, {:.0} MB/s of file ({} MB text, {} MB file)",
            text as f64 / 1e6 / seconds,
            file as f64 / 1e6 / seconds,
            text / 1_000_000,
            file / 1_000_000,
        );
    }
}

/// Rewards on a UMB archive's branches are earned when the branch is
/// taken: csma-2-2's choice rewards `time`, moved onto every branch of
/// their choice, give the same mean reward per choice. Rewards on anything
/// else than states, choices and branches are refused by name.
#[test]
fn umb_branch_rewards_are_mean_rewards_of_moves() {
    let members = members_of(&umb_tar("csma-2-2"));
    let member = |name: &str| {
        members
            .iter()
            .find(|(n, _)| n.trim_start_matches("./") == name)
            .map(|(_, bytes)| bytes.clone())
            .unwrap_or_else(|| panic!("no member {name}"))
    };
    let words = |bytes: Vec<u8>| -> Vec<u64> {
        bytes
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
            .collect()
    };
    let choice_values = words(member("annotations/rewards/time/choices/values.bin"));
    let branch_offsets = words(member("choice-to-branches.bin"));
    let mut branch_values = Vec::new();
    for (choice, &value) in choice_values.iter().enumerate() {
        for _ in branch_offsets[choice]..branch_offsets[choice + 1] {
            branch_values.extend_from_slice(&value.to_le_bytes());
        }
    }
    let with_time_on = |applies_to: &str, values: &[u8]| {
        let mut index: serde_json::Value = serde_json::from_slice(&member("index.json")).unwrap();
        index["annotations"]["rewards"]["time"]["applies-to"] = serde_json::json!([applies_to]);
        let mut kept: Vec<(String, Vec<u8>)> = members
            .iter()
            .filter(|(n, _)| !n.contains("rewards/time/") && !n.ends_with("index.json"))
            .cloned()
            .collect();
        kept.push(("index.json".into(), serde_json::to_vec(&index).unwrap()));
        kept.push((
            format!("annotations/rewards/time/{applies_to}/values.bin"),
            values.to_vec(),
        ));
        let kept: Vec<(&str, Vec<u8>)> =
            kept.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
        umb::parse(&tar_of(&kept), Path::new("m.umb"))
    };
    let original = umb::load(&data("prob").join("csma-2-2.umb")).unwrap();
    let time = |model: &warpcheck::explicit::ProbModel| {
        let found = model
            .rewards
            .iter()
            .find(|r| r.name.as_deref() == Some("time"));
        found.unwrap().moves.clone().unwrap()
    };
    let on_branches = with_time_on("branches", &branch_values).unwrap();
    for (a, b) in time(&on_branches).iter().zip(time(&original)) {
        assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
    }
    assert_eq!(
        with_time_on("observations", &[]).unwrap_err().to_string(),
        "m.umb: member index.json: reward time applies to observations; rewards of states, \
         choices and branches are read"
    );
}
