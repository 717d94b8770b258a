//! The keys a live site makes visitor tokens with. By default, day keys
//! that forget ([`day_keys`]): each day's key is made one way from the day
//! before's and kept in the data folder only while it is needed, so nobody
//! (not the operator, not a copy of the disk) can remake an older day's
//! tokens. [`site_key`] is the older scheme's one key (given, read, or made
//! once); [`private_file`] writes what only the owner may read.

pub mod day_keys;
pub mod private_file;
pub mod site_key;

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use activity::past::{FromSeed, PastKeys};
use activity::ratchet::DayKeys;
use activity::{TokenKeys, VisitorKey};
use anyhow::Context as _;

pub use day_keys::KeptDayKeys;

/// The keys a live site counts with, and the kept day keys to turn at
/// midnight (when there are any).
#[derive(Debug)]
pub struct SiteKeys {
    /// What the counter reads.
    pub keys: TokenKeys,
    /// The day keys kept in the data folder.
    pub kept: Option<KeptDayKeys>,
}

/// How a site's tokens are keyed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyScheme {
    /// A key per day, made one way from the day before's and forgotten
    /// after the next day (kept in `DATA_DIR/day-keys`; the key given only
    /// seeds it on the first start).
    #[default]
    Day,
    /// One key for every day, as first designed: whoever holds it can
    /// remake any day's tokens (the key given, else `DATA_DIR/key`).
    Static,
}

impl std::str::FromStr for KeyScheme {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "day" => Ok(Self::Day),
            "static" => Ok(Self::Static),
            other => Err(format!("{other:?} is not a key scheme: day or static")),
        }
    }
}

/// Why the key given cannot be used. The words never hold the key.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyError {
    /// Both a key and a key file were given.
    #[error("give the key once: as text or as a file, not both")]
    Twice,
    /// The key given as text is empty.
    #[error("the key is empty")]
    Empty,
    /// The key file cannot be read.
    #[error("cannot read {}: {why}", .path.display())]
    Unreadable {
        /// The key file.
        path: PathBuf,
        /// The system's words.
        why: String,
    },
    /// The key file holds nothing but (at most) a newline.
    #[error("{} is empty", .0.display())]
    EmptyFile(PathBuf),
}

/// The key an operator gave, as bytes (a `--key`'s text is its UTF-8
/// bytes) or as a file (its bytes, one trailing newline dropped), checked:
/// not both, not empty, the file readable. `None`: none was given.
pub fn given_seed(key: Option<&[u8]>, file: Option<&Path>) -> Result<Option<Vec<u8>>, KeyError> {
    match (key, file) {
        (Some(_), Some(_)) => Err(KeyError::Twice),
        (Some([]), None) => Err(KeyError::Empty),
        (Some(key), None) => Ok(Some(key.to_vec())),
        (None, Some(file)) => site_key::read_key_file(file).map(Some),
        (None, None) => Ok(None),
    }
}

/// The keys a live site counts with, by `scheme`: day keys (see
/// [`live_day_keys`]), or the static key (`seed`, else the one kept in
/// `data_dir`, made on the first start). `None` when no key was given and
/// there is no data folder to keep one in.
pub fn live_keys(
    scheme: KeyScheme,
    seed: Option<Vec<u8>>,
    data_dir: Option<&Path>,
) -> anyhow::Result<Option<SiteKeys>> {
    match scheme {
        KeyScheme::Day => live_day_keys(seed, data_dir),
        KeyScheme::Static if seed.is_none() && data_dir.is_none() => Ok(None),
        KeyScheme::Static => Ok(Some(SiteKeys {
            keys: TokenKeys::Static(site_key::site_key(
                seed,
                data_dir.unwrap_or(Path::new(".")),
            )?),
            kept: None,
        })),
    }
}

/// Day keys for a live site. With a data folder they are kept there
/// (seeded from `seed` on the first start, else from an older
/// `DATA_DIR/key`, else from random bytes); without one they live in memory,
/// seeded from `seed`, and `None` means no seed was given at all.
///
/// Live hits are of today or yesterday; another day only if the clock
/// jumps: then the seed's own key of that day, or without a seed a key of
/// this run's.
pub fn live_day_keys(
    seed: Option<Vec<u8>>,
    data_dir: Option<&Path>,
) -> anyhow::Result<Option<SiteKeys>> {
    let today = chrono::Utc::now().date_naive();
    let past: Arc<dyn PastKeys> = match &seed {
        Some(seed) => Arc::new(FromSeed::new(seed).context("the key (seed) is empty")?),
        None => Arc::new(ThisRunOnly(random_key()?)),
    };
    match data_dir {
        Some(data_dir) => {
            let kept = KeptDayKeys::open(seed, data_dir, today)?;
            Ok(Some(SiteKeys {
                keys: TokenKeys::Ratchet {
                    keys: kept.keys.clone(),
                    past,
                },
                kept: Some(kept),
            }))
        }
        None => Ok(seed
            .map(|seed| DayKeys::seed(&seed, today))
            .transpose()
            .context("the key (seed) is empty")?
            .map(|keys| SiteKeys {
                keys: TokenKeys::Ratchet {
                    keys: Arc::new(RwLock::new(keys)),
                    past,
                },
                kept: None,
            })),
    }
}

/// The key of a day the live day keys do not make, for this run only.
#[derive(Debug)]
struct ThisRunOnly(VisitorKey);

impl PastKeys for ThisRunOnly {
    fn key(&self, _day: chrono::NaiveDate) -> VisitorKey {
        self.0.clone()
    }
}

/// A key nobody else has: 32 random bytes from the operating system.
pub fn random_key() -> anyhow::Result<VisitorKey> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|error| anyhow::anyhow!("no random bytes: {error}"))?;
    Ok(VisitorKey::from_bytes(bytes.to_vec())?)
}
