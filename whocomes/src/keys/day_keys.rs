//! The day keys kept on disk (`DATA_DIR/day-keys`, owner-only): today's
//! and yesterday's token keys and the day they belong to, rewritten when
//! the day turns so that older keys are gone from disk as well as from
//! memory (`activity::ratchet`).
//!
//! First start: the ratchet is seeded from `--key` / `--key-file` (sites
//! sharing a seed agree on every day's key), else from an older
//! `DATA_DIR/key` (which is then deleted: it could remake every day's
//! tokens), else from 32 random bytes. Later starts read the state and
//! turn it to today; a seed still given is not read again.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use activity::ratchet::DayKeys;
use anyhow::Context as _;
use chrono::{NaiveDate, Utc};

/// The state file in the data folder.
pub fn state_path(data_dir: &Path) -> PathBuf {
    data_dir.join("day-keys")
}

/// Day keys that are kept in a file and turned with the day.
#[derive(Clone, Debug)]
pub struct KeptDayKeys {
    /// The keys a counter reads.
    pub keys: Arc<RwLock<DayKeys>>,
    path: PathBuf,
}

impl KeptDayKeys {
    /// Opens (or seeds, on first start) the day keys of `data_dir`, turned to `today`.
    pub fn open(seed: Option<Vec<u8>>, data_dir: &Path, today: NaiveDate) -> anyhow::Result<Self> {
        let path = state_path(data_dir);
        let legacy = crate::keys::site_key::key_path(data_dir);
        let keys = if path.exists() {
            if seed.is_some() {
                tracing::warn!(
                    path = %path.display(),
                    "the day keys are read from their file; the seed given (--key / --key-file) is not used again: remove it, it can remake every day's tokens"
                );
            }
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read the day keys {}", path.display()))?;
            let mut keys = DayKeys::from_state(&text)
                .with_context(|| format!("the day keys {} cannot be read", path.display()))?;
            keys.advance_to(today);
            keys
        } else {
            let (seed, from_legacy) = match seed {
                Some(seed) => (seed, false),
                None if legacy.exists() => {
                    (crate::keys::site_key::read_generated_key(&legacy)?, true)
                }
                None => (random_seed()?, false),
            };
            let keys = DayKeys::seed(&seed, today).context("the seed is empty")?;
            write_state(&path, &keys)?;
            if from_legacy {
                std::fs::remove_file(&legacy).with_context(|| {
                    format!("cannot delete the old key file {}", legacy.display())
                })?;
                tracing::info!(path = %legacy.display(), "seeded the day keys from the old key file, then deleted it");
            } else {
                tracing::info!(path = %path.display(), "made the day keys");
            }
            keys
        };
        write_state(&path, &keys)?;
        Ok(Self {
            keys: Arc::new(RwLock::new(keys)),
            path,
        })
    }

    /// Turns the keys to `today` and rewrites the file if the day moved on.
    pub fn turn(&self, today: NaiveDate) -> anyhow::Result<()> {
        let state = {
            let mut keys = self
                .keys
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if keys.day() >= today {
                return Ok(());
            }
            keys.advance_to(today);
            keys.clone()
        };
        write_state(&self.path, &state)
    }

    /// Turns the keys every minute, until the task returned is aborted or
    /// the process ends.
    pub fn keep_turning(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_secs(60));
            loop {
                every.tick().await;
                if let Err(error) = self.turn(Utc::now().date_naive()) {
                    tracing::error!("{error:#}");
                }
            }
        })
    }
}

fn random_seed() -> anyhow::Result<Vec<u8>> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|error| anyhow::anyhow!("no random bytes: {error}"))?;
    Ok(bytes.to_vec())
}

/// Writes the state whole, owner-only.
fn write_state(path: &Path, keys: &DayKeys) -> anyhow::Result<()> {
    crate::keys::private_file::replace(path, keys.to_state().as_bytes())
        .with_context(|| format!("cannot write the day keys {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(n: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, n).expect("a day")
    }

    #[test]
    fn the_file_forgets_old_keys_and_the_old_key_file_goes() {
        let folder = tempfile::tempdir().expect("a folder");
        std::fs::write(
            crate::keys::site_key::key_path(folder.path()),
            b"an old static key\n",
        )
        .expect("written");
        let kept = KeptDayKeys::open(None, folder.path(), day(10)).expect("opens");
        assert!(
            !crate::keys::site_key::key_path(folder.path()).exists(),
            "the old key is deleted"
        );
        let seeded = DayKeys::seed(b"an old static key", day(10)).expect("a seed");
        let day_ten = seeded.to_state();
        assert_eq!(
            std::fs::read_to_string(state_path(folder.path())).expect("kept"),
            day_ten
        );

        kept.turn(day(13)).expect("turns");
        let on_disk = std::fs::read_to_string(state_path(folder.path())).expect("kept");
        let ten_hex = day_ten.split_whitespace().nth(1).expect("day ten's key");
        assert!(
            !on_disk.contains(ten_hex),
            "day ten's key is gone from disk"
        );
        assert!(on_disk.starts_with("2026-11-13 "));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(state_path(folder.path()))
                .expect("a file")
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "owner only");
        }
        // Reopened later, with a seed given again: the file wins.
        let again =
            KeptDayKeys::open(Some(b"another".to_vec()), folder.path(), day(14)).expect("opens");
        let mut expected = seeded;
        expected.advance_to(day(14));
        assert_eq!(*again.keys.read().expect("a lock"), expected);
    }
}
