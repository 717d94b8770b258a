//! Opening a log (a file, `.gz` or not, or stdin) and reading it line by
//! line without ever holding more than a capped line in memory.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use flate2::read::MultiGzDecoder;

/// The gzip magic bytes.
pub const GZIP: [u8; 2] = [0x1f, 0x8b];

/// Opens `path` (`-`: stdin), decompressing gzip whatever its name.
/// `read` counts the bytes taken from the file itself (compressed ones
/// for gzip), for a progress bar over the file's size.
pub fn open(path: &Path, read: Arc<AtomicU64>) -> io::Result<Box<dyn BufRead>> {
    let raw: Box<dyn Read> = if path == Path::new("-") {
        Box::new(io::stdin().lock())
    } else {
        Box::new(File::open(path)?)
    };
    let counted = Counted { inner: raw, read };
    let mut reader = BufReader::with_capacity(256 * 1024, counted);
    let gzip = reader.fill_buf()?.starts_with(&GZIP);
    Ok(if gzip {
        Box::new(BufReader::with_capacity(
            256 * 1024,
            MultiGzDecoder::new(reader),
        ))
    } else {
        Box::new(reader)
    })
}

/// A reader that counts what it hands on.
struct Counted {
    inner: Box<dyn Read>,
    read: Arc<AtomicU64>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// One line read: its bytes (at most the cap, without the line ending),
/// how many bytes it took in the input, and whether it was longer than the cap.
#[derive(Debug, Default)]
pub struct Line {
    /// The line, cut at the cap, without `\n` or `\r\n`.
    pub bytes: Vec<u8>,
    /// Bytes consumed from the input, line ending included.
    pub consumed: u64,
    /// Whether bytes past the cap were thrown away.
    pub too_long: bool,
}

/// Reads the next line into `line` (cleared first), keeping at most `cap`
/// bytes. Returns `false` at the end of the input.
pub fn next_line(input: &mut dyn BufRead, line: &mut Line, cap: usize) -> io::Result<bool> {
    line.bytes.clear();
    line.consumed = 0;
    line.too_long = false;
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            break;
        }
        let (chunk, found) = match memchr::memchr(b'\n', available) {
            Some(end) => (&available[..end], true),
            None => (available, false),
        };
        let room = cap.saturating_sub(line.bytes.len());
        line.bytes
            .extend_from_slice(&chunk[..chunk.len().min(room)]);
        line.too_long |= chunk.len() > room;
        let used = chunk.len() + usize::from(found);
        line.consumed += used as u64;
        input.consume(used);
        if found {
            break;
        }
    }
    if line.bytes.last() == Some(&b'\r') {
        line.bytes.pop();
    }
    Ok(line.consumed > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[u8], cap: usize) -> Vec<(Vec<u8>, u64, bool)> {
        let mut input: &[u8] = text;
        let mut line = Line::default();
        let mut all = Vec::new();
        while next_line(&mut input, &mut line, cap).expect("reads") {
            all.push((line.bytes.clone(), line.consumed, line.too_long));
        }
        all
    }

    #[test]
    fn lines_are_cut_at_the_cap_and_counted_in_bytes() {
        let read = lines(b"ab\r\nlonger line\n\nlast", 4);
        assert_eq!(
            read,
            vec![
                (b"ab".to_vec(), 4, false),
                (b"long".to_vec(), 12, true),
                (Vec::new(), 1, false),
                (b"last".to_vec(), 4, false),
            ]
        );
    }

    #[test]
    fn gzip_is_read_whatever_the_name() {
        use std::io::Write as _;
        let folder = tempfile::tempdir().expect("a folder");
        let path = folder.path().join("access.log");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"one\ntwo\n").expect("compresses");
        std::fs::write(&path, gz.finish().expect("compressed")).expect("written");
        let mut text = String::new();
        let read = Arc::new(AtomicU64::new(0));
        open(&path, read.clone())
            .expect("opens")
            .read_to_string(&mut text)
            .expect("reads");
        assert_eq!(text, "one\ntwo\n");
        let size = std::fs::metadata(&path).expect("a file").len();
        assert_eq!(read.load(Ordering::Relaxed), size, "the compressed bytes");
    }
}
