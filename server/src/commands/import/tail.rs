//! A log that is still being written: read by complete lines only (a line
//! still being written waits for its end), hashed for the ledger as its
//! bytes are consumed, and watched for the two ways logrotate starts a new
//! log — the path renamed away and created again, or the file copied and
//! truncated in place (or rewritten, so that it no longer starts with what
//! was read).

use std::fs::File;
use std::io::{self, Read as _, Seek as _, SeekFrom};
use std::os::unix::fs::{FileExt as _, MetadataExt as _};
use std::path::Path;

use activity::store::Imported;

use super::ledger::Hasher;
use super::lines::Line;

/// How much is read from the file at once.
const CHUNK: usize = 64 * 1024;

/// What became of the log since the last look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The same file at the path, holding at least what was read.
    Same,
    /// The file holds less than was read, or no longer starts with it:
    /// truncated (copytruncate), perhaps written again since.
    Truncated,
    /// Another file is at the path now (renamed away and created again).
    Replaced,
}

/// A followed log file.
pub struct Tail {
    file: File,
    /// The file's device and inode, to tell when the path names another.
    inode: (u64, u64),
    /// Bytes read from the file and not yet consumed, from `start` on.
    buffer: Vec<u8>,
    start: usize,
    /// Bytes read from the file so far.
    read: u64,
    /// Everything consumed.
    hasher: Hasher,
    /// Inside a line longer than the cap, whose first part was consumed:
    /// how many of its bytes were, and the hasher before it (the ledger's
    /// entry stays at the line's start until the line ends).
    long_line: Option<(u64, Hasher)>,
    /// Lines in the bytes skipped at the start.
    skipped_lines: u64,
    cap: usize,
}

impl std::fmt::Debug for Tail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // No line's bytes: only where the reading is.
        f.debug_struct("Tail")
            .field("inode", &self.inode)
            .field("read", &self.read)
            .field("held", &(self.buffer.len() - self.start))
            .finish_non_exhaustive()
    }
}

impl Tail {
    /// Follows `file` from byte `from` on (its first `from` bytes are read
    /// and hashed, not counted), keeping at most `cap` bytes of a line.
    pub fn new(mut file: File, from: u64, cap: usize) -> io::Result<Self> {
        let metadata = file.metadata()?;
        file.seek(SeekFrom::Start(0))?;
        let mut tail = Self {
            file,
            inode: (metadata.dev(), metadata.ino()),
            buffer: Vec::with_capacity(CHUNK),
            start: 0,
            read: 0,
            hasher: Hasher::default(),
            long_line: None,
            skipped_lines: 0,
            cap,
        };
        let mut left = from;
        let mut chunk = vec![0; CHUNK];
        while left > 0 {
            let want = chunk.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            let got = tail.file.read(&mut chunk[..want])?;
            if got == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the log is shorter than what the ledger says was imported",
                ));
            }
            tail.hasher.update(&chunk[..got]);
            tail.skipped_lines += memchr::memchr_iter(b'\n', &chunk[..got]).count() as u64;
            tail.read += got as u64;
            left -= got as u64;
        }
        Ok(tail)
    }

    /// Reads the next complete line into `line` (cleared first); `false`
    /// when the file holds no complete line more for now.
    pub fn next_line(&mut self, line: &mut Line) -> io::Result<bool> {
        line.bytes.clear();
        line.consumed = 0;
        line.too_long = false;
        loop {
            let pending = &self.buffer[self.start..];
            if let Some(end) = memchr::memchr(b'\n', pending) {
                let raw = &pending[..=end];
                self.hasher.update(raw);
                let mut text = &raw[..end];
                if let Some((before, _)) = self.long_line.take() {
                    line.consumed = before;
                    line.too_long = true;
                } else {
                    if text.last() == Some(&b'\r') {
                        text = &text[..text.len() - 1];
                    }
                    line.too_long = text.len() > self.cap;
                    line.bytes
                        .extend_from_slice(&text[..text.len().min(self.cap)]);
                }
                line.consumed += raw.len() as u64;
                self.start += end + 1;
                return Ok(true);
            }
            if pending.len() > self.cap {
                // A line longer than the cap: only its length is kept.
                let (held, _) = self
                    .long_line
                    .get_or_insert_with(|| (0, self.hasher.clone()));
                *held += pending.len() as u64;
                self.hasher.update(pending);
                self.start = self.buffer.len();
            }
            if !self.fill()? {
                return Ok(false);
            }
        }
    }

    /// The unfinished last line of a log that will not grow any more (it
    /// was rotated away), as a line; `false` when there is none.
    pub fn last_line(&mut self, line: &mut Line) -> io::Result<bool> {
        if self.next_line(line)? {
            return Ok(true);
        }
        let pending = &self.buffer[self.start..];
        if pending.is_empty() && self.long_line.is_none() {
            return Ok(false);
        }
        self.hasher.update(pending);
        line.too_long = self.long_line.is_some() || pending.len() > self.cap;
        line.consumed = self.long_line.take().map_or(0, |(held, _)| held) + pending.len() as u64;
        line.bytes
            .extend_from_slice(&pending[..pending.len().min(self.cap)]);
        self.start = self.buffer.len();
        Ok(true)
    }

    /// Reads more of the file after what is held; `false` at its end.
    fn fill(&mut self) -> io::Result<bool> {
        self.buffer.drain(..self.start);
        self.start = 0;
        let held = self.buffer.len();
        self.buffer.resize(held + CHUNK, 0);
        let got = match self.file.read(&mut self.buffer[held..]) {
            Ok(got) => got,
            Err(error) => {
                self.buffer.truncate(held);
                return Err(error);
            }
        };
        self.buffer.truncate(held + got);
        self.read += got as u64;
        Ok(got > 0)
    }

    /// Lines in the bytes skipped at the start (already imported).
    pub fn skipped_lines(&self) -> u64 {
        self.skipped_lines
    }

    /// The ledger entry for every line consumed (up to the start of a long
    /// line still being read): importing from there resumes at a line start.
    pub fn entry(&self) -> Imported {
        match &self.long_line {
            Some((_, before)) => before.clone().finish(),
            None => self.hasher.clone().finish(),
        }
    }

    /// Looks at the file and at `path` (one `stat` each, and a read of at
    /// most 4 KiB).
    pub fn look(&self, path: &Path) -> io::Result<Change> {
        if self.file.metadata()?.len() < self.read {
            return Ok(Change::Truncated);
        }
        let start = self.hasher.start();
        let mut now = vec![0; start.len()];
        match self.file.read_exact_at(&mut now, 0) {
            Ok(()) if now == start => {}
            Ok(()) => return Ok(Change::Truncated),
            Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => {
                return Ok(Change::Truncated);
            }
            Err(error) => return Err(error),
        }
        match std::fs::metadata(path) {
            Ok(metadata) if (metadata.dev(), metadata.ino()) != self.inode => Ok(Change::Replaced),
            Ok(_) => Ok(Change::Same),
            // Renamed away and not created again yet: keep reading the old one.
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(Change::Same),
            Err(error) => Err(error),
        }
    }

    /// Reads the same file again from its start (it was truncated).
    pub fn restart(&mut self) -> io::Result<()> {
        self.file.seek(SeekFrom::Start(0))?;
        self.buffer.clear();
        self.start = 0;
        self.read = 0;
        self.hasher = Hasher::default();
        self.long_line = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    fn lines_now(tail: &mut Tail) -> Vec<(String, u64, bool)> {
        let mut line = Line::default();
        let mut all = Vec::new();
        while tail.next_line(&mut line).expect("reads") {
            all.push((
                String::from_utf8_lossy(&line.bytes).into_owned(),
                line.consumed,
                line.too_long,
            ));
        }
        all
    }

    #[test]
    fn a_line_being_written_waits_for_its_end() {
        let folder = tempfile::tempdir().expect("a folder");
        let path = folder.path().join("access.log");
        let mut writer = File::create(&path).expect("created");
        writer.write_all(b"one\r\ntw").expect("written");
        let mut tail = Tail::new(File::open(&path).expect("opens"), 0, 8).expect("follows");
        assert_eq!(lines_now(&mut tail), vec![("one".to_owned(), 5, false)]);
        assert_eq!(tail.entry().bytes, 5, "the half line is not consumed");
        writer
            .write_all(b"o\nmuch too long a line")
            .expect("written");
        assert_eq!(lines_now(&mut tail), vec![("two".to_owned(), 4, false)]);
        assert_eq!(
            tail.entry().bytes,
            9,
            "the ledger waits for the long line's end"
        );
        writer.write_all(b" ends\nlast").expect("written");
        assert_eq!(
            lines_now(&mut tail),
            vec![(String::new(), 26, true)],
            "too long, every byte counted"
        );
        assert_eq!(tail.entry().bytes, 35);
        let mut line = Line::default();
        assert!(tail.last_line(&mut line).expect("reads"));
        assert_eq!((line.bytes.as_slice(), line.consumed), (&b"last"[..], 4));
        assert!(!tail.last_line(&mut line).expect("reads"));
        assert_eq!(tail.entry().bytes, 39);
        assert_eq!(tail.look(&path).expect("looks"), Change::Same);
    }

    #[test]
    fn truncation_rewriting_and_replacement_are_told_apart() {
        let folder = tempfile::tempdir().expect("a folder");
        let path = folder.path().join("access.log");
        std::fs::write(&path, "first\nsecond\n").expect("written");
        let mut tail = Tail::new(File::open(&path).expect("opens"), 6, 64).expect("follows");
        assert_eq!(lines_now(&mut tail), vec![("second".to_owned(), 7, false)]);
        assert_eq!(tail.entry().bytes, 13, "the skipped start is hashed too");
        assert_eq!(tail.skipped_lines(), 1);

        // Truncated in place.
        File::create(&path).expect("truncated");
        assert_eq!(tail.look(&path).expect("looks"), Change::Truncated);
        // Truncated and written again past where it was read.
        std::fs::write(&path, "another start\n").expect("written");
        assert_eq!(tail.look(&path).expect("looks"), Change::Truncated);
        tail.restart().expect("restarts");
        assert_eq!(
            lines_now(&mut tail),
            vec![("another start".to_owned(), 14, false)]
        );
        assert_eq!(tail.look(&path).expect("looks"), Change::Same);

        // Renamed away: the old file is still read until another appears.
        let rotated = folder.path().join("access.log.1");
        std::fs::rename(&path, &rotated).expect("renamed");
        assert_eq!(tail.look(&path).expect("looks"), Change::Same);
        std::fs::write(&path, "new\n").expect("created");
        assert_eq!(tail.look(&path).expect("looks"), Change::Replaced);
    }

    #[test]
    fn a_skip_past_the_end_is_an_error() {
        let folder = tempfile::tempdir().expect("a folder");
        let path = folder.path().join("access.log");
        std::fs::write(&path, "short\n").expect("written");
        let error = Tail::new(File::open(&path).expect("opens"), 100, 64).expect_err("too short");
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
    }
}
