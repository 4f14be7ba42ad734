//! Records the commit the binary is built from, for `warpcheck --version`:
//! `WARPCHECK_COMMIT` is the short hash of `HEAD`, with `-modified` when
//! tracked files differ from it, or `unknown` outside a git checkout (a
//! source archive).

use std::process::Command;

/// The trimmed standard output of `git ARGS`, if it succeeds.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).map(|hash| {
        let modified = git(&["status", "--porcelain", "--untracked-files=no"])
            .is_some_and(|changes| !changes.is_empty());
        if modified {
            format!("{hash}-modified")
        } else {
            hash
        }
    });
    println!(
        "cargo:rustc-env=WARPCHECK_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );
    // Build again when HEAD moves or the index changes (commits, checkouts).
    for path in [
        git(&["rev-parse", "--git-path", "HEAD"]),
        git(&["rev-parse", "--git-path", "index"]),
        git(&["rev-parse", "--symbolic-full-name", "HEAD"])
            .and_then(|branch| git(&["rev-parse", "--git-path", &branch])),
    ]
    .into_iter()
    .flatten()
    {
        println!("cargo:rerun-if-changed={path}");
    }
}
