//! Fuzz harnesses: one function per target of `fuzz/fuzz_targets/`, each
//! taking the fuzzer's bytes. They never fail on bad input, only panic
//! when warpcheck misbehaves, so the fuzz targets (`cargo +nightly fuzz
//! run net`) and the replay test of the kept corpora (`tests/it/corpus.rs`)
//! share them.
//!
//! Each returns whether the input was accepted (parsed) and so went
//! through the checks, for the replay test to see that a corpus reaches
//! them.
//!
//! A parser harness reads the bytes as text (not UTF-8: nothing to do),
//! parses it, and when the parse succeeds checks what came out: the network
//! passes [`Network::validate`] (frontends report their errors located, so
//! a failure here is a missed error), encodes, explores within
//! [`STATE_BUDGET`] states with every finding's trace replayed, also with
//! each property monitor joined; and it survives a round trip through its
//! writer.
//!
//! The `.net` and `.exp` inputs may carry the `.aut` files they include:
//! `MODEL (\0 NAME \n CONTENTS)*`. The harness writes each into a fresh
//! directory beside the model, so includes read only the input's own files.
//! Inputs whose names could leave that directory (an absolute name or a
//! `../`) are skipped: they could read any file of the machine, such as a
//! device that never ends.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use clap::Parser;

use crate::cli::{Cli, parse_group_threads, parse_size};
use crate::encode::EncodedNetwork;
use crate::explicit::{ExplicitModel, ParityGame, StateLabels};
use crate::explore::{Completion, SearchOptions, outcome, reference};
use crate::frontend::{aut, exp, net, pgsolver, pnml, prism, umb};
use crate::model::{Network, Process, UnmatchedLabels};
use crate::numeric::property;
use crate::parity::{self, SolveOptions, Solver};
use crate::testing::check_finding;

/// Most states a harness explores of one network: enough to cover a few
/// levels of a small model, few enough to keep an execution fast.
pub const STATE_BUDGET: u64 = 200;

/// Largest network, in states of all processes and in rules, whose bounded
/// exploration is compared across a round trip; bigger ones are only
/// compared by shape, to keep executions fast.
const ROUND_TRIP_EXPLORE_LIMIT: usize = 1_000;

/// A directory that does not exist: a model parsed in it can include no
/// file, since no path through it resolves.
const NOWHERE: &str = "/nonexistent-warpcheck-fuzz";

/// Harness of the `.net` parser ([`net::parse`]).
pub fn net(data: &[u8]) -> bool {
    with_includes(data, "model.net", |text, path| {
        if text.contains("\"/") || text.contains("../") {
            return false;
        }
        net::parse(text, path).map(check_network).is_ok()
    })
}

/// Harness of the CADP `.exp` parser ([`exp::parse`]).
pub fn exp(data: &[u8]) -> bool {
    with_includes(data, "model.exp", |text, path| {
        if text.contains("../") || names_absolute_path(text) {
            return false;
        }
        exp::parse(text, path).map(check_network).is_ok()
    })
}

/// Harness of the PNML parser ([`pnml::parse`]).
pub fn pnml(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    pnml::parse(text, &Path::new(NOWHERE).join("model.pnml"))
        .map(check_network)
        .is_ok()
}

/// Harness of the Aldebaran `.aut` parser ([`aut::parse_lts`]): the LTS is
/// checked as the one-process network `warpcheck check` makes of it, and
/// reads back equal from [`aut::write_lts`] when its labels are writable.
pub fn aut(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    let path = Path::new(NOWHERE).join("model.aut");
    let Ok(lts) = aut::parse_lts(text, &path) else {
        return false;
    };
    let writable = lts.labels.iter().all(|l| !l.chars().any(char::is_control));
    match aut::write_lts(&lts) {
        Ok(written) => match aut::parse_lts(&written, &path) {
            // States are renumbered densely by writing; their names (the
            // original numbers) are not written.
            Ok(again) => assert_eq!(
                (
                    again.initial,
                    &again.labels,
                    &again.transitions,
                    again.state_names.len()
                ),
                (
                    lts.initial,
                    &lts.labels,
                    &lts.transitions,
                    lts.state_names.len()
                ),
                "write_lts then parse_lts changed the LTS"
            ),
            Err(e) => panic!("parse_lts rejects what write_lts wrote: {e}\n{written}"),
        },
        Err(e) => assert!(!writable, "write_lts refuses writable labels: {e}"),
    }
    check_network(Network {
        processes: vec![Process {
            name: "model".to_string(),
            lts,
            error_states: Vec::new(),
        }],
        rules: Vec::new(),
        unmatched: UnmatchedLabels::Independent,
        monitors: Vec::new(),
    });
    true
}

/// Harness of the command line: the bytes are argument words separated by
/// NUL or line feed. Parsing (never running) must not panic, and every
/// word read as a `--memory` size or a `--group-threads` value must give a
/// value in range or an error. Accepted: the words make a command line.
pub fn options(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let words: Vec<&str> = text.split(['\0', '\n']).collect();
    for word in &words {
        if let Ok(size) = parse_size(word) {
            assert!(size > 0, "parse_size({word:?}) gave a size of 0");
        }
        if let Ok(threads) = parse_group_threads(word) {
            assert!(
                threads.is_power_of_two() && threads <= 32,
                "parse_group_threads({word:?}) gave {threads}"
            );
        }
    }
    match Cli::try_parse_from(std::iter::once("warpcheck").chain(words)) {
        Ok(_) => true,
        Err(error) => {
            // Rendering the message is part of handling bad arguments.
            let _ = error.render();
            false
        }
    }
}

/// Largest game, in vertices and edges, that the `pgsolver` harness
/// solves with every solver; larger ones are only parsed and validated.
const GAME_SOLVE_LIMIT: (u32, usize) = (64, 512);

/// Largest game on which the harness also runs small progress measures
/// and fixpoint iteration, whose time can grow with the priorities as a
/// power of the vertices.
const GAME_SLOW_SOLVERS_LIMIT: u32 = 16;

/// States the `lab` harness gives the labels and rewards it reads.
const LABELLED_STATES: u32 = 16;

/// Harness of the PGSolver reader ([`pgsolver::parse`]): a game it accepts
/// and that validates is, when small, solved by every solver on one
/// thread; each must give the reference's winners (Zielonka) and a
/// solution that the independent check ([`parity::verify::verify`])
/// accepts. Accepted: the bytes parse.
pub fn pgsolver(data: &[u8]) -> bool {
    let Ok(game) = pgsolver::parse(data, Path::new("fuzz.pg")) else {
        return false;
    };
    let (vertices, edges) = GAME_SOLVE_LIMIT;
    if game.validate().is_ok() && game.vertices() <= vertices && game.edges.targets.len() <= edges {
        solve_with_every_solver(&game);
    }
    true
}

/// Solves `game` (valid) with every solver, small progress measures also
/// with shortcuts, and checks each solution against the reference's
/// winners and the independent check.
fn solve_with_every_solver(game: &ParityGame) {
    let options = SolveOptions {
        threads: 1,
        ..SolveOptions::default()
    };
    let reference =
        parity::solve(game, Solver::Zielonka, &options).expect("a valid game is solved");
    let slow = game.vertices() <= GAME_SLOW_SOLVERS_LIMIT;
    for (solver, shortcuts) in [
        (Solver::Zielonka, false),
        (Solver::Pp, false),
        (Solver::Tangle, false),
        (Solver::Spm, false),
        (Solver::Spm, true),
        (Solver::Fpi, false),
    ] {
        if !slow && matches!(solver, Solver::Spm | Solver::Fpi) {
            continue;
        }
        let name = if shortcuts {
            format!("{} with shortcuts", solver.name())
        } else {
            solver.name().to_string()
        };
        let solution = match solver {
            Solver::Zielonka => reference.clone(),
            _ => {
                let options = SolveOptions {
                    shortcuts,
                    ..options.clone()
                };
                parity::solve(game, solver, &options).expect("a valid game is solved")
            }
        };
        assert_eq!(
            solution.winners, reference.winners,
            "{name} and Zielonka disagree on the winners"
        );
        if let Err(flaw) = parity::verify::verify(game, &solution) {
            panic!("{name}'s solution does not solve the game: {flaw}");
        }
    }
}

/// Harness of the UMB reader ([`umb::parse`]): an archive it accepts must
/// hold a model that passes its `validate`, labels of its states, and
/// rewards for each of its states and moves. Accepted: the bytes parse.
pub fn umb(data: &[u8]) -> bool {
    let Ok(read) = umb::parse(data, Path::new("fuzz.umb")) else {
        return false;
    };
    // A move is a choice of an MDP, a state of a Markov chain.
    let (states, moves) = match &read.model {
        ExplicitModel::Dtmc(chain) | ExplicitModel::Ctmc(chain) => {
            assert_eq!(chain.validate(), Ok(()));
            (chain.states(), chain.states() as usize)
        }
        ExplicitModel::Mdp(mdp) => {
            assert_eq!(mdp.validate(), Ok(()));
            (mdp.states(), mdp.choices() as usize)
        }
    };
    check_labels(&read.labels, states);
    for rewards in &read.rewards {
        assert_eq!(
            rewards.states.len(),
            states as usize,
            "a state reward per state"
        );
        if let Some(rewards) = &rewards.moves {
            assert_eq!(rewards.len(), moves, "a move reward per move");
        }
    }
    true
}

/// The models the `lab` harness reads transition rewards for: a DTMC and
/// an MDP of [`LABELLED_STATES`] states, a transition or two a state.
const REWARDED_MODELS: [&str; 2] = [
    "16 19\n0 1 0.5\n0 2 0.5\n1 1 1\n2 3 1\n3 4 1\n4 5 0.25\n4 15 0.75\n5 6 1\n6 7 1\n7 8 1\n\
     8 9 1\n9 10 1\n10 11 1\n11 12 1\n12 13 1\n13 14 1\n14 15 1\n15 0 0.5\n15 15 0.5\n",
    "16 18 20\n0 0 1 0.5\n0 0 2 0.5\n0 1 3 1\n1 0 1 1\n2 0 3 1\n3 0 4 1\n4 0 5 1\n4 1 15 1\n\
     5 0 6 1\n6 0 7 1\n7 0 8 1\n8 0 9 1\n9 0 10 1\n10 0 11 1\n11 0 12 1\n12 0 13 1\n\
     13 0 14 1\n14 0 15 1\n15 0 0 0.5\n15 0 15 0.5\n",
];

/// Harness of PRISM's label and reward files ([`prism::parse_lab`],
/// [`prism::parse_srew`], [`prism::parse_trew`]), all read from the same
/// bytes for models of 16 states (`LABELLED_STATES`; transition rewards
/// for a DTMC and an MDP): labels must name states of the model, sorted
/// and without repeats, and rewards give one finite value per state and
/// per move. Accepted: any of the files parses.
pub fn lab(data: &[u8]) -> bool {
    let path = Path::new("fuzz.lab");
    let labels = prism::parse_lab(data, path, LABELLED_STATES);
    if let Ok(labels) = &labels {
        check_labels(labels, LABELLED_STATES);
    }
    let rewards = prism::parse_srew(data, path, LABELLED_STATES);
    if let Ok(rewards) = &rewards {
        assert_eq!(rewards.states.len(), LABELLED_STATES as usize);
        assert!(
            rewards.states.iter().all(|value| value.is_finite()),
            "{rewards:?}"
        );
    }
    static MODELS: OnceLock<Vec<ExplicitModel>> = OnceLock::new();
    let models = MODELS.get_or_init(|| {
        REWARDED_MODELS
            .iter()
            .map(|text| {
                prism::parse_tra(text.as_bytes(), Path::new("fuzz.tra"), None)
                    .expect("the harness's model parses")
            })
            .collect()
    });
    let mut moves_read = false;
    for model in models {
        if let Ok(rewards) = prism::parse_trew(data, path, model) {
            let moves = rewards
                .moves
                .as_ref()
                .expect("transition rewards reward moves");
            let expected = match model {
                ExplicitModel::Mdp(mdp) => mdp.choices(),
                ExplicitModel::Dtmc(_) | ExplicitModel::Ctmc(_) => u64::from(model.states()),
            };
            assert_eq!(moves.len() as u64, expected, "a reward per move");
            assert!(moves.iter().all(|value| value.is_finite()), "{rewards:?}");
            moves_read = true;
        }
    }
    labels.is_ok() || rewards.is_ok() || moves_read
}

/// Checks that every label of `labels` lists states below `states`,
/// ascending and without repeats, one list per name.
fn check_labels(labels: &StateLabels, states: u32) {
    assert_eq!(
        labels.names.len(),
        labels.states.len(),
        "a state list per label"
    );
    for list in &labels.states {
        assert!(
            list.windows(2).all(|pair| pair[0] < pair[1]),
            "{list:?} is not ascending"
        );
        assert!(
            list.iter().all(|&state| state < states),
            "{list:?} names a state beyond {states}"
        );
    }
}

/// Harness of the property reader ([`property::parse_file`]): a property
/// it rejects is located at a column of its line (1 to one past the
/// line's last character). Accepted: every line parses.
pub fn properties(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    match property::parse_file(text) {
        Ok(_) => true,
        Err((line, error)) => {
            let at = text.lines().nth(line - 1).expect("the error's line exists");
            let columns = at.chars().count() + 1;
            assert!(
                (1..=columns).contains(&error.column),
                "column {} of line {line} ({at:?}, {columns} columns): {}",
                error.column,
                error.message
            );
            false
        }
    }
}

/// Calls `harness` with the model text of `data` (see the module
/// documentation) and the path of a model file named `file_name` beside
/// the included files, if any.
fn with_includes(data: &[u8], file_name: &str, harness: impl FnOnce(&str, &Path) -> bool) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    let mut parts = text.split('\0');
    let model = parts.next().unwrap_or_default();
    let includes: Vec<(&str, &str)> = parts
        .map(|part| part.split_once('\n').unwrap_or((part, "")))
        .collect();
    if includes.is_empty() {
        return harness(model, &Path::new(NOWHERE).join(file_name));
    }
    if includes
        .iter()
        .any(|(name, _)| name.is_empty() || name.contains('/') || name.starts_with('.'))
    {
        return false;
    }
    let dir = tempfile::tempdir().expect("a temporary directory can be created");
    for (name, contents) in includes {
        // A name the file system refuses (too long, say) makes no input.
        if std::fs::write(dir.path().join(name), contents).is_err() {
            return false;
        }
    }
    harness(model, &dir.path().join(file_name))
}

/// Whether an EXP word starts with `/` (an absolute file name): a `/`
/// after a character that cannot be part of a word.
fn names_absolute_path(text: &str) -> bool {
    let mut previous = ' ';
    text.chars().any(|c| {
        let starts_word = c == '/' && !(previous.is_alphanumeric() || "_./-!?".contains(previous));
        previous = c;
        starts_word
    })
}

/// The checks of a network a parser accepted (see the module
/// documentation), the round trip through [`net::write`] included.
fn check_network(mut network: Network) {
    if let Err(e) = network.validate() {
        panic!("the parser accepted a network that validate rejects: {e}");
    }
    let counts = explore_bounded(&network);
    for monitor in &network.monitors {
        explore_bounded(&network.with_monitor(monitor));
    }

    let written = net::write(&network);
    let again = match net::parse(&written, &PathBuf::from(NOWHERE).join("written.net")) {
        Ok(again) => again,
        Err(e) => panic!("net::parse rejects what net::write wrote: {e}\n{written}"),
    };
    assert_eq!(
        shape(&again),
        shape(&network),
        "net::write then net::parse changed the network's shape\n{written}"
    );
    let size: usize = network
        .processes
        .iter()
        .map(|p| p.lts.state_names.len())
        .sum::<usize>()
        + network.rules.len();
    if size <= ROUND_TRIP_EXPLORE_LIMIT {
        assert_eq!(
            explore_bounded(&again),
            counts,
            "net::write then net::parse changed the state space\n{written}"
        );
    }
}

/// Processes (states, transitions, error states), rules and monitors of
/// a network, counted.
fn shape(network: &Network) -> (Vec<(usize, usize, usize)>, usize, usize) {
    (
        network
            .processes
            .iter()
            .map(|p| {
                (
                    p.lts.state_names.len(),
                    p.lts.transitions.len(),
                    p.error_states.len(),
                )
            })
            .collect(),
        network.rules.len(),
        network.monitors.len(),
    )
}

/// Encodes `network` and explores at most [`STATE_BUDGET`] states of it,
/// checking the outcome; returns the states, transitions, deadlocks and
/// errors of a complete exploration, `None` for a bounded one.
fn explore_bounded(network: &Network) -> Option<(u64, u64, u64, u64)> {
    let encoded = match EncodedNetwork::new(network) {
        Ok(encoded) => encoded,
        Err(e) => panic!("a small valid network does not encode: {e}"),
    };
    let exploration = reference::explore(
        &encoded,
        &SearchOptions {
            check_deadlock: true,
            keep_going: true,
            max_states: Some(STATE_BUDGET),
            ..SearchOptions::default()
        },
    );
    assert!(
        (1..=STATE_BUDGET).contains(&exploration.states),
        "an exploration bounded to {STATE_BUDGET} states stored {}",
        exploration.states
    );
    if let Some(finding) = &exploration.first
        && let Err(e) = check_finding(&encoded, finding)
    {
        panic!("the reference engine reported a false finding: {e}");
    }
    match exploration.completion {
        Completion::Complete => Some((
            exploration.states,
            exploration.transitions,
            exploration.deadlocks,
            exploration.errors,
        )),
        Completion::StateLimit => None,
        // A model error (a Petri net that is not 1-safe) ends even a search
        // that counts every finding.
        Completion::StoppedAtFinding
            if exploration
                .first
                .as_ref()
                .is_some_and(|f| outcome::is_fatal(&encoded, &f.kind)) =>
        {
            None
        }
        other => panic!("a bounded exploration with --all ended as {other:?}"),
    }
}
