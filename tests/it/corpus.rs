//! Replays the inputs kept by fuzzing through their harnesses
//! (`warpcheck::testing::fuzz`), so that a stable `cargo test` without
//! cargo-fuzz covers them: the minimised corpus of each target
//! (`fuzz/corpus/TARGET/`) and the reproducers of fixed crashes
//! (`fuzz/regressions/TARGET/`). Reproducers of crashes not fixed yet wait
//! in `fuzz/pending/TARGET/`, which is not replayed. Each corpus must also
//! hold inputs that the parser accepts, so that the deeper checks of the
//! harness (encoding, exploration, round trips) are replayed too.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use warpcheck::testing::fuzz;

/// Runs `harness` on every file of the target's corpus and regressions,
/// naming the file that panics; returns how many corpus files there were
/// and how many of them the harness accepted.
fn replay(target: &str, harness: fn(&[u8]) -> bool) -> (usize, usize) {
    let fuzz_dir = crate::repo_root().join("fuzz");
    let (mut files, mut accepted) = (0, 0);
    for kept in ["corpus", "regressions"] {
        for file in files_in(&fuzz_dir.join(kept).join(target)) {
            let data = std::fs::read(&file).expect("a kept input can be read");
            let Ok(was_accepted) = catch_unwind(AssertUnwindSafe(|| harness(&data))) else {
                panic!("the {target} harness panics on {}", file.display());
            };
            if kept == "corpus" {
                files += 1;
                accepted += usize::from(was_accepted);
            }
        }
    }
    (files, accepted)
}

/// Replays the target's inputs and checks that its corpus has accepted
/// inputs.
fn check_target(target: &str, harness: fn(&[u8]) -> bool) {
    let (files, accepted) = replay(target, harness);
    assert!(
        accepted > 0,
        "the {target} harness accepted none of the {files} files of its corpus"
    );
}

/// The files of `dir`, none when it does not exist.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .map(|entry| entry.expect("a directory entry can be read").path())
        .filter(|path| path.is_file())
        .collect()
}

#[test]
fn net_corpus_replays() {
    check_target("net", fuzz::net);
}

#[test]
fn aut_corpus_replays() {
    check_target("aut", fuzz::aut);
}

#[test]
fn exp_corpus_replays() {
    check_target("exp", fuzz::exp);
}

#[test]
fn pnml_corpus_replays() {
    check_target("pnml", fuzz::pnml);
}

#[test]
fn options_corpus_replays() {
    check_target("options", fuzz::options);
}

#[test]
fn pgsolver_corpus_replays() {
    check_target("pgsolver", fuzz::pgsolver);
}

#[test]
fn umb_corpus_replays() {
    check_target("umb", fuzz::umb);
}

#[test]
fn lab_corpus_replays() {
    check_target("lab", fuzz::lab);
}

#[test]
fn properties_corpus_replays() {
    check_target("properties", fuzz::properties);
}
