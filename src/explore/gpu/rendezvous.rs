//! How the processes of a search split over several processes (`--ranks`,
//! possibly on several hosts) find each other: rank 0 writes NCCL's unique
//! id into a file that every rank can read (a shared file system), the
//! others wait for that file, and all of them join one NCCL communicator
//! with it.
//!
//! The file says how many ranks the job has and which model it searches
//! (a fingerprint of the encoded network), so that a rank started with
//! another `--ranks` or another model stops with a message instead of
//! waiting forever inside NCCL. Rank 0 refuses a file that exists already
//! (left by an earlier job, it would send the other ranks to a
//! communicator that is gone), writes the new one under a temporary name
//! and links it into place whole, and removes it once every rank has
//! joined.

use std::fmt::Write as _;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::gpu::GpuError;

/// Bytes of NCCL's unique id (`ncclUniqueId`).
pub const ID_BYTES: usize = 128;

/// The first line of a rendezvous file, with its version.
const HEADER: &str = "warpcheck rendezvous 1";

/// How often a waiting rank looks for the file.
const POLL: Duration = Duration::from_millis(20);

/// What rank 0 tells the other ranks of its job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invitation {
    /// Processes in the job.
    pub ranks: usize,
    /// The fingerprint of the model the job searches.
    pub model: u64,
    /// NCCL's unique id of the job's communicator.
    pub id: [u8; ID_BYTES],
}

impl Invitation {
    /// The file's text.
    fn text(&self) -> String {
        let mut id = String::with_capacity(2 * ID_BYTES);
        for byte in self.id {
            let _ = write!(id, "{byte:02x}");
        }
        format!(
            "{HEADER}\nranks {}\nmodel {:016x}\nid {id}\n",
            self.ranks, self.model
        )
    }

    /// Reads the file's text; `path` names it in errors.
    fn parse(text: &str, path: &Path) -> Result<Invitation, GpuError> {
        let wrong = |line: usize, what: &str| {
            GpuError::Join(format!(
                "{}:{line}: {what} (not a rendezvous file written by warpcheck's rank 0?)",
                path.display()
            ))
        };
        let lines: Vec<&str> = text.lines().collect();
        if lines.first() != Some(&HEADER) {
            return Err(wrong(1, &format!("expected `{HEADER}`")));
        }
        let field = |line: usize, name: &str| -> Result<&str, GpuError> {
            lines
                .get(line - 1)
                .and_then(|text| text.strip_prefix(name))
                .and_then(|rest| rest.strip_prefix(' '))
                .ok_or_else(|| wrong(line, &format!("expected `{name} ...`")))
        };
        let ranks = field(2, "ranks")?
            .parse()
            .map_err(|_| wrong(2, "the ranks are not a number"))?;
        let model = u64::from_str_radix(field(3, "model")?, 16)
            .map_err(|_| wrong(3, "the model's fingerprint is not 16 hexadecimal digits"))?;
        let hex = field(4, "id")?;
        let bad_id = || wrong(4, &format!("the id is not {ID_BYTES} bytes in hexadecimal"));
        if hex.len() != 2 * ID_BYTES {
            return Err(bad_id());
        }
        if lines.len() > 4 {
            return Err(wrong(5, "unexpected text after the id"));
        }
        let mut id = [0u8; ID_BYTES];
        for (byte, pair) in id.iter_mut().zip(hex.as_bytes().chunks(2)) {
            let pair = std::str::from_utf8(pair).map_err(|_| bad_id())?;
            *byte = u8::from_str_radix(pair, 16).map_err(|_| bad_id())?;
        }
        Ok(Invitation { ranks, model, id })
    }

    /// Whether a rank of `ranks` ranks searching `model` may accept it.
    fn check(&self, ranks: usize, model: u64, path: &Path) -> Result<(), GpuError> {
        if self.ranks != ranks {
            return Err(GpuError::Join(format!(
                "{}: rank 0 started a job of {} ranks, this rank was given --ranks {ranks}",
                path.display(),
                self.ranks
            )));
        }
        if self.model != model {
            return Err(GpuError::Join(format!(
                "{}: rank 0 searches another model (or the same one read with other options)",
                path.display()
            )));
        }
        Ok(())
    }
}

/// Rank 0: writes `invitation` to `path`, which must not exist yet.
pub fn publish(path: &Path, invitation: &Invitation) -> Result<(), GpuError> {
    let io = |what: &str, error: std::io::Error| {
        GpuError::Join(format!("{}: {what}: {error}", path.display()))
    };
    let draft = draft_path(path);
    std::fs::write(&draft, invitation.text()).map_err(|e| io("cannot write", e))?;
    // A hard link puts the whole file in place at once, and fails rather
    // than replace a file that is there.
    let linked = std::fs::hard_link(&draft, path);
    let _ = std::fs::remove_file(&draft);
    linked.map_err(|error| match error.kind() {
        ErrorKind::AlreadyExists => GpuError::Join(format!(
            "{}: the rendezvous file exists already; remove it, or give each job a new path \
             (an earlier job's file would send the other ranks to a communicator that is gone)",
            path.display()
        )),
        _ => io("cannot create", error),
    })
}

/// The temporary name rank 0 writes the file under, beside it.
fn draft_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.draft", std::process::id()));
    path.with_file_name(name)
}

/// Another rank: waits up to `patience` for rank 0's file at `path`, and
/// accepts it if it is for a job of `ranks` ranks searching `model`.
pub fn await_invitation(
    path: &Path,
    ranks: usize,
    model: u64,
    patience: Duration,
) -> Result<Invitation, GpuError> {
    let started = Instant::now();
    loop {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let invitation = Invitation::parse(&text, path)?;
                invitation.check(ranks, model, path)?;
                return Ok(invitation);
            }
            Err(error) if error.kind() == ErrorKind::NotFound => {
                if started.elapsed() >= patience {
                    return Err(GpuError::Join(format!(
                        "{}: rank 0 wrote no rendezvous file within {} s (is rank 0 running, \
                         and is the path on a file system that both ranks see?)",
                        path.display(),
                        patience.as_secs()
                    )));
                }
                std::thread::sleep(POLL);
            }
            Err(error) => {
                return Err(GpuError::Join(format!(
                    "{}: cannot read: {error}",
                    path.display()
                )));
            }
        }
    }
}

/// Rank 0, once every rank has joined: removes the file, so that the next
/// job may use the path.
pub fn withdraw(path: &Path) -> Result<(), GpuError> {
    std::fs::remove_file(path)
        .map_err(|e| GpuError::Join(format!("{}: cannot remove: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invitation() -> Invitation {
        let mut id = [0u8; ID_BYTES];
        for (i, byte) in id.iter_mut().enumerate() {
            *byte = (i * 37) as u8;
        }
        Invitation {
            ranks: 3,
            model: 0x0123_4567_89ab_cdef,
            id,
        }
    }

    #[test]
    fn a_published_invitation_is_accepted_by_the_other_ranks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("job.id");
        publish(&path, &invitation()).unwrap();
        let read = await_invitation(&path, 3, invitation().model, Duration::ZERO).unwrap();
        assert_eq!(read, invitation());
        // Nothing but the file is left beside it.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        withdraw(&path).unwrap();
        assert!(!path.exists());
    }

    #[test]
    fn a_waiting_rank_sees_the_file_when_it_comes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("job.id");
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                publish(&path, &invitation()).unwrap();
            })
        };
        let read = await_invitation(&path, 3, invitation().model, Duration::from_secs(60));
        writer.join().unwrap();
        assert_eq!(read.unwrap(), invitation());
    }

    #[test]
    fn rank_0_refuses_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("job.id");
        std::fs::write(&path, "old").unwrap();
        let error = publish(&path, &invitation()).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "could not join the job's other processes: {}: the rendezvous file exists \
                 already; remove it, or give each job a new path (an earlier job's file would \
                 send the other ranks to a communicator that is gone)",
                path.display()
            )
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        // The draft is gone too.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn ranks_of_another_job_or_model_are_told_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("job.id");
        publish(&path, &invitation()).unwrap();
        let model = invitation().model;
        let other_ranks = await_invitation(&path, 2, model, Duration::ZERO).unwrap_err();
        assert!(
            other_ranks
                .to_string()
                .ends_with("rank 0 started a job of 3 ranks, this rank was given --ranks 2"),
            "{other_ranks}"
        );
        let other_model = await_invitation(&path, 3, model + 1, Duration::ZERO).unwrap_err();
        assert!(
            other_model.to_string().ends_with(
                "rank 0 searches another model (or the same one read with other options)"
            ),
            "{other_model}"
        );
    }

    #[test]
    fn a_rank_gives_up_after_its_patience() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("never.id");
        let started = Instant::now();
        let error = await_invitation(&path, 2, 0, Duration::from_millis(50)).unwrap_err();
        assert!(started.elapsed() >= Duration::from_millis(50));
        assert_eq!(
            error.to_string(),
            format!(
                "could not join the job's other processes: {}: rank 0 wrote no rendezvous file \
                 within 0 s (is rank 0 running, and is the path on a file system that both \
                 ranks see?)",
                path.display()
            )
        );
    }

    #[test]
    fn files_that_are_not_invitations_are_located_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("job.id");
        let good = invitation().text();
        let cases = [
            (
                "hello\n".to_string(),
                "1: expected `warpcheck rendezvous 1`",
            ),
            (
                good.replace("ranks 3", "ranks three"),
                "2: the ranks are not a number",
            ),
            (good.replace("model ", "modle "), "3: expected `model ...`"),
            (
                good.replace("id 00", "id 0g"),
                "4: the id is not 128 bytes in hexadecimal",
            ),
            (format!("{good}extra\n"), "5: unexpected text after the id"),
            (
                good.replace("id 00", "id é"),
                "4: the id is not 128 bytes in hexadecimal",
            ),
        ];
        for (text, expected) in cases {
            std::fs::write(&path, &text).unwrap();
            let error = await_invitation(&path, 3, invitation().model, Duration::ZERO)
                .unwrap_err()
                .to_string();
            assert_eq!(
                error,
                format!(
                    "could not join the job's other processes: {}:{expected} (not a \
                     rendezvous file written by warpcheck's rank 0?)",
                    path.display()
                ),
                "{text:?}"
            );
        }
    }
}
