//! Hostile and unusual inputs (issue 12): `.aut` headers that declare far
//! more than the file holds, devices, directories and endless files as
//! models or includes, standard input, invalid UTF-8, and `.aut` labels
//! that every writer must either write so that the reader gets them back
//! or refuse.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use proptest::prelude::*;
use warpcheck::explicit::GraphSink;
use warpcheck::frontend::{self, Format, aut, exp, net};
use warpcheck::model::{Lts, LtsTransition};
use warpcheck::report::{StepView, TraceView};

fn aut_text(text: &str) -> Lts {
    aut::parse_lts(text, Path::new("m.aut")).unwrap_or_else(|e| panic!("{e}"))
}

// ---------------------------------------------------------------------
// `.aut` sizes follow the file, not its header.
// ---------------------------------------------------------------------

#[test]
fn aut_header_of_two_billion_states_allocates_what_the_file_uses() {
    let lts = aut_text("des (0, 1, 2147483647)\n(0, a, 1)\n");
    assert_eq!(lts.state_names, ["0", "1"]);
    assert_eq!(lts.transitions.len(), 1);
    let lts = aut_text("des (0, 1, 10000000)\n(0, a, 1)\n");
    assert_eq!(lts.state_names, ["0", "1"]);
}

#[test]
fn aut_sparse_state_numbers_are_kept_as_names() {
    let lts = aut_text("des (7, 2, 2147483647)\n(7, a, 2147483646)\n(2147483646, b, 7)\n");
    assert_eq!(lts.state_names, ["7", "2147483646"]);
    assert_eq!(lts.initial, 0);
    let edges: Vec<(u32, u32, u32)> = lts
        .transitions
        .iter()
        .map(|t| (t.source, t.label, t.target))
        .collect();
    assert_eq!(edges, [(0, 0, 1), (1, 1, 0)]);
    // An isolated initial state is kept.
    let lts = aut_text("des (3, 1, 5)\n(0, a, 1)\n");
    assert_eq!(lts.state_names, ["0", "1", "3"]);
    assert_eq!(lts.initial, 2);
    // Small numbers with a gap: the same rule.
    let lts = aut_text("des (0, 2, 10)\n(0, a, 4)\n(4, b, 0)\n");
    assert_eq!(lts.state_names, ["0", "4"]);
    assert_eq!(lts.transitions[0].target, 1);
}

#[test]
fn aut_header_transition_count_is_still_checked() {
    let error = aut::parse_lts("des (0, 4294967295, 2)\n(0, a, 1)\n", Path::new("m.aut"))
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "m.aut:3:1: the header declares 4294967295 transitions but the file has 1"
    );
}

// ---------------------------------------------------------------------
// What may be read as a model.
// ---------------------------------------------------------------------

fn load_error(path: &Path, format: Option<Format>) -> String {
    match frontend::load_as(path, format) {
        Ok(_) => panic!("{} should not load", path.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn devices_and_directories_are_refused_as_models() {
    assert_eq!(
        load_error(Path::new("/dev/zero"), Some(Format::Aut)),
        "/dev/zero: is a character device, not a model file"
    );
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.net");
    std::fs::create_dir(&model).unwrap();
    assert_eq!(
        load_error(&model, None),
        format!("{}: is a directory, not a model file", model.display())
    );
}

#[test]
fn devices_are_refused_as_includes_at_the_include() {
    let error = net::parse("process P from \"/dev/zero\";", Path::new("specs/x.net"))
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "specs/x.net:1:16: cannot read `/dev/zero`: is a character device, not a model file"
    );
    let error = exp::parse(
        "par using a * a in \"/dev/urandom\" || b.aut end par",
        Path::new("m.exp"),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        error,
        "m.exp:1:20: cannot read `/dev/urandom`: is a character device, not a model file"
    );
}

#[test]
fn a_pipe_is_read_as_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            std::fs::write(fifo, "des (0, 2, 2)\n(0, a, 1)\n(1, b, 0)\n").unwrap()
        })
    };
    let network = frontend::load_as(&fifo, Some(Format::Aut)).unwrap();
    writer.join().unwrap();
    assert_eq!(network.processes[0].lts.transitions.len(), 2);
}

#[test]
fn invalid_utf8_is_located_at_its_first_byte() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.net");
    std::fs::write(&model, b"process P {\n  init a; \xff\xfe }\n").unwrap();
    assert_eq!(
        load_error(&model, None),
        format!("{}:2:11: invalid UTF-8 (byte 0xFF)", model.display())
    );
    // In an include, the include's own file and place.
    std::fs::write(
        dir.path().join("p.aut"),
        b"des (0, 1, 2)\n(0, \"caf\xc3\", 1)\n",
    )
    .unwrap();
    std::fs::write(&model, "process P from \"p.aut\";\n").unwrap();
    assert_eq!(
        load_error(&model, None),
        format!(
            "{}:2:9: invalid UTF-8 (byte 0xC3)",
            dir.path().join("p.aut").display()
        )
    );
}

#[test]
fn format_names_list_every_format() {
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
    assert_eq!(names, ["net", "aut", "exp", "pnml"]);
    // The given format wins over the extension.
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.txt");
    std::fs::write(&model, "des (0, 0, 1)\n").unwrap();
    assert_eq!(
        frontend::load_as(&model, Some(Format::Aut))
            .unwrap()
            .processes[0]
            .name,
        "m"
    );
}

#[test]
fn standard_input_needs_a_format() {
    assert_eq!(
        load_error(Path::new("-"), None),
        "<stdin>: a model read from standard input needs its format given: one of net, aut, \
         exp, pnml"
    );
}

/// The variable that makes [`stdin_child`] load standard input.
const STDIN_CHILD: &str = "WARPCHECK_TEST_STDIN_CHILD";

/// Run by [`model_from_standard_input`] in a child process: loads a `.net`
/// model from standard input and prints its processes or the error.
#[test]
fn stdin_child() {
    if std::env::var_os(STDIN_CHILD).is_none() {
        return;
    }
    match frontend::load_as(Path::new("-"), Some(Format::Net)) {
        Ok(network) => {
            let names: Vec<&str> = network.processes.iter().map(|p| p.name.as_str()).collect();
            println!("\n=> loaded: {}", names.join(" "));
        }
        Err(e) => println!("\n=> error: {e}"),
    }
}

/// Runs this test binary's [`stdin_child`] in `dir` with `input` on its
/// standard input; returns the line it printed.
fn load_from_child_stdin(dir: &Path, input: &str) -> String {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "inputs::stdin_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(STDIN_CHILD, "1")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("=> "))
        .unwrap_or_else(|| panic!("no result in {stdout}"))
        .to_string()
}

#[test]
fn model_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("b.aut"), "des (0, 1, 2)\n(0, a, 1)\n").unwrap();
    // Includes are found relative to the current directory.
    assert_eq!(
        load_from_child_stdin(
            dir.path(),
            "process P { init x; x -a-> y; }\nprocess B from \"b.aut\";\n"
        ),
        "loaded: P B"
    );
    assert_eq!(
        load_from_child_stdin(dir.path(), "process P { init x; x -a-> }\n"),
        "error: <stdin>:1:28: expected a target state after `->`"
    );
}

// ---------------------------------------------------------------------
// `.aut` labels: one rule for every writer and the reader.
// ---------------------------------------------------------------------

const LINE_BREAK_ERROR: &str =
    "label \"a\\nb\" cannot be written to an .aut file: it contains the control character U+000A";

#[test]
fn labels_with_control_characters_cannot_be_written() {
    assert_eq!(
        aut::quote_label("a\nb").unwrap_err().to_string(),
        LINE_BREAK_ERROR
    );
    assert_eq!(
        aut::quote_label("say \"hi\", \\o/").unwrap(),
        "\"say \"hi\", \\o/\""
    );
    let lts = Lts {
        state_names: vec!["0".into()],
        labels: vec!["a\nb".into()],
        transitions: vec![LtsTransition {
            source: 0,
            label: 0,
            target: 0,
        }],
        ..Lts::default()
    };
    assert_eq!(
        aut::write_lts(&lts).unwrap_err().to_string(),
        LINE_BREAK_ERROR
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("space.aut");
    let error = aut::AutWriter::create(&path, &["ok".into(), "a\nb".into()])
        .err()
        .expect("refused");
    assert_eq!(
        error.to_string(),
        format!("cannot write {}: {LINE_BREAK_ERROR}", path.display())
    );
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());

    let trace = TraceView {
        initial: Vec::new(),
        steps: vec![StepView {
            action: "a\nb".into(),
            changes: Vec::new(),
        }],
        last: Vec::new(),
    };
    assert_eq!(trace.to_aut().unwrap_err().to_string(), LINE_BREAK_ERROR);
}

/// The label the reader gives back for a written `label`: the internal
/// action's two spellings are read as [`aut::INTERNAL_ACTION`].
fn read_back(label: &str) -> &str {
    match label {
        "i" | "tau" => aut::INTERNAL_ACTION,
        other => other,
    }
}

/// `(source, label, target)` of every transition of `lts`.
fn edges(lts: &Lts) -> Vec<(u32, String, u32)> {
    lts.transitions
        .iter()
        .map(|t| (t.source, lts.labels[t.label as usize].clone(), t.target))
        .collect()
}

/// Writable labels: anything without control characters, with the
/// characters that matter to the reader made likely.
/// The edges of the path `0 -a0-> 1 -a1-> ...` as they read back.
fn path_of(actions: &[String]) -> Vec<(u32, String, u32)> {
    actions
        .iter()
        .enumerate()
        .map(|(i, a)| (i as u32, read_back(a).to_string(), i as u32 + 1))
        .collect()
}

fn writable_label() -> impl Strategy<Value = String> {
    prop_oneof![
        "[^\\p{Cc}]{0,12}",
        "[\" ,()\\\\ia-c]{0,8}",
        Just("i".to_string()),
    ]
}

proptest! {
    #[test]
    fn written_lts_reads_back(labels in prop::collection::vec(writable_label(), 1..6)) {
        let states = labels.len() as u32 + 1;
        let lts = Lts {
            state_names: (0..states).map(|s| s.to_string()).collect(),
            initial: 0,
            labels: labels.clone(),
            transitions: (0..labels.len() as u32)
                .map(|i| LtsTransition { source: i, label: i, target: i + 1 })
                .collect(),
        };
        let text = aut::write_lts(&lts).unwrap();
        let back = aut::parse_lts(&text, Path::new("w.aut")).unwrap();
        let expected: Vec<(u32, String, u32)> = edges(&lts)
            .into_iter()
            .map(|(s, l, t)| (s, read_back(&l).to_string(), t))
            .collect();
        prop_assert_eq!(edges(&back), expected);
        prop_assert_eq!(back.state_names, lts.state_names);
    }

    #[test]
    fn aut_writer_output_reads_back(actions in prop::collection::vec(writable_label(), 1..6)) {
        let dir = tempfile::tempdir().unwrap();
        let path: PathBuf = dir.path().join("space.aut");
        let mut writer = aut::AutWriter::create(&path, &actions).unwrap();
        let batch: Vec<(u64, u32, u64)> =
            (0..actions.len()).map(|i| (i as u64, i as u32, i as u64 + 1)).collect();
        writer.edges(&batch).unwrap();
        writer.finish(actions.len() as u64 + 1, actions.len() as u64).unwrap();
        let back = aut::load_lts(&path).unwrap();
        prop_assert_eq!(edges(&back), path_of(&actions));
    }

    #[test]
    fn trace_aut_reads_back(actions in prop::collection::vec(writable_label(), 1..6)) {
        let trace = TraceView {
            initial: Vec::new(),
            steps: actions
                .iter()
                .map(|a| StepView { action: a.clone(), changes: Vec::new() })
                .collect(),
            last: Vec::new(),
        };
        let back = aut::parse_lts(&trace.to_aut().unwrap(), Path::new("t.aut")).unwrap();
        prop_assert_eq!(edges(&back), path_of(&actions));
    }
}
