//! The site's secret key: given (as text, or read from a key file by
//! [`read_key_file`], the one reader of a key file), or made once.
//!
//! Order: the key given (`--key`'s UTF-8 bytes, or `--key-file`'s bytes
//! without one trailing newline), else `DATA_DIR/key`, created on first run
//! with 32 random bytes kept as 64 hex digits and a newline, owner-only. The
//! key is never logged; only the path of a generated key file is.
//!
//! A generated key is read back byte for byte: as hex, or (a key file made
//! before the hex form) as exactly the 32 raw bytes it holds — never with a
//! last byte taken for a newline.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use activity::VisitorKey;
use anyhow::Context as _;

use crate::keys::KeyError;

/// The file in the data folder a generated key is kept in.
pub fn key_path(data_dir: &Path) -> PathBuf {
    data_dir.join("key")
}

/// The site's key, by the order above: `given` (the key's bytes, from
/// [`given_seed`](crate::keys::given_seed)), else the generated one.
pub fn site_key(given: Option<Vec<u8>>, data_dir: &Path) -> anyhow::Result<VisitorKey> {
    if let Some(bytes) = given {
        return VisitorKey::from_bytes(bytes).context("the key given is empty");
    }
    let path = key_path(data_dir);
    if path.exists() {
        return VisitorKey::from_bytes(read_generated_key(&path)?)
            .with_context(|| format!("the key file {} is empty", path.display()));
    }
    create_key(&path)
}

/// The bytes of a key file this program made: 64 hex digits (and a
/// newline), or 32 raw bytes from before the hex form. Anything else is
/// read as a hand-written key file (one trailing newline dropped).
pub fn read_generated_key(path: &Path) -> anyhow::Result<Vec<u8>> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("cannot read the key file {}", path.display()))?;
    let text = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    if text.len() == 2 * GENERATED_BYTES
        && let Ok(key) = hex::decode(text)
    {
        return Ok(key);
    }
    if bytes.len() == GENERATED_BYTES {
        return Ok(bytes);
    }
    Ok(text.to_vec())
}

/// How many random bytes a generated key has.
const GENERATED_BYTES: usize = 32;

/// A key file's bytes, one trailing newline dropped; refused if it
/// cannot be read or holds nothing else.
pub fn read_key_file(path: &Path) -> Result<Vec<u8>, KeyError> {
    let mut bytes = std::fs::read(path).map_err(|error| KeyError::Unreadable {
        path: path.to_owned(),
        why: error.to_string(),
    })?;
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
    }
    if bytes.is_empty() {
        return Err(KeyError::EmptyFile(path.to_owned()));
    }
    Ok(bytes)
}

fn create_key(path: &Path) -> anyhow::Result<VisitorKey> {
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)
            .with_context(|| format!("cannot create the data folder {}", folder.display()))?;
    }
    let mut bytes = [0u8; GENERATED_BYTES];
    getrandom::fill(&mut bytes)
        .map_err(|error| anyhow::anyhow!("no random bytes for a key: {error}"))?;
    create_key_with(path, &bytes)
}

/// Keeps `bytes` as the generated key at `path` (hex, owner-only).
fn create_key_with(path: &Path, bytes: &[u8]) -> anyhow::Result<VisitorKey> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options
        .open(path)
        .with_context(|| format!("cannot create the key file {}", path.display()))?;
    file.write_all(format!("{}\n", hex::encode(bytes)).as_bytes())
        .with_context(|| format!("cannot write the key file {}", path.display()))?;
    file.sync_all().ok();
    tracing::info!(path = %path.display(), "generated a new site key (32 random bytes, kept as hex)");
    Ok(VisitorKey::from_bytes(bytes.to_vec())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_key_is_kept_private_and_reused() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let data = folder.path().join("data");
        site_key(None, &data).expect("a key is made");
        let path = key_path(&data);
        let first = std::fs::read(&path).expect("the key file");
        assert_eq!(first.len(), 65, "64 hex digits and a newline");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path)
                .expect("metadata")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        site_key(None, &data).expect("the key is read back");
        assert_eq!(
            std::fs::read(&path).expect("the key file"),
            first,
            "not replaced"
        );
    }

    /// About one random key in 256 ends in 0x0A; it must come back whole,
    /// from the hex form and from a raw key file made before it.
    #[test]
    fn a_generated_key_ending_in_a_newline_byte_survives_restarts() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let data = folder.path().join("data");
        std::fs::create_dir_all(&data).expect("a data folder");
        let mut bytes = [0x5au8; GENERATED_BYTES];
        bytes[GENERATED_BYTES - 1] = b'\n';
        let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 29).expect("a day");
        let ip = "203.0.113.7".parse().ok();
        let made = create_key_with(&key_path(&data), &bytes).expect("kept");
        let token = activity::token::visitor_token(&made, day, ip);
        assert_eq!(read_generated_key(&key_path(&data)).expect("read"), bytes);
        for _ in 0..2 {
            let again = site_key(None, &data).expect("read back");
            assert_eq!(activity::token::visitor_token(&again, day, ip), token);
        }
        // The raw form of earlier versions: 32 bytes, the last one 0x0A.
        std::fs::write(key_path(&data), bytes).expect("written");
        let legacy = site_key(None, &data).expect("read back");
        assert_eq!(activity::token::visitor_token(&legacy, day, ip), token);
    }

    #[test]
    fn a_key_file_loses_one_trailing_newline_and_must_not_be_empty() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let file = folder.path().join("key.txt");
        std::fs::write(&file, "secret\n").expect("written");
        let read = read_key_file(&file).expect("read");
        let from_file = site_key(Some(read), folder.path()).expect("a key");
        let from_text = site_key(Some(b"secret".to_vec()), folder.path()).expect("a key");
        let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 29).expect("a day");
        let ip = "203.0.113.7".parse().ok();
        assert_eq!(
            activity::token::visitor_token(&from_file, day, ip),
            activity::token::visitor_token(&from_text, day, ip)
        );
        std::fs::write(&file, "\n").expect("written");
        let error = read_key_file(&file).expect_err("empty");
        assert!(error.to_string().contains("is empty"), "{error}");
    }
}
