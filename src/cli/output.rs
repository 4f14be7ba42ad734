//! Where the command's results go: standard output written without
//! panicking (a closed pipe ends the command quietly), and output files
//! checked before a search so that no verdict waits on an unwritable path.

use std::io::{self, Write};
use std::path::Path;

use crate::error::Error;

/// Writes `text` to standard output and flushes it. A reader that went
/// away gives [`Error::BrokenPipe`]; any other failure (a full disk) is an
/// [`Error::Write`] on "standard output".
pub fn emit(text: &str) -> Result<(), Error> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|source| match source.kind() {
            io::ErrorKind::BrokenPipe => Error::BrokenPipe,
            _ => Error::Write {
                path: "standard output".to_string(),
                source,
            },
        })
}

/// Writes `line` and a line break to standard error, ignoring failure:
/// there is nowhere left to report it.
pub fn note(line: &str) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// A `warning: ...` line on standard error.
pub fn warn(message: &str) {
    note(&format!("warning: {message}"));
}

/// Refuses an output path that names the model file itself, and checks
/// that it can be written, before any work: an existing file must open for
/// writing (it is not truncated here), a new one is created and removed
/// again. `what` names the option in messages (`--trace-out`).
pub fn check_output_path(output: &Path, model: &Path, what: &str) -> Result<(), Error> {
    let usage = |message: String| Error::Usage(format!("{what} {}: {message}", output.display()));
    if same_file(output, model) {
        return Err(usage(
            "this is the model file; refusing to overwrite it".to_string(),
        ));
    }
    match std::fs::metadata(output) {
        Ok(meta) if meta.is_dir() => Err(usage("is a directory".to_string())),
        Ok(_) => std::fs::OpenOptions::new()
            .append(true)
            .open(output)
            .map(drop)
            .map_err(|source| Error::Write {
                path: output.display().to_string(),
                source,
            }),
        Err(_) => std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(output)
            .and_then(|file| {
                drop(file);
                std::fs::remove_file(output)
            })
            .map_err(|source| Error::Write {
                path: output.display().to_string(),
                source,
            }),
    }
}

/// Whether `a` and `b` name one existing file (through links too).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_paths_are_checked_before_use() {
        let dir = tempfile::tempdir().unwrap();
        let model = dir.path().join("m.net");
        std::fs::write(&model, "x").unwrap();
        let message = |r: Result<(), Error>| r.unwrap_err().to_string();
        assert_eq!(
            message(check_output_path(&model, &model, "--trace-out")),
            format!(
                "--trace-out {}: this is the model file; refusing to overwrite it",
                model.display()
            )
        );
        let fresh = dir.path().join("t.aut");
        check_output_path(&fresh, &model, "--trace-out").unwrap();
        assert!(!fresh.exists(), "the check leaves no file behind");
        assert!(
            message(check_output_path(dir.path(), &model, "--trace-out"))
                .ends_with("is a directory")
        );
        let missing = dir.path().join("no/such/dir/t.aut");
        assert!(message(check_output_path(&missing, &model, "-o")).starts_with("cannot write "));
        assert_eq!(std::fs::read_to_string(&model).unwrap(), "x");
    }
}
