//! The keys an import counts with when no seed is given
//! (`DATA_DIR/import-day-keys`, owner-only): one random key per day that a
//! log has lines of, made the first time an import meets that day and kept
//! while the day's visitor rows live (`--visitor-days`), then forgotten.
//!
//! So a history imported in several runs (logrotate cuts a day in two) gives
//! the same address on the same day the same token every run, and is one
//! visitor-day. Who steals the data folder can remake the tokens of the
//! imported days still kept, as the rows themselves are kept; never of a
//! day past the retention (docs/SECURITY.md).
//!
//! File format: a line per day, `YYYY-MM-DD <64 hex>`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use activity::VisitorKey;
use activity::past::PastKeys;
use anyhow::Context as _;
use chrono::{Days, NaiveDate};

/// The file in the data folder.
pub fn import_keys_path(data_dir: &Path) -> PathBuf {
    data_dir.join("import-day-keys")
}

/// One day's key material.
type Material = [u8; 32];

/// Day keys for imports, kept in a file.
pub struct ImportDayKeys {
    path: PathBuf,
    /// How many days before the newest a key is kept.
    keep_days: u32,
    kept: Mutex<Kept>,
}

/// The keys, and from which day on they are kept.
struct Kept {
    /// Days before this one are forgotten (their visitor rows are gone). A
    /// followed log moves it on as its lines' days go by.
    oldest_kept: NaiveDate,
    keys: BTreeMap<NaiveDate, (Material, VisitorKey)>,
}

/// The first day kept `keep_days` after `day`.
fn oldest_kept(day: NaiveDate, keep_days: u32) -> NaiveDate {
    day.checked_sub_days(Days::new(u64::from(keep_days)))
        .unwrap_or(NaiveDate::MIN)
}

impl std::fmt::Debug for ImportDayKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImportDayKeys")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl ImportDayKeys {
    /// Reads the kept keys of `data_dir` (none yet is fine), forgets those
    /// older than `keep_days` before `today`, and writes the file back.
    pub fn open(data_dir: &Path, today: NaiveDate, keep_days: u32) -> anyhow::Result<Self> {
        let path = import_keys_path(data_dir);
        let oldest_kept = oldest_kept(today, keep_days);
        let mut keys = BTreeMap::new();
        if path.exists() {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read the import keys {}", path.display()))?;
            for (number, line) in text.lines().enumerate() {
                let (day, material) = parse_line(line).with_context(|| {
                    format!(
                        "the import keys {} cannot be read (line {})",
                        path.display(),
                        number + 1
                    )
                })?;
                keys.insert(day, (material, key_of(&material)));
            }
        }
        keys.retain(|day, _| *day >= oldest_kept);
        let kept = Self {
            path,
            keep_days,
            kept: Mutex::new(Kept { oldest_kept, keys }),
        };
        kept.write(&kept.lock())?;
        Ok(kept)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Writes every kept day next to the file and renames it over.
    fn write(&self, kept: &Kept) -> anyhow::Result<()> {
        let text: String = kept
            .keys
            .iter()
            .filter(|(day, _)| **day >= kept.oldest_kept)
            .map(|(day, (material, _))| format!("{day} {}\n", hex::encode(material)))
            .collect();
        whocomes::keys::private_file::replace(&self.path, text.as_bytes())
            .with_context(|| format!("cannot write the import keys {}", self.path.display()))
    }
}

impl PastKeys for ImportDayKeys {
    fn key(&self, day: NaiveDate) -> VisitorKey {
        let mut kept = self.lock();
        if let Some((_, key)) = kept.keys.get(&day) {
            return key.clone();
        }
        let material = random_material();
        let key = key_of(&material);
        kept.keys.insert(day, (material, key.clone()));
        // A log followed for longer than the retention: the days its rows
        // have left are forgotten as new days come.
        let oldest = oldest_kept(day, self.keep_days).max(kept.oldest_kept);
        if oldest > kept.oldest_kept {
            kept.oldest_kept = oldest;
            kept.keys.retain(|kept_day, _| *kept_day >= oldest);
        }
        // Kept before any token made with it is: a later run must find it.
        // A day already past the retention is not written (its rows go).
        if day >= kept.oldest_kept
            && let Err(error) = self.write(&kept)
        {
            tracing::error!(
                "{error:#}: the tokens of {day} will not agree with a later import of the same day"
            );
        }
        key
    }
}

fn random_material() -> Material {
    let mut material = [0u8; 32];
    if let Err(error) = getrandom::fill(&mut material) {
        // Without randomness nothing here can be kept secret: stop.
        panic!("no random bytes for an import key: {error}");
    }
    material
}

fn key_of(material: &Material) -> VisitorKey {
    match VisitorKey::from_bytes(material.to_vec()) {
        Ok(key) => key,
        Err(_) => unreachable!("32 bytes are a key"),
    }
}

fn parse_line(line: &str) -> Option<(NaiveDate, Material)> {
    let (day, text) = line.split_once(' ')?;
    let day = day.parse().ok()?;
    let mut material = [0u8; 32];
    hex::decode_to_slice(text.trim(), &mut material).ok()?;
    Some((day, material))
}

#[cfg(test)]
mod tests {
    use super::*;
    use activity::token::visitor_token;

    fn day(n: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, n).expect("a day")
    }

    #[test]
    fn a_day_keeps_its_key_across_runs_until_its_rows_are_gone() {
        let folder = tempfile::tempdir().expect("a folder");
        let ip = Some("203.0.113.7".parse().expect("an address"));
        let first = ImportDayKeys::open(folder.path(), day(20), 30).expect("opens");
        let token = visitor_token(&first.key(day(12)), day(12), ip);
        let other_day = visitor_token(&first.key(day(13)), day(13), ip);
        drop(first);

        let second = ImportDayKeys::open(folder.path(), day(21), 30).expect("opens");
        assert_eq!(visitor_token(&second.key(day(12)), day(12), ip), token);
        assert_eq!(visitor_token(&second.key(day(13)), day(13), ip), other_day);
        drop(second);

        // Day 12 leaves the retention (5 days kept on the 18th): forgotten.
        let later = ImportDayKeys::open(folder.path(), day(18), 5).expect("opens");
        let on_disk = std::fs::read_to_string(import_keys_path(folder.path())).expect("kept");
        assert!(on_disk.starts_with("2026-11-13 "), "{on_disk}");
        assert!(!on_disk.contains("2026-11-12"));
        assert_eq!(on_disk.lines().count(), 1);
        assert_ne!(visitor_token(&later.key(day(12)), day(12), ip), token);
        // Followed on: the 20th's lines move the window to the 15th.
        let _ = later.key(day(20));
        let on_disk = std::fs::read_to_string(import_keys_path(folder.path())).expect("kept");
        assert!(on_disk.starts_with("2026-11-20 "), "{on_disk}");
        assert_eq!(
            on_disk.lines().count(),
            1,
            "the 13th is forgotten: {on_disk}"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(import_keys_path(folder.path()))
                .expect("a file")
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "owner only");
        }
    }

    #[test]
    fn a_damaged_file_is_a_clear_error() {
        let folder = tempfile::tempdir().expect("a folder");
        std::fs::write(import_keys_path(folder.path()), "2026-11-12 00\n").expect("written");
        let error = ImportDayKeys::open(folder.path(), day(20), 30).expect_err("damaged");
        let message = format!("{error:#}");
        assert!(message.contains("line 1"), "{message}");
    }
}
