//! The journal: what the writer holds for a store that fails, kept in a
//! file of the data folder as well as in memory, so that a stop or a crash
//! during an outage loses nothing held, and the next start writes it once
//! the store answers.
//!
//! The file is one JSON document: the batch being written (with its name,
//! [`BatchId`](crate::port::rows::BatchId)) and the rows waiting behind it.
//! Each keep writes a new file beside the old one and renames it over it,
//! so a crash leaves either the old journal or the new one, whole. It is
//! written only while a store fails (a store that keeps up costs no disk),
//! before each write of a new batch (so a batch the store may have taken
//! is always in the journal under its name: sent again, it counts once),
//! and once an interval while held rows grow. It is removed once all it
//! held is written. A journal that cannot be read is set aside under
//! another name and said, never deleted.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::port::rows::Batch;

/// A journal file, and the most it may take on disk.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    max_bytes: u64,
    /// The newest keep (or clear) written: an older one that comes later is
    /// skipped.
    written: Mutex<u64>,
}

/// What an earlier run left in the journal.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Left {
    /// The batch that was being written, under its name: the store may
    /// have taken it already (it then adds nothing).
    pub outgoing: Option<Batch>,
    /// The rows that waited behind it.
    pub waiting: Batch,
    /// When the oldest of them arrived.
    pub since: Option<DateTime<Utc>>,
}

/// Why the journal could not be kept or read.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// Writing or reading the file failed.
    #[error("the journal {path}: {error}")]
    File {
        /// The file.
        path: String,
        /// What failed.
        error: std::io::Error,
    },
    /// What is held takes more than the journal may.
    #[error(
        "the held rows take {bytes} bytes, more than the journal's {most}; the journal keeps what it held before"
    )]
    TooBig {
        /// What they would take.
        bytes: u64,
        /// The budget.
        most: u64,
    },
    /// The file is not a journal this version can read; it was set aside.
    #[error("the journal {path} cannot be read ({why}); it was set aside as {aside}")]
    Unreadable {
        /// The file.
        path: String,
        /// Why.
        why: String,
        /// Where it is now.
        aside: String,
    },
}

/// The file's shape, as written.
#[derive(Serialize)]
struct Writing<'a> {
    version: u32,
    since: Option<DateTime<Utc>>,
    outgoing: Option<&'a Batch>,
    waiting: &'a Batch,
}

/// The file's shape, as read.
#[derive(Deserialize)]
struct Reading {
    version: u32,
    since: Option<DateTime<Utc>>,
    outgoing: Option<Batch>,
    waiting: Batch,
}

/// The version of the file's shape.
const VERSION: u32 = 1;

impl Journal {
    /// A journal at `path`, taking at most `max_bytes` on disk.
    pub fn new(path: impl Into<PathBuf>, max_bytes: u64) -> Self {
        Self {
            path: path.into(),
            max_bytes,
            written: Mutex::new(0),
        }
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its size on disk now (0: none).
    pub fn size(&self) -> u64 {
        std::fs::metadata(&self.path).map_or(0, |meta| meta.len())
    }

    /// What an earlier run left (`None`: no journal). A file that cannot
    /// be read is renamed aside and the error says where.
    pub fn load(&self) -> Result<Option<Left>, JournalError> {
        let file = match File::open(&self.path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(self.file_error(error)),
        };
        match serde_json::from_reader::<_, Reading>(BufReader::new(file)) {
            Ok(read) if read.version == VERSION => Ok(Some(Left {
                outgoing: read.outgoing,
                waiting: read.waiting,
                since: read.since,
            })),
            Ok(read) => Err(self.set_aside(format!("version {}", read.version))),
            Err(error) => Err(self.set_aside(error.to_string())),
        }
    }

    /// Keeps `outgoing` and `waiting` as the journal, unless a newer keep
    /// (a larger `seq`) was written already; returns the file's size.
    pub(crate) fn keep(
        &self,
        seq: u64,
        since: Option<DateTime<Utc>>,
        outgoing: Option<&Batch>,
        waiting: &Batch,
    ) -> Result<Option<u64>, JournalError> {
        let mut written = self
            .written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if seq < *written {
            return Ok(None);
        }
        let new = self.path.with_extension("new");
        let bytes = self.write_new(&new, since, outgoing, waiting);
        let bytes = match bytes {
            Ok(bytes) if bytes > self.max_bytes => {
                let _ = std::fs::remove_file(&new);
                return Err(JournalError::TooBig {
                    bytes,
                    most: self.max_bytes,
                });
            }
            Ok(bytes) => bytes,
            Err(error) => {
                let _ = std::fs::remove_file(&new);
                return Err(self.file_error(error));
            }
        };
        std::fs::rename(&new, &self.path).map_err(|error| self.file_error(error))?;
        // The rename itself survives a crash once the folder is synced.
        if let Some(folder) = self.path.parent().filter(|p| !p.as_os_str().is_empty())
            && let Ok(folder) = File::open(folder)
        {
            let _ = folder.sync_all();
        }
        *written = seq;
        Ok(Some(bytes))
    }

    /// Removes the journal (all it held is written), unless a newer keep
    /// was written already.
    pub(crate) fn clear(&self, seq: u64) -> Result<(), JournalError> {
        let mut written = self
            .written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if seq < *written {
            return Ok(());
        }
        match std::fs::remove_file(&self.path) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(self.file_error(error)),
        }
        *written = seq;
        Ok(())
    }

    fn write_new(
        &self,
        new: &Path,
        since: Option<DateTime<Utc>>,
        outgoing: Option<&Batch>,
        waiting: &Batch,
    ) -> std::io::Result<u64> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(new)?;
        let mut out = BufWriter::new(file);
        serde_json::to_writer(
            &mut out,
            &Writing {
                version: VERSION,
                since,
                outgoing,
                waiting,
            },
        )?;
        out.flush()?;
        let file = out
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        file.sync_all()?;
        Ok(file.metadata()?.len())
    }

    fn file_error(&self, error: std::io::Error) -> JournalError {
        JournalError::File {
            path: self.path.display().to_string(),
            error,
        }
    }

    /// Renames an unreadable journal aside (kept for whoever wants to look).
    fn set_aside(&self, why: String) -> JournalError {
        let aside = self
            .path
            .with_extension(format!("unreadable-{}", Utc::now().format("%Y%m%dT%H%M%S")));
        let aside_text = match std::fs::rename(&self.path, &aside) {
            Ok(()) => aside.display().to_string(),
            Err(error) => format!("nowhere ({error})"),
        };
        JournalError::Unreadable {
            path: self.path.display().to_string(),
            why,
            aside: aside_text,
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone as _;

    use super::*;
    use crate::port::rows::BatchId;
    use crate::request::hit::StoreName;
    use crate::testing::sample;

    fn batch(seed: u64) -> Batch {
        let name = StoreName::parse("pg").expect("a name");
        let at = Utc
            .with_ymd_and_hms(2026, 12, 7, 9, 0, 0)
            .single()
            .expect("a time");
        Batch::fold(&sample::hits(&name, at, 200, seed))
    }

    #[test]
    fn what_is_kept_is_read_back_whole_and_an_older_keep_is_skipped() {
        let folder = tempfile::tempdir().expect("a folder");
        let journal = Journal::new(folder.path().join("journal.json"), 1 << 30);
        assert_eq!(journal.load().expect("no journal"), None);
        let mut outgoing = batch(1);
        outgoing.id = Some(BatchId::from_bytes([7; 16]));
        let waiting = batch(2);
        let bytes = journal
            .keep(2, None, Some(&outgoing), &waiting)
            .expect("kept")
            .expect("written");
        assert!(bytes > 1_000, "{bytes}");
        // A keep begun before that one comes late: skipped.
        assert_eq!(journal.keep(1, None, None, &batch(3)).expect("ok"), None);
        let left = journal.load().expect("read").expect("a journal");
        assert_eq!(left.outgoing, Some(outgoing));
        assert_eq!(left.waiting, waiting);
        journal.clear(3).expect("cleared");
        assert_eq!(journal.load().expect("gone"), None);
    }

    #[test]
    fn a_journal_over_its_budget_keeps_the_last_that_fit() {
        let folder = tempfile::tempdir().expect("a folder");
        let journal = Journal::new(folder.path().join("journal.json"), 2_000);
        let small = Batch::default();
        journal.keep(1, None, None, &small).expect("fits");
        let error = journal.keep(2, None, None, &batch(4)).expect_err("too big");
        assert!(matches!(error, JournalError::TooBig { .. }), "{error}");
        let left = journal.load().expect("read").expect("the last that fit");
        assert_eq!(left.waiting, small);
    }

    #[test]
    fn an_unreadable_journal_is_set_aside_not_deleted() {
        let folder = tempfile::tempdir().expect("a folder");
        let path = folder.path().join("journal.json");
        std::fs::write(&path, b"{\"version\": 1, \"waiting\": [tr").expect("written");
        let journal = Journal::new(&path, 1 << 20);
        let error = journal.load().expect_err("unreadable");
        assert!(error.to_string().contains("set aside"), "{error}");
        assert!(!path.exists());
        let aside = std::fs::read_dir(folder.path()).expect("listed").count();
        assert_eq!(aside, 1, "the file is kept under another name");
        assert_eq!(journal.load().expect("none now"), None);
    }
}
