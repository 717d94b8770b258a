//! The stats API's keys: who may read which stores, and how often.
//!
//! A key is `wck_` and 43 characters of base64url (32 random bytes); only
//! its SHA-256 is kept, with a name, the stores it reads and when it was
//! made. Keys come from a file in the data folder (`api-keys`, one JSON
//! object a line, written by `whocomes api-key create|revoke`) and from
//! the builder (`Builder::api_key`). The file is read again when it
//! changes, so a revoked key stops at its next request without a restart.
//! Each key gets [`PER_HOUR`] requests an hour by default.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use base64::Engine as _;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

/// Requests a key may make in an hour unless set otherwise.
pub const PER_HOUR: u32 = 600;

/// What every key starts with (so a leaked one is recognisable).
pub const PREFIX: &str = "wck_";

/// The file's name in the data folder.
pub const FILE: &str = "api-keys";

/// A kept key: its name, stores and hash, never the key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyEntry {
    /// Its name, unique among the keys (`dashboard`, `grafana`).
    pub name: String,
    /// The stores it reads; empty: every store.
    pub stores: Vec<String>,
    /// SHA-256 of the key, hex.
    pub sha256: String,
    /// When it was made.
    pub created: DateTime<Utc>,
}

impl KeyEntry {
    /// Whether it may read `store`.
    pub fn reads(&self, store: &str) -> bool {
        self.stores.is_empty() || self.stores.iter().any(|s| s == store)
    }

    /// Its stores as said to people: `every store` or the names.
    pub fn scope(&self) -> String {
        if self.stores.is_empty() {
            "every store".to_owned()
        } else {
            self.stores.join(", ")
        }
    }
}

/// Why a key file or a key cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The file cannot be read or written.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line of the file is not a key.
    #[error("{path}, line {line}: not a key's line ({reason})")]
    Line {
        /// The file.
        path: PathBuf,
        /// Its line number (from 1).
        line: usize,
        /// Why.
        reason: String,
    },
    /// A name that is empty, too long or not plain.
    #[error(
        "a key's name is 1 to 64 letters, digits or -_. (it is said in lists and logs); got {0:?}"
    )]
    Name(String),
    /// The name is taken.
    #[error("a key named {0:?} exists; revoke it first or choose another name")]
    Taken(String),
    /// No key has the name.
    #[error("no key is named {0:?}")]
    Unknown(String),
    /// A key given to the builder that is not one `whocomes api-key create` makes.
    #[error(
        "the key named {0:?} is not wck_ and 43 characters of base64url (make one with `whocomes api-key create`)"
    )]
    Malformed(String),
}

/// Makes a new key's text from 32 random bytes.
pub fn new_secret() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(format!(
        "{PREFIX}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    ))
}

/// The SHA-256 of a key's text, hex.
pub fn hash(secret: &str) -> String {
    let digest = Sha256::digest(secret.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `secret` has the shape of a key.
pub fn well_formed(secret: &str) -> bool {
    secret.strip_prefix(PREFIX).is_some_and(|rest| {
        rest.len() == 43
            && rest
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    })
}

fn check_name(name: &str) -> Result<(), KeyError> {
    let plain = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if plain {
        Ok(())
    } else {
        Err(KeyError::Name(name.chars().take(64).collect()))
    }
}

/// The key of the builder: `secret` hashed, read by `stores` (none: all).
pub fn given(name: &str, secret: &str, stores: &[String]) -> Result<KeyEntry, KeyError> {
    check_name(name)?;
    if !well_formed(secret) {
        return Err(KeyError::Malformed(name.to_owned()));
    }
    Ok(KeyEntry {
        name: name.to_owned(),
        stores: stores.to_vec(),
        sha256: hash(secret),
        created: Utc::now(),
    })
}

/// The keys kept in `path` (none when it does not exist).
pub fn read_file(path: &Path) -> Result<Vec<KeyEntry>, KeyError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(KeyError::File {
                path: path.to_owned(),
                source,
            });
        }
    };
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(at, line)| {
            serde_json::from_str(line).map_err(|error| KeyError::Line {
                path: path.to_owned(),
                line: at + 1,
                reason: error.to_string(),
            })
        })
        .collect()
}

/// Writes `keys` to `path` whole (a new file renamed over the old one,
/// readable by its owner only).
fn write_file(path: &Path, keys: &[KeyEntry]) -> Result<(), KeyError> {
    let failed = |source| KeyError::File {
        path: path.to_owned(),
        source,
    };
    let fresh = path.with_extension("new");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&fresh).map_err(failed)?;
    for key in keys {
        let line = serde_json::to_string(key).map_err(|e| failed(std::io::Error::other(e)))?;
        writeln!(file, "{line}").map_err(failed)?;
    }
    file.sync_all().map_err(failed)?;
    std::fs::rename(&fresh, path).map_err(failed)
}

/// Makes a key named `name` for `stores` (none: all) and keeps its hash
/// in `path`; the key itself is returned once and kept nowhere.
pub fn create(path: &Path, name: &str, stores: &[String]) -> Result<String, KeyError> {
    check_name(name)?;
    let mut keys = read_file(path)?;
    if keys.iter().any(|key| key.name == name) {
        return Err(KeyError::Taken(name.to_owned()));
    }
    let secret = new_secret().map_err(|e| KeyError::File {
        path: path.to_owned(),
        source: std::io::Error::other(e),
    })?;
    keys.push(KeyEntry {
        name: name.to_owned(),
        stores: stores.to_vec(),
        sha256: hash(&secret),
        created: Utc::now(),
    });
    write_file(path, &keys)?;
    Ok(secret)
}

/// Removes the key named `name` from `path`.
pub fn revoke(path: &Path, name: &str) -> Result<(), KeyError> {
    let mut keys = read_file(path)?;
    let before = keys.len();
    keys.retain(|key| key.name != name);
    if keys.len() == before {
        return Err(KeyError::Unknown(name.chars().take(64).collect()));
    }
    write_file(path, &keys)
}

/// Why a request's key was not taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No `Authorization: Bearer` header.
    Missing,
    /// Not a key that is kept (or one revoked).
    Invalid,
    /// Over its requests for the hour: wait this long.
    TooMany(Duration),
}

/// The keys a server takes, and what each has used of its hour.
#[derive(Debug)]
pub struct ApiKeys {
    file: Option<PathBuf>,
    given: Vec<KeyEntry>,
    per_hour: u32,
    loaded: Mutex<Loaded>,
    used: Mutex<HashMap<String, (Instant, u32)>>,
}

#[derive(Debug, Default)]
struct Loaded {
    /// The file's modification time and length when read.
    stamp: Option<(SystemTime, u64)>,
    keys: Vec<KeyEntry>,
}

impl Default for ApiKeys {
    fn default() -> Self {
        Self::new(None, Vec::new(), PER_HOUR)
    }
}

impl ApiKeys {
    /// Keys from `file` (read when it changes) and `given` ones, each
    /// allowed `per_hour` requests an hour.
    pub fn new(file: Option<PathBuf>, given: Vec<KeyEntry>, per_hour: u32) -> Self {
        Self {
            file,
            given,
            per_hour: per_hour.max(1),
            loaded: Mutex::new(Loaded::default()),
            used: Mutex::new(HashMap::new()),
        }
    }

    /// The same keys with their file at `file`.
    pub fn with_file(self, file: PathBuf) -> Self {
        Self::new(Some(file), self.given, self.per_hour)
    }

    /// The keys given to the builder.
    pub fn given(&self) -> &[KeyEntry] {
        &self.given
    }

    /// The key of an `Authorization` header's value, if it is kept, and
    /// one more of its requests this hour.
    pub fn admit(&self, authorization: Option<&str>, now: Instant) -> Result<KeyEntry, Refusal> {
        let secret = authorization
            .and_then(|value| value.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|secret| !secret.is_empty())
            .ok_or(Refusal::Missing)?;
        let hashed = hash(secret);
        let key = self.find(&hashed).ok_or(Refusal::Invalid)?;
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let hour = Duration::from_secs(3600);
        let (since, count) = used.entry(key.sha256.clone()).or_insert((now, 0));
        if now.duration_since(*since) >= hour {
            *since = now;
            *count = 0;
        }
        if *count >= self.per_hour {
            return Err(Refusal::TooMany(
                hour.saturating_sub(now.duration_since(*since)),
            ));
        }
        *count += 1;
        Ok(key)
    }

    fn find(&self, hashed: &str) -> Option<KeyEntry> {
        if let Some(key) = self.given.iter().find(|key| key.sha256 == hashed) {
            return Some(key.clone());
        }
        let file = self.file.as_deref()?;
        let stamp = std::fs::metadata(file)
            .ok()
            .and_then(|meta| Some((meta.modified().ok()?, meta.len())));
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if stamp.is_none() {
            loaded.keys.clear();
            loaded.stamp = None;
        } else if loaded.stamp != stamp {
            match read_file(file) {
                Ok(keys) => loaded.keys = keys,
                Err(error) => {
                    tracing::warn!(%error, "the API keys cannot be read; none is taken until they can");
                    loaded.keys.clear();
                }
            }
            loaded.stamp = stamp;
        }
        loaded.keys.iter().find(|key| key.sha256 == hashed).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_taken_until_revoked_and_limited_per_hour() {
        let folder = tempfile::tempdir().expect("a folder");
        let file = folder.path().join(FILE);
        let key = create(&file, "tools", &["demo".to_owned()]).expect("made");
        assert!(well_formed(&key), "{key}");
        assert!(matches!(
            create(&file, "tools", &[]),
            Err(KeyError::Taken(_))
        ));
        assert!(matches!(create(&file, "a b", &[]), Err(KeyError::Name(_))));
        let keys = ApiKeys::new(Some(file.clone()), Vec::new(), 2);
        let bearer = format!("Bearer {key}");
        let start = Instant::now();
        let taken = keys.admit(Some(&bearer), start).expect("taken");
        assert!(taken.reads("demo") && !taken.reads("site"));
        assert!(keys.admit(Some(&bearer), start).is_ok());
        assert!(matches!(
            keys.admit(Some(&bearer), start + Duration::from_secs(60)),
            Err(Refusal::TooMany(wait)) if wait == Duration::from_secs(3540)
        ));
        assert!(
            keys.admit(Some(&bearer), start + Duration::from_secs(3600))
                .is_ok()
        );
        assert_eq!(keys.admit(None, start), Err(Refusal::Missing));
        assert_eq!(
            keys.admit(Some("Bearer wck_x"), start),
            Err(Refusal::Invalid)
        );
        revoke(&file, "tools").expect("revoked");
        assert_eq!(
            keys.admit(Some(&bearer), start + Duration::from_secs(3600)),
            Err(Refusal::Invalid)
        );
        assert!(matches!(revoke(&file, "tools"), Err(KeyError::Unknown(_))));
        assert!(!std::fs::read_to_string(&file).expect("kept").contains(&key));
    }

    #[test]
    fn the_builders_keys_must_be_keys() {
        let key = new_secret().expect("random");
        let given = given("app", &key, &[]).expect("a key");
        assert_eq!(given.sha256, hash(&key));
        assert!(matches!(
            super::given("app", "hunter2", &[]),
            Err(KeyError::Malformed(_))
        ));
        let keys = ApiKeys::new(None, vec![given], PER_HOUR);
        assert!(
            keys.admit(Some(&format!("Bearer {key}")), Instant::now())
                .is_ok()
        );
    }
}
