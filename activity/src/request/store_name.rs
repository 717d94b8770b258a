//! The name of a store (`sqlite`, `eu-web-1`, …): which store served a
//! request, carried by every hit and mark, and the key every row is kept
//! under.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// The name of the store that served a request (`sqlite`, `eu-web-1`, …).
/// Shared, not copied: every hit carries it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct StoreName(Arc<str>);

/// Why a store name was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("a store name is 1 to 40 characters of a-z, 0-9, '-' and '_'")]
pub struct StoreNameError;

impl StoreName {
    /// Checks a store name: 1 to 40 characters of `[a-z0-9_-]`.
    pub fn parse(name: &str) -> Result<Self, StoreNameError> {
        let valid = (1..=40).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
        valid.then(|| Self(name.into())).ok_or(StoreNameError)
    }

    /// The name's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for StoreName {
    type Error = StoreNameError;

    fn try_from(name: String) -> Result<Self, Self::Error> {
        Self::parse(&name)
    }
}

impl From<StoreName> for String {
    fn from(name: StoreName) -> Self {
        name.0.to_string()
    }
}

impl std::fmt::Display for StoreName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
