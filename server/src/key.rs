//! The site's secret key: given as text, read from a file, or made once.
//!
//! Order: `--key` (its UTF-8 bytes), else `--key-file` (the file's bytes,
//! without one trailing newline), else `DATA_DIR/key`, created on first run
//! with 32 random bytes and owner-only permissions. The key is never logged;
//! only the path of a generated key file is.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use activity::VisitorKey;
use anyhow::Context as _;

/// The file in the data folder a generated key is kept in.
pub fn key_path(data_dir: &Path) -> PathBuf {
    data_dir.join("key")
}

/// The site's key, by the order above.
pub fn site_key(
    text: Option<&str>,
    file: Option<&Path>,
    data_dir: &Path,
) -> anyhow::Result<VisitorKey> {
    if let Some(text) = text {
        return VisitorKey::from_text(text).context("--key / WHOCOMES_KEY");
    }
    if let Some(file) = file {
        return read_key(file);
    }
    let path = key_path(data_dir);
    if path.exists() {
        return read_key(&path);
    }
    create_key(&path)
}

fn read_key(path: &Path) -> anyhow::Result<VisitorKey> {
    let mut bytes = std::fs::read(path)
        .with_context(|| format!("cannot read the key file {}", path.display()))?;
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
    }
    VisitorKey::from_bytes(bytes)
        .with_context(|| format!("the key file {} is empty", path.display()))
}

fn create_key(path: &Path) -> anyhow::Result<VisitorKey> {
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)
            .with_context(|| format!("cannot create the data folder {}", folder.display()))?;
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|error| anyhow::anyhow!("no random bytes for a key: {error}"))?;
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
    file.write_all(&bytes)
        .with_context(|| format!("cannot write the key file {}", path.display()))?;
    file.sync_all().ok();
    tracing::info!(path = %path.display(), "generated a new site key (32 random bytes)");
    Ok(VisitorKey::from_bytes(bytes.to_vec())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_key_is_kept_private_and_reused() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let data = folder.path().join("data");
        site_key(None, None, &data).expect("a key is made");
        let path = key_path(&data);
        let first = std::fs::read(&path).expect("the key file");
        assert_eq!(first.len(), 32);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path)
                .expect("metadata")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        site_key(None, None, &data).expect("the key is read back");
        assert_eq!(
            std::fs::read(&path).expect("the key file"),
            first,
            "not replaced"
        );
    }

    #[test]
    fn a_key_file_loses_one_trailing_newline_and_must_not_be_empty() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let file = folder.path().join("key.txt");
        std::fs::write(&file, "secret\n").expect("written");
        let from_file = site_key(None, Some(&file), folder.path()).expect("a key");
        let from_text = site_key(Some("secret"), None, folder.path()).expect("a key");
        let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 29).expect("a day");
        let ip = "203.0.113.7".parse().ok();
        assert_eq!(
            activity::token::visitor_token(&from_file, day, ip),
            activity::token::visitor_token(&from_text, day, ip)
        );
        std::fs::write(&file, "\n").expect("written");
        let error = site_key(None, Some(&file), folder.path()).expect_err("empty");
        assert!(format!("{error:#}").contains("is empty"));
    }
}
