//! Not counting a log twice. A store keeps, per log it imported, the log's
//! identity (SHA-256 of its first 4 KiB), how many bytes were imported and
//! the SHA-256 of those bytes (`activity::store::Imported`). Importing
//! again skips that many bytes when the log still starts with exactly them
//! (the same file, or the same file grown since); any other log is new.
//! A log imported while it held less than 4 KiB (a log being followed
//! that has just been created) is found again by the line ends in its
//! first 4 KiB: its entry is the identity of exactly what was imported.

use std::io::{self, BufRead};

use activity::store::Imported;
use sha2::{Digest, Sha256};

/// The bytes that identify a log.
pub const IDENTITY_BYTES: usize = 4096;

/// What to do with a log, given what the store says it imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// Import from this byte on (0: the whole log).
    From(u64),
    /// The store imported more of this log than the file holds (a
    /// truncated copy): import nothing.
    Nothing,
}

/// Hashes bytes as they are read.
#[derive(Clone, Default)]
pub struct Hasher {
    sha: Sha256,
    identity: Vec<u8>,
    bytes: u64,
}

impl Hasher {
    /// Adds the next bytes of the log (line endings included).
    pub fn update(&mut self, bytes: &[u8]) {
        self.sha.update(bytes);
        let room = IDENTITY_BYTES.saturating_sub(self.identity.len());
        self.identity
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
        self.bytes += bytes.len() as u64;
    }

    /// The log's identity so far (final once 4 KiB have been read).
    pub fn identity(&self) -> String {
        identity_of(&self.identity)
    }

    /// The first bytes added (at most 4 KiB): what the log must still start with.
    pub fn start(&self) -> &[u8] {
        &self.identity
    }

    /// The ledger entry for everything added.
    pub fn finish(self) -> Imported {
        let identity = self.identity();
        Imported {
            log: identity,
            bytes: self.bytes,
            digest: hex(&self.sha.finalize()),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The identity of a log that starts with `start` (at most 4 KiB of it count).
fn identity_of(start: &[u8]) -> String {
    hex(&Sha256::digest(&start[..start.len().min(IDENTITY_BYTES)]))
}

/// Looks up the ledger entry for a log that starts with `first` (its first
/// 4 KiB, or all of it): by its identity, else by each shorter start that
/// ends a line, longest first, whose entry says exactly that much was
/// imported (a lookup per line end: a score for a log of usual lines, once
/// per log new to the ledger).
async fn entry_for<F, Fut>(first: &[u8], known: &mut F) -> io::Result<Option<Imported>>
where
    F: FnMut(String) -> Fut,
    Fut: Future<Output = io::Result<Option<Imported>>>,
{
    if let Some(entry) = known(identity_of(first)).await? {
        return Ok(Some(entry));
    }
    let shorter = memchr::memrchr_iter(b'\n', first)
        .map(|at| at + 1)
        .filter(|&end| end < first.len());
    for end in shorter {
        if let Some(entry) = known(identity_of(&first[..end])).await?
            && entry.bytes == end as u64
        {
            return Ok(Some(entry));
        }
    }
    Ok(None)
}

/// Reads the whole log once to decide: its identity, and whether it starts
/// with the bytes `known` says were imported. `known` is looked up by
/// identity once the first 4 KiB are read; if that fails, so does the plan
/// (importing a log whose ledger could not be read might count it twice).
pub async fn plan<F, Fut>(input: &mut dyn BufRead, mut known: F) -> io::Result<Plan>
where
    F: FnMut(String) -> Fut,
    Fut: Future<Output = io::Result<Option<Imported>>>,
{
    let mut hasher = Hasher::default();
    let mut first = vec![0; IDENTITY_BYTES];
    let mut filled = 0;
    while filled < IDENTITY_BYTES {
        let read = input.read(&mut first[filled..])?;
        if read == 0 {
            break;
        }
        filled += read;
    }
    hasher.update(&first[..filled]);
    let Some(imported) = entry_for(&first[..filled], &mut known).await? else {
        return Ok(Plan::From(0));
    };
    // Hash exactly `imported.bytes` bytes of the log, if it has them.
    let mut left = imported.bytes.saturating_sub(filled as u64);
    if imported.bytes < filled as u64 {
        // Imported less than the identity: rehash from the start.
        hasher = Hasher::default();
        hasher.update(&first[..usize::try_from(imported.bytes).unwrap_or(0)]);
        left = 0;
    }
    while left > 0 {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(Plan::Nothing);
        }
        let take = available
            .len()
            .min(usize::try_from(left).unwrap_or(usize::MAX));
        hasher.update(&available[..take]);
        input.consume(take);
        left -= take as u64;
    }
    let prefix = hasher.finish();
    Ok(if prefix.digest == imported.digest {
        Plan::From(imported.bytes)
    } else {
        Plan::From(0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(text: &[u8]) -> Imported {
        let mut hasher = Hasher::default();
        hasher.update(text);
        hasher.finish()
    }

    async fn plan_of(log: &[u8], known: Option<Imported>) -> Plan {
        let mut input: &[u8] = log;
        plan(&mut input, |_| {
            let known = known.clone();
            async { Ok(known) }
        })
        .await
        .expect("reads")
    }

    /// A busy or unreachable ledger must not read as "never imported":
    /// the log would be counted twice.
    #[tokio::test]
    async fn a_ledger_that_cannot_be_read_stops_the_plan() {
        let mut input: &[u8] = b"line\n";
        let planned = plan(&mut input, |_| async {
            Err(io::Error::other("cannot read the import ledger"))
        })
        .await;
        assert!(planned.is_err(), "{planned:?}");
    }

    #[tokio::test]
    async fn a_known_log_is_skipped_a_grown_one_resumed_another_imported() {
        let log = "line\n".repeat(2000).into_bytes();
        assert_eq!(plan_of(&log, None).await, Plan::From(0));
        assert_eq!(
            plan_of(&log, Some(entry(&log))).await,
            Plan::From(log.len() as u64),
            "the same log: nothing new"
        );
        let mut grown = log.clone();
        grown.extend_from_slice(b"more\n");
        assert_eq!(
            plan_of(&grown, Some(entry(&log))).await,
            Plan::From(log.len() as u64),
            "a grown log: only the new end"
        );
        let mut changed = log.clone();
        changed[9000] = b'X';
        assert_eq!(
            plan_of(&changed, Some(entry(&log))).await,
            Plan::From(0),
            "same start, other content: a new log"
        );
        assert_eq!(
            plan_of(&log[..6000], Some(entry(&log))).await,
            Plan::Nothing,
            "a truncated copy"
        );
        let short = b"tiny\n".to_vec();
        assert_eq!(plan_of(&short, Some(entry(&short))).await, Plan::From(5));
    }

    /// A followed log checkpointed while it held less than 4 KiB has an
    /// identity of that much only; grown past 4 KiB, it is found again.
    #[tokio::test]
    async fn a_log_imported_when_short_is_found_again_once_grown() {
        let log = "a short line\n".repeat(800).into_bytes();
        let mut ledger = std::collections::HashMap::new();
        let early = entry(&log[..13 * 50]);
        ledger.insert(early.log.clone(), early.clone());
        let lookup = |known: std::collections::HashMap<String, Imported>| {
            move |identity: String| {
                let found = known.get(&identity).cloned();
                async move { Ok(found) }
            }
        };
        let mut input: &[u8] = &log;
        assert_eq!(
            plan(&mut input, lookup(ledger.clone()))
                .await
                .expect("reads"),
            Plan::From(13 * 50),
            "resumed after the 50 lines imported"
        );
        let mut other = log.clone();
        other[13 * 10] = b'X';
        let mut input: &[u8] = &other;
        assert_eq!(
            plan(&mut input, lookup(ledger)).await.expect("reads"),
            Plan::From(0),
            "another log with the same first line is new"
        );
        // An entry whose identity is some start but that says more was
        // imported is not this log's.
        let mut mismatched = std::collections::HashMap::new();
        let wrong = Imported {
            bytes: 13 * 60,
            ..early
        };
        mismatched.insert(wrong.log.clone(), wrong);
        let mut input: &[u8] = &log;
        assert_eq!(
            plan(&mut input, lookup(mismatched)).await.expect("reads"),
            Plan::From(0)
        );
    }

    #[test]
    fn the_identity_is_the_first_four_kib() {
        let log = "line\n".repeat(2000).into_bytes();
        let mut whole = Hasher::default();
        whole.update(&log);
        let mut start = Hasher::default();
        start.update(&log[..IDENTITY_BYTES]);
        assert_eq!(whole.identity(), start.identity());
        assert_ne!(whole.finish().digest, start.finish().digest);
    }
}
